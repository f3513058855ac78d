"""Local search as an MCP client pays for it: `search` calls to `research-studio mcp` over stdio.

The folder is grown to a number of chunks of real text (benchmarks/corpus.py) and given to each
call as `docs`, as a client names its documents folders. The first call builds the index in the
server (timed apart); each later call is timed from the client's request to its answer, through
the MCP SDK's stdio client: the server's settings, its one LocalSearch, the index query and the
protocol's JSON both ways. The server re-checks the folder at most once per `index_recheck_s`.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.corpus import CorpusWriter, load_corpus, questions
from benchmarks.local_search import percentile
from benchmarks.process_tree import load

SIZE = 100_000


async def _timed_calls(folder: Path, cache: Path, asked: list[str], limit: int) -> dict[str, Any]:
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
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from research_studio.faces.cli import main; main()", "mcp"],
        env=env,
        cwd=str(cache),
    )
    arguments = {"docs": [str(folder)], "max_results": limit}
    with (cache / "server.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            started = time.perf_counter()
            first = await session.call_tool("search", {**arguments, "query": asked[0]})
            build_s = time.perf_counter() - started
            if first.is_error:
                raise RuntimeError(f"the first search failed: {first.content}")
            load_before = load()
            latencies, empty = [], 0
            for question in asked[1:]:
                started = time.perf_counter()
                answer = await session.call_tool("search", {**arguments, "query": question})
                latencies.append((time.perf_counter() - started) * 1000)
                if answer.is_error or not answer.content:
                    empty += 1
    return {
        "first_call_with_index_build_s": round(build_s, 2),
        "queries": len(latencies),
        "errors_or_empty": empty,
        "query_p50_ms": round(statistics.median(latencies), 2),
        "query_p95_ms": round(percentile(latencies, 0.95), 2),
        "query_max_ms": round(max(latencies), 2),
        "load_before": load_before,
        "load_after": load(),
    }


def run_mcp_local_search(
    size: int = SIZE, queries: int = 100, chunk_size: int = 1000, limit: int = 5
) -> dict[str, Any]:
    """p50/p95 of MCP `search` calls over a documents folder of `size` chunks."""
    corpus = load_corpus()
    asked = questions(corpus, queries + 1)
    with tempfile.TemporaryDirectory() as root:
        writer = CorpusWriter(corpus, Path(root) / "corpus", chunk_size)
        writer.grow(size)
        cache = Path(root) / "home"
        cache.mkdir()
        figures = asyncio.run(_timed_calls(writer.folder, cache, asked, limit))
    return {"corpus": corpus.name, "chunks": size, "limit": limit, **figures}


if __name__ == "__main__":
    import json

    print(json.dumps(run_mcp_local_search(int(sys.argv[1]) if len(sys.argv) > 1 else SIZE)))
