"""Running a case through a pipeline for evaluation: the real runner, in a snapshot folder."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from research_studio.core.config import SECRET_FIELDS, Configuration
from research_studio.core.errors import RunStopped
from research_studio.evaluation.cases import EvalCase, PipelineChoice, case_config
from research_studio.evaluation.snapshots import (
    RunOutput,
    SnapshotInfo,
    clear_snapshot,
    load_output,
    save_info,
    trim,
)
from research_studio.evaluation.verdicts import Costs
from research_studio.pipelines.registry import initial_state
from research_studio.run.runner import execute
from research_studio.run.runs import RESULT_FILE, RunFolder, RunRecord, check_query, new_run_id
from research_studio.services.resolution import resolve

EventFn = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class RunRequest:
    """One run an evaluator asks for. `answer` replies to a clarification question; None leaves
    it unanswered, so the run stops at the question."""

    query: str
    pipeline: PipelineChoice
    settings: Mapping[str, Any] = field(default_factory=dict)
    answer: str | None = ""

    def with_settings(self, **changes: Any) -> RunRequest:
        """The same request with some settings changed."""
        return dataclasses.replace(self, settings={**self.settings, **changes})

    def key(self) -> str:
        """The same text for the same request (what MemoRun shares runs by)."""
        return json.dumps(
            [self.query, self.pipeline.label, dict(self.settings), self.answer],
            sort_keys=True,
            default=str,
        )


# Runs one request; a failed run comes back as a failed RunOutput, not an exception.
RunFn = Callable[[RunRequest], Awaitable[RunOutput]]


def _numbers(value: Any) -> list[float] | None:
    if isinstance(value, list) and all(
        isinstance(item, int | float) and not isinstance(item, bool) for item in value
    ):
        return [float(item) for item in value]
    return None


def plan_of(state: Mapping[str, Any]) -> list[str]:
    """The questions the run planned to answer, whichever pipeline made the plan (the
    supervisor's plan is the topics it delegated)."""
    for key in ("research_questions", "research_topics"):
        questions = state.get(key)
        if isinstance(questions, list) and questions:
            return [str(question) for question in questions]
    plan = state.get("plan")
    if isinstance(plan, Mapping):
        tree = [*(plan.get("primary") or []), *(plan.get("secondary") or [])]
        found = [
            str(item["question"])
            for item in tree
            if isinstance(item, Mapping) and item.get("question")
        ]
        return found or [str(section) for section in plan.get("outline") or []]
    return []


def coverage_history(state: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> list[float]:
    """Coverage after each iteration: the run's own history, else what its events reported."""
    history = _numbers(state.get("coverage_history"))
    if history is not None:
        return history
    found = []
    for event in events:
        counts = event.get("counts") or {}
        if (
            event.get("kind") == "end"
            and (counts.get("iteration") or 0) >= 1
            and "coverage" in counts
        ):
            found.append(float(counts["coverage"]))
    return found


def _public(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Settings as run.json keeps them: no secrets, JSON values."""
    kept = {name: value for name, value in settings.items() if name not in SECRET_FIELDS}
    loaded: dict[str, Any] = json.loads(json.dumps(kept, default=str))
    return loaded


class Executor:
    """Runs cases (and behavioral requests) with a base configuration; one folder per run."""

    def __init__(self, base: Configuration, root: Path, *, on_event: EventFn | None = None) -> None:
        self.base = base
        self.root = root
        self.on_event = on_event
        self.costs = Costs()  # every run this executor made
        self._count = 0

    async def run_case(self, case: EvalCase, pipeline: PipelineChoice, folder: Path) -> RunOutput:
        """The case through the pipeline, kept in `folder` (an earlier snapshot is replaced)."""
        return await self._run(case, pipeline, folder, answer=case.answer)

    async def __call__(self, request: RunRequest) -> RunOutput:
        """A behavioral request (a RunFn): a run in root/behavioral/<pipeline>/."""
        self._count += 1
        case = EvalCase(
            id=f"behavioral-{self._count:02d}",
            query=request.query,
            settings=dict(request.settings),
        )
        folder = self.root / "behavioral" / request.pipeline.folder / case.id
        return await self._run(case, request.pipeline, folder, answer=request.answer)

    def _event(self, events: list[dict[str, Any]]) -> EventFn:
        def record(event: dict[str, Any]) -> None:
            events.append(event)
            if self.on_event is not None:
                self.on_event(event)

        return record

    async def _run(
        self, case: EvalCase, pipeline: PipelineChoice, folder: Path, *, answer: str | None
    ) -> RunOutput:
        clear_snapshot(folder)
        started = time.time()
        info = SnapshotInfo(
            case_id=case.id, pipeline=pipeline.label, query=case.query, case=case.model_dump()
        )
        events: list[dict[str, Any]] = []
        run_folder: RunFolder | None = None
        try:
            config, _model, _search = resolve(case_config(self.base, case))
            info.model, info.search = config.model, config.search
            query = check_query(case.query, max_chars=config.max_query_chars)
            record = RunRecord(
                run_id=new_run_id(),
                query=query,
                pipeline=pipeline.name,
                mode=pipeline.mode,
                settings=_public({**case.settings, "model": config.model, "search": config.search}),
                interactive_clarify=True,
            )
            run_folder = RunFolder.create(folder, record)
            asked: list[str] = []

            async def ask(question: str, options: list[str]) -> str | None:
                asked.append(question)
                return answer

            outcome = await execute(
                run_folder,
                config,
                initial=initial_state(pipeline.name, query, pipeline.mode),
                ask=ask,
                on_event=self._event(events),
            )
            info.status = outcome.status
            if outcome.status != "completed":
                info.error = run_folder.record.error or f"the run ended as {outcome.status}"
            info.flagged_ambiguous = bool(asked or outcome.question)
            info.plan = plan_of(outcome.state)
            info.coverage_history = coverage_history(outcome.state, events)
        except RunStopped:
            raise
        except Exception as exc:  # a failed case is recorded and the evaluation goes on
            info.status, info.error = "failed", str(exc) or type(exc).__name__
        info.elapsed_s = round(time.time() - started, 3)
        folder.mkdir(parents=True, exist_ok=True)
        if (folder / RESULT_FILE).is_file():
            metadata = json.loads((folder / RESULT_FILE).read_text(encoding="utf-8")).get(
                "metadata"
            )
            info.costs = Costs.of_run(metadata or {})
        elif run_folder is not None:
            info.costs = Costs.of_run(run_folder.call_totals())
        self.costs = self.costs.plus(info.costs)
        trim(folder)
        save_info(folder, info)
        return load_output(folder)
