"""The run's date is recorded once, by the first node, and every dated prompt reads it from state."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest

from research_studio.pipelines.kit.node_kit import run_start


def test_the_first_node_records_the_date_only_when_absent() -> None:
    assert run_start({}, "q")["today"] == dt.date.today().isoformat()
    resumed = run_start(
        {"today": "2020-02-29", "started_at": 1.0, "messages": ["m"], "mode": "single"}, "q"
    )
    assert "today" not in resumed and resumed == {}


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("pipeline", "mode", "dated"),
    [
        ("standard", "single", ["ResearchPlan"]),
        ("standard", "multi", ["ResearchPlan"]),  # the first round's split is the plan's, no call
        ("advanced", "single", ["QueryAnalysisOutput", "PlanOutput"]),
    ],
)
async def test_dated_prompts_say_the_run_date(
    run_pipeline: Callable[..., Any], pipeline: str, mode: str, dated: list[str]
) -> None:
    state, model = await run_pipeline("coral reef bleaching", pipeline=pipeline, mode=mode)
    assert state["today"] == dt.date.today().isoformat()
    for schema in dated:
        calls = model.calls_for(schema)
        assert calls and all(f"Today's date is {state['today']}." in c.prompt for c in calls)
