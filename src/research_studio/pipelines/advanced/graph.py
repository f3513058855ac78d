"""The advanced family's one graph module: V9 and its two variants, builders and graphs.

- V9 (`advanced`, `build_graph`): query_analyzer → [clarify] → planner → the research loop →
  the one-node trust engine → writer (specs 000/002);
- trust-engine variant (`advanced-full`, `build_trust_engine_graph`): discovery's analyzer,
  discovery and confidence check, the research loop with backtracking, and the full 7-node
  trust engine (exhaustive verification; spec 001);
- optimized variant (`advanced-optimized`, `build_optimized_graph`): the same with complexity
  routing, early termination and the batched trust engine (two model calls).

`build_*graph(checkpointer, interrupt_on_clarify)` is what the registry calls; for the
variants `_with_memory` adds an in-memory checkpointer and pauses before `clarify`, `_simple`
has neither (runs straight through, as `--no-clarify` does).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from research_studio.core.config import Configuration
from research_studio.pipelines.advanced.discovery.analyzer import analyzer, routed_analyzer
from research_studio.pipelines.advanced.discovery.nodes import (
    auto_refine,
    clarify,
    confidence_check,
    discovery,
    namesakes,
    route_after_refine,
)
from research_studio.pipelines.advanced.nodes.backtrack import (
    backtrack_handler,
    route_after_backtrack,
    unhandled,
)
from research_studio.pipelines.advanced.nodes.control import (
    complexity_router,
    early_termination_check,
    route_after_planner,
    variant_planner,
)
from research_studio.pipelines.advanced.nodes.loop import RESEARCH_LOOP
from research_studio.pipelines.advanced.nodes.orchestrator import fanout_subagents, orchestrator
from research_studio.pipelines.advanced.nodes.planner import planner
from research_studio.pipelines.advanced.nodes.query_analyzer import clarify as v9_clarify
from research_studio.pipelines.advanced.nodes.query_analyzer import query_analyzer
from research_studio.pipelines.advanced.nodes.review import review_plan
from research_studio.pipelines.advanced.nodes.subagent import subagent
from research_studio.pipelines.advanced.nodes.writer import writer
from research_studio.pipelines.advanced.state import AgentState
from research_studio.pipelines.advanced.trust_engine import ENGINES, Engine, trust_engine
from research_studio.pipelines.kit import wiring

CompiledGraph = CompiledStateGraph[Any, Any, Any, Any]


# V9

# Another round until gap_detector gives a stop reason.
route_after_gap_detection = wiring.route_on("stop_reason", "trust_engine", "increment_iteration")


def build_graph(
    checkpointer: BaseCheckpointSaver | None = None, interrupt_on_clarify: bool = True
) -> CompiledGraph:
    """Compile V9 (the `advanced` pipeline); with `interrupt_on_clarify` it pauses before `clarify`."""
    builder = wiring.research_graph(
        AgentState,
        wiring.named(query_analyzer, v9_clarify, planner, orchestrator, subagent, *RESEARCH_LOOP)
        + wiring.named(trust_engine, writer, review_plan),
    )
    builder.add_edge(START, "query_analyzer")
    # The user is asked only when the analyzer says the query needs it.
    wiring.clarify_step(builder, "query_analyzer", "needs_clarification", "planner")
    wiring.review_step(builder, "planner", "orchestrator")
    builder.add_conditional_edges(
        "orchestrator", fanout_subagents, ["subagent", "collect_findings"]
    )
    wiring.chain(builder, "subagent", "collect_findings", "consolidate_sources", "gap_detector")
    builder.add_conditional_edges(
        "gap_detector", route_after_gap_detection, ["increment_iteration", "trust_engine"]
    )
    builder.add_edge("increment_iteration", "orchestrator")
    wiring.chain(builder, "trust_engine", "writer", END)
    return wiring.compiled(builder, "advanced", checkpointer, interrupt_on_clarify, "review_plan")


# The variants

Variant = Literal["trust_engine", "optimized"]

VARIANT_ENGINE: dict[Variant, Engine] = {"trust_engine": "full", "optimized": "batched"}


def _add_trust_engine(builder: wiring.Builder, engine: Engine, after: str) -> str:
    """Chain the engine's nodes after `after`; the name of its last node."""
    previous = after
    for name, node in ENGINES[engine]:
        builder.add_node(name, node)
        if previous:
            builder.add_edge(previous, name)
        previous = name
    return previous


def first_trust_node(variant: Variant) -> str:
    """Where the research loop hands over to the variant's trust engine."""
    return ENGINES[VARIANT_ENGINE[variant]][0][0]


def route_after_confidence_check(state: AgentState) -> Literal["planner", "clarify", "auto_refine"]:
    """confidence_check's decision: planner, clarify (a pause), or auto_refine."""
    route = state.get("discovery_route")
    return (
        "clarify" if route == "clarify" else "auto_refine" if route == "auto_refine" else "planner"
    )


def route_after_complexity(state: AgentState) -> Literal["confidence_check", "planner"]:
    """The fast path skips the confidence check, unless the subject has namesakes."""
    return "planner" if state.get("fast_path") and not namesakes(state) else "confidence_check"


def _after_gap_detection(trust: str) -> Any:
    """Three ways: the trust engine (stop), backtrack_handler (dead ends to retry), orchestrator.

    A loop stopped only for want of searches still backtracks: alternatives are searches.
    """

    def route_after_gap_detection(state: AgentState) -> str:
        reason = state.get("stop_reason")
        if reason and reason != "no_searches_left":
            return trust
        if unhandled(state):
            return "backtrack_handler"
        return trust if reason else "increment_iteration"

    return route_after_gap_detection


def _after_backtrack(trust: str) -> Any:
    def route(state: AgentState) -> str:
        return route_after_backtrack(state, trust)

    route.__name__ = "route_after_backtrack"
    return route


def _research_nodes(variant: Variant) -> list[tuple[str, Any]]:
    """Understanding, planning and the research loop's nodes."""
    # Only the optimized variant routes on complexity, so only its analyzer asks for it.
    nodes = [("analyzer", routed_analyzer if variant == "optimized" else analyzer)]
    nodes += wiring.named(discovery, confidence_check, clarify, auto_refine)
    nodes += [("planner", variant_planner)]
    nodes += wiring.named(orchestrator, subagent, *RESEARCH_LOOP, backtrack_handler)
    if variant == "optimized":
        nodes += wiring.named(complexity_router, early_termination_check)
    return nodes


def _add_research(builder: wiring.Builder, variant: Variant) -> None:
    """Understanding, planning and the research loop's edges, up to the trust engine."""
    trust = first_trust_node(variant)
    optimized = variant == "optimized"
    wiring.chain(builder, START, "analyzer", "discovery")
    if optimized:
        builder.add_edge("discovery", "complexity_router")
        builder.add_conditional_edges(
            "complexity_router", route_after_complexity, ["confidence_check", "planner"]
        )
    else:
        builder.add_edge("discovery", "confidence_check")
    builder.add_conditional_edges(
        "confidence_check", route_after_confidence_check, ["planner", "clarify", "auto_refine"]
    )
    builder.add_conditional_edges("auto_refine", route_after_refine, ["planner", "clarify"])
    builder.add_edge("clarify", "planner")
    builder.add_conditional_edges("planner", route_after_planner, ["orchestrator", "subagent"])
    builder.add_conditional_edges(
        "orchestrator", fanout_subagents, ["subagent", "collect_findings"]
    )
    wiring.chain(builder, "subagent", "collect_findings", "consolidate_sources")
    if optimized:
        builder.add_edge("consolidate_sources", "early_termination_check")
        builder.add_conditional_edges(
            "early_termination_check",
            wiring.route_on("stop_reason", trust, "gap_detector"),
            ["gap_detector", trust],
        )
    else:
        builder.add_edge("consolidate_sources", "gap_detector")
    builder.add_conditional_edges(
        "gap_detector",
        _after_gap_detection(trust),
        ["increment_iteration", "backtrack_handler", trust],
    )
    builder.add_edge("increment_iteration", "orchestrator")
    builder.add_conditional_edges(
        "backtrack_handler", _after_backtrack(trust), ["orchestrator", trust]
    )


def _compile(
    variant: Variant, checkpointer: BaseCheckpointSaver | None, interrupt_on_clarify: bool
) -> CompiledGraph:
    builder = wiring.research_graph(AgentState, _research_nodes(variant))
    _add_research(builder, variant)
    last = _add_trust_engine(builder, VARIANT_ENGINE[variant], "")
    builder.add_node("writer", writer)
    wiring.chain(builder, last, "writer", END)
    name = f"advanced-{variant.replace('_', '-')}"
    return wiring.compiled(builder, name, checkpointer, interrupt_on_clarify)


def build_trust_engine_subgraph(engine: Engine) -> CompiledGraph:
    """A trust engine alone, from consolidated sources and evidence to scored claims."""
    builder = StateGraph(AgentState, context_schema=Configuration)
    first = ENGINES[engine][0][0]
    builder.add_edge(START, first)
    builder.add_edge(_add_trust_engine(builder, engine, ""), END)
    return builder.compile(name=f"trust-engine-{engine}")


def build_trust_engine_graph(
    checkpointer: BaseCheckpointSaver | None = None, interrupt_on_clarify: bool = True
) -> CompiledGraph:
    """The family with the full 7-node trust engine (one model call per verifying node)."""
    return _compile("trust_engine", checkpointer, interrupt_on_clarify)


def build_optimized_graph(
    checkpointer: BaseCheckpointSaver | None = None, interrupt_on_clarify: bool = True
) -> CompiledGraph:
    """The family with the batched trust engine (two model calls)."""
    return _compile("optimized", checkpointer, interrupt_on_clarify)


def _with_memory(build: Callable[..., CompiledGraph]) -> Callable[[], CompiledGraph]:
    """`build` with a fresh in-memory checkpointer each time, pausing before `clarify`."""

    def with_memory() -> CompiledGraph:
        return build(checkpointer=InMemorySaver(), interrupt_on_clarify=True)

    with_memory.__name__ = f"{build.__name__}_with_memory"
    return with_memory


def _simple(build: Callable[..., CompiledGraph]) -> Callable[[], CompiledGraph]:
    """`build` without checkpointer or pause (runs straight through, as `--no-clarify` does)."""

    def simple() -> CompiledGraph:
        return build(checkpointer=None, interrupt_on_clarify=False)

    simple.__name__ = build.__name__.replace("_graph", "_simple_graph")
    return simple


build_trust_engine_graph_with_memory = _with_memory(build_trust_engine_graph)
build_trust_engine_simple_graph = _simple(build_trust_engine_graph)
build_optimized_graph_with_memory = _with_memory(build_optimized_graph)
build_optimized_simple_graph = _simple(build_optimized_graph)

# LangGraph Studio / `langgraph dev` entry points; the server supplies the checkpointer.
graph = build_graph()
trust_engine_graph = build_trust_engine_graph()
trust_engine_simple_graph = build_trust_engine_simple_graph()
optimized_graph = build_optimized_graph()
optimized_simple_graph = build_optimized_simple_graph()
