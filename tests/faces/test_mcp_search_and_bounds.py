"""MCP `search` over documents folders, plain quiet server logs, bounded inputs, and `verify`
off the event loop; through the MCP SDK's clients (stdio, and in-process)."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from research_studio.faces.mcp_bounds import MAX_LINE_CHARS
from research_studio.faces.mcp_server import build_server
from tests.doubles.fake_web import FakeWeb
from tests.faces.test_mcp_server import server_env

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "urban-heat"
ROOT = Path(__file__).resolve().parents[2]


@asynccontextmanager
async def _stdio(env: dict[str, str], tmp_path: Path) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from research_studio.faces.cli import main; main()", "mcp"],
        # This tree's code, whatever copy is installed.
        env={**env, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"},
        cwd=str(tmp_path),
    )
    with (tmp_path / "server.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def _hits(result: Any) -> list[dict[str, Any]]:
    assert not result.is_error, result.content
    content = result.structured_content
    return list(content.get("result", content)) if isinstance(content, dict) else list(content)


def _error(result: Any) -> str:
    assert result.is_error
    text = str(result.content[0].text).strip()
    assert "\n" not in text and "Traceback" not in text
    return text


@pytest.mark.e2e
async def test_search_reads_documents_folders_and_logs_plain_warnings_only(
    web: FakeWeb, tmp_path: Path
) -> None:
    offline = {**server_env(web, tmp_path), "RESEARCH_STUDIO_SEARCH": ""}
    offline.pop("SEARXNG_URL")
    async with _stdio(offline, tmp_path) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert {"docs", "search"} <= set(tools["search"].input_schema["properties"])
        given = await session.call_tool(
            "search", {"query": "cool roofs", "max_results": 3, "docs": [str(EXAMPLES)]}
        )
        missing = await session.call_tool(
            "search", {"query": "cool roofs", "docs": [str(tmp_path / "nowhere")]}
        )
        # A page fetched over HTTP: httpx logs every request at INFO, which must not show.
        page = await session.call_tool("fetch", {"url": web.url("/")})
    hits = _hits(given)
    assert hits and all(hit["provider"] == "local" for hit in hits)
    assert all(hit["url"].startswith(EXAMPLES.as_uri()) for hit in hits)
    assert "no such file or folder" in _error(missing)
    assert page is not None
    log = (tmp_path / "server.log").read_text(encoding="utf-8")
    assert "HTTP Request" not in log and "INFO" not in log
    assert "\x1b[" not in log and "│" not in log  # no terminal styling, no Rich boxes


@pytest.mark.e2e
async def test_search_takes_the_servers_documents_folder(web: FakeWeb, tmp_path: Path) -> None:
    env = {**server_env(web, tmp_path), "RESEARCH_STUDIO_DOCS": str(EXAMPLES)}
    env.pop("RESEARCH_STUDIO_SEARCH")
    async with _stdio(env, tmp_path) as session:
        hits = _hits(await session.call_tool("search", {"query": "street trees shade"}))
        keyless = await session.call_tool("search", {"query": "trees", "search": "tavily"})
    assert hits and all(hit["provider"] == "local" for hit in hits)
    assert "API key" in _error(keyless)


async def test_every_text_input_is_bounded_with_a_one_line_refusal(tmp_path: Path) -> None:
    long_line = "x" * (MAX_LINE_CHARS + 1)
    async with Client(build_server()) as client:
        calls = {
            "search": {"query": long_line},
            "fetch": {"url": "http://a.example/" + long_line},
            "audit": {"run": long_line},
            "research_status": {"run_id": long_line},
            "research": {"question": long_line},
            "verify": {"statement": "Cool roofs cool.", "text": "word " * 1_100_000},
        }
        for tool, arguments in calls.items():
            text = _error(await client.call_tool(tool, arguments))
            assert re.search(r"too long|characters long; the limit", text), (tool, text)
            assert len(text) < 200, (tool, text)
        too_many = await client.call_tool("search", {"query": "roofs", "docs": ["a"] * 101})
    assert "at most 100" in _error(too_many)


async def test_verify_works_off_the_event_loop(tmp_path: Path) -> None:
    """While verify checks a long text, a light call is answered: the loop is free."""
    # A statement nothing supports, against ~3 MB of text (under max_document_bytes): the check
    # takes seconds (0.27 CPU-s per 270 kB), far longer than the light call below.
    text = (EXAMPLES / "cool-roofs-what-the-evidence-shows.md").read_text(encoding="utf-8") * 1200
    statement = "Cool roofs raise night temperatures in Oslo by 12 percent."
    async with Client(build_server()) as client:
        checking = asyncio.ensure_future(
            client.call_tool("verify", {"statement": statement, "text": text})
        )
        await asyncio.sleep(0.05)  # the verify call is under way
        light = await client.call_tool("research_status", {"run_id": "none"})
        answered_while_checking = not checking.done()
        verdict = await checking
    assert light.is_error and "no run" in str(light.content[0].text)
    assert answered_while_checking
    assert not verdict.is_error, verdict.content


async def test_every_tool_names_a_wrong_missing_or_unknown_argument_in_one_line() -> None:
    async with Client(build_server()) as client:
        tools = (await client.list_tools()).tools
        for tool in tools:
            schema = tool.input_schema
            required = list(schema.get("required", []))
            first = required[0] if required else next(iter(schema["properties"]))
            wrong = _error(await client.call_tool(tool.name, {first: {"a": [1]}}))
            assert f"`{first}`" in wrong and "should be" in wrong, (tool.name, wrong)
            assert "pydantic" not in wrong and "type=" not in wrong, (tool.name, wrong)
            unknown = _error(await client.call_tool(tool.name, {first: "x", "bogus_arg": 1}))
            assert "`bogus_arg`" in unknown and first in unknown, (tool.name, unknown)
            if required:
                missing = _error(await client.call_tool(tool.name, {}))
                assert f"`{required[0]}` is required" in missing, (tool.name, missing)
        assert {tool.name for tool in tools} >= {"search", "verify", "research", "fetch"}
        typo = _error(await client.call_tool("search", {"query": "x", "max_result": 3}))
        number = _error(await client.call_tool("search", {"query": "x", "max_results": "abc"}))
        text = _error(await client.call_tool("verify", {"statement": "x", "text": 5}))
    assert "did you mean `max_results`" in typo
    assert "`max_results` should be a valid integer" in number and "'abc'" in number
    assert "`text` should be a valid string (got 5)" in text


async def test_a_documents_path_holding_a_nul_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RESEARCH_STUDIO_RUNS_DIR", str(tmp_path / "runs"))
    async with Client(build_server()) as client:
        for tool, arguments in (
            ("search", {"query": "roofs", "docs": ["a\x00b"]}),
            ("research", {"question": "roofs?", "docs": ["a\x00b"]}),
        ):
            text = _error(await client.call_tool(tool, arguments))
            assert "NUL character" in text, (tool, text)
        audit = _error(await client.call_tool("audit", {"run": "\x00"}))
    assert audit == "Error executing tool audit: no run '\\x00' in this server's runs"


async def test_research_with_a_model_server_nothing_answers_at_starts_no_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("OLLAMA_HOST", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("RESEARCH_STUDIO_RUNS_DIR", str(tmp_path / "runs"))
    arguments = {"question": "cool roofs?", "model": "ollama:llama3.1", "docs": [str(EXAMPLES)]}
    async with Client(build_server()) as client:
        for tool in ("research", "research_start"):
            text = _error(await client.call_tool(tool, arguments))
            assert f"nothing answers at http://127.0.0.1:{port}" in text, (tool, text)
            assert "`ollama serve`" in text, (tool, text)
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
