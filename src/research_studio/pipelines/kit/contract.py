"""What every research graph accepts and returns: one input and one output schema for all."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from research_studio.core.records import ClaimRecord, EvidenceRecord, SourceRecord, StatementRecord

Mode = Literal["single", "multi"]


class ResearchInput(TypedDict, total=False):
    """A research request: the query (or a chat message, as Studio sends), mode, clarification."""

    query: str
    messages: Annotated[list[AnyMessage], add_messages]
    mode: Mode
    user_clarification: str


class ResearchOutput(TypedDict, total=False):
    """A finished (or paused) run: the report with everything it rests on, and its metadata."""

    query: str
    mode: Mode
    clarification_question: str
    clarification_options: list[str]
    user_clarification: str
    report: str
    sources: list[SourceRecord]
    evidence: list[EvidenceRecord]
    claims: list[ClaimRecord]
    statements: list[StatementRecord]
    metadata: dict[str, Any]
    messages: Annotated[list[AnyMessage], add_messages]


def research_input(query: str, mode: str = "multi") -> ResearchInput:
    """A new run's input, the same for every pipeline."""
    return ResearchInput(query=query, mode="single" if mode == "single" else "multi")
