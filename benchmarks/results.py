"""Targets, machine facts, and the results files (results.json, performance.md)."""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
from pathlib import Path
from typing import Any

from research_studio.run.runs import write_atomically

TARGETS = (
    (
        "Multi-agent efficiency (wall / critical path)",
        ("pipelines", "variants", "standard-multi", "efficiency"),
        "<=",
        1.15,
    ),
    (
        "Multi-agent wall time / single-agent wall time",
        ("pipelines", "variants", "standard-multi", "wall_ratio_to_single"),
        "<=",
        0.6,
    ),
    (
        "Standard multi-agent LLM calls per report (4 workers, one iteration)",
        ("pipelines", "variants", "standard-multi", "llm_calls"),
        "<=",
        14,
    ),
    (
        "Advanced LLM calls, one iteration, 4 subagents",
        ("pipelines", "variants", "advanced", "llm_calls"),
        "<=",
        12,
    ),
    ("Local search p95 at 10,000+ chunks (ms)", ("local_search", "query_p95_ms"), "<=", 20.0),
)


# open_deep_research's published figure: tokens per report with GPT-4.1 at default settings.
ODR_TOKENS_PER_REPORT = 580_000


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f"{kib / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory": memory,
        "python": platform.python_version(),
        "system": platform.platform(),
    }


def explain(results: dict[str, Any]) -> list[str]:
    """Notes computed from the numbers: where the multi-agent time goes, and the bound it implies."""
    variants = (results.get("pipelines") or {}).get("variants", {})
    single, multi = variants.get("standard-single"), variants.get("standard-multi")
    notes = []
    if single and multi:
        floor = multi["serial_llm_s"] / single["wall_s"]
        notes.append(
            f"Multi-agent critical path: {multi['serial_llm_s']} s of {multi['critical_path_s']} s are model calls "
            "outside the workers (understand, plan, orchestrate, synthesize, write), which parallel workers cannot "
            f"shorten. Against the single-agent wall time of {single['wall_s']} s, the ratio could not fall below "
            f"{floor:.2f} even with an instantaneous research phase (Amdahl's law)."
        )
    for name, row in variants.items():
        notes.append(
            f"{name}: overhead beyond the critical path is {row['wall_s'] - row['critical_path_s']:.2f} s per run (efficiency {row['efficiency']})."
        )
    return notes


def _lookup(results: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = results
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def target_rows(results: dict[str, Any]) -> list[tuple[str, Any, str, str]]:
    """(target, measured, goal, met|missed|not run) for each target."""
    rows = []
    for name, path, operator, goal in TARGETS:
        value = _lookup(results, path)
        status = "not run" if value is None else ("met" if value <= goal else "missed")
        rows.append((name, value, f"{operator} {goal}", status))
    return rows


def write_results(results: dict[str, Any], json_path: Path, markdown_path: Path | None) -> None:
    """results.json, and the performance page with the latest numbers and the machine."""
    write_atomically(json_path, json.dumps(results, indent=2) + "\n")
    if markdown_path is not None:
        write_atomically(markdown_path, performance_page(results))


def performance_page(results: dict[str, Any]) -> str:
    """docs/performance.md."""
    info = results["machine"]
    lines = [
        "# Performance",
        "",
        f"Latest run: {results['date']} — `research-studio bench` (raw numbers in `benchmarks/results.json`).",
        "",
        f"Machine: {info['cpu']}, {info['cores']} cores, {info['memory']}, Python {info['python']}, {info['system']}.",
        "",
        "## Targets",
        "",
        "| Target | Measured | Goal | Status |",
        "|---|---|---|---|",
        *(
            f"| {name} | {value} | {goal} | {status} |"
            for name, value, goal, status in target_rows(results)
        ),
    ]
    pipelines = results.get("pipelines")
    if pipelines:
        latency = pipelines["latency"]
        lines += [
            "",
            "## Pipelines",
            "",
            f"Each variant runs one research iteration on {pipelines['queries']} fixed queries against the local web "
            f"(search {latency['search_s']} s, page {latency['page_s']} s) with a scripted model answering in "
            f"{latency['llm_s']} s + {latency['llm_per_token_s']} s per output token; {pipelines['workers']} workers. "
            "Means over the queries. The critical path is the heaviest chain of model calls, searches and fetches "
            "that did not overlap: the shortest the run could be with unlimited parallelism.",
            "",
            "| Variant | Wall s | Critical path s | Efficiency | LLM calls | Prompt tokens | Completion tokens | Searches | Fetches |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for name, row in pipelines["variants"].items():
            lines.append(
                f"| {name} | {row['wall_s']} | {row['critical_path_s']} | {row['efficiency']} | {row['llm_calls']} | {row['prompt_tokens']} | {row['completion_tokens']} | {row['searches']} | {row['fetches']} |"
            )
        lines += ["", "LLM calls by node (per run):", ""]
        for name, row in pipelines["variants"].items():
            lines.append(
                f"- {name}: "
                + ", ".join(f"{node} {count}" for node, count in row["llm_calls_by_node"].items())
            )
        lines += [
            "",
            "Tokens per report, next to open_deep_research's published "
            f"{ODR_TOKENS_PER_REPORT:,} tokens per report (GPT-4.1, default settings):",
            "",
            "| Variant | Tokens per report | Share of open_deep_research's |",
            "|---|---|---|",
        ]
        for name, row in pipelines["variants"].items():
            total = row["prompt_tokens"] + row["completion_tokens"]
            lines.append(f"| {name} | {total:,} | {total / ODR_TOKENS_PER_REPORT:.3f} |")
        multi = pipelines["variants"].get("standard-multi", {})
        if "speedup_vs_single" in multi:
            lines += [
                "",
                f"Multi-agent speed-up over single-agent: {multi['speedup_vs_single']}× (wall ratio {multi['wall_ratio_to_single']}).",
            ]
    local = results.get("local_search")
    if local:
        lines += [
            "",
            "## Local search",
            "",
            f"A generated corpus of {local['documents']} Markdown documents ({local['chunks']} chunks), SQLite FTS5 with BM25.",
            "",
            "| Measure | Value |",
            "|---|---|",
            f"| Index build | {local['build_s']} s ({local['documents_per_s']} documents/s, {local['chunks_per_s']} chunks/s) |",
            f"| Incremental re-check, nothing changed | {local['incremental_recheck_s']} s |",
            f"| Query latency p50 / p95 / max ({local['queries']} queries) | {local['query_p50_ms']} / {local['query_p95_ms']} / {local['query_max_ms']} ms |",
        ]
    notes = results.get("notes")
    if notes:
        lines += ["", "## Notes", "", *(f"- {note}" for note in notes)]
    return "\n".join(lines) + "\n"


def stamp() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
