"""Research graphs: standard (single/multi agent) and advanced."""
