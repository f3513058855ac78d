"""Bylines, datelines, captions, sharing, navigation and a page describing itself are never findings."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from research_studio.core.config import Configuration
from research_studio.grounding.meta_text import is_meta, meta_kind
from research_studio.services.extraction import extract_sentences

FURNITURE = {
    "By Jane Doe, staff writer": "byline",
    "By Jane Doe": "byline",
    "Written by Ana María de la Cruz and Tom O'Neill | Reuters": "byline",
    "By Priya Natarajan, Health Correspondent, 3 May 2024": "byline",
    "Author: Kwame Mensah": "byline",
    "Published 3 May 2024": "dateline",
    "Published on May 3, 2024 by the City Desk": "dateline",
    "Last updated: 12 June 2023": "dateline",
    "Page last reviewed: 2024-01-09": "dateline",
    "Last updated by the editorial team in spring.": "dateline",
    "Updated 14:05 GMT, 2 August 2023": "dateline",
    "Photo: Jane Doe/Reuters": "caption",
    "Image credit: NASA Earth Observatory": "caption",
    "Caption – Workers paint a roof white in Ahmedabad.": "caption",
    "Share this": "sharing",
    "Share on Facebook": "sharing",
    "Related articles": "sharing",
    "Skip to main content": "sharing",
    "Home › News › Climate": "navigation",
    "Health / Environment / Heat and health": "navigation",
    "This fact sheet summarises what is known about heat and health.": "about the page",
    "This short guide explains how cities measure heat.": "about the page",
    "In this article we look at why cities are hotter than the countryside.": "about the page",
    "In this report, we compare three cooling programmes.": "about the page",
    "Below, we explain how the pilot was evaluated.": "about the page",
    "The following section lists the measures the council adopted.": "about the page",
    "This page was last updated in March.": "about the page",
    "This summary compares the figures most often quoted.": "about the page",
}
FINDINGS = [
    "The article published in Nature in 2023 found that cool roofs lowered indoor temperatures by 1.5 °C.",
    "Article 12 of the ordinance requires landlords to keep bedrooms below 26 °C.",
    "This study found that heat deaths rose by 20 percent between 2000 and 2020.",
    "By 2050, the number of very hot days in the city could triple.",
    "By midday, surface temperatures on dark roofs reached 70 °C in the sensor network.",
    "Published research shows that street trees cool the air beneath them by 2 °C.",
    "Share of households with air conditioning rose to 60 percent in 2022.",
    "Updated 2023 maps show the hottest blocks are in the industrial east.",
    "Photos taken by drones showed that white roofs stayed 30 °C cooler than black ones.",
    "Last summer was the hottest on record in 14 of the 20 cities surveyed.",
    "The report's authors estimate that green roofs cut peak cooling demand by 10 to 30 percent.",
    "This effect is strongest at night, when dense districts release the heat stored by day.",
    "Researchers in this section of the river measured water 3 °C cooler than upstream.",
    "The current report lists 40 heat deaths in the city in 2023, up from 25 the year before.",
    "Home insulation reduced indoor heat by 4 °C in the pilot, the evaluation found.",
]


@pytest.mark.parametrize(("sentence", "kind"), FURNITURE.items())
def test_page_furniture_is_recognised_by_its_form(sentence: str, kind: str | None) -> None:
    assert meta_kind(sentence) == kind


@pytest.mark.parametrize("sentence", FINDINGS)
def test_findings_that_mention_articles_reports_or_dates_survive(sentence: str) -> None:
    assert meta_kind(sentence) is None and not is_meta(sentence)


PAGE = """# Cool roofs: what the evidence shows

Home › Research › Cool roofs

By Jane Doe, staff writer

Published 3 May 2024

This fact sheet summarises the evidence on cool roofs and indoor heat in hot cities.

Photo: A worker paints a roof white in Ahmedabad, where cool roofs were piloted on homes.

Cool roofs reflect most of the sunlight that reaches them, so the roof surface stays much cooler than a dark roof.

In the pilot, cool roofs lowered indoor temperatures in homes by up to 2 °C during heat waves.

Share this

Last updated: 12 June 2024
"""


def test_extractive_evidence_from_a_real_looking_page_holds_no_furniture() -> None:
    findings = extract_sentences(
        Configuration(facts_per_page=10),
        request="cool roofs indoor heat homes evidence pilot",
        questions=["What does the evidence show about cool roofs and indoor heat?"],
        url="https://example.org/cool-roofs",
        text=PAGE,
    )
    quotes = [finding["quote"] for finding in findings]
    assert any("lowered indoor temperatures" in quote for quote in quotes)
    assert any("reflect most of the sunlight" in quote for quote in quotes)
    assert not any(is_meta(quote) for quote in quotes), quotes
    assert not any("fact sheet" in quote or "Photo:" in quote for quote in quotes)


@given(st.text(max_size=300))
def test_the_classifier_never_raises(text: str) -> None:
    assert meta_kind(text) in {None, *filter(None, FURNITURE.values())}
    is_meta(text)
