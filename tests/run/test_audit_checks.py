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
