"""Does a source support a statement? A deterministic check of meaning, not identity.

`supports(statement, quote)` and `best_support(statement, page)` split the statement into its
parts and find each part's best sentence anywhere in the source (`alignment.align`: several
sentences, adjacent or not). Hard vetoes refuse outright: a figure or unit that differs, a
flipped polarity or a negation the source does not make (each tested on the part's own
sentence), a name the source never gives or one person put for another ("Elon Musk" where the
sentence names the founders, "Okonkwo Achebe" for "Chinua Achebe"), a sentence that addresses
the reader or an AI.
Whether the parts are carried is then judged by a small logistic model over the alignment's
figures (`support_model.json`, a few weights fitted by `benchmarks/fit_support.py`; shipped
with the package, no download, no optional dependency). Every verdict says which part was
found in which sentence and, when it fails, which part failed and why.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from research_studio.core.chunking import split_sentences
from research_studio.core.errors import ConfigError
from research_studio.grounding.addressing import addresses_reader
from research_studio.grounding.alignment import Alignment, Part, align
from research_studio.grounding.names import (
    acronym_key,
    address_labels,
    adjective_names,
    expansions,
    folded_name,
    name_runs,
    named_in_address,
    names_in,
    opening_name,
    place_forms,
    run_acronyms,
    spelled_in_lower_case,
    written_acronyms,
)
from research_studio.grounding.names import folded_source as _folded
from research_studio.grounding.qualifiers import qualifier_reasons
from research_studio.grounding.quotes import CONNECTIVE_OPENERS, page_blocks
from research_studio.grounding.terms import content_words, entities, word_set

MODEL_FILE = "support_model.json"


@dataclass(frozen=True)
class Verdict:
    """Whether a source supports a statement, why not, and where each part was found."""

    ok: bool
    reasons: tuple[str, ...] = ()
    quote: str = ""
    coverage: float = 0.0
    missing: tuple[str, ...] = field(default=(), compare=False)
    parts: tuple[Part, ...] = field(default=(), compare=False)
    score: float = field(default=0.0, compare=False)

    def reason(self) -> str:
        """The reasons in one line (empty when it supports)."""
        return "; ".join(self.reasons)

    def explanation(self) -> list[str]:
        """Each part of the statement and where the source carries it, or why it does not."""
        lines = []
        for part in self.parts:
            where = f'found in "{part.quote}"' if part.quote else "found nowhere in the source"
            where += "".join(f' and "{other}"' for other in part.also)
            lacking = ", ".join(f"'{word}'" for word in part.missing)
            detail = "; ".join(part.reasons) or (f"lacks {lacking}" if lacking else "carried")
            lines.append(f'"{part.text}": {where} ({detail})')
        return lines


@lru_cache(maxsize=1)
def model() -> Mapping[str, float]:
    """The shipped weights of the decision (intercept, one weight per feature, threshold)."""
    try:
        file = resources.files("research_studio.grounding").joinpath(MODEL_FILE)
        weights = json.loads(file.read_text("utf-8"))["weights"]
        return {str(name): float(value) for name, value in weights.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        # Fail closed: without its weights the check cannot decide, so nothing is supported.
        raise ConfigError(
            f"the support check cannot load its weights ({MODEL_FILE}): reinstall research-studio"
        ) from None


def features(alignment: Alignment, statement: str) -> dict[str, float]:
    """What the decision weighs: how much of the statement and of its weakest part the source
    carries, the largest gap of one part, all that is missing, the names a part's sentence
    lacks, and the statement's length."""
    parts = alignment.parts
    wanted = max(1, sum(part.wanted for part in parts))
    names = {name.lower() for name in entities(statement, leading=True)}
    return {
        "coverage": alignment.coverage,
        "weakest_part": min((part.coverage for part in parts), default=0.0),
        "largest_gap": math.log1p(max((len(part.missing) for part in parts), default=0)),
        "missing": math.log1p(sum(len(part.missing) for part in parts)),
        "missing_names": float(sum(1 for part in parts for w in part.missing if w in names)),
        "length": math.log(wanted),
    }


def score(values: Mapping[str, float]) -> float:
    """The model's log-odds that the source carries the statement, less its threshold."""
    weights = model()
    total = weights["intercept"] - weights["threshold"]
    return total + sum(
        weight * values[name]
        for name, weight in weights.items()
        if name not in {"intercept", "threshold"}
    )


def _entity_in(name: str, folded_text: str) -> bool:
    """Whether the text names it, a plural or possessive as its singular ("Presidents'" for
    "President's")."""
    folded = folded_name(name)
    if re.search(rf"(?<![\w]){re.escape(folded)}", folded_text):
        return True
    singular = re.sub(r"(?<=[a-z]{4})(?:s'|'s|s)$", "", folded)
    return singular != folded and bool(
        re.search(rf"(?<![\w]){re.escape(singular)}(?:'s|s'|s)?(?![\w])", folded_text)
    )


# Capitalised words that are no names: dates (checked as figures) and sentence openers.
_NOT_NAMES = (
    word_set(
        """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday during after before since
    following despite throughout until unlike upon"""
    )
    | CONNECTIVE_OPENERS
)


def _names(text: str, *, leading: bool = False) -> list[str]:
    """A text's names (its first word too with `leading`), dates and openers left out."""
    return [
        name
        for name in entities(text, leading=leading)
        if name.lower() not in _NOT_NAMES or name.isupper()
    ]


def _abbreviated(statement: str, source: str) -> set[str]:
    """The statement's names the source gives another way: an acronym it spells out
    ("NASA" where the source says "National Aeronautics and Space Administration"), or the
    words of a name it writes only as an acronym (the reverse), or a name its web address
    writes joined."""
    spelled, written = expansions(source), written_acronyms(source)
    found = {name for name in _names(statement) if acronym_key(name) in spelled - {""}}
    # A title or term the source writes in lower case ("CFO", "chief financial officer").
    lower = spelled_in_lower_case(source)
    found |= {name for name in _names(statement) if acronym_key(name) in lower}
    # An acronym the source spells out stands for that name only: "Atlantis Institute of
    # Marine Science" is not the "Australian Institute of Marine Science (AIMS)".
    for run in name_runs(statement):
        if run_acronyms(run) & written - spelled:
            found.update(run)
    # A publication the source's own web address names ("The A.V. Club", "music.avclub.com").
    return found | named_in_address(statement, address_labels(source))


def _entity_reasons(statement: str, alignment: Alignment, source: str) -> list[str]:
    """Names of the statement the source never gives; or a first word the source lacks where
    the sentences found name someone the statement does not ("Honda plans …" for "Toyota
    plans …"): one name put for another. A name the source abbreviates, or spells out, it
    gives."""
    folded_source = _folded(source)
    # A first word that opens a run of names is a name too ("Emma Winslet earned …").
    named = _names(statement) + [
        word
        for run in name_runs(statement)
        for word in run
        if word[0].isupper() and word.lower() not in _NOT_NAMES
    ]
    lost = [name for name in dict.fromkeys(named) if not _entity_in(name, folded_source)]
    statement_folded = folded_name(statement)
    found = " ".join(alignment.quotes)
    if any(not _entity_in(name, statement_folded) for name in _names(found, leading=True)):
        lost += [
            name
            for name in _names(statement, leading=True)
            if name not in lost and not _entity_in(name, folded_source)
        ]
    if lost:  # a people for its place ("Asian demand" where the sentences found say "Asia")
        adjectives, folded_found = adjective_names(statement), folded_name(found)
        lost = [
            name
            for name in lost
            if name not in adjectives
            or not any(_entity_in(form, folded_found) for form in place_forms(name))
        ]
    if lost:
        other_way = _abbreviated(statement, source)
        lost = [name for name in lost if name not in other_way]
    if lost:
        return ["entity: the source does not name " + ", ".join(f"'{n}'" for n in lost)]
    return []


def _subject_reasons(statement: str, alignment: Alignment) -> list[str]:
    """One person put for another: a part opening with a full name its sentences never give,
    where they name someone else in full ("Elon Musk founded Tesla" where the sentence says
    "founded … by Martin Eberhard and Marc Tarpenning")."""
    folded = folded_name(statement)
    for part in alignment.parts:
        subject = opening_name(part.text)
        if not part.quote or not subject:
            continue
        if not all(word.lower() in part.missing for word in subject):
            continue
        found = " ".join(text for text in (part.quote, *part.also) if text)
        others = [run for run in name_runs(found) if not names_in(" ".join(run), folded)]
        if others:
            return [
                f"entity: the sentences found name {' '.join(others[0])}, not {' '.join(subject)}"
            ]
    return []


def _first_name_reasons(statement: str, alignment: Alignment) -> list[str]:
    """Another first name before the same surname: "Okonkwo Achebe" where the sentences found
    say "Chinua Achebe" (the first name alone may be elsewhere on the page)."""
    found = {text for part in alignment.parts for text in (part.quote, *part.also) if text}
    # A person's name: two words, a first name and a surname ("Team" ends many longer names).
    theirs = {
        run[-1].lower(): (run, text) for text in found for run in name_runs(text) if len(run) == 2
    }
    for run in name_runs(statement):
        other, text = theirs.get(run[-1].lower(), ((), ""))
        if len(run) != 2 or not other or other[0].lower() == run[0].lower():
            continue
        if not _entity_in(run[0], folded_name(text)):  # not also named in that sentence
            return [f"entity: '{' '.join(run)}' where the source says '{' '.join(other)}'"]
    return []


@dataclass(frozen=True)
class Assessment:
    """What the decision rests on: the alignment, the hard vetoes and the model's features."""

    alignment: Alignment
    vetoes: tuple[str, ...]
    features: Mapping[str, float]


def assess(statement: str, sentences: Sequence[str], source: str) -> Assessment:
    """The statement aligned with the source's sentences, its vetoes and its features."""
    alignment = align(statement, sentences, usable=_not_addressing, source=source)
    vetoes = [reason for part in alignment.parts for reason in part.reasons]
    vetoes += _entity_reasons(statement, alignment, source)
    vetoes += _subject_reasons(statement, alignment)
    vetoes += _first_name_reasons(statement, alignment)
    vetoes += qualifier_reasons(alignment)  # the southern reef is another entity than the northern
    return Assessment(alignment, tuple(dict.fromkeys(vetoes)), features(alignment, statement))


def judge(statement: str, sentences: Sequence[str], source: str) -> Verdict:
    """The statement against the sentences of one source (the whole text in `source`)."""
    if not content_words(statement):
        return Verdict(ok=False, reasons=("terms: the statement has no content words to check",))
    found = assess(statement, sentences, source)
    alignment = found.alignment
    margin = score(found.features)
    reasons = list(found.vetoes)
    weakest = min(alignment.parts, key=lambda part: part.coverage)
    # A refusal names what is missing too, vetoed or not, so a reader sees every gap.
    if margin < 0 or not alignment.quotes or (reasons and weakest.missing):
        lacking = ", ".join(f"'{word}'" for word in weakest.missing) or "its terms"
        reasons.append(f'terms: the source lacks {lacking} (of "{weakest.text}")')
    return Verdict(
        ok=not reasons,
        reasons=tuple(reasons),
        quote=" … ".join(alignment.quotes),
        coverage=round(alignment.coverage, 3),
        missing=tuple(alignment.missing),
        parts=alignment.parts,
        score=round(margin, 3),
    )


@lru_cache(maxsize=8192)
def _not_addressing(sentence: str) -> bool:
    """A sentence that addresses the reader or an AI is never support."""
    return not addresses_reader(sentence)


# A line break ends a sentence where the line ends as one or the next starts as one; a line
# that runs on in lower case is prose wrapped in its paragraph.
_LINE_END = re.compile(r"(?<=[.!?:;\"'\u201d)\]])[ \t]*\n|\n(?=[ \t]*[\"'(\[#*\u201c]?[A-Z0-9])")


# A month's abbreviation before a day ends no sentence ("Aug. 10, 2014").
_MONTH_STOP = re.compile(r"\b(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.$")


def _rejoined(sentences: Iterable[str]) -> Iterable[str]:
    pending = ""
    for sentence in sentences:
        if pending and sentence[:1].isdigit():
            sentence = f"{pending} {sentence}"
        elif pending:
            yield pending
        pending = sentence
        if not _MONTH_STOP.search(sentence):
            yield sentence
            pending = ""
    if pending:
        yield pending


@lru_cache(maxsize=64)
def sentences_of(text: str) -> tuple[str, ...]:
    """The sentences of a text, block by block and line by line (a title line, a caption or
    a dateline is a sentence of its own, never glued to the prose after it)."""
    return tuple(
        sentence
        for _, block in page_blocks(text)
        for line in _LINE_END.split(block)
        for sentence in _rejoined(split_sentences(line))
    )


def supports(statement: str, quote: str) -> Verdict:
    """Whether the quote carries the statement: each part in one of its sentences."""
    return judge(statement, sentences_of(quote) or (quote,), quote)


def supports_jointly(statement: str, quotes: Sequence[str]) -> Verdict:
    """Whether several quotes of one source together carry the statement (facts joined from
    two passages): each part in one of their sentences, never a figure pooled across them."""
    sentences = [sentence for quote in quotes for sentence in sentences_of(quote) or (quote,)]
    return judge(statement, sentences, "\n\n".join(quotes))


def best_support(statement: str, text: str) -> Verdict:
    """Whether a whole page carries the statement, and the sentences that do."""
    return judge(statement, sentences_of(text), text)


def supporting(statement: str, quotes: Iterable[str]) -> list[str]:
    """The quotes that on their own support the statement."""
    return [quote for quote in quotes if supports(statement, quote).ok]
