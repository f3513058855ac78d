"""A broken answer to a pipeline's first node is retried, and a run whose first node still
fails goes on from a plain reading of the query. Real OpenAI client against the local stand-in."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from research_studio.core.config import Configuration
from tests.conftest import full_state
from tests.doubles.fake_chat import ChatFaults
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript

pytestmark = pytest.mark.e2e
QUERY = "coral bleaching heat stress"
FIRST = {"standard": "understand", "advanced": "query_analyzer"}


async def run(
    pipeline: str, web: FakeWeb, make_config: Callable[..., Configuration]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One run against the stand-in: (final state, the first node's call records)."""
    web.chat.responder = ResearchScript(coverage=[0.9], ready=[True]).chat_responder()
    node = FIRST[pipeline]
    config = make_config(
        model="openai:fake-model",
        openai_base_url=web.url("/v1"),
        llm_max_retries=0,
        max_iterations=1,
    )
    state = await full_state(pipeline, {"query": QUERY, "mode": "single"}, config)
    return state, [call for call in state["llm_calls"] if call["node"] == node]


@pytest.mark.parametrize("pipeline", ["standard", "advanced"])
async def test_a_cut_first_answer_is_retried_and_the_run_goes_on(
    pipeline: str, web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.chat.faults = ChatFaults(rate=1.0, kinds=("truncated",), limit=1)
    state, calls = await run(pipeline, web, make_config)
    assert web.chat.injected == ["truncated"]
    assert [(c["ok"], c["error_kind"]) for c in calls] == [(False, "truncated"), (True, None)]
    node = FIRST[pipeline]
    assert not [e for e in state.get("errors", []) if e["node"] == node]
    assert state["report"] and state["evidence"]


@pytest.mark.parametrize("pipeline", ["standard", "advanced"])
async def test_a_first_node_that_still_fails_records_why_and_the_run_goes_on(
    pipeline: str, web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.chat.faults = ChatFaults(rate=1.0, kinds=("prose",), limit=3)
    state, calls = await run(pipeline, web, make_config)
    node = FIRST[pipeline]
    assert [c["error_kind"] for c in calls] == ["invalid_json"] * 3
    [error] = [e for e in state["errors"] if e["node"] == node]
    assert error["kind"] == "invalid_json"
    assert state["report"] and state["evidence"]
