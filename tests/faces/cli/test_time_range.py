"""--since/--until through the CLI: providers asked for the range, dated results filtered,
undated sources kept and marked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from research_studio.faces.cli import app
from research_studio.sources.search.dated import UNDATED_MARK
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model
from tests.helpers import web_args

pytestmark = pytest.mark.e2e
runner = CliRunner()
EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "urban-heat"


def _run(*args: str) -> Any:
    spec = use_scripted_model(ResearchScript().model())
    return runner.invoke(
        app, ["run", "coral bleaching heat stress", "--out", "run", "--model", spec, *args]
    )


def _result() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(Path("run/result.json").read_text())
    return document


def test_dated_sources_outside_the_range_are_left_out(web: FakeWeb) -> None:
    result = _run(*web_args(web), "--single-agent", "--since", "2024-05-01", "--until", "2024-12")
    assert result.exit_code == 0, result.output
    assert "time range: from 2024-05-01 to 2024-12-31" in result.output
    published = [source["published"][:10] for source in _result()["sources"]]
    assert published and all("2024-05-01" <= day <= "2024-12-31" for day in published)
    # The report says what the range left out.
    assert "dated outside the time range were left out" in _result()["report"]


def test_searxng_is_asked_for_its_time_range(web: FakeWeb) -> None:
    result = _run(*web_args(web), "--single-agent", "--since", "last 6 months", "--no-cache")
    assert result.exit_code == 0, result.output
    searches = web.requests_to("/search")
    assert searches and all(request.query.get("time_range") == "year" for request in searches)


def test_tavily_is_asked_for_start_and_end_dates(
    web: FakeWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    tavily = ["--search", "tavily", "--tavily-base-url", web.url("/tavily")]
    args = [*tavily, "--allow-private-networks", "--single-agent", "--no-cache"]
    result = _run(*args, "--since", "2024-05-01", "--until", "2024-12-31")
    assert result.exit_code == 0, result.output
    bodies = [json.loads(request.body) for request in web.requests_to("/tavily/search")]
    assert bodies and all(
        (body["start_date"], body["end_date"]) == ("2024-05-01", "2024-12-31") for body in bodies
    )


def test_undated_sources_are_kept_and_marked() -> None:
    result = _run("--docs", str(EXAMPLES), "--single-agent", "--since", "last 2 years")
    assert result.exit_code == 0, result.output
    sources = _result()["sources"]
    assert sources and all(source["title"].endswith(UNDATED_MARK) for source in sources)
    assert UNDATED_MARK in Path("run/report.md").read_text()


def test_a_bad_date_is_a_one_line_error() -> None:
    result = _run("--since", "the good old days")
    assert result.exit_code == 2 and "not a date or period" in result.output
    assert "Traceback" not in result.output and not Path("run").exists()
