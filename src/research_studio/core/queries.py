"""Search query hygiene: normalization and near-duplicate removal."""

from __future__ import annotations

import re
from collections.abc import Iterable

from rapidfuzz import fuzz

_WORD = re.compile(r"[a-z0-9]+")
_SPACE = re.compile(r"\s+")
# A web address alone: a model's guess at a page, not words a search engine can match.
_BARE_ADDRESS = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|www\.)\S*$", re.IGNORECASE)
# Words that carry no topic: ignored when comparing searches and weighing terms.
STOP_WORDS = frozenset(
    {
        "a",
        "about",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "than",
        "that",
        "the",
        "their",
        "then",
        "there",
        "this",
        "to",
        "vs",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
    }
)
TOKEN_MATCH = 88  # rapidfuzz ratio at which two words count as the same (plurals, typos)


def normalize_query(query: str) -> str:
    """Lower-case words, single-spaced."""
    return " ".join(_WORD.findall(query.lower()))


def content_words(query: str) -> list[str]:
    """Distinct words that carry meaning (stop words dropped)."""
    words = [word for word in _WORD.findall(query.lower()) if word not in STOP_WORDS]
    return list(dict.fromkeys(words)) or _WORD.findall(query.lower())


def similarity(first: str, second: str) -> float:
    """Soft Jaccard of content words: order and stop words ignored, near-identical words matched.

    "applications of quantum computing" and "quantum computing applications" score 1.0, while
    adding a qualifier ("... challenges") makes a different search.
    """
    a, b = content_words(first), content_words(second)
    if not a or not b:
        return 0.0
    unmatched = list(b)
    matches = 0
    for word in a:
        for index, other in enumerate(unmatched):
            if word == other or fuzz.ratio(word, other) >= TOKEN_MATCH:
                matches += 1
                del unmatched[index]
                break
    return matches / (len(a) + len(b) - matches)


def is_near_duplicate(query: str, others: Iterable[str], threshold: float) -> bool:
    """True when `query` is at least `threshold` similar to one of `others`."""
    return any(similarity(query, other) >= threshold for other in others)


def is_bare_address(query: str) -> bool:
    """True for a web address alone, which a search engine cannot match as words."""
    return _BARE_ADDRESS.match(query.strip()) is not None


def dedupe_queries(queries: Iterable[str], done: Iterable[str], threshold: float) -> list[str]:
    """New, distinct queries: drops empties, bare web addresses and anything near a done or an
    earlier query."""
    kept: list[str] = []
    seen = list(done)
    for query in queries:
        query = _SPACE.sub(" ", query).strip()
        if not query or is_bare_address(query) or is_near_duplicate(query, seen, threshold):
            continue
        kept.append(query)
        seen.append(query)
    return kept
