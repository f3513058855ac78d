"""Everything `research-studio bench` measures, as one results dictionary."""

from __future__ import annotations

import asyncio
import os
import pty
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.cold_run import run_cold, run_cold_paired
from benchmarks.harness import QUERIES, VARIANTS, Latency, run_pipelines
from benchmarks.local_search import MILLION, QUICK_SIZES, SIZES, run_local_search
from benchmarks.process_tree import command_cost, load, tree_cpu_s
from benchmarks.results import explain, machine, stamp

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
VERIFY_STATEMENT = "Green tea contains caffeine"
VERIFY_SOURCE = "# Tea\n\nGreen tea contains caffeine and is brewed at about 80 degrees Celsius.\n"


def cold_start() -> dict[str, Any]:
    """CPU-seconds and peak memory of `research-studio --help`, `--version`, every command's
    `--help` and `verify` of one sentence against a local file, and the time from starting
    `research-studio run` to its first progress line."""
    from research_studio.faces.cli import COMMANDS

    script = shutil.which("research-studio")
    base = (
        [script]
        if script
        else [sys.executable, "-c", "from research_studio.faces.cli import main; main()"]
    )
    commands = {name: command_cost([*base, name, "--help"]) for name in COMMANDS}
    heaviest = max(commands, key=lambda name: commands[name]["cpu_s"])
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "tea.md"
        source.write_text(VERIFY_SOURCE, encoding="utf-8")
        verify = command_cost([*base, "verify", VERIFY_STATEMENT, "--source", str(source)])
    return {
        "command": "research-studio" if script else "python -c (no console script installed)",
        "help": command_cost([*base, "--help"]),
        "version": command_cost([*base, "--version"]),
        "commands_help": commands,
        "help_max": {"command": heaviest, **commands[heaviest]},
        "verify": verify,
        "first_line": first_line(base),
    }


def first_line(base: list[str], repeats: int = 3) -> dict[str, Any]:
    """Median seconds (and CPU-seconds) from starting a run to its first line on stderr; the run
    is then stopped (what follows, the model and the web, is not part of a cold start)."""
    seconds, cpu, text = [], [], ""
    with tempfile.TemporaryDirectory() as folder:
        for index in range(repeats):
            command = [*base, "run", QUERIES[0], "--model", "openai:gpt-4o-mini", "--no-clarify"]
            # stderr is a terminal, as for a person: the run shows progress there only.
            leader, follower = pty.openpty()
            started = time.monotonic()
            process = subprocess.Popen(
                [*command, "--out", str(Path(folder) / f"run-{index}")],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=follower,
                env={**os.environ, "OPENAI_API_KEY": "sk-bench-never-used"},
                start_new_session=True,
            )
            os.close(follower)
            with os.fdopen(leader, encoding="utf-8", errors="replace") as terminal:
                text = _ANSI.sub("", terminal.readline()).strip()
            seconds.append(time.monotonic() - started)
            cpu.append(tree_cpu_s(process.pid))
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return {
        "seconds": round(statistics.median(seconds), 3),
        "cpu_s": round(statistics.median(cpu), 3),
        "line": text,
        "load": load(),
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
    odr_python: str | None = None,
) -> dict[str, Any]:
    """Run the chosen benchmarks; `status(text)` is a context manager that shows progress.
    With `odr_python` (the Python of a virtual environment with open_deep_research), the cold
    runs are paired with ODR's, interleaved over the same local web."""
    if odr_python:  # a wrong path fails now, in one line, not after the other benchmarks
        from benchmarks.odr import odr_version

        odr_version(odr_python)
    results: dict[str, Any] = {"date": stamp(), "machine": machine()}
    with status("Timing the cold start (--help, --version)…"):
        results["cold_start"] = cold_start()
    if pipelines:
        queries = QUERIES[:1] if quick else QUERIES
        with status(f"Running {len(VARIANTS)} pipeline variants on {len(queries)} queries…"):
            runs, summary = asyncio.run(run_pipelines(queries, latency, workers))
        results["pipelines"] = {**summary, "queries": len(queries), "runs": [vars(r) for r in runs]}
        if odr_python:
            from benchmarks.odr import run_paired

            with status(
                f"Running {len(queries)} cold standard multi runs, each paired with "
                "open_deep_research's, each its own process…"
            ):
                results["cold_run"] = run_paired(latency, workers, odr_python, queries)
        else:
            with status(f"Running {len(queries)} cold standard multi runs, each its own process…"):
                results["cold_run"] = run_cold(latency, workers, queries)
        rounds = 1 if quick else 2
        with status(f"Pairing cold standard single and multi runs on {len(queries)} queries…"):
            results["cold_pairs"] = run_cold_paired(latency, workers, queries, rounds)
    if serve:
        # Imported now: the web app's modules would otherwise count in the runs' PSS above.
        from benchmarks.serve import QUICK_STEPS, STEPS, run_serve

        steps = QUICK_STEPS if quick else STEPS
        with status(f"Running {', '.join(map(str, steps))} standard multi runs at once in serve…"):
            results["serve"] = run_serve(latency, workers, steps)
    if local:
        sizes = QUICK_SIZES if quick else SIZES
        if million:
            sizes = (*sizes, MILLION)
        with status(f"Indexing real text up to {sizes[-1]:,} chunks and timing questions…"):
            results["local_search"] = run_local_search(sizes)
        from benchmarks.mcp_local_search import SIZE, run_mcp_local_search

        chunks = sizes[0] if quick else SIZE
        with status(f"Timing MCP `search` calls over a folder of {chunks:,} chunks…"):
            results["mcp_local_search"] = run_mcp_local_search(chunks)
    results["notes"] = explain(results)
    return results
