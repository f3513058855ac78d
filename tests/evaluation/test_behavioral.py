"""Behavioral evaluators as checks of one run: each against records with a known defect.

Every evaluator on every pipeline, with real runs, is in test_every_evaluator.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from research_studio.evaluation.behavioral import (
    bullet_share,
    check_iteration_convergence,
    check_state_consistency,
    check_verified_claims_ratio,
)
from research_studio.evaluation.cases import EvalCase
from research_studio.evaluation.snapshots import load_output, save_info
from research_studio.evaluation.suite import score_output
from tests.evaluation.outputs import bad, good_document, write_run


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
    assert check_iteration_convergence([0.3, 0.6, 0.6, 0.9], 4).passed
    falling = check_iteration_convergence([0.6, 0.4, 0.8])
    assert falling.passed is False and "0.60→0.40 after iteration 1" in falling.reason
    assert check_iteration_convergence([0.9]).passed is None
    assert check_iteration_convergence([]).passed is None
    # A history shorter than the rounds made hides a step: not judged, whatever it shows.
    partial = check_iteration_convergence([0.3, 0.6], 3)
    assert partial.passed is None and "2 of the run's 3 iterations" in partial.reason


def test_bullet_share_reads_prose_lines_only() -> None:
    assert bullet_share("# T\n\n## S\n\n- a [S1].\n- b [S2].\nProse [S1].\n| x |") == 2 / 3
    assert bullet_share("") == 0.0


@pytest.mark.parametrize(("pipeline", "ratio"), [("standard", True), ("supervisor", None)])
async def test_a_snapshot_is_scored_by_the_evaluators_its_pipeline_accepts(
    tmp_path: Path, pipeline: str, ratio: bool | None
) -> None:
    written = write_run(tmp_path)
    save_info(written.folder, written.info.model_copy(update={"pipeline": pipeline}))
    case = EvalCase(id="heat", query=written.info.query)
    result = await score_output(case, load_output(written.folder), None)
    checks = {check.name: check for check in result.checks}
    assert checks["verified_claims_ratio"].passed is ratio
    if ratio is None:
        assert checks["verified_claims_ratio"].reason.startswith(
            "not applicable to the supervisor pipeline: its confidence is the share"
        )
    assert checks["state_consistency"].passed is True
    assert checks["iteration_convergence"].passed is True  # 0.50 → 0.80 over the run's 2
