"""MCP servers as research sources: settings, the `mcp` search provider, researcher tools.

The e2e tests start the test MCP server (tests.doubles.mcp_fixture_server) over
stdio with the SDK's client, as a user's configuration would.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from research_studio.core.config import Configuration
from research_studio.core.config_loading import load_configuration
from research_studio.core.errors import ConfigError
from research_studio.faces.cli import app
from research_studio.services.resolution import choose_search
from research_studio.sources.mcp_sources import McpSources, McpText, tool_url
from research_studio.sources.search.mcp import McpSearch, search_arguments, to_results
from tests.doubles.fake_web import FakeWeb
from tests.doubles.mcp_fixture_server import LOOKUP_FACTS
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import ScriptedChatModel, use_scripted_model
from tests.doubles.supervisor_script import SupervisorScript

runner = CliRunner()
QUERY = "coral bleaching heat stress"
ROOT = Path(__file__).resolve().parents[2]  # the server imports this tree's tests and code
FIXTURE = [
    sys.executable,
    str(Path(__file__).resolve().parents[1] / "doubles" / "launch_mcp_fixture.py"),
]


def _settings_file(
    path: Path, *, args: list[str], command: str = sys.executable, search_tool: bool = True
) -> Path:
    """A research-studio.toml naming the test MCP server (and its search tool)."""
    path.write_text(
        ('mcp_search_tool = "fixture.search"\n' if search_tool else "") + "mcp_timeout_s = 30\n"
        "[[mcp_servers]]\n"
        'name = "fixture"\n'
        f"command = {json.dumps(command)}\n"
        f"args = {json.dumps(args)}\n"
        'env = { FIXTURE_TOKEN = "secret-value" }\n'
    )
    return path


def _answer(text: str, structured: Any = None) -> McpText:
    return McpText("web", "search", tool_url("web", "search", {"query": "q"}), text, structured)


# --- settings and choices (no server started) ----------------------------------------------


def test_the_settings_file_configures_servers_and_masks_their_secrets(tmp_path: Path) -> None:
    path = _settings_file(tmp_path / "rs.toml", args=["-m", "x"])
    config = load_configuration(config_file=path).config
    (server,) = config.mcp_servers
    assert (server.name, server.command, server.args) == ("fixture", sys.executable, ["-m", "x"])
    assert server.env["FIXTURE_TOKEN"].get_secret_value() == "secret-value"
    assert "secret-value" not in json.dumps(config.redacted())
    assert choose_search(config).name == "mcp"  # a named MCP search tool picks the provider


def test_a_server_needs_exactly_one_transport() -> None:
    with pytest.raises(ValueError, match="either command or url"):
        Configuration(mcp_servers=[{"name": "x", "command": "a", "url": "http://h/mcp"}])


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"search": "mcp"}, "needs mcp_search_tool"),
        ({"search": "mcp", "mcp_search_tool": "search"}, "must be server.tool"),
        ({"search": "mcp", "mcp_search_tool": "web.search"}, "names server 'web'"),
        (
            {"mcp_servers": [{"name": "web", "command": "no-such-mcp-server-xyz"}]},
            "command 'no-such-mcp-server-xyz' not found",
        ),
    ],
)
def test_mcp_mistakes_fail_before_any_work(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        choose_search(Configuration(**settings))


def test_the_cli_says_what_is_missing_in_one_line(tmp_path: Path) -> None:
    model = use_scripted_model(ResearchScript().model())
    result = runner.invoke(app, ["run", QUERY, "--search", "mcp", "--model", model])
    assert result.exit_code == 2
    assert "mcp_search_tool" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "runs").exists()  # nothing was started


def test_a_bad_server_command_is_one_line_error(tmp_path: Path) -> None:
    _settings_file(tmp_path / "research-studio.toml", args=[], command="no-such-mcp-server-xyz")
    result = runner.invoke(app, ["search", "coral", "--search", "mcp"])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "command 'no-such-mcp-server-xyz' not found" in lines[0]


# --- the accepted answer shapes ------------------------------------------------------------


def test_search_arguments_follow_the_tools_schema() -> None:
    schema = {"properties": {"q": {}, "limit": {}}, "required": ["q"]}
    assert search_arguments(schema, "reefs", 3) == {"q": "reefs", "limit": 3}
    assert search_arguments({"properties": {"terms": {}}, "required": ["terms"]}, "x", 2) == {
        "terms": "x"
    }


def test_a_json_hit_list_becomes_results_and_text_hits_get_mcp_urls() -> None:
    hits = [
        {"title": "A", "url": "https://a.example/1", "content": "snippet a"},
        {"title": "B", "text": "The whole document B.", "snippet": "b"},
        {"title": "no url, no text"},
    ]
    results = to_results(_answer(json.dumps(hits)), "q")
    assert [r.title for r in results] == ["A", "B"]
    assert results[0].snippet == "snippet a" and results[0].content is None
    assert results[1].url.startswith("mcp://web/search?h=")
    assert results[1].content == "The whole document B."
    wrapped = to_results(_answer("ignored", {"results": hits[:1]}), "q")
    assert [r.url for r in wrapped] == ["https://a.example/1"]


def test_malformed_hits_are_skipped_or_cleaned_never_raised() -> None:
    hits = [
        {"title": "word score", "url": "https://a.example/1", "score": "high"},
        {"title": ["odd"], "url": "https://a.example/2", "score": {"v": 1}, "snippet": 5},
        {"title": "bad url, no text", "url": {"href": "https://a.example/3"}},
        {"title": "not a web url", "url": "javascript:alert(1)"},
        {"title": "text is not text", "text": {"body": "x"}},
        {"title": "good", "url": "https://a.example/4", "score": "0.5", "published": 2024},
    ]
    results = to_results(_answer(json.dumps(hits)), "q")
    assert [(r.url, r.title, r.score) for r in results] == [
        ("https://a.example/1", "word score", 0.0),
        ("https://a.example/2", "", 0.0),
        ("https://a.example/4", "good", 0.5),
    ]
    assert results[1].snippet == "5" and results[2].published == "2024"


def test_plain_text_becomes_one_source_cited_by_the_calls_url() -> None:
    answer = _answer("Reefs bleach when the water stays warm for weeks.")
    (result,) = to_results(answer, "reefs")
    assert result.url == answer.url and result.content == answer.text
    assert result.provider == "mcp"


# --- against the test MCP server -----------------------------------------------------------


@pytest.mark.e2e
async def test_sessions_list_and_call_tools_and_close(web: FakeWeb) -> None:
    config = Configuration(
        mcp_servers=[{"name": "fixture", "command": FIXTURE[0], "args": FIXTURE[1:]}],
        mcp_timeout_s=30,
    )
    sources = McpSources.of(config)
    try:
        tools, failed = await sources.all_tools()
        assert not failed
        assert {tool.exposed_name for tool in tools} == {"fixture_search", "fixture_lookup"}
        answer = await sources.call("fixture", "lookup", {"topic": "reefs"})
        assert LOOKUP_FACTS[0] in answer.text
        assert answer.url == tool_url("fixture", "lookup", {"topic": "reefs"})
        results = await McpSearch(sources, "fixture.search").search("coral bleaching", 2)
        assert len(results) == 1 and results[0].content and LOOKUP_FACTS[1] in results[0].content
    finally:
        await sources.aclose()
    assert sources._servers == {}


@pytest.mark.e2e
async def test_a_server_that_dies_is_reported_as_data() -> None:
    config = Configuration(
        mcp_servers=[
            {"name": "dies", "command": sys.executable, "args": ["-c", "raise SystemExit(3)"]}
        ],
        mcp_timeout_s=10,
    )
    sources = McpSources.of(config)
    try:
        tools, failed = await sources.all_tools()
        assert tools == [] and len(failed) == 1
        assert "MCP server 'dies' did not start" in str(failed[0])
        assert await sources.all_tools() == ([], [])  # recorded once per run
    finally:
        await sources.aclose()


def _run(web: FakeWeb, spec: str, out: str, *args: str) -> Path:
    result = runner.invoke(
        app,
        [
            "run",
            QUERY,
            "--model",
            spec,
            "--allow-private-networks",
            "--no-cache",
            "--out",
            out,
            *args,
        ],
    )
    assert result.exit_code == 0, result.output
    return Path(out).resolve()


def _supervisor_run(web: FakeWeb, model: ScriptedChatModel) -> Path:
    """A supervisor run into ./sv that searches the local web beside the MCP tools."""
    spec = use_scripted_model(model)
    return _run(
        web,
        spec,
        "sv",
        "--pipeline",
        "supervisor",
        "--search",
        "searxng",
        "--searxng-url",
        web.base_url,
    )


def _audited(folder: Path) -> dict[str, Any]:
    result = runner.invoke(app, ["audit", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    verdict = dict(json.loads(result.stdout))
    assert verdict["ok"] and verdict["statements"], verdict
    return verdict


def _cited(folder: Path) -> list[dict[str, Any]]:
    document = json.loads((folder / "result.json").read_text())
    sids = set(re.findall(r"\[(S\d+)\]", document["report"]))
    return [source for source in document["sources"] if source["sid"] in sids]


@pytest.mark.e2e
def test_search_mcp_finds_web_pages_and_the_report_passes_the_audit(
    web: FakeWeb, tmp_path: Path
) -> None:
    _settings_file(tmp_path / "research-studio.toml", args=[*FIXTURE[1:], "--web", web.base_url])
    spec = use_scripted_model(ResearchScript().model())
    folder = _run(web, spec, "run", "--search", "mcp")
    cited = _cited(folder)
    assert cited and all(source["provider"] == "mcp" for source in cited)
    assert all(source["url"].startswith(web.base_url) for source in cited)
    _audited(folder)


@pytest.mark.e2e
def test_search_mcp_hits_carrying_text_are_kept_and_audited(tmp_path: Path, web: FakeWeb) -> None:
    _settings_file(tmp_path / "research-studio.toml", args=FIXTURE[1:])
    spec = use_scripted_model(ResearchScript().model())
    folder = _run(web, spec, "run", "--search", "mcp")
    (source,) = _cited(folder)
    assert source["url"].startswith("mcp://fixture/search?h=")
    kept = (folder / "sources" / f"{source['sid']}.txt").read_text()
    assert LOOKUP_FACTS[0] in kept
    _audited(folder)


class LookupScript(SupervisorScript):
    """Researchers call the test server's `lookup` tool first, then stop."""

    def tools(self, names: list[str], prompt: str) -> list[dict[str, Any]]:
        if "ConductResearch" in names:
            return super().tools(names, prompt)
        if "fixture_lookup" in names and "URL: mcp://" not in prompt:
            return [{"name": "fixture_lookup", "args": {"topic": "coral reef heat stress"}}]
        return [
            {"name": "think_tool", "args": {"reflection": "The field report answers it."}},
            {"name": "ResearchComplete", "args": {}},
        ]


@pytest.mark.e2e
def test_a_researcher_cites_what_an_mcp_tool_returned(web: FakeWeb, tmp_path: Path) -> None:
    _settings_file(tmp_path / "research-studio.toml", args=FIXTURE[1:], search_tool=False)
    folder = _supervisor_run(web, LookupScript(topics=1).model())
    cited = _cited(folder)
    lookups = [s for s in cited if s["url"].startswith("mcp://fixture/lookup?h=")]
    assert lookups, cited
    kept = (folder / "sources" / f"{lookups[0]['sid']}.txt").read_text()
    assert all(fact in kept for fact in LOOKUP_FACTS)
    report = json.loads((folder / "result.json").read_text())["report"]
    assert "Kestrel Reef Station" in report or "Marrow Ledge" in report
    _audited(folder)


@pytest.mark.e2e
async def test_a_streamable_http_server_is_called_by_url() -> None:
    import asyncio
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = await asyncio.create_subprocess_exec(
        *FIXTURE, "--http", str(port), stderr=asyncio.subprocess.DEVNULL
    )
    config = Configuration(
        mcp_servers=[{"name": "remote", "url": f"http://127.0.0.1:{port}/mcp"}],
        mcp_timeout_s=30,
    )
    sources = McpSources.of(config)
    try:
        for _ in range(100):  # until the server listens (not a timing assertion)
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.1)
                continue
            writer.close()
            break
        answer = await sources.call("remote", "lookup", {"topic": "reefs"})
        assert LOOKUP_FACTS[1] in answer.text
        assert answer.url.startswith("mcp://remote/lookup?h=")
        client = sources._servers["remote"].http_client
        assert client is not None and not client.is_closed
    finally:
        await sources.aclose()
        process.terminate()
        await process.wait()
    assert client.is_closed  # the SDK leaves a client it was given open: the session closes it


@pytest.mark.e2e
def test_a_server_that_fails_costs_a_supervisor_run_only_its_tools(
    web: FakeWeb, tmp_path: Path
) -> None:
    _settings_file(
        tmp_path / "research-studio.toml",
        args=["-c", "raise SystemExit(3)"],
        search_tool=False,
    )
    folder = _supervisor_run(web, SupervisorScript(topics=2).model())
    document = json.loads((folder / "result.json").read_text())
    failures = [e for e in document["metadata"]["errors"] if "did not start" in e["message"]]
    assert len(failures) == 1 and "'fixture'" in failures[0]["message"]
    assert _cited(folder)  # the web search still gave the report its sources
    _audited(folder)


@pytest.mark.e2e
async def test_a_server_printing_to_stdout_costs_one_recorded_loss_and_no_tracebacks(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    config = Configuration(
        mcp_servers=[
            {
                "name": "chatty",
                "command": FIXTURE[0],
                "args": [*FIXTURE[1:], "--noisy"],
                "env": {"PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])},
            }
        ],
        mcp_timeout_s=30,
    )
    sources = McpSources.of(config)
    try:
        for _ in range(3):
            answer = await sources.call("chatty", "lookup", {"topic": "reefs"})
            assert LOOKUP_FACTS[0] in answer.text
        tools, failed = await sources.all_tools()
        assert {tool.name for tool in tools} == {"search", "lookup"}
        assert [str(loss) for loss in failed] == [
            "MCP server 'chatty' wrote 2 line(s) to stdout that are not MCP messages; "
            "they were ignored"
        ]
        assert (await sources.all_tools())[1] == []  # recorded once per run
    finally:
        await sources.aclose()
    assert not [r for r in caplog.records if r.name.startswith("mcp") and r.levelno >= 30]
    assert "Traceback" not in capfd.readouterr().err
