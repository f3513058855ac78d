"""Names a sentence gives another way: by a pronoun, by its place, spelled out, by a surname.

A writer says "Curie moved" where the source says "She moved" (the pronoun stands for the name
the sentence before introduced: `referents`), "Asian demand" where it says "demand in Asia",
"CFO" where it says "chief financial officer", "Winslet" where it introduced "Kate Winslet". A
sentence whose pronoun stands for one person supports no other ("Pierre Curie moved" where
"She" is Marie Curie: `referent_reasons`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache

from research_studio.grounding.dates import MONTH_WORDS
from research_studio.grounding.names import (
    OPENERS,
    name_runs,
    opening_name,
    place_forms,
    run_acronyms,
    spelled_in_lower_case,
)
from research_studio.grounding.source_sentences import SourceSentence, present
from research_studio.grounding.terms import canon, entities, word_set


def names_carried(
    part: str,
    quote: SourceSentence,
    named: Callable[[str], bool],
    spelled: Callable[[], frozenset[str]],
) -> set[str]:
    """The words of the part's names the sentence carries written another way: a name the
    sentence abbreviates ("National Aeronautics and Space Administration" for its "NASA"),
    unless the source spells that acronym out as another name (`spelled`); or a full name the
    source introduced and the sentence gives by its last word ("Kate Winslet" where the
    sentence says "Winslet")."""
    carried: set[str] = set()
    for run in name_runs(part):
        lowered = [word.lower() for word in run]
        written = run_acronyms(run) & quote.written
        abbreviated = bool(written and written - spelled())
        if abbreviated or (present(canon(lowered[-1]), quote.terms) and named(" ".join(run))):
            carried.update(lowered)
    return carried


# A pronoun standing for someone named before ("Marie Curie was born in Warsaw. She moved to
# Paris"): the name is carried by the sentence that refers to it.
# Only a person's: "it" and "they" stand for things and groups as often as for a name.
_PRONOUN = re.compile(r"\b(?:he|she|his|her|him|hers)\b", re.IGNORECASE)
# How many sentences back a pronoun's name may be.
REFERENT_REACH = 3
# Capitalised words that name no one: dates and the words that open a sentence or a name.
_NO_REFERENT = (
    MONTH_WORDS
    | OPENERS
    | word_set("it its monday tuesday wednesday thursday friday saturday sunday")
)


# Capitalised words one after another: a name ("Marie Curie", "Curie").
_CAPITALS = re.compile(r"(?<![\w'\u2019-])[A-Z][\w'\u2019-]*(?:[ \t]+[A-Z][\w'\u2019-]*)*")


@lru_cache(maxsize=8192)
def _first_name(text: str) -> tuple[int, frozenset[str]]:
    """Where a sentence first names someone or something, and that name's words. A
    capitalised first word is a name only where it opens a run of them ("Marie Curie was …",
    never "Later she …")."""
    opening = len(text) - len(text.lstrip())
    for match in _CAPITALS.finditer(text):
        names = match.group().split()
        if match.start() == opening:
            names = names if len(names) > 1 else []
        names = [name for name in names if name.lower() not in _NO_REFERENT]
        if names:
            return match.start(), frozenset(name.lower() for name in names)
    return -1, frozenset()


@lru_cache(maxsize=16)  # one page, many statements
def referents(sentences: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """For each sentence that refers back by a pronoun before it names anyone, the words of
    the name it stands for: the first name of the nearest earlier sentence that names one,
    at most REFERENT_REACH back. A sentence opened by a pronoun keeps the name it refers to
    as the one the next sentences refer to (the text goes on about the same person)."""
    found: dict[str, frozenset[str]] = {}
    last: frozenset[str] = frozenset()
    since = 0
    for text in sentences:
        pronoun = _PRONOUN.search(text)
        start, name = _first_name(text)
        refers = pronoun is not None and (start < 0 or pronoun.start() < start)
        if refers and last and since <= REFERENT_REACH:
            found[text] = last
            since = 0
        elif name:
            last, since = name, 0
        else:
            since += 1
    return found


def names_of(part: str) -> dict[str, str]:
    """The part's names, by their lower-case form."""
    return {name.lower(): name for name in entities(part, leading=True)}


def named_otherwise(named: Mapping[str, str], quote: SourceSentence) -> set[str]:
    """The part's names the sentence gives another way: a people by its place ("Asian" for
    "Asia", and the reverse), a title or term it writes out in lower case ("CFO" for "chief
    financial officer")."""

    def given(lowered: str, name: str) -> bool:
        if any(canon(form) in quote.terms for form in place_forms(name)):
            return True
        return name.isupper() and len(name) >= 3 and lowered in spelled_in_lower_case(quote.text)

    return {lowered for lowered, name in named.items() if given(lowered, name)}


def referent_reasons(part: str, quote: SourceSentence, referred: frozenset[str]) -> list[str]:
    """A sentence about someone named before is no support for someone else ("Martin Eberhard
    became chief executive" where "He became chief executive" is Elon Musk)."""
    if not referred:
        return []
    # The part's subject: the full name it opens with.
    subject = {word.lower() for word in opening_name(part)}
    # "Pierre Curie moved" where "She moved" is Marie Curie: a word of the subject's name
    # that is not the name the pronoun stands for.
    others = sorted(subject - referred - {word for word in subject if word in quote.terms})
    if others:
        speaks_of = " ".join(sorted(referred))
        return [f"entity: the sentence found speaks of '{speaks_of}', not '{others[0]}'"]
    return []
