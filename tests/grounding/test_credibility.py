"""Source credibility: the domain table, freshness, the weighted formula, dropping weak sources."""

from __future__ import annotations

import datetime as dt

import pytest

from research_studio.grounding.credibility import (
    DEFAULT_TRUST,
    credibility,
    domain_trust,
    freshness,
)
from research_studio.pipelines.advanced.schemas import SourceAssessment
from research_studio.pipelines.advanced.trust_engine.rules import score_sources


@pytest.mark.parametrize(
    ("url", "trust"),
    [
        ("https://www.stanford.edu/news", 0.9),
        ("https://www.epa.gov/heat-islands", 0.9),
        ("https://www.ox.ac.uk.edu/x", 0.9),
        ("https://arxiv.org/abs/2401.1", 0.9),
        ("https://en.wikipedia.org/wiki/Coral", 0.75),
        ("https://medium.com/@a/post", 0.45),
        ("https://www.quora.com/q", 0.4),
        ("https://pinterest.com/pin/1", 0.3),
        ("https://example.org/page", DEFAULT_TRUST),
        ("https://notgov.com/x", DEFAULT_TRUST),
        ("file:///home/me/notes.md", 0.8),
    ],
)
def test_domain_trust(url: str, trust: float) -> None:
    assert domain_trust(url) == trust


def test_freshness_bands() -> None:
    today = dt.date(2026, 11, 22)
    assert freshness("2026-06-01", today) == 1.0
    assert freshness("2024-06-01", today) == 0.8
    assert freshness("2022-06-01", today) == 0.6
    assert freshness("2001-01-01", today) == 0.4
    assert freshness(None, today) == freshness("not a date", today) == 0.5


def test_weighted_formula() -> None:
    assert credibility(0.85, 0.8, 0.9, 0.85) == pytest.approx(0.855)
    assert credibility(1, 1, 1, 1) == 1.0


def test_weak_sources_score_below_the_default_threshold() -> None:
    sources = [
        {
            "sid": "S1",
            "url": "https://pinterest.com/pin/9",
            "title": "",
            "snippet": "",
            "provider": "x",
            "published": "1999-01-01",
        },
        {
            "sid": "S2",
            "url": "https://www.noaa.gov/reefs",
            "title": "",
            "snippet": "",
            "provider": "x",
            "published": None,
        },
    ]
    scores = score_sources(
        sources, [SourceAssessment(sid="S1", authority=0.1, content_quality=0.2)]
    )  # type: ignore[arg-type]
    assert scores["S1"]["overall"] < 0.35 < scores["S2"]["overall"]
    assert scores["S2"]["authority"] == 0.6  # not judged: a neutral default
