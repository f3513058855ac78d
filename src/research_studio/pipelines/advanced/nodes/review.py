"""review_plan: the person's reply to the plan (paused before this node) applied to the plan."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.pipelines.advanced.state import (
    AgentState,
    PlanQuery,
    ResearchPlan,
    TreeQuestion,
)
from research_studio.pipelines.kit.plan_review import (
    best_section,
    parse_reply,
    plan_text,
    short_note,
    with_note,
)


def advanced_plan_text(state: Mapping[str, Any]) -> str:
    """The plan as shown for review: primary questions, their searches, the outline."""
    plan = state["plan"]
    return plan_text(
        [node["question"] for node in plan["primary"]],
        [query["query"] for query in plan["queries"]],
        plan["outline"],
    )


def _node(question: str, outline: list[str], queries: list[str] | None = None) -> TreeQuestion:
    return TreeQuestion(
        question=question,
        queries=queries or [question],
        target_sources=[],
        priority=1.0,
        section=best_section(question, outline),
    )


def _flat(nodes: list[TreeQuestion]) -> list[PlanQuery]:
    flat: list[PlanQuery] = []
    for node in nodes:
        for query in node["queries"]:
            qid = f"Q{len(flat) + 1}"
            flat.append(PlanQuery(qid=qid, query=query, section=node["section"], priority=1.0))
    return flat


async def review_plan(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Approval keeps the plan; an edited list replaces it; free text is added to it."""
    edit = parse_reply(state.get("plan_feedback", ""))
    plan = state["plan"]
    outline = (
        edit.outline or list(plan["outline"]) if edit.kind == "list" else list(plan["outline"])
    )
    update: dict[str, Any] = {"plan_feedback": ""}
    if edit.kind == "list":
        primary = [_node(q, outline) for q in edit.questions] or [
            {**node, "section": best_section(node["question"], outline)} for node in plan["primary"]
        ]
        if edit.searches:  # searches the person listed, each under the question it fits best
            primary = [{**node, "queries": []} for node in primary]
            for search in edit.searches:
                target = best_section(search, [node["question"] for node in primary])
                next(n for n in primary if n["question"] == target)["queries"].append(search)
            primary = [node for node in primary if node["queries"]]
        secondary: list[TreeQuestion] = []
    elif edit.kind == "text" and edit.note:
        update["user_clarification"] = with_note(state.get("user_clarification", ""), edit.note)
        primary = list(plan["primary"])
        if short_note(edit.note):
            topic = plan["topic"] or state.get("query", "")
            primary.append(_node(edit.note, outline, [f"{topic} {edit.note}"]))
        secondary = list(plan["secondary"])
    else:
        return update
    update["plan"] = ResearchPlan(
        topic=plan["topic"],
        outline=outline,
        primary=primary,
        secondary=secondary,
        queries=_flat(primary + secondary),
        search_strategy=plan["search_strategy"],
    )
    return update
