"""The research commands end to end: run, --compare, runs, clarification handling, kill and resume."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from research_studio.cli import app
from research_studio.runs import write_atomically
from research_studio.testing.fake_web import FakeWeb
from research_studio.testing.research_script import ResearchScript
from research_studio.testing.scripted_model import ScriptedChatModel, use_scripted_model

pytestmark = pytest.mark.e2e
runner = CliRunner()


def local_args(web: FakeWeb) -> list[str]:
    return ["--search", "searxng", "--searxng-url", web.base_url, "--allow-private-networks"]


def scripted_run(web: FakeWeb, model: ScriptedChatModel, *args: str) -> Any:
    spec = use_scripted_model(model)
    return runner.invoke(app, ["run", *args, "--model", spec, *local_args(web)])


def test_run_writes_the_three_outputs(web: FakeWeb, tmp_path: Path) -> None:
    result = scripted_run(
        web,
        ResearchScript().model(),
        "coral bleaching heat stress",
        "--out",
        "out",
        "--single-agent",
    )
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
    events = [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]
    assert all(set(event) == {"time", "node", "kind", "message", "counts"} for event in events)
    assert {event["kind"] for event in events} >= {"start", "end", "progress"}
    assert [e["node"] for e in events if e["kind"] == "end"][-1] == "write_report"
    assert json.loads((folder / "run.json").read_text())["status"] == "completed"
    assert not list(folder.glob(".*.tmp"))


def test_compare_prints_both_modes(web: FakeWeb) -> None:
    result = scripted_run(
        web, ResearchScript().model(), "solid-state battery cost", "--compare", "--json"
    )
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)
    assert set(metrics) == {"single", "multi"}
    assert metrics["multi"]["llm_calls"] and metrics["single"]["sources_count"]
    listing = json.loads(runner.invoke(app, ["runs", "--json"]).stdout)
    assert sorted(record["mode"] for record in listing) == ["multi", "single"]
    assert {record["status"] for record in listing} == {"completed"}


def test_without_a_terminal_an_ambiguous_run_never_waits(web: FakeWeb, tmp_path: Path) -> None:
    model = ResearchScript(ambiguous=True).model()
    result = scripted_run(web, model, "python", "--out", "amb", "--iterations", "1")
    assert result.exit_code == 0, result.output
    assert "continuing without asking" in result.output
    assert "User clarification" not in model.calls_for("ResearchPlan")[0].prompt


def test_answer_option_supplies_the_clarification(web: FakeWeb, tmp_path: Path) -> None:
    model = ResearchScript(ambiguous=True).model()
    result = scripted_run(
        web, model, "python", "--out", "amb", "--iterations", "1", "--answer", "The snake"
    )
    assert result.exit_code == 0, result.output
    assert "User clarification: The snake" in model.calls_for("ResearchPlan")[0].prompt
    document = json.loads((tmp_path / "amb" / "result.json").read_text())
    assert document["clarification"]["answer"] == "The snake"
    assert document["clarification"]["options"]


def test_run_mistakes_are_one_line_errors(web: FakeWeb) -> None:
    result = runner.invoke(app, ["run", "q", "--model", "nope:x", *local_args(web)])
    assert result.exit_code == 2 and "unknown model provider 'nope'" in result.output
    result = runner.invoke(app, ["run", "q", "--pipeline", "supervisor", *local_args(web)])
    assert result.exit_code == 2 and "not available" in result.output
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


def schema_counts(web: FakeWeb) -> Counter[str]:
    counts: Counter[str] = Counter()
    for request in web.chat.requests:
        tools = request.get("tools") or []
        name = (
            tools[0]["function"]["name"]
            if tools
            else ((request.get("response_format") or {}).get("json_schema") or {}).get(
                "name", "text"
            )
        )
        counts[name] += 1
    return counts


def cli(*args: str, env: dict[str, str], cwd: Path) -> list[str]:
    executable = shutil.which("research-studio") or str(
        Path(sys.executable).parent / "research-studio"
    )
    return [executable, *args]


def test_a_killed_run_resumes_without_redoing_finished_nodes(web: FakeWeb, tmp_path: Path) -> None:
    web.chat.responder = ResearchScript(coverage=[0.9], ready=[True]).chat_responder()
    env = {
        **os.environ,
        "OPENAI_BASE_URL": web.url("/v1"),
        "SEARXNG_URL": web.base_url,
        "RESEARCH_STUDIO_ALLOW_PRIVATE_NETWORKS": "true",
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    folder = tmp_path / "runs" / "killed"
    web.search_latency_s = 30.0  # the first search is still in flight when the process dies
    process = subprocess.Popen(
        cli(
            "run",
            "coral bleaching heat stress",
            "--model",
            "openai:fake-model",
            "--single-agent",
            "--out",
            str(folder),
            env=env,
            cwd=tmp_path,
        ),
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    events = folder / "events.jsonl"
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            lines = events.read_text().splitlines() if events.exists() else []
            if any('"node": "search_and_extract", "kind": "start"' in line for line in lines):
                break
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            time.sleep(0.05)
        else:
            pytest.fail("the run never got past the plan")
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
    web.search_latency_s = 0.0
    assert json.loads((folder / "run.json").read_text())["status"] == "running"
    assert not (folder / "report.md").exists()
    before = schema_counts(web)
    assert before["Understanding"] == 1 and before["ResearchPlan"] == 1

    resumed = subprocess.run(
        cli("resume", str(folder), env=env, cwd=tmp_path),
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    after = schema_counts(web)
    assert after["Understanding"] == 1 and after["ResearchPlan"] == 1
    assert after["PageExtraction"] > 0 and after["ReportDraft"] == 1
    assert (folder / "report.md").read_text().startswith("# ")
    assert json.loads((folder / "run.json").read_text())["status"] == "completed"


def test_advanced_pipeline_through_the_cli(web: FakeWeb, tmp_path: Path) -> None:
    model = ResearchScript(coverage=[0.9], ready=[True]).model()
    result = scripted_run(
        web, model, "coral bleaching heat stress", "--pipeline", "advanced", "--out", "adv"
    )
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "adv" / "result.json").read_text())
    assert document["pipeline"] == "advanced"
    assert document["claims"] and document["source_credibility"]
    metadata = document["research_metadata"]
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
    assert document["metadata"]["evidence_count"] == len(document["evidence"])
    report = (tmp_path / "adv" / "report.md").read_text()
    assert set(re.findall(r"\[(S\d+)\]", report)) <= {s["sid"] for s in document["sources"]}
