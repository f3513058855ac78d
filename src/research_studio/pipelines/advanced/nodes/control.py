"""Loop control of the family's variants: complexity routing, the planner's paths, early termination."""

from __future__ import annotations

import re
from statistics import mean
from typing import Any, Literal

from langgraph.runtime import Runtime
from langgraph.types import Send

from research_studio.core.config import Configuration
from research_studio.pipelines.advanced.nodes.orchestrator import (
    fanout_subagents,
    single_worker_assignment,
)
from research_studio.pipelines.advanced.nodes.planner import plan_start, planner, run_year
from research_studio.pipelines.advanced.nodes.query_analyzer import brief
from research_studio.pipelines.advanced.planner_templates import template_plan
from research_studio.pipelines.advanced.state import AgentState, TrajectoryStep
from research_studio.pipelines.advanced.stopping import early_stop_reason
from research_studio.pipelines.kit.node_kit import emitter, services_of

Complexity = Literal["simple", "medium", "complex"]
SIMPLE_MAX_WORDS = 6
COMPLEX_MIN_WORDS = 16
_SIMPLE_OPENING = re.compile(
    r"^(what|who) (is|are|was|were)\b|^define\b|^when (did|was|is)\b|^where (is|was)\b",
    re.IGNORECASE,
)
COMPLEX_KEYWORDS = (
    "compare",
    "comparison",
    " vs ",
    " vs. ",
    "versus",
    "analyze",
    "analyse",
    "analysis",
    "comprehensive",
    "deep research",
    "in depth",
    "impact",
    "implications",
    "pros and cons",
    "trade-off",
    "tradeoff",
    "history of",
    "evolution of",
    "trends",
    "relationship between",
    "evaluate",
    "assess",
)


def classify_complexity(query: str) -> Complexity:
    """Keywords and word count: analytic or long questions are complex, short lookups simple."""
    text = " ".join(query.split())
    lowered = f" {text.lower()} "
    words = len(text.split())
    if words >= COMPLEX_MIN_WORDS or any(keyword in lowered for keyword in COMPLEX_KEYWORDS):
        return "complex"
    if words <= SIMPLE_MAX_WORDS and _SIMPLE_OPENING.search(text):
        return "simple"
    return "medium"


def with_model_reading(heuristic: Complexity, model: str) -> Complexity:
    """The heuristic, corrected by the analyzer's reading of the query's complexity.

    A query the model calls complex never takes the fast path; one it calls simple does
    when the heuristic only found it medium. Without an analysis the heuristic decides.
    """
    if heuristic == "simple" and model in ("complex", "comprehensive"):
        return "medium"
    if heuristic == "medium" and model == "simple":
        return "simple"
    return heuristic


def complexity_router(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Simple queries take the fast path (one worker, one round, no confidence check)."""
    analysis = state.get("query_analysis")
    model = analysis["complexity"] if analysis and analysis["analysis_confidence"] > 0 else ""
    complexity = with_model_reading(classify_complexity(state["query"]), model)
    fast = complexity == "simple"
    emitter(runtime, "complexity_router")(
        f"{complexity} query" + ("; fast path: one worker" if fast else "")
    )
    return {"query_complexity": complexity, "fast_path": fast}


def single_worker(state: AgentState) -> bool:
    """Whether this run researches with one worker (fast path, or single-agent mode)."""
    return bool(state.get("fast_path")) or state.get("mode") == "single"


def _template_update(state: AgentState) -> dict[str, Any] | None:
    """A research tree from the query type's template (no model call), when there is one."""
    found = state.get("discovery_result")
    if not found:
        return None
    anchor = state.get("primary_anchor") or state["query"]
    anchors = found["anchor_terms"] if found["query_type"] == "comparison" else [anchor]
    plan = template_plan(
        found["query_type"],
        anchors,
        state.get("anchor_terms", []),
        recent=state["query_analysis"]["temporal_scope"] == "recent",
        year=run_year(state),
    )
    if plan is None:
        return None
    return plan_start(plan)


async def variant_planner(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """The query type's template, else the model's plan; the single-worker path gets it all."""
    update = _template_update(state)
    if update is None:
        update = await planner(state, runtime)
    else:
        emitter(runtime, "planner")(f"research tree from the {update['plan']['search_strategy']}")
    if single_worker(state):
        assignment = single_worker_assignment(update["plan"], brief(state), runtime.context)
        update.update(subagent_assignments=[assignment], total_workers=1)
    return update


def route_after_planner(state: AgentState) -> list[Send] | str:
    """The single-worker path sends its one worker; otherwise the orchestrator assigns work."""
    return fanout_subagents(state) if single_worker(state) else "orchestrator"


def _round_confidence(state: AgentState, iteration: int) -> float:
    """The mean confidence the subagents of one round reported."""
    values = [
        f["confidence"] for f in state.get("subagent_findings", []) if f["iteration"] == iteration
    ]
    return round(mean(values), 3) if values else 0.0


def early_termination_check(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Stop before the gap detector's call: budget spent, fast path done, small gain, few new sources."""
    config = runtime.context
    iteration = state.get("research_iteration", 0)
    counts = state.get("source_counts", [])
    known = counts[-1] if counts else 0
    now = len(state.get("sources", []))
    confidence = _round_confidence(state, iteration)
    previous = _round_confidence(state, iteration - 1) if iteration > 0 else 0.0
    reason = early_stop_reason(
        budget_reached=services_of(runtime).budget.reached(),
        fast_path=bool(state.get("fast_path")),
        iteration=iteration,
        confidence=confidence,
        previous=previous,
        min_gain=config.min_confidence_gain,
        new_sources=now - known,
        known_sources=known,
        min_novelty=config.min_source_novelty,
    )
    summary = (
        f"round confidence {confidence:.2f} (before {previous:.2f}), {now - known} new source(s)"
        + (f"; stop: {reason}" if reason else "")
    )
    emitter(runtime, "early_termination_check")(summary, iteration=iteration + 1)
    stopped: dict[str, Any] = {}
    if reason:
        # The gap detector will not measure this round. Evidence is kept across rounds, so a
        # round that added little leaves the coverage where it was; one whose subagents
        # answered with more confidence raises it.
        history = state.get("coverage_history", [])
        stopped["coverage_history"] = [*history, max([confidence, *history[-1:]])]
    return {
        **stopped,
        "stop_reason": reason,
        "stopped_by": "early_termination_check" if reason else "",
        "source_counts": [*counts, now],
        "research_trajectory": [
            TrajectoryStep(iteration=iteration, action="early_termination_check", summary=summary)
        ],
    }
