"""What the advanced pipeline's model calls must return."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

QueryClass = Literal[
    "factual_lookup",  # a specific fact: a date, a number, a name
    "concept_explanation",  # how something works or what it means (timeless)
    "current_events",  # recent or ongoing developments, news, new policies
    "person_profile",  # a specific person
    "organization_profile",  # a company, agency, institution or group
    "comparison",  # two or more options weighed against each other
    "how_to",  # steps or methods to achieve something
    "historical_analysis",  # how something developed over past periods
    "statistical_data",  # figures, rates, rankings, trends in numbers
    "policy_analysis",  # laws, regulations, government programmes and their effects
    "scientific_research",  # the state of scientific evidence on a question
    "technical_deep_dive",  # engineering or implementation detail
    "market_analysis",  # markets, industries, prices, competition
    "product_evaluation",  # a product or service: features, quality, reviews
    "opinion_perspectives",  # debates and the range of views on an issue
    "event_timeline",  # the sequence of events of a specific episode
    "comprehensive_overview",  # broad "deep research" on a topic from every angle
]
QUERY_CLASSES: tuple[str, ...] = QueryClass.__args__  # type: ignore[attr-defined]
# How much research a query needs; only the optimized variant acts on it (its fast path).
Complexity = Literal["simple", "moderate", "complex", "comprehensive"]


class QueryAnalysisOutput(BaseModel):
    """The analyzer's reading of the query (V9 asks for no complexity: nothing there uses it)."""

    intent: str
    query_class: QueryClass
    primary_subject: str
    subject_type: str = Field(
        description="person, organization, policy, technology, event, concept, place, product, ..."
    )
    topic_focus: str = ""
    temporal_scope: Literal["recent", "historical", "timeless", "future"] = "timeless"
    domain: str = ""
    ambiguity_level: Literal["none", "low", "medium", "high"] = "none"
    needs_clarification: bool = False
    clarification_question: str = ""
    clarification_options: list[str] = Field(default_factory=list)
    suggested_questions: list[str] = Field(default_factory=list)
    suggested_outline: list[str] = Field(default_factory=list)
    analysis_confidence: float = Field(ge=0.0, le=1.0)


class ClarificationOutput(BaseModel):
    """The query and the user's answer, merged."""

    enriched_context: str
    updated_intent: str
    updated_subject: str
    updated_class: QueryClass
    suggested_questions: list[str] = Field(default_factory=list)
    confidence_boost: float = Field(0.0, ge=0.0, le=1.0)


class TreeQuestionOutput(BaseModel):
    """A research question with its searches."""

    question: str
    section: str = Field(description="The outline section it serves.")
    queries: list[str] = Field(min_length=1, max_length=5)
    target_sources: list[str] = Field(default_factory=list)
    priority: float = Field(0.5, ge=0.0, le=1.0)


class ResearchTreeOutput(BaseModel):
    """Primary (must answer), secondary (should answer) and tertiary (nice to have) questions."""

    primary: list[TreeQuestionOutput] = Field(min_length=1)
    secondary: list[TreeQuestionOutput] = Field(default_factory=list)
    tertiary: list[TreeQuestionOutput] = Field(default_factory=list)


class PlanOutput(BaseModel):
    """Topic, outline, research tree and strategy."""

    topic: str
    outline: list[str] = Field(min_length=1)
    research_tree: ResearchTreeOutput
    search_strategy: str = ""


class PageEvidence(BaseModel):
    """One evidence item from one of the pages shown (by its number)."""

    page: int = Field(ge=1)
    text: str = Field(description="The fact, 1-3 sentences.")
    quote: str = Field(description="Copied exactly from that page.")


class SubagentExtraction(BaseModel):
    """A subagent's batch extraction over all its pages, with its own assessment."""

    evidence: list[PageEvidence] = Field(default_factory=list)
    confidence: float = Field(
        ge=0.0, le=1.0, description="How well the evidence answers the question."
    )
    summary: str = Field(description="The findings, compressed to a few sentences.")
    refined_queries: list[str] = Field(default_factory=list)


class SectionAnalysis(BaseModel):
    """Coverage of one outline section."""

    section: str
    confidence: float = Field(ge=0.0, le=1.0)
    missing: str = ""


class GapOutput(BaseModel):
    """A gap the next iteration should fill."""

    section: str
    severity: Literal["high", "medium", "low"] = "medium"
    description: str
    suggested_queries: list[str] = Field(default_factory=list)


class GapAnalysis(BaseModel):
    """Coverage by section, gaps and the overall confidence."""

    section_analysis: list[SectionAnalysis] = Field(default_factory=list)
    overall_confidence: float = Field(ge=0.0, le=1.0)
    gaps: list[GapOutput] = Field(default_factory=list)
    recommendation: Literal["continue", "sufficient"] = "continue"


class SourceAssessment(BaseModel):
    """The model's judgement of one source."""

    sid: str
    authority: float = Field(ge=0.0, le=1.0)
    content_quality: float = Field(ge=0.0, le=1.0)


class ClaimDraft(BaseModel):
    """An atomic claim with the evidence said to support it."""

    text: str
    section: str
    supporting_eids: list[str] = Field(min_length=1)


class DraftClaims(BaseModel):
    """Trust engine call 1 with credibility scoring off: the claims alone."""

    claims: list[ClaimDraft] = Field(default_factory=list)


class CredibilityAndClaims(BaseModel):
    """Trust engine call 1."""

    source_assessments: list[SourceAssessment] = Field(default_factory=list)
    claims: list[ClaimDraft] = Field(default_factory=list)


class ClaimCheck(BaseModel):
    """Trust engine call 2, for one claim."""

    cid: str
    verified: bool
    evidence_span: str = Field(
        description="The exact words of the evidence that support the claim."
    )
    source_eid: str = Field(description="The id of the evidence item the span is copied from.")
    # Omitted: 0, below the span threshold, so the claim fails closed.
    match_confidence: float = Field(0.0, ge=0.0, le=1.0)


class ClaimVerification(BaseModel):
    """Trust engine call 2."""

    checks: list[ClaimCheck] = Field(default_factory=list)
