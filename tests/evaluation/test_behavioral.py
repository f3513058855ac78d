"""Behavioral evaluators: pipelines run for real (scripted model, local web) and are checked."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from research_studio.core.config import Configuration
from research_studio.evaluation.behavioral import (
    RunFn,
    ambiguity_detection,
    behavioral_checks,
    bullet_share,
    check_iteration_convergence,
    check_state_consistency,
    check_verified_claims_ratio,
    iteration_convergence,
)
from research_studio.evaluation.cases import PipelineChoice
from research_studio.evaluation.execution import Executor
from research_studio.evaluation.snapshots import RunOutput
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model
from tests.evaluation.outputs import bad, good_document

QUERY = "coral bleaching heat stress"
AMBIGUOUS = "python"


def scripted_runs(
    tmp_path: Path, make_config: Callable[..., Configuration], **knobs: Any
) -> tuple[RunFn, Executor]:
    """Runs through the real executor, each with a fresh research script (its rounds from 1)."""
    executor = Executor(make_config(model="scripted:default"), tmp_path / "runs")

    async def run(
        query: str,
        *,
        pipeline: PipelineChoice,
        settings: Mapping[str, Any],
        answer: str | None = "",
    ) -> RunOutput:
        use_scripted_model(ResearchScript(ambiguous=query == AMBIGUOUS, **knobs).model())
        return await executor(query, pipeline=pipeline, settings=settings, answer=answer)

    return run, executor


def test_state_consistency_compares_metadata_counts_with_the_records() -> None:
    assert check_state_consistency(good_document()).passed
    document = good_document()
    document["metadata"]["sources_count"] = 12
    check = check_state_consistency(document)
    assert check.passed is False and "sources_count says 12 but there are 2" in check.reason


def test_confidence_must_be_supported_over_total_claims() -> None:
    assert check_verified_claims_ratio(good_document()).passed  # 3 of 4 claims, 0.75
    document = good_document()
    document["metadata"]["confidence"] = 0.9
    check = check_verified_claims_ratio(document)
    assert check.passed is False and "3/4 supported = 0.75" in check.reason
    advanced = good_document()
    advanced["metadata"].update(verified_claims=4, total_claims=4)
    assert check_verified_claims_ratio(advanced).passed is False
    assert check_verified_claims_ratio(bad(advanced, claims=[])).passed is False


def test_coverage_must_not_fall_between_iterations() -> None:
    assert check_iteration_convergence([0.3, 0.6, 0.6, 0.9]).passed
    falling = check_iteration_convergence([0.6, 0.4, 0.8])
    assert falling.passed is False and "0.60→0.40 after iteration 1" in falling.reason
    assert check_iteration_convergence([0.9]).passed is None
    assert check_iteration_convergence([]).passed is None


def test_bullet_share_reads_prose_lines_only() -> None:
    assert bullet_share("# T\n\n## S\n\n- a [S1].\n- b [S2].\nProse [S1].\n| x |") == 2 / 3
    assert bullet_share("") == 0.0


@pytest.mark.e2e
async def test_the_seven_evaluators_pass_a_working_standard_pipeline(
    tmp_path: Path, make_config: Callable[..., Configuration]
) -> None:
    run, executor = scripted_runs(
        tmp_path, make_config, coverage=[0.3, 0.6, 0.9], ready=[False, False, True]
    )
    checks = await behavioral_checks(
        run,
        query=QUERY,
        pipeline=PipelineChoice("standard"),
        settings={},
        ambiguous_queries=[AMBIGUOUS],
    )
    verdicts = {check.name: (check.passed, check.reason) for check in checks}
    assert list(verdicts) == [
        "config_effectiveness",
        "gap_loop_improvement",
        "mode_comparison",
        "ambiguity_detection",
        "state_consistency",
        "iteration_convergence",
        "verified_claims_ratio",
    ]
    assert all(passed for passed, _reason in verdicts.values()), verdicts
    assert "coverage 0.30 → 0.60 → 0.90" in verdicts["iteration_convergence"][1]
    # Shared runs: detailed, bullets, 1 and 3 iterations, single agent, the ambiguous query.
    assert len(list((tmp_path / "runs" / "behavioral").glob("*/*/eval.json"))) == 6
    assert executor.costs.model_calls > 0


@pytest.mark.e2e
async def test_falling_coverage_and_a_missed_ambiguity_are_caught(
    tmp_path: Path, make_config: Callable[..., Configuration]
) -> None:
    run, _executor = scripted_runs(
        tmp_path, make_config, coverage=[0.6, 0.3, 0.2], ready=[False, False, False]
    )
    pipeline = PipelineChoice("standard", "single")
    convergence = await iteration_convergence(run, QUERY, pipeline, {})
    assert convergence.passed is False and "coverage fell" in convergence.reason
    missed = await ambiguity_detection(run, ["coral bleaching"], pipeline, {})
    assert missed.passed is False and missed.score == 0.0


@pytest.mark.e2e
async def test_the_advanced_pipeline_is_checked_by_its_own_figures(
    tmp_path: Path, make_config: Callable[..., Configuration]
) -> None:
    run, _executor = scripted_runs(tmp_path, make_config)
    output = await run(QUERY, pipeline=PipelineChoice("advanced"), settings={})
    assert output.completed and output.info.plan
    assert check_verified_claims_ratio(output.result).reason.startswith("metadata says")
    assert check_state_consistency(output.result).passed
    flagged = await ambiguity_detection(run, [AMBIGUOUS], PipelineChoice("advanced"), {})
    assert flagged.passed and flagged.score == 1.0
