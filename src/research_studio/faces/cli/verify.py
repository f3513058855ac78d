"""`research-studio verify`: does a source support a statement? The pipelines' own check."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from research_studio.faces.cli import common


@common.setting_options("cli.verify")
def verify(
    statement: Annotated[str, typer.Argument(help="The sentence to check.")],
    source: Annotated[
        str,
        typer.Option(
            "--source", help="A file (Markdown, text, HTML, PDF) or an http(s) URL to check it in."
        ),
    ],
    as_json: common.JsonFlag = False,
    config_file: common.ConfigFileOption = None,
    *,
    overrides: dict[str, Any],
) -> None:
    """Say whether the source supports the statement, show the sentences that carry each of its
    parts, and say which part fails and why (missing terms, a figure, polarity, an entity).
    Exit 1 when it does not support it."""
    from research_studio.faces.cli.terminal import foreign, line
    from research_studio.faces.mcp_verify import check_statement  # the check: not for --help

    with common.user_errors():
        config = common.settings(config_file, overrides).config
    answer = common.run_async(check_statement(statement, source, config))
    if as_json:
        common.print_json(answer.model_dump())
    else:
        # The source's sentences and title are its text: shown with their control characters
        # made visible (an escape sequence would act on the terminal), never read as markup.
        shown = answer.title or Path(source).name or source
        verdict = ("supported", "green") if answer.supported else ("not supported", "red")
        common.out.print(line(verdict, " by ", foreign(shown)), highlight=False)
        if answer.quote:
            label = "Supporting passage" if answer.supported else "Closest passage"
            common.out.print(line(f"{label}: “", foreign(answer.quote), "”"), highlight=False)
        if len(answer.parts) > 1 or not answer.supported:
            for part in answer.parts:
                where = f"“{part.quote}”" if part.quote else "nowhere in the source"
                where += "".join(f" and “{other}”" for other in part.also)
                gap = "; ".join(part.reasons) or (
                    "lacks " + ", ".join(part.missing_terms) if part.missing_terms else "carried"
                )
                common.out.print(
                    line(
                        "  “", foreign(part.part), "” → ", foreign(where), " (", foreign(gap), ")"
                    ),
                    highlight=False,
                )
        for reason in answer.reasons:
            common.err.print(line("- ", foreign(reason)), highlight=False)
    if not answer.supported:
        raise typer.Exit(code=1)
