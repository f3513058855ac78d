"""The report as a Word document (python-docx): headings, tables, indicators, linked citations.

Citations are internal hyperlinks to a bookmark on their Sources-list entry; entries link to
their URLs. python-docx has no API for either, so both are built from oxml elements.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import replace

from docx import Document
from docx.enum.text import WD_COLOR_INDEX
from docx.opc.constants import RELATIONSHIP_TYPE
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.oxml.xmlchemy import BaseOxmlElement
from docx.shared import Pt, RGBColor
from docx.text.paragraph import Paragraph

from research_studio.export.blocks import Block, Run, report_blocks
from research_studio.export.document import RunDocument

_LINK = RGBColor(0x1A, 0x55, 0xB0)
_INDICATOR = {"✓✓": RGBColor(0x16, 0x80, 0x3D), "✓": RGBColor(0x16, 0x80, 0x3D)}
_WARNING = RGBColor(0xB4, 0x5F, 0x06)
# XML 1.0 forbids these; page text quoted in a report may hold them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def bookmark_name(sid: str) -> str:
    """The bookmark a source's entry carries (Word wants letters, digits and _)."""
    return f"source_{sid}"


def _clean(text: str) -> str:
    return _NOT_XML.sub("", text)


def _run_element(run: Run, linked: bool) -> BaseOxmlElement:
    """A w:r with the run's text and style, for use inside a w:hyperlink."""
    element = OxmlElement("w:r")
    properties = OxmlElement("w:rPr")
    for flag, tag in ((run.bold, "w:b"), (run.italic, "w:i")):
        if flag:
            properties.append(OxmlElement(tag))
    if linked:
        colour = OxmlElement("w:color")
        colour.set(qn("w:val"), str(_LINK))
        underline = OxmlElement("w:u")
        underline.set(qn("w:val"), "single")
        properties.extend([colour, underline])
    element.append(properties)
    text = OxmlElement("w:t")
    text.set(qn("xml:space"), "preserve")
    text.text = _clean(run.text)
    element.append(text)
    return element


def _hyperlink(paragraph: Paragraph, run: Run, *, anchor: str = "", url: str = "") -> None:
    link = OxmlElement("w:hyperlink")
    if anchor:
        link.set(qn("w:anchor"), anchor)
    else:
        target = paragraph.part.relate_to(url, RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
        link.set(qn("r:id"), target)
    link.set(qn("w:history"), "1")
    link.append(_run_element(run, linked=True))
    paragraph._p.append(link)


def _bookmark(paragraph: Paragraph, name: str, number: int) -> None:
    start = OxmlElement("w:bookmarkStart")
    start.set(qn("w:id"), str(number))
    start.set(qn("w:name"), name)
    end = OxmlElement("w:bookmarkEnd")
    end.set(qn("w:id"), str(number))
    paragraph._p.insert(1 if paragraph._p.pPr is not None else 0, start)
    paragraph._p.append(end)


def _add_runs(paragraph: Paragraph, runs: Sequence[Run], anchors: set[str]) -> None:
    for run in runs:
        if run.cite and run.cite in anchors:
            _hyperlink(paragraph, run, anchor=bookmark_name(run.cite))
        elif run.url and "://" in run.url:
            _hyperlink(paragraph, run, url=run.url)
        else:
            added = paragraph.add_run(_clean(run.text))
            added.bold = run.bold or None
            added.italic = run.italic or None
            if run.code:
                added.font.name = "Consolas"
            if run.indicator in _INDICATOR:
                added.font.color.rgb = _INDICATOR[run.indicator]
                added.bold = True
            elif run.indicator == "⚠":
                added.font.color.rgb = _WARNING
                added.font.highlight_color = WD_COLOR_INDEX.YELLOW


def _list_style(block: Block) -> str:
    kind = "List Number" if block.marker[:1].isdigit() else "List Bullet"
    return kind if block.level <= 1 else f"{kind} {min(block.level, 3)}"


def docx_bytes(document: RunDocument) -> bytes:
    """The report as .docx bytes."""
    blocks = report_blocks(document.markdown, document.sources)
    anchors = {block.anchor for block in blocks if block.anchor}
    word = Document()
    word.core_properties.title = _clean(document.query)[:255]
    word.core_properties.subject = f"Research Studio run {document.run_id}"
    word.core_properties.author = "Research Studio"
    note = word.add_paragraph()
    note_run = note.add_run(f"Research Studio · run {document.run_id} · {document.accessed}")
    note_run.font.size = Pt(8)
    bookmarks = 0
    for block in blocks:
        if block.kind == "heading":
            paragraph = word.add_heading(level=min(block.level, 9))
            _add_runs(paragraph, block.runs, anchors)
        elif block.kind == "item":
            style = _list_style(block) if block.marker else "Normal"
            paragraph = word.add_paragraph(style=style)
            _add_runs(paragraph, block.runs, anchors)
            if block.anchor:
                bookmarks += 1
                _bookmark(paragraph, bookmark_name(block.anchor), bookmarks)
        elif block.kind == "table":
            columns = max((len(row) for row in block.rows), default=0)
            table = word.add_table(rows=len(block.rows), cols=columns)
            table.style = "Table Grid"
            for number, row in enumerate(block.rows):
                for column, runs in enumerate(row):
                    header = [replace(run, bold=True) for run in runs]
                    cell = table.cell(number, column).paragraphs[0]
                    _add_runs(cell, runs if number else header, anchors)
            word.add_paragraph()
        elif block.kind == "code":
            paragraph = word.add_paragraph()
            paragraph.add_run(_clean(block.text)).font.name = "Consolas"
        elif block.kind == "rule":
            word.add_paragraph("―" * 20)
        else:
            _add_runs(word.add_paragraph(), block.runs, anchors)
    buffer = io.BytesIO()
    word.save(buffer)
    return buffer.getvalue()
