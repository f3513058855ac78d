"""Assessment nodes: the single agent's gap detection and the multi-agent synthesis."""

from __future__ import annotations

from typing import Any, TypeVar

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel

from research_studio.core.config import Configuration
from research_studio.core.prompt_blocks import numbered, request_block
from research_studio.core.queries import dedupe_queries
from research_studio.core.records import ErrorRecord
from research_studio.pipelines.kit.conflicts import conflict_continues, conflict_gaps, gap_line
from research_studio.pipelines.kit.models import attempt, model_for
from research_studio.pipelines.kit.node_kit import call_records, emitter, services_of
from research_studio.pipelines.kit.stopping import budget_stop
from research_studio.pipelines.standard.models import STANDARD_MODELS
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
from research_studio.pipelines.standard.stopping import standard_stop_reason

STATUS_SCORE = {"well_covered": 1.0, "partial": 0.5, "missing": 0.0}
MAX_FOLLOW_UP_SEARCHES = 4
J = TypeVar("J", bound=BaseModel)


def coverage_of(assessment: GapAssessment) -> float:
    """Coverage counted from the per-question verdicts; the model's own number only without them."""
    verdicts = assessment.question_coverage
    if not verdicts:
        return assessment.coverage
    return round(sum(STATUS_SCORE[item.status] for item in verdicts) / len(verdicts), 3)


async def detect_gaps(state: ResearchState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Coverage per question, gaps, and the next searches; counts one iteration."""
    evidence = state.get("evidence", [])
    update, assessment = await _judge_round(
        state,
        runtime,
        "detect_gaps",
        GapAssessment,
        (GAPS_SYSTEM, GAPS_USER),
        aspects=numbered(state.get("aspects_to_cover", [])),
        done=numbered(state.get("searches_done", [])),
        count=len(evidence),
        evidence=evidence_lines(evidence),
    )
    if assessment is None:
        # No judgement (budget spent, or the call failed): write with what we have.
        return update
    has_evidence = bool(evidence)
    coverage = coverage_of(assessment) if has_evidence else 0.0
    _end_round(
        state,
        runtime.context,
        update,
        coverage=coverage,
        ready=assessment.ready_to_write and has_evidence,
        gaps=assessment.gaps,
        proposed=assessment.new_searches,
    )
    iteration = update["iteration"]
    update["messages"] = [
        AIMessage(
            content=f"Iteration {iteration}: coverage {coverage:.0%}; gaps: {len(assessment.gaps)}"
        )
    ]
    emitter(runtime, "detect_gaps")(
        f"iteration {iteration} done: {len(update['gaps'])} open question(s) left "
        f"(the model judges {coverage:.0%} of the question covered)",
        iteration=iteration,
    )
    return update


async def _judge_round(
    state: ResearchState,
    runtime: Runtime[Configuration],
    node: str,
    schema: type[J],
    prompt: tuple[str, str],
    **fields: Any,
) -> tuple[dict[str, Any], J | None]:
    """A round's judgement and its update, the iteration counted; None when the loop must end.

    `prompt` is the system text and the user template; both rounds state the request, the
    research questions and the follow-up search allowance alike, `fields` fill the rest.
    A reached budget stops before the call; a failed call stops the loop ("assessment_failed")
    rather than let it go on blindly.
    """
    system, user = prompt
    messages = [
        SystemMessage(content=system.format(max_searches=MAX_FOLLOW_UP_SEARCHES)),
        HumanMessage(
            content=user.format(
                request=request_block(state["query"], state.get("user_clarification", "")),
                questions=numbered(state.get("research_questions", [])),
                **fields,
            )
        ),
    ]
    services = services_of(runtime)
    update: dict[str, Any] = {"iteration": state.get("iteration", 0) + 1}
    if reached := services.budget.reached():
        return {**update, "stop_reason": budget_stop(reached), "pending_searches": []}, None
    caller = model_for(services, STANDARD_MODELS, node)
    errors: list[ErrorRecord] = []
    answer = await attempt(caller.structured(schema, messages), node, errors)
    if answer is None:
        update.update(stop_reason="assessment_failed", pending_searches=[], errors=errors)
    update["llm_calls"] = call_records(caller)
    return update, answer


def _end_round(
    state: ResearchState,
    config: Configuration,
    update: dict[str, Any],
    *,
    coverage: float,
    ready: bool,
    gaps: list[str],
    proposed: list[str],
) -> list[str]:
    """The round's coverage, gaps, next searches and stop reason, written into `update`.

    An open conflict between sources is a gap with one targeted search, run first."""
    conflicts = conflict_gaps(
        state.get("evidence", []), state.get("searches_done", []), state.get("gaps", [])
    )
    gaps = [*gaps, *(gap_line(conflict) for conflict in conflicts)]
    searches = next_searches(state, [*(c.query() for c in conflicts), *proposed], config)
    reason = standard_stop_reason(
        ready=ready,
        coverage=coverage,
        min_coverage=config.min_coverage,
        pending_searches=len(searches),
        rounds_done=update["iteration"],
        max_iterations=config.max_iterations,
    )
    update.update(
        coverage=coverage,
        coverage_history=[*state.get("coverage_history", []), coverage],
        gaps=gaps,
        pending_searches=searches,
        stop_reason=conflict_continues(
            reason,
            sum(1 for conflict in conflicts if conflict.query() in searches),
            rounds_done=update["iteration"],
            max_iterations=config.max_iterations,
        ),
    )
    return searches


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
    update, output = await _judge_round(
        state,
        runtime,
        "synthesize",
        SynthesisOutput,
        (SYNTHESIZE_SYSTEM, SYNTHESIZE_USER),
        reports=worker_reports(state.get("worker_results", [])),
    )
    if output is None:
        return update
    has_evidence = bool(state.get("evidence"))
    confidence = output.confidence if has_evidence else 0.0
    searches = _end_round(
        state,
        runtime.context,
        update,
        coverage=confidence,
        ready=not output.needs_more_research and has_evidence,
        gaps=output.gaps,
        proposed=output.additional_searches,
    )
    iteration = update["iteration"]
    update["synthesis"] = Synthesis(
        summary=output.summary,
        gaps=output.gaps,
        confidence=confidence,
        needs_more_research=output.needs_more_research or not has_evidence,
        additional_searches=searches,
    )
    update["messages"] = [AIMessage(content=f"Synthesis {iteration}: {output.summary}")]
    emitter(runtime, "synthesize")(
        f"iteration {iteration} done: {len(update['gaps'])} open question(s) left "
        f"(the model's own confidence: {confidence:.0%})",
        iteration=iteration,
    )
    return update
