"""The supervisor pipeline (spec 004) as the registry lists it."""

from __future__ import annotations

from research_studio.pipelines.kit.spec import PipelineSpec
from research_studio.pipelines.kit.stopping import supervisor_stop_reason
from research_studio.pipelines.supervisor.prompts import VERIFIED_HEADING

SUPERVISOR = PipelineSpec.of_package(
    __name__,
    "tool-calling supervisor, researchers, councils, verified findings",
    stop_rules=(supervisor_stop_reason,),
    verbatim_heading=VERIFIED_HEADING,
    settings=(
        "allow_clarification",
        "chunk_size",
        "chunks_per_page",
        "claim_support_threshold",
        "council_max_revisions",
        "council_min_consensus",
        "council_models",
        "enable_brief_context",
        "language",
        "max_concurrent_research_units",
        "max_react_tool_calls",
        "max_researcher_iterations",
        "max_sources",
        "mcp_search_tool",
        "mcp_servers",
        "report_structure",
        "research_model",
        "review_mode",
        "search_results",
        "system_prompt",
        "test_mode",
        "use_claim_verification",
        "use_council",
        "use_findings_council",
    ),
    uses_store=True,
)
