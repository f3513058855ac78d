"""The standard pipeline as the registry lists it."""

from __future__ import annotations

from research_studio.pipelines.kit.spec import PipelineSpec
from research_studio.pipelines.standard.stopping import standard_stop_reason

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
    steps={
        "understand": "understanding the question",
        "plan": "planning the research",
        "orchestrate": "assigning searches to workers",
        "search_worker": "searching and reading pages",
        "search_and_extract": "searching and reading pages",
        "collect": "collecting the workers' findings",
        "detect_gaps": "looking for gaps",
        "synthesize": "weighing what was found",  # per iteration: coverage and gaps, not the report
        "write_report": "writing the report",
        "verify": "checking the citations",
    },
    after_loop=frozenset({"write_report", "verify"}),
    claim_ratio=True,
)
