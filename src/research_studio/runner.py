"""Executing a pipeline in a run folder: checkpoints, events, clarification, outputs, status."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph.state import CompiledStateGraph

from research_studio.config import Configuration
from research_studio.pipelines.registry import compile_pipeline
from research_studio.report import result_document
from research_studio.runs import PAGES_FILE, RunFolder, RunStatus
from research_studio.services import open_services

# Answers a clarification question: text to continue with it, "" to continue without, None to pause.
AskFn = Callable[[str, list[str]], Awaitable[str | None]]
EventFn = Callable[[dict[str, Any]], None]


@dataclass
class Outcome:
    """How an execution ended and the state it ended with."""

    status: RunStatus
    state: dict[str, Any] = field(default_factory=dict)
    question: str = ""
    options: list[str] = field(default_factory=list)


def _counts(result: Any) -> dict[str, Any]:
    if not isinstance(result, dict):
        return {}
    counts: dict[str, Any] = {}
    for key in ("evidence", "sources", "searches_done", "llm_calls", "errors", "worker_results"):
        value = result.get(key)
        if isinstance(value, list):
            counts[key] = len(value)
    for key in ("iteration", "coverage", "confidence"):
        if key in result:
            counts[key] = result[key]
    return counts


def _record(
    folder: RunFolder,
    on_event: EventFn,
    node: str,
    kind: str,
    message: str,
    counts: dict[str, Any] | None = None,
) -> None:
    on_event(folder.event(node, kind, message, counts))


async def _stream(
    graph: CompiledStateGraph[Any, Any, Any, Any],
    payload: Any,
    thread: RunnableConfig,
    config: Configuration,
    folder: RunFolder,
    on_event: EventFn,
) -> None:
    # "sync": each step's checkpoint is on disk before the next step starts, so a killed run
    # resumes after its last finished node instead of redoing it.
    async for mode, chunk in graph.astream(
        payload, thread, context=config, stream_mode=["tasks", "custom"], durability="sync"
    ):
        if mode == "custom" and isinstance(chunk, dict):
            _record(
                folder,
                on_event,
                str(chunk.get("node", "")),
                "progress",
                str(chunk.get("message", "")),
                chunk.get("counts") or {},
            )
        elif mode == "tasks" and isinstance(chunk, dict):
            name = str(chunk.get("name", ""))
            if "input" in chunk:
                _record(folder, on_event, name, "start", f"{name} started")
                continue
            if chunk.get("error"):
                _record(folder, on_event, name, "error", f"{name} failed: {chunk['error']}")
                continue
            result = chunk.get("result")
            _record(folder, on_event, name, "end", f"{name} finished", _counts(result))
            for error in (result or {}).get("errors", []) if isinstance(result, dict) else []:
                _record(
                    folder,
                    on_event,
                    error.get("node", name),
                    "error",
                    f"{error.get('kind')}: {error.get('message')}",
                    {"target": error.get("target", "")},
                )


async def execute(
    folder: RunFolder,
    config: Configuration,
    *,
    initial: dict[str, Any] | None,
    ask: AskFn,
    on_event: EventFn,
    answer: str | None = None,
) -> Outcome:
    """Run (or resume, when `initial` is None) the folder's pipeline to completion or a pause."""
    thread: RunnableConfig = {"configurable": {"thread_id": folder.record.run_id}}
    folder.save(status="running", error=None)
    try:
        async with (
            AsyncSqliteSaver.from_conn_string(str(folder.checkpoints)) as saver,
            open_services(config, archive_path=folder.path / PAGES_FILE) as services,
        ):
            graph = compile_pipeline(
                folder.record.pipeline, saver, folder.record.interactive_clarify
            )
            payload: dict[str, Any] | None = initial
            if answer is not None and initial is None:
                await graph.aupdate_state(thread, {"user_clarification": answer})
            while True:
                await _stream(graph, payload, thread, config, folder, on_event)
                payload = None
                snapshot = await graph.aget_state(thread)
                if "clarify" not in snapshot.next:
                    break
                question = snapshot.values.get("clarification_question", "")
                options = list(snapshot.values.get("clarification_options", []))
                reply = await ask(question, options)
                if reply is None:
                    folder.save(status="awaiting_clarification")
                    return Outcome(
                        "awaiting_clarification", dict(snapshot.values), question, options
                    )
                _record(
                    folder,
                    on_event,
                    "clarify",
                    "progress",
                    f"clarification: {reply or '(none given)'}",
                )
                await graph.aupdate_state(thread, {"user_clarification": reply})
            state = dict(snapshot.values)
            # The page text of every source, so the report can be audited after the web changes.
            sources = state.get("sources", [])
            await services.archive.export(sources, [s["sid"] for s in sources], folder.path)
    except (KeyboardInterrupt, asyncio.CancelledError):
        folder.save(status="interrupted")
        raise
    except Exception as exc:
        folder.save(status="failed", error=f"{type(exc).__name__}: {exc}")
        _record(folder, on_event, "run", "error", f"run failed: {exc}")
        raise
    if not state.get("report"):
        folder.save(status="failed", error="the pipeline ended without a report")
        return Outcome("failed", state)
    folder.write_outputs(state["report"], result_document(state, pipeline=folder.record.pipeline))
    folder.save(status="completed")
    return Outcome("completed", state)
