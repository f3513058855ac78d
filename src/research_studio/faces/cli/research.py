"""The research commands: run, resume, runs."""

from __future__ import annotations

import contextlib
import gc
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from research_studio.core.errors import ConfigError, ResearchStudioError
from research_studio.core.words import is_utf8
from research_studio.faces.cli import common
from research_studio.faces.cli.terminal import foreign, line
from research_studio.pipelines.registry import check_name, graph_builder, help_text, names

# The run set-up, the runner (LangGraph) and the report checks are imported where they are
# used, after `run` has printed its first line: importing them takes seconds on a busy machine.
# The progress view and rich's tables wait too: the first line needs neither. The configuration
# and the run folders (pydantic) wait for the command to run: its --help needs neither.
if TYPE_CHECKING:
    from research_studio.core.config import Configuration
    from research_studio.faces.cli.progress import ProgressView
    from research_studio.run.runner import AskFn, Outcome
    from research_studio.run.runs import RunFolder

VerboseFlag = Annotated[
    bool, typer.Option("--verbose", "-v", help="Also print every figure of the run.")
]


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


def _note(text: str) -> None:
    """What the set-up chose and why, skipped files: dim, on stderr, never read as markup."""
    common.err.print(foreign(text, "dim"), highlight=False)


def _asker(view: ProgressView, *, answer: str | None, interactive: bool) -> AskFn:
    async def ask(question: str, options: list[str]) -> str | None:
        if answer is not None:
            return answer
        if not interactive:
            common.err.print(
                foreign(
                    f"The request is ambiguous ({question}); continuing without asking "
                    "(no terminal).",
                    "yellow",
                )
            )
            return ""

        import asyncio

        with view.paused():
            return await asyncio.to_thread(common.prompt_choice, question, options)

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
    from research_studio.core.errors import RunStopped
    from research_studio.faces.cli import command_elapsed
    from research_studio.faces.cli.progress import ProgressView
    from research_studio.faces.cli.review import reviewer
    from research_studio.run.runner import execute

    view = ProgressView(
        common.err,
        title=f"{folder.record.pipeline}/{folder.record.mode}: {folder.record.query}",
        started=time.monotonic() - command_elapsed(),  # the command's clock, set-up included
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
        common.err.print(foreign(stopped, "yellow"), highlight=False)
        raise typer.Exit(code=128 + stopped.signum) from None


def _report_outcome(folder: RunFolder, outcome: Outcome, as_json: bool, verbose: bool) -> None:
    from research_studio.faces.cli.review import print_pending_review
    from research_studio.faces.cli.summary import closing_summary, metrics_table

    run_id = folder.record.run_id
    if outcome.status == "awaiting_clarification":
        common.err.print(
            line((f"Run {run_id} waits for an answer to: ", "yellow")),
            foreign(outcome.question or "", "yellow"),
            sep="",
        )
        common.err.print(line(f'Resume with: research-studio resume {run_id} --answer "..."'))
        raise typer.Exit(code=3)
    if outcome.status == "awaiting_review":
        common.err.print(line((f"Run {run_id} waits for your review:", "yellow")))
        common.err.print(foreign(outcome.question or "", newlines=True))
        common.err.print(line(f"Approve: research-studio resume {run_id} --answer approve"))
        common.err.print(
            line(f'Change:  research-studio resume {run_id} --answer "your edit or feedback"')
        )
        raise typer.Exit(code=3)
    if outcome.status == "awaiting_plan_review":
        print_pending_review(run_id, outcome.question)
        raise typer.Exit(code=3)
    if outcome.status == "cancelled":
        common.err.print(line((f"Run {run_id} cancelled at plan review.", "yellow")))
        raise typer.Exit(code=4)
    if outcome.status != "completed":
        raise ResearchStudioError(
            f"run {run_id} ended as {outcome.status}: {folder.record.error or ''}"
        )
    metadata = outcome.state.get("metadata", {})
    if as_json:
        common.print_json({"run_id": run_id, "folder": str(folder.path), "metadata": metadata})
        return
    if verbose:
        common.out.print(metrics_table(folder, metadata))
    from research_studio.faces.cli import command_elapsed

    common.out.print(closing_summary(folder, metadata, seconds=command_elapsed()))


@common.setting_options("cli.run")
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
    no_clarify: Annotated[
        bool, typer.Option("--no-clarify", help="Never ask a clarification question.")
    ] = False,
    answer: common.AnswerOption = None,
    out_dir: Annotated[
        Path | None, typer.Option("--out", help="Run folder (default: <runs_dir>/<run-id>).")
    ] = None,
    plan_reply: Annotated[
        str | None,
        typer.Option(
            "--plan-reply", help="Reply to the plan review: approve, an edited list, or text."
        ),
    ] = None,
    as_json: common.JsonFlag = False,
    verbose: VerboseFlag = False,
    config_file: common.ConfigFileOption = None,
    *,
    overrides: dict[str, Any],
) -> None:
    """Research a question and write report.md, result.json and events.jsonl."""
    from research_studio.core.config_loading import load_configuration
    from research_studio.run.runs import check_query

    with common.user_errors():
        for name, text in (
            ("--system-prompt", overrides["system_prompt"]),
            ("--answer", answer),
            ("--plan-reply", plan_reply),
        ):
            if text is not None and not is_utf8(text):
                raise ResearchStudioError(f"{name} holds bytes that are not valid UTF-8")
        if plan_reply is not None:
            overrides["review_plan"] = True
        if compare and compare_with:
            raise ConfigError("use --compare (single vs multi) or --compare-with, not both")
        mode = "single" if single_agent else "multi"
        if compare:
            plans = [(pipeline, "single"), (pipeline, "multi")]
        else:
            plans = [(name, mode) for name in (pipeline, compare_with) if name is not None]
        # The question checked as the set-up will check it, then shown before the slow imports.
        limit = load_configuration(config_file=config_file).config.max_query_chars
        _starting(check_query(query, max_chars=limit), plans)
        with _loading():
            from research_studio.faces.cli.documents import indexing
            from research_studio.run.launch import SINGLE_AGENT, RunSetup, prepare
            from research_studio.run.runner import execute  # noqa: F401  (loaded now: see above)

            for name, _mode in plans:
                with contextlib.suppress(Exception):  # the set-up reports it, in its words
                    graph_builder(name)

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
                single_agent="--compare" if compare else SINGLE_AGENT,
            )
        )
    interactive = sys.stdin.isatty() and not no_clarify
    comparing = len(prepared) > 1
    outcomes = []
    for run_ in prepared:
        outcome = common.run_async(
            _execute(
                run_.folder,
                run_.config,
                initial=run_.initial,
                answer=answer,
                interactive=interactive,
                plan_reply=plan_reply,
            )
        )
        with common.user_errors():
            if not comparing:
                _report_outcome(run_.folder, outcome, as_json, verbose)
        outcomes.append((run_.folder, outcome))
    if comparing:
        _print_comparison(outcomes, as_json)


@contextlib.contextmanager
def _loading() -> Iterator[None]:
    """The run's modules imported without the cyclic garbage collector, their objects then frozen
    (and without httpx's command-line client).

    A cold run loads about 1,500 modules: a million long-lived objects (classes, functions,
    schemas) and almost no garbage, which the collector would otherwise walk again and again while
    they load, in every full collection after and once more at exit (0.15-0.2 CPU-s a run). Frozen,
    it never walks them; what the run allocates is collected as before. In a process that has
    loaded them already (a second run in-process) there is nothing to gain: nothing changes.
    """
    cold = "research_studio.run.runner" not in sys.modules
    enabled = gc.isenabled()
    if cold:
        gc.disable()
        # httpx's own command-line client, which `import httpx` loads whenever click, pygments
        # and rich are installed (3.5 MiB, 0.04 CPU-s): a run never uses it. Kept out, httpx
        # defines the stand-in it defines when they are missing.
        sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
    try:
        yield
    finally:
        if cold:
            gc.freeze()
            if enabled:
                gc.enable()


def _starting(query: str, plans: list[tuple[str, str]]) -> None:
    """The run's first progress line, printed before the graph modules are imported.

    In a terminal only: a script reading stderr still gets a mistake as its one line.
    """
    if not common.err.is_terminal:
        return
    how = ", ".join(f"{name} ({mode})" for name, mode in plans)
    common.err.print(foreign(f"starting {how}: {query}", "dim"), highlight=False)


def _label(folder: RunFolder, outcomes: list[tuple[RunFolder, Outcome]]) -> str:
    """A run's column: its mode when one pipeline ran twice, else its pipeline (and mode)."""
    if len({other.record.pipeline for other, _ in outcomes}) == 1:
        return folder.record.mode
    return f"{folder.record.pipeline} ({folder.record.mode})"


def _print_comparison(outcomes: list[tuple[RunFolder, Outcome]], as_json: bool) -> None:
    from rich.table import Table

    from research_studio.faces.cli.summary import METRICS

    rows = {
        _label(folder, outcomes): outcome.state.get("metadata", {}) for folder, outcome in outcomes
    }
    if as_json:
        common.print_json(
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
    common.out.print(table)
    for folder, _outcome in outcomes:
        common.out.print(
            foreign(f"{_label(folder, outcomes)}: {folder.path.resolve() / 'report.md'}")
        )


def resume(
    run_id: common.RunIdArgument,
    answer: Annotated[
        str | None,
        typer.Option("--answer", help="Answer to a pending clarification or plan review."),
    ] = None,
    as_json: common.JsonFlag = False,
    verbose: VerboseFlag = False,
    config_file: common.ConfigFileOption = None,
) -> None:
    """Continue an interrupted run from its last checkpoint."""
    folder = common.open_run(run_id, config_file)
    with common.user_errors():
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
        from research_studio.run.launch import resume_settings

        config = resume_settings(folder, config_file)
    interactive = sys.stdin.isatty()
    common.err.print(line((f"resuming {folder.record.run_id} ({folder.record.status})", "dim")))
    outcome = common.run_async(
        _execute(folder, config, initial=None, answer=answer, interactive=interactive)
    )
    with common.user_errors():
        _report_outcome(folder, outcome, as_json, verbose)


def runs(
    search: Annotated[
        str | None,
        typer.Option("--search", "-s", help="Only runs whose question, pipeline or status has it."),
    ] = None,
    as_json: common.JsonFlag = False,
    config_file: common.ConfigFileOption = None,
) -> None:
    """List runs, newest first: run id, status, pipeline, time and question."""
    from research_studio.run.runs import list_runs

    with common.user_errors():
        runs_dir = common.settings(config_file).config.runs_dir
    records = list_runs(runs_dir, search)
    if as_json:
        common.print_json([record.model_dump() for record in records])
        return
    where = f"{runs_dir}" + (f" matching {search!r}" if search else "")
    if not records:
        common.err.print(foreign(f"No runs in {where}."))
        return
    common.out.print(foreign(f"{len(records)} run(s) in {where}", "bold"))
    from research_studio.faces.cli.summary import run_lines

    for record in records:
        common.out.print(run_lines(record), highlight=False)
