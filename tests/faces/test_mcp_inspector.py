"""`research-studio mcp` driven by the MCP Inspector CLI, a client nobody on this project wrote.

The Inspector is an npm package run with `npx` (pinned below); the first run downloads it from
the npm registry into a cache under the temporary directory. Each Inspector call starts its own
server over stdio, as a user's `npx @modelcontextprotocol/inspector --cli …` would.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.faces.test_mcp_server import server_env

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("npx") is None, reason="npx (Node.js) is not installed"),
]

INSPECTOR = "@modelcontextprotocol/inspector@0.17.5"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "urban-heat"
# The Inspector's own request timeout is 60 s; the download on a first run comes on top.
CALL_TIMEOUT_S = 600


def _inspector(
    web: FakeWeb, tmp_path: Path, method: str, tool: str = "", **args: str
) -> dict[str, Any]:
    """One Inspector CLI call against a fresh `research-studio mcp`; its JSON answer."""
    server = tmp_path / "server.py"
    server.write_text("from research_studio.faces.cli import main\nmain()\n", encoding="utf-8")
    command = ["npx", "--yes", INSPECTOR, "--cli", sys.executable, str(server), "mcp"]
    command += ["--method", method]
    if tool:
        command += ["--tool-name", tool, "--tool-arg", *(f"{k}={v}" for k, v in args.items())]
    cache = Path(tempfile.gettempdir()) / "research-studio-npx-cache"
    env = {
        **server_env(web, tmp_path),
        "npm_config_cache": str(cache),
        "npm_config_update_notifier": "false",
        "npm_config_fund": "false",
    }
    done = subprocess.run(
        command,
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=CALL_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]
    return dict(json.loads(done.stdout[done.stdout.index("{") :]))


def _structured(result: dict[str, Any]) -> dict[str, Any]:
    assert not result.get("isError"), result
    if result.get("structuredContent") is not None:
        return dict(result["structuredContent"])
    return dict(json.loads(result["content"][0]["text"]))


def test_the_inspector_lists_described_tools_and_gets_a_cited_verifiable_report(
    web: FakeWeb, tmp_path: Path
) -> None:
    listed = _inspector(web, tmp_path, "tools/list")
    tools = {tool["name"]: tool for tool in listed["tools"]}
    assert {"research", "research_start", "research_status", "audit", "verify"} <= set(tools)
    for tool in tools.values():
        assert tool.get("description"), f"{tool['name']} has no description"
        for name, schema in tool["inputSchema"].get("properties", {}).items():
            assert schema.get("description"), f"{tool['name']}.{name} has no description"

    web.chat.responder = ResearchScript().chat_responder()
    answer = _structured(
        _inspector(
            web,
            tmp_path,
            "tools/call",
            "research",
            question="How do cool roofs and street trees lower city temperatures?",
            docs=json.dumps([str(EXAMPLES)]),
            search="local",
            max_iterations="1",
        )
    )
    assert web.chat.requests, "the run must have used the model stand-in"
    assert answer["status"] == "completed", answer
    assert answer["audit"]["ok"], answer["audit"]
    report = answer["report"]
    cited = set(re.findall(r"\[(S\d+)\]", report))
    sources = {source["sid"]: source for source in answer["sources"]}
    assert cited and cited <= set(sources)

    # A cited sentence of the report, checked by `verify` against its source document's text.
    line = next(
        line for line in report.splitlines() if re.search(r"\[S\d+\]", line) and len(line) > 60
    )
    sid = re.findall(r"\[(S\d+)\]", line)[0]
    statement = re.sub(r"\s*\[S\d+\](?:\s*\[S\d+\])*", "", line).lstrip("-* ").strip()
    document = next(
        path
        for path in EXAMPLES.iterdir()
        if path.name in sources[sid]["url"] + sources[sid]["title"]
    )
    text = document.read_text(encoding="utf-8", errors="replace")
    supported = _structured(
        _inspector(web, tmp_path, "tools/call", "verify", statement=statement, text=text)
    )
    assert supported["supported"], supported
    flipped = _structured(
        _inspector(
            web,
            tmp_path,
            "tools/call",
            "verify",
            statement="Cool roofs never change how hot a building gets in summer.",
            text=text,
        )
    )
    assert not flipped["supported"] and flipped["reasons"]
