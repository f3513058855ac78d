"""The performance harness: model calls, tokens, wall time against the critical path, local search."""
