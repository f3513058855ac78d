"""Verbatim passages: what a report shows when no model prose can be tied to the evidence."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from research_studio.core.chunking import split_sentences
from research_studio.core.config import Configuration
from research_studio.core.languages import report_language
from research_studio.core.records import (
    EvidenceRecord,
    FindingRecord,
    SourceRecord,
    StatementRecord,
)
from research_studio.evidence.passage_notes import localized_notes
from research_studio.grounding.addressing import addresses_reader, printable
from research_studio.grounding.meta_text import is_meta
from research_studio.grounding.printed import GroundedSection
from research_studio.grounding.quotes import locate_quote, page_blocks, verbatim_quote
from research_studio.grounding.statements import GroundedReport, Tally, passage
from research_studio.services.extraction import extract_sentences
from research_studio.sources.archive import PageArchive

T = TypeVar("T")
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
    """Page text no sentence of which addresses the reader or an AI (`addressing.printable`)
    or is page furniture: a byline, a date, a caption, navigation (`meta_text.is_meta`)."""
    return printable(text, allowed_urls) and not is_meta(text)


def usable_evidence(evidence: Sequence[EvidenceRecord]) -> list[EvidenceRecord]:
    """Evidence that does not address its reader (page text is data, never instructions) and
    is not page furniture (a byline or "This fact sheet summarises …" is no finding)."""
    return [
        item
        for item in evidence
        if not any(
            addresses_reader(text) or is_meta(text) for text in (item["text"], item["quote"])
        )
    ]


# A passage opening with one of these leans on the sentence before it for its referent.
_REFERRING = re.compile(
    r"^[\"'“‘(]?(?:they|them|their|theirs|it|its|this|these|that|those|he|she|his|her|such|"
    r"both|each|neither|either|the\s+latter|the\s+former|thus|hence)\b",
    re.IGNORECASE,
)
_SENTENCE_CLOSED = re.compile(r"[.!?][\"'”’)\]]?$")
REFERENT_MAX_WORDS = 60  # a longer sentence before would bury the passage


def with_referent(quote: str, page: str) -> str:
    """The quote, led by the sentence before it in the same page block when the quote opens
    with a pronoun or demonstrative ("They cool in two ways …"); the result is still one
    contiguous span of the page, in the page's own characters. Otherwise the quote unchanged."""
    if not _REFERRING.match(quote.strip()):
        return quote
    spans = locate_quote(quote, page)
    if spans is None or len(spans) != 1:
        return quote
    start = spans[0][0]
    block_start = max((offset for offset, _ in page_blocks(page) if offset <= start), default=0)
    before = split_sentences(page[block_start:start])
    if not before or not _SENTENCE_CLOSED.search(before[-1]):
        return quote  # the quote starts mid-sentence or its block: nothing to lead it
    previous = before[-1]
    if len(previous.split()) > REFERENT_MAX_WORDS or is_meta(previous):
        return quote
    extended = verbatim_quote(f"{previous} {page[start : spans[0][1]]}", page)
    return extended or quote


def standalone_findings(
    findings: Sequence[FindingRecord], pages: Mapping[str, str]
) -> list[FindingRecord]:
    """Findings as evidence may keep them: page furniture dropped; a verified quote that opens
    with a pronoun led by the sentence that gives it its referent (`with_referent`), and so is
    the finding's text when it is the quote itself (a model that copied the page's sentence)."""
    kept: list[FindingRecord] = []
    for finding in findings:
        if is_meta(finding["quote"]) or is_meta(finding["text"]):
            continue
        page = pages.get(finding["url"], "")
        if finding["quote_verified"] and page:
            finding = finding.copy()
            quote = finding["quote"]
            finding["quote"] = with_referent(quote, page)
            if " ".join(finding["text"].split()) == " ".join(quote.split()):
                finding["text"] = finding["quote"]
        kept.append(finding)
    return kept


def distinct_sources_first(items: Sequence[T], source: Callable[[T], str]) -> list[T]:
    """The items with each source's first item before any source's second (stable otherwise),
    so whoever takes the first few hears several sources."""
    rank: dict[str, int] = {}
    ranked = []
    for index, item in enumerate(items):
        key = source(item)
        rank[key] = rank.get(key, -1) + 1
        ranked.append((rank[key], index, item))
    return [item for _rank, _index, item in sorted(ranked, key=lambda entry: entry[:2])]


def evidence_passages(
    evidence: Sequence[EvidenceRecord],
    heading_of: dict[str, str] | None = None,
    allowed_urls: Sequence[str] = (),
) -> list[StatementRecord]:
    """Verified quotes as passages (at most a few per source), headed by question or source title."""
    per_source: dict[str, int] = {}
    passages: list[StatementRecord] = []
    seen: set[str] = set()
    for item in distinct_sources_first(evidence, lambda item: item["sid"]):
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
        standalone = standalone_findings(findings, {source["url"]: text})
        kept = [finding for finding in standalone if is_safe_passage(finding["quote"], allowed)]
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
