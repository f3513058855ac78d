"""What the browser tests do on the pages and read back from them, shared by the test files."""

from __future__ import annotations

import re
from pathlib import Path

from docx import Document
from playwright.sync_api import Page, expect
from pypdf import PdfReader

CITATION = re.compile(r"\s*\[S\d+(?:,\s*S\d+)*\]")


def words(text: str) -> str:
    """Text with its whitespace collapsed (PDF and DOM text break lines differently)."""
    return " ".join(text.split())


def no_sideways_scroll(page: Page) -> None:
    """The page is no wider than the viewport."""
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"the page is {widths[0]} px wide in {widths[1]} px"


def wait_for_form(page: Page, url: str) -> None:
    """Open the new research page once its options and resolution line have loaded."""
    page.goto(url)
    expect(page.locator("select#pipeline option").first).to_be_attached()
    expect(page.locator("#resolution")).to_contain_text("model:")


def open_first_citation(page: Page) -> tuple[str, str]:
    """Click the report's first citation; return the cited sentence and the card's first quote."""
    cite = page.locator("article#report a.cite").first
    expect(cite).to_be_visible()
    sentence = cite.evaluate("a => a.parentElement.textContent")
    cite.click()
    card = page.locator("aside#source-card")
    expect(card).to_be_visible()
    expect(card.locator(".source-title")).to_contain_text(cite.get_attribute("data-sid") or "")
    expect(cite).to_have_class(re.compile(r"\bactive\b"))
    quote = card.locator("ul.source-quotes li").first
    expect(quote).not_to_be_empty()
    marks = card.locator("#source-text mark")
    expect(marks.first).to_be_visible()
    marked = [words(text) for text in marks.all_text_contents()]
    assert any(words(quote.inner_text()) in text for text in marked), (quote.inner_text(), marked)
    return first_sentence(sentence), quote.inner_text()


def first_sentence(text: str) -> str:
    """The first few words of a cited paragraph without its citation marks (safe across line breaks)."""
    plain = words(CITATION.sub("", text))
    return " ".join(plain.split()[:6])


def download(page: Page, fmt: str, folder: Path) -> Path:
    """Click an export link and save what the browser downloads."""
    with page.expect_download() as info:
        page.locator(f'a.export[data-format="{fmt}"]').click()
    made = info.value
    assert made.failure() is None, made.failure()
    path = folder / made.suggested_filename
    made.save_as(path)
    assert path.suffix == f".{fmt}", made.suggested_filename
    return path


def pdf_text(path: Path) -> str:
    return words(" ".join(page.extract_text() or "" for page in PdfReader(path).pages))


def docx_text(path: Path) -> str:
    document = Document(str(path))
    parts = [paragraph.text for paragraph in document.paragraphs]
    for table in document.tables:
        parts.extend(cell.text for row in table.rows for cell in row.cells)
    return words(" ".join(parts))
