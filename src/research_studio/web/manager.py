"""Runs the server started, as asyncio tasks in its own process: start, answer, resume, cancel."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from research_studio.config import Configuration
from research_studio.errors import ResearchStudioError
from research_studio.launch import resume_settings
from research_studio.runner import Outcome, RunStopped, execute
from research_studio.runs import RunFolder

log = logging.getLogger(__name__)
PendingKind = Literal["clarification", "plan_review", "review"]
PENDING_KINDS: dict[str, PendingKind] = {
    "awaiting_clarification": "clarification",
    "awaiting_plan_review": "plan_review",
    "awaiting_review": "review",
}
_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class RunConflict(ResearchStudioError):
    """The run is not in a state that allows this (already running, completed …)."""


@dataclass
class Pending:
    """What a paused run asks: a clarification (with options), a plan or a node's review."""

    kind: PendingKind
    question: str
    options: list[str] = field(default_factory=list)


async def _pause_ask(_question: str, _options: list[str]) -> str | None:
    return None  # the page answers later; the run pauses as awaiting_clarification


async def _pause_review(_text: str) -> str | None:
    return None


def _ignore(_event: dict[str, Any]) -> None:
    """The runner appends every event to events.jsonl; the page follows that file."""


class RunManager:
    """The run tasks of this server, by run id."""

    def __init__(self, config_file: Path | None) -> None:
        self.config_file = config_file
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.pending: dict[str, Pending] = {}
        self._handlers: dict[int, Any] = {}

    def keep_signal_handlers(self) -> None:
        """Remember the server's own SIGTERM/SIGHUP handlers (the runner replaces them per run)."""
        if threading.current_thread() is threading.main_thread():
            self._handlers = {signum: signal.getsignal(signum) for signum in _SIGNALS}

    def _restore_signal_handlers(self) -> None:
        if self.tasks or threading.current_thread() is not threading.main_thread():
            return
        for signum, handler in self._handlers.items():
            if handler is not None:
                signal.signal(signum, handler)

    def running(self, run_id: str) -> bool:
        task = self.tasks.get(run_id)
        return task is not None and not task.done()

    def start(
        self,
        folder: RunFolder,
        config: Configuration,
        initial: dict[str, Any] | None,
        answer: str | None = None,
    ) -> None:
        """Execute (or resume, without `initial`) the run in the background."""
        run_id = folder.record.run_id
        self.pending.pop(run_id, None)
        self.tasks[run_id] = asyncio.create_task(
            self._execute(folder, config, initial, answer), name=f"run {run_id}"
        )

    async def resume(self, folder: RunFolder, answer: str | None) -> None:
        """Continue a paused, interrupted or failed run, as `research-studio resume` does."""
        record = folder.record
        if self.running(record.run_id) or record.status == "running":
            raise RunConflict(f"run {record.run_id} is still running")
        if record.status == "completed":
            raise RunConflict(f"run {record.run_id} is already completed")
        config = await asyncio.to_thread(resume_settings, folder, self.config_file)
        self.start(folder, config, None, answer)

    def cancel(self, run_id: str) -> None:
        """Cancel a running run; the runner saves it as interrupted (resumable)."""
        task = self.tasks.get(run_id)
        if task is None or task.done():
            raise RunConflict(f"run {run_id} is not running in this server")
        task.cancel()

    async def _execute(
        self,
        folder: RunFolder,
        config: Configuration,
        initial: dict[str, Any] | None,
        answer: str | None,
    ) -> None:
        run_id = folder.record.run_id
        stopped: int | None = None
        try:
            outcome = await execute(
                folder,
                config,
                initial=initial,
                ask=_pause_ask,
                on_event=_ignore,
                answer=answer,
                review=_pause_review,
            )
            self._remember(run_id, outcome)
        except asyncio.CancelledError:
            pass  # saved as interrupted by the runner; cancelling was the user's choice
        except RunStopped as exc:
            stopped = exc.signum  # saved as interrupted; the signal was meant for the server
        except Exception:  # the runner saved it as failed, with its error, in run.json
            log.exception("run %s failed", run_id)
        finally:
            self.tasks.pop(run_id, None)
            self._restore_signal_handlers()
        if stopped is not None and threading.current_thread() is threading.main_thread():
            signal.raise_signal(stopped)

    def _remember(self, run_id: str, outcome: Outcome) -> None:
        kind = PENDING_KINDS.get(outcome.status)
        if kind is not None:
            self.pending[run_id] = Pending(kind, outcome.question, list(outcome.options))

    async def shutdown(self) -> None:
        """Cancel every run (each is saved as interrupted) and wait for them."""
        tasks = list(self.tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
