"""The trust engine's rules, shared by every engine: code scores, filters, judges and counts.

The model's answers are proposals (authority, claims, spans, citations); these functions
decide. Given the same answers, the full and the batched engines reach the same verdicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from research_studio.core.config import Configuration
from research_studio.core.records import (
    ClaimRecord,
    EvidenceRecord,
    SourceCredibility,
    SourceRecord,
)
from research_studio.evidence.passages import usable_evidence
from research_studio.grounding.conflicts import contested
from research_studio.grounding.credibility import credibility, domain_trust, freshness
from research_studio.grounding.verification import (
    SPAN_MATCH_THRESHOLD,
    Judgement,
    hallucination_score,
    judge_claim,
    judged_claim,
    overall_confidence,
    score_claim,
    section_confidence,
    span_found,
    span_match,
)
from research_studio.pipelines.advanced.schemas import ClaimCheck, ClaimDraft, SourceAssessment

DEFAULT_JUDGEMENT = 0.6
MAX_CLAIMS = 24  # the documents' 8-24 atomic claims (001 §3.3)


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


def credibility_update(
    sources: list[SourceRecord],
    evidence: list[EvidenceRecord],
    assessments: list[SourceAssessment],
    config: Configuration,
) -> dict[str, Any]:
    """The state update of scoring and filtering: kept sources and evidence, scores, drops.

    With credibility scoring off no source is scored or dropped, and none counts as credible
    in a claim's confidence (an unknown credibility adds nothing).
    """
    if not config.enable_credibility_scoring:
        return {
            "sources": sources,
            "evidence": usable_evidence(evidence),
            "source_credibility": {},
            "sources_dropped": 0,
        }
    scores = score_sources(sources, assessments)
    kept, kept_evidence = keep_credible(sources, evidence, scores, config.min_source_credibility)
    return {
        "sources": kept,
        "evidence": kept_evidence,
        "source_credibility": scores,
        "sources_dropped": len(sources) - len(kept),
    }


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


def draft_claims(drafts: list[ClaimDraft]) -> list[ClaimRecord]:
    """The model's drafts (at most MAX_CLAIMS) as unjudged claims C1..., without spans."""
    return [
        draft_claim(f"C{n}", d.text, d.section, d.supporting_eids, "")
        for n, d in enumerate(drafts[:MAX_CLAIMS], 1)
    ]


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


def verbatim_claim_records(evidence: list[EvidenceRecord]) -> list[ClaimRecord]:
    """`verbatim_claims` as unjudged claim records, each carrying its own quote as span."""
    drafts, checks = verbatim_claims(evidence)
    return [
        draft_claim(f"C{n}", d.text, d.section, d.supporting_eids, checks[f"C{n}"].evidence_span)
        for n, d in enumerate(drafts, 1)
    ]


def citations_of(claims: list[ClaimRecord]) -> dict[str, list[str]]:
    """Each claim's proposed evidence ids, by claim id."""
    return {claim["cid"]: claim["supporting_eids"] for claim in claims}


class ProposedSpan(Protocol):
    """A model's span check for one claim (batched or full engine)."""

    cid: str
    verified: bool
    evidence_span: str
    source_eid: str
    match_confidence: float


def located_span(
    check: ProposedSpan, cited: Sequence[str], evidence: Mapping[str, EvidenceRecord]
) -> str:
    """The model's span when code agrees where it is, else none (the claim fails closed).

    The span names its evidence (`source_eid`): that id must be one the claim cites, its quote
    verified and holding the span. The model's own `match_confidence` is held to the same
    threshold as code's match: a span it doubts is not one code relies on.
    """
    item = evidence.get(check.source_eid)
    if (
        not check.verified
        or check.match_confidence < SPAN_MATCH_THRESHOLD
        or check.source_eid not in cited
        or item is None
        or not item["quote_verified"]
        or not span_found(span_match(check.evidence_span, item["quote"]))
    ):
        return ""
    return check.evidence_span


def checked_spans(
    checks: Sequence[ProposedSpan],
    citations: Mapping[str, Sequence[str]],
    evidence: Sequence[EvidenceRecord],
) -> tuple[dict[str, str], dict[str, str]]:
    """Each checked claim's span as `located_span` keeps it (others: none), and for each kept
    span the source of the evidence it names (the verdict's anchor)."""
    by_eid = {item["eid"]: item for item in evidence}
    spans = {
        check.cid: located_span(check, citations.get(check.cid, []), by_eid) for check in checks
    }
    anchors = {check.cid: by_eid[check.source_eid]["sid"] for check in checks if spans[check.cid]}
    return spans, anchors


def anchored(
    judgement: Judgement,
    text: str,
    span: str,
    anchor: str,
    eids: Sequence[str],
    evidence: Sequence[EvidenceRecord],
) -> Judgement:
    """The verdict resting on the source the span was found in (`anchor`), not on another.

    Code found the span in the evidence the judge named: that source comes first and the span's
    score is its match there. If that source's quotes do not support the claim on their own,
    another source's better match cannot stand in for it: the claim is not verified.
    """
    if not judgement.verified or not anchor or judgement.sids[0] == anchor:
        return judgement
    if anchor not in judgement.sids:
        return judge_claim(text, "", eids, evidence)
    quotes = [
        item["quote"]
        for item in evidence
        if item["eid"] in eids and item["sid"] == anchor and item["quote_verified"]
    ]
    return replace(
        judgement,
        sids=[anchor, *(sid for sid in judgement.sids if sid != anchor)],
        span_score=max(span_match(span, quote) for quote in quotes),
    )


def verified_anchors(claims: Sequence[ClaimRecord]) -> dict[str, str]:
    """The source each verified claim rests on (its first), kept when a claim is judged again."""
    return {c["cid"]: c["supporting_sids"][0] for c in claims if c["verified"]}


def single_source(judgement: Judgement, evidence: Sequence[EvidenceRecord]) -> Judgement:
    """Cross-validation off: a verified claim rests on its span's source alone."""
    if not judgement.verified:
        return judgement
    anchor = judgement.sids[0]
    sid_of = {item["eid"]: item["sid"] for item in evidence}
    return replace(
        judgement,
        sids=[anchor],
        eids=[eid for eid in judgement.eids if sid_of.get(eid) == anchor],
        cross_validated=False,
    )


def judge_claims(
    claims: list[ClaimRecord],
    spans: Mapping[str, str],
    citations: Mapping[str, list[str]],
    evidence: list[EvidenceRecord],
    cross_validation: bool = True,
    anchors: Mapping[str, str] | None = None,
) -> list[ClaimRecord]:
    """Every claim judged by code (`judge_claim`) on its span and offered evidence; not scored.

    A span located in named evidence anchors its claim on that evidence's source (`anchors`).
    With cross-validation off no other source is counted for a claim; a claim that another
    source contradicts (`conflicts.contested`) is not cross-validated.
    """
    judged = []
    for c in claims:
        span, cited = spans.get(c["cid"], ""), citations.get(c["cid"], [])
        judgement = judge_claim(c["text"], span, cited, evidence)
        anchor = (anchors or {}).get(c["cid"], "")
        judgement = anchored(judgement, c["text"], span, anchor, cited, evidence)
        if not cross_validation:
            judgement = single_source(judgement, evidence)
        elif judgement.cross_validated and contested(c["text"], judgement.sids, evidence):
            judgement = replace(judgement, cross_validated=False)  # never ✓✓ across a conflict
        judged.append(judged_claim(c["cid"], c["text"], c["section"], span, judgement))
    return judged


def credibility_of(scores: Mapping[str, SourceCredibility]) -> dict[str, float]:
    """Each source's overall credibility, by source id."""
    return {sid: score["overall"] for sid, score in scores.items()}


def scored_update(
    claims: list[ClaimRecord], scores: Mapping[str, SourceCredibility]
) -> dict[str, Any]:
    """The claims scored (confidence by formula, indicator) and the engine's totals."""
    credibility = credibility_of(scores)
    scored = [score_claim(claim, credibility) for claim in claims]
    return {
        "claims": scored,
        "section_confidence": section_confidence(scored),
        "overall_confidence": overall_confidence(scored),
        "hallucination_score": hallucination_score(scored),
    }


def checks_off(config: Configuration) -> list[str]:
    """The checks this run switched off, as the report names them."""
    toggles = {
        "backtracking": config.enable_backtracking,
        "credibility scoring": config.enable_credibility_scoring,
        "span verification": config.enable_span_verification,
        "cross-validation": config.enable_cross_validation,
    }
    return [name for name, enabled in toggles.items() if not enabled]


def verify_claims(
    drafts: list[ClaimDraft],
    checks: dict[str, ClaimCheck],
    evidence: list[EvidenceRecord],
    scores: dict[str, SourceCredibility],
) -> list[ClaimRecord]:
    """Drafts judged and scored by code: the model's support and span are proposals only."""
    claims = draft_claims(drafts)
    citations = citations_of(claims)
    spans, anchors = checked_spans(list(checks.values()), citations, evidence)
    judged = judge_claims(claims, spans, citations, evidence, anchors=anchors)
    scored: list[ClaimRecord] = scored_update(judged, scores)["claims"]
    return scored


def best_evidence(claim: ClaimRecord, evidence: list[EvidenceRecord]) -> list[str]:
    """Fallback citation: the verified evidence of the claim's section that best matches it."""
    verified = [item for item in evidence if item["quote_verified"]]
    pool = [item for item in verified if item["question"] == claim["section"]] or verified
    scored = [(span_match(claim["text"], item["quote"]), item["eid"]) for item in pool]
    best = max(scored, default=(0.0, ""))
    return [best[1]] if best[0] > 0 else []
