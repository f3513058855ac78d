"""Dates as figures, whatever way they are written.

"3 March 2021", "March 3, 2021", "March 3rd, 2021", "Mar. 3 2021" and "2021-03-03" are one
date; "March 2021", "March of 2021" and "2021-03" one month. A date is compared whole, never as
a day and a year that may come from two unrelated dates of the source: `date_figures` gives a
full date as ("2021-03-03", "date"), its month ("2021-03", "yearmonth"), its day of the year
("03-03", "monthday"), its month of the year ("03", "monthname") and its year ("2021", ""),
and says which characters it consumed so the day is never also read as a bare number. A date
without a year ("April 9th", "in May") is only a day or a month; a source's dateline may give
it its year (`with_year`).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable

_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}  # fmt: skip
MONTH_WORDS = frozenset(_MONTHS)
# A month name as written: capitalised ("May" the month, never "may" the verb), abbreviations
# with or without their full stop.
_MONTH = (
    r"(?P<{name}>(?:January|February|March|April|May|June|July|August|September|October"
    r"|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\b\.?)"
)
_DAY = r"(?P<{name}>[0-3]?\d)(?:st|nd|rd|th)?(?![:.]?\d)"
_YEAR = r"(?P<{name}>(?:1[5-9]|20)\d\d)(?!\d)"


def _pattern(*pieces: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + "".join(pieces) + r"(?!\w)")


# The most specific first: a date before the month it contains.
_PATTERNS = (
    # 2021-03-03 (ISO, a time after it allowed)
    (
        "ymd",
        re.compile(
            r"(?<![\w-])(?P<year>(?:1[5-9]|20)\d\d)-(?P<month_number>0[1-9]|1[0-2])"
            r"-(?P<day>0[1-9]|[12]\d|3[01])(?![\d-])"
        ),
    ),
    # March 3, 2021 · March 3rd 2021 · Mar. 3, 2021
    (
        "mdy",
        _pattern(_MONTH.format(name="month"), r"\s" + _DAY.format(name="day"), r",?\s",
                 _YEAR.format(name="year")),
    ),
    # 3 March 2021 · 3rd of March, 2021
    (
        "dmy",
        _pattern(_DAY.format(name="day"), r"\s(?:of\s)?", _MONTH.format(name="month"),
                 r",?\s", _YEAR.format(name="year")),
    ),
    # March 2021 · March of 2021
    ("my", _pattern(_MONTH.format(name="month"), r",?\s(?:of\s)?", _YEAR.format(name="year"))),
    # 2021-03 (ISO month; "2011-12" with an end after its start stays a season, see terms)
    (
        "ym",
        re.compile(
            r"(?<![\w-])(?P<year>(?:1[5-9]|20)\d\d)-(?P<month_number>0[1-9]|1[0-2])(?![\w-])"
        ),
    ),
    # March 3 · March 3rd · 3 March · 3rd of March (no year)
    ("md", _pattern(_MONTH.format(name="month"), r"\s" + _DAY.format(name="day"))),
    ("dm", _pattern(_DAY.format(name="day"), r"\s(?:of\s)?", _MONTH.format(name="month"))),
    # in May · since early November (a month of no year, after a word that makes it one)
    (
        "m",
        re.compile(
            r"\b(?i:in|during|since|until|by|from|for|through|early|late|mid)[\s-]+"
            + _MONTH.format(name="month")
            + r"(?!\s*\d)"
        ),
    ),
)  # fmt: skip


# What every date has: a month's name or an ISO year and month (a cheap test first).
_ANY_DATE = re.compile(r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)|\d{4}-[01]\d")


def _month_number(match: re.Match[str]) -> int:
    groups = match.groupdict()
    if groups.get("month_number"):
        return int(groups["month_number"])
    return _MONTHS[groups["month"].rstrip(".").lower()]


def date_figures(
    text: str,
) -> tuple[set[tuple[str, str]], list[tuple[int, int]], list[tuple[int, int]]]:
    """The dates of a text as figures, the spans of the dates, and the spans of their days and
    month numbers (which are no figures of their own)."""
    found: set[tuple[str, str]] = set()
    taken: list[tuple[int, int]] = []
    consumed: list[tuple[int, int]] = []
    if not _ANY_DATE.search(text):
        return found, taken, consumed
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            if any(start < match.end() and match.start() < end for start, end in taken):
                continue
            if kind == "ym" and int(match.group("month_number")) > int(match.group("year")[2:]):
                continue  # "2011-12" reads as a season; "2021-03" as a month
            month = _month_number(match)
            day = int(match.group("day")) if "day" in match.groupdict() else 0
            if day > 31:
                continue
            taken.append(match.span())
            found.add((f"{month:02d}", "monthname"))
            year = match.groupdict().get("year")
            if year:
                found |= {(year, ""), (f"{year}-{month:02d}", "yearmonth")}
            if day:
                found.add((f"{month:02d}-{day:02d}", "monthday"))
                if year:
                    found.add((f"{year}-{month:02d}-{day:02d}", "date"))
                consumed.append(match.span("day"))
            if match.groupdict().get("month_number"):
                consumed.append(match.span("month_number"))
    return found, taken, consumed


def with_year(found: Iterable[tuple[str, str]], years: Iterable[str]) -> set[tuple[str, str]]:
    """The days and months without a year of a source ("April 9th", "in May") as dates of
    the years its datelines give (an article dated 2011 that says "April 9th" means April 9,
    2011)."""
    found = list(found)
    days = [value for value, unit in found if unit == "monthday"]
    months = [value for value, unit in found if unit == "monthname"]
    dated: set[tuple[str, str]] = set()
    for year in years:
        dated |= {(f"{year}-{day}", "date") for day in days}
        dated |= {(f"{year}-{month}", "yearmonth") for month in months}
    return dated


# "October-December", "from May to July 2019": a span of months, each month in it.
_MONTH_RANGE = _pattern(
    _MONTH.format(name="first"),
    r"\s*(?:[-\u2013\u2014]|\s(?:to|through|until|till|and)\s)\s*",
    _MONTH.format(name="last"),
    r"(?:,?\s(?:of\s)?" + _YEAR.format(name="year") + ")?",
)


def month_spans(text: str) -> set[tuple[str, str]]:
    """The months inside a span of months a source gives ("aired from October-December" is
    in November too), as months of no year, or of the span's year where it ends with one
    ("May to July 2019"). A span that runs over the new year takes no year."""
    found: set[tuple[str, str]] = set()
    if not _ANY_DATE.search(text):
        return found
    for match in _MONTH_RANGE.finditer(text):
        first = _MONTHS[match.group("first").rstrip(".").lower()]
        last = _MONTHS[match.group("last").rstrip(".").lower()]
        if first == last:
            continue
        within = (
            range(first, last + 1) if first < last else [*range(first, 13), *range(1, last + 1)]
        )
        year = match.group("year") if first < last else None
        for month in within:
            found.add((f"{month:02d}", "monthname"))
            if year:
                found.add((f"{year}-{month:02d}", "yearmonth"))
    return found


# "the third quarter of 2006", "Q3 2006": a quarter of a year, as a date figure of its own.
_QUARTER_WORDS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3,
                  "fourth": 4, "4th": 4, "final": 4, "last": 4}  # fmt: skip
_QUARTER = re.compile(
    r"(?<!\w)(?:(?i:(?P<ordinal>first|1st|second|2nd|third|3rd|fourth|4th|final|last)"
    r"[\s-]+(?:fiscal\s+)?quarter)(?:,?\s+of)?|Q(?P<number>[1-4]))[\s,]+(?:of\s+)?"
    + _YEAR.format(name="year")
)


def quarter_figures(text: str) -> tuple[set[tuple[str, str]], list[tuple[int, int]]]:
    """The quarters of a year a text names ("2006-Q3", "quarter") with the year itself, and
    their spans (their ordinal is no figure of its own)."""
    found: set[tuple[str, str]] = set()
    spans: list[tuple[int, int]] = []
    if "uarter" not in text and "Q" not in text:
        return found, spans
    for match in _QUARTER.finditer(text):
        ordinal = match.group("ordinal")
        number = _QUARTER_WORDS[ordinal.lower()] if ordinal else int(match.group("number"))
        found |= {(f"{match.group('year')}-Q{number}", "quarter"), (match.group("year"), "")}
        spans.append(match.span())
    return found, spans


def quarters(found: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    """The quarter each month or day of a year falls in: a source's "September 2006" is in
    the third quarter of 2006."""
    return {
        (f"{value[:4]}-Q{(int(value[5:7]) - 1) // 3 + 1}", "quarter")
        for value, unit in found
        if unit in {"yearmonth", "date"}
    }


# A sentence that speaks of what is still to come ("First Slated for June", "will open in May").
_FUTURE = re.compile(
    r"\b(?i:will|shall|slated|scheduled|planned|planning|plans|set\s+to|due\s+to|due\s+in"
    r"|expected\s+to|upcoming|forthcoming|going\s+to)\b"
)


def coming_months(
    text: str, found: Iterable[tuple[str, str]], dated: Iterable[tuple[str, str]]
) -> set[tuple[str, str]]:
    """The months without a year of a sentence that speaks of the future, as months of the
    year after its dateline where that month of the dateline's year has passed (its days
    too): an article of December 2018 that says a debate is "slated for June" means June
    2019."""
    if not _FUTURE.search(text):
        return set()
    found = list(found)
    months = [value for value, unit in found if unit == "monthname"]
    days = [value for value, unit in found if unit == "monthday"]
    coming: set[tuple[str, str]] = set()
    for value, unit in dated:
        if unit != "yearmonth":
            continue
        following = str(int(value[:4]) + 1)
        for month in months:
            if month < value[5:]:
                coming |= {(f"{following}-{month}", "yearmonth"), (following, "")}
        coming |= {(f"{following}-{day}", "date") for day in days if day[:2] < value[5:]}
    return coming


# A page about one day of the calendar ("It's Oct. 6 and here is why this day matters in rock
# history", "On this day in history"): what it lists by year happened on that day.
_DAY_PAGE = re.compile(r"(?i)\b(?:this|that)\s+(?:day|date)\b|\btoday\s+in\b|\bon\s+this\s+day\b")


def days_of_page(sentences: Iterable[str]) -> set[tuple[str, str]]:
    """The days of the year a page says it is about ("It's Oct. 6 and here are some reasons
    why this day matters"): a sentence that names one day of no year and calls it this day."""
    found: set[tuple[str, str]] = set()
    for text in sentences:
        if _DAY_PAGE.search(text):
            dates, _spans, _days = date_figures(text)
            if not any(unit == "date" for _value, unit in dates):
                found |= {(value, unit) for value, unit in dates if unit == "monthday"}
    return found if len(found) == 1 else set()


_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_WEEKDAY = re.compile(r"\b(" + "|".join(_WEEKDAYS) + r")\b")


def weekdays(text: str, dated: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    """The dates a sentence's weekday names in a dated article: the last such day on or before
    the dateline ("Wednesday evening" in an article of Thursday 2 March 2017 is 1 March 2017),
    with its month, day and year."""
    named = {_WEEKDAYS.index(match.group(1)) for match in _WEEKDAY.finditer(text)}
    found: set[tuple[str, str]] = set()
    if not named:
        return found
    for value, unit in dated:
        if unit != "date":
            continue
        try:
            day = datetime.date.fromisoformat(value)
        except ValueError:
            continue
        for weekday in named:
            then = day - datetime.timedelta(days=(day.weekday() - weekday) % 7)
            iso = then.isoformat()
            found |= {
                (iso, "date"),
                (iso[:7], "yearmonth"),
                (iso[5:], "monthday"),
                (iso[5:7], "monthname"),
                (iso[:4], ""),
            }
    return found


_RELATIVE = re.compile(r"\b(last|this|next)\s+year\b", re.IGNORECASE)
_OFFSET = {"last": -1, "this": 0, "next": 1}


def relative_years(text: str, years: Iterable[str]) -> set[tuple[str, str]]:
    """The years a source's "last year", "this year" or "next year" name, counted from the
    years its datelines give (in an article dated 2018, "last year" is 2017)."""
    offsets = {_OFFSET[match.group(1).lower()] for match in _RELATIVE.finditer(text)}
    return {(str(int(year) + offset), "") for year in years for offset in offsets}


_NAMES = sorted(
    (name.capitalize() for name in _MONTHS if len(name) > 4 or name in {"may", "june", "july"}),
    key=lambda name: _MONTHS[name.lower()],
)


def describe(value: str, unit: str) -> str:
    """A date figure as a reader writes it ("March 2021", "3 March"); "" for any other."""
    if unit == "monthname":
        return _NAMES[int(value) - 1]
    if unit == "yearmonth":
        return f"{_NAMES[int(value[5:]) - 1]} {value[:4]}"
    if unit == "monthday":
        return f"{int(value[3:])} {_NAMES[int(value[:2]) - 1]}"
    if unit == "date":
        return f"{int(value[8:])} {_NAMES[int(value[5:7]) - 1]} {value[:4]}"
    if unit == "quarter":
        return f"Q{value[6:]} {value[:4]}"
    return ""
