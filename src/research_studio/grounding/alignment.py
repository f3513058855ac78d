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

from research_studio.grounding.dates import (
    MONTH_WORDS,
    coming_months,
    days_of_page,
    quarters,
    relative_years,
    weekdays,
    with_year,
)
from research_studio.grounding.names import expansions, folded_source, names_in
from research_studio.grounding.part_figures import (
    DATED,
    YEAR,
    dated_otherwise,
    datelines,
    enumerated_counts,
    figure_reasons,
    in_time,
    other_year,
)
from research_studio.grounding.polarity import NEGATES, OPPOSES, polarity_reasons
from research_studio.grounding.referents import (
    named_otherwise,
    names_carried,
    names_of,
    referent_reasons,
    referents,
)
from research_studio.grounding.source_sentences import SourceSentence, present, sentence
from research_studio.grounding.terms import (
    canon,
    content_words,
    figure_matches,
    figures,
    is_unit_word,
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


# Words that place a part in time or discourse rather than say it: missing, they are no gap.
_WEAK = word_set(
    """during later prior next previous time times year years also again then once soon
    currently recently eventually subsequently initially originally reportedly officially
    still already new"""
)


_QUARTER_WORDS = frozenset({"quarter", "quarters", "fiscal"})


def wanted_words(part: str) -> list[str]:
    """The words of a part the source must carry: its content words, less the words that only
    place it in time, and the month of a date or the unit of a figure ("million dollars"):
    those are checked with their figure, whole."""
    stated = figures(part)
    dated = any(unit in DATED for _value, unit in stated)
    return [
        word
        for word in dict.fromkeys(content_words(part))
        if word not in _WEAK
        and not (dated and (word.rstrip(".") in MONTH_WORDS or word in _QUARTER_WORDS))
        and not (stated and is_unit_word(word))
    ]


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
        names_of_part = names_of(part)
        if referred:  # "Curie moved" where the sentence says "She moved"
            carried |= set(names_of_part) & referred
        carried |= named_otherwise(names_of_part, quote)
        missing = tuple(word for word in missing if word not in carried)
    reasons_of_name = referent_reasons(part, quote, referred)
    coverage = 1.0 if not wanted else (len(wanted) - len(missing)) / len(wanted)
    terms = {canon(word) for word in words(part)} | phrase_terms(part)
    own = figures(quote.text, source=True)

    def reachable(pooled: AbstractSet[tuple[str, str]]) -> set[tuple[str, str]]:
        available = set(own | pooled)
        if years:
            available |= with_year(available, years) | relative_years(quote.text, years)
        available |= coming_months(quote.text, own, dated) | weekdays(quote.text, dated)
        stated_years = {value for value, unit in own if not unit and YEAR.fullmatch(value)}
        if page_days and stated_years:  # a page about October 6: its "In 1995, …" is 6 Oct 1995
            day = page_days | {(value[:2], "monthname") for value, _unit in page_days}
            available |= day | with_year(day, stated_years)
        return available | quarters(available)

    available = reachable(also or set())
    reasons = (
        figure_reasons(part, available) + polarity_reasons(part, quote, terms) + reasons_of_name
    )
    if not reasons and other_year(part, quote.text):
        # The sentence places the event in another year, and the part's time is only another
        # sentence's ("moved to Paris in 1867" from "born in 1867" and "moved … in 1891").
        alone = reachable(dated)
        if not all(
            any(figure_matches(time, it) for it in alone) for time in in_time(figures(part))
        ):
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
    numbers = {value for value, unit in figures(part) if unit not in DATED}
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


def _completed(
    found: Part,
    others: Sequence[SourceSentence],
    referred: Mapping[str, frozenset[str]],
) -> Part:
    """The part with the words its sentence lacks found in up to MAX_ALSO more sentences of
    the source (support spread over several, adjacent or not), each carrying enough of them
    and none carrying the part's event at another time."""
    terms = {canon(word) for word in words(found.text)} | phrase_terms(found.text)
    names_of_part = names_of(found.text)
    denials: list[tuple[SourceSentence, list[str]]] = []
    for other in others:
        if len(found.also) >= MAX_ALSO or not found.missing:
            break
        # A sentence that says the opposite completes nothing; one that only lacks the part's
        # own negation may carry its other words.
        opposite = [
            reason
            for reason in polarity_reasons(found.text, other, terms)
            if not reason.startswith(NEGATES)
        ]
        given = named_otherwise(names_of_part, other)
        carried = [
            word for word in found.missing if present(canon(word), other.terms) or word in given
        ]
        if len(carried) < found.wanted - len(found.missing):
            # A sentence lending fewer words than the part's own carries is not the event's:
            # its direction may be of something else ("temperatures fall" beside "larvae").
            opposite = [reason for reason in opposite if not reason.startswith(OPPOSES)]
        if opposite:
            denials.append((other, opposite))
            continue
        if referent_reasons(found.text, other, referred.get(other.text, frozenset())):
            continue  # its pronoun stands for someone the part does not name
        # The event is the other sentence's when it carries more of the part than the first.
        if len(carried) >= found.wanted - len(found.missing) and dated_otherwise(found.text, other):
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
    years = frozenset(value for value, unit in dated if not unit and YEAR.fullmatch(value))
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
            and dated_otherwise(part, sentence(one.quote))  # gives another, not none
        ]
        if best is not None and contradicting and best.coverage < 1.0:
            best = max(contradicting, key=_preference)
        if best is None:
            lacking = tuple(wanted_words(part))
            reasons = tuple(figure_reasons(part, dated))  # no sentence has its figures
            best = Part(text=part, missing=lacking, reasons=reasons, wanted=len(lacking))
        elif best.missing and not best.vetoed:
            best = _completed(best, [one for one in ranked if one.text != best.quote], referred)
        found.append(best)
    return Alignment(parts=tuple(found))
