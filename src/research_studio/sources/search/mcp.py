"""The `mcp` search provider: a query forwarded to a named tool of a configured MCP server.

Accepted answers (the tool's text, or its structured content):
- a JSON list of hits, or an object with a `results` (or `hits`) list; each hit is an object
  with `url`, `title`, `snippet` (or `content`, `description`), optionally `text` (or
  `raw_content`): the document's full text, kept as the source instead of fetching the URL.
  A hit with text and no URL is cited as `mcp://<server>/<tool>?h=<hash>`.
- any other text: one hit whose text is the whole answer, cited by the call's `mcp://` URL.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from research_studio.core.errors import McpError, SearchError
from research_studio.core.urls import is_web_url
from research_studio.sources.mcp_sources import McpSources, McpText, split_tool_name
from research_studio.sources.search.base import SearchResult

QUERY_NAMES = ("query", "q", "search", "search_query", "text")
COUNT_NAMES = ("max_results", "limit", "count", "num_results", "top_k")
SNIPPET_CHARS = 300


def search_arguments(schema: dict[str, Any], query: str, max_results: int) -> dict[str, Any]:
    """The tool's arguments: the query under its query-like property, the count if it takes one."""
    properties = schema.get("properties") or {}
    required = [name for name in schema.get("required") or [] if name in properties]
    query_name = next((name for name in QUERY_NAMES if name in properties), None)
    if query_name is None:
        query_name = required[0] if required else next(iter(properties), "query")
    arguments: dict[str, Any] = {query_name: query}
    count_name = next((name for name in COUNT_NAMES if name in properties), None)
    if count_name is not None:
        arguments[count_name] = max_results
    return arguments


def _as_list(payload: Any) -> list[Any] | None:
    if isinstance(payload, dict):
        # Structured content wraps a list result as {"result": [...]}.
        payload = next(
            (payload[key] for key in ("results", "hits", "result") if key in payload), None
        )
    return payload if isinstance(payload, list) else None


def _hits(answer: McpText) -> list[Any] | None:
    """The list of hits in an answer (structured, else its text as JSON), or None."""
    found = _as_list(answer.structured)
    if found is None:
        try:
            found = _as_list(json.loads(answer.text))
        except ValueError:
            return None
    return found


def _text_url(answer: McpText, text: str) -> str:
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    return f"mcp://{answer.server}/{answer.tool}?h={digest}"


def _text(hit: dict[str, Any], *names: str) -> str:
    """The first non-empty text (or number) under one of the names; "" if none (bad types too)."""
    for name in names:
        value = hit.get(name)
        if isinstance(value, str | int | float) and not isinstance(value, bool) and str(value):
            return str(value)
    return ""


def _score(value: Any) -> float:
    try:
        score = float(value or 0.0)
    except (TypeError, ValueError):  # "high", a dict: a tool's own notion, not a number
        return 0.0
    return score if math.isfinite(score) else 0.0


def _hit_result(answer: McpText, hit: Any, provider: str) -> SearchResult | None:
    """One hit as a result; None for a hit without a web URL or a text (malformed output)."""
    if not isinstance(hit, dict):
        return None
    text = _text(hit, "text", "raw_content") or None
    url = hit.get("url")
    if not (isinstance(url, str) and is_web_url(url)):
        url = _text_url(answer, text) if text else None
    if url is None:
        return None
    return SearchResult(
        url=url,
        title=_text(hit, "title"),
        snippet=_text(hit, "snippet", "content", "description")[:SNIPPET_CHARS],
        content=text,
        score=_score(hit.get("score")),
        provider=provider,
        published=_text(hit, "published") or None,
    )


def to_results(answer: McpText, query: str, provider: str = "mcp") -> list[SearchResult]:
    """Search results from a tool's answer, in the shapes the module docstring lists."""
    hits = _hits(answer)
    if hits is None:
        title = f"{answer.server}.{answer.tool}: {query}"
        snippet = answer.text[:SNIPPET_CHARS]
        return [
            SearchResult(
                url=answer.url, title=title, snippet=snippet, content=answer.text, provider=provider
            )
        ]
    results = []
    for hit in hits:
        result = _hit_result(answer, hit, provider)
        if result is not None:
            results.append(result)
    return results


class McpSearch:
    """Forwards each query to `server.tool` of the run's MCP sessions."""

    name = "mcp"

    def __init__(self, sources: McpSources, qualified_tool: str) -> None:
        self._sources = sources
        self._server, self._tool = split_tool_name(qualified_tool)

    async def _schema(self) -> dict[str, Any]:
        for tool in await self._sources.tools(self._server):
            if tool.name == self._tool:
                return tool.input_schema
        raise McpError(f"MCP server {self._server!r} has no tool {self._tool!r}", kind="not_found")

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        try:
            arguments = search_arguments(await self._schema(), query, max_results)
            answer = await self._sources.call(self._server, self._tool, arguments)
        except McpError as exc:
            raise SearchError(self.name, query, str(exc), kind=exc.kind) from exc
        return to_results(answer, query)[:max_results]
