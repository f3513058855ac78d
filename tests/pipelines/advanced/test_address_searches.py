"""A web address the planner, a subagent or the gap analysis proposes as a search is never
searched: a guess at a page is not words a search engine can match. The other searches run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from research_studio.core.config import Configuration
from tests.conftest import full_state
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

pytestmark = pytest.mark.e2e

ADDRESS = "https://www.example.com/2019/11/26/reefs/#abbr"


@dataclass
class AddressProposer(ResearchScript):
    """The research script that adds a web address to every list of searches it proposes."""

    def advanced_plan(self, prompt: str) -> dict[str, Any]:
        plan = super().advanced_plan(prompt)
        for node in [*plan["research_tree"]["primary"], *plan["research_tree"]["secondary"]]:
            node["queries"] = [ADDRESS, *node["queries"]]
        plan["research_tree"]["primary"][0]["queries"] = [ADDRESS]  # nothing else to search
        return plan

    def subagent_extraction(self, prompt: str) -> dict[str, Any]:
        found = super().subagent_extraction(prompt)
        return {**found, "refined_queries": [ADDRESS, *found["refined_queries"]]}

    def gap_analysis(self, prompt: str) -> dict[str, Any]:
        analysis = super().gap_analysis(prompt)
        for gap in analysis["gaps"]:
            gap["suggested_queries"] = [ADDRESS, *gap["suggested_queries"]]
        return analysis


async def test_a_proposed_web_address_is_never_searched(
    make_config: Callable[..., Configuration],
) -> None:
    script = AddressProposer(
        coverage=[0.5, 0.9],
        ready=[False, True],
        subagent_confidence=[0.5],
        evidence_per_section=2,  # not covered by count: the gap analysis is asked
    )
    config = make_config(model=use_scripted_model(script.model()), max_iterations=2)
    state = await full_state("advanced", {"query": "coral bleaching heat stress"}, config)
    searched = [q for f in state["subagent_findings"] for q in f["queries_run"]]
    assert searched and not [query for query in searched if "example.com" in query]
    # The question whose only search was an address is searched in its own words.
    first = state["plan"]["primary"][0]
    assert first["queries"] and "example.com" not in first["queries"][0]
    assert {f["iteration"] for f in state["subagent_findings"]} == {0, 1}
