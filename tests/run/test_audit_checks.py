"""The audit's own checks, apart from the writer's: contiguous quotes, figures, report lines."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from research_studio.run.audit_checks import figures, quote_on_page
from research_studio.run.manifest import split_line

PAGE = (
    "Corals that survive a heatwave can take their symbiotic algae back within weeks. "
    "Bleaching-level heat stress affected 54 percent of the world\u2019s reef area \u2013 "
    "and 1,200 reefs were surveyed."
)


def test_a_quote_is_one_contiguous_span_after_typographic_folding() -> None:
    assert quote_on_page("can take their symbiotic algae back", PAGE)
    assert quote_on_page("54 percent of the world's reef area - and 1,200", PAGE)
    assert quote_on_page("Corals that survive … within weeks", PAGE)  # ellipsis: parts in order


def test_no_bag_of_words_acceptance() -> None:
    assert not quote_on_page("can not take their symbiotic algae back", PAGE)
    assert not quote_on_page("their symbiotic algae can take back", PAGE)  # same words, reordered
    assert not quote_on_page("45 percent of the world's reef area", PAGE)
    assert not quote_on_page("within weeks … Corals that survive", PAGE)  # parts out of order
    assert not quote_on_page("   ", PAGE)


def test_figures_keep_decimals_and_drop_thousands_separators() -> None:
    assert figures("54 percent of 1,200 reefs, 3.5 °C in 2024.") == {"54", "1200", "3.5", "2024"}


def test_a_line_splits_into_its_lead_and_statements() -> None:
    pool = [
        ("T1", "Reefs bleach [S1]."),
        ("T2", "✓ Corals recover [S2]."),
        ("T3", "Reefs bleach [S1]."),
    ]
    assert split_line("- ✓ Corals recover [S2].", pool) == ("-", [("T2", "✓ Corals recover [S2].")])
    lead, found = split_line("Reefs bleach [S1]. Reefs bleach [S1].", pool)
    assert lead == "" and sorted(tid for tid, _ in found) == ["T1", "T3"]  # duplicates, by id
    lead, found = split_line("It is false that reefs bleach [S1].", pool)
    assert lead == "It is false that reefs bleach [S1]." and found == []


_sentence = st.from_regex(r"[A-Z][a-z]{2,8}( [a-z]{2,8}){1,5} \[S[1-9]\]\.", fullmatch=True)


@given(st.lists(_sentence, min_size=1, max_size=5, unique=True), st.randoms())
def test_any_order_of_a_lines_statements_splits_back_into_them(
    sentences: list[str], random: object
) -> None:
    pool = [(f"T{number}", text) for number, text in enumerate(sentences, 1)]
    shuffled = list(pool)
    random.shuffle(shuffled)  # type: ignore[attr-defined]
    lead, found = split_line(" ".join(text for _tid, text in shuffled), pool)
    assert lead == "" and sorted(found) == sorted(pool)


@given(st.text(max_size=200))
def test_outside_text_never_breaks_the_checks(text: str) -> None:
    quote_on_page(text, PAGE)
    figures(text)
    lead, found = split_line(text, [("T1", "Reefs bleach [S1].")])
    assert isinstance(lead, str) and len(found) <= 1


# What pages converted to Markdown hold: bracketed references, escapes, emphasis, code, list
# markers, entities, underscores and backslashes that are page text.
_PIECE = st.sampled_from(
    [
        "Version", "1,", "described", "in", "[ston90a],", "\\[ston90a\\],", "was", "released",
        "*stars*", "\\*stars\\*", "`code`", "snake_case", "\\_private", "C:\\path", "1\\.",
        "- item", "\\- item", "AT&T", "&amp;", "\\&amp;", "#tag", "\\#", "a\\\\b", "(x)",
        "\\(y\\)", "**bold**", "___", "\\\\\\[", "\u00adsoft", "»", "“quoted”", "\u2026",
    ]
)  # fmt: skip
_PAGE = st.lists(_PIECE, min_size=3, max_size=30).map(" ".join)


@given(_PAGE, st.integers(0, 400), st.integers(3, 200), st.booleans())
def test_every_quote_grounding_keeps_is_on_its_page_for_the_audit(
    page: str, start: int, length: int, unescaped: bool
) -> None:
    """The quote grounding keeps (`verbatim_quote`: the page's own characters, unescaped) is
    always found by the audit on the same kept page: the two agree on what a quote is."""
    from research_studio.grounding.quotes import unescape_markdown, verbatim_quote

    start = start % len(page)
    asked = page[start : start + length]
    kept = verbatim_quote(unescape_markdown(asked) if unescaped else asked, page)
    if kept is not None:
        assert quote_on_page(kept, page), (kept, page)


def test_a_bracketed_reference_on_a_converted_page_is_found() -> None:
    from research_studio.grounding.quotes import verbatim_quote
    from research_studio.sources.parsing import extract_html

    html = (
        b"<html><body><article><h1>History</h1><p>Version 1, described in "
        b"<a href='biblio.html#STON90A'>[ston90a]</a>, was released to a few external users in "
        b"June 1989. The <code>snake_case</code> name and *stars* and C:\\path and AT&amp;T."
        b"</p></article></body></html>"
    )
    _title, page, _date = extract_html(html)
    assert "\\[ston90a\\]" in page  # the converter escapes the brackets
    kept = verbatim_quote("Version 1, described in [ston90a], was released", page)
    assert kept == "Version 1, described in [ston90a], was released"
    assert quote_on_page(kept, page)
    assert quote_on_page("The snake_case name and *stars* and C:\\path and AT&T.", page)
    assert not quote_on_page("Version 2, described in [ston90a], was released", page)
