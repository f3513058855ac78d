"""The run's seal: ids and content hashes of everything a report prints, written with its outputs.

`manifest.json` holds a hash of every kept source text, of every source, evidence item, claim
and statement of result.json, each printed statement's exact printed form, and the report's
layout line by line: code-written text by hash, statement lines by the ids they print. `audit`
re-checks a run folder against it, so any edit of what the run printed shows.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from research_studio.grounding.printed import rendered
from research_studio.sources.archive import kept_page_path

MANIFEST_FILE = "manifest.json"
MANIFEST_VERSION = 1


def digest(text: str) -> str:
    """The SHA-256 of a text (UTF-8), hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def record_digest(record: Mapping[str, Any]) -> str:
    """The hash of a JSON record, independent of key order."""
    return digest(json.dumps(record, sort_keys=True, ensure_ascii=False, default=str))


def kept_text_digest(run_dir: Path, sid: str) -> str | None:
    """The hash of a source's kept page text, None when none was kept."""
    file = kept_page_path(run_dir, sid)
    return digest(file.read_text(encoding="utf-8")) if file.is_file() else None


def split_line(line: str, pool: Sequence[tuple[str, str]]) -> tuple[str, list[tuple[str, str]]]:
    """A report line as code-written lead text, then (id, printed form) statements of the pool.

    Statements are taken from the end of the line, longest printed form first; each id is used
    at most once. They come back in the order they stand in the line.
    """
    rest = line.rstrip()
    taken: list[tuple[str, str]] = []
    left = list(pool)
    while rest:
        best: tuple[str, str] | None = None
        for tid, form in left:
            if not form or not rest.endswith(form):
                continue
            before = rest[: len(rest) - len(form)]
            if before and not before[-1].isspace():
                continue
            if best is None or len(form) > len(best[1]):
                best = (tid, form)
        if best is None:
            break
        taken.append(best)
        left = [entry for entry in left if entry[0] != best[0]]
        rest = rest[: len(rest) - len(best[1])].rstrip()
    return rest, taken[::-1]


def _printed_forms(statements: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """Every way a statement may stand in the report: as prose, or as an indicated bullet."""
    pool = []
    for record in statements:
        forms = {rendered(record), rendered(record, with_indicator=True)}  # type: ignore[arg-type]
        pool += [(str(record["tid"]), form) for form in sorted(forms, key=len, reverse=True)]
    return pool


def seal(
    report: str, result: dict[str, Any], run_dir: Path
) -> tuple[dict[str, Any], dict[str, Any]]:
    """result.json with statement ids (T1…Tn, in printed order) and the run's manifest."""
    statements = [dict(record) for record in result.get("statements", [])]
    for number, record in enumerate(statements, 1):
        record["tid"] = f"T{number}"
    result = {**result, "statements": statements}
    pool = _printed_forms(statements)
    layout: list[dict[str, Any]] = []
    printed: dict[str, str] = {}
    for line in report.splitlines():
        if not line.strip():
            continue
        lead, found = split_line(line, [entry for entry in pool if entry[0] not in printed])
        printed.update(found)
        layout.append({"lead": digest(lead), "statements": [tid for tid, _form in found]})
    manifest = {
        "version": MANIFEST_VERSION,
        "report": digest(report),
        "layout": layout,
        "statements": {
            record["tid"]: {
                "record": record_digest(record),
                "printed": printed.get(record["tid"]),
            }
            for record in statements
        },
        "sources": {
            source["sid"]: {
                "record": record_digest(source),
                "url": source["url"],
                "title": source["title"],
                "kept_text": kept_text_digest(run_dir, source["sid"]),
            }
            for source in result.get("sources", [])
        },
        "evidence": {item["eid"]: record_digest(item) for item in result.get("evidence", [])},
        "claims": {claim["cid"]: record_digest(claim) for claim in result.get("claims", [])},
    }
    return result, manifest
