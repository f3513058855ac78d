"""`research-studio export` writes a finished run's report or sources where it is told."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from research_studio.faces.cli import app

pytestmark = pytest.mark.e2e
runner = CliRunner()


def _run_id(folder: Path) -> str:
    return str(json.loads((folder / "run.json").read_text(encoding="utf-8"))["run_id"])


def test_export_by_run_id_writes_into_the_current_folder(
    finished_run_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_id = _run_id(finished_run_folder)
    shutil.copytree(finished_run_folder, tmp_path / "runs" / run_id)
    monkeypatch.setenv("RESEARCH_STUDIO_RUNS_DIR", str(tmp_path / "runs"))
    result = runner.invoke(app, ["export", run_id, "--format", "html"])
    assert result.exit_code == 0, result.output
    written = tmp_path / f"{run_id}.html"  # the tests run in tmp_path
    assert result.output.strip() == str(written)
    assert written.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_export_by_folder_into_a_folder_or_a_file(
    finished_run_folder: Path, tmp_path: Path
) -> None:
    run_id = _run_id(finished_run_folder)
    into_folder = runner.invoke(
        app, ["export", str(finished_run_folder), "--format", "pdf", "--out", "exports/"]
    )
    assert into_folder.exit_code == 0, into_folder.output
    assert (tmp_path / "exports" / f"{run_id}.pdf").read_bytes().startswith(b"%PDF")
    into_file = runner.invoke(
        app, ["export", str(finished_run_folder), "-f", "bib", "--out", "exports/refs.bib"]
    )
    assert into_file.exit_code == 0, into_file.output
    assert "@misc{" in (tmp_path / "exports" / "refs.bib").read_text(encoding="utf-8")
    into_existing = runner.invoke(
        app, ["export", str(finished_run_folder), "-f", "docx", "--out", "exports"]
    )
    assert into_existing.exit_code == 0, into_existing.output
    assert (tmp_path / "exports" / f"{run_id}.docx").stat().st_size > 0


def test_a_new_name_without_an_extension_is_a_folder_each_export_keeps_its_own_file(
    finished_run_folder: Path, tmp_path: Path
) -> None:
    """`--out report` then another format to the same name: two files, neither overwritten."""
    run_id = _run_id(finished_run_folder)
    for fmt in ("md", "html"):
        result = runner.invoke(app, ["export", str(finished_run_folder), "-f", fmt, "-o", "report"])
        assert result.exit_code == 0, result.output
    written = sorted(path.name for path in (tmp_path / "report").iterdir())
    assert written == [f"{run_id}.html", f"{run_id}.md"]
    assert (tmp_path / "report" / f"{run_id}.md").read_text(encoding="utf-8").startswith("# ")


def test_an_unknown_run_is_a_one_line_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["export", "no-such-run", "--format", "md"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: no run found")
    assert not list(tmp_path.glob("*.md"))


def test_bibtex_is_bib_and_a_missing_folder_is_a_one_line_error(
    finished_run_folder: Path, tmp_path: Path
) -> None:
    result = runner.invoke(
        app, ["export", str(finished_run_folder), "--format", "BibTeX", "--out", "refs.bib"]
    )
    assert result.exit_code == 0, result.output
    assert "@misc{" in (tmp_path / "refs.bib").read_text(encoding="utf-8")
    missing = runner.invoke(
        app, ["export", str(finished_run_folder), "-f", "pdf", "--out", "/nonexistent/dir/x.pdf"]
    )
    assert missing.exit_code == 2 and len(missing.output.strip().splitlines()) == 1
    assert "/nonexistent/dir does not exist" in missing.output
    assert not Path("/nonexistent").exists()
    nested = runner.invoke(app, ["export", str(finished_run_folder), "-f", "md", "--out", "a/b/"])
    assert nested.exit_code == 2 and not (tmp_path / "a").exists()
    unknown = runner.invoke(app, ["export", str(finished_run_folder), "-f", "odt"])
    assert unknown.exit_code == 2 and "bibtex" in unknown.output
