"""A run in a real terminal (a pseudo-terminal): a spinner while it works, ✓ when it is done, and one
clock for the live display and the closing summary, counted from the command's start."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import time
from pathlib import Path

import pytest

from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.helpers import cli, cli_env

pytestmark = pytest.mark.e2e
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
SPINNER = frozenset("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")  # Rich's "dots"
_CLOCK = re.compile(r"^\s*(?:(\d+):)?(\d+):(\d\d)\s")


def _seconds(match: re.Match[str]) -> int:
    hours, minutes, secs = match.groups()
    return int(hours or 0) * 3600 + int(minutes) * 60 + int(secs)


def run_in_terminal(web: FakeWeb, tmp_path: Path) -> tuple[int, str]:
    """`research-studio run` with its stderr and stdout on a terminal: (exit code, all it wrote)."""
    web.chat.responder = ResearchScript().chat_responder()
    web.page_latency_s = 0.4  # long enough for several frames of the live display
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        cli(
            "run",
            "coral bleaching heat stress",
            "--model",
            "openai:fake-model",
            "--single-agent",
            "--no-clarify",
            "--out",
            str(tmp_path / "run"),
        ),
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        env={**cli_env(web, tmp_path), "COLUMNS": "120", "TERM": "xterm"},
        cwd=tmp_path,
    )
    os.close(follower)
    written = bytearray()
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1.0)
            if ready:
                try:
                    piece = os.read(leader, 65536)
                except OSError:  # the terminal closed: the command ended
                    break
                if not piece:
                    break
                written += piece
            elif process.poll() is not None:
                break
        code = process.wait(timeout=30)
    finally:
        os.close(leader)
        if process.poll() is None:
            process.kill()
    return code, written.decode("utf-8", "replace")


def test_a_working_run_shows_a_spinner_then_a_tick_and_one_clock(
    web: FakeWeb, tmp_path: Path
) -> None:
    code, written = run_in_terminal(web, tmp_path)
    assert code == 0, written
    # Rich redraws the live display in place: each frame begins with a cursor move.
    frames = [_ANSI.sub("", frame) for frame in re.split(r"\x1b\[\d*A", written)]
    live = [frame for frame in frames if "coral bleaching heat stress" in frame]
    assert len(live) >= 3, written
    *working, last = live
    marks = [
        next((char for char in frame if char in SPINNER | {"✗", "✓"}), None) for frame in working
    ]
    assert "✗" not in "".join(frame for frame in working), "a working run drew a failure mark"
    assert any(mark in SPINNER for mark in marks), marks
    assert "✓" in last

    # One clock: the summary's time is never less than what the live display showed last.
    shown = [
        _seconds(match)
        for frame in live
        for row in frame.splitlines()
        if (match := _CLOCK.match(row.lstrip("".join(SPINNER | {"✓", "✗"}) + " ")))
    ]
    summary = re.search(r"^Time\s+(\d+):(\d\d)", _ANSI.sub("", written), re.MULTILINE)
    assert shown and summary, written
    total = int(summary.group(1)) * 60 + int(summary.group(2))
    assert total >= max(shown)
    # The command's clock includes the set-up before the run; the run's own figure does not.
    elapsed_s = json.loads((tmp_path / "run" / "result.json").read_text())["metadata"]["elapsed_s"]
    assert total >= int(elapsed_s)
