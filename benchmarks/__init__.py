"""Performance benchmarks: `python -m benchmarks` (the same as `research-studio bench`)."""
