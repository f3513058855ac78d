"""The report as the page shows it, and a citation's source card with its quotes located."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from research_studio.core.errors import NotFound, ResearchStudioError
from research_studio.core.urls import display_url
from research_studio.export.report_html import report_html
from research_studio.grounding.quotes import locate_quote as locate_in_page
from research_studio.pipelines.registry import specs
from research_studio.run.runs import REPORT_FILE, RESULT_FILE
from research_studio.sources.archive import kept_page_path


def read_result(folder: Path) -> dict[str, Any]:
    """result.json of a finished run."""
    try:
        document: dict[str, Any] = json.loads((folder / RESULT_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise NotFound("the run has no report yet") from None
    except ValueError as exc:
        raise ResearchStudioError(f"result.json is damaged: {exc}") from None
    return document


def mark_verbatim(html: str) -> str:
    """A pipeline's verbatim section (page text) wrapped in <section class="verbatim">."""
    headings = sorted({item.verbatim_heading for item in specs() if item.verbatim_heading})
    if not headings:
        return html
    names = "|".join(re.escape(heading) for heading in headings)
    verbatim = re.compile(rf"(<h2>(?:{names})</h2>.*?)(?=<h2>|\Z)", re.DOTALL)
    return verbatim.sub(r'<section class="verbatim">\1</section>', html, count=1)


def report_fragment(folder: Path) -> str:
    """The rendered report body; citations are <a class="cite" data-sid data-statement>."""
    try:
        markdown = (folder / REPORT_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NotFound("the run has no report yet") from None
    statements = read_result(folder).get("statements", [])
    return mark_verbatim(report_html(markdown, statements))


def locate_quote(quote: str, text: str) -> tuple[int, int] | None:
    """Where a quote sits in the page text (character span), matched as grounding matches it:
    one contiguous span after folding (`grounding.quotes.locate_quote`), ellipsis parts spanned."""
    spans = locate_in_page(quote, text)
    return (spans[0][0], spans[-1][1]) if spans else None


def source_card(
    folder: Path, sid: str, statement: int | None, roots: Sequence[str] = ()
) -> dict[str, Any]:
    """Title, URL, credibility, the quotes backing the statement, and the kept text with spans.

    A local document's address is its path in its documents folder (`roots`), never the
    server's path (a run written before result.json said so holds its file:// URL)."""
    result = read_result(folder)
    source = next((item for item in result.get("sources", []) if item.get("sid") == sid), None)
    if source is None:
        raise NotFound(f"the run has no source {sid}")
    statements = result.get("statements", [])
    if statement is not None:
        if not 0 <= statement < len(statements):
            raise NotFound(f"the report has no statement {statement}")
        quotes = [
            q["quote"] for q in statements[statement].get("quotes", []) if q.get("sid") == sid
        ]
    else:
        quotes = [
            item["quote"]
            for item in result.get("evidence", [])
            if item.get("sid") == sid and item.get("quote_verified")
        ]
    page = kept_page_path(folder, sid)
    text = page.read_text(encoding="utf-8") if page.is_file() else ""
    located = []
    for quote in dict.fromkeys(quotes):
        span = locate_quote(quote, text) if text else None
        located.append(
            {"quote": quote, "start": span[0] if span else None, "end": span[1] if span else None}
        )
    address = display_url(str(source.get("url", "")), roots)
    return {
        "sid": sid,
        "title": source.get("title") or address,
        "url": address,
        "credibility": source.get("credibility"),
        "statement": statement,
        "quotes": located,
        "text": text,
    }
