"""A finished run read back from its folder: the report, its statements and the cited sources."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from research_studio.core.errors import ResearchStudioError
from research_studio.core.urls import display_url, is_web_url
from research_studio.run.runs import REPORT_FILE, RESULT_FILE, RunFolder

# A Sources-list line as grounding.render_sources_section writes it: "- [S1] Title — URL".
# A web address stands in angle brackets (an autolink), the group holding what is inside them.
SOURCE_LINE = re.compile(r"^\s*[-*]\s+\[(S\d+)\]\s+(.*?)\s+—\s+<?(\S+?)>?\s*$")
CITATION = re.compile(r"\[(S\d+)\]")


@dataclass(frozen=True)
class CitedSource:
    """One entry of the report's Sources list, with what result.json knows about it."""

    sid: str
    title: str
    url: str
    published: str | None = None
    provider: str = ""
    shown: str = ""  # the address as readers see it (a local document's path in its folder)

    @property
    def link(self) -> str | None:
        """The URL to link to: a web address written on one line, else None (shown as text)."""
        url = self.url
        clean = url.isprintable() and not any(char.isspace() for char in url)
        return url if clean and is_web_url(url) else None

    @property
    def address(self) -> str:
        """What to print for the source's address: never an absolute local path."""
        return self.shown or display_url(self.url)


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


def cited_sources(
    markdown: str, records: list[dict[str, Any]], roots: Sequence[str] = ()
) -> list[CitedSource]:
    """The Sources list of a report, in its order, completed from the run's source records;
    local documents are shown by their path inside `roots` (the run's documents folders)."""
    by_sid = {record.get("sid"): record for record in records if isinstance(record, dict)}
    cited: list[CitedSource] = []
    for line in markdown.splitlines():
        match = SOURCE_LINE.match(line)
        if not match or any(source.sid == match.group(1) for source in cited):
            continue
        sid, title, url = match.groups()
        record = by_sid.get(sid, {})
        address = str(record.get("url") or url)
        cited.append(
            CitedSource(
                sid=sid,
                title=str(record.get("title") or title),
                url=address,
                published=record.get("published") or None,
                provider=str(record.get("provider") or ""),
                shown=display_url(address, roots),
            )
        )
    return cited


def with_display_addresses(document: RunDocument) -> str:
    """The report's Markdown with each Sources-list address as readers see it."""
    shown = {source.sid: source for source in document.sources}
    lines = []
    for line in document.markdown.splitlines():
        match = SOURCE_LINE.match(line)
        source = shown.get(match.group(1)) if match else None
        if match and source is not None and match.group(3) != source.address:
            start, end = match.span(3)
            line = line[:start] + source.address + line[end:]
        lines.append(line)
    return "\n".join(lines) + ("\n" if document.markdown.endswith("\n") else "")


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
        sources=cited_sources(
            markdown, list(result.get("sources") or []), run.record.documents_folders()
        ),
    )
