"""Grounding: quotes, statements, claims, credibility and ranking, checked by code, never a model."""
