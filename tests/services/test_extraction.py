"""Extractive evidence: the most relevant sentences, verbatim, verified by construction."""

from __future__ import annotations

from research_studio.core.config import Configuration
from research_studio.services.extraction import extract_sentences, query_terms, select_chunks

PAGE = """# Cool roofs

Cool Roofs Programme Overview

Cool roofs reflect most sunlight and can be 28 C cooler than dark roofs on summer afternoons.
The city also repainted 40 bus shelters in 2023.
In a 2024 pilot, cool roofs cut top-floor indoor temperatures by 1.8 C in buildings without air conditioning.
Parking is free on Sundays in the old town district.
"""


def test_relevant_sentences_are_copied_verbatim() -> None:
    findings = extract_sentences(
        Configuration(facts_per_page=2),
        request="Research request: do cool roofs lower temperatures?",
        questions=["How much cooler are cool roofs?"],
        url="file:///docs/roofs.md",
        text=PAGE,
    )
    texts = [finding["text"] for finding in findings]
    assert len(texts) == 2
    assert all(
        text in PAGE and finding["quote"] == text and finding["quote_verified"]
        for text, finding in zip(texts, findings, strict=True)
    )
    assert not any("Parking" in text or "Programme Overview" in text for text in texts)
    assert findings[0]["question"] == "How much cooler are cool roofs?"


def test_chunks_most_related_to_the_request_are_kept_in_order() -> None:
    text = "\n\n".join(
        [f"Unrelated paragraph {i} about parking." for i in range(10)]
        + ["Cool roofs reflect sunlight."]
        + ["More parking."] * 5
    )
    chunks = select_chunks(text, query_terms("cool roofs"), size=60, count=2)
    assert any("Cool roofs" in chunk for chunk in chunks) and len(chunks) == 2
