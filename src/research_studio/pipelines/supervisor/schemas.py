"""What the supervisor pipeline's models return (pydantic at the boundary) and its tools' arguments."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class ClarifyWithUser(BaseModel):
    """Whether the request needs a clarifying question before research starts."""

    need_clarification: bool = False
    question: str = ""
    options: list[str] = Field(default_factory=list, description="Two to five likely answers.")
    verification: str = Field("", description="What will be researched, said back to the user.")


class BriefContext(BaseModel):
    """What a preliminary search says about the request, to inform the brief."""

    key_entities: list[str] = Field(default_factory=list)
    recent_events: list[str] = Field(default_factory=list)
    metrics: list[str] = Field(default_factory=list)


class ResearchQuestion(BaseModel):
    """The research brief that guides the supervisor."""

    research_brief: str


class CouncilReview(BaseModel):
    """One council member's verdict on a research brief."""

    decision: Literal["approve", "revise", "reject"]
    confidence: float = Field(0.5, ge=0.0, le=1.0)
    feedback: str = ""


class FlaggedIssue(BaseModel):
    """A problem in the research notes."""

    kind: Literal[
        "fabricated_name",
        "impossible_date",
        "uncited_claim",
        "contradiction",
        "suspicious_statistic",
    ]
    detail: str


class FindingsReview(BaseModel):
    """A fact-check of the research notes (advisory)."""

    issues: list[FlaggedIssue] = Field(default_factory=list)


class PageSummary(BaseModel):
    """A page summarized for a researcher, with passages copied from it."""

    summary: str
    key_excerpts: list[str] = Field(default_factory=list, description="Copied exactly.")


class KeyQuote(BaseModel):
    """A passage of a page, copied exactly, and the page's URL."""

    url: str
    quote: str


class CompressedResearch(BaseModel):
    """A researcher's findings, cleaned up, with the passages they rest on."""

    findings: str
    quotes: list[KeyQuote] = Field(default_factory=list)


class SelectedQuote(BaseModel):
    """A verified passage picked for the Verified Findings section, copied exactly."""

    id: str = Field(description="The passage's id, e.g. V3.")
    quote: str = Field(description="The passage, copied character for character.")


class FindingsSelection(BaseModel):
    """The selector's pick of verified passages."""

    selected: list[SelectedQuote] = Field(default_factory=list)


# --- tool arguments ------------------------------------------------------------------------------


class ConductResearchArgs(BaseModel):
    """Delegate one research topic to a researcher."""

    research_topic: str = Field(
        description="The topic to research, described in a full paragraph of detail."
    )


class ResearchCompleteArgs(BaseModel):
    """Signal that the research is complete."""


class ThinkArgs(BaseModel):
    """A reflection on progress and next steps."""

    reflection: str


class SearchArgs(BaseModel):
    """Web (or local document) searches to run."""

    queries: list[str] = Field(min_length=1, description="One to three search queries.")


class ToolPick(BaseModel):
    """One tool the model calls and its arguments (the fallback for servers without tools)."""

    tool: str
    arguments: dict[str, object] = Field(default_factory=dict)


class ToolChoice(BaseModel):
    """The tools the model calls next, in order; none means it is done."""

    calls: list[ToolPick] = Field(default_factory=list)
