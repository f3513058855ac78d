"""Every structured output the advanced nodes ask for is used by code; settings take effect;
backtracking adds new searches or does not count a round."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.records import DeadEnd
from research_studio.pipelines.advanced.discovery.schemas import EraCotAnalysis
from research_studio.pipelines.advanced.graph import build_optimized_graph
from research_studio.pipelines.advanced.nodes.backtrack import backtrack_handler
from research_studio.pipelines.advanced.schemas import GapAnalysis
from research_studio.services.clients import open_services
from tests.conftest import full_state
from tests.doubles.advanced_script import FamilyRoles
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import ScriptedChatModel, ScriptedRequest, use_scripted_model
from tests.pipelines.advanced.test_discovery import documents, run_graph

QUERY = "coral bleaching heat stress"


def two_per_section() -> ResearchScript:
    """A script whose subagents find two verified items per section: coverage by count 0.67."""
    return ResearchScript(evidence_per_section=2)


def scripted(
    make_config: Callable[..., Configuration], script: ResearchScript, **settings: Any
) -> tuple[Configuration, ScriptedChatModel]:
    model = script.model()
    return make_config(model=use_scripted_model(model), **settings), model


def gap_reply(
    sections: dict[str, tuple[float, str]] | None, recommendation: str, gaps: bool
) -> Callable[[ScriptedRequest], dict[str, Any]]:
    """A gap analysis over the prompt's outline: each section's confidence and what is missing."""

    def reply(request: ScriptedRequest) -> dict[str, Any]:
        outline = request.prompt.split("Outline: ", 1)[1].splitlines()[0].split("; ")
        analysis = [
            {"section": s, "confidence": (sections or {}).get(s, (0.6, ""))[0]} for s in outline
        ]
        for item in analysis:
            item["missing"] = (sections or {}).get(item["section"], (0.6, ""))[1]
        found = [
            {
                "section": outline[-1],
                "severity": "medium",
                "description": "more detail",
                "suggested_queries": [f"{QUERY} {outline[-1]} detail"],
            }
        ]
        return GapAnalysis.model_validate(
            {
                "section_analysis": analysis,
                "overall_confidence": 0.6,
                "gaps": found if gaps else [],
                "recommendation": recommendation,
            }
        ).model_dump()

    return reply


@pytest.mark.e2e
async def test_a_sufficient_recommendation_stops_the_loop_when_no_section_is_weak(
    make_config: Callable[..., Configuration],
) -> None:
    # Two verified items per section: not covered by count alone, so the model is asked.
    config, model = scripted(make_config, two_per_section(), max_iterations=4)
    model.script("GapAnalysis", gap_reply(None, "sufficient", gaps=True))
    state = await full_state("advanced", {"query": QUERY}, config)
    assert state["stop_reason"] == "ready" and state["research_iteration"] == 0
    assert len(model.calls_for("GapAnalysis")) == 1


@pytest.mark.e2e
async def test_a_sufficient_recommendation_with_a_weak_section_goes_on(
    make_config: Callable[..., Configuration],
) -> None:
    config, model = scripted(make_config, two_per_section(), max_iterations=2)
    weak = {"Outlook": (0.3, "")}
    model.script("GapAnalysis", gap_reply(weak, "sufficient", gaps=True))
    state = await full_state("advanced", {"query": QUERY}, config)
    assert state["stop_reason"] != "ready" and len(model.calls_for("GapAnalysis")) == 2


@pytest.mark.e2e
async def test_what_a_weak_section_misses_is_searched_next(
    make_config: Callable[..., Configuration],
) -> None:
    config, model = scripted(make_config, two_per_section(), max_iterations=2)
    missing = {"Outlook": (0.2, "reef recovery forecasts")}
    model.script("GapAnalysis", gap_reply(missing, "continue", gaps=False))
    state = await full_state("advanced", {"query": QUERY}, config)
    second = [
        q for f in state["subagent_findings"] if f["iteration"] == 1 for q in f["queries_run"]
    ]
    assert any("reef recovery forecasts" in query for query in second), second


@pytest.mark.e2e
async def test_a_query_the_model_calls_complex_skips_the_fast_path(
    make_config: Callable[..., Configuration],
) -> None:
    script = ResearchScript(coverage=[0.9], ready=[True])
    config, model = scripted(make_config, script)
    model.script(
        "RoutedEraCotAnalysis",
        lambda request: {
            **FamilyRoles(script).era_cot_analysis(request.prompt),
            "complexity": "complex",
        },
    )
    graph = build_optimized_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=False)
    async with open_services(config):
        state, _steps, _paused = await run_graph(graph, config, {"query": "What is CRISPR?"})
    assert state["query_complexity"] == "medium" and not state["fast_path"]


@pytest.mark.e2e
async def test_the_planner_is_told_the_subject_type_and_focus(
    make_config: Callable[..., Configuration],
) -> None:
    script = ResearchScript()
    config, model = scripted(make_config, script, max_iterations=1)
    model.script(
        "QueryAnalysisOutput",
        lambda request: {
            **script.query_analysis(request.prompt),
            "subject_type": "environmental phenomenon",
            "topic_focus": "marine heatwaves since 2016",
        },
    )
    await full_state("advanced", {"query": QUERY}, config)
    [plan] = model.calls_for("PlanOutput")
    assert "- subject type: environmental phenomenon" in plan.prompt
    assert "- focus: marine heatwaves since 2016" in plan.prompt


@pytest.mark.e2e
@pytest.mark.parametrize("per_worker", [1, 3])
async def test_a_planned_source_type_aims_one_search_when_there_is_room(
    make_config: Callable[..., Configuration], tmp_path: Path, per_worker: int
) -> None:
    script = ResearchScript(coverage=[0.9], ready=[True], query_class="person_profile")
    config, _model = scripted(
        make_config,
        script,
        search="local",
        docs=[documents(tmp_path / "docs")],
        searches_per_worker=per_worker,
    )
    state = await full_state(
        "advanced-full", {"query": "Research Jane Roe at Amherst College"}, config
    )
    aimed = [q for q in state["searches_done"] if q.endswith((" official", " study"))]
    assert bool(aimed) == (per_worker == 3), state["searches_done"]


@pytest.mark.e2e
@pytest.mark.parametrize("facts", [1, 3])
async def test_facts_per_page_caps_the_evidence_of_each_page(
    make_config: Callable[..., Configuration], facts: int
) -> None:
    # One subagent: subagents that found the same page each read it for their own question.
    config, _model = scripted(
        make_config,
        ResearchScript(facts_per_page=5),
        facts_per_page=facts,
        max_iterations=1,
        max_subagents=1,
    )
    state = await full_state("advanced", {"query": QUERY}, config)
    per_page = Counter(item["url"] for item in state["findings"])
    assert per_page and max(per_page.values()) == facts


@pytest.mark.e2e
async def test_irrelevant_pages_on_a_topic_query_get_searches_with_new_context(
    make_config: Callable[..., Configuration],
) -> None:
    script = ResearchScript(coverage=[0.5, 0.9], ready=[False, True])
    original = script.subagent_extraction

    def first_page_only(prompt: str) -> dict[str, Any]:
        reply = original(prompt)
        reply["evidence"] = [item for item in reply["evidence"] if item["page"] == 1]
        return reply

    script.subagent_extraction = first_page_only  # type: ignore[method-assign]
    config, _model = scripted(make_config, script, max_iterations=3)
    state = await full_state("advanced-full", {"query": QUERY}, config)
    irrelevant = [end for end in state["dead_ends"] if end["reason"] == "irrelevant"]
    assert irrelevant, state["research_trajectory"]
    [step] = [s for s in state["research_trajectory"] if s["action"] == "backtrack"][:1]
    assert "irrelevant" in step["summary"] and " 0 alternative" not in step["summary"]
    second = [
        q for f in state["subagent_findings"] if f["iteration"] == 1 for q in f["queries_run"]
    ]
    query_words = set(QUERY.split())
    assert any(set(q.lower().split()) - query_words for q in second)


def test_a_backtrack_that_adds_nothing_is_not_a_round(
    make_config: Callable[..., Configuration],
) -> None:
    end = DeadEnd(subagent_id="SA1.1", query=QUERY, url="", reason="irrelevant", detail="")
    state: Any = {
        "query": QUERY,
        "research_iteration": 0,
        "dead_ends": [end],
        "searches_done": [QUERY],
        "stop_reason": "no_searches_left",
        "plan": {"outline": ["Overview"]},
    }
    runtime: Any = Runtime(context=make_config(), stream_writer=lambda _event: None)
    update = backtrack_handler(state, runtime)
    assert update["refinement_queries"] == [] and update["research_iteration"] == 0
    assert update["stop_reason"] == "no_searches_left"
    going_on = backtrack_handler({**state, "stop_reason": ""}, runtime)
    assert going_on["research_iteration"] == 1


@pytest.mark.e2e
async def test_the_tertiary_bucket_takes_the_places_a_refinement_round_leaves(
    make_config: Callable[..., Configuration], tmp_path: Path
) -> None:
    script = ResearchScript(coverage=[0.5, 0.9], ready=[False, True], query_class="person_profile")
    config, _model = scripted(
        make_config,
        script,
        search="local",
        docs=[documents(tmp_path / "docs")],
        max_iterations=2,
        max_subagents=8,
    )
    state = await full_state(
        "advanced-full", {"query": "Research Jane Roe at Amherst College"}, config
    )
    tertiary = {node["question"] for node in state["plan"]["tertiary"]}
    # The first round takes up to four primary questions and one secondary (001 §2.1).
    left = {node["question"] for node in state["plan"]["secondary"][1:]} | tertiary
    first = {f["question"] for f in state["subagent_findings"] if f["iteration"] == 0}
    later = {f["question"] for f in state["subagent_findings"] if f["iteration"] == 1}
    assert tertiary and not left & first and left <= later, (first, later)


@pytest.mark.e2e
async def test_only_the_optimized_variant_asks_for_the_complexity_it_routes_on(
    make_config: Callable[..., Configuration],
) -> None:
    # V9 has no use for a complexity reading (spec 000/002): its analyzer does not ask for one.
    script = ResearchScript()
    config, model = scripted(make_config, script, max_iterations=1)
    state = await full_state("advanced", {"query": QUERY}, config)
    [call] = model.calls_for("QueryAnalysisOutput")
    assert "complexity" not in call.prompt and "complexity" not in call.reply
    assert state["query_analysis"]["complexity"] == "" and state["report"]
    # advanced-full does not route on it either: its analysis schema has no such field.
    assert "complexity" not in EraCotAnalysis.model_fields
    # The optimized variant's router reads it: its analyzer asks, and the answer reaches state.
    script = ResearchScript(coverage=[0.9], ready=[True])
    config, model = scripted(make_config, script)
    model.script(
        "RoutedEraCotAnalysis",
        lambda request: {
            **FamilyRoles(script).era_cot_analysis(request.prompt),
            "complexity": "comprehensive",
        },
    )
    graph = build_optimized_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=False)
    async with open_services(config):
        state, _steps, _paused = await run_graph(graph, config, {"query": "What is CRISPR?"})
    [call] = model.calls_for("RoutedEraCotAnalysis")
    assert "Also report complexity" in call.prompt
    assert state["query_analysis"]["complexity"] == "comprehensive"
    assert state["query_complexity"] == "medium" and not state["fast_path"]
