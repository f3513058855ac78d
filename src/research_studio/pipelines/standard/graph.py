"""The standard pipeline graph: builder, pure routing functions, and the module-level `graph`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
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


def judged_with_verification(judge: str) -> Callable[[Mapping[str, Any]], str | list[str]]:
    """After a round's reading: to its judgement, and on the last round the iteration cap
    allows, to `verify` at the same time (its claims cannot change: no other round follows)."""

    def route(state: Mapping[str, Any]) -> str | list[str]:
        return [judge, "verify"] if state.get("last_round") else judge

    route.__name__ = f"to_{judge}"
    return route


def after_judgement(loop: str) -> wiring.Router:
    """After a round's judgement: another round until it gives a stop reason, then `verify`;
    straight to the report when `verify` already ran beside the last round's judgement."""

    def route(state: Mapping[str, Any]) -> str:
        if state.get("last_round"):
            return "write_report"
        return "verify" if state.get("stop_reason") else loop

    route.__name__ = f"after_judgement_to_{loop}"
    return route


route_after_research = judged_with_verification("detect_gaps")
route_after_workers = judged_with_verification("synthesize")
route_after_gaps = after_judgement("search_and_extract")
route_after_synthesis = after_judgement("orchestrate")


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
    finish = ["verify", "write_report"]
    builder.add_conditional_edges(
        "search_and_extract", route_after_research, ["detect_gaps", "verify"]
    )
    builder.add_conditional_edges("detect_gaps", route_after_gaps, ["search_and_extract", *finish])
    builder.add_conditional_edges("orchestrate", fanout_workers, ["search_worker", "collect"])
    builder.add_edge("search_worker", "collect")
    builder.add_conditional_edges("collect", route_after_workers, ["synthesize", "verify"])
    builder.add_conditional_edges("synthesize", route_after_synthesis, ["orchestrate", *finish])
    wiring.chain(builder, "verify", "write_report", END)
    return wiring.compiled(builder, "pipeline", checkpointer, interrupt_on_clarify, "review_plan")


# LangGraph Studio / `langgraph dev` entry point; the server supplies the checkpointer.
graph = build_graph()
