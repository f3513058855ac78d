"""Sources that disagree, found by code: the same thing said with another figure, date or polarity.

Two sources conflict when what one says of something is refused by the other's words only for
a figure, a date or a polarity: the support check (`support.assess`) aligns the one's text with
the other's sentences, its terms are carried (the check's own decision, direction and negation
words aside), no entity or qualifier veto says they speak of different things, and every veto
is a figure, a date or a polarity that the other's sentence says otherwise ("45 %" where the
one says "54 %"; a sentence that gives no figure is silent, not in conflict). A part where a
year or version differs besides a value speaks of another time or thing, not of the same one.

A conflict is settled only by a third source: when the sources that support one side outnumber
those that support the other, it is resolved for that side; otherwise it stays open and both
are shown. A model may propose which is right; code decides only by counting sources.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TypedDict

from research_studio.core.records import EvidenceRecord
from research_studio.grounding.alignment import Alignment, Part
from research_studio.grounding.qualifiers import is_qualifier
from research_studio.grounding.quotes import escape_markdown
from research_studio.grounding.support import assess, features, score, sentences_of, supports
from research_studio.grounding.terms import (
    DIRECTIONS,
    canon,
    content_words,
    figure_matches,
    figures,
    negations,
)

# Terms that flip a statement's direction: missing from the other source, they are its polarity
# (judged by the vetoes), not a sign that it speaks of something else.
_DIRECTION_TERMS = frozenset(term for pair in DIRECTIONS for side in pair for term in side)
_SAYS = re.compile(r"says '([^']+)' where the source says '([^']+)'")
_NEGATES = re.compile(r"source negates '([^']+)'")
# Two texts must share this many terms before the (slower) support check compares them.
SHARED_TERMS = 2
# Of a part's terms, the share its sentences must carry for the two to speak of one thing.
CLOSE_PART = 0.75
# Of a text's terms, the share the other's quote must have before the support check runs.
SHARED_SHARE = 0.6
FIRST_YEAR, LAST_YEAR = 1000, 2200


@dataclass(frozen=True)
class Said:
    """What one source says: a text (a finding, a statement) and the quote of the source it
    rests on."""

    sid: str
    text: str
    quote: str
    section: str = ""


@dataclass(frozen=True)
class Disagreement:
    """How one source's text and another's sentence differ on the same thing."""

    kind: str  # "figure", "date" or "polarity"
    subject: str  # the part of the text they disagree on
    one: str  # what the first says ("54 %", "rose", "affirms")
    other: str  # what the other says


class ConflictSide(TypedDict):
    """One side of a conflict: what it says and the sources that say it."""

    says: str
    sids: list[str]
    text: str


class ConflictRecord(TypedDict):
    """A conflict as result.json keeps it: what, who says what, and how it ended."""

    kind: str
    subject: str
    sides: list[ConflictSide]
    status: str  # "open" (both shown), "resolved" (a third source settles it)
    settled_for: str  # the side's value a majority of sources support ("" while open)
    search: str  # the targeted search run to resolve it ("" when none was)


def _shown(figure: tuple[str, str]) -> str:
    """A figure as a reader writes it: "54 %", "$40", "2019", "the 1990s"."""
    value, unit = figure
    if unit in {"$", "€", "£"}:
        return f"{unit}{value}"
    if unit == "decade":
        return f"the {value}s"
    return f"{value} {unit}" if unit else value


def _is_year(figure: tuple[str, str]) -> bool:
    value, unit = figure
    return unit == "" and value.isdigit() and FIRST_YEAR <= int(value) <= LAST_YEAR


def _comparable(mine: tuple[str, str], theirs: tuple[str, str]) -> bool:
    """Whether two figures measure alike (a year with a year, a percent with a percent) and
    differ in value, whichever is the more precise."""
    if figure_matches(mine, theirs) or figure_matches(theirs, mine):
        return False
    if _is_year(mine) or _is_year(theirs):
        return _is_year(mine) and _is_year(theirs)
    return mine[1] == theirs[1]


def _unsaid(part: Part) -> tuple[str, ...]:
    """The part's words its sentences lack, its direction words aside (they are what the two
    may disagree on, not a sign that they speak of something else)."""
    return tuple(word for word in part.missing if canon(word) not in _DIRECTION_TERMS)


def _carried(alignment: Alignment, statement: str) -> bool:
    """Whether the other source carries the statement's terms (the support check's decision),
    its direction words aside."""
    parts = tuple(replace(part, missing=_unsaid(part)) for part in alignment.parts)
    return bool(alignment.quotes) and score(features(Alignment(parts=parts), statement)) >= 0


def _close(part: Part) -> bool:
    """Whether the sentences found say nearly all of the part: a disagreement is on one thing
    said alike, never on a sentence that only shares its topic."""
    if not part.wanted:
        return False
    return (part.wanted - len(_unsaid(part))) / part.wanted >= CLOSE_PART


_DIGITS = re.compile(r"\d")


def _written(figure: tuple[str, str], text: str) -> bool:
    """Whether the figure is written in digits in the text ("two main groups" is prose, not a
    measurement to dispute)."""
    head = figure[0].split(".")[0]
    return bool(_DIGITS.search(head)) and head in re.sub(r"[,\s]", "", text)


def _figure_difference(part: Part) -> tuple[str, str, str] | None:
    """The part's one figure that the part's own sentences give otherwise: (kind, its value,
    theirs); None when they are silent on it or more than one figure differs."""
    sentences = [text for text in (part.quote, *part.also) if text]
    theirs = set().union(*(figures(text) for text in sentences)) if sentences else set()
    mine = {figure for figure in figures(part.text) if _written(figure, part.text)}
    differing = [f for f in mine if not any(figure_matches(f, other) for other in theirs)]
    if len(differing) != 1:
        return None  # silent, or a year or version differs besides a value: another thing
    wanted = differing[0]
    # What the other says instead: a figure of the part's own sentence, measured alike.
    rivals = [
        other
        for other in figures(part.quote)
        if _comparable(wanted, other) and _written(other, part.quote)
    ]
    rivals = [other for other in rivals if not any(figure_matches(other, f) for f in mine)]
    if len(rivals) != 1:
        return None
    kind = "date" if _is_year(wanted) else "figure"
    return kind, _shown(wanted), _shown(rivals[0])


def _polarity_difference(part: Part) -> tuple[str, str, str] | None:
    """The part's polarity against its sentence: (kind, what it says, what the source says)."""
    for reason in part.reasons:
        if not reason.startswith("polarity:"):
            continue
        if found := _SAYS.search(reason):
            mine, theirs = found.groups()
            if is_qualifier(mine) or is_qualifier(theirs):
                return None  # "before" and "after" name two times, not two answers
            return "polarity", mine, theirs
        if _unsaid(part):
            return None  # a negation disputes only a sentence that says all the rest alike
        if _NEGATES.search(reason):
            return "polarity", "affirms", "denies"
        return "polarity", "denies", "affirms"
    return None


def disagreement(one: Said, other: Said) -> Disagreement | None:
    """How the other source's quote contradicts the one's text on the same thing, or None (it
    supports it, speaks of something else, or is silent on what differs)."""
    sentences = sentences_of(other.quote) or (other.quote,)
    found = assess(one.text, sentences, other.quote)
    if not found.vetoes or any(
        not reason.startswith(("figure:", "polarity:")) or " but not as " in reason
        for reason in found.vetoes
    ):
        return None  # agreement, another entity or qualifier, or another unit: no conflict
    if not _carried(found.alignment, one.text):
        return None
    differences = []
    for part in found.alignment.parts:
        if not part.reasons:
            continue
        if not _close(part):
            return None
        figure = any(reason.startswith("figure:") for reason in part.reasons)
        difference = _figure_difference(part) if figure else _polarity_difference(part)
        if difference is None:
            return None
        differences.append((part.text, difference))
    if len(differences) != 1:
        return None
    subject, (kind, mine, theirs) = differences[0]
    if kind != "polarity":
        subject = _blanked(subject, mine)
    return Disagreement(kind=kind, subject=subject, one=mine, other=theirs)


def _blanked(subject: str, shown: str) -> str:
    """The subject with the disputed figure left out ("fell by … after the heat wave"): the
    values are said beside it."""
    number = re.escape(shown.removeprefix("the ").lstrip("$€£").split(" ")[0]).rstrip("s")
    unit = r"(?:\s?(?:%|per ?cent|percentage points?|°\s?[cf]?|[^\W\d_]+))?" if " " in shown else ""
    return re.sub(rf"[$€£]?(?<![\d.,]){number}(?![\d])s?{unit}", "…", subject, count=1)


@lru_cache(maxsize=8192)
def _terms(text: str) -> frozenset[str]:
    return frozenset(canon(word) for word in content_words(text))


def _shares_terms(one: Said, other: Said) -> bool:
    """A quick test before the support check: the other's quote has most of the one's terms."""
    mine = _terms(one.text) - _DIRECTION_TERMS
    shared = len(mine & _terms(other.quote))
    return shared >= SHARED_TERMS and shared >= SHARED_SHARE * len(mine)


@lru_cache(maxsize=8192)
def _differs(text: str) -> tuple[bool, bool]:
    """Whether a text gives a figure in digits, and whether it negates or has a direction."""
    figured = any(_written(figure, text) for figure in figures(text))
    return figured, bool(negations(text) or _terms(text) & _DIRECTION_TERMS)


def _may_differ(one: Said, other: Said) -> bool:
    """Whether the two have anything to disagree on: figures in both, or a polarity in one."""
    one_figured, one_polar = _differs(one.text)
    other_figured, other_polar = _differs(other.quote)
    return (one_figured and other_figured) or one_polar or other_polar


@dataclass
class Conflict:
    """Sources that say one thing otherwise: each side's sources and the text it says."""

    kind: str
    subject: str
    says: tuple[str, str]
    sids: tuple[list[str], list[str]]
    texts: tuple[str, str]
    section: str = ""
    status: str = "open"
    settled_for: str = ""
    search: str = ""

    def line(self, language: str = "en") -> str:
        """The conflict in one Markdown line: in English "S3 gives 54 %, S5 gives 45 % for "…"";
        in other languages without verbs ("S3: 54 %; S5: 45 % ("…")"), which need no grammar."""
        said = []
        for sids, value in zip(self.sids, self.says, strict=True):
            who = " and ".join(sids) if language == "en" else ", ".join(sids)
            shown = f"'{value}'" if self.kind == "polarity" else value
            if language != "en":
                said.append(f"{who}: {shown}")
            elif self.kind == "polarity":
                said.append(f"{who} {'say' if len(sids) > 1 else 'says'} {shown}")
            else:
                said.append(f"{who} {'give' if len(sids) > 1 else 'gives'} {shown}")
        subject = self.subject.strip(" .")
        if language == "en":
            text = f"{', '.join(said)} for \u201c{subject}\u201d"
        else:
            text = f"{'; '.join(said)} (\u201c{subject}\u201d)"
        return escape_markdown(text)

    def record(self) -> ConflictRecord:
        return ConflictRecord(
            kind=self.kind,
            subject=self.subject,
            sides=[
                ConflictSide(says=says, sids=list(sids), text=text)
                for says, sids, text in zip(self.says, self.sids, self.texts, strict=True)
            ],
            status=self.status,
            settled_for=self.settled_for,
            search=self.search,
        )

    def query(self) -> str:
        """The one targeted search that may settle it: its subject and both values."""
        subject = [word for word in content_words(self.subject) if word not in self.says][:8]
        return " ".join([*subject, *self.says])


def find_conflicts(said: Sequence[Said]) -> list[Conflict]:
    """Every conflict between two sources among what they say (each pair of sources and values
    once; texts of one source never conflict with each other)."""
    found: dict[tuple[str, frozenset[str]], Conflict] = {}
    for index, one in enumerate(said):
        for other in said[index + 1 :]:
            if one.sid == other.sid:
                continue
            pair = _pair(one, other)
            if pair is None:
                continue
            (first, second), difference = pair
            key = (difference.kind, frozenset((difference.one, difference.other)))
            known = found.get(key)
            if known is None:
                found[key] = Conflict(
                    kind=difference.kind,
                    subject=difference.subject,
                    says=(difference.one, difference.other),
                    sids=([first.sid], [second.sid]),
                    texts=(first.text, second.text),
                    section=first.section or second.section,
                )
                continue
            for member, value in ((first, difference.one), (second, difference.other)):
                side = known.says.index(value)
                if member.sid not in known.sids[side]:
                    known.sids[side].append(member.sid)
    return list(found.values())


def _pair(one: Said, other: Said) -> tuple[tuple[Said, Said], Disagreement] | None:
    """The two in the order the disagreement reads (the one whose text differs first)."""
    for first, second in ((one, other), (other, one)):
        if not _shares_terms(first, second) or not _may_differ(first, second):
            continue
        if difference := disagreement(first, second):
            return (first, second), difference
    return None


def settle(conflict: Conflict, pool: Iterable[Said]) -> Conflict:
    """The conflict resolved where a third source tips it: the sources whose quotes support each
    side's text are counted, and the side more sources support wins; else it stays open."""
    backers: tuple[set[str], set[str]] = (set(conflict.sids[0]), set(conflict.sids[1]))
    for said in pool:
        for side, text in enumerate(conflict.texts):
            if said.sid not in backers[side] and supports(text, said.quote).ok:
                backers[side].add(said.sid)
    both = backers[0] & backers[1]
    first, second = backers[0] - both, backers[1] - both
    if len(first | second) < 3 or len(first) == len(second):
        return conflict
    winner = 0 if len(first) > len(second) else 1
    return replace(
        conflict,
        sids=(sorted(first), sorted(second)),
        status="resolved",
        settled_for=conflict.says[winner],
    )


def evidence_said(evidence: Iterable[EvidenceRecord]) -> list[Said]:
    """What the verified evidence says, source by source."""
    return [
        Said(sid=item["sid"], text=item["text"], quote=item["quote"], section=item["question"])
        for item in evidence
        if item["quote_verified"] and item["sid"]
    ]


def settled_conflicts(said: Sequence[Said], pool: Sequence[Said]) -> list[Conflict]:
    """The conflicts among `said`, each settled against `pool` where a third source can."""
    return [settle(conflict, pool) for conflict in find_conflicts(said)]


def contested(text: str, sids: Sequence[str], evidence: Sequence[EvidenceRecord]) -> bool:
    """Whether a verified quote of a source other than `sids` contradicts the text (a claim
    across a conflict is never cross-validated)."""
    mine = Said(sid="", text=text, quote="")
    return any(
        disagreement(mine, other) is not None
        for other in evidence_said(evidence)
        if other.sid not in sids and _shares_terms(mine, other) and _may_differ(mine, other)
    )
