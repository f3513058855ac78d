"""writer: a report from verified claims only, with indicators, gaps and a research-quality table."""

from __future__ import annotations

import time
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from research_studio.config import Configuration
from research_studio.errors import ResearchStudioError
from research_studio.grounding import finalize_report
from research_studio.pipelines.advanced.schemas import AdvancedReport, WriterSection
from research_studio.pipelines.advanced.state import AgentState, Claim, KnowledgeGap
from research_studio.pipelines.node_kit import call_records, emitter, error_record, services_of
from research_studio.prompts.report_writer import WRITER_SYSTEM, WRITER_USER
from research_studio.report import build_metadata, source_index, token_totals

LEGEND = "Indicators: ✓✓ cross-validated by two or more sources and confidence ≥ 0.8 · ✓ confidence ≥ 0.6 · ⚠ lower confidence."


def _cites(claim: Claim) -> str:
    return "".join(f"[{sid}]" for sid in claim["supporting_sids"])


def _section_of(claim: Claim, outline: list[str]) -> str:
    return claim["section"] if claim["section"] in outline else "Other findings"


def render_advanced(
    draft: AdvancedReport,
    claims: list[Claim],
    outline: list[str],
    gaps: list[KnowledgeGap],
    quality: dict[str, Any],
) -> str:
    """Markdown: summary, one section per outline entry (prose + indicated claims), gaps, quality."""
    prose = {section.heading.strip().lower(): section.text.strip() for section in draft.sections}
    parts = [f"# {draft.title.strip()}", f"## Summary\n\n{draft.summary.strip()}"]
    for heading in [*outline, "Other findings"]:
        members = [claim for claim in claims if _section_of(claim, outline) == heading]
        text = prose.get(heading.lower(), "")
        if not members and not text:
            continue
        body = [text] if text else []
        body += (
            [
                "\n".join(
                    f"- {claim['indicator']} {claim['text']} {_cites(claim)}" for claim in members
                )
            ]
            if members
            else []
        )
        parts.append(f"## {heading}\n\n" + "\n\n".join(body))
    if gaps:
        parts.append(
            "## Remaining gaps\n\n"
            + "\n".join(
                f"- **{gap['section']}** ({gap['severity']}): {gap['description']}" for gap in gaps
            )
        )
    rows = "\n".join(f"| {name} | {value} |" for name, value in quality.items())
    parts.append(f"## Research Quality\n\n| Metric | Value |\n|---|---|\n{rows}\n\n{LEGEND}")
    return "\n\n".join(parts)


def _packets(claims: list[Claim]) -> str:
    return (
        "\n".join(f"[{c['cid']}] ({c['section']}) {c['text']} — cite: {_cites(c)}" for c in claims)
        or "(none)"
    )


async def writer(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Draft with the smart model from verified claims; code adds indicators, gaps, quality, sources."""
    config = runtime.context
    services = services_of(runtime)
    emitter(runtime, "writer")("writing the report")
    plan = state["plan"]
    claims = state.get("claims", [])
    verified = [claim for claim in claims if claim["verified"]]
    gaps = state.get("knowledge_gaps", [])
    caller = services.caller("writer", "smart")
    errors = []
    draft = AdvancedReport(
        title=plan["topic"],
        summary=f"{len(verified)} verified claims from {len({s for c in verified for s in c['supporting_sids']})} sources.",
        sections=[WriterSection(heading=heading) for heading in plan["outline"]],
    )
    if verified and services.extraction_mode != "extractive":
        try:
            draft = await caller.structured(
                AdvancedReport,
                [
                    SystemMessage(
                        content=WRITER_SYSTEM.format(
                            system_prompt=f"Additional instructions: {config.system_prompt}"
                            if config.system_prompt
                            else ""
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
        except ResearchStudioError as exc:
            errors.append(error_record("writer", exc))
    cited_sources = sorted(
        {sid for claim in verified for sid in claim["supporting_sids"]},
        key=lambda sid: int(sid[1:]),
    )
    iterations = state.get("research_iteration", 0) + 1
    quality = {
        "Overall confidence": f"{state.get('overall_confidence', 0.0):.2f}",
        "Verified claims": f"{len(verified)}/{len(claims)}",
        "Cross-validated claims": str(sum(1 for claim in verified if claim["cross_validated"])),
        "Hallucination score": f"{state.get('hallucination_score', 0.0):.2f}",
        "Sources used": str(len(cited_sources)),
        "Iterations": str(iterations),
    }
    outline = plan["outline"]
    if services.extraction_mode == "extractive":
        # Verbatim claims read best under the title of the document they come from.
        titles = {source["sid"]: source["title"] for source in state.get("sources", [])}
        verified = [
            Claim(**{**claim, "section": titles.get(claim["supporting_sids"][0], "Findings")})
            for claim in verified
        ]
        outline = list(dict.fromkeys(claim["section"] for claim in verified))
    report, cited = finalize_report(
        render_advanced(draft, verified, outline, gaps, quality),
        source_index(state.get("sources", [])),
    )
    calls = [*state.get("llm_calls", []), *call_records(caller)]
    prompt_tokens, completion_tokens = token_totals(calls)
    research_metadata = {
        "overall_confidence": state.get("overall_confidence", 0.0),
        "verified_claims": len(verified),
        "total_claims": len(claims),
        "cross_validated": sum(1 for claim in verified if claim["cross_validated"]),
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
        extra={"hallucination_score": state.get("hallucination_score", 0.0)},
    )
    return {
        "report": report,
        "research_metadata": research_metadata,
        "metadata": metadata,
        "llm_calls": call_records(caller),
        "errors": errors,
        "messages": [AIMessage(content=report)],
    }
