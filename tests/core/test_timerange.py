"""Time ranges: dates and periods parsed, results' dates read, SearXNG's range chosen."""

from __future__ import annotations

import datetime as dt

import pytest

from research_studio.core.errors import ConfigError
from research_studio.core.timerange import TimeRange, parse_published, parse_when, time_range

TODAY = dt.date(2026, 11, 22)


@pytest.mark.parametrize(
    ("text", "end", "expected"),
    [
        ("2024", False, dt.date(2024, 1, 1)),
        ("2024", True, dt.date(2024, 12, 31)),
        ("2024-02", True, dt.date(2024, 2, 29)),
        ("2024-06-30", False, dt.date(2024, 6, 30)),
        ("last 2 years", False, dt.date(2024, 11, 22)),
        ("last year", False, dt.date(2025, 11, 22)),
        ("past 6 months", False, dt.date(2026, 5, 22)),
        ("Last 3 weeks", False, dt.date(2026, 11, 1)),
        ("last 10 days", False, dt.date(2026, 11, 12)),
    ],
)
def test_dates_and_periods(text: str, end: bool, expected: dt.date) -> None:
    assert parse_when(text, today=TODAY, end=end) == expected


@pytest.mark.parametrize("text", ["yesterday-ish", "2024-13", "2024-02-30", "last fortnight"])
def test_bad_input_is_a_config_error(text: str) -> None:
    with pytest.raises(ConfigError, match="not a date or period"):
        parse_when(text, today=TODAY)


def test_since_after_until_is_refused() -> None:
    with pytest.raises(ConfigError, match="after"):
        time_range("2025", "2024", today=TODAY)
    assert time_range(None, None) is None


def test_published_dates_in_the_forms_providers_send() -> None:
    assert parse_published("2024-04-16T00:00:00") == dt.date(2024, 4, 16)
    assert parse_published("2024-04-16") == dt.date(2024, 4, 16)
    assert parse_published("Tue, 16 Apr 2024 08:00:00 GMT") == dt.date(2024, 4, 16)
    assert parse_published("") is None and parse_published("soon") is None


def test_a_range_holds_dated_results_and_knows_nothing_of_undated_ones() -> None:
    window = TimeRange(dt.date(2024, 5, 1), dt.date(2024, 12, 31))
    assert window.holds("2024-05-28") is True
    assert window.holds("2024-04-18") is False and window.holds("2025-01-31") is False
    assert window.holds(None) is None


def test_searxng_range_is_the_smallest_that_covers_the_period() -> None:
    assert TimeRange(TODAY - dt.timedelta(days=5)).searxng(TODAY) == "week"
    assert TimeRange(TODAY - dt.timedelta(days=200)).searxng(TODAY) == "year"
    assert TimeRange(TODAY - dt.timedelta(days=800)).searxng(TODAY) is None
    assert TimeRange(TODAY - dt.timedelta(days=5), dt.date(2026, 1, 1)).searxng(TODAY) is None
