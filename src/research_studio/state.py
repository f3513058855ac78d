"""Record types kept in graph state (TypedDicts, checkpoint-safe) and the standard pipeline state."""

from __future__ import annotations

import operator
from typing import Annotated, Literal, NotRequired

from langgraph.graph import MessagesState

# LangGraph's MessagesState is a typing_extensions TypedDict; bases must share its metaclass.
from typing_extensions import TypedDict


class SourceRecord(TypedDict):
    """A fetched document that evidence came from; `sid` is what reports cite."""

    sid: str
    url: str
    title: str
    snippet: str
    provider: str
    published: str | None
    credibility: NotRequired[float]


class PageRecord(TypedDict):
    """A page a worker read, before it has a source id."""

    url: str
    title: str
    snippet: str
    provider: str
    published: str | None


class FindingRecord(TypedDict):
    """A fact extracted from a page, before consolidation gives it ids."""

    url: str
    text: str
    quote: str
    quote_verified: bool
    question: str


class EvidenceRecord(TypedDict):
    """A fact with its quote, its source, and whether code found the quote in the page."""

    eid: str
    sid: str
    url: str
    title: str
    text: str
    quote: str
    quote_verified: bool
    question: str


class QuoteRef(TypedDict):
    """A passage copied from a source's page, which code found there."""

    sid: str
    quote: str


class StatementRecord(TypedDict):
    """One printed sentence of a report: what it cites and the passages that back it."""

    section: str
    text: str
    ids: list[str]
    sids: list[str]
    quotes: list[QuoteRef]
    indicator: str
    kind: str  # "cited" (a writer's statement), "passage" (verbatim page text), "connective"


class ErrorRecord(TypedDict):
    """A failure kept as data: what failed, where, and why."""

    node: str
    kind: str
    message: str
    target: str


class LLMCallRecord(TypedDict):
    """One model call (see models.LLMCall)."""

    node: str
    tier: str
    model: str
    method: str
    started: float
    ended: float
    prompt_tokens: int | None
    completion_tokens: int | None
    ok: bool
    error: str | None
    error_kind: NotRequired[str | None]


class VerifiedClaim(TypedDict):
    """A claim checked against the evidence: supported only if the model agrees and the quote is real."""

    eid: str
    claim: str
    supported: bool
    reason: str


class SubQuestion(TypedDict):
    """One worker's assignment."""

    question: str
    searches: list[str]


class WorkerResult(TypedDict):
    """What one search worker found for its sub-question."""

    worker_id: str
    iteration: int
    question: str
    answer: str
    key_findings: list[str]
    confidence: float
    gaps: list[str]
    searches: list[str]
    pages: list[PageRecord]
    findings: list[FindingRecord]


class Synthesis(TypedDict):
    """The multi-agent synthesis of all workers' results."""

    summary: str
    key_findings: list[str]
    conflicts: list[str]
    gaps: list[str]
    confidence: float
    needs_more_research: bool
    additional_searches: list[str]


class Accounting(TypedDict, total=False):
    """What every graph keeps as data: model calls, failures, fetches (merged across workers)."""

    llm_calls: Annotated[list[LLMCallRecord], operator.add]
    errors: Annotated[list[ErrorRecord], operator.add]
    fetch_count: Annotated[int, operator.add]


class ResearchState(MessagesState, Accounting, total=False):
    """State of the standard pipeline; accumulators merge parallel workers' writes."""

    query: str
    mode: Literal["single", "multi"]
    started_at: float
    # understanding and clarification
    understanding: str
    is_ambiguous: bool
    ambiguity_kinds: list[str]
    clarification_question: str
    clarification_options: list[str]
    user_clarification: str
    # plan and limits copied from the configuration, so routing stays a pure function of state
    research_questions: list[str]
    aspects_to_cover: list[str]
    pending_searches: list[str]
    min_coverage: float
    max_iterations: int
    iteration: int
    # research progress
    searches_done: list[str]
    fetched_urls: list[str]
    sources: list[SourceRecord]
    evidence: Annotated[list[EvidenceRecord], operator.add]
    worker_results: Annotated[list[WorkerResult], operator.add]
    done_workers: Annotated[int, operator.add]
    collected_results: int
    sub_questions: list[SubQuestion]
    total_workers: int
    synthesis: Synthesis
    coverage: float
    coverage_history: list[float]
    gaps: list[str]
    ready_to_write: bool
    # verification and report
    verified_claims: list[VerifiedClaim]
    confidence: float
    report: str
    statements: list[StatementRecord]
    cited_sources: list[str]
    metadata: dict[str, object]


class WorkerState(TypedDict, total=False):
    """The slice of state one search worker receives through Send."""

    worker_id: str
    iteration: int
    sub_question: SubQuestion
    query: str
    user_clarification: str
    searches_done: list[str]
    fetched_urls: list[str]
