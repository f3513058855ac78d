"""Claim verification in code: spans, cross-validation, confidence formula, indicators."""

from __future__ import annotations

import pytest

from research_studio.grounding.verification import (
    claim_confidence,
    indicator,
    span_found,
    span_match,
)
from research_studio.pipelines.advanced.schemas import ClaimCheck, ClaimDraft
from research_studio.pipelines.advanced.trust_engine.rules import verify_claims

EVIDENCE = [
    {
        "eid": "E1",
        "sid": "S1",
        "url": "u1",
        "title": "",
        "text": "Coral cover fell by 30 percent in 2024.",
        "quote": "cover fell by 30 percent",
        "quote_verified": True,
        "question": "A",
    },
    {
        "eid": "E2",
        "sid": "S2",
        "url": "u2",
        "title": "",
        "text": "Surveys found a 30 percent loss of coral cover.",
        "quote": "Surveys found coral cover fell by 30 percent",
        "quote_verified": True,
        "question": "A",
    },
]
SCORES = {
    sid: {
        "sid": sid,
        "domain_trust": 0.6,
        "freshness": 0.5,
        "authority": 0.8,
        "content_quality": 0.8,
        "overall": 0.8,
    }
    for sid in ("S1", "S2")
}


def test_span_must_be_in_the_evidence() -> None:
    assert span_match("Coral cover fell by 30 percent", EVIDENCE[0]["text"]) == 1.0
    assert not span_found(
        span_match("Coral cover doubled in 2024 after rains", EVIDENCE[0]["text"])
    )
    assert span_match("x", EVIDENCE[0]["text"]) == 0.0


def test_confidence_formula_and_indicators() -> None:
    assert claim_confidence(1.0, 0.8, True) == pytest.approx(0.93)
    assert claim_confidence(1.0, 0.8, False) == pytest.approx(0.78)
    assert indicator(0.93, True) == "✓✓"
    assert indicator(0.93, False) == "✓"
    assert indicator(0.79, True) == "✓"
    assert indicator(0.6, False) == "✓"
    assert indicator(0.59, True) == "⚠"


def test_claims_are_verified_by_code_not_by_the_model() -> None:
    drafts = [
        ClaimDraft(
            text="Coral cover fell by 30 percent.", section="A", supporting_eids=["E1", "E2"]
        ),
        ClaimDraft(text="Coral cover doubled.", section="A", supporting_eids=["E1"]),
        ClaimDraft(text="Unsupported.", section="A", supporting_eids=["E9"]),
    ]
    checks = {
        "C1": ClaimCheck(
            cid="C1",
            verified=True,
            evidence_span="Coral cover fell by 30 percent",
            source_eid="E1",
            match_confidence=0.9,
        ),
        "C2": ClaimCheck(
            cid="C2",
            verified=True,
            evidence_span="coral cover doubled after heavy rains",
            source_eid="E1",
            match_confidence=0.9,
        ),
        "C3": ClaimCheck(
            cid="C3",
            verified=True,
            evidence_span="anything at all here",
            source_eid="E9",
            match_confidence=0.9,
        ),
    }
    first, second, third = verify_claims(drafts, checks, EVIDENCE, SCORES)  # type: ignore[arg-type]
    assert first["verified"] and first["cross_validated"]
    # The judge named E1: the verdict rests on S1 and its span's match there (5 of 6 words).
    assert first["supporting_sids"] == ["S1", "S2"] and first["span_match"] == 0.833
    assert first["confidence"] == pytest.approx(0.846) and first["indicator"] == "✓✓"
    assert (
        not second["verified"] and not second["cross_validated"]
    )  # the model's word is not enough
    assert second["confidence"] == pytest.approx(0.28) and second["indicator"] == "⚠"
    assert not third["verified"] and third["supporting_eids"] == []


def test_a_second_source_counts_only_when_its_own_quotes_match() -> None:
    from research_studio.grounding.verification import verifying_sources

    claim = "Cool roofs lowered peak roof temperatures by 28 degrees."
    quotes = {
        "S1": ["Cool roofs lowered peak roof temperatures by 28 degrees in the pilot."],
        "S2": ["Copyright 2024 The PostgreSQL Global Development Group."],
        "S3": ["In the pilot, cool roofs lowered peak roof temperatures by 28 degrees."],
    }
    sids, score = verifying_sources("Cool roofs lowered peak roof temperatures", claim, quotes)
    assert sids[0] in {"S1", "S3"} and set(sids) == {"S1", "S3"} and score == 1.0
    assert verifying_sources("a span nobody wrote anywhere at all", claim, quotes)[0] == []


def test_only_verified_quotes_that_match_support_a_claim() -> None:
    unrelated = {
        "eid": "E3",
        "sid": "S3",
        "url": "u3",
        "title": "",
        "text": "Coral cover fell by 30 percent.",  # the model's words: never the check
        "quote": "Copyright 2024 The Reef Foundation. All rights reserved.",
        "quote_verified": True,
        "question": "A",
    }
    invented = {**EVIDENCE[1], "eid": "E4", "sid": "S4", "quote_verified": False}
    scores = {**SCORES, "S3": SCORES["S1"], "S4": SCORES["S1"]}
    drafts = [
        ClaimDraft(
            text="Coral cover fell by 30 percent.", section="A", supporting_eids=["E1", "E3"]
        ),
        ClaimDraft(text="Coral cover fell by 30 percent.", section="A", supporting_eids=["E4"]),
        ClaimDraft(text="Coral cover fell by 45 percent.", section="A", supporting_eids=["E1"]),
    ]
    checks = {
        cid: ClaimCheck(
            cid=cid,
            verified=True,
            evidence_span="cover fell by 30 percent",
            source_eid="E1",
            match_confidence=0.9,
        )
        for cid in ("C1", "C2", "C3")
    }
    single, unfound, wrong_number = verify_claims(
        drafts, checks, [EVIDENCE[0], unrelated, invented], scores
    )  # type: ignore[arg-type, list-item]
    assert single["verified"] and not single["cross_validated"]
    assert single["supporting_sids"] == ["S1"] and single["indicator"] != "✓✓"
    assert not unfound["verified"] and unfound["supporting_eids"] == []
    assert not wrong_number["verified"]


def test_cross_validation_needs_each_source_to_support_the_claim_on_its_own() -> None:
    from research_studio.grounding.verification import verifying_sources

    claim = "Cool roofs lowered peak roof temperatures by 28 degrees in the pilot."
    anchor = "Cool roofs lowered peak roof temperatures by 28 degrees in the pilot."
    quotes = {
        "S1": [anchor],
        # Another figure: pooled, the 28 of S1 would have lent it support.
        "S2": ["Cool roofs lowered peak roof temperatures by 12 degrees in the pilot."],
        # The opposite: "has not".
        "S3": ["Cool roofs have not lowered peak roof temperatures in the pilot."],
        # Shares a stop-word span only.
        "S4": ["The history of the pilot programme is told in the annual report of the city."],
    }
    sids, _ = verifying_sources("lowered peak roof temperatures by 28 degrees", claim, quotes)
    assert sids == ["S1"]
    # A span of two stop words verifies nothing, even where it occurs.
    assert verifying_sources("in the", claim, quotes)[0] == []
    agreeing = {
        **quotes,
        "S5": ["In the pilot, peak roof temperatures fell 28 degrees with cool roofs."],
    }
    sids, _ = verifying_sources("lowered peak roof temperatures by 28 degrees", claim, agreeing)
    assert sids == ["S1", "S5"]
