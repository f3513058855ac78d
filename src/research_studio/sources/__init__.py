"""Sources of text: search providers, guarded fetching, parsing, the local document index, cache, page archive."""
