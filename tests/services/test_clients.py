"""Services are explicit: one set per run, also when a graph runs as the LangGraph server runs it."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable
from typing import Any

import pytest

from research_studio.core.config import Configuration
from research_studio.pipelines.registry import compile_pipeline
from research_studio.services.clients import Services, adopted_services
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(("pipeline", "mode"), [("standard", "multi"), ("advanced", "multi")])
async def test_a_run_without_open_services_uses_one_service_set_and_closes_it(
    make_config: Callable[..., Configuration],
    monkeypatch: pytest.MonkeyPatch,
    pipeline: str,
    mode: str,
) -> None:
    created: list[Services] = []
    closed: list[Services] = []
    original_init, original_aclose = Services.__init__, Services.aclose

    def counting_init(self: Services, *args: Any, **kwargs: Any) -> None:
        created.append(self)
        original_init(self, *args, **kwargs)

    async def counting_aclose(self: Services) -> None:
        closed.append(self)
        await original_aclose(self)

    monkeypatch.setattr(Services, "__init__", counting_init)
    monkeypatch.setattr(Services, "aclose", counting_aclose)
    script = ResearchScript(coverage=[0.9], ready=[True])
    graph = compile_pipeline(pipeline, None, False)

    async def one_run() -> None:
        # As `langgraph dev` runs a graph: no open_services block, nodes in copied contexts.
        config = make_config(model=use_scripted_model(script.model()), max_iterations=1)
        output = await graph.ainvoke({"query": "coral reef recovery", "mode": mode}, context=config)
        assert output["report"] and output["sources"]

    await one_run()
    await one_run()
    for _ in range(200):  # the runs' configurations are collected, then their services close
        gc.collect()
        await asyncio.sleep(0.05)
        if len(closed) == len(created):
            break
    assert len(created) == 2  # one per run, whatever the number of nodes and parallel workers
    assert set(map(id, closed)) == set(map(id, created))
    assert adopted_services() == 0
