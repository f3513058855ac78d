"""Assessment nodes: the single agent's gap detection and the multi-agent synthesis."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.errors import ResearchStudioError
from research_studio.core.prompt_blocks import numbered, request_block
from research_studio.core.queries import dedupe_queries
from research_studio.pipelines.kit.node_kit import call_records, emitter, error_record, services_of
from research_studio.pipelines.kit.stopping import budget_stop, standard_stop_reason
from research_studio.pipelines.standard.prompts import (
    GAPS_SYSTEM,
    GAPS_USER,
    SYNTHESIZE_SYSTEM,
    SYNTHESIZE_USER,
    evidence_lines,
    worker_reports,
)
from research_studio.pipelines.standard.schemas import GapAssessment, SynthesisOutput
from research_studio.pipelines.standard.state import ResearchState, Synthesis

STATUS_SCORE = {"well_covered": 1.0, "partial": 0.5, "missing": 0.0}
MAX_FOLLOW_UP_SEARCHES = 4


def coverage_of(assessment: GapAssessment) -> float:
    """Coverage counted from the per-question verdicts; the model's own number only without them."""
    verdicts = assessment.question_coverage
    if not verdicts:
        return assessment.coverage
    return round(sum(STATUS_SCORE[item.status] for item in verdicts) / len(verdicts), 3)


async def detect_gaps(state: ResearchState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Coverage per question, gaps, and the next searches; counts one iteration."""
    config = runtime.context
    services = services_of(runtime)
    evidence = state.get("evidence", [])
    done = state.get("searches_done", [])
    iteration = state.get("iteration", 0) + 1
    update: dict[str, Any] = {"iteration": iteration}
    if reached := services.budget.reached():
        return {**update, "stop_reason": budget_stop(reached), "pending_searches": []}
    caller = services.caller("detect_gaps", "smart")
    try:
        assessment = await caller.structured(
            GapAssessment,
            [
                SystemMessage(content=GAPS_SYSTEM.format(max_searches=MAX_FOLLOW_UP_SEARCHES)),
                HumanMessage(
                    content=GAPS_USER.format(
                        request=request_block(state["query"], state.get("user_clarification", "")),
                        questions=numbered(state.get("research_questions", [])),
                        aspects=numbered(state.get("aspects_to_cover", [])),
                        done=numbered(done),
                        count=len(evidence),
                        evidence=evidence_lines(evidence),
                    )
                ),
            ],
        )
    except ResearchStudioError as exc:
        # Unable to judge the gaps: write with what we have rather than loop blindly.
        update.update(
            stop_reason="assessment_failed",
            pending_searches=[],
            errors=[error_record("detect_gaps", exc)],
        )
        update["llm_calls"] = call_records(caller)
        return update
    has_evidence = bool(evidence)
    coverage = coverage_of(assessment) if has_evidence else 0.0
    searches = next_searches(state, assessment.new_searches, config)
    update.update(
        coverage=coverage,
        coverage_history=[*state.get("coverage_history", []), coverage],
        gaps=assessment.gaps,
        pending_searches=searches,
        stop_reason=standard_stop_reason(
            ready=assessment.ready_to_write and has_evidence,
            coverage=coverage,
            min_coverage=config.min_coverage,
            pending_searches=len(searches),
            rounds_done=iteration,
            max_iterations=config.max_iterations,
        ),
        llm_calls=call_records(caller),
        messages=[
            AIMessage(
                content=f"Iteration {iteration}: coverage {coverage:.0%}; gaps: {len(assessment.gaps)}"
            )
        ],
    )
    emitter(runtime, "detect_gaps")(
        f"iteration {iteration} done: {len(assessment.gaps)} open question(s) left "
        f"(the model judges {coverage:.0%} of the question covered)",
        iteration=iteration,
    )
    return update


def next_searches(state: ResearchState, proposed: list[str], config: Configuration) -> list[str]:
    """The next round's searches: the model's proposals, new ones only.

    A model's judgement is not trusted while there is no evidence at all: then the research
    questions themselves are searched too, and the loop is never "ready".
    """
    if not state.get("evidence"):
        proposed = [*proposed, *state.get("research_questions", [])]
    done = state.get("searches_done", [])
    return dedupe_queries(proposed, done, config.query_similarity_threshold)[
        :MAX_FOLLOW_UP_SEARCHES
    ]


async def synthesize(state: ResearchState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Combine the workers' reports, resolve conflicts, and decide on another round."""
    config = runtime.context
    services = services_of(runtime)
    results = state.get("worker_results", [])
    iteration = state.get("iteration", 0) + 1
    update: dict[str, Any] = {"iteration": iteration}
    if reached := services.budget.reached():
        return {**update, "stop_reason": budget_stop(reached), "pending_searches": []}
    caller = services.caller("synthesize", "smart")
    try:
        output = await caller.structured(
            SynthesisOutput,
            [
                SystemMessage(
                    content=SYNTHESIZE_SYSTEM.format(max_searches=MAX_FOLLOW_UP_SEARCHES)
                ),
                HumanMessage(
                    content=SYNTHESIZE_USER.format(
                        request=request_block(state["query"], state.get("user_clarification", "")),
                        questions=numbered(state.get("research_questions", [])),
                        reports=worker_reports(results),
                    )
                ),
            ],
        )
    except ResearchStudioError as exc:
        update.update(
            stop_reason="assessment_failed",
            pending_searches=[],
            errors=[error_record("synthesize", exc)],
        )
        update["llm_calls"] = call_records(caller)
        return update
    has_evidence = bool(state.get("evidence"))
    confidence = output.confidence if has_evidence else 0.0
    searches = next_searches(state, output.additional_searches, config)
    synthesis = Synthesis(
        summary=output.summary,
        key_findings=output.key_findings,
        conflicts=output.conflicts,
        gaps=output.gaps,
        confidence=confidence,
        needs_more_research=output.needs_more_research or not has_evidence,
        additional_searches=searches,
    )
    update.update(
        synthesis=synthesis,
        coverage=confidence,
        coverage_history=[*state.get("coverage_history", []), confidence],
        gaps=output.gaps,
        pending_searches=searches,
        stop_reason=standard_stop_reason(
            ready=not output.needs_more_research and has_evidence,
            coverage=confidence,
            min_coverage=config.min_coverage,
            pending_searches=len(searches),
            rounds_done=iteration,
            max_iterations=config.max_iterations,
        ),
        llm_calls=call_records(caller),
        messages=[AIMessage(content=f"Synthesis {iteration}: {output.summary}")],
    )
    emitter(runtime, "synthesize")(
        f"iteration {iteration} done: {len(output.gaps)} open question(s) left "
        f"(the model's own confidence: {confidence:.0%})",
        iteration=iteration,
    )
    return update
