"""Run folders: owners alive or gone, the call ledger's totals, and questions no run is made of."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from research_studio.core.errors import ResearchStudioError
from research_studio.run.runs import (
    CALLS_FILE,
    RunFolder,
    RunOwner,
    RunRecord,
    _process_start_time,
    check_query,
    find_run,
    list_runs,
)

linux_only = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def record(run_id: str = "r1", **fields: object) -> RunRecord:
    return RunRecord(run_id=run_id, query="q", pipeline="standard", mode="multi", **fields)


def dead_owner() -> RunOwner:
    """The owner record of a process that has exited (and been reaped)."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    started = _process_start_time(process.pid)
    process.kill()
    process.wait()
    return RunOwner(pid=process.pid, host=socket.gethostname(), started=started)


@linux_only
def test_this_process_is_a_live_owner_and_an_exited_one_is_not() -> None:
    assert RunOwner.current().started is not None and RunOwner.current().alive() is True
    assert dead_owner().alive() is False


@linux_only
def test_a_reused_pid_is_not_the_owner() -> None:
    impostor = RunOwner(pid=os.getpid(), host=socket.gethostname(), started=12.0)
    assert impostor.alive() is False


def test_an_owner_on_another_host_cannot_be_judged() -> None:
    owner = RunOwner(pid=os.getpid(), host=socket.gethostname() + "-elsewhere", started=1.0)
    assert owner.alive() is None
    seen = record(owner=owner).seen_from_here()
    assert seen.status == "running"


@linux_only
def test_a_running_run_whose_owner_died_is_listed_and_opened_as_interrupted(
    tmp_path: Path,
) -> None:
    live = RunFolder.create(tmp_path / "live", record("live"))
    dead = RunFolder.create(tmp_path / "dead", record("dead"))
    dead.save(owner=dead_owner())
    done = RunFolder.create(tmp_path / "done", record("done"))
    done.save(status="completed", owner=dead_owner())
    statuses = {r.run_id: r.status for r in list_runs(tmp_path)}
    assert statuses == {"live": "running", "dead": "interrupted", "done": "completed"}
    opened = find_run(tmp_path, "dead").record
    assert opened.status == "interrupted" and "stopped" in (opened.error or "")
    # Reported, not rewritten: the record on disk keeps what its owner last wrote.
    assert json.loads((dead.path / "run.json").read_text())["status"] == "running"
    assert live.record.owner is not None and live.record.owner.pid == os.getpid()


def test_a_record_without_an_owner_left_running_is_interrupted(tmp_path: Path) -> None:
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "run.json").write_text(record("old").model_dump_json(exclude={"owner"}))
    assert [r.status for r in list_runs(tmp_path)] == ["interrupted"]


def test_call_totals_count_sent_calls_and_skip_a_line_cut_by_a_kill(tmp_path: Path) -> None:
    folder = RunFolder.create(tmp_path / "run", record(attempts=2))
    folder.log_call({"attempt": 1, "call": "a", "phase": "start"})
    folder.log_call({"attempt": 1, "call": "a", "phase": "end", "prompt_tokens": 10})
    folder.log_call({"attempt": 1, "call": "b", "phase": "start"})  # in flight at the kill
    folder.log_call({"attempt": 2, "call": "c", "phase": "start"})
    folder.log_call(
        {"attempt": 2, "call": "c", "phase": "end", "prompt_tokens": 5, "completion_tokens": 3}
    )
    with (folder.path / CALLS_FILE).open("a") as stream:
        stream.write('{"attempt": 1, "call": "d", "pha')
    assert folder.call_totals() == {
        "attempts": 2,
        "llm_calls_all_attempts": 3,
        "prompt_tokens_all_attempts": 15,
        "completion_tokens_all_attempts": 3,
    }


def test_a_record_that_cannot_be_written_leaves_no_folder(tmp_path: Path) -> None:
    broken = RunRecord(run_id="x", query="caf\udce9", pipeline="standard", mode="multi")
    with pytest.raises(ValueError):  # the record cannot be serialized
        RunFolder.create(tmp_path / "new", broken)
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("", "empty"),
        (" \n\t ", "empty"),
        ("?!... -- ¿¡", "no words"),
        ("x" * 51, "51 characters long; the limit is 50"),
        ("caf\udce9", "not valid UTF-8"),
    ],
)
def test_questions_no_run_is_made_of(query: str, message: str) -> None:
    with pytest.raises(ResearchStudioError, match=message):
        check_query(query, max_chars=50)


def test_a_question_is_stripped_and_any_script_counts_as_words() -> None:
    assert check_query("  珊瑚の白化?  ", max_chars=50) == "珊瑚の白化?"
    assert check_query("x" * 50, max_chars=50) == "x" * 50
