"""The researcher's tools: searching (pages read, summarized and stored as sources), MCP tools,
and running one turn's tool calls; the researcher's loop and compression are researcher.py."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolCall, ToolMessage
from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.errors import McpError
from research_studio.core.prompt_blocks import request_block
from research_studio.core.queries import is_bare_address
from research_studio.core.records import ErrorRecord, ModelCallRecord
from research_studio.core.urls import normalize_url
from research_studio.evidence.gathering import GatherRequest, PageText, read_pages
from research_studio.pipelines.kit.models import attempt, model_for
from research_studio.pipelines.kit.node_kit import (
    call_records,
    clip,
    error_record,
    node_tools,
)
from research_studio.pipelines.supervisor.mcp_tools import (
    MAX_MCP_CALLS_PER_TURN,
    McpResearchTool,
    read_tool,
    researcher_mcp_tools,
)
from research_studio.pipelines.supervisor.models import SUPERVISOR_MODELS
from research_studio.pipelines.supervisor.nodes.common import limits
from research_studio.pipelines.supervisor.prompts import (
    NO_RESULTS,
    NOT_SEARCHED,
    PAGE_SUMMARY_SYSTEM,
    PAGE_SUMMARY_USER,
    SEARCH_DESCRIPTION,
    SEARCH_RESULTS_LABEL,
    SOURCE_BLOCK,
    THINK_RESULT,
    fenced,
)
from research_studio.pipelines.supervisor.schemas import (
    PageSummary,
    SearchArgs,
)
from research_studio.pipelines.supervisor.state import (
    QuoteCandidate,
    ResearcherState,
    StoredSource,
)
from research_studio.pipelines.supervisor.tool_calls import COMPLETE, THINK, Tool, tool_result
from research_studio.services.clients import Services
from research_studio.services.extraction import extract_sentences, query_terms, select_chunks

SEARCH = Tool("search", SEARCH_DESCRIPTION, SearchArgs)
RESEARCHER_TOOLS = (SEARCH, THINK, COMPLETE)
MAX_QUERIES = 3
MAX_SOURCE_CHARS = 60_000  # of a page kept as a stored source (passages come from it)
SUMMARY_SENTENCES = 3


def topic_of(state: ResearcherState) -> str:
    return state.get("research_topic", "")


def _summary_fallback(config: Configuration, topic: str, page: PageText) -> str:
    """The page's most relevant sentences, verbatim (no model prose)."""
    findings = extract_sentences(
        config, request=topic, questions=[topic], url=page.result.url, text=page.text
    )
    sentences = [finding["quote"] for finding in findings[:SUMMARY_SENTENCES]]
    return " ".join(sentences) or page.result.snippet or page.text[:400]


async def _summarize(
    services: Services, config: Configuration, topic: str, page: PageText
) -> tuple[str, list[QuoteCandidate], list[ModelCallRecord], list[ErrorRecord]]:
    """A page's summary for the researcher and the excerpts the model says it copied."""
    if services.extraction.verbatim:
        return _summary_fallback(config, topic, page), [], [], []
    caller = model_for(services, SUPERVISOR_MODELS, "summarize_page", role="summarization")
    excerpt = "\n\n[...]\n\n".join(
        select_chunks(page.text, query_terms(topic), config.chunk_size, config.chunks_per_page)
    )
    messages = [
        SystemMessage(content=PAGE_SUMMARY_SYSTEM),
        HumanMessage(
            content=PAGE_SUMMARY_USER.format(
                topic=topic, title=page.title, url=page.result.url, text=fenced(excerpt)
            )
        ),
    ]
    errors: list[ErrorRecord] = []
    call = caller.structured(PageSummary, messages)
    summary = await attempt(call, "researcher_tools", errors, target=page.result.url)
    if summary is None:
        return _summary_fallback(config, topic, page), [], call_records(caller), errors
    url = normalize_url(page.result.url)
    quotes = [QuoteCandidate(url=url, quote=quote) for quote in clip(summary.key_excerpts, 3)]
    return summary.summary.strip(), quotes, call_records(caller), []


def stored_source(page: PageText) -> StoredSource:
    """A page as the store keeps it: its text, how it was obtained, when."""
    return StoredSource(
        url=normalize_url(page.result.url),
        title=page.title or page.result.url,
        content=page.text[:MAX_SOURCE_CHARS],
        extraction_method="search_raw" if page.result.content else "fetched",
        timestamp=time.time(),
        provider=page.result.provider,
        published=page.published,
    )


def turn_fanout(fanout: str, turn: int) -> str:
    """The fan-out of a supervisor round's researchers at one tool turn."""
    return f"{fanout}:{turn}"


def expect_researchers(services: Services, fanout: str, count: int) -> None:
    """A round's researchers, each expected at its first turn's share-out of pages."""
    services.page_shares.expect(turn_fanout(fanout, 1), range(count))


async def run_search(
    services: Services,
    config: Configuration,
    topic: str,
    queries: list[str],
    emit: Any,
    *,
    fanout: str = "",
    worker: int = 0,
) -> dict[str, Any]:
    """Our search as a tool: read the new pages the queries find (shared out among the round's
    researchers in their order when `fanout` is set), summarize each one."""
    task = GatherRequest(
        node="researcher_tools",
        queries=queries,
        request=request_block(topic),
        questions=[topic],
        known_urls=set(),
        fanout=fanout,
        worker=worker,
    )
    pages, gathered = await read_pages(services, task, emit=emit, parallel_searches=True)
    summaries = await asyncio.gather(*(_summarize(services, config, topic, p) for p in pages))
    return {
        "read": [
            (page, summary) for page, (summary, _, _, _) in zip(pages, summaries, strict=True)
        ],
        "sources": [stored_source(page) for page in pages],
        "quotes": [quote for _, quotes, _, _ in summaries for quote in quotes],
        "llm_calls": gathered.calls + [call for _, _, calls, _ in summaries for call in calls],
        "errors": gathered.errors + [error for _, _, _, errors in summaries for error in errors],
        "fetches": gathered.fetches,
        "searches": gathered.searches,
    }


def search_text(queries: list[str], read: list[tuple[PageText, str]]) -> str:
    """What one search call returns to the researcher: the summaries of its queries' pages."""
    mine = [(page, summary) for page, summary in read if page.query in queries]
    blocks = [
        SOURCE_BLOCK.format(number=number, title=page.title, url=page.result.url, summary=summary)
        for number, (page, summary) in enumerate(mine, 1)
    ]
    listed = "; ".join(queries)
    if not blocks:
        return NO_RESULTS.format(queries=listed)
    return f"{SEARCH_RESULTS_LABEL} {listed}\n\n" + "\n\n".join(blocks)


async def run_mcp_tool(
    services: Services,
    config: Configuration,
    topic: str,
    tool: McpResearchTool,
    arguments: dict[str, Any],
) -> dict[str, Any]:
    """An MCP tool as a source: its answer kept and summarized like a page; failures as data."""
    try:
        page = await read_tool(services, tool, arguments)
    except McpError as exc:
        return {
            "text": f"{tool.name} failed: {exc}",
            "sources": [],
            "quotes": [],
            "llm_calls": [],
            "errors": [error_record("researcher_tools", exc, tool.name)],
            "fetches": 0,
            "searches": [],
        }
    summary, quotes, calls, errors = await _summarize(services, config, topic, page)
    block = SOURCE_BLOCK.format(number=1, title=page.title, url=page.result.url, summary=summary)
    return {
        "text": block,
        "sources": [stored_source(page)],
        "quotes": quotes,
        "llm_calls": calls,
        "errors": errors,
        "fetches": 0,
        "searches": [],
    }


async def researcher_tools(
    state: ResearcherState, runtime: Runtime[Configuration]
) -> dict[str, Any]:
    """Run the turn's tool calls in parallel; done on ResearchComplete, no calls, or the limit."""
    config, services, emit = node_tools(runtime, "researcher_tools")
    message = state["researcher_messages"][-1]
    calls = list(message.tool_calls) if isinstance(message, AIMessage) else []
    complete = any(call["name"] == COMPLETE.name for call in calls)
    done = (
        complete or not calls or state.get("tool_call_iterations", 0) >= limits(config).tool_calls
    )
    topic = topic_of(state)
    # The turn's search calls run as one search of this researcher, shared out with the round's
    # other researchers at the same turn (same inputs, same pages), then split back per call.
    # A web address alone is a guess at a page, not a search: answered, not searched.
    queries_of = {
        number: clip(
            [query for query in call["args"]["queries"] if not is_bare_address(query)],
            MAX_QUERIES,
        )
        for number, call in enumerate(calls)
        if call["name"] == SEARCH.name
    }
    # Runs beside the turn's MCP calls; every search call waits for it.
    searching = asyncio.ensure_future(
        _turn_search(state, services, config, queries_of, emit, done=done)
    )
    mcp_tools = {tool.name: tool for tool in (await researcher_mcp_tools(services))[0]}
    # Bounded: a turn runs a few MCP calls; the rest are answered, not run.
    mcp_calls = [call["id"] for call in calls if call["name"] in mcp_tools]
    allowed = set(mcp_calls[:MAX_MCP_CALLS_PER_TURN])

    async def execute(number: int, call: ToolCall) -> tuple[ToolMessage, dict[str, Any]]:
        if call["name"] == SEARCH.name:
            read = (await searching)["read"]
            addresses = [query for query in call["args"]["queries"] if is_bare_address(query)]
            searched = queries_of[number] or not addresses
            pages = search_text(queries_of[number], read) if searched else ""
            note = NOT_SEARCHED.format(addresses="; ".join(addresses)) if addresses else ""
            return tool_result(call, "\n\n".join(part for part in (note, pages) if part)), {}
        if call["name"] in mcp_tools:
            if call["id"] not in allowed:
                limit = f"Not run: at most {MAX_MCP_CALLS_PER_TURN} MCP calls per turn."
                return tool_result(call, limit), {}
            tool = mcp_tools[call["name"]]
            found = await run_mcp_tool(services, config, topic, tool, dict(call["args"]))
            return tool_result(call, found["text"]), found
        if call["name"] == THINK.name:
            reflection = str(call["args"].get("reflection", ""))
            return tool_result(call, THINK_RESULT.format(reflection=reflection)), {}
        return tool_result(call, "Research complete."), {}

    outcomes = await asyncio.gather(*(execute(number, call) for number, call in enumerate(calls)))
    searched = await searching
    found = [extra for _, extra in outcomes if extra] + (
        [searched] if "sources" in searched else []
    )
    return {
        "researcher_messages": [result for result, _ in outcomes],
        "source_store": [source for extra in found for source in extra["sources"]],
        "quote_candidates": [quote for extra in found for quote in extra["quotes"]],
        "llm_calls": [call for extra in found for call in extra["llm_calls"]],
        "errors": [error for extra in found for error in extra["errors"]],
        "fetch_count": sum(extra["fetches"] for extra in found),
        "searches_done": [search for extra in found for search in extra["searches"]],
        "done": done,
    }


async def _turn_search(
    state: ResearcherState,
    services: Services,
    config: Configuration,
    queries_of: dict[int, list[str]],
    emit: Any,
    *,
    done: bool,
) -> dict[str, Any]:
    """This turn's searches in one (nothing when it searches nothing), in the round's fan-out:
    the researcher posts to it or leaves it, and retires from later turns when done."""
    turn, prefix = state.get("tool_call_iterations", 0), state.get("fanout", "")
    worker = state.get("researcher_index", 0)
    fanout = turn_fanout(prefix, turn) if prefix else ""
    shares = services.page_shares
    if fanout and turn > 1:
        shares.follow(fanout, after=turn_fanout(prefix, turn - 1))
    queries = list(dict.fromkeys(query for listed in queries_of.values() for query in listed))
    try:
        if not queries:
            if fanout:
                shares.leave(fanout, worker)
            return {"read": []}
        topic = topic_of(state)
        return await run_search(
            services, config, topic, queries, emit, fanout=fanout, worker=worker
        )
    except BaseException:
        done = True
        raise
    finally:
        if fanout and done:
            shares.retire(fanout, worker)
