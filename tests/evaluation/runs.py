"""Real runs for the evaluator tests: every pipeline through the evaluation executor, once.

Each pipeline runs with a prompt-driven script (the scripted model only supplies text) against
the local web. Runs are shared through `MemoRun`, so a test asking for a run the module has
made already gets it back without running anything.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from research_studio.core.config import Configuration
from research_studio.evaluation.behavioral import (
    MemoRun,
    ambiguity_detection,
    behavioral_checks,
    iteration_convergence,
)
from research_studio.evaluation.cases import PipelineChoice
from research_studio.evaluation.execution import Executor, RunFn, RunRequest
from research_studio.evaluation.snapshots import RunOutput
from research_studio.pipelines.registry import names
from tests.doubles.advanced_script import FamilyKnobs
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import ScriptedChatModel, use_scripted_model
from tests.doubles.supervisor_script import SupervisorScript
from tests.pipelines.supervisor.test_round_coverage import LostSecondRound

QUERY = "How does marine heat stress cause coral bleaching on reefs"
AMBIGUOUS = "python"
LOCAL_QUERY = "How do cool roofs and trees reduce urban heat?"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "urban-heat"
# The advanced family's other stop rules out of the way: only coverage, the cap or readiness stop.
SETTINGS = {"min_confidence_gain": 0.0, "min_source_novelty": 0.0}
LOCAL = {"search": "local", "docs": [str(EXAMPLES)]}
NAMESAKES = [
    {
        "name": "Python",
        "description": "A programming language",
        "identifiers": ["programming language", "Guido van Rossum"],
        "confidence": 0.6,
    },
    {
        "name": "Python",
        "description": "A genus of constricting snakes",
        "identifiers": ["snake", "constrictor"],
        "confidence": 0.55,
    },
]


def script_model(pipeline: str, query: str, *, falling: bool) -> ScriptedChatModel:
    """The scripted model for one run: rounds that add coverage, or (falling) lose it."""
    ambiguous = query == AMBIGUOUS
    if pipeline == "supervisor":
        script = LostSecondRound if falling else SupervisorScript
        return script(ambiguous=ambiguous, topics=2, rounds=2).model()
    coverage = [0.6, 0.3, 0.2] if falling else [0.3, 0.6, 0.9]
    ready = [False, False, False] if falling else [False, False, True]
    if ambiguous:
        # Two namesakes: the family's variants ask back because code finds two candidates.
        knobs = FamilyKnobs(candidates=NAMESAKES)
        return ResearchScript(ambiguous=True, query_class="person_profile", family=knobs).model()
    # Two verified items per section: coverage by count is 0.67, so the model's reading of each
    # round (rising, or falling) is what the advanced loop records.
    return ResearchScript(coverage=coverage, ready=ready, evidence_per_section=2).model()


@dataclass
class PipelineRuns:
    """One pipeline's shared runs: `run` (rounds that add coverage) and `falling` (they lose it)."""

    pipeline: PipelineChoice
    run: MemoRun
    falling: MemoRun
    outputs: dict[str, RunOutput] = field(default_factory=dict)

    @property
    def base(self) -> RunOutput:
        """The run every single-run evaluator reads (report_structure 'detailed')."""
        return self.outputs["base"]

    @property
    def local(self) -> RunOutput:
        """A run over local documents only."""
        return self.outputs["local"]


def scripted_executor(executor: Executor, pipeline: str, *, falling: bool) -> RunFn:
    async def run(request: RunRequest) -> RunOutput:
        use_scripted_model(script_model(pipeline, request.query, falling=falling))
        return await executor(request)

    return run


async def _warm(runs: PipelineRuns) -> None:
    """Every run the evaluator tests ask for, made once."""
    pipeline = runs.pipeline
    await behavioral_checks(
        runs.run, query=QUERY, pipeline=pipeline, settings=SETTINGS, ambiguous_queries=[AMBIGUOUS]
    )
    await ambiguity_detection(runs.run, [QUERY], RunRequest(QUERY, pipeline, SETTINGS))
    await iteration_convergence(runs.falling, RunRequest(QUERY, pipeline, SETTINGS))
    detailed = {**SETTINGS, "report_structure": "detailed"}
    runs.outputs["base"] = await runs.run(RunRequest(QUERY, pipeline, detailed))
    runs.outputs["local"] = await runs.run(RunRequest(LOCAL_QUERY, pipeline, {**detailed, **LOCAL}))


def make_runs(web: FakeWeb, root: Path) -> dict[str, PipelineRuns]:
    """Every registered pipeline's shared runs, made now."""
    config = Configuration(
        model="scripted:default",
        search="searxng",
        searxng_url=web.base_url,
        allow_private_networks=True,
        cache_dir=root / "cache",
        runs_dir=root / "runs",
        retry_base_delay_s=0.01,
        search_timeout_s=2.0,
        fetch_timeout_s=2.0,
    )
    made = {}
    for name in names():
        executor = Executor(config, root / name)
        made[name] = PipelineRuns(
            PipelineChoice(name),
            MemoRun(scripted_executor(executor, name, falling=False)),
            MemoRun(scripted_executor(executor, name, falling=True)),
        )

    async def warm_all() -> None:
        for runs in made.values():
            await _warm(runs)

    asyncio.run(warm_all())
    return made


def with_result(output: RunOutput, change: Callable[[dict[str, Any]], None]) -> RunOutput:
    """A copy of the output whose result.json was changed by `change` (the folder is shared)."""
    result = copy.deepcopy(output.result)
    change(result)
    return dataclasses.replace(output, result=result)
