"""Exports of a finished run: report as Markdown, HTML, PDF or DOCX; cited sources as BibTeX or RIS."""

from research_studio.export.formats import FORMATS, MEDIA_TYPES, Export, ExportFormat, export_run

__all__ = ["FORMATS", "MEDIA_TYPES", "Export", "ExportFormat", "export_run"]
