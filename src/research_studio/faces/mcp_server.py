"""`research-studio mcp`: Research Studio's tools for MCP clients, served over stdio.

Settings come from the server's environment and settings file, as for the CLI; a tool call
never widens them (no private networks or keys from a client that a model may be driving).
"""

from __future__ import annotations

import asyncio
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from research_studio.core.config import Configuration, ReportStructure, load_configuration
from research_studio.core.errors import FetchError, ResearchStudioError
from research_studio.core.urls import is_web_url
from research_studio.faces import mcp_verify
from research_studio.pipelines.registry import PipelineName, graph_builder, initial_state
from research_studio.run.audit import AuditReport, audit_run
from research_studio.run.launch import new_folder
from research_studio.run.runner import execute
from research_studio.run.runs import RunFolder, check_query
from research_studio.services.clients import open_services
from research_studio.services.resolution import choose_search, resolve
from research_studio.sources.fetch import Page
from research_studio.sources.search import SearchResult


class SourceItem(BaseModel):
    """A source the report may cite."""

    sid: str
    title: str = ""
    url: str = ""


class AuditVerdict(BaseModel):
    """The audit of the finished run, in short."""

    ok: bool
    summary: str
    problems: list[str] = Field(default_factory=list)
    failing: list[str] = Field(default_factory=list, description="Statements that fail.")


class ResearchAnswer(BaseModel):
    """What `research` returns: the cited report, its sources and the audit verdict."""

    run_id: str
    folder: str
    status: str
    report: str
    sources: list[SourceItem]
    audit: AuditVerdict | None = None
    clarification_question: str | None = None


def _settings(**overrides: Any) -> Configuration:
    """The CLI's layered configuration (file < environment < these values)."""
    return load_configuration({k: v for k, v in overrides.items() if v is not None}).config


def _prepare(
    question: str,
    pipeline: str,
    mode: str,
    overrides: dict[str, Any],
) -> tuple[Configuration, RunFolder]:
    """Blocking set-up (settings file, model probe, run folder), run in a worker thread."""
    loaded = _settings(**overrides)
    checked = check_query(question, max_chars=loaded.max_query_chars)
    graph_builder(pipeline)
    config, _model, _search = resolve(loaded)
    saved = config.model_dump(mode="json", exclude_defaults=True)
    return config, new_folder(config, None, checked, pipeline, mode, saved, True)


def _verdict(report: AuditReport) -> AuditVerdict:
    return AuditVerdict(
        ok=report.ok,
        summary=report.summary(),
        problems=report.problems,
        failing=[check.statement for check in report.statements if check.verdict == "fails"],
    )


class _Progress:
    """Turns run events into MCP progress notifications, in order."""

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._done = 0
        self._sent: asyncio.Task[None] | None = None

    def __call__(self, event: dict[str, Any]) -> None:
        if event.get("kind") not in {"end", "progress", "error"}:
            return
        if event.get("kind") == "end":
            self._done += 1
        message = str(event.get("message", ""))
        previous, done = self._sent, self._done

        async def send() -> None:
            if previous is not None:
                await previous
            await self._ctx.report_progress(done, None, message)

        self._sent = asyncio.get_running_loop().create_task(send())

    async def flush(self) -> None:
        if self._sent is not None:
            await self._sent


def _one_line(exc: Exception) -> ToolError:
    return ToolError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)


async def research(
    question: str,
    ctx: Context,
    pipeline: PipelineName = "standard",
    single_agent: bool = False,
    report_format: ReportStructure | None = None,
    max_iterations: int | None = None,
    model: str | None = None,
    answer: str | None = None,
) -> ResearchAnswer:
    """Research a question; returns the cited report, its sources and the audit verdict.

    `answer` is used if the question is found ambiguous; without it the run continues unasked.
    """
    overrides = {
        "report_structure": report_format,
        "max_iterations": max_iterations,
        "model": model,
    }
    mode = "single" if single_agent else "multi"
    try:
        config, folder = await asyncio.to_thread(_prepare, question, pipeline, mode, overrides)
        progress = _Progress(ctx)

        async def ask(_question: str, _options: list[str]) -> str | None:
            return answer or ""

        outcome = await execute(
            folder,
            config,
            initial=initial_state(pipeline, folder.record.query, mode),
            ask=ask,
            on_event=progress,
        )
        await progress.flush()
        verdict = None
        if outcome.status == "completed":
            verdict = _verdict(await asyncio.to_thread(audit_run, folder.path))
    except ResearchStudioError as exc:
        raise _one_line(exc) from None
    state = outcome.state
    return ResearchAnswer(
        run_id=folder.record.run_id,
        folder=str(folder.path),
        status=outcome.status,
        report=str(state.get("report", "")),
        sources=[
            SourceItem(sid=s["sid"], title=s.get("title", ""), url=s.get("url", ""))
            for s in state.get("sources", [])
        ],
        audit=verdict,
        clarification_question=outcome.question or None,
    )


async def search(query: str, max_results: int = 5) -> list[SearchResult]:
    """Search the web (or the configured local documents) with the configured provider."""
    if not query.strip():
        raise ToolError("the query is empty")
    try:
        config = await asyncio.to_thread(_settings)
        await asyncio.to_thread(choose_search, config)
        async with open_services(config) as services:
            return await services.search.search(query, max(1, min(max_results, 50)))
    except ResearchStudioError as exc:
        raise _one_line(exc) from None


async def fetch(url: str) -> Page:
    """Fetch a page and return its main text."""
    try:
        if not is_web_url(url):
            raise FetchError(url, "not an absolute http(s) URL", kind="refused")
        config = await asyncio.to_thread(_settings)
        async with open_services(config) as services:
            return await services.fetcher.fetch(url)
    except ResearchStudioError as exc:
        raise _one_line(exc) from None
    except Exception as exc:  # unforeseen by the fetcher: still its reason, never a bare error
        reason = str(exc).strip().splitlines()
        detail = f"{type(exc).__name__}: {reason[0]}" if reason else type(exc).__name__
        raise _one_line(FetchError(url, detail, kind="network")) from None


def _audit(run: str) -> AuditReport:
    """The audit of a run of this server's runs folder; errors name the run, never a path."""
    runs_dir = _settings().runs_dir.resolve()
    shown = repr(run.strip()[:80])
    path = (runs_dir / run.strip()).resolve()
    if path == runs_dir or not path.is_relative_to(runs_dir):
        raise ResearchStudioError(f"no run {shown} in this server's runs")
    try:
        folder = RunFolder.open(path)
        return audit_run(folder.path)
    except ResearchStudioError as exc:
        message = str(exc).replace(str(path), shown).replace(str(runs_dir), "the runs folder")
        raise ResearchStudioError(message) from None


async def audit(run: str) -> AuditReport:
    """Re-check every citation of a finished run (run id or folder) against its kept pages."""
    try:
        return await asyncio.to_thread(_audit, run)
    except ResearchStudioError as exc:
        raise _one_line(exc) from None


def build_server() -> MCPServer:
    """The MCP server with its four tools."""
    server: MCPServer = MCPServer(
        name="research-studio",
        instructions="Deep research with cited, audited reports: research, search, fetch, audit.",
    )
    for tool in (research, search, fetch, audit):
        server.tool()(tool)
    server.tool()(mcp_verify.verify)
    return server


def serve() -> None:
    """Serve over stdio until the client closes the connection."""
    build_server().run("stdio")
