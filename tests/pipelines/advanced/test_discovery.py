"""The discovery phase: patterns, entity candidates, confidence-gated clarification, auto_refine, templates."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from typer.testing import CliRunner

from research_studio.core.config import Configuration
from research_studio.faces.cli import app
from research_studio.pipelines.advanced.discovery.analyzer import fast_pattern
from research_studio.pipelines.advanced.discovery.nodes import confidence_route, parse_answer
from research_studio.pipelines.advanced.graph import (
    build_trust_engine_graph,
    build_trust_engine_graph_with_memory,
)
from research_studio.pipelines.advanced.planner_templates import template_plan
from research_studio.services.clients import open_services
from tests.doubles.advanced_script import FamilyKnobs
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import ScriptedChatModel, use_scripted_model

QUERY = "Research Jane Roe at Amherst College"
ECONOMIST = {
    "name": "Jane Roe",
    "description": "Professor of economics at Amherst College",
    "identifiers": ["Amherst College", "economics"],
    "confidence": 0.6,
}
PAINTER = {
    "name": "Jane Roe",
    "description": "Landscape painter in Ohio",
    "identifiers": ["Ohio", "landscape painter"],
    "confidence": 0.55,
}


def documents(folder: Path) -> Path:
    """Two Jane Roes: an economist at Amherst College and a painter in Ohio."""
    folder.mkdir()
    (folder / "jane-roe-amherst.md").write_text(
        "# Jane Roe, Amherst College\n\n"
        "Jane Roe is a professor of economics at Amherst College in Massachusetts.\n\n"
        "Jane Roe joined Amherst College in 2015 after a doctorate in economics at Yale.\n"
    )
    (folder / "jane-roe-research.md").write_text(
        "# Research by Jane Roe at Amherst College\n\n"
        "The Amherst College economist Jane Roe published a study of rural labor markets.\n\n"
        "Jane Roe teaches labor economics and public finance at Amherst College.\n"
    )
    (folder / "jane-roe-painter.md").write_text(
        "# Jane Roe, landscape painter\n\n"
        "Jane Roe is a landscape painter who lives in Ohio and paints rivers and barns.\n\n"
        "Jane Roe showed her river paintings at a gallery in Columbus, Ohio.\n"
    )
    return folder


def configure(
    make_config: Callable[..., Configuration], tmp_path: Path, **knobs: Any
) -> tuple[Configuration, ScriptedChatModel]:
    script = ResearchScript(
        coverage=[0.9], ready=[True], query_class="person_profile", family=FamilyKnobs(**knobs)
    )
    model = script.model()
    config = make_config(
        model=use_scripted_model(model), search="local", docs=[documents(tmp_path / "docs")]
    )
    return config, model


async def run_graph(
    graph: Any, config: Configuration, payload: dict[str, Any] | None, thread_id: str = "t"
) -> tuple[dict[str, Any], list[str], tuple[str, ...]]:
    """Run (or resume) a graph; its state, the nodes run so far, and where it paused."""
    thread: Any = {"configurable": {"thread_id": thread_id}}
    await graph.ainvoke(payload, thread, context=config)
    history = [snapshot async for snapshot in graph.aget_state_history(thread)]
    steps = [name for snapshot in reversed(history) for name in snapshot.next]
    return dict(history[0].values), steps, history[0].next


@pytest.mark.e2e
async def test_a_person_at_an_organization_goes_straight_to_the_planner_with_its_anchor(
    make_config: Callable[..., Configuration], tmp_path: Path
) -> None:
    config, model = configure(make_config, tmp_path)
    graph = build_trust_engine_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=True)
    async with open_services(config):
        state, steps, paused = await run_graph(graph, config, {"query": QUERY})
    assert paused == ()
    assert steps[1:5] == ["analyzer", "discovery", "confidence_check", "planner"]
    assert state["discovery_result"]["query_type"] == "person"
    assert state["selected_entity"]["name"] == "Jane Roe"
    assert state["primary_anchor"] == "Jane Roe" and state["anchor_terms"] == ["Amherst College"]
    searches = state["searches_done"]
    assert len(searches) > 5 and all("jane roe" in query.lower() for query in searches), searches
    # The person template plans without a model call, in three buckets.
    assert not model.calls_for("PlanOutput") and state["plan"]["tertiary"]
    assert state["plan"]["outline"][0] == "Overview"
    # The ranker drops the painter who shares the name.
    assert not any("painter" in source["url"] for source in state["sources"])
    assert state["sources_excluded"] and len(model.calls_for("SourceRelevance")) == 1


@pytest.mark.e2e
async def test_two_same_name_candidates_pause_and_the_answer_2_selects_the_second(
    make_config: Callable[..., Configuration], tmp_path: Path
) -> None:
    config, _model = configure(make_config, tmp_path, candidates=[ECONOMIST, PAINTER])
    graph = build_trust_engine_graph_with_memory()
    async with open_services(config):
        paused_state, _steps, paused = await run_graph(graph, config, {"query": QUERY})
        assert paused == ("clarify",)
        assert len(paused_state["clarification_options"]) == 2
        assert "Ohio" in paused_state["clarification_options"][1]
        thread: Any = {"configurable": {"thread_id": "t"}}
        await graph.aupdate_state(thread, {"user_clarification": "2"})
        state, steps, paused = await run_graph(graph, config, None)
    assert paused == () and steps.index("clarify") < steps.index("planner")
    assert state["selected_entity"]["description"] == "Landscape painter in Ohio"
    assert state["anchor_terms"] == ["Ohio", "landscape painter"]
    assert "Landscape painter in Ohio" in state["enriched_context"]
    assert all("painter" in source["url"] for source in state["sources"])


@pytest.mark.e2e
async def test_the_answer_2_typed_in_studios_chat_selects_the_second(
    make_config: Callable[..., Configuration], tmp_path: Path
) -> None:
    config, _model = configure(make_config, tmp_path, candidates=[ECONOMIST, PAINTER])
    graph = build_trust_engine_graph_with_memory()
    async with open_services(config):
        message = {"role": "user", "content": QUERY}
        _state, _steps, paused = await run_graph(graph, config, {"messages": [message]})
        assert paused == ("clarify",)
        answer = {"role": "user", "content": "2"}
        state, steps, paused = await run_graph(graph, config, {"messages": [answer]})
    assert paused == () and steps.count("analyzer") == 1, steps
    assert state["selected_entity"]["description"] == "Landscape painter in Ohio"
    assert all("painter" in source["url"] for source in state["sources"])


@pytest.mark.e2e
def test_the_answer_2_from_the_cli(web: Any, tmp_path: Path) -> None:
    script = ResearchScript(
        coverage=[0.9],
        ready=[True],
        query_class="person_profile",
        family=FamilyKnobs(candidates=[ECONOMIST, PAINTER]),
    )
    spec = use_scripted_model(script.model())
    docs = documents(tmp_path / "docs")
    result = CliRunner().invoke(
        app,
        [
            "run",
            QUERY,
            "--pipeline",
            "advanced-full",
            "--answer",
            "2",
            "--out",
            "jr",
            "--model",
            spec,
            "--search",
            "local",
            "--docs",
            str(docs),
        ],
    )
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "jr" / "result.json").read_text())
    assert document["clarification"]["answer"] == "2"
    assert document["sources"] and all("painter" in s["url"] for s in document["sources"])


@pytest.mark.e2e
async def test_a_single_low_confidence_candidate_goes_through_auto_refine(
    make_config: Callable[..., Configuration], tmp_path: Path
) -> None:
    config, model = configure(make_config, tmp_path, candidates=[{**ECONOMIST, "confidence": 0.5}])
    graph = build_trust_engine_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=True)
    async with open_services(config):
        state, steps, paused = await run_graph(graph, config, {"query": QUERY})
    assert paused == () and "clarify" not in steps
    assert steps.index("confidence_check") < steps.index("auto_refine") < steps.index("planner")
    assert len(model.calls_for("EntityConfirmation")) == 1 and state["refined"]
    assert state["selected_entity"]["confidence"] == 0.9
    assert '"Jane Roe" Amherst College' in state["searches_done"]


@pytest.mark.e2e
async def test_an_ambiguous_query_gets_three_analysis_passes(
    make_config: Callable[..., Configuration], tmp_path: Path
) -> None:
    script = ResearchScript(coverage=[0.9], ready=[True], ambiguous=True)
    model = script.model()
    config = make_config(model=use_scripted_model(model))
    graph = build_trust_engine_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=False)
    async with open_services(config):
        state, _steps, _paused = await run_graph(graph, config, {"query": "John Smith professor"})
    assert len(model.calls_for("EraCotAnalysis")) == 3
    assert state["discovery_result"]["query_type"] == "person"


def test_fast_patterns() -> None:
    assert fast_pattern(QUERY).anchors == ["Jane Roe", "Amherst College"]
    assert fast_pattern("What is CRISPR?").query_type == "concept"
    assert fast_pattern("Python vs JavaScript").anchors == ["Python", "JavaScript"]
    assert fast_pattern("How does a lithium battery work?").anchors == ["lithium battery"]
    assert fast_pattern("coral bleaching at sea").query_type == ""


def test_answers_are_parsed_as_number_yes_no_option_or_free_text() -> None:
    candidates: list[Any] = [ECONOMIST, PAINTER]
    options = ["Jane Roe — economist", "Jane Roe — painter"]
    assert parse_answer("2", candidates, options, "Jane Roe") == PAINTER
    assert parse_answer("yes", candidates, options, "Jane Roe") == ECONOMIST
    assert parse_answer("no", candidates, options, "Jane Roe") == PAINTER
    assert parse_answer("Jane Roe — painter", candidates, options, "Jane Roe") == PAINTER
    assert parse_answer("the one in Ohio", candidates, options, "Jane Roe") == PAINTER
    free = parse_answer("Jane Roe, a chemist at Oberlin College", candidates, options, "Jane Roe")
    assert free is not None and free["name"] == "Jane Roe"
    assert free["identifiers"] == ["a chemist", "Oberlin College"]
    assert parse_answer("7", candidates, options, "Jane Roe") is None


def test_confidence_routes() -> None:
    def state(query_type: str, candidates: list[Any], confidence: float, **more: Any) -> Any:
        found = {
            "query_type": query_type,
            "entity_candidates": candidates,
            "confidence": confidence,
            "needs_clarification": False,
            "anchor_terms": [],
        }
        return {"discovery_result": found, **more}

    assert confidence_route(state("concept", [], 0.2)) == "planner"
    assert (
        confidence_route(state("person", [ECONOMIST], 0.9, selected_entity=ECONOMIST)) == "planner"
    )
    assert confidence_route(state("person", [ECONOMIST, PAINTER], 0.6)) == "clarify"
    assert confidence_route(state("person", [ECONOMIST], 0.5)) == "auto_refine"
    assert confidence_route(state("person", [ECONOMIST], 0.5, refined=True)) == "planner"


@pytest.mark.parametrize("query_type", ["person", "concept", "technical", "comparison"])
def test_templates_name_the_subject_in_every_query(query_type: str) -> None:
    anchors = ["Python", "JavaScript"] if query_type == "comparison" else ["Jane Roe"]
    plan = template_plan(query_type, anchors, ["Amherst College"], recent=False, year=2026)
    assert plan is not None and plan["primary"] and plan["secondary"] and plan["tertiary"]
    assert sum(node["priority"] for node in plan["primary"]) > 0.5
    for query in plan["queries"]:
        words = query["query"].lower()
        assert any(anchor.lower() in words for anchor in anchors), query
    assert template_plan("other", anchors, [], recent=False, year=2026) is None


@pytest.mark.e2e
async def test_the_ranker_keeps_sources_naming_the_target_whatever_the_model_excludes(
    make_config: Callable[..., Configuration], tmp_path: Path
) -> None:
    config, model = configure(make_config, tmp_path)

    def exclude_everything(request: Any) -> dict[str, Any]:
        sids = re.findall(r"\[(S\d+)\]", request.prompt)
        return {"relevant_sids": [], "excluded": [{"sid": s, "reason": "other"} for s in sids]}

    model.script("SourceRelevance", exclude_everything)
    graph = build_trust_engine_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=True)
    async with open_services(config):
        state, _steps, _paused = await run_graph(graph, config, {"query": QUERY})
    urls = [source["url"] for source in state["sources"]]
    assert sorted(url.rsplit("/", 1)[1] for url in urls) == [
        "jane-roe-amherst.md",
        "jane-roe-research.md",
    ]
    assert len(state["sources_excluded"]) == 1  # the painter: it names no identifier


def era_cot_pass(query_type: str, subject: str) -> dict[str, Any]:
    """One self-consistency pass: an ambiguous reading of the query as a person or an organization."""
    return {
        "intent": f"Find out about {subject}",
        "query_class": "person_profile" if query_type == "person" else "organization_profile",
        "primary_subject": subject,
        "subject_type": query_type,
        "ambiguity_level": "high",
        "analysis_confidence": 0.5,
        "query_type": query_type,
        "entities": [{"name": subject, "kind": query_type}],
        "anchor_terms": [subject],
    }


PERSON = ("person", "John Smith")
ORGANIZATION = ("organization", "Smith Professorship Trust")


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("passes", "winner"),
    [
        ((ORGANIZATION, PERSON, PERSON), PERSON),
        ((PERSON, ORGANIZATION, ORGANIZATION), ORGANIZATION),
    ],
)
async def test_passes_that_disagree_are_settled_by_the_majority_not_the_first(
    make_config: Callable[..., Configuration],
    passes: tuple[tuple[str, str], ...],
    winner: tuple[str, str],
) -> None:
    model = ResearchScript(coverage=[0.9], ready=[True]).model()
    model.script("EraCotAnalysis", [era_cot_pass(*reading) for reading in passes])
    config = make_config(model=use_scripted_model(model))
    graph = build_trust_engine_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=False)
    async with open_services(config):
        state, _steps, _paused = await run_graph(graph, config, {"query": "John Smith professor"})
    assert len(model.calls_for("EraCotAnalysis")) == 3
    assert state["discovery_result"]["query_type"] == winner[0]
    assert state["primary_anchor"] == winner[1]
