"""`research-studio mcp`: Research Studio's tools for MCP clients, served over stdio.

Settings come from the server's environment and settings file, as for the CLI; a tool call
never widens them (no private networks or keys from a client that a model may be driving).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from pydantic import Field, ValidationError

from research_studio import __version__
from research_studio.core.config import Configuration
from research_studio.core.config_loading import load_configuration
from research_studio.core.errors import FetchError, ResearchStudioError
from research_studio.core.urls import is_web_url
from research_studio.faces import mcp_verify
from research_studio.faces.mcp_bounds import argument_errors, bounded, unknown_arguments
from research_studio.faces.mcp_research import research, research_start, research_status
from research_studio.faces.mcp_search import SEARCHES, search
from research_studio.faces.mcp_settings import one_line
from research_studio.faces.mcp_stdio import run_stdio
from research_studio.run.audit import AuditReport, audit_run
from research_studio.run.runs import RunFolder, run_path
from research_studio.services.clients import open_services
from research_studio.sources.fetch import Page


def _settings() -> Configuration:
    """The CLI's layered configuration (settings file < environment)."""
    return load_configuration().config


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
    if found is None and "\x00" in run:  # no folder's name: the system refuses to look
        raise ResearchStudioError(f"no run {shown} in this server's runs")
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


class _Server(MCPServer):
    """The SDK's server, with every tool's argument mistakes said in one line: an argument the
    tool does not take (the SDK would drop it unseen) and one its schema refuses (the SDK would
    return pydantic's multi-line report)."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            return await super().call_tool(name, arguments, context)
        taken = list(tool.parameters.get("properties", {}))
        if (unknown := unknown_arguments(name, arguments, taken)) is not None:
            raise ToolError(f"Error executing tool {name}: {unknown}")
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            # Only the SDK's check of the arguments: its model is named after the tool.
            if (
                isinstance(exc, UnexpectedToolError)
                or not isinstance(cause, ValidationError)
                or cause.title != tool.fn_metadata.arg_model.__name__
            ):
                raise
            raise ToolError(f"Error executing tool {name}: {argument_errors(cause)}") from cause


def build_server() -> MCPServer:
    """The MCP server with its tools."""
    server: MCPServer = _Server(
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
    try:
        run_stdio(build_server())
    finally:
        SEARCHES.close_now()
