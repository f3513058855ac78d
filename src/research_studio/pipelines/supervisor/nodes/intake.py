"""Intake: store gating, clarification, and the research brief (with optional pre-search context)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.errors import ProviderError
from research_studio.core.prompt_blocks import request_block
from research_studio.core.records import ErrorRecord, ModelCallRecord
from research_studio.pipelines.kit.models import attempt, model_for
from research_studio.pipelines.kit.node_kit import (
    call_records,
    clarification_update,
    clip,
    emitter,
    error_record,
    model_ready,
    node_tools,
    query_of,
    run_start,
)
from research_studio.pipelines.kit.referents import unasked_reading
from research_studio.pipelines.supervisor.models import SUPERVISOR_MODELS
from research_studio.pipelines.supervisor.nodes.common import today
from research_studio.pipelines.supervisor.prompts import (
    BRIEF_CONTEXT_BLOCK,
    BRIEF_CONTEXT_SYSTEM,
    BRIEF_CONTEXT_USER,
    BRIEF_FEEDBACK_BLOCK,
    BRIEF_LABEL,
    BRIEF_SYSTEM,
    BRIEF_USER,
    CLARIFY_SYSTEM,
    CLARIFY_USER,
)
from research_studio.pipelines.supervisor.schemas import (
    BriefContext,
    ClarifyWithUser,
    ResearchQuestion,
)
from research_studio.pipelines.supervisor.state import AgentState, override
from research_studio.services.clients import Services

NO_STORE = "no LangGraph store was available to keep the sources it is checked against"
NO_THREAD = "the run has no thread id to keep its sources under"


def store_scope(runtime: Runtime[Configuration]) -> tuple[str, ...] | None:
    """The store namespace of this run's sources, or None without a store or a thread id."""
    info = getattr(runtime, "execution_info", None)
    thread_id = getattr(info, "thread_id", None) if info is not None else None
    if runtime.store is None or not thread_id:
        return None
    return ("research_studio", "supervisor", str(thread_id), "sources")


async def check_store(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Whether a LangGraph store keeps this run's sources; without one Verified Findings is off."""
    query = query_of(state, runtime.context)
    await model_ready(runtime)  # chosen here, off the event loop, before any node needs it
    info = getattr(runtime, "execution_info", None)
    if runtime.store is None:
        note = NO_STORE
    elif store_scope(runtime) is None or info is None:
        note = NO_THREAD
    else:
        note = ""
    emitter(runtime, "check_store")(
        "store available: sources are kept for Verified Findings"
        if not note
        else f"Verified Findings disabled: {note}"
    )
    return {
        "query": query,
        "verified_disabled": bool(note),
        "store_note": note,
        **run_start(state, query),
    }


async def clarify_with_user(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """A clarifying question when the request needs one (and clarification is allowed)."""
    config = runtime.context
    if not config.allow_clarification or state.get("user_clarification", "").strip():
        return {"needs_clarification": False}
    emitter(runtime, "clarify_with_user")("checking whether the request is clear")
    caller = model_for(runtime, SUPERVISOR_MODELS, "clarify_with_user", role="research")
    errors: list[ErrorRecord] = []
    messages = [
        SystemMessage(content=CLARIFY_SYSTEM),
        HumanMessage(content=CLARIFY_USER.format(request=request_block(state["query"]))),
    ]
    call = caller.structured(ClarifyWithUser, messages)
    result = await attempt(call, "clarify_with_user", errors, first=True)
    if result is None:
        result = ClarifyWithUser()  # taken as clear and as written
    question = result.question.strip()
    needed = result.need_clarification and bool(question)
    update: dict[str, Any] = {
        "needs_clarification": needed,
        "clarification_question": question if needed else "",
        "clarification_options": clip(result.options, 5) if needed else [],
        "llm_calls": call_records(caller),
        "errors": errors,
    }
    if not needed and result.verification.strip():
        update["messages"] = [AIMessage(content=result.verification.strip())]
    return update


def clarify(state: AgentState) -> dict[str, Any]:
    """The human-in-the-loop stop: the caller injects `user_clarification` before this runs.

    An empty answer (no terminal, no pause, MCP) means no one could be asked: code takes the
    likeliest reading the options name (the first; options that ask for a detail name none),
    the brief is written for it, the report opens by saying so, and the stored sources only
    about the other readings are kept out (`evidence.stored_sources`).
    """
    update = clarification_update(state)
    if update["user_clarification"] or not state.get("needs_clarification"):
        return update
    reading = unasked_reading(
        "",
        state.get("clarification_question", ""),
        state.get("clarification_options", []),
        state.get("query", ""),
    )
    return {
        "user_clarification": reading.option,
        "referent_notice": reading.notice,
        "referents": reading.candidates,
    }


async def _brief_context(
    services: Services, config: Configuration, request: str, query: str
) -> tuple[str, list[ModelCallRecord], list[ErrorRecord]]:
    """Entities, events and metrics from a preliminary search ("" when it finds nothing)."""
    try:
        async with services.search_limiter:
            results = await services.search.search(query, config.search_results)
    except ProviderError as exc:
        return "", [], [error_record("write_research_brief", exc, query)]
    snippets = "\n".join(
        f"- {result.title}: {result.snippet}" for result in results if result.snippet.strip()
    )
    if not snippets or services.extraction.verbatim:
        return snippets, [], []  # a small model would only garble them: show them as they are
    caller = model_for(services, SUPERVISOR_MODELS, "write_research_brief", role="summarization")
    messages = [
        SystemMessage(content=BRIEF_CONTEXT_SYSTEM),
        HumanMessage(content=BRIEF_CONTEXT_USER.format(request=request, snippets=snippets)),
    ]
    errors: list[ErrorRecord] = []
    found = await attempt(caller.structured(BriefContext, messages), "write_research_brief", errors)
    if found is None:
        return snippets, call_records(caller), errors
    lines = [
        f"{label}: {'; '.join(items)}"
        for label, items in (
            ("Key entities", found.key_entities),
            ("Recent events", found.recent_events),
            ("Metrics", found.metrics),
        )
        if items
    ]
    return "\n".join(lines) or snippets, call_records(caller), []


def fallback_brief(query: str, clarification: str) -> str:
    """The brief when no model wrote one: the request itself."""
    brief = f"I want a researched, sourced answer to: {query}"
    return f"{brief} ({clarification})" if clarification else brief


async def write_research_brief(
    state: AgentState, runtime: Runtime[Configuration]
) -> dict[str, Any]:
    """The research brief (structured ResearchQuestion), revised with council feedback if any."""
    config, services, emit = node_tools(runtime, "write_research_brief")
    clarification = state.get("user_clarification", "")
    request = request_block(state["query"], clarification)
    calls: list[ModelCallRecord] = []
    errors: list[ErrorRecord] = []
    context = state.get("brief_context", "")
    if config.enable_brief_context and "brief_context" not in state:
        emit("searching for context for the brief")
        context, calls, errors = await _brief_context(services, config, request, state["query"])
    revision = state.get("council_revision_count", 0)
    feedback = state.get("feedback_on_brief", [])
    feedback_block = ""
    if revision and feedback:
        feedback_block = BRIEF_FEEDBACK_BLOCK.format(
            brief=state.get("research_brief", ""), feedback="\n".join(f"- {f}" for f in feedback)
        )
    emit("revising the research brief" if feedback_block else "writing the research brief")
    caller = model_for(services, SUPERVISOR_MODELS, "write_research_brief", role="research")
    previous = state.get("research_brief") or fallback_brief(state["query"], clarification)
    messages = [
        SystemMessage(content=BRIEF_SYSTEM.format(today=today())),
        HumanMessage(
            content=BRIEF_USER.format(
                request=request,
                context=BRIEF_CONTEXT_BLOCK.format(context=context) if context else "",
                feedback=feedback_block,
            )
        ),
    ]
    call = caller.structured(ResearchQuestion, messages)
    result = await attempt(call, "write_research_brief", errors, fail_fast=True)
    brief = (result.research_brief.strip() if result is not None else "") or previous
    return {
        "research_brief": brief,
        "brief_context": context,
        "supervisor_messages": override([]),  # the supervisor starts from the (new) brief
        "llm_calls": [*calls, *call_records(caller)],
        "errors": errors,
        "messages": [AIMessage(content=f"{BRIEF_LABEL} {brief}")],
    }
