"""The batched trust engine split around the ranker (optimized variant): two model calls in all.

batched_cred_claims (credibility + claims, one call) → ranker → batched_verify (spans,
cross-validation, one call; confidence by formula). Same rules as the one-node trust_engine.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.prompt_blocks import inline
from research_studio.core.records import ClaimRecord, ErrorRecord, ModelCallRecord
from research_studio.grounding.verification import (
    hallucination_score,
    judge_claim,
    judged_claim,
    overall_confidence,
    score_claim,
    section_confidence,
)
from research_studio.pipelines.advanced.nodes.trust_engine import (
    MAX_CLAIMS,
    draft_claim,
    keep_credible,
    score_sources,
    verbatim_claim_records,
)
from research_studio.pipelines.advanced.prompts import (
    TRUST_CLAIMS_SYSTEM,
    TRUST_CLAIMS_USER,
    TRUST_VERIFY_SYSTEM,
    TRUST_VERIFY_USER,
    evidence_listing,
    source_listing,
)
from research_studio.pipelines.advanced.routing import ask
from research_studio.pipelines.advanced.schemas import (
    ClaimVerification,
    CredibilityAndClaims,
    SourceAssessment,
)
from research_studio.pipelines.advanced.state import AgentState
from research_studio.pipelines.advanced.trust_prompts import cited_claim_listing
from research_studio.pipelines.kit.node_kit import emitter, services_of


async def batched_cred_claims(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Call 1: source judgements and claim drafts; code scores credibility and filters."""
    sources, evidence = state.get("sources", []), state.get("evidence", [])
    verbatim = services_of(runtime).extraction.verbatim
    assessments: list[SourceAssessment] = []
    claims: list[ClaimRecord] = []
    calls: list[ModelCallRecord] = []
    errors: list[ErrorRecord] = []
    if evidence and not verbatim:
        first, calls, errors = await ask(
            runtime,
            "batched_cred_claims",
            CredibilityAndClaims,
            TRUST_CLAIMS_SYSTEM,
            TRUST_CLAIMS_USER.format(
                sections=inline(state["plan"]["outline"]),
                sources=source_listing(sources),
                evidence=evidence_listing(evidence),
            ),
        )
        if first is not None:
            assessments = first.source_assessments
            claims = [
                draft_claim(f"C{n}", d.text, d.section, d.supporting_eids, "")
                for n, d in enumerate(first.claims[:MAX_CLAIMS], 1)
            ]
    scores = score_sources(sources, assessments)
    kept, kept_evidence = keep_credible(
        sources, evidence, scores, runtime.context.min_source_credibility
    )
    if verbatim:
        claims = verbatim_claim_records(kept_evidence)
    emitter(runtime, "batched_cred_claims")(
        f"{len(kept)} of {len(sources)} source(s) kept; {len(claims)} claim(s) drafted"
    )
    return {
        "sources": kept,
        "evidence": kept_evidence,
        "source_credibility": scores,
        "sources_dropped": len(sources) - len(kept),
        "claims": claims,
        "llm_calls": calls,
        "errors": errors,
    }


async def batched_verify(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Call 2: spans and cross-validation proposed together; code judges and scores every claim."""
    claims, evidence = state.get("claims", []), state.get("evidence", [])
    calls: list[ModelCallRecord] = []
    errors: list[ErrorRecord] = []
    spans = {claim["cid"]: claim["evidence_span"] for claim in claims}
    if claims and not services_of(runtime).extraction.verbatim:
        citations = {claim["cid"]: claim["supporting_eids"] for claim in claims}
        second, calls, errors = await ask(
            runtime,
            "batched_verify",
            ClaimVerification,
            TRUST_VERIFY_SYSTEM,
            TRUST_VERIFY_USER.format(
                claims=cited_claim_listing(claims, citations), evidence=evidence_listing(evidence)
            ),
        )
        checks = second.checks if second is not None else []
        spans = {c.cid: c.evidence_span if c.verified else "" for c in checks}
    credibility = {
        sid: score["overall"] for sid, score in state.get("source_credibility", {}).items()
    }
    judged = [
        score_claim(
            judged_claim(
                c["cid"],
                c["text"],
                c["section"],
                spans.get(c["cid"], ""),
                judge_claim(c["text"], spans.get(c["cid"], ""), c["supporting_eids"], evidence),
            ),
            credibility,
        )
        for c in claims
    ]
    overall = overall_confidence(judged)
    emitter(runtime, "batched_verify")(
        f"{sum(1 for c in judged if c['verified'])}/{len(judged)} claims verified",
        confidence=overall,
    )
    return {
        "claims": judged,
        "section_confidence": section_confidence(judged),
        "overall_confidence": overall,
        "hallucination_score": hallucination_score(judged),
        "llm_calls": calls,
        "errors": errors,
    }
