"""Conflicts between sources in every pipeline: said where cited, listed, searched once, kept.

`mark_conflicts` runs on a closed report: the conflicts between the quotes its statements cite
(`grounding.conflicts`) are settled against all verified evidence, noted in the sections that
cite them ("S3 gives 54 %, S5 gives 45 % for …"), the statements on either side lose ✓✓, and
the records go to result.json; open ones go under Limitations (`open_lines`). A gap step asks
`conflict_gaps` for the open conflicts among the evidence not yet searched: each is a gap with
one targeted search, and `conflict_continues` keeps the loop going for it while rounds remain.
"""

from __future__ import annotations

from collections.abc import Sequence

from research_studio.core.config import ReportStructure
from research_studio.core.records import EvidenceRecord, StatementRecord
from research_studio.grounding.conflicts import (
    Conflict,
    ConflictRecord,
    Said,
    evidence_said,
    settled_conflicts,
)
from research_studio.grounding.printed import GroundedSection
from research_studio.grounding.statements import GroundedReport
from research_studio.pipelines.kit.stopping import CONTINUE, StopReason, cap_reached

# Stop reasons a conflict's one search may override while rounds remain (never a cap or budget).
_OVERRIDABLE = frozenset(
    {"ready", "coverage_reached", "no_gaps", "no_searches_left", "gain_below_threshold"}
)
# The note printed in a section that cites both sides, in each report language (else English).
NOTE = {
    "en": "\u2696 Sources disagree: {line}.",
    "de": "\u2696 Die Quellen widersprechen sich: {line}.",
    "fr": "\u2696 Les sources se contredisent : {line}.",
    "es": "\u2696 Las fuentes discrepan: {line}.",
    "it": "\u2696 Le fonti sono in disaccordo: {line}.",
    "pt": "\u2696 As fontes divergem: {line}.",
    "nl": "\u2696 De bronnen spreken elkaar tegen: {line}.",
}
RESOLVED_NOTE = {
    "en": "\u2696 Sources disagree: {line}; most sources give {value}.",
    "de": "\u2696 Die Quellen widersprechen sich: {line}; die meisten Quellen nennen {value}.",
    "fr": "\u2696 Les sources se contredisent : {line} ; la plupart donnent {value}.",
    "es": "\u2696 Las fuentes discrepan: {line}; la mayoría da {value}.",
    "it": "\u2696 Le fonti sono in disaccordo: {line}; la maggior parte indica {value}.",
    "pt": "\u2696 As fontes divergem: {line}; a maioria indica {value}.",
    "nl": "\u2696 De bronnen spreken elkaar tegen: {line}; de meeste bronnen geven {value}.",
}


def _said(records: Sequence[StatementRecord]) -> list[tuple[Said, StatementRecord]]:
    """What each cited statement says, once per source it cites (with its quote there)."""
    return [
        (Said(sid=quote["sid"], text=record["text"], quote=quote["quote"]), record)
        for record in records
        if record["sids"]
        for quote in record["quotes"]
    ]


def _section_of(
    report: GroundedReport, records: Sequence[StatementRecord]
) -> GroundedSection | None:
    """The last section that prints one of the records (else the first with statements)."""
    holding = [
        section
        for section in report.sections
        if any(any(mine is record for mine in section.records()) for record in records)
    ]
    if holding:
        return holding[-1]
    return next((section for section in report.sections if section.records()), None)


def mark_conflicts(
    report: GroundedReport,
    structure: ReportStructure,
    evidence: Sequence[EvidenceRecord],
    searches_done: Sequence[str] = (),
    language: str = "en",
) -> list[Conflict]:
    """The conflicts between the report's cited sources, settled where a third source can, noted
    where they are cited; the statements on either side lose ✓✓."""
    printed = _said(report.printed(structure))
    said = [item for item, _ in printed]
    conflicts = settled_conflicts(said, [*said, *evidence_said(evidence)])
    done = set(searches_done)
    for conflict in conflicts:
        if conflict.query() in done:
            conflict.search = conflict.query()
        involved = [record for item, record in printed if item.text in conflict.texts]
        for record in involved:
            if record["indicator"] == "✓✓":
                record["indicator"] = "✓"
        section = _section_of(report, involved)
        if section is None:
            continue
        line = conflict.line(language)
        if conflict.status == "resolved":
            template = RESOLVED_NOTE.get(language, RESOLVED_NOTE["en"])
            note = template.format(line=line, value=conflict.settled_for)
        else:
            note = NOTE.get(language, NOTE["en"]).format(line=line)
        if note not in section.notes:
            section.notes.append(note)
    return conflicts


def open_lines(conflicts: Sequence[Conflict], language: str = "en") -> list[str]:
    """Each open conflict in one line, as Limitations lists it."""
    return [conflict.line(language) for conflict in conflicts if conflict.status == "open"]


def conflict_records(conflicts: Sequence[Conflict]) -> list[ConflictRecord]:
    """The conflicts as result.json records them."""
    return [conflict.record() for conflict in conflicts]


def conflict_gaps(
    evidence: Sequence[EvidenceRecord], searches_done: Sequence[str], gaps_before: Sequence[str]
) -> list[Conflict]:
    """The open conflicts among the verified evidence that have not had their one search (its
    query was not run, and it was no gap of the round before)."""
    said = evidence_said(evidence)
    done, before = set(searches_done), set(gaps_before)
    return [
        conflict
        for conflict in settled_conflicts(said, said)
        if conflict.status == "open"
        and conflict.query() not in done
        and gap_line(conflict) not in before
    ]


def gap_line(conflict: Conflict) -> str:
    """A conflict as a gap: what must be settled."""
    return f"Sources disagree: {conflict.line()}"


def conflict_continues(
    reason: StopReason, searches: int, *, rounds_done: int, max_iterations: int
) -> StopReason:
    """The stop reason, unless a conflict's search is pending and rounds remain: then go on."""
    if searches and reason in _OVERRIDABLE and not cap_reached(rounds_done, max_iterations):
        return CONTINUE
    return reason


def with_conflicts(
    grounding: dict[str, object], conflicts: Sequence[Conflict]
) -> dict[str, object]:
    """The report's grounding figures with its conflicts and how each ended (result.json)."""
    return {
        **grounding,
        "conflicts": conflict_records(conflicts),
        "conflicts_open": len(open_lines(conflicts)),
    }
