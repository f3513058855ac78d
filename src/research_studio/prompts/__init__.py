"""Prompt templates, one module per phase."""
