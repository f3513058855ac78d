"""Any character exports: the PDF draws what its font has and stands in for the rest."""

from __future__ import annotations

import io

import docx
import pypdf
import pytest

from research_studio.export.document import CitedSource, RunDocument
from research_studio.export.docx_export import docx_bytes
from research_studio.export.pdf_export import pdf_bytes
from research_studio.export.pdf_fonts import PdfFonts, system_fonts

ODD = "中文 🌊 ✓✓ ✓ ⚠ – “quoted” café \x07 a\u200bb"


def _document() -> RunDocument:
    markdown = (
        f"# Heat {ODD}\n\n## Findings\n\n- ✓✓ Reefs bleach above 30 °C [S1].\n\n"
        f"| Metric | Value |\n|---|---|\n| Confidence | ⚠ low [S1] |\n\n"
        "## Sources\n\n- [S1] Reef “heat” page — https://example.org/a?b=1&c=2\n"
    )
    source = CitedSource("S1", "Reef “heat” page", "https://example.org/a?b=1&c=2", "2024")
    return RunDocument("r1", "heat", "2026-01-02T00:00:00+00:00", markdown, [], [source])


def _text(content: bytes) -> str:
    reader = pypdf.PdfReader(io.BytesIO(content))
    return " ".join(page.extract_text() for page in reader.pages)


def test_the_core_fonts_get_readable_stand_ins() -> None:
    text = _text(pdf_bytes(_document(), PdfFonts({})))
    assert '[vv] [v] [!] - "quoted" café' in text
    assert "?? ?" in text  # CJK and emoji: no latin-1 equivalent
    assert "[vv] Reefs bleach above 30 °C [S1]." in text


def test_a_unicode_font_draws_the_indicators() -> None:
    fonts = system_fonts()
    if not fonts.unicode:
        pytest.skip("no DejaVu Sans on this system (Debian: fonts-dejavu-core)")
    text = _text(pdf_bytes(_document(), fonts))
    assert "✓✓ ✓ ⚠ – “quoted” café" in text
    assert "✓✓ Reefs bleach above 30 °C [S1]." in text
    assert "Confidence ⚠ low [S1]" in " ".join(text.split())


def test_the_docx_keeps_every_printable_character() -> None:
    document = docx.Document(io.BytesIO(docx_bytes(_document())))
    heading = document.paragraphs[1].text
    assert heading == "Heat 中文 🌊 ✓✓ ✓ ⚠ – “quoted” café  a\u200bb"  # the bell is not XML
    cell = document.tables[0].rows[1].cells[1].paragraphs[0]
    assert [link.fragment for link in cell.hyperlinks] == ["source_S1"]


@pytest.mark.e2e  # two PDFs with embedded fonts: about two seconds
def test_a_table_too_tall_for_a_page_becomes_lines() -> None:
    cell = "heat " * 700 + "end"
    markdown = f"# Tall\n\n| c0 | c1 |\n|---|---|\n| {cell} | {cell} |\n"
    document = RunDocument("r2", "tall", "2026-01-02", markdown, [], [])
    for fonts in (system_fonts(), PdfFonts({})):  # taller than a page in either font
        text = " ".join(_text(pdf_bytes(document, fonts)).split())
        assert "c0 | c1" in text and "heat end | heat" in text


@pytest.mark.parametrize("pad", range(0, 60, 3))
def test_a_file_name_is_never_split_across_pdf_lines(pad: int) -> None:
    name = "urban-heat/meridian-cool-roof-pilot-evaluation-2024.pdf"
    title = "Meridian cool roof pilot evaluation " + "x" * pad
    markdown = f"# Heat\n\n## Sources\n\n- [S1] {title} — {name}\n"
    source = CitedSource("S1", title, "file:///srv/docs/x.pdf", "2024", shown=name)
    document = RunDocument("r1", "heat", "2026-01-02T00:00:00+00:00", markdown, [], [source])
    lines = _text(pdf_bytes(document, PdfFonts({}))).splitlines()
    assert any(name in line for line in lines), lines  # on one line, wherever it falls
