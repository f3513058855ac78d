"""The supervisor pipeline (spec 004) as the registry lists it."""

from __future__ import annotations

from research_studio.pipelines.kit.spec import PipelineSpec
from research_studio.pipelines.supervisor.prompts import VERIFIED_HEADING
from research_studio.pipelines.supervisor.stopping import supervisor_stop_reason

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
    steps={
        "check_store": "looking for earlier research",
        "clarify_with_user": "checking whether the question is clear",
        "write_research_brief": "writing the research brief",
        "validate_brief": "checking the research brief",
        "review_brief": "waiting for the brief review",
        "review_brief_from_chat": "taking the brief review from the chat",
        "brief_rejected": "reporting why the brief was rejected",
        "research_supervisor": "researching (supervisor and researchers)",
        "validate_findings": "checking the findings",
        "extract_evidence": "extracting evidence",
        "verify_evidence": "checking quotes against pages",
        "final_report_generation": "writing the report",
        "review_report": "waiting for the report review",
        "review_report_from_chat": "taking the report review from the chat",
        "verify_claims": "checking claims",
    },
    after_loop=frozenset(
        {
            "extract_evidence",
            "verify_evidence",
            "final_report_generation",
            "review_report",
            "review_report_from_chat",
            "verify_claims",
        }
    ),
)
