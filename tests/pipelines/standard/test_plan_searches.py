"""A web address the planner proposes as a search is never searched: it is a guess at a page,
not words to match (small models invent them). Code drops it; the plan's other searches run."""

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

ADDRESSES = ["https://www.example.com/2019/11/26/cool-roofs/#abbr", "www.example.org/reefs"]


@dataclass
class AddressPlanner(ResearchScript):
    """The research script whose planner also proposes web addresses as searches."""

    def plan(self, prompt: str) -> dict[str, Any]:
        proposed = super().plan(prompt)
        return {**proposed, "searches": [*ADDRESSES, *proposed["searches"]]}


@pytest.mark.parametrize("mode", ["single", "multi"])
async def test_a_proposed_web_address_is_not_searched(
    make_config: Callable[..., Configuration], mode: str
) -> None:
    config = make_config(model=use_scripted_model(AddressPlanner().model()), max_iterations=1)
    state = await full_state("standard", {"query": "coral reefs", "mode": mode}, config)
    searched = state["searches_done"]
    assert searched and not set(searched) & set(ADDRESSES)
    assert "coral reefs" in searched  # the user's words and the plan's other searches ran
