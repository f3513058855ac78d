"""Graph nodes in words: what each step of a run does, for every face that shows progress."""

from __future__ import annotations

# What each graph node does, in the words a reader of the progress line understands.
STEP_WORDS: dict[str, str] = {
    "run": "the run",
    "review": "the review",
    # standard
    "understand": "understanding the question",
    "clarify": "asking a clarification",
    "clarify_with_user": "checking whether the question is clear",
    "plan": "planning the research",
    "review_plan": "waiting for the plan review",
    "orchestrate": "assigning searches to workers",
    "search_worker": "searching and reading pages",
    "search_and_extract": "searching and reading pages",
    "collect": "collecting the workers' findings",
    "detect_gaps": "looking for gaps",
    "synthesize": "weighing what was found",  # per iteration: coverage and gaps, not the report
    "write_report": "writing the report",
    "verify": "checking the citations",
    # advanced
    "query_analyzer": "understanding the question",
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
    "analyzer": "analysing the evidence",
    "auto_refine": "refining the report",
    "cite": "adding citations",
    "writer": "writing the report",
    # supervisor
    "check_store": "looking for earlier research",
    "write_research_brief": "writing the research brief",
    "validate_brief": "checking the research brief",
    "review_brief": "waiting for the brief review",
    "research_supervisor": "researching (supervisor and researchers)",
    "validate_findings": "checking the findings",
    "extract_evidence": "extracting evidence",
    "verify_evidence": "checking quotes against pages",
    "final_report_generation": "writing the report",
    "review_report": "waiting for the report review",
    "verify_claims": "checking claims",
}
# Steps after the research loop: progress shows the iterations done, not one running.
AFTER_LOOP = frozenset(
    {
        "write_report",
        "verify",
        "trust_engine",
        "credibility_scorer",
        "ranker",
        "claim_extractor",
        "cross_validate",
        "confidence_scorer",
        "span_verify",
        "batched_cred_claims",
        "batched_verify",
        "analyzer",
        "auto_refine",
        "cite",
        "writer",
        "extract_evidence",
        "verify_evidence",
        "final_report_generation",
        "review_report",
        "verify_claims",
    }
)


def step_words(node: str) -> str:
    """The step a node performs, in words (an unknown node by its name, underscores spaced)."""
    return STEP_WORDS.get(node) or node.replace("_", " ").strip() or "working"
