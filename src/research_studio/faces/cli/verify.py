"""`research-studio verify`: does a source support a statement? The pipelines' own check."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from research_studio.faces.cli.common import (
    ConfigFileOption,
    JsonFlag,
    err,
    out,
    print_json,
    run_async,
    setting_options,
    settings,
    user_errors,
)
from research_studio.faces.mcp_verify import check_statement


@setting_options("allow_private_networks", "use_cache")
def verify(
    statement: Annotated[str, typer.Argument(help="The sentence to check.")],
    source: Annotated[
        str,
        typer.Option(
            "--source", help="A file (Markdown, text, HTML, PDF) or an http(s) URL to check it in."
        ),
    ],
    as_json: JsonFlag = False,
    config_file: ConfigFileOption = None,
    *,
    overrides: dict[str, Any],
) -> None:
    """Say whether the source supports the statement, show its best passage, and say why not
    (missing terms, a figure, polarity, an entity). Exit 1 when it does not support it."""
    with user_errors():
        config = settings(config_file, overrides).config
    answer = run_async(check_statement(statement, source, config))
    if as_json:
        print_json(answer.model_dump())
    else:
        shown = escape(answer.title or Path(source).name or source)
        verdict = "[green]supported[/]" if answer.supported else "[red]not supported[/]"
        out.print(f"{verdict} by {shown}", highlight=False)
        if answer.quote:
            label = "Supporting passage" if answer.supported else "Closest passage"
            out.print(f"{label}: “{escape(answer.quote)}”", highlight=False)
        for reason in answer.reasons:
            err.print(f"- {escape(reason)}", highlight=False)
    if not answer.supported:
        raise typer.Exit(code=1)
