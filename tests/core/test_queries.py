"""Near-duplicate search detection."""

from __future__ import annotations

import pytest

from research_studio.core.queries import dedupe_queries, similarity


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("quantum computing applications", "applications of quantum computing"),
        ("Solid-state battery electrolytes", "solid state battery electrolyte"),
        ("coral bleaching 2024", "Coral  bleaching, 2024?"),
    ],
)
def test_same_search_in_other_words(first: str, second: str) -> None:
    assert similarity(first, second) >= 0.85


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("solid-state battery electrolytes", "solid-state battery electrolytes challenges"),
        ("coral bleaching 2024", "coral bleaching 2023"),
        ("python snake diet", "python language history"),
    ],
)
def test_different_searches(first: str, second: str) -> None:
    assert similarity(first, second) < 0.85


def test_dedupe_against_done_and_itself() -> None:
    kept = dedupe_queries(
        ["battery costs", "", "costs of battery", "battery costs 2030", "  dendrite growth  "],
        done=["Battery cost"],
        threshold=0.85,
    )
    assert kept == ["battery costs 2030", "dendrite growth"]


def test_a_bare_web_address_is_not_a_search() -> None:
    proposed = [
        "https://www.example.com/2019/11/cool-roofs/#abbr",
        "www.example.org/heat",
        "cool roofs https://example.com/study",  # words to match, with an address
        "cool roof albedo",
    ]
    assert dedupe_queries(proposed, done=[], threshold=0.85) == proposed[2:]
