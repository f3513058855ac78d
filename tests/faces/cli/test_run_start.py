"""`run` says it is starting before it imports the graph modules (LangGraph takes seconds)."""

from __future__ import annotations

import os
import pty
import re
import signal
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from research_studio.faces.cli import app

_RUN = "from research_studio.faces.cli import main; main()"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def test_run_prints_its_starting_line_before_importing_langgraph(tmp_path: Path) -> None:
    # -X importtime writes one stderr line per import, in order with what the command prints;
    # stderr is a terminal, as for a person (the line is progress, shown in terminals only).
    options = ["--model", "openai:gpt-4o-mini", "--no-clarify", "--out", str(tmp_path / "run")]
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
    seen: list[str] = []
    try:
        with os.fdopen(leader, encoding="utf-8", errors="replace") as terminal:
            for text in terminal:
                text = _ANSI.sub("", text).strip()
                if text.startswith("starting ") or "| langgraph" in text:
                    seen.append(text)
                    break
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert seen == ["starting standard (multi): coral bleaching"]


def test_without_a_terminal_a_mistake_is_still_the_only_line() -> None:
    result = CliRunner().invoke(app, ["run", "coral reefs", "--model", "gpt4"])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1 and "starting" not in result.output
