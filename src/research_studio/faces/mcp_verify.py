"""Fact-check one sentence against one source with the pipelines' own support check.

`check_statement` reads a local file (Markdown, text, HTML, PDF; through `sources.docfiles`) or
fetches a web page (through the configured fetcher) and asks `grounding.support.best_support`
which window of it carries the statement. The CLI's `verify` and the MCP tool `verify` (this
module's `verify`, registered by `mcp_server`) both answer with a `VerifyAnswer`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from research_studio.core.config import Configuration
from research_studio.core.config_loading import load_configuration
from research_studio.core.errors import ConfigError, FetchError, ResearchStudioError
from research_studio.core.urls import is_web_url
from research_studio.faces.mcp_bounds import MAX_STATEMENT_CHARS, bounded
from research_studio.grounding.support import best_support
from research_studio.services.clients import open_services
from research_studio.sources.docfiles import (
    UnreadableDocument,
    read_bounded,
    read_document,
    vetted_stat,
)


class VerifyAnswer(BaseModel):
    """Whether a source supports a statement, its best supporting passage, and why not."""

    statement: str
    source: str
    title: str = ""
    supported: bool
    quote: str = Field(default="", description="The source's passage closest to the statement.")
    reasons: list[str] = Field(default_factory=list, description="Why it does not support it.")
    missing_terms: list[str] = Field(default_factory=list)
    coverage: float = Field(default=0.0, description="Share of the statement's terms it has.")


def _read_file(source: str, limit: int) -> tuple[str, str]:
    path = Path(source).expanduser()
    if not path.exists():
        raise FetchError(source, "no such file", kind="not_found")
    try:
        real, _info = vetted_stat(path, path.resolve().parent, limit)
        _kind, title, text = read_document(real, read_bounded(real, limit))
    except UnreadableDocument as exc:
        raise FetchError(source, str(exc), kind="unsupported") from None
    except OSError as exc:
        raise FetchError(source, exc.strerror or type(exc).__name__, kind="not_found") from None
    return title, text


async def read_source(source: str, config: Configuration) -> tuple[str, str]:
    """(title, text) of a local file or a web page."""
    if is_web_url(source):
        async with open_services(config) as services:
            page = await services.fetcher.fetch(source)
        return page.title, page.text
    if "://" in source:
        raise FetchError(source, "not a file path or an http(s) URL", kind="refused")
    return await asyncio.to_thread(_read_file, source, config.max_document_bytes)


async def check_statement(statement: str, source: str, config: Configuration) -> VerifyAnswer:
    """The statement checked against the source it names (a file path or a web page)."""
    if not " ".join(statement.split()):
        raise ConfigError("the statement is empty")
    title, text = await read_source(source, config)
    # The support check is CPU work (seconds for a long document): never on the event loop.
    return await asyncio.to_thread(answer, statement, source, title, text)


def answer(statement: str, source: str, title: str, text: str) -> VerifyAnswer:
    """The support check of one statement against the whole text of one source."""
    statement = " ".join(statement.split())
    if not statement:
        raise ConfigError("the statement is empty")
    verdict = best_support(statement, text)
    return VerifyAnswer(
        statement=statement,
        source=source,
        title=title,
        supported=verdict.ok,
        quote=verdict.quote,
        reasons=list(verdict.reasons),
        missing_terms=list(verdict.missing),
        coverage=verdict.coverage,
    )


async def verify(
    statement: Annotated[str, Field(description="The sentence to check.")],
    source: Annotated[
        str, Field(description="An http(s) URL of the page to check it in (or give `text`).")
    ] = "",
    text: Annotated[str, Field(description="The document's text itself, instead of a URL.")] = "",
) -> VerifyAnswer:
    """Does the source support the statement? `source` is an http(s) URL, or give the document's
    `text` itself. Answers with the best supporting passage and, when it does not support it,
    why: missing terms, a figure, the polarity, an entity."""
    bounded("statement", statement, MAX_STATEMENT_CHARS)
    bounded("source", source)
    try:
        config = await asyncio.to_thread(lambda: load_configuration().config)
        if bounded("text", text, config.max_document_bytes).strip():
            return await asyncio.to_thread(answer, statement, source or "text", "", text)
        if not is_web_url(source):
            # A client that a model may drive reads no files of the server's machine.
            raise ToolError("source must be an absolute http(s) URL, or give the text itself")
        return await check_statement(statement, source, config)
    except ResearchStudioError as exc:
        raise ToolError(str(exc).splitlines()[0]) from None
