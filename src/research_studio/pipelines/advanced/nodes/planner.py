"""planner: outline, research tree and a flat, rule-abiding query list."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.prompt_blocks import NONE, inline
from research_studio.core.queries import content_words, is_bare_address
from research_studio.core.records import ErrorRecord
from research_studio.pipelines.advanced.models import ADVANCED_MODELS
from research_studio.pipelines.advanced.nodes.query_analyzer import brief
from research_studio.pipelines.advanced.prompts import CLASS_GUIDANCE, PLANNER_SYSTEM, PLANNER_USER
from research_studio.pipelines.advanced.schemas import PlanOutput, TreeQuestionOutput
from research_studio.pipelines.advanced.state import (
    AgentState,
    PlanQuery,
    ResearchPlan,
    TreeQuestion,
)
from research_studio.pipelines.kit.models import attempt, model_for
from research_studio.pipelines.kit.node_kit import (
    call_records,
    clip,
    emitter,
)
from research_studio.pipelines.kit.plan_review import plan_message

MIN_WORDS, MAX_WORDS = 3, 7
_YEAR = re.compile(r"\b(19|20)\d{2}\b")


def name_anchor(query: str, anchor: str) -> str:
    """The query, led by the anchor's words when it names none of them."""
    anchor_words = content_words(anchor)[:3]
    present = set(content_words(query))
    if anchor_words and not any(word in present for word in anchor_words):
        return f"{' '.join(anchor_words)} {query}"
    return query


def apply_query_rules(query: str, anchor: str, *, recent: bool, year: int) -> str:
    """Hold the planner's query rules in code: anchor present, a year when recent, 3-7 words."""
    query = " ".join(query.replace("\u201c", '"').replace("\u201d", '"').split())
    query = name_anchor(query, anchor)
    if recent and not _YEAR.search(query) and "latest" not in query.lower():
        query = f"{query} {year}"
    words = query.split()
    if len(words) > MAX_WORDS:
        # Keep the anchor's words and the year, drop from the middle.
        tail = [words[-1]] if _YEAR.fullmatch(words[-1]) else []
        words = words[: MAX_WORDS - len(tail)] + tail
    if len(words) < MIN_WORDS:
        words += [word for word in anchor.split() if word.lower() not in query.lower()][
            : MIN_WORDS - len(words)
        ]
    return " ".join(words)


def clean_heading(text: str) -> str:
    """A usable section heading: one line, no Markdown marks, at most 80 characters."""
    line = next((part for part in text.splitlines() if part.strip(" #*-:>`")), "")
    return " ".join(line.strip(" #*-:>`").split())[:80].strip()


def _tree(questions: list[TreeQuestionOutput], outline: list[str]) -> list[TreeQuestion]:
    return [
        TreeQuestion(
            question=item.question.strip(),
            queries=item.queries,
            target_sources=item.target_sources,
            priority=item.priority,
            section=clean_heading(item.section)
            if clean_heading(item.section) in outline
            else outline[0],
        )
        for item in questions
        if item.question.strip()
    ]


def run_year(state: AgentState) -> int:
    """The year of the run's date (recorded once, by the first node)."""
    return int(state["today"][:4])


def numbered_queries(nodes: list[TreeQuestion]) -> list[PlanQuery]:
    """Every node's queries in one list, highest priority first, numbered Q1, Q2..."""
    flat: list[PlanQuery] = []
    for node in sorted(nodes, key=lambda item: -item["priority"]):
        for query in node["queries"]:
            flat.append(
                PlanQuery(
                    qid=f"Q{len(flat) + 1}",
                    query=query,
                    section=node["section"],
                    priority=node["priority"],
                )
            )
    return flat


def plan_start(plan: ResearchPlan) -> dict[str, Any]:
    """The state update that starts research on a new plan (iteration and confidence reset)."""
    return {
        "plan": plan,
        "research_iteration": 0,
        "overall_confidence": 0.0,
        "previous_confidence": 0.0,
        "refinement_queries": [],
        "messages": [plan_message(f"Plan: {plan['topic']} — " + "; ".join(plan["outline"]))],
    }


def build_plan(output: PlanOutput, anchor: str, *, recent: bool, year: int) -> ResearchPlan:
    """The plan with rule-abiding queries and the flat list ordered by priority (qid Q1...)."""
    outline = clip((clean_heading(item) for item in output.outline), 8) or ["Findings"]
    primary, secondary, tertiary = (
        _tree(output.research_tree.primary, outline),
        _tree(output.research_tree.secondary, outline),
        _tree(output.research_tree.tertiary, outline),
    )
    for node in primary + secondary + tertiary:
        # A web address alone is a guess at a page, not a search; the question is searched.
        searchable = [q for q in node["queries"] if not is_bare_address(q)] or [node["question"]]
        node["queries"] = clip(
            (apply_query_rules(q, anchor, recent=recent, year=year) for q in searchable), 3
        )
    flat = numbered_queries(primary + secondary + tertiary)
    return ResearchPlan(
        topic=output.topic.strip(),
        outline=outline,
        primary=primary,
        secondary=secondary,
        tertiary=tertiary,
        queries=flat,
        search_strategy=output.search_strategy,
    )


def fallback_plan(state: AgentState) -> ResearchPlan:
    """A plan from the analysis alone, when the planner model fails."""
    analysis = state["query_analysis"]
    anchor = state.get("primary_anchor") or state["query"]
    outline = analysis["suggested_outline"] or ["Overview"]
    questions = analysis["suggested_questions"] or [state["query"]]
    nodes = [
        TreeQuestion(
            question=q,
            queries=[apply_query_rules(q, anchor, recent=False, year=run_year(state))],
            target_sources=[],
            priority=1.0,
            section=outline[min(i, len(outline) - 1)],
        )
        for i, q in enumerate(questions)
    ]
    flat = [
        PlanQuery(qid=f"Q{i + 1}", query=n["queries"][0], section=n["section"], priority=1.0)
        for i, n in enumerate(nodes)
    ]
    return ResearchPlan(
        topic=state["query"],
        outline=outline,
        primary=nodes,
        secondary=[],
        queries=flat,
        search_strategy="",
    )


async def planner(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Topic, outline, research tree (primary/secondary) and the flat query list."""
    emitter(runtime, "planner")("planning the research tree")
    analysis = state["query_analysis"]
    anchor = state.get("primary_anchor") or state["query"]
    caller = model_for(runtime, ADVANCED_MODELS, "planner")
    messages = [
        SystemMessage(
            content=PLANNER_SYSTEM.format(
                year=run_year(state),
                anchor=anchor,
                guidance=CLASS_GUIDANCE.get(analysis["query_class"], ""),
                today=state["today"],
            )
        ),
        HumanMessage(
            content=PLANNER_USER.format(
                brief=brief(state),
                intent=analysis["intent"],
                query_class=analysis["query_class"],
                anchor=anchor,
                subject_type=analysis["subject_type"] or NONE,
                topic_focus=analysis["topic_focus"] or NONE,
                temporal_scope=analysis["temporal_scope"],
                domain=analysis["domain"],
                questions=inline(analysis["suggested_questions"]),
                outline=inline(analysis["suggested_outline"]),
            )
        ),
    ]
    errors: list[ErrorRecord] = []
    output = await attempt(caller.structured(PlanOutput, messages), "planner", errors)
    if output is None:
        plan = fallback_plan(state)
    else:
        plan = build_plan(
            output,
            anchor,
            recent=analysis["temporal_scope"] == "recent",
            year=run_year(state),
        )
    return {
        **plan_start(plan),
        "llm_calls": call_records(caller),
        "errors": errors,
    }
