"""The researcher sub-graph: a ReAct loop over our search (with page summaries), then compression."""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolCall, ToolMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.records import ErrorRecord
from research_studio.core.urls import normalize_url
from research_studio.pipelines.kit.models import attempt, model_for
from research_studio.pipelines.kit.node_kit import (
    call_records,
    emitter,
    services_of,
)
from research_studio.pipelines.supervisor.mcp_tools import (
    researcher_mcp_tools,
)
from research_studio.pipelines.supervisor.models import SUPERVISOR_MODELS
from research_studio.pipelines.supervisor.nodes.common import limits, today
from research_studio.pipelines.supervisor.nodes.researcher_tools import (
    RESEARCHER_TOOLS,
    SEARCH,
    researcher_tools,
    topic_of,
)
from research_studio.pipelines.supervisor.prompts import (
    COMPRESS_SYSTEM,
    COMPRESS_USER,
    MCP_TOOLS_NOTE,
    NO_RESULTS,
    RESEARCHER_SYSTEM,
    TOPIC_LABEL,
)
from research_studio.pipelines.supervisor.schemas import (
    CompressedResearch,
)
from research_studio.pipelines.supervisor.state import (
    QuoteCandidate,
    ResearcherOutput,
    ResearcherState,
)
from research_studio.pipelines.supervisor.tool_calls import COMPLETE, call_tools


async def researcher(state: ResearcherState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """One tool-calling turn: search, reflect, or say the research is complete."""
    config = runtime.context
    caller = model_for(runtime, SUPERVISOR_MODELS, "researcher", role="research")
    system = RESEARCHER_SYSTEM.format(today=today(), calls=limits(config).tool_calls)
    turns = state.get("tool_call_iterations", 0)
    mcp_tools, errors = await researcher_mcp_tools(services_of(runtime))
    if mcp_tools:
        system += MCP_TOOLS_NOTE
    gathering = {SEARCH.name, *(tool.name for tool in mcp_tools)}
    call = call_tools(
        caller,
        (*RESEARCHER_TOOLS, *mcp_tools),
        [SystemMessage(content=system), *state["researcher_messages"]],
    )
    turn = await attempt(call, "researcher", errors, target=topic_of(state))
    message = turn.message if turn is not None else AIMessage(content="")
    errors = errors + turn.errors if turn is not None else errors
    if turns == 0 and not any(call["name"] in gathering for call in message.tool_calls):
        # A first turn that searches nothing (a failed or weak model): the topic is searched.
        search = ToolCall(name=SEARCH.name, args={"queries": [topic_of(state)]}, id="call_topic")
        message = AIMessage(content=message.content, tool_calls=[search])
    return {
        "researcher_messages": [message],
        "tool_call_iterations": turns + 1,
        "llm_calls": call_records(caller),
        "errors": errors,
    }


def _results_text(state: ResearcherState) -> str:
    """What the researcher's tools returned and what it reflected, in order."""
    parts = []
    for message in state.get("researcher_messages", []):
        # Search, think and MCP tool results; not the "Research complete." acknowledgement.
        if isinstance(message, ToolMessage) and message.name != COMPLETE.name:
            parts.append(str(message.content))
    return "\n\n".join(parts)


async def compress_research(
    state: ResearcherState, runtime: Runtime[Configuration]
) -> dict[str, Any]:
    """The researcher's findings cleaned up (compression model), with the passages they rest on."""
    services = services_of(runtime)
    topic = topic_of(state)
    results = _results_text(state)
    emitter(runtime, "compress_research")(f"compressing the findings on: {topic[:80]}")
    if not state.get("source_store") or services.extraction.verbatim:
        # Nothing read, or a model too small to rewrite it: the summaries as they are.
        return {
            "compressed_research": results or NO_RESULTS.format(queries=topic),
            "raw_notes": [results],
        }
    caller = model_for(services, SUPERVISOR_MODELS, "compress_research", role="compression")
    errors: list[ErrorRecord] = []
    messages = [
        SystemMessage(content=COMPRESS_SYSTEM),
        HumanMessage(content=COMPRESS_USER.format(topic=topic, results=results)),
    ]
    call = caller.structured(CompressedResearch, messages)
    compressed = await attempt(call, "compress_research", errors, target=topic)
    findings, quotes = results, []
    if compressed is not None:
        findings = compressed.findings.strip() or results
        quotes = [
            QuoteCandidate(url=normalize_url(quote.url), quote=quote.quote.strip())
            for quote in compressed.quotes
            if quote.quote.strip()
        ]
    return {
        "compressed_research": findings,
        "raw_notes": [results],
        "quote_candidates": quotes,
        "llm_calls": call_records(caller),
        "errors": errors,
    }


def route_after_tools(state: ResearcherState) -> Literal["researcher", "compress_research"]:
    """Back to the researcher until its tools say it is done."""
    return "compress_research" if state.get("done") else "researcher"


def build_researcher_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    """researcher → researcher_tools → (researcher | compress_research); no checkpoints of its own."""
    builder = StateGraph(
        ResearcherState, context_schema=Configuration, output_schema=ResearcherOutput
    )
    builder.add_node("researcher", researcher)
    builder.add_node("researcher_tools", researcher_tools)
    builder.add_node("compress_research", compress_research)
    builder.add_edge(START, "researcher")
    builder.add_edge("researcher", "researcher_tools")
    builder.add_conditional_edges(
        "researcher_tools", route_after_tools, ["researcher", "compress_research"]
    )
    builder.add_edge("compress_research", END)
    # Several researchers run inside one supervisor step: checkpoints would share a namespace.
    return builder.compile(checkpointer=False, name="researcher")


researcher_graph = build_researcher_graph()


def researcher_input(topic: str, index: int = 0, fanout: str = "") -> ResearcherState:
    """A researcher's starting state: its topic as the first message, its place in its round."""
    return ResearcherState(
        researcher_messages=[HumanMessage(content=f"{TOPIC_LABEL} {topic}")],
        research_topic=topic,
        tool_call_iterations=0,
        researcher_index=index,
        fanout=fanout,
    )
