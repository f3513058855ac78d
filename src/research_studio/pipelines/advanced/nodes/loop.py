"""The research loop's fan-in: collect_findings, consolidate_sources, gap_detector, increment_iteration."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.prompt_blocks import inline
from research_studio.core.records import ErrorRecord
from research_studio.pipelines.advanced.coverage import (
    combined,
    counted_coverage,
    covered,
    overall,
)
from research_studio.pipelines.advanced.models import ADVANCED_MODELS
from research_studio.pipelines.advanced.prompts import (
    GAP_SYSTEM,
    GAP_USER,
    dead_end_lines,
    evidence_by_section,
)
from research_studio.pipelines.advanced.schemas import GapAnalysis
from research_studio.pipelines.advanced.state import (
    AgentState,
    KnowledgeGap,
    OrchestratorState,
    PlanQuery,
    TrajectoryStep,
)
from research_studio.pipelines.advanced.stopping import advanced_stop_reason
from research_studio.pipelines.kit.conflicts import conflict_continues, conflict_gaps, gap_line
from research_studio.pipelines.kit.consolidate import consolidate
from research_studio.pipelines.kit.models import attempt, model_for
from research_studio.pipelines.kit.node_kit import call_records, emitter, services_of
from research_studio.pipelines.kit.stopping import budget_stop


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
    # The single-agent path skips the orchestrator: its one worker is the round's assignment.
    previous = state.get("orchestrator_state")
    assigned = previous["questions_assigned"] if previous else len(findings)
    summary = (
        f"{len(findings)} of {assigned} question(s) researched, average confidence "
        f"{average:.2f}, {len(dead_ends)} dead end(s) so far"
    )
    emitter(runtime, "collect_findings")(summary, iteration=iteration + 1)
    return {
        "orchestrator_state": OrchestratorState(
            phase="synthesis",
            questions_assigned=assigned,
            questions_completed=len(findings),
            overall_confidence=average,
        ),
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


WEAK_SECTION = 0.5  # a section below this keeps the loop going whatever the model recommends


def missing_gaps(
    counted: dict[str, float],
    sections: dict[str, float],
    analysis: GapAnalysis | None,
    gaps: list[KnowledgeGap],
    anchor: str,
) -> list[KnowledgeGap]:
    """Weak sections the model listed no gap for, a gap each: every section too little verified
    evidence answers (by count), searched for what the model says is missing, else for the
    section itself; and every section the model rates weak and says what it misses."""
    listed = {gap["section"].casefold() for gap in gaps}
    said = {
        item.section.casefold(): item.missing.strip()
        for item in (analysis.section_analysis if analysis else [])
    }
    found = []
    for section, value in sections.items():
        missing = said.get(section.casefold(), "")
        thin = counted[section] < WEAK_SECTION
        if section.casefold() in listed or not (thin or (value < WEAK_SECTION and missing)):
            continue
        found.append(
            KnowledgeGap(
                section=section,
                severity="high" if value < WEAK_SECTION / 2 else "medium",
                description=missing or f"too little verified evidence answers {section}",
                # What is missing leads: a long anchor must not crowd the section out.
                suggested_queries=[" ".join(f"{missing or section} {anchor}".split()[:8])],
            )
        )
    return found


def _covered_by_count(state: AgentState, counted: dict[str, float], emit: Any) -> dict[str, Any]:
    """The document's quick check: the outline is covered by count, so no model call is made."""
    iteration = state.get("research_iteration", 0)
    confidence = overall(counted)
    emit(
        f"iteration {iteration + 1} done: every section covered by verified evidence "
        f"(coverage by count {confidence:.0%}); stop: coverage_reached",
        iteration=iteration + 1,
    )
    return {
        "knowledge_gaps": [],
        "refinement_queries": [],
        "section_confidence": counted,
        "overall_confidence": confidence,
        "previous_confidence": confidence,
        "coverage_history": [*state.get("coverage_history", []), confidence],
        "stop_reason": "coverage_reached",
        "research_trajectory": [
            TrajectoryStep(
                iteration=iteration,
                action="gap_detection",
                summary=f"coverage by count {confidence:.2f}, coverage_reached",
            )
        ],
        "messages": [AIMessage(content=f"Iteration {iteration + 1}: coverage {confidence:.2f}")],
    }


def open_conflicts(state: AgentState) -> list[KnowledgeGap]:
    """Open conflicts between sources not yet searched: a gap each, with its one search."""
    before = [gap["description"] for gap in state.get("knowledge_gaps", [])]
    return [
        KnowledgeGap(
            section=conflict.section,
            severity="high",
            description=gap_line(conflict),
            suggested_queries=[conflict.query()],
        )
        for conflict in conflict_gaps(
            state.get("evidence", []), state.get("searches_done", []), before
        )
    ]


async def gap_detector(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Coverage by outline section (code's count, lowered by the model's reading), gaps with
    queries, and the stop decision (code)."""
    config = runtime.context
    services = services_of(runtime)
    iteration = state.get("research_iteration", 0)
    if reached := services.budget.reached():
        return {"stop_reason": budget_stop(reached), "refinement_queries": []}
    plan = state["plan"]
    evidence = state.get("evidence", [])
    counted = counted_coverage(plan["outline"], evidence)
    emit = emitter(runtime, "gap_detector")
    conflicts = open_conflicts(state)  # an open conflict gets its one search before any stop
    if covered(counted) and not conflicts:
        return _covered_by_count(state, counted, emit)
    caller = model_for(services, ADVANCED_MODELS, "gap_detector")
    anchor = state.get("primary_anchor", "")
    dead_ends = state.get("dead_ends", [])
    previous = state.get("previous_confidence", 0.0) if iteration > 0 else 0.0
    errors: list[ErrorRecord] = []
    messages = [
        SystemMessage(
            content=GAP_SYSTEM.format(anchor=anchor, dead_ends=dead_end_lines(dead_ends))
        ),
        HumanMessage(
            content=GAP_USER.format(
                topic=plan["topic"],
                outline=inline(plan["outline"]),
                count_sources=len(state.get("sources", [])),
                count_evidence=len(evidence),
                evidence=evidence_by_section(plan["outline"], evidence),
            )
        ),
    ]
    analysis = await attempt(caller.structured(GapAnalysis, messages), "gap_detector", errors)
    gaps: list[KnowledgeGap] = []
    if analysis is None:  # the count alone decides; the failure is recorded
        section_confidence, rated = counted, None
    else:
        rated_sections = {item.section: item.confidence for item in analysis.section_analysis}
        section_confidence, rated = combined(counted, rated_sections), analysis.overall_confidence
        gaps = [
            KnowledgeGap(
                section=gap.section,
                severity=gap.severity,
                description=gap.description,
                suggested_queries=gap.suggested_queries,
            )
            for gap in analysis.gaps
        ]
    confidence = overall(section_confidence, rated)
    gaps += missing_gaps(counted, section_confidence, analysis, gaps, anchor)
    weak = [s for s, value in section_confidence.items() if value < WEAK_SECTION]
    sufficient = (
        analysis is not None
        and analysis.recommendation == "sufficient"
        and not weak
        and confidence > 0
    )
    gaps += conflicts
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
        rounds_done=iteration + 1,  # research_iteration counts from 0
        max_iterations=config.max_iterations,
        confidence=confidence,
        previous=previous,
        gaps=len(gaps),
        refinements=len(refinements),
        min_confidence=config.min_confidence,
        min_gain=config.min_confidence_gain,
        sufficient=sufficient,
    )
    reason = conflict_continues(
        reason,
        len(conflicts),
        rounds_done=iteration + 1,
        max_iterations=config.max_iterations,
    )
    model_said = f", the model's own rating {rated:.0%}" if rated is not None else ""
    emit(
        f"iteration {iteration + 1} done: {len(gaps)} open question(s) left "
        f"(coverage {confidence:.0%}{model_said})" + (f"; stop: {reason}" if reason else ""),
        iteration=iteration + 1,
    )
    return {
        "knowledge_gaps": gaps,
        "refinement_queries": refinements,
        "section_confidence": section_confidence,
        "overall_confidence": confidence,
        "previous_confidence": confidence,
        "coverage_history": [*state.get("coverage_history", []), confidence],
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


# The research loop's nodes in the order they run; every graph of the family wires them alike.
RESEARCH_LOOP = (collect_findings, consolidate_sources, gap_detector, increment_iteration)
