"""Citation accuracy in the style of DeepResearch Bench FACT, beside our deterministic audit.

Statement–source pairs come straight from result.json `statements` (each printed sentence with
the sources it cites). The judge reads each cited source's kept page text (sources/S<n>.txt) and
says whether it supports each statement citing it. Citation accuracy = supported / ALL pairs: a
pair no judge saw (no kept text, a failed call, no verdict) counts as unjudged, never as correct;
effective citations = supported pairs in the report.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field, computed_field

from research_studio.core.errors import ResearchStudioError
from research_studio.evaluation import prompts
from research_studio.evaluation.judging import Judge, JudgeFailure
from research_studio.evaluation.snapshots import RunOutput, VerdictStore
from research_studio.evaluation.verdicts import PASS_MARK, Check, not_measured, verdict
from research_studio.grounding.printed import statement_key
from research_studio.run.audit import audit_run

PAIRS_PER_CALL = 6  # small judges (the embedded model) list at most six items
MAX_PAGE_CHARS = 12_000
_WINDOW = 1_500


class PairVerdict(BaseModel):
    """The judge's verdict on one numbered statement."""

    statement: int
    supported: bool
    reason: str = ""


class CitationVerdicts(BaseModel):
    verdicts: list[PairVerdict]


class CitationPair(BaseModel):
    """One statement and one source it cites, with what it quoted from that source."""

    statement: str
    sid: str
    quotes: list[str] = Field(default_factory=list)
    supported: bool | None = None
    reason: str = ""


class AuditFigures(BaseModel):
    """What `research-studio audit` finds in the run folder (code, no model)."""

    ok: bool | None = None
    statements: int = 0
    statements_held: int = 0
    cross_validated_claims: int = 0
    claims_held: int = 0
    problems: list[str] = Field(default_factory=list)
    error: str | None = None


class CitationAccuracy(BaseModel):
    """FACT's two figures, the pairs behind them, and the audit beside them."""

    pairs: int = 0
    judged: int = 0
    supported: int = 0
    citation_accuracy: float | None = None
    effective_citations: int | None = None
    results: list[CitationPair] = Field(default_factory=list)
    audit: AuditFigures = Field(default_factory=AuditFigures)
    error: str | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def unjudged(self) -> int:
        """Pairs no judge gave a verdict on (they count against the accuracy)."""
        return self.pairs - self.judged


def citation_pairs(result: Mapping[str, Any]) -> list[CitationPair]:
    """Distinct (statement, cited source) pairs of the report's statements."""
    pairs: dict[tuple[str, str], CitationPair] = {}
    statements = result.get("statements")
    for record in statements if isinstance(statements, list) else []:
        if not isinstance(record, Mapping) or not isinstance(record.get("text"), str):
            continue
        quotes = [q for q in record.get("quotes") or [] if isinstance(q, Mapping)]
        for sid in record.get("sids") or []:
            key = (statement_key(record["text"]), str(sid))
            if key not in pairs:
                own = [str(q.get("quote", "")) for q in quotes if q.get("sid") == sid]
                pairs[key] = CitationPair(statement=record["text"], sid=str(sid), quotes=own)
    return list(pairs.values())


def page_excerpt(page: str, quotes: Sequence[str], limit: int = MAX_PAGE_CHARS) -> str:
    """The page, or when it is long its start and the stretches around the quoted passages."""
    if len(page) <= limit:
        return page
    lowered = page.lower()
    spans = [(0, _WINDOW)]
    for quote in quotes:
        at = lowered.find(quote[:60].lower())
        if at >= 0:
            spans.append((max(0, at - _WINDOW), at + len(quote) + _WINDOW))
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return " […] ".join(page[start:end] for start, end in merged)[:limit]


def audit_figures(output: RunOutput) -> AuditFigures:
    """The deterministic audit of the run folder, as figures."""
    try:
        report = audit_run(output.folder)
    except ResearchStudioError as exc:
        return AuditFigures(error=str(exc))
    return AuditFigures(
        ok=report.ok,
        statements=len(report.statements),
        statements_held=sum(1 for check in report.statements if check.verdict == "holds"),
        cross_validated_claims=len(report.claims),
        claims_held=sum(1 for claim in report.claims if claim.verdict == "holds"),
        problems=report.problems,
    )


async def _judge_batch(
    judge: Judge, output: RunOutput, sid: str, batch: list[CitationPair], store: VerdictStore | None
) -> None:
    page = output.page(sid)
    if page is None:
        for pair in batch:
            pair.reason = "the source's page text was not kept"
        return
    source = next(
        (
            s
            for s in output.result.get("sources", [])
            if isinstance(s, Mapping) and s.get("sid") == sid
        ),
        {},
    )
    quotes = [quote for pair in batch for quote in pair.quotes]
    prompt = prompts.CITATION_PAIRS.format(
        sid=sid,
        title=source.get("title", ""),
        page=prompts.fenced(page_excerpt(page, quotes)),
        statements=prompts.numbered([pair.statement for pair in batch]),
    )
    try:
        answer = await judge.verdict(
            CitationVerdicts, prompts.messages(prompt), node="judge_citations", store=store
        )
    except JudgeFailure as exc:
        for pair in batch:
            pair.reason = f"judge failed ({getattr(exc, 'kind', 'error')}): {exc}"
        return
    by_number = {item.statement: item for item in answer.verdicts}
    for number, pair in enumerate(batch, 1):
        found = by_number.get(number)
        if found is None:
            pair.reason = "the judge gave no verdict"
        else:
            pair.supported, pair.reason = found.supported, found.reason


async def citation_accuracy(
    judge: Judge | None, output: RunOutput, store: VerdictStore | None = None
) -> CitationAccuracy:
    """Every pair judged against its source's kept text (without a judge: the audit only)."""
    pairs = citation_pairs(output.result)
    figures = CitationAccuracy(pairs=len(pairs), results=pairs, audit=audit_figures(output))
    if judge is None or not pairs:
        return figures
    by_source: dict[str, list[CitationPair]] = {}
    for pair in pairs:
        by_source.setdefault(pair.sid, []).append(pair)
    batches = [
        (sid, group[start : start + PAIRS_PER_CALL])
        for sid, group in by_source.items()
        for start in range(0, len(group), PAIRS_PER_CALL)
    ]
    await asyncio.gather(*(_judge_batch(judge, output, sid, b, store) for sid, b in batches))
    judged = [pair for pair in pairs if pair.supported is not None]
    supported = sum(1 for pair in judged if pair.supported)
    figures.judged, figures.supported = len(judged), supported
    figures.effective_citations = supported
    # Over every pair: an unjudged pair is not a correct one.
    figures.citation_accuracy = round(supported / len(pairs), 3) if judged else None
    if not judged:
        figures.error = pairs[0].reason or "no pair could be judged"
    return figures


def citation_checks(figures: CitationAccuracy, *, judged: bool) -> list[Check]:
    """Citation accuracy (when a judge ran) and the audit, as checks."""
    checks: list[Check] = []
    if judged:
        if figures.citation_accuracy is None:
            checks.append(
                not_measured(
                    "citation_accuracy",
                    "citations",
                    figures.error or "the report has no statement–source pair",
                    pairs=figures.pairs,
                )
            )
        else:
            accuracy = figures.citation_accuracy
            checks.append(
                Check(
                    name="citation_accuracy",
                    group="citations",
                    passed=accuracy >= PASS_MARK,
                    score=accuracy,
                    reason=(
                        f"{figures.supported}/{figures.pairs} pairs supported by their source "
                        f"({figures.judged} judged, {figures.unjudged} unjudged); "
                        f"{figures.effective_citations} effective citations"
                    ),
                    details={
                        "pairs": figures.pairs,
                        "judged": figures.judged,
                        "unjudged": figures.unjudged,
                        "effective_citations": figures.effective_citations,
                    },
                )
            )
    audit = figures.audit
    if audit.error:
        checks.append(not_measured("audit", "citations", audit.error))
    else:
        held = f"{audit.statements_held}/{audit.statements} cited statements hold"
        problems = (
            f"; {len(audit.problems)} problem(s): {audit.problems[0]}" if audit.problems else ""
        )
        check = verdict("audit", "citations", bool(audit.ok), held + problems)
        if audit.statements:
            check.score = round(audit.statements_held / audit.statements, 3)
        checks.append(check)
    return checks
