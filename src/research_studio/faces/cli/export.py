"""`research-studio export`: a finished run's report as md, html, pdf or docx; its sources as bib or ris."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from research_studio.core.errors import ResearchStudioError
from research_studio.faces.cli import common
from research_studio.faces.cli.terminal import foreign

if TYPE_CHECKING:  # the exporters are imported by an export, not by its --help
    from research_studio.export import ExportFormat

ALIASES: dict[str, ExportFormat] = {"bibtex": "bib", "markdown": "md", "word": "docx"}


def export_format(value: str) -> ExportFormat:
    """A format name or a common alias (bibtex, markdown, word), case ignored."""
    from research_studio.export import FORMATS

    name = value.strip().lower()
    name = ALIASES.get(name, name)
    if name not in FORMATS:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(FORMATS)} (or bibtex)")
    return cast("ExportFormat", name)


def target_path(out_option: str | None, filename: str) -> Path:
    """Where to write: the current folder, a folder (existing, or new: named with a final / or
    without an extension), a file (a name with an extension).

    No folder tree is created: a typo in --out is a one-line error, not new directories. A new
    name without an extension is a folder: as a file it would hold an export without its
    format's extension, and the next export to it would overwrite it.
    """
    if not out_option:
        return Path.cwd() / filename
    path = Path(out_option).expanduser()
    if path.is_dir():
        return path / filename
    new_folder = out_option.endswith(("/", "\\")) or (not path.suffix and not path.exists())
    if new_folder:  # a new folder, asked for by name: one level only
        if not path.parent.is_dir():
            raise ResearchStudioError(f"folder {path.parent} does not exist; create it first")
        try:
            path.mkdir(exist_ok=True)
        except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
            reason = getattr(exc, "strerror", None) or exc
            raise ResearchStudioError(f"cannot create folder {path}: {reason}") from None
        return path / filename
    if not path.parent.is_dir():
        raise ResearchStudioError(f"folder {path.parent} does not exist; create it first")
    return path


def export(
    run_id: common.RunIdArgument,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="md, html, pdf, docx (report) or bib (bibtex), ris (sources).",
            parser=export_format,
        ),
    ],
    out_path: Annotated[
        str | None,
        typer.Option(
            "--out",
            "-o",
            help="Folder or file to write (default: the current folder); a new name without "
            "an extension is a new folder.",
        ),
    ] = None,
    config_file: common.ConfigFileOption = None,
) -> None:
    """Export a finished run's report (md, html, pdf, docx) or its cited sources (bib, ris)."""
    from research_studio.export import export_run

    folder = common.open_run(run_id, config_file)
    with common.user_errors():
        exported = export_run(folder.path, export_format(fmt))
        path = target_path(out_path, exported.filename)
        try:
            path.write_bytes(exported.content)
        except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
            raise ResearchStudioError(
                f"cannot write {path}: {getattr(exc, 'strerror', None) or exc}"
            ) from None
    common.out.print(foreign(path), highlight=False, soft_wrap=True)
