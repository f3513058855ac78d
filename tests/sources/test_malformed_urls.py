"""A URL the HTTP client cannot parse is one refused page, never an exception that ends a run."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from research_studio.core.config import Configuration
from research_studio.core.errors import FetchError
from research_studio.core.urls import normalize_url
from research_studio.faces.cli import app
from research_studio.services.clients import open_services
from tests.doubles import fake_web
from tests.doubles.fake_web import FakeWeb
from tests.helpers import run_cli

MALFORMED = [
    "http://0177.0.0.1/",
    "http://127.000.000.001/",
    "http://\uff11\uff12\uff17.0.0.1/",  # full-width digits
    "http://\u24d4\u24e7\u24d0\u24dc\u24df\u24db\u24d4.com/",  # circled letters
    "http://example.com:x/",
    "http://[::1/",
]
# Parsed by every URL library, but no socket can be made to them (OverflowError once).
NO_SUCH_PORT = ["http://127.0.0.1:99999/x", "http://127.0.0.1:0/x", "http://[::1]:65536/"]


@pytest.mark.parametrize("url", MALFORMED)
async def test_a_malformed_url_is_a_refused_fetch(
    url: str, make_config: Callable[..., Configuration]
) -> None:
    async with open_services(make_config()) as services:
        with pytest.raises(FetchError) as caught:
            await services.fetcher.fetch(url)
    assert caught.value.kind == "refused"


@pytest.mark.parametrize("url", MALFORMED)
def test_normalize_url_is_total(url: str) -> None:
    assert normalize_url(url) == normalize_url(normalize_url(url))


@pytest.mark.parametrize("url", MALFORMED[:4])
def test_cli_fetch_of_a_malformed_url_prints_one_line(url: str) -> None:
    result = CliRunner().invoke(app, ["fetch", url, "--no-cache"])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: cannot fetch")
    assert "malformed URL" in lines[0] and isinstance(result.exception, SystemExit)


@pytest.mark.e2e
@pytest.mark.parametrize(
    "shape",
    [["--single-agent"], [], ["--pipeline", "advanced"], ["--pipeline", "supervisor"]],
)
def test_malformed_urls_in_search_results_are_losses_not_a_failed_run(
    shape: list[str], web: FakeWeb, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = fake_web.searx_payload

    def hostile(*args: Any) -> dict[str, object]:
        payload = real(*args)
        bad = [
            {"url": url, "title": "Bad", "content": "coral bleaching"}
            for url in [*NO_SUCH_PORT, *MALFORMED]
        ]
        payload["results"] = bad + list(payload["results"])  # type: ignore[operator]
        return payload

    monkeypatch.setattr(fake_web, "searx_payload", hostile)
    result = run_cli(web, "run", "coral bleaching heat stress", "--out", "run", *shape)
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "run" / "result.json").read_text())
    assert document["report"].startswith("# ")
    refused = [error for error in document["metadata"]["errors"] if error.get("kind") == "refused"]
    assert refused and all("malformed URL" in error["message"] for error in refused)
    assert not any(url in json.dumps(document["metadata"]) for url in NO_SUCH_PORT)


async def test_odd_searxng_hits_are_dropped_or_cleaned_never_raised(
    web: FakeWeb, make_config: Callable[..., Configuration], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = fake_web.searx_payload

    def odd(*args: Any) -> dict[str, object]:
        payload = real(*args)
        good = dict(payload["results"][0])  # type: ignore[index]
        payload["results"] = [
            {"url": "http://[::1/", "title": "unclosed bracket"},
            {"url": "javascript:alert(1)", "title": "script"},
            {"url": 42},
            "not an object",
            {**good, "score": "high", "publishedDate": 2024, "title": ["a", "list"]},
        ]
        return payload

    monkeypatch.setattr(fake_web, "searx_payload", odd)
    async with open_services(make_config()) as services:
        results = await services.search.search("coral bleaching", 10)
    assert len(results) == 1
    assert results[0].score == 0.0 and results[0].published is None and results[0].title == ""
