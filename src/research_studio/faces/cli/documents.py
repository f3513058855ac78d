"""The index command."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from research_studio.faces.cli import common
from research_studio.faces.cli.terminal import foreign, line

if TYPE_CHECKING:
    from rich.text import Text


def indexing(paths: list[Path]) -> AbstractContextManager[object]:
    """The spinner shown while the paths are indexed; piped, a line as it starts and ends."""
    # The paths are the user's text: shown as written, never read as markup (`a[/]b`).
    named = ", ".join(str(path) for path in paths)
    if not common.err.is_terminal:
        return _piped_indexing(named)
    return common.err.status(foreign(f"Indexing {named}…"))


# Piped, indexing that ends sooner says nothing (a mistake stays a script's one line of stderr).
QUIET_S = 1.0


@contextmanager
def _piped_indexing(named: str) -> Iterator[None]:
    """Piped, a spinner shows nothing, and indexing may take long (hybrid search embeds every
    chunk: seconds per MB): past `QUIET_S`, stamped lines on stderr say that it started and when
    it ends, as a piped run's progress shows its steps."""
    import threading

    from research_studio.faces.cli import command_elapsed
    from research_studio.faces.cli.progress import elapsed_text

    def say(*parts: str | Text) -> None:
        stamp = (f"{elapsed_text(command_elapsed()):>7}  ", "dim")
        common.err.print(line(stamp, "indexing the documents", *parts), highlight=False)

    said = threading.Event()

    def begin() -> None:
        say(": ", foreign(named))
        said.set()

    timer = threading.Timer(QUIET_S, begin)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        timer.join()  # a start line being written is written before anything else
    if said.is_set():
        say(": done")


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
