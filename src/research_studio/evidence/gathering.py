"""One research cycle for a worker: search, read the best new pages, extract evidence."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from research_studio.core.errors import ProviderError, ResearchStudioError
from research_studio.core.records import FindingRecord, PageRecord
from research_studio.core.urls import normalize_url
from research_studio.evidence.gather_records import Emit, Gathered, GatherRequest
from research_studio.evidence.passages import standalone_findings
from research_studio.evidence.searching import new_results, search_for, searched_and_shared
from research_studio.llm.attempts import attempt_call
from research_studio.llm.structured import call_records
from research_studio.services.clients import Services
from research_studio.services.extraction import Extracted, PageInput
from research_studio.sources.search import SearchResult
from research_studio.sources.search.dated import dated_title


@dataclass
class PageText:
    """A page read for a query: the search result and the text (fetched or sent by the provider)."""

    result: SearchResult
    query: str
    title: str
    text: str
    published: str | None


async def _load(
    services: Services, task: GatherRequest, result: SearchResult, query: str, gathered: Gathered
) -> PageText | None:
    """The page's text: the provider's when it sent it, else fetched; None (recorded) on failure."""
    if result.content:
        await services.archive.keep(result.url, result.content)
        return PageText(result, query, result.title, result.content, result.published)
    gathered.fetches += 1
    try:
        page = await services.fetcher.fetch(result.url)
    except ProviderError as exc:
        gathered.error(task.node, exc, result.url)
        return None
    published = page.published or result.published
    # The page may date itself where the search result did not: the time range applies again.
    title = dated_title(page.title or result.title, published, services.time_range)
    if title is None:
        return None
    await services.archive.keep(result.url, page.text)
    return PageText(result, query, title, page.text, published)


async def _extract(
    services: Services, task: GatherRequest, pages: list[PageText], gathered: Gathered
) -> None:
    """Evidence from a batch of pages in one model call (or verbatim); failures become records."""
    if not pages:
        return
    caller = None if services.extraction.verbatim else services.caller(task.node, "fast")

    def lost(exc: ResearchStudioError) -> None:  # every page of the batch lost its evidence
        for page in pages:
            gathered.error(task.node, exc, page.result.url)

    try:
        extracted = await attempt_call(
            services.extraction.findings(
                caller,
                services.config,
                request=task.request,
                questions=task.questions,
                pages=[
                    PageInput(url=page.result.url, title=page.title, text=page.text)
                    for page in pages
                ],
            ),
            lost,
        )
    finally:  # the calls made are kept even when the run is cancelled mid-call
        if caller is not None:
            gathered.calls.extend(call_records(caller))
    if extracted is None:
        extracted = Extracted([])
    for page in pages:
        keep_page(page, [], gathered)
    texts = {page.result.url: page.text for page in pages}
    keep_findings(standalone_findings(extracted.findings, texts), gathered)
    gathered.answer, gathered.confidence, gathered.gaps = (
        extracted.answer,
        extracted.confidence,
        extracted.gaps,
    )


def keep_page(page: PageText, findings: list[FindingRecord], gathered: Gathered) -> None:
    """Record a page read and its findings, under normalized URLs."""
    result = page.result
    gathered.pages.append(
        PageRecord(
            url=normalize_url(result.url),
            title=page.title or result.url,
            snippet=result.snippet[:300],
            provider=result.provider,
            published=page.published,
        )
    )
    keep_findings(findings, gathered)


def keep_findings(findings: list[FindingRecord], gathered: Gathered) -> None:
    """Record findings under normalized URLs."""
    for finding in findings:
        finding["url"] = normalize_url(finding["url"])
    gathered.findings.extend(findings)


async def _read_chosen(
    services: Services,
    task: GatherRequest,
    number: int,
    query: str,
    chosen: list[SearchResult],
    gathered: Gathered,
    emit: Emit,
) -> list[tuple[tuple[int, int], PageText]]:
    """The chosen pages of one search, read at once, each with its place (search, rank)."""
    if chosen:
        emit(f"reading {len(chosen)} page(s) for: {query}")
    loaded = await asyncio.gather(
        *(_load(services, task, result, query, gathered) for result in chosen)
    )
    return [((number, rank), page) for rank, page in enumerate(loaded) if page is not None]


async def read_pages(
    services: Services,
    task: GatherRequest,
    *,
    emit: Emit,
    parallel_searches: bool,
    into: Gathered | None = None,
) -> tuple[list[PageText], Gathered]:
    """Run the task's searches (in parallel or in order) and read the new pages they find."""
    gathered = into if into is not None else Gathered()
    services.remember_urls(task.known_urls)
    read: list[tuple[tuple[int, int], PageText]] = []
    if parallel_searches:
        parts = [Gathered() for _ in task.queries]
        chosen = await searched_and_shared(services, task, parts, emit)
        for part in parts:
            _merge(gathered, part)
        for got in await asyncio.gather(
            *(
                _read_chosen(services, task, number, query, mine, gathered, emit)
                for number, (query, mine) in enumerate(zip(task.queries, chosen, strict=True))
            )
        ):
            read.extend(got)
    else:
        for number, query in enumerate(task.queries):
            emit(f"searching: {query}")
            results = await search_for(services, task, query, gathered)
            mine = new_results(services, task, results)
            read.extend(await _read_chosen(services, task, number, query, mine, gathered, emit))
    # In search order and rank, not in the order the pages happened to arrive: same inputs,
    # same report.
    pages = [page for _at, page in sorted(read, key=lambda entry: entry[0])]
    return pages, gathered


async def gather(
    services: Services, task: GatherRequest, *, emit: Emit, parallel_searches: bool
) -> Gathered:
    """Search, read and extract.

    With parallel searches (a worker) the searches run at once and each page is extracted in a
    call of its own as soon as it is read, while the others still fetch or parse: the worker
    waits for its slowest page and one page's answer, not for a search's slowest page (a PDF
    starting its parser process) and then one long call over all of them. Otherwise (one agent
    searching in turn, whose calls wait one after another whatever their size) each search's
    pages are extracted in one call before the next search.
    """
    gathered = Gathered()
    if parallel_searches:
        services.remember_urls(task.known_urls)
        parts = [Gathered() for _ in task.queries]
        chosen = await searched_and_shared(services, task, parts, emit)
        await asyncio.gather(
            *(
                _read_and_extract(services, task, query, mine, part, emit)
                for query, mine, part in zip(task.queries, chosen, parts, strict=True)
            )
        )
        for part in parts:  # in search order, not arrival order: same inputs, same report
            _merge(gathered, part)
        return gathered
    for query in task.queries:
        one = GatherRequest(
            node=task.node,
            queries=[query],
            request=task.request,
            questions=task.questions,
            known_urls=task.known_urls,
        )
        pages, _ = await read_pages(
            services, one, emit=emit, parallel_searches=False, into=gathered
        )
        await _extract(services, task, pages, gathered)
    return gathered


async def _read_and_extract(
    services: Services,
    task: GatherRequest,
    query: str,
    chosen: list[SearchResult],
    part: Gathered,
    emit: Emit,
) -> None:
    """One search's pages, each read and extracted as soon as it is in; recorded in rank order
    (not in the order they happened to arrive): same inputs, same evidence."""
    if chosen:
        emit(f"reading {len(chosen)} page(s) for: {query}")
    pages = [Gathered() for _ in chosen]
    await asyncio.gather(
        *(
            _read_one_and_extract(services, task, query, result, page)
            for result, page in zip(chosen, pages, strict=True)
        )
    )
    for page in pages:
        _merge(part, page)


async def _read_one_and_extract(
    services: Services, task: GatherRequest, query: str, result: SearchResult, part: Gathered
) -> None:
    """One page read, then asked about in a call of its own (failures recorded in `part`)."""
    page = await _load(services, task, result, query, part)
    if page is not None:
        await _extract(services, task, [page], part)


def _merge(gathered: Gathered, part: Gathered) -> None:
    """One search's results added to the task's; answers joined, confidence weighted by findings."""
    weight, part_weight = len(gathered.findings), len(part.findings)
    gathered.searches.extend(part.searches)
    gathered.pages.extend(part.pages)
    gathered.findings.extend(part.findings)
    gathered.errors.extend(part.errors)
    gathered.calls.extend(part.calls)
    gathered.fetches += part.fetches
    gathered.empty_queries.extend(part.empty_queries)
    if part.answer:
        gathered.answer = f"{gathered.answer} {part.answer}".strip()
    if weight + part_weight:
        total = gathered.confidence * weight + part.confidence * part_weight
        gathered.confidence = total / (weight + part_weight)
    gathered.gaps.extend(gap for gap in part.gaps if gap not in gathered.gaps)
