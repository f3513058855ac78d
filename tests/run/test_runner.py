"""The runner saves how a run ended, however early it ends."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path

from research_studio.core.config import Configuration
from research_studio.run.runner import execute
from research_studio.run.runs import RunFolder, RunRecord, new_run_id


async def _never_asked(question: str, options: list[str]) -> str | None:
    raise AssertionError("nothing is asked of a cancelled run")


async def test_a_run_cancelled_while_it_starts_is_saved_as_cancelled(
    make_config: Callable[..., Configuration], tmp_path: Path
) -> None:
    """The cancel lands while the runner writes `running`: that write may not win."""
    record = RunRecord(run_id=new_run_id(), query="q", pipeline="standard", mode="multi")
    folder = RunFolder.create(tmp_path / "run", record)
    task = asyncio.create_task(
        execute(
            folder,
            make_config(model="scripted:default"),
            initial={"query": "q"},
            ask=_never_asked,
            on_event=lambda event: None,
            handle_signals=False,
            cancelled=lambda: True,
        )
    )
    await asyncio.sleep(0)  # the runner is inside its first save
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    saved = RunFolder.open(folder.path).record
    assert saved.status == "cancelled" and saved.error is None
