"""Foundation: configuration, records, typed errors, URLs, languages, time ranges, queries, chunking."""
