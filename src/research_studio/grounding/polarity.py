"""Polarity of a part against a sentence: a negation, a direction, the side a figure is said of.

A statement that negates what the source affirms, or affirms what it denies (a negation bears on
its clause to its end), says one direction where the sentence says the other ("higher" against
"lower", per word), or says a figure of the other side ("a net profit of $35 million" where the
sentence has "a net loss of $35 million"): each is a hard veto of the support check.
"""

from __future__ import annotations

from research_studio.grounding.source_sentences import SourceSentence, negated_terms_of
from research_studio.grounding.terms import (
    DIRECTIONS,
    canon,
    content_words,
    figure_contexts,
    negation_scope,
    negations,
)

NEGATES = "polarity: the statement negates"
OPPOSES = "polarity: the statement says"


def polarity_reasons(part: str, quote: SourceSentence, terms: set[str]) -> list[str]:
    reasons = []
    said_negated = negated_terms_of(part)
    # A negation bears on a term: the statement denies what the source affirms, or the reverse.
    denied = sorted(term for term in said_negated if term not in quote.negated)
    if denied:
        reasons.append(f"{NEGATES} what the source affirms ('{denied[0]}' is not negated there)")
    elif negations(part) and negations(part) % 2 != negations(quote.text) % 2:
        # A negation the source does not make ("is not", "not not"): the count decides.
        reasons.append(f"{NEGATES} what the source affirms")
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
                reasons.append(f"{OPPOSES} '{min(said)}' where the source says '{min(other_said)}'")
    return reasons or figure_polarity(part, quote.text)


def figure_polarity(part: str, source: str) -> list[str]:
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
