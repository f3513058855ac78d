"""`research-studio mcp`: Research Studio's tools for MCP clients, served over stdio.

Settings come from the server's environment and settings file, as for the CLI; a tool call
never widens them (no private networks or keys from a client that a model may be driving).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field, JsonValue

from research_studio import __version__
from research_studio.core.config import Configuration
from research_studio.core.config_loading import load_configuration
from research_studio.core.declarations import DECLARED, Declared, reword
from research_studio.core.errors import FetchError, ResearchStudioError
from research_studio.core.urls import is_web_url
from research_studio.faces import mcp_verify
from research_studio.faces.mcp_bounds import bounded, bounded_settings
from research_studio.pipelines.registry import PipelineName
from research_studio.run.audit import AuditReport, audit_run
from research_studio.run.launch import PreparedRun, RunSetup, check_docs, prepare
from research_studio.run.runner import execute
from research_studio.run.runs import RunFolder, run_path
from research_studio.services.clients import open_services
from research_studio.services.resolution import choose_search
from research_studio.sources.fetch import Page
from research_studio.sources.search import SearchResult

# The settings `research` takes, as parameters named and described by their fields. Nothing
# that widens the server's reach (keys, endpoints, private networks) comes from a client.
MCP_SETTINGS = (
    "docs",
    "search",
    "language",
    "report_structure",
    "max_iterations",
    "max_researcher_iterations",
    "max_research_questions",
    "model",
    "fast_model",
    "since",
    "until",
    "max_llm_calls",
    "max_tokens",
    "max_cost_usd",
    "max_wall_s",
)
# The settings `search` takes: the documents folders and the provider, as `research` does.
SEARCH_SETTINGS = ("docs", "search")
# Seconds between progress notifications while a run works (clients reset timeouts on them).
HEARTBEAT_S = 5.0


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
    answered: bool | None = Field(
        None, description="Whether the cited statements answer the question (None: not known)."
    )
    unanswered: list[str] = Field(
        default_factory=list, description="The research questions no cited statement answers."
    )


class ResearchAnswer(BaseModel):
    """What `research` returns: the cited report, its sources and the audit verdict."""

    run_id: str
    folder: str
    status: str
    report: str
    sources: list[SourceItem]
    audit: AuditVerdict | None = None
    clarification_question: str | None = None


def _settings() -> Configuration:
    """The CLI's layered configuration (settings file < environment)."""
    return load_configuration().config


def _parameter(declared: Declared) -> inspect.Parameter:
    """A tool parameter for one setting: its name, type and description are the field's."""
    bounds: dict[str, JsonValue] = {
        key: value
        for key, value in (
            ("minimum", declared.minimum),
            ("maximum", declared.maximum),
            ("exclusiveMinimum", declared.above),
        )
        if value is not None
    }
    annotation = list[str] if declared.name == "docs" else declared.annotation
    return inspect.Parameter(
        declared.name,
        inspect.Parameter.KEYWORD_ONLY,
        default=None,
        annotation=Annotated[
            annotation | None, Field(description=declared.help, json_schema_extra=bounds or None)
        ],
    )


Tool = Callable[..., Awaitable[Any]]


def setting_parameters(*names: str) -> Callable[[Tool], Tool]:
    """Give a tool one parameter per named setting; it receives them as `overrides`."""

    def decorate(tool: Tool) -> Tool:
        signature = inspect.signature(tool, eval_str=True)
        own = [param for name, param in signature.parameters.items() if name != "overrides"]

        @functools.wraps(tool)
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            overrides = {name: kwargs.pop(name, None) for name in names}
            bounded_settings(overrides)
            return await tool(*args, overrides=overrides, **kwargs)

        params = [*own, *(_parameter(DECLARED[name]) for name in names)]
        wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        return wrapper

    return decorate


def _in_mcp_words(parameters: tuple[str, ...]) -> Callable[[Declared], str]:
    """A setting as an MCP user can set it: a parameter of the tool called, or the server's
    settings."""

    def words(declared: Declared) -> str:
        if declared.name in parameters:
            return f"the `{declared.name}` parameter"
        return f"the server's `{declared.name}` setting"

    return words


def _prepare(question: str, pipeline: str, mode: str, overrides: dict[str, Any]) -> PreparedRun:
    """The one run set-up every face uses (blocking; run it in a worker thread)."""
    if overrides.get("docs"):
        overrides = {**overrides, "docs": [str(Path(path).resolve()) for path in overrides["docs"]]}
    setup = RunSetup(
        question=question,
        plans=[(pipeline, mode)],
        overrides=overrides,
        single_agent="the `single_agent` parameter",
    )
    return prepare(setup)[0]


def _verdict(report: AuditReport) -> AuditVerdict:
    return AuditVerdict(
        ok=report.ok,
        summary=report.summary(),
        problems=report.problems,
        failing=[check.statement for check in report.statements if check.verdict == "fails"],
        answered=report.answered,
        unanswered=report.unanswered,
    )


class _Progress:
    """Turns run events into MCP progress notifications, in order, and repeats the last one
    every few seconds while the run works (a notification resets a client's request timeout)."""

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._done = 0
        self._message = "starting"
        self._sent: asyncio.Task[None] | None = None

    def __call__(self, event: dict[str, Any]) -> None:
        if event.get("kind") not in {"end", "progress", "error"}:
            return
        if event.get("kind") == "end":
            self._done += 1
        self._message = str(event.get("message", ""))
        self._send()

    def _send(self) -> None:
        previous, done, message = self._sent, self._done, self._message

        async def send() -> None:
            if previous is not None:
                await previous
            await self._ctx.report_progress(done, None, message)

        self._sent = asyncio.get_running_loop().create_task(send())

    async def flush(self) -> None:
        if self._sent is not None:
            await self._sent

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_S)
            self._send()

    @contextlib.asynccontextmanager
    async def heartbeat(self) -> AsyncIterator[None]:
        """Progress every few seconds while the body runs."""
        beat = asyncio.get_running_loop().create_task(self._beat())
        try:
            yield
        finally:
            beat.cancel()


def _one_line(exc: Exception, parameters: tuple[str, ...] = MCP_SETTINGS) -> ToolError:
    """The error's first line, its settings named as the tool called (with `parameters`) takes
    them."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return ToolError(reword(text, _in_mcp_words(parameters)))


QuestionParam = Annotated[str, Field(description="The research question.")]
PipelineParam = Annotated[PipelineName, Field(description="The research pipeline (graph) to run.")]
SingleAgentParam = Annotated[
    bool, Field(description="One agent looping over searches instead of parallel workers.")
]
AnswerParam = Annotated[
    str | None,
    Field(description="Answer to give if the question is found ambiguous (else unasked)."),
]


async def _research(
    prepared: PreparedRun, answer: str | None, on_event: Callable[[dict[str, Any]], None]
) -> ResearchAnswer:
    """Run a prepared run to its end and audit it (what `research` and `research_start` do)."""
    folder = prepared.folder

    async def ask(_question: str, _options: list[str]) -> str | None:
        return answer or ""

    try:
        outcome = await execute(
            folder, prepared.config, initial=prepared.initial, ask=ask, on_event=on_event
        )
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


# What both research tools are asked, before the settings: (parameter, type, default).
REQUEST: tuple[tuple[str, Any, Any], ...] = (
    ("question", QuestionParam, inspect.Parameter.empty),
    ("pipeline", PipelineParam, "standard"),
    ("single_agent", SingleAgentParam, False),
    ("answer", AnswerParam, None),
)


def research_request(tool: Tool) -> Tool:
    """Give a research tool the request's parameters and the settings; it receives the run the
    one set-up prepared from them (`prepared`) and the clarification `answer`."""
    signature = inspect.signature(tool, eval_str=True)
    own = [
        param for name, param in signature.parameters.items() if name not in ("prepared", "answer")
    ]

    @functools.wraps(tool)
    async def wrapper(
        question: str,
        *args: Any,
        pipeline: str = "standard",
        single_agent: bool = False,
        answer: str | None = None,
        overrides: dict[str, Any],
        **kwargs: Any,
    ) -> Any:
        mode = "single" if single_agent else "multi"
        bounded("answer", answer or "")  # the question: max_query_chars, as for `run`
        try:
            prepared = await asyncio.to_thread(_prepare, question, pipeline, mode, overrides)
        except ResearchStudioError as exc:
            raise _one_line(exc) from None
        return await tool(*args, prepared=prepared, answer=answer, **kwargs)

    first, *rest = (
        inspect.Parameter(
            name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=kind
        )
        for name, kind, default in REQUEST
    )
    keyword = inspect.Parameter("overrides", inspect.Parameter.KEYWORD_ONLY)
    wrapper.__signature__ = signature.replace(parameters=[first, *own, *rest, keyword])  # type: ignore[attr-defined]
    return setting_parameters(*MCP_SETTINGS)(wrapper)


@research_request
async def research(ctx: Context, *, prepared: PreparedRun, answer: str | None) -> ResearchAnswer:
    """Research a question; returns the cited report, its sources and the audit verdict.

    A run takes minutes: progress notifications arrive every few seconds while it works.
    Clients that cannot wait that long use research_start and research_status instead.
    """
    progress = _Progress(ctx)
    async with progress.heartbeat():
        result = await _research(prepared, answer, progress)
    await progress.flush()
    return result


class StartedRun(BaseModel):
    """A run started in the background, and where it stands."""

    run_id: str
    status: str
    progress: str = Field("", description="The last step the run reported.")
    result: ResearchAnswer | None = Field(None, description="The answer, once it has ended.")


class _Background:
    """Runs started by research_start in this server process, by run id."""

    def __init__(self) -> None:
        self.tasks: dict[str, asyncio.Task[ResearchAnswer]] = {}
        self.latest: dict[str, str] = {}

    def recorder(self, run_id: str) -> Callable[[dict[str, Any]], None]:
        def record(event: dict[str, Any]) -> None:
            if event.get("kind") in {"end", "progress", "error"}:
                self.latest[run_id] = str(event.get("message", ""))

        return record


_BACKGROUND = _Background()


@research_request
async def research_start(*, prepared: PreparedRun, answer: str | None) -> StartedRun:
    """Start research in the background (same parameters and checks as `research`).

    Returns at once with the run id; poll research_status with it until the run has ended.
    """
    run_id = prepared.folder.record.run_id
    work = _research(prepared, answer, _BACKGROUND.recorder(run_id))
    _BACKGROUND.tasks[run_id] = asyncio.get_running_loop().create_task(work)
    return StartedRun(run_id=run_id, status="running", progress="started")


async def research_status(
    run_id: Annotated[str, Field(description="The run id research_start returned.")],
) -> StartedRun:
    """Where a run started by research_start stands; its answer once it has ended."""
    task = _BACKGROUND.tasks.get(bounded("run_id", run_id))
    if task is None:
        raise ToolError(f"no run {run_id!r} was started by research_start on this server")
    progress = _BACKGROUND.latest.get(run_id, "")
    if not task.done():
        return StartedRun(run_id=run_id, status="running", progress=progress)
    error = task.exception()
    if error is not None:
        return StartedRun(run_id=run_id, status="failed", progress=str(error))
    result = task.result()
    return StartedRun(run_id=run_id, status=result.status, progress=progress, result=result)


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
        raise _one_line(exc, SEARCH_SETTINGS) from None


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
        raise _one_line(exc, ()) from None
    except Exception as exc:  # unforeseen by the fetcher: still its reason, never a bare error
        reason = str(exc).strip().splitlines()
        detail = f"{type(exc).__name__}: {reason[0]}" if reason else type(exc).__name__
        raise _one_line(FetchError(url, detail, kind="network"), ()) from None


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
        raise _one_line(exc, ()) from None


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
