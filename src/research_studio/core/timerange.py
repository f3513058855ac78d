"""Time ranges for research: `since`/`until` as dates or "last 2 years", and dates of results."""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Literal

from research_studio.core.errors import ConfigError

SearxngRange = Literal["day", "week", "month", "year"]
_RELATIVE = re.compile(
    r"^(?:last|past)\s+(?:(?P<count>\d+)\s+)?(?P<unit>day|week|month|year)s?$", re.IGNORECASE
)
_DATE = re.compile(r"^(?P<year>\d{4})(?:-(?P<month>\d{1,2})(?:-(?P<day>\d{1,2}))?)?$")
_DAYS = {"day": 1, "week": 7}
# SearXNG's time ranges, smallest first, with the days each covers.
_SEARXNG: tuple[tuple[SearxngRange, int], ...] = (
    ("day", 1),
    ("week", 7),
    ("month", 31),
    ("year", 366),
)


def _months_back(day: dt.date, months: int) -> dt.date:
    month_index = day.year * 12 + day.month - 1 - months
    year, month = divmod(month_index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return dt.date(year, month + 1, min(day.day, last))


def parse_when(text: str, *, today: dt.date, end: bool = False) -> dt.date:
    """A date from "2024", "2024-06", "2024-06-30" or "last 2 years" (`end`: a period's last day)."""
    cleaned = " ".join(text.strip().split())
    if relative := _RELATIVE.match(cleaned):
        count = int(relative["count"] or 1)
        unit = relative["unit"].lower()
        if unit in _DAYS:
            return today - dt.timedelta(days=count * _DAYS[unit])
        return _months_back(today, count * (12 if unit == "year" else 1))
    if absolute := _DATE.match(cleaned):
        year = int(absolute["year"])
        month = int(absolute["month"] or (12 if end else 1))
        try:
            if absolute["day"]:
                return dt.date(year, month, int(absolute["day"]))
            day = calendar.monthrange(year, month)[1] if end else 1
            return dt.date(year, month, day)
        except (ValueError, calendar.IllegalMonthError):
            pass
    raise ConfigError(
        f"not a date or period: {text!r} (use 2024, 2024-06, 2024-06-30 or 'last 2 years')"
    )


def parse_published(value: str | None) -> dt.date | None:
    """The date of a result's published field (ISO or RFC 2822), None when absent or unreadable."""
    if not value or not value.strip():
        return None
    text = value.strip()
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        pass
    try:
        return parsedate_to_datetime(text).date()
    except (TypeError, ValueError, IndexError):
        return None


@dataclass(frozen=True)
class TimeRange:
    """The dates sources may carry (either end open)."""

    since: dt.date | None = None
    until: dt.date | None = None

    def holds(self, published: str | None) -> bool | None:
        """Whether a result of that date is in range; None when its date is unknown."""
        day = parse_published(published)
        if day is None:
            return None
        return (self.since is None or day >= self.since) and (
            self.until is None or day <= self.until
        )

    def key(self) -> str:
        """A stable text for cache keys: the same query in another range is another search."""
        return f"{self.since or ''}..{self.until or ''}"

    def describe(self) -> str:
        if self.since and self.until:
            return f"from {self.since} to {self.until}"
        return f"since {self.since}" if self.since else f"until {self.until}"

    def searxng(self, today: dt.date) -> SearxngRange | None:
        """SearXNG's `time_range` covering the range, when the range reaches today."""
        if self.since is None or (self.until is not None and self.until < today):
            return None
        span = (today - self.since).days
        return next((name for name, days in _SEARXNG if span <= days), None)


def time_range(
    since: str | None, until: str | None, *, today: dt.date | None = None
) -> TimeRange | None:
    """The range the settings ask for, or None without one; one-line errors for bad input."""
    if not since and not until:
        return None
    day = today or dt.date.today()
    window = TimeRange(
        parse_when(since, today=day) if since else None,
        parse_when(until, today=day, end=True) if until else None,
    )
    if window.since and window.until and window.since > window.until:
        raise ConfigError(f"--since ({window.since}) is after --until ({window.until})")
    return window
