"""Search query hygiene: normalization and near-duplicate removal."""

from __future__ import annotations

import re
from collections.abc import Iterable

from rapidfuzz import fuzz

from research_studio.core import words as vocabulary
from research_studio.core.words import match_key

_SPACE = re.compile(r"\s+")
# A web address alone: a model's guess at a page, not words a search engine can match.
_BARE_ADDRESS = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|www\.)\S*$", re.IGNORECASE)
TOKEN_MATCH = 88  # rapidfuzz ratio at which two words count as the same (plurals, typos)


def normalize_query(query: str) -> str:
    """The query's words folded for matching (case, diacritics), single-spaced."""
    return " ".join(match_key(word) for word in vocabulary.words(query))


def content_words(query: str) -> list[str]:
    """Distinct whole words that carry meaning, lower-case as written (stop words of the query's
    language dropped, single letters and digits kept; all its words when it has nothing else)."""
    every = (vocabulary.printed(word) for word in vocabulary.words(query))
    return vocabulary.content_words(query, single_letters=True) or list(dict.fromkeys(every))


def similarity(first: str, second: str) -> float:
    """Soft Jaccard of content words: order and stop words ignored, near-identical words matched.

    "applications of quantum computing" and "quantum computing applications" score 1.0, while
    adding a qualifier ("... challenges") makes a different search.
    """
    a = [match_key(word) for word in content_words(first)]
    b = [match_key(word) for word in content_words(second)]
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


# Six words in a row from a model's own instructions, absent from the user's request, are the
# instructions copied back, not a proposal (a small model echoes its prompt as a "question").
ECHO_WORDS = 6


def echoes_instructions(text: str, instructions: str, request: str = "") -> bool:
    """True when `text` repeats a run of ECHO_WORDS words of `instructions` that `request`
    does not hold."""

    def runs(source: str) -> set[tuple[str, ...]]:
        keys = vocabulary.tokens(source)
        return {tuple(keys[i : i + ECHO_WORDS]) for i in range(len(keys) - ECHO_WORDS + 1)}

    return bool((runs(text) & runs(instructions)) - runs(request))


def dedupe_queries(queries: Iterable[str], done: Iterable[str], threshold: float) -> list[str]:
    """New, distinct queries: drops empties, text without a word, bare web addresses and anything
    near a done or an earlier query."""
    kept: list[str] = []
    seen = list(done)
    for query in queries:
        query = _SPACE.sub(" ", query).strip()
        wordless = not vocabulary.tokens(query)  # punctuation alone asks nothing
        if wordless or is_bare_address(query) or is_near_duplicate(query, seen, threshold):
            continue
        kept.append(query)
        seen.append(query)
    return kept
