"""The graphs a run can use, by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from research_studio.errors import ConfigError

PipelineName = Literal["standard", "advanced", "supervisor"]
GraphBuilder = Callable[..., CompiledStateGraph]


def graph_builder(name: str) -> GraphBuilder:
    """`build_graph(checkpointer=..., interrupt_on_clarify=...)` of the named pipeline."""
    if name == "standard":
        from research_studio.pipelines.standard.graph import build_graph

        return build_graph
    raise ConfigError(f"pipeline {name!r} is not available in this version (available: standard)")


def compile_pipeline(
    name: str, checkpointer: BaseCheckpointSaver | None, interrupt_on_clarify: bool
) -> CompiledStateGraph:
    """The named pipeline, compiled."""
    return graph_builder(name)(checkpointer=checkpointer, interrupt_on_clarify=interrupt_on_clarify)
