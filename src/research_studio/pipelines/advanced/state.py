"""The advanced pipeline's state and its private records (TypedDicts: checkpoint-safe)."""

from __future__ import annotations

import operator
from typing import Annotated, Literal, NotRequired

from langgraph.graph import MessagesState
from typing_extensions import TypedDict

from research_studio.core.records import (
    Accounting,
    ClaimRecord,
    DeadEnd,
    EvidenceRecord,
    FindingRecord,
    PageRecord,
    SourceCredibility,
    SourceRecord,
    StatementRecord,
)
from research_studio.pipelines.kit.contract import Mode
from research_studio.pipelines.kit.referents import EntityCandidate as EntityCandidate
from research_studio.pipelines.kit.stopping import StopReason


class QueryAnalysis(TypedDict):
    """What the analyzer understood of the query."""

    intent: str
    query_class: str
    primary_subject: str
    subject_type: str
    topic_focus: str
    temporal_scope: str
    domain: str
    complexity: str  # the variants' analyzer only (the optimized fast path); "" on V9
    ambiguity_level: str
    needs_clarification: bool
    clarification_question: str
    clarification_options: list[str]
    suggested_questions: list[str]
    suggested_outline: list[str]
    analysis_confidence: float


class DiscoveryResult(TypedDict):
    """What discovery knows of the subject: its type, candidates, and how sure it is."""

    query_type: str  # person, organization, concept, technical, comparison, other
    entity_candidates: list[EntityCandidate]
    confidence: float
    needs_clarification: bool
    anchor_terms: list[str]


class PlanQuery(TypedDict):
    """One search of the plan, flattened from the research tree."""

    qid: str
    query: str
    section: str
    priority: float


class TreeQuestion(TypedDict):
    """A node of the research tree."""

    question: str
    queries: list[str]
    target_sources: list[str]
    priority: float
    section: str


class ResearchPlan(TypedDict):
    """Topic, outline, research tree and the flat query list."""

    topic: str
    outline: list[str]
    primary: list[TreeQuestion]
    secondary: list[TreeQuestion]
    tertiary: NotRequired[list[TreeQuestion]]  # nice to have (the variants' templates)
    queries: list[PlanQuery]
    search_strategy: str


class SubagentAssignment(TypedDict):
    """One subagent's work."""

    subagent_id: str
    question: str
    section: str
    queries: list[str]
    target_sources: list[str]


class SubagentFindings(TypedDict):
    """What one subagent reports back."""

    subagent_id: str
    iteration: int
    question: str
    section: str
    findings: str
    # Its verified evidence, one sentence each (code's pick, not the model's summary).
    key_findings: list[str]
    confidence: float
    # What it still wanted: the searches it proposed and had no round left to run, or its
    # question itself when no verified evidence answers it.
    gaps: list[str]
    iterations_used: int
    queries_run: list[str]
    dead_ends: list[DeadEnd]


class KnowledgeGap(TypedDict):
    """A missing piece of the outline."""

    section: str
    severity: str
    description: str
    suggested_queries: list[str]


class TrajectoryStep(TypedDict):
    """One step of the research, for inspection."""

    iteration: int
    action: str
    summary: str


class OrchestratorState(TypedDict):
    """Where the research loop is (spec 000/001): set by the orchestrator, then the synthesis."""

    phase: Literal["primary_research", "refinement", "synthesis"]
    questions_assigned: int
    questions_completed: int
    overall_confidence: float


class AgentState(MessagesState, Accounting, total=False):
    """The advanced pipeline's state; accumulators merge the parallel subagents' writes."""

    query: str
    mode: Mode
    started_at: float
    today: str  # the run's date (ISO), recorded once by the first node
    # understanding and clarification
    query_analysis: QueryAnalysis
    needs_clarification: bool
    clarification_question: str
    clarification_options: list[str]
    user_clarification: str
    enriched_context: str
    primary_anchor: str
    # discovery (the family's variants)
    discovery_result: DiscoveryResult
    selected_entity: EntityCandidate
    # What the report opens with when code chose among namesakes because no one could be asked.
    referent_notice: str
    anchor_terms: list[str]
    discovery_route: str  # planner, clarify or auto_refine (confidence_check's decision)
    refined: bool  # auto_refine ran once
    query_complexity: str  # simple, medium, complex (complexity_router)
    fast_path: bool
    source_counts: list[int]  # sources known after each round (early_termination_check)
    stopped_by: str  # the node whose rule stopped the research loop
    # plan
    plan: ResearchPlan
    plan_feedback: str  # the person's reply to the plan (plan review), applied by review_plan
    # research loop
    research_iteration: int
    subagent_assignments: list[SubagentAssignment]
    subagent_findings: Annotated[list[SubagentFindings], operator.add]
    pages: Annotated[list[PageRecord], operator.add]
    findings: Annotated[list[FindingRecord], operator.add]
    searches_done: Annotated[list[str], operator.add]
    done_workers: Annotated[int, operator.add]
    total_workers: int
    orchestrator_state: OrchestratorState
    dead_ends: list[DeadEnd]
    handled_dead_ends: list[str]  # keys of the dead ends backtrack_handler has turned into searches
    research_trajectory: Annotated[list[TrajectoryStep], operator.add]
    # reduced
    sources: list[SourceRecord]
    evidence: list[EvidenceRecord]
    # gaps
    knowledge_gaps: list[KnowledgeGap]
    refinement_queries: list[PlanQuery]
    section_confidence: dict[str, float]
    overall_confidence: float
    previous_confidence: float
    # Per round: the gap detector's confidence; a round stopped early: its subagents' mean.
    coverage_history: list[float]
    stop_reason: StopReason
    # trust and output
    source_credibility: dict[str, SourceCredibility]
    sources_dropped: int
    sources_excluded: list[str]  # sids the ranker judged to be about another entity
    claims: list[ClaimRecord]
    citations: dict[str, list[str]]  # cid -> evidence ids the cite node attached
    hallucination_score: float
    report: str
    statements: list[StatementRecord]
    metadata: dict[str, object]


class SubagentState(TypedDict, total=False):
    """What one subagent receives through Send."""

    assignment: SubagentAssignment
    worker_index: int  # its place in the plan: the order in which subagents claim pages
    iteration: int
    context: str
    anchor: str
    known_urls: list[str]
    searches_done: list[str]
