"""How every research graph is wired: the shared contract, its nodes, its plain routers.

A pipeline's `graph.py` keeps only what is its own (which nodes, which edges, which pauses);
the input/output contract and the configuration every graph reads are set here, once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, cast

from langchain_core.messages import HumanMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from research_studio.core.config_loading import RunContext
from research_studio.pipelines.kit.contract import ResearchInput, ResearchOutput
from research_studio.pipelines.kit.node_kit import chat_answer
from research_studio.pipelines.kit.plan_review import REVIEW_NODE, chat_reply, review_or

Builder = StateGraph[Any, Any, Any, Any]
CompiledGraph = CompiledStateGraph[Any, Any, Any, Any]
# A pure router over a graph's own state (a TypedDict, read as a mapping).
Router = Callable[[Any], str]


@dataclass(frozen=True)
class ChatPause:
    """A pause a chat message may answer: the node paused before (or in), the state key the node
    reads the answer from, and the typed answer when the thread waits there ("" otherwise)."""

    node: str
    key: str
    answer: Callable[[Mapping[str, Any]], str]

    @property
    def from_chat(self) -> str:
        """The node that runs `node` on an answer typed in the chat, without the pause."""
        return f"{self.node}_from_chat"


# Every pause a person answers by typing (Studio's chat), checked in this order at the entry.
CHAT_PAUSES = (
    ChatPause("clarify", "user_clarification", chat_answer),
    ChatPause(REVIEW_NODE, "plan_feedback", chat_reply),
)


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
    chat_pauses: Sequence[ChatPause] = (),
) -> CompiledGraph:
    """The graph compiled as `name`: it pauses before `clarify` when the run may ask the user,
    and before the `always_pause` nodes every time (they are reached only when a pause is due);
    a chat message answers its pause (`CHAT_PAUSES`, then the graph's own `chat_pauses`)."""
    answer_from_chat(builder, chat_pauses)
    before = ["clarify", *always_pause] if interrupt_on_clarify else list(always_pause)
    return builder.compile(
        checkpointer=checkpointer, store=store, interrupt_before=before or None, name=name
    )


def without_clarify_pause(graph: CompiledGraph) -> CompiledGraph:
    """A graph `compiled` to pause before `clarify`, as `compiled` makes it without that pause:
    a copy sharing its nodes and edges, so the graph need not be built a second time."""
    before = [node for node in graph.interrupt_before_nodes if node != "clarify"]
    return graph.copy({"interrupt_before_nodes": before})


def answer_from_chat(builder: Builder, own: Sequence[ChatPause] = ()) -> None:
    """Let a chat message answer the pause the thread waits at (its question, its plan).

    Studio's chat sends the answer as new input, and new input on a paused thread starts the
    graph over (the request analysed again, the answer lost). So the entry routes such a
    message (a `ChatPause`'s `answer`) to that pause's `<node>_from_chat`: the graph's own
    node given the answer under its key, then on to where the node goes. The node itself keeps
    its pause, so `threads.update_state` + a run with no input works as before. A node that
    pauses inside itself (`interrupt`) reads the key first and asks only when it is empty.
    """
    pauses = [pause for pause in (*CHAT_PAUSES, *own) if pause.node in builder.nodes]
    if not pauses:
        return
    [first] = [end for start, end in builder.edges if start == START]
    for pause in pauses:
        _add_from_chat(builder, pause)

    def route_from_start(state: Mapping[str, Any]) -> str:
        return next((p.from_chat for p in pauses if p.answer(state)), first)

    # The plain edge START -> first becomes the choice among them.
    builder.edges.discard((START, first))
    builder.add_conditional_edges(
        START, route_from_start, [first, *(pause.from_chat for pause in pauses)]
    )


def _add_from_chat(builder: Builder, pause: ChatPause) -> None:
    """`pause.from_chat`: the paused node run on the typed answer, with the node's own edges."""
    # add_node keeps every node as a Runnable (it runs with the node's own config: its runtime).
    node = cast("Runnable[Any, Any]", builder.nodes[pause.node].runnable)

    async def from_chat(state: Any, config: RunnableConfig) -> Any:
        answer = pause.answer(state)
        update = dict(await node.ainvoke({**state, pause.key: answer}, config) or {})
        return {pause.key: answer, **update, "messages": _once(state, update)}

    from_chat.__name__ = pause.from_chat
    builder.add_node(pause.from_chat, from_chat)
    for start, end in list(builder.edges):
        if start == pause.node:
            builder.add_edge(pause.from_chat, end)
    for name, branch in builder.branches.get(pause.node, {}).items():
        builder.branches[pause.from_chat][name] = branch


def _once(state: Mapping[str, Any], update: Mapping[str, Any]) -> list[Any]:
    """The node's messages, the answer it records (`Clarification: ...`) in place of the typed
    message (it takes that message's id), so the thread shows the answer once."""
    recorded = list(update.get("messages") or [])
    typed = state["messages"][-1]
    for index, message in enumerate(recorded):
        if isinstance(message, HumanMessage):
            recorded[index] = message.model_copy(update={"id": typed.id})
            break
    return recorded
