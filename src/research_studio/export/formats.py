"""Export a finished run folder as Markdown, HTML, PDF, DOCX, BibTeX or RIS."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from research_studio.core.errors import ResearchStudioError
from research_studio.export.citations import bibtex, ris
from research_studio.export.document import load_run, with_display_addresses
from research_studio.export.html_export import report_page

ExportFormat = Literal["md", "html", "pdf", "docx", "bib", "ris"]
FORMATS: tuple[ExportFormat, ...] = get_args(ExportFormat)
MEDIA_TYPES: dict[ExportFormat, str] = {
    "md": "text/markdown; charset=utf-8",
    "html": "text/html; charset=utf-8",
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "bib": "application/x-bibtex; charset=utf-8",
    "ris": "application/x-research-info-systems; charset=utf-8",
}


@dataclass(frozen=True)
class Export:
    """One exported file, ready to be written or served."""

    filename: str
    media_type: str
    content: bytes


def safe_stem(run_id: str) -> str:
    """A file-name stem from a run id: letters, digits, '.', '_' and '-' only."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", run_id).strip("._")
    return stem[:120] or "report"


def export_run(folder: Path, fmt: ExportFormat) -> Export:
    """The finished run in `folder` as `fmt` (synchronous and CPU-bound)."""
    if fmt not in FORMATS:
        raise ResearchStudioError(
            f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}"
        )
    document = load_run(folder)
    if fmt == "md":
        content = with_display_addresses(document).encode("utf-8")
    elif fmt == "html":
        content = report_page(document).encode("utf-8")
    elif fmt == "pdf":
        from research_studio.export.pdf_export import pdf_bytes  # fpdf2 and its fonts: PDF only

        content = pdf_bytes(document)
    elif fmt == "docx":
        from research_studio.export.docx_export import docx_bytes  # python-docx: DOCX only

        content = docx_bytes(document)
    elif fmt == "bib":
        content = bibtex(document).encode("utf-8")
    else:
        content = ris(document).encode("utf-8")
    return Export(f"{safe_stem(document.run_id)}.{fmt}", MEDIA_TYPES[fmt], content)
