"""orchestrator_state (spec 000/001): the orchestrator opens a phase, the synthesis closes it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from research_studio.core.config import Configuration
from research_studio.pipelines.advanced.graph import build_graph
from research_studio.services.clients import open_services
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

pytestmark = pytest.mark.e2e


async def test_each_round_opens_with_its_phase_and_closes_with_the_synthesis(
    make_config: Callable[..., Configuration],
) -> None:
    model = ResearchScript(coverage=[0.5, 0.9], ready=[False, True], evidence_per_section=2).model()
    config = make_config(model=use_scripted_model(model), max_iterations=3)
    graph = build_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=False)
    thread: Any = {"configurable": {"thread_id": "phases"}}
    async with open_services(config):
        await graph.ainvoke({"query": "coral bleaching heat stress"}, thread, context=config)
        history = [s async for s in graph.aget_state_history(thread)]
        final = dict((await graph.aget_state(thread)).values)
    # Oldest first: the state each orchestrator and collect_findings step wrote.
    steps = [
        (s.values["orchestrator_state"], s.values["subagent_assignments"], s.values)
        for s in reversed(history)
        if s.next and s.next[0] in ("subagent", "consolidate_sources")
    ]
    phases = [state["phase"] for state, _assignments, _values in steps]
    assert phases == ["primary_research", "synthesis", "refinement", "synthesis"]
    for opened, closed in ((steps[0], steps[1]), (steps[2], steps[3])):
        assigned = len(opened[1])
        assert opened[0]["questions_assigned"] == assigned > 0
        assert opened[0]["questions_completed"] == 0
        assert closed[0]["questions_assigned"] == closed[0]["questions_completed"] == assigned
        assert closed[0]["overall_confidence"] == closed[2]["overall_confidence"]
    assert final["metadata"]["orchestrator_state"] == steps[-1][0]
