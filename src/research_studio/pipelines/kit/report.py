"""Report rendering (structure enforced in code), run metadata and the result.json document."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from research_studio.core.config import Configuration
from research_studio.core.records import (
    ErrorRecord,
    EvidenceRecord,
    ModelCallRecord,
    RunSummary,
    SourceRecord,
)


def source_index(sources: Sequence[SourceRecord]) -> dict[str, tuple[str, str]]:
    """sid -> (title, url), as citation repair needs it."""
    return {source["sid"]: (source["title"], source["url"]) for source in sources}


def token_totals(calls: Sequence[ModelCallRecord]) -> tuple[int, int]:
    """Prompt and completion tokens over the calls that reported them."""
    prompt = sum(call["prompt_tokens"] or 0 for call in calls)
    completion = sum(call["completion_tokens"] or 0 for call in calls)
    return prompt, completion


def build_metadata(
    state: Mapping[str, Any],
    summary: RunSummary,
    config: Configuration,
    *,
    search_provider: str,
    final_calls: Sequence[ModelCallRecord] = (),
    final_errors: Sequence[ErrorRecord] = (),
) -> dict[str, Any]:
    """The run's metadata, computed from state and the pipeline's summary (never from a model).

    `final_calls` and `final_errors` are the last node's own, not yet merged into state.
    """
    calls: list[ModelCallRecord] = [*state.get("llm_calls", []), *final_calls]
    prompt_tokens, completion_tokens = token_totals(calls)
    evidence: list[EvidenceRecord] = state.get("evidence", [])
    started = state.get("started_at") or time.time()
    metadata: dict[str, Any] = {
        "iterations": summary["iterations"],
        "stop_reason": state.get("stop_reason", ""),
        "coverage": round(float(summary["coverage"]), 3),
        "confidence": round(float(summary["confidence"]), 3),
        "sources_count": len(state.get("sources", [])),
        "evidence_count": len(evidence),
        "verified_quotes": sum(1 for item in evidence if item["quote_verified"]),
        "cited_sources": len(summary["cited_sources"]),
        "searches": len(state.get("searches_done", [])),
        "fetches": state.get("fetch_count", 0),
        "llm_calls": len(calls),
        "llm_calls_by_node": _count_by_node(calls),
        "llm_calls_failed": sum(1 for call in calls if not call["ok"]),
        "llm_faults_by_kind": _faults_by_kind(calls),
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        **cost_figures(calls),
        "elapsed_s": round(time.time() - started, 3),
        "model": config.model,
        "fast_model": config.fast_model or config.model,
        "search_provider": search_provider,
        "grounding": summary["grounding"],
        **summary["figures"],
        "errors": [*state.get("errors", []), *final_errors],
    }
    metadata["budgets"] = budget_spend(config, metadata)
    return metadata


def cost_figures(calls: Sequence[ModelCallRecord]) -> dict[str, Any]:
    """Cost in USD of the calls, in all and by node; `cost_known` is False if a price is missing."""
    by_node: dict[str, float] = {}
    known = True
    for call in calls:
        cost = call.get("cost_usd")
        if cost is None:
            known = known and not call["prompt_tokens"]
            continue
        by_node[call["node"]] = round(by_node.get(call["node"], 0.0) + cost, 6)
    return {
        "cost_usd": round(sum(by_node.values()), 6),
        "cost_by_node": by_node,
        "cost_known": known,
    }


def budget_spend(config: Configuration, metadata: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Spend against each configured budget (limit None: no budget)."""
    return {
        "llm_calls": {"spent": metadata["llm_calls"], "limit": config.max_llm_calls},
        "tokens": {
            "spent": metadata["prompt_tokens"] + metadata["completion_tokens"],
            "limit": config.max_tokens,
        },
        "cost_usd": {"spent": metadata["cost_usd"], "limit": config.max_cost_usd},
        "wall_s": {"spent": metadata["elapsed_s"], "limit": config.max_wall_s},
    }


def _faults_by_kind(calls: Sequence[ModelCallRecord]) -> dict[str, int]:
    """Model calls that went wrong (failed, or were cut off and repaired), by what went wrong."""
    counts: dict[str, int] = {}
    for call in calls:
        kind = call.get("error_kind")
        if kind:
            counts[kind] = counts.get(kind, 0) + 1
    return counts


def _count_by_node(calls: Sequence[ModelCallRecord]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for call in calls:
        counts[call["node"]] = counts.get(call["node"], 0) + 1
    return counts


def result_document(output: Mapping[str, Any], *, pipeline: str) -> dict[str, Any]:
    """result.json, from the shared output schema only (no pipeline-specific keys)."""
    return {
        "query": output.get("query", ""),
        "pipeline": pipeline,
        "mode": output.get("mode", ""),
        "clarification": {
            "question": output.get("clarification_question", ""),
            "options": output.get("clarification_options", []),
            "answer": output.get("user_clarification", ""),
        },
        "report": output.get("report", ""),
        "sources": list(output.get("sources", [])),
        "evidence": list(output.get("evidence", [])),
        "claims": list(output.get("claims", [])),
        "statements": list(output.get("statements", [])),
        "metadata": dict(output.get("metadata", {})),
    }
