"""A finished run read back from its folder: the report, its statements and the cited sources."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from research_studio.core.errors import ResearchStudioError
from research_studio.run.runs import REPORT_FILE, RESULT_FILE, RunFolder

# A Sources-list line as grounding.render_sources_section writes it: "- [S1] Title — URL".
SOURCE_LINE = re.compile(r"^\s*[-*]\s+\[(S\d+)\]\s+(.*?)\s+—\s+(\S+)\s*$")
CITATION = re.compile(r"\[(S\d+)\]")


@dataclass(frozen=True)
class CitedSource:
    """One entry of the report's Sources list, with what result.json knows about it."""

    sid: str
    title: str
    url: str
    published: str | None = None
    provider: str = ""


@dataclass(frozen=True)
class RunDocument:
    """What every export format is made from."""

    run_id: str
    query: str
    created: str
    markdown: str
    statements: list[dict[str, Any]] = field(default_factory=list)
    sources: list[CitedSource] = field(default_factory=list)

    @property
    def accessed(self) -> str:
        """The day the run read its sources (the run's start), as YYYY-MM-DD."""
        return self.created[:10]


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except ValueError as exc:
        raise ResearchStudioError(f"{path} is damaged: {exc}") from exc
    return data if isinstance(data, dict) else {}


def cited_sources(markdown: str, records: list[dict[str, Any]]) -> list[CitedSource]:
    """The Sources list of a report, in its order, completed from the run's source records."""
    by_sid = {record.get("sid"): record for record in records if isinstance(record, dict)}
    cited: list[CitedSource] = []
    for line in markdown.splitlines():
        match = SOURCE_LINE.match(line)
        if not match or any(source.sid == match.group(1) for source in cited):
            continue
        sid, title, url = match.groups()
        record = by_sid.get(sid, {})
        cited.append(
            CitedSource(
                sid=sid,
                title=str(record.get("title") or title),
                url=str(record.get("url") or url),
                published=record.get("published") or None,
                provider=str(record.get("provider") or ""),
            )
        )
    return cited


def load_run(folder: Path) -> RunDocument:
    """The run in `folder`; a one-line error when it has no finished report."""
    run = RunFolder.open(folder)
    report = folder / REPORT_FILE
    if not report.is_file():
        raise ResearchStudioError(
            f"run {run.record.run_id} has no finished report to export "
            f"(status: {run.record.status})"
        )
    markdown = report.read_text(encoding="utf-8")
    result = _read_json(folder / RESULT_FILE)
    statements = [item for item in result.get("statements") or [] if isinstance(item, dict)]
    return RunDocument(
        run_id=run.record.run_id,
        query=str(result.get("query") or run.record.query),
        created=run.record.created,
        markdown=markdown,
        statements=statements,
        sources=cited_sources(markdown, list(result.get("sources") or [])),
    )
