"""The figures and times of a statement's part against the sentences of a source.

A source's datelines date the whole source (`datelines`); a part's figures must be among those
its sentences give (`figure_reasons`); a count the statement makes good itself by naming what it
counts needs no source (`enumerated_counts`); and a sentence that gives another year, date,
version or count than the part's is of another event (`dated_otherwise`, `other_year`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from research_studio.grounding.dates import describe
from research_studio.grounding.source_sentences import SourceSentence
from research_studio.grounding.terms import content_words, figure_matches, figures, word_set

# The units of a date or a time of year: a date is compared whole, never by arithmetic.
DATED = frozenset({"date", "yearmonth", "monthday", "monthname", "quarter"})

# Words of a dateline ("Published 7:33 a.m. ET Aug. 10, 2014 | Updated …") besides its date.
_DATELINE_WORDS = word_set(
    """january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday
    saturday sunday published updated posted last modified am pm et pt gmt utc cet est pst
    edt pdt meta datetime date"""
)
YEAR = re.compile(r"\b(1[5-9]|20)\d\d\b")
_BYLINE = re.compile(r"\s*(?i:by)\s+[A-Z]")


def datelines(sentences: Sequence[str]) -> set[tuple[str, str]]:
    """The figures of the source's datelines (a date and next to no words): they date the
    whole source, so a statement's date may rest on them."""
    found: set[tuple[str, str]] = set()
    for text in sentences:
        if len(text) > 120 or not YEAR.search(text):
            continue
        others = [word for word in content_words(text) if word not in _DATELINE_WORDS]
        if _BYLINE.match(text):  # "By Travis Zimpfer on March 2, 2017": its author's name
            named = {word.lower() for word in re.findall(r"\b[A-Z][\w'-]*", text)}
            others = [word for word in others if word not in named]
        if len(others) <= 1:
            found |= figures(text, source=True)
    return found


def figure_reasons(part: str, available: AbstractSet[tuple[str, str]]) -> list[str]:
    reasons = []
    for value, unit in sorted(figures(part)):
        shown = describe(value, unit) or f"{value}{' ' + unit if unit else ''}"
        matches = [their for their in available if figure_matches((value, unit), their)]
        if matches:
            continue
        same_value = [their for their in available if figure_matches((value, ""), (their[0], ""))]
        if unit and same_value:
            reasons.append(f"figure: the source has {value} but not as {unit}")
        else:
            reasons.append(f"figure: {shown} is not in the source")
    return reasons


# A count the statement makes good itself by naming what it counts ("two students, Larry Page
# and Sergey Brin"): the names, each checked as a name, carry the figure.
_NAME = r"[A-Z][\w'\u2019.-]*(?:[ \t]+[A-Z][\w'\u2019.-]*)*"
_ENUMERATED = re.compile(
    rf"\b(?P<count>(?i:two|three|four|five|six)|[2-6])\b[^,.;:()]{{0,60}}?[,:(]?[ \t]*"
    rf"(?P<items>{_NAME}(?:,[ \t]*{_NAME})*,?[ \t]+(?:and|&)[ \t]+{_NAME})(?![ \t]*\w)"
)
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def enumerated_counts(statement: str) -> set[tuple[str, str]]:
    """The counts a statement lists as many names for, as figures ("2" for "two students,
    Larry Page and Sergey Brin"); a list of another length makes none."""
    found = set()
    for match in _ENUMERATED.finditer(statement):
        count = match.group("count").lower()
        number = _COUNTS.get(count) or int(count)
        items = re.split(r",[ \t]*(?:(?:and|&)[ \t]+)?|[ \t]+(?:and|&)[ \t]+", match["items"])
        if len([item for item in items if item.strip()]) == number:
            found.add((str(number), ""))
    return found


def in_time(stated: AbstractSet[tuple[str, str]]) -> set[tuple[str, str]]:
    return {
        (value, unit)
        for value, unit in stated
        if unit in DATED or (not unit and YEAR.fullmatch(value))
    }


def dated_otherwise(part: str, other: SourceSentence) -> bool:
    """Whether a sentence places the part's event at another time: it gives a year or date and
    none of the part's ("In 1995, Alice in Chains released Grind" for "In 1969, Alice in
    Chains released Grind"), or another figure of the same unit (another version, count or
    amount). Such a sentence never lends the part more of its words than the part's own
    sentence carries: the event would be its, at its time."""
    wanted = in_time(figures(part))
    theirs = in_time(figures(other.text, source=True))
    # A sentence giving one of the part's times is of its event ("Born in 1867, she moved in
    # 1891" rests on the sentence of 1891 too).
    if bool(wanted and theirs) and not any(
        figure_matches(one, their) for one in wanted for their in theirs
    ):
        return True
    return counted_otherwise(figures(part) - wanted, figures(other.text) - theirs)


def counted_otherwise(
    wanted: AbstractSet[tuple[str, str]], theirs: AbstractSet[tuple[str, str]]
) -> bool:
    """Whether a sentence gives a figure of the part's unit and none of the part's figures of
    that unit ("Version 15 … introduced MERGE" is no sentence of PostgreSQL 16)."""
    for unit in {unit for _value, unit in wanted}:
        mine = {figure for figure in wanted if figure[1] == unit}
        other = {figure for figure in theirs if figure[1] == unit}
        if other and not any(figure_matches(one, it) for one in mine for it in other):
            return True
    return False


def years_of(stated: AbstractSet[tuple[str, str]]) -> set[str]:
    return {value[:4] for value, _unit in in_time(stated) if YEAR.match(value[:4])}


def other_year(part: str, text: str) -> bool:
    """Whether a sentence gives years and none of the part's."""
    wanted, theirs = years_of(figures(part)), years_of(figures(text, source=True))
    return bool(wanted and theirs) and not wanted & theirs
