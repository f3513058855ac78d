"""What a document says: the title, text and date of HTML, PDF and plain text (CPU-bound).

These run on the process's parser thread (`parser_thread.py`) or in parser worker processes
(`parser_pool.py`), never on the event loop.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import io
import logging
from typing import Literal

# pypdf logs its own warnings about damaged PDFs; the caller reports an unreadable file once,
# in its words, so these would only interleave with that line.
logging.getLogger("pypdf").setLevel(logging.ERROR)

ContentKind = Literal["html", "pdf", "text", "markdown"]
Parsed = tuple[str, str, str | None]

# A small page parsed once per process: first use loads the domain list, date parsers and so on.
_WARM_UP = (
    b'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Warm up</title>'
    b'<link rel="canonical" href="https://example.com/warm-up"><meta name="date" content="2024-05-01">'
    b'</head><body><nav><a href="/">Home</a></nav><article><h1>Warm up</h1>'
    + b"<p>A paragraph with a <a href='/x'>link</a>, long enough to count as prose for the parser.</p>"
    * 4
    + b"</article><footer>All rights reserved</footer></body></html>"
)


def extract_html(body: bytes) -> Parsed:
    """Title, main text as Markdown, and date of an HTML document (CPU-bound)."""
    import trafilatura
    from trafilatura.utils import load_html

    tree = load_html(body)
    if tree is None:
        return "", "", None
    # Metadata first: extract() prunes the tree it is given.
    metadata = trafilatura.extract_metadata(tree)
    text = trafilatura.extract(
        tree, output_format="markdown", include_comments=False, favor_recall=True
    )
    if not text:
        text = trafilatura.html2txt(body) or ""
    title = (metadata.title if metadata else None) or ""
    date = metadata.date if metadata else None
    return title.strip(), text.strip(), date


def extract_pdf(body: bytes) -> tuple[str, str]:
    """Title and text of a PDF (CPU-bound)."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(body))
    pages = [page.extract_text() or "" for page in reader.pages]
    title = ""
    if reader.metadata is not None and reader.metadata.title:
        title = str(reader.metadata.title)
    return title.strip(), "\n\n".join(part.strip() for part in pages if part.strip())


def decode_text(body: bytes, charset: str | None) -> str:
    """Text in its declared charset; an unknown charset falls back to UTF-8, bad bytes are replaced."""
    encoding = "utf-8"
    if charset:
        with contextlib.suppress(LookupError):
            encoding = codecs.lookup(charset).name
    return body.decode(encoding, errors="replace").strip()


def parse_document(kind: ContentKind, body: bytes, charset: str | None) -> Parsed:
    """Title, text and date of a document of any supported kind (runs in a parser worker)."""
    if kind == "html":
        return extract_html(body)
    if kind == "pdf":
        title, text = extract_pdf(body)
        return title, text, None
    return "", decode_text(body, charset), None


@functools.cache
def warm_up_pages() -> None:
    """Load the page parser and parse a small page once in this process (on the parser thread)."""
    with contextlib.suppress(Exception):  # a broken parser shows up on the first real document
        parse_document("html", _WARM_UP, None)


@functools.cache
def warm_up() -> None:
    """Load the PDF parser (in a worker, before it says it is ready): workers parse PDFs, and the
    rare page too large for the parser thread loads the page parser when it comes."""
    with contextlib.suppress(Exception):
        import pypdf  # noqa: F401
