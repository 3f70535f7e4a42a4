"""Tests of the performance benchmarks' harness (benchmarks/harness.py, common.results)."""
