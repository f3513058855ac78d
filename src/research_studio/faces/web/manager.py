"""Runs the server started, as asyncio tasks in its own process: start, answer, resume, cancel."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from research_studio.core.config import Configuration
from research_studio.core.errors import ResearchStudioError, RunConflict
from research_studio.run.launch import resume_settings
from research_studio.run.runner import Outcome, execute
from research_studio.run.runs import RunFolder

log = logging.getLogger(__name__)
PendingKind = Literal["clarification", "plan_review", "review"]
PENDING_KINDS: dict[str, PendingKind] = {
    "awaiting_clarification": "clarification",
    "awaiting_plan_review": "plan_review",
    "awaiting_review": "review",
}


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
        self.cancelling: set[str] = set()  # cancelled by a user, not by the server's shutdown
        # Ids between a request's checks and its task (or deletion): no other request may act.
        self._starting: set[str] = set()

    def running(self, run_id: str) -> bool:
        if run_id in self._starting:
            return True
        task = self.tasks.get(run_id)
        return task is not None and not task.done()

    @contextlib.contextmanager
    def reserve(self, run_id: str) -> Iterator[None]:
        """Hold the run for one request (resume, delete) across its awaits; else RunConflict."""
        if self.running(run_id):
            raise RunConflict(f"run {run_id} is still running")
        self._starting.add(run_id)
        try:
            yield
        finally:
            self._starting.discard(run_id)

    def start(
        self,
        folder: RunFolder,
        config: Configuration,
        initial: dict[str, Any] | None,
        answer: str | None = None,
    ) -> None:
        """Execute (or resume, without `initial`) the run in the background."""
        run_id = folder.record.run_id
        task = self.tasks.get(run_id)
        if task is not None and not task.done():
            raise RunConflict(f"run {run_id} is still running")
        self.pending.pop(run_id, None)
        self.tasks[run_id] = asyncio.create_task(
            self._execute(folder, config, initial, answer), name=f"run {run_id}"
        )

    async def resume(self, folder: RunFolder, answer: str | None) -> None:
        """Continue a paused, interrupted or failed run, as `research-studio resume` does."""
        with self.reserve(folder.record.run_id):
            # Read again once reserved: another request may have run it since `folder` was read.
            folder = await asyncio.to_thread(RunFolder.open, folder.path)
            record = folder.record
            if record.status == "running":
                raise RunConflict(f"run {record.run_id} is still running")
            if record.status == "completed":
                raise RunConflict(f"run {record.run_id} is already completed")
            config = await asyncio.to_thread(resume_settings, folder, self.config_file)
            self.start(folder, config, None, answer)

    def cancel(self, run_id: str) -> None:
        """Cancel a running run; the runner saves it as cancelled (resumable)."""
        task = self.tasks.get(run_id)
        if task is None or task.done():
            raise RunConflict(f"run {run_id} is not running in this server")
        self.cancelling.add(run_id)
        task.cancel()

    async def _execute(
        self,
        folder: RunFolder,
        config: Configuration,
        initial: dict[str, Any] | None,
        answer: str | None,
    ) -> None:
        run_id = folder.record.run_id
        try:
            # The server's own signal handling (uvicorn) stops it; shutdown() then cancels runs.
            outcome = await execute(
                folder,
                config,
                initial=initial,
                ask=_pause_ask,
                on_event=_ignore,
                answer=answer,
                review=_pause_review,
                handle_signals=False,
                cancelled=lambda: run_id in self.cancelling,
            )
            self._remember(run_id, outcome)
        except asyncio.CancelledError:
            pass  # saved as cancelled (the user's choice) or interrupted (a shutdown) by the runner
        except ResearchStudioError as exc:  # a failure the run recorded (a model server down…)
            log.error("run %s failed: %s", run_id, exc)  # one line: the page shows the rest
        except Exception:  # the runner saved it as failed, with its error, in run.json
            log.exception("run %s failed", run_id)
        finally:
            self.cancelling.discard(run_id)
            if self.tasks.get(run_id) is asyncio.current_task():
                self.tasks.pop(run_id)

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
