"""The bench command: pipeline and local search benchmarks, with their targets."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from research_studio.core.errors import ConfigError
from research_studio.faces.cli import common


def _benchmarks() -> tuple[Any, Any, Any]:
    """The top-level `benchmarks` package: it lives in a source checkout, not in the product."""
    # A console script's path starts at its own folder, not the working directory: the
    # checkout it is run from is looked in explicitly.
    root = str(Path.cwd())
    if (Path(root) / "benchmarks" / "__init__.py").is_file() and root not in sys.path:
        sys.path.insert(0, root)
    try:
        return tuple(  # type: ignore[return-value]
            importlib.import_module(f"benchmarks.{name}")
            for name in ("bench", "harness", "results")
        )
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith(("benchmarks", "tests")):
            raise
        raise ConfigError(
            "the bench needs a source checkout: run it from the repository root "
            "(the benchmarks and tests folders are not installed with the package)"
        ) from None


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
    skip_serve: Annotated[
        bool, typer.Option("--skip-serve", help="Skip serve throughput at 1/4/8 runs at once.")
    ] = False,
    million: Annotated[
        bool,
        typer.Option(
            "--million", help="Also time local search at 1,000,000 chunks (slow to index)."
        ),
    ] = False,
    results_file: Annotated[Path, typer.Option("--out", help="Where results.json goes.")] = Path(
        "benchmarks/results.json"
    ),
    markdown_file: Annotated[
        Path | None, typer.Option("--markdown", help="Write the performance page here too.")
    ] = None,
    as_json: common.JsonFlag = False,
) -> None:
    """Measure the pipelines (calls, tokens, wall time vs critical path) and local search speed."""
    with common.user_errors():
        bench_module, harness, results_module = _benchmarks()
        results = bench_module.run_bench(
            quick=quick,
            workers=workers,
            latency=harness.Latency(llm_latency, token_latency, search_latency, page_latency),
            pipelines=not skip_pipelines,
            local=not skip_local,
            million=million,
            status=common.err.status,
            serve=not skip_serve,
        )
        results_module.write_results(results, results_file, markdown_file)
    if as_json:
        common.print_json(results)
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
        common.out.print(table)
    if "cold_run" in results:
        cold = results["cold_run"]
        inside = results.get("pipelines", {}).get("variants", {}).get("standard-multi", {})
        common.out.print(
            f"Cold `research-studio run` (its own process, whole tree): {cold['cpu_s']} CPU-s, "
            f"peak PSS {cold['peak_pss_mb']} MiB, start → first model call "
            f"{cold['first_model_call_s']} s (median of {len(cold['runs'])}; load {cold['load']}); "
            f"in-process run, modules already imported: {inside.get('cpu_s')} CPU-s, "
            f"{inside.get('peak_pss_mb')} MiB (load {inside.get('load')})",
            markup=False,
        )
    if "cold_start" in results:
        start = results["cold_start"]
        common.out.print(
            f"Cold `verify` of a local file: {start['verify']['cpu_s']} CPU-s "
            f"(load {start['verify']['load']}); the heaviest `--help` "
            f"({start['help_max']['command']}): {start['help_max']['cpu_s']} CPU-s "
            f"(load {start['help_max']['load']})",
            markup=False,
        )
    if "serve" in results:
        for row in results["serve"]["steps"].values():
            common.out.print(
                f"Serve: {row['runs']} run(s) at once; {row['runs_per_min']} runs/min "
                f"({row['ratio_to_one']}× one), peak PSS {row['peak_pss_mb']} MiB "
                f"(load {row['load']})",
                markup=False,
            )
    if "local_search" in results:
        for row in results["local_search"]["sizes"].values():
            common.out.print(
                f"Local search: {row['chunks']:,} chunks; question p50 {row['query_p50_ms']} ms, "
                f"p95 {row['query_p95_ms']} ms (load {row['load_before']})",
                markup=False,
            )
    targets = Table(title="Targets")
    for column in ("target", "measured", "goal", "status"):
        targets.add_column(column)
    for column in ("load average",):
        targets.add_column(column)
    for name, value, goal, status, load in results_module.target_rows(results):
        targets.add_row(
            name,
            str(value),
            goal,
            f"[{'green' if status == 'met' else 'red' if status == 'missed' else 'dim'}]{status}[/]",
            str(load),
        )
    common.out.print(targets)
    common.out.print(f"Results: {results_file}" + (f", {markdown_file}" if markdown_file else ""))
