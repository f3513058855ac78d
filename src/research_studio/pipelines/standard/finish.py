"""Final nodes: verify claims against their quoted passages, then write the cited report."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from research_studio.config import Configuration
from research_studio.errors import ResearchStudioError
from research_studio.grounding import normalize_for_match
from research_studio.pipelines.node_kit import call_records, emitter, error_record, services_of
from research_studio.pipelines.standard.schemas import ReportDraft, Verification
from research_studio.prompts.context import numbered, request_block
from research_studio.prompts.verify import VERIFY_SYSTEM, VERIFY_USER
from research_studio.prompts.write import STYLE, WORKER_CONTEXT, WRITE_SYSTEM, WRITE_USER
from research_studio.report import build_metadata, fallback_draft, render_report
from research_studio.state import (
    ErrorRecord,
    EvidenceRecord,
    ResearchState,
    SourceRecord,
    VerifiedClaim,
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


def _evidence_by_source(evidence: list[EvidenceRecord], sources: list[SourceRecord]) -> str:
    blocks = []
    for source in sources:
        items = [item for item in evidence if item["sid"] == source["sid"]]
        if items:
            facts = "\n".join(f'  - {item["text"]} ("{item["quote"]}")' for item in items)
            blocks.append(f"[{source['sid']}] {source['title']} — {source['url']}\n{facts}")
    return "\n\n".join(blocks) or "(no verified evidence)"


def _extractive_summary(evidence: list[EvidenceRecord], sources: list[SourceRecord]) -> str:
    used = len({item["sid"] for item in evidence})
    return (
        f"This report collects {len(evidence)} passages quoted verbatim from {used} of {len(sources)} "
        "sources, grouped by source. Each passage is cited; nothing was paraphrased."
    )


async def write_report(state: ResearchState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Draft with the smart model, render the configured structure, repair every citation."""
    config = runtime.context
    services = services_of(runtime)
    emitter(runtime, "write_report")("writing the report")
    caller = services.caller("write_report", "smart")
    evidence = _writer_evidence(state)
    sources = state.get("sources", [])
    usable_ids = sorted({item["sid"] for item in evidence}, key=lambda sid: int(sid[1:]))
    context = ""
    if state.get("mode") == "multi" and state.get("worker_results"):
        reports = "\n".join(f"- {r['question']}: {r['answer']}" for r in state["worker_results"])
        context = WORKER_CONTEXT.format(reports=reports)
    messages = [
        SystemMessage(
            content=WRITE_SYSTEM.format(
                valid_ids=", ".join(usable_ids) or "(none)",
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
                evidence=_evidence_by_source(evidence, sources),
            )
        ),
    ]
    errors = []
    if services.extraction_mode == "extractive":
        # A small local model cannot be trusted with prose: the report is the verified evidence itself.
        draft = fallback_draft(
            state["query"], evidence, _extractive_summary(evidence, sources), by_source=True
        )
    else:
        try:
            draft = await caller.structured(ReportDraft, messages)
        except ResearchStudioError as exc:
            errors.append(error_record("write_report", exc))
            draft = fallback_draft(
                state["query"],
                evidence,
                "The writer model failed; these are the verified findings as collected.",
            )
    report, cited = render_report(draft, config.report_structure, sources)
    final_state = {
        **state,
        "cited_sources": cited,
        "llm_calls": [*state.get("llm_calls", []), *call_records(caller)],
        "errors": [*state.get("errors", []), *errors],
    }
    metadata = build_metadata(final_state, config, search_provider=services.search_choice.name)
    return {
        "report": report,
        "cited_sources": cited,
        "metadata": metadata,
        "llm_calls": call_records(caller),
        "errors": errors,
        "messages": [AIMessage(content=report)],
    }
