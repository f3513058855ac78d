"""`run` says it is starting before it imports the graph modules (LangGraph takes seconds)."""

from __future__ import annotations

import os
import pty
import re
import signal
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from research_studio.faces.cli import app

_RUN = "from research_studio.faces.cli import main; main()"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


# What the first line must not wait for: LangGraph, and the modules that do a run's work (the
# pipeline specs name their pipelines without importing their nodes or renderers).
_HEAVY = (
    "asyncio",  # the run needs it; the line does not
    "langgraph",
    "langchain_core",
    "rich.table",
    "research_studio.llm",
    "research_studio.sources",
    "research_studio.grounding",
    "research_studio.services",
    "research_studio.evidence",
    "research_studio.pipelines.supervisor.render",
    "research_studio.run.launch",
    "research_studio.run.runner",
    "research_studio.faces.cli.progress",
)


@pytest.fixture(scope="module")
def start(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], str | None]:
    """The modules `run` imported before its first line (in order), and that line."""
    # -X importtime writes one stderr line per import, in order with what the command prints;
    # stderr is a terminal, as for a person (the line is progress, shown in terminals only).
    out = tmp_path_factory.mktemp("start") / "run"
    options = ["--model", "openai:gpt-4o-mini", "--no-clarify", "--out", str(out)]
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-c", _RUN, "run", "coral bleaching", *options],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=follower,
        env={**os.environ, "OPENAI_API_KEY": "sk-test-never-used"},
        start_new_session=True,
    )
    os.close(follower)
    imported: list[str] = []
    try:
        with os.fdopen(leader, encoding="utf-8", errors="replace") as terminal:
            for text in terminal:
                text = _ANSI.sub("", text).strip()
                if text.startswith("starting "):
                    return imported, text
                if text.startswith("import time:") and "|" in text:
                    imported.append(text.rsplit("|", 1)[1].strip())
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    return imported, None


def test_run_prints_its_starting_line_before_importing_langgraph(
    start: tuple[list[str], str | None],
) -> None:
    imported, first = start
    assert first == "starting standard (multi): coral bleaching"
    assert "research_studio.pipelines.registry" in imported  # the measure saw the imports


def test_the_starting_line_comes_before_the_modules_that_do_the_work(
    start: tuple[list[str], str | None],
) -> None:
    imported, first = start
    assert first is not None
    early = [name for name in imported if name.startswith(_HEAVY)]
    assert early == []


def test_without_a_terminal_a_mistake_is_still_the_only_line() -> None:
    result = CliRunner().invoke(app, ["run", "coral reefs", "--model", "gpt4"])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1 and "starting" not in result.output
