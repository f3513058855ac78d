"""The report: Verified Findings picked by a selector and checked by code, then the cited report."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from research_studio.core.config import Configuration
from research_studio.core.languages import report_language, writing_rule
from research_studio.core.prompt_blocks import request_block
from research_studio.core.records import (
    ErrorRecord,
    EvidenceRecord,
    ModelCallRecord,
    QuoteRef,
    RunSummary,
    SourceRecord,
)
from research_studio.evidence.passages import (
    distinct_sources_first,
    fallback_report,
    is_safe_passage,
)
from research_studio.grounding.printed import cited_sources
from research_studio.grounding.statements import (
    GroundedReport,
    ReportDraft,
    Support,
    ground_draft,
    grounding_figures,
)
from research_studio.pipelines.kit.conflicts import mark_conflicts, open_lines, with_conflicts
from research_studio.pipelines.kit.models import attempt, model_for
from research_studio.pipelines.kit.node_kit import (
    call_records,
    limitations_of,
    node_tools,
    report_update,
)
from research_studio.pipelines.kit.report import close_report, open_with_notice, report_grounding
from research_studio.pipelines.supervisor.models import SUPERVISOR_MODELS
from research_studio.pipelines.supervisor.nodes.council import APPROVALS, MAX_NOTES_CHARS
from research_studio.pipelines.supervisor.nodes.evidence import rank_snippets, stored_sources
from research_studio.pipelines.supervisor.prompts import (
    CANDIDATE_LINE,
    EVIDENCE_LINE,
    NO_TEXT,
    REVIEW_FEEDBACK_BLOCK,
    SELECTOR_SYSTEM,
    SELECTOR_USER,
    STYLE,
    WRITER_SYSTEM,
    WRITER_USER,
)
from research_studio.pipelines.supervisor.render import (
    enforce_verified_section,
    place_verified_section,
    section_text,
    verified_records,
    verified_section,
)
from research_studio.pipelines.supervisor.schemas import FindingsSelection
from research_studio.pipelines.supervisor.state import AgentState, StoredSource
from research_studio.services.clients import Services

MIN_VERIFIED, MAX_VERIFIED = 3, 5
MAX_REPORT_REVISIONS = 2  # rewrites the reader's feedback may ask for (review_mode=full)
SELECTOR_CANDIDATES = 15
MAX_EVIDENCE = 40
NOTHING_VERIFIED = "no passage of the sources could be verified"


def source_records(stored: Sequence[StoredSource], limit: int) -> list[SourceRecord]:
    """The stored sources as the run's cited-source records (S1, S2, ...)."""
    return [
        SourceRecord(
            sid=f"S{number}",
            url=source["url"],
            title=source["title"],
            snippet=source["content"][:300],
            provider=source["provider"],
            published=source["published"],
        )
        for number, source in enumerate(stored[:limit], 1)
    ]


def evidence_records(
    state: AgentState, sources: list[SourceRecord], brief: str
) -> list[EvidenceRecord]:
    """The most relevant PASS passages of the cited-source candidates, as evidence (E1, E2, ...)."""
    by_url = {source["url"]: source for source in sources}
    allowed = list(by_url)
    relevant = [
        snippet
        for snippet in rank_snippets(state.get("evidence_snippets", []), brief)
        if snippet["url"] in by_url and is_safe_passage(snippet["quote"], allowed)
    ]
    # Each source's best passage before any source's second: the first candidates (what the
    # selector and the writer see first) come from several sources.
    ranked = distinct_sources_first(relevant, lambda snippet: snippet["url"])
    return [
        EvidenceRecord(
            eid=f"E{number}",
            sid=by_url[snippet["url"]]["sid"],
            url=snippet["url"],
            title=by_url[snippet["url"]]["title"],
            text=snippet["quote"],
            quote=snippet["quote"],
            quote_verified=True,
            question="",
        )
        for number, snippet in enumerate(ranked[:MAX_EVIDENCE], 1)
    ]


async def select_verified(
    services: Services, config: Configuration, brief: str, candidates: list[EvidenceRecord]
) -> tuple[list[EvidenceRecord], int, list[ModelCallRecord], list[ErrorRecord]]:
    """3–5 passages picked by the selector, each byte-identical to a PASS passage; code fills up."""
    chosen: list[EvidenceRecord] = []
    rejected = 0
    calls: list[ModelCallRecord] = []
    errors: list[ErrorRecord] = []
    if not services.extraction.verbatim:  # a small model cannot copy reliably: code picks
        caller = model_for(
            services, SUPERVISOR_MODELS, "select_verified_findings", role="final_report"
        )
        listing = "\n".join(
            CANDIDATE_LINE.format(id=item["eid"], sid=item["sid"], quote=item["quote"])
            for item in candidates
        )
        messages = [
            SystemMessage(content=SELECTOR_SYSTEM.format(low=MIN_VERIFIED, high=MAX_VERIFIED)),
            HumanMessage(content=SELECTOR_USER.format(brief=brief, candidates=listing)),
        ]
        selection = await attempt(
            caller.structured(FindingsSelection, messages),
            "final_report_generation",
            errors,
            target="Verified Findings",
        )
        by_id = {item["eid"]: item for item in candidates}
        by_quote = {item["quote"]: item for item in candidates}
        for pick in selection.selected if selection is not None else []:
            # Byte-identical or not at all: a changed passage is no longer a verified one.
            item = by_id.get(pick.id.strip())
            found = item if item and item["quote"] == pick.quote else by_quote.get(pick.quote)
            if found is None:
                rejected += 1
            elif found not in chosen:
                chosen.append(found)
        calls = call_records(caller)
    for item in candidates:  # fewer than the minimum: the most relevant PASS passages
        if len(chosen) >= MIN_VERIFIED:
            break
        if item not in chosen:
            chosen.append(item)
    return chosen[:MAX_VERIFIED], rejected, calls, errors


def _evidence_support(evidence: list[EvidenceRecord]) -> dict[str, Support]:
    return {
        item["eid"]: Support(
            sids=(item["sid"],), quotes=(QuoteRef(sid=item["sid"], quote=item["quote"]),)
        )
        for item in evidence
    }


async def _write(
    services: Services,
    config: Configuration,
    state: AgentState,
    evidence: list[EvidenceRecord],
    block: str,
    sources: list[SourceRecord],
) -> tuple[GroundedReport | None, list[ModelCallRecord], list[ErrorRecord]]:
    """The writer's statements, grounded by code (None when the writer failed)."""
    caller = model_for(services, SUPERVISOR_MODELS, "final_report_generation", role="final_report")
    brief = state.get("human_approved_brief") or state.get("research_brief", "")
    messages = [
        SystemMessage(
            content=WRITER_SYSTEM.format(
                valid_ids=", ".join(item["eid"] for item in evidence),
                style=STYLE[config.report_structure],
                language_rule=writing_rule(report_language(config.language, state["query"])),
                system_prompt=f"Additional instructions: {config.system_prompt}"
                if config.system_prompt
                else "",
            )
        ),
        HumanMessage(
            content=WRITER_USER.format(
                request=request_block(state["query"], state.get("user_clarification", "")),
                brief=brief,
                verified=block,
                notes="\n\n".join(state.get("notes", []))[:MAX_NOTES_CHARS] or NO_TEXT,
                flagged="; ".join(state.get("flagged_issues", [])) or NO_TEXT,
                evidence="\n".join(
                    EVIDENCE_LINE.format(eid=item["eid"], sid=item["sid"], quote=item["quote"])
                    for item in evidence
                ),
            )
            + (
                REVIEW_FEEDBACK_BLOCK.format(feedback=state.get("human_report_feedback", ""))
                if state.get("revise_report")
                else ""
            )
        ),
    ]
    errors: list[ErrorRecord] = []
    draft = await attempt(
        caller.structured(ReportDraft, messages), "final_report_generation", errors
    )
    if draft is None:
        return None, call_records(caller), errors
    grounded = ground_draft(
        draft,
        _evidence_support(evidence),
        title=state["query"],
        headings=[],
        allowed_urls=[source["url"] for source in sources],
    )
    return grounded, call_records(caller), []


async def final_report_generation(
    state: AgentState, runtime: Runtime[Configuration]
) -> dict[str, Any]:
    """Verified Findings (selector + byte check), the writer's cited report, the block enforced."""
    config, services, emit = node_tools(runtime, "final_report_generation")
    brief = state.get("human_approved_brief") or state.get("research_brief", "")
    sources = source_records(await stored_sources(state, runtime), config.max_sources)
    evidence = evidence_records(state, sources, brief)
    disabled = state.get("store_note", "") if state.get("verified_disabled") else ""
    if not disabled and not evidence:
        disabled = NOTHING_VERIFIED
    calls: list[ModelCallRecord] = []
    errors: list[ErrorRecord] = []
    chosen: list[EvidenceRecord] = []
    rejected = 0
    if not disabled:
        emit("selecting the Verified Findings")
        chosen, rejected, calls, errors = await select_verified(
            services, config, brief, evidence[:SELECTOR_CANDIDATES]
        )
    block_section = verified_section(
        verified_records([(item["sid"], item["quote"]) for item in chosen]), disabled
    )
    block = section_text(block_section, config.report_structure)
    emit("writing the report")
    grounded: GroundedReport | None = None
    reason = "extractive" if services.extraction.verbatim else "uncited"
    if evidence and reason != "extractive":
        grounded, write_calls, write_errors = await _write(
            services, config, state, evidence, block, sources
        )
        calls, errors = [*calls, *write_calls], [*errors, *write_errors]
        reason = "writer_failed" if grounded is None else reason
    if grounded is None or not grounded.has_citations():
        grounded = await fallback_report(
            services.archive,
            config,
            title=state["query"],
            request=brief,
            questions=[brief],
            sources=sources,
            evidence=evidence,
            reason=reason,
            tally=grounded.tally if grounded else None,
        )
    writer_wrote_block = place_verified_section(grounded, block_section)
    language = report_language(config.language, state["query"])
    coverage = close_report(
        grounded, config.report_structure, query=state["query"], questions=[], language=language
    )
    # A reading taken because no one could be asked, above all else.
    open_with_notice(grounded, state.get("referent_notice", ""))
    conflicts = mark_conflicts(grounded, config.report_structure, evidence, language=language)
    limitations = limitations_of(
        runtime, state, errors, grounded.tally, language, open_lines(conflicts, language)
    )
    if limitations:
        grounded.appendix.append(limitations)
    markdown, block_restored = enforce_verified_section(
        grounded.markdown(config.report_structure, sources, language), block
    )
    statements = grounded.printed(config.report_structure)
    cited = cited_sources(statements)
    snippets = state.get("evidence_snippets", [])
    passed = sum(1 for snippet in snippets if snippet["status"] == "PASS")
    grounding = with_conflicts(
        report_grounding(grounding_figures(statements, grounded.tally), coverage), conflicts
    )
    summary = RunSummary(
        iterations=state.get("research_iterations", 0),
        coverage=float(grounding["citation_coverage"]),  # type: ignore[arg-type]
        confidence=round(passed / len(snippets), 3) if snippets else 0.0,
        cited_sources=cited,
        grounding=grounding,
        figures={
            "verified_findings": len(chosen),
            "verified_disabled": bool(disabled),
            "verified_disabled_reason": disabled,
            "verified_section_restored": writer_wrote_block or block_restored,
            "selector_rejected": rejected,
            "evidence_snippets": len(snippets),
            "snippets_pass": passed,
            "snippets_fail": len(snippets) - passed,
            "supervisor_turns": state.get("research_iterations", 0),
            "researchers": len(state.get("notes", [])),
            "council_outcome": state.get("council_outcome", ""),
            "council_consensus": state.get("council_consensus", 0.0),
            "council_revisions": state.get("council_revision_count", 0),
            "council_votes": state.get("council_votes", []),
            "flagged_issues": state.get("flagged_issues", []),
            "referent_assumed": state.get("user_clarification", "")
            if state.get("referent_notice") and state.get("referents")
            else "",
            "reading_assumed": state.get("referent_notice", ""),
        },
    )
    return {
        **report_update(
            runtime,
            {**state, "sources": sources, "evidence": evidence},
            report=markdown,
            statements=statements,
            summary=summary,
            calls=calls,
            errors=errors,
        ),
        "verified_section": block,
        "sources": sources,
        "evidence": evidence,
    }


def make_review_report(
    ask_human: bool,
) -> Callable[[AgentState, Runtime[Configuration]], dict[str, Any]]:
    """review_mode=full: the human approves the report or replies with feedback the writer applies."""

    def review_report(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
        if not ask_human or runtime.context.review_mode != "full":
            return {}
        reply = state.get("review_reply") or interrupt(
            {
                "kind": "report_review",
                "question": "Approve the report (reply approve) or reply with feedback.",
                "report": state.get("report", ""),
            }
        )
        text = reply.get("feedback", "") if isinstance(reply, dict) else str(reply or "")
        metadata = state.get("metadata", {})
        if text.strip().lower() in APPROVALS:
            approved = {**metadata, "human_review": "approved"}
            return {"revise_report": False, "metadata": approved, "review_reply": ""}
        revisions = state.get("report_revisions", 0)
        revise = revisions < MAX_REPORT_REVISIONS
        return {
            "human_report_feedback": text.strip(),
            "revise_report": revise,
            "report_revisions": revisions + int(revise),
            "metadata": {**metadata, "human_review": text.strip()},
            "review_reply": "",
        }

    return review_report


def route_after_review_report(state: AgentState) -> str:
    """The reader's feedback goes back to the writer (up to the cap); else on to claim checks."""
    return "final_report_generation" if state.get("revise_report") else "verify_claims"
