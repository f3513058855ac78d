"""Namesakes are never merged: which of several same-named entities a run is about, what the
report says when no one could be asked, and which sources are about the others (code decides).
Every pipeline uses it: the advanced family's discovery and ranker, V9's and the supervisor's
clarify step, the standard pipeline's clarify step and source merge.

A source is about another candidate when its title, snippet or evidence names something that
sets that candidate apart (an identifier the selected entity does not share) and nothing that
sets the selected one apart. The model may propose more (the ranker asks it); code needs none.

A clarification option either names a reading ("Jane Roe, the economist at Amherst College",
"The snake") or asks for a detail ("Specify the university", "Other (please describe)"); code
tells them apart, and only readings are candidates.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from typing_extensions import TypedDict

from research_studio.core.records import EvidenceRecord, SourceRecord
from research_studio.grounding.quotes import escape_markdown


class EntityCandidate(TypedDict):
    """A distinct entity (or reading) the query's subject may mean."""

    name: str
    description: str
    identifiers: list[str]
    confidence: float


MIN_MARK = 3  # shorter identifiers ("AI", "UK") name too much to tell entities apart

ASSUMED_NOTICE = (
    'More than one "{subject}" was found, and no one could be asked which was meant: this report '
    "is about the most likely one, {chosen}. Sources about {others} were left out."
)
READING_NOTICE = (
    'The question can be read more than one way ("{question}"), and no one could be asked: this '
    'report takes the likeliest reading, "{chosen}", not {others}; sources only about those were '
    "left out."
)
AMBIGUOUS_NOTICE = (
    'The question can be read more than one way ("{question}"), and no one could be asked: '
    "this report researches {reading}."
)

# An option that asks for a detail instead of naming a reading: an imperative or request at the
# start, "other"/"both"/"none" (no single reading), a question, or words addressed to the reader.
_ASKS = re.compile(
    r"^(?:please|specify|provide|clarify|indicate|describe|enter|mention|explain|choose|select|"
    r"pick|other|others|some(?:one|body|thing) else|anything else|none|neither|both|not sure|"
    r"unsure|which|what|i (?:mean|want|don)|all of|any of|any other|"
    r"(?:tell|give|name|state|add|type|share|list|say) (?:me|us|the|a|an|your|which|what|more|"
    r"whether|if|some|any|other|another|details?|context))\b",
    re.IGNORECASE,
)
_ADDRESSED = re.compile(r"\b(?:you|your|yours|please|e\.g|etc)\b", re.IGNORECASE)
# Where an option's description splits into the marks that set its reading apart.
_SPLIT = re.compile(r"\s*(?:[,;:()\[\]/]|\s[-–—]\s|\bat\b|\bfrom\b|\bin\b|\bbased in\b)\s*")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)


def describe(candidate: EntityCandidate) -> str:
    """A candidate as a reader tells it apart: name, description, identifiers (those it does
    not already say)."""
    described = f"{candidate['name']} — {candidate['description']}".strip(" —")
    said = described.lower()
    marks = ", ".join(mark for mark in candidate["identifiers"] if mark.lower() not in said)
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


def _apart(
    selected: EntityCandidate, candidates: Sequence[EntityCandidate]
) -> tuple[set[str], set[str]]:
    """The selected candidate's marks, and the others' marks it does not share."""
    own = _marks(selected)
    return own, set().union(*(_marks(c) for c in others(selected, candidates))) - own


def names_only_others(
    text: str, selected: EntityCandidate, candidates: Sequence[EntityCandidate]
) -> bool:
    """Whether a text names another candidate's distinguishing marks and none of the selected's."""
    own, theirs = _apart(selected, candidates)
    lowered = text.lower()
    return bool(theirs) and _names(lowered, theirs) and not _names(lowered, own)


def about_others(
    sources: Sequence[SourceRecord],
    evidence: Sequence[EvidenceRecord],
    selected: EntityCandidate,
    candidates: Sequence[EntityCandidate],
) -> set[str]:
    """The sids of sources that name only another candidate's distinguishing marks."""
    if not _apart(selected, candidates)[1]:
        return set()
    texts = {s["sid"]: f"{s['title']} {s['snippet']}" for s in sources}
    for item in evidence:
        if item["sid"] in texts:
            texts[item["sid"]] += f" {item['text']} {item['quote']}"
    return {sid for sid, text in texts.items() if names_only_others(text, selected, candidates)}


def kept_apart(
    sources: Sequence[SourceRecord],
    evidence: Sequence[EvidenceRecord],
    selected: EntityCandidate | None,
    candidates: Sequence[EntityCandidate],
) -> tuple[list[SourceRecord], list[EvidenceRecord], list[str]]:
    """The sources and evidence that are not about another candidate, and the sids left out
    (all kept when no referent was selected)."""
    if selected is None:
        return list(sources), list(evidence), []
    out = about_others(sources, evidence, selected, candidates)
    return (
        [source for source in sources if source["sid"] not in out],
        [item for item in evidence if item["sid"] not in out],
        sorted(out),
    )


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


def asks_for_detail(option: str) -> bool:
    """Whether a clarification option asks for a detail ("Specify the university") rather than
    naming a reading ("The snake")."""
    text = " ".join(option.split()).strip(" .-–—*")
    return (
        not text
        or text.endswith(("?", "...", "…"))
        or bool(_ASKS.match(text))
        or bool(_ADDRESSED.search(text))
    )


def referent_of(option: str, subject: str, confidence: float) -> EntityCandidate:
    """A reading named by a clarification option, its marks cut from the option's own words
    (the subject's name is no mark: every reading shares it)."""
    text = " ".join(option.split()).strip(" .")
    name = subject.strip() or text
    lowered = name.lower()
    description = text[len(name) :].strip(" ,;:-–—") if text.lower().startswith(lowered) else text
    marks: list[str] = []
    for part in _SPLIT.split(text):
        mark = _ARTICLE.sub("", part.strip(" .'\"")).strip()
        if len(mark) >= MIN_MARK and lowered not in mark.lower() and mark not in marks:
            marks.append(mark)
    return EntityCandidate(
        name=name, description=description, identifiers=marks[:6], confidence=confidence
    )


class UnaskedReading(NamedTuple):
    """What a run that could not ask its clarification question does: the reading it researches
    (None when no option names one), the option that named it (""), the readings it was chosen
    from, and the report's notice."""

    chosen: EntityCandidate | None
    option: str
    candidates: list[EntityCandidate]
    notice: str


def shared_name(options: Sequence[str]) -> str:
    """The words every reading starts with ("Jane Roe" of "Jane Roe, the economist" and "Jane
    Roe, the painter"): the name they share, "" when they share none worth the name."""
    if len(options) < 2:
        return ""
    split = [_SPLIT.split(" ".join(option.split()), maxsplit=1)[0].split() for option in options]
    shared: list[str] = []
    for words in zip(*split, strict=False):
        if len({word.lower() for word in words}) != 1:
            break
        shared.append(words[0])
    name = _ARTICLE.sub("", " ".join(shared)).strip(" ,;:-–—")
    return name if len(name) >= MIN_MARK and name.lower() not in {"the", "a", "an"} else ""


def unasked_reading(
    subject: str, question: str, options: Sequence[str], researched: str
) -> UnaskedReading:
    """The likeliest reading among the options that name one (the first: options are asked
    for likeliest first), or none; either way the notice the report opens with.

    `subject` is the name the readings share ("" when unknown: then the words they all start
    with, if any); `researched` is what the run researches when no option names a reading."""
    readings: list[str] = []
    for option in options:
        text = " ".join(option.split()).strip(" .")
        if not asks_for_detail(text) and text.lower() not in {r.lower() for r in readings}:
            readings.append(text)
    subject = subject.strip() or shared_name(readings)
    candidates = [
        referent_of(option, subject, round(1.0 - index / (len(readings) + 1), 3))
        for index, option in enumerate(readings)
    ]
    question = escape_markdown(" ".join(question.split()))
    if not candidates:
        reading = f'"{escape_markdown(" ".join(researched.split()))}", as written'
        notice = AMBIGUOUS_NOTICE.format(question=question, reading=reading)
        return UnaskedReading(None, "", [], notice)
    chosen, option = candidates[0], readings[0]
    if subject:
        notice = assumed_notice(subject, chosen, candidates)
    else:
        notice = READING_NOTICE.format(
            question=question,
            chosen=escape_markdown(option),
            others=" or ".join(f'"{escape_markdown(other)}"' for other in readings[1:]),
        )
    if len(candidates) == 1 or not notice:  # no other reading named, or none told apart
        reading = f'"{escape_markdown(option)}"'
        notice = AMBIGUOUS_NOTICE.format(question=question, reading=reading)
    return UnaskedReading(chosen, option, candidates, notice)
