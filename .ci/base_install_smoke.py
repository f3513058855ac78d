"""Drive every real command of an install as a user would, and fail on any traceback.

Run with the Python of a fresh virtual environment that holds only the install under test
(`pip install .`, or `.[local]`), from the repository root, with the repository on PYTHONPATH
for the local stand-ins (tests/doubles: an OpenAI-compatible chat endpoint and SearXNG):

    PYTHONPATH=. /tmp/base/bin/python .ci/base_install_smoke.py [--embedded]

`--embedded` runs the research with the embedded model (the `local` extra) instead of the
OpenAI-compatible stand-in. Nothing here is imported by the product.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "examples" / "urban-heat"
QUESTION = "How do cool roofs and trees reduce urban heat?"
CLI = [sys.executable, "-c", "from research_studio.faces.cli import main; main()"]
failures: list[str] = []


def check(name: str, ok: bool, detail: str = "") -> None:
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""))
    if not ok:
        failures.append(name)


def command(name: str, args: list[str], env: dict[str, str], expect: tuple[int, ...] = (0,)) -> str:
    started = time.monotonic()
    done = subprocess.run(
        [*CLI, *args], env=env, capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL
    )
    output = done.stdout + done.stderr
    seconds = time.monotonic() - started
    check(
        f"{name} ({seconds:.1f} s)",
        done.returncode in expect and "Traceback" not in output,
        f"exit {done.returncode}\n{output[-3000:]}",
    )
    return output


async def mcp_session(env: dict[str, str], cwd: Path) -> None:
    params = StdioServerParameters(command=CLI[0], args=[*CLI[1:], "mcp"], env=env, cwd=str(cwd))
    log = cwd / "mcp.log"
    with log.open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            names = {tool.name for tool in (await session.list_tools()).tools}
            check("mcp: list tools", {"verify", "search"} <= names, str(sorted(names)))
            verify = await session.call_tool(
                "verify",
                {
                    "statement": "Cool roofs reflect sunlight.",
                    "text": "Cool roofs reflect sunlight and lower roof temperatures.",
                },
            )
            check("mcp: verify", not verify.is_error, str(verify.content)[:500])
            search = await session.call_tool("search", {"query": "urban heat"})
            check("mcp: search", not search.is_error, str(search.content)[:500])
    check("mcp: no traceback", "Traceback" not in log.read_text(), log.read_text()[-2000:])


def serve_once(env: dict[str, str]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [*CLI, "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    seen: list[str] = []
    try:
        url = ""
        deadline = time.monotonic() + 120
        assert server.stdout is not None
        while not url and time.monotonic() < deadline:
            line = server.stdout.readline()
            if not line:
                break
            seen.append(line)
            if f":{port}" in line:
                url = f"http://127.0.0.1:{port}"
        check("serve: prints its URL", bool(url), "".join(seen)[-2000:])
        options: Any = None
        while url and options is None and time.monotonic() < deadline:
            try:  # the URL is printed as the server starts listening
                with urllib.request.urlopen(f"{url}/api/options", timeout=30) as reply:
                    options = json.loads(reply.read())
            except OSError:
                time.sleep(0.5)
        check("serve: one request", bool(options), str(options)[:300])
    finally:
        server.terminate()
        rest, _ = server.communicate(timeout=30)
    check("serve: no traceback", "Traceback" not in "".join(seen) + rest, rest[-2000:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedded", action="store_true", help="research with the embedded model")
    embedded = parser.parse_args().embedded
    home = Path(tempfile.mkdtemp(prefix="rs-smoke-"))
    with FakeWeb() as web:
        web.chat.responder = ResearchScript().chat_responder()
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "XDG_CACHE_HOME": str(home / "cache"),
            "XDG_DATA_HOME": str(home / "data"),
            "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT)),
            "SEARXNG_URL": web.base_url,
            "RESEARCH_STUDIO_ALLOW_PRIVATE_NETWORKS": "true",
        }
        if not embedded:
            env |= {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": web.url("/v1")}
        command("--version", ["--version"], env)
        command("run --help", ["run", "--help"], env)
        command("doctor", ["doctor", "--docs", str(DOCS)], env)
        command("index", ["index", str(DOCS)], env)
        run = home / "run"
        command("run over local documents", ["run", QUESTION, "--docs", str(DOCS), "--out", str(run)], env)
        report = run / "report.md"
        check("run: a cited report", report.is_file() and "[S" in report.read_text(), str(run))
        command("audit", ["audit", str(run)], env)
        command("ask", ["ask", str(run), "What do trees do?"], env)
        for form in ("html", "pdf", "docx"):
            command(f"export {form}", ["export", str(run), "-f", form, "-o", str(home)], env)
        source = home / "source.md"
        source.write_text("Cool roofs reflect sunlight and lower roof temperatures.\n")
        command(
            "verify",
            ["verify", "Cool roofs reflect sunlight.", "--source", str(source)],
            env,
            expect=(0, 1),
        )
        command("search", ["search", "urban heat", "--search", "searxng"], env)
        asyncio.run(mcp_session(env, home))
        serve_once(env)
    shutil.rmtree(home, ignore_errors=True)
    print(f"{len(failures)} failed" if failures else "every command ran without a traceback")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
