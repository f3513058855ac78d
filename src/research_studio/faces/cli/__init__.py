"""The `research-studio` command line."""

from __future__ import annotations

from typing import Annotated

import typer

from research_studio import __version__
from research_studio.faces.cli import (
    ask,
    audit,
    bench,
    doctor,
    documents,
    mcp,
    remote,
    research,
    tools,
)
from research_studio.faces.cli import eval as evaluation
from research_studio.faces.cli import export as exporting
from research_studio.faces.cli import serve as serving

app = typer.Typer(
    name="research-studio",
    help="A deep research agent: plans, searches, reads, verifies and writes a cited report.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain click help: it wraps at the terminal's width without Rich's narrow panel columns.
    rich_markup_mode=None,
    context_settings={"max_content_width": 100},
)
app.command()(doctor.doctor)  # a newcomer's first command, listed first
app.command()(research.run)
app.command()(research.resume)
app.command()(research.runs)
app.command()(ask.ask)
app.command()(audit.audit)
app.command()(exporting.export)
app.command()(documents.index)
app.command()(bench.bench)
app.command()(tools.search)
app.command()(tools.fetch)
app.command()(tools.config)
app.command(name="eval")(evaluation.eval_command)
app.command()(mcp.mcp)
app.command()(serving.serve)
app.command()(remote.remote)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"research-studio {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Research Studio."""


def main() -> None:
    """Console-script entry point."""
    app()
