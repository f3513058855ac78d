"""The advanced pipeline: analyzer, research tree, parallel subagents, gap loop, trust engine."""
