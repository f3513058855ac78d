"""A worker's cycle: search, read, extract evidence; verbatim passages; briefs."""
