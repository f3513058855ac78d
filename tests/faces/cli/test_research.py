"""The research commands end to end: run, --compare, runs, clarification handling, kill and resume."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from research_studio.core.files import write_atomically
from research_studio.faces.cli import app
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.helpers import (
    cli,
    cli_env,
    hold_second_extraction,
    resume,
    run_cli,
    run_id,
    schema_counts,
    start_run,
    wait_for,
    web_args,
)

pytestmark = pytest.mark.e2e
runner = CliRunner()


def test_run_writes_the_three_outputs(web: FakeWeb, tmp_path: Path) -> None:
    result = run_cli(web, "run", "coral bleaching heat stress", "--out", "out", "--single-agent")
    assert result.exit_code == 0, result.output
    folder = tmp_path / "out"
    report = (folder / "report.md").read_text()
    document = json.loads((folder / "result.json").read_text())
    assert set(document) >= {
        "query",
        "pipeline",
        "mode",
        "clarification",
        "report",
        "sources",
        "evidence",
        "metadata",
    }
    assert (
        document["report"] == report
        and document["mode"] == "single"
        and document["pipeline"] == "standard"
    )
    required = {
        "iterations",
        "coverage",
        "confidence",
        "sources_count",
        "evidence_count",
        "searches",
        "fetches",
        "llm_calls",
        "prompt_tokens",
        "completion_tokens",
        "elapsed_s",
        "model",
        "search_provider",
        "errors",
    }
    assert required <= set(document["metadata"])
    # Without an interruption the call ledger and the graph state agree.
    metadata = document["metadata"]
    assert metadata["attempts"] == 1
    assert metadata["llm_calls_all_attempts"] == metadata["llm_calls"] > 0
    assert metadata["prompt_tokens_all_attempts"] == metadata["prompt_tokens"] > 0
    events = [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]
    assert all(set(event) == {"time", "node", "kind", "message", "counts"} for event in events)
    assert {event["kind"] for event in events} >= {"start", "end", "progress"}
    assert [e["node"] for e in events if e["kind"] == "end"][-1] == "write_report"
    assert json.loads((folder / "run.json").read_text())["status"] == "completed"
    assert not list(folder.glob(".*.tmp"))


def test_compare_prints_both_modes(web: FakeWeb) -> None:
    result = run_cli(web, "run", "solid-state battery cost", "--compare", "--json")
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)
    assert set(metrics) == {"single", "multi"}
    assert metrics["multi"]["llm_calls"] and metrics["single"]["sources_count"]
    listing = json.loads(runner.invoke(app, ["runs", "--json"]).stdout)
    assert sorted(record["mode"] for record in listing) == ["multi", "single"]
    assert {record["status"] for record in listing} == {"completed"}


def test_compare_with_runs_two_pipelines_on_the_same_question(web: FakeWeb) -> None:
    result = run_cli(
        web,
        "run",
        "solid-state battery cost",
        "--compare-with",
        "advanced-optimized",
        "--json",
        model=ResearchScript(coverage=[0.9], ready=[True]).model(),
    )
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)
    assert set(metrics) == {"standard (multi)", "advanced-optimized (multi)"}
    assert all(row["llm_calls"] and row["cited_sources"] for row in metrics.values())
    listing = json.loads(runner.invoke(app, ["runs", "--json"]).stdout)
    assert sorted(record["pipeline"] for record in listing) == ["advanced-optimized", "standard"]
    both = run_cli(web, "run", "q", "--compare", "--compare-with", "advanced")
    assert both.exit_code == 2 and "not both" in both.output


def test_without_a_terminal_an_ambiguous_run_never_waits(web: FakeWeb, tmp_path: Path) -> None:
    model = ResearchScript(ambiguous=True).model()
    result = run_cli(web, "run", "python", "--out", "amb", "--iterations", "1", model=model)
    assert result.exit_code == 0, result.output
    assert "continuing without asking" in result.output
    # It takes the reading listed first (tests/pipelines/standard/test_assumed_reading.py).
    plan = model.calls_for("ResearchPlan")[0].prompt
    assert "User clarification: The programming language" in plan


def test_answer_option_supplies_the_clarification(web: FakeWeb, tmp_path: Path) -> None:
    model = ResearchScript(ambiguous=True).model()
    result = run_cli(
        web,
        "run",
        "python",
        "--out",
        "amb",
        "--iterations",
        "1",
        "--answer",
        "The snake",
        model=model,
    )
    assert result.exit_code == 0, result.output
    assert "User clarification: The snake" in model.calls_for("ResearchPlan")[0].prompt
    document = json.loads((tmp_path / "amb" / "result.json").read_text())
    assert document["clarification"]["answer"] == "The snake"
    assert document["clarification"]["options"]


def test_run_mistakes_are_one_line_errors(web: FakeWeb) -> None:
    result = runner.invoke(app, ["run", "q", "--model", "nope:x", *web_args(web)])
    assert result.exit_code == 2 and "unknown model provider 'nope'" in result.output
    # A pipeline that does not exist is not offered: the choice is refused before any work.
    result = runner.invoke(app, ["run", "q", "--pipeline", "nonexistent", *web_args(web)])
    assert result.exit_code == 2 and "'nonexistent' is not one of" in result.output
    result = runner.invoke(app, ["resume", "no-such-run"])
    assert result.exit_code == 2 and "no run found" in result.output
    assert "Traceback" not in result.output


def test_atomic_write_leaves_the_old_file_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.md"
    target.write_text("old report")

    def crash(*_args: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        write_atomically(target, "new report")
    assert target.read_text() == "old report"
    assert [path.name for path in tmp_path.iterdir()] == ["report.md"]


def ledger(folder: Path) -> list[dict[str, Any]]:
    path = folder / "calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def listed_status(folder: Path) -> str:
    listing = runner.invoke(app, ["runs", "--json"])
    assert listing.exit_code == 0, listing.output
    return next(r["status"] for r in json.loads(listing.stdout) if r["run_id"] == run_id(folder))


def test_a_killed_run_resumes_without_redoing_finished_nodes(web: FakeWeb, tmp_path: Path) -> None:
    # The second page extraction waits: the node has made calls and is still unfinished when
    # the process dies, so its state update (and the calls in it) is lost.
    release, held = hold_second_extraction(web)
    env = cli_env(web, tmp_path)
    folder = tmp_path / "runs" / "killed"
    process = start_run(folder, env)
    try:

        def node_holds_lost_calls() -> bool:
            calls = ledger(folder)
            started = [c for c in calls if c["phase"] == "start"]
            ended = [c for c in calls if c["phase"] == "end"]
            return bool(held) and len(started) == len(web.chat.requests) == len(ended) + len(held)

        wait_for(process, node_holds_lost_calls, "a held page extraction")
        refused = runner.invoke(app, ["resume", str(folder)])
        assert refused.exit_code == 2 and "is still running (process" in refused.output
        assert len(refused.output.strip().splitlines()) == 1
        assert listed_status(folder) == "running"
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        release.set()
        if process.poll() is None:
            process.kill()
    assert json.loads((folder / "run.json").read_text())["status"] == "running"
    assert listed_status(folder) == "interrupted"
    assert not (folder / "report.md").exists()
    before = schema_counts(web)
    assert before["Understanding"] == 1 and before["ResearchPlan"] == 1
    first_attempt = len(web.chat.requests)
    assert before["PageExtraction"] >= 2

    resumed = resume(folder, env)
    assert resumed.returncode == 0, resumed.stderr
    after = schema_counts(web)
    assert after["Understanding"] == 1 and after["ResearchPlan"] == 1
    assert after["PageExtraction"] > before["PageExtraction"] and after["ReportDraft"] == 1
    report = (folder / "report.md").read_text()
    assert report.startswith("# ")
    # The report and result.json say the run was interrupted and resumed.
    assert "- The run was interrupted and resumed (2 attempts)." in report
    assert json.loads((folder / "result.json").read_text())["report"] == report
    assert json.loads((folder / "run.json").read_text())["status"] == "completed"
    metadata = json.loads((folder / "result.json").read_text())["metadata"]
    second_attempt = len(web.chat.requests) - first_attempt
    # Graph state keeps the finished nodes' calls: understand and plan of the first attempt.
    assert metadata["llm_calls"] == 2 + second_attempt
    # Every request the model server saw is counted, the lost node's included.
    assert metadata["attempts"] == 2
    assert metadata["llm_calls_all_attempts"] == len(web.chat.requests)
    assert metadata["prompt_tokens_all_attempts"] > metadata["prompt_tokens"]
    attempts = Counter(c["attempt"] for c in ledger(folder) if c["phase"] == "start")
    assert attempts == {1: first_attempt, 2: second_attempt}


def test_sigterm_saves_the_run_as_interrupted(web: FakeWeb, tmp_path: Path) -> None:
    web.chat.responder = ResearchScript(coverage=[0.9], ready=[True]).chat_responder()
    folder = tmp_path / "runs" / "stopped"
    web.search_latency_s = 30.0  # the first search is still in flight when the signal comes
    process = start_run(folder, cli_env(web, tmp_path))
    try:
        events = folder / "events.jsonl"
        wait_for(
            process,
            lambda: (
                events.exists() and '"search_and_extract", "kind": "start"' in events.read_text()
            ),
            "search_and_extract",
        )
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert "stopped by SIGTERM" in stderr and "Traceback" not in stderr
    record = json.loads((folder / "run.json").read_text())
    assert record["status"] == "interrupted" and record["error"] == "stopped by SIGTERM"
    assert listed_status(folder) == "interrupted"
    last = json.loads((folder / "events.jsonl").read_text().splitlines()[-1])
    assert last["kind"] == "error" and "SIGTERM" in last["message"]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("x" * 2001, "the limit is 2000"),
        ("?!… --- ...", "has no words"),
        ("   \t  ", "the question is empty"),
        ("caf\udce9 culture", "not valid UTF-8"),  # how Python decodes undecodable argv bytes
    ],
)
def test_bad_questions_are_one_line_errors_without_a_run_folder(
    tmp_path: Path, query: str, message: str
) -> None:
    result = runner.invoke(app, ["run", query, "--model", "nope:x"])
    assert result.exit_code == 2, result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "runs").exists()


def test_the_question_length_limit_is_a_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RESEARCH_STUDIO_MAX_QUERY_CHARS", "20")
    result = runner.invoke(app, ["run", "a" * 30, "--out", "q"])
    assert result.exit_code == 2 and "is 30 characters long; the limit is 20" in result.output
    assert not (tmp_path / "q").exists()


def test_non_utf8_bytes_from_the_shell_leave_no_run_folder(tmp_path: Path) -> None:
    result = subprocess.run(
        cli("run", b"caf\xe9 culture", "--out", "bad"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert (
        result.stderr.strip()
        == "error: the question holds bytes that are not valid UTF-8; pass it as UTF-8 text"
    )
    assert not (tmp_path / "bad").exists() and not (tmp_path / "runs").exists()


def test_advanced_pipeline_through_the_cli(web: FakeWeb, tmp_path: Path) -> None:
    model = ResearchScript(coverage=[0.9], ready=[True]).model()
    result = run_cli(
        web,
        "run",
        "coral bleaching heat stress",
        "--pipeline",
        "advanced",
        "--out",
        "adv",
        model=model,
    )
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "adv" / "result.json").read_text())
    assert document["pipeline"] == "advanced"
    # The shared output contract: claims, sources with their credibility, one metadata block.
    assert document["claims"] and all("credibility" in s for s in document["sources"])
    metadata = document["metadata"]
    for key in (
        "overall_confidence",
        "verified_claims",
        "total_claims",
        "cross_validated",
        "knowledge_gaps",
        "sources_used",
        "iterations",
        "searches",
        "llm_calls",
        "prompt_tokens",
        "completion_tokens",
    ):
        assert key in metadata, key
    assert document["metadata"]["sources_count"] == len(document["sources"])
    assert metadata["llm_calls_all_attempts"] == metadata["llm_calls"] > 0
    assert document["metadata"]["evidence_count"] == len(document["evidence"])
    report = (tmp_path / "adv" / "report.md").read_text()
    assert set(re.findall(r"\[(S\d+)\]", report)) <= {s["sid"] for s in document["sources"]}


def test_a_run_shows_steps_in_words_and_closes_with_a_short_summary_report_first(
    web: FakeWeb, tmp_path: Path
) -> None:
    # Rich markup and an IPv6 literal in the question are text, in progress, summary and `runs`.
    question = "coral bleaching [/] heat stress [fe80::1]"
    result = run_cli(web, "run", question, "--single-agent", "--iterations", "1")
    assert result.exit_code == 0, result.output
    labels = [line.split()[0] for line in result.stdout.splitlines() if line.strip()]
    assert labels == ["Report", "Sources", "Citations", "Audit", "Answer", "Cost", "Time", "Run"]
    (folder,) = (tmp_path / "runs").iterdir()
    assert result.stdout.split()[1] == str((folder / "report.md").resolve())
    assert re.search(r"^Audit +all checks hold", result.stdout, re.MULTILINE)
    assert "llm_calls_all_attempts" not in result.stdout
    progress = result.stderr
    assert "planning the research: done" in progress and "writing the report" in progress
    assert not re.search(r"(\w+): \1 (started|finished)", progress)
    listing = runner.invoke(app, ["runs", "--search", "[fe80::1]"])
    assert question in listing.stdout
    verbose = run_cli(web, "run", question, "--out", "again", "--single-agent", "--verbose")
    assert verbose.exit_code == 0, verbose.output
    assert "llm_calls_all_attempts" in verbose.stdout and "Report" in verbose.stdout


def test_an_out_that_names_a_file_is_one_line(web: FakeWeb, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine\n")
    result = run_cli(web, "run", "coral bleaching heat stress", "--out", "notes.txt")
    assert result.exit_code != 0
    assert "notes.txt is a file, not a folder: --out names the run's folder" in result.output
    assert "Traceback" not in result.output and "File exists" not in result.output
    assert (tmp_path / "notes.txt").read_text() == "mine\n"
