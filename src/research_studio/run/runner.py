"""Executing a pipeline in a run folder: checkpoints, events, clarification, outputs, status."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.types import Command

from research_studio.core.config import Configuration
from research_studio.core.errors import RunStopped
from research_studio.pipelines.kit.plan_review import REVIEW_NODE, parse_reply
from research_studio.pipelines.kit.report import result_document
from research_studio.pipelines.registry import compile_pipeline, spec
from research_studio.run.delegation import Paused, drive_on_server
from research_studio.run.persistence import open_persistence
from research_studio.run.recording import (
    CallLedger,
    EventFn,
    RecordFn,
    event_recorder,
    stream_events,
)
from research_studio.run.runs import PAGES_FILE, RunFolder, RunOwner, RunStatus
from research_studio.services.clients import open_services

# Answers a clarification question: text to continue with it, "" to continue without, None to pause.
AskFn = Callable[[str, list[str]], Awaitable[str | None]]
# Reviews the plan (shown as text): the reply (approve, an edited list, free text, cancel), None to pause.
ReviewFn = Callable[[str], Awaitable[str | None]]


@dataclass
class Outcome:
    """How an execution ended and the state it ended with."""

    status: RunStatus
    state: dict[str, Any] = field(default_factory=dict)
    question: str = ""
    options: list[str] = field(default_factory=list)


@contextmanager
def _stop_on_signals() -> Iterator[list[int]]:
    """SIGTERM and SIGHUP cancel the running task, as Ctrl-C does; the list gets the signal.

    A second signal finds the default handler again and ends the process at once.
    """
    received: list[int] = []
    loop, task = asyncio.get_running_loop(), asyncio.current_task()
    installed: list[int] = []

    def stop(signum: int) -> None:
        received.append(signum)
        for number in installed:
            loop.remove_signal_handler(number)
        installed.clear()
        if task is not None:
            task.cancel()

    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is None or task is None:
            continue
        try:  # only the main thread of a Unix process can take signals
            loop.add_signal_handler(signum, stop, signum)
        except (ValueError, RuntimeError, NotImplementedError):
            continue
        installed.append(signum)
    try:
        yield received
    finally:
        for number in installed:
            loop.remove_signal_handler(number)


async def _save(folder: RunFolder, **changes: Any) -> None:
    # The record is written with fsync: off the event loop, which may serve other runs.
    await asyncio.to_thread(folder.save, **changes)


async def _written(save: Coroutine[Any, Any, None]) -> None:
    """Await a record's save; when cancelled meanwhile, let the write finish before the
    cancel goes on, so nothing saved after it (cancelled, interrupted) is overwritten."""
    task = asyncio.ensure_future(save)
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        await task
        raise


_RENUMBERED = ("sources", "evidence", "claims", "statements")


async def execute(
    folder: RunFolder,
    config: Configuration,
    *,
    initial: dict[str, Any] | None,
    ask: AskFn,
    on_event: EventFn,
    answer: str | None = None,
    review: ReviewFn | None = None,
    handle_signals: bool = True,
    cancelled: Callable[[], bool] | None = None,
) -> Outcome:
    """Run (or resume, when `initial` is None) the folder's pipeline to completion or a pause.

    SIGTERM or SIGHUP save the run as interrupted and raise RunStopped, unless `handle_signals`
    is False (a server, whose own handlers stop it and cancel its runs). A cancel of the task
    for which `cancelled()` is true was the user's choice: the run is saved as cancelled.
    """
    thread: RunnableConfig = {
        "configurable": {"thread_id": folder.record.run_id},
        "callbacks": [CallLedger(folder)],
    }
    record = event_recorder(folder, on_event)
    stopping: AbstractContextManager[list[int]] = (
        _stop_on_signals() if handle_signals else nullcontext([])
    )
    with stopping as received:
        try:
            # Inside the try: a run cancelled this early is saved as cancelled, not left running.
            await _written(
                _save(
                    folder,
                    status="running",
                    error=None,
                    owner=RunOwner.current(),
                    attempts=folder.record.attempts + 1,
                    pending_question=None,
                    pending_options=[],
                )
            )
            if config.langgraph_server:
                ended = await drive_on_server(folder, config, initial, ask, record, answer)
                state = (
                    await _awaiting_clarification(folder, *ended.pending())
                    if isinstance(ended, Paused)
                    else ended
                )
            else:
                state = await _drive(folder, config, thread, initial, ask, record, answer, review)
        except (KeyboardInterrupt, asyncio.CancelledError):
            if not received and cancelled is not None and cancelled():
                await _save(folder, status="cancelled", error=None)
                record("run", "end", "run cancelled")
                raise
            stopped = f"stopped by {signal.Signals(received[0]).name}" if received else None
            await _save(folder, status="interrupted", error=stopped)
            message = f"run interrupted ({stopped})" if stopped else "run interrupted"
            record("run", "error", message)
            if not received:
                raise
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            raise RunStopped(folder.record.run_id, received[0]) from None
        except Exception as exc:
            await _save(folder, status="failed", error=f"{type(exc).__name__}: {exc}")
            record("run", "error", f"run failed: {exc}")
            raise
    if isinstance(state, Outcome):
        return state
    if not state.get("report"):
        await _save(folder, status="failed", error="the pipeline ended without a report")
        return Outcome("failed", state)
    # Graph state counts the calls of finished nodes; the ledger counts every attempt's calls.
    totals = await asyncio.to_thread(folder.call_totals)
    state["metadata"] = {**state.get("metadata", {}), **totals}
    result = result_document(state, pipeline=folder.record.pipeline)
    written = await asyncio.to_thread(folder.write_outputs, state["report"], result)
    # What the faces show is what was written: sources renumbered, statements with their ids.
    state.update({key: written[key] for key in ("report", *_RENUMBERED)})
    await _save(folder, status="completed")
    return Outcome("completed", state)


async def _drive(
    folder: RunFolder,
    config: Configuration,
    thread: RunnableConfig,
    initial: dict[str, Any] | None,
    ask: AskFn,
    record: RecordFn,
    answer: str | None,
    review: ReviewFn | None = None,
) -> dict[str, Any] | Outcome:
    """The graph run to its end (its final state) or to a pause or cancel (an Outcome)."""
    async with (
        open_persistence(
            folder.path, config, with_store=spec(folder.record.pipeline).uses_store
        ) as persistence,
        open_services(config, archive_path=folder.path / PAGES_FILE) as services,
    ):
        saver, store = persistence.saver, persistence.store
        services.attempt = max(folder.record.attempts, 1)  # a resumed run's report says so
        if services.search_choice.name != "local":
            services.parser.warm_up()  # its start overlaps the first model calls, not a fetch
        graph = compile_pipeline(
            folder.record.pipeline, saver, folder.record.interactive_clarify, store=store
        )
        payload: dict[str, Any] | Command[Any] | None = initial
        # A resumed run paused at plan review takes its answer (or asks) before going on.
        paused = await graph.aget_state(thread)
        reviewing = initial is None and REVIEW_NODE in paused.next
        plan_reply = answer if reviewing else None
        if initial is None and paused.interrupts and answer is not None:
            payload = Command(resume=answer)  # the answer to a node's own question
            record("review", "progress", f"review: {answer or 'approved'}")
        elif answer is not None and initial is None and not reviewing:
            await graph.aupdate_state(thread, {"user_clarification": answer})
        while True:
            if not reviewing:
                await stream_events(graph, payload, thread, config, record)
            payload, reviewing = None, False
            snapshot = await graph.aget_state(thread)
            if snapshot.interrupts:
                # A node asked for a human (e.g. the supervisor's brief or report review).
                question = interrupt_text(snapshot.interrupts[0].value)
                reply = await _review(review, question)
                if reply is None:
                    await _save(folder, status="awaiting_review", pending_question=question)
                    return Outcome("awaiting_review", dict(snapshot.values), question)
                record("review", "progress", f"review: {reply or 'approved'}")
                payload = Command(resume=reply or "approve")
                continue
            if REVIEW_NODE in snapshot.next:
                values = dict(snapshot.values)
                plan = spec(folder.record.pipeline).show_plan(values)
                reply = plan_reply if plan_reply is not None else await _review(review, plan)
                plan_reply = None
                if reply is None:
                    await _save(folder, status="awaiting_plan_review", pending_question=plan)
                    return Outcome("awaiting_plan_review", values, plan)
                if parse_reply(reply).kind == "cancel":
                    await _save(folder, status="cancelled", error="cancelled at plan review")
                    record(REVIEW_NODE, "progress", "plan review: cancelled")
                    return Outcome("cancelled", values, plan)
                record(REVIEW_NODE, "progress", f"plan review: {reply or 'approved'}")
                await graph.aupdate_state(thread, {"plan_feedback": reply})
                continue
            if "clarify" not in snapshot.next:
                break
            question = snapshot.values.get("clarification_question", "")
            options = list(snapshot.values.get("clarification_options", []))
            reply = await ask(question, options)
            if reply is None:
                return await _awaiting_clarification(
                    folder, dict(snapshot.values), question, options
                )
            record("clarify", "progress", f"clarification: {reply or '(none given)'}")
            await graph.aupdate_state(thread, {"user_clarification": reply})
        state = dict(snapshot.values)
        # The page text of every source, so the report can be audited after the web changes.
        sources = state.get("sources", [])
        await services.archive.export(sources, [s["sid"] for s in sources], folder.path)
    return state


async def _awaiting_clarification(
    folder: RunFolder, values: dict[str, Any], question: str, options: list[str]
) -> Outcome:
    """The run paused until a person answers the clarification question (saved with it)."""
    await _save(
        folder,
        status="awaiting_clarification",
        pending_question=question,
        pending_options=options,
    )
    return Outcome("awaiting_clarification", values, question, options)


def interrupt_text(value: Any) -> str:
    """What a node's interrupt asks, with what it shows (a brief, a report), as plain text."""
    if not isinstance(value, dict):
        return str(value)
    shown = value.get("brief") or value.get("report") or ""
    return f"{value.get('question', 'Approve?')}\n\n{shown}".strip()


async def _review(review: ReviewFn | None, plan: str) -> str | None:
    """The reviewer's reply to the plan; without a reviewer the run pauses (None)."""
    return await review(plan) if review is not None else None
