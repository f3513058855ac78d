"""The planner's query rules, held in code."""

from __future__ import annotations

from research_studio.pipelines.advanced.nodes.planner import apply_query_rules


def test_anchor_is_added_when_missing() -> None:
    assert apply_query_rules(
        "legal challenges filed", "Trump immigration policies", recent=False, year=2026
    ).startswith("trump immigration policies")


def test_year_for_recent_queries() -> None:
    assert apply_query_rules(
        "coral bleaching news", "coral bleaching", recent=True, year=2026
    ).endswith("2026")
    assert (
        apply_query_rules("coral bleaching 2024 survey", "coral bleaching", recent=True, year=2026)
        == "coral bleaching 2024 survey"
    )
    assert (
        apply_query_rules("coral bleaching latest", "coral bleaching", recent=True, year=2026)
        == "coral bleaching latest"
    )


def test_three_to_seven_words() -> None:
    long = apply_query_rules(
        "coral bleaching effects on fish tourism and fisheries income worldwide",
        "coral bleaching",
        recent=True,
        year=2026,
    )
    assert len(long.split()) == 7 and long.endswith("2026")
    short = apply_query_rules("bleaching", "coral reef bleaching", recent=False, year=2026)
    assert 3 <= len(short.split()) <= 7


def test_quoted_proper_nouns_survive() -> None:
    assert '"Great Barrier Reef"' in apply_query_rules(
        '"Great Barrier Reef" survey results', "Great Barrier Reef", recent=False, year=2026
    )


def test_headings_from_a_weak_model_are_cleaned() -> None:
    from research_studio.pipelines.advanced.nodes.planner import clean_heading

    assert clean_heading("- summary: }\nThe answer is") == "summary: }"
    assert clean_heading("## **Key findings**") == "Key findings"
    assert len(clean_heading("x" * 200)) == 80
