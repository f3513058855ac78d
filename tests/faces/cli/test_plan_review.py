"""Plan review through the CLI: pause after planning, approve, edit (a list or text), cancel."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from research_studio.faces.cli import app
from research_studio.pipelines.kit.plan_review import parse_reply
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import ScriptedChatModel
from tests.helpers import run_cli

runner = CliRunner()
QUESTION = "coral bleaching heat stress"


def test_replies_are_read_as_approval_cancel_lists_or_text() -> None:
    assert parse_reply("").kind == "approve" and parse_reply("Yes").kind == "approve"
    assert parse_reply("cancel").kind == "cancel"
    edit = parse_reply(
        "Questions:\n1. What is bleaching?\n2. How fast?\nSearches:\n- bleaching rate"
    )
    assert edit.kind == "list" and edit.questions == ["What is bleaching?", "How fast?"]
    assert edit.searches == ["bleaching rate"]
    assert parse_reply("focus on the Great Barrier Reef").note == "focus on the Great Barrier Reef"


def _run(web: FakeWeb, model: ScriptedChatModel, *args: str) -> Any:
    return run_cli(web, "run", QUESTION, "--review-plan", *args, model=model)


@pytest.mark.e2e
@pytest.mark.parametrize("pipeline", ["standard", "advanced"])
def test_a_paused_plan_runs_as_edited(web: FakeWeb, tmp_path: Path, pipeline: str) -> None:
    model = ResearchScript().model()
    paused = _run(web, model, "--out", "run", "--pipeline", pipeline, "--single-agent")
    assert paused.exit_code == 3, paused.output
    assert "Questions:" in paused.output and "resume" in paused.output
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["status"] == "awaiting_plan_review"
    assert not model.calls_for("ReportDraft")  # nothing researched before the review
    edited = "- How does heat stress cause coral bleaching?"
    web.clear_requests()
    resumed = runner.invoke(app, ["resume", str(tmp_path / "run"), "--answer", edited])
    assert resumed.exit_code == 0, resumed.output
    document = json.loads((tmp_path / "run" / "result.json").read_text())
    assert document["report"] and document["evidence"]
    searches = [e["message"] for e in _events(tmp_path / "run") if "plan review" in e["message"]]
    assert searches == [f"plan review: {edited}"]
    if pipeline == "standard":
        assert {item["question"] for item in document["evidence"]} == {edited[2:]}
    else:  # the edited question is what the advanced plan searched first
        queries = [request.query.get("q") for request in web.requests_to("/search")]
        assert queries and queries[0] == edited[2:]


def _events(folder: Path) -> list[dict[str, Any]]:
    lines = (folder / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.e2e
def test_plan_reply_up_front_adds_free_text_to_the_plan(web: FakeWeb, tmp_path: Path) -> None:
    model = ResearchScript().model()
    result = _run(
        web, model, "--out", "run", "--single-agent", "--plan-reply", "effects on reef fish"
    )
    assert result.exit_code == 0, result.output
    writer = model.calls_for("ReportDraft")[-1].prompt
    assert "effects on reef fish" in writer  # the note is a research question now


@pytest.mark.e2e
def test_cancel_at_plan_review_stops_before_research(web: FakeWeb, tmp_path: Path) -> None:
    model = ResearchScript().model()
    result = _run(web, model, "--out", "run", "--plan-reply", "cancel")
    assert result.exit_code == 4, result.output
    assert "cancelled" in result.output
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["status"] == "cancelled" and not (tmp_path / "run" / "report.md").exists()
    assert not model.calls_for("ReportDraft")


@pytest.mark.e2e
def test_without_review_plan_nothing_pauses(web: FakeWeb, tmp_path: Path) -> None:
    result = run_cli(web, "run", QUESTION, "--out", "run", "--single-agent")
    assert result.exit_code == 0, result.output
    assert "plan review" not in (tmp_path / "run" / "events.jsonl").read_text()


@pytest.mark.e2e
def test_resume_without_an_answer_asks_again(web: FakeWeb, tmp_path: Path) -> None:
    model = ResearchScript().model()
    assert _run(web, model, "--out", "run", "--single-agent").exit_code == 3
    again = runner.invoke(app, ["resume", str(tmp_path / "run")])
    assert again.exit_code == 3 and "waits for plan review" in again.output
    assert not model.calls_for("ReportDraft")
    approved = runner.invoke(app, ["resume", str(tmp_path / "run"), "--answer", "approve"])
    assert approved.exit_code == 0, approved.output
    assert model.calls_for("ReportDraft")


def test_plan_review_is_refused_where_it_cannot_apply() -> None:
    from typer.testing import CliRunner

    from research_studio.faces.cli import app

    result = CliRunner().invoke(
        app, ["run", "coral reef recovery", "--pipeline", "supervisor", "--review-plan"]
    )
    assert result.exit_code == 2
    assert "--review-plan does not apply to the supervisor pipeline" in result.output
