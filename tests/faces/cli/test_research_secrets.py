"""Credentials inside a SearXNG URL: used for the run, never saved in its folder; resume asks again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from research_studio.faces.cli import app
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

pytestmark = pytest.mark.e2e
runner = CliRunner()


def with_credentials(web: FakeWeb) -> str:
    return web.base_url.replace("http://", "http://alice:hunter2@")


def test_credentials_in_the_searxng_url_stay_out_of_the_run_folder(
    web: FakeWeb, tmp_path: Path
) -> None:
    searxng = with_credentials(web)
    spec = use_scripted_model(ResearchScript().model())
    result = runner.invoke(
        app,
        [
            "run",
            "coral bleaching heat stress",
            "--model",
            spec,
            "--single-agent",
            "--out",
            "out",
            "--search",
            "searxng",
            "--searxng-url",
            searxng,
            "--allow-private-networks",
        ],
    )
    assert result.exit_code == 0, result.output
    searches = web.requests_to("/search")
    assert searches and searches[0].headers["authorization"].startswith("Basic ")  # used
    folder = tmp_path / "out"
    saved = json.loads((folder / "run.json").read_text())["settings"]
    assert saved["searxng_url"].startswith("http://alice:****@127.0.0.1:")
    files = [path for path in folder.rglob("*") if path.is_file()]
    assert {"run.json", "result.json", "events.jsonl", "report.md"} <= {p.name for p in files}
    files += [path for path in (tmp_path / "xdg-cache").rglob("*") if path.is_file()]
    for path in files:  # checkpoints, archives and the search cache included
        assert b"hunter2" not in path.read_bytes(), path.name
    assert "hunter2" not in result.output

    record = json.loads((folder / "run.json").read_text())
    (folder / "run.json").write_text(json.dumps({**record, "status": "interrupted"}))
    refused = runner.invoke(app, ["resume", str(folder)])
    assert refused.exit_code == 2
    assert "searxng_url without its credentials" in refused.output
    resumed = runner.invoke(app, ["resume", str(folder)], env={"SEARXNG_URL": searxng})
    assert resumed.exit_code == 0, resumed.output
    assert json.loads((folder / "run.json").read_text())["status"] == "completed"
