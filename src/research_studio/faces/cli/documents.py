"""The index command, and indexing on the fly for --docs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from research_studio.core.config import Configuration
from research_studio.core.errors import ConfigError
from research_studio.faces.cli.common import (
    ConfigFileOption,
    JsonFlag,
    err,
    out,
    print_json,
    settings,
    user_errors,
)
from research_studio.faces.cli.terminal import foreign
from research_studio.run.launch import check_docs
from research_studio.sources.docindex import DocumentIndex, IndexReport

DocsOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--docs", help="Research these local files/folders (indexed on the fly); repeatable."
    ),
]


def update_index(config: Configuration, paths: list[Path]) -> IndexReport:
    """Index the paths (incrementally), showing progress and warnings on stderr.

    Fails, in one line, when no readable document was found: research on nothing is not a run.
    """
    index = DocumentIndex.in_dir(
        config.cache_dir, chunk_size=config.index_chunk_size, max_bytes=config.max_document_bytes
    )
    try:
        with err.status(f"Indexing {', '.join(str(path) for path in paths)}…"):
            report = asyncio.run(asyncio.to_thread(index.update, paths))
    finally:
        index.close()
    for path, reason in report.skipped:
        err.print(foreign(f"skipped {path}: {reason}", "yellow"), highlight=False)
    if not report.documents:
        raise ConfigError(
            f"no readable documents in {', '.join(report.empty)} "
            "(Markdown, text, HTML or PDF files inside the folder)"
        )
    for root in report.empty:
        err.print(foreign(f"no readable documents in {root}", "yellow"), highlight=False)
    return report


def index(
    paths: Annotated[
        list[Path], typer.Argument(help="Files or folders (Markdown, text, HTML, PDF).")
    ],
    as_json: JsonFlag = False,
    config_file: ConfigFileOption = None,
) -> None:
    """Build or update the local document index (changed files re-indexed, removed ones dropped)."""
    with user_errors():
        check_docs(paths)
        config = settings(config_file).config
        report = update_index(config, paths)
    summary = {
        "added": len(report.added),
        "updated": len(report.updated),
        "unchanged": len(report.unchanged),
        "removed": len(report.removed),
        "skipped": [{"path": path, "reason": reason} for path, reason in report.skipped],
    }
    if as_json:
        print_json(summary)
        return
    table = Table(title="Document index", show_header=False)
    for name in ("added", "updated", "unchanged", "removed"):
        table.add_row(name, str(summary[name]))
    table.add_row("skipped", str(len(report.skipped)))
    out.print(table)
