"""Sources numbered as a reader meets them: S1…Sn in order of first citation in the report.

Pipelines give ids as sources arrive (and workers finish in any order); the outputs renumber
them once, consistently in report.md, result.json and the kept texts `sources/S<n>.txt`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from research_studio.core.files import write_atomically
from research_studio.sources.archive import kept_page_path

_MARKER = re.compile(r"\[(S\d+)\]")


def source_order(report: str, sources: list[Mapping[str, Any]]) -> dict[str, str]:
    """Old id -> new id: cited sources in order of first citation, then the others as listed."""
    known = [str(source["sid"]) for source in sources]
    cited = [sid for sid in dict.fromkeys(_MARKER.findall(report)) if sid in known]
    ordered = cited + [sid for sid in known if sid not in cited]
    return {old: f"S{number}" for number, old in enumerate(ordered, 1)}


def _sid_list(values: Any, new: Mapping[str, str]) -> list[str]:
    return [new.get(str(sid), str(sid)) for sid in values or []]


def renumbered_result(result: Mapping[str, Any], new: Mapping[str, str]) -> dict[str, Any]:
    """result.json with every source id mapped (sources, evidence, claims, statements)."""
    sources = sorted(
        (
            {**source, "sid": new.get(source["sid"], source["sid"])}
            for source in result.get("sources", [])
        ),
        key=lambda source: int(str(source["sid"])[1:]) if str(source["sid"])[1:].isdigit() else 0,
    )
    evidence = [
        {**item, "sid": new.get(item["sid"], item["sid"])} for item in result.get("evidence", [])
    ]
    claims = [
        {**claim, "supporting_sids": _sid_list(claim.get("supporting_sids"), new)}
        for claim in result.get("claims", [])
    ]
    statements = [
        {
            **record,
            "sids": _sid_list(record.get("sids"), new),
            "quotes": [
                {**quote, "sid": new.get(quote["sid"], quote["sid"])}
                for quote in record.get("quotes", [])
            ],
        }
        for record in result.get("statements", [])
    ]
    return {
        **result,
        "sources": sources,
        "evidence": evidence,
        "claims": claims,
        "statements": statements,
    }


def renumber_report(report: str, new: Mapping[str, str]) -> str:
    """The report with its citation markers and Sources entries renumbered."""
    return _MARKER.sub(lambda match: f"[{new.get(match.group(1), match.group(1))}]", report)


def renumber_kept_texts(run_dir: Path, new: Mapping[str, str]) -> None:
    """sources/S<n>.txt moved to their new ids (all read first: ids swap places)."""
    texts = {}
    for old in new:
        file = kept_page_path(run_dir, old)
        if file.is_file():
            texts[old] = file.read_text(encoding="utf-8")
    for old, text in texts.items():
        write_atomically(kept_page_path(run_dir, new[old]), text)
    for old in set(texts) - {new[old] for old in texts}:
        kept_page_path(run_dir, old).unlink()


def renumber_outputs(
    run_dir: Path, report: str, result: Mapping[str, Any]
) -> tuple[str, dict[str, Any]]:
    """Report and result.json renumbered by first citation; kept texts moved to match."""
    new = source_order(report, list(result.get("sources", [])))
    if all(old == fresh for old, fresh in new.items()):
        return report, dict(result)
    renumber_kept_texts(run_dir, new)
    result = renumbered_result(result, new)
    report = renumber_report(report, new)
    return report, {**result, "report": renumber_report(str(result.get("report", "")), new)}
