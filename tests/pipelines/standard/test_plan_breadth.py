"""The multi-agent plan's breadth follows the question, bounded by max_research_questions.

The scripted planner only writes the plan's text; code keeps its distinct questions, up to the
setting, and starts one worker per question.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from research_studio.core.config import Configuration
from tests.conftest import full_state
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

pytestmark = pytest.mark.e2e

# A narrow question: the planner restates one aspect in several words.
NARROW = [
    "What is the boiling point of water at sea level?",
    "What is the boiling point of water at sea level?",
    "At sea level, what is the boiling point of water?",
]
# A broad question: many distinct aspects.
BROAD = [
    "What causes coral bleaching?",
    "How does ocean heat stress develop during marine heatwaves?",
    "Which reef regions recovered after the 2016 bleaching event?",
    "How do symbiotic algae respond to rising temperatures?",
    "What restoration methods help damaged reefs recover?",
    "How does ocean acidification interact with bleaching?",
    "Which policies reduce local stressors on reefs?",
]


@dataclass
class PlannedScript(ResearchScript):
    """The research script whose planner proposes the given research questions."""

    questions: list[str] = field(default_factory=list)

    def plan(self, prompt: str) -> dict[str, Any]:
        proposed = super().plan(prompt)
        return {**proposed, "research_questions": list(self.questions)}


async def _workers(
    make_config: Callable[..., Configuration], questions: list[str], **settings: Any
) -> tuple[int, dict[str, Any]]:
    script = PlannedScript(questions=questions)
    config = make_config(
        model=use_scripted_model(script.model()), max_iterations=1, max_subagents=2, **settings
    )
    state = await full_state("standard", {"query": "coral reefs", "mode": "multi"}, config)
    return len(state["worker_results"]), state


async def test_a_narrow_question_gets_fewer_workers_than_a_broad_one(
    make_config: Callable[..., Configuration],
) -> None:
    narrow, narrow_state = await _workers(make_config, NARROW)
    broad, broad_state = await _workers(make_config, BROAD)
    # Near-duplicate questions are one aspect: one question, one worker.
    assert narrow_state["research_questions"] == NARROW[:1] and narrow == 1
    # Distinct aspects each get a worker (max_subagents bounds only follow-up rounds), up to
    # the default of max_research_questions.
    default = Configuration.model_fields["max_research_questions"].default
    assert broad_state["research_questions"] == BROAD[:default]
    assert broad == default > narrow


async def test_the_setting_caps_the_plan_and_its_workers(
    make_config: Callable[..., Configuration],
) -> None:
    workers, state = await _workers(make_config, BROAD, max_research_questions=3)
    assert state["research_questions"] == BROAD[:3]
    assert workers == 3
    assert {result["question"] for result in state["worker_results"]} == set(BROAD[:3])
