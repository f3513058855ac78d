"""Coverage after every supervisor round: the share of delegated topics a stored source is about."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from research_studio.pipelines.supervisor.nodes.supervisor import topic_coverage
from research_studio.pipelines.supervisor.prompts import FINDINGS_LABEL
from research_studio.pipelines.supervisor.state import StoredSource
from tests.doubles.supervisor_script import SupervisorScript

NONSENSE = "qzxv wplm blorft"  # no page of the local web is about this


class LostSecondRound(SupervisorScript):
    """From its second round on, the supervisor delegates a topic no page is about."""

    def supervisor_turn(self, prompt: str) -> list[dict[str, Any]]:
        calls = super().supervisor_turn(prompt)
        if prompt.count(FINDINGS_LABEL) < self.topics:
            return calls
        return [
            {**c, "args": {"research_topic": NONSENSE}} if c["name"] == "ConductResearch" else c
            for c in calls
        ]


def source(title: str, content: str) -> StoredSource:
    return StoredSource(
        url=f"https://example.org/{title}",
        title=title,
        content=content,
        extraction_method="fetched",
        timestamp=0.0,
        provider="searxng",
        published=None,
    )


def test_a_topic_is_covered_by_a_source_holding_half_its_content_words() -> None:
    reef = source("Reefs", "Marine heat waves bleach coral on shallow reefs.")
    assert topic_coverage(["coral bleaching heat"], [reef]) == 1.0  # coral, heat: 2 of 3
    assert topic_coverage(["coral bleaching heat", "volcanic ash aviation"], [reef]) == 0.5
    assert topic_coverage(["coral reefs"], []) == 0.0
    assert topic_coverage([], [reef]) == 0.0


async def test_every_round_records_the_coverage_of_the_topics_delegated_so_far(
    run_supervisor: Callable[..., Any],
) -> None:
    state, _ = await run_supervisor(
        SupervisorScript(topics=2, rounds=2), max_researcher_iterations=3
    )
    assert state["research_iterations"] == 3 and len(state["research_topics"]) == 4
    assert state["coverage_history"] == [1.0, 1.0, 1.0]


async def test_a_round_whose_topics_nothing_is_about_lowers_coverage(
    run_supervisor: Callable[..., Any],
) -> None:
    state, _ = await run_supervisor(
        LostSecondRound(topics=2, rounds=2), max_researcher_iterations=3
    )
    assert state["research_topics"][2:] == [NONSENSE, NONSENSE]
    assert state["coverage_history"] == [1.0, 0.5, 0.5]
