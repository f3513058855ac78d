"""The standard pipeline: single-agent gap loop or multi-agent fan-out, then verify and write."""
