"""The index command and research over local documents through the CLI (scripted model)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from research_studio.cli import app
from research_studio.testing.research_script import ResearchScript
from research_studio.testing.scripted_model import use_scripted_model

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "urban-heat"
runner = CliRunner()


def test_index_then_nothing_to_do(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for path in EXAMPLES.iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 garbage")
    first = runner.invoke(app, ["index", str(folder), "--json"])
    assert first.exit_code == 0, first.output
    summary = json.loads(first.stdout)
    assert summary["added"] == 12 and summary["skipped"][0]["reason"].startswith("unreadable PDF")
    (folder / "how-much-hotter-are-cities.md").unlink()
    second = json.loads(runner.invoke(app, ["index", str(folder), "--json"]).stdout)
    assert (second["added"], second["unchanged"], second["removed"]) == (0, 11, 1)


def test_index_of_a_missing_folder_is_a_one_line_error() -> None:
    result = runner.invoke(app, ["index", "no/such/folder"])
    assert result.exit_code == 2 and "no such file or folder" in result.output


def test_search_local_documents() -> None:
    result = runner.invoke(app, ["search", "street trees shade", "--docs", str(EXAMPLES), "--json"])
    assert result.exit_code == 0, result.output
    results = json.loads(result.stdout)
    assert results[0]["provider"] == "local" and results[0]["url"].startswith(EXAMPLES.as_uri())


@pytest.mark.e2e
@pytest.mark.parametrize("extraction", ["llm", "extractive"])
def test_research_over_local_documents(tmp_path: Path, extraction: str) -> None:
    model = ResearchScript().model()
    result = runner.invoke(
        app,
        [
            "run",
            "Do cool roofs work?",
            "--docs",
            str(EXAMPLES),
            "--model",
            use_scripted_model(model),
            "--out",
            "local",
            "--single-agent",
        ],
        env={"RESEARCH_STUDIO_EXTRACTION": extraction},
    )
    assert result.exit_code == 0, result.output
    report = (tmp_path / "local" / "report.md").read_text()
    document = json.loads((tmp_path / "local" / "result.json").read_text())
    assert set(re.findall(r"\[(S\d+)\]", report)) <= {s["sid"] for s in document["sources"]}
    assert all(source["provider"] == "local" for source in document["sources"])
    assert bool(model.calls_for("PageExtraction")) == (extraction == "llm")
