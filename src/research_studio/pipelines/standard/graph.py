"""The standard pipeline graph: builder, pure routing functions, and the module-level `graph`."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from research_studio.core.config import Configuration
from research_studio.pipelines.kit.contract import ResearchInput, ResearchOutput
from research_studio.pipelines.kit.plan_review import review_requested
from research_studio.pipelines.standard.assess import detect_gaps, synthesize
from research_studio.pipelines.standard.finish import verify, write_report
from research_studio.pipelines.standard.intake import clarify, plan, understand
from research_studio.pipelines.standard.research import (
    collect,
    fanout_workers,
    orchestrate,
    search_and_extract,
    search_worker,
)
from research_studio.pipelines.standard.review import review_plan
from research_studio.pipelines.standard.state import ResearchState


def route_after_understand(state: ResearchState) -> Literal["clarify", "plan"]:
    """Ask the user only when the request was judged ambiguous."""
    return "clarify" if state.get("is_ambiguous") else "plan"


def route_to_research(state: ResearchState) -> Literal["search_and_extract", "orchestrate"]:
    """Single agent loops over searches; multi agent fans out to workers."""
    return "search_and_extract" if state.get("mode", "multi") == "single" else "orchestrate"


def route_after_plan(
    state: ResearchState,
) -> Literal["review_plan", "search_and_extract", "orchestrate"]:
    """With the review_plan setting the plan goes to the person (a pause) before research."""
    return "review_plan" if review_requested(state) else route_to_research(state)


def route_after_gaps(state: ResearchState) -> Literal["search_and_extract", "verify"]:
    """Another round until detect_gaps gives a stop reason."""
    return "verify" if state.get("stop_reason") else "search_and_extract"


def route_after_synthesis(state: ResearchState) -> Literal["orchestrate", "verify"]:
    """Another round of workers until the synthesis gives a stop reason."""
    return "verify" if state.get("stop_reason") else "orchestrate"


def build_graph(
    checkpointer: BaseCheckpointSaver | None = None, interrupt_on_clarify: bool = True
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the standard pipeline; with `interrupt_on_clarify` it pauses before `clarify`."""
    builder = StateGraph(
        ResearchState,
        context_schema=Configuration,
        input_schema=ResearchInput,
        output_schema=ResearchOutput,
    )
    for node in (
        understand,
        clarify,
        plan,
        review_plan,
        search_and_extract,
        detect_gaps,
        orchestrate,
        search_worker,
        collect,
        synthesize,
        verify,
        write_report,
    ):
        builder.add_node(node.__name__, node)

    builder.add_edge(START, "understand")
    builder.add_conditional_edges("understand", route_after_understand, ["clarify", "plan"])
    builder.add_edge("clarify", "plan")
    research = ["search_and_extract", "orchestrate"]
    builder.add_conditional_edges("plan", route_after_plan, ["review_plan", *research])
    builder.add_conditional_edges("review_plan", route_to_research, research)
    builder.add_edge("search_and_extract", "detect_gaps")
    builder.add_conditional_edges("detect_gaps", route_after_gaps, ["search_and_extract", "verify"])
    builder.add_conditional_edges("orchestrate", fanout_workers, ["search_worker", "collect"])
    builder.add_edge("search_worker", "collect")
    builder.add_edge("collect", "synthesize")
    builder.add_conditional_edges("synthesize", route_after_synthesis, ["orchestrate", "verify"])
    builder.add_edge("verify", "write_report")
    builder.add_edge("write_report", END)

    return builder.compile(
        checkpointer=checkpointer,
        # review_plan is reached only when the run asked for plan review: always a pause.
        interrupt_before=["clarify", "review_plan"] if interrupt_on_clarify else ["review_plan"],
        name="pipeline",
    )


# LangGraph Studio / `langgraph dev` entry point; the server supplies the checkpointer.
graph = build_graph()
