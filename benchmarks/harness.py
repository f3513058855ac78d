"""Pipeline benchmarks: every variant on fixed queries against the local web, with simulated latency."""

from __future__ import annotations

import statistics
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

from benchmarks.critical_path import Interval, critical_path
from benchmarks.process_tree import measured
from research_studio.core.config import Configuration
from research_studio.pipelines.registry import compile_pipeline, initial_state, specs
from research_studio.services.clients import open_services

QUERIES = (
    "solid-state battery electrolytes and dendrites",
    "coral bleaching heat stress and reef recovery",
    "Python programming language history and new features",
)
# What the registry says to measure: "<pipeline>-<mode>" when a pipeline has two bench modes.
VARIANTS = {
    (f"{spec.name}-{mode}" if len(spec.bench_modes) > 1 else spec.name): (spec.name, mode)
    for spec in specs()
    for mode in spec.bench_modes
}
PAGE_PREFIXES = ("/pages/", "/docs/", "/text/")
# Model calls that run inside workers/subagents (in parallel in multi-agent runs).
PARALLEL_CALLS = ("llm:PageExtraction", "llm:SubagentExtraction")


@dataclass
class Latency:
    """Simulated service times."""

    llm_s: float = 0.3
    llm_per_token_s: float = 0.002
    search_s: float = 0.15
    page_s: float = 0.1


@dataclass
class RunMeasure:
    """One pipeline run, measured."""

    variant: str
    query: str
    wall_s: float
    critical_path_s: float
    efficiency: float
    llm_calls: int
    llm_calls_by_node: dict[str, int]
    prompt_tokens: int
    completion_tokens: int
    searches: int
    fetches: int
    sources: int
    evidence: int
    critical_chain: list[str] = field(default_factory=list)
    cpu_s: float = 0.0  # the whole process tree (this process, parser workers)
    peak_pss_mb: float = 0.0
    load: float = 0.0  # the machine's 1-minute load average at the end of the run


def _intervals(model_calls: list[Any], requests: list[Any], since: float) -> list[Interval]:
    intervals = [
        Interval(f"llm:{call.schema_name or 'text'}", call.started, call.ended)
        for call in model_calls
        if call.started >= since
    ]
    for request in requests:
        if request.started < since:
            continue
        if request.path.startswith("/search") or request.path.startswith("/tavily"):
            intervals.append(Interval("search", request.started, request.ended))
        elif request.path.startswith(PAGE_PREFIXES):
            intervals.append(Interval("fetch", request.started, request.ended))
    return intervals


async def run_once(
    web: FakeWeb, variant: str, query: str, latency: Latency, workers: int
) -> RunMeasure:
    """Run one variant on one query, one research iteration, and measure it."""
    pipeline, mode = VARIANTS[variant]
    model = ResearchScript(coverage=[0.9], ready=[True]).model(
        latency_s=latency.llm_s, latency_per_token_s=latency.llm_per_token_s
    )
    spec = use_scripted_model(model, name=f"bench-{variant}")
    with tempfile.TemporaryDirectory() as cache:
        config = Configuration(
            model=spec,
            search="searxng",
            searxng_url=web.base_url,
            allow_private_networks=True,
            use_cache=False,
            cache_dir=Path(cache),
            max_iterations=1,
            max_subagents=workers,
            max_concurrent_llm_calls=max(8, 2 * workers),
        )
        web.clear_requests()
        started = time.monotonic()
        with measured() as usage:
            async with open_services(config) as services:
                services.parser.warm_up()  # as the runner does for web research
                graph = compile_pipeline(pipeline, None, interrupt_on_clarify=False)
                state = await graph.ainvoke(initial_state(pipeline, query, mode), context=config)
        wall = time.monotonic() - started
    intervals = _intervals(model.calls, web.requests, started)
    path, chain = critical_path(intervals)
    metadata = state["metadata"]
    return RunMeasure(
        variant=variant,
        query=query,
        wall_s=round(wall, 3),
        critical_path_s=round(path, 3),
        efficiency=round(wall / path, 3) if path else 0.0,
        llm_calls=metadata["llm_calls"],
        llm_calls_by_node=dict(metadata["llm_calls_by_node"]),
        prompt_tokens=metadata["prompt_tokens"],
        completion_tokens=metadata["completion_tokens"],
        searches=sum(1 for interval in intervals if interval.kind == "search"),
        fetches=sum(1 for interval in intervals if interval.kind == "fetch"),
        sources=len(state.get("sources", [])),
        evidence=len(state.get("evidence", [])),
        critical_chain=[f"{interval.kind} {interval.duration:.2f}s" for interval in chain],
        cpu_s=usage.cpu_s,
        peak_pss_mb=usage.peak_pss_mb,
        load=usage.load,
    )


def summarize(runs: list[RunMeasure]) -> dict[str, dict[str, Any]]:
    """Per variant: means over the queries, and calls by node summed."""
    summary: dict[str, dict[str, Any]] = {}
    for variant in VARIANTS:
        mine = [run for run in runs if run.variant == variant]
        if not mine:
            continue
        by_node: Counter[str] = Counter()
        for run in mine:
            by_node.update(run.llm_calls_by_node)
        summary[variant] = {
            "runs": len(mine),
            "wall_s": round(statistics.mean(run.wall_s for run in mine), 3),
            "critical_path_s": round(statistics.mean(run.critical_path_s for run in mine), 3),
            "efficiency": round(statistics.mean(run.efficiency for run in mine), 3),
            "llm_calls": round(statistics.mean(run.llm_calls for run in mine), 2),
            "llm_calls_by_node": {
                node: round(count / len(mine), 2) for node, count in sorted(by_node.items())
            },
            "prompt_tokens": round(statistics.mean(run.prompt_tokens for run in mine)),
            "completion_tokens": round(statistics.mean(run.completion_tokens for run in mine)),
            "searches": round(statistics.mean(run.searches for run in mine), 2),
            "fetches": round(statistics.mean(run.fetches for run in mine), 2),
            "cpu_s": round(statistics.mean(run.cpu_s for run in mine), 3),
            "peak_pss_mb": round(max(run.peak_pss_mb for run in mine), 1),
            "load": round(statistics.mean(run.load for run in mine), 2),
        }
    for variant, row in summary.items():
        # How much of the critical path is model calls outside the parallel research phase.
        serial = [
            float(step.rsplit(" ", 1)[1][:-1])
            for run in runs
            if run.variant == variant
            for step in run.critical_chain
            if step.startswith("llm:") and not step.startswith(PARALLEL_CALLS)
        ]
        row["serial_llm_s"] = round(sum(serial) / row["runs"], 3)
    if "standard-single" in summary and "standard-multi" in summary:
        # Paired: multi and single on the same question, one after the other (same load).
        single_wall = {run.query: run.wall_s for run in runs if run.variant == "standard-single"}
        summary["standard-multi"]["paired_wall_ratio"] = round(
            statistics.mean(
                run.wall_s / single_wall[run.query]
                for run in runs
                if run.variant == "standard-multi" and single_wall.get(run.query)
            ),
            3,
        )
        summary["standard-multi"]["speedup_vs_single"] = round(
            summary["standard-single"]["wall_s"] / summary["standard-multi"]["wall_s"], 3
        )
        summary["standard-multi"]["wall_ratio_to_single"] = round(
            summary["standard-multi"]["wall_s"] / summary["standard-single"]["wall_s"], 3
        )
    return summary


async def run_pipelines(
    queries: tuple[str, ...] = QUERIES, latency: Latency | None = None, workers: int = 4
) -> tuple[list[RunMeasure], dict[str, Any]]:
    """Every variant on every query against one local web."""
    latency = latency or Latency()
    runs = []
    with FakeWeb() as web:
        web.search_latency_s = latency.search_s
        web.page_latency_s = latency.page_s
        # Query by query, so each variant meets a question at about the same machine load.
        for query in queries:
            for variant in VARIANTS:
                runs.append(await run_once(web, variant, query, latency, workers))
    return runs, {"latency": asdict(latency), "workers": workers, "variants": summarize(runs)}


def settings_file(folder: Path, web: FakeWeb, workers: int, extra: str = "") -> Path:
    """A settings file that points a research-studio process at the local web (no cache)."""
    path = folder / "research-studio.toml"
    path.write_text(
        f'searxng_url = "{web.base_url}"\n'
        'search = "searxng"\n'
        "allow_private_networks = true\n"
        "use_cache = false\n"
        f'cache_dir = "{folder / "cache"}"\n'
        f'runs_dir = "{folder / "runs"}"\n'
        f"max_subagents = {workers}\n"
        f"max_concurrent_llm_calls = {max(8, 2 * workers)}\n" + extra
    )
    return path
