"""What the full trust engine's model calls (one per node) and the ranker must return."""

from __future__ import annotations

from pydantic import BaseModel, Field

from research_studio.pipelines.advanced.schemas import SourceAssessment


class SourceAssessments(BaseModel):
    """credibility_scorer: the model's judgement of every source."""

    assessments: list[SourceAssessment] = Field(default_factory=list)


class AtomicClaim(BaseModel):
    """One atomic factual claim, assigned to an outline section."""

    text: str
    section: str


class AtomicClaims(BaseModel):
    """claim_extractor: atomic claims drawn from the evidence."""

    claims: list[AtomicClaim] = Field(default_factory=list)


class ClaimCitation(BaseModel):
    """The evidence ids said to support one claim."""

    cid: str
    eids: list[str] = Field(default_factory=list)


class ClaimCitations(BaseModel):
    """cite: evidence ids for every claim."""

    citations: list[ClaimCitation] = Field(default_factory=list)


class SpanCheck(BaseModel):
    """span_verify, for one claim: the exact words of its evidence that support it."""

    cid: str
    verified: bool
    evidence_span: str = Field(description="Copied exactly from the evidence.")
    source_eid: str = Field(description="The id of the evidence item the span is copied from.")
    # Omitted: 0, below the span threshold, so the claim fails closed.
    match_confidence: float = Field(0.0, ge=0.0, le=1.0)


class SpanChecks(BaseModel):
    """span_verify: a check for every claim."""

    checks: list[SpanCheck] = Field(default_factory=list)


class CrossCheck(BaseModel):
    """cross_validate, for one claim: evidence of other sources that also supports it."""

    cid: str
    supporting_eids: list[str] = Field(default_factory=list)
    reason: str = ""


class CrossChecks(BaseModel):
    """cross_validate: a check for every claim."""

    checks: list[CrossCheck] = Field(default_factory=list)


class ExcludedSource(BaseModel):
    """A source about someone else of the same name."""

    sid: str
    reason: str = ""


class SourceRelevance(BaseModel):
    """ranker (person queries): which sources are about the target person."""

    relevant_sids: list[str] = Field(default_factory=list)
    excluded: list[ExcludedSource] = Field(default_factory=list)
