"""Local search as an MCP client pays for it: `search` calls to `research-studio mcp` over stdio,
interleaved with the same query asked of the index alone, so both see the same load.

The folder is grown to a number of chunks of real text (benchmarks/corpus.py) and given to each
call as `docs`, as a client names its documents folders; folder and index are kept under
benchmarks.corpus.CACHE (a 100,000-chunk build takes minutes on two busy cores), so a later run's
first call only re-checks the folder. The first call is timed apart; each later call is timed from
the client's request to its answer, through the MCP SDK's stdio client: the server's settings,
its one LocalSearch, the index query and the protocol's JSON both ways. Right before or after it
(the order alternates), the bench process asks its own `DocumentIndex` over the same files the
same query, as `LocalSearch` asks it (4 × the results wanted, scoped to the folder). The server's
CPU time per call (user + system, read from /proc) is beside the index's own CPU time per query:
CPU is far less sensitive than wall time to the other work on the machine.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.corpus import CACHE, Corpus, CorpusWriter, load_corpus, questions
from benchmarks.local_search import percentile
from benchmarks.process_tree import descendants, load, tree_cpu_s
from research_studio.sources.docindex import DocumentIndex

SIZE = 100_000
# Runs the server under cProfile, its statistics written where RESEARCH_STUDIO_PROFILE names.
_PROFILED = """
import cProfile, os, sys
from research_studio.faces.cli import main
profile = cProfile.Profile()
sys.argv = ["research-studio", "mcp"]
profile.enable()
try:
    main()
finally:
    profile.disable()
    profile.dump_stats(os.environ["RESEARCH_STUDIO_PROFILE"])
"""


def _kept_folder(corpus: Corpus, size: int, chunk_size: int) -> tuple[Path, Path]:
    """The documents folder of `size` chunks and the server's home, kept between runs."""
    home = CACHE / f"mcp-local-search-{size}-{chunk_size}"
    marker = home / "corpus.json"
    if not (marker.is_file() and json.loads(marker.read_text()).get("corpus") == corpus.name):
        shutil.rmtree(home, ignore_errors=True)
        CorpusWriter(corpus, home / "corpus", chunk_size).grow(size)
        marker.write_text(json.dumps({"corpus": corpus.name}))
    (home / "home").mkdir(exist_ok=True)
    return home / "corpus", home / "home"


def _figures(latencies: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(latencies), 2),
        "p95_ms": round(percentile(latencies, 0.95), 2),
        "max_ms": round(max(latencies), 2),
    }


async def _timed_calls(
    folder: Path, cache: Path, asked: list[str], limit: int, chunk_size: int, profile: Path | None
) -> dict[str, Any]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
        "HOME": str(cache),
        "XDG_CACHE_HOME": str(cache),
        "RESEARCH_STUDIO_SEARCH": "local",
        "RESEARCH_STUDIO_RUNS_DIR": str(cache / "runs"),
    }
    code = "from research_studio.faces.cli import main; main()"
    args = ["-c", code, "mcp"]
    if profile is not None:
        env["RESEARCH_STUDIO_PROFILE"] = str(profile)
        args = ["-c", _PROFILED]
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(cache))
    arguments = {"docs": [str(folder)], "max_results": limit}
    kept = (cache / "research-studio" / "documents.sqlite3").is_file()
    index = DocumentIndex.in_dir(cache / "research-studio", chunk_size=chunk_size)
    with (cache / "server.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            (server,) = descendants(os.getpid())
            started = time.perf_counter()
            first = await session.call_tool("search", {**arguments, "query": asked[0]})
            first_s = time.perf_counter() - started
            if first.is_error:
                raise RuntimeError(f"the first search failed: {first.content}")
            index.search(asked[0], limit * 4, [folder])  # opens the bench's own reader
            load_before = load()
            via_mcp, alone, alone_cpu, empty = [], [], 0.0, 0
            server_cpu = tree_cpu_s(server)
            for turn, question in enumerate(asked[1:]):
                for step in ("mcp", "index") if turn % 2 else ("index", "mcp"):
                    started, cpu = time.perf_counter(), time.thread_time()
                    if step == "index":
                        index.search(question, limit * 4, [folder])
                        alone.append((time.perf_counter() - started) * 1000)
                        alone_cpu += time.thread_time() - cpu
                        continue
                    answer = await session.call_tool("search", {**arguments, "query": question})
                    via_mcp.append((time.perf_counter() - started) * 1000)
                    if answer.is_error or not answer.content:
                        empty += 1
            server_cpu = tree_cpu_s(server) - server_cpu
    index.close()
    calls = len(via_mcp)
    return {
        "first_call_s": round(first_s, 2),
        "first_call_built_the_index": not kept,
        "queries": calls,
        "errors_or_empty": empty,
        "mcp": {**_figures(via_mcp), "server_cpu_ms_per_call": round(server_cpu * 1000 / calls, 2)},
        "index_alone": {**_figures(alone), "cpu_ms_per_query": round(alone_cpu * 1000 / calls, 2)},
        "load_before": load_before,
        "load_after": load(),
    }


def run_mcp_local_search(
    size: int = SIZE,
    queries: int = 100,
    chunk_size: int = 1000,
    limit: int = 5,
    profile: Path | None = None,
) -> dict[str, Any]:
    """p50/p95 of MCP `search` calls over a documents folder of `size` chunks, and of the index
    alone asked the same queries, interleaved; `profile`: the server's cProfile statistics."""
    corpus = load_corpus()
    asked = questions(corpus, queries + 1)
    folder, cache = _kept_folder(corpus, size, chunk_size)
    figures = asyncio.run(_timed_calls(folder, cache, asked, limit, chunk_size, profile))
    return {"corpus": corpus.name, "chunks": size, "limit": limit, **figures}


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("size", nargs="?", type=int, default=SIZE)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--profile", type=Path, help="write the server's cProfile statistics here")
    options = parser.parse_args()
    print(json.dumps(run_mcp_local_search(options.size, options.queries, profile=options.profile)))
