"""orchestrator: assignments from the research tree (first round) or the refinement queries."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Send

from research_studio.core.config import Configuration
from research_studio.core.queries import is_bare_address, similarity
from research_studio.core.urls import normalize_url
from research_studio.pipelines.advanced.nodes.planner import name_anchor
from research_studio.pipelines.advanced.nodes.query_analyzer import brief
from research_studio.pipelines.advanced.query_dedup import Similarity, is_repeat, query_measure
from research_studio.pipelines.advanced.state import (
    AgentState,
    OrchestratorState,
    PlanQuery,
    ResearchPlan,
    SubagentAssignment,
    SubagentState,
    TreeQuestion,
)
from research_studio.pipelines.kit.node_kit import emitter


def _from_tree(state: AgentState) -> list[tuple[str, str, list[str], list[str]]]:
    plan = state["plan"]
    tree = plan["primary"] + plan["secondary"] + plan.get("tertiary", [])
    nodes = sorted(tree, key=lambda node: -node["priority"])
    return [
        (node["question"], node["section"], node["queries"], node["target_sources"])
        for node in nodes
    ]


FIRST_ROUND_PRIMARY, FIRST_ROUND_SECONDARY = 4, 1  # 001 §2.1: up to 4 primary, 1 secondary


def _first_round(state: AgentState) -> list[tuple[str, str, list[str], list[str]]]:
    """The first round's questions (001 §2.1): the best primary ones, up to four, and one
    secondary; the rest of the tree waits for the places later rounds leave free."""
    plan = state["plan"]

    def best(nodes: list[TreeQuestion], count: int) -> list[TreeQuestion]:
        return sorted(nodes, key=lambda node: -node["priority"])[:count]

    chosen = best(plan["primary"], FIRST_ROUND_PRIMARY) + best(
        plan["secondary"], FIRST_ROUND_SECONDARY
    )
    return [
        (node["question"], node["section"], node["queries"], node["target_sources"])
        for node in chosen
    ]


def _unresearched(state: AgentState) -> list[tuple[str, str, list[str], list[str]]]:
    """Tree questions no subagent has taken yet (the tertiary bucket, mostly): a refinement
    round gives them the places its refinements leave free."""
    asked = {finding["question"] for finding in state.get("subagent_findings", [])}
    return [group for group in _from_tree(state) if group[0] not in asked]


def _from_refinements(
    queries: list[PlanQuery], anchor: str
) -> list[tuple[str, str, list[str], list[str]]]:
    """Refinement queries by section; each names the primary anchor, as planned queries do."""
    by_section: dict[str, list[str]] = {}
    for item in sorted(queries, key=lambda q: -q["priority"]):
        if is_bare_address(item["query"]):  # a guess at a page, not a search
            continue
        by_section.setdefault(item["section"], []).append(name_anchor(item["query"], anchor))
    return [
        (f"Find more information about: {section}", section, found, [])
        for section, found in by_section.items()
    ]


def make_assignments(
    groups: list[tuple[str, str, list[str], list[str]]],
    done: list[str],
    config: Configuration,
    iteration: int,
    measure: Similarity = similarity,
) -> list[SubagentAssignment]:
    """Drop near-duplicate queries (against each other and what ran), keep at most max_subagents."""
    seen = list(done)
    assignments: list[SubagentAssignment] = []
    for question, section, queries, targets in groups:
        fresh = []
        for query in queries:
            if not is_repeat(query, seen, config.query_similarity_threshold, measure):
                fresh.append(query)
                seen.append(query)
        if fresh:
            number = len(assignments) + 1
            assignments.append(
                SubagentAssignment(
                    subagent_id=f"SA{iteration + 1}.{number}",
                    question=question,
                    section=section,
                    queries=fresh[: config.searches_per_worker],
                    target_sources=targets,
                )
            )
        if len(assignments) == config.max_subagents:
            break
    return assignments


async def orchestrator(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Who researches what this round."""
    iteration = state.get("research_iteration", 0)
    refinements = state.get("refinement_queries") or []
    anchor = state.get("primary_anchor", "")
    groups = (
        _from_refinements(refinements, anchor) + _unresearched(state)
        if iteration > 0 and refinements
        else _first_round(state)
        if iteration == 0
        else _from_tree(state)
    )
    if state.get("mode") == "single" and groups:
        # Single-agent mode: one worker takes every question's searches, best first.
        queries = [query for _question, _section, found, _targets in groups for query in found]
        groups = [(brief(state), groups[0][1], queries, [])]
    done = state.get("searches_done", [])
    measure, kind = await query_measure([*done, *(q for group in groups for q in group[2])], anchor)
    assignments = make_assignments(groups, done, runtime.context, iteration, measure)
    planned = sum(len(group[2]) for group in groups)
    assigned = sum(len(item["queries"]) for item in assignments)
    emitter(runtime, "orchestrator")(
        f"iteration {iteration + 1}: {len(assignments)} subagent(s), {assigned} of {planned} "
        f"planned search(es) ({kind} deduplication)",
        iteration=iteration + 1,
    )
    return {
        "subagent_assignments": assignments,
        "total_workers": len(assignments),
        "orchestrator_state": OrchestratorState(
            phase="refinement" if iteration > 0 else "primary_research",
            questions_assigned=len(assignments),
            questions_completed=0,
            overall_confidence=state.get("overall_confidence", 0.0),
        ),
    }


def fanout_subagents(state: AgentState) -> list[Send] | str:
    """One Send per assignment; straight to the collect_findings when there is nothing to do."""
    assignments = state.get("subagent_assignments") or []
    if not assignments:
        return "collect_findings"
    known = sorted({normalize_url(source["url"]) for source in state.get("pages", [])})
    return [
        Send(
            "subagent",
            SubagentState(
                assignment=assignment,
                worker_index=index,
                iteration=state.get("research_iteration", 0),
                context=brief(state),
                anchor=state.get("primary_anchor", ""),
                known_urls=known,
                searches_done=state.get("searches_done", []),
            ),
        )
        for index, assignment in enumerate(assignments)
    ]


def single_worker_assignment(
    plan: ResearchPlan, question: str, config: Configuration
) -> SubagentAssignment:
    """The whole plan as one worker's assignment: its best queries, by priority."""
    queries = [item["query"] for item in sorted(plan["queries"], key=lambda q: -q["priority"])]
    found = make_assignments([(question, plan["outline"][0], queries, [])], [], config, 0)
    return (
        found[0]
        if found
        else SubagentAssignment(
            subagent_id="SA1.1",
            question=question,
            section=plan["outline"][0],
            queries=[question],
            target_sources=[],
        )
    )
