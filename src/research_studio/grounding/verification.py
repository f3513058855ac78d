"""Claim verification in code: spans must be in the evidence; confidence and indicators by formula."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import mean

from research_studio.core.records import ClaimRecord, EvidenceRecord
from research_studio.grounding.addressing import printable
from research_studio.grounding.quotes import fold, quote_in_text, tokens
from research_studio.grounding.support import supporting
from research_studio.grounding.terms import content_words

SPAN_MATCH_THRESHOLD = 0.6
CROSS_VALIDATION_SOURCES = 2
# A span of substance carries at least this many of the claim's key terms (not "of the").
MIN_SPAN_TERMS = 2


def span_match(span: str, evidence_text: str) -> float:
    """1.0 when the span is one contiguous span of the evidence (after folding), else the share
    of its words in the longest run of them that the evidence has contiguously."""
    wanted = tokens(span)
    if len(wanted) < 2:
        return 0.0
    if quote_in_text(span, evidence_text):
        return 1.0
    page = f" {' '.join(tokens(fold(evidence_text)[0]))} "
    longest = 0
    for start in range(len(wanted)):
        for end in range(len(wanted), start + longest, -1):
            if f" {' '.join(wanted[start:end])} " in page:
                longest = end - start
                break
    return round(longest / len(wanted), 3)


def span_found(score: float) -> bool:
    """Whether a span match score counts as found."""
    return score >= SPAN_MATCH_THRESHOLD


def substantive(span: str) -> bool:
    """Whether a span carries key terms, not only function words ("of the")."""
    return len(set(content_words(span))) >= MIN_SPAN_TERMS


def claim_confidence(span_score: float, mean_credibility: float, cross_validated: bool) -> float:
    """0.5 × span match + 0.35 × mean source credibility + 0.15 when cross-validated."""
    return round(0.5 * span_score + 0.35 * mean_credibility + (0.15 if cross_validated else 0.0), 3)


def indicator(confidence: float, cross_validated: bool) -> str:
    """✓✓ cross-validated and ≥ 0.8; ✓ at ≥ 0.6; ⚠ below."""
    if cross_validated and confidence >= 0.8:
        return "✓✓"
    if confidence >= 0.6:
        return "✓"
    return "⚠"


def anchor_match(span: str, quotes_by_sid: Mapping[str, Sequence[str]]) -> tuple[str, float]:
    """The source whose verified quotes best contain the model's span, and that score."""
    best_sid, best = "", 0.0
    for sid, quotes in quotes_by_sid.items():
        for quote in quotes:
            score = span_match(span, quote)
            if score > best:
                best_sid, best = sid, score
    return best_sid, best


def verifying_sources(
    span: str, claim: str, quotes_by_sid: Mapping[str, Sequence[str]]
) -> tuple[list[str], float]:
    """The sources that verify a claim (the span's source first) and the span's score.

    No source verifies it unless the model's span, a span of substance, is found in a verified
    quote of a source whose quote on its own supports the claim (`support.supports`: terms,
    figures, polarity, entities). Other sources count only when one of their own verified quotes
    supports the claim on its own: figures and polarity are checked per source, never pooled.
    """
    anchor, score = anchor_match(span, quotes_by_sid)
    if not span_found(score) or not substantive(span):
        return [], score
    agreeing = [sid for sid, quotes in quotes_by_sid.items() if supporting(claim, quotes)]
    if anchor not in agreeing:
        return [], score
    return [anchor, *(sid for sid in agreeing if sid != anchor)], score


@dataclass(frozen=True)
class Judgement:
    """Code's verdict on one claim, before its confidence is scored."""

    verified: bool
    sids: list[str]  # verifying sources (the span's first); unverified: every source offered
    eids: list[str]  # the offered evidence of those sources
    span_score: float
    cross_validated: bool


def judge_claim(
    text: str, span: str, eids: Sequence[str], evidence: Sequence[EvidenceRecord]
) -> Judgement:
    """One claim judged by code: the offered evidence, its verified quotes, the model's span.

    Only quote-verified evidence may support a claim; the span must be found in a verified
    quote that supports the claim; a claim is cross-validated only by two distinct sources whose
    quotes each support it on their own.
    """
    by_eid = {item["eid"]: item for item in evidence if item["quote_verified"]}
    confirmed = [eid for eid in dict.fromkeys(eids) if eid in by_eid]
    quotes_by_sid: dict[str, list[str]] = {}
    for eid in confirmed:
        quotes_by_sid.setdefault(by_eid[eid]["sid"], []).append(by_eid[eid]["quote"])
    sids, score = verifying_sources(span, text, quotes_by_sid) if span else ([], 0.0)
    verified = bool(sids) and printable(text)
    if not verified:
        sids = list(quotes_by_sid)
    return Judgement(
        verified=verified,
        sids=sids,
        eids=[eid for eid in confirmed if by_eid[eid]["sid"] in sids],
        span_score=score,
        cross_validated=verified and len(sids) >= CROSS_VALIDATION_SOURCES,
    )


def judged_claim(cid: str, text: str, section: str, span: str, judgement: Judgement) -> ClaimRecord:
    """The claim record of a judgement, not yet scored (confidence 0, no indicator)."""
    return ClaimRecord(
        cid=cid,
        text=text.strip(),
        section=section,
        supporting_eids=judgement.eids,
        supporting_sids=judgement.sids,
        evidence_span=span,
        span_match=judgement.span_score,
        verified=judgement.verified,
        cross_validated=judgement.cross_validated,
        confidence=0.0,
        indicator="",
    )


def score_claim(claim: ClaimRecord, credibility: Mapping[str, float]) -> ClaimRecord:
    """The claim with its confidence (formula, over its sources' credibility) and indicator."""
    sids = claim["supporting_sids"]
    mean_credibility = mean(credibility.get(sid, 0.0) for sid in sids) if sids else 0.0
    confidence = claim_confidence(
        claim["span_match"] if claim["verified"] else 0.0,
        mean_credibility,
        claim["cross_validated"],
    )
    return ClaimRecord(
        **{
            **claim,
            "confidence": confidence,
            "indicator": indicator(confidence, claim["cross_validated"]),
        }
    )


def section_confidence(claims: Sequence[ClaimRecord]) -> dict[str, float]:
    """Per section, the mean confidence of its verified claims."""
    by_section: dict[str, list[float]] = {}
    for claim in claims:
        if claim["verified"]:
            by_section.setdefault(claim["section"], []).append(claim["confidence"])
    return {section: round(mean(values), 3) for section, values in by_section.items()}


def hallucination_score(claims: Sequence[ClaimRecord]) -> float:
    """The share of claims that code could not verify."""
    if not claims:
        return 0.0
    return round(sum(1 for claim in claims if not claim["verified"]) / len(claims), 3)


def overall_confidence(claims: Sequence[ClaimRecord]) -> float:
    """The mean confidence of the verified claims (0 without any)."""
    verified = [claim["confidence"] for claim in claims if claim["verified"]]
    return round(mean(verified), 3) if verified else 0.0
