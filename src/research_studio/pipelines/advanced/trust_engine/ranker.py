"""ranker: drop same-name sources about someone else (person queries), sort by quality, cut to top N."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.prompt_blocks import NONE
from research_studio.core.records import ClaimRecord, ErrorRecord, ModelCallRecord, SourceRecord
from research_studio.grounding.credibility import domain_trust
from research_studio.grounding.ranking import quality_score
from research_studio.pipelines.advanced.models import ADVANCED_MODELS
from research_studio.pipelines.advanced.prompts import source_listing
from research_studio.pipelines.advanced.state import AgentState
from research_studio.pipelines.advanced.trust_engine.prompts import RANKER_SYSTEM, RANKER_USER
from research_studio.pipelines.advanced.trust_engine.schemas import SourceRelevance
from research_studio.pipelines.kit.models import ask
from research_studio.pipelines.kit.node_kit import emitter
from research_studio.pipelines.kit.referents import about_others

PERSON_CLASSES = ("person_profile",)


def is_person_query(state: AgentState) -> bool:
    """Whether the research is about one person (the analyzer's class or discovery's type)."""
    discovered = state.get("discovery_result")
    if discovered and discovered["query_type"] == "person":
        return True
    return state.get("query_analysis", {}).get("query_class") in PERSON_CLASSES


def _target(state: AgentState) -> tuple[str, str, str]:
    """The person researched: name, description, identifiers."""
    entity = state.get("selected_entity")
    if entity:
        return (
            entity["name"],
            entity["description"] or NONE,
            ", ".join(entity["identifiers"]) or NONE,
        )
    anchor = state.get("primary_anchor") or state.get("query", "")
    identifiers = ", ".join(state.get("anchor_terms", [])) or NONE
    return anchor, state.get("enriched_context") or state.get("query", "") or NONE, identifiers


async def _excluded(
    state: AgentState, runtime: Runtime[Configuration], sources: list[SourceRecord]
) -> tuple[set[str], list[ModelCallRecord], list[ErrorRecord]]:
    """The sources about a different person: named so by the model, and naming none of the
    target's identifiers (checked by code)."""
    name, description, identifiers = _target(state)
    relevance, calls, errors = await ask(
        runtime,
        ADVANCED_MODELS,
        "ranker",
        SourceRelevance,
        RANKER_SYSTEM,
        RANKER_USER.format(
            name=name,
            description=description,
            identifiers=identifiers,
            sources=source_listing(sources),
        ),
    )
    if relevance is None:
        return set(), calls, errors
    known = {source["sid"] for source in sources}
    relevant = set(relevance.relevant_sids)
    proposed = {item.sid for item in relevance.excluded if item.sid in known} - relevant
    marks = _identifiers(state)
    # The model proposes; a source that names one of the target's identifiers stays.
    excluded = {s["sid"] for s in sources if s["sid"] in proposed and not _names(s, marks)}
    return excluded, calls, errors


def _identifiers(state: AgentState) -> list[str]:
    """What sets the target apart from namesakes: the entity's identifiers, else anchor terms."""
    entity = state.get("selected_entity")
    marks = entity["identifiers"] if entity else state.get("anchor_terms", [])
    return [mark.lower() for mark in marks if len(mark.strip()) > 2]


def _names(source: SourceRecord, marks: list[str]) -> bool:
    """Whether a source's title or snippet names one of the identifiers."""
    text = f"{source['title']} {source['snippet']}".lower()
    return any(mark in text for mark in marks)


def rank_sources(
    sources: list[SourceRecord], credibility: dict[str, float], top_n: int
) -> list[SourceRecord]:
    """Sources by quality (credibility, content type, recency), best first, at most top_n."""
    scored = sorted(
        sources,
        key=lambda s: (
            -quality_score(
                s["url"], s["published"], credibility.get(s["sid"], domain_trust(s["url"]))
            )
        ),
    )
    return scored[:top_n]


def follow_evidence(claims: list[ClaimRecord], kept_eids: set[str]) -> list[ClaimRecord]:
    """Drafted claims keep only evidence still present; a claim left without any is dropped."""
    followed = []
    for claim in claims:
        eids = [eid for eid in claim["supporting_eids"] if eid in kept_eids]
        if eids:
            followed.append(ClaimRecord(**{**claim, "supporting_eids": eids}))
    return followed


async def ranker(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Person queries: the model names other people's sources; code sorts and cuts; evidence follows."""
    sources, evidence = state.get("sources", []), state.get("evidence", [])
    calls: list[ModelCallRecord] = []
    errors: list[ErrorRecord] = []
    excluded: set[str] = set()
    if sources and is_person_query(state):
        excluded, calls, errors = await _excluded(state, runtime, sources)
    # Namesakes found by discovery: code keeps out the sources about the others, asked or not.
    selected, candidates = state.get("selected_entity"), state.get("discovery_result")
    if selected and candidates:
        excluded |= about_others(sources, evidence, selected, candidates["entity_candidates"])
    credibility = {
        sid: score["overall"] for sid, score in state.get("source_credibility", {}).items()
    }
    relevant = [source for source in sources if source["sid"] not in excluded]
    kept = rank_sources(relevant, credibility, runtime.context.rerank_top_n)
    kept_sids = {source["sid"] for source in kept}
    kept_evidence = [item for item in evidence if item["sid"] in kept_sids]
    update: dict[str, Any] = {
        "sources": kept,
        "evidence": kept_evidence,
        "sources_dropped": state.get("sources_dropped", 0) + len(sources) - len(kept),
        "sources_excluded": sorted(excluded),
        "llm_calls": calls,
        "errors": errors,
    }
    if state.get("claims"):  # the batched engine drafts claims before ranking
        update["claims"] = follow_evidence(state["claims"], {item["eid"] for item in kept_evidence})
    emitter(runtime, "ranker")(
        f"{len(kept)} source(s) kept; {len(excluded)} about someone else; "
        f"{len(relevant) - len(kept)} below the top {runtime.context.rerank_top_n}",
        sources=len(kept),
    )
    return update
