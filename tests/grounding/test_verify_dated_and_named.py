"""`verify` knows a date or a name a page gives another way: a month inside a span of months, a
quarter of a year, a month still to come in a dated article, a day a page is about, a
publication its web address names; and still refuses another month, quarter, year, day or name,
or an event the page dates otherwise."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from research_studio.faces.cli import app
from research_studio.grounding.dates import (
    coming_months,
    days_of_page,
    month_spans,
    quarter_figures,
    quarters,
    weekdays,
)
from research_studio.grounding.names import address_labels, named_in_address
from research_studio.grounding.terms import figures
from tests.helpers import verify_supports_and_refuses

runner = CliRunner()

MONTHS = [datetime.date(2000, month, 1).strftime("%B") for month in range(1, 13)]

SPAN_PAGE = (
    "# Crunchyroll streams the film\n\n"
    "The anime's second series aired from October-December 2018, and Crunchyroll streamed "
    "the series as it aired.\n"
)
QUARTER_PAGE = (
    "# Festival announced\n\n"
    "July 23, 2006\n\n"
    "The travelling festival will start its second tour in early September.\n"
)
COMING_PAGE = (
    "# Committee announces debates\n\n"
    "December 20, 2018\n\n"
    "The committee announced twelve primary debates, with the first planned for June.\n"
)
PAST_PAGE = (
    "# Committee meets\n\nDecember 20, 2018\n\nThe committee held its first hearing in June.\n"
)
DAY_PAGE = (
    "# Why October 6th Matters in Rock History\n\n"
    "It's Oct. 6 and here are some reasons why this day matters in rock history:\n\n"
    "In 1995, Alice in Chains released Grind to radio stations via satellite uplink.\n\n"
    "In 1969, The Beatles released Something.\n"
)
WEEKDAY_PAGE = (
    "# Commission names three applicants\n\n"
    "By Travis Zimpfer on March 2, 2017\n\n"
    "The commission narrowed the list of applicants for the empty Supreme Court seat down to "
    "three Wednesday evening.\n"
)
ADDRESS_PAGE = (
    "https://music.avclub.com/ryan-adams-transforms-1989\n\n"
    "# Ryan Adams transforms 1989\n\n"
    "Annie Zaleski called Style a yearning college rock fever dream.\n"
)

CASES = [
    pytest.param(
        SPAN_PAGE,
        "Crunchyroll streamed the series in November 2018 as it aired.",
        "The anime's second series aired from October-December 2018",
        "Crunchyroll streamed the series in January 2018 as it aired.",
        "figure: January",
        id="month-in-a-span-of-months",
    ),
    pytest.param(
        QUARTER_PAGE,
        "The travelling festival will start its second tour in the third quarter of 2006.",
        "The travelling festival will start its second tour",
        "The travelling festival will start its second tour in the second quarter of 2006.",
        "figure: Q2 2006 is not in the source",
        id="quarter-of-a-year",
    ),
    pytest.param(
        COMING_PAGE,
        "The committee announced twelve primary debates, the first planned for June 2019.",
        "The committee announced twelve primary debates",
        "The committee announced twelve primary debates, the first planned for June 2020.",
        "figure: June 2020 is not in the source",
        id="month-still-to-come",
    ),
    pytest.param(
        PAST_PAGE,
        "The committee held its first hearing in June 2018.",
        "The committee held its first hearing in June",
        # A month already past, in a sentence of the past: the dateline's year only.
        "The committee held its first hearing in June 2019.",
        "figure: June 2019 is not in the source",
        id="month-past-keeps-its-year",
    ),
    pytest.param(
        DAY_PAGE,
        "On October 6, 1995, Alice in Chains released Grind to radio stations via satellite "
        "uplink.",
        "In 1995, Alice in Chains released Grind",
        "On October 7, 1995, Alice in Chains released Grind to radio stations via satellite "
        "uplink.",
        "figure: 7 October",
        id="day-a-page-is-about",
    ),
    pytest.param(
        WEEKDAY_PAGE,
        "On March 1, 2017 the commission narrowed the list of applicants for the Supreme Court "
        "seat to three.",
        "The commission narrowed the list",
        "On February 28, 2017 the commission narrowed the list of applicants for the Supreme "
        "Court seat to three.",
        "figure: 28 February 2017 is not in the source",
        id="weekday-of-a-dated-article",
    ),
    pytest.param(
        ADDRESS_PAGE,
        'Annie Zaleski of "The A.V. Club" called Style a yearning college rock fever dream.',
        "Annie Zaleski called Style",
        'Annie Zaleski of "The Onion" called Style a yearning college rock fever dream.',
        "entity: the source does not name 'Onion'",
        id="publication-in-its-web-address",
    ),
]


@pytest.mark.parametrize(("page_text", "statement", "passage", "wrong", "why"), CASES)
def test_verify_supports_a_date_or_name_given_another_way_and_refuses_another(
    tmp_path: Path, page_text: str, statement: str, passage: str, wrong: str, why: str
) -> None:
    page = tmp_path / "page.md"
    page.write_text(page_text, encoding="utf-8")
    verify_supports_and_refuses(page, statement, passage, wrong, why)


def test_verify_refuses_an_event_a_page_dates_otherwise(tmp_path: Path) -> None:
    # The 1969 sentence has the year, the 1995 sentence the event: never pooled into one.
    page = tmp_path / "page.md"
    page.write_text(DAY_PAGE.replace("It's Oct. 6 and here", "Here"), encoding="utf-8")
    wrong = "In 1969, Alice in Chains released Grind to radio stations via satellite uplink."
    answer = json.loads(
        runner.invoke(app, ["verify", wrong, "--source", str(page), "--json"]).stdout
    )
    assert answer["supported"] is False, answer
    right = "In 1995, Alice in Chains released Grind to radio stations via satellite uplink."
    answer = json.loads(
        runner.invoke(app, ["verify", right, "--source", str(page), "--json"]).stdout
    )
    assert answer["supported"], answer


@given(
    st.integers(min_value=1, max_value=12),
    st.integers(min_value=1, max_value=12),
    st.integers(min_value=1600, max_value=2099),
    st.sampled_from(["-", "\u2013", " to ", " through "]),
)
def test_a_span_of_months_holds_its_months_and_no_other(
    first: int, last: int, year: int, joiner: str
) -> None:
    text = f"It ran from {MONTHS[first - 1]}{joiner}{MONTHS[last - 1]} {year}."
    found = month_spans(text)
    if first >= last:
        # A span over the new year takes no year; one month is no span.
        assert not any(unit == "yearmonth" for _value, unit in found)
        return
    for month in range(1, 13):
        inside = first <= month <= last
        assert ((f"{year}-{month:02d}", "yearmonth") in found) is inside, (text, month)
        assert ((f"{year}-{month:02d}", "yearmonth") in figures(text, source=True)) is inside


@given(st.dates(min_value=datetime.date(1600, 1, 1), max_value=datetime.date(2099, 12, 31)))
def test_a_quarter_holds_its_months_and_its_ordinal_is_no_figure(day: datetime.date) -> None:
    quarter = (day.month - 1) // 3 + 1
    ordinal = ["first", "second", "third", "fourth"][quarter - 1]
    written = figures(f"Sales grew in the {ordinal} quarter of {day.year}.")
    assert (f"{day.year}-Q{quarter}", "quarter") in written
    assert (str(quarter), "") not in written  # "third" here is no figure 3
    assert figures(f"Sales grew in Q{quarter} {day.year}.") == written
    source = figures(f"Sales grew on {day.isoformat()}.", source=True)
    assert quarters(source) == {(f"{day.year}-Q{quarter}", "quarter")}


@given(
    st.dates(min_value=datetime.date(1600, 1, 8), max_value=datetime.date(2099, 12, 31)),
    st.integers(min_value=0, max_value=6),
)
def test_a_weekday_is_the_last_such_day_on_or_before_the_dateline(
    day: datetime.date, weekday: int
) -> None:
    name = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")[weekday]
    found = {
        value
        for value, unit in weekdays(f"It met on {name}.", {(day.isoformat(), "date")})
        if unit == "date"
    }
    assert len(found) == 1
    then = datetime.date.fromisoformat(found.pop())
    assert then.weekday() == weekday and 0 <= (day - then).days <= 6
    assert weekdays("It met on Monday.", {(day.isoformat()[:7], "yearmonth")}) == set()


@given(st.text(max_size=300))
def test_text_from_outside_never_breaks_the_date_and_address_readers(text: str) -> None:
    month_spans(text)
    quarter_figures(text)
    days_of_page([text, text])
    coming_months(text, figures(text, source=True), {("2018-12", "yearmonth")})
    weekdays(text, {("2018-12-20", "date"), ("2018-13-40", "date")})
    labels = address_labels(text)
    assert all("." not in label for label in labels)
    named_in_address(text, labels)


@given(st.sampled_from(["nytimes", "avclub", "theguardian"]), st.text(max_size=80))
def test_only_a_whole_address_label_names_a_publication(label: str, noise: str) -> None:
    labels = address_labels(f"see https://www.{label}.com/x {noise}")
    assert label in labels
    # One word of a joined label is no name of it ("Club" alone is no "avclub").
    assert named_in_address("Zaleski of the Club wrote it.", labels) == set()
