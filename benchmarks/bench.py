"""Everything `research-studio bench` measures, as one results dictionary."""

from __future__ import annotations

import asyncio
import shutil
import sys
from typing import Any

from benchmarks.harness import QUERIES, VARIANTS, Latency, run_pipelines
from benchmarks.local_search import MILLION, QUICK_SIZES, SIZES, run_local_search
from benchmarks.process_tree import command_cost
from benchmarks.results import explain, machine, stamp
from benchmarks.serve import QUICK_STEPS, STEPS, run_serve


def cold_start() -> dict[str, Any]:
    """CPU-seconds and peak memory of `research-studio --help` and `--version`."""
    script = shutil.which("research-studio")
    base = (
        [script]
        if script
        else [sys.executable, "-c", "from research_studio.faces.cli import main; main()"]
    )
    return {
        "command": "research-studio" if script else "python -c (no console script installed)",
        "help": command_cost([*base, "--help"]),
        "version": command_cost([*base, "--version"]),
    }


def run_bench(
    *,
    quick: bool,
    workers: int,
    latency: Latency,
    pipelines: bool,
    local: bool,
    million: bool,
    status: Any,
    serve: bool = True,
) -> dict[str, Any]:
    """Run the chosen benchmarks; `status(text)` is a context manager that shows progress."""
    results: dict[str, Any] = {"date": stamp(), "machine": machine()}
    with status("Timing the cold start (--help, --version)…"):
        results["cold_start"] = cold_start()
    if pipelines:
        queries = QUERIES[:1] if quick else QUERIES
        with status(f"Running {len(VARIANTS)} pipeline variants on {len(queries)} queries…"):
            runs, summary = asyncio.run(run_pipelines(queries, latency, workers))
        results["pipelines"] = {**summary, "queries": len(queries), "runs": [vars(r) for r in runs]}
    if serve:
        steps = QUICK_STEPS if quick else STEPS
        with status(f"Running {', '.join(map(str, steps))} standard multi runs at once in serve…"):
            results["serve"] = run_serve(latency, workers, steps)
    if local:
        sizes = QUICK_SIZES if quick else SIZES
        if million:
            sizes = (*sizes, MILLION)
        with status(f"Indexing real text up to {sizes[-1]:,} chunks and timing questions…"):
            results["local_search"] = run_local_search(sizes)
    results["notes"] = explain(results)
    return results
