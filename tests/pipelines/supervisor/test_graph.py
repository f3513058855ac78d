"""The supervisor pipeline through its builder: delegation, store gating, clarification."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from research_studio.core.config import Configuration
from research_studio.pipelines.registry import graph_builder
from research_studio.pipelines.supervisor.prompts import VERIFIED_HEADING
from research_studio.services.clients import open_services
from tests.doubles.scripted_model import use_scripted_model
from tests.doubles.supervisor_script import TOOLS_KEY, SupervisorScript

pytestmark = pytest.mark.e2e


def tool_turns(state: dict[str, Any]) -> list[list[str]]:
    """The tools each supervisor turn called, in order."""
    return [
        [call["name"] for call in message.tool_calls]
        for message in state["supervisor_messages"]
        if isinstance(message, AIMessage)
    ]


async def test_the_supervisor_delegates_two_topics_in_parallel_and_stops_on_research_complete(
    run_supervisor: Callable[..., Any],
) -> None:
    model = SupervisorScript(topics=2).model(latency_s=0.2)
    state, _ = await run_supervisor(chat_model=model)
    assert tool_turns(state) == [
        ["think_tool", "ConductResearch", "ConductResearch"],
        ["ResearchComplete"],
    ]
    assert state["stop_reason"] == "research_complete"
    assert state["metadata"]["stop_reason"] == "research_complete"
    # The two researchers' first turns overlap in time: they ran in parallel.
    researcher = f"{TOOLS_KEY}search"
    first, second = [c for c in model.calls if (c.schema_name or "").startswith(researcher)][:2]
    assert first.started < second.ended and second.started < first.ended
    assert len(state["notes"]) == 2 and state["metadata"]["researchers"] == 2
    urls = [source["url"] for source in state["source_store"]]
    assert urls and len(urls) == len(set(urls))  # one stored source per URL
    assert {source["extraction_method"] for source in state["source_store"]} <= {
        "fetched",
        "search_raw",
    }
    assert state["metadata"]["llm_calls_by_node"]["researcher"] == 4


async def test_the_supervisor_stops_at_its_turn_limit(run_supervisor: Callable[..., Any]) -> None:
    state, _ = await run_supervisor(
        SupervisorScript(topics=1, rounds=5), max_researcher_iterations=2
    )
    assert tool_turns(state) == [["think_tool", "ConductResearch"]] * 2
    assert state["stop_reason"] == "iteration_cap"


async def test_test_mode_cuts_turns_and_parallel_researchers(
    run_supervisor: Callable[..., Any],
) -> None:
    state, _ = await run_supervisor(SupervisorScript(topics=3), test_mode=True)
    # Two turns of three topics each: two researchers run per turn, the third is refused.
    replies = [m.content for m in state["supervisor_messages"] if m.type == "tool"]
    assert len(tool_turns(state)) == 2 and state["stop_reason"] == "iteration_cap"
    assert sum("at most 2 researchers" in str(reply) for reply in replies) == 2
    assert len(state["notes"]) == 4


async def test_with_a_store_sources_are_kept_there_and_verified_findings_shown(
    run_supervisor: Callable[..., Any],
) -> None:
    store = InMemoryStore()
    state, model = await run_supervisor(store=store)
    kept = store.search(("research_studio", "supervisor", "test", "sources"), limit=100)
    assert sorted(item.value["url"] for item in kept) == sorted(s["url"] for s in state["sources"])
    assert all(item.value["content"] and item.value["timestamp"] for item in kept)
    assert not state["verified_disabled"]
    section = state["verified_section"]
    assert section.startswith(f"## {VERIFIED_HEADING}") and section in state["report"]
    shown = [r for r in state["statements"] if r["section"] == VERIFIED_HEADING]
    assert 3 <= len(shown) <= 5 and all(r["kind"] == "passage" for r in shown)
    assert model.calls_for("FindingsSelection")


async def test_without_a_store_verified_findings_are_disabled_and_the_report_says_so(
    run_supervisor: Callable[..., Any],
) -> None:
    state, model = await run_supervisor(store=False)
    assert state["verified_disabled"]
    assert "Verified Findings are disabled for this run: no LangGraph store" in state["report"]
    assert not model.calls_for("FindingsSelection")
    assert state["metadata"]["verified_disabled"] and state["metadata"]["verified_findings"] == 0
    # The rest of the report is still cited statement by statement.
    assert state["metadata"]["grounding"]["cited_statements"] > 0


async def test_an_ambiguous_request_pauses_before_clarify_and_uses_the_answer(
    make_config: Callable[..., Configuration],
) -> None:
    model = SupervisorScript(ambiguous=True).model()
    config = make_config(model=use_scripted_model(model))
    graph = graph_builder("supervisor")(checkpointer=InMemorySaver(), interrupt_on_clarify=True)
    thread: Any = {"configurable": {"thread_id": "ask"}}
    async with open_services(config):
        await graph.ainvoke({"query": "python"}, thread, context=config)
        paused = await graph.aget_state(thread)
        assert paused.next == ("clarify",)
        assert paused.values["clarification_question"] == "Which python do you mean?"
        await graph.aupdate_state(thread, {"user_clarification": "The snake"})
        await graph.ainvoke(None, thread, context=config)
        state = (await graph.aget_state(thread)).values
    assert "User clarification: The snake" in model.calls_for("ResearchQuestion")[0].prompt
    assert "(The snake)" in state["research_brief"] and state["report"]


async def test_clarification_can_be_switched_off(run_supervisor: Callable[..., Any]) -> None:
    state, model = await run_supervisor(SupervisorScript(ambiguous=True), allow_clarification=False)
    assert not model.calls_for("ClarifyWithUser") and state["report"]
