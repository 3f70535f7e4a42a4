"""Performance benchmarks (speed and memory) on one harness; see benchmarks/README.md.

A package so every benchmark runs as `python -m benchmarks.NAME` from the repository root.
"""
