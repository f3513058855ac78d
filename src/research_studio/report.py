"""Report rendering (structure enforced in code), run metadata and the result.json document."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from research_studio.config import Configuration, ReportStructure
from research_studio.grounding import finalize_report
from research_studio.pipelines.standard.schemas import ReportDraft, ReportSection
from research_studio.state import EvidenceRecord, LLMCallRecord, SourceRecord

CONCISE_POINTS = 2


def render_draft(draft: ReportDraft, structure: ReportStructure) -> str:
    """Markdown for a draft: paragraphs (detailed), trimmed paragraphs (concise) or bullets."""
    parts = [f"# {draft.title.strip()}"]
    if structure == "bullet_points":
        parts.append(f"**Summary:** {draft.summary.strip()}")
        for section in draft.sections:
            bullets = "\n".join(f"- {point.strip()}" for point in section.points if point.strip())
            parts.append(f"## {section.heading.strip()}\n\n{bullets}")
        if draft.conclusion.strip():
            parts.append(f"**Bottom line:** {draft.conclusion.strip()}")
        return "\n\n".join(parts)
    parts.append(f"## Summary\n\n{draft.summary.strip()}")
    for section in draft.sections:
        points = section.points[:CONCISE_POINTS] if structure == "concise" else section.points
        body = "\n\n".join(point.strip() for point in points if point.strip())
        parts.append(f"## {section.heading.strip()}\n\n{body}")
    if draft.conclusion.strip():
        parts.append(f"## Conclusion\n\n{draft.conclusion.strip()}")
    return "\n\n".join(parts)


def fallback_draft(
    query: str, evidence: Sequence[EvidenceRecord], note: str, *, by_source: bool = False
) -> ReportDraft:
    """A plain report straight from the evidence, grouped by question (or by source title)."""
    by_question: dict[str, list[str]] = {}
    for item in evidence:
        heading = item["title"] if by_source else item["question"]
        by_question.setdefault(heading or "Findings", []).append(f"{item['text']} [{item['sid']}]")
    sections = [
        ReportSection(heading=heading, points=points) for heading, points in by_question.items()
    ]
    if not sections:
        sections = [ReportSection(heading="Findings", points=["No evidence could be collected."])]
    return ReportDraft(title=query, summary=note, sections=sections)


def source_index(sources: Sequence[SourceRecord]) -> dict[str, tuple[str, str]]:
    """sid -> (title, url), as citation repair needs it."""
    return {source["sid"]: (source["title"], source["url"]) for source in sources}


def render_report(
    draft: ReportDraft, structure: ReportStructure, sources: Sequence[SourceRecord]
) -> tuple[str, list[str]]:
    """The final report text with repaired citations and its Sources section; and the cited ids."""
    return finalize_report(render_draft(draft, structure), source_index(sources))


def token_totals(calls: Sequence[LLMCallRecord]) -> tuple[int, int]:
    """Prompt and completion tokens over the calls that reported them."""
    prompt = sum(call["prompt_tokens"] or 0 for call in calls)
    completion = sum(call["completion_tokens"] or 0 for call in calls)
    return prompt, completion


def build_metadata(
    state: Mapping[str, Any],
    config: Configuration,
    *,
    search_provider: str,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The DESIGN.md metadata block, computed from state (never from what a model says)."""
    calls: list[LLMCallRecord] = state.get("llm_calls", [])
    prompt_tokens, completion_tokens = token_totals(calls)
    evidence: list[EvidenceRecord] = state.get("evidence", [])
    started = state.get("started_at") or time.time()
    metadata: dict[str, Any] = {
        "iterations": state.get("iteration", 0),
        "coverage": round(float(state.get("coverage", 0.0)), 3),
        "confidence": round(float(state.get("confidence", 0.0)), 3),
        "sources_count": len(state.get("sources", [])),
        "evidence_count": len(evidence),
        "verified_quotes": sum(1 for item in evidence if item["quote_verified"]),
        "cited_sources": len(state.get("cited_sources", [])),
        "searches": len(state.get("searches_done", [])),
        "fetches": state.get("fetch_count", 0),
        "llm_calls": len(calls),
        "llm_calls_by_node": _count_by_node(calls),
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "elapsed_s": round(time.time() - started, 3),
        "model": config.model,
        "fast_model": config.fast_model or config.model,
        "search_provider": search_provider,
        "errors": list(state.get("errors", [])),
    }
    metadata.update(extra or {})
    return metadata


def _count_by_node(calls: Sequence[LLMCallRecord]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for call in calls:
        counts[call["node"]] = counts.get(call["node"], 0) + 1
    return counts


def result_document(state: Mapping[str, Any], *, pipeline: str) -> dict[str, Any]:
    """result.json: query, pipeline, mode, clarification, report, sources, evidence, claims, metadata."""
    document: dict[str, Any] = {
        "query": state.get("query") or state.get("original_query", ""),
        "pipeline": pipeline,
        "mode": state.get("mode", ""),
        "clarification": {
            "question": state.get("clarification_question", ""),
            "options": state.get("clarification_options", []),
            "answer": state.get("user_clarification", ""),
        },
        "report": state.get("report", ""),
        "sources": list(state.get("sources", [])),
        "evidence": list(state.get("evidence", [])),
        "metadata": dict(state.get("metadata", {})),
    }
    for key in ("claims", "verified_claims", "source_credibility", "research_metadata"):
        if key in state:
            document[key] = state[key]
    return document
