"""How every research graph is wired: the shared contract, its nodes, its plain routers.

A pipeline's `graph.py` keeps only what is its own (which nodes, which edges, which pauses);
the input/output contract and the configuration every graph reads are set here, once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any, cast

from langchain_core.runnables import Runnable, RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from research_studio.core.config_loading import RunContext
from research_studio.pipelines.kit.contract import ResearchInput, ResearchOutput
from research_studio.pipelines.kit.node_kit import chat_answer
from research_studio.pipelines.kit.plan_review import REVIEW_NODE, review_or

Builder = StateGraph[Any, Any, Any, Any]
CompiledGraph = CompiledStateGraph[Any, Any, Any, Any]
# A pure router over a graph's own state (a TypedDict, read as a mapping).
Router = Callable[[Any], str]
# `clarify` fed the answer a person typed in the chat (Studio), so it runs without the pause.
CHAT_ANSWER_NODE = "clarify_from_chat"


def research_graph(state: type[Any], nodes: Iterable[tuple[str, Any]]) -> Builder:
    """A graph over `state` that takes `ResearchInput`, returns `ResearchOutput`, reads
    `Configuration` as its context (built as `RunContext`), with `nodes` (name, node) added."""
    builder: Builder = StateGraph(
        state,
        context_schema=RunContext,
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
    if "clarify" in builder.nodes:
        answer_from_chat(builder)
    before = ["clarify", *always_pause] if interrupt_on_clarify else list(always_pause)
    return builder.compile(
        checkpointer=checkpointer, store=store, interrupt_before=before or None, name=name
    )


def without_clarify_pause(graph: CompiledGraph) -> CompiledGraph:
    """A graph `compiled` to pause before `clarify`, as `compiled` makes it without that pause:
    a copy sharing its nodes and edges, so the graph need not be built a second time."""
    before = [node for node in graph.interrupt_before_nodes if node != "clarify"]
    return graph.copy({"interrupt_before_nodes": before})


def answer_from_chat(builder: Builder) -> None:
    """Let a chat message answer the clarifying question the thread waits on.

    Studio's chat sends the answer as new input, and new input on a paused thread starts the
    graph over (the request analysed and the question asked again, the answer lost). So the
    entry routes such a message (`chat_answer`) to `clarify_from_chat`: the graph's own
    `clarify` given it as `user_clarification`, then on to where `clarify` goes. `clarify`
    itself keeps its pause, so `threads.update_state` + a run with no input works as before.
    """
    [first] = [end for start, end in builder.edges if start == START]
    [then] = [end for start, end in builder.edges if start == "clarify"]
    # add_node keeps every node as a Runnable (it runs with the node's own config: its runtime).
    clarify = cast("Runnable[Any, Any]", builder.nodes["clarify"].runnable)

    async def clarify_from_chat(state: Any, config: RunnableConfig) -> Any:
        answer = chat_answer(state)
        update = await clarify.ainvoke({**state, "user_clarification": answer}, config)
        return {**(update or {}), "user_clarification": answer}

    def route_from_start(state: Mapping[str, Any]) -> str:
        return CHAT_ANSWER_NODE if chat_answer(state) else first

    # The plain edge START -> first becomes the choice between the two.
    builder.edges.discard((START, first))
    builder.add_node(CHAT_ANSWER_NODE, clarify_from_chat)
    builder.add_conditional_edges(START, route_from_start, [first, CHAT_ANSWER_NODE])
    builder.add_edge(CHAT_ANSWER_NODE, then)
