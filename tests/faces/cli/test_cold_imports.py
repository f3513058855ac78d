"""A cold command imports what it uses: each `--help`, `verify` of a local file, a standard run.

Each command runs in a fresh interpreter, as a person starts it; afterwards the probe lists which
of the heavy libraries ended up in `sys.modules`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from research_studio.faces.cli import COMMANDS
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.helpers import web_args

# Libraries a command path must not load unless it uses them on that path.
PROVIDER_SDKS = ["openai", "anthropic", "ollama", "langchain_openai", "langchain_anthropic"]
SERVERS = ["mcp", "fastapi", "uvicorn", "starlette", "sse_starlette"]
STORAGE = ["psycopg", "psycopg_pool"]
GRAPH = ["langgraph", "langchain_core", "langsmith", "opentelemetry"]
EXPORT = ["fpdf", "docx", "fontTools"]
PARSERS = ["trafilatura", "pypdf", "lxml", "httpx"]
EMBEDDINGS = ["numpy", "research_studio.llm.embeddings", "usearch"]
PARSER_PROCESS = ["research_studio.sources.parser_worker", "multiprocessing.forkserver"]
# What a run loads only when configured for it: MCP servers, the embedded model, a local index.
UNCONFIGURED = ["research_studio.sources.mcp_sources", "research_studio.llm.local_model", "tantivy"]
NOT_FOR_HELP = [*PROVIDER_SDKS, *SERVERS, *STORAGE, *GRAPH, *EXPORT, *PARSERS, *EMBEDDINGS]


_PROBE = """
import gc, glob, json, os, sys
from research_studio.faces.cli import main
asked = json.loads(sys.argv[1])
sys.argv = ["research-studio", *sys.argv[2:]]
code = 0
try:
    main()
except SystemExit as exc:
    code = exc.code or 0
answer = {"code": code, "loaded": sorted(n for n in asked["watched"] if sys.modules.get(n))}
if asked["children"]:  # processes this one started that are still alive (a parser worker would be)
    pids = []
    for listing in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
        with open(listing) as children:
            pids += children.read().split()
    answer["children"] = sorted(pids)
if asked["collector"]:  # the garbage collector's state at the command's end
    answer["collector"] = {"enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}
print(json.dumps(answer), file=sys.stderr)
"""


def probe(
    watched: list[str],
    *arguments: str,
    env: dict[str, str] | None = None,
    timeout: int = 60,
    children: bool = False,
    collector: bool = False,
) -> dict[str, object]:
    """Run the CLI cold with `arguments`; its exit code, which `watched` modules it loaded and,
    with `children`, the ids of the processes it started that are still alive at its end (with
    `collector`, the garbage collector's state then)."""
    asked = json.dumps({"watched": watched, "children": children, "collector": collector})
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, asked, *arguments],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=env,
    )
    answer: dict[str, object] = json.loads(done.stderr.strip().splitlines()[-1])
    return answer


@pytest.mark.parametrize("name", COMMANDS)
def test_a_commands_help_loads_none_of_the_heavy_libraries(name: str) -> None:
    assert probe(NOT_FOR_HELP, name, "--help") == {"code": 0, "loaded": []}


def test_verify_against_a_local_file_loads_only_the_support_check(tmp_path: Path) -> None:
    source = tmp_path / "tea.md"
    source.write_text("# Tea\n\nGreen tea contains caffeine and is brewed at 80 degrees.\n")
    answer = probe(NOT_FOR_HELP, "verify", "Green tea contains caffeine", "--source", str(source))
    assert answer == {"code": 0, "loaded": []}


def test_verify_of_an_unsupported_statement_still_loads_nothing_heavy(tmp_path: Path) -> None:
    source = tmp_path / "tea.md"
    source.write_text("# Tea\n\nGreen tea contains caffeine.\n")
    answer = probe(
        NOT_FOR_HELP, "verify", "Coffee is brewed at 80 degrees", "--source", str(source)
    )
    assert answer == {"code": 1, "loaded": []}


@pytest.mark.e2e
def test_a_standard_run_over_searxng_loads_no_unused_sdk_server_or_storage(
    web: FakeWeb, tmp_path: Path
) -> None:
    web.chat.responder = ResearchScript(coverage=[0.9], ready=[True]).chat_responder()
    env = {**os.environ, "OPENAI_BASE_URL": web.url("/v1"), "OPENAI_API_KEY": "sk-local-test"}
    # numpy and sqlite-vec came with LangGraph's SQLite store, which only the supervisor keeps.
    unused = [*PROVIDER_SDKS, *SERVERS, *STORAGE, *EXPORT, "numpy", "usearch", "sqlite_vec"]
    # Ordinary pages are parsed on the parser thread: no worker-process machinery, no PDF parser,
    # no MCP client, no embedded model and no local index (tantivy) unless the run uses them.
    unused += [*PARSER_PROCESS, "pypdf", *UNCONFIGURED]
    # httpx's command-line client and what it loads: a run speaks HTTP, it runs no httpx command.
    unused += ["httpx._main", "click", "pygments", "rich.syntax"]
    answer = probe(
        unused,
        "run",
        "coral bleaching heat stress",
        "--model",
        "openai:fake-model",
        "--no-clarify",
        "--iterations",
        "1",
        "--out",
        str(tmp_path / "run"),
        *web_args(web),
        env=env,
        timeout=300,
        children=True,
        collector=True,
    )
    # The OpenAI-compatible model is spoken to over httpx: no provider SDK is loaded at all; the
    # pages (all HTML) started no parser process.
    collector = answer.pop("collector")
    assert answer == {"code": 0, "loaded": [], "children": []}
    # The run's modules loaded with the collector paused and were then frozen (it never walks
    # them again); the collector is on again for what the run allocates.
    assert isinstance(collector, dict) and collector["enabled"] is True
    assert collector["frozen"] > 50_000
    assert (tmp_path / "run" / "report.md").is_file()
    assert not (tmp_path / "run" / "store.sqlite").exists()
