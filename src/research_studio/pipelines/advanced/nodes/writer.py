"""writer: statements bound to verified claims only; code cites, indicates and adds quality."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.languages import report_language, writing_rule
from research_studio.core.prompt_blocks import additional_instructions, inline
from research_studio.core.records import ClaimRecord, ErrorRecord, ModelCallRecord, RunSummary
from research_studio.evidence.passages import fallback_report, passage_note
from research_studio.grounding.printed import GroundedSection, cited_sources
from research_studio.grounding.statements import (
    GroundedReport,
    ReportDraft,
    ground_draft,
    grounding_figures,
)
from research_studio.pipelines.advanced.models import ADVANCED_MODELS
from research_studio.pipelines.advanced.prompts import (
    STYLE_RULES,
    WRITER_SYSTEM,
    WRITER_USER,
    claim_packets,
    gap_lines,
)
from research_studio.pipelines.advanced.render import add_claim_lists, appendix, claim_support
from research_studio.pipelines.advanced.state import AgentState
from research_studio.pipelines.advanced.trust_engine.rules import checks_off
from research_studio.pipelines.kit.conflicts import mark_conflicts, open_lines, with_conflicts
from research_studio.pipelines.kit.models import attempt, model_for
from research_studio.pipelines.kit.node_kit import (
    call_records,
    emitter,
    limitations_of,
    report_update,
    services_of,
)
from research_studio.pipelines.kit.report import (
    close_report,
    count_note,
    open_with_notice,
    report_grounding,
)
from research_studio.services.clients import Services


async def _draft(
    services: Services, state: AgentState, config: Configuration, verified: list[ClaimRecord]
) -> tuple[ReportDraft | None, list[ModelCallRecord], list[ErrorRecord]]:
    """The smart model's draft (None when it fails), its call records and errors."""
    caller = model_for(services, ADVANCED_MODELS, "writer")
    plan = state["plan"]
    gaps = state.get("knowledge_gaps", [])
    messages = [
        SystemMessage(
            content=WRITER_SYSTEM.format(
                valid_ids=", ".join(claim["cid"] for claim in verified),
                style_rule=STYLE_RULES[config.report_structure],
                language_rule=writing_rule(
                    report_language(config.language, state.get("query", ""))
                ),
                system_prompt=additional_instructions(config.system_prompt),
            )
        ),
        HumanMessage(
            content=WRITER_USER.format(
                topic=plan["topic"],
                outline=inline(plan["outline"]),
                claims=claim_packets(verified),
                gaps=gap_lines(gaps),
            )
        ),
    ]
    errors: list[ErrorRecord] = []
    draft = await attempt(caller.structured(ReportDraft, messages), "writer", errors)
    return draft, call_records(caller), errors


def _verbatim_report(title: str, verified: list[ClaimRecord], note: str) -> GroundedReport:
    """Verbatim claims under the outline sections they serve (no model prose), and why."""
    report = GroundedReport(title=title)
    report.sections.append(GroundedSection(heading="About this report", intro=note))
    return report


async def _grounded(
    services: Services, state: AgentState, config: Configuration, verified: list[ClaimRecord]
) -> tuple[GroundedReport, list[ModelCallRecord], list[ErrorRecord]]:
    """The checked report: the writer's statements plus listed claims, else verbatim passages."""
    plan = state["plan"]
    sources = state.get("sources", [])
    allowed = [source["url"] for source in sources]
    support = claim_support(verified, state.get("evidence", []))
    verbatim = services.extraction.verbatim
    report: GroundedReport | None = None
    calls: list[ModelCallRecord] = []
    errors: list[ErrorRecord] = []
    outline = plan["outline"]
    if verified and verbatim:
        report = _verbatim_report(state.get("query", ""), verified, "")
    elif verified:
        draft, calls, errors = await _draft(services, state, config, verified)
        if draft is not None:
            report = ground_draft(
                draft,
                support,
                title=state.get("query", ""),
                headings=questions_of(state),
                allowed_urls=allowed,
            )
    if report is not None:
        # Concise reports say each claim once: the lists hold what the prose left out.
        stated = (
            {cid for record in report.printed("concise") for cid in record["ids"]}
            if config.report_structure == "concise"
            else set()
        )
        listed = [claim for claim in verified if claim["cid"] not in stated]
        add_claim_lists(report, listed, outline, support, allowed)
        if verbatim:  # counted from what is printed, so the note agrees with Sources
            template = passage_note("extractive", config, state.get("query", ""))
            count_note(report, template, config.report_structure, len(sources))
    if report is None or not report.has_citations():
        report = await fallback_report(
            services.archive,
            config,
            title=state.get("query", ""),
            request=state.get("query", ""),
            questions=questions_of(state),
            sources=sources,
            evidence=state.get("evidence", []),
            reason="extractive"
            if verbatim
            else "budget"
            if any(error["kind"] == "budget" for error in errors)
            else "uncited"
            if verified
            else "unverified"
            if config.enable_span_verification
            else "unchecked",
            tally=report.tally if report else None,
        )
    return report, calls, errors


def questions_of(state: AgentState) -> list[str]:
    """The plan's primary research questions: what headings and coverage are checked against."""
    return [question["question"] for question in state["plan"]["primary"]]


async def writer(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Statements bound to verified claims; code cites, checks, adds indicators, gaps and quality."""
    config = runtime.context
    services = services_of(runtime)
    emitter(runtime, "writer")("writing the report")
    claims = state.get("claims", [])
    verified = [claim for claim in claims if claim["verified"]]
    gaps = state.get("knowledge_gaps", [])
    report, calls, errors = await _grounded(services, state, config, verified)
    language = report_language(config.language, state.get("query", ""))
    coverage = close_report(
        report,
        config.report_structure,
        query=state.get("query", ""),
        questions=questions_of(state),
        language=language,
    )
    # Namesakes: which one the report is about when no one could be asked, above all else.
    open_with_notice(report, state.get("referent_notice", ""))
    conflicts = mark_conflicts(
        report,
        config.report_structure,
        state.get("evidence", []),
        state.get("searches_done", []),
        language=language,
    )
    statements = report.printed(config.report_structure)
    cited = cited_sources(statements)
    iterations = state.get("research_iteration", 0) + 1
    cross_validated = sum(1 for claim in verified if claim["cross_validated"])
    quality = {
        "Overall confidence": f"{state.get('overall_confidence', 0.0):.2f}",
        "Verified claims": f"{len(verified)}/{len(claims)}",
        "Cross-validated claims": str(cross_validated),
        "Hallucination score": f"{state.get('hallucination_score', 0.0):.2f}",
        "Sources used": str(len(cited)),
        "Iterations": str(iterations),
    }
    if off := checks_off(config):
        quality["Checks switched off"] = ", ".join(off)
    report.appendix = [*report.appendix, *appendix(coverage, quality, language)]
    limitations = limitations_of(
        runtime, state, errors, report.tally, language, open_lines(conflicts, language)
    )
    if limitations:
        report.appendix.insert(0, limitations)
    markdown = report.markdown(config.report_structure, state.get("sources", []), language)
    grounding = with_conflicts(
        report_grounding(grounding_figures(statements, report.tally), coverage), conflicts
    )
    summary = RunSummary(
        iterations=iterations,
        coverage=state.get("previous_confidence", 0.0),
        confidence=state.get("overall_confidence", 0.0),
        cited_sources=cited,
        grounding={
            **grounding,
            "claims_verified": len(verified),
            "claims_cross_validated": cross_validated,
        },
        figures={
            "overall_confidence": state.get("overall_confidence", 0.0),
            "verified_claims": len(verified),
            "total_claims": len(claims),
            "cross_validated": cross_validated,
            "hallucination_score": state.get("hallucination_score", 0.0),
            "knowledge_gaps": len(gaps),
            "sources_used": len(cited),
            # which node's rule ended the research loop (the rule is `stop_reason`)
            "stopped_by": state.get("stopped_by")
            or ("gap_detector" if state.get("stop_reason") else ""),
            "query_complexity": state.get("query_complexity", ""),
            "checks_off": off,
            "orchestrator_state": state.get("orchestrator_state"),
            "referent_assumed": state["selected_entity"]["name"]
            if state.get("referent_notice") and state.get("selected_entity")
            else "",
            # what the report opens with when no one could be asked which reading was meant
            "reading_assumed": state.get("referent_notice", ""),
        },
    )
    return report_update(
        runtime,
        state,
        report=markdown,
        statements=statements,
        summary=summary,
        calls=calls,
        errors=errors,
    )
