"""What every node needs from its runtime: services, progress events, call records."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, get_args

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.errors import ProviderError, ResearchStudioError
from research_studio.core.question import check_query
from research_studio.core.records import ErrorRecord, ModelCallRecord, RunSummary, StatementRecord
from research_studio.grounding.limitations import Losses, limitations_section
from research_studio.grounding.statements import Tally
from research_studio.llm.structured import call_records
from research_studio.pipelines.kit.contract import Mode
from research_studio.pipelines.kit.report import build_metadata
from research_studio.services.clients import Services, current_services

__all__ = [
    "call_records",
    "chat_answer",
    "clip",
    "emitter",
    "error_record",
    "limitations_of",
    "query_of",
    "report_update",
    "run_start",
    "services_of",
]


def services_of(runtime: Runtime[Configuration]) -> Services:
    """The run's services for this node."""
    return current_services(runtime.context)


async def model_ready(runtime: Runtime[Configuration]) -> Services:
    """The run's services with the model chosen off the event loop (a graph's first node
    awaits this before asking for a caller)."""
    services = services_of(runtime)
    await services.resolve_model()
    return services


def emitter(runtime: Runtime[Configuration], node: str) -> Callable[..., None]:
    """A function that streams a progress event (custom stream mode) for this node."""

    def emit(message: str, **counts: Any) -> None:
        runtime.stream_writer(
            {"node": node, "kind": "progress", "message": message, "counts": counts}
        )

    return emit


def node_tools(
    runtime: Runtime[Configuration], node: str
) -> tuple[Configuration, Services, Callable[..., None]]:
    """What most nodes start with: the run's configuration, its services, the node's emitter."""
    return runtime.context, services_of(runtime), emitter(runtime, node)


def error_record(node: str, exc: BaseException, target: str = "") -> ErrorRecord:
    """A failure as data."""
    kind: str
    if isinstance(exc, ProviderError):
        kind = exc.kind
    elif isinstance(exc, ResearchStudioError):
        kind = type(exc).__name__
    else:
        kind = "internal"
    return ErrorRecord(node=node, kind=kind, message=str(exc), target=target)


def run_start(state: Mapping[str, Any], query: str) -> dict[str, Any]:
    """What the first node of a run records: when it started, its date, the question as a message.

    The date is recorded once so every prompt of a run (and a resumed run) says the same day.
    """
    update: dict[str, Any] = {}
    if "started_at" not in state:
        update["started_at"] = time.time()
    if not state.get("today"):
        update["today"] = dt.date.today().isoformat()
    if not state.get("messages"):
        update["messages"] = [HumanMessage(content=query)]
    if not state.get("mode"):
        # Studio's chat sends no mode: the run is multi, as `research_input`'s default, so
        # every node (router, writer, report) reads the same one.
        update["mode"] = "multi"
    return update


def clarification_update(state: Mapping[str, Any]) -> dict[str, Any]:
    """The clarify stop's update: the injected answer, trimmed, and as a message when given."""
    answer = state.get("user_clarification", "").strip()
    if not answer:
        return {"user_clarification": ""}
    return {
        "user_clarification": answer,
        "messages": [HumanMessage(content=f"Clarification: {answer}")],
    }


def chat_answer(state: Mapping[str, Any]) -> str:
    """A chat message sent to a thread waiting on its clarifying question: the answer to it.

    Studio's chat sends an answer as a new human message, which starts the graph over; this
    is that message's text when the thread asked a question that no answer has yet settled
    (no `user_clarification`, no reading taken by code: `referent_notice`, no `clarify` that
    cleared `needs_clarification`) and holds no report; "" otherwise."""
    if state.get("report") or not state.get("clarification_question"):
        return ""
    if state.get("user_clarification") or state.get("referent_notice"):
        return ""
    if state.get("needs_clarification") is False:
        return ""
    messages = state.get("messages") or []
    # The first human message is the question itself; the answer comes after it.
    if len(messages) < 2 or not isinstance(messages[-1], HumanMessage):
        return ""
    return messages[-1].text.strip()


def clip(items: Iterable[str], limit: int) -> list[str]:
    """Distinct, stripped, non-empty items, at most `limit`."""
    kept: list[str] = []
    for item in items:
        item = item.strip()
        if item and item not in kept:
            kept.append(item)
    return kept[:limit]


def query_of(state: Mapping[str, Any], config: Configuration) -> str:
    """The research question: `query`, else the last human message (LangGraph Studio chat),
    checked as every face checks it (a LangGraph server's client sends it unchecked).

    The input is checked here too, before any model call: a mode the graphs do not know would
    be read as multi by some nodes and as single by others; and a thread whose run already
    wrote its report (Studio's chat, a second message) would research its old question again,
    its sources and evidence added to the old ones, so a new question needs a new thread."""
    if state.get("report"):
        raise ResearchStudioError(
            "this thread already holds a finished run: start a new thread for a new question"
        )
    mode = state.get("mode")
    if mode and mode not in get_args(Mode):
        raise ResearchStudioError(f"unknown mode {str(mode)[:40]!r}: use 'single' or 'multi'")
    query = state.get("query") or next(
        (
            str(m.content)
            for m in reversed(state.get("messages", []))
            if isinstance(m, HumanMessage)
        ),
        "",
    )
    if not str(query).strip():
        raise ResearchStudioError("no query given: pass query or a human message")
    return check_query(str(query), max_chars=config.max_query_chars)


def limitations_of(
    runtime: Runtime[Configuration],
    state: Mapping[str, Any],
    errors: Sequence[ErrorRecord],
    tally: Tally,
    language: str,
    conflicts: Sequence[str] = (),
) -> str | None:
    """The report's limitations section (None when nothing was lost): the run's and the writer's
    errors, what grounding dropped, what the time range left out, why the research stopped, and
    the conflicts between sources that stay open."""
    services = services_of(runtime)
    losses = Losses(
        errors=[*state.get("errors", []), *errors],
        sources_dropped=state.get("sources_dropped", 0),
        statements_dropped=tally.unsupported,
        numbers_unsupported=tally.numbers_unsupported,
        instructions_dropped=tally.injections,
        outside_time_range=services.results_outside_range,
        attempts=services.attempt,
        stop_reason=state.get("stop_reason", ""),
        conflicts=conflicts,
    )
    return limitations_section(losses, language)


def report_update(
    runtime: Runtime[Configuration],
    state: Mapping[str, Any],
    *,
    report: str,
    statements: list[StatementRecord],
    summary: RunSummary,
    calls: list[ModelCallRecord],
    errors: list[ErrorRecord],
) -> dict[str, Any]:
    """What a pipeline's last node returns: the report, its statements and the run's metadata."""
    metadata = build_metadata(
        state,
        summary,
        runtime.context,
        search_provider=services_of(runtime).search_choice.name,
        final_calls=calls,
        final_errors=errors,
    )
    return {
        "report": report,
        "statements": statements,
        "metadata": metadata,
        "llm_calls": calls,
        "errors": errors,
        "messages": [AIMessage(content=report)],
    }
