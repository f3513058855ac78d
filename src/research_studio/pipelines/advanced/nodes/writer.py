"""writer: a report from verified claims only, with indicators, gaps and a research-quality table."""

from __future__ import annotations

import time
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from research_studio.config import Configuration
from research_studio.errors import ResearchStudioError
from research_studio.limitations import Losses, limitations_section
from research_studio.passages import evidence_passages, page_passages, passage_report
from research_studio.pipelines.advanced.state import AgentState, KnowledgeGap
from research_studio.pipelines.node_kit import call_records, emitter, error_record, services_of
from research_studio.prompts.report_writer import WRITER_SYSTEM, WRITER_USER
from research_studio.prompts.write import PASSAGES_NOTE
from research_studio.records import ClaimRecord, EvidenceRecord, QuoteRef
from research_studio.report import build_metadata, token_totals
from research_studio.services import Services
from research_studio.statements import (
    GroundedReport,
    GroundedSection,
    ReportDraft,
    Statement,
    Support,
    Tally,
    cited_sources,
    ground_draft,
    ground_statement,
    grounding_figures,
)

LEGEND = "Indicators: ✓✓ cross-validated by two or more sources and confidence ≥ 0.8 · ✓ confidence ≥ 0.6 · ⚠ lower confidence."


def claim_support(claims: list[ClaimRecord], evidence: list[EvidenceRecord]) -> dict[str, Support]:
    """What citing a claim means: its verifying sources, their verified quotes, its indicator."""
    by_eid = {item["eid"]: item for item in evidence}
    return {
        claim["cid"]: Support(
            sids=tuple(claim["supporting_sids"]),
            quotes=tuple(
                QuoteRef(sid=by_eid[eid]["sid"], quote=by_eid[eid]["quote"])
                for eid in claim["supporting_eids"]
                if eid in by_eid
            ),
            indicator=claim["indicator"],
        )
        for claim in claims
    }


def _section_of(claim: ClaimRecord, outline: list[str]) -> str:
    return claim["section"] if claim["section"] in outline else "Other findings"


def add_claim_lists(
    report: GroundedReport,
    claims: list[ClaimRecord],
    outline: list[str],
    support: dict[str, Support],
    allowed_urls: list[str],
) -> None:
    """Every verified claim, listed with its indicator and sources under its section."""
    by_heading = {section.heading.lower(): section for section in report.sections}
    for heading in [*outline, "Other findings"]:
        members = [claim for claim in claims if _section_of(claim, outline) == heading]
        records = [
            record
            for claim in members
            if (
                record := ground_statement(
                    Statement(text=claim["text"], ids=[claim["cid"]]),
                    support,
                    section=heading,
                    tally=report.tally,
                    allowed_urls=allowed_urls,
                )
            )
        ]
        if not records:
            continue
        section = by_heading.get(heading.lower())
        if section is None:
            section = GroundedSection(heading=heading)
            report.sections.append(section)
            by_heading[heading.lower()] = section
        section.bullets.extend(records)


def _appendix(gaps: list[KnowledgeGap], quality: dict[str, Any]) -> list[str]:
    blocks = []
    if gaps:
        blocks.append(
            "## Remaining gaps\n\n"
            + "\n".join(
                f"- **{gap['section']}** ({gap['severity']}): {gap['description']}" for gap in gaps
            )
        )
    rows = "\n".join(f"| {name} | {value} |" for name, value in quality.items())
    blocks.append(f"## Research Quality\n\n| Metric | Value |\n|---|---|\n{rows}\n\n{LEGEND}")
    return blocks


def _packets(claims: list[ClaimRecord]) -> str:
    return (
        "\n".join(
            f"[{c['cid']}] ({c['section']}; sources {', '.join(c['supporting_sids'])}) {c['text']}"
            for c in claims
        )
        or "(none)"
    )


async def _draft(
    services: Services, state: AgentState, config: Configuration, verified: list[ClaimRecord]
) -> tuple[ReportDraft | None, list[Any], Any]:
    caller = services.caller("writer", "smart")
    plan = state["plan"]
    gaps = state.get("knowledge_gaps", [])
    try:
        draft = await caller.structured(
            ReportDraft,
            [
                SystemMessage(
                    content=WRITER_SYSTEM.format(
                        valid_ids=", ".join(claim["cid"] for claim in verified),
                        style_rule=f"Structure: {config.report_structure.replace('_', ' ')}.",
                        system_prompt=f"Additional instructions: {config.system_prompt}"
                        if config.system_prompt
                        else "",
                    )
                ),
                HumanMessage(
                    content=WRITER_USER.format(
                        topic=plan["topic"],
                        outline="; ".join(plan["outline"]),
                        claims=_packets(verified),
                        gaps="\n".join(f"- {g['section']}: {g['description']}" for g in gaps)
                        or "(none)",
                    )
                ),
            ],
        )
        return draft, [], caller
    except ResearchStudioError as exc:
        return None, [error_record("writer", exc)], caller


async def _grounded(
    services: Services, state: AgentState, config: Configuration, verified: list[ClaimRecord]
) -> tuple[GroundedReport, list[Any], list[Any]]:
    """The checked report: the writer's statements plus listed claims, else verbatim passages."""
    plan = state["plan"]
    evidence = state.get("evidence", [])
    sources = state.get("sources", [])
    support = claim_support(verified, evidence)
    extractive = services.extraction_mode == "extractive"
    outline = plan["outline"]
    report: GroundedReport | None = None
    errors: list[Any] = []
    calls: list[Any] = []
    reason = "extractive" if extractive else "uncited"
    if verified and not extractive:
        draft, errors, caller = await _draft(services, state, config, verified)
        calls = call_records(caller)
        if draft is not None:
            report = ground_draft(
                draft,
                support,
                title=plan["topic"],
                headings=outline,
                allowed_urls=[source["url"] for source in sources],
            )
    if verified and extractive:
        # Verbatim claims read best under the title of the document they come from.
        titles = {source["sid"]: source["title"] for source in sources}
        verified = [
            ClaimRecord(**{**claim, "section": titles.get(claim["supporting_sids"][0], "Findings")})
            for claim in verified
        ]
        outline = list(dict.fromkeys(claim["section"] for claim in verified))
        report = GroundedReport(title=plan["topic"])
    if report is not None:
        add_claim_lists(report, verified, outline, support, [s["url"] for s in sources])
        if extractive:
            report.sections.insert(
                0,
                GroundedSection(
                    heading="About this report",
                    intro=PASSAGES_NOTE["extractive"].format(
                        passages=len(verified),
                        used=len(cited_sources(report.printed("detailed"))),
                        sources=len(sources),
                    ),
                ),
            )
    if report is None or not report.has_citations():
        tally = report.tally if report else Tally()
        report = await _passage_fallback(services, state, reason if verified else "unverified")
        report.tally = tally
    return report, errors, calls


async def _passage_fallback(services: Services, state: AgentState, reason: str) -> GroundedReport:
    sources = state.get("sources", [])
    passages = evidence_passages(state.get("evidence", []), None, [s["url"] for s in sources])
    if not passages:
        passages = await page_passages(
            services.archive,
            services.config,
            sources,
            request=state.get("original_query", ""),
            questions=[q["question"] for q in state["plan"]["primary"]],
        )
        reason = "unverified" if passages else "nothing_read"
    note = PASSAGES_NOTE[reason].format(
        passages=len(passages),
        used=len({record["sids"][0] for record in passages}),
        sources=len(sources),
    )
    return passage_report(state["plan"]["topic"], passages, note)


async def writer(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Statements bound to verified claims; code cites, checks, adds indicators, gaps and quality."""
    config = runtime.context
    services = services_of(runtime)
    emitter(runtime, "writer")("writing the report")
    claims = state.get("claims", [])
    verified = [claim for claim in claims if claim["verified"]]
    gaps = state.get("knowledge_gaps", [])
    report, errors, calls_made = await _grounded(services, state, config, verified)
    statements = report.printed(config.report_structure)
    cited = cited_sources(statements)
    iterations = state.get("research_iteration", 0) + 1
    quality = {
        "Overall confidence": f"{state.get('overall_confidence', 0.0):.2f}",
        "Verified claims": f"{len(verified)}/{len(claims)}",
        "Cross-validated claims": str(sum(1 for claim in verified if claim["cross_validated"])),
        "Hallucination score": f"{state.get('hallucination_score', 0.0):.2f}",
        "Sources used": str(len(cited)),
        "Iterations": str(iterations),
    }
    report.appendix = _appendix(gaps, quality)
    limitations = limitations_section(
        Losses(
            errors=[*state.get("errors", []), *errors],
            sources_dropped=state.get("sources_dropped", 0),
            statements_dropped=report.tally.unsupported,
            numbers_unsupported=report.tally.numbers_unsupported,
            instructions_dropped=report.tally.injections,
            stop_reason=state.get("stop_reason", ""),
        )
    )
    if limitations:
        report.appendix.insert(0, limitations)
    markdown = report.markdown(config.report_structure, state.get("sources", []))
    calls = [*state.get("llm_calls", []), *calls_made]
    prompt_tokens, completion_tokens = token_totals(calls)
    grounding = grounding_figures(statements, report.tally)
    grounding["claims_verified"] = len(verified)
    grounding["claims_cross_validated"] = sum(1 for claim in verified if claim["cross_validated"])
    research_metadata = {
        "overall_confidence": state.get("overall_confidence", 0.0),
        "verified_claims": len(verified),
        "total_claims": len(claims),
        "cross_validated": grounding["claims_cross_validated"],
        "hallucination_score": state.get("hallucination_score", 0.0),
        "knowledge_gaps": len(gaps),
        "sources_used": len(cited),
        "iterations": iterations,
        "searches": len(state.get("searches_done", [])),
        "llm_calls": len(calls),
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "stop_reason": state.get("stop_reason", ""),
    }
    view = {
        **state,
        "iteration": iterations,
        "coverage": state.get("previous_confidence", 0.0),
        "confidence": state.get("overall_confidence", 0.0),
        "cited_sources": cited,
        "llm_calls": calls,
        "errors": [*state.get("errors", []), *errors],
        "started_at": state.get("started_at") or time.time(),
    }
    metadata = build_metadata(
        view,
        config,
        search_provider=services.search_choice.name,
        extra={
            "hallucination_score": state.get("hallucination_score", 0.0),
            "grounding": grounding,
        },
    )
    return {
        "report": markdown,
        "statements": statements,
        "research_metadata": research_metadata,
        "metadata": metadata,
        "llm_calls": calls_made,
        "errors": errors,
        "messages": [AIMessage(content=markdown)],
    }
