"""Test doubles shared by the test suite and the benchmarks: a scripted model and a local web."""
