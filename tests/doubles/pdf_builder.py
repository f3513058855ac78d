"""Hand-written binary documents: a minimal PDF 1.4 writer (Helvetica, wrapped, paginated), a PNG."""

from __future__ import annotations

import struct
import zlib

PAGE_WIDTH, PAGE_HEIGHT = 612, 792  # US Letter, in points
MARGIN = 72
BODY_SIZE, BODY_LEADING = 11, 14
TITLE_SIZE, TITLE_LEADING = 16, 20
PARAGRAPH_GAP = 8

# Helvetica advance widths (1/1000 em) for ASCII 32..126, from the standard AFM metrics.
_ASCII_WIDTHS = (
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
)  # fmt: skip


def text_width(text: str, size: float) -> float:
    """Width in points of `text` set in Helvetica at `size`."""
    return (
        sum(_ASCII_WIDTHS[ord(c) - 32] if 32 <= ord(c) < 127 else 556 for c in text) * size / 1000
    )


def wrap(text: str, size: float, max_width: float) -> list[str]:
    """Greedy word wrap; a single over-long word gets a line of its own."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}" if current else word
        if current and text_width(candidate, size) > max_width:
            lines.append(current)
            current = word
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


def pdf_string(text: str) -> bytes:
    """A PDF literal string body in WinAnsi encoding, with `\\`, `(` and `)` escaped."""
    raw = text.encode("cp1252", errors="replace")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def _content_streams(title: str, paragraphs: list[str]) -> list[bytes]:
    width = PAGE_WIDTH - 2 * MARGIN
    blocks = [(TITLE_SIZE, TITLE_LEADING, title)] + [
        (BODY_SIZE, BODY_LEADING, p) for p in paragraphs
    ]
    pages: list[bytes] = []
    current = bytearray()
    y = PAGE_HEIGHT - MARGIN
    for size, leading, text in blocks:
        for line in wrap(text, size, width):
            if y - leading < MARGIN:
                pages.append(bytes(current))
                current, y = bytearray(), PAGE_HEIGHT - MARGIN
            y -= leading
            current += b"BT /F1 %d Tf %d %d Td (%s) Tj ET\n" % (size, MARGIN, y, pdf_string(line))
        y -= PARAGRAPH_GAP
    pages.append(bytes(current))
    return pages


def make_pdf(title: str, paragraphs: list[str]) -> bytes:
    """A valid PDF 1.4 document whose text `pypdf` can extract again."""
    streams = _content_streams(title, paragraphs)
    page_ids = [5 + 2 * i for i in range(len(streams))]
    kids = " ".join(f"{pid} 0 R" for pid in page_ids).encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(streams)),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Title (%s) /Producer (Research Studio fake web) >>" % pdf_string(title),
    ]
    for pid, stream in zip(page_ids, streams, strict=True):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>"
            % (PAGE_WIDTH, PAGE_HEIGHT, pid + 1)
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")  # binary comment marks the file as binary
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref_at = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref_at,
    )
    return bytes(out)


def make_png(size: int = 16) -> bytes:
    """A valid `size` x `size` RGB gradient PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc

    # Each scanline is a filter byte (0 = none) followed by RGB pixels.
    rows = b"".join(
        b"\x00" + b"".join(bytes((x * 16 % 256, y * 16 % 256, 128)) for x in range(size))
        for y in range(size)
    )
    header = chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0))
    body = chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + header + body
