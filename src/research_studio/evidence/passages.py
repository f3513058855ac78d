"""Verbatim passages: what a report shows when no model prose can be tied to the evidence."""

from __future__ import annotations

from collections.abc import Sequence

from research_studio.core.config import Configuration
from research_studio.core.languages import report_language
from research_studio.core.records import EvidenceRecord, SourceRecord, StatementRecord
from research_studio.evidence.passage_notes import localized_notes
from research_studio.grounding.addressing import addresses_reader, printable
from research_studio.grounding.statements import GroundedReport, GroundedSection, Tally, passage
from research_studio.services.extraction import extract_sentences
from research_studio.sources.archive import PageArchive

MAX_PASSAGES = 12
PASSAGES_PER_SOURCE = 3
# Why a report shows passages instead of prose, said plainly at its top.
PASSAGE_NOTES = {
    "extractive": "This is a brief of passages quoted verbatim from {used} of the {sources} sources read, grouped under the research questions they answer; nothing was paraphrased, so every sentence can be checked against its source. For a written report, run with a stronger model (for example `--model openai:gpt-4o-mini`, or an Ollama model such as `--model ollama:llama3.1`).",
    "writer_failed": "The writer model failed, so this report shows the verified passages as collected, quoted verbatim.",
    "budget": "The run's budget was reached before the report could be written, so this report shows the verified passages collected until then, quoted verbatim.",
    "uncited": "The writer's text could not be tied to the evidence, so it is not shown. These passages, quoted verbatim from the pages read, are what the run could verify.",
    "unverified": "This run could not verify any statement against its sources: no quote the model extracted was found on its page. The passages below are quoted verbatim from the pages it read, most relevant first; read them as leads, not findings.",
    "unchecked": "Span verification was switched off for this run, so no statement was verified against its sources. The passages below are quoted verbatim from the pages read; read them as leads, not findings.",
    "nothing_read": "This run could not read any page for this question, so it has nothing to report.",
}


def passage_note(reason: str, config: Configuration, question: str) -> str:
    """Why a report shows passages, in the report's language (English where untranslated)."""
    language = report_language(config.language, question)
    return localized_notes(PASSAGE_NOTES, language)[reason]


def is_safe_passage(text: str, allowed_urls: Sequence[str] = ()) -> bool:
    """Page text no sentence of which addresses the reader or an AI (`addressing.printable`)."""
    return printable(text, allowed_urls)


def usable_evidence(evidence: Sequence[EvidenceRecord]) -> list[EvidenceRecord]:
    """Evidence that does not address its reader (page text is data, never instructions)."""
    return [
        item
        for item in evidence
        if not addresses_reader(item["text"]) and not addresses_reader(item["quote"])
    ]


def evidence_passages(
    evidence: Sequence[EvidenceRecord],
    heading_of: dict[str, str] | None = None,
    allowed_urls: Sequence[str] = (),
) -> list[StatementRecord]:
    """Verified quotes as passages (at most a few per source), headed by question or source title."""
    per_source: dict[str, int] = {}
    passages: list[StatementRecord] = []
    seen: set[str] = set()
    for item in evidence:
        quote = item["quote"].strip()
        if (
            not item["quote_verified"]
            or quote.lower() in seen
            or not is_safe_passage(quote, allowed_urls)
        ):
            continue
        if per_source.get(item["sid"], 0) >= PASSAGES_PER_SOURCE:
            continue
        per_source[item["sid"]] = per_source.get(item["sid"], 0) + 1
        seen.add(quote.lower())
        heading = (heading_of or {}).get(item["sid"]) or item["question"] or "Findings"
        passages.append(passage(heading, item["sid"], quote))
    return passages[:MAX_PASSAGES]


async def page_passages(
    archive: PageArchive,
    config: Configuration,
    sources: Sequence[SourceRecord],
    *,
    request: str,
    questions: list[str],
) -> list[StatementRecord]:
    """The most relevant sentences of the pages the run read, copied verbatim."""
    passages: list[StatementRecord] = []
    for source in sources:
        text = await archive.text(source["url"])
        if not text:
            continue
        findings = extract_sentences(
            config, request=request, questions=questions, url=source["url"], text=text
        )
        allowed = [source["url"] for source in sources]
        kept = [finding for finding in findings if is_safe_passage(finding["quote"], allowed)]
        passages += [
            passage(source["title"] or source["url"], source["sid"], finding["quote"])
            for finding in kept[:PASSAGES_PER_SOURCE]
        ]
    return passages[:MAX_PASSAGES]


def passage_report(title: str, passages: Sequence[StatementRecord], note: str) -> GroundedReport:
    """A report of verbatim passages grouped by their section, led by a plain note."""
    report = GroundedReport(title=title)
    groups: dict[str, list[StatementRecord]] = {}
    for record in passages:
        groups.setdefault(record["section"], []).append(record)
    report.sections = [
        GroundedSection(heading=heading, bullets=list(records))
        for heading, records in groups.items()
    ]
    note_section = GroundedSection(heading="About this report", intro=note)
    report.sections.insert(0, note_section)
    return report


async def fallback_report(
    archive: PageArchive,
    config: Configuration,
    *,
    title: str,
    request: str,
    questions: list[str],
    sources: Sequence[SourceRecord],
    evidence: Sequence[EvidenceRecord],
    reason: str,
    tally: Tally | None = None,
) -> GroundedReport:
    """Verbatim passages (the verified evidence, else the pages' best sentences) and why."""
    allowed = [source["url"] for source in sources]
    titles = (
        {source["sid"]: source["title"] for source in sources} if reason == "extractive" else None
    )
    passages = evidence_passages(evidence, titles, allowed)
    if not passages:
        passages = await page_passages(
            archive, config, sources, request=request, questions=questions
        )
        reason = "unverified" if passages else "nothing_read"
    note = passage_note(reason, config, request).format(
        passages=len(passages),
        used=len({record["sids"][0] for record in passages}),
        sources=len(sources),
    )
    report = passage_report(title, passages, note)
    report.tally = tally or Tally()
    return report
