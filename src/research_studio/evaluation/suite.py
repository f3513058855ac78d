"""An evaluation: cases × pipelines, run live or read from snapshots, scored, costed."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from research_studio.core.config import Configuration
from research_studio.core.errors import ResearchStudioError
from research_studio.evaluation.behavioral import ONE_RUN, behavioral_checks, check_run
from research_studio.evaluation.cases import EvalCase, PipelineChoice, case_checks
from research_studio.evaluation.citations import (
    CitationAccuracy,
    citation_accuracy,
    citation_checks,
)
from research_studio.evaluation.execution import EventFn, Executor
from research_studio.evaluation.judges import judge_checks
from research_studio.evaluation.judging import Judge
from research_studio.evaluation.snapshots import (
    RunOutput,
    VerdictStore,
    find_snapshots,
    load_output,
    save_info,
    snapshot_folder,
)
from research_studio.evaluation.structural import structural_checks
from research_studio.evaluation.verdicts import Check, Costs, mean, pass_ratio

ProgressFn = Callable[[str], None]
Components = dict[str, float | None]


class CaseResult(BaseModel):
    """One case through one pipeline: every check, the citation figures, the score, the cost."""

    case_id: str
    pipeline: str
    query: str = ""
    status: str = "completed"
    error: str | None = None
    folder: str = ""
    judge: str | None = None
    checks: list[Check] = Field(default_factory=list)
    citations: CitationAccuracy | None = None
    components: Components = Field(default_factory=dict)
    score: float | None = None
    run_costs: Costs = Field(default_factory=Costs)

    def group(self, *groups: str) -> list[Check]:
        return [check for check in self.checks if check.group in groups]


class EvalReport(BaseModel):
    """Everything an evaluation found (results.json)."""

    created: str = Field(
        default_factory=lambda: dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    )
    source: Literal["live", "snapshots"] = "live"
    snapshots: str = ""
    judges: list[str] = Field(default_factory=list)
    results: list[CaseResult] = Field(default_factory=list)
    behavioral: dict[str, list[Check]] = Field(default_factory=dict)
    run_costs: Costs = Field(default_factory=Costs)
    judging_costs: Costs = Field(default_factory=Costs)
    verdicts_reused: int = 0


@dataclass
class EvalPlan:
    """What to evaluate and how."""

    cases: list[EvalCase]
    snapshots: Path
    pipelines: list[PipelineChoice] | None = None  # None from snapshots: every one kept
    live: bool = True
    judge: str | None = None  # None: no judge evaluators (unless a snapshot names its judge)
    use_recorded_judges: bool = False
    rejudge: bool = False  # ask the judge again instead of reusing kept verdicts
    behavioral: bool = False
    ambiguous_queries: list[str] = field(default_factory=list)
    catalog: list[EvalCase] = field(default_factory=list)  # every known case, to re-read snapshots


def components(result: CaseResult) -> Components:
    """The four parts of a score: structural, run checks, judges, citation accuracy."""
    figures = result.citations
    return {
        "structural": pass_ratio(result.group("structural")),
        "checks": pass_ratio(result.group("case", "behavioral")),
        "judges": mean(check.score for check in result.group("judge")),
        "citation_accuracy": figures.citation_accuracy if figures else None,
    }


async def score_output(
    case: EvalCase, output: RunOutput, judge: Judge | None, *, rejudge: bool = False
) -> CaseResult:
    """Every evaluator on one run output (judge evaluators only with a judge)."""
    result = CaseResult(
        case_id=case.id,
        pipeline=output.info.pipeline,
        query=output.info.query,
        status=output.info.status,
        error=output.info.error,
        folder=str(output.folder),
        judge=judge.spec if judge else None,
        run_costs=output.info.costs,
    )
    if not output.completed:
        result.error = result.error or f"the run ended as {output.info.status}"
        return result
    document = output.result
    result.checks = structural_checks(document, min_words=case.expect.min_words)
    result.checks += case_checks(case, document, flagged_ambiguous=output.info.flagged_ambiguous)
    result.checks += [check_run(name, output) for name in ONE_RUN]
    store = VerdictStore(output.folder, reuse=not rejudge)
    if judge is not None:
        result.checks += await judge_checks(judge, output, store, aspects=case.aspects)
    result.citations = await citation_accuracy(judge, output, store)
    result.checks += citation_checks(result.citations, judged=judge is not None)
    store.save()
    if judge is not None and output.info.judge != judge.spec:
        save_info(output.folder, output.info.model_copy(update={"judge": judge.spec}))
    result.components = components(result)
    result.score = mean(result.components.values())
    return result


def _failed(case: EvalCase, pipeline: str, error: str, folder: Path) -> CaseResult:
    return CaseResult(
        case_id=case.id,
        pipeline=pipeline,
        query=case.query,
        status="failed",
        error=error,
        folder=str(folder),
    )


def _stored_case(output: RunOutput, cases: dict[str, EvalCase]) -> EvalCase:
    """The case as the cases file says now, else as it was when the snapshot was made."""
    if output.info.case_id in cases:
        return cases[output.info.case_id]
    try:
        return EvalCase.model_validate(output.info.case)
    except ValidationError:
        return EvalCase(id=output.info.case_id, query=output.info.query or "?")


class _Judges:
    """One Judge per model spec, built when first needed."""

    def __init__(self, config: Configuration) -> None:
        self.config = config
        self.by_spec: dict[str, Judge] = {}

    def get(self, spec: str | None) -> Judge | None:
        if spec is None:
            return None
        if spec not in self.by_spec:
            self.by_spec[spec] = Judge(spec, self.config)
        return self.by_spec[spec]

    async def aclose(self) -> None:
        for judge in self.by_spec.values():
            await judge.aclose()


def _snapshot_targets(plan: EvalPlan) -> list[tuple[EvalCase | None, str, Path]]:
    """(case, pipeline label, folder) of every snapshot to re-score."""
    if plan.pipelines is None and not plan.cases:
        return [(None, folder.name, folder) for folder in find_snapshots(plan.snapshots)]
    pipelines = plan.pipelines
    targets: list[tuple[EvalCase | None, str, Path]] = []
    for case in plan.cases:
        if pipelines is None:
            found = sorted(path for path in (plan.snapshots / case.id).glob("*") if path.is_dir())
            targets += [(case, folder.name, folder) for folder in found]
        else:
            targets += [
                (case, p.label, snapshot_folder(plan.snapshots, case.id, p.folder))
                for p in pipelines
            ]
    return targets


async def run_eval(
    plan: EvalPlan,
    base: Configuration,
    *,
    on_progress: ProgressFn | None = None,
    on_event: EventFn | None = None,
) -> EvalReport:
    """Run (or re-read) every case through every pipeline and score it; failures are recorded."""
    say = on_progress or (lambda _message: None)
    report = EvalReport(source="live" if plan.live else "snapshots", snapshots=str(plan.snapshots))
    judges = _Judges(base)
    try:
        if plan.live:
            await _run_live(
                plan, Executor(base, plan.snapshots, on_event=on_event), judges, report, say
            )
        else:
            await _rescore(plan, judges, report, say)
    finally:
        await judges.aclose()
    report.judges = sorted(judges.by_spec)
    for judge in judges.by_spec.values():
        report.judging_costs = report.judging_costs.plus(judge.costs())
        report.verdicts_reused += judge.reused
    return report


async def _run_live(
    plan: EvalPlan, executor: Executor, judges: _Judges, report: EvalReport, say: ProgressFn
) -> None:
    pipelines = plan.pipelines or [PipelineChoice("standard")]
    targets = [(case, pipeline) for case in plan.cases for pipeline in pipelines]
    for number, (case, pipeline) in enumerate(targets, 1):
        label = f"[{number}/{len(targets)}] {case.id} × {pipeline.label}"
        say(f"{label}: running")
        folder = snapshot_folder(plan.snapshots, case.id, pipeline.folder)
        output = await executor.run_case(case, pipeline, folder)
        report.results.append(
            await _score(case, output, judges.get(plan.judge), label, say, plan.rejudge)
        )
    if plan.behavioral and plan.cases:
        for pipeline in pipelines:
            say(f"behavioral evaluators × {pipeline.label}: running")
            report.behavioral[pipeline.label] = await behavioral_checks(
                executor,
                query=plan.cases[0].query,
                pipeline=pipeline,
                settings=plan.cases[0].settings,
                ambiguous_queries=plan.ambiguous_queries,
            )
    report.run_costs = executor.costs


async def _rescore(plan: EvalPlan, judges: _Judges, report: EvalReport, say: ProgressFn) -> None:
    by_id = {case.id: case for case in [*plan.catalog, *plan.cases]}
    targets = _snapshot_targets(plan)
    if not targets:
        raise ResearchStudioError(f"no snapshots to re-score in {plan.snapshots}")
    for number, (wanted, pipeline, folder) in enumerate(targets, 1):
        label = f"[{number}/{len(targets)}] {folder.parent.name} × {pipeline}"
        try:
            output = load_output(folder)
        except ResearchStudioError as exc:
            say(f"{label}: failed: {exc}")
            case = wanted or EvalCase(id=folder.parent.name, query="?")
            report.results.append(_failed(case, pipeline, str(exc), folder))
            continue
        case = wanted or _stored_case(output, by_id)
        spec = plan.judge
        if spec is None and plan.use_recorded_judges:
            spec = output.info.judge
        report.results.append(
            await _score(case, output, judges.get(spec), label, say, plan.rejudge)
        )
        report.run_costs = report.run_costs.plus(output.info.costs)


async def _score(
    case: EvalCase,
    output: RunOutput,
    judge: Judge | None,
    label: str,
    say: ProgressFn,
    rejudge: bool,
) -> CaseResult:
    if not output.completed:
        say(f"{label}: failed: {output.info.error or output.info.status}")
        return await score_output(case, output, judge)
    if judge is not None:
        say(f"{label}: judging with {judge.spec}")
    try:
        result = await score_output(case, output, judge, rejudge=rejudge)
    except ResearchStudioError as exc:  # scoring one case must not end the evaluation
        say(f"{label}: scoring failed: {exc}")
        return _failed(case, output.info.pipeline, f"scoring failed: {exc}", output.folder)
    score = "n/a" if result.score is None else f"{result.score:.2f}"
    say(f"{label}: score {score}")
    return result


def results_for(report: EvalReport, pipeline: str) -> Sequence[CaseResult]:
    return [result for result in report.results if result.pipeline == pipeline]


def pipeline_means(report: EvalReport) -> dict[str, dict[str, Any]]:
    """Per pipeline: the mean score over scored cases, and how many failed."""
    means: dict[str, dict[str, Any]] = {}
    for label in dict.fromkeys(result.pipeline for result in report.results):
        rows = results_for(report, label)
        means[label] = {
            "score": mean(row.score for row in rows),
            "cases": len(rows),
            "failed": sum(1 for row in rows if row.status != "completed"),
        }
    return means
