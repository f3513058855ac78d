"""Sentence splitting and chunking at natural boundaries."""

from __future__ import annotations

import pytest

from research_studio.core.chunking import chunk_text, split_paragraphs, split_sentences


def test_sentences_keep_abbreviations_numbers_and_quotes() -> None:
    text = 'Dr. Lee measured 3.5 kWh. Output rose 12%! Was it "enough." Nobody knows (e.g. Fig. 2).'
    assert split_sentences(text) == [
        "Dr. Lee measured 3.5 kWh.",
        "Output rose 12%!",
        'Was it "enough."',
        "Nobody knows (e.g. Fig. 2).",
    ]


def test_paragraphs_collapse_inner_whitespace() -> None:
    assert split_paragraphs("a  b\nc\n\n\n d ") == ["a b c", "d"]


def test_chunks_respect_size_and_paragraph_boundaries() -> None:
    paragraphs = [f"Paragraph {i} says something useful about batteries." for i in range(40)]
    chunks = chunk_text("\n\n".join(paragraphs), size=300)
    assert all(len(chunk) <= 300 for chunk in chunks)
    rejoined = [p for chunk in chunks for p in chunk.split("\n\n")]
    assert rejoined == paragraphs


def test_long_paragraph_breaks_at_sentences_then_words() -> None:
    sentence = "Solid electrolytes resist dendrites. "
    chunks = chunk_text(sentence * 30 + "x" * 500, size=200)
    assert all(len(chunk) <= 200 for chunk in chunks)
    assert chunks[0].endswith("dendrites.")


def test_empty_text_and_bad_size() -> None:
    assert chunk_text("   \n\n  ") == []
    with pytest.raises(ValueError):
        chunk_text("a", size=0)
