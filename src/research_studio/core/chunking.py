"""Splitting page text into sentences and into size-bounded chunks at natural boundaries."""

from __future__ import annotations

import re

# A sentence ends at . ! ? (optionally closed by a quote or bracket) followed by space and an
# upper-case letter, digit or quote. Common abbreviations are protected below.
_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+(?=[\"'(\[]?[A-Z0-9])")
_ABBREVIATIONS = re.compile(
    r"\b(?:e\.g|i\.e|etc|vs|Dr|Mr|Mrs|Ms|Prof|Sr|Jr|St|No|Fig|al|approx|Inc|Ltd|Co|U\.S)\.$"
)
# A block ends at a blank line or where a list item, heading or table row starts: two list
# items are never one paragraph (nor one quote).
BLOCK_BREAK = re.compile(r"\n[ \t]*\n\s*|\n(?=[ \t]*(?:[-*+\u2022]\s|\d{1,3}[.)]\s|#|\|))")
_WHITESPACE = re.compile(r"\s+")


def split_sentences(text: str) -> list[str]:
    """Sentences of a text, whitespace-collapsed, abbreviations kept intact."""
    sentences: list[str] = []
    for paragraph in split_paragraphs(text):
        pending = ""
        last = 0
        for match in _SENTENCE_END.finditer(paragraph):
            piece = paragraph[last : match.start()].strip()
            last = match.end()
            pending = f"{pending} {piece}".strip() if pending else piece
            if _ABBREVIATIONS.search(pending):
                continue
            sentences.append(pending)
            pending = ""
        tail = paragraph[last:].strip()
        pending = f"{pending} {tail}".strip() if pending else tail
        if pending:
            sentences.append(pending)
    return sentences


def split_paragraphs(text: str) -> list[str]:
    """Non-empty paragraphs, each with its inner whitespace collapsed."""
    return [
        _WHITESPACE.sub(" ", block).strip() for block in BLOCK_BREAK.split(text) if block.strip()
    ]


def _hard_split(text: str, size: int) -> list[str]:
    pieces: list[str] = []
    while len(text) > size:
        cut = text.rfind(" ", 0, size)
        cut = cut if cut > size // 2 else size
        pieces.append(text[:cut].strip())
        text = text[cut:].strip()
    if text:
        pieces.append(text)
    return pieces


def _units(text: str, size: int) -> list[str]:
    """Paragraphs, with over-long ones broken into sentences, and over-long sentences cut."""
    units: list[str] = []
    for paragraph in split_paragraphs(text):
        if len(paragraph) <= size:
            units.append(paragraph)
            continue
        for sentence in split_sentences(paragraph):
            units.extend(_hard_split(sentence, size) if len(sentence) > size else [sentence])
    return units


def chunk_text(text: str, size: int = 3000) -> list[str]:
    """Greedy chunks of at most `size` characters that break at paragraph or sentence ends."""
    if size < 1:
        raise ValueError("chunk size must be positive")
    chunks: list[str] = []
    current = ""
    for unit in _units(text, size):
        joined = f"{current}\n\n{unit}" if current else unit
        if len(joined) <= size:
            current = joined
        else:
            chunks.append(current)
            current = unit
    if current:
        chunks.append(current)
    return chunks
