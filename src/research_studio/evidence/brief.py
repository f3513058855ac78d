"""The verbatim brief: quoted passages under the research questions they answer, led by the
passages that answer most of them. What a run shows when no model writes prose (extractive mode).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from research_studio.core.records import EvidenceRecord, StatementRecord
from research_studio.evidence.passages import is_safe_passage
from research_studio.grounding.printed import GroundedSection
from research_studio.grounding.quotes import tokens
from research_studio.grounding.statements import GroundedReport, passage
from research_studio.services.extraction import query_terms

PER_QUESTION = 4
PER_SOURCE = 4
SUMMARY_PASSAGES = 3
OTHER_HEADING = "Other relevant passages"


@dataclass(frozen=True)
class _Candidate:
    item: EvidenceRecord
    scores: tuple[float, ...]  # relevance to each question
    # Per question: (its own terms found, named by the item's question label): what sets apart
    # questions that share the request's words, so passages spread over the questions.
    specific: tuple[tuple[int, bool], ...] = ()

    @property
    def best(self) -> int:
        return max(
            range(len(self.scores)),
            key=lambda index: (
                *(self.specific[index] if self.specific else ()),
                self.scores[index],
                -index,
            ),
        )

    @property
    def answered(self) -> int:
        return sum(1 for score in self.scores if score > 0)


def _relevance(text: str, terms: Counter[str]) -> float:
    words = set(tokens(text))
    return sum(1.0 for term in terms if term in words) / max(1, len(terms))


def _own_terms(questions: list[str]) -> list[set[str]]:
    """Each question's words that not every question shares (the topic is everyone's)."""
    sets = [set(query_terms(question)) for question in questions]
    common = set.intersection(*sets) if len(sets) > 1 else set()
    return [terms - common for terms in sets]


def _candidates(
    evidence: Sequence[EvidenceRecord],
    questions: list[str],
    request: str,
    allowed: Sequence[str],
    *,
    safe_only: bool = True,
) -> list[_Candidate]:
    term_sets = [query_terms(question, request) for question in questions]
    own = _own_terms(questions)
    labels = [" ".join(question.lower().split()) for question in questions]
    seen: set[str] = set()
    found = []
    for item in evidence:
        quote = item["quote"].strip()
        if not item["quote_verified"] or quote.lower() in seen:
            continue
        if safe_only and not is_safe_passage(quote, allowed):
            continue
        seen.add(quote.lower())
        words = set(tokens(quote))
        label = " ".join(item["question"].lower().split())
        specific = tuple(
            (len(own[index] & words), label == labels[index]) for index in range(len(questions))
        )
        scores = tuple(_relevance(quote, terms) for terms in term_sets)
        found.append(_Candidate(item, scores, specific))
    return found


def _lead(candidates: list[_Candidate], limit: int, used: Counter[str]) -> list[_Candidate]:
    """Passages that answer most questions, taken only while every question keeps its sources.

    A question keeps at least two of its sources (all of them when it has fewer): the summary
    never takes what lets a question cite more than one source.
    """
    mine: dict[int, list[_Candidate]] = {}
    for candidate in candidates:
        if max(candidate.scores) > 0:
            mine.setdefault(candidate.best, []).append(candidate)

    def sources(group: list[_Candidate]) -> int:
        return len({candidate.item["sid"] for candidate in group})

    keep = {question: min(2, sources(group)) for question, group in mine.items()}
    broad = sorted(
        (candidate for candidate in candidates if max(candidate.scores) > 0),
        key=lambda candidate: (-candidate.answered, -sum(candidate.scores)),
    )
    chosen: list[_Candidate] = []
    for candidate in broad[: limit * 3]:
        if len(chosen) == limit or used[candidate.item["sid"]] >= PER_SOURCE:
            continue
        if candidate.item["sid"] in {pick.item["sid"] for pick in chosen}:
            continue  # one passage per source, so several sources speak
        group = mine[candidate.best]
        rest = [other for other in group if other is not candidate]
        if len(rest) == 0 or sources(rest) < keep[candidate.best]:
            continue
        mine[candidate.best] = rest
        chosen.append(candidate)
        used[candidate.item["sid"]] += 1
    return chosen


def _spread(candidates: list[_Candidate], limit: int, used: Counter[str]) -> list[_Candidate]:
    """The best candidates, taking one source at a time so several sources speak."""
    ranked = sorted(candidates, key=lambda candidate: -max(candidate.scores))
    chosen: list[_Candidate] = []
    sources_here: Counter[str] = Counter()
    while len(chosen) < limit:
        fresh = [
            candidate
            for candidate in ranked
            if candidate not in chosen and used[candidate.item["sid"]] < PER_SOURCE
        ]
        if not fresh:
            break
        pick = min(fresh, key=lambda candidate: sources_here[candidate.item["sid"]])
        chosen.append(pick)
        sources_here[pick.item["sid"]] += 1
        used[pick.item["sid"]] += 1
    return chosen


def verbatim_brief(
    title: str,
    request: str,
    questions: list[str],
    evidence: Sequence[EvidenceRecord],
    allowed_urls: Sequence[str],
    note: str,
) -> GroundedReport:
    """Passages under the questions they answer best; the summary answers most questions."""
    questions = [question for question in questions if question.strip()] or [request]
    candidates = _candidates(evidence, questions, request, allowed_urls)
    used: Counter[str] = Counter()
    report = GroundedReport(title=title)
    report.sections.append(GroundedSection(heading="About this report", intro=note))
    # The lead takes passages that answer most questions, never what a question needs to cite
    # more than one source.
    summary = _lead(candidates, SUMMARY_PASSAGES, used)
    report.summary = [passage("Summary", c.item["sid"], c.item["quote"]) for c in summary]
    rest = [candidate for candidate in candidates if candidate not in summary]
    for index, question in enumerate(questions):
        mine = [c for c in rest if c.best == index and c.scores[index] > 0]
        records: list[StatementRecord] = [
            passage(question, c.item["sid"], c.item["quote"])
            for c in _spread(mine, PER_QUESTION, used)
        ]
        if records:
            report.sections.append(GroundedSection(heading=question, bullets=records))
    return report


def for_writer(
    evidence: Sequence[EvidenceRecord], questions: list[str], request: str
) -> list[EvidenceRecord]:
    """The writer's evidence: each verified item under the research question it answers best
    (its own terms first, then the extraction's label), questions in plan order, sources taking
    turns within a question and across them (`_in_turn`): a writer that reads only the first
    items of each question still hears several sources, not the same one under every heading."""
    questions = [question for question in questions if question.strip()]
    if not questions:
        return list(evidence)
    best = {
        id(candidate.item): candidate.best
        for candidate in _candidates(evidence, questions, request, allowed=(), safe_only=False)
    }
    labels = {" ".join(question.lower().split()): n for n, question in enumerate(questions)}
    groups: dict[int, list[EvidenceRecord]] = {}
    for item in evidence:
        label = labels.get(" ".join(item["question"].lower().split()), len(questions))
        index = best.get(id(item), label)  # a repeated quote keeps its label
        question = questions[index] if index < len(questions) else item["question"]
        groups.setdefault(index, []).append(EvidenceRecord(**{**item, "question": question}))
    ordered = _in_turn([items for _index, items in sorted(groups.items())])
    return [item for items in ordered for item in items]


def _in_turn(groups: list[list[EvidenceRecord]]) -> list[list[EvidenceRecord]]:
    """Each group reordered place by place: the first place of every group (in group order),
    then the second, and so on, each taken by the group's item whose source has been placed
    least so far (ties: the group's own order). The first items of the questions then come
    from different sources where the evidence allows."""
    left = [list(items) for items in groups]
    placed: list[list[EvidenceRecord]] = [[] for _ in groups]
    heard: Counter[str] = Counter()
    while any(left):
        for index, items in enumerate(left):
            if items:
                pick = min(range(len(items)), key=lambda at: (heard[items[at]["sid"]], at))
                item = items.pop(pick)
                heard[item["sid"]] += 1
                placed[index].append(item)
    return placed
