"""The full trust engine, one node per step; each model call proposes, code decides.

credibility_scorer → (ranker) → claim_extractor → cite → span_verify → cross_validate →
confidence_scorer. Verdicts use the engine's shared rules (`rules.judge_claims`): given the
same answers, the full and batched engines reach the same verdicts.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.prompt_blocks import inline
from research_studio.core.records import ClaimRecord, ErrorRecord, ModelCallRecord
from research_studio.grounding.verification import hallucination_score
from research_studio.pipelines.advanced.models import ADVANCED_MODELS
from research_studio.pipelines.advanced.prompts import evidence_listing, source_listing
from research_studio.pipelines.advanced.state import AgentState
from research_studio.pipelines.advanced.trust_engine.prompts import (
    CITE_SYSTEM,
    CITE_USER,
    CLAIMS_SYSTEM,
    CLAIMS_USER,
    CREDIBILITY_SYSTEM,
    CREDIBILITY_USER,
    CROSS_SYSTEM,
    CROSS_USER,
    SPAN_SYSTEM,
    SPAN_USER,
    cited_claim_listing,
    cross_claim_listing,
    full_claim_listing,
)
from research_studio.pipelines.advanced.trust_engine.rules import (
    MAX_CLAIMS,
    best_evidence,
    checked_spans,
    citations_of,
    credibility_update,
    draft_claim,
    judge_claims,
    scored_update,
    verbatim_claim_records,
    verified_anchors,
)
from research_studio.pipelines.advanced.trust_engine.schemas import (
    AtomicClaims,
    ClaimCitations,
    CrossChecks,
    SourceAssessments,
    SpanChecks,
)
from research_studio.pipelines.kit.models import ask
from research_studio.pipelines.kit.node_kit import emitter, services_of


def _verbatim(runtime: Runtime[Configuration]) -> bool:
    return services_of(runtime).extraction.verbatim


def _judged(
    claims: list[ClaimRecord], calls: list[ModelCallRecord], errors: list[ErrorRecord]
) -> dict[str, Any]:
    """A judging node's update: the judged claims, the share unverified, its calls and errors."""
    return {
        "claims": claims,
        "hallucination_score": hallucination_score(claims),
        "llm_calls": calls,
        "errors": errors,
    }


async def credibility_scorer(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """The model rates authority and quality; code adds domain trust and freshness, and filters."""
    sources, evidence = state.get("sources", []), state.get("evidence", [])
    answer: SourceAssessments | None = None
    calls: list[ModelCallRecord] = []
    errors: list[ErrorRecord] = []
    config = runtime.context
    if evidence and not _verbatim(runtime) and config.enable_credibility_scoring:
        answer, calls, errors = await ask(
            runtime,
            ADVANCED_MODELS,
            "credibility_scorer",
            SourceAssessments,
            CREDIBILITY_SYSTEM,
            CREDIBILITY_USER.format(sources=source_listing(sources)),
        )
    assessments = answer.assessments if answer else []
    update = credibility_update(sources, evidence, assessments, config)
    kept = len(update["sources"])
    emitter(runtime, "credibility_scorer")(
        f"{kept} of {len(sources)} source(s) credible enough"
        if config.enable_credibility_scoring
        else "credibility scoring off: no source scored or dropped",
        sources=kept,
    )
    return {**update, "llm_calls": calls, "errors": errors}


async def claim_extractor(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Atomic claims from the evidence (verbatim mode: each verified quote is a claim)."""
    evidence = state.get("evidence", [])
    if _verbatim(runtime):
        claims = verbatim_claim_records(evidence)
        return {"claims": claims, "citations": citations_of(claims)}
    answer: AtomicClaims | None = None
    calls: list[ModelCallRecord] = []
    errors: list[ErrorRecord] = []
    if evidence:
        answer, calls, errors = await ask(
            runtime,
            ADVANCED_MODELS,
            "claim_extractor",
            AtomicClaims,
            CLAIMS_SYSTEM,
            CLAIMS_USER.format(
                sections=inline(state["plan"]["outline"]), evidence=evidence_listing(evidence)
            ),
        )
    found = [claim for claim in (answer.claims if answer else []) if claim.text.strip()]
    claims = [
        draft_claim(f"C{n}", claim.text, claim.section, [], "")
        for n, claim in enumerate(found[:MAX_CLAIMS], 1)
    ]
    emitter(runtime, "claim_extractor")(f"{len(claims)} claim(s) drafted", claims=len(claims))
    return {"claims": claims, "citations": {}, "llm_calls": calls, "errors": errors}


async def cite(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Evidence ids for every claim; a claim the model leaves out gets its section's best match."""
    claims, evidence = state.get("claims", []), state.get("evidence", [])
    if _verbatim(runtime) or not claims:
        return {"citations": citations_of(claims)}
    answer, calls, errors = await ask(
        runtime,
        ADVANCED_MODELS,
        "cite",
        ClaimCitations,
        CITE_SYSTEM,
        CITE_USER.format(claims=full_claim_listing(claims), evidence=evidence_listing(evidence)),
    )
    given = {
        item.cid: list(dict.fromkeys(item.eids)) for item in (answer.citations if answer else [])
    }
    # Invented ids stay proposals: judge_claims cuts them, as the batched engine does.
    citations = {
        c["cid"]: given[c["cid"]] if given.get(c["cid"]) else best_evidence(c, evidence)
        for c in claims
    }
    fallback = sum(1 for c in claims if not given.get(c["cid"]))
    emitter(runtime, "cite")(f"{len(claims)} claim(s) cited; {fallback} by fallback")
    cited = [
        ClaimRecord(**{**claim, "supporting_eids": citations[claim["cid"]]}) for claim in claims
    ]
    return {"claims": cited, "citations": citations, "llm_calls": calls, "errors": errors}


async def span_verify(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """The model quotes the words that support each claim; code finds them in verified quotes."""
    claims, evidence = state.get("claims", []), state.get("evidence", [])
    citations = state.get("citations", {})
    calls: list[ModelCallRecord] = []
    errors: list[ErrorRecord] = []
    anchors: dict[str, str] = {}
    if not runtime.context.enable_span_verification:
        spans = {}  # no span, no verified claim: fail closed
    elif _verbatim(runtime):
        spans = {c["cid"]: c["evidence_span"] for c in claims}
    elif claims:
        cited = {eid for eids in citations.values() for eid in eids}
        answer, calls, errors = await ask(
            runtime,
            ADVANCED_MODELS,
            "span_verify",
            SpanChecks,
            SPAN_SYSTEM,
            SPAN_USER.format(
                claims=cited_claim_listing(claims, citations),
                evidence=evidence_listing([item for item in evidence if item["eid"] in cited]),
            ),
        )
        spans, anchors = checked_spans(answer.checks if answer else [], citations, evidence)
    else:
        spans = {}
    judged = judge_claims(
        claims, spans, citations, evidence, runtime.context.enable_cross_validation, anchors
    )
    verified = sum(1 for claim in judged if claim["verified"])
    emitter(runtime, "span_verify")(f"{verified}/{len(judged)} claim span(s) found in the evidence")
    return _judged(judged, calls, errors)


async def cross_validate(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """The model names other sources' evidence for each claim; code counts distinct verifying sources."""
    claims, evidence = state.get("claims", []), state.get("evidence", [])
    citations = state.get("citations", {})
    if _verbatim(runtime) or not claims or not runtime.context.enable_cross_validation:
        return {}
    answer, calls, errors = await ask(
        runtime,
        ADVANCED_MODELS,
        "cross_validate",
        CrossChecks,
        CROSS_SYSTEM,
        CROSS_USER.format(claims=cross_claim_listing(claims), evidence=evidence_listing(evidence)),
    )
    checks = {check.cid: check for check in (answer.checks if answer else [])}
    offered = {
        c["cid"]: [
            *citations.get(c["cid"], []),
            *(checks[c["cid"]].supporting_eids if c["cid"] in checks else []),
        ]
        for c in claims
    }
    spans = {c["cid"]: c["evidence_span"] for c in claims}
    # The span stays anchored where span_verify found it, whatever else now matches better.
    judged = judge_claims(claims, spans, offered, evidence, anchors=verified_anchors(claims))
    for record in judged:
        check = checks.get(record["cid"])
        if check and check.reason:
            record["reason"] = check.reason
    crossed = sum(1 for claim in judged if claim["cross_validated"])
    emitter(runtime, "cross_validate")(f"{crossed} claim(s) confirmed by two or more sources")
    return _judged(judged, calls, errors)


def confidence_scorer(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Per-claim confidence and indicator (formula), section and overall confidence: code only."""
    update = scored_update(state.get("claims", []), state.get("source_credibility", {}))
    claims, overall = update["claims"], update["overall_confidence"]
    verified = sum(1 for claim in claims if claim["verified"])
    emitter(runtime, "confidence_scorer")(
        f"{verified}/{len(claims)} claims verified; overall confidence {overall:.2f}",
        confidence=overall,
    )
    return update
