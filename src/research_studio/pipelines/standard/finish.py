"""Final nodes: verify claims against their quoted passages, then write the cited report."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.languages import report_language, writing_rule
from research_studio.core.prompt_blocks import additional_instructions, numbered, request_block
from research_studio.core.records import (
    ClaimRecord,
    ErrorRecord,
    EvidenceRecord,
    RunSummary,
)
from research_studio.evidence.brief import for_writer, verbatim_brief
from research_studio.evidence.passages import fallback_report, passage_note, usable_evidence
from research_studio.grounding.printed import cited_sources
from research_studio.grounding.quotes import normalize_for_match
from research_studio.grounding.statements import (
    GroundedReport,
    ReportDraft,
    ground_draft,
    grounding_figures,
)
from research_studio.llm.structured import ModelCaller
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
from research_studio.pipelines.kit.writer import (
    evidence_support,
    joined_draft,
    writer_messages,
    writer_parts,
)
from research_studio.pipelines.standard.models import STANDARD_MODELS
from research_studio.pipelines.standard.prompts import (
    VERIFY_SYSTEM,
    VERIFY_USER,
    claims_to_verify,
    worker_context,
)
from research_studio.pipelines.standard.schemas import Verification
from research_studio.pipelines.standard.state import ResearchState

MAX_CLAIMS = 20
# Multi-agent runs write the report in this many parts at once (`writer_parts` splits the evidence).
WRITERS_AT_ONCE = 2
UNCHECKED = "not checked: the verification call failed"


def _claims_to_check(evidence: list[EvidenceRecord]) -> list[EvidenceRecord]:
    """Verified-quote evidence first, then the rest, at most MAX_CLAIMS."""
    ordered = sorted(evidence, key=lambda item: not item["quote_verified"])
    return ordered[:MAX_CLAIMS]


def _is_its_own_quote(item: EvidenceRecord) -> bool:
    """A verbatim claim whose quote code found in the page needs no model to be supported."""
    return item["quote_verified"] and normalize_for_match(item["text"]) == normalize_for_match(
        item["quote"]
    )


async def verify(state: ResearchState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """A verdict per claim (one per evidence item): the model must agree and the quote be real."""
    caller = model_for(runtime, STANDARD_MODELS, "verify")
    # Page text that instructs its reader is never a claim (prompt injection).
    items = _claims_to_check(usable_evidence(state.get("evidence", [])))
    if not items:
        return {"claims": [], "confidence": 0.0}
    verdicts: dict[int, tuple[bool, str]] = {
        index: (True, "verbatim from the source")
        for index, item in enumerate(items, 1)
        if _is_its_own_quote(item)
    }
    to_judge = [index for index in range(1, len(items) + 1) if index not in verdicts]
    errors: list[ErrorRecord] = []
    if to_judge:
        verdicts.update(await _judge(caller, items, to_judge, errors))
    claims = []
    for index, item in enumerate(items, 1):
        supported, reason = verdicts.get(index, (False, "not assessed"))
        if not item["quote_verified"]:
            supported, reason = False, "quote not found in the source text"
        claims.append(evidence_claim(index, item, supported, reason))
    supported_count = sum(1 for claim in claims if claim["verified"])
    confidence = round(supported_count / len(claims), 3)
    emitter(runtime, "verify")(
        f"{supported_count}/{len(claims)} claims supported", confidence=confidence
    )
    return {
        "claims": claims,
        "confidence": confidence,
        "llm_calls": call_records(caller),
        "errors": errors,
    }


def evidence_claim(number: int, item: EvidenceRecord, supported: bool, reason: str) -> ClaimRecord:
    """An evidence item's fact as a claim record, with the verify node's verdict."""
    return ClaimRecord(
        cid=f"C{number}",
        text=item["text"],
        section=item["question"],
        supporting_eids=[item["eid"]],
        supporting_sids=[item["sid"]],
        evidence_span=item["quote"],
        span_match=1.0 if item["quote_verified"] else 0.0,
        verified=supported,
        cross_validated=False,
        confidence=1.0 if supported else 0.0,
        indicator="✓" if supported else "⚠",
        reason=reason,
    )


async def _judge(
    caller: ModelCaller, items: list[EvidenceRecord], numbers: list[int], errors: list[ErrorRecord]
) -> dict[int, tuple[bool, str]]:
    """The model's verdicts by claim number; when the call fails, none is supported (fail closed)."""
    listing = claims_to_verify(items, numbers)
    messages = [
        SystemMessage(content=VERIFY_SYSTEM),
        HumanMessage(content=VERIFY_USER.format(claims=listing)),
    ]
    result = await attempt(caller.structured(Verification, messages), "verify", errors)
    if result is None:
        # Fail closed: a claim the model could not judge is not marked supported.
        return {number: (False, UNCHECKED) for number in numbers}
    return {check.index: (check.supported, check.reason) for check in result.claims}


def _writer_evidence(state: ResearchState) -> list[EvidenceRecord]:
    """Evidence the writer may use: supported claims when verified, else verified quotes."""
    evidence = state.get("evidence", [])
    claims = state.get("claims", [])
    if claims:
        judged = {claim["supporting_eids"][0]: claim["verified"] for claim in claims}
        return [
            item
            for item in evidence
            if judged.get(item["eid"], item["quote_verified"]) and item["quote_verified"]
        ]
    return [item for item in evidence if item["quote_verified"]]


def _brief(
    state: ResearchState, evidence: list[EvidenceRecord], config: Configuration
) -> GroundedReport:
    """The verbatim brief of an extractive run: passages under the questions they answer."""
    sources = state.get("sources", [])
    report = verbatim_brief(
        state["query"],
        state["query"],
        state.get("research_questions", []),
        evidence,
        [source["url"] for source in sources],
        "",
    )
    # Counted from what the brief prints, so "from 5 of the 9 sources" agrees with Sources.
    template = passage_note("extractive", config, state["query"])
    count_note(report, template, config.report_structure, len(sources))
    return report


async def write_report(state: ResearchState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """The writer drafts statements bound to evidence ids; code cites, checks and renders them."""
    config = runtime.context
    services = services_of(runtime)
    emitter(runtime, "write_report")("writing the report")
    language = report_language(config.language, state["query"])
    caller = model_for(services, STANDARD_MODELS, "write_report")
    evidence = for_writer(
        usable_evidence(_writer_evidence(state)),
        state.get("research_questions", []),
        state["query"],
    )
    sources = state.get("sources", [])
    support = evidence_support(evidence)
    errors: list[ErrorRecord] = []
    grounded: GroundedReport | None = None
    reason = "extractive" if services.extraction.verbatim else "uncited"
    if support and reason != "extractive":
        draft = await _draft(caller, state, config, evidence, errors)
        if draft is None:
            reason = "budget" if errors[-1]["kind"] == "budget" else "writer_failed"
        else:
            grounded = ground_draft(
                draft,
                support,
                title=state["query"],
                headings=state.get("research_questions", []),
                allowed_urls=[source["url"] for source in sources],
            )
    if reason == "extractive" and evidence:
        grounded = _brief(state, evidence, config)
    if grounded is None or not grounded.has_citations():
        grounded = await fallback_report(
            services.archive,
            config,
            title=state["query"],
            request=state["query"],
            questions=state.get("research_questions", []),
            sources=sources,
            evidence=evidence,
            reason=reason,
            tally=grounded.tally if grounded else None,
        )
    coverage = close_report(
        grounded,
        config.report_structure,
        query=state["query"],
        questions=state.get("research_questions", []),
        language=language,
    )
    open_with_notice(grounded, state.get("referent_notice", ""))
    conflicts = mark_conflicts(
        grounded,
        config.report_structure,
        state.get("evidence", []),
        state.get("searches_done", []),
        language=language,
    )
    limitations = limitations_of(
        runtime, state, errors, grounded.tally, language, open_lines(conflicts, language)
    )
    if limitations:
        grounded.appendix.append(limitations)
    report = grounded.markdown(config.report_structure, sources, language)
    statements = grounded.printed(config.report_structure)
    cited = cited_sources(statements)
    calls = call_records(caller)
    summary = RunSummary(
        iterations=state.get("iteration", 0),
        coverage=state.get("coverage", 0.0),
        confidence=state.get("confidence", 0.0),
        cited_sources=cited,
        grounding=with_conflicts(
            report_grounding(grounding_figures(statements, grounded.tally), coverage), conflicts
        ),
        figures=reading_figures(state),
    )
    return {
        **report_update(
            runtime,
            state,
            report=report,
            statements=statements,
            summary=summary,
            calls=calls,
            errors=errors,
        ),
        "cited_sources": cited,
    }


def reading_figures(state: ResearchState) -> dict[str, object]:
    """What result.json records of a reading taken because no one could be asked."""
    notice = state.get("referent_notice", "")
    taken = state.get("user_clarification", "") if notice and state.get("referents") else ""
    return {"referent_assumed": taken, "reading_assumed": notice}


async def _draft(
    caller: ModelCaller,
    state: ResearchState,
    config: Configuration,
    evidence: list[EvidenceRecord],
    errors: list[ErrorRecord],
) -> ReportDraft | None:
    """The writer's draft. Multi-agent runs write it in parts at once, each from a run of the
    evidence (`writer_parts`); a part that fails leaves the others (None when every part fails)."""
    multi = state.get("mode") == "multi"
    parts = writer_parts(evidence, WRITERS_AT_ONCE if multi else 1)
    drafts = await asyncio.gather(
        *(
            attempt(
                caller.structured(
                    ReportDraft,
                    _writer_messages(state, config, part, (number, len(parts))),
                ),
                "write_report",
                errors,
            )
            for number, part in enumerate(parts, 1)
        )
    )
    written = [draft for draft in drafts if draft is not None]
    if not written:
        return None
    return written[0] if len(written) == 1 else joined_draft(written)


def _writer_messages(
    state: ResearchState,
    config: Configuration,
    evidence: list[EvidenceRecord],
    part: tuple[int, int] = (1, 1),
) -> list[BaseMessage]:
    multi = state.get("mode") == "multi"
    questions = state.get("research_questions", [])
    results = state.get("worker_results", []) if multi else []
    if part[1] > 1:
        # A part's writer hears its own questions and the workers' answers to them.
        mine = {item["question"] for item in evidence}
        questions = [question for question in questions if question in mine]
        results = [result for result in results if result["question"] in mine]
    return writer_messages(
        evidence,
        request=request_block(state["query"], state.get("user_clarification", "")),
        questions=numbered(questions),
        context=worker_context(results),
        style=config.report_structure,
        language_rule=writing_rule(report_language(config.language, state["query"])),
        system_prompt=additional_instructions(config.system_prompt),
        part=part,
    )
