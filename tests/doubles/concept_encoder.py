"""A chunk encoder for hybrid-search tests that need no model: words of one concept share a vector.

It stands in for MiniLM where the test is about the index (consistency, removal, processes), not
about what the model understands; `tests/sources/test_docindex_hybrid.py` proves the paraphrase
behaviour with the real model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

CONCEPTS = (
    ("cat", "cats", "feline", "kitten", "kittens", "pet", "pets"),
    ("money", "revenue", "profit", "earnings", "income", "sales"),
    ("rain", "rainfall", "storm", "weather", "wind", "winds", "forecast"),
    ("roof", "roofs", "rooftop", "shingles"),
)
_CONCEPT_OF = {word: number for number, words in enumerate(CONCEPTS) for word in words}
WIDTH = 16


class ConceptEncoder:
    """Unit vectors counting each text's concepts (a text with none points at a spare axis)."""

    def __init__(self, name: str = "test:concepts") -> None:
        self.name = name

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.zeros((len(texts), WIDTH), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                if word in _CONCEPT_OF:
                    vectors[row, _CONCEPT_OF[word]] += 1.0
            if not vectors[row].any():
                vectors[row, WIDTH - 1] = 1.0
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
