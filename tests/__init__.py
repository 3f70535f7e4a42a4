"""Test suite (a package so per-area test packages never shadow the real ones)."""
