"""The bench command: pipeline and local search benchmarks, with their targets."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from research_studio.faces.cli.common import JsonFlag, err, out, print_json, user_errors


def bench(
    quick: Annotated[
        bool, typer.Option("--quick", help="One query and a smaller search corpus.")
    ] = False,
    workers: Annotated[
        int, typer.Option("--workers", min=1, max=16, help="Parallel workers/subagents.")
    ] = 4,
    llm_latency: Annotated[
        float, typer.Option("--llm-latency", min=0.0, help="Seconds per model call.")
    ] = 0.3,
    token_latency: Annotated[
        float, typer.Option("--token-latency", min=0.0, help="Seconds per output token.")
    ] = 0.002,
    search_latency: Annotated[float, typer.Option("--search-latency", min=0.0)] = 0.15,
    page_latency: Annotated[float, typer.Option("--page-latency", min=0.0)] = 0.1,
    skip_pipelines: Annotated[bool, typer.Option("--skip-pipelines")] = False,
    skip_local: Annotated[bool, typer.Option("--skip-local")] = False,
    results_file: Annotated[Path, typer.Option("--out", help="Where results.json goes.")] = Path(
        "benchmarks/results.json"
    ),
    markdown_file: Annotated[
        Path | None, typer.Option("--markdown", help="Write the performance page here too.")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Measure the pipelines (calls, tokens, wall time vs critical path) and local search speed."""
    # The benchmarks live beside the package in a source checkout, not in the product.
    from benchmarks.harness import QUERIES, VARIANTS, Latency, run_pipelines
    from benchmarks.local_search import run_local_search
    from benchmarks.results import explain, machine, stamp, target_rows, write_results

    results: dict[str, Any] = {"date": stamp(), "machine": machine()}
    with user_errors():
        if not skip_pipelines:
            queries = QUERIES[:1] if quick else QUERIES
            latency = Latency(llm_latency, token_latency, search_latency, page_latency)
            with err.status(
                f"Running {len(VARIANTS)} pipeline variants on {len(queries)} queries…"
            ):
                runs, summary = asyncio.run(run_pipelines(queries, latency, workers))
            results["pipelines"] = {
                **summary,
                "queries": len(queries),
                "runs": [vars(run) for run in runs],
            }
        if not skip_local:
            documents = 600 if quick else 2500
            with err.status(f"Indexing {documents} generated documents and timing queries…"):
                results["local_search"] = run_local_search(documents=documents)
        results["notes"] = explain(results)
        write_results(results, results_file, markdown_file)
    if as_json:
        print_json(results)
        return
    if "pipelines" in results:
        table = Table(title="Pipelines (means per run)")
        for column in (
            "variant",
            "wall s",
            "critical path s",
            "efficiency",
            "LLM calls",
            "prompt tok",
            "completion tok",
            "searches",
            "fetches",
        ):
            table.add_column(column, justify="right" if column != "variant" else "left")
        for name, row in results["pipelines"]["variants"].items():
            table.add_row(
                name,
                *(
                    str(row[key])
                    for key in (
                        "wall_s",
                        "critical_path_s",
                        "efficiency",
                        "llm_calls",
                        "prompt_tokens",
                        "completion_tokens",
                        "searches",
                        "fetches",
                    )
                ),
            )
        out.print(table)
    if "local_search" in results:
        local = results["local_search"]
        out.print(
            f"Local search: {local['chunks']} chunks indexed at {local['documents_per_s']} documents/s; query p50 {local['query_p50_ms']} ms, p95 {local['query_p95_ms']} ms"
        )
    targets = Table(title="Targets")
    for column in ("target", "measured", "goal", "status"):
        targets.add_column(column)
    for name, value, goal, status in target_rows(results):
        targets.add_row(
            name,
            str(value),
            goal,
            f"[{'green' if status == 'met' else 'red' if status == 'missed' else 'dim'}]{status}[/]",
        )
    out.print(targets)
    out.print(f"Results: {results_file}" + (f", {markdown_file}" if markdown_file else ""))
