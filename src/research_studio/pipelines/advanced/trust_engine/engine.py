"""The batched trust engine: two model calls, as one node (V9) or split around the ranker.

Call 1 (`draft_step`) judges the sources and drafts claims; code scores credibility and
filters. Call 2 (`verify_step`) proposes spans; code judges and scores every claim. The
one-node `trust_engine` runs both steps; `batched_cred_claims` and `batched_verify` are the
same steps as two nodes, with the ranker between them (optimized variant).
"""

from __future__ import annotations

from typing import Any, cast

from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.prompt_blocks import inline
from research_studio.core.records import ClaimRecord, ErrorRecord, ModelCallRecord
from research_studio.pipelines.advanced.models import ADVANCED_MODELS
from research_studio.pipelines.advanced.prompts import (
    TRUST_CLAIMS_SYSTEM,
    TRUST_CLAIMS_USER,
    TRUST_DRAFT_SYSTEM,
    TRUST_VERIFY_SYSTEM,
    TRUST_VERIFY_USER,
    evidence_listing,
    source_listing,
)
from research_studio.pipelines.advanced.schemas import (
    ClaimVerification,
    CredibilityAndClaims,
    DraftClaims,
    SourceAssessment,
)
from research_studio.pipelines.advanced.state import AgentState
from research_studio.pipelines.advanced.trust_engine.prompts import CLAIMS_USER, cited_claim_listing
from research_studio.pipelines.advanced.trust_engine.rules import (
    checked_spans,
    citations_of,
    credibility_update,
    draft_claims,
    judge_claims,
    scored_update,
    verbatim_claim_records,
)
from research_studio.pipelines.kit.models import ask
from research_studio.pipelines.kit.node_kit import emitter, services_of
from research_studio.pipelines.kit.referents import kept_apart


def _draft_request(
    state: AgentState, scoring: bool
) -> tuple[type[DraftClaims | CredibilityAndClaims], str, str]:
    """Call 1's schema and prompts: with credibility scoring off, the claims alone."""
    sections = inline(state["plan"]["outline"])
    evidence = evidence_listing(state.get("evidence", []))
    if not scoring:
        return (
            DraftClaims,
            TRUST_DRAFT_SYSTEM,
            CLAIMS_USER.format(sections=sections, evidence=evidence),
        )
    return (
        CredibilityAndClaims,
        TRUST_CLAIMS_SYSTEM,
        TRUST_CLAIMS_USER.format(
            sections=sections, sources=source_listing(state.get("sources", [])), evidence=evidence
        ),
    )


async def draft_step(
    state: AgentState, runtime: Runtime[Configuration], node: str
) -> dict[str, Any]:
    """Call 1: source judgements and claim drafts; code scores credibility and filters."""
    config = runtime.context
    sources, evidence = state.get("sources", []), state.get("evidence", [])
    verbatim = services_of(runtime).extraction.verbatim
    assessments: list[SourceAssessment] = []
    claims: list[ClaimRecord] = []
    calls: list[ModelCallRecord] = []
    errors: list[ErrorRecord] = []
    if evidence and not verbatim:
        schema, system, user = _draft_request(state, config.enable_credibility_scoring)
        first, calls, errors = await ask(runtime, ADVANCED_MODELS, node, schema, system, user)
        if isinstance(first, CredibilityAndClaims):
            assessments = first.source_assessments
        if first is not None:
            claims = draft_claims(first.claims)
    update = credibility_update(sources, evidence, assessments, config)
    if verbatim:
        claims = verbatim_claim_records(update["evidence"])
    return {**update, "claims": claims, "llm_calls": calls, "errors": errors}


async def verify_step(
    state: AgentState, runtime: Runtime[Configuration], node: str
) -> dict[str, Any]:
    """Call 2: spans proposed for every claim; code judges and scores each one.

    With span verification off there is no call and no span: every claim stays unverified.
    """
    config = runtime.context
    claims, evidence = state.get("claims", []), state.get("evidence", [])
    calls: list[ModelCallRecord] = []
    errors: list[ErrorRecord] = []
    citations = citations_of(claims)
    spans = {claim["cid"]: claim["evidence_span"] for claim in claims}
    anchors: dict[str, str] = {}
    if not config.enable_span_verification:
        spans = {}
    elif claims and not services_of(runtime).extraction.verbatim:
        second, calls, errors = await ask(
            runtime,
            ADVANCED_MODELS,
            node,
            ClaimVerification,
            TRUST_VERIFY_SYSTEM,
            TRUST_VERIFY_USER.format(
                claims=cited_claim_listing(claims, citations), evidence=evidence_listing(evidence)
            ),
        )
        checks = second.checks if second is not None else []
        spans, anchors = checked_spans(checks, citations, evidence)
    judged = judge_claims(
        claims, spans, citations, evidence, config.enable_cross_validation, anchors
    )
    scored = scored_update(judged, state.get("source_credibility", {}))
    return {**scored, "llm_calls": calls, "errors": errors}


def _verified(claims: list[ClaimRecord]) -> int:
    return sum(1 for claim in claims if claim["verified"])


async def trust_engine(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Credibility, claims, span verification, cross-validation and confidence in two model calls."""
    # A referent picked without asking: code keeps the sources about the other readings out.
    found = state.get("discovery_result")
    sources, evidence, excluded = kept_apart(
        state.get("sources", []),
        state.get("evidence", []),
        state.get("selected_entity"),
        found["entity_candidates"] if found else [],
    )
    state = cast(AgentState, {**state, "sources": sources, "evidence": evidence})
    first = await draft_step(state, runtime, "trust_engine")
    second = await verify_step(cast(AgentState, {**state, **first}), runtime, "trust_engine")
    claims = second["claims"]
    dropped = first["sources_dropped"]
    emitter(runtime, "trust_engine")(
        f"{_verified(claims)}/{len(claims)} claims verified; {dropped} source(s) dropped",
        confidence=second["overall_confidence"],
    )
    return {
        "sources": first["sources"],
        "sources_dropped": dropped + len(excluded),
        "sources_excluded": excluded,
        "evidence": first["evidence"],
        "source_credibility": first["source_credibility"],
        "claims": claims,
        "hallucination_score": second["hallucination_score"],
        "overall_confidence": second["overall_confidence"],
        "llm_calls": [*first["llm_calls"], *second["llm_calls"]],
        "errors": [*first["errors"], *second["errors"]],
    }


async def batched_cred_claims(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Call 1 as its own node, before the ranker."""
    update = await draft_step(state, runtime, "batched_cred_claims")
    total = len(state.get("sources", []))
    emitter(runtime, "batched_cred_claims")(
        f"{len(update['sources'])} of {total} source(s) kept; {len(update['claims'])} claim(s) drafted"
    )
    return update


async def batched_verify(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Call 2 as its own node, after the ranker."""
    update = await verify_step(state, runtime, "batched_verify")
    claims = update["claims"]
    emitter(runtime, "batched_verify")(
        f"{_verified(claims)}/{len(claims)} claims verified",
        confidence=update["overall_confidence"],
    )
    return update
