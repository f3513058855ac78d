"""The family's analyzer and disambiguation: the model's reading decides, patterns only fill in,
the fast path never merges namesakes, and a clarification keeps the analyzer's own question."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from research_studio.core.config import Configuration
from research_studio.pipelines.advanced.discovery.schemas import EraCotAnalysis
from research_studio.pipelines.advanced.graph import (
    build_optimized_graph,
    build_trust_engine_graph,
)
from research_studio.services.clients import open_services
from tests.doubles.advanced_script import FamilyKnobs, FamilyRoles
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import ScriptedChatModel, use_scripted_model
from tests.pipelines.advanced.test_discovery import ECONOMIST, PAINTER, documents, run_graph

pytestmark = pytest.mark.e2e
POLICY = "What is the new Ruritania immigration policy?"


def scripted(
    make_config: Callable[..., Configuration], script: ResearchScript, **settings: Any
) -> tuple[Configuration, ScriptedChatModel]:
    model = script.model()
    return make_config(model=use_scripted_model(model), **settings), model


async def run(graph: Any, config: Configuration, query: str) -> tuple[dict[str, Any], list[str]]:
    async with open_services(config):
        state, steps, _paused = await run_graph(graph, config, {"query": query})
    return state, steps


async def test_the_models_current_events_reading_beats_the_what_is_pattern(
    make_config: Callable[..., Configuration],
) -> None:
    # The model calls it a concept, but recent: code makes it current events, and no
    # timeless concept template may plan it (the pattern "What is X" said concept).
    script = ResearchScript(query_class="concept_explanation", family=FamilyKnobs())
    config, model = scripted(make_config, script, max_iterations=1)
    model.script(
        "EraCotAnalysis",
        lambda request: {
            **FamilyRoles(script).era_cot_analysis(request.prompt),
            "query_type": "concept",
            "temporal_scope": "recent",
            "primary_subject": "Ruritania immigration policy",
        },
    )
    graph = build_trust_engine_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=False)
    state, _steps = await run(graph, config, POLICY)
    assert state["query_analysis"]["query_class"] == "current_events"
    assert state["query_analysis"]["primary_subject"] == "Ruritania immigration policy"
    assert state["discovery_result"]["query_type"] == "other"
    assert len(model.calls_for("PlanOutput")) == 1  # planned by the model, not a template


async def test_the_model_answer_wins_over_a_pattern_it_corrects(
    make_config: Callable[..., Configuration],
) -> None:
    script = ResearchScript(query_class="organization_profile", family=FamilyKnobs())
    config, model = scripted(make_config, script, max_iterations=1)
    model.script(
        "EraCotAnalysis",
        lambda request: {
            **FamilyRoles(script).era_cot_analysis(request.prompt),
            "query_type": "organization",
            "primary_subject": "Amherst College",
            "anchor_terms": ["Amherst College", "economics department"],
        },
    )
    graph = build_trust_engine_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=False)
    state, _steps = await run(graph, config, "Research Jane Roe at Amherst College")
    assert state["query_analysis"]["query_class"] == "organization_profile"
    assert state["discovery_result"]["query_type"] == "organization"
    assert state["discovery_result"]["anchor_terms"][:2] == [
        "Amherst College",
        "economics department",
    ]


async def test_the_pattern_fills_in_when_the_analyzer_fails(
    make_config: Callable[..., Configuration],
) -> None:
    config, model = scripted(make_config, ResearchScript(), max_iterations=1, llm_max_retries=0)
    model.script("EraCotAnalysis", "I would rather not answer in JSON.")
    graph = build_trust_engine_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=False)
    state, _steps = await run(graph, config, "Research Jane Roe at Amherst College")
    assert [e["node"] for e in state["errors"]].count("analyzer") == 1
    assert state["discovery_result"]["query_type"] == "person"
    assert state["query_analysis"]["query_class"] == "person_profile"
    assert state["primary_anchor"] == "Jane Roe"
    assert state["discovery_result"]["anchor_terms"] == ["Jane Roe", "Amherst College"]


async def test_entities_the_model_names_anchor_the_searches(
    make_config: Callable[..., Configuration],
) -> None:
    script = ResearchScript(query_class="comprehensive_overview")
    config, model = scripted(make_config, script, max_iterations=1)
    model.script(
        "EraCotAnalysis",
        lambda request: {
            **FamilyRoles(script).era_cot_analysis(request.prompt),
            "primary_subject": "coral bleaching",
            "anchor_terms": ["coral bleaching"],
            "entities": [
                {"name": "coral bleaching", "kind": "concept"},
                {"name": "Great Barrier Reef", "kind": "place"},
            ],
        },
    )
    graph = build_trust_engine_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=False)
    state, _steps = await run(graph, config, "coral bleaching on the reef")
    assert state["discovery_result"]["anchor_terms"] == ["coral bleaching", "Great Barrier Reef"]
    assert state["query_analysis"]["subject_type"] == "concept"


async def test_the_fast_path_still_asks_which_of_two_namesakes(
    make_config: Callable[..., Configuration], tmp_path: Path
) -> None:
    script = ResearchScript(
        query_class="person_profile",
        family=FamilyKnobs(subject="Jane Roe", candidates=[ECONOMIST, PAINTER]),
    )
    config, _model = scripted(
        make_config, script, search="local", docs=[documents(tmp_path / "docs")]
    )
    graph = build_optimized_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=True)
    async with open_services(config):
        state, steps, paused = await run_graph(graph, config, {"query": "Who is Jane Roe?"})
    assert state["fast_path"] and paused == ("clarify",)
    assert steps.index("complexity_router") < steps.index("confidence_check")
    assert len(state["clarification_options"]) == 2 and "planner" not in steps


async def test_the_fast_path_skips_the_check_with_one_candidate(
    make_config: Callable[..., Configuration], tmp_path: Path
) -> None:
    script = ResearchScript(query_class="person_profile", family=FamilyKnobs(subject="Jane Roe"))
    config, _model = scripted(
        make_config, script, search="local", docs=[documents(tmp_path / "docs")]
    )
    graph = build_optimized_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=True)
    async with open_services(config):
        state, steps, paused = await run_graph(graph, config, {"query": "Who is Jane Roe?"})
    assert state["fast_path"] and paused == () and "confidence_check" not in steps


async def test_a_clarification_without_candidates_keeps_the_analyzers_question(
    make_config: Callable[..., Configuration],
) -> None:
    script = ResearchScript(ambiguous=True, family=FamilyKnobs(candidates=[]))
    config, model = scripted(make_config, script)
    graph = build_trust_engine_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=True)
    async with open_services(config):
        state, _steps, paused = await run_graph(graph, config, {"query": "John Smith professor"})
    [analysis] = {call.reply for call in model.calls_for("EraCotAnalysis")}
    written = EraCotAnalysis.model_validate_json(analysis)
    assert paused == ("clarify",)
    assert state["clarification_question"] == written.clarification_question
    assert state["clarification_options"] == written.clarification_options
    assert len(state["clarification_options"]) == 3
