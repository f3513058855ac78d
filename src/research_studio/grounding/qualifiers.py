"""Qualifiers that make one thing another: the northern reef is not the southern reef.

A statement about adults is not supported by a sentence about children, nor a claim about the
northern reef by a source on the southern one, however many other words they share. Each group
below holds words that exclude one another; where a part of a statement says one side of a group
and the sentences the support check found for it say only another side, the source speaks of a
different entity (`qualifier_reasons`, one of the support check's entity vetoes). Years and
versions are figures: the figure veto already tells "2019" from "2020" and "v3" from "v4".
"""

from __future__ import annotations

from collections.abc import Iterable

from research_studio.grounding.alignment import Alignment
from research_studio.grounding.terms import words, words_of

# Each group: its sides, each side the words that say it. A word belongs to one side only.
_GROUPS: tuple[tuple[str, ...], ...] = (
    (
        "north northern northward northerly",
        "south southern southward southerly",
        "east eastern eastward easterly",
        "west western westward westerly",
        "northeast northeastern",
        "northwest northwestern",
        "southeast southeastern",
        "southwest southwestern",
    ),
    ("before", "after"),
    (
        "adult adults grown-up grown-ups",
        "child children childhood kid kids pediatric paediatric infant infants baby babies "
        "toddler toddlers adolescent adolescents teen teens teenager teenagers juvenile juveniles",
    ),
    ("male males men boys", "female females women girls"),
    ("urban", "rural"),
    ("domestic", "international foreign"),
    ("upstream", "downstream"),
    ("indoor indoors", "outdoor outdoors"),
    ("freshwater", "saltwater"),
    ("younger youngest", "older oldest elderly"),
)
SIDES: dict[str, tuple[int, int]] = {
    word: (group, side)
    for group, sides in enumerate(_GROUPS)
    for side, members in enumerate(sides)
    for word in words_of(members)
}


def qualifiers(text: str) -> dict[int, set[int]]:
    """The sides of each qualifier group a text says ({group: {side, …}})."""
    found: dict[int, set[int]] = {}
    for word in words(text):
        if word in SIDES:
            group, side = SIDES[word]
            found.setdefault(group, set()).add(side)
    return found


def is_qualifier(word: str) -> bool:
    """Whether a word is one side of a qualifier group ("before", "southern", "adult")."""
    return word.lower() in SIDES


def _used(text: str, group: int, sides: set[int]) -> str:
    """The word of the text that says one of the group's sides ("northern")."""
    return next(
        word
        for word in words(text)
        if SIDES.get(word, (-1, -1))[0] == group and SIDES[word][1] in sides
    )


def differing(statement: str, sentences: Iterable[str]) -> list[str]:
    """The qualifiers the statement says where the sentences say only another side of the same
    group, each as "'northern' where the source says 'southern'"."""
    said = qualifiers(statement)
    text = " ".join(sentences)
    found = qualifiers(text)
    return [
        f"'{_used(statement, group, sides)}' where the source says "
        f"'{_used(text, group, found[group])}'"
        for group, sides in sorted(said.items())
        if group in found and not sides & found[group]
    ]


def qualifier_reasons(alignment: Alignment) -> list[str]:
    """The entity veto of a differing qualifier: a part whose own sentences speak of another
    side of one of its qualifiers (the southern reef for the northern one)."""
    reasons = []
    for part in alignment.parts:
        sentences = [text for text in (part.quote, *part.also) if text]
        for difference in differing(part.text, sentences) if sentences else ():
            reasons.append(f"entity: the statement says {difference}")
    return list(dict.fromkeys(reasons))
