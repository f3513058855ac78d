"""The optimized variant: complexity routing (fast path) and early termination by rule."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from research_studio.core.config import Configuration
from research_studio.pipelines.advanced.graph import build_optimized_graph
from research_studio.pipelines.advanced.nodes.control import classify_complexity
from research_studio.pipelines.advanced.stopping import early_stop_reason
from research_studio.services.clients import open_services
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import ScriptedChatModel, use_scripted_model


async def run_optimized(config: Configuration, query: str) -> tuple[dict[str, Any], list[str]]:
    """The final state and the nodes that ran, in order."""
    graph = build_optimized_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=False)
    thread: Any = {"configurable": {"thread_id": "optimized"}}
    async with open_services(config):
        await graph.ainvoke({"query": query}, thread, context=config)
        history = [snapshot async for snapshot in graph.aget_state_history(thread)]
        final = dict(history[0].values)
    steps = [name for snapshot in reversed(history) for name in snapshot.next]
    return final, steps


def scripted(
    make_config: Callable[..., Configuration], script: ResearchScript, **settings: Any
) -> tuple[Configuration, ScriptedChatModel]:
    model = script.model()
    return make_config(model=use_scripted_model(model), **settings), model


@pytest.mark.e2e
async def test_what_is_crispr_takes_the_fast_path(
    make_config: Callable[..., Configuration], tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "crispr.md").write_text(
        "# CRISPR\n\nCRISPR is a gene editing method that lets scientists change DNA at a chosen "
        "place in the genome.\n\nThe CRISPR system uses the Cas9 protein to cut DNA where a "
        "guide RNA matches the target sequence.\n"
    )
    config, model = scripted(
        make_config, ResearchScript(coverage=[0.5], ready=[False]), search="local", docs=[docs]
    )
    state, steps = await run_optimized(config, "What is CRISPR?")
    assert state["query_complexity"] == "simple" and state["fast_path"]
    assert "orchestrator" not in steps and "gap_detector" not in steps and "clarify" not in steps
    assert steps.index("complexity_router") < steps.index("planner") < steps.index("subagent")
    assert len(state["subagent_findings"]) == 1 and state["total_workers"] == 1
    assert state["stop_reason"] == "fast_path"
    assert state["metadata"]["stopped_by"] == "early_termination_check"
    assert not model.calls_for("GapAnalysis") and len(model.calls_for("SubagentExtraction")) == 1
    assert any("CRISPR" in claim["text"] for claim in state["claims"] if claim["verified"])


@pytest.mark.e2e
async def test_the_gain_rule_stops_before_a_second_gap_analysis(
    make_config: Callable[..., Configuration],
) -> None:
    config, model = scripted(
        make_config,
        ResearchScript(coverage=[0.5], ready=[False], subagent_confidence=[0.6]),
        max_iterations=4,
        max_subagents=1,  # one subagent per round: the round's confidence is its confidence
    )
    state, steps = await run_optimized(config, "coral bleaching heat stress")
    assert state["query_complexity"] == "medium" and "orchestrator" in steps
    assert state["research_iteration"] == 1
    assert state["stop_reason"] == "gain_below_threshold"
    assert state["metadata"]["stopped_by"] == "early_termination_check"
    assert len(model.calls_for("GapAnalysis")) == 1  # the second round never reached it
    assert steps[-4:] == ["batched_cred_claims", "ranker", "batched_verify", "writer"]
    assert state["report"] and state["metadata"]["stop_reason"] == "gain_below_threshold"


@pytest.mark.e2e
async def test_the_novelty_rule_stops_a_round_that_found_few_new_sources(
    make_config: Callable[..., Configuration],
) -> None:
    config, model = scripted(
        make_config,
        ResearchScript(coverage=[0.5], ready=[False], subagent_confidence=[0.6]),
        max_iterations=4,
        max_subagents=1,
        min_confidence_gain=0.0,
        min_source_novelty=1.0,  # a round must double the sources to go on
    )
    state, _steps = await run_optimized(config, "coral bleaching heat stress")
    assert state["stop_reason"] == "low_novelty" and state["research_iteration"] >= 1
    counts = state["source_counts"]
    assert counts[-1] - counts[-2] < counts[-2]  # the last round did not double them
    assert all(later - before >= before for before, later in itertools.pairwise(counts[:-1]))
    assert len(model.calls_for("GapAnalysis")) == state["research_iteration"]


@pytest.mark.e2e
async def test_a_call_budget_stops_research_and_the_report_is_still_written(
    make_config: Callable[..., Configuration],
) -> None:
    config, model = scripted(
        make_config, ResearchScript(coverage=[0.5], ready=[False]), max_llm_calls=3
    )
    state, steps = await run_optimized(config, "coral bleaching heat stress")
    assert state["stop_reason"] == "budget:llm_calls"
    assert state["metadata"]["stopped_by"] == "early_termination_check"
    assert "gap_detector" not in steps and not model.calls_for("GapAnalysis")
    assert state["report"] and state["metadata"]["llm_calls"] <= 3


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What is CRISPR?", "simple"),
        ("Who is Ada Lovelace?", "simple"),
        ("coral bleaching heat stress", "medium"),
        ("Compare sulfide and oxide solid-state electrolytes", "complex"),
        ("Python vs JavaScript for data work", "complex"),
        ("What is the impact of coral bleaching on fisheries?", "complex"),
        (" ".join(["word"] * 16), "complex"),
    ],
)
def test_complexity_by_keywords_and_word_count(query: str, expected: str) -> None:
    assert classify_complexity(query) == expected


def test_early_stop_rules_in_order() -> None:
    rules: dict[str, Any] = {
        "budget_reached": "",
        "fast_path": False,
        "iteration": 1,
        "confidence": 0.7,
        "previous": 0.5,
        "min_gain": 0.05,
        "new_sources": 5,
        "known_sources": 10,
        "min_novelty": 0.1,
    }
    assert early_stop_reason(**rules) == ""
    assert early_stop_reason(**{**rules, "budget_reached": "tokens"}) == "budget:tokens"
    assert early_stop_reason(**{**rules, "fast_path": True}) == "fast_path"
    assert early_stop_reason(**{**rules, "previous": 0.68}) == "gain_below_threshold"
    assert early_stop_reason(**{**rules, "new_sources": 0}) == "low_novelty"
    assert early_stop_reason(**{**rules, "iteration": 0, "new_sources": 0, "previous": 0.7}) == ""
