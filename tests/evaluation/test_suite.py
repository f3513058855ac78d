"""An evaluation end to end: cases × pipelines live, failures recorded, re-scoring from snapshots."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from research_studio.core.config import Configuration
from research_studio.evaluation.cases import EvalCase, Expectations, PipelineChoice
from research_studio.evaluation.suite import CaseResult, EvalPlan, run_eval
from research_studio.evaluation.summary import markdown, summary_table
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import ScriptedChatModel, use_scripted_model

pytestmark = pytest.mark.e2e

CASES = [
    EvalCase(
        id="coral",
        kind="current_events",
        query="coral bleaching heat stress",
        aspects=["what bleaching is"],
        expect=Expectations(min_sources=2, must_mention=["coral"]),
    ),
    EvalCase(
        id="broken", query="anything", settings={"docs": ["missing-folder"], "search": "local"}
    ),
]


def _plan(tmp_path: Path, **changes: object) -> EvalPlan:
    values: dict[str, object] = {
        "cases": CASES,
        "snapshots": tmp_path / "snaps",
        "pipelines": [PipelineChoice("standard"), PipelineChoice("advanced")],
        "judge": "scripted:judge",
    }
    values.update(changes)
    return EvalPlan(**values)  # type: ignore[arg-type]


async def test_live_then_from_snapshots_reproduces_scores_without_any_model_call(
    tmp_path: Path, make_config: Callable[..., Configuration], judge_model: ScriptedChatModel
) -> None:
    pipeline_model = ResearchScript().model()
    base = make_config(model=use_scripted_model(pipeline_model))
    progress: list[str] = []
    live = await run_eval(_plan(tmp_path), base, on_progress=progress.append)

    rows = {(r.case_id, r.pipeline): r for r in live.results}
    assert set(rows) == {
        ("coral", "standard"),
        ("coral", "advanced"),
        ("broken", "standard"),
        ("broken", "advanced"),
    }
    broken = rows["broken", "standard"]
    assert broken.status == "failed" and "documents folder missing-folder not found" in (
        broken.error or ""
    )
    coral = rows["coral", "standard"]
    assert coral.status == "completed"
    parts = [value for value in coral.components.values() if value is not None]
    assert len(parts) == 4 and coral.score == round(sum(parts) / 4, 3)
    assert len(coral.group("structural")) == 10 and all(c.passed for c in coral.group("structural"))
    assert [c.name for c in coral.group("judge")] == [
        "relevance",
        "groundedness",
        "completeness",
        "quality",
        "citation_faithfulness",
    ]
    assert coral.citations is not None and coral.citations.citation_accuracy is not None
    assert coral.citations.audit.ok
    assert any("broken × standard: failed" in line for line in progress)
    assert progress[-1].startswith("[4/4] broken × advanced")
    # Costs of the runs and of the judging are kept apart.
    assert live.run_costs.model_calls == len(pipeline_model.calls) > 0
    assert live.judging_costs.model_calls == len(judge_model.calls) > 0
    folder = tmp_path / "snaps" / "coral" / "standard"
    kept = {
        name: (folder / name).read_bytes()
        for name in ("calls.jsonl", "events.jsonl", "result.json")
    }
    assert (
        not (folder / "checkpoints.sqlite").exists() and (folder / "sources" / "S1.txt").is_file()
    )

    # Nothing may be called now: both models are replaced by ones with no script at all.
    silent_pipeline, silent_judge = ScriptedChatModel(), ScriptedChatModel()
    use_scripted_model(silent_pipeline)
    use_scripted_model(silent_judge, "judge")
    again = await run_eval(
        _plan(tmp_path, cases=[], pipelines=None, live=False, judge=None, use_recorded_judges=True),
        base,
    )
    assert silent_pipeline.calls == [] and silent_judge.calls == []

    def scores(results: list[CaseResult]) -> dict[tuple[str, str], tuple[object, ...]]:
        return {
            (r.case_id, r.pipeline): (r.status, r.score, [c.score for c in r.checks])
            for r in results
        }

    # The same scores, and the failed case still on record as failed.
    assert scores(again.results) == scores(live.results)
    assert (
        again.judging_costs.model_calls == 0
        and again.verdicts_reused == live.judging_costs.model_calls
    )
    assert again.run_costs == live.run_costs  # as recorded when the snapshots were made
    assert {name: (folder / name).read_bytes() for name in kept} == kept


async def test_the_summary_table_has_a_row_per_case_and_pipeline(
    tmp_path: Path, make_config: Callable[..., Configuration], judge_model: ScriptedChatModel
) -> None:
    base = make_config(model=use_scripted_model(ResearchScript().model()))
    report = await run_eval(_plan(tmp_path, pipelines=[PipelineChoice("standard", "single")]), base)
    table = summary_table(report).splitlines()
    assert table[0].startswith("| Case | Pipeline | Structural | Checks | Relevance")
    assert table[2].startswith("| coral | standard:single | 10/10 |")
    assert table[3].startswith("| broken | standard:single | FAILED: case broken: documents folder")
    text = markdown(report)
    assert "## Costs" in text and "- Judging (scripted:judge):" in text
    assert "### coral × standard:single" in text and "- PASS structural/citations_present" in text


async def test_without_a_judge_the_deterministic_evaluators_still_score(
    tmp_path: Path, make_config: Callable[..., Configuration]
) -> None:
    base = make_config(model=use_scripted_model(ResearchScript().model()))
    report = await run_eval(_plan(tmp_path, cases=CASES[:1], judge=None), base)
    result = report.results[0]
    assert result.group("judge") == [] and [c.name for c in result.group("citations")] == ["audit"]
    # The score is the mean of the parts that were measured: no judge, no citation accuracy.
    assert result.components["judges"] is None and result.components["citation_accuracy"] is None
    assert result.components["structural"] == 1.0
    checks = result.components["checks"]
    assert checks is not None and result.score == round((1.0 + checks) / 2, 3)
    assert report.judges == [] and report.judging_costs.model_calls == 0
