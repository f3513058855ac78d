"""The MCP research tools: `research`, and `research_start` with `research_status` for clients
that cannot wait minutes for one answer.

Each run is prepared by the one run set-up every face uses, then run and audited here.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from research_studio.core.errors import ResearchStudioError
from research_studio.faces.mcp_bounds import bounded
from research_studio.faces.mcp_settings import MCP_SETTINGS, Tool, one_line, setting_parameters
from research_studio.pipelines.registry import PipelineName
from research_studio.run.audit import AuditReport, audit_run
from research_studio.run.launch import PreparedRun, RunSetup, check_docs, prepare
from research_studio.run.runner import execute

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


def _prepare(question: str, pipeline: str, mode: str, overrides: dict[str, Any]) -> PreparedRun:
    """The one run set-up every face uses (blocking; run it in a worker thread)."""
    if overrides.get("docs"):
        check_docs([Path(path) for path in overrides["docs"]])  # before resolving: a NUL, say
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
        raise one_line(exc) from None
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
            raise one_line(exc) from None
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
