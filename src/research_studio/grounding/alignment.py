"""Support found anywhere in a source: a statement split into its parts, each part's best sentence.

A writer joins facts (one clause from here, one from a later paragraph) and says them in other
words. `align` splits the statement into its parts by code (clauses: at semicolons, commas and
conjunctions, a part too small to say anything joined to the one before it), finds for each part
the sentence of the source that best carries it (anywhere in the source, adjacent or not), and
tests each part against its own sentence with the hard vetoes: a figure or unit that differs,
a flipped polarity, a negation the source does not make. Words a part's sentence lacks may be
found in up to two more sentences, each carrying at least two of them (support spread over
three sentences); words match by stem and by word family (`kin`). Figures pool only with
sentences sharing two of the part's terms and with the source's datelines: "2 °C in 2023"
never borrows "2023" from an unrelated sentence. What the parts found is what `support.judge`
decides on: how much of each part the source carries.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import lru_cache

from research_studio.grounding.dates import (
    MONTH_WORDS,
    coming_months,
    days_of_page,
    describe,
    quarters,
    relative_years,
    weekdays,
    with_year,
)
from research_studio.grounding.names import (
    expansions,
    folded_source,
    name_runs,
    names_in,
    opening_name,
    place_forms,
    run_acronyms,
    spelled_in_lower_case,
    written_acronyms,
)
from research_studio.grounding.terms import (
    DIRECTIONS,
    canon,
    content_words,
    entities,
    figure_contexts,
    figure_matches,
    figures,
    is_unit_word,
    negated_terms,
    negation_scope,
    negations,
    number_words,
    phrase_terms,
    word_set,
    words,
)

# Where a statement breaks into parts: ";" and ":", a comma, and a clause-opening conjunction.
_PART_BREAK = re.compile(
    r"\s*[;:]\s+|,\s+|\s+(?=(?:and|but|while|whereas|although|though|which|who)\s)",
    re.IGNORECASE,
)
# A part with fewer content words is joined to the one before it ("…, in 2023").
MIN_PART_WORDS = 3
MAX_PARTS = 4
# Sentences ranked by shared terms; only this many per part get the full (slower) test.
CANDIDATES = 4
# Terms a second sentence shares with a part before its figures count for the part.
SHARED_FOR_FIGURES = 2


@dataclass(frozen=True)
class SourceSentence:
    """One sentence of a source, with what the check compares (computed once per sentence)."""

    text: str
    terms: frozenset[str]

    @property
    def written(self) -> frozenset[str]:
        """The acronyms it writes in capitals."""
        return written_acronyms(self.text)

    @property
    def negated(self) -> frozenset[str]:
        return _negated(self.text)


@lru_cache(maxsize=8192)
def sentence(text: str) -> SourceSentence:
    """A source sentence prepared for comparison (cached: a page is checked many times)."""
    terms = frozenset(canon(word) for word in words(text))
    return SourceSentence(text=text, terms=terms | _written_otherwise(text))


@lru_cache(maxsize=8192)
def _written_otherwise(text: str) -> frozenset[str]:
    """Terms a sentence carries written another way: the acronyms of the names it spells out
    ("nasa" for "National Aeronautics and Space Administration"), a direction said by a phrase
    ("up from")."""
    return frozenset(canon(form) for form in expansions(text)) | phrase_terms(text)


@lru_cache(maxsize=8192)
def _negated(text: str) -> frozenset[str]:
    return frozenset(canon(word) for word in negated_terms(text))


@dataclass(frozen=True)
class Part:
    """One part of a statement and what the source says of it."""

    text: str
    quote: str = ""
    coverage: float = 0.0
    missing: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    wanted: int = 0
    also: tuple[str, ...] = ()  # further sentences carrying words the first lacks

    @property
    def vetoed(self) -> bool:
        return bool(self.reasons)


@dataclass(frozen=True)
class Alignment:
    """Every part of a statement with its best sentence of the source."""

    parts: tuple[Part, ...] = field(default=())

    @property
    def quotes(self) -> list[str]:
        found = [text for part in self.parts for text in (part.quote, *part.also) if text]
        return list(dict.fromkeys(found))

    @property
    def missing(self) -> list[str]:
        return list(dict.fromkeys(word for part in self.parts for word in part.missing))

    @property
    def coverage(self) -> float:
        wanted = sum(part.wanted for part in self.parts)
        if not wanted:
            return 0.0
        return sum(part.wanted - len(part.missing) for part in self.parts) / wanted


def split_parts(statement: str) -> list[str]:
    """The statement's parts: clauses, each with enough content words to be checked alone."""
    pieces = [piece.strip(" ,;:.") for piece in _PART_BREAK.split(statement)]
    parts: list[str] = []
    for piece in pieces:
        if not piece:
            continue
        if parts and len(content_words(piece)) < MIN_PART_WORDS:
            parts[-1] = f"{parts[-1]}, {piece}"
        else:
            parts.append(piece)
    # A first part too small to stand joins the second ("In 2023, cool roofs …").
    if len(parts) > 1 and len(content_words(parts[0])) < MIN_PART_WORDS:
        parts[0:2] = [f"{parts[0]}, {parts[1]}"]
    while len(parts) > MAX_PARTS:  # the two shortest neighbours join
        index = min(range(len(parts) - 1), key=lambda i: len(parts[i]) + len(parts[i + 1]))
        parts[index : index + 2] = [f"{parts[index]}, {parts[index + 1]}"]
    return parts or [statement]


# Two words of one family share this many first letters, one ends at most a letter after
# them and the other at most KIN_ENDING ("supremacy" ~ "supremacist", "publicized" ~
# "publicity", never "contract" ~ "contrast"): a stem the suffix-stripper cannot reach,
# without a list of words.
KIN_PREFIX = 6
KIN_ENDING = 3


def kin(term: str, other: str) -> bool:
    """Whether two stems are of one word family: one starts the other (five letters or more),
    or both share KIN_PREFIX letters and end close after their common part."""
    if len(term) >= 5 and len(other) >= 5 and (other.startswith(term) or term.startswith(other)):
        return True
    if len(term) < KIN_PREFIX or term[:KIN_PREFIX] != other[:KIN_PREFIX]:
        return False
    common = KIN_PREFIX
    while common < min(len(term), len(other)) and term[common] == other[common]:
        common += 1
    endings = sorted((len(term) - common, len(other) - common))
    return endings[0] <= 1 and endings[1] <= KIN_ENDING


def present(term: str, available: frozenset[str]) -> bool:
    """Whether a canonical term is in a sentence: as written, or by a word of its family
    ("urbanisation" ~ "urbanised", "supremacy" ~ "supremacists")."""
    if term in available:
        return True
    if len(term) < 5:
        return False
    head = term[:5]  # every word of the family starts with the same five letters
    return any(other[:5] == head and kin(term, other) for other in available)


# Words of a dateline ("Published 7:33 a.m. ET Aug. 10, 2014 | Updated …") besides its date.
_DATELINE_WORDS = word_set(
    """january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday
    saturday sunday published updated posted last modified am pm et pt gmt utc cet est pst
    edt pdt meta datetime date"""
)
_YEAR = re.compile(r"\b(1[5-9]|20)\d\d\b")
_BYLINE = re.compile(r"\s*(?i:by)\s+[A-Z]")


def datelines(sentences: Sequence[str]) -> set[tuple[str, str]]:
    """The figures of the source's datelines (a date and next to no words): they date the
    whole source, so a statement's date may rest on them."""
    found: set[tuple[str, str]] = set()
    for text in sentences:
        if len(text) > 120 or not _YEAR.search(text):
            continue
        others = [word for word in content_words(text) if word not in _DATELINE_WORDS]
        if _BYLINE.match(text):  # "By Travis Zimpfer on March 2, 2017": its author's name
            named = {word.lower() for word in re.findall(r"\b[A-Z][\w'-]*", text)}
            others = [word for word in others if word not in named]
        if len(others) <= 1:
            found |= figures(text, source=True)
    return found


def _figure_reasons(part: str, available: AbstractSet[tuple[str, str]]) -> list[str]:
    reasons = []
    for value, unit in sorted(figures(part)):
        shown = describe(value, unit) or f"{value}{' ' + unit if unit else ''}"
        matches = [their for their in available if figure_matches((value, unit), their)]
        if matches:
            continue
        same_value = [their for their in available if figure_matches((value, ""), (their[0], ""))]
        if unit and same_value:
            reasons.append(f"figure: the source has {value} but not as {unit}")
        else:
            reasons.append(f"figure: {shown} is not in the source")
    return reasons


_NEGATES = "polarity: the statement negates"
_OPPOSES = "polarity: the statement says"


def _polarity_reasons(part: str, quote: SourceSentence, terms: set[str]) -> list[str]:
    reasons = []
    said_negated = _negated(part)
    # A negation bears on a term: the statement denies what the source affirms, or the reverse.
    denied = sorted(term for term in said_negated if term not in quote.negated)
    if denied:
        reasons.append(f"{_NEGATES} what the source affirms ('{denied[0]}' is not negated there)")
    elif negations(part) and negations(part) % 2 != negations(quote.text) % 2:
        # A negation the source does not make ("is not", "not not"): the count decides.
        reasons.append(f"{_NEGATES} what the source affirms")
    affirmed = sorted(term for term in quote.negated & terms if term not in said_negated)
    if not affirmed and not negations(part):
        # The part says what the sentence says under a negation ("they did not find a link
        # between walking and cancer risk" for "walking lowered cancer risk").
        denied_here = sorted(negation_scope(quote.text) & terms & content_terms(part))
        if len(denied_here) >= NEGATED_TOGETHER:
            affirmed = denied_here
    if affirmed and not denied:
        reasons.append(f"polarity: the source negates '{affirmed[0]}', which the statement affirms")
    for one, other in DIRECTIONS:
        for mine, opposite in ((one, other), (other, one)):
            # A direction only the statement says, against the opposite only the sentence says
            # ("higher incomes" where "smaller producers … reported lower incomes").
            said, other_said = (terms & mine) - quote.terms, (quote.terms & opposite) - terms
            if said and other_said:
                reasons.append(
                    f"{_OPPOSES} '{min(said)}' where the source says '{min(other_said)}'"
                )
    return reasons or _figure_polarity(part, quote.text)


def _figure_polarity(part: str, source: str) -> list[str]:
    """A figure said of one side where the source says it of the other: "a net profit of $35
    million" where the sentence has "a net loss of $35 million, compared with a profit of $12
    million" (the words next to each figure, within its clause)."""
    theirs = figure_contexts(source)
    for value, near in figure_contexts(part):
        for their_value, their_near in theirs:
            if their_value != value:
                continue
            for one, other in DIRECTIONS:
                for mine, opposite in ((one, other), (other, one)):
                    said, other_said = near & mine, their_near & opposite
                    if said and not near & opposite and other_said and not their_near & mine:
                        return [
                            f"polarity: the statement says {value} is '{min(said)}' where "
                            f"the source says '{min(other_said)}'"
                        ]
    return []


# A part says what a sentence denies when this many of its words are under the negation.
NEGATED_TOGETHER = 2


def content_terms(part: str) -> set[str]:
    return {canon(word) for word in content_words(part)}


# Words that place a part in time or discourse rather than say it: missing, they are no gap.
_WEAK = word_set(
    """during later prior next previous time times year years also again then once soon
    currently recently eventually subsequently initially originally reportedly officially
    still already new"""
)


_QUARTER_WORDS = frozenset({"quarter", "quarters", "fiscal"})
_DATED = frozenset({"date", "yearmonth", "monthday", "monthname", "quarter"})


def wanted_words(part: str) -> list[str]:
    """The words of a part the source must carry: its content words, less the words that only
    place it in time, and the month of a date or the unit of a figure ("million dollars"):
    those are checked with their figure, whole."""
    stated = figures(part)
    dated = any(unit in _DATED for _value, unit in stated)
    return [
        word
        for word in dict.fromkeys(content_words(part))
        if word not in _WEAK
        and not (dated and (word.rstrip(".") in MONTH_WORDS or word in _QUARTER_WORDS))
        and not (stated and is_unit_word(word))
    ]


def names_carried(
    part: str,
    quote: SourceSentence,
    named: Callable[[str], bool],
    spelled: Callable[[], frozenset[str]],
) -> set[str]:
    """The words of the part's names the sentence carries written another way: a name the
    sentence abbreviates ("National Aeronautics and Space Administration" for its "NASA"),
    unless the source spells that acronym out as another name (`spelled`); or a full name the
    source introduced and the sentence gives by its last word ("Kate Winslet" where the
    sentence says "Winslet")."""
    carried: set[str] = set()
    for run in name_runs(part):
        lowered = [word.lower() for word in run]
        written = run_acronyms(run) & quote.written
        abbreviated = bool(written and written - spelled())
        if abbreviated or (present(canon(lowered[-1]), quote.terms) and named(" ".join(run))):
            carried.update(lowered)
    return carried


# A pronoun standing for someone named before ("Marie Curie was born in Warsaw. She moved to
# Paris"): the name is carried by the sentence that refers to it.
# Only a person's: "it" and "they" stand for things and groups as often as for a name.
_PRONOUN = re.compile(r"\b(?:he|she|his|her|him|hers)\b", re.IGNORECASE)
# How many sentences back a pronoun's name may be.
REFERENT_REACH = 3
_OPENERS = word_set("the a an in on at for by of and but as this that these those it its")
_NO_REFERENT = MONTH_WORDS | word_set("monday tuesday wednesday thursday friday saturday sunday")


# Capitalised words one after another: a name ("Marie Curie", "Curie").
_CAPITALS = re.compile(r"(?<![\w'\u2019-])[A-Z][\w'\u2019-]*(?:[ \t]+[A-Z][\w'\u2019-]*)*")


@lru_cache(maxsize=8192)
def _first_name(text: str) -> tuple[int, frozenset[str]]:
    """Where a sentence first names someone or something, and that name's words. A
    capitalised first word is a name only where it opens a run of them ("Marie Curie was …",
    never "Later she …")."""
    opening = len(text) - len(text.lstrip())
    for match in _CAPITALS.finditer(text):
        names = match.group().split()
        if match.start() == opening:
            names = names if len(names) > 1 else []
        names = [name for name in names if name.lower() not in _NO_REFERENT | _OPENERS]
        if names:
            return match.start(), frozenset(name.lower() for name in names)
    return -1, frozenset()


@lru_cache(maxsize=16)  # one page, many statements
def referents(sentences: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """For each sentence that refers back by a pronoun before it names anyone, the words of
    the name it stands for: the first name of the nearest earlier sentence that names one,
    at most REFERENT_REACH back. A sentence opened by a pronoun keeps the name it refers to
    as the one the next sentences refer to (the text goes on about the same person)."""
    found: dict[str, frozenset[str]] = {}
    last: frozenset[str] = frozenset()
    since = 0
    for text in sentences:
        pronoun = _PRONOUN.search(text)
        start, name = _first_name(text)
        refers = pronoun is not None and (start < 0 or pronoun.start() < start)
        if refers and last and since <= REFERENT_REACH:
            found[text] = last
            since = 0
        elif name:
            last, since = name, 0
        else:
            since += 1
    return found


# A count the statement makes good itself by naming what it counts ("two students, Larry Page
# and Sergey Brin"): the names, each checked as a name, carry the figure.
_NAME = r"[A-Z][\w'\u2019.-]*(?:[ \t]+[A-Z][\w'\u2019.-]*)*"
_ENUMERATED = re.compile(
    rf"\b(?P<count>(?i:two|three|four|five|six)|[2-6])\b[^,.;:()]{{0,60}}?[,:(]?[ \t]*"
    rf"(?P<items>{_NAME}(?:,[ \t]*{_NAME})*,?[ \t]+(?:and|&)[ \t]+{_NAME})(?![ \t]*\w)"
)
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def enumerated_counts(statement: str) -> set[tuple[str, str]]:
    """The counts a statement lists as many names for, as figures ("2" for "two students,
    Larry Page and Sergey Brin"); a list of another length makes none."""
    found = set()
    for match in _ENUMERATED.finditer(statement):
        count = match.group("count").lower()
        number = _COUNTS.get(count) or int(count)
        items = re.split(r",[ \t]*(?:(?:and|&)[ \t]+)?|[ \t]+(?:and|&)[ \t]+", match["items"])
        if len([item for item in items if item.strip()]) == number:
            found.add((str(number), ""))
    return found


def _names_of(part: str) -> dict[str, str]:
    """The part's names, by their lower-case form."""
    return {name.lower(): name for name in entities(part, leading=True)}


def _named_otherwise(named: Mapping[str, str], quote: SourceSentence) -> set[str]:
    """The part's names the sentence gives another way: a people by its place ("Asian" for
    "Asia", and the reverse), a title or term it writes out in lower case ("CFO" for "chief
    financial officer")."""

    def given(lowered: str, name: str) -> bool:
        if any(canon(form) in quote.terms for form in place_forms(name)):
            return True
        return name.isupper() and len(name) >= 3 and lowered in spelled_in_lower_case(quote.text)

    return {lowered for lowered, name in named.items() if given(lowered, name)}


def _referent_reasons(part: str, quote: SourceSentence, referred: frozenset[str]) -> list[str]:
    """A sentence about someone named before is no support for someone else ("Martin Eberhard
    became chief executive" where "He became chief executive" is Elon Musk)."""
    if not referred:
        return []
    # The part's subject: the full name it opens with.
    subject = {word.lower() for word in opening_name(part)}
    # "Pierre Curie moved" where "She moved" is Marie Curie: a word of the subject's name
    # that is not the name the pronoun stands for.
    others = sorted(subject - referred - {word for word in subject if word in quote.terms})
    if others:
        speaks_of = " ".join(sorted(referred))
        return [f"entity: the sentence found speaks of '{speaks_of}', not '{others[0]}'"]
    return []


def check_part(
    part: str,
    quote: SourceSentence,
    also: set[tuple[str, str]] | None = None,
    *,
    years: frozenset[str] = frozenset(),
    dated: AbstractSet[tuple[str, str]] = frozenset(),
    page_days: AbstractSet[tuple[str, str]] = frozenset(),
    named: Callable[[str], bool] | None = None,
    spelled: Callable[[], frozenset[str]] = frozenset,
    referred: frozenset[str] = frozenset(),
) -> Part:
    """One part against one sentence: the terms it carries, and the vetoes. A figure may also
    be in `also` (the part's other sentences, the source's datelines), never anywhere else;
    a day without a year in the sentence ("April 9th") takes the `years` of the datelines, and
    "last year" counts from them; a month still to come, the year after the `dated` month;
    a weekday, the last such day on or before a `dated` day.
    On a page about one day (`page_days`), a year of the sentence is that day's year.
    `named` says whether the source gives a name whole (a surname then stands for it);
    `spelled` holds the acronyms the source spells out; `referred`, the words of the name the
    sentence refers to by a pronoun (`referents`)."""
    wanted = wanted_words(part)
    missing = tuple(word for word in wanted if not present(canon(word), quote.terms))
    if missing:
        carried = names_carried(part, quote, named or (lambda _name: False), spelled)
        names_of_part = _names_of(part)
        if referred:  # "Curie moved" where the sentence says "She moved"
            carried |= set(names_of_part) & referred
        carried |= _named_otherwise(names_of_part, quote)
        missing = tuple(word for word in missing if word not in carried)
    reasons_of_name = _referent_reasons(part, quote, referred)
    coverage = 1.0 if not wanted else (len(wanted) - len(missing)) / len(wanted)
    terms = {canon(word) for word in words(part)} | phrase_terms(part)
    own = figures(quote.text, source=True)

    def reachable(pooled: AbstractSet[tuple[str, str]]) -> set[tuple[str, str]]:
        available = set(own | pooled)
        if years:
            available |= with_year(available, years) | relative_years(quote.text, years)
        available |= coming_months(quote.text, own, dated) | weekdays(quote.text, dated)
        stated_years = {value for value, unit in own if not unit and _YEAR.fullmatch(value)}
        if page_days and stated_years:  # a page about October 6: its "In 1995, …" is 6 Oct 1995
            day = page_days | {(value[:2], "monthname") for value, _unit in page_days}
            available |= day | with_year(day, stated_years)
        return available | quarters(available)

    available = reachable(also or set())
    reasons = (
        _figure_reasons(part, available) + _polarity_reasons(part, quote, terms) + reasons_of_name
    )
    if not reasons and _other_year(part, quote.text):
        # The sentence places the event in another year, and the part's time is only another
        # sentence's ("moved to Paris in 1867" from "born in 1867" and "moved … in 1891").
        alone = reachable(dated)
        if not all(any(figure_matches(time, it) for it in alone) for time in _times_of(part)):
            reasons.append("figure: the sentence found dates it in another year")
    return Part(
        text=part,
        quote=quote.text,
        coverage=round(coverage, 3),
        missing=missing,
        reasons=tuple(reasons),
        wanted=len(wanted),
    )


def _rank(
    part: str, candidates: Sequence[SourceSentence], usable: Callable[[str], bool]
) -> list[SourceSentence]:
    wanted = {canon(word) for word in content_words(part)}
    numbers = {value for value, unit in figures(part) if unit not in _DATED}
    # A figure counts as shared where the sentence writes it in digits or in words ("fifth").
    spelled = {number: {canon(word) for word in number_words(number)} for number in numbers}
    scored: list[tuple[int, int, int, SourceSentence]] = []
    for index, candidate in enumerate(candidates):
        shared = len(wanted & candidate.terms)
        if numbers:
            shared += sum(
                1
                for number in numbers
                if number in candidate.text or spelled[number] & candidate.terms
            )
        if shared:
            # Of two sentences sharing as much, the one saying less is more about the part.
            scored.append((-shared, len(candidate.terms), index, candidate))
    scored.sort(key=lambda entry: entry[:3])
    ranked = (entry[3] for entry in scored if usable(entry[3].text))
    return [candidate for _, candidate in zip(range(CANDIDATES), ranked, strict=False)]


def _preference(found: Part) -> tuple[bool, float, int, int]:
    return (not found.vetoed, found.coverage, -len(found.reasons), -len(found.quote))


# A further sentence completes a part only when it carries this many of the words it lacks.
COMPLETING_WORDS = 2
# Sentences a part may rest on besides its own: support spread over up to three sentences.
MAX_ALSO = 2


def _in_time(stated: AbstractSet[tuple[str, str]]) -> set[tuple[str, str]]:
    return {
        (value, unit)
        for value, unit in stated
        if unit in _DATED or (not unit and _YEAR.fullmatch(value))
    }


def _dated_otherwise(part: str, other: SourceSentence) -> bool:
    """Whether a sentence places the part's event at another time: it gives a year or date and
    none of the part's ("In 1995, Alice in Chains released Grind" for "In 1969, Alice in
    Chains released Grind"), or another figure of the same unit (another version, count or
    amount). Such a sentence never lends the part more of its words than the part's own
    sentence carries: the event would be its, at its time."""
    wanted = _in_time(figures(part))
    theirs = _in_time(figures(other.text, source=True))
    # A sentence giving one of the part's times is of its event ("Born in 1867, she moved in
    # 1891" rests on the sentence of 1891 too).
    if bool(wanted and theirs) and not any(
        figure_matches(one, their) for one in wanted for their in theirs
    ):
        return True
    return _counted_otherwise(figures(part) - wanted, figures(other.text) - theirs)


def _counted_otherwise(
    wanted: AbstractSet[tuple[str, str]], theirs: AbstractSet[tuple[str, str]]
) -> bool:
    """Whether a sentence gives a figure of the part's unit and none of the part's figures of
    that unit ("Version 15 … introduced MERGE" is no sentence of PostgreSQL 16)."""
    for unit in {unit for _value, unit in wanted}:
        mine = {figure for figure in wanted if figure[1] == unit}
        other = {figure for figure in theirs if figure[1] == unit}
        if other and not any(figure_matches(one, it) for one in mine for it in other):
            return True
    return False


def _years(stated: AbstractSet[tuple[str, str]]) -> set[str]:
    return {value[:4] for value, _unit in _in_time(stated) if _YEAR.match(value[:4])}


def _times_of(part: str) -> set[tuple[str, str]]:
    return _in_time(figures(part))


def _other_year(part: str, text: str) -> bool:
    """Whether a sentence gives years and none of the part's."""
    wanted, theirs = _years(figures(part)), _years(figures(text, source=True))
    return bool(wanted and theirs) and not wanted & theirs


def _completed(
    found: Part,
    others: Sequence[SourceSentence],
    referred: Mapping[str, frozenset[str]],
) -> Part:
    """The part with the words its sentence lacks found in up to MAX_ALSO more sentences of
    the source (support spread over several, adjacent or not), each carrying enough of them
    and none carrying the part's event at another time."""
    terms = {canon(word) for word in words(found.text)} | phrase_terms(found.text)
    names_of_part = _names_of(found.text)
    denials: list[tuple[SourceSentence, list[str]]] = []
    for other in others:
        if len(found.also) >= MAX_ALSO or not found.missing:
            break
        # A sentence that says the opposite completes nothing; one that only lacks the part's
        # own negation may carry its other words.
        opposite = [
            reason
            for reason in _polarity_reasons(found.text, other, terms)
            if not reason.startswith(_NEGATES)
        ]
        given = _named_otherwise(names_of_part, other)
        carried = [
            word for word in found.missing if present(canon(word), other.terms) or word in given
        ]
        if len(carried) < found.wanted - len(found.missing):
            # A sentence lending fewer words than the part's own carries is not the event's:
            # its direction may be of something else ("temperatures fall" beside "larvae").
            opposite = [reason for reason in opposite if not reason.startswith(_OPPOSES)]
        if opposite:
            denials.append((other, opposite))
            continue
        if _referent_reasons(found.text, other, referred.get(other.text, frozenset())):
            continue  # its pronoun stands for someone the part does not name
        # The event is the other sentence's when it carries more of the part than the first.
        if len(carried) >= found.wanted - len(found.missing) and _dated_otherwise(
            found.text, other
        ):
            continue
        if len(carried) >= min(COMPLETING_WORDS, len(found.missing)) and len(carried) >= 1:
            missing = tuple(word for word in found.missing if word not in carried)
            coverage = (found.wanted - len(missing)) / found.wanted if found.wanted else 1.0
            found = Part(
                text=found.text,
                quote=found.quote,
                coverage=round(coverage, 3),
                missing=missing,
                reasons=found.reasons,
                wanted=found.wanted,
                also=(*found.also, other.text),
            )
    for other, opposite in denials:
        # What the part lacks, the source says only the opposite of ("walking lowered cancer
        # risk" where the page did not find a link between walking and cancer risk).
        if any(present(canon(word), other.terms) for word in found.missing):
            return Part(
                text=found.text,
                quote=found.quote,
                coverage=found.coverage,
                missing=found.missing,
                reasons=(*found.reasons, *opposite),
                wanted=found.wanted,
                also=(*found.also, other.text),
            )
    return found


def align(
    statement: str,
    sentences: Sequence[str],
    usable: Callable[[str], bool] = bool,
    source: str | None = None,
) -> Alignment:
    """Each part of the statement with its best sentence among `sentences` (any of them that
    is `usable`); `source` is their whole text (a surname stands for a name given there)."""
    prepared = [sentence(text) for text in sentences if text.strip()]
    dated = datelines(sentences)
    years = frozenset(value for value, unit in dated if not unit and _YEAR.fullmatch(value))
    page_days = days_of_page(sentences)
    whole = "\n".join(sentences) if source is None else source
    referred = referents(tuple(one.text for one in prepared))
    counted = enumerated_counts(statement)

    def spelled() -> frozenset[str]:
        return expansions(whole)

    def named(name: str) -> bool:
        return names_in(name, folded_source(whole))

    found = []
    for part in split_parts(statement):
        ranked = _rank(part, prepared, usable)
        wanted = {canon(word) for word in content_words(part)}
        # The part's other sentences that carry two of its terms may carry its figures.
        near = [one for one in ranked if len(wanted & one.terms) >= SHARED_FOR_FIGURES]
        also = dated.union(counted, *(figures(one.text, source=True) for one in near))
        tried = [
            check_part(
                part,
                candidate,
                also,
                years=years,
                dated=dated,
                page_days=page_days,
                named=named,
                spelled=spelled,
                referred=referred.get(candidate.text, frozenset()),
            )
            for candidate in ranked
        ]
        best = max(tried, key=_preference, default=None)
        # A sentence saying every word of the part with another figure is what the part
        # misstates ("published in 2013" where "… published in 1958"): it decides over a
        # sentence that shares less.
        contradicting = [
            one
            for one in tried
            if one.coverage >= 1.0
            and any(why.startswith("figure:") for why in one.reasons)
            and _dated_otherwise(part, sentence(one.quote))  # gives another, not none
        ]
        if best is not None and contradicting and best.coverage < 1.0:
            best = max(contradicting, key=_preference)
        if best is None:
            lacking = tuple(wanted_words(part))
            reasons = tuple(_figure_reasons(part, dated))  # no sentence has its figures
            best = Part(text=part, missing=lacking, reasons=reasons, wanted=len(lacking))
        elif best.missing and not best.vetoed:
            best = _completed(best, [one for one in ranked if one.text != best.quote], referred)
        found.append(best)
    return Alignment(parts=tuple(found))
