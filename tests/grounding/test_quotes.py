"""Quote verification and citation repair, the two checks no model is trusted with."""

from __future__ import annotations

from research_studio.grounding.quotes import (
    finalize_report,
    quote_in_text,
    repair_citations,
    strip_sources_section,
)

PAGE = (
    "Solid-state batteries replace the liquid electrolyte with a solid one.\n\n"
    "Toyota said in 2023 that it plans \u201cmass production\u201d by 2027\u20132028, "
    "with a range of 1,200 km."
)


def test_exact_quote_after_normalization() -> None:
    assert quote_in_text('Toyota said in 2023 that it plans "mass production" by 2027-2028', PAGE)
    assert quote_in_text("replace the  liquid\nelectrolyte with a solid one", PAGE)


def test_a_near_quote_is_not_on_the_page() -> None:
    # 80 % word overlap used to pass; a quote must be one contiguous span.
    near = "Toyota said in 2023 it plans mass production by 2027-2028 with a range of 1,200 km"
    assert not quote_in_text(near, PAGE)
    assert quote_in_text("Toyota said in 2023 ... a range of 1,200 km", PAGE)
    assert not quote_in_text("a range of 1,200 km ... Toyota said in 2023", PAGE)


def test_invented_or_trivial_quotes_fail() -> None:
    assert not quote_in_text("Toyota abandoned solid-state batteries in 2024 after recalls", PAGE)
    assert not quote_in_text("with a range of 900 km and a 2030 launch date promised", PAGE)
    assert not quote_in_text("solid one", PAGE)


def test_unknown_markers_are_removed_and_groups_split() -> None:
    report = "Claim one [S1]. Claim two [S99]. Both [S2, S3; S42]. Again [S1][S1]."
    repaired, cited = repair_citations(report, {"S1", "S2", "S3"})
    assert repaired == "Claim one [S1]. Claim two. Both [S2][S3]. Again [S1]."
    assert cited == ["S1", "S2", "S3"]


def test_model_sources_section_is_replaced_by_exactly_the_cited_ones() -> None:
    sources = {"S1": ("Battery review", "https://a.org/1"), "S2": ("Unused", "https://b.org/2")}
    report = (
        "# Title\n\nText [S1] and [S7].\n\n## References\n\n- [S7] made up\n\n## Appendix\n\nMore."
    )
    final, cited = finalize_report(report, sources)
    assert cited == ["S1"]
    assert "[S7]" not in final and "made up" not in final
    assert final.rstrip().endswith("- [S1] Battery review — <https://a.org/1>")
    assert "## Appendix" in final
    assert final.count("## Sources") == 1


def test_strip_sources_at_end() -> None:
    assert strip_sources_section("Body\n\n## Sources\n- x") == "Body"
