"""Final nodes: verify claims against their quoted passages, then write the cited report."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from research_studio.config import Configuration
from research_studio.errors import ResearchStudioError
from research_studio.grounding import normalize_for_match
from research_studio.limitations import Losses, limitations_section
from research_studio.passages import (
    evidence_passages,
    page_passages,
    passage_report,
    usable_evidence,
)
from research_studio.pipelines.node_kit import call_records, emitter, error_record, services_of
from research_studio.pipelines.standard.schemas import Verification
from research_studio.pipelines.standard.state import ResearchState, VerifiedClaim
from research_studio.prompts.context import numbered, request_block
from research_studio.prompts.verify import VERIFY_SYSTEM, VERIFY_USER
from research_studio.prompts.write import (
    EVIDENCE_QUESTION_LABEL,
    PASSAGES_NOTE,
    STYLE,
    WORKER_CONTEXT,
    WRITE_SYSTEM,
    WRITE_USER,
)
from research_studio.records import ErrorRecord, EvidenceRecord, QuoteRef
from research_studio.report import build_metadata
from research_studio.services import Services
from research_studio.statements import (
    GroundedReport,
    ReportDraft,
    Support,
    cited_sources,
    ground_draft,
    grounding_figures,
)
from research_studio.structured import ModelCaller

MAX_CLAIMS = 20


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
    """A supported flag per claim: the model must agree and code must have found the quote."""
    caller = services_of(runtime).caller("verify", "smart")
    claims = _claims_to_check(state.get("evidence", []))
    if not claims:
        return {"verified_claims": [], "confidence": 0.0}
    verdicts: dict[int, tuple[bool, str]] = {
        index: (True, "verbatim from the source")
        for index, item in enumerate(claims, 1)
        if _is_its_own_quote(item)
    }
    listing = "\n".join(
        f'{index}. Claim: {item["text"]}\n   Passage [{item["sid"]}]: "{item["quote"]}"'
        for index, item in enumerate(claims, 1)
        if index not in verdicts
    )
    errors: list[ErrorRecord] = []
    if listing:
        verdicts.update(await _judge(caller, listing, errors))
    checked: list[VerifiedClaim] = []
    for index, item in enumerate(claims, 1):
        supported, reason = verdicts.get(index, (False, "not assessed"))
        if not item["quote_verified"]:
            supported, reason = False, "quote not found in the source text"
        checked.append(
            VerifiedClaim(eid=item["eid"], claim=item["text"], supported=supported, reason=reason)
        )
    supported_count = sum(1 for claim in checked if claim["supported"])
    confidence = round(supported_count / len(checked), 3)
    emitter(runtime, "verify")(
        f"{supported_count}/{len(checked)} claims supported", confidence=confidence
    )
    return {
        "verified_claims": checked,
        "confidence": confidence,
        "llm_calls": call_records(caller),
        "errors": errors,
    }


async def _judge(
    caller: ModelCaller, listing: str, errors: list[ErrorRecord]
) -> dict[int, tuple[bool, str]]:
    """The model's verdicts by claim number; on failure the quote check alone decides."""
    try:
        result = await caller.structured(
            Verification,
            [
                SystemMessage(content=VERIFY_SYSTEM),
                HumanMessage(content=VERIFY_USER.format(claims=listing)),
            ],
        )
    except ResearchStudioError as exc:
        errors.append(error_record("verify", exc))
        numbers = [int(number) for number in re.findall(r"^(\d+)\. Claim:", listing, re.MULTILINE)]
        return {number: (True, "not checked by the model; quote check only") for number in numbers}
    return {check.index: (check.supported, check.reason) for check in result.claims}


def _writer_evidence(state: ResearchState) -> list[EvidenceRecord]:
    """Evidence the writer may use: supported claims when verified, else verified quotes."""
    evidence = state.get("evidence", [])
    checked = state.get("verified_claims", [])
    if checked:
        supported = {claim["eid"] for claim in checked if claim["supported"]}
        unchecked = {item["eid"] for item in evidence} - {claim["eid"] for claim in checked}
        return [
            item
            for item in evidence
            if item["eid"] in supported or (item["eid"] in unchecked and item["quote_verified"])
        ]
    return [item for item in evidence if item["quote_verified"]]


def evidence_support(evidence: list[EvidenceRecord]) -> dict[str, Support]:
    """What each evidence id lets a statement cite: its source and its verified quote."""
    return {
        item["eid"]: Support(
            sids=(item["sid"],), quotes=(QuoteRef(sid=item["sid"], quote=item["quote"]),)
        )
        for item in evidence
        if item["quote_verified"]
    }


def _evidence_listing(evidence: list[EvidenceRecord]) -> str:
    """Evidence grouped by the research question it answers, one line per id."""
    groups: dict[str, list[EvidenceRecord]] = {}
    for item in evidence:
        groups.setdefault(item["question"] or "Other", []).append(item)
    return (
        "\n\n".join(
            f"{EVIDENCE_QUESTION_LABEL} {question}\n"
            + "\n".join(
                f'[{item["eid"]}] (source {item["sid"]}) {item["text"]}\n    quote: "{item["quote"]}"'
                for item in items
            )
            for question, items in groups.items()
        )
        or "(no verified evidence)"
    )


async def _passages(
    state: ResearchState, services: Services, evidence: list[EvidenceRecord], reason: str
) -> GroundedReport:
    """A report of verbatim passages: the verified evidence, else the pages' best sentences."""
    sources = state.get("sources", [])
    titles = (
        {source["sid"]: source["title"] for source in sources} if reason == "extractive" else None
    )
    passages = evidence_passages(evidence, titles, [source["url"] for source in sources])
    if not passages:
        passages = await page_passages(
            services.archive,
            services.config,
            sources,
            request=state["query"],
            questions=state.get("research_questions", []),
        )
        reason = "unverified" if passages else "nothing_read"
    note = PASSAGES_NOTE[reason].format(
        passages=len(passages),
        used=len({record["sids"][0] for record in passages}),
        sources=len(sources),
    )
    return passage_report(state["query"], passages, note)


async def write_report(state: ResearchState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """The writer drafts statements bound to evidence ids; code cites, checks and renders them."""
    config = runtime.context
    services = services_of(runtime)
    emitter(runtime, "write_report")("writing the report")
    caller = services.caller("write_report", "smart")
    evidence = usable_evidence(_writer_evidence(state))
    sources = state.get("sources", [])
    support = evidence_support(evidence)
    errors = []
    grounded: GroundedReport | None = None
    reason = "extractive" if services.extraction_mode == "extractive" else "uncited"
    if support and reason != "extractive":
        try:
            draft = await caller.structured(ReportDraft, _writer_messages(state, config, evidence))
            grounded = ground_draft(
                draft,
                support,
                title=state["query"],
                headings=state.get("research_questions", []),
                allowed_urls=[source["url"] for source in sources],
            )
        except ResearchStudioError as exc:
            errors.append(error_record("write_report", exc))
            reason = "writer_failed"
    if grounded is None or not grounded.has_citations():
        tally = grounded.tally if grounded else None
        grounded = await _passages(state, services, evidence, reason)
        if tally is not None:
            grounded.tally = tally
    limitations = limitations_section(
        Losses(
            errors=[*state.get("errors", []), *errors],
            statements_dropped=grounded.tally.unsupported,
            numbers_unsupported=grounded.tally.numbers_unsupported,
            instructions_dropped=grounded.tally.injections,
        )
    )
    if limitations:
        grounded.appendix.append(limitations)
    report = grounded.markdown(config.report_structure, sources)
    statements = grounded.printed(config.report_structure)
    cited = cited_sources(statements)
    final_state = {
        **state,
        "cited_sources": cited,
        "llm_calls": [*state.get("llm_calls", []), *call_records(caller)],
        "errors": [*state.get("errors", []), *errors],
    }
    metadata = build_metadata(
        final_state,
        config,
        search_provider=services.search_choice.name,
        extra={"grounding": grounding_figures(statements, grounded.tally)},
    )
    return {
        "report": report,
        "statements": statements,
        "cited_sources": cited,
        "metadata": metadata,
        "llm_calls": call_records(caller),
        "errors": errors,
        "messages": [AIMessage(content=report)],
    }


def _writer_messages(
    state: ResearchState, config: Configuration, evidence: list[EvidenceRecord]
) -> list[BaseMessage]:
    context = ""
    if state.get("mode") == "multi" and state.get("worker_results"):
        reports = "\n".join(f"- {r['question']}: {r['answer']}" for r in state["worker_results"])
        context = WORKER_CONTEXT.format(reports=reports)
    return [
        SystemMessage(
            content=WRITE_SYSTEM.format(
                valid_ids=", ".join(item["eid"] for item in evidence) or "(none)",
                style=STYLE[config.report_structure],
                system_prompt=f"Additional instructions: {config.system_prompt}"
                if config.system_prompt
                else "",
            )
        ),
        HumanMessage(
            content=WRITE_USER.format(
                request=request_block(state["query"], state.get("user_clarification", "")),
                questions=numbered(state.get("research_questions", [])),
                context=context,
                evidence=_evidence_listing(evidence),
            )
        ),
    ]
