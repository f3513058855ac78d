"""`--pipeline supervisor` through the CLI: scripted and OpenAI-compatible models, then the audit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from research_studio.faces.cli import app
from tests.doubles.fake_web import FakeWeb
from tests.doubles.scripted_model import use_scripted_model
from tests.doubles.supervisor_script import SupervisorScript
from tests.helpers import run_cli

pytestmark = pytest.mark.e2e
runner = CliRunner()
QUERY = "coral bleaching heat stress"


def run(web: FakeWeb, model: str, out: str) -> Any:
    return run_cli(web, "run", QUERY, "--pipeline", "supervisor", "--out", out, model=model)


def audited(folder: Path) -> dict[str, Any]:
    result = runner.invoke(app, ["audit", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))


def test_a_scripted_supervisor_run_writes_the_outputs_and_passes_the_audit(
    web: FakeWeb, tmp_path: Path
) -> None:
    result = run(web, use_scripted_model(SupervisorScript().model()), "sv")
    assert result.exit_code == 0, result.output
    folder = tmp_path / "sv"
    document = json.loads((folder / "result.json").read_text())
    assert document["pipeline"] == "supervisor" and document["query"] == QUERY
    assert document["report"] == (folder / "report.md").read_text()
    metadata = document["metadata"]
    assert metadata["stop_reason"] == "research_complete" and metadata["researchers"] == 2
    assert metadata["llm_calls_all_attempts"] == metadata["llm_calls"] > 0
    assert document["sources"] and document["evidence"] and document["statements"]
    events = [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]
    assert [e["node"] for e in events if e["kind"] == "end"][-1] == "verify_claims"
    report = audited(folder)
    assert report["ok"] and report["statements"], report
    # The runner gives the run a store (in its folder), so the Verified Findings block is there.
    assert (folder / "store.sqlite").is_file()
    assert "Verified Findings" in document["report"] and "disabled" not in document["report"]


def test_an_openai_compatible_server_and_searxng_give_an_audited_report(
    web: FakeWeb, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", web.url("/v1"))
    web.chat.responder = SupervisorScript(topics=2).chat_responder()
    result = run(web, "openai:fake-model", "oa")
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "oa" / "result.json").read_text())
    assert document["metadata"]["search_provider"] == "searxng"
    assert document["metadata"]["llm_calls_by_node"]["researcher"] == 4
    report = audited(tmp_path / "oa")
    assert report["ok"] and len(report["statements"]) >= 3, report


def test_brief_review_pauses_the_cli_run_and_the_edited_brief_is_researched(
    web: FakeWeb, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RESEARCH_STUDIO_REVIEW_MODE", "brief")
    script = SupervisorScript()
    result = run(web, use_scripted_model(script.model()), "review")
    assert result.exit_code == 3, result.output
    assert "waits for your review" in result.output and "research brief" in result.output
    record = json.loads((tmp_path / "review" / "run.json").read_text())
    assert record["status"] == "awaiting_review"
    edited = "Research how marine heatwaves bleach corals on the Great Barrier Reef."
    resumed = runner.invoke(app, ["resume", str(tmp_path / "review"), "--answer", edited])
    assert resumed.exit_code == 0, resumed.output
    document = json.loads((tmp_path / "review" / "result.json").read_text())
    assert document["report"] and document["statements"]
    events = (tmp_path / "review" / "events.jsonl").read_text()
    assert f"review: {edited}" in events


def test_full_review_takes_feedback_and_never_prints_a_hand_edited_report(
    web: FakeWeb, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # docs/spec-deviations.md: the reader's reply to the report is feedback the writer applies,
    # so a pasted report with a made-up sentence never reaches report.md.
    monkeypatch.setenv("RESEARCH_STUDIO_REVIEW_MODE", "full")
    result = run(web, use_scripted_model(SupervisorScript().model()), "full")
    folder = tmp_path / "full"
    answers = 0
    while result.exit_code == 3 and answers < 4:
        record = json.loads((folder / "run.json").read_text())
        pasted = "# My report\n\nCorals on the reef glow purple every full moon."
        reply = pasted if "report" in record.get("pending_question", "").lower() else "approve"
        result = runner.invoke(app, ["resume", str(folder), "--answer", reply])
        answers += 1
    assert result.exit_code == 0, result.output
    document = json.loads((folder / "result.json").read_text())
    assert document["metadata"]["human_review"].startswith("# My report")
    assert "glow purple" not in document["report"] and document["statements"]
    assert audited(folder)["ok"]
