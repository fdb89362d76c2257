"""Benchmarks shipped with the package so `headroom bench ...` reproduces docs/benchmarks.md."""
