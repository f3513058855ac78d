"""Seven behavioral evaluators: do the pipelines' design features work when the pipelines run?

Each runs pipelines through a `RunFn` (the evaluation executor: the real runner in a run folder)
and checks what the runs show. Three of them are also plain checks of one finished run.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from research_studio.evaluation.cases import PipelineChoice
from research_studio.evaluation.evaluators import not_applicable, round_setting
from research_studio.evaluation.execution import RunFn, RunRequest
from research_studio.evaluation.snapshots import RunOutput
from research_studio.evaluation.structural import (
    check_citations_map_to_sources,
    check_evidence_populated,
    check_no_empty_report,
    check_report_has_markdown_structure,
    report_body,
)
from research_studio.evaluation.verdicts import Check, not_measured, verdict
from research_studio.pipelines.registry import spec

LOOP_SETTINGS = {"min_coverage": 1.0, "min_confidence": 1.0}  # only the cap or the model stops
_BULLET = re.compile(r"^\s*[-*]\s+\S")
_CITED = re.compile(r"\[(S\d+)\]")


class MemoRun:
    """A RunFn that runs each distinct request once, so evaluators can share runs."""

    def __init__(self, run: RunFn) -> None:
        self._run = run
        self._done: dict[str, RunOutput] = {}

    async def __call__(self, request: RunRequest) -> RunOutput:
        key = request.key()
        if key not in self._done:
            self._done[key] = await self._run(request)
        return self._done[key]


def _looped(asked: RunRequest, rounds: int) -> RunRequest:
    """The request as a run of up to `rounds` rounds that only the cap (or the model) stops."""
    setting = round_setting(spec(asked.pipeline.name)) or "max_iterations"
    return asked.with_settings(**LOOP_SETTINGS, **{setting: rounds})


def _failed(name: str, output: RunOutput) -> Check | None:
    if output.completed:
        return None
    why = output.info.error or output.info.status
    return verdict(name, "behavioral", False, f"a run did not complete: {why}")


def _metadata(document: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = document.get("metadata")
    return metadata if isinstance(metadata, Mapping) else {}


def _count(document: Mapping[str, Any], key: str) -> int:
    value = document.get(key)
    return len(value) if isinstance(value, list) else 0


def _ids(document: Mapping[str, Any], key: str, id_key: str) -> set[str]:
    return {
        str(item.get(id_key))
        for item in document.get(key) or []
        if isinstance(item, Mapping) and item.get(id_key)
    }


def check_state_consistency(document: Mapping[str, Any]) -> Check:
    """The records agree with each other: every evidence item's source, every claim's evidence
    and every cited [S<n>] exist, and the metadata counts what was returned."""
    metadata = _metadata(document)
    sids, eids = _ids(document, "sources", "sid"), _ids(document, "evidence", "eid")
    problems = [
        f"{key} says {metadata.get(key)!r} but there are {_count(document, records)}"
        for key, records in (("sources_count", "sources"), ("evidence_count", "evidence"))
        if metadata.get(key) != _count(document, records)
    ]
    orphans = sorted(
        str(item.get("eid"))
        for item in document.get("evidence") or []
        if isinstance(item, Mapping) and item.get("sid") not in sids
    )
    unknown = sorted(
        {
            str(eid)
            for claim in document.get("claims") or []
            if isinstance(claim, Mapping)
            for eid in claim.get("supporting_eids") or []
            if eid not in eids
        }
    )
    report = document.get("report")
    cited = set(_CITED.findall(report)) if isinstance(report, str) else set()
    problems += [f"evidence {', '.join(orphans)} from no returned source"] if orphans else []
    problems += [f"claims rest on unknown evidence {', '.join(unknown)}"] if unknown else []
    missing = sorted(cited - sids)
    problems += [f"the report cites {', '.join(missing)}, not returned"] if missing else []
    if problems:
        return verdict("state_consistency", "behavioral", False, "; ".join(problems))
    return verdict(
        "state_consistency",
        "behavioral",
        True,
        f"{len(sids)} sources, {len(eids)} evidence items and the report's citations agree",
    )


def check_verified_claims_ratio(document: Mapping[str, Any]) -> Check:
    """The run's claim figures equal what its claims show (confidence = supported / total)."""
    name = "verified_claims_ratio"
    metadata = _metadata(document)
    claims = [c for c in document.get("claims") or [] if isinstance(c, Mapping)]
    supported = sum(1 for claim in claims if claim.get("verified"))
    if "total_claims" in metadata or "verified_claims" in metadata:
        said = (metadata.get("verified_claims"), metadata.get("total_claims"))
        passed = said == (supported, len(claims))
        return verdict(
            name,
            "behavioral",
            passed,
            f"metadata says {said[0]}/{said[1]} verified; the claims show {supported}/{len(claims)}",
        )
    confidence = metadata.get("confidence")
    expected = round(supported / len(claims), 3) if claims else 0.0
    if not isinstance(confidence, int | float) or isinstance(confidence, bool):
        return verdict(name, "behavioral", False, "the metadata has no confidence")
    passed = abs(float(confidence) - expected) <= 0.001
    return verdict(
        name,
        "behavioral",
        passed,
        f"confidence {confidence} vs {supported}/{len(claims)} supported = {expected}",
    )


def check_iteration_convergence(history: Sequence[float], rounds: Any = None) -> Check:
    """Coverage never falls from one iteration to the next. `rounds`: the iterations the run
    says it made; a history with fewer entries cannot show every step, so it is not judged."""
    name = "iteration_convergence"
    if not history:
        return not_measured(name, "behavioral", "the run records no coverage per iteration")
    if isinstance(rounds, int) and not isinstance(rounds, bool) and rounds > len(history):
        return not_measured(
            name,
            "behavioral",
            f"coverage recorded for {len(history)} of the run's {rounds} iterations",
        )
    if len(history) < 2:
        return not_measured(name, "behavioral", "one iteration: nothing to compare")
    drops = [
        f"{before:.2f}→{after:.2f} after iteration {number}"
        for number, (before, after) in enumerate(itertools.pairwise(history), 1)
        if after < before - 1e-9
    ]
    series = " → ".join(f"{value:.2f}" for value in history)
    if drops:
        return verdict(
            name, "behavioral", False, f"coverage fell: {', '.join(drops)}", history=list(history)
        )
    return verdict(name, "behavioral", True, f"coverage {series}", history=list(history))


def bullet_share(report: str) -> float:
    """The share of the body's prose lines that are bullets."""
    lines = [
        line
        for line in report.splitlines()
        if line.strip() and not line.lstrip().startswith(("#", "|"))
    ]
    return sum(1 for line in lines if _BULLET.match(line)) / len(lines) if lines else 0.0


async def config_effectiveness(run: RunFn, asked: RunRequest) -> Check:
    """report_structure 'detailed' and 'bullet_points' give differently shaped reports."""
    name = "config_effectiveness"
    if refused := not_applicable(name, asked.pipeline.name):
        return refused
    detailed = await run(asked.with_settings(report_structure="detailed"))
    bullets = await run(asked.with_settings(report_structure="bullet_points"))
    failed = _failed(name, detailed) or _failed(name, bullets)
    if failed:
        return failed
    shares = bullet_share(report_body(detailed.result)), bullet_share(report_body(bullets.result))
    passed = shares[1] > shares[0]
    return verdict(
        name,
        "behavioral",
        passed,
        f"bullet lines: {shares[0]:.0%} detailed, {shares[1]:.0%} bullet_points"
        + ("" if passed else "; the format setting made no difference"),
    )


async def gap_loop_improvement(run: RunFn, asked: RunRequest, iterations: int = 3) -> Check:
    """More loop iterations give at least as much evidence as one."""
    name = "gap_loop_improvement"
    if refused := not_applicable(name, asked.pipeline.name):
        return refused
    one = await run(_looped(asked, 1))
    more = await run(_looped(asked, iterations))
    failed = _failed(name, one) or _failed(name, more)
    if failed:
        return failed
    counts = _count(one.result, "evidence"), _count(more.result, "evidence")
    used = _metadata(one.result).get("iterations"), _metadata(more.result).get("iterations")
    if isinstance(used[0], int) and used[0] > 1:
        setting = round_setting(spec(asked.pipeline.name))
        return verdict(
            name,
            "behavioral",
            False,
            f"{setting}=1 ran {used[0]} iterations: the setting was ignored",
        )
    return verdict(
        name,
        "behavioral",
        counts[1] >= counts[0],
        f"{counts[0]} evidence items after 1 iteration, {counts[1]} with up to {iterations} "
        f"({used[1]} used)",
    )


async def mode_comparison(run: RunFn, asked: RunRequest) -> Check:
    """Single- and multi-agent runs both produce valid reports."""
    name = "mode_comparison"
    if refused := not_applicable(name, asked.pipeline.name):
        return refused
    problems = []
    for mode in ("single", "multi"):
        pipeline = PipelineChoice(asked.pipeline.name, mode)
        output = await run(dataclasses.replace(asked, pipeline=pipeline))
        if not output.completed:
            problems.append(f"{mode}: did not complete ({output.info.error or output.info.status})")
            continue
        checks = (
            check_no_empty_report,
            check_report_has_markdown_structure,
            check_citations_map_to_sources,
            check_evidence_populated,
        )
        problems += [
            f"{mode}: {c.reason}"
            for c in (check(output.result) for check in checks)
            if not c.passed
        ]
    if problems:
        return verdict(name, "behavioral", False, "; ".join(problems))
    return verdict(name, "behavioral", True, "single and multi both wrote valid, cited reports")


async def ambiguity_detection(run: RunFn, queries: Sequence[str], asked: RunRequest) -> Check:
    """Known-ambiguous queries (asked instead of the request's) make the run ask back: the run
    stops at the question."""
    name = "ambiguity_detection"
    if refused := not_applicable(name, asked.pipeline.name):
        return refused
    if not queries:
        return not_measured(name, "behavioral", "no known-ambiguous query to try")
    missed = []
    for query in queries:
        output = await run(dataclasses.replace(asked, query=query, answer=None))
        if not output.info.flagged_ambiguous:
            missed.append(query)
    flagged = len(queries) - len(missed)
    check = verdict(
        name,
        "behavioral",
        not missed,
        f"{flagged}/{len(queries)} ambiguous queries flagged"
        + (f"; not flagged: {', '.join(missed)}" if missed else ""),
    )
    check.score = round(flagged / len(queries), 3)
    return check


# The evaluators that read one finished run: also applied to every case's own run.
ONE_RUN: dict[str, Callable[[RunOutput], Check]] = {
    "state_consistency": lambda output: check_state_consistency(output.result),
    "iteration_convergence": lambda output: check_iteration_convergence(
        output.info.coverage_history, _metadata(output.result).get("iterations")
    ),
    "verified_claims_ratio": lambda output: check_verified_claims_ratio(output.result),
}


def check_run(name: str, output: RunOutput) -> Check:
    """A one-run evaluator on a finished run ("not applicable" to a pipeline it does not fit)."""
    return not_applicable(name, output.info.pipeline) or ONE_RUN[name](output)


async def _one_run(name: str, run: RunFn, request: RunRequest) -> Check:
    """The request run (when the evaluator applies), then checked when it completed."""
    if refused := not_applicable(name, request.pipeline.name):
        return refused
    output = await run(request)
    return _failed(name, output) or ONE_RUN[name](output)


async def state_consistency(run: RunFn, asked: RunRequest) -> Check:
    """A run's records agree with each other and with its metadata counts."""
    return await _one_run("state_consistency", run, asked)


async def iteration_convergence(run: RunFn, asked: RunRequest, iterations: int = 3) -> Check:
    """Over a run of several iterations, coverage never falls."""
    return await _one_run("iteration_convergence", run, _looped(asked, iterations))


async def verified_claims_ratio(run: RunFn, asked: RunRequest) -> Check:
    """A run's confidence (or claim figures) is what its verified claims say."""
    return await _one_run("verified_claims_ratio", run, asked)


async def behavioral_checks(
    run: RunFn,
    *,
    query: str,
    pipeline: PipelineChoice,
    settings: Mapping[str, Any],
    ambiguous_queries: Sequence[str],
) -> list[Check]:
    """All seven, sharing runs where they ask for the same one ("not applicable" where one
    does not apply to the pipeline)."""
    shared = MemoRun(run)
    asked = RunRequest(query, pipeline, settings)
    base = asked.with_settings(report_structure="detailed")
    return [
        await config_effectiveness(shared, asked),
        await gap_loop_improvement(shared, base),
        await mode_comparison(shared, base),
        await ambiguity_detection(shared, ambiguous_queries, base),
        await state_consistency(shared, base),
        await iteration_convergence(shared, base),
        await verified_claims_ratio(shared, base),
    ]
