"""Statement-level citations: writers return statements bound to ids; code cites and checks them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from research_studio.core.config import ReportStructure
from research_studio.core.records import QuoteRef, SourceRecord, StatementRecord
from research_studio.grounding.addressing import printable
from research_studio.grounding.meta_text import furniture_kind, is_meta
from research_studio.grounding.printed import (
    GroundedSection,
    printed_records,
    render_body,
    with_sources,
)
from research_studio.grounding.quotes import is_factual
from research_studio.grounding.support import (
    Verdict,
    sentences_of,
    supports,
    supports_jointly,
)

# Markers a writer may type although code renders them: [S2], [E3, E4], (C1), [1].
_TYPED_MARKERS = re.compile(r"\s*[\[(]\s*[SECsec]?\d+(?:\s*[,;]\s*[SECsec]?\d+)*\s*[\])]")


class Statement(BaseModel):
    """One sentence of the report and the ids it rests on."""

    text: str = Field(description="One sentence, no citation markers.")
    ids: list[str] = Field(
        default_factory=list, description="Ids of the evidence (E1…) or claims (C1…) it states."
    )


class Paragraph(BaseModel):
    """A paragraph (or one bullet): its statements in order."""

    statements: list[Statement] = Field(min_length=1)


class DraftSection(BaseModel):
    """A section of the draft."""

    heading: str
    paragraphs: list[Paragraph] = Field(min_length=1)


class ReportDraft(BaseModel):
    """The writer's draft: statements bound to ids; code renders citations and structure."""

    title: str = ""
    summary: list[Statement] = Field(default_factory=list)
    sections: list[DraftSection] = Field(min_length=1)
    conclusion: list[Statement] = Field(default_factory=list)


@dataclass(frozen=True)
class Support:
    """What one id (evidence or claim) lets a statement cite: its sources and their passages."""

    sids: tuple[str, ...]
    quotes: tuple[QuoteRef, ...]
    indicator: str = ""


# A quote that is page furniture supports nothing.
FURNITURE = Verdict(ok=False, reasons=("the cited quote is page furniture, not a finding",))
# A writer's sentence that fails is replaced by its cited quote only when the quote is about
# the same thing (shares this share of the sentence's content words); else it is dropped.
PASSAGE_MIN_COVERAGE = 0.3


@dataclass
class Tally:
    """What grounding dropped or replaced, and why (each decision kept for result.json)."""

    unsupported: int = 0
    numbers_unsupported: int = 0
    injections: int = 0
    furniture: int = 0
    replaced: int = 0
    citations_removed: int = 0
    notes: list[str] = field(default_factory=list)
    decisions: list[dict[str, object]] = field(default_factory=list)
    passages: set[str] = field(default_factory=set)

    def decide(
        self,
        text: str,
        section: str,
        decision: str,
        reasons: Sequence[str],
        parts: Sequence[str] = (),
    ) -> None:
        """One decision; `parts` says where each part of the statement was found, or not."""
        entry: dict[str, object] = {
            "section": section, "text": text, "decision": decision, "reasons": list(reasons)
        }  # fmt: skip
        if parts:
            entry["parts"] = list(parts)
        self.decisions.append(entry)


def clean_text(text: str) -> str:
    """A statement's text without markers the writer typed and with collapsed spaces."""
    return " ".join(_TYPED_MARKERS.sub("", text).split())


def meaningful_heading(heading: str, fallback: str) -> str:
    """The heading, or the fallback when it has no words (e.g. '#/#/#')."""
    heading = " ".join(heading.strip().strip("#").split())
    return heading if re.search(r"[^\W\d_]{2,}", heading) else fallback


def ground_statement(
    statement: Statement,
    support: Mapping[str, Support],
    *,
    section: str,
    tally: Tally,
    allowed_urls: Iterable[str] = (),
) -> StatementRecord | None:
    """The checked statement, its cited quote in its place, or None (recorded in the tally).

    Each citation must support the statement on its own (`support.supports`); a citation that
    does not is removed. A statement left without one is never printed as written.
    """
    text = clean_text(statement.text)
    if not text:
        return None
    if not printable(text, allowed_urls):
        tally.injections += 1
        tally.decide(text, section, "dropped", ["addresses the reader or an AI"])
        return None
    if is_furniture(text, section, tally):
        return None
    ids = [identifier for identifier in dict.fromkeys(statement.ids) if identifier in support]
    if not ids:
        # Ids that name nothing are a claim of support that does not exist: never a connective.
        if statement.ids or is_factual(text):
            tally.unsupported += 1
            why = "cites ids that name no evidence" if statement.ids else "a fact without ids"
            tally.decide(text, section, "dropped", [why])
            return None
        return StatementRecord(
            section=section, text=text, ids=[], sids=[], quotes=[], indicator="", kind="connective"
        )
    kept: list[str] = []
    sids: list[str] = []
    quotes: list[QuoteRef] = []
    removed: dict[tuple[str, str], str] = {}
    failed: list[tuple[QuoteRef, Verdict]] = []
    for identifier in ids:
        item = support[identifier]
        for sid in item.sids:
            checked = [
                (ref, supports(text, ref["quote"]) if not is_meta(ref["quote"]) else FURNITURE)
                for ref in item.quotes
                if ref["sid"] == sid
            ]
            good = [ref for ref, verdict in checked if verdict.ok]
            if good:
                kept += [identifier] if identifier not in kept else []
                sids += [sid] if sid not in sids else []
                quotes += [ref for ref in good if ref not in quotes]
                continue
            failed += checked
            reason = _best_reason([verdict for _, verdict in checked])
            removed[(identifier, sid)] = f"citation {identifier} ({sid}) removed: {reason}"
    # Facts joined from several quotes of one source: each part in one of them.
    for sid in dict.fromkeys(sid for _, sid in removed):
        if sid in sids:
            continue
        joined = _joined_support(text, sid, ids, support)
        for identifier, refs in joined.items():
            kept += [identifier] if identifier not in kept else []
            sids += [sid] if sid not in sids else []
            quotes += [ref for ref in refs if ref not in quotes]
            removed.pop((identifier, sid), None)
    tally.citations_removed += len(removed) if sids else 0
    failed = [(ref, verdict) for ref, verdict in failed if ref["sid"] not in sids]
    if not sids:
        return _replace_by_quote(text, section, failed, tally, allowed_urls)
    indicators = [_indicator(support[identifier], sids) for identifier in kept]
    return StatementRecord(
        section=section,
        text=text,
        ids=kept,
        sids=sids,
        quotes=quotes,
        indicator=_weakest(indicators),
        kind="cited",
        check="supported",
        reasons=list(removed.values()),
    )


def _joined_support(
    text: str, sid: str, ids: Sequence[str], support: Mapping[str, Support]
) -> dict[str, list[QuoteRef]]:
    """The ids (and their quotes of `sid`) whose quotes together carry the statement, each
    part in one of them (`support.supports_jointly`); empty when they do not."""
    refs = [
        (identifier, ref)
        for identifier in ids
        for ref in support[identifier].quotes
        if ref["sid"] == sid and not is_meta(ref["quote"])
    ]
    distinct = list(dict.fromkeys(ref["quote"] for _, ref in refs))
    if len(distinct) < 2:
        return {}
    verdict = supports_jointly(text, distinct)
    if not verdict.ok:
        return {}
    used = {text for part in verdict.parts for text in (part.quote, *part.also) if text}
    joined: dict[str, list[QuoteRef]] = {}
    for identifier, ref in refs:
        if used & set(sentences_of(ref["quote"])):
            joined.setdefault(identifier, []).append(ref)
    return joined


def is_furniture(text: str, section: str, tally: Tally) -> bool:
    """Whether the statement is page furniture (a byline, a dateline, a caption, navigation,
    the page describing itself: `meta_text`), which is never printed as a finding, on any
    pipeline; the drop is recorded in the tally."""
    kind = furniture_kind(text)
    if kind is None:
        return False
    tally.furniture += 1
    tally.decide(text, section, "dropped", [f"page furniture ({kind}), not a finding"])
    return True


def _best(verdicts: Sequence[Verdict]) -> Verdict | None:
    return max(verdicts, key=lambda verdict: verdict.coverage, default=None)


def _best_reason(verdicts: Sequence[Verdict]) -> str:
    best = _best(verdicts)
    return best.reason() if best else "no verified quote"


def _indicator(item: Support, kept_sids: Sequence[str]) -> str:
    """The id's indicator; ✓✓ only while two of its sources still support the statement."""
    if item.indicator == "✓✓" and len(set(item.sids) & set(kept_sids)) < 2:
        return "✓"
    return item.indicator


def _replace_by_quote(
    text: str,
    section: str,
    failed: Sequence[tuple[QuoteRef, Verdict]],
    tally: Tally,
    allowed_urls: Iterable[str],
) -> StatementRecord | None:
    """The cited quote most about the statement, verbatim, in place of the statement; or None."""
    if any(reason.startswith("figure") for _, verdict in failed for reason in verdict.reasons):
        tally.numbers_unsupported += 1
    closest = _best([verdict for _, verdict in failed])
    reasons = [closest.reason() if closest else "no verified quote"]
    parts = closest.explanation() if closest else []
    allowed = list(allowed_urls)
    for ref, verdict in sorted(failed, key=lambda pair: -pair[1].coverage):
        key = " ".join(ref["quote"].lower().split())
        if verdict.coverage < PASSAGE_MIN_COVERAGE or key in tally.passages:
            continue
        if not printable(ref["quote"], allowed) or is_meta(ref["quote"]):
            continue
        tally.replaced += 1
        tally.passages.add(key)
        tally.decide(text, section, "replaced by its cited quote", reasons, parts)
        record = passage(section, ref["sid"], ref["quote"])
        return StatementRecord(**record, check="replaced by its cited quote", reasons=reasons)
    tally.unsupported += 1
    tally.decide(text, section, "dropped", reasons, parts)
    return None


def _weakest(indicators: Sequence[str]) -> str:
    for mark in ("⚠", "✓", "✓✓"):
        if mark in indicators:
            return mark
    return ""


def ground_paragraph(
    statements: Sequence[Statement],
    support: Mapping[str, Support],
    *,
    section: str,
    tally: Tally,
    allowed_urls: Iterable[str] = (),
) -> list[StatementRecord]:
    """A paragraph's printable statements; connectives survive only beside a cited statement."""
    kept = [
        record
        for statement in statements
        if (
            record := ground_statement(
                statement, support, section=section, tally=tally, allowed_urls=allowed_urls
            )
        )
        is not None
    ]
    return kept if any(record["kind"] != "connective" for record in kept) else []


def passage(section: str, sid: str, quote: str) -> StatementRecord:
    """A verbatim passage of a page, cited to its source."""
    text = " ".join(quote.split())
    return StatementRecord(
        section=section,
        text=text,
        ids=[],
        sids=[sid],
        quotes=[QuoteRef(sid=sid, quote=quote)],
        indicator="",
        kind="passage",
    )


def grounding_figures(records: Sequence[StatementRecord], tally: Tally) -> dict[str, object]:
    """The report's grounding in numbers, computed from what it prints."""
    cited = sum(1 for record in records if record["sids"])
    factual = sum(1 for record in records if record["sids"] or is_factual(record["text"]))
    return {
        "statements": len(records),
        "cited_statements": cited,
        "verbatim_passages": sum(1 for record in records if record["kind"] == "passage"),
        "factual_statements": factual,
        "citation_coverage": round(cited / factual, 3) if factual else 1.0,
        "statements_dropped_unsupported": tally.unsupported,
        "numbers_unsupported": tally.numbers_unsupported,
        "instructions_dropped": tally.injections,
        "furniture_dropped": tally.furniture,
        "statements_replaced_by_quote": tally.replaced,
        "citations_removed": tally.citations_removed,
        "decisions": list(tally.decisions),
    }


@dataclass
class GroundedReport:
    """A report as checked statements, ready to render."""

    title: str
    summary: list[StatementRecord] = field(default_factory=list)
    sections: list[GroundedSection] = field(default_factory=list)
    conclusion: list[StatementRecord] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)
    appendix: list[str] = field(default_factory=list)

    def printed(self, structure: ReportStructure) -> list[StatementRecord]:
        return printed_records(self.summary, self.sections, self.conclusion, structure)

    def has_citations(self) -> bool:
        return any(record["sids"] for section in self.sections for record in section.records())

    def markdown(
        self, structure: ReportStructure, sources: Sequence[SourceRecord], language: str = "en"
    ) -> str:
        body = render_body(
            self.title, self.summary, self.sections, self.conclusion, structure, language=language
        )
        body = "\n\n".join([body, *self.appendix])
        return with_sources(body, self.printed(structure), sources, language)


def ground_draft(
    draft: ReportDraft,
    support: Mapping[str, Support],
    *,
    title: str,
    headings: Sequence[str],
    allowed_urls: Iterable[str] = (),
) -> GroundedReport:
    """Every statement of the draft checked; sections left without a cited statement disappear."""
    report = GroundedReport(title=title)
    allowed = list(allowed_urls)

    def paragraph(statements: Sequence[Statement], section: str) -> list[StatementRecord]:
        return ground_paragraph(
            statements, support, section=section, tally=report.tally, allowed_urls=allowed
        )

    report.summary = paragraph(draft.summary, "Summary")
    for number, section in enumerate(draft.sections):
        fallback = headings[number % len(headings)] if headings else "Findings"
        heading = meaningful_heading(section.heading, fallback)
        paragraphs = [
            kept for block in section.paragraphs if (kept := paragraph(block.statements, heading))
        ]
        if paragraphs:
            report.sections.append(GroundedSection(heading=heading, paragraphs=paragraphs))
    report.conclusion = paragraph(draft.conclusion, "Conclusion")
    return report
