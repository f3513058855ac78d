"""The tool commands through the real CLI: search, fetch, config, --version, user errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from research_studio import __version__
from research_studio.faces.cli import app
from tests.doubles.fake_web import FakeWeb, Fault

runner = CliRunner()


def local(web: FakeWeb) -> list[str]:
    return ["--searxng-url", web.base_url, "--allow-private-networks"]


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and __version__ in result.stdout


def test_search_json_against_searxng(web: FakeWeb) -> None:
    result = runner.invoke(
        app,
        [
            "search",
            "coral bleaching heat stress",
            "--search",
            "searxng",
            "--json",
            "-n",
            "3",
            *local(web),
        ],
    )
    assert result.exit_code == 0, result.output
    results = json.loads(result.stdout)
    assert 1 <= len(results) <= 3
    assert all(
        item["provider"] == "searxng" and item["url"].startswith(web.base_url) for item in results
    )


def test_search_table_and_provider_from_environment(
    web: FakeWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEARXNG_URL", web.base_url)
    monkeypatch.setenv("RESEARCH_STUDIO_ALLOW_PRIVATE_NETWORKS", "1")
    result = runner.invoke(app, ["search", "Burmese python Everglades"])
    assert result.exit_code == 0, result.output
    assert "results from searxng" in result.stdout and "Burmese" in result.stdout


def test_search_via_tavily_endpoint(web: FakeWeb, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    result = runner.invoke(
        app,
        [
            "search",
            "Python 3.13 REPL",
            "--tavily-base-url",
            web.url("/tavily"),
            "--allow-private-networks",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["provider"] == "tavily"


def test_fetch_prints_main_text(web: FakeWeb) -> None:
    page = web.page("degree-heating-weeks-explained")
    result = runner.invoke(app, ["fetch", page.url, "--allow-private-networks"])
    assert result.exit_code == 0, result.output
    assert page.paragraphs[1][:50] in result.stdout


def test_fetch_json(web: FakeWeb) -> None:
    page = web.page("solid-state-manufacturing-cost")
    result = runner.invoke(
        app, ["fetch", page.url, "--allow-private-networks", "--json", "--no-cache"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["kind"] == "pdf"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["fetch", "not-a-url"], "not an absolute http(s) URL"),
        (["fetch", "http://127.0.0.1:9/"], "set allow_private_networks"),
        (["search", "q", "--search", "tavily"], "TAVILY_API_KEY"),
        (["search", "q", "--search", "searxng"], "SEARXNG_URL"),
        (["search", "q", "--search", "bing"], "Invalid value"),
        (["config", "--config", "missing.toml"], "config file not found"),
    ],
)
def test_user_mistakes_end_with_one_line_and_no_traceback(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output


def test_search_failure_is_reported_cleanly(web: FakeWeb) -> None:
    web.set_fault("/search", Fault("status", status=503))
    result = runner.invoke(
        app,
        ["search", "q", "--search", "searxng", *local(web)],
        env={"RESEARCH_STUDIO_SEARCH_RETRIES": "1", "RESEARCH_STUDIO_RETRY_BASE_DELAY_S": "0.01"},
    )
    assert result.exit_code == 2
    assert "server error (HTTP 503) after 2 attempts" in result.output


def test_config_shows_sources_and_redacts_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "research-studio.toml").write_text(
        'max_iterations = 4\nreport_structure = "concise"\n'
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    monkeypatch.setenv("RESEARCH_STUDIO_MAX_SUBAGENTS", "2")
    result = runner.invoke(app, ["config", "--json"])
    assert result.exit_code == 0, result.output
    values = json.loads(result.stdout)
    assert values["max_iterations"] == 4 and values["max_subagents"] == 2
    assert values["openai_api_key"] == "****"
    table = runner.invoke(app, ["config"], env={"COLUMNS": "200"}).stdout
    assert (
        "sk-very-secret" not in table
        and "env OPENAI_API_KEY" in table
        and "file research-studio.toml" in table
    )


def test_config_masks_credentials_inside_urls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "research-studio.toml").write_text(
        'openai_base_url = "https://proxy.example/v1?api_key=sk-in-url"\n'
    )
    monkeypatch.setenv("SEARXNG_URL", "https://alice:hunter2@searx.example/")
    shown = runner.invoke(app, ["config", "--json"])
    assert shown.exit_code == 0, shown.output
    values = json.loads(shown.stdout)
    assert values["searxng_url"] == "https://alice:****@searx.example/"
    assert values["openai_base_url"] == "https://proxy.example/v1?api_key=****"
    table = runner.invoke(app, ["config"], env={"COLUMNS": "200"}).stdout
    assert "searx.example" in table
    assert "hunter2" not in table + shown.stdout and "sk-in-url" not in table + shown.stdout


@pytest.mark.e2e
def test_installed_console_script(web: FakeWeb) -> None:
    executable = shutil.which("research-studio") or str(
        Path(sys.executable).parent / "research-studio"
    )
    completed = subprocess.run(
        [
            executable,
            "search",
            "solid-state battery cost",
            "--json",
            "--search",
            "searxng",
            *local(web),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)[0]["url"].startswith(web.base_url)
