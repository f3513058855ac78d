"""`research-studio ask`: follow-ups answered from the run's sources first, researched if not."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from typer.testing import CliRunner

from research_studio.faces.cli import app
from research_studio.pipelines.registry import compile_pipeline
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import ScriptedChatModel
from tests.helpers import run_cli

pytestmark = pytest.mark.e2e
runner = CliRunner()


def _finished_run(web: FakeWeb, model: ScriptedChatModel, *args: str) -> Path:
    result = run_cli(web, "run", "coral bleaching heat stress", "--out", "run", *args, model=model)
    assert result.exit_code == 0, result.output
    return Path("run").resolve()


def _ask(web: FakeWeb, model: ScriptedChatModel, folder: Path, question: str) -> Any:
    return run_cli(web, "ask", str(folder), question, model=model)


def _thread_messages(folder: Path) -> list[str]:
    async def read() -> list[str]:
        async with AsyncSqliteSaver.from_conn_string(str(folder / "checkpoints.sqlite")) as saver:
            graph = compile_pipeline("standard", saver, True)
            run_id = json.loads((folder / "run.json").read_text())["run_id"]
            state = await graph.aget_state({"configurable": {"thread_id": run_id}})
            return [str(message.content) for message in state.values["messages"]]

    return asyncio.run(read())


def test_a_covered_follow_up_is_answered_from_the_kept_sources(web: FakeWeb) -> None:
    model = ResearchScript().model()
    folder = _finished_run(web, model, "--single-agent")
    original = json.loads((folder / "result.json").read_text())
    known = {source["sid"] for source in original["sources"]}
    web.clear_requests()
    result = _ask(web, model, folder, "What causes coral bleaching?")
    assert result.exit_code == 0, result.output
    assert not web.requests_to("/search")  # no new search: the run's sources cover it
    record = json.loads((folder / "followups" / "F1.json").read_text())
    assert record["researched"] is False
    answer = (folder / "followups" / "F1.md").read_text()
    cited = set(re.findall(r"\[(S\d+)\]", answer))
    assert cited and cited <= known and "## Sources" in answer
    # The run's numbers (S7 is the run's S7, its kept text sources/S7.txt), each resolving to
    # an entry of the answer's own Sources list and record.
    listed = set(re.findall(r"^- \[(S\d+)\]", answer.split("## Sources", 1)[1], re.MULTILINE))
    assert cited == listed == {source["sid"] for source in record["sources"]}
    assert all(statement["sids"] for statement in record["statements"] if statement["ids"])
    assert "What causes coral bleaching?" in model.calls_for("ReportDraft")[-1].prompt
    messages = _thread_messages(folder)
    assert messages[-2] == "What causes coral bleaching?" and messages[-1] == answer
    # The main report still audits: the follow-up left result.json alone.
    assert runner.invoke(app, ["audit", str(folder)]).exit_code == 0


def test_an_uncovered_follow_up_runs_a_focused_round(web: FakeWeb) -> None:
    model = ResearchScript().model()
    folder = _finished_run(web, model, "--single-agent")
    original = json.loads((folder / "result.json").read_text())
    web.clear_requests()
    question = "What does the new Python 3.13 REPL offer?"
    result = _ask(web, model, folder, question)
    assert result.exit_code == 0, result.output
    assert web.requests_to("/search")
    record = json.loads((folder / "followups" / "F1.json").read_text())
    assert record["researched"] is True
    new = {source["sid"] for source in record["sources"]} - {
        source["sid"] for source in original["sources"]
    }
    assert new and all((folder / "sources" / f"{sid}.txt").is_file() for sid in new)
    assert any("python" in source["url"] for source in record["sources"])
    second = _ask(web, model, folder, "What causes coral bleaching?")
    assert second.exit_code == 0 and (folder / "followups" / "F2.md").is_file()


def test_asking_an_unknown_run_is_a_one_line_error(web: FakeWeb) -> None:
    result = runner.invoke(app, ["ask", "no-such-run", "why?"])
    assert result.exit_code == 2
    assert "error:" in result.output and "Traceback" not in result.output


def test_a_follow_up_nothing_answers_says_so(web: FakeWeb) -> None:
    model = ResearchScript().model()
    folder = _finished_run(web, model, "--single-agent")
    result = _ask(web, model, folder, "zyxwv qwerty plugh")
    assert result.exit_code == 0, result.output
    answer = (folder / "followups" / "F1.md").read_text()
    assert "found anything on this question" in answer and "[S" not in answer


def test_a_follow_up_with_a_model_server_that_is_down_is_refused_in_one_line(
    web: FakeWeb, finished_run_folder: Path, tmp_path: Path
) -> None:
    """Else the passages alone come back, saying to ask again with a stronger model."""
    shutil.copytree(finished_run_folder, tmp_path / "done")
    args = ["ask", str(tmp_path / "done"), "What about coral?", "--model", "ollama:llama3.1"]
    result = runner.invoke(app, args, env={"OLLAMA_HOST": "http://127.0.0.1:9"})
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        "error: ollama:llama3.1: nothing answers at http://127.0.0.1:9 (Connection refused); "
        "start Ollama (`ollama serve`) or set OLLAMA_HOST"
    ]
    assert not (tmp_path / "done" / "followups").exists()
