"""The last round the iteration cap allows is verified while it is judged, never twice.

Through the compiled graph: LangGraph's debug stream numbers its steps, and two nodes that run
in the same step run at the same time. No timing is asserted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

import pytest

from research_studio.core.config import Configuration
from research_studio.pipelines.registry import graph_builder
from research_studio.services.clients import open_services
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

JUDGE = {"single": "detect_gaps", "multi": "synthesize"}


async def steps_of(config: Configuration, mode: str) -> dict[str, list[int]]:
    """The steps in which each node ran, in one whole run."""
    graph = graph_builder("standard")(interrupt_on_clarify=False)
    ran: dict[str, list[int]] = defaultdict(list)
    payload = {"query": "solid-state battery electrolytes", "mode": mode}
    async with open_services(config):
        async for event in graph.astream(payload, context=config, stream_mode="debug"):
            if event["type"] == "task":
                ran[event["payload"]["name"]].append(event["step"])
    return ran


@pytest.mark.parametrize("mode", ["single", "multi"])
async def test_the_capped_round_is_verified_beside_its_judgement(
    make_config: Callable[..., Configuration], mode: str
) -> None:
    model = ResearchScript(coverage=[0.1], ready=[False]).model()
    config = make_config(model=use_scripted_model(model), max_iterations=2)
    ran = await steps_of(config, mode)
    judge = JUDGE[mode]
    assert len(ran[judge]) == 2  # the first round was judged to go on: nothing verified then
    [verified] = ran["verify"]
    assert verified == ran[judge][-1]  # the same step as the last judgement
    [written] = ran["write_report"]
    assert written == verified + 1


@pytest.mark.parametrize("mode", ["single", "multi"])
async def test_an_earlier_stop_verifies_after_its_judgement(
    make_config: Callable[..., Configuration], mode: str
) -> None:
    model = ResearchScript(coverage=[0.2], ready=[True]).model()
    config = make_config(model=use_scripted_model(model), max_iterations=3)
    ran: dict[str, Any] = await steps_of(config, mode)
    [judged] = ran[JUDGE[mode]]
    [verified] = ran["verify"]
    [written] = ran["write_report"]
    assert judged < verified < written
