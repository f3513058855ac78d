"""The supervisor pipeline's states (main graph, supervisor, researcher) and their records."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal

from langchain_core.messages import AnyMessage
from langgraph.graph import MessagesState
from typing_extensions import TypedDict

from research_studio.core.records import (
    Accounting,
    ClaimRecord,
    EvidenceRecord,
    SourceRecord,
    StatementRecord,
)
from research_studio.pipelines.kit.contract import Mode
from research_studio.pipelines.kit.referents import EntityCandidate
from research_studio.pipelines.kit.stopping import StopReason

OVERRIDE = "override"


def override(value: list[Any]) -> dict[str, Any]:
    """An update that replaces a list channel instead of extending it."""
    return {"type": OVERRIDE, "value": value}


def override_reducer(current: list[Any] | None, new: Any) -> list[Any]:
    """Extend the list, unless the update is `override(value)`: then replace it."""
    if isinstance(new, dict) and new.get("type") == OVERRIDE:
        return list(new.get("value", []))
    return [*(current or []), *(new if isinstance(new, list) else [new])]


class StoredSource(TypedDict):
    """A page a researcher read, as kept in the store and in state (one per URL)."""

    url: str
    title: str
    content: str
    extraction_method: Literal["fetched", "search_raw"]
    timestamp: float
    provider: str
    published: str | None


class QuoteCandidate(TypedDict):
    """A passage a model said a page contains; code decides whether it does."""

    url: str
    quote: str


SnippetStatus = Literal["PENDING", "PASS", "FAIL"]


class EvidenceSnippet(TypedDict):
    """A candidate quote of a stored source and the verdict of the code that checked it."""

    snippet_id: str
    url: str
    title: str
    quote: str
    origin: Literal["source", "notes"]
    status: SnippetStatus
    match: str  # "exact", "jaccard" or why it failed
    score: float


class CouncilVote(TypedDict):
    """One council member's verdict on the brief (decision "failed" when the member failed)."""

    model: str
    decision: str
    confidence: float
    feedback: str


class Gathered(Accounting, total=False):
    """What researchers gather: each level (researcher, supervisor, main graph) adds it up."""

    raw_notes: Annotated[list[str], operator.add]
    source_store: Annotated[list[StoredSource], operator.add]
    quote_candidates: Annotated[list[QuoteCandidate], operator.add]
    searches_done: Annotated[list[str], operator.add]


class AgentState(MessagesState, Gathered, total=False):
    """State of the supervisor pipeline's main graph."""

    query: str
    mode: Mode
    started_at: float
    # store gating and clarification
    verified_disabled: bool
    store_note: str
    needs_clarification: bool
    clarification_question: str
    clarification_options: list[str]
    user_clarification: str
    referent_notice: str  # the reading taken when no one could be asked (opens the report)
    referents: list[EntityCandidate]  # the readings it was taken from, the chosen one first
    # brief and councils
    research_brief: str
    brief_context: str
    council_revision_count: int
    feedback_on_brief: list[str]
    council_votes: list[CouncilVote]
    council_consensus: float
    council_outcome: str
    council_brief_feedback: str
    human_approved_brief: str
    review_reply: str  # a review answered in the chat (Studio), read instead of the interrupt
    flagged_issues: list[str]
    # research
    supervisor_messages: Annotated[list[AnyMessage], override_reducer]
    research_iterations: int
    notes: Annotated[list[str], operator.add]
    stop_reason: StopReason
    research_topics: list[str]  # the topics the supervisor delegated, in order
    coverage_history: list[float]  # after each supervisor round (see SupervisorState)
    # verification and report
    evidence_snippets: list[EvidenceSnippet]
    verified_section: str
    report: str
    sources: list[SourceRecord]
    evidence: list[EvidenceRecord]
    claims: list[ClaimRecord]
    statements: list[StatementRecord]
    human_report_feedback: str
    report_revisions: int  # reports rewritten after the reader's feedback (review_mode=full)
    revise_report: bool  # the reader's feedback is waiting for the writer
    metadata: dict[str, Any]


class SupervisorState(Gathered, total=False):
    """State of the supervisor sub-graph: its conversation and what its researchers returned."""

    supervisor_messages: Annotated[list[AnyMessage], override_reducer]
    research_brief: str
    research_iterations: int
    notes: Annotated[list[str], operator.add]
    stop_reason: StopReason
    research_topics: Annotated[list[str], operator.add]  # the topics researchers ran on
    # After each round: the share of the topics delegated so far that some stored source is about.
    coverage_history: Annotated[list[float], operator.add]


class ResearcherState(Gathered, total=False):
    """State of one researcher: its topic, its tool-calling conversation, what it found."""

    researcher_messages: Annotated[list[AnyMessage], override_reducer]
    research_topic: str
    tool_call_iterations: int
    # Its place among the researchers of its supervisor round (`fanout`): pages their searches
    # find are shared out in this order each turn (services.claims.PageShares).
    researcher_index: int
    fanout: str
    compressed_research: str
    done: bool


class ResearcherOutput(Accounting, total=False):
    """What a researcher hands back to the supervisor."""

    compressed_research: str
    raw_notes: list[str]
    source_store: list[StoredSource]
    quote_candidates: list[QuoteCandidate]
    searches_done: list[str]
