"""The bench command: pipeline and local search benchmarks, with their targets."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

import research_studio
from research_studio.core.errors import ConfigError
from research_studio.faces.cli import common


def _checkout() -> Path | None:
    """The source checkout this very package runs from (an editable install or src/ on the
    path), or None: the bench is never looked for in the working directory, whose `benchmarks`
    package could be anyone's code."""
    root = Path(research_studio.__file__).resolve().parents[2]
    own = (root / "benchmarks" / "__init__.py").is_file() and (root / "pyproject.toml").is_file()
    return root if own else None


def _benchmarks() -> tuple[Any, Any, Any]:
    """The checkout's top-level `benchmarks` package: it is not installed with the product."""
    root = _checkout()
    if root is None:
        raise ConfigError(
            "the bench needs a source checkout: install it from one with pip install -e . "
            "(the benchmarks and tests folders are not installed with the package)"
        )
    if sys.path[:1] != [str(root)]:  # ahead of the working directory `python -c` puts first
        sys.path.insert(0, str(root))
    modules = tuple(
        importlib.import_module(f"benchmarks.{name}") for name in ("bench", "harness", "results")
    )
    if any(root not in Path(module.__file__ or "").resolve().parents for module in modules):
        raise ConfigError(f"another benchmarks package shadows the checkout's at {root}")
    return modules  # type: ignore[return-value]


def _embedded_model(as_json: bool) -> None:
    from rich.table import Table

    with common.user_errors():
        _benchmarks()  # the checkout's benchmarks package on the path, or a one-line refusal
        measured = importlib.import_module("benchmarks.embedded_model").run_embedded_model()
    if as_json:
        common.print_json(measured)
        return
    if "skipped" in measured:
        common.out.print(f"Embedded model: skipped ({measured['skipped']})", markup=False)
        return
    table = Table(title=f"Embedded model, cold process ({measured['binding']})")
    for column in ("threads", "load s", "tokens/s", "prompt tok/s", "valid JSON", "peak RSS MiB"):
        table.add_column(column, justify="right")
    table.add_column("load average")
    for run in measured["runs"]:
        if "error" in run:
            common.out.print(f"{run['threads']} thread(s): {run['error']}", markup=False)
            continue
        table.add_row(
            str(run["threads"]),
            f"{run['load_s']:.1f}",
            f"{run['free_text']['tokens_per_s']:.1f}",
            f"{run['free_text']['prompt_tokens_per_s']:.1f}",
            f"{run['structured']['valid']}/{run['structured']['calls']}",
            f"{run['peak_rss_mib']:.0f}",
            f"{run['load_before']:.1f}",
        )
    common.out.print(table)


def bench(
    suite: Annotated[
        str | None,
        typer.Argument(
            help="'verify' to measure the support check on a labelled file (FILE.jsonl); "
            "omitted: the pipelines and local search.",
            show_default=False,
        ),
    ] = None,
    labelled: Annotated[
        Path | None,
        typer.Argument(
            help="With 'verify': rows of claim, evidence sentences and label (as in WiCE).",
            show_default=False,
        ),
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="With 'verify': the first N rows only.")
    ] = None,
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
    embedded_model: Annotated[
        bool,
        typer.Option(
            "--embedded-model",
            help="Only the embedded model, cold: load, tokens/s with 1 and 2 threads, JSON.",
        ),
    ] = False,
    odr_python: Annotated[
        str | None,
        typer.Option(
            "--odr-python",
            help="The Python of a virtual environment with open_deep_research: its cold runs "
            "are measured paired with ours, over the same local web.",
        ),
    ] = None,
    as_json: common.JsonFlag = False,
) -> None:
    """Measure the pipelines (calls, tokens, wall time vs critical path) and local search speed;
    `bench verify FILE.jsonl` measures the support check on labelled claims instead."""
    from rich.table import Table

    if suite is not None:
        _bench_verify(suite, labelled, limit, as_json)
        return
    if embedded_model:
        _embedded_model(as_json)
        return
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
            odr_python=odr_python,
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
        if "odr" in cold:
            odr = cold["odr"]
            common.out.print(
                f"open_deep_research {odr['version']}, paired in this session: {odr['cpu_s']} "
                f"CPU-s, peak PSS {odr['peak_pss_mb']} MiB, start → first model call "
                f"{odr['first_model_call_s']} s; ours / ODR per pair (median): CPU "
                f"{cold['paired']['cpu_ratio']}, PSS {cold['paired']['pss_ratio']}",
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


def _bench_verify(suite: str, labelled: Path | None, limit: int | None, as_json: bool) -> None:
    """Balanced accuracy, recall of each side, refusals by reason and CPU per check."""
    from rich.table import Table

    with common.user_errors():
        if suite != "verify":
            raise ConfigError(
                f"unknown bench '{suite}': the one named bench is 'verify FILE.jsonl'"
            )
        if labelled is None:
            raise ConfigError("bench verify needs a labelled file: bench verify FILE.jsonl")
        from research_studio.evaluation.support_bench import bench_verify

        results = bench_verify(labelled, limit=limit)
    if as_json:
        common.print_json(results)
        return
    common.out.print(
        f"{results['claims']} claims ({results['supported']} supported) from {results['file']}",
        markup=False,
    )
    table = Table(title="Support check: 'supported' against the rest")
    for column in ("claims", "n", "balanced accuracy", "recall supported", "recall unsupported"):
        table.add_column(column, justify="left" if column == "claims" else "right")
    for name, row in [("all", results), *results["halves"].items()]:
        table.add_row(
            name,
            str(row["claims"]),
            f"{row['balanced_accuracy']:.3f}",
            f"{row['recall_supported']:.3f}",
            f"{row['recall_unsupported']:.3f}",
        )
    common.out.print(table)
    reasons = Table(title="Verdicts by gold label and the check's first reason")
    for column in ("label", "verdict or reason", "claims"):
        reasons.add_column(column, justify="right" if column == "claims" else "left")
    for label, counts in results["by_reason"].items():
        for reason, count in counts.items():
            reasons.add_row(label, reason, str(count))
    common.out.print(reasons)
    cpu = results["cpu_ms_per_check"]
    common.out.print(
        f"CPU per check: mean {cpu['mean']} ms, p50 {cpu['p50']} ms, p95 {cpu['p95']} ms; "
        f"pages of 50-150 sentences {cpu['mean_pages_of_50_to_150_sentences']} ms "
        f"(median page {cpu['median_sentences']} sentences)",
        markup=False,
    )
