"""Claim verification in code: spans must be in the evidence; confidence and indicators by formula."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from research_studio.grounding import best_window_jaccard, normalize_for_match, tokens

SPAN_MATCH_THRESHOLD = 0.6
CROSS_VALIDATION_SOURCES = 2


def span_match(span: str, evidence_text: str) -> float:
    """1.0 when the span is in the evidence (after normalization), else its best window overlap."""
    if len(tokens(span)) < 2:
        return 0.0
    if normalize_for_match(span).lower() in normalize_for_match(evidence_text).lower():
        return 1.0
    return round(best_window_jaccard(span, evidence_text), 3)


def span_found(score: float) -> bool:
    """Whether a span match score counts as found."""
    return score >= SPAN_MATCH_THRESHOLD


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


def source_matches(
    span: str, claim: str, quotes_by_sid: Mapping[str, Sequence[str]]
) -> dict[str, float]:
    """Per source, how well its verified quotes match the claim (its model span, or its own words)."""
    scores: dict[str, float] = {}
    for sid, quotes in quotes_by_sid.items():
        scores[sid] = max(
            (max(span_match(span, quote), span_match(claim, quote)) for quote in quotes),
            default=0.0,
        )
    return scores


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

    No source verifies it unless the model's span is found in a verified quote; other sources
    count when their own verified quotes match the span or the claim.
    """
    anchor, score = anchor_match(span, quotes_by_sid)
    if not span_found(score):
        return [], score
    others = [
        sid
        for sid, match in source_matches(span, claim, quotes_by_sid).items()
        if sid != anchor and span_found(match)
    ]
    return [anchor, *others], score
