"""`research-studio export`: a finished run's report as md, html, pdf or docx; its sources as bib or ris."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from research_studio.core.config import load_configuration
from research_studio.core.errors import ResearchStudioError
from research_studio.export import ExportFormat, export_run
from research_studio.faces.cli.common import ConfigFileOption, out, user_errors
from research_studio.run.runs import find_run


def target_path(out_option: str | None, filename: str) -> Path:
    """Where to write: the current folder, a folder (existing, or written with a final /), a file."""
    if not out_option:
        return Path.cwd() / filename
    path = Path(out_option).expanduser()
    if path.is_dir() or out_option.endswith(("/", "\\")):
        return path / filename
    return path


def export(
    run_id: Annotated[
        str, typer.Argument(help="Run id (in the runs folder) or a run folder path.")
    ],
    fmt: Annotated[
        ExportFormat,
        typer.Option("--format", "-f", help="md, html, pdf, docx (report) or bib, ris (sources)."),
    ],
    out_path: Annotated[
        str | None,
        typer.Option("--out", "-o", help="Folder or file to write (default: the current folder)."),
    ] = None,
    config_file: ConfigFileOption = None,
) -> None:
    """Export a finished run's report (md, html, pdf, docx) or its cited sources (bib, ris)."""
    with user_errors():
        runs_dir = load_configuration(config_file=config_file).config.runs_dir
        folder = find_run(runs_dir, run_id)
        exported = export_run(folder.path, fmt)
        path = target_path(out_path, exported.filename)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(exported.content)
        except OSError as exc:
            raise ResearchStudioError(f"cannot write {path}: {exc.strerror or exc}") from None
    out.print(str(path), highlight=False, soft_wrap=True)
