"""`research-studio mcp`: Research Studio's tools for MCP clients, served over stdio.

Settings come from the server's environment and settings file, as for the CLI; a tool call
never widens them (no private networks or keys from a client that a model may be driving).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from research_studio import __version__
from research_studio.core.config import Configuration
from research_studio.core.config_loading import load_configuration
from research_studio.core.errors import FetchError, ResearchStudioError
from research_studio.core.urls import is_web_url
from research_studio.faces import mcp_verify
from research_studio.faces.mcp_bounds import bounded
from research_studio.faces.mcp_research import research, research_start, research_status
from research_studio.faces.mcp_settings import SEARCH_SETTINGS, one_line, setting_parameters
from research_studio.run.audit import AuditReport, audit_run
from research_studio.run.launch import check_docs
from research_studio.run.runs import RunFolder, run_path
from research_studio.services.clients import open_services
from research_studio.services.resolution import choose_search
from research_studio.sources.fetch import Page
from research_studio.sources.search import SearchResult


def _settings() -> Configuration:
    """The CLI's layered configuration (settings file < environment)."""
    return load_configuration().config


def _search_settings(overrides: dict[str, Any]) -> Configuration:
    """The server's settings with the client's documents folders and provider on top; the
    folders are checked as `research` checks them (blocking; run it in a worker thread)."""
    docs = [Path(path).expanduser().resolve() for path in overrides.get("docs") or []]
    check_docs(docs)
    given = {**overrides, "docs": [str(path) for path in docs] or None}
    return load_configuration(given).config


@setting_parameters(*SEARCH_SETTINGS)
async def search(
    query: Annotated[str, Field(description="What to search for.")],
    max_results: Annotated[
        int, Field(description="Results wanted (1 to 50).", json_schema_extra={"maximum": 50})
    ] = 5,
    *,
    overrides: dict[str, Any],
) -> list[SearchResult]:
    """Search the web, or documents folders (`docs`, else the server's), with the configured
    provider (or the one `search` names)."""
    if not query.strip():
        raise ToolError("the query is empty")
    try:
        config = await asyncio.to_thread(_search_settings, overrides)
        bounded("query", query, config.max_query_chars)
        await asyncio.to_thread(choose_search, config)
        async with open_services(config) as services:
            return await services.search.search(query, max(1, min(max_results, 50)))
    except ResearchStudioError as exc:
        raise one_line(exc, SEARCH_SETTINGS) from None


async def fetch(
    url: Annotated[str, Field(description="An absolute http(s) URL.")],
) -> Page:
    """Fetch a page and return its main text."""
    bounded("url", url)
    try:
        if not is_web_url(url):
            raise FetchError(url, "not an absolute http(s) URL", kind="refused")
        config = await asyncio.to_thread(_settings)
        async with open_services(config) as services:
            return await services.fetcher.fetch(url)
    except ResearchStudioError as exc:
        raise one_line(exc, ()) from None
    except Exception as exc:  # unforeseen by the fetcher: still its reason, never a bare error
        reason = str(exc).strip().splitlines()
        detail = f"{type(exc).__name__}: {reason[0]}" if reason else type(exc).__name__
        raise one_line(FetchError(url, detail, kind="network"), ()) from None


def _audit(run: str) -> AuditReport:
    """The audit of a run of this server's runs folder; errors name the run, never a path."""
    runs_dir = _settings().runs_dir.resolve()
    shown = repr(run.strip()[:80])
    found = run_path(runs_dir, run.strip())  # the one lookup: by id, then by folder name
    path = (found or runs_dir / run.strip()).resolve()
    if path == runs_dir or not path.is_relative_to(runs_dir):
        raise ResearchStudioError(f"no run {shown} in this server's runs")
    try:
        folder = RunFolder.open(path)
        return audit_run(folder.path)
    except ResearchStudioError as exc:
        message = str(exc).replace(str(path), shown).replace(str(runs_dir), "the runs folder")
        raise ResearchStudioError(message) from None


async def audit(
    run: Annotated[str, Field(description="A run id (or run folder) from `research`.")],
) -> AuditReport:
    """Re-check every citation of a finished run (run id or folder) against its kept pages."""
    try:
        return await asyncio.to_thread(_audit, bounded("run", run))
    except ResearchStudioError as exc:
        raise one_line(exc, ()) from None


def build_server() -> MCPServer:
    """The MCP server with its tools."""
    server: MCPServer = MCPServer(
        name="research-studio",
        version=__version__,
        instructions="Deep research with cited, audited reports: research, search, fetch, audit.",
        log_level="WARNING",
    )
    for tool in (research, research_start, research_status, search, fetch, audit):
        server.tool()(tool)
    server.tool()(mcp_verify.verify)
    return server


def quiet_logging(level: int = logging.WARNING) -> None:
    """Plain warning lines on stderr (clients show a server's stderr): no library's INFO lines,
    such as one per HTTP request, and no terminal styling. Set before the server is built, whose
    own logging set-up then leaves it alone."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler], force=True)


def serve() -> None:
    """Serve over stdio until the client closes the connection."""
    quiet_logging()
    build_server().run("stdio")
