"""The verbatim brief: quoted passages under the research questions they answer, led by the
passages that answer most of them. What a run shows when no model writes prose (extractive mode).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from research_studio.core.records import EvidenceRecord, StatementRecord
from research_studio.evidence.passages import is_safe_passage
from research_studio.grounding.quotes import tokens
from research_studio.grounding.statements import GroundedReport, GroundedSection, passage
from research_studio.services.extraction import query_terms

PER_QUESTION = 4
PER_SOURCE = 4
SUMMARY_PASSAGES = 3
OTHER_HEADING = "Other relevant passages"


@dataclass(frozen=True)
class _Candidate:
    item: EvidenceRecord
    scores: tuple[float, ...]  # relevance to each question

    @property
    def best(self) -> int:
        return max(range(len(self.scores)), key=lambda index: self.scores[index])

    @property
    def answered(self) -> int:
        return sum(1 for score in self.scores if score > 0)


def _relevance(text: str, terms: Counter[str]) -> float:
    words = set(tokens(text))
    return sum(1.0 for term in terms if term in words) / max(1, len(terms))


def _candidates(
    evidence: Sequence[EvidenceRecord], questions: list[str], request: str, allowed: Sequence[str]
) -> list[_Candidate]:
    term_sets = [query_terms(question, request) for question in questions]
    seen: set[str] = set()
    found = []
    for item in evidence:
        quote = item["quote"].strip()
        if not item["quote_verified"] or quote.lower() in seen:
            continue
        if not is_safe_passage(quote, allowed):
            continue
        seen.add(quote.lower())
        found.append(_Candidate(item, tuple(_relevance(quote, terms) for terms in term_sets)))
    return found


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
    # The lead takes passages that answer most questions, never a question's only passage.
    per_question = Counter(candidate.best for candidate in candidates if max(candidate.scores) > 0)
    spare = [candidate for candidate in candidates if per_question[candidate.best] > 1]
    broad = sorted(spare, key=lambda candidate: (-candidate.answered, -sum(candidate.scores)))
    summary = _spread(broad[: SUMMARY_PASSAGES * 3], SUMMARY_PASSAGES, used)
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
