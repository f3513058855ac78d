"""A run over local documents names them by their path in the documents folder, never by this
machine's absolute path: in report.md, result.json, manifest.json and every export."""

from __future__ import annotations

import json
import zipfile
from io import BytesIO
from pathlib import Path

import pytest
from typer.testing import CliRunner

from research_studio.core.urls import display_url
from research_studio.export import FORMATS, export_run
from research_studio.faces.cli import app
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "urban-heat"


@pytest.mark.parametrize(
    ("url", "roots", "shown"),
    [
        (
            "file:///home/u/examples/urban-heat/a%20b.md",
            ["/home/u/examples/urban-heat"],
            "urban-heat/a b.md",
        ),
        ("file:///home/u/docs/sub/x.pdf", ["/home/u", "/home/u/docs"], "docs/sub/x.pdf"),
        ("file:///home/u/elsewhere/x.md", ["/home/u/docs"], "x.md"),
        ("file:///home/u/x.md#chunk-2", [], "x.md"),
        ("https://example.org/a", ["/home"], "https://example.org/a"),
    ],
)
def test_display_url(url: str, roots: list[str], shown: str) -> None:
    assert display_url(url, roots) == shown


def _text(fmt: str, content: bytes) -> str:
    if fmt == "docx":
        with zipfile.ZipFile(BytesIO(content)) as archive:
            return " ".join(
                archive.read(name).decode("utf-8", "replace") for name in archive.namelist()
            )
    if fmt == "pdf":
        return content.decode("latin-1")  # link targets and text streams, as bytes
    return content.decode("utf-8")


@pytest.mark.e2e
def test_exports_of_a_local_documents_run_carry_no_absolute_path(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "run",
            "Do cool roofs work?",
            "--docs",
            str(EXAMPLES),
            "--single-agent",
            "--model",
            use_scripted_model(ResearchScript().model()),
            "--out",
            "local",
        ],
    )
    assert result.exit_code == 0, result.output
    folder = tmp_path / "local"
    sources = json.loads((folder / "result.json").read_text())["sources"]
    assert sources and all(source["url"].startswith("urban-heat/") for source in sources)
    machine = str(EXAMPLES.resolve().parent)
    for name in ("report.md", "result.json", "manifest.json"):  # what users share
        written = (folder / name).read_text()
        assert machine not in written and "file://" not in written, name
    audit = CliRunner().invoke(app, ["audit", str(folder)])
    assert audit.exit_code == 0, audit.output  # the seal holds the addresses as written
    for fmt in FORMATS:
        exported = _text(fmt, export_run(folder, fmt).content)
        assert machine not in exported and "file://" not in exported, fmt
        if fmt in ("md", "html", "bib", "ris"):
            assert "urban-heat/" in exported, fmt
