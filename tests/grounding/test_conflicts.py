"""The conflict finder: the same thing said otherwise is a conflict; another thing, or silence, is not."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from research_studio.grounding.conflicts import (
    Conflict,
    Said,
    disagreement,
    find_conflicts,
    settle,
)
from research_studio.grounding.support import supports

REEF = "Coral cover on the northern reef fell by {} after the 2016 heat wave."


def _said(sid: str, text: str) -> Said:
    return Said(sid=sid, text=text, quote=text)


@pytest.mark.parametrize(
    ("one", "other", "kind", "values"),
    [
        (REEF.format("54 percent"), REEF.format("45 percent"), "figure", ("54 %", "45 %")),
        (
            "The institute first mapped the northern reef in 1998.",
            "The institute first mapped the northern reef in 2003.",
            "date",
            ("1998", "2003"),
        ),
        (
            "Coral cover on the northern reef increased after the heat wave.",
            "Coral cover on the northern reef decreased after the heat wave.",
            "polarity",
            ("increase", "decrease"),
        ),
        (
            "The new vaccine is safe for children under five.",
            "The new vaccine is not safe for children under five.",
            "polarity",
            ("affirms", "denies"),
        ),
    ],
)
def test_the_same_thing_said_otherwise_is_a_conflict(
    one: str, other: str, kind: str, values: tuple[str, str] | None
) -> None:
    found = disagreement(_said("S1", one), _said("S2", other))
    assert found is not None and found.kind == kind
    if values:
        assert (found.one, found.other) == values


@pytest.mark.parametrize(
    ("one", "other"),
    [
        # Another qualifier: the southern reef is another thing.
        (REEF.format("54 percent"), REEF.format("54 percent").replace("northern", "southern")),
        (REEF.format("54 percent"), REEF.format("45 percent").replace("northern", "southern")),
        # Another year besides another value: two measurements, not one disputed.
        (REEF.format("54 percent"), REEF.format("45 percent").replace("2016", "2017")),
        # Silent on the figure, or the same figure at another precision: no conflict.
        (REEF.format("54 percent"), "Coral cover on the northern reef fell after the heat wave."),
        (REEF.format("54 percent"), REEF.format("54.3 percent")),
        # Another unit measures another thing.
        (REEF.format("54 percent"), REEF.format("45 km")),
        # Before and after name two times, not two answers.
        (
            "Coral cover on the northern reef was high before the 2016 heat wave.",
            "Coral cover on the northern reef was high after the 2016 heat wave.",
        ),
        # Unrelated sentences that share a figure's shape.
        (REEF.format("54 percent"), "Unemployment in the port city fell by 45 percent in 2016."),
    ],
)
def test_another_thing_or_silence_is_no_conflict(one: str, other: str) -> None:
    assert disagreement(_said("S1", one), _said("S2", other)) is None
    assert find_conflicts([_said("S1", one), _said("S2", other)]) == []


def test_a_third_source_settles_by_count_and_two_against_two_stays_open() -> None:
    said = [
        _said("S1", REEF.format("54 percent")),
        _said("S2", REEF.format("45 percent")),
        _said("S3", "The agency said " + REEF.format("54 percent").lower()),
    ]
    [conflict] = find_conflicts(said[:2])
    settled = settle(conflict, said)
    assert settled.status == "resolved" and settled.settled_for == "54 %"
    assert settled.sids == (["S1", "S3"], ["S2"])
    even = [*said, _said("S4", "Surveyors found " + REEF.format("45 percent").lower())]
    assert settle(conflict, even).status == "open"


def test_texts_of_one_source_never_conflict() -> None:
    assert (
        find_conflicts(
            [_said("S1", REEF.format("54 percent")), _said("S1", REEF.format("45 percent"))]
        )
        == []
    )


def test_a_qualifier_of_another_side_refuses_support() -> None:
    verdict = supports(
        REEF.format("54 percent"), REEF.format("54 percent").replace("northern", "southern")
    )
    assert not verdict.ok and any(reason.startswith("entity:") for reason in verdict.reasons)
    assert supports(
        "Adults slept longer after the change.",
        "Adults and children slept longer after the change.",
    ).ok
    assert not supports(
        "Adults slept longer after the change.", "Children slept longer after the change."
    ).ok


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=120), min_size=1, max_size=4))
def test_any_text_never_conflicts_with_itself(texts: list[str]) -> None:
    said = [_said(f"S{n}", text) for n, text in enumerate(texts + texts, 1)]
    for conflict in find_conflicts(said):
        assert conflict.texts[0] != conflict.texts[1]
        assert conflict.says[0] != conflict.says[1]


@given(st.sampled_from(["[x](http://evil.example)", "<b>x</b>", "**x**", "`x`", "## x"]))
def test_a_conflict_line_shows_hostile_text_as_text(markup: str) -> None:
    """The subject comes from a page or a model: the line prints it without markup."""
    conflict = Conflict(
        kind="figure",
        subject=f"Coral cover {markup} fell",
        says=("54 %", "45 %"),
        sids=(["S1"], ["S2"]),
        texts=("a", "b"),
    )
    for language in ("en", "de"):
        html = MarkdownIt("commonmark", {"html": True}).render(conflict.line(language))
        assert "<a " not in html and "<b>" not in html and "<strong>" not in html
        assert "<code>" not in html and "<h2>" not in html
