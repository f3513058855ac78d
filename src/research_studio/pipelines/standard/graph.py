"""The standard pipeline graph: builder, pure routing functions, and the module-level `graph`."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START
from langgraph.graph.state import CompiledStateGraph

from research_studio.pipelines.kit import wiring
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

# Another round until detect_gaps gives a stop reason.
route_after_gaps = wiring.route_on("stop_reason", "verify", "search_and_extract")
# Another round of workers until the synthesis gives a stop reason.
route_after_synthesis = wiring.route_on("stop_reason", "verify", "orchestrate")


def route_to_research(state: ResearchState) -> Literal["search_and_extract", "orchestrate"]:
    """Single agent loops over searches; multi agent fans out to workers."""
    return "search_and_extract" if state.get("mode", "multi") == "single" else "orchestrate"


def build_graph(
    checkpointer: BaseCheckpointSaver | None = None, interrupt_on_clarify: bool = True
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the standard pipeline; with `interrupt_on_clarify` it pauses before `clarify`."""
    intake = (understand, clarify, plan, review_plan, search_and_extract, detect_gaps)
    workers = (orchestrate, search_worker, collect, synthesize, verify, write_report)
    builder = wiring.research_graph(ResearchState, wiring.named(*intake, *workers))
    builder.add_edge(START, "understand")
    # The user is asked only when the request was judged ambiguous.
    wiring.clarify_step(builder, "understand", "is_ambiguous", "plan")
    wiring.review_step(builder, "plan", route_to_research, ["search_and_extract", "orchestrate"])
    builder.add_edge("search_and_extract", "detect_gaps")
    builder.add_conditional_edges("detect_gaps", route_after_gaps, ["search_and_extract", "verify"])
    builder.add_conditional_edges("orchestrate", fanout_workers, ["search_worker", "collect"])
    wiring.chain(builder, "search_worker", "collect", "synthesize")
    builder.add_conditional_edges("synthesize", route_after_synthesis, ["orchestrate", "verify"])
    wiring.chain(builder, "verify", "write_report", END)
    return wiring.compiled(builder, "pipeline", checkpointer, interrupt_on_clarify, "review_plan")


# LangGraph Studio / `langgraph dev` entry point; the server supplies the checkpointer.
graph = build_graph()
