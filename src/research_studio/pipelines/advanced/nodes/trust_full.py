"""The full trust engine, one node per step; each model call proposes, code decides.

credibility_scorer → (ranker) → claim_extractor → cite → span_verify → cross_validate →
confidence_scorer. Verdicts use the batched engine's rules (`trust.verification.judge_claim`):
given the same answers, both engines reach the same verdicts.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.prompt_blocks import inline
from research_studio.core.records import ClaimRecord, ErrorRecord, EvidenceRecord, ModelCallRecord
from research_studio.grounding.verification import (
    hallucination_score,
    judge_claim,
    judged_claim,
    overall_confidence,
    score_claim,
    section_confidence,
    span_match,
)
from research_studio.pipelines.advanced.nodes.trust_engine import (
    MAX_CLAIMS,
    draft_claim,
    keep_credible,
    score_sources,
    verbatim_claim_records,
)
from research_studio.pipelines.advanced.prompts import evidence_listing, source_listing
from research_studio.pipelines.advanced.routing import ask
from research_studio.pipelines.advanced.state import AgentState
from research_studio.pipelines.advanced.trust_prompts import (
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
from research_studio.pipelines.advanced.trust_schemas import (
    AtomicClaims,
    ClaimCitations,
    CrossChecks,
    SourceAssessments,
    SpanChecks,
)
from research_studio.pipelines.kit.node_kit import emitter, services_of


def _verbatim(runtime: Runtime[Configuration]) -> bool:
    return services_of(runtime).extraction.verbatim


async def credibility_scorer(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """The model rates authority and quality; code adds domain trust and freshness, and filters."""
    sources, evidence = state.get("sources", []), state.get("evidence", [])
    answer: SourceAssessments | None = None
    calls: list[ModelCallRecord] = []
    errors: list[ErrorRecord] = []
    if evidence and not _verbatim(runtime):
        answer, calls, errors = await ask(
            runtime,
            "credibility_scorer",
            SourceAssessments,
            CREDIBILITY_SYSTEM,
            CREDIBILITY_USER.format(sources=source_listing(sources)),
        )
    scores = score_sources(sources, answer.assessments if answer else [])
    kept, kept_evidence = keep_credible(
        sources, evidence, scores, runtime.context.min_source_credibility
    )
    emitter(runtime, "credibility_scorer")(
        f"{len(kept)} of {len(sources)} source(s) credible enough", sources=len(kept)
    )
    return {
        "sources": kept,
        "evidence": kept_evidence,
        "source_credibility": scores,
        "sources_dropped": len(sources) - len(kept),
        "llm_calls": calls,
        "errors": errors,
    }


async def claim_extractor(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Atomic claims from the evidence (verbatim mode: each verified quote is a claim)."""
    evidence = state.get("evidence", [])
    if _verbatim(runtime):
        claims = verbatim_claim_records(evidence)
        return {"claims": claims, "citations": {c["cid"]: c["supporting_eids"] for c in claims}}
    answer: AtomicClaims | None = None
    calls: list[ModelCallRecord] = []
    errors: list[ErrorRecord] = []
    if evidence:
        answer, calls, errors = await ask(
            runtime,
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


def best_evidence(claim: ClaimRecord, evidence: list[EvidenceRecord]) -> list[str]:
    """Fallback citation: the verified evidence of the claim's section that best matches it."""
    verified = [item for item in evidence if item["quote_verified"]]
    pool = [item for item in verified if item["question"] == claim["section"]] or verified
    scored = [(span_match(claim["text"], item["quote"]), item["eid"]) for item in pool]
    best = max(scored, default=(0.0, ""))
    return [best[1]] if best[0] > 0 else []


async def cite(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Evidence ids for every claim; a claim the model leaves out gets its section's best match."""
    claims, evidence = state.get("claims", []), state.get("evidence", [])
    if _verbatim(runtime) or not claims:
        return {"citations": {c["cid"]: c["supporting_eids"] for c in claims}}
    answer, calls, errors = await ask(
        runtime,
        "cite",
        ClaimCitations,
        CITE_SYSTEM,
        CITE_USER.format(claims=full_claim_listing(claims), evidence=evidence_listing(evidence)),
    )
    given = {
        item.cid: list(dict.fromkeys(item.eids)) for item in (answer.citations if answer else [])
    }
    # Invented ids stay proposals: judge_claim cuts them, as the batched engine does.
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
    if _verbatim(runtime):
        spans = {c["cid"]: c["evidence_span"] for c in claims}
    elif claims:
        cited = {eid for eids in citations.values() for eid in eids}
        answer, calls, errors = await ask(
            runtime,
            "span_verify",
            SpanChecks,
            SPAN_SYSTEM,
            SPAN_USER.format(
                claims=cited_claim_listing(claims, citations),
                evidence=evidence_listing([item for item in evidence if item["eid"] in cited]),
            ),
        )
        checks = {check.cid: check for check in (answer.checks if answer else [])}
        spans = {
            cid: check.evidence_span if check.verified else "" for cid, check in checks.items()
        }
    else:
        spans = {}
    judged = [
        judged_claim(
            c["cid"],
            c["text"],
            c["section"],
            spans.get(c["cid"], ""),
            judge_claim(c["text"], spans.get(c["cid"], ""), citations.get(c["cid"], []), evidence),
        )
        for c in claims
    ]
    verified = sum(1 for claim in judged if claim["verified"])
    emitter(runtime, "span_verify")(f"{verified}/{len(judged)} claim span(s) found in the evidence")
    return {
        "claims": judged,
        "hallucination_score": hallucination_score(judged),
        "llm_calls": calls,
        "errors": errors,
    }


async def cross_validate(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """The model names other sources' evidence for each claim; code counts distinct verifying sources."""
    claims, evidence = state.get("claims", []), state.get("evidence", [])
    citations = state.get("citations", {})
    if _verbatim(runtime) or not claims:
        return {}
    answer, calls, errors = await ask(
        runtime,
        "cross_validate",
        CrossChecks,
        CROSS_SYSTEM,
        CROSS_USER.format(claims=cross_claim_listing(claims), evidence=evidence_listing(evidence)),
    )
    checks = {check.cid: check for check in (answer.checks if answer else [])}
    judged = []
    for claim in claims:
        check = checks.get(claim["cid"])
        offered = [*citations.get(claim["cid"], []), *(check.supporting_eids if check else [])]
        span = claim["evidence_span"]
        record = judged_claim(
            claim["cid"],
            claim["text"],
            claim["section"],
            span,
            judge_claim(claim["text"], span, offered, evidence),
        )
        if check and check.reason:
            record["reason"] = check.reason
        judged.append(record)
    crossed = sum(1 for claim in judged if claim["cross_validated"])
    emitter(runtime, "cross_validate")(f"{crossed} claim(s) confirmed by two or more sources")
    return {
        "claims": judged,
        "hallucination_score": hallucination_score(judged),
        "llm_calls": calls,
        "errors": errors,
    }


def confidence_scorer(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Per-claim confidence and indicator (formula), section and overall confidence: code only."""
    credibility = {
        sid: score["overall"] for sid, score in state.get("source_credibility", {}).items()
    }
    claims = [score_claim(claim, credibility) for claim in state.get("claims", [])]
    overall = overall_confidence(claims)
    verified = sum(1 for claim in claims if claim["verified"])
    emitter(runtime, "confidence_scorer")(
        f"{verified}/{len(claims)} claims verified; overall confidence {overall:.2f}",
        confidence=overall,
    )
    return {
        "claims": claims,
        "section_confidence": section_confidence(claims),
        "overall_confidence": overall,
        "hallucination_score": hallucination_score(claims),
    }
