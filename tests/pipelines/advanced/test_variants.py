"""The family's six builders and its variants by name: registry, LangGraph server entries, CLI."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from research_studio.pipelines.advanced import graph as family
from research_studio.pipelines.registry import graph_builder
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parents[3]
BUILDERS: dict[str, tuple[Callable[..., Any], bool]] = {
    # builder: (keeps memory and pauses before clarify)
    "build_trust_engine_graph": (family.build_trust_engine_graph, False),
    "build_trust_engine_graph_with_memory": (family.build_trust_engine_graph_with_memory, True),
    "build_trust_engine_simple_graph": (family.build_trust_engine_simple_graph, False),
    "build_optimized_graph": (family.build_optimized_graph, False),
    "build_optimized_graph_with_memory": (family.build_optimized_graph_with_memory, True),
    "build_optimized_simple_graph": (family.build_optimized_simple_graph, False),
}
FULL_ENGINE = [
    "credibility_scorer",
    "ranker",
    "claim_extractor",
    "cite",
    "span_verify",
    "cross_validate",
    "confidence_scorer",
    "writer",
]


@pytest.mark.parametrize("name", BUILDERS)
def test_the_six_builders_compile_with_their_checkpointer_and_pause(name: str) -> None:
    build, memory = BUILDERS[name]
    graph = build()
    nodes = set(graph.get_graph().nodes)
    if memory:
        assert isinstance(graph.checkpointer, InMemorySaver)
        assert graph.interrupt_before_nodes == ["clarify"]
    elif name.endswith("_simple_graph"):
        assert graph.checkpointer is None and not graph.interrupt_before_nodes
    else:  # the registry's builder: the caller (runner, LangGraph server) brings the checkpointer
        assert graph.checkpointer is None and graph.interrupt_before_nodes == ["clarify"]
    if "trust_engine" in name:
        assert set(FULL_ENGINE) <= nodes and "batched_verify" not in nodes
    else:
        assert {"batched_cred_claims", "ranker", "batched_verify"} <= nodes
        assert "span_verify" not in nodes


def test_the_full_engine_is_chained_in_order() -> None:
    edges = {(e.source, e.target) for e in family.build_trust_engine_graph().get_graph().edges}
    assert all(pair in edges for pair in itertools.pairwise(FULL_ENGINE))


def test_variants_are_registered_by_name_and_for_the_langgraph_server() -> None:
    assert graph_builder("advanced-full") is family.build_trust_engine_graph
    assert graph_builder("advanced-optimized") is family.build_optimized_graph
    entries = json.loads((ROOT / "langgraph.json").read_text())["graphs"]
    module = "./src/research_studio/pipelines/advanced/graph.py"
    for name in (
        "trust_engine_graph",
        "trust_engine_simple_graph",
        "optimized_graph",
        "optimized_simple_graph",
    ):
        assert f"{module}:{name}" in entries.values(), name
        assert getattr(family, name).checkpointer is None  # the server brings its own


@pytest.mark.e2e
def test_a_variant_runs_from_the_cli_by_name(web: FakeWeb, tmp_path: Path) -> None:
    result = run_cli(
        web,
        "run",
        "coral bleaching heat stress",
        "--pipeline",
        "advanced-full",
        "--out",
        "full",
        model=ResearchScript(coverage=[0.9], ready=[True]).model(),
    )
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "full" / "result.json").read_text())
    assert document["pipeline"] == "advanced-full"
    by_node = document["metadata"]["llm_calls_by_node"]
    assert {"credibility_scorer", "claim_extractor", "cite", "span_verify"} <= set(by_node)
    assert document["claims"] and "## Research Quality" in document["report"]


@pytest.mark.e2e
def test_the_optimized_variant_stops_on_a_call_budget_from_the_cli(
    web: FakeWeb, tmp_path: Path
) -> None:
    result = run_cli(
        web,
        "run",
        "coral bleaching heat stress",
        "--pipeline",
        "advanced-optimized",
        "--max-llm-calls",
        "3",
        "--out",
        "optimized",
        model=ResearchScript(coverage=[0.5], ready=[False]).model(),
    )
    assert result.exit_code == 0, result.output
    metadata = json.loads((tmp_path / "optimized" / "result.json").read_text())["metadata"]
    assert metadata["stop_reason"] == "budget:llm_calls"
    assert metadata["stopped_by"] == "early_termination_check"
    assert metadata["query_complexity"] == "medium"
