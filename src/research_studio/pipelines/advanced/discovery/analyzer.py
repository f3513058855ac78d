"""analyzer (the family's variants): fast patterns first, then the model's ERA-CoT analysis.

Patterns: "X at Y" → person at organization, "What is X" → concept, "X vs Y" → comparison,
"How does X work" → technical. The model sees the pattern's reading and confirms or corrects
it; its answer decides, and the pattern only fills in what the model could not give (its call
failed, or it left a field empty). Ambiguous queries get three passes and a majority vote.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.records import ErrorRecord
from research_studio.pipelines.advanced.discovery.prompts import (
    COMPLEXITY_STEP,
    ERA_COT_SYSTEM,
    NO_PATTERN,
    PATTERN_ANCHORS,
)
from research_studio.pipelines.advanced.discovery.schemas import (
    EraCotAnalysis,
    RoutedEraCotAnalysis,
)
from research_studio.pipelines.advanced.models import ADVANCED_MODELS
from research_studio.pipelines.advanced.nodes.query_analyzer import _analysis
from research_studio.pipelines.advanced.prompts import ANALYZER_USER
from research_studio.pipelines.advanced.schemas import QUERY_CLASSES
from research_studio.pipelines.advanced.state import DiscoveryResult, QueryAnalysis
from research_studio.pipelines.kit.models import attempt, model_for
from research_studio.pipelines.kit.node_kit import (
    call_records,
    clip,
    emitter,
    query_of,
    run_start,
)

SELF_CONSISTENCY_PASSES = 3
TIMELESS_TYPES = ("concept", "technical")  # their templates plan timeless subjects
NAMED_KINDS = ("person", "organization", "place")  # entities a search must keep by name
_NAME = r"[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*)+"
_ORG = r"[A-Z][\w&.'’-]*(?:\s+(?:of\s+|the\s+|for\s+)?[A-Z][\w&.'’-]*)*"
# Names are matched by their capitals: only the surrounding words ignore case.
_LEAD = r"^(?i:research|find out about|tell me about|look up|profile of|who is)?\s*"
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("person", re.compile(_LEAD + rf"(?P<a>{_NAME})\s+(?i:at|from)\s+(?i:the\s+)?(?P<b>{_ORG})")),
    ("technical", re.compile(r"^how\s+does\s+(?:an?\s+|the\s+)?(?P<a>.+?)\s+work\b", re.I)),
    ("concept", re.compile(r"^what\s+(?:is|are)\s+(?:an?\s+|the\s+)?(?P<a>[^?]+?)\s*\??$", re.I)),
    (
        "comparison",
        re.compile(r"^(?:compare\s+)?(?P<a>.+?)\s+(?:vs\.?|versus)\s+(?P<b>[^?]+)", re.I),
    ),
)
TYPE_CLASS = {
    "person": "person_profile",
    "organization": "organization_profile",
    "concept": "concept_explanation",
    "technical": "technical_deep_dive",
    "comparison": "comparison",
}


@dataclass(frozen=True)
class PatternReading:
    """What a fast pattern made of the query (query_type "" when none matched)."""

    query_type: str = ""
    anchors: list[str] = field(default_factory=list)

    def describe(self) -> str:
        if not self.query_type:
            return NO_PATTERN
        return f"{self.query_type}{PATTERN_ANCHORS}{', '.join(self.anchors)}"


def fast_pattern(query: str) -> PatternReading:
    """The first pattern the query matches, with its anchors (names keep their capitals)."""
    text = " ".join(query.split()).rstrip(".")
    for query_type, pattern in PATTERNS:
        match = pattern.search(text)
        if match:
            anchors = [group.strip(" ?\"'") for group in match.groups() if group and group.strip()]
            if query_type == "person" and not re.match(_NAME, anchors[0]):
                continue  # "research at MIT": no person named
            return PatternReading(query_type, anchors)
    return PatternReading()


def _majority(passes: list[EraCotAnalysis]) -> EraCotAnalysis:
    """The pass agreeing with the most common (query type, subject) reading."""
    votes = Counter((p.query_type, p.primary_subject.strip().lower()) for p in passes)
    winner = votes.most_common(1)[0][0]
    return next(p for p in passes if (p.query_type, p.primary_subject.strip().lower()) == winner)


def _query_type(model_type: str, reading: PatternReading, analysis: QueryAnalysis) -> str:
    """The model's query type (the pattern's when the model failed) if the scope allows it.

    A type with a timeless template never plans a recent matter.
    """
    query_type = model_type or reading.query_type or "other"
    if query_type in TIMELESS_TYPES and analysis["temporal_scope"] == "recent":
        return "other"
    return query_type


def _anchors(output: EraCotAnalysis | None, reading: PatternReading) -> list[str]:
    """The model's anchor terms, with the names of the entities it found; else the pattern's."""
    if output is None:
        return list(reading.anchors)
    anchors = [term.strip() for term in output.anchor_terms if term.strip()]
    subject = output.primary_subject.strip()
    if subject and subject.lower() not in (a.lower() for a in anchors):
        anchors.insert(0, subject)
    for entity in output.entities:  # step 2's named entities anchor the searches too
        name = entity.name.strip()
        if entity.kind in NAMED_KINDS and name.lower() not in (a.lower() for a in anchors):
            anchors.append(name)
    return anchors or list(reading.anchors)


def _subject_kind(output: EraCotAnalysis, analysis: QueryAnalysis) -> str:
    """The kind the model gave the entity that is the subject (step 2), if it named it."""
    subject = analysis["primary_subject"].lower()
    return next(
        (e.kind for e in output.entities if e.kind and e.name.strip().lower() == subject), ""
    )


def _ambiguous(reading: PatternReading, analysis: EraCotAnalysis) -> bool:
    return not reading.query_type and analysis.ambiguity_level in ("medium", "high")


async def analyzer(state: Any, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Fast patterns, then ERA-CoT analysis (three passes and a vote when ambiguous)."""
    return await _analyze(state, runtime, EraCotAnalysis)


async def routed_analyzer(state: Any, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """`analyzer` that also asks how complex the query is (the optimized variant routes on it)."""
    return await _analyze(state, runtime, RoutedEraCotAnalysis)


async def _analyze(
    state: Any, runtime: Runtime[Configuration], schema: type[EraCotAnalysis]
) -> dict[str, Any]:
    emit = emitter(runtime, "analyzer")
    query = query_of(state, runtime.context)
    start = run_start(state, query)
    today = start.get("today") or state["today"]
    reading = fast_pattern(query)
    emit(f"pattern: {reading.describe()}")
    caller = model_for(runtime, ADVANCED_MODELS, "analyzer")
    messages = [
        SystemMessage(
            content=ERA_COT_SYSTEM.format(
                classes=", ".join(QUERY_CLASSES), today=today, pattern=reading.describe()
            )
            + (COMPLEXITY_STEP if schema is RoutedEraCotAnalysis else "")
        ),
        HumanMessage(content=ANALYZER_USER.format(query=query)),
    ]
    errors: list[ErrorRecord] = []
    # The run's first model calls: a permanent fault (a bad key) ends the run, others are data.
    reply = await attempt(caller.structured(schema, messages), "analyzer", errors, first=True)
    passes = [reply] if reply is not None else []
    if passes and _ambiguous(reading, passes[0]):
        emit("ambiguous: self-consistency over three passes")
        for _ in range(SELF_CONSISTENCY_PASSES - 1):
            call = caller.structured(schema, messages)
            again = await attempt(call, "analyzer", errors, first=True)
            if again is None:
                break
            passes.append(again)
    if not errors:
        output = _majority(passes)
    else:
        output = EraCotAnalysis(
            intent=query,
            query_class="comprehensive_overview",
            primary_subject=reading.anchors[0] if reading.anchors else "",
            subject_type="topic",
            analysis_confidence=0.0,
        )
    analysis = _analysis(output)
    if isinstance(output, RoutedEraCotAnalysis):  # the optimized variant's router reads it
        analysis["complexity"] = output.complexity
    answered = not errors
    query_type = _query_type(output.query_type if answered else "", reading, analysis)
    anchors = clip(_anchors(output if answered else None, reading), 5)
    if not answered and reading.query_type:  # no model reading: the pattern's class
        analysis["query_class"] = TYPE_CLASS.get(query_type, analysis["query_class"])
    if not analysis["primary_subject"] and anchors:
        analysis["primary_subject"] = anchors[0]
    if answered and output.entities:
        analysis["subject_type"] = _subject_kind(output, analysis) or analysis["subject_type"]
    subject = analysis["primary_subject"] or (anchors[0] if anchors else query)
    return {
        "query": query,
        "query_analysis": analysis,
        "discovery_result": DiscoveryResult(
            query_type=query_type,
            entity_candidates=[],
            confidence=output.analysis_confidence,
            needs_clarification=analysis["needs_clarification"],
            anchor_terms=anchors,
        ),
        "primary_anchor": subject,
        "anchor_terms": [term for term in anchors if term.lower() != subject.lower()],
        "needs_clarification": False,  # confidence_check decides, after discovery
        "llm_calls": call_records(caller),
        "errors": errors,
        **start,
    }
