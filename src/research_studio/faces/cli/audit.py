"""`research-studio audit`: re-check a finished run's citations from its folder alone."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from research_studio.core.config import load_configuration
from research_studio.faces.cli.common import (
    ConfigFileOption,
    JsonFlag,
    err,
    out,
    print_json,
    user_errors,
)
from research_studio.faces.cli.terminal import foreign, line
from research_studio.run.audit import audit_rows, audit_run
from research_studio.run.runs import find_run


def audit(
    run_id: Annotated[
        str, typer.Argument(help="Run id (in the runs folder) or a run folder path.")
    ],
    as_json: JsonFlag = False,
    config_file: ConfigFileOption = None,
) -> None:
    """Check every citation of a finished run against the page text it kept (exit 1 if any fails)."""
    with user_errors():
        runs_dir = load_configuration(config_file=config_file).config.runs_dir
        folder = find_run(runs_dir, run_id)
        report = audit_run(folder.path)
    if as_json:
        print_json(report.model_dump())
    else:
        table = Table(title=f"Audit of {folder.record.run_id}")
        for column in ("statement", "cites", "verdict", "why"):
            table.add_column(column, overflow="fold")
        for statement, sources, verdict, why in audit_rows(report):
            colour = "green" if verdict == "holds" else "red"
            table.add_row(
                foreign(statement[:160]), foreign(sources), foreign(verdict, colour), foreign(why)
            )
        out.print(table)
        for claim in report.claims:
            colour = "green" if claim.verdict == "holds" else "red"
            out.print(
                line(f"✓✓ {claim.cid}: ", foreign(claim.verdict, colour), " — ", foreign(claim.why))
            )
        for problem in report.problems:
            err.print(line(("problem: ", "red"), foreign(problem)))
        out.print(foreign(report.summary()))
    if not report.ok:
        raise typer.Exit(code=1)
