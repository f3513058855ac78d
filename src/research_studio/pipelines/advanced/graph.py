"""The advanced graph: builder, pure routing, and the module-level `graph`."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from research_studio.core.config import Configuration
from research_studio.pipelines.advanced.nodes.analyzer import clarify, query_analyzer
from research_studio.pipelines.advanced.nodes.loop import (
    collect_findings,
    consolidate_sources,
    gap_detector,
    increment_iteration,
)
from research_studio.pipelines.advanced.nodes.orchestrator import fanout_subagents, orchestrator
from research_studio.pipelines.advanced.nodes.planner import planner
from research_studio.pipelines.advanced.nodes.review import review_plan
from research_studio.pipelines.advanced.nodes.subagent import subagent
from research_studio.pipelines.advanced.nodes.writer import writer
from research_studio.pipelines.advanced.state import AgentState
from research_studio.pipelines.advanced.trust_engine import trust_engine
from research_studio.pipelines.kit.contract import ResearchInput, ResearchOutput
from research_studio.pipelines.kit.plan_review import review_requested


def route_after_analysis(state: AgentState) -> Literal["clarify", "planner"]:
    """Ask the user only when the analyzer says the query needs it."""
    return "clarify" if state.get("needs_clarification") else "planner"


def route_to_review(state: AgentState) -> Literal["review_plan", "orchestrator"]:
    """With the review_plan setting the plan goes to the person (a pause) before research."""
    return "review_plan" if review_requested(state) else "orchestrator"


def route_after_gap_detection(state: AgentState) -> Literal["increment_iteration", "trust_engine"]:
    """Another round until gap_detector gives a stop reason."""
    return "trust_engine" if state.get("stop_reason") else "increment_iteration"


def build_graph(
    checkpointer: BaseCheckpointSaver | None = None, interrupt_on_clarify: bool = True
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the advanced pipeline; with `interrupt_on_clarify` it pauses before `clarify`."""
    builder = StateGraph(
        AgentState,
        context_schema=Configuration,
        input_schema=ResearchInput,
        output_schema=ResearchOutput,
    )
    for name, node in (
        ("query_analyzer", query_analyzer),
        ("clarify", clarify),
        ("planner", planner),
        ("orchestrator", orchestrator),
        ("subagent", subagent),
        ("collect_findings", collect_findings),
        ("consolidate_sources", consolidate_sources),
        ("gap_detector", gap_detector),
        ("increment_iteration", increment_iteration),
        ("trust_engine", trust_engine),
        ("writer", writer),
    ):
        builder.add_node(name, node)
    builder.add_edge(START, "query_analyzer")
    builder.add_conditional_edges("query_analyzer", route_after_analysis, ["clarify", "planner"])
    builder.add_edge("clarify", "planner")
    builder.add_node("review_plan", review_plan)
    builder.add_conditional_edges("planner", route_to_review, ["review_plan", "orchestrator"])
    builder.add_edge("review_plan", "orchestrator")
    builder.add_conditional_edges(
        "orchestrator", fanout_subagents, ["subagent", "collect_findings"]
    )
    builder.add_edge("subagent", "collect_findings")
    builder.add_edge("collect_findings", "consolidate_sources")
    builder.add_edge("consolidate_sources", "gap_detector")
    builder.add_conditional_edges(
        "gap_detector", route_after_gap_detection, ["increment_iteration", "trust_engine"]
    )
    builder.add_edge("increment_iteration", "orchestrator")
    builder.add_edge("trust_engine", "writer")
    builder.add_edge("writer", END)
    return builder.compile(
        checkpointer=checkpointer,
        # review_plan is reached only when the run asked for plan review: always a pause.
        interrupt_before=["clarify", "review_plan"] if interrupt_on_clarify else ["review_plan"],
        name="advanced",
    )


# LangGraph Studio / `langgraph dev` entry point; the server supplies the checkpointer.
graph = build_graph()
