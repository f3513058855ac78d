"""The research commands: run, resume, runs."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from research_studio.core.config import (
    Configuration,
    LoadedConfiguration,
    load_configuration,
)
from research_studio.core.errors import ConfigError, ResearchStudioError
from research_studio.faces.cli.common import (
    AnswerOption,
    ConfigFileOption,
    FastModelOption,
    FormatOption,
    IterationsOption,
    JsonFlag,
    ModelOption,
    NoCacheFlag,
    PrivateOption,
    SearchOption,
    SearxngOption,
    TavilyUrlOption,
    err,
    out,
    print_json,
    prompt_choice,
    run_async,
    user_errors,
)
from research_studio.faces.cli.documents import DocsOption, update_index
from research_studio.faces.cli.progress import ProgressView
from research_studio.faces.cli.review import print_pending_review, reviewer
from research_studio.pipelines.registry import (
    check_name,
    help_text,
    initial_state,
    names,
    single_worker_names,
)
from research_studio.run.launch import check_run, new_folder, resume_settings
from research_studio.run.runner import AskFn, Outcome, RunStopped, execute
from research_studio.run.runs import (
    RunFolder,
    find_run,
    list_runs,
)
from research_studio.services.extraction import choose_extraction
from research_studio.services.resolution import ModelChoice, resolve
from research_studio.sources.search import SearchChoice

METRICS = (
    "iterations",
    "coverage",
    "confidence",
    "sources_count",
    "evidence_count",
    "verified_quotes",
    "cited_sources",
    "searches",
    "fetches",
    "llm_calls",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
    "stop_reason",
    "elapsed_s",
    "attempts",
    "llm_calls_all_attempts",
)


class PipelineOption(typer.models.OptionInfo):
    """--pipeline: its choices and help are read from the registry each time the CLI is built."""

    def __init__(self, intro: str) -> None:
        # typer.Option's own defaults, without calling OptionInfo's setters twice.
        self.__dict__.update(vars(typer.Option("--pipeline", parser=check_name)))
        self.intro = intro

    @property
    def help(self) -> str:
        return f"{self.intro} {help_text()}."

    @help.setter
    def help(self, value: str | None) -> None:
        """Typer sets it once while building; the registry decides it."""

    @property
    def metavar(self) -> str:
        return "<" + "|".join(names()) + ">"

    @metavar.setter
    def metavar(self, value: str | None) -> None:
        """As help."""


def _announce(config: Configuration, model: ModelChoice, search: SearchChoice) -> None:
    """Say what was chosen and why, before any work."""
    fast = f" (fast: {model.fast_model})" if model.fast_model != model.model else ""
    err.print(f"[dim]model: {model.model}{fast} — {model.reason}[/]", highlight=False)
    err.print(f"[dim]search: {search.name} — {search.reason}[/]", highlight=False)
    extraction = choose_extraction(config, model.fast_model or model.model)
    err.print(f"[dim]extraction: {extraction.describe()}[/]", highlight=False)


def _asker(view: ProgressView, *, answer: str | None, interactive: bool) -> AskFn:
    async def ask(question: str, options: list[str]) -> str | None:
        if answer is not None:
            return answer
        if not interactive:
            err.print(
                f"[yellow]The request is ambiguous ({question}); continuing without asking (no terminal).[/]"
            )
            return ""

        with view.paused():
            return await asyncio.to_thread(prompt_choice, question, options)

    return ask


async def _execute(
    folder: RunFolder,
    config: Configuration,
    *,
    initial: dict[str, Any] | None,
    answer: str | None,
    interactive: bool,
    plan_reply: str | None = None,
) -> Outcome:
    view = ProgressView(
        err, title=f"{folder.record.pipeline}/{folder.record.mode}: {folder.record.query}"
    )
    try:
        with view.shown():
            return await execute(
                folder,
                config,
                initial=initial,
                ask=_asker(view, answer=answer, interactive=interactive),
                on_event=view,
                answer=None if initial else answer,
                review=reviewer(view, reply=plan_reply, interactive=interactive),
            )
    except RunStopped as stopped:  # saved as interrupted: say how to resume, exit as signalled
        err.print(f"[yellow]{stopped}[/]", highlight=False)
        raise typer.Exit(code=128 + stopped.signum) from None


def _report_outcome(folder: RunFolder, outcome: Outcome, as_json: bool) -> None:
    if outcome.status == "awaiting_clarification":
        err.print(
            f"[yellow]Run {folder.record.run_id} waits for an answer to: {outcome.question}[/]"
        )
        err.print(f'Resume with: research-studio resume {folder.record.run_id} --answer "..."')
        raise typer.Exit(code=3)
    if outcome.status == "awaiting_review":
        err.print(f"[yellow]Run {folder.record.run_id} waits for your review:[/]")
        err.print(outcome.question, highlight=False, markup=False)
        err.print(
            f"Approve: research-studio resume {folder.record.run_id} --answer approve\n"
            f'Change:  research-studio resume {folder.record.run_id} --answer "your edit or feedback"',
            highlight=False,
            markup=False,
        )
        raise typer.Exit(code=3)
    if outcome.status == "awaiting_plan_review":
        print_pending_review(folder.record.run_id, outcome.question)
        raise typer.Exit(code=3)
    if outcome.status == "cancelled":
        err.print(f"[yellow]Run {folder.record.run_id} cancelled at plan review.[/]")
        raise typer.Exit(code=4)
    if outcome.status != "completed":
        raise ResearchStudioError(
            f"run {folder.record.run_id} ended as {outcome.status}: {folder.record.error or ''}"
        )
    metadata = outcome.state.get("metadata", {})
    if as_json:
        print_json(
            {"run_id": folder.record.run_id, "folder": str(folder.path), "metadata": metadata}
        )
        return
    table = Table(title=f"Run {folder.record.run_id}", show_header=False)
    for name in METRICS:
        table.add_row(name, str(metadata.get(name, "")))
    table.add_row("errors", str(len(metadata.get("errors", []))))
    for name, value in (metadata.get("grounding") or {}).items():
        table.add_row(name.replace("_", " "), str(value))
    for name, spend in (metadata.get("budgets") or {}).items():
        if spend["limit"] is not None:
            table.add_row(f"budget {name}", f"{spend['spent']} of {spend['limit']}")
    out.print(table)
    out.print(
        f"Report: [bold]{folder.path / 'report.md'}[/]  (result.json, events.jsonl beside it)"
    )


def _is_utf8(text: str) -> bool:
    """False for text holding undecodable bytes (argv decoded with surrogate escapes)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def run(
    query: Annotated[str, typer.Argument(help="The research question.")],
    pipeline: Annotated[str, PipelineOption("The pipeline:")] = "standard",
    single_agent: Annotated[
        bool,
        typer.Option(
            "--single-agent", help="One agent looping over searches (default: parallel workers)."
        ),
    ] = False,
    compare: Annotated[
        bool,
        typer.Option("--compare", help="Run single- and multi-agent and compare their metrics."),
    ] = False,
    compare_with: Annotated[
        str | None,
        typer.Option(
            "--compare-with",
            parser=check_name,
            help="Also run this pipeline or variant on the question and compare their metrics.",
        ),
    ] = None,
    model: ModelOption = None,
    fast_model: FastModelOption = None,
    report_format: FormatOption = None,
    iterations: IterationsOption = None,
    system_prompt: Annotated[
        str | None, typer.Option("--system-prompt", help="Extra instructions for the writer.")
    ] = None,
    no_clarify: Annotated[
        bool, typer.Option("--no-clarify", help="Never ask a clarification question.")
    ] = False,
    answer: AnswerOption = None,
    out_dir: Annotated[
        Path | None, typer.Option("--out", help="Run folder (default: runs/<run-id>).")
    ] = None,
    review_plan: Annotated[
        bool | None,
        typer.Option("--review-plan", help="Pause after planning to approve or edit the plan."),
    ] = None,
    plan_reply: Annotated[
        str | None,
        typer.Option(
            "--plan-reply", help="Reply to the plan review: approve, an edited list, or text."
        ),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option("--since", help="Oldest sources: a date (2024-01-01) or 'last 2 years'."),
    ] = None,
    until: Annotated[
        str | None, typer.Option("--until", help="Newest sources: a date (2025-06-30).")
    ] = None,
    language: Annotated[
        str | None,
        typer.Option("--language", help="Report language (de, German …); default: the question's."),
    ] = None,
    max_llm_calls: Annotated[
        int | None, typer.Option("--max-llm-calls", min=1, help="Budget: model calls.")
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option("--max-tokens", min=1, help="Budget: prompt + completion tokens.")
    ] = None,
    max_cost_usd: Annotated[
        float | None, typer.Option("--max-cost-usd", min=0.0, help="Budget: model cost in USD.")
    ] = None,
    max_wall_s: Annotated[
        float | None, typer.Option("--max-wall-s", min=0.0, help="Budget: seconds of research.")
    ] = None,
    search_provider: SearchOption = None,
    docs: DocsOption = None,
    searxng_url: SearxngOption = None,
    tavily_base_url: TavilyUrlOption = None,
    allow_private_networks: PrivateOption = None,
    checkpoints: Annotated[
        str | None,
        typer.Option(
            "--checkpoints",
            help="postgresql://user:password@host/db keeps checkpoints and store in PostgreSQL.",
        ),
    ] = None,
    no_cache: NoCacheFlag = False,
    as_json: JsonFlag = False,
    config_file: ConfigFileOption = None,
) -> None:
    """Research a question and write report.md, result.json and events.jsonl."""
    with user_errors():
        for name, text in (
            ("--system-prompt", system_prompt),
            ("--answer", answer),
            ("--plan-reply", plan_reply),
        ):
            if text is not None and not _is_utf8(text):
                raise ResearchStudioError(f"{name} holds bytes that are not valid UTF-8")
        overrides: dict[str, Any] = {
            "model": model,
            "fast_model": fast_model,
            "report_structure": report_format,
            "max_iterations": iterations,
            "max_llm_calls": max_llm_calls,
            "max_tokens": max_tokens,
            "max_cost_usd": max_cost_usd,
            "max_wall_s": max_wall_s,
            "system_prompt": system_prompt,
            "search": search_provider,
            "searxng_url": searxng_url,
            "tavily_base_url": tavily_base_url,
            "allow_private_networks": allow_private_networks,
            "use_cache": False if no_cache else None,
            "docs": [str(path.resolve()) for path in docs] if docs else None,
            "review_plan": True if plan_reply is not None else review_plan,
            "since": since,
            "until": until,
            "language": language,
            "checkpoints": checkpoints,
        }
        # Checked before any work, so a bad question leaves no run folder behind.
        checked = check_run(query, pipeline, overrides, config_file, docs or [])
        loaded_settings, question, window = checked.config, checked.question, checked.window
        if window:
            err.print(f"[dim]time range: {window.describe()}; undated sources kept, marked[/]")
        if compare and compare_with:
            raise ConfigError("use --compare (single vs multi) or --compare-with, not both")
        pipelines = [pipeline, compare_with] if compare_with else [pipeline]
        for name in pipelines:
            if (single_agent or compare) and name not in single_worker_names():
                flag = "--single-agent" if single_agent else "--compare"
                raise ConfigError(
                    f"{flag} does not apply to the {name} pipeline: it has no single-worker path"
                )
        config, model_choice, search_choice = resolve(loaded_settings)
        _announce(config, model_choice, search_choice)
        overrides.update(model=config.model, fast_model=config.fast_model, search=config.search)
        # Saved in run.json (password masked) so resume reopens the same checkpoint backend.
        overrides.update(checkpoints=config.checkpoints or "sqlite")
        if config.search == "local" and config.docs:
            update_index(config, list(config.docs))
        loaded = LoadedConfiguration(config=config)
        interactive = sys.stdin.isatty() and not no_clarify
        mode = "single" if single_agent else "multi"
        plans = (
            [(pipeline, "single"), (pipeline, "multi")]
            if compare
            else [(name, mode) for name in pipelines]
        )
        comparing = len(plans) > 1
        folders = [
            new_folder(
                loaded.config,
                out_dir,
                question,
                name,
                run_mode,
                overrides,
                not no_clarify,
                suffix=(f"-{run_mode}" if compare else f"-{name}") if comparing else "",
            )
            for name, run_mode in plans
        ]
    outcomes = []
    for folder in folders:
        initial = initial_state(folder.record.pipeline, question, folder.record.mode)
        outcome = run_async(
            _execute(
                folder,
                loaded.config,
                initial=initial,
                answer=answer,
                interactive=interactive,
                plan_reply=plan_reply,
            )
        )
        with user_errors():
            if not comparing:
                _report_outcome(folder, outcome, as_json)
        outcomes.append((folder, outcome))
    if comparing:
        _print_comparison(outcomes, as_json)


def _label(folder: RunFolder, outcomes: list[tuple[RunFolder, Outcome]]) -> str:
    """A run's column: its mode when one pipeline ran twice, else its pipeline (and mode)."""
    if len({other.record.pipeline for other, _ in outcomes}) == 1:
        return folder.record.mode
    return f"{folder.record.pipeline} ({folder.record.mode})"


def _print_comparison(outcomes: list[tuple[RunFolder, Outcome]], as_json: bool) -> None:
    rows = {
        _label(folder, outcomes): outcome.state.get("metadata", {}) for folder, outcome in outcomes
    }
    if as_json:
        print_json(
            {
                mode: {name: metadata.get(name) for name in METRICS}
                for mode, metadata in rows.items()
            }
        )
        return
    table = Table(title=" vs ".join(rows))
    table.add_column("metric")
    for mode in rows:
        table.add_column(mode, justify="right")
    for name in METRICS:
        table.add_row(name, *(str(metadata.get(name, "")) for metadata in rows.values()))
    out.print(table)
    for folder, _outcome in outcomes:
        out.print(f"{_label(folder, outcomes)}: {folder.path / 'report.md'}")


def resume(
    run_id: Annotated[
        str, typer.Argument(help="Run id (in the runs folder) or a run folder path.")
    ],
    answer: Annotated[
        str | None,
        typer.Option("--answer", help="Answer to a pending clarification or plan review."),
    ] = None,
    as_json: JsonFlag = False,
    config_file: ConfigFileOption = None,
) -> None:
    """Continue an interrupted run from its last checkpoint."""
    with user_errors():
        runs_dir = load_configuration(config_file=config_file).config.runs_dir
        folder = find_run(runs_dir, run_id)
        if folder.record.status == "completed":
            raise ResearchStudioError(
                f"run {folder.record.run_id} is already completed: {folder.path / 'report.md'}"
            )
        if folder.record.status == "running":  # its owner is alive, or on a host we cannot see
            owner = folder.record.owner
            where = f" (process {owner.pid} on {owner.host})" if owner else ""
            raise ResearchStudioError(
                f"run {folder.record.run_id} is still running{where}; "
                "let it finish or stop it before resuming"
            )
        config = resume_settings(folder, config_file)
    interactive = sys.stdin.isatty()
    err.print(f"[dim]resuming {folder.record.run_id} ({folder.record.status})[/]")
    outcome = run_async(
        _execute(folder, config, initial=None, answer=answer, interactive=interactive)
    )
    with user_errors():
        _report_outcome(folder, outcome, as_json)


def runs(
    as_json: JsonFlag = False,
    config_file: ConfigFileOption = None,
) -> None:
    """List runs with their status."""
    with user_errors():
        runs_dir = load_configuration(config_file=config_file).config.runs_dir
    records = list_runs(runs_dir)
    if as_json:
        print_json([record.model_dump() for record in records])
        return
    if not records:
        err.print(f"No runs in {runs_dir}.")
        return
    table = Table(title=f"Runs in {runs_dir}")
    for column in ("run id", "status", "pipeline", "mode", "created", "query"):
        table.add_column(column)
    for record in records:
        table.add_row(
            record.run_id,
            record.status,
            record.pipeline,
            record.mode,
            record.created,
            record.query[:60],
        )
    out.print(table)
