"""The report as a PDF (fpdf2): headings with an outline, tables, indicators, linked citations."""

from __future__ import annotations

from collections.abc import Sequence

from fpdf import FPDF
from fpdf.errors import FPDFException
from fpdf.fonts import FontFace
from fpdf.recorder import FPDFRecorder

from research_studio.export.blocks import Block, Run, plain, report_blocks
from research_studio.export.document import RunDocument
from research_studio.export.pdf_fonts import STYLES, PdfFonts, covered, drawable, system_fonts

_MARGIN = 18.0
_SIZES = {1: 18.0, 2: 14.0, 3: 12.5, 4: 11.5}
_BODY = 10.5
_LINK = (26, 85, 176)
_INK = (20, 20, 20)
_INDICATOR = {"✓✓": (22, 128, 61), "✓": (22, 128, 61), "⚠": (180, 95, 6)}


class _Writer:
    """One PDF being written: fonts, the Sources-list link targets, and the block renderers."""

    def __init__(self, fonts: PdfFonts, blocks: Sequence[Block]) -> None:
        self.pdf = FPDF(format="A4")
        self.pdf.set_margins(_MARGIN, _MARGIN, _MARGIN)
        self.pdf.set_auto_page_break(True, margin=_MARGIN)
        self.family, self.mono = "helvetica", "courier"
        self.have: dict[str, frozenset[int]] = {style: covered(None) for style in (*STYLES, "mono")}
        if fonts.unicode:
            self._add_fonts(fonts)
        self.pdf.add_page()
        # Targets made now, on page 1, and moved by set_link when their entry is written:
        # fpdf2 refuses a link to a destination without a page.
        self.links = {block.anchor: self.pdf.add_link() for block in blocks if block.anchor}

    def _add_fonts(self, fonts: PdfFonts) -> None:
        extra: frozenset[int] = frozenset()
        for number, path in enumerate(fonts.fallbacks):
            self.pdf.add_font(f"fallback{number}", "", path)
            extra |= covered(path)
        for style in STYLES:
            path = fonts.files.get(style, fonts.files[""])  # a missing face: draw it upright
            self.pdf.add_font("body", style, path)
            self.have[style] = covered(path) | extra
        self.family = "body"
        if "mono" in fonts.files:
            for style in STYLES:
                self.pdf.add_font("mono", style, fonts.files["mono"])
            self.mono = "mono"
            self.have["mono"] = covered(fonts.files["mono"]) | extra
        else:
            self.mono, self.have["mono"] = "body", self.have[""]
        if fonts.fallbacks:
            self.pdf.set_fallback_fonts([f"fallback{n}" for n in range(len(fonts.fallbacks))])

    def text(self, text: str, style: str = "", mono: bool = False) -> str:
        return drawable(text, self.have["mono" if mono else style])

    def write_runs(self, runs: Sequence[Run], size: float, bold: bool = False) -> None:
        height = size * 0.5
        for run in runs:
            style = ("B" if bold or run.bold else "") + ("I" if run.italic else "")
            link: str | int = self.links.get(run.cite, "") if run.cite else (run.url or "")
            underline = "U" if run.url else ""
            self.pdf.set_font(self.mono if run.code else self.family, style + underline, size)
            colour = _INDICATOR.get(run.indicator) or (_LINK if link != "" else _INK)
            self.pdf.set_text_color(*colour)
            text = self.text(run.text, style, run.code)
            if run.whole and self._kept_whole(text, height, link):
                continue
            self.pdf.write(height, text, link=link)
        self.pdf.set_text_color(*_INK)

    def _kept_whole(self, text: str, height: float, link: str | int) -> bool:
        """An address drawn on one line (the next one when the rest of this is too short);
        False for one longer than a line, which `write` breaks where it must."""
        pdf = self.pdf
        width = pdf.get_string_width(text) + 2 * pdf.c_margin  # a cell pads its text
        if width > pdf.w - pdf.l_margin - pdf.r_margin:
            return False
        if pdf.get_x() + width > pdf.w - pdf.r_margin:
            pdf.ln(height)
        pdf.cell(width, height, text, link=link)
        return True

    def heading(self, block: Block) -> None:
        size = _SIZES.get(block.level, _BODY)
        if self.pdf.get_y() > self.pdf.h - 3 * _MARGIN:  # never a heading alone at a page foot
            self.pdf.add_page()
        self.pdf.ln(size * 0.35)
        self.pdf.set_font(self.family, "B", size)
        self.pdf.start_section(self.text(block.text, "B"), level=block.level - 1, strict=False)
        self.write_runs(block.runs, size, bold=True)
        self.pdf.ln(size * 0.6)

    def paragraph(self, block: Block) -> None:
        self.write_runs(block.runs, _BODY)
        self.pdf.ln(_BODY * 0.5)
        self.pdf.ln(_BODY * 0.35)

    def item(self, block: Block) -> None:
        indent = _MARGIN + 6.0 * block.level
        self.pdf.set_left_margin(indent)
        if block.anchor in self.links:  # a Sources-list entry: the target of its citations
            self.pdf.set_link(self.links[block.anchor], y=self.pdf.get_y(), page=self.pdf.page)
        if block.marker:
            self.pdf.set_font(self.family, "", _BODY)
            self.pdf.set_x(indent - 5.0)
            self.pdf.write(_BODY * 0.5, self.text(block.marker))
            self.pdf.set_x(indent)
        self.write_runs(block.runs, _BODY)
        self.pdf.set_left_margin(_MARGIN)
        self.pdf.ln(_BODY * 0.5)
        self.pdf.ln(_BODY * 0.2)

    def _draw_table(self, pdf: FPDF | FPDFRecorder, block: Block) -> None:
        pdf.set_font(self.family, "", _BODY - 1)
        with pdf.table(
            first_row_as_headings=True,
            text_align="LEFT",
            line_height=(_BODY - 1) * 0.55,
            headings_style=FontFace(emphasis="BOLD", fill_color=(235, 238, 243)),
        ) as table:
            for cells in block.rows:
                row = table.row()
                for runs in cells:
                    cite = next((run.cite for run in runs if run.cite in self.links), None)
                    row.cell(self.text(plain(runs)), link=self.links[cite] if cite else None)

    def table(self, block: Block) -> None:
        try:  # a trial run first: a table too wide or too tall for a page cannot be drawn
            with self.pdf.offset_rendering() as trial:
                self._draw_table(trial, block)
        except (ValueError, FPDFException):
            for cells in block.rows:  # each row as a line, cells apart by "|"
                runs = [
                    run
                    for index, cell in enumerate(cells)
                    for run in ([Run(" | ")] if index else []) + cell
                ]
                self.paragraph(Block("paragraph", runs))
            return
        self._draw_table(self.pdf, block)
        self.pdf.ln(_BODY * 0.5)

    def code(self, block: Block) -> None:
        self.pdf.set_font(self.mono, "", _BODY - 1.5)
        self.pdf.multi_cell(0, (_BODY - 1.5) * 0.5, self.text(block.text, mono=True))
        self.pdf.ln(_BODY * 0.4)

    def rule(self) -> None:
        y = self.pdf.get_y() + 1.5
        self.pdf.line(_MARGIN, y, self.pdf.w - _MARGIN, y)
        self.pdf.ln(4.0)


def pdf_bytes(document: RunDocument, fonts: PdfFonts | None = None) -> bytes:
    """The report as PDF bytes; `fonts` defaults to the system's Unicode font, if any."""
    blocks = report_blocks(document.markdown, document.sources)
    writer = _Writer(system_fonts() if fonts is None else fonts, blocks)
    pdf = writer.pdf
    pdf.set_title(writer.text(document.query))
    pdf.set_creator("Research Studio")
    pdf.set_subject(f"Research Studio run {document.run_id}")
    pdf.set_font(writer.family, "", 8)
    pdf.set_text_color(110, 110, 110)
    pdf.cell(0, 5, writer.text(f"Research Studio · run {document.run_id} · {document.accessed}"))
    pdf.ln(7)
    pdf.set_text_color(*_INK)
    for block in blocks:
        if block.kind == "heading":
            writer.heading(block)
        elif block.kind == "item":
            writer.item(block)
        elif block.kind == "table":
            writer.table(block)
        elif block.kind == "code":
            writer.code(block)
        elif block.kind == "rule":
            writer.rule()
        else:
            writer.paragraph(block)
    return bytes(pdf.output())
