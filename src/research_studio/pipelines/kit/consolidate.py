"""Fan-in: pages become numbered sources (deduped by URL), findings become numbered evidence."""

from __future__ import annotations

from collections.abc import Iterable

from research_studio.core.records import EvidenceRecord, FindingRecord, PageRecord, SourceRecord
from research_studio.core.urls import normalize_url


def next_number(prefix: str, ids: Iterable[str]) -> int:
    """The number after the highest of the `prefix`ed ids ("S3" -> 4); 1 when there is none."""
    numbers = [
        int(i[len(prefix) :]) for i in ids if i.startswith(prefix) and i[len(prefix) :].isdigit()
    ]
    return max(numbers, default=0) + 1


def evidence_of(number: int, source: SourceRecord, finding: FindingRecord) -> EvidenceRecord:
    """Evidence `E<number>`: a finding's fact and quote, filed under the numbered source it was
    found in."""
    return EvidenceRecord(
        eid=f"E{number}",
        sid=source["sid"],
        url=source["url"],
        title=source["title"],
        text=finding["text"],
        quote=finding["quote"],
        quote_verified=finding["quote_verified"],
        question=finding["question"],
    )


def consolidate(
    sources: list[SourceRecord],
    evidence: list[EvidenceRecord],
    pages: Iterable[PageRecord],
    findings: Iterable[FindingRecord],
    *,
    max_sources: int,
) -> tuple[list[SourceRecord], list[EvidenceRecord]]:
    """All sources (old + new, one per normalized URL, capped) and the new evidence items.

    Findings whose page would exceed `max_sources`, or that repeat a fact already kept
    for the same source, are dropped.
    """
    merged = list(sources)
    by_url = {source["url"]: source for source in merged}
    next_sid = next_number("S", (source["sid"] for source in merged))
    for page in pages:
        url = normalize_url(page["url"])
        if url in by_url or len(merged) >= max_sources:
            continue
        source = SourceRecord(
            sid=f"S{next_sid}",
            url=url,
            title=page["title"],
            snippet=page["snippet"],
            provider=page["provider"],
            published=page["published"],
        )
        next_sid += 1
        merged.append(source)
        by_url[url] = source

    seen = {(item["sid"], item["text"].lower()) for item in evidence}
    next_eid = next_number("E", (item["eid"] for item in evidence))
    new_evidence: list[EvidenceRecord] = []
    for finding in findings:
        found = by_url.get(normalize_url(finding["url"]))
        if found is None or (found["sid"], finding["text"].lower()) in seen:
            continue
        source = found
        seen.add((source["sid"], finding["text"].lower()))
        new_evidence.append(evidence_of(next_eid, source, finding))
        next_eid += 1
    return merged, new_evidence
