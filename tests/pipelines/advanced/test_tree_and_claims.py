"""The research tree's three buckets, the first round's ≤ 4 primary + 1 secondary questions
(001 §2.1), and the trust engine's 8-24 claims (001 §3.3): code's rules on the model's plan."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from research_studio.core.config import Configuration
from research_studio.pipelines.advanced.trust_engine.rules import MAX_CLAIMS
from tests.conftest import full_state
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import ScriptedRequest, use_scripted_model

pytestmark = pytest.mark.e2e
QUERY = "coral bleaching heat stress"


TOPICS = (
    "ocean heat",
    "algae loss",
    "reef mortality",
    "fish decline",
    "tourism cost",
    "policy response",
    "reef recovery",
    "coral restoration",
    "future outlook",
)


def node(question: str, priority: float, topic: int) -> dict[str, Any]:
    return {
        "question": question,
        "section": "Evidence",
        "queries": [f"coral bleaching {TOPICS[topic]}"],
        "target_sources": [],
        "priority": priority,
    }


def wide_plan(_request: ScriptedRequest) -> dict[str, Any]:
    """Six primary questions, two secondary, one tertiary."""
    primary = [node(f"Primary question {n}?", 1.0 - n / 20, n) for n in range(6)]
    secondary = [node(f"Secondary question {n}?", 0.6 - n / 10, 6 + n) for n in range(2)]
    return {
        "topic": "Coral bleaching",
        "outline": ["Background", "Evidence", "Outlook"],
        "research_tree": {
            "primary": primary,
            "secondary": secondary,
            "tertiary": [node("Tertiary question?", 0.2, 8)],
        },
        "search_strategy": "broad first",
    }


async def test_the_first_round_takes_four_primary_and_one_secondary_question(
    make_config: Callable[..., Configuration],
) -> None:
    model = ResearchScript().model()
    model.script("PlanOutput", wide_plan)
    config = make_config(model=use_scripted_model(model), max_subagents=8, max_iterations=1)
    state = await full_state("advanced", {"query": QUERY}, config)
    assert [item["question"] for item in state["plan"]["tertiary"]] == ["Tertiary question?"]
    asked = [finding["question"] for finding in state["subagent_findings"]]
    assert sorted(asked) == sorted(
        [
            *(f"Primary question {n}?" for n in range(4)),
            "Secondary question 0?",
        ]
    )


async def test_the_trust_engine_keeps_up_to_twenty_four_claims(
    make_config: Callable[..., Configuration],
) -> None:
    # The model drafts one claim per evidence item, as many as there are: code keeps 24 at most.
    script = ResearchScript(facts_per_page=8, claims_drafted=40)
    model = script.model()
    config = make_config(model=use_scripted_model(model), facts_per_page=8, max_iterations=1)
    state = await full_state("advanced", {"query": QUERY}, config)
    assert len(state["evidence"]) > MAX_CLAIMS == 24
    assert len(state["claims"]) == MAX_CLAIMS
