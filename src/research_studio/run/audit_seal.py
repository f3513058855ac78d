"""The audit's seal check: report.md, result.json and the kept page texts against manifest.json.

Every line of report.md must be the line the run printed (code-written text by hash, statement
lines by the ids of the statements they print, in any order within the line); every record of
result.json and every kept page text must have the hash it had.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from research_studio.run.audit_checks import clip
from research_studio.run.manifest import digest, record_digest, split_line

if TYPE_CHECKING:
    from research_studio.run.audit_files import AuditedRun


def seal_problems(run: AuditedRun, manifest: Mapping[str, Any]) -> list[str]:
    """Everything in the folder that is not what the run sealed."""
    return _layout_problems(run.report, manifest) + _record_problems(run, manifest)


def _line_matches(line: str, entry: Mapping[str, Any], printed: Mapping[str, Any]) -> bool:
    """The report line is the entry's lead followed by its statements (in any order)."""
    tids = list(entry.get("statements", []))
    pool = [(tid, str(printed.get(tid, {}).get("printed") or "")) for tid in tids]
    lead, found = split_line(line, pool)
    return digest(lead) == entry.get("lead") and sorted(t for t, _ in found) == sorted(tids)


def _layout_problems(report: str, manifest: Mapping[str, Any]) -> list[str]:
    """Every line of report.md that is not the line the run printed there."""
    lines = [line for line in report.splitlines() if line.strip()]
    layout: list[Mapping[str, Any]] = list(manifest.get("layout", []))
    printed: Mapping[str, Any] = manifest.get("statements", {})
    problems: list[str] = []
    i = j = 0
    while i < len(lines) or j < len(layout):
        if i < len(lines) and j < len(layout) and _line_matches(lines[i], layout[j], printed):
            i, j = i + 1, j + 1
        elif (
            i + 1 < len(lines)
            and j < len(layout)
            and _line_matches(lines[i + 1], layout[j], printed)
        ):
            problems.append(f"report.md has a line the run did not print: {clip(lines[i])}")
            i += 1
        elif (
            j + 1 < len(layout)
            and i < len(lines)
            and _line_matches(lines[i], layout[j + 1], printed)
        ):
            problems.append(
                f"a line the run printed is missing from report.md (before: {clip(lines[i])})"
            )
            j += 1
        elif i < len(lines) and j < len(layout):
            problems.append(f"report.md line changed since the run: {clip(lines[i])}")
            i, j = i + 1, j + 1
        elif i < len(lines):
            problems.append(f"report.md has a line the run did not print: {clip(lines[i])}")
            i += 1
        else:
            problems.append("report.md ends before the report the run printed")
            break
    return problems


def _record_problems(run: AuditedRun, manifest: Mapping[str, Any]) -> list[str]:
    """result.json records and kept page texts that differ from their sealed hashes."""
    problems = []
    sealed: Mapping[str, Any] = manifest.get("statements", {})
    for tid, entry in sealed.items():
        record = run.records.get(tid)
        if record is None:
            problems.append(f"statement {tid} is missing from result.json")
        elif record_digest(record) != entry.get("record"):
            problems.append(f"statement {tid} of result.json was edited: {clip(record['text'])}")
    problems += [
        f"result.json has a statement the run did not write: {tid}"
        for tid in run.records
        if tid not in sealed
    ]
    for sid, entry in manifest.get("sources", {}).items():
        source = run.sources.get(sid)
        if source is None or record_digest(source) != entry.get("record"):
            problems.append(f"source {sid} of result.json was edited (url or title)")
        page = run.page(sid)  # read as the audit reads every file: inside the folder, bounded
        if (digest(page) if page is not None else None) != entry.get("kept_text"):
            problems.append(f"the kept page text of {sid} (sources/{sid}.txt) was edited")
    problems += [
        f"result.json has a source the run did not read: {sid}"
        for sid in run.sources
        if sid not in manifest.get("sources", {})
    ]
    for name, records, key in (
        ("evidence", run.result.get("evidence", []), "eid"),
        ("claims", run.result.get("claims", []), "cid"),
    ):
        sealed_records: Mapping[str, str] = manifest.get(name, {})
        present = {str(record.get(key)): record for record in records}
        for identifier in sorted(set(sealed_records) | set(present)):
            record = present.get(identifier)
            if record is None or record_digest(record) != sealed_records.get(identifier):
                problems.append(f"{name} record {identifier} of result.json was edited")
    return problems
