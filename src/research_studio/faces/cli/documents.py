"""The index command."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Annotated

import typer

from research_studio.faces.cli import common
from research_studio.faces.cli.terminal import foreign


def indexing(paths: list[Path]) -> AbstractContextManager[object]:
    """The spinner shown while the paths are indexed."""
    # The paths are the user's text: shown as written, never read as markup (`a[/]b`).
    return common.err.status(foreign(f"Indexing {', '.join(str(path) for path in paths)}…"))


def warn(line: str) -> None:
    """A skipped file or empty folder, on stderr (the text is the user's: shown, never markup)."""
    common.err.print(foreign(line, "yellow"), highlight=False)


def index(
    paths: Annotated[
        list[Path], typer.Argument(help="Files or folders (Markdown, text, HTML, PDF).")
    ],
    as_json: common.JsonFlag = False,
    config_file: common.ConfigFileOption = None,
) -> None:
    """Build or update the local document index (changed files re-indexed, removed ones dropped)."""
    from research_studio.run.launch import check_docs, index_documents

    with common.user_errors():
        check_docs(paths)
        config = common.settings(config_file).config
        with indexing(paths):
            report = index_documents(config, paths, warn)
    summary = {
        "added": len(report.added),
        "updated": len(report.updated),
        "unchanged": len(report.unchanged),
        "removed": len(report.removed),
        "skipped": [{"path": path, "reason": reason} for path, reason in report.skipped],
    }
    if as_json:
        common.print_json(summary)
        return
    from rich.table import Table

    table = Table(title="Document index", show_header=False)
    for name in ("added", "updated", "unchanged", "removed"):
        table.add_row(name, str(summary[name]))
    table.add_row("skipped", str(len(report.skipped)))
    common.out.print(table)
