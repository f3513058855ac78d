"""Code tells a clarification option that names a reading from one that asks for a detail, and
never lets text from a model or a page break the notice a report opens with."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from research_studio.pipelines.kit.referents import (
    asks_for_detail,
    names_only_others,
    unasked_reading,
)


@pytest.mark.parametrize(
    "option",
    [
        "Specify the university",
        "Provide other context",
        "Other (please describe)",
        "Someone else (please specify)",
        "Both",
        "Name the field you mean",
        "Which year?",
    ],
)
def test_an_option_that_asks_for_a_detail_names_no_reading(option: str) -> None:
    assert asks_for_detail(option)


@pytest.mark.parametrize(
    "option",
    [
        "The snake",
        "Jane Roe, the economist at Amherst College",
        "State University of New York",
        "Type 2 diabetes",
        "Mercury (planet)",
    ],
)
def test_an_option_that_names_a_reading_is_a_candidate(option: str) -> None:
    assert not asks_for_detail(option)


def test_the_marks_of_the_other_reading_keep_its_texts_out_and_shared_words_do_not() -> None:
    reading = unasked_reading(
        "", "Which Jane Roe?", ["Jane Roe, the economist at Amherst College",
                                "Jane Roe, landscape painter in Ohio"], "Jane Roe",
    )  # fmt: skip
    chosen, candidates = reading.chosen, reading.candidates
    assert chosen is not None and chosen["name"] == "Jane Roe"
    assert names_only_others("Jane Roe paints barns in Ohio.", chosen, candidates)
    assert not names_only_others("Jane Roe teaches at Amherst College, Ohio.", chosen, candidates)
    assert not names_only_others("Jane Roe wrote a book.", chosen, candidates)


@given(st.lists(st.text(max_size=80), max_size=6), st.text(max_size=80))
def test_any_options_give_a_reading_that_was_offered_and_a_notice(
    options: list[str], question: str
) -> None:
    reading = unasked_reading("", question, options, "the question as written")
    offered = [" ".join(option.split()).strip(" .") for option in options]
    if reading.chosen is None:
        assert all(asks_for_detail(option) for option in options)
    else:
        assert reading.option in offered and not asks_for_detail(reading.option)
    assert reading.notice and "\n" not in reading.notice


_MARKUP = st.sampled_from(
    ["[x](http://evil.example)", "<b>x</b>", "## heading", "**bold**", "`code`", "![i](a.png)"]
)


@given(
    st.lists(st.one_of(_MARKUP, st.text(max_size=40)), min_size=1, max_size=4),
    st.one_of(_MARKUP, st.text(max_size=40)),
)
def test_a_notice_built_from_hostile_options_renders_no_markup(
    options: list[str], question: str
) -> None:
    """Options and the question come from a model: the notice shows them as text."""
    html = MarkdownIt("commonmark", {"html": True}).render(
        unasked_reading("", question, options, "the question").notice
    )
    assert "<a " not in html and "<img" not in html and "<b>" not in html
    assert "<h" not in html and "<strong>" not in html and "<code>" not in html
