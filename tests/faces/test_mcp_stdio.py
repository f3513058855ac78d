"""`research-studio mcp` over stdio: pipes read and written by the event loop, stray output kept
off the wire, long messages whole, and any other stdin served by the SDK's own transport."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import LATEST_PROTOCOL_VERSION

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "urban-heat"

# The real server with one more tool that writes to stdout three ways (a test double).
_NOISY_SERVER = """
import os, subprocess, sys
from research_studio.faces import mcp_server

def noisy() -> str:
    print("printed noise", flush=True)
    os.write(1, b"raw noise on fd 1\\n")
    subprocess.run([sys.executable, "-c", "print('child noise')"], check=True)
    return "done " + "x" * 200_000  # a long answer too

built = mcp_server.build_server
def build():
    server = built()
    server.tool()(noisy)
    return server
mcp_server.build_server = build
mcp_server.serve()
"""


def _server_env(tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        # This tree's code, whatever copy is installed.
        "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}",
    }


async def test_stray_output_goes_to_stderr_and_long_messages_arrive_whole(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-c", _NOISY_SERVER], env=_server_env(tmp_path)
    )
    statement = "Cool roofs reflect sunlight."
    # A request line far over a pipe's and asyncio's default buffer (64 KiB).
    text = (EXAMPLES / "cool-roofs-what-the-evidence-shows.md").read_text(encoding="utf-8") * 60
    assert len(text) > 150_000
    with (tmp_path / "server.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            noisy = await session.call_tool("noisy", {})
            checked = await session.call_tool("verify", {"statement": statement, "text": text})
            hits = await session.call_tool(
                "search", {"query": "cool roofs", "docs": [str(EXAMPLES)]}
            )
    assert not noisy.is_error and noisy.content[0].text == "done " + "x" * 200_000
    assert not checked.is_error, checked.content
    assert not hits.is_error and hits.structured_content["result"]
    log = (tmp_path / "server.log").read_text(encoding="utf-8")
    assert "printed noise" in log and "raw noise on fd 1" in log and "child noise" in log
    # The client read nothing but messages from the wire (it logs each line it cannot parse).
    assert not [record for record in caplog.records if "parse" in record.getMessage()]


def test_stdin_from_a_file_is_served_by_the_sdks_transport(tmp_path: Path) -> None:
    """Not a pipe (the event loop cannot wait on a file): the SDK's own transport serves it."""
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LATEST_PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    given = tmp_path / "requests.jsonl"
    given.write_text(json.dumps(initialize) + "\n")
    with given.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-c", "from research_studio.faces.cli import main; main()", "mcp"],
            stdin=stdin,
            env=_server_env(tmp_path),
            capture_output=True,
            timeout=120,
            check=True,
        )
    (answer,) = map(json.loads, done.stdout.splitlines())
    assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "research-studio"
