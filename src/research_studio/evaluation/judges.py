"""Five judge evaluators: relevance, groundedness, completeness, quality, citation faithfulness.

The judge answers in pydantic schemas; code does the counting (ratios, averages, which ids exist).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from research_studio.evaluation import prompts
from research_studio.evaluation.judging import Judge, JudgeFailure, judge_failed
from research_studio.evaluation.snapshots import RunOutput, VerdictStore
from research_studio.evaluation.structural import report_body
from research_studio.evaluation.verdicts import PASS_MARK, Check, mean, not_measured, one_to_five

MAX_CLAIMS = 30
_EID = re.compile(r"E\d+")


class SectionScore(BaseModel):
    """How well one numbered section answers the question."""

    section: int
    score: int = Field(ge=1, le=5)
    reason: str = ""


class RelevanceVerdict(BaseModel):
    sections: list[SectionScore]


class JudgedClaim(BaseModel):
    """A factual claim of the report and whether the run's evidence supports it."""

    claim: str
    grounded: bool
    evidence_ids: list[str] = Field(default_factory=list)
    reason: str = ""


class GroundednessVerdict(BaseModel):
    claims: list[JudgedClaim]


class CompletenessVerdict(BaseModel):
    covered: list[int] = Field(default_factory=list)
    missed: list[int] = Field(default_factory=list)
    score: int = Field(ge=1, le=5)
    reason: str = ""


class QualityVerdict(BaseModel):
    research_depth: int = Field(ge=1, le=5)
    source_diversity: int = Field(ge=1, le=5)
    analytical_rigor: int = Field(ge=1, le=5)
    clarity: int = Field(ge=1, le=5)
    citation_integration: int = Field(ge=1, le=5)
    reason: str = ""


class FaithfulnessVerdict(BaseModel):
    score: int = Field(ge=1, le=5)
    problems: list[str] = Field(default_factory=list)
    reason: str = ""


def _rated(name: str, rating: float, reason: str, **details: Any) -> Check:
    score = one_to_five(rating)
    return Check(
        name=name,
        group="judge",
        passed=score >= PASS_MARK,
        score=score,
        reason=reason,
        details={"rating": round(rating, 2), **details},
    )


def _body(output: RunOutput) -> str:
    return prompts.fenced(report_body(output.result), prompts.MAX_REPORT_CHARS)


def _records(output: RunOutput, key: str) -> list[Mapping[str, Any]]:
    value = output.result.get(key)
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def planned_questions(output: RunOutput, aspects: Sequence[str] = ()) -> list[str]:
    """What the report should answer: the run's plan, else its evidence questions; the case's aspects."""
    plan = list(output.info.plan) or [
        str(item.get("question")) for item in _records(output, "evidence") if item.get("question")
    ]
    return list(dict.fromkeys(item.strip() for item in [*plan, *aspects] if item.strip()))[:12]


async def judge_relevance(judge: Judge, output: RunOutput, store: VerdictStore | None) -> Check:
    """1–5 per section of the report: does it answer the question? The mean of the sections."""
    name = "relevance"
    sections = prompts.report_sections(report_body(output.result))
    if not sections:
        return not_measured(name, "judge", "the report has no section to rate")
    prompt = prompts.RELEVANCE.format(
        query=output.info.query, sections=prompts.section_blocks(sections)
    )
    try:
        answer = await judge.verdict(
            RelevanceVerdict, prompts.messages(prompt), node="judge_relevance", store=store
        )
    except JudgeFailure as exc:
        return judge_failed(name, "judge", exc)
    scores = {item.section: item for item in answer.sections if 1 <= item.section <= len(sections)}
    if not scores:
        return not_measured(name, "judge", "the judge rated no section of the report")
    rating = sum(item.score for item in scores.values()) / len(scores)
    per_section = {sections[number - 1][0]: item.score for number, item in sorted(scores.items())}
    return _rated(
        name,
        rating,
        f"{rating:.1f}/5 over {len(scores)} of {len(sections)} section(s)",
        sections=per_section,
    )


async def judge_groundedness(judge: Judge, output: RunOutput, store: VerdictStore | None) -> Check:
    """Claims taken from the report, each checked against the run's evidence: grounded / total."""
    name = "groundedness"
    evidence = _records(output, "evidence")
    prompt = prompts.GROUNDEDNESS.format(
        max_claims=MAX_CLAIMS, report=_body(output), evidence=prompts.evidence_block(evidence)
    )
    try:
        answer = await judge.verdict(
            GroundednessVerdict, prompts.messages(prompt), node="judge_groundedness", store=store
        )
    except JudgeFailure as exc:
        return judge_failed(name, "judge", exc)
    claims = answer.claims[:MAX_CLAIMS]
    if not claims:
        return not_measured(name, "judge", "the judge found no factual claim in the report")
    known = {str(item.get("eid")) for item in evidence}
    # Code holds the judge to its word: a grounded claim must name evidence the run has.
    grounded = [
        claim
        for claim in claims
        if claim.grounded
        and any(eid in known for eid in _EID.findall(" ".join(claim.evidence_ids)))
    ]
    ungrounded = [claim.claim for claim in claims if claim not in grounded]
    ratio = round(len(grounded) / len(claims), 3)
    return Check(
        name=name,
        group="judge",
        passed=ratio >= PASS_MARK,
        score=ratio,
        reason=f"{len(grounded)}/{len(claims)} claims grounded in the run's evidence",
        details={"grounded": len(grounded), "claims": len(claims), "ungrounded": ungrounded[:10]},
    )


async def judge_completeness(
    judge: Judge, output: RunOutput, store: VerdictStore | None, aspects: Sequence[str] = ()
) -> Check:
    """The report against the planned questions: covered and missed lists, 1–5."""
    name = "completeness"
    plan = planned_questions(output, aspects)
    if not plan:
        return not_measured(name, "judge", "no planned questions to check the report against")
    prompt = prompts.COMPLETENESS.format(
        query=output.info.query, plan=prompts.numbered(plan), report=_body(output)
    )
    try:
        answer = await judge.verdict(
            CompletenessVerdict, prompts.messages(prompt), node="judge_completeness", store=store
        )
    except JudgeFailure as exc:
        return judge_failed(name, "judge", exc)
    covered = [plan[n - 1] for n in dict.fromkeys(answer.covered) if 1 <= n <= len(plan)]
    missed = [question for question in plan if question not in covered]
    return _rated(
        name,
        answer.score,
        f"{answer.score}/5; covers {len(covered)} of {len(plan)} planned question(s)",
        covered=covered,
        missed=missed,
    )


async def judge_quality(judge: Judge, output: RunOutput, store: VerdictStore | None) -> Check:
    """Five 1–5 ratings (depth, source diversity, rigor, clarity, citation integration), averaged."""
    name = "quality"
    cited = {sid for record in _records(output, "statements") for sid in record.get("sids") or []}
    prompt = prompts.QUALITY.format(
        query=output.info.query,
        sources=len(_records(output, "sources")),
        cited=len(cited),
        report=_body(output),
    )
    try:
        answer = await judge.verdict(
            QualityVerdict, prompts.messages(prompt), node="judge_quality", store=store
        )
    except JudgeFailure as exc:
        return judge_failed(name, "judge", exc)
    parts = answer.model_dump(exclude={"reason"})
    rating = sum(parts.values()) / len(parts)
    return _rated(name, rating, f"{rating:.1f}/5 averaged over {len(parts)} ratings", **parts)


async def judge_citation_faithfulness(
    judge: Judge, output: RunOutput, store: VerdictStore | None
) -> Check:
    """Do the inline citations say what their sources say? 1–5."""
    name = "citation_faithfulness"
    statements = [record for record in _records(output, "statements") if record.get("sids")]
    if not statements:
        return not_measured(name, "judge", "the report cites nothing")
    prompt = prompts.FAITHFULNESS.format(
        report=_body(output), passages=prompts.passages_block(statements)
    )
    try:
        answer = await judge.verdict(
            FaithfulnessVerdict, prompts.messages(prompt), node="judge_faithfulness", store=store
        )
    except JudgeFailure as exc:
        return judge_failed(name, "judge", exc)
    problems = "; ".join(answer.problems[:3])
    return _rated(
        name,
        answer.score,
        f"{answer.score}/5" + (f"; problems: {problems}" if problems else ""),
        problems=answer.problems,
    )


async def judge_checks(
    judge: Judge,
    output: RunOutput,
    store: VerdictStore | None = None,
    *,
    aspects: Sequence[str] = (),
) -> list[Check]:
    """The five judge evaluators of one run (a failed judge is a check that says so)."""
    return list(
        await asyncio.gather(
            judge_relevance(judge, output, store),
            judge_groundedness(judge, output, store),
            judge_completeness(judge, output, store, aspects),
            judge_quality(judge, output, store),
            judge_citation_faithfulness(judge, output, store),
        )
    )


def judge_score(checks: Sequence[Check]) -> float | None:
    """The mean of the judge scores that were measured."""
    return mean(check.score for check in checks if check.group == "judge")
