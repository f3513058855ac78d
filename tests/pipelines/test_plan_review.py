"""Plan review as a LangGraph client does it (Studio, `langgraph dev`): the graph pauses before
review_plan, the client writes plan_feedback to the thread and continues."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from research_studio.core.config import Configuration
from research_studio.pipelines.registry import graph_builder
from research_studio.services.clients import open_services
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

EDITED = ["How hot must water get for corals to bleach?", "Do bleached reefs recover?"]


@pytest.mark.e2e
@pytest.mark.parametrize("pipeline", ["standard", "advanced"])
async def test_a_client_edits_the_paused_plan(
    make_config: Callable[..., Configuration], pipeline: str
) -> None:
    model = ResearchScript().model()
    config = make_config(model=use_scripted_model(model), review_plan=True)
    graph = graph_builder(pipeline)(checkpointer=InMemorySaver())
    thread: Any = {"configurable": {"thread_id": "t"}}
    async with open_services(config):
        await graph.ainvoke(
            {"query": "coral bleaching heat stress", "mode": "single"}, thread, context=config
        )
        paused = await graph.aget_state(thread)
        assert paused.next == ("review_plan",) and not paused.values.get("report")
        feedback = "\n".join(f"- {question}" for question in EDITED)
        await graph.aupdate_state(thread, {"plan_feedback": feedback})
        await graph.ainvoke(None, thread, context=config)
        state = (await graph.aget_state(thread)).values
    assert state["report"] and not state.get("plan_feedback")
    if pipeline == "standard":
        assert state["research_questions"] == EDITED
        assert {item["question"] for item in state["evidence"]} <= set(EDITED)
    else:
        assert [node["question"] for node in state["plan"]["primary"]] == EDITED
        assert {query["query"] for query in state["plan"]["queries"]} == set(EDITED)


@pytest.mark.e2e
async def test_without_the_setting_the_graph_never_pauses(
    make_config: Callable[..., Configuration],
) -> None:
    config = make_config(model=use_scripted_model(ResearchScript().model()))
    graph = graph_builder("standard")(checkpointer=InMemorySaver())
    thread: Any = {"configurable": {"thread_id": "t"}}
    async with open_services(config):
        await graph.ainvoke({"query": "coral bleaching", "mode": "single"}, thread, context=config)
        state = await graph.aget_state(thread)
    assert not state.next and state.values["report"]
