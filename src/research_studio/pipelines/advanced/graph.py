"""The advanced graph: builder, pure routing, and the module-level `graph`."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START
from langgraph.graph.state import CompiledStateGraph

from research_studio.pipelines.advanced.nodes.loop import RESEARCH_LOOP
from research_studio.pipelines.advanced.nodes.orchestrator import fanout_subagents, orchestrator
from research_studio.pipelines.advanced.nodes.planner import planner
from research_studio.pipelines.advanced.nodes.query_analyzer import clarify, query_analyzer
from research_studio.pipelines.advanced.nodes.review import review_plan
from research_studio.pipelines.advanced.nodes.subagent import subagent
from research_studio.pipelines.advanced.nodes.writer import writer
from research_studio.pipelines.advanced.state import AgentState
from research_studio.pipelines.advanced.trust_engine import trust_engine
from research_studio.pipelines.kit import wiring

# Another round until gap_detector gives a stop reason.
route_after_gap_detection = wiring.route_on("stop_reason", "trust_engine", "increment_iteration")


def build_graph(
    checkpointer: BaseCheckpointSaver | None = None, interrupt_on_clarify: bool = True
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the advanced pipeline; with `interrupt_on_clarify` it pauses before `clarify`."""
    builder = wiring.research_graph(
        AgentState,
        wiring.named(query_analyzer, clarify, planner, orchestrator, subagent, *RESEARCH_LOOP)
        + wiring.named(trust_engine, writer, review_plan),
    )
    builder.add_edge(START, "query_analyzer")
    # The user is asked only when the analyzer says the query needs it.
    wiring.clarify_step(builder, "query_analyzer", "needs_clarification", "planner")
    wiring.review_step(builder, "planner", "orchestrator")
    builder.add_conditional_edges(
        "orchestrator", fanout_subagents, ["subagent", "collect_findings"]
    )
    wiring.chain(builder, "subagent", "collect_findings", "consolidate_sources", "gap_detector")
    builder.add_conditional_edges(
        "gap_detector", route_after_gap_detection, ["increment_iteration", "trust_engine"]
    )
    builder.add_edge("increment_iteration", "orchestrator")
    wiring.chain(builder, "trust_engine", "writer", END)
    return wiring.compiled(builder, "advanced", checkpointer, interrupt_on_clarify, "review_plan")


# LangGraph Studio / `langgraph dev` entry point; the server supplies the checkpointer.
graph = build_graph()
