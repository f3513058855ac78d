"""The graphs a run can use, by name."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from research_studio.core.errors import ConfigError
from research_studio.pipelines.kit.contract import research_input

PipelineName = Literal["standard", "advanced", "advanced-full", "advanced-optimized", "supervisor"]
GraphBuilder = Callable[..., CompiledStateGraph[Any, Any, Any, Any]]
# Pipelines with a single-worker path: what --single-agent (and --compare's single side) runs.
SINGLE_WORKER_PIPELINES = ("standard", "advanced", "advanced-full", "advanced-optimized")


def graph_builder(name: str) -> GraphBuilder:
    """`build_graph(checkpointer=..., interrupt_on_clarify=...)` of the named pipeline."""
    if name == "standard":
        from research_studio.pipelines.standard.graph import build_graph

        return build_graph
    if name == "advanced":
        from research_studio.pipelines.advanced.graph import build_graph as build_advanced

        return build_advanced
    if name == "advanced-full":
        from research_studio.pipelines.advanced.variants import build_trust_engine_graph

        return build_trust_engine_graph
    if name == "advanced-optimized":
        from research_studio.pipelines.advanced.variants import build_optimized_graph

        return build_optimized_graph
    if name == "supervisor":
        from research_studio.pipelines.supervisor.graph import build_graph as build_supervisor

        return build_supervisor
    raise ConfigError(
        f"pipeline {name!r} is not available in this version "
        "(available: standard, advanced, advanced-full, advanced-optimized, supervisor)"
    )


# The graph id of each pipeline in langgraph.json, where it differs from the pipeline's name.
_GRAPH_IDS = {"standard": "pipeline"}


def graph_id(name: str) -> str:
    """The langgraph.json graph id of a pipeline."""
    return _GRAPH_IDS.get(name, name)


def initial_state(name: str, query: str, mode: str) -> dict[str, Any]:
    """A new run's input (a ResearchInput): the same for every pipeline."""
    return dict(research_input(query, mode))


def compile_pipeline(
    name: str,
    checkpointer: BaseCheckpointSaver | None,
    interrupt_on_clarify: bool,
    *,
    store: BaseStore | None = None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The named pipeline, compiled (with the store, for pipelines that keep data in one)."""
    builder = graph_builder(name)
    options: dict[str, Any] = {
        "checkpointer": checkpointer,
        "interrupt_on_clarify": interrupt_on_clarify,
    }
    if store is not None and "store" in inspect.signature(builder).parameters:
        options["store"] = store
    return builder(**options)
