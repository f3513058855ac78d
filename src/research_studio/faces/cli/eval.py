"""`research-studio eval`: run the eval cases through pipelines and score them, or re-score snapshots."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from research_studio.core.errors import ConfigError
from research_studio.faces.cli import common
from research_studio.faces.cli.setting_flags_table import FLAGS
from research_studio.faces.cli.terminal import foreign

# The cases, the suite (the pipelines, the models) and the configuration are imported by a run,
# not by --help.
if TYPE_CHECKING:
    from research_studio.core.config import Configuration
    from research_studio.evaluation.cases import EvalCase
    from research_studio.evaluation.suite import EvalReport

DEFAULT_SNAPSHOTS = Path("eval-snapshots")


def _ids(text: str | None) -> list[str]:
    return [item.strip() for item in (text or "").split(",") if item.strip()]


def _judge(
    judge: str | None, no_judge: bool, live: bool, config: Configuration
) -> tuple[str | None, bool]:
    """(judge spec, use each snapshot's recorded judge)."""
    from research_studio.evaluation.judging import default_judge
    from research_studio.llm.models import split_spec

    if no_judge and judge:
        raise ConfigError("--judge and --no-judge cannot be used together")
    if no_judge:
        return None, False
    if judge:
        split_spec(judge)
        return judge, False
    if not live:
        return None, True
    try:
        return default_judge(config), False
    except ConfigError as exc:
        common.err.print(
            foreign(f"no judge model ({exc}); judge evaluators skipped", "yellow"), highlight=False
        )
        return None, False


def is_offline(case: EvalCase) -> bool:
    """A case that needs no network: the embedded model and local documents."""
    model = str(case.settings.get("model") or "")
    return model.startswith("local:") and case.settings.get("search") == "local"


def _offline_cases(catalog: list[EvalCase], ids: list[str]) -> list[EvalCase]:
    """The chosen cases (default: every offline one); a case that needs the network is refused."""
    from research_studio.evaluation.cases import select_cases

    chosen = select_cases(catalog, ids) if ids else [c for c in catalog if is_offline(c)]
    online = [case.id for case in chosen if not is_offline(case)]
    if online:
        raise ConfigError(
            f"--offline runs only cases with the embedded model and local documents; "
            f"{', '.join(online)} need(s) the network"
        )
    if not chosen:
        raise ConfigError("--offline: no case runs without the network")
    return chosen


def _with_iterations(cases: list[EvalCase], iterations: int | None) -> list[EvalCase]:
    """Every case's research loop capped at `iterations` rounds (every pipeline's own setting)."""
    if iterations is None:
        return cases
    rounds = {"max_iterations": iterations, "max_researcher_iterations": iterations}
    return [case.model_copy(update={"settings": {**case.settings, **rounds}}) for case in cases]


def _list(cases: list[EvalCase]) -> None:
    for case in cases:
        pinned = (
            f" [{', '.join(f'{k}={v}' for k, v in case.settings.items())}]" if case.settings else ""
        )
        typer.echo(f"{case.id:<22} {case.kind:<20} {case.query}{pinned}")


def _print(report: EvalReport, details: Path) -> None:
    from research_studio.evaluation.suite import pipeline_means
    from research_studio.evaluation.summary import costs_lines, summary_table

    typer.echo(summary_table(report))
    typer.echo("")
    for label, figures in pipeline_means(report).items():
        score = "–" if figures["score"] is None else f"{figures['score']:.2f}"
        typer.echo(
            f"{label}: mean score {score} over {figures['cases']} case(s), {figures['failed']} failed"
        )
    for label, checks in report.behavioral.items():
        # Not applicable or not measured: left out of the ratio, neither a pass nor a failure.
        measured = [check for check in checks if check.passed is not None]
        passed = sum(1 for check in measured if check.passed)
        unmeasured = len(checks) - len(measured)
        typer.echo(
            f"{label}: behavioral evaluators {passed}/{len(measured)} passed"
            + (f" ({unmeasured} not applicable or not measured)" if unmeasured else "")
        )
    for line in costs_lines(report):
        typer.echo(line)
    typer.echo(f"Details: {details}")


@common.setting_options("cli.eval")
def eval_command(
    live: Annotated[
        bool, typer.Option("--live", help="Run the cases through the pipelines, then score them.")
    ] = False,
    from_snapshots: Annotated[
        bool, typer.Option("--from-snapshots", help="Re-score saved runs without running anything.")
    ] = False,
    offline: Annotated[
        bool,
        typer.Option(
            "--offline",
            help="Run only the cases that need no network (embedded model, local documents), "
            "judged by their own model.",
        ),
    ] = False,
    max_iterations: Annotated[
        int | None,
        typer.Option(
            "--max-iterations",
            min=FLAGS["max_iterations"].minimum,
            max=FLAGS["max_iterations"].maximum,
            help="Rounds of every pipeline's research loop, for every case (over its settings).",
        ),
    ] = None,
    cases: Annotated[
        str | None, typer.Option("--cases", help="Comma-separated case ids (default: all).")
    ] = None,
    pipelines: Annotated[
        str | None,
        typer.Option(
            "--pipelines",
            help="Comma-separated: standard, advanced, standard:single (default: standard; "
            "from snapshots: every one kept).",
        ),
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option("--judge", help="Judge model, provider:name (default: the smart model)."),
    ] = None,
    no_judge: Annotated[
        bool, typer.Option("--no-judge", help="Skip the judge evaluators and citation accuracy.")
    ] = False,
    rejudge: Annotated[
        bool,
        typer.Option("--rejudge", help="Ask the judge again instead of reusing kept verdicts."),
    ] = False,
    behavioral: Annotated[
        bool,
        typer.Option("--behavioral", help="Also run the seven behavioral evaluators (more runs)."),
    ] = False,
    output: Annotated[
        Path | None,
        typer.Option("--output", help="Write results.json here (and the details beside it, .md)."),
    ] = None,
    snapshots: Annotated[
        Path, typer.Option("--snapshots", help="Folder of saved runs, one per case and pipeline.")
    ] = DEFAULT_SNAPSHOTS,
    cases_file: Annotated[
        Path | None, typer.Option("--cases-file", help="Your own cases (TOML; see --export-cases).")
    ] = None,
    export_cases: Annotated[
        Path | None,
        typer.Option("--export-cases", help="Write the bundled cases to this file and stop."),
    ] = None,
    list_cases: Annotated[
        bool, typer.Option("--list-cases", help="List the cases and stop.")
    ] = False,
    as_json: common.JsonFlag = False,
    config_file: common.ConfigFileOption = None,
    *,
    overrides: dict[str, Any],
) -> None:
    """Evaluate pipelines on eval cases: structural, case, judge and citation-accuracy scores."""
    from research_studio.core.files import write_atomically
    from research_studio.evaluation.cases import (
        bundled_cases_text,
        load_cases,
        parse_pipelines,
        select_cases,
    )
    from research_studio.evaluation.suite import EvalPlan, run_eval
    from research_studio.evaluation.summary import markdown

    with common.user_errors():
        if export_cases is not None:
            write_atomically(export_cases, bundled_cases_text())
            typer.echo(
                f"Cases written to {export_cases}; run them with --cases-file {export_cases}"
            )
            return
        catalog = load_cases(cases_file)
        if list_cases:
            _list(catalog)
            return
        if offline and from_snapshots:
            raise ConfigError("--offline runs cases: use it without --from-snapshots")
        live = live or offline
        if live == from_snapshots:
            raise ConfigError(
                "choose --live (run the cases, then score them) or --from-snapshots "
                "(re-score saved runs)"
            )
        if behavioral and not live:
            raise ConfigError("--behavioral runs pipelines: use it with --live")
        if offline:
            wanted = _offline_cases(catalog, _ids(cases))
        else:
            wanted = select_cases(catalog, _ids(cases)) if (live or cases) else []
        wanted = _with_iterations(wanted, max_iterations)
        chosen = parse_pipelines(pipelines) if pipelines else None
        config = common.settings(config_file, overrides).config
        if offline and not judge and not no_judge:
            judge = str(wanted[0].settings["model"])  # the embedded model judges too
        spec, recorded = _judge(judge, no_judge, live, config)
        plan = EvalPlan(
            cases=wanted,
            snapshots=snapshots,
            pipelines=chosen,
            live=live,
            judge=spec,
            use_recorded_judges=recorded,
            rejudge=rejudge,
            behavioral=behavioral,
            ambiguous_queries=[case.query for case in catalog if case.expect.ambiguous],
            catalog=catalog,
        )
        if live:
            common.err.print(
                foreign(f"judge: {spec or 'none'}; snapshots: {snapshots}", "dim"), highlight=False
            )

    def progress(message: str) -> None:
        common.err.print(foreign(message), highlight=False)

    report = common.run_async(run_eval(plan, config, on_progress=progress))
    with common.user_errors():
        text = markdown(report)
        if output is not None:
            write_atomically(output, report.model_dump_json(indent=2))
        details = output.with_suffix(".md") if output is not None else snapshots / "eval-report.md"
        write_atomically(details, text)
    if as_json:
        common.print_json(report.model_dump(mode="json"))
    else:
        _print(report, details)
    if any(result.status != "completed" for result in report.results):
        raise typer.Exit(code=1)
