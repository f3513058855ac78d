"""The subagent's dead ends are classified by code: a page below the run's source credibility
(domain trust, computed from its address) is low_credibility and never shown to the model."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from research_studio.core.config import Configuration
from tests.conftest import full_state
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

pytestmark = pytest.mark.e2e
QUERY = "coral bleaching heat stress"


@pytest.mark.parametrize(
    ("settings", "low"),
    [
        ({}, False),  # the local web's pages have the default domain trust, 0.6 ≥ 0.35
        ({"min_source_credibility": 0.7}, True),  # 0.6 < 0.7: every page is low credibility
        ({"min_source_credibility": 0.7, "enable_credibility_scoring": False}, False),
    ],
)
async def test_pages_below_the_source_credibility_are_low_credibility_dead_ends(
    make_config: Callable[..., Configuration], settings: dict[str, object], low: bool
) -> None:
    model = ResearchScript().model()
    config = make_config(model=use_scripted_model(model), **settings)
    state = await full_state("advanced", {"query": QUERY}, config)
    reasons = {end["reason"] for end in state["dead_ends"]}
    pages = {end["url"] for end in state["dead_ends"] if end["reason"] == "low_credibility"}
    if low:
        assert pages and all(url.startswith("http://127.0.0.1") for url in pages)
        # No page reached the model: no extraction call, no evidence, nothing verified.
        assert not model.calls_for("SubagentExtraction") and not state["evidence"]
    else:
        assert "low_credibility" not in reasons
        assert model.calls_for("SubagentExtraction") and state["evidence"]
