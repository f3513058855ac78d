"""The advanced loop stops on coverage counted by code (spec 001 §2.4: min(1, n/3) per section over
verified evidence), lowered by the model's reading, never on the model's rating alone.

The scripted model rates its coverage; what the runs assert is what code made of the evidence.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from research_studio.core.config import Configuration
from research_studio.grounding.quotes import quote_in_text
from research_studio.pipelines.advanced.coverage import counted_coverage
from tests.conftest import full_state
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

pytestmark = pytest.mark.e2e
QUERY = "coral bleaching heat stress"


async def run(
    make_config: Callable[..., Configuration],
    pipeline: str,
    script: ResearchScript,
    **settings: Any,
) -> tuple[dict[str, Any], Any]:
    model = script.model()
    config = make_config(model=use_scripted_model(model), **settings)
    return await full_state(pipeline, {"query": QUERY}, config), model


@pytest.mark.parametrize("pipeline", ["advanced", "advanced-full"])
async def test_a_model_rating_full_coverage_without_verified_evidence_does_not_stop(
    make_config: Callable[..., Configuration], pipeline: str
) -> None:
    # The model says every section is fully covered and the research sufficient, but no quote
    # its subagents gave is on the page read: nothing verified answers any section.
    script = ResearchScript(coverage=[1.0], ready=[True], quotes_off_the_page=True)
    state, model = await run(make_config, pipeline, script, max_iterations=2)
    assert not [item for item in state["evidence"] if item["quote_verified"]]
    assert len(model.calls_for("GapAnalysis")) == 2 and state["research_iteration"] == 1
    assert state["stop_reason"] == "iteration_cap"
    # The coverage each round's stop rule read (the trust engine later rates claims instead).
    assert state["coverage_history"] == [0.0, 0.0]
    # Code filed a gap for every section the model called covered, and searched for it.
    second = [
        q for f in state["subagent_findings"] if f["iteration"] == 1 for q in f["queries_run"]
    ]
    assert second


@pytest.mark.parametrize("pipeline", ["advanced", "advanced-full", "advanced-optimized"])
async def test_three_verified_items_per_section_stop_the_loop_whatever_the_model_rates(
    make_config: Callable[..., Configuration], web_server: FakeWeb, pipeline: str
) -> None:
    script = ResearchScript(coverage=[0.2], ready=[False], facts_per_page=4)
    state, model = await run(make_config, pipeline, script, max_iterations=3)
    outline = state["plan"]["outline"]
    # The precondition, counted here from the pages themselves: three quotes per section that
    # are on the page they came from.
    found = Counter(
        item["question"]
        for item in state["evidence"]
        if any(quote_in_text(item["quote"], page.text) for page in web_server.pages)
    )
    assert all(found[section] >= 3 for section in outline), (found, outline)
    assert state["stop_reason"] == "coverage_reached" and state["research_iteration"] == 0
    assert not model.calls_for("GapAnalysis")  # the document's quick check: no model call
    assert state["coverage_history"] == [1.0]


async def test_two_verified_items_per_section_cap_what_the_model_claims(
    make_config: Callable[..., Configuration],
) -> None:
    # Two verified items per section count 0.67: the model's 1.0 and "sufficient" end the loop as
    # ready, but the coverage recorded is the count's, not the model's.
    script = ResearchScript(coverage=[1.0], ready=[True], evidence_per_section=2)
    state, model = await run(make_config, "advanced", script, max_iterations=3)
    outline = state["plan"]["outline"]
    assert len(model.calls_for("GapAnalysis")) == 1
    assert state["stop_reason"] == "ready"  # not coverage_reached: 0.67 < min_confidence
    assert state["section_confidence"] == counted_coverage(outline, state["evidence"])
    assert set(state["section_confidence"].values()) == {0.667}
    assert state["coverage_history"] == [0.667]
