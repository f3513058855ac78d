"""review_plan: the person's reply to the plan (paused before this node) applied to the plan."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.queries import dedupe_queries
from research_studio.pipelines.kit.plan_review import parse_reply, plan_text, short_note, with_note
from research_studio.pipelines.standard.intake import MAX_INITIAL_SEARCHES
from research_studio.pipelines.standard.state import ResearchState


def standard_plan_text(state: Mapping[str, Any]) -> str:
    """The plan as shown for review."""
    return plan_text(
        state.get("research_questions", []),
        state.get("pending_searches", []),
        state.get("aspects_to_cover", []),
    )


async def review_plan(state: ResearchState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Approval keeps the plan; an edited list replaces it; free text is added to it."""
    edit = parse_reply(state.get("plan_feedback", ""))
    query = state["query"]
    threshold = runtime.context.query_similarity_threshold
    most = runtime.context.max_research_questions
    questions = list(state.get("research_questions", []))
    searches = list(state.get("pending_searches", []))
    aspects = list(state.get("aspects_to_cover", []))
    update: dict[str, Any] = {}
    if edit.kind == "list":
        questions = edit.questions[:most] or questions
        aspects = edit.outline or aspects
        # New questions without new searches: each question is searched as written.
        searches = edit.searches or dedupe_queries([query, *questions], [], threshold)
    elif edit.kind == "text" and edit.note:
        update["user_clarification"] = with_note(state.get("user_clarification", ""), edit.note)
        if short_note(edit.note):
            questions = [*questions, edit.note][-most:]
            searches = dedupe_queries([f"{query} {edit.note}", *searches], [], threshold)
    else:
        return {"plan_feedback": ""}
    update.update(
        research_questions=questions,
        aspects_to_cover=aspects,
        pending_searches=searches[:MAX_INITIAL_SEARCHES] or [query],
        plan_feedback="",
        messages=[
            AIMessage(content="Plan as reviewed:\n" + "\n".join(f"- {q}" for q in questions))
        ],
    )
    return update
