"""`research-studio mcp` driven by the MCP SDK's own stdio client, against the local web."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from research_studio import __version__
from research_studio.core.declarations import DECLARED
from research_studio.faces.mcp_settings import MCP_SETTINGS
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript

pytestmark = pytest.mark.e2e


def server_env(web: FakeWeb, tmp_path: Path) -> dict[str, str]:
    """The server's own environment: model and search from it, as the CLI takes them."""
    return {
        "PATH": os.environ.get("PATH", ""),
        # This checkout's code, not whichever copy is installed.
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
        "HOME": str(tmp_path),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "OPENAI_API_KEY": "sk-test",
        "OPENAI_BASE_URL": web.url("/v1"),
        "RESEARCH_STUDIO_MODEL": "openai:fake-model",
        "RESEARCH_STUDIO_SEARCH": "searxng",
        "SEARXNG_URL": web.base_url,
        "RESEARCH_STUDIO_ALLOW_PRIVATE_NETWORKS": "true",
        "RESEARCH_STUDIO_RUNS_DIR": str(tmp_path / "runs"),
    }


@asynccontextmanager
async def _session(web: FakeWeb, tmp_path: Path) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from research_studio.faces.cli import main; main()", "mcp"],
        env=server_env(web, tmp_path),
        cwd=str(tmp_path),
    )
    with (tmp_path / "server.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def _structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return dict(result.structured_content)
    return dict(json.loads(result.content[0].text))


async def test_an_mcp_client_gets_a_cited_audited_report(web: FakeWeb, tmp_path: Path) -> None:
    web.chat.responder = ResearchScript().chat_responder()
    progress: list[tuple[float, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, message))

    async with _session(web, tmp_path) as session:
        listed = await session.list_tools()
        names = {tool.name for tool in listed.tools}
        assert {"research", "search", "fetch", "audit"} <= names
        result = await session.call_tool(
            "research",
            {"question": "coral bleaching heat stress"},
            read_timeout_seconds=120,
            progress_callback=on_progress,
        )
        answer = _structured(result)
        audit = _structured(await session.call_tool("audit", {"run": answer["run_id"]}))

    assert web.chat.requests, "the run must have used the OpenAI-compatible server"
    assert answer["status"] == "completed"
    cited = set(re.findall(r"\[(S\d+)\]", answer["report"]))
    assert cited and cited <= {source["sid"] for source in answer["sources"]}
    assert answer["audit"]["ok"], answer["audit"]
    # The same verdict on "answered" as the report and the CLI: answered and open questions.
    verdict = answer["audit"]
    assert isinstance(verdict["answered"], bool)
    assert ("address the question" in verdict["summary"]) is verdict["answered"]
    assert all(question in answer["report"] for question in verdict["unanswered"])
    assert audit["ok"] and audit["statements"]
    assert Path(answer["folder"], "report.md").read_text(encoding="utf-8") == answer["report"]
    assert progress and any("finished" in (message or "") for _, message in progress)
    assert [done for done, _ in progress] == sorted(done for done, _ in progress)


async def test_search_fetch_and_user_errors_over_mcp(web: FakeWeb, tmp_path: Path) -> None:
    async with _session(web, tmp_path) as session:
        hits = _structured(await session.call_tool("search", {"query": "coral bleaching"}))
        results = hits.get("result", hits)
        assert results and all(hit["provider"] == "searxng" for hit in results)
        page = _structured(await session.call_tool("fetch", {"url": results[0]["url"]}))
        assert page["text"].strip()
        refused = await session.call_tool("fetch", {"url": "file:///etc/passwd"})
        missing = await session.call_tool("audit", {"run": "no-such-run"})
    assert refused.is_error and "http(s)" in refused.content[0].text
    assert missing.is_error and "\n" not in missing.content[0].text.strip()


async def test_fetch_and_audit_errors_give_their_reason_in_one_line_without_server_paths(
    web: FakeWeb, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server imports this tree's code (its environment is otherwise clean).
    root = Path(__file__).resolve().parents[2]
    env = {**server_env(web, tmp_path), "PYTHONPATH": f"{root / 'src'}{os.pathsep}{root}"}
    monkeypatch.setattr(sys.modules[__name__], "server_env", lambda *_args: env)
    async with _session(web, tmp_path) as session:
        malformed = await session.call_tool("fetch", {"url": "http://0177.0.0.1/"})
        escaping = await session.call_tool("audit", {"run": "../../../../etc"})
        missing = await session.call_tool("audit", {"run": "no-such-run"})
    assert malformed.is_error
    text = malformed.content[0].text
    assert "malformed URL" in text and "\n" not in text.strip()
    for result in (escaping, missing):
        text = result.content[0].text
        assert result.is_error and "\n" not in text.strip()
        assert str(tmp_path) not in text and "/runs" not in text
    assert "'../../../../etc'" in escaping.content[0].text
    assert "'no-such-run'" in missing.content[0].text


async def test_the_research_tool_is_described_by_the_configuration(
    web: FakeWeb, tmp_path: Path
) -> None:
    async with _session(web, tmp_path) as session:
        listed = await session.list_tools()
        server_info = session.server_info
    assert server_info is not None and server_info.version == __version__
    tools = {tool.name: tool for tool in listed.tools}
    for tool in tools.values():
        for name, schema in tool.input_schema["properties"].items():
            assert schema.get("description"), f"{tool.name}.{name} has no description"
    research = tools["research"].input_schema["properties"]
    assert {"docs", "search", "pipeline", "language", "max_iterations", "max_cost_usd"} <= set(
        research
    )
    assert not {"searxng_url", "allow_private_networks", "openai_api_key"} & set(research)
    for name in MCP_SETTINGS:
        assert research[name]["description"] == DECLARED[name].help
    assert (research["max_iterations"]["minimum"], research["max_iterations"]["maximum"]) == (1, 20)


async def test_research_mistakes_are_one_line_in_mcp_words(web: FakeWeb, tmp_path: Path) -> None:
    async with _session(web, tmp_path) as session:
        ignored = await session.call_tool(
            "research", {"question": "coral reefs", "pipeline": "supervisor", "max_iterations": 2}
        )
        klingon = await session.call_tool(
            "research", {"question": "coral reefs", "language": "klingon"}
        )
        single = await session.call_tool(
            "research", {"question": "coral reefs", "pipeline": "supervisor", "single_agent": True}
        )
    assert ignored.is_error
    assert "the `max_iterations` parameter does not apply" in ignored.content[0].text
    assert klingon.is_error and "unknown language 'klingon'" in klingon.content[0].text
    assert single.is_error
    assert "the `single_agent` parameter does not apply to the supervisor" in single.content[0].text
    for result in (ignored, klingon, single):
        assert "\n" not in result.content[0].text.strip()
        assert "--" not in result.content[0].text
    assert not (tmp_path / "runs").exists()


async def test_research_reads_a_documents_folder_given_by_the_client(
    web: FakeWeb, tmp_path: Path
) -> None:
    web.chat.responder = ResearchScript().chat_responder()
    docs = tmp_path / "notes"
    docs.mkdir()
    (docs / "coral.md").write_text(
        "# Coral bleaching\n\nCoral bleaching happens when water temperatures stay high for weeks "
        "and corals expel the algae living in their tissues, turning white.\n"
    )
    async with _session(web, tmp_path) as session:
        result = await session.call_tool(
            "research",
            {"question": "coral bleaching", "docs": [str(docs)], "search": "local"},
            read_timeout_seconds=120,
        )
    answer = _structured(result)
    assert answer["status"] == "completed"
    run = json.loads(Path(answer["folder"], "run.json").read_text(encoding="utf-8"))
    assert run["settings"]["search"] == "local" and run["settings"]["docs"] == [str(docs)]


async def test_a_client_that_cannot_wait_starts_and_polls(web: FakeWeb, tmp_path: Path) -> None:
    web.chat.responder = ResearchScript().chat_responder()
    async with _session(web, tmp_path) as session:
        started = _structured(
            await session.call_tool("research_start", {"question": "coral bleaching heat stress"})
        )
        assert started["status"] == "running"
        status = started
        for _ in range(600):
            status = _structured(
                await session.call_tool("research_status", {"run_id": started["run_id"]})
            )
            if status["status"] != "running":
                break
            await asyncio.sleep(0.2)
        unknown = await session.call_tool("research_status", {"run_id": "nope"})
    assert status["status"] == "completed", status
    assert status["result"]["report"] and status["result"]["audit"]["ok"]
    assert unknown.is_error and "no run 'nope'" in unknown.content[0].text
