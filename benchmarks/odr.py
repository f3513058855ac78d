"""open_deep_research (ODR), run cold beside ours: the comparator of the cold-run target.

ODR has no command line; a user runs its graph from Python. `PROGRAM` does that as a user would
(`deep_researcher.ainvoke` on the question with a configuration), in the Python of ODR's own
virtual environment, as its own process under the same subreaper launcher as our cold run, over
the same local web: its model is the local web's OpenAI-compatible endpoint, answered by
`SchemaResponder` (a script that reads ODR's tools and schemas, not its prompts) after the same
simulated latency as ours; its search is the local web's Tavily (the real /search protocol over
the same pages our SearXNG serves). ODR offers no setting for Tavily's address, so the program
gives the Tavily client one default: the local web's.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from tests.doubles.fake_web import FakeWeb

from benchmarks.cold_run import (
    COMMAND,
    Slow,
    clean_environment,
    cold_run,
    local_web,
    measure_tree,
    medians,
)
from benchmarks.harness import QUERIES, Latency
from benchmarks.schema_responder import SchemaResponder
from research_studio.core.errors import ConfigError

MODEL = "openai:fake-model"
# One research unit that searches once, to compare with our one-iteration standard multi run:
# no clarifying question; the supervisor may start one unit; ODR counts the supervisor's first
# call as an iteration, so 2 is the fewest that runs any research (the second call ends it);
# a researcher gets 2 model calls (a search, then ResearchComplete), then compresses.
SETTINGS: dict[str, object] = {
    "allow_clarification": False,
    "search_api": "tavily",
    "max_concurrent_research_units": 1,
    "max_researcher_iterations": 2,
    "max_react_tool_calls": 2,
    "research_model": MODEL,
    "summarization_model": MODEL,
    "compression_model": MODEL,
    "final_report_model": MODEL,
}
# Search queries per search call, as the responder writes them (ODR takes a list).
QUERIES_PER_SEARCH = 3

PROGRAM = """
import asyncio, json, os, sys
from langchain_core.messages import HumanMessage
from tavily import async_tavily
from open_deep_research.deep_researcher import deep_researcher

_init = async_tavily.AsyncTavilyClient.__init__
def _local(self, *args, **kwargs):
    kwargs.setdefault("api_base_url", os.environ["BENCH_TAVILY_URL"])
    _init(self, *args, **kwargs)
async_tavily.AsyncTavilyClient.__init__ = _local
question, out, settings = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
state = asyncio.run(deep_researcher.ainvoke(
    {"messages": [HumanMessage(content=question)]}, {"configurable": settings}))
with open(out, "w", encoding="utf-8") as report:
    report.write(str(state.get("final_report") or ""))
"""
_URL = re.compile(r"https?://[^\s<>\"')\]]+")


def odr_run(
    web: FakeWeb, query: str, latency: Latency, python: str, folder: Path
) -> dict[str, Any]:
    """One ODR run in its own process tree, measured as our cold run is."""
    web.chat.reset()
    model = Slow(SchemaResponder(query, list_items=QUERIES_PER_SEARCH), latency)
    web.chat.responder = model
    report = folder / "odr-report.md"
    environment = {
        **clean_environment(),
        "OPENAI_BASE_URL": web.url("/v1"),
        "OPENAI_API_BASE": web.url("/v1"),
        "OPENAI_API_KEY": "sk-bench-local",
        "TAVILY_API_KEY": "tvly-bench-local",
        "BENCH_TAVILY_URL": web.url("/tavily"),
        "LANGSMITH_TRACING": "false",
        "LANGCHAIN_TRACING_V2": "false",
    }
    command = [python, "-c", PROGRAM, query, str(report), json.dumps(SETTINGS)]
    measured = measure_tree(web, command, environment)
    text = report.read_text(encoding="utf-8") if report.is_file() else ""
    cited = {url.rstrip(".,;:") for url in _URL.findall(text)}
    return {
        **measured,
        "completion_tokens": model.completion_tokens,
        "cited_sources": len(cited),
        "report_chars": len(text),
    }


def odr_version(python: str) -> str:
    """The open_deep_research version that `python` imports; a one-line ConfigError when that
    Python cannot be run or has no open_deep_research."""
    program = "from importlib.metadata import version; print(version('open_deep_research'))"
    try:
        done = subprocess.run(
            [python, "-c", program],
            capture_output=True,
            text=True,
            check=False,
            env=clean_environment(),
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ConfigError(f"--odr-python {python}: cannot run it ({error})") from None
    if done.returncode != 0 or not done.stdout.strip():
        raise ConfigError(
            f"--odr-python {python}: open_deep_research is not installed there "
            "(pip install open-deep-research in that virtual environment)"
        )
    return done.stdout.strip()


def run_paired(
    latency: Latency,
    workers: int,
    python: str,
    queries: tuple[str, ...] = QUERIES,
    rounds: int = 1,
) -> dict[str, Any]:
    """Our cold run and ODR's, interleaved on the same questions over one local web: per query
    one pair, ours first in every other pair, so both sides meet the same load. A warm-up pair
    (not counted) first, so neither side pays byte compilation or a cold file cache."""
    ours: list[dict[str, Any]] = []
    theirs: list[dict[str, Any]] = []
    load_before = os.getloadavg()
    with local_web(latency) as web, tempfile.TemporaryDirectory() as scratch:
        cold_run(web, queries[0], latency, workers, _folder(Path(scratch) / "warm-ours"))
        odr_run(web, queries[0], latency, python, _folder(Path(scratch) / "warm-odr"))
        for index in range(rounds * len(queries)):
            query = queries[index % len(queries)]
            with tempfile.TemporaryDirectory() as folder:
                for side in ("ours", "odr") if index % 2 == 0 else ("odr", "ours"):
                    if side == "ours":
                        run = cold_run(web, query, latency, workers, Path(folder))
                        ours.append({"query": query, **run})
                    else:
                        run = odr_run(web, query, latency, python, Path(folder))
                        theirs.append({"query": query, **run})
    pairs = [
        {
            "query": mine["query"],
            "first": "ours" if index % 2 == 0 else "odr",
            "cpu_ratio": _ratio(mine["cpu_s"], other["cpu_s"]),
            "pss_ratio": _ratio(mine["peak_pss_mb"], other["peak_pss_mb"]),
            "wall_ratio": _ratio(mine["wall_s"], other["wall_s"]),
            "load": round((mine["load"] + other["load"]) / 2, 2),
        }
        for index, (mine, other) in enumerate(zip(ours, theirs, strict=True))
    ]
    return {
        "command": COMMAND,
        "latency": vars(latency),
        "workers": workers,
        **medians(ours),
        "odr": {
            "command": f"{python} -c <deep_researcher.ainvoke(question, configuration)>",
            "version": odr_version(python),
            "settings": SETTINGS,
            "queries_per_search": QUERIES_PER_SEARCH,
            **medians(theirs),
        },
        "pairs": pairs,
        # 1-, 5- and 15-minute load averages (as `uptime` gives them) before and after the pairs.
        "load_averages": {
            "before": [round(value, 2) for value in load_before],
            "after": [round(value, 2) for value in os.getloadavg()],
        },
        "paired": {
            key: _median([pair[key] for pair in pairs])
            for key in ("cpu_ratio", "pss_ratio", "wall_ratio")
        },
    }


def _folder(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def _ratio(ours: float | None, theirs: float | None) -> float | None:
    return round(ours / theirs, 3) if ours is not None and theirs else None


def _median(values: list[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return round(statistics.median(present), 3) if present else None
