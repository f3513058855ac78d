"""Every evaluator can fail: a pass and a fail on inputs not derived from what it checks, and a
refusal (not measured) on pipelines where it does not apply."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from research_studio.core.config import Configuration
from research_studio.evaluation.behavioral import (
    check_state_consistency,
    gap_loop_improvement,
    iteration_convergence,
    mode_comparison,
    verified_claims_ratio,
)
from research_studio.evaluation.cases import EvalCase, PipelineChoice, case_checks
from research_studio.evaluation.snapshots import RunOutput
from tests.evaluation.outputs import QUERY, bad, good_document
from tests.evaluation.test_behavioral import scripted_runs

TERM = "cool roofs"
LOOP = {"min_confidence_gain": 0.0, "min_source_novelty": 0.0}  # only coverage stops the loop


def mentions(document: Mapping[str, Any]) -> bool | None:
    case = EvalCase(id="heat", query=QUERY, expect={"must_mention": [TERM]})  # type: ignore[arg-type]
    [check] = [
        c for c in case_checks(case, document, flagged_ambiguous=False) if c.name == "mentions"
    ]
    return check.passed


def test_must_mention_reads_the_body_not_the_title() -> None:
    document = good_document()
    assert mentions(document) is True
    # An off-topic report whose title is the query (which names the term) does not pass.
    off_topic = f"# {QUERY}\n\n## Weather\n\nIt rained in the hills all week.\n"
    assert TERM in off_topic.lower() and mentions(bad(document, report=off_topic)) is False


def test_state_consistency_checks_records_against_each_other() -> None:
    assert check_state_consistency(good_document()).passed is True
    orphan = good_document()
    orphan["evidence"][0]["sid"] = "S9"
    assert "E1 from no returned source" in check_state_consistency(orphan).reason
    unknown = good_document()
    unknown["claims"][0]["supporting_eids"] = ["E99"]
    assert check_state_consistency(unknown).passed is False
    cites = good_document()
    cites["report"] = cites["report"].replace("[S2]", "[S7]")
    assert "cites S7" in check_state_consistency(cites).reason


def never_run(**_: Any) -> Any:
    raise AssertionError("a refused evaluator must not run anything")


async def refused(evaluator: Callable[..., Any], pipeline: str) -> Any:
    async def run(query: str, **options: Any) -> RunOutput:
        never_run()
        raise AssertionError

    return await evaluator(run, QUERY, PipelineChoice(pipeline, "multi"), {})


async def test_mode_comparison_refuses_a_pipeline_without_modes() -> None:
    check = await refused(mode_comparison, "supervisor")
    assert check.passed is None and "has no modes" in check.reason


async def test_verified_claims_ratio_refuses_the_supervisor() -> None:
    check = await refused(verified_claims_ratio, "supervisor")
    assert check.passed is None and "not a claim ratio" in check.reason


@pytest.mark.e2e
@pytest.mark.parametrize("pipeline", ["advanced", "advanced-full"])
async def test_iteration_convergence_is_measured_on_the_advanced_family(
    tmp_path: Path, make_config: Callable[..., Configuration], pipeline: str
) -> None:
    run, _ = scripted_runs(tmp_path, make_config, coverage=[0.5, 0.7], ready=[False, False])
    choice = PipelineChoice(pipeline, "multi")
    check = await iteration_convergence(run, "coral bleaching heat stress", choice, LOOP, 2)
    assert check.passed is True and check.details["history"] == [0.5, 0.7]
    falling, _ = scripted_runs(tmp_path / "f", make_config, coverage=[0.7, 0.4], ready=[False])
    check = await iteration_convergence(falling, "coral bleaching heat stress", choice, LOOP, 2)
    assert check.passed is False and "0.70→0.40" in check.reason


@pytest.mark.e2e
async def test_gap_loop_improvement_fails_when_the_iteration_setting_is_ignored(
    tmp_path: Path, make_config: Callable[..., Configuration]
) -> None:
    run, _ = scripted_runs(tmp_path, make_config, coverage=[0.5], ready=[False])

    async def ignoring(query: str, **options: Any) -> RunOutput:
        settings = {k: v for k, v in options.pop("settings").items() if k != "max_iterations"}
        return await run(query, settings={**settings, "max_iterations": 3}, **options)

    choice = PipelineChoice("standard", "multi")
    honest = await gap_loop_improvement(run, "coral bleaching heat stress", choice, {})
    assert honest.passed is True
    check = await gap_loop_improvement(ignoring, "coral bleaching heat stress", choice, {})
    assert check.passed is False and "the setting was ignored" in check.reason
