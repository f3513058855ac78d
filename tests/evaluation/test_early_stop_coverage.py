"""advanced-optimized's early stop records the coverage of the round it stops, so eval can judge it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from research_studio.core.config import Configuration
from research_studio.evaluation.behavioral import iteration_convergence
from research_studio.evaluation.cases import PipelineChoice
from research_studio.evaluation.execution import Executor, RunRequest
from research_studio.evaluation.snapshots import RunOutput
from research_studio.evaluation.verdicts import Check
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

pytestmark = pytest.mark.e2e
QUERY = "coral bleaching heat stress"
# One subagent a round, so the round's confidence is its own; the gain rule stops round 2.
SETTINGS = {"max_subagents": 1}


async def converge(
    make_config: Callable[..., Configuration], tmp_path: Path, confidences: list[float]
) -> tuple[RunOutput, Check]:
    """The run iteration_convergence makes (stopped early), and its verdict."""
    script = ResearchScript(coverage=[0.5], ready=[False], subagent_confidence=confidences)
    executor = Executor(make_config(model="scripted:default"), tmp_path / "eval")
    made: list[RunOutput] = []

    async def run(request: RunRequest) -> RunOutput:
        use_scripted_model(script.model())
        made.append(await executor(request))
        return made[-1]

    asked = RunRequest(QUERY, PipelineChoice("advanced-optimized"), SETTINGS)
    check = await iteration_convergence(run, asked)
    [output] = made
    return output, check


async def test_a_round_that_holds_its_coverage_passes(
    make_config: Callable[..., Configuration], tmp_path: Path
) -> None:
    output, check = await converge(make_config, tmp_path, [0.6])
    assert output.result["metadata"]["stop_reason"] == "gain_below_threshold"
    # Round 1: the gap detector's coverage (counted by code, at most the model's 0.5); round 2
    # (stopped early): its subagent's 0.6.
    first, second = output.info.coverage_history
    assert first <= 0.5 and second == 0.6
    assert check.passed is True, check.reason


async def test_a_round_that_finds_nothing_keeps_the_coverage_it_had(
    make_config: Callable[..., Configuration], tmp_path: Path
) -> None:
    output, check = await converge(make_config, tmp_path, [0.6, 0.0])
    assert output.result["metadata"]["stop_reason"] == "gain_below_threshold"
    # The evidence of round 1 still answers what it answered: coverage does not fall to 0.
    first, second = output.info.coverage_history
    assert 0 < first == second
    assert check.passed is True, check.reason
