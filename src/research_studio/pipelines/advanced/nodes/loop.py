"""The research loop's fan-in: collect_findings, consolidate_sources, gap_detector, increment_iteration."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.errors import ResearchStudioError
from research_studio.core.prompt_blocks import inline
from research_studio.pipelines.advanced.prompts import (
    GAP_SYSTEM,
    GAP_USER,
    dead_end_lines,
    evidence_by_section,
)
from research_studio.pipelines.advanced.routing import tier_of
from research_studio.pipelines.advanced.schemas import GapAnalysis
from research_studio.pipelines.advanced.state import (
    AgentState,
    KnowledgeGap,
    PlanQuery,
    TrajectoryStep,
)
from research_studio.pipelines.kit.consolidate import consolidate
from research_studio.pipelines.kit.node_kit import call_records, emitter, error_record, services_of
from research_studio.pipelines.kit.stopping import advanced_stop_reason, budget_stop


def collect_findings(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Average confidence of this round's subagents, their dead ends, and a trajectory step."""
    iteration = state.get("research_iteration", 0)
    findings = [
        item for item in state.get("subagent_findings", []) if item["iteration"] == iteration
    ]
    average = (
        round(sum(item["confidence"] for item in findings) / len(findings), 3) if findings else 0.0
    )
    dead_ends = [end for item in state.get("subagent_findings", []) for end in item["dead_ends"]]
    summary = f"{len(findings)} subagent(s), average confidence {average:.2f}, {len(dead_ends)} dead end(s) so far"
    emitter(runtime, "collect_findings")(summary, iteration=iteration + 1)
    return {
        "overall_confidence": average,
        "dead_ends": dead_ends,
        "research_trajectory": [
            TrajectoryStep(iteration=iteration, action="synthesize", summary=summary)
        ],
    }


def consolidate_sources(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """One source per normalized URL (S ids), evidence linked to it (E ids); stable across rounds."""
    sources, evidence = consolidate(
        [],
        [],
        state.get("pages", []),
        state.get("findings", []),
        max_sources=runtime.context.max_sources,
    )
    emitter(runtime, "consolidate_sources")(
        f"{len(sources)} sources, {len(evidence)} evidence items",
        sources=len(sources),
        evidence=len(evidence),
    )
    return {"sources": sources, "evidence": evidence}


async def gap_detector(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Coverage by outline section (model), gaps with queries, and the stop decision (code)."""
    config = runtime.context
    services = services_of(runtime)
    iteration = state.get("research_iteration", 0)
    if reached := services.budget.reached():
        return {"stop_reason": budget_stop(reached), "refinement_queries": []}
    caller = services.caller("gap_detector", tier_of("gap_detector"))
    plan = state["plan"]
    anchor = state.get("primary_anchor", "")
    dead_ends = state.get("dead_ends", [])
    previous = state.get("previous_confidence", 0.0) if iteration > 0 else 0.0
    errors = []
    try:
        analysis = await caller.structured(
            GapAnalysis,
            [
                SystemMessage(
                    content=GAP_SYSTEM.format(anchor=anchor, dead_ends=dead_end_lines(dead_ends))
                ),
                HumanMessage(
                    content=GAP_USER.format(
                        topic=plan["topic"],
                        outline=inline(plan["outline"]),
                        count_sources=len(state.get("sources", [])),
                        count_evidence=len(state.get("evidence", [])),
                        evidence=evidence_by_section(plan["outline"], state.get("evidence", [])),
                    )
                ),
            ],
        )
        section_confidence = {item.section: item.confidence for item in analysis.section_analysis}
        confidence = analysis.overall_confidence if state.get("evidence") else 0.0
        gaps = [
            KnowledgeGap(
                section=gap.section,
                severity=gap.severity,
                description=gap.description,
                suggested_queries=gap.suggested_queries,
            )
            for gap in analysis.gaps
        ]
    except ResearchStudioError as exc:
        errors.append(error_record("gap_detector", exc))
        section_confidence, confidence, gaps = {}, state.get("overall_confidence", 0.0), []
    priority = {"high": 1.0, "medium": 0.7, "low": 0.4}
    refinements = [
        PlanQuery(
            qid=f"R{iteration + 1}.{i}",
            query=query,
            section=gap["section"],
            priority=priority[gap["severity"]],
        )
        for gap in gaps
        for i, query in enumerate(gap["suggested_queries"][:2], 1)
    ]
    reason = advanced_stop_reason(
        iteration=iteration,
        max_iterations=config.max_iterations,
        confidence=confidence,
        previous=previous,
        gaps=len(gaps),
        refinements=len(refinements),
        min_confidence=config.min_confidence,
        min_gain=config.min_confidence_gain,
    )
    emitter(runtime, "gap_detector")(
        f"iteration {iteration + 1} done: {len(gaps)} open question(s) left "
        f"(the model's own confidence: {confidence:.0%})" + (f"; stop: {reason}" if reason else ""),
        iteration=iteration + 1,
    )
    return {
        "knowledge_gaps": gaps,
        "refinement_queries": refinements,
        "section_confidence": section_confidence,
        "overall_confidence": confidence,
        "previous_confidence": confidence,
        "stop_reason": reason,
        "research_trajectory": [
            TrajectoryStep(
                iteration=iteration,
                action="gap_detection",
                summary=f"confidence {confidence:.2f}, gaps {len(gaps)}, {reason or 'continue'}",
            )
        ],
        "llm_calls": call_records(caller),
        "errors": errors,
        "messages": [AIMessage(content=f"Iteration {iteration + 1}: confidence {confidence:.2f}")],
    }


def increment_iteration(state: AgentState) -> dict[str, Any]:
    """The next round."""
    return {"research_iteration": state.get("research_iteration", 0) + 1}
