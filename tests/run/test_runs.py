"""Run folders: owners alive or gone, the call ledger's totals, and questions no run is made of."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from research_studio.core.config import Configuration
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


# --- History: a per-user folder, ids by unique prefix, search (through the CLI) ---


def stored_run(runs_dir: Path, run_id: str, query: str = "q", **fields: object) -> RunFolder:
    folder = RunFolder.create(
        runs_dir / run_id,
        RunRecord.model_validate(
            {"run_id": run_id, "query": query, "pipeline": "standard", "mode": "multi", **fields}
        ),
    )
    folder.save(status="completed", owner=None)
    return folder


def invoke(*args: str) -> Any:
    from typer.testing import CliRunner

    from research_studio.faces.cli import app

    return CliRunner().invoke(app, list(args))


def test_history_defaults_to_the_per_user_data_folder_and_is_found_from_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RESEARCH_STUDIO_RUNS_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    history = tmp_path / "data" / "research-studio" / "runs"
    assert Configuration().runs_dir == history
    stored_run(history, "20261124-135501-abcdef", "urban heat islands")
    elsewhere = tmp_path / "some" / "other" / "folder"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    listing = invoke("runs")
    assert listing.exit_code == 0, listing.output
    assert "20261124-135501-abcdef" in listing.stdout and "urban heat islands" in listing.stdout
    # An explicit runs_dir still wins.
    monkeypatch.setenv("RESEARCH_STUDIO_RUNS_DIR", str(tmp_path / "mine"))
    assert "No runs in" in invoke("runs").output


def test_a_unique_prefix_opens_a_run_and_an_ambiguous_one_names_the_candidates(
    tmp_path: Path,
) -> None:
    runs_dir = tmp_path / "runs"
    stored_run(runs_dir, "20261124-135501-abcdef")
    stored_run(runs_dir, "20261124-135502-123456")
    stored_run(runs_dir, "20261125-090000-fedcba")
    assert find_run(runs_dir, "20261125").record.run_id == "20261125-090000-fedcba"
    assert find_run(runs_dir, "20261124-135501-abcdef").path == runs_dir / "20261124-135501-abcdef"
    with pytest.raises(ResearchStudioError) as ambiguous:
        find_run(runs_dir, "20261124-1355")
    message = str(ambiguous.value)
    assert "matches 2 runs" in message and "\n" not in message
    assert "20261124-135501-abcdef" in message and "20261124-135502-123456" in message
    for missing in ("2027", "../runs", "*", "2026112?"):
        with pytest.raises(ResearchStudioError, match="no run"):
            find_run(runs_dir, missing)


def test_every_command_that_takes_a_run_id_takes_a_prefix(
    finished_run_folder: Path, tmp_path: Path
) -> None:
    import shutil

    run_id = json.loads((finished_run_folder / "run.json").read_text())["run_id"]
    shutil.copytree(finished_run_folder, tmp_path / "runs" / run_id)
    stored_run(tmp_path / "runs", "19990101-000000-aaaaaa")
    prefix = run_id[:11]
    audited = invoke("audit", prefix)
    assert audited.exit_code == 0, audited.output
    assert run_id in audited.stdout
    exported = invoke("export", prefix, "--format", "md", "--out", str(tmp_path / "r.md"))
    assert exported.exit_code == 0, exported.output
    assert (tmp_path / "r.md").read_text().startswith("# ")
    resumed = invoke("resume", prefix)
    assert resumed.exit_code == 2 and "already completed" in resumed.output
    stored_run(tmp_path / "runs", "19990101-000000-bbbbbb")
    twice = invoke("export", "1999", "--format", "md")
    assert twice.exit_code == 2 and len(twice.output.strip().splitlines()) == 1
    assert "matches 2 runs" in twice.output


def test_runs_search_filters_by_question_pipeline_and_status(tmp_path: Path) -> None:
    runs_dir = tmp_path / "runs"
    stored_run(runs_dir, "20261124-000001-aaaaaa", "Urban heat islands in Europe")
    stored_run(runs_dir, "20261124-000002-bbbbbb", "Coral bleaching", pipeline="advanced")
    failed = stored_run(runs_dir, "20261124-000003-cccccc", "Battery costs")
    failed.save(status="failed")

    def found(text: str) -> set[str]:
        listing = json.loads(invoke("runs", "--search", text, "--json").stdout)
        return {record["run_id"][-6:] for record in listing}

    assert found("urban HEAT") == {"aaaaaa"}
    assert found("advanced") == {"bbbbbb"}
    assert found("failed") == {"cccccc"}
    assert found("nothing like it") == set()
    shown = invoke("runs", "--search", "coral")
    assert "20261124-000002-bbbbbb" in shown.stdout and "Urban" not in shown.stdout
