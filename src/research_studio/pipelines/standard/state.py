"""The standard pipeline's state and its private records."""

from __future__ import annotations

import operator
from typing import Annotated

from langgraph.graph import MessagesState
from typing_extensions import TypedDict

from research_studio.core.records import (
    Accounting,
    ClaimRecord,
    EvidenceRecord,
    FindingRecord,
    PageRecord,
    SourceRecord,
    StatementRecord,
)
from research_studio.pipelines.kit.contract import Mode
from research_studio.pipelines.kit.referents import EntityCandidate
from research_studio.pipelines.kit.stopping import StopReason


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
    gaps: list[str]
    confidence: float
    needs_more_research: bool
    additional_searches: list[str]


class ResearchState(MessagesState, Accounting, total=False):
    """State of the standard pipeline; accumulators merge parallel workers' writes."""

    query: str
    mode: Mode
    started_at: float
    today: str  # the run's date (ISO), recorded once by the first node
    # understanding and clarification
    understanding: str
    is_ambiguous: bool
    ambiguity_kinds: list[str]
    clarification_question: str
    clarification_options: list[str]
    user_clarification: str
    referent_notice: str  # the reading taken when no one could be asked (opens the report)
    referents: list[EntityCandidate]  # the readings it was taken from, the chosen one first
    # plan
    research_questions: list[str]
    aspects_to_cover: list[str]
    pending_searches: list[str]
    plan_feedback: str  # the person's reply to the plan (plan review), applied by review_plan
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
    stop_reason: StopReason
    last_round: bool  # the round just read is the last the iteration cap allows
    # verification and report
    claims: list[ClaimRecord]
    confidence: float
    report: str
    statements: list[StatementRecord]
    cited_sources: list[str]
    metadata: dict[str, object]


class WorkerState(TypedDict, total=False):
    """The slice of state one search worker receives through Send."""

    worker_id: str
    worker_index: int  # its place in the plan: the order in which workers claim pages
    iteration: int
    sub_question: SubQuestion
    query: str
    user_clarification: str
    searches_done: list[str]
    fetched_urls: list[str]
