"""The discovery phase's prompts: ERA-CoT analysis, entity clustering, candidate confirmation."""

from __future__ import annotations

from research_studio.pipelines.advanced.prompts import ANALYZER_SYSTEM
from research_studio.sources.search import SearchResult

PATTERN_LABEL = "A fast pattern reading of the query, to confirm or correct:"
PATTERN_ANCHORS = "; anchors: "  # between the pattern's query type and its anchors
NO_PATTERN = "no pattern matched"
ERA_COT_STEPS = f"""
Think in five steps (ERA-CoT): how the query is built (subject, qualifiers, what is asked); which
entities it names; how they relate ("studies at", "compared with", ...); which terms every
search must keep; what type of query it is. Report:
- entities: every entity named, with its kind (person, organization, concept, place, product);
- anchor_terms: the terms every search must keep, the main name first, then its qualifiers;
- query_type (person, organization, concept, technical, comparison, other) and analysis_confidence.
{PATTERN_LABEL} {{pattern}}"""

ERA_COT_SYSTEM = ANALYZER_SYSTEM + ERA_COT_STEPS
COMPLEXITY_STEP = """
Also report complexity: "simple" for one fact, "comprehensive" for "deep research about X", else "moderate" or "complex"."""

DISCOVERY_SYSTEM = """You identify which entity a research query is about.
Group the search results by the distinct entity they describe (different people or organizations can share a name). For each entity give its name, a one-line description, the identifiers that set it apart (institution, role, field, place) and your confidence (0-1) that it is the one the query means. Say needs_clarification when the query fits several of them equally well."""

QUERY_TYPE_LABEL = "Query type:"
ANCHORS_LABEL = "Anchor terms:"
DISCOVERY_USER = f"""Query: {{query}}
{QUERY_TYPE_LABEL} {{query_type}}
{ANCHORS_LABEL} {{anchors}}

SEARCH RESULTS:
{{results}}"""

RESULT_ITEM = "[{number}] {title} — {url}\n{snippet}"

CONFIRM_SYSTEM = """You check whether new search results confirm an entity candidate.
Say whether they are about the same entity (confirmed), list identifiers they add (new_identifiers), and give your updated confidence (0-1) that the candidate is the entity the query means."""

CANDIDATE_LABEL = "Candidate:"
CONFIRM_USER = f"""Query: {{query}}
{CANDIDATE_LABEL} {{name}} — {{description}}
Known identifiers: {{identifiers}}

NEW SEARCH RESULTS:
{{results}}"""


def result_listing(results: list[SearchResult]) -> str:
    """Search results, numbered, with title, address and snippet."""
    return "\n".join(
        RESULT_ITEM.format(
            number=number, title=result.title, url=result.url, snippet=result.snippet[:300]
        )
        for number, result in enumerate(results, 1)
    )
