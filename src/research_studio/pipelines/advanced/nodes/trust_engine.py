"""trust_engine (batched): call 1 scores sources and extracts claims, call 2 verifies; code decides."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.errors import ResearchStudioError
from research_studio.core.prompt_blocks import inline
from research_studio.core.records import (
    ClaimRecord,
    EvidenceRecord,
    SourceCredibility,
    SourceRecord,
)
from research_studio.evidence.passages import usable_evidence
from research_studio.grounding.credibility import credibility, domain_trust, freshness
from research_studio.grounding.verification import (
    hallucination_score,
    judge_claim,
    judged_claim,
    overall_confidence,
    score_claim,
)
from research_studio.pipelines.advanced.prompts import (
    TRUST_CLAIMS_SYSTEM,
    TRUST_CLAIMS_USER,
    TRUST_VERIFY_SYSTEM,
    TRUST_VERIFY_USER,
    claim_listing,
    evidence_listing,
    source_listing,
)
from research_studio.pipelines.advanced.routing import tier_of
from research_studio.pipelines.advanced.schemas import (
    ClaimCheck,
    ClaimDraft,
    ClaimVerification,
    CredibilityAndClaims,
    SourceAssessment,
)
from research_studio.pipelines.advanced.state import AgentState
from research_studio.pipelines.kit.node_kit import call_records, emitter, error_record, services_of

DEFAULT_JUDGEMENT = 0.6
MAX_CLAIMS = 15


def score_sources(
    sources: list[SourceRecord], assessments: list[SourceAssessment]
) -> dict[str, SourceCredibility]:
    """Credibility of every source: the model's authority/quality, code's domain trust and freshness."""
    by_sid = {item.sid: item for item in assessments}
    scores: dict[str, SourceCredibility] = {}
    for source in sources:
        judged = by_sid.get(source["sid"])
        authority = judged.authority if judged else DEFAULT_JUDGEMENT
        quality = judged.content_quality if judged else DEFAULT_JUDGEMENT
        domain, fresh = domain_trust(source["url"]), freshness(source["published"])
        scores[source["sid"]] = SourceCredibility(
            sid=source["sid"],
            domain_trust=domain,
            freshness=fresh,
            authority=authority,
            content_quality=quality,
            overall=credibility(domain, fresh, authority, quality),
        )
    return scores


def verify_claims(
    drafts: list[ClaimDraft],
    checks: dict[str, ClaimCheck],
    evidence: list[EvidenceRecord],
    scores: dict[str, SourceCredibility],
) -> list[ClaimRecord]:
    """Claims checked by code (`judge_claim`): the model's support and span are proposals only."""
    credibility = {sid: score["overall"] for sid, score in scores.items()}
    claims: list[ClaimRecord] = []
    for number, draft in enumerate(drafts, 1):
        cid = f"C{number}"
        check = checks.get(cid)
        span = check.evidence_span if check is not None and check.verified else ""
        judgement = judge_claim(draft.text, span, draft.supporting_eids, evidence)
        claims.append(
            score_claim(judged_claim(cid, draft.text, draft.section, span, judgement), credibility)
        )
    return claims


def keep_credible(
    sources: list[SourceRecord],
    evidence: list[EvidenceRecord],
    scores: dict[str, SourceCredibility],
    minimum: float,
) -> tuple[list[SourceRecord], list[EvidenceRecord]]:
    """Sources at or above the minimum credibility (carrying it), and their usable evidence."""
    kept_sources = [
        SourceRecord(**{**s, "credibility": scores[s["sid"]]["overall"]})
        for s in sources
        if scores[s["sid"]]["overall"] >= minimum
    ]
    kept_sids = {s["sid"] for s in kept_sources}
    return kept_sources, usable_evidence([item for item in evidence if item["sid"] in kept_sids])


def verbatim_claims(
    evidence: list[EvidenceRecord],
) -> tuple[list[ClaimDraft], dict[str, ClaimCheck]]:
    """Extractive mode: each verified quote is a claim, its own span; identical facts merge their support."""
    drafts: dict[str, ClaimDraft] = {}
    for item in evidence:
        if item["quote_verified"]:
            key = item["text"].lower()
            if key in drafts:
                drafts[key].supporting_eids.append(item["eid"])
            elif len(drafts) < MAX_CLAIMS:
                drafts[key] = ClaimDraft(
                    text=item["text"],
                    section=item["question"] or "Findings",
                    supporting_eids=[item["eid"]],
                )
    ordered = list(drafts.values())
    checks = {
        f"C{n}": ClaimCheck(
            cid=f"C{n}",
            verified=True,
            evidence_span=draft.text,
            source_eid=draft.supporting_eids[0],
            match_confidence=1.0,
        )
        for n, draft in enumerate(ordered, 1)
    }
    return ordered, checks


def draft_claim(cid: str, text: str, section: str, eids: list[str], span: str) -> ClaimRecord:
    """A claim not yet judged: its text, section, proposed evidence and span."""
    return ClaimRecord(
        cid=cid,
        text=text.strip(),
        section=section,
        supporting_eids=list(eids),
        supporting_sids=[],
        evidence_span=span,
        span_match=0.0,
        verified=False,
        cross_validated=False,
        confidence=0.0,
        indicator="",
    )


def verbatim_claim_records(evidence: list[EvidenceRecord]) -> list[ClaimRecord]:
    """`verbatim_claims` as unjudged claim records, each carrying its own quote as span."""
    drafts, checks = verbatim_claims(evidence)
    return [
        draft_claim(f"C{n}", d.text, d.section, d.supporting_eids, checks[f"C{n}"].evidence_span)
        for n, d in enumerate(drafts, 1)
    ]


async def trust_engine(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Credibility, claims, span verification, cross-validation and confidence in two model calls."""
    config = runtime.context
    services = services_of(runtime)
    caller = services.caller("trust_engine", tier_of("trust_engine"))
    sources, evidence = state.get("sources", []), state.get("evidence", [])
    errors = []
    assessments: list[SourceAssessment] = []
    drafts: list[ClaimDraft] = []
    checks: dict[str, ClaimCheck] = {}
    extractive = services.extraction.verbatim
    if evidence and not extractive:
        try:
            first = await caller.structured(
                CredibilityAndClaims,
                [
                    SystemMessage(content=TRUST_CLAIMS_SYSTEM),
                    HumanMessage(
                        content=TRUST_CLAIMS_USER.format(
                            sections=inline(state["plan"]["outline"]),
                            sources=source_listing(sources),
                            evidence=evidence_listing(evidence),
                        )
                    ),
                ],
            )
            assessments, drafts = first.source_assessments, first.claims[:MAX_CLAIMS]
        except ResearchStudioError as exc:
            errors.append(error_record("trust_engine", exc))
    scores = score_sources(sources, assessments)
    kept_sources, kept_evidence = keep_credible(
        sources, evidence, scores, config.min_source_credibility
    )
    if extractive:
        drafts, checks = verbatim_claims(kept_evidence)
    elif drafts:
        try:
            second = await caller.structured(
                ClaimVerification,
                [
                    SystemMessage(content=TRUST_VERIFY_SYSTEM),
                    HumanMessage(
                        content=TRUST_VERIFY_USER.format(
                            claims=claim_listing(drafts), evidence=evidence_listing(kept_evidence)
                        )
                    ),
                ],
            )
            checks = {check.cid: check for check in second.checks}
        except ResearchStudioError as exc:
            errors.append(error_record("trust_engine", exc))
    claims = verify_claims(drafts, checks, kept_evidence, scores)
    verified = [claim for claim in claims if claim["verified"]]
    hallucination = hallucination_score(claims)
    overall = overall_confidence(claims)
    emitter(runtime, "trust_engine")(
        f"{len(verified)}/{len(claims)} claims verified; {len(sources) - len(kept_sources)} source(s) dropped",
        confidence=overall,
    )
    return {
        "sources": kept_sources,
        "sources_dropped": len(sources) - len(kept_sources),
        "evidence": kept_evidence,
        "source_credibility": scores,
        "claims": claims,
        "hallucination_score": hallucination,
        "overall_confidence": overall,
        "llm_calls": call_records(caller),
        "errors": errors,
    }
