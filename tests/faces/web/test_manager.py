"""The run manager inside a server's process: its runs leave the server's signal handling alone."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import pytest

from research_studio.faces.web.manager import RunManager
from research_studio.faces.web.request import ResearchRequest, prepare_run
from research_studio.run.runs import RunFolder
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

pytestmark = pytest.mark.e2e


def _server_handler(_signum: int, _frame: Any) -> None:
    """Stands in for uvicorn's own SIGTERM handler."""


def test_a_finished_run_leaves_the_servers_sigterm_handler_in_place(settings_file: Path) -> None:
    spec = use_scripted_model(ResearchScript().model())
    request = ResearchRequest(question="coral bleaching heat stress", model=spec, no_clarify=True)

    async def serve_one_run() -> tuple[RunFolder, Any]:
        manager = RunManager(settings_file)
        prepared = await asyncio.to_thread(prepare_run, request, settings_file)
        manager.start(prepared.folder, prepared.config, prepared.initial)
        await asyncio.gather(*manager.tasks.values())
        return prepared.folder, signal.getsignal(signal.SIGTERM)

    before = signal.signal(signal.SIGTERM, _server_handler)
    try:
        folder, handler = asyncio.run(serve_one_run())
    finally:
        signal.signal(signal.SIGTERM, before)
    assert RunFolder.open(folder.path).record.status == "completed"
    # Per-run handlers reset SIGTERM to its default when a run ended, under other runs' feet.
    assert handler is _server_handler
