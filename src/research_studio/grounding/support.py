"""Does a quote say what a statement says? A deterministic check of meaning, not identity.

`supports(statement, quote)` looks for the statement inside one window of the quote (one or two
adjacent sentences) and asks four things of it: most of the statement's content words are there
(inflections and a few synonyms folded by `terms.canon`), every figure is there with its unit,
the polarity is the same (negation, increase/decrease, before/after …), and every named entity
is there. Each failed test is a reason, said in words a reader can act on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from research_studio.core.chunking import split_sentences
from research_studio.grounding.addressing import addresses_reader
from research_studio.grounding.quotes import fold, page_blocks
from research_studio.grounding.terms import (
    DIRECTIONS,
    canon,
    content_words,
    entities,
    figures,
    negated_terms,
    negations,
    words,
)

MIN_COVERAGE = 0.6
WINDOW_SENTENCES = 2


@dataclass(frozen=True)
class Verdict:
    """Whether a quote supports a statement, why not, and the window of the quote checked."""

    ok: bool
    reasons: tuple[str, ...] = ()
    quote: str = ""
    coverage: float = 0.0
    missing: tuple[str, ...] = field(default=(), compare=False)

    def reason(self) -> str:
        """The reasons in one line (empty when it supports)."""
        return "; ".join(self.reasons)


def _present(term: str, available: set[str]) -> bool:
    if term in available:
        return True
    # A shared stem of five letters or more: "urbanisation" ~ "urbanised".
    return len(term) >= 5 and any(
        len(other) >= 5 and (other.startswith(term) or term.startswith(other))
        for other in available
    )


def _polarity_reasons(statement: str, window: str) -> list[str]:
    reasons = []
    if negations(statement) % 2 != negations(window) % 2:
        reasons.append("polarity: the statement negates what the source affirms, or the reverse")
    said = {canon(word) for word in words(statement)}
    source = {canon(word) for word in words(window)}
    for one, other in DIRECTIONS:
        for mine, opposite in ((one, other), (other, one)):
            if said & mine and not said & opposite and source & opposite and not source & mine:
                reasons.append(
                    f"polarity: the statement says '{min(said & mine)}' where the source says "
                    f"'{min(source & opposite)}'"
                )
    return reasons


def _figure_reasons(statement: str, window: str) -> list[str]:
    available = figures(window)
    reasons = []
    for value, unit in sorted(figures(statement)):
        matches = [their_unit for their_value, their_unit in available if their_value == value]
        shown = f"{value}{' ' + unit if unit else ''}"
        if not matches:
            reasons.append(f"figure: {shown} is not in the source")
        elif unit and unit not in matches:
            reasons.append(f"figure: the source has {value} but not as {unit}")
    return reasons


def check_window(statement: str, window: str) -> Verdict:
    """The four tests of one statement against one window of a quote."""
    wanted = list(dict.fromkeys(content_words(statement)))
    available = {canon(word) for word in words(window)}
    missing = [word for word in wanted if not _present(canon(word), available)]
    coverage = 1.0 if not wanted else (len(wanted) - len(missing)) / len(wanted)
    reasons = []
    if not wanted:
        reasons.append("terms: the statement has no content words to check")
    elif coverage < MIN_COVERAGE:
        reasons.append("terms: the source lacks " + ", ".join(f"'{word}'" for word in missing))
    negated = [word for word in negated_terms(statement) if word in missing]
    if negated and coverage >= MIN_COVERAGE:
        reasons.append(
            "terms: the source lacks what the statement negates: "
            + ", ".join(f"'{word}'" for word in negated)
        )
    reasons += _figure_reasons(statement, window)
    reasons += _polarity_reasons(statement, window)
    window_folded = fold(window)[0]
    lost = [name for name in entities(statement) if not _entity_in(name, window_folded)]
    # A capitalised first word the window lacks, where the window names someone the statement
    # does not, is one name put for another ("Honda plans …" for "Toyota plans …").
    statement_folded = fold(statement)[0]
    others = [n for n in entities(window, leading=True) if not _entity_in(n, statement_folded)]
    if others:
        lost += [
            name
            for name in entities(statement, leading=True)
            if name not in lost and canon(name) in {canon(word) for word in missing}
        ]
    if lost:
        reasons.append("entity: the source does not name " + ", ".join(f"'{n}'" for n in lost))
    return Verdict(
        ok=not reasons,
        reasons=tuple(reasons),
        quote=" ".join(window.split()),
        coverage=round(coverage, 3),
        missing=tuple(missing),
    )


def _entity_in(name: str, folded_window: str) -> bool:
    folded = fold(name)[0]
    return bool(re.search(rf"(?<![\w]){re.escape(folded)}", folded_window))


def windows(sentences: Sequence[str]) -> Iterable[str]:
    """One sentence, then two adjacent ones, of a block of sentences."""
    for size in range(1, WINDOW_SENTENCES + 1):
        for start in range(len(sentences) - size + 1):
            yield " ".join(sentences[start : start + size])


def _best(statement: str, candidates: Iterable[str]) -> Verdict:
    best: Verdict | None = None
    for window in candidates:
        verdict = check_window(statement, window)
        if verdict.ok:
            return verdict
        if best is None or (-verdict.coverage, len(verdict.reasons)) < (
            -best.coverage,
            len(best.reasons),
        ):
            best = verdict
    return best or Verdict(ok=False, reasons=("terms: the source has no text",))


def supports(statement: str, quote: str) -> Verdict:
    """Whether the quote, in one window of one or two of its sentences, carries the statement."""
    sentences = split_sentences(quote) or [quote]
    return _best(statement, windows(sentences))


def best_support(statement: str, text: str) -> Verdict:
    """The window of a whole page (sentences of one block) that best supports the statement;
    a sentence that addresses the reader or an AI is never support."""
    return _best(
        statement,
        (
            window
            for _, block in page_blocks(text)
            for window in windows(split_sentences(block))
            if not addresses_reader(window)
        ),
    )


def supporting(statement: str, quotes: Iterable[str]) -> list[str]:
    """The quotes that on their own support the statement."""
    return [quote for quote in quotes if supports(statement, quote).ok]
