"""How every research graph is wired: the shared contract, its nodes, its plain routers.

A pipeline's `graph.py` keeps only what is its own (which nodes, which edges, which pauses);
the input/output contract and the configuration every graph reads are set here, once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from research_studio.core.config_loading import GraphContext
from research_studio.pipelines.kit.contract import ResearchInput, ResearchOutput
from research_studio.pipelines.kit.plan_review import REVIEW_NODE, review_or

Builder = StateGraph[Any, Any, Any, Any]
CompiledGraph = CompiledStateGraph[Any, Any, Any, Any]
# A pure router over a graph's own state (a TypedDict, read as a mapping).
Router = Callable[[Any], str]


def research_graph(state: type[Any], nodes: Iterable[tuple[str, Any]]) -> Builder:
    """A graph over `state` that takes `ResearchInput`, returns `ResearchOutput`, reads
    `Configuration` as its context, with `nodes` (name, node) added."""
    builder: Builder = StateGraph(
        state,
        context_schema=GraphContext,  # a client's dict: one-line mistakes
        input_schema=ResearchInput,
        output_schema=ResearchOutput,
    )
    for name, node in nodes:
        builder.add_node(name, node)
    return builder


def named(*nodes: Any) -> list[tuple[str, Any]]:
    """Nodes under their own function names, as `research_graph` takes them."""
    return [(node.__name__, node) for node in nodes]


def chain(builder: Builder, *names: str) -> None:
    """Plain edges from each node to the next one named (START and END included)."""
    for here, there in pairwise(names):
        builder.add_edge(here, there)


def route_on(key: str, then: str, otherwise: str) -> Router:
    """A pure router: to `then` when the state's `key` is set (non-empty), else to `otherwise`."""

    def route(state: Mapping[str, Any]) -> str:
        return then if state.get(key) else otherwise

    route.__name__ = f"route_on_{key}"
    return route


def clarify_step(builder: Builder, judge: str, key: str, then: str) -> None:
    """After `judge`: to `clarify` (a pause for the user) when it set `key`, else straight on;
    from `clarify` on to `then`."""
    builder.add_conditional_edges(judge, route_on(key, "clarify", then), ["clarify", then])
    builder.add_edge("clarify", then)


def review_step(
    builder: Builder, planner: str, then: str | Router, targets: Sequence[str] = ()
) -> None:
    """After `planner`: to `review_plan` (a pause) when the plan goes to review, else on to
    `then`, a node or a router choosing among `targets`; from `review_plan` on the same way."""
    ahead = [then] if isinstance(then, str) else list(targets)
    builder.add_conditional_edges(planner, review_or(then), [REVIEW_NODE, *ahead])
    if isinstance(then, str):
        builder.add_edge(REVIEW_NODE, then)
    else:
        builder.add_conditional_edges(REVIEW_NODE, then, ahead)


def compiled(
    builder: Builder,
    name: str,
    checkpointer: BaseCheckpointSaver | None,
    interrupt_on_clarify: bool,
    *always_pause: str,
    store: BaseStore | None = None,
) -> CompiledGraph:
    """The graph compiled as `name`: it pauses before `clarify` when the run may ask the user,
    and before the `always_pause` nodes every time (they are reached only when a pause is due)."""
    before = ["clarify", *always_pause] if interrupt_on_clarify else list(always_pause)
    return builder.compile(
        checkpointer=checkpointer, store=store, interrupt_before=before or None, name=name
    )


def without_clarify_pause(graph: CompiledGraph) -> CompiledGraph:
    """A graph `compiled` to pause before `clarify`, as `compiled` makes it without that pause:
    a copy sharing its nodes and edges, so the graph need not be built a second time."""
    before = [node for node in graph.interrupt_before_nodes if node != "clarify"]
    return graph.copy({"interrupt_before_nodes": before})
