"""The index command and research over local documents through the CLI (scripted model)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from research_studio.faces.cli import app, documents
from research_studio.llm.embeddings import minilm_folder
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "urban-heat"
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


def test_search_shows_each_snippet_on_its_lines_without_newline_marks(tmp_path: Path) -> None:
    """A chunk spans a heading and its paragraph; its snippet reads as text in the table (the
    newline becomes a space, not the ␊ mark that shows a control character)."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "roofs.md").write_text("# Cool roofs\n\nCool roofs reflect sunlight.\n")
    result = runner.invoke(
        app, ["search", "cool roofs", "--docs", str(folder)], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    assert "# Cool roofs Cool roofs reflect sunlight." in result.stdout, result.stdout
    assert "␊" not in result.stdout


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


@pytest.mark.skipif(minilm_folder() is None, reason="needs the embeddings extra")
def test_a_piped_run_says_when_it_indexes_for_hybrid_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Piped, the indexing spinner shows nothing, and hybrid search embeds every chunk (seconds
    per MB): past a moment, stderr says when indexing started and ends, as a piped run's
    progress does."""
    monkeypatch.setattr(documents, "QUIET_S", 0.0)  # this folder is small: said at once
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "roofs.md").write_text("# Cool roofs\n\nCool roofs reflect sunlight.\n")
    model = use_scripted_model(ResearchScript().model())
    args = ["run", "Do cool roofs work?", "--docs", str(folder), "--hybrid-search"]
    result = runner.invoke(app, [*args, "--model", model, "--single-agent", "--out", "run"])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    started = [
        n for n, text in enumerate(lines) if text.endswith(f"indexing the documents: {folder}")
    ]
    ended = [n for n, text in enumerate(lines) if text.endswith("indexing the documents: done")]
    assert len(started) == len(ended) == 1 and started[0] < ended[0], result.stderr
    assert re.match(r"\s+\d+:\d\d  indexing", lines[started[0]])


def test_a_piped_local_search_says_when_it_indexes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(documents, "QUIET_S", 0.0)  # this folder is small: said at once
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "roofs.md").write_text("# Cool roofs\n\nCool roofs reflect sunlight.\n")
    result = runner.invoke(app, ["search", "cool roofs", "--docs", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    said = [text.strip().split("  ", 1)[-1] for text in result.stderr.splitlines()[1:]]
    assert said == [f"indexing the documents: {folder}", "indexing the documents: done"]
    assert json.loads(result.stdout)[0]["provider"] == "local"


def error_lines(output: str) -> list[str]:
    assert "Traceback" not in output
    return [line for line in output.splitlines() if line.startswith("error:")]


def test_index_warns_of_links_outside_and_files_too_large(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "roofs.md").write_text("# Roofs\n\nCool roofs reflect sunlight.\n")
    (folder / "big.txt").write_text("Big\n" + "word " * 1000)
    secret = tmp_path / "passwd.txt"
    secret.write_text("root:x:0:0:secretpassword\n")
    (folder / "passwd.txt").symlink_to(secret)
    result = runner.invoke(
        app, ["index", str(folder)], env={"RESEARCH_STUDIO_MAX_DOCUMENT_BYTES": "2048"}
    )
    assert result.exit_code == 0, result.output
    assert (
        f"skipped {folder / 'passwd.txt'}: links outside the folder (to {secret})" in result.output
    )
    assert (
        f"skipped {folder / 'big.txt'}: 5,004 bytes is over max_document_bytes (2,048 bytes)"
        in result.output
    )
    search = runner.invoke(app, ["search", "secretpassword root", "--docs", str(folder), "--json"])
    assert search.exit_code == 0 and json.loads(search.stdout) == []


@pytest.mark.parametrize("content", [{}, {"broken.pdf": b"%PDF-1.4 garbage", "notes.docx": b"PK"}])
def test_index_of_a_folder_without_documents_is_a_one_line_error(
    tmp_path: Path, content: dict[str, bytes]
) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    for name, data in content.items():
        (folder / name).write_bytes(data)
    result = runner.invoke(app, ["index", str(folder)])
    assert result.exit_code == 2
    assert error_lines(result.output) == [
        f"error: no readable documents in {folder} (Markdown, text, HTML or PDF files inside the folder)"
    ]


def test_run_over_an_empty_folder_is_a_one_line_error(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    model = ResearchScript().model()
    result = runner.invoke(
        app,
        ["run", "Do cool roofs work?", "--docs", str(folder), "--model", use_scripted_model(model)],
    )
    assert result.exit_code == 2
    assert len(error_lines(result.output)) == 1 and "no readable documents in" in result.output
    assert not (tmp_path / "runs").exists() and not model.calls, "nothing was researched"


def test_index_warns_of_an_empty_folder_among_others(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "a.md").write_text("# A\n\nSome text.\n")
    result = runner.invoke(app, ["index", str(tmp_path / "full"), str(tmp_path / "empty")])
    assert result.exit_code == 0, result.output
    assert f"no readable documents in {tmp_path / 'empty'}" in result.output
