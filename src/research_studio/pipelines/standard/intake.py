"""Intake nodes: understand the request, take a clarification, plan the research."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from research_studio.core.config import Configuration
from research_studio.core.prompt_blocks import request_block
from research_studio.core.queries import dedupe_queries, echoes_instructions
from research_studio.core.records import ErrorRecord
from research_studio.pipelines.kit.models import attempt, model_for
from research_studio.pipelines.kit.node_kit import (
    call_records,
    clarification_update,
    clip,
    emitter,
    model_ready,
    query_of,
    run_start,
)
from research_studio.pipelines.kit.plan_review import plan_message
from research_studio.pipelines.kit.referents import unasked_reading
from research_studio.pipelines.standard.models import STANDARD_MODELS
from research_studio.pipelines.standard.prompts import (
    PLAN_SYSTEM,
    PLAN_USER,
    UNDERSTAND_SYSTEM,
    UNDERSTAND_USER,
)
from research_studio.pipelines.standard.schemas import ResearchPlan, Understanding
from research_studio.pipelines.standard.state import ResearchState

MAX_INITIAL_SEARCHES = 6


async def understand(state: ResearchState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Judge whether the request is clear; prepare a question with options when it is not."""
    emitter(runtime, "understand")("analysing the request")
    await model_ready(runtime)  # the model is chosen here, off the event loop
    caller = model_for(runtime, STANDARD_MODELS, "understand")
    query = query_of(state, runtime.context)
    errors: list[ErrorRecord] = []
    messages = [
        SystemMessage(content=UNDERSTAND_SYSTEM),
        HumanMessage(content=UNDERSTAND_USER.format(request=request_block(query))),
    ]
    result = await attempt(
        caller.structured(Understanding, messages), "understand", errors, first=True
    )
    if result is None:
        # Without an analysis the request is taken as clear and as written.
        result = Understanding(understanding=query, is_clear=True)
    options = clip(result.clarification_options, 5)
    question = result.clarification_question.strip()
    ambiguous = not result.is_clear and bool(question) and len(options) >= 2
    update: dict[str, Any] = {
        "query": query,
        "understanding": result.understanding.strip() or query,
        "is_ambiguous": ambiguous,
        "ambiguity_kinds": list(result.ambiguity_kinds),
        "clarification_question": question if ambiguous else "",
        "clarification_options": options if ambiguous else [],
        "llm_calls": call_records(caller),
        "errors": errors,
        **run_start(state, query),
    }
    return update


def clarify(state: ResearchState) -> dict[str, Any]:
    """The human-in-the-loop stop: the caller injects `user_clarification` before this runs.

    An empty answer (no terminal, no pause, MCP) means no one could be asked: code takes the
    likeliest reading the options name (the first; options that ask for a detail name none),
    the report opens by saying so, and the sources only about the other readings are kept out
    (`research._merge_progress`), never a merge of the readings.
    """
    update = clarification_update(state)
    if update["user_clarification"] or not state.get("is_ambiguous"):
        return update
    reading = unasked_reading(
        "",
        state.get("clarification_question", ""),
        state.get("clarification_options", []),
        state.get("understanding", "") or state.get("query", ""),
    )
    return {
        "user_clarification": reading.option,
        "referent_notice": reading.notice,
        "referents": reading.candidates,
    }


async def plan(state: ResearchState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Research questions, aspects and first searches; resets the run's accumulators."""
    config = runtime.context
    emitter(runtime, "plan")("planning the research")
    caller = model_for(runtime, STANDARD_MODELS, "plan")
    request = request_block(state["query"], state.get("user_clarification", ""))
    errors: list[ErrorRecord] = []
    messages = [
        SystemMessage(
            content=PLAN_SYSTEM.format(
                today=state["today"], max_questions=config.max_research_questions
            )
        ),
        HumanMessage(
            content=PLAN_USER.format(request=request, understanding=state.get("understanding", ""))
        ),
    ]
    result = await attempt(caller.structured(ResearchPlan, messages), "plan", errors)
    if result is None:
        # Without a plan the request itself is the only question worth searching.
        questions, aspects, searches = [state["query"]], [], [state["query"]]
    else:
        # The plan's breadth is the question's: its distinct research questions, up to the setting.
        instructions = str(messages[0].content)

        def proposed(texts: list[str]) -> list[str]:
            return [text for text in texts if not echoes_instructions(text, instructions, request)]

        questions = plan_questions(proposed(result.research_questions), config)
        aspects = clip(proposed(result.aspects_to_cover), 8)
        # The user's own words are always searched: weak planners still find the obvious sources.
        searches = dedupe_queries(
            [state["query"], *proposed(result.searches)], [], config.query_similarity_threshold
        )
    return {
        "research_questions": questions or [state["query"]],
        "aspects_to_cover": aspects,
        "pending_searches": searches[:MAX_INITIAL_SEARCHES] or [state["query"]],
        "iteration": 0,
        "searches_done": [],
        "fetched_urls": [],
        "sources": [],
        "evidence": Overwrite([]),
        "worker_results": Overwrite([]),
        "done_workers": Overwrite(0),
        "collected_results": 0,
        "coverage": 0.0,
        "coverage_history": [],
        "gaps": [],
        "stop_reason": "",
        "llm_calls": call_records(caller),
        "errors": errors,
        "messages": [plan_message("Plan:\n" + "\n".join(f"- {q}" for q in questions))],
    }


def plan_questions(proposed: list[str], config: Configuration) -> list[str]:
    """The research questions a plan keeps: the distinct ones proposed (a near-duplicate says
    nothing new), at most `max_research_questions`."""
    distinct = dedupe_queries(proposed, [], config.query_similarity_threshold)
    return distinct[: config.max_research_questions]
