"""Tool calling everywhere: native calls where the server has them, JSON picks where it has not."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from research_studio.pipelines.supervisor.tool_calls import plain_history
from tests.doubles.fake_web import FakeWeb
from tests.doubles.supervisor_script import TOOLS_KEY, SupervisorScript


def test_plain_history_spells_out_tool_calls_and_results() -> None:
    call = {"name": "search", "args": {"queries": ["reef heat"]}, "id": "c1"}
    plain = plain_history(
        [
            HumanMessage(content="Research topic: reefs"),
            AIMessage(content="", tool_calls=[call]),
            ToolMessage(content="Search results for: reef heat", name="search", tool_call_id="c1"),
        ]
    )
    assert [type(m) for m in plain] == [HumanMessage, AIMessage, HumanMessage]
    assert (
        plain[1].content == 'Called: [{"tool": "search", "arguments": {"queries": ["reef heat"]}}]'
    )
    assert plain[2].content.startswith("Result of search:\nSearch results for:")


def tool_requests(web: FakeWeb) -> list[dict[str, Any]]:
    return [r for r in web.chat.requests if len(r.get("tools") or []) >= 2]


@pytest.mark.e2e
async def test_a_json_mode_only_server_gets_the_tools_through_the_fallback(
    web: FakeWeb, run_supervisor: Callable[..., Any]
) -> None:
    web.chat.supports_tools = web.chat.supports_json_schema = False
    web.chat.responder = SupervisorScript(topics=2).chat_responder()
    state, _ = await run_supervisor(model="openai:fake-model", openai_base_url=web.url("/v1"))
    # One native attempt per model instance is refused; every later turn goes as JSON.
    assert len(tool_requests(web)) == 1
    methods = {(c["node"], c["method"]) for c in state["llm_calls"] if c["ok"]}
    assert {("supervisor", "json_mode"), ("researcher", "json_mode")} <= methods
    turns = [
        [call["name"] for call in m.tool_calls]
        for m in state["supervisor_messages"]
        if isinstance(m, AIMessage)
    ]
    assert turns[0].count("ConductResearch") == 2 and turns[-1] == ["ResearchComplete"]
    assert len(state["notes"]) == 2 and state["source_store"]
    assert state["metadata"]["grounding"]["cited_statements"] > 0


@pytest.mark.e2e
async def test_native_parallel_tool_calls_over_an_openai_compatible_server(
    web: FakeWeb, run_supervisor: Callable[..., Any]
) -> None:
    web.chat.responder = SupervisorScript(topics=2).chat_responder()
    state, _ = await run_supervisor(model="openai:fake-model", openai_base_url=web.url("/v1"))
    assert len(tool_requests(web)) == 6  # 2 supervisor turns, 2 turns of each of 2 researchers
    assert {c["method"] for c in state["llm_calls"] if c["node"] == "supervisor"} == {"tools"}
    assert len(state["notes"]) == 2 and state["stop_reason"] == "research_complete"


@pytest.mark.e2e
async def test_a_model_that_calls_no_tools_still_gets_the_brief_researched(
    run_supervisor: Callable[..., Any],
) -> None:
    script = SupervisorScript()
    model = script.model()
    for tools in (
        "ConductResearch,ResearchComplete,think_tool",
        "search,think_tool,ResearchComplete",
    ):
        model.script(f"{TOOLS_KEY}{tools}", "I would rather just answer.")
    state, _ = await run_supervisor(chat_model=model)
    turns = [m.tool_calls for m in state["supervisor_messages"] if isinstance(m, AIMessage)]
    assert [call["name"] for call in turns[0]] == ["ConductResearch"]
    assert turns[0][0]["args"]["research_topic"] == state["research_brief"]
    assert state["stop_reason"] == "no_tool_calls" and state["searches_done"]
    assert state["metadata"]["grounding"]["cited_statements"] > 0


@pytest.mark.e2e
async def test_extractive_runs_use_no_model_prose(run_supervisor: Callable[..., Any]) -> None:
    state, model = await run_supervisor(extraction="extractive")
    for role in ("PageSummary", "CompressedResearch", "FindingsSelection", "ReportDraft"):
        assert not model.calls_for(role), role
    assert 3 <= state["metadata"]["verified_findings"] <= 5
    assert all(r["kind"] == "passage" for r in state["statements"])
