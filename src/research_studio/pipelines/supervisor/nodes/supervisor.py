"""The supervisor sub-graph: delegate topics with tool calls, run researchers in parallel, stop."""

from __future__ import annotations

import asyncio
import hashlib
import warnings
from typing import Any, Literal, cast

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolCall, ToolMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Durability

from research_studio.core.config import Configuration
from research_studio.core.errors import ResearchStudioError
from research_studio.core.queries import content_words
from research_studio.core.records import ErrorRecord
from research_studio.pipelines.kit.models import attempt, model_for
from research_studio.pipelines.kit.node_kit import (
    call_records,
    emitter,
    error_record,
    services_of,
)
from research_studio.pipelines.supervisor.models import SUPERVISOR_MODELS
from research_studio.pipelines.supervisor.nodes.common import limits, today
from research_studio.pipelines.supervisor.nodes.intake import store_scope
from research_studio.pipelines.supervisor.nodes.researcher import (
    researcher_graph,
    researcher_input,
)
from research_studio.pipelines.supervisor.nodes.researcher_tools import expect_researchers
from research_studio.pipelines.supervisor.prompts import (
    BRIEF_LABEL,
    CONDUCT_RESEARCH_DESCRIPTION,
    FINDINGS_LABEL,
    LEAD_SYSTEM,
    THINK_RESULT,
    TOO_MANY_UNITS,
)
from research_studio.pipelines.supervisor.schemas import (
    ConductResearchArgs,
)
from research_studio.pipelines.supervisor.state import (
    AgentState,
    ResearcherOutput,
    StoredSource,
    SupervisorState,
    override,
)
from research_studio.pipelines.supervisor.stopping import supervisor_stop_reason
from research_studio.pipelines.supervisor.tool_calls import (
    COMPLETE,
    THINK,
    Tool,
    call_tools,
    tool_result,
)

CONDUCT = Tool("ConductResearch", CONDUCT_RESEARCH_DESCRIPTION, ConductResearchArgs)
SUPERVISOR_TOOLS = (CONDUCT, COMPLETE, THINK)
# The sub-graphs keep no checkpoints; left to inherit the runner's "sync" durability, LangGraph
# 1.2 fails looking for a checkpoint it never started (and warns that "exit" has no effect).
SUBGRAPH_DURABILITY: Durability = "exit"
warnings.filterwarnings("ignore", "`durability` has no effect", UserWarning)


async def supervisor(state: SupervisorState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """One turn of the lead researcher: plan, delegate topics, or declare the research complete."""
    config = runtime.context
    lim = limits(config)
    brief = state.get("research_brief", "")
    history = list(state.get("supervisor_messages", []))
    seeded = not history
    if seeded:
        history = [HumanMessage(content=f"{BRIEF_LABEL} {brief}")]
    turn_number = state.get("research_iterations", 0) + 1
    emitter(runtime, "supervisor")(f"supervisor turn {turn_number}")
    caller = model_for(runtime, SUPERVISOR_MODELS, "supervisor", role="research")
    system = LEAD_SYSTEM.format(today=today(), parallel=lim.parallel, turns=lim.turns)
    errors: list[ErrorRecord] = []
    call = call_tools(caller, SUPERVISOR_TOOLS, [SystemMessage(content=system), *history])
    turn = await attempt(call, "supervisor", errors)
    message = turn.message if turn is not None else AIMessage(content="")
    errors = turn.errors if turn is not None else errors
    if turn_number == 1 and not any(c["name"] == CONDUCT.name for c in message.tool_calls):
        # A first turn that delegates nothing (a failed or weak model): the brief itself is
        # delegated, so the research still happens.
        delegate = ToolCall(name=CONDUCT.name, args={"research_topic": brief}, id="call_brief")
        message = AIMessage(content=message.content, tool_calls=[delegate])
    return {
        "supervisor_messages": override([*history, message]) if seeded else [message],
        "research_iterations": turn_number,
        "llm_calls": call_records(caller),
        "errors": errors,
    }


def _dedupe(sources: list[StoredSource], known: set[str]) -> list[StoredSource]:
    """Sources whose URL is not yet known (the set is updated)."""
    fresh = []
    for source in sources:
        if source["url"] not in known:
            known.add(source["url"])
            fresh.append(source)
    return fresh


def store_key(url: str) -> str:
    """A source's key in the store: a digest of its normalized URL."""
    return hashlib.sha256(url.encode()).hexdigest()[:32]


async def supervisor_tools(
    state: SupervisorState, runtime: Runtime[Configuration]
) -> dict[str, Any]:
    """Run the supervisor's calls: reflections, up to N researchers in parallel; decide to stop."""
    config = runtime.context
    lim = limits(config)
    emit = emitter(runtime, "supervisor_tools")
    message = state["supervisor_messages"][-1]
    calls = list(message.tool_calls) if isinstance(message, AIMessage) else []
    complete = any(call["name"] == COMPLETE.name for call in calls)
    research = [call for call in calls if call["name"] == CONDUCT.name]
    run_now = research[: lim.parallel]
    if run_now:
        emit(f"running {len(run_now)} researcher(s) in parallel", researchers=len(run_now))
    fanout = f"researcher:{state.get('research_iterations', 0)}"
    expect_researchers(services_of(runtime), fanout, len(run_now))
    outcomes = await asyncio.gather(
        *(
            researcher_graph.ainvoke(
                researcher_input(str(call["args"]["research_topic"]), index, fanout),
                context=config,
                durability=SUBGRAPH_DURABILITY,
            )
            for index, call in enumerate(run_now)
        ),
        return_exceptions=True,
    )
    replies: list[ToolMessage] = []
    update: dict[str, Any] = {
        "notes": [],
        "raw_notes": [],
        "source_store": [],
        "quote_candidates": [],
        "searches_done": [],
        "llm_calls": [],
        "errors": [],
        "fetch_count": 0,
    }
    known = {source["url"] for source in state.get("source_store", [])}
    for call, outcome in zip(run_now, outcomes, strict=True):
        topic = str(call["args"]["research_topic"])
        if isinstance(outcome, BaseException):
            if not isinstance(outcome, ResearchStudioError):
                raise outcome
            update["errors"].append(error_record("supervisor_tools", outcome, topic[:200]))
            replies.append(tool_result(call, f"Research failed: {outcome}"))
            continue
        result = cast(ResearcherOutput, outcome)
        compressed = result.get("compressed_research", "")
        replies.append(tool_result(call, f"{FINDINGS_LABEL} {topic}\n\n{compressed}"))
        update["notes"].append(compressed)
        update["raw_notes"].extend(result.get("raw_notes", []))
        update["source_store"].extend(_dedupe(result.get("source_store", []), known))
        update["quote_candidates"].extend(result.get("quote_candidates", []))
        update["searches_done"].extend(result.get("searches_done", []))
        update["llm_calls"].extend(result.get("llm_calls", []))
        update["errors"].extend(result.get("errors", []))
        update["fetch_count"] += result.get("fetch_count", 0)
    for call in research[lim.parallel :]:
        replies.append(tool_result(call, TOO_MANY_UNITS.format(limit=lim.parallel)))
    for call in calls:
        if call["name"] == THINK.name:
            reflection = str(call["args"].get("reflection", ""))
            replies.append(tool_result(call, THINK_RESULT.format(reflection=reflection)))
        elif call["name"] == COMPLETE.name:
            replies.append(tool_result(call, "Research complete."))
    topics = [str(call["args"]["research_topic"]) for call in run_now]
    delegated = [*state.get("research_topics", []), *topics]
    sources = [*state.get("source_store", []), *update["source_store"]]
    stop = supervisor_stop_reason(
        rounds_done=state.get("research_iterations", 0),
        max_iterations=lim.turns,
        tool_calls=len(calls),
        research_complete=complete,
    )
    if stop:
        emit(f"research stops: {stop}", sources=len(known))
    return {
        **update,
        "supervisor_messages": replies,
        "stop_reason": stop,
        "research_topics": topics,
        "coverage_history": [topic_coverage(delegated, sources)],
    }


def topic_coverage(topics: list[str], sources: list[StoredSource]) -> float:
    """The share of the delegated topics some stored source is about: one that holds at least
    half of the topic's content words. Code decides; the supervisor only named the topics."""
    if not topics:
        return 0.0
    texts = [set(content_words(f"{s['title']} {s['content']}")) for s in sources]

    def covered(topic: str) -> bool:
        words = set(content_words(topic))
        return any(len(words & text) * 2 >= len(words) for text in texts)

    return round(sum(1 for topic in topics if covered(topic)) / len(topics), 3)


def route_after_supervisor_tools(state: SupervisorState) -> Literal["supervisor", "__end__"]:
    """Another supervisor turn until supervisor_tools gives a stop reason."""
    return "__end__" if state.get("stop_reason") else "supervisor"


def build_supervisor_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    """supervisor → supervisor_tools → (supervisor | end); run whole inside one main-graph step."""
    builder = StateGraph(SupervisorState, context_schema=Configuration)
    builder.add_node("supervisor", supervisor)
    builder.add_node("supervisor_tools", supervisor_tools)
    builder.add_edge(START, "supervisor")
    builder.add_edge("supervisor", "supervisor_tools")
    builder.add_conditional_edges(
        "supervisor_tools", route_after_supervisor_tools, ["supervisor", END]
    )
    return builder.compile(checkpointer=False, name="research_supervisor")


supervisor_graph = build_supervisor_graph()


async def research_supervisor(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """The supervisor sub-graph run to its end; its findings join the run and the store."""
    brief = state.get("human_approved_brief") or state.get("research_brief", "")
    # The sub-graph starts with empty accumulators, so what it returns is exactly what is new.
    result = await supervisor_graph.ainvoke(
        SupervisorState(
            research_brief=brief,
            supervisor_messages=list(state.get("supervisor_messages", [])),
            research_iterations=0,
        ),
        context=runtime.context,
        durability=SUBGRAPH_DURABILITY,
    )
    known = {source["url"] for source in state.get("source_store", [])}
    sources = _dedupe(result.get("source_store", []), known)
    scope = store_scope(runtime)
    if scope is not None and runtime.store is not None:
        for source in sources:
            await runtime.store.aput(scope, store_key(source["url"]), dict(source))
    return {
        "supervisor_messages": override(result.get("supervisor_messages", [])),
        "research_iterations": result.get("research_iterations", 0),
        "notes": result.get("notes", []),
        "raw_notes": result.get("raw_notes", []),
        "source_store": sources,
        "quote_candidates": result.get("quote_candidates", []),
        "searches_done": result.get("searches_done", []),
        "stop_reason": result.get("stop_reason", ""),
        "research_topics": result.get("research_topics", []),
        "coverage_history": result.get("coverage_history", []),
        "llm_calls": result.get("llm_calls", []),
        "errors": result.get("errors", []),
        "fetch_count": result.get("fetch_count", 0),
    }
