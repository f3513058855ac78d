"""What the standard pipeline's model calls must return."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

AmbiguityKind = Literal[
    "polysemy",
    "scope",
    "time_period",
    "geography",
    "perspective",
    "specificity",
    "comparison_baseline",
]


class Understanding(BaseModel):
    """Whether the request is clear, and what to ask when it is not."""

    understanding: str = Field(description="What the user wants researched, restated.")
    is_clear: bool
    ambiguity_kinds: list[AmbiguityKind] = Field(default_factory=list)
    clarification_question: str = ""
    clarification_options: list[str] = Field(default_factory=list, max_length=8)


class ResearchPlan(BaseModel):
    """Questions, aspects and first searches."""

    research_questions: list[str] = Field(min_length=1, max_length=8)
    aspects_to_cover: list[str] = Field(default_factory=list)
    searches: list[str] = Field(min_length=1, max_length=10)


class PlannedSubQuestion(BaseModel):
    """One worker's sub-question and its searches."""

    question: str
    searches: list[str] = Field(min_length=1, max_length=5)


class WorkPlan(BaseModel):
    """The orchestrator's split of the work."""

    sub_questions: list[PlannedSubQuestion] = Field(min_length=1, max_length=10)


class QuestionCoverage(BaseModel):
    """How well one research question is covered."""

    question: str
    status: Literal["well_covered", "partial", "missing"]


class GapAssessment(BaseModel):
    """Coverage per question, remaining gaps and searches that would fill them."""

    question_coverage: list[QuestionCoverage] = Field(default_factory=list)
    coverage: float = Field(ge=0.0, le=1.0)
    gaps: list[str] = Field(default_factory=list)
    new_searches: list[str] = Field(default_factory=list)
    ready_to_write: bool = False


class SynthesisOutput(BaseModel):
    """The lead's judgement of the round from all workers' reports.

    Only what code uses is asked: findings and conflicts are not, since the report is written
    from the verified evidence and code finds conflicts between sources' quotes itself."""

    summary: str = Field(description="One or two sentences: where the research stands.")
    gaps: list[str] = Field(default_factory=list)
    confidence: float = Field(ge=0.0, le=1.0)
    needs_more_research: bool = False
    additional_searches: list[str] = Field(default_factory=list)


class ClaimCheck(BaseModel):
    """The verdict on one numbered claim."""

    index: int = Field(ge=1)
    supported: bool
    reason: str = ""


class Verification(BaseModel):
    """Verdicts on the claims given."""

    claims: list[ClaimCheck] = Field(default_factory=list)
