"""The cheap check that skips page blocks never skips one that holds the quote."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from research_studio.grounding.quotes import _may_hold, fold, locate_quote

# ASCII with the characters folding treats specially: emphasis, escapes, quotes, whitespace.
_ASCII = st.text(
    alphabet=st.sampled_from("abcXYZ019 .,-_*`\\'\"\t\n[]()#!"),
    max_size=80,
)


@given(block=_ASCII, start=st.integers(0, 80), length=st.integers(1, 40))
@example(block="0 \\", start=0, length=2)  # a backslash escaping nothing is page text
@settings(max_examples=500)
def test_every_piece_of_a_folded_block_passes_the_check(
    block: str, start: int, length: int
) -> None:
    folded, _ = fold(block)
    part = folded[start : start + length]
    if part:
        assert _may_hold(block, part)


@given(
    words=st.lists(
        st.sampled_from(["reef", "*heat*", "stress", "`code`", "bleach\\_es"]),
        min_size=3,
        max_size=8,
    )
)
def test_a_quote_of_an_ascii_block_is_found(words: list[str]) -> None:
    block = " ".join(words)
    quote, _ = fold(block)
    assert locate_quote(quote, f"Intro line.\n\n{block}\n\nLast line.") is not None


def test_a_block_without_the_quote_is_skipped_and_non_ascii_is_folded() -> None:
    assert not _may_hold("Coral reefs bleach.", "heat stress")
    assert _may_hold("Caf\u00e9 \u201cheat\u201d stress", '"heat" stress')  # folding decides
