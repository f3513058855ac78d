"""What the discovery phase's model calls return: ERA-CoT analysis, entity clusters, confirmation."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from research_studio.pipelines.advanced.schemas import Complexity, QueryAnalysisOutput

QueryType = Literal["person", "organization", "concept", "technical", "comparison", "other"]
QUERY_TYPES: tuple[str, ...] = QueryType.__args__  # type: ignore[attr-defined]


class EntityMention(BaseModel):
    """An entity named in the query."""

    name: str
    kind: str = Field("", description="person, organization, concept, place, product, ...")


class EraCotAnalysis(QueryAnalysisOutput):
    """The analyzer's step-by-step reading (ERA-CoT) on top of the query analysis."""

    query_type: QueryType = "other"
    entities: list[EntityMention] = Field(
        default_factory=list, description="Named person, organization and place anchor searches."
    )
    anchor_terms: list[str] = Field(
        default_factory=list, description="Terms every search must keep (names first)."
    )


class RoutedEraCotAnalysis(EraCotAnalysis):
    """The optimized variant's analysis: also how complex the query is (its router reads it)."""

    complexity: Complexity = Field(
        "moderate", description="simple (one fact), moderate, complex, or comprehensive."
    )


class EntityCandidateOutput(BaseModel):
    """One distinct entity the search results are about."""

    name: str
    description: str = ""
    identifiers: list[str] = Field(
        default_factory=list, description="Institution, role, field, place: what sets it apart."
    )
    confidence: float = Field(ge=0.0, le=1.0, description="That this is the entity meant.")


class EntityClustering(BaseModel):
    """The discovery results clustered into distinct entities."""

    candidates: list[EntityCandidateOutput] = Field(default_factory=list)
    needs_clarification: bool = False


class EntityConfirmation(BaseModel):
    """auto_refine: do the targeted results confirm the candidate?"""

    confirmed: bool
    new_identifiers: list[str] = Field(default_factory=list)
    confidence: float = Field(ge=0.0, le=1.0)
