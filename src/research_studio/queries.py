"""Search query hygiene: normalization and near-duplicate removal."""

from __future__ import annotations

import re
from collections.abc import Iterable

from rapidfuzz import fuzz

_NON_WORD = re.compile(r"[^\w\s\"']+")
_SPACE = re.compile(r"\s+")


def normalize_query(query: str) -> str:
    """Lower-case, punctuation-light, single-spaced."""
    return _SPACE.sub(" ", _NON_WORD.sub(" ", query.lower())).strip()


def is_near_duplicate(query: str, others: Iterable[str], threshold: float) -> bool:
    """True when `query` matches one of `others` after normalization, or is at least `threshold` similar.

    Token-sort similarity treats "applications of quantum computing" and "quantum computing
    applications" alike while keeping different subjects apart.
    """
    normalized = normalize_query(query)
    for other in others:
        candidate = normalize_query(other)
        if (
            normalized == candidate
            or fuzz.token_sort_ratio(normalized, candidate) >= threshold * 100
        ):
            return True
    return False


def dedupe_queries(queries: Iterable[str], done: Iterable[str], threshold: float) -> list[str]:
    """New, distinct queries: drops empties and anything near a done or an earlier query."""
    kept: list[str] = []
    seen = [query for query in done]
    for query in queries:
        query = _SPACE.sub(" ", query).strip()
        if not query or is_near_duplicate(query, seen, threshold):
            continue
        kept.append(query)
        seen.append(query)
    return kept
