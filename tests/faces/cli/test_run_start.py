"""`run` says it is starting before it imports the graph modules (LangGraph takes seconds)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

_RUN = "from research_studio.faces.cli import main; main()"


def test_run_prints_its_starting_line_before_importing_langgraph(tmp_path: Path) -> None:
    # -X importtime writes one stderr line per import, in order with what the command prints.
    options = ["--model", "openai:gpt-4o-mini", "--no-clarify", "--out", str(tmp_path / "run")]
    process = subprocess.Popen(
        [
            sys.executable,
            "-X",
            "importtime",
            "-c",
            _RUN,
            "run",
            "coral bleaching and reefs",
            *options,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "OPENAI_API_KEY": "sk-test-never-used"},
        start_new_session=True,
    )
    assert process.stderr is not None
    seen: list[str] = []
    try:
        for text in process.stderr:
            if text.startswith("starting ") or "| langgraph" in text or "langgraph." in text:
                seen.append(text.strip())
                break
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert seen == ["starting standard (multi): coral bleaching and reefs"]
