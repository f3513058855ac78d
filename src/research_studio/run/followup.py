"""Follow-up questions on a finished run: answered from its kept sources first, cited by statement.

The run's evidence and kept page text (`sources/S<n>.txt`) answer first; only when they do not
cover the question does a small focused research round search and read more. The answer is
written to `followups/F<n>.md` and `.json`, and the exchange joins the run's thread.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from research_studio.core.config import Configuration
from research_studio.core.errors import ResearchStudioError
from research_studio.core.files import write_atomically
from research_studio.core.languages import report_language, writing_rule
from research_studio.core.prompt_blocks import additional_instructions, request_block
from research_studio.core.queries import content_words
from research_studio.core.records import EvidenceRecord, FindingRecord, SourceRecord
from research_studio.core.urls import display_nested
from research_studio.evidence.gathering import GatherRequest, gather
from research_studio.evidence.passages import is_safe_passage, passage_report, usable_evidence
from research_studio.grounding.printed import cited_sources
from research_studio.grounding.statements import GroundedReport, ReportDraft, ground_draft, passage
from research_studio.pipelines.kit.consolidate import evidence_of, next_number
from research_studio.pipelines.kit.writer import evidence_support, writer_messages
from research_studio.pipelines.registry import compile_pipeline
from research_studio.run.persistence import open_persistence
from research_studio.run.runs import PAGES_FILE, RunFolder
from research_studio.services.clients import Services, open_services
from research_studio.services.extraction import extract_sentences
from research_studio.sources.archive import kept_page_path

FOLLOWUPS_DIR = "followups"
# Evidence that holds at least this share of the question's content words speaks to it.
RELEVANT_SHARE = 0.5
# The kept material covers a question when this many evidence items speak to it.
COVERED_ITEMS = 2
MAX_EVIDENCE = 20
PASSAGES_NOTE = (
    "This answer is a collection of passages quoted verbatim from the run's sources; "
    "for a written answer, ask again with a stronger model (--model)."
)
NOTHING_NOTE = (
    "Neither the run's sources nor a focused search found anything on this question, "
    "so there is no answer to give."
)

Emit = Callable[[str], None]


@dataclass
class FollowUp:
    """A follow-up's answer and what it rests on."""

    number: int
    question: str
    answer: str
    researched: bool
    evidence: list[EvidenceRecord] = field(default_factory=list)
    sources: list[SourceRecord] = field(default_factory=list)
    statements: list[dict[str, Any]] = field(default_factory=list)


def share(question: str, text: str) -> float:
    """The share of the question's content words that `text` holds."""
    wanted = set(content_words(question))
    return len(wanted & set(content_words(text))) / len(wanted) if wanted else 0.0


def relevant(
    question: str, evidence: Sequence[EvidenceRecord], minimum: float = RELEVANT_SHARE
) -> list[EvidenceRecord]:
    """Verified evidence holding at least `minimum` of the question's words, best first."""
    scored = [
        (share(question, f"{item['text']} {item['quote']}"), index, item)
        for index, item in enumerate(evidence)
        if item["quote_verified"]
    ]
    return [
        item
        for score, _, item in sorted(scored, key=lambda s: (-s[0], s[1]))
        if score >= minimum and score > 0
    ]


def kept_passages(
    folder: RunFolder,
    config: Configuration,
    question: str,
    sources: Sequence[SourceRecord],
    evidence: Sequence[EvidenceRecord],
) -> list[EvidenceRecord]:
    """New evidence: sentences of the kept pages that answer the question, copied verbatim."""
    number = next_number("E", [item["eid"] for item in evidence])
    known = {item["quote"].strip().lower() for item in evidence}
    allowed = [source["url"] for source in sources]
    found: list[EvidenceRecord] = []
    for source in sources:
        path = kept_page_path(folder.path, source["sid"])
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        for finding in extract_sentences(
            config, request=question, questions=[question], url=source["url"], text=text
        ):
            quote = finding["quote"].strip()
            if quote.lower() in known or not is_safe_passage(quote, allowed):
                continue
            known.add(quote.lower())
            kept: FindingRecord = {**finding, "quote": quote, "question": question}
            found.append(evidence_of(number, source, kept))
            number += 1
    return found


async def research_round(
    folder: RunFolder,
    services: Services,
    question: str,
    sources: list[SourceRecord],
    evidence: list[EvidenceRecord],
    emit: Emit,
) -> tuple[list[SourceRecord], list[EvidenceRecord]]:
    """One focused search-read-extract round on the question; new sources get the next ids."""
    task = GatherRequest(
        node="followup",
        queries=[question],
        request=question,
        questions=[question],
        known_urls={source["url"] for source in sources},
    )
    services.remember_urls(task.known_urls)
    gathered = await gather(services, task, emit=emit, parallel_searches=False)
    number = next_number("S", [source["sid"] for source in sources])
    new_sources: list[SourceRecord] = []
    by_url: dict[str, SourceRecord] = {}
    for page in gathered.pages:
        if page["url"] in by_url or page["url"] in task.known_urls:
            continue
        source = SourceRecord(sid=f"S{number}", **page)
        by_url[page["url"]] = source
        new_sources.append(source)
        number += 1
    eid = next_number("E", [item["eid"] for item in evidence])
    new_evidence: list[EvidenceRecord] = []
    for finding in gathered.findings:
        origin = by_url.get(finding["url"])
        if origin is None:
            continue
        new_evidence.append(evidence_of(eid, origin, finding))
        eid += 1
    # Kept like the run's own sources, so the answer can be audited after the web changes.
    await services.archive.export(new_sources, [s["sid"] for s in new_sources], folder.path)
    return new_sources, new_evidence


async def _written(
    services: Services,
    config: Configuration,
    question: str,
    context: str,
    evidence: list[EvidenceRecord],
    sources: list[SourceRecord],
) -> GroundedReport | None:
    """The writer's cited answer, or None (extractive runs, a failed or uncited draft)."""
    if services.extraction.verbatim:
        return None
    language = report_language(config.language, question)
    messages = writer_messages(
        evidence,
        request=request_block(question, context),
        questions=f"1. {question}",
        context="",
        style="concise",
        language_rule=writing_rule(language),
        system_prompt=additional_instructions(config.system_prompt),
    )
    try:
        draft = await services.caller("followup", "smart").structured(ReportDraft, messages)
    except ResearchStudioError:
        return None
    report = ground_draft(
        draft,
        evidence_support(evidence),
        title=question,
        headings=[question],
        allowed_urls=[source["url"] for source in sources],
    )
    return report if report.has_citations() else None


def _passages(question: str, evidence: list[EvidenceRecord]) -> GroundedReport:
    """Verbatim passages under the question, when no written answer can be cited."""
    records = [passage(question, item["sid"], item["quote"]) for item in evidence[:8]]
    return passage_report(question, records, PASSAGES_NOTE)


def previous_followups(folder: RunFolder) -> list[dict[str, Any]]:
    """The run's earlier follow-ups, oldest first."""
    directory = folder.path / FOLLOWUPS_DIR
    if not directory.is_dir():
        return []
    files = sorted(directory.glob("F*.json"), key=lambda path: int(path.stem[1:] or 0))
    return [json.loads(path.read_text(encoding="utf-8")) for path in files]


def _context(folder: RunFolder, earlier: list[dict[str, Any]]) -> str:
    """The conversation so far, as the writer's context for the new question."""
    lines = [f"This is a follow-up to the research on: {folder.record.query}"]
    lines += [f"Earlier follow-up: {item['question']}" for item in earlier[-3:]]
    return "\n".join(lines)


def load_result(folder: RunFolder) -> dict[str, Any]:
    """The finished run's result.json (a run without one cannot take follow-ups)."""
    path = folder.path / "result.json"
    if folder.record.status != "completed" or not path.is_file():
        raise ResearchStudioError(
            f"run {folder.record.run_id} has no finished report to ask about "
            f"(status: {folder.record.status})"
        )
    try:
        document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ResearchStudioError(f"the result.json of {folder.path} is damaged: {exc}") from exc
    return document


async def answer_followup(
    folder: RunFolder, config: Configuration, question: str, emit: Emit
) -> FollowUp:
    """Answer a follow-up from the run's material, researching only when it does not cover it."""
    document = load_result(folder)
    sources: list[SourceRecord] = list(document.get("sources", []))
    evidence: list[EvidenceRecord] = usable_evidence(document.get("evidence", []))
    earlier = previous_followups(folder)
    for item in earlier:  # material earlier follow-ups found belongs to the conversation
        known = {source["sid"] for source in sources}
        sources += [s for s in item.get("sources", []) if s["sid"] not in known]
        eids = {e["eid"] for e in evidence}
        evidence += [e for e in item.get("evidence", []) if e["eid"] not in eids]
    found = relevant(question, evidence)
    found += relevant(question, kept_passages(folder, config, question, sources, evidence))
    researched = len(found) < COVERED_ITEMS
    async with open_services(config, archive_path=folder.path / PAGES_FILE) as services:
        if researched:
            emit("the run's sources do not cover this question: researching it")
            new_sources, new_evidence = await research_round(
                folder, services, question, sources, evidence + found, emit
            )
            sources += new_sources
            found += [item for item in new_evidence if item["quote_verified"]]
            if len(found) < COVERED_ITEMS:  # nothing better found: the closest kept passages
                ids = {item["eid"] for item in found}
                found += [e for e in relevant(question, evidence, 0.0) if e["eid"] not in ids]
        else:
            emit(f"answering from the run's sources ({len(found)} passages)")
        found = found[:MAX_EVIDENCE]
        report = await _written(
            services, config, question, _context(folder, earlier), found, sources
        )
    if report is None:
        report = _passages(question, found) if found else passage_report(question, [], NOTHING_NOTE)
    language = report_language(config.language, question)
    answer = report.markdown("concise", sources, language)
    statements = report.printed("concise")
    cited = set(cited_sources(statements))
    number = len(earlier) + 1
    followup = FollowUp(
        number=number,
        question=question,
        answer=answer,
        researched=researched,
        evidence=[item for item in found if item["sid"] in cited],
        sources=[source for source in sources if source["sid"] in cited],
        statements=[dict(record) for record in statements],
    )
    _write(folder, followup)
    await _join_thread(folder, config, question, answer)
    return followup


def _write(folder: RunFolder, followup: FollowUp) -> None:
    directory = folder.path / FOLLOWUPS_DIR
    directory.mkdir(exist_ok=True)
    stem = directory / f"F{followup.number}"
    write_atomically(stem.with_suffix(".md"), followup.answer)
    record = {
        "number": followup.number,
        "question": followup.question,
        "asked": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "researched": followup.researched,
        "answer": followup.answer,
        "statements": followup.statements,
        "evidence": followup.evidence,
        "sources": followup.sources,
    }
    shared = display_nested(record, folder.record.documents_folders())  # no machine paths
    write_atomically(stem.with_suffix(".json"), json.dumps(shared, indent=2, ensure_ascii=False))


async def _join_thread(
    folder: RunFolder, config: Configuration, question: str, answer: str
) -> None:
    """The exchange as messages of the run's LangGraph thread (Studio shows the conversation)."""
    thread: Any = {"configurable": {"thread_id": folder.record.run_id}}
    async with open_persistence(folder.path, config, with_store=False) as persistence:
        graph = compile_pipeline(
            folder.record.pipeline, persistence.saver, folder.record.interactive_clarify
        )
        snapshot = await graph.aget_state(thread)
        if not snapshot.values:
            return
        await graph.aupdate_state(
            thread, {"messages": [HumanMessage(content=question), AIMessage(content=answer)]}
        )
