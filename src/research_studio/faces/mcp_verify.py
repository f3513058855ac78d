"""Fact-check one sentence against one source with the pipelines' own support check.

`check_statement` reads a local file (Markdown, text, HTML, PDF; through `sources.docfiles`) or
fetches a web page (through the configured fetcher) and asks `grounding.support.best_support`
which of its sentences carry each part of the statement. The CLI's `verify` and the MCP tool `verify` (this
module's `verify`, registered by `mcp_server`) both answer with a `VerifyAnswer`.
"""

from __future__ import annotations

import asyncio
import unicodedata
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, Field

from research_studio.core.config import Configuration
from research_studio.core.config_loading import load_configuration
from research_studio.core.errors import (
    ConfigError,
    FetchError,
    ResearchStudioError,
    UnreadableDocument,
)
from research_studio.core.urls import is_web_url
from research_studio.grounding.support import best_support
from research_studio.sources.docfiles import (
    read_bounded,
    read_document,
    vetted_stat,
)


class PartFound(BaseModel):
    """One part of the statement and the sentence of the source that carries it, or why not."""

    part: str
    quote: str = Field(default="", description="The source's sentence found for this part.")
    also: list[str] = Field(
        default_factory=list,
        description="Further sentences (up to two) carrying words the first lacks.",
    )
    coverage: float = Field(default=0.0, description="Share of the part's terms it has.")
    missing_terms: list[str] = Field(default_factory=list)
    reasons: list[str] = Field(default_factory=list, description="Why this part fails.")


class VerifyAnswer(BaseModel):
    """Whether a source supports a statement, its supporting passages, and why not."""

    statement: str
    source: str
    title: str = ""
    supported: bool
    quote: str = Field(
        default="", description="The source's sentences closest to the statement, joined by …"
    )
    quotes: list[str] = Field(
        default_factory=list, description="Each sentence of the source the check found."
    )
    parts: list[PartFound] = Field(
        default_factory=list, description="Each part of the statement and where it was found."
    )
    reasons: list[str] = Field(default_factory=list, description="Why it does not support it.")
    missing_terms: list[str] = Field(default_factory=list)
    coverage: float = Field(default=0.0, description="Share of the statement's terms it has.")


def _read_file(source: str, limit: int) -> tuple[str, str]:
    path = Path(source).expanduser()
    try:
        if not path.exists():
            raise FetchError(source, "no such file", kind="not_found")
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
        from research_studio.services.clients import open_services  # a page needs the fetcher

        async with open_services(config) as services:
            page = await services.fetcher.fetch(source)
        return page.title, page.text
    if "://" in source:
        raise FetchError(source, "not a file path or an http(s) URL", kind="refused")
    return await asyncio.to_thread(_read_file, source, config.max_document_bytes)


def checked_statement(statement: str) -> str:
    """The statement on one line; a one-line error for text no sentence is made of.

    Undecodable bytes are refused as `run` refuses them in a question, and so are control
    characters: an escape sequence such as `ESC[31m` would otherwise be read as the figure 31.
    """
    try:
        statement.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigError(
            "the statement holds bytes that are not valid UTF-8; pass it as UTF-8 text"
        ) from None
    statement = " ".join(statement.split())
    if not statement:
        raise ConfigError("the statement is empty")
    if any(unicodedata.category(char) == "Cc" for char in statement):
        raise ConfigError(
            "the statement holds control characters (a terminal escape sequence?); "
            "pass it as plain text"
        )
    return statement


async def check_statement(statement: str, source: str, config: Configuration) -> VerifyAnswer:
    """The statement checked against the source it names (a file path or a web page)."""
    checked_statement(statement)  # before any page is fetched
    title, text = await read_source(source, config)
    # The support check is CPU work (seconds for a long document): never on the event loop.
    return await asyncio.to_thread(answer, statement, source, title, text)


def answer(statement: str, source: str, title: str, text: str) -> VerifyAnswer:
    """The support check of one statement against the whole text of one source."""
    statement = checked_statement(statement)
    verdict = best_support(statement, text)
    return VerifyAnswer(
        statement=statement,
        source=source,
        title=title,
        supported=verdict.ok,
        quote=verdict.quote,
        quotes=list(
            dict.fromkeys(q for part in verdict.parts for q in (part.quote, *part.also) if q)
        ),
        parts=[
            PartFound(
                part=part.text,
                quote=part.quote,
                also=list(part.also),
                coverage=part.coverage,
                missing_terms=list(part.missing),
                reasons=list(part.reasons),
            )
            for part in verdict.parts
        ],
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
    `text` itself. Answers with each part of the statement and the sentence of the source that
    carries it (anywhere in the source) and, when it does not support it, which part failed and
    why: missing terms, a figure, the polarity, an entity."""
    # The MCP SDK: only the tool needs it (the CLI's verify shares this module).
    from mcp.server.mcpserver.exceptions import ToolError

    from research_studio.faces.mcp_bounds import MAX_STATEMENT_CHARS, bounded

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
