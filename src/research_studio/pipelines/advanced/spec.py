"""The advanced family as the registry lists it: V9 and its two trust-engine variants."""

from __future__ import annotations

from typing import Any

from research_studio.pipelines.advanced.stopping import advanced_stop_reason, early_stop_reason
from research_studio.pipelines.kit.spec import PipelineSpec

_VARIANTS = "research_studio.pipelines.advanced.graph"
# What every member of the family reads; each variant adds its own.
_FAMILY_SETTINGS = (
    "chunk_size",
    "chunks_per_page",
    "enable_credibility_scoring",
    "enable_cross_validation",
    "enable_span_verification",
    "language",
    "max_iterations",
    "max_sources",
    "max_subagents",
    "min_confidence",
    "min_confidence_gain",
    "min_source_credibility",
    "query_similarity_threshold",
    "report_structure",
    "searches_per_worker",
    "subagent_max_iterations",
    "system_prompt",
)
# Every node of the family in words (each variant wires a subset of them).
_FAMILY_STEPS = {
    "query_analyzer": "understanding the question",
    "analyzer": "understanding the question",
    "complexity_router": "judging the question's complexity",
    "planner": "planning the research",
    "orchestrator": "assigning searches to subagents",
    "subagent": "searching and reading pages",
    "discovery": "searching and reading pages",
    "collect_findings": "collecting the subagents' findings",
    "consolidate_sources": "merging duplicate sources",
    "gap_detector": "looking for gaps",
    "increment_iteration": "starting another iteration",
    "early_termination_check": "deciding whether to stop early",
    "confidence_check": "deciding whether to stop early",
    "trust_engine": "checking sources and claims",
    "credibility_scorer": "scoring source credibility",
    "ranker": "ranking sources",
    "claim_extractor": "extracting claims",
    "cross_validate": "cross-checking claims between sources",
    "confidence_scorer": "scoring claim confidence",
    "span_verify": "checking quotes against pages",
    "batched_cred_claims": "scoring sources and extracting claims",
    "batched_verify": "checking claims against quotes",
    "backtrack_handler": "researching weak claims again",
    "auto_refine": "refining the report",
    "cite": "adding citations",
    "writer": "writing the report",
}
# The trust engine and the writer run after the research loop.
_FAMILY_AFTER_LOOP = frozenset(
    {
        "trust_engine",
        "credibility_scorer",
        "ranker",
        "claim_extractor",
        "cross_validate",
        "confidence_scorer",
        "span_verify",
        "batched_cred_claims",
        "batched_verify",
        "auto_refine",
        "cite",
        "writer",
    }
)
_FAMILY: dict[str, Any] = {
    "steps": _FAMILY_STEPS,
    "after_loop": _FAMILY_AFTER_LOOP,
    "claim_ratio": True,
}

ADVANCED = PipelineSpec.of_package(
    __name__,
    "research tree, parallel subagents, one-node trust engine (V9)",
    stop_rules=(advanced_stop_reason,),
    modes=("single", "multi"),
    plan_text="research_studio.pipelines.advanced.nodes.review:advanced_plan_text",
    settings=(*_FAMILY_SETTINGS, "review_plan"),
    bench_modes=("multi",),
    **_FAMILY,
)


def _variant(
    name: str, summary: str, graph: str, stop_rules: tuple[Any, ...], *settings: str
) -> PipelineSpec:
    """A variant of the family: `<graph>_graph` and, without checkpointer or pause, `_simple`."""
    return PipelineSpec(
        name=name,
        summary=summary,
        builder=f"{_VARIANTS}:build_{graph}_graph",
        graphs={
            name: f"{_VARIANTS}:{graph}_graph",
            f"{name}-simple": f"{_VARIANTS}:{graph}_simple_graph",
        },
        stop_rules=stop_rules,
        modes=("single", "multi"),
        settings=(*_FAMILY_SETTINGS, *settings),
        bench_modes=("multi",),
        **_FAMILY,
    )


ADVANCED_FULL = _variant(
    "advanced-full",
    "full 7-node trust engine",
    "trust_engine",
    (advanced_stop_reason,),
    "enable_backtracking",
    "rerank_top_n",
)
ADVANCED_OPTIMIZED = _variant(
    "advanced-optimized",
    "batched trust engine, early stops",
    "optimized",
    (early_stop_reason, advanced_stop_reason),
    "enable_backtracking",
    "min_source_novelty",
    "rerank_top_n",
)
