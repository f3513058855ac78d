"""Targets, machine facts, and the results files (results.json, performance.md)."""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
from pathlib import Path
from typing import Any

from research_studio.core.files import write_atomically

# open_deep_research, one run as its own process over the same kind of local web (issue 35,
# measured on a quiet machine): the cold run's targets when ODR was not measured alongside.
ODR_COLD_CPU_S = 2.5
ODR_COLD_PSS_MB = 114.0
# With `bench --odr-python`, the cold run's goals are ODR's figures from the same session.
_SAME_SESSION_GOALS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("cold_run", "cpu_s"): ("cold_run", "odr", "cpu_s"),
    ("cold_run", "peak_pss_mb"): ("cold_run", "odr", "peak_pss_mb"),
}

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
    (
        "Multi/single wall, paired on the same question",
        ("pipelines", "variants", "standard-multi", "paired_wall_ratio"),
        "<=",
        0.6,
    ),
    (
        "Multi/single wall, paired, each a cold `research-studio run` (what a user waits)",
        ("cold_pairs", "paired_wall_ratio"),
        "<=",
        0.6,
    ),
    (
        "Standard multi run, CPU-s of the whole process tree",
        ("pipelines", "variants", "standard-multi", "cpu_s"),
        "<=",
        4.0,
    ),
    (
        "Standard multi run, peak PSS across processes (MiB)",
        ("pipelines", "variants", "standard-multi", "peak_pss_mb"),
        "<=",
        250.0,
    ),
    (
        "Cold `research-studio run` (standard multi, its own process), CPU-s of the whole tree",
        ("cold_run", "cpu_s"),
        "<=",
        ODR_COLD_CPU_S,
    ),
    (
        "Cold `research-studio run` (standard multi, its own process), peak PSS of the tree (MiB)",
        ("cold_run", "peak_pss_mb"),
        "<=",
        ODR_COLD_PSS_MB,
    ),
    (
        "`serve`: throughput of 8 standard multi runs at once / one run",
        ("serve", "steps", "8", "ratio_to_one"),
        ">=",
        4.0,
    ),
    (
        "`serve`: peak PSS growth per extra concurrent run (MiB)",
        ("serve", "pss_growth_per_run_mb"),
        "<=",
        80.0,
    ),
    ("`--help` CPU-s", ("cold_start", "help", "cpu_s"), "<=", 0.3),
    ("Every command's `--help`: the most CPU-s", ("cold_start", "help_max", "cpu_s"), "<=", 0.3),
    (
        "`verify` of one sentence against a local file, cold CPU-s",
        ("cold_start", "verify", "cpu_s"),
        "<=",
        0.8,
    ),
    ("`--help` peak RSS (MiB)", ("cold_start", "help", "rss_mb"), "<=", 60.0),
    ("`--version` CPU-s", ("cold_start", "version", "cpu_s"), "<=", 0.5),
    (
        "`run`: seconds from start to the first progress line",
        ("cold_start", "first_line", "seconds"),
        "<=",
        1.0,
    ),
    (
        "Local search p95 at 100,000 chunks of real text (ms)",
        ("local_search", "sizes", "100000", "query_p95_ms"),
        "<=",
        20.0,
    ),
    (
        "MCP `search` over a documents folder of 100,000 chunks, p95 per call (ms)",
        ("mcp_local_search", "mcp", "p95_ms"),
        "<=",
        20.0,
    ),
    (
        "Local search p95 at 1,000,000 chunks of real text (ms)",
        ("local_search", "sizes", "1000000", "query_p95_ms"),
        "<=",
        100.0,
    ),
)

# Where the machine's load average sits beside each target's figure.
_LOAD_OF = {
    "pipelines": ("load",),
    "cold_start": ("load",),
    "local_search": ("load_before",),
    "serve": ("load",),
    "cold_run": ("load",),
    "cold_pairs": ("load",),
    "mcp_local_search": ("load_before",),
}


LOCAL_SEARCH_DESIGN = [
    "### Why local search works this way",
    "",
    "BM25 in SQLite FTS5 scores every chunk a query matches, so a query costs time in proportion to",
    "the chunks its words are found in; planning the query (the rarest four words under 2,000 chunks,",
    "else the common ones AND-ed in a bounded window) bounded that, but not enough. tantivy ranks with",
    "block-max WAND: it skips the blocks of postings that cannot reach the top k, so a question of",
    "twelve words costs little more than one of two. The options, measured on the same chunks of the",
    "same text and the same 200 questions (20 results each), one after the other on this machine, with",
    "its load average (2 shared cores; a load of 12 means six processes per core):",
    "",
    "| Option | Chunks | p50 ms | p95 ms | Load | Build s (load) | Size on disk |",
    "|---|---|---|---|---|---|---|",
    "| (a) FTS5, planned query (the previous code) | 100,000 | 7.9 | 23.5 | 3.6 | 19 (5.7) | 135 MB |",
    "| (a) FTS5, planned query | 100,000 | 48 | 138 | 6.5–7.3 | | |",
    "| (a) FTS5, planned query | 100,000 | 100 | 253 | 16.0–16.5 | | |",
    "| (a) FTS5, planned query | 1,191,215 | 88 | 223 | 3.6–3.4 | 1,406 (10.5) | 1.6 GB |",
    "| (a) FTS5, planned query | 1,191,215 | 413 | 1,039 | 10.3 | | |",
    "| (b) FTS5, rarest 3 words under 500 chunks, rank row ids only | 100,000 | 86 | 323 | 15.3–16.5 | | |",
    "| (b) FTS5, `detail=column`, planned query | 100,000 | 100 | 313 | 11.2–11.3 | 10 (5.7) | 129 MB |",
    "| (b) FTS5, every word OR-ed, `ORDER BY rank LIMIT 20` | 100,000 | 975 | 2,454 | 7.7–11.2 | | |",
    "| (c) tantivy 0.27, every word OR-ed (BM25, title 0.5) | 100,000 | 1.8 | 34 | 11.7 | 15 (5.6) | 84 MB |",
    "| (c) tantivy 0.27 | 100,000 | 22 | 90 | 16.6–16.7 | | |",
    "| (c) tantivy 0.27 | 1,191,215 | 93 | 211 | 12.0–11.7 | 667 (12.6) | 1.0 GB |",
    "| (c) tantivy as built (`DocumentIndex`, the bench above) | 119,105 | 2.7 | 7.5 | 4.3 | 28 (4.4) | |",
    "| (c) tantivy as built (`DocumentIndex`, the bench above) | 1,191,215 | 10.5 | 37.5 | 4.3 | 1,389 (14.9) | |",
    "",
    "(Rows without a build figure re-ran the index of the row above at another time, under another",
    "load. The first rows of (a), (b) and (c) query indexes built straight from the chunks, without",
    'reading files; the rows "as built" are the bench\'s, through `DocumentIndex.update` and `search`.)',
    "",
    "Chosen: tantivy (`sources/chunkstore.py`), for speed first: at a load of about 4 its p95 is",
    "7.5 ms at 100,000 chunks (FTS5: 23.5) and 37.5 ms at 1,191,215 chunks (FTS5: 223), within both",
    "targets, where FTS5 misses both; under heavy load it stays 3 to 5 times faster. Its index is",
    "smaller (84 MB against 135 MB, the",
    "chunk text included) and built in about the same time at 100,000 chunks, half the time at a",
    "million. The wheel is 5.2 MB (17 MB installed, abi3, no compiler needed). The documents stay in",
    "SQLite (`documents.sqlite3`: paths, hashes, text for `document()`); the chunks live in",
    "`documents.tantivy/` beside it. Several processes: SQLite's `BEGIN IMMEDIATE` write transaction",
    "is also what lets one process at a time hold tantivy's writer, so processes indexing the same",
    "folder still take turns; readers reload only when another process committed. The chunks are",
    "committed just before the documents; after a crash in between, chunks whose document id is",
    "unknown are ignored (ids are never reused). An index of the FTS5 format is rebuilt on the next",
    "update with a one-line notice.",
    "",
    "What it costs: a second store beside the SQLite file (the chunk text is kept in both: 1.2 GB of",
    "SQLite and 0.95 GB of tantivy at a million chunks), English stemming as before (FTS5 used porter),",
    "and a compiled dependency (abi3 wheels on PyPI). Under a load of 15 to 17 (eight sessions on two",
    "cores) p95 was 70 ms at 100,000 chunks: the targets hold on a machine that is not oversubscribed.",
    "Hybrid ranking: see below.",
    "",
    "### Hybrid search (`hybrid_search`, the `embeddings` extra)",
    "",
    "With `hybrid_search` on, `index` also stores each chunk's all-MiniLM-L6-v2 vector in a usearch",
    "HNSW index (`documents.vectors/` beside the SQLite file, float16, cosine), and a search fuses the",
    "BM25 top k with the vector top k by reciprocal rank (1 / (60 + rank), summed), so a chunk that",
    "shares no word with the question can be found. Measured 2026-11-26 02:35–02:51 UTC under a load",
    "of 8 (eight sessions on two cores), with `benchmarks/local_search.py`:",
    "",
    "| What | Size | p50 ms | p95 ms | Load | Build s (load) |",
    "|---|---|---|---|---|---|",
    "| BM25 alone (`run_local_search`) | 11,922 chunks | 0.66 | 9.21 | 9.3 | 8.1 (9.5) |",
    "| Hybrid, `run_local_search(hybrid=True)`, BLAS on one thread | 11,922 chunks | 144.7 | 236.5 | 8.1 | 68.8 (7.7) |",
    "| Hybrid, the same with OpenBLAS's default threads, before the MiniLM fix below | 11,922 chunks | 1,508 | 2,739 | 9.7 | 58.7 (9.3) |",
    "| MiniLM, one question embedded (single-threaded BLAS) | | 126 | | about 8 | |",
    "| Vector index alone: exact scan of a float16 matrix, memory-mapped | 100,000 vectors | 667 | 1,948 | 8.4 | |",
    "| Vector index alone: exact scan of an int8 matrix, memory-mapped | 100,000 vectors | 346 | 680 | 8.1 | |",
    "| Vector index alone: usearch 2.26 HNSW (int8 storage), memory-mapped view | 100,000 vectors | 1.44 | 25.3 | 8.1 | 1,314 (8.4, at nice 10) |",
    "| Vector index alone: exact scan of a float16 matrix, memory-mapped (5 questions) | 1,000,000 vectors | 2,994 | 3,654 (max) | 7.1 | |",
    "| Vector index alone: exact scan of an int8 matrix, memory-mapped (5 questions) | 1,000,000 vectors | 607 | 1,113 (max) | 6.6 | |",
    "",
    "The chunk vectors of the hybrid rows, and every vector of the vector-index rows, are random unit",
    "vectors (384 dimensions, MiniLM's): MiniLM on numpy embedded about 0.2 chunks of 1,000 characters",
    "per second here under that load (`minilm_rate`, multithreaded OpenBLAS, before the fix below), so 100,000 real chunks would take days; the",
    "questions are embedded by MiniLM for real. Search cost depends on how many vectors there are, not",
    "on what they mean; random vectors are HNSW's hardest case, so its recall against the exact top 20",
    "(0.075 on random int8 vectors) says nothing about real embeddings. The product stores float16",
    "(twice the size, the same graph walk). The 100,000-chunk hybrid row",
    "and usearch at 1,000,000 vectors were not measured before this round's deadline (`run_local_search",
    "(SIZES, hybrid=True)` and `run_vector_options()` measure them; the HNSW build of a million vectors",
    "takes most of an hour on two busy cores).",
    "",
    "Chosen: usearch (a manylinux wheel, no compiler; hnswlib on PyPI is an sdist that compiles). An",
    "exact scan reads every vector: at 100,000 it already costs 350–670 ms (numpy converts float16 and",
    "int8 to float32 block by block), ten times that at a million, where the graph visits a few",
    "thousand vectors whatever the size. What it costs: the file is rewritten whole and renamed over",
    "the old one in each write transaction of the document index (the SQLite `BEGIN IMMEDIATE` that",
    "also serialises tantivy's writer), so several processes take turns and readers map either the old",
    "file or the new one; a build writes the index once per 4 MB batch of text, which is what makes the",
    "10,000-chunk build 8 times slower than BM25's. Removing a document removes its vectors; a document",
    "changed by a process without hybrid search loses them until the next hybrid update, which embeds",
    "every document marked without vectors from its indexed chunks (no file is read again); an index",
    "of an earlier format, model or vector layout is redone with a one-line notice.",
    "",
    "Off by default, for the embedding cost: a question costs 130–240 ms of MiniLM on numpy on this",
    "busy machine, which is the hybrid p95 (the BM25 and HNSW parts are a few milliseconds), so the",
    "20 ms target holds for BM25 alone, not for hybrid search; and indexing with MiniLM is hundreds of",
    "times slower than BM25's. Multithreaded OpenBLAS made one question take 1.7–2.2 s under load",
    "(threads spinning against the other sessions): `OPENBLAS_NUM_THREADS=1` gives 126 ms.",
]

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


def target_rows(results: dict[str, Any]) -> list[tuple[str, Any, str, str, Any]]:
    """(target, measured, goal, met|missed|not run, load average then) for each target."""
    rows = []
    for name, path, operator, constant in TARGETS:
        value = _lookup(results, path)
        measured = (
            _lookup(results, _SAME_SESSION_GOALS[path]) if path in _SAME_SESSION_GOALS else None
        )
        same_session = isinstance(measured, int | float)
        goal = measured if same_session else constant
        reached = value is not None and (value >= goal if operator == ">=" else value <= goal)
        status = "not run" if value is None else ("met" if reached else "missed")
        load = _lookup(results, (*path[:-1], *_LOAD_OF[path[0]]))
        if load is None:  # a suite with one load for all its figures
            load = _lookup(results, (path[0], *_LOAD_OF[path[0]]))
        where = ""
        if path in _SAME_SESSION_GOALS:
            where = " (ODR, same session)" if same_session else " (ODR, issue 35, quiet)"
        measured_on = (results.get(path[0]) or {}).get("measured")
        if measured_on and value is not None:
            name = f"{name} (measured {measured_on}, kept: not rerun)"
        rows.append((name, value, f"{operator} {goal}{where}", status, load))
    return rows


# What a run of the bench measures, each its own part of results.json.
SUITES = (
    "cold_start",
    "pipelines",
    "cold_run",
    "cold_pairs",
    "serve",
    "local_search",
    "mcp_local_search",
)


def write_results(results: dict[str, Any], json_path: Path, markdown_path: Path | None) -> None:
    """results.json, and the performance page with the latest numbers and the machine.

    Nothing measured before is lost: a suite this run skipped keeps its last figures from the
    previous results.json (with the date they were taken), and the page's own sections that the
    bench does not write (measurements by hand, `bench verify`'s table) stay where they were."""
    previous = _read_json(json_path)
    for suite in SUITES:
        if suite not in results and isinstance(previous.get(suite), dict):
            # "measured" of a suite carried twice stays its first date
            results[suite] = {"measured": previous.get("date"), **previous[suite]}
    write_atomically(json_path, json.dumps(results, indent=2) + "\n")
    if markdown_path is not None:
        page = performance_page(results)
        if markdown_path.exists():
            page = with_hand_sections(page, markdown_path.read_text(encoding="utf-8"))
        write_atomically(markdown_path, page)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _sections(page: str) -> list[tuple[str, str]]:
    """The page cut before each `## ` heading: (heading, its text with its subsections)."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    for line in page.splitlines(keepends=True):
        if line.startswith("## "):
            sections.append((line.strip(), []))
        sections[-1][1].append(line)
    return [(heading, "".join(lines)) for heading, lines in sections]


# The sections the bench writes when it has their figures (never kept from an older page).
BENCH_SECTIONS = (
    "## Targets",
    "## Cold start",
    "## Pipelines",
    "## Cold run: what a user pays",
    "## Serve throughput",
    "## Local search",
    "## Notes",
)


def with_hand_sections(page: str, before: str) -> str:
    """The generated page with the sections of the page before it that the bench does not
    write, in their order, ahead of the notes."""
    generated = _sections(page)
    written = {heading for heading, _ in generated} | set(BENCH_SECTIONS)
    kept = [text for heading, text in _sections(before) if heading and heading not in written]
    if not kept:
        return page
    notes = next((i for i, (heading, _) in enumerate(generated) if heading == "## Notes"), None)
    at = len(generated) if notes is None else notes
    texts = [text for _, text in generated]
    texts[at:at] = [text if text.endswith("\n\n") else text.rstrip("\n") + "\n\n" for text in kept]
    return "".join(texts).rstrip("\n") + "\n"


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
        "Checked by the bench, never by timed tests. The machine's 1-minute load average is given",
        f"beside each figure: the {info['cores']} cores may be shared with other work.",
        "",
        "| Target | Measured | Goal | Status | Load average |",
        "|---|---|---|---|---|",
        *(
            f"| {name} | {value} | {goal} | {status} | {load} |"
            for name, value, goal, status, load in target_rows(results)
        ),
    ]
    cold = results.get("cold_start")
    if cold:
        lines += [
            "",
            "## Cold start",
            "",
            f"`{cold['command']} --help` / `--version`, median of 3, each waited for (CPU = user + system).",
            "",
            "| Command | CPU-s | Peak RSS MiB | Load average |",
            "|---|---|---|---|",
            *(
                f"| `--{name}` | {cold[name]['cpu_s']} | {cold[name]['rss_mb']} | {cold[name]['load']} |"
                for name in ("help", "version")
            ),
        ]
        verify = cold.get("verify")
        if verify:
            lines += [
                "",
                f'`{cold["command"]} verify "…" --source FILE` (one sentence, a local Markdown '
                f"file; median of 3): {verify['cpu_s']} CPU-s, peak RSS {verify['rss_mb']} MiB "
                f"(load average {verify['load']}).",
            ]
        helps = cold.get("commands_help")
        if helps:
            lines += [
                "",
                "Each command's `--help`, cold (median of 3):",
                "",
                "| Command | CPU-s | Peak RSS MiB | Load average |",
                "|---|---|---|---|",
                *(
                    f"| `{name} --help` | {row['cpu_s']} | {row['rss_mb']} | {row['load']} |"
                    for name, row in helps.items()
                ),
            ]
        first = cold.get("first_line")
        if first:
            lines += [
                "",
                f"`{cold['command']} run …` to its first progress line: {first['seconds']} s wall, "
                f"{first['cpu_s']} CPU-s (median of 3; load average {first['load']}): "
                f"“{first['line']}”.",
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
            "CPU-s are for the whole process tree (the run's process and its parser workers), "
            "PSS is the peak sum across those processes, sampled every 0.1 s; one parser pool serves every "
            "run of the process, so the first run also pays for starting it.",
            "",
            "| Variant | Wall s | Critical path s | Efficiency | LLM calls | Prompt tokens | Completion tokens | Searches | Fetches | CPU-s | Peak PSS MiB | Load average |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for name, row in pipelines["variants"].items():
            lines.append(
                f"| {name} | {row['wall_s']} | {row['critical_path_s']} | {row['efficiency']} | {row['llm_calls']} | {row['prompt_tokens']} | {row['completion_tokens']} | {row['searches']} | {row['fetches']} | {row.get('cpu_s')} | {row.get('peak_pss_mb')} | {row.get('load')} |"
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
                f"Multi-agent speed-up over single-agent: {multi['speedup_vs_single']}× (wall ratio {multi['wall_ratio_to_single']}; "
                f"paired on the same question: {multi.get('paired_wall_ratio')}).",
            ]
    lines += _cold_run_section(results.get("cold_run"), results.get("pipelines"))
    lines += _cold_pairs_section(results.get("cold_pairs"))
    lines += _serve_section(results.get("serve"))
    local = results.get("local_search")
    if local:
        lines += [
            "",
            "## Local search",
            "",
            f"Real text: {local['corpus']} ({local['corpus_characters']:,} characters). One folder grows to each "
            f"size in turn (past the real text, documents are made of its paragraphs drawn at random) and is "
            f"indexed incrementally (1,000,000 chunks: built once into its own folder under ~/.cache/research-studio-bench and kept); "
            f"{local['chunk_size']}-character chunks, documents in SQLite and chunks in tantivy (BM25). Each size is "
            f"timed on question-style queries asking for {local['limit']} chunks, e.g. "
            + "; ".join(f"“{question}”" for question in local["example_questions"])
            + ".",
            "",
            "| Chunks | Documents | Build s (load) | p50 ms | p95 ms | max ms | Load before / after |",
            "|---|---|---|---|---|---|---|",
            *(
                f"| {row['chunks']:,} | {row['documents']:,} | {row['build_s']} ({row['build_load']}) | "
                f"{row['query_p50_ms']} | {row['query_p95_ms']} | {row['query_max_ms']} | "
                f"{row['load_before']} / {row['load_after']} |"
                for row in local["sizes"].values()
            ),
            "",
            f"Incremental re-check with nothing changed: {local.get('incremental_recheck_s')} s.",
        ]
    if local:
        lines += ["", *LOCAL_SEARCH_DESIGN]
    notes = results.get("notes")
    if notes:
        lines += ["", "## Notes", "", *(f"- {note}" for note in notes)]
    return "\n".join(lines) + "\n"


def _cold_run_section(cold: dict[str, Any] | None, pipelines: dict[str, Any] | None) -> list[str]:
    """What a user pays: a run as its own process, beside the in-process figure."""
    if not cold:
        return []
    latency = cold["latency"]
    inside = ((pipelines or {}).get("variants") or {}).get("standard-multi") or {}
    return [
        "",
        "## Cold run: what a user pays",
        "",
        f"`{cold['command']}`: a standard multi run started as its own process, as a person "
        f"starts it, one research iteration, {cold['workers']} workers, on each bench query. The "
        "model is the local web's OpenAI-compatible endpoint answering a research script after "
        f"{latency['llm_s']} s + {latency['llm_per_token_s']} s per output token; search is the "
        f"local web's SearXNG ({latency['search_s']} s, pages {latency['page_s']} s). A launcher "
        "makes itself the subreaper of the run (PR_SET_CHILD_SUBREAPER), so every process the "
        "run leaves behind is re-parented to it and reaped: CPU-s are user + system of the whole "
        "tree (RUSAGE_CHILDREN); peak PSS is summed over the tree, sampled every 0.1 s. First "
        "model call: seconds from starting the process to the first chat request.",
        "",
        "| Query | Exit | CPU-s, whole tree | Peak PSS MiB | Wall s | Start → first model call s "
        "| Model calls | Sources cited | Load average |",
        "|---|---|---|---|---|---|---|---|---|",
        *(
            f"| {run['query']} | {run['exit']} | {run['cpu_s']} | {run['peak_pss_mb']} | "
            f"{run['wall_s']} | {run['first_model_call_s']} | {run['model_calls']} | "
            f"{run['cited_sources']} | {run['load']} |"
            for run in cold["runs"]
        ),
        "",
        "| Per report (median) | CPU-s | Peak PSS MiB | Start → first model call s | Load average |",
        "|---|---|---|---|---|",
        f"| Cold `research-studio run` (its own process; what a user pays) | {cold['cpu_s']} | "
        f"{cold['peak_pss_mb']} | {cold['first_model_call_s']} | {cold['load']} |",
        f"| In-process standard multi run (modules already imported; the pipelines table) | "
        f"{inside.get('cpu_s')} | {inside.get('peak_pss_mb')} | | {inside.get('load')} |",
        *_odr_rows(cold),
        f"| open_deep_research, its own process, quiet machine (issue 35) | {ODR_COLD_CPU_S} | "
        f"{ODR_COLD_PSS_MB} | | quiet |",
        *_odr_pairs(cold),
    ]


def _odr_rows(cold: dict[str, Any]) -> list[str]:
    """ODR's medians when it was measured in the same session, beside ours."""
    odr = cold.get("odr")
    if not odr:
        return []
    return [
        f"| open_deep_research {odr['version']}, its own process, measured in the same session "
        f"(paired, median of {len(odr['runs'])}) | {odr['cpu_s']} | {odr['peak_pss_mb']} | "
        f"{odr['first_model_call_s']} | {odr['load']} |",
    ]


def _loads(cold: dict[str, Any], when: str) -> str:
    return ", ".join(str(value) for value in (cold.get("load_averages") or {}).get(when, []))


def _odr_pairs(cold: dict[str, Any]) -> list[str]:
    """Each pair (ours and ODR's on one question, one right after the other), and the work."""
    odr = cold.get("odr")
    if not odr:
        return [
            "",
            "To measure open_deep_research beside it in the same session: `research-studio bench "
            "--odr-python VENV/bin/python`, VENV a virtual environment with "
            "`pip install open-deep-research`.",
        ]
    settings = ", ".join(f"{key} = {json.dumps(value)}" for key, value in odr["settings"].items())
    lines = [
        "",
        "### Paired with open_deep_research, same session",
        "",
        f"`research-studio bench --odr-python PYTHON` runs `{odr['command']}`: ODR's graph run "
        "from Python as a user runs it (ODR has no command "
        "line), in its own virtual environment, as its own process under the same subreaper "
        "launcher, over the same local web with the same model latency. Its model is answered by "
        "`benchmarks/schema_responder.py`, which reads the tools and the schema of each request, "
        "not ODR's prompts: a conversation calls the first tool with required arguments (a "
        "search, a research unit) until it holds one tool result, then the tool that says it is "
        "done; text and fields are the prompt's sentences that share words with the question, "
        f"citing their sources; a search asks up to {odr['queries_per_search']} queries. Its "
        "search is the local web's Tavily (`/tavily/search`, the same pages as our SearXNG, page "
        f"text returned with the results). ODR settings: {settings}. Each pair runs one "
        "question on both sides, one right after the other, the first side alternating; a "
        "warm-up pair before them is not counted. Byte code is written and read by both sides "
        "(PYTHONDONTWRITEBYTECODE is unset for them).",
        "",
        "| Query | First | CPU-s ours / ODR | Ratio | Peak PSS MiB ours / ODR | Ratio "
        "| Wall s ours / ODR | First model call s ours / ODR | Load average |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for pair, mine, other in zip(cold["pairs"], cold["runs"], odr["runs"], strict=True):
        lines.append(
            f"| {pair['query']} | {pair['first']} | {mine['cpu_s']} / {other['cpu_s']} | "
            f"{pair['cpu_ratio']} | {mine['peak_pss_mb']} / {other['peak_pss_mb']} | "
            f"{pair['pss_ratio']} | {mine['wall_s']} / {other['wall_s']} | "
            f"{mine['first_model_call_s']} / {other['first_model_call_s']} | {pair['load']} |"
        )
    paired = cold["paired"]
    lines += [
        "",
        f"Ours / ODR, median over the pairs: CPU {paired['cpu_ratio']}, peak PSS "
        f"{paired['pss_ratio']}, wall {paired['wall_ratio']}. Load averages (1, 5, 15 min) "
        f"before the pairs: {_loads(cold, 'before')}; after: {_loads(cold, 'after')}.",
        "",
        "| Per report (median) | Exit 0 | Model calls | Prompt tokens | Completion tokens "
        "| Searches | Page fetches | Sources cited |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, side in (("Research Studio standard multi", cold), ("open_deep_research", odr)):
        lines.append(
            f"| {name} | {side['completed']}/{len(side['runs'])} | {side['model_calls']} | "
            f"{side['prompt_tokens']} | {side['completion_tokens']} | {side['searches']} | "
            f"{side['page_fetches']} | {side['cited_sources']} |"
        )
    return lines


def _cold_pairs_section(pairs: dict[str, Any] | None) -> list[str]:
    """Standard single and multi, each a cold process, paired on the same question."""
    if not pairs:
        return []
    return [
        "",
        "### Multi against single, cold (paired)",
        "",
        f"`{pairs['command']}`: on each bench query a cold single-agent run and a cold multi-agent "
        f"run ({pairs['workers']} workers) one right after the other, which goes first "
        "alternating, so both meet the same load; the same local web and model as above. "
        "After start-up: wall from the first model call to the end (the imports before it are "
        "the same code on both sides, and the noisiest part under load).",
        "",
        "| Query | Single wall s | Multi wall s | Multi / single | After start-up | "
        "Single / multi first model call s | Sources cited single / multi | Load single / multi |",
        "|---|---|---|---|---|---|---|---|",
        *(
            f"| {pair['query']} | {pair['single']['wall_s']} | {pair['multi']['wall_s']} | "
            f"{pair.get('wall_ratio')} | {pair.get('after_start_ratio')} | "
            f"{pair['single']['first_model_call_s']} / {pair['multi']['first_model_call_s']} | "
            f"{pair['single']['cited_sources']} / {pair['multi']['cited_sources']} | "
            f"{pair['single']['load']} / {pair['multi']['load']} |"
            for pair in pairs["pairs"]
        ),
        "",
        f"Median of {pairs['completed']} pairs: multi / single wall **{pairs['paired_wall_ratio']}** "
        f"(range {pairs['ratio_range']}), after start-up {pairs['after_start_ratio']}; load "
        f"{pairs['load_range']}.",
    ]


def _serve_section(serve: dict[str, Any] | None) -> list[str]:
    if not serve:
        return []
    latency = serve["latency"]
    return [
        "",
        "## Serve throughput",
        "",
        "Standard multi runs started at once through `serve`'s HTTP API (uvicorn in the bench's "
        f"process, as `research-studio serve` runs it), one research iteration, {serve['workers']} "
        f"workers, model {latency['llm_s']} s + {latency['llm_per_token_s']} s per output token, "
        f"search {latency['search_s']} s, page {latency['page_s']} s; one warm-up run first. "
        "CPU-s and peak PSS are for the whole process tree (server, local web, parser workers).",
        "",
        "| Runs at once | Completed | Wall s | Runs/min | × one run | CPU-s | Peak PSS MiB | Load average |",
        "|---|---|---|---|---|---|---|---|",
        *(
            f"| {row['runs']} | {row['completed']} | {row['wall_s']} | {row['runs_per_min']} | "
            f"{row['ratio_to_one']} | {row['cpu_s']} | {row['peak_pss_mb']} | {row['load']} |"
            for row in serve["steps"].values()
        ),
        "",
        f"Peak PSS grows by {serve['pss_growth_per_run_mb']} MiB per extra concurrent run.",
    ]


def stamp() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
