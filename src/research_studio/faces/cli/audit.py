"""`research-studio audit`: re-check a finished run from its folder alone (and, live, the web)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from research_studio.faces.cli import common
from research_studio.faces.cli.terminal import foreign, line

if TYPE_CHECKING:  # imported by the command that runs, not by its --help
    from rich.text import Text

    from research_studio.core.config import Configuration
    from research_studio.run.audit import AuditReport, SourceDrift

LiveFlag = Annotated[
    bool,
    typer.Option(
        "--live",
        help="Also fetch each cited page again and report how it drifted from the kept text.",
    ),
]


async def _drift(config: Configuration, path: Path) -> list[SourceDrift]:
    from research_studio.run.audit import live_drift
    from research_studio.services.clients import open_services  # --live only

    async with open_services(config) as services:
        with common.err.status("Fetching the cited pages again…"):
            return await live_drift(path, services.fetcher)


def _print(report: AuditReport, run_id: str) -> None:
    from rich.table import Table

    from research_studio.run.audit import audit_rows

    table = Table(title=f"Audit of {run_id}")
    for column in ("id", "statement", "cites", "verdict", "why"):
        table.add_column(column, overflow="fold")
    for tid, statement, sources, verdict, why in audit_rows(report):
        colour = "green" if verdict == "holds" else "red"
        table.add_row(
            foreign(tid),
            foreign(statement[:160]),
            foreign(sources),
            foreign(verdict, colour),
            foreign(why),
        )
    common.out.print(table)
    for claim in report.claims:
        colour = "green" if claim.verdict == "holds" else "red"
        common.out.print(
            line(f"✓✓ {claim.cid}: ", foreign(claim.verdict, colour), " — ", foreign(claim.why))
        )
    for problem in report.problems:
        common.err.print(line(("problem: ", "red"), foreign(problem)))
    for drift in report.drift:
        colour = "green" if drift.status == "same" else "yellow"
        detail: list[str | Text] = [" — ", foreign(drift.detail)] if drift.detail else []
        common.out.print(
            line(
                f"live {drift.sid}: ",
                foreign(drift.status, colour),
                " ",
                foreign(drift.url),
                *detail,
            )
        )
    if report.answered is False:
        common.err.print(line(("The sources read do not answer the question.", "yellow")))
    for question in report.unanswered:
        common.err.print(line(("not answered: ", "yellow"), foreign(question)))
    common.out.print(foreign(report.summary()))


@common.setting_options("cli.audit")
def audit(
    run_id: common.RunIdArgument,
    live: LiveFlag = False,
    as_json: common.JsonFlag = False,
    config_file: common.ConfigFileOption = None,
    *,
    overrides: dict[str, Any],
) -> None:
    """Check a finished run from its folder alone: every printed line, statement and kept page
    against the run's manifest and its quotes (exit 1 if any check fails)."""
    from research_studio.run.audit import audit_run

    folder = common.open_run(run_id, config_file)
    with common.user_errors():
        report = audit_run(folder.path)
        config = (
            common.settings(config_file, {**overrides, "use_cache": False}).config if live else None
        )
    if config is not None:
        report.drift = common.run_async(_drift(config, folder.path))
    if as_json:
        common.print_json(report.model_dump())
    else:
        _print(report, folder.record.run_id)
    if not report.ok:
        raise typer.Exit(code=1)
