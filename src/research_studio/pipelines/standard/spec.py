"""The standard pipeline as the registry lists it."""

from __future__ import annotations

from research_studio.pipelines.kit.spec import PipelineSpec
from research_studio.pipelines.kit.stopping import standard_stop_reason

STANDARD = PipelineSpec.of_package(
    __name__,
    "plan, search, gap loop or parallel workers, verify, write",
    graph_id="pipeline",  # its langgraph.json id from before the registry
    stop_rules=(standard_stop_reason,),
    modes=("single", "multi"),
    plan_text="research_studio.pipelines.standard.review:standard_plan_text",
    settings=(
        "language",
        "max_iterations",
        "max_research_questions",
        "max_sources",
        "max_subagents",
        "min_coverage",
        "query_similarity_threshold",
        "report_structure",
        "review_plan",
        "searches_per_worker",
        "system_prompt",
    ),
    bench_modes=("single", "multi"),
)
