"""query_analyzer and clarify: understand the query, and merge a clarification into it."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.records import ErrorRecord
from research_studio.pipelines.advanced.models import ADVANCED_MODELS
from research_studio.pipelines.advanced.prompts import (
    ANALYZER_SYSTEM,
    ANALYZER_USER,
    CLARIFY_SYSTEM,
    CLARIFY_USER,
)
from research_studio.pipelines.advanced.schemas import (
    QUERY_CLASSES,
    ClarificationOutput,
    QueryAnalysisOutput,
)
from research_studio.pipelines.advanced.state import AgentState, DiscoveryResult, QueryAnalysis
from research_studio.pipelines.kit.models import attempt, model_for
from research_studio.pipelines.kit.node_kit import (
    call_records,
    clip,
    emitter,
    model_ready,
    query_of,
    run_start,
)
from research_studio.pipelines.kit.referents import unasked_reading


def brief(state: AgentState) -> str:
    """What every downstream prompt is told the research is about."""
    return state.get("enriched_context") or state.get("query", "")


def _analysis(output: QueryAnalysisOutput) -> QueryAnalysis:
    query_class = output.query_class
    # The one rule code can hold without reading the query: recent matters are never timeless concepts.
    if query_class == "concept_explanation" and output.temporal_scope == "recent":
        query_class = "current_events"
    return QueryAnalysis(
        intent=output.intent,
        query_class=query_class,
        primary_subject=output.primary_subject.strip(),
        subject_type=output.subject_type,
        topic_focus=output.topic_focus,
        temporal_scope=output.temporal_scope,
        domain=output.domain,
        complexity="",  # the variants' ERA-CoT analysis reads it; V9 does not ask
        ambiguity_level=output.ambiguity_level,
        needs_clarification=output.needs_clarification
        and bool(output.clarification_question.strip()),
        clarification_question=output.clarification_question.strip(),
        clarification_options=clip(output.clarification_options, 5),
        suggested_questions=clip(output.suggested_questions, 6),
        suggested_outline=clip(output.suggested_outline, 8),
        analysis_confidence=output.analysis_confidence,
    )


async def query_analyzer(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """LLM-only analysis: intent, class (one of 17), subject, scope, ambiguity, questions, outline."""
    emitter(runtime, "query_analyzer")("analysing the query")
    query = query_of(state, runtime.context)
    start = run_start(state, query)
    today = start.get("today") or state["today"]
    await model_ready(runtime)  # the model is chosen here, off the event loop
    caller = model_for(runtime, ADVANCED_MODELS, "query_analyzer")
    errors: list[ErrorRecord] = []
    messages = [
        SystemMessage(
            content=ANALYZER_SYSTEM.format(classes=", ".join(QUERY_CLASSES), today=today)
        ),
        HumanMessage(content=ANALYZER_USER.format(query=query)),
    ]
    call = caller.structured(QueryAnalysisOutput, messages)
    output = await attempt(call, "query_analyzer", errors, first=True)
    if output is None:
        # Without an analysis the query is researched as written, as a broad overview.
        output = QueryAnalysisOutput(
            intent=query,
            query_class="comprehensive_overview",
            primary_subject="",
            subject_type="topic",
            analysis_confidence=0.0,
        )
    analysis = _analysis(output)
    update: dict[str, Any] = {
        "query": query,
        "query_analysis": analysis,
        "needs_clarification": analysis["needs_clarification"],
        "clarification_question": analysis["clarification_question"],
        "clarification_options": analysis["clarification_options"],
        "primary_anchor": analysis["primary_subject"] or query,
        "llm_calls": call_records(caller),
        "errors": errors,
        **start,
    }
    return update


def unasked(state: AgentState) -> dict[str, Any]:
    """No one could be asked (no terminal, no pause, MCP): code takes the likeliest reading the
    options name, keeps the others for the trust engine to leave their sources out, and the
    report opens by saying so; options that only ask for a detail name no reading, and the
    query is researched as written, said so too."""
    analysis = state["query_analysis"]
    subject = analysis["primary_subject"] or state.get("primary_anchor", "")
    reading = unasked_reading(
        subject,
        analysis["clarification_question"],
        analysis["clarification_options"],
        analysis["intent"] or state["query"],
    )
    update: dict[str, Any] = {
        "needs_clarification": False,
        "enriched_context": state["query"],
        "referent_notice": reading.notice,
    }
    chosen = reading.chosen
    if chosen is not None:
        update.update(
            selected_entity=chosen,
            anchor_terms=list(chosen["identifiers"]),
            discovery_result=DiscoveryResult(
                query_type=analysis["subject_type"],
                entity_candidates=reading.candidates,
                confidence=chosen["confidence"],
                needs_clarification=False,
                anchor_terms=[],
            ),
            enriched_context=f"{state['query']} (read as: {reading.option})",
        )
    return update


async def clarify(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Merge the user's answer into enriched_context and update the analysis (after the interrupt)."""
    answer = state.get("user_clarification", "").strip()
    analysis: dict[str, Any] = dict(state["query_analysis"])
    if not answer:
        return unasked(state)
    caller = model_for(runtime, ADVANCED_MODELS, "clarify")
    messages = [
        SystemMessage(content=CLARIFY_SYSTEM),
        HumanMessage(
            content=CLARIFY_USER.format(
                query=state["query"],
                intent=analysis["intent"],
                question=analysis["clarification_question"],
                answer=answer,
            )
        ),
    ]
    errors: list[ErrorRecord] = []
    output = await attempt(caller.structured(ClarificationOutput, messages), "clarify", errors)
    if output is None:
        # The answer still reaches every later prompt, merged plainly.
        context = f"{state['query']} — clarified by the user: {answer}"
        return {
            "enriched_context": context,
            "needs_clarification": False,
            "errors": errors,
            "llm_calls": call_records(caller),
        }
    analysis.update(
        intent=output.updated_intent,
        primary_subject=output.updated_subject.strip() or analysis["primary_subject"],
        query_class=output.updated_class,
        suggested_questions=clip(output.suggested_questions, 6) or analysis["suggested_questions"],
        analysis_confidence=round(
            min(1.0, analysis["analysis_confidence"] + output.confidence_boost), 3
        ),
        needs_clarification=False,
    )
    enriched = output.enriched_context.strip()
    if answer.lower() not in enriched.lower():
        enriched = f"{enriched} (User clarification: {answer})"
    return {
        "enriched_context": enriched,
        "query_analysis": analysis,
        "needs_clarification": False,
        "primary_anchor": analysis["primary_subject"],
        "llm_calls": call_records(caller),
        "messages": [HumanMessage(content=f"Clarification: {answer}")],
    }
