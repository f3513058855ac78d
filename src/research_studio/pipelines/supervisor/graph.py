"""The supervisor graph (spec 004): builder, pure routing functions, and the module-level `graph`."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from research_studio.pipelines.kit import wiring
from research_studio.pipelines.supervisor.chat import REVIEW_PAUSES
from research_studio.pipelines.supervisor.nodes.claims import verify_claims
from research_studio.pipelines.supervisor.nodes.council import (
    brief_rejected,
    make_review_brief,
    validate_brief,
    validate_findings,
)
from research_studio.pipelines.supervisor.nodes.evidence import extract_evidence, verify_evidence
from research_studio.pipelines.supervisor.nodes.intake import (
    check_store,
    clarify,
    clarify_with_user,
    write_research_brief,
)
from research_studio.pipelines.supervisor.nodes.report import (
    final_report_generation,
    make_review_report,
    route_after_review_report,
)
from research_studio.pipelines.supervisor.nodes.supervisor import research_supervisor
from research_studio.pipelines.supervisor.state import AgentState


def route_after_validate_brief(
    state: AgentState,
) -> Literal["write_research_brief", "review_brief", "brief_rejected"]:
    """Back to the brief while the council asks for a revision; a rejection ends the run."""
    outcome = state.get("council_outcome")
    if outcome == "rejected":
        return "brief_rejected"
    return "write_research_brief" if outcome == "revise" else "review_brief"


def build_graph(
    checkpointer: BaseCheckpointSaver | None = None,
    interrupt_on_clarify: bool = True,
    *,
    store: BaseStore | None = None,
    human_review: bool = True,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the supervisor pipeline; with `interrupt_on_clarify` it pauses before `clarify`.

    `human_review` lets review_mode interrupt for a person (`--no-clarify` does not change it:
    it only skips the clarification question);
    `store` keeps the run's sources (a LangGraph server supplies its own).
    """
    ask_human = human_review
    intake = (check_store, clarify_with_user, clarify, write_research_brief, validate_brief)
    research = (research_supervisor, validate_findings, extract_evidence, verify_evidence)
    builder = wiring.research_graph(
        AgentState,
        [
            *wiring.named(*intake),
            ("review_brief", make_review_brief(ask_human)),
            ("brief_rejected", brief_rejected),
            *wiring.named(*research, final_report_generation),
            ("review_report", make_review_report(ask_human)),
            ("verify_claims", verify_claims),
        ],
    )
    wiring.chain(builder, START, "check_store", "clarify_with_user")
    # The user is asked only when clarify_with_user found the request ambiguous.
    wiring.clarify_step(builder, "clarify_with_user", "needs_clarification", "write_research_brief")
    builder.add_edge("write_research_brief", "validate_brief")
    builder.add_conditional_edges(
        "validate_brief",
        route_after_validate_brief,
        ["write_research_brief", "review_brief", "brief_rejected"],
    )
    builder.add_edge("brief_rejected", END)
    wiring.chain(
        builder,
        "review_brief",
        "research_supervisor",
        "validate_findings",
        "extract_evidence",
        "verify_evidence",
        "final_report_generation",
        "review_report",
    )
    builder.add_conditional_edges(
        "review_report", route_after_review_report, ["final_report_generation", "verify_claims"]
    )
    builder.add_edge("verify_claims", END)
    # Without a person to ask, no review pauses: no chat message answers one.
    pauses = REVIEW_PAUSES if ask_human else ()
    return wiring.compiled(
        builder, "supervisor", checkpointer, interrupt_on_clarify, store=store, chat_pauses=pauses
    )


# LangGraph Studio / `langgraph dev` entry point; the server supplies checkpointer and store.
graph = build_graph()
