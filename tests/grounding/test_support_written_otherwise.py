"""The support check knows a fact written another way: a date in any common format, money
with its scale, an ordinal word, an acronym for its name (and the reverse), a surname for a
full name the source introduced; and still refuses another date, amount, rank or name."""

from __future__ import annotations

import datetime
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from research_studio.grounding.alignment import _rank
from research_studio.grounding.dates import date_figures
from research_studio.grounding.names import (
    acronym_key,
    expansions,
    folded_name,
    name_runs,
    written_acronyms,
)
from research_studio.grounding.source_sentences import sentence
from research_studio.grounding.support import best_support, supports
from research_studio.grounding.terms import figure_matches, figures

MONTHS = [datetime.date(2000, month, 1).strftime("%B") for month in range(1, 13)]


def _formats(day: datetime.date) -> list[str]:
    month = MONTHS[day.month - 1]
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10 if day.day not in (11, 12, 13) else 0)
    return [
        f"{day.day} {month} {day.year}",
        f"{month} {day.day}, {day.year}",
        f"{month} {day.day}{suffix or 'th'}, {day.year}",
        f"{month[:3]}. {day.day}, {day.year}",
        f"the {day.day}{suffix or 'th'} of {month} {day.year}",
        day.isoformat(),
    ]


@given(st.dates(min_value=datetime.date(1600, 1, 1), max_value=datetime.date(2099, 12, 31)))
def test_a_date_in_any_common_format_is_one_figure_and_never_its_day_alone(
    day: datetime.date,
) -> None:
    wanted = (day.isoformat(), "date")
    for written in _formats(day):
        found = figures(f"It opened on {written}.")
        assert wanted in found, (written, found)
        assert (day.isoformat()[:7], "yearmonth") in found
        # The day is part of the date, never a bare number a statement could borrow.
        assert (str(day.day), "") not in found or day.day == day.year % 100
    other = day + datetime.timedelta(days=1)
    assert (other.isoformat(), "date") not in figures(f"It opened on {_formats(day)[0]}.")
    month = f"{MONTHS[day.month - 1]} {day.year}"
    assert figures(f"in {month}") >= {(day.isoformat()[:7], "yearmonth"), (str(day.year), "")}
    assert (day.isoformat()[:7], "yearmonth") in figures(day.isoformat()[:7]) or (
        day.month > day.year % 100  # "2011-12" reads as a season, not December 2011
    )


def test_a_season_stays_two_years_and_a_time_is_no_day() -> None:
    assert figures("the 2018-19 season") == {("2018", ""), ("2019", "")}
    found, _, _ = date_figures("Thursday 18 October 15:30")
    assert ("10-18", "monthday") in found and ("10-15", "monthday") not in found


def test_a_date_is_checked_whole_never_pooled_from_two_dates() -> None:
    source = (
        "The museum reopened on 3 March 2021 after the flood.\n"
        "Its first exhibition closed on 20 October 2019.\n"
    )
    assert supports("The museum reopened on March 3, 2021 after the flood.", source).ok
    assert best_support("The museum reopened on 2021-03-03 after the flood.", source).ok
    for wrong in (
        "The museum reopened on March 20, 2021 after the flood.",
        "The museum reopened on 3 October 2021 after the flood.",
        "The museum reopened in April 2021 after the flood.",
    ):
        verdict = best_support(wrong, source)
        assert not verdict.ok and "figure" in verdict.reason(), wrong


def test_a_dateline_or_byline_gives_a_day_without_year_its_year() -> None:
    page = (
        "By Robert Sargent on February 22, 2011\n"
        "The two fighters will meet in a title rematch on April 9th in Albuquerque.\n"
        "The pay dispute came to light last year.\n"
    )
    ok = best_support("The fighters met in a title rematch on April 9, 2011 in Albuquerque.", page)
    assert ok.ok, ok.reasons
    for wrong in (
        "The fighters met in a title rematch on April 10, 2011 in Albuquerque.",
        "The fighters met in a title rematch on April 9, 2012 in Albuquerque.",
    ):
        assert not best_support(wrong, page).ok, wrong
    assert best_support("The pay dispute came to light in 2010.", page).ok
    assert not best_support("The pay dispute came to light in 2009.", page).ok


def test_an_abbreviated_month_ends_no_sentence() -> None:
    page = "Published 7:33 a.m. ET Aug. 10, 2014\nThe driver was replaced at the Glen."
    assert best_support("On August 10, 2014, the driver was replaced at the Glen.", page).ok
    assert not best_support("On August 11, 2014, the driver was replaced at the Glen.", page).ok


@given(st.integers(min_value=1, max_value=9999), st.sampled_from(["$", "€"]))
def test_money_keeps_its_scale_in_any_writing(tenths: int, currency: str) -> None:
    billions = tenths / 10
    word = {"$": "dollars", "€": "euros"}[currency]
    stated = figures(f"{currency}{billions:g} billion")
    (wanted,) = stated
    assert wanted == (f"{billions:g}", f"{currency} billion")
    (spelled,) = figures(f"{billions * 1000:,.0f} million {word}")
    assert figure_matches(wanted, spelled) and figure_matches(spelled, wanted)
    (smaller,) = figures(f"{currency}{billions:g} million")
    assert not figure_matches(wanted, smaller) and not figure_matches(smaller, wanted)
    (other,) = figures(f"{'€' if currency == '$' else '$'}{billions:g} billion")
    assert not figure_matches(wanted, other)


def test_money_with_its_scale_is_supported_and_another_scale_refused() -> None:
    source = "The bridge cost $1.2 billion to build."
    assert supports("The bridge cost 1,200 million dollars to build.", source).ok
    assert supports("The bridge cost $1.2bn to build.", source).ok
    wrong = supports("The bridge cost $1.2 million to build.", source)
    assert not wrong.ok and "figure" in wrong.reason()


def test_an_ordinal_word_is_its_figure() -> None:
    assert figures("the third cousin and the twenty-first century") == {("3", ""), ("21", "")}
    assert figures("first place") == set() and figures("first place", source=True) == {("1", "")}
    source = "She finished 3rd in the national marathon in 2019."
    assert supports("She finished third in the national marathon in 2019.", source).ok
    assert supports(
        "She finished 3rd in the marathon in 2019.", "She finished third in the marathon in 2019."
    ).ok
    wrong = supports("She finished fourth in the national marathon in 2019.", source)
    assert not wrong.ok and "figure: 4" in wrong.reason()


@given(
    st.lists(
        st.sampled_from(["National", "Space", "Marine", "Science", "Agency", "Bureau"]),
        min_size=2,
        max_size=5,
    )
)
def test_a_run_of_capitalised_words_is_abbreviated_by_its_initials(names: list[str]) -> None:
    text = "The " + " of ".join([" ".join(names[:1]), " ".join(names[1:])]) + " met today."
    (run,) = name_runs(text)
    assert "".join(word[0] for word in run if word[0].isupper()).lower() in expansions(text)
    assert acronym_key("NGOs") == "ngo" and acronym_key("DoD") == "dod"
    assert acronym_key("us") == "" and acronym_key("Paris") == ""


def test_an_acronym_for_its_name_and_the_reverse() -> None:
    source = (
        "The National Aeronautics and Space Administration launched the probe in 2021.\n"
        "The WHO declared the outbreak over in May 2022."
    )
    assert best_support("NASA launched the probe in 2021.", source).ok
    assert best_support(
        "The World Health Organization declared the outbreak over in May 2022.", source
    ).ok
    wrong = best_support("ESA launched the probe in 2021.", source)
    assert not wrong.ok and "ESA" in wrong.reason()
    # An acronym the source spells out stands for that name only.
    spelled = "The Australian Institute of Marine Science (AIMS) surveyed 1,080 reefs."
    assert best_support("AIMS surveyed 1,080 reefs.", spelled).ok
    other = best_support(
        "The Atlantis Institute of Marine Science (AIMS) surveyed 1,080 reefs.", spelled
    )
    assert not other.ok and "Atlantis" in other.reason()
    # "us" the pronoun is never "US".
    assert not best_support(
        "The United States declared the outbreak over in May 2022.",
        "They told us the outbreak was declared over in May 2022.",
    ).ok


def test_a_surname_stands_for_the_full_name_the_source_introduced() -> None:
    source = (
        "Kate Winslet was nominated for the Academy Award for Best Actress.\n"
        "The jury praised the performance.\n"
        "Winslet earned her fifth Oscar nomination at the ceremony in 2007.\n"
    )
    verdict = best_support("Kate Winslet earned her fifth Oscar nomination in 2007.", source)
    assert verdict.ok and verdict.parts[0].quote.startswith("Winslet earned")
    # Carried by that one sentence: "Kate" is not borrowed from another.
    assert not verdict.missing and verdict.parts[0].also == ()
    # Only a name the source gives whole: another first name is no surname's.
    wrong = best_support("Emma Winslet earned her fifth Oscar nomination in 2007.", source)
    assert not wrong.ok and "Emma" in wrong.reason()


def test_a_sentence_writing_the_figure_in_words_is_found_among_many() -> None:
    """Sentences are ranked by shared terms and figures; a figure written in words ("fifth")
    counts as shared, so the sentence that carries it is tested before others as close."""
    others = [f"The drama series was renewed by network {name}." for name in "ABCDEF"]
    fifth = "The long-running drama series was renewed for its fifth outing by the network."
    page = "\n".join([*others, fifth])
    part = "The drama series was renewed for a fifth season"
    ranked = _rank(part, [sentence(text) for text in page.splitlines()], bool)
    assert ranked[0].text == fifth
    verdict = best_support("The drama series was renewed for a fifth time.", page)
    assert verdict.ok, verdict.reasons
    assert not best_support("The drama series was renewed for a sixth time.", page).ok


def test_an_acronym_with_full_stops_is_its_name() -> None:
    assert written_acronyms("The U.S. Senate and the A.V. Club") == {"us", "av"}
    source = "The U.S. Senate approved the treaty in 2019."
    assert best_support("The United States Senate approved the treaty in 2019.", source).ok
    assert not best_support("The United Kingdom Senate approved the treaty in 2019.", source).ok


@given(
    st.text(alphabet="abcdefghijklmnoprstuvz", min_size=4, max_size=9),
    st.sampled_from(["\u0301", "\u0308", "\u0303", "\u0300"]),
)
def test_a_name_is_the_same_name_without_its_accents(stem: str, accent: str) -> None:
    plain = f"Kv{stem}"  # a made-up name, never a word such as "None"
    accented = unicodedata.normalize("NFC", plain[:3] + accent + plain[3:])
    assert folded_name(accented) == folded_name(plain) == plain.lower()
    source = f"The harbour of {plain} supplied the oak timber."
    assert best_support(f"The harbour of {accented} supplied the oak timber.", source).ok
    assert not best_support("The harbour of Qwxyzq supplied the oak timber.", source).ok
