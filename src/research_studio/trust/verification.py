"""Claim verification in code: spans must be in the evidence; confidence and indicators by formula."""

from __future__ import annotations

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
