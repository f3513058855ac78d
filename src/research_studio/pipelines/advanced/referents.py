"""Namesakes are never merged: which of several same-named entities a run is about, what the
report says when no one could be asked, and which sources are about the others (code decides).

A source is about another candidate when its title, snippet or evidence names something that
sets that candidate apart (an identifier the selected entity does not share) and nothing that
sets the selected one apart. The model may propose more (the ranker asks it); code needs none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from research_studio.core.records import EvidenceRecord, SourceRecord
from research_studio.grounding.quotes import escape_markdown
from research_studio.pipelines.advanced.state import EntityCandidate

MIN_MARK = 3  # shorter identifiers ("AI", "UK") name too much to tell entities apart

ASSUMED_NOTICE = (
    'More than one "{subject}" was found, and no one could be asked which was meant: this report '
    "is about the most likely one, {chosen}. Sources about {others} were left out."
)


def describe(candidate: EntityCandidate) -> str:
    """A candidate as a reader tells it apart: name, description, identifiers."""
    described = f"{candidate['name']} — {candidate['description']}".strip(" —")
    marks = ", ".join(candidate["identifiers"])
    return f"{described} ({marks})" if marks else described


def _marks(candidate: EntityCandidate) -> set[str]:
    return {
        " ".join(mark.lower().split())
        for mark in candidate["identifiers"]
        if len(mark.strip()) >= MIN_MARK and mark.strip().lower() != candidate["name"].lower()
    }


def others(
    selected: EntityCandidate, candidates: Sequence[EntityCandidate]
) -> list[EntityCandidate]:
    """The candidates that are not the selected entity (a different description or identifiers)."""
    return [
        candidate
        for candidate in candidates
        if (candidate["description"], candidate["identifiers"])
        != (selected["description"], selected["identifiers"])
    ]


@lru_cache(maxsize=512)
def _pattern(mark: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, mark.split())) + r"(?!\w)")


def _names(text: str, marks: set[str]) -> bool:
    return any(_pattern(mark).search(text) for mark in marks)


def about_others(
    sources: Sequence[SourceRecord],
    evidence: Sequence[EvidenceRecord],
    selected: EntityCandidate,
    candidates: Sequence[EntityCandidate],
) -> set[str]:
    """The sids of sources that name only another candidate's distinguishing marks."""
    own = _marks(selected)
    theirs = set().union(*(_marks(c) for c in others(selected, candidates))) - own
    if not theirs:
        return set()
    texts = {s["sid"]: f"{s['title']} {s['snippet']}" for s in sources}
    for item in evidence:
        if item["sid"] in texts:
            texts[item["sid"]] += f" {item['text']} {item['quote']}"
    return {
        sid
        for sid, text in texts.items()
        if _names(text.lower(), theirs) and not _names(text.lower(), own)
    }


def assumed_notice(
    subject: str, selected: EntityCandidate, candidates: Sequence[EntityCandidate]
) -> str:
    """What the report opens with when code picked the referent because no one could be asked
    ("" when there was nobody else it could be)."""
    rest = others(selected, candidates)
    if not rest:
        return ""
    return ASSUMED_NOTICE.format(
        subject=escape_markdown(subject),
        chosen=escape_markdown(describe(selected)),
        others=" and ".join(escape_markdown(describe(c)) for c in rest),
    )
