"""The trust engine: credibility, claims, span verification, cross-validation, confidence."""
