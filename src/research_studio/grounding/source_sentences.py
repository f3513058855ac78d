"""A source sentence prepared once for the support check, and whether it carries a term.

`sentence` reads a sentence's terms (stems, synonyms as one, the acronyms of the names it spells
out, a direction said by a phrase) once per sentence, cached: a page is checked many times.
`present` says whether a statement's term is among them, as written or by a word of its family.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from research_studio.grounding.names import expansions, written_acronyms
from research_studio.grounding.terms import canon, negated_terms, phrase_terms, words


@dataclass(frozen=True)
class SourceSentence:
    """One sentence of a source, with what the check compares (computed once per sentence)."""

    text: str
    terms: frozenset[str]

    @property
    def written(self) -> frozenset[str]:
        """The acronyms it writes in capitals."""
        return written_acronyms(self.text)

    @property
    def negated(self) -> frozenset[str]:
        return negated_terms_of(self.text)


@lru_cache(maxsize=8192)
def sentence(text: str) -> SourceSentence:
    """A source sentence prepared for comparison (cached: a page is checked many times)."""
    terms = frozenset(canon(word) for word in words(text))
    return SourceSentence(text=text, terms=terms | _written_otherwise(text))


@lru_cache(maxsize=8192)
def _written_otherwise(text: str) -> frozenset[str]:
    """Terms a sentence carries written another way: the acronyms of the names it spells out
    ("nasa" for "National Aeronautics and Space Administration"), a direction said by a phrase
    ("up from")."""
    return frozenset(canon(form) for form in expansions(text)) | phrase_terms(text)


@lru_cache(maxsize=8192)
def negated_terms_of(text: str) -> frozenset[str]:
    return frozenset(canon(word) for word in negated_terms(text))


# Two words of one family share this many first letters, one ends at most a letter after
# them and the other at most KIN_ENDING ("supremacy" ~ "supremacist", "publicized" ~
# "publicity", never "contract" ~ "contrast"): a stem the suffix-stripper cannot reach,
# without a list of words.
KIN_PREFIX = 6
KIN_ENDING = 3


def kin(term: str, other: str) -> bool:
    """Whether two stems are of one word family: one starts the other (five letters or more),
    or both share KIN_PREFIX letters and end close after their common part."""
    if len(term) >= 5 and len(other) >= 5 and (other.startswith(term) or term.startswith(other)):
        return True
    if len(term) < KIN_PREFIX or term[:KIN_PREFIX] != other[:KIN_PREFIX]:
        return False
    common = KIN_PREFIX
    while common < min(len(term), len(other)) and term[common] == other[common]:
        common += 1
    endings = sorted((len(term) - common, len(other) - common))
    return endings[0] <= 1 and endings[1] <= KIN_ENDING


def present(term: str, available: frozenset[str]) -> bool:
    """Whether a canonical term is in a sentence: as written, or by a word of its family
    ("urbanisation" ~ "urbanised", "supremacy" ~ "supremacists")."""
    if term in available:
        return True
    if len(term) < 5:
        return False
    head = term[:5]  # every word of the family starts with the same five letters
    return any(other[:5] == head and kin(term, other) for other in available)
