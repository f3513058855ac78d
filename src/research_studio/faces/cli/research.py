"""The research commands: run, resume, runs."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from research_studio.core.config import Configuration, load_configuration
from research_studio.core.errors import ConfigError, ResearchStudioError
from research_studio.faces.cli.common import (
    SEARCH_SETTINGS,
    AnswerOption,
    ConfigFileOption,
    JsonFlag,
    err,
    out,
    print_json,
    prompt_choice,
    run_async,
    setting_options,
    user_errors,
)
from research_studio.faces.cli.documents import indexing
from research_studio.faces.cli.progress import ProgressView
from research_studio.faces.cli.review import print_pending_review, reviewer
from research_studio.pipelines.registry import SINGLE_WORKER_PIPELINES, PipelineName
from research_studio.run.launch import RunSetup, prepare, resume_settings
from research_studio.run.runner import AskFn, Outcome, RunStopped, execute
from research_studio.run.runs import (
    RunFolder,
    find_run,
    list_runs,
)

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


def _note(line: str) -> None:
    """What the set-up chose and why, skipped files: dim, on stderr, never read as markup."""
    err.print(line, style="dim", highlight=False, markup=False)


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


# The settings `run` takes as flags, each generated from its declaration in core/config.py.
RUN_SETTINGS = (
    "model",
    "fast_model",
    "report_structure",
    "max_iterations",
    "max_researcher_iterations",
    "system_prompt",
    "review_plan",
    "since",
    "until",
    "language",
    "max_llm_calls",
    "max_tokens",
    "max_cost_usd",
    "max_wall_s",
    "docs",
    *SEARCH_SETTINGS,
    "checkpoints",
    "use_cache",
)


@setting_options(*RUN_SETTINGS)
def run(
    query: Annotated[str, typer.Argument(help="The research question.")],
    pipeline: Annotated[
        PipelineName,
        typer.Option(
            "--pipeline",
            help="standard, advanced, advanced-full (full 7-node trust engine), "
            "advanced-optimized (batched trust engine, early stops), or supervisor.",
        ),
    ] = "standard",
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
        PipelineName | None,
        typer.Option(
            "--compare-with",
            help="Also run this pipeline or variant on the question and compare their metrics.",
        ),
    ] = None,
    no_clarify: Annotated[
        bool, typer.Option("--no-clarify", help="Never ask a clarification question.")
    ] = False,
    answer: AnswerOption = None,
    out_dir: Annotated[
        Path | None, typer.Option("--out", help="Run folder (default: runs/<run-id>).")
    ] = None,
    plan_reply: Annotated[
        str | None,
        typer.Option(
            "--plan-reply", help="Reply to the plan review: approve, an edited list, or text."
        ),
    ] = None,
    as_json: JsonFlag = False,
    config_file: ConfigFileOption = None,
    *,
    overrides: dict[str, Any],
) -> None:
    """Research a question and write report.md, result.json and events.jsonl."""
    with user_errors():
        for name, text in (
            ("--system-prompt", overrides["system_prompt"]),
            ("--answer", answer),
            ("--plan-reply", plan_reply),
        ):
            if text is not None and not _is_utf8(text):
                raise ResearchStudioError(f"{name} holds bytes that are not valid UTF-8")
        if plan_reply is not None:
            overrides["review_plan"] = True
        if compare and compare_with:
            raise ConfigError("use --compare (single vs multi) or --compare-with, not both")
        for chosen in (pipeline, compare_with):
            if chosen and (single_agent or compare) and chosen not in SINGLE_WORKER_PIPELINES:
                flag = "--single-agent" if single_agent else "--compare"
                raise ConfigError(
                    f"{flag} does not apply to the {chosen} pipeline: it has no single-worker path"
                )
        mode = "single" if single_agent else "multi"
        if compare:
            plans = [(pipeline, "single"), (pipeline, "multi")]
        else:
            plans = [(name, mode) for name in (pipeline, compare_with) if name is not None]
        prepared = prepare(
            RunSetup(
                question=query,
                plans=plans,
                overrides=overrides,
                config_file=config_file,
                interactive_clarify=not no_clarify,
                out_dir=out_dir,
                note=_note,
                indexing=indexing,
            )
        )
    interactive = sys.stdin.isatty() and not no_clarify
    comparing = len(prepared) > 1
    outcomes = []
    for run_ in prepared:
        outcome = run_async(
            _execute(
                run_.folder,
                run_.config,
                initial=run_.initial,
                answer=answer,
                interactive=interactive,
                plan_reply=plan_reply,
            )
        )
        with user_errors():
            if not comparing:
                _report_outcome(run_.folder, outcome, as_json)
        outcomes.append((run_.folder, outcome))
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
