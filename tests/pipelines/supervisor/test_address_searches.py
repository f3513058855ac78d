"""A web address a researcher passes as a search is answered, not searched: a small model's
guess at a page is not words a search engine can match. The call's other queries run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from research_studio.pipelines.supervisor import prompts as P
from tests.doubles.supervisor_script import SupervisorScript

pytestmark = pytest.mark.e2e

ADDRESSES = ["https://www.example.com/2019/11/26/reefs/#abbr", "www.example.org/reefs"]


@dataclass
class AddressResearcher(SupervisorScript):
    """The supervisor script whose researchers also pass web addresses as searches."""

    def researcher_turn(self, prompt: str) -> list[dict[str, Any]]:
        turn = super().researcher_turn(prompt)
        for call in turn:
            if call["name"] == "search":
                call["args"]["queries"] = [*ADDRESSES, *call["args"]["queries"]]
        return turn


async def test_a_web_address_passed_as_a_search_is_not_searched(
    run_supervisor: Callable[..., Any],
) -> None:
    state, model = await run_supervisor(AddressResearcher())
    searched = state["searches_done"]
    assert searched and not set(searched) & set(ADDRESSES)
    answered = [c.prompt for c in model.calls if P.NOT_SEARCHED.split(",")[0] in c.prompt]
    assert answered and all(address in answered[0] for address in ADDRESSES)
