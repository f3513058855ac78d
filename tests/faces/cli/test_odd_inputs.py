"""No URL or path a user types ends a command in a traceback: invalid ports, IPv6 forms, Rich
markup, control characters and undecodable bytes are each one line and a non-zero exit (or a
result), through the real CLI."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from research_studio.core.config import Configuration
from research_studio.core.errors import FetchError
from research_studio.core.urls import is_web_url
from research_studio.faces.cli import app
from research_studio.services.clients import open_services
from tests.doubles import fake_web
from tests.doubles.fake_web import FakeWeb

runner = CliRunner()

# The pieces of text that broke a command once, joined with anything else.
ODD_PIECES = [
    ":99999",
    ":65536",
    ":0",
    ":-1",
    "[::1]",
    "[::1",
    "[fe80::1%eth0]",
    "[::ffff:127.0.0.1]",
    "[/]",
    "[bold]",
    "[link=http://x]",
    "\x1b[31m",
    "\x1b]0;title\x07",
    "\x00",
    "\r",
    "\udcff",  # an undecodable byte, as Python decodes a non-UTF-8 argument
    "x" * 300,  # a name longer than any the file system takes
    "127.0.0.1",
    "/",
    "%",
]
ODD_TEXT = st.lists(st.one_of(st.sampled_from(ODD_PIECES), st.text(max_size=4)), max_size=6).map(
    "".join
)
ODD_URLS = st.one_of(
    ODD_TEXT,
    st.builds(
        lambda scheme, rest: f"{scheme}://{rest}", st.sampled_from(["http", "https"]), ODD_TEXT
    ),
)
PROPERTY = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def one_line_or_result(result: Result) -> None:
    """The command ended by itself: a result, or an error of one line; never a traceback."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "Traceback" not in result.output
    if result.exit_code == 2:  # ours ("error: …") or click's usage error ("Error: …")
        errors = [line for line in result.output.splitlines() if line.lower().startswith("error: ")]
        assert len(errors) == 1, result.output


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:99999/x", "http://127.0.0.1:0/x", "http://[::1]:65536/"]
)
def test_fetch_of_a_port_that_does_not_exist_is_one_line(url: str) -> None:
    result = runner.invoke(app, ["fetch", url, "--no-cache", "--allow-private-networks"])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit)
    assert result.output.strip().splitlines() == [
        f"error: cannot fetch {url}: not an absolute http(s) URL"
    ]


def test_a_redirect_to_a_port_that_does_not_exist_is_one_line(web: FakeWeb) -> None:
    url = web.url("/redirect?to=http://127.0.0.1:99999/x")
    result = runner.invoke(app, ["fetch", url, "--no-cache", "--allow-private-networks"])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert "port 99999 does not exist" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_markup_in_a_fetched_url_is_shown_not_parsed(web: FakeWeb) -> None:
    result = runner.invoke(
        app, ["fetch", web.url("/a[/]b"), "--no-cache", "--allow-private-networks"]
    )
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert "/a[/]b" in result.output and "not found" in result.output


def test_markup_in_an_indexed_path_is_shown_not_parsed(tmp_path: Path) -> None:
    folder = tmp_path / "docs" / "a["
    folder.mkdir(parents=True)
    (folder / "]b.md").write_text("# Coral\n\nCorals bleach under heat stress.\n")
    result = runner.invoke(app, ["index", "docs/a[/]b.md", "--json"])
    assert result.exit_code == 0 and result.exception is None, result.output
    assert '"added": 1' in result.stdout


@PROPERTY
@given(url=ODD_URLS)
@example(url="http://127.0.0.1:99999/x")
@example(url="http://127.0.0.1/a[/]b")
def test_fetch_takes_any_url(url: str) -> None:
    # Private networks open: an odd port must be refused before any socket is made.
    one_line_or_result(runner.invoke(app, ["fetch", url, "--no-cache", "--allow-private-networks"]))


@PROPERTY
@given(path=ODD_TEXT)
@example(path="docs/a[/]b")
def test_index_takes_any_path(path: str) -> None:
    one_line_or_result(runner.invoke(app, ["index", path or ".", "--json"]))


@pytest.mark.parametrize(
    "args",
    [
        ["search", "\udcff", "--search", "searxng", "--searxng-url", "http://127.0.0.1:9/"],
        ["audit", "x" * 300],
        ["index", "x" * 300],
        ["verify", "x", "--source", "x" * 300],
        ["config", "--config", "x" * 300],
        ["run", "coral", "--config", "x" * 300],
    ],
)
def test_an_odd_argument_is_one_line(args: list[str]) -> None:
    result = runner.invoke(app, args)
    one_line_or_result(result)
    assert result.exit_code == 2, result.output


@pytest.mark.parametrize("out", ["\udcff", "a\x00b", "x" * 300])
def test_export_to_an_odd_name_is_a_file_or_one_line(out: str, finished_run_folder: Path) -> None:
    result = runner.invoke(app, ["export", str(finished_run_folder), "-f", "md", "-o", out])
    one_line_or_result(result)


@PROPERTY
@given(statement=ODD_TEXT, source=ODD_URLS)
@example(statement="Corals bleach at 30\x1b[31m degrees", source="notes.md")
@example(statement="x", source="http://\udcff/")  # an undecodable byte in argv, surrogateescaped
def test_verify_takes_any_statement_and_source(statement: str, source: str) -> None:
    Path("notes.md").write_text("Corals bleach when the water is warm.\n")
    one_line_or_result(runner.invoke(app, ["verify", statement or "x", "--source", source]))


@PROPERTY
@given(question=ODD_TEXT | st.text(max_size=40) | st.just("x " * 50_000))
@example(question="coral\x1b]0;title\x07 reefs")
def test_run_takes_any_question_and_leaves_no_folder_when_it_cannot_start(
    question: str, tmp_path: Path
) -> None:
    """Any question: one line, and no run folder (the model's server is down: set-up only)."""
    args = ["run", question, "--model", "ollama:llama3.1", "--out", str(tmp_path / "run")]
    result = runner.invoke(app, args, env={"OLLAMA_HOST": "http://127.0.0.1:9"})
    one_line_or_result(result)
    assert result.exit_code == 2, result.output
    assert not (tmp_path / "run").exists()


@PROPERTY
@given(run=ODD_URLS)
@example(run="runs/a[/]b")
def test_audit_takes_any_run_name(run: str) -> None:
    one_line_or_result(runner.invoke(app, ["audit", run or "x"]))


@PROPERTY
@given(urls=st.lists(ODD_URLS, min_size=1, max_size=4))
@example(urls=["http://127.0.0.1:99999/x", "http://[::1]:65536/", "http://127.0.0.1/a[/]b"])
async def test_search_results_hold_only_addresses_a_fetch_can_take(
    urls: list[str], make_config: Callable[..., Configuration], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a run's search hands its readers: each hit an address that is fetched or refused as
    one lost page (private networks open, as for the local web: no odd port reaches a socket)."""
    real = fake_web.searx_payload

    def odd(*args: Any) -> dict[str, object]:
        payload = real(*args)
        payload["results"] = [{"url": url, "title": "t", "content": "coral"} for url in urls]
        return payload

    monkeypatch.setattr(fake_web, "searx_payload", odd)
    async with open_services(make_config(fetch_timeout_s=1.0)) as services:
        results = await services.search.search("coral bleaching", 10)
        for result in results:
            assert is_web_url(result.url)
            try:
                await services.fetcher.fetch(result.url)
            except FetchError as exc:
                assert "\n" not in str(exc).strip()


def test_a_document_whose_name_is_no_text_is_skipped_in_one_line(tmp_path: Path) -> None:
    """A file name with a byte that is no UTF-8 (kept by Python as a lone surrogate) cannot be
    stored: it is listed as skipped with what to do, and the rest is indexed."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "fine.md").write_text("Corals bleach when the water stays warm for weeks.\n")
    odd = folder / os.fsdecode(b"caf\xe9.md")
    odd.write_text("Heat stress is counted in degree heating weeks.\n")
    result = runner.invoke(app, ["index", str(folder), "--json"])
    one_line_or_result(result)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert any("not valid UTF-8" in skip["reason"] for skip in summary["skipped"]), summary
    alone = runner.invoke(app, ["index", str(odd), "--json"])
    one_line_or_result(alone)
