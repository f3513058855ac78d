"""The advanced (V9) pipeline: analyzer, research tree, parallel subagents, gap loop, trust engine."""
