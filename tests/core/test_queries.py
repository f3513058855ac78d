"""Near-duplicate search detection."""

from __future__ import annotations

import pytest

from research_studio.core.queries import dedupe_queries, echoes_instructions, similarity


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


def test_a_proposal_that_copies_the_models_instructions_is_an_echo() -> None:
    instructions = "You are a research planner. Turn a request into a plan a team can execute."
    echo = "]You're a research planner. Turn a request into a plan for a team to execute"
    assert echoes_instructions(echo, instructions, "How do cool roofs reduce heat?")
    assert not echoes_instructions("How do cool roofs reduce heat?", instructions, "")
    # Words the user asked with are theirs, even when the instructions hold them too.
    asked = "turn a request into a plan a team can execute"
    assert not echoes_instructions(asked, instructions, asked)


def test_text_without_a_word_is_no_query() -> None:
    assert dedupe_queries([",", " ... ", "—", "cool roofs"], [], 0.9) == ["cool roofs"]
