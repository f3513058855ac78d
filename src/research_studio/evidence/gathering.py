"""One research cycle for a worker: search, read the best new pages, extract evidence."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from research_studio.core.errors import ProviderError, ResearchStudioError
from research_studio.core.records import ErrorRecord, FindingRecord, ModelCallRecord, PageRecord
from research_studio.core.urls import normalize_url
from research_studio.evidence.crosslingual import query_in_documents_language
from research_studio.evidence.passages import standalone_findings
from research_studio.llm.attempts import attempt_call
from research_studio.llm.structured import call_records
from research_studio.services.clients import Services
from research_studio.services.extraction import Extracted, PageInput
from research_studio.sources.search import SearchResult
from research_studio.sources.search.dated import dated_title

Emit = Callable[[str], None]


@dataclass
class Gathered:
    """Everything one cycle produced, failures included."""

    searches: list[str] = field(default_factory=list)
    pages: list[PageRecord] = field(default_factory=list)
    findings: list[FindingRecord] = field(default_factory=list)
    errors: list[ErrorRecord] = field(default_factory=list)
    calls: list[ModelCallRecord] = field(default_factory=list)
    fetches: int = 0
    empty_queries: list[str] = field(default_factory=list)
    # What the last extraction made of its pages (a worker's answer to its question).
    answer: str = ""
    confidence: float = 0.0
    gaps: list[str] = field(default_factory=list)

    def error(self, node: str, exc: Exception, target: str) -> None:
        kind = exc.kind if isinstance(exc, ProviderError) else type(exc).__name__
        self.errors.append(ErrorRecord(node=node, kind=kind, message=str(exc), target=target))


@dataclass
class GatherRequest:
    """What to research and in which context."""

    node: str
    queries: list[str]
    request: str
    questions: list[str]
    known_urls: set[str]  # read in earlier steps of this run (from state: survives a resume)
    # Workers of one fan-out (`fanout`, the same for all of them) claim pages in plan order
    # (`worker`, the task's plan index), not in the order their searches answer. A task alone
    # leaves `fanout` empty.
    fanout: str = ""
    worker: int = 0


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


async def _search_once(
    services: Services, task: GatherRequest, query: str, gathered: Gathered
) -> list[SearchResult]:
    gathered.searches.append(query)
    try:
        async with services.search_limiter:
            return await services.search.search(query, services.config.search_results)
    except ProviderError as exc:
        gathered.error(task.node, exc, query)
        return []


async def _search(
    services: Services, task: GatherRequest, query: str, gathered: Gathered
) -> list[SearchResult]:
    """The query's results; for local documents also those of the query in their language."""
    results = await _search_once(services, task, query, gathered)
    if services.search_choice.name == "local" and services.config.docs:
        translated, calls = await query_in_documents_language(
            services, task.node, query, task.request, found_any=bool(results)
        )
        gathered.calls.extend(calls)
        if translated:
            found = await _search_once(services, task, translated, gathered)
            seen = {result.url for result in found}
            results = found + [result for result in results if result.url not in seen]
    if not results:
        gathered.empty_queries.append(query)
    return results


def _page_limit(services: Services) -> int:
    config = services.config
    return (
        config.search_results if services.search_choice.name == "local" else config.pages_per_search
    )


def _new_results(
    services: Services, task: GatherRequest, results: list[SearchResult]
) -> list[SearchResult]:
    """Up to pages_per_search results whose URL no one in this run has read or claimed.

    Local documents cost nothing to read, so every result of a local search is read.
    """
    limit = _page_limit(services)
    chosen: list[SearchResult] = []
    for result in results:
        url = normalize_url(result.url)
        if not services.claim_url(url):
            continue
        chosen.append(result)
        if len(chosen) == limit:
            break
    return chosen


def share_out(
    services: Services, posted: dict[int, list[list[SearchResult]]]
) -> dict[int, list[list[SearchResult]]]:
    """The pages each worker of a fan-out reads, as a draft: in turn (workers in plan order, each
    one's queries in order) every search takes its best result nobody has claimed, until each
    has its per-search limit or nothing is left. Workers that found the same pages share them."""
    limit = _page_limit(services)
    if services.search_choice.name == "local":
        return _every_new_result(services, posted, limit)
    shares: dict[int, list[list[SearchResult]]] = {
        worker: [[] for _ in found] for worker, found in posted.items()
    }
    left = {
        (worker, number): list(results)
        for worker, found in posted.items()
        for number, results in enumerate(found)
    }
    while left:
        for (worker, number), results in sorted(left.items()):
            mine = shares[worker][number]
            while results and not services.claim_url(normalize_url(results[0].url)):
                results.pop(0)
            if results:
                mine.append(results.pop(0))
            if not results or len(mine) == limit:
                del left[(worker, number)]
    return shares


def _every_new_result(
    services: Services, posted: dict[int, list[list[SearchResult]]], limit: int
) -> dict[int, list[list[SearchResult]]]:
    """Local documents cost nothing to read: each worker reads every result of its searches
    that no earlier step read (peers that found the same document each read it)."""
    urls = sorted({normalize_url(r.url) for found in posted.values() for rs in found for r in rs})
    fresh = {url for url in urls if services.claim_url(url)}
    shares: dict[int, list[list[SearchResult]]] = {}
    for worker, found in posted.items():
        taken: set[str] = set()
        shares[worker] = []
        for results in found:
            mine: list[SearchResult] = []
            for result in results:
                url = normalize_url(result.url)
                if url in fresh and url not in taken and len(mine) < limit:
                    taken.add(url)
                    mine.append(result)
            shares[worker].append(mine)
    return shares


async def _searched_and_shared(
    services: Services, task: GatherRequest, parts: list[Gathered], emit: Emit
) -> list[list[SearchResult]]:
    """Run the task's searches side by side (each one recorded in its own part) and choose the
    pages each reads once all have answered, in query order; a worker of a fan-out shares them
    out with its peers by one rule. Same inputs, same pages, whatever the network timing."""

    async def search(query: str, part: Gathered) -> list[SearchResult]:
        emit(f"searching: {query}")
        return await _search(services, task, query, part)

    shares = services.page_shares
    shared = bool(task.fanout) and shares.join(task.fanout, task.worker)  # before any await
    try:
        found = await asyncio.gather(
            *(search(query, part) for query, part in zip(task.queries, parts, strict=True))
        )
    except BaseException:
        if shared:
            shares.leave(task.fanout, task.worker)
        raise
    if shared:
        return await shares.share(
            task.fanout, task.worker, found, lambda posted: share_out(services, posted)
        )
    return [_new_results(services, task, results) for results in found]


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
        chosen = await _searched_and_shared(services, task, parts, emit)
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
            results = await _search(services, task, query, gathered)
            mine = _new_results(services, task, results)
            read.extend(await _read_chosen(services, task, number, query, mine, gathered, emit))
    # In search order and rank, not in the order the pages happened to arrive: same inputs,
    # same report.
    pages = [page for _at, page in sorted(read, key=lambda entry: entry[0])]
    return pages, gathered


async def gather(
    services: Services, task: GatherRequest, *, emit: Emit, parallel_searches: bool
) -> Gathered:
    """Search, read and extract: one extraction call per search's pages.

    With parallel searches (a worker) the searches run at once and each one's pages are
    extracted as soon as they are read, while the others still fetch: the worker waits for its
    slowest search, not for one long call over every page it read. Otherwise (one agent
    searching in turn) each search's pages are extracted before the next search.
    """
    gathered = Gathered()
    if parallel_searches:
        services.remember_urls(task.known_urls)
        parts = [Gathered() for _ in task.queries]
        chosen = await _searched_and_shared(services, task, parts, emit)
        await asyncio.gather(
            *(
                _read_and_extract(services, task, number, query, mine, part, emit)
                for number, (query, mine, part) in enumerate(
                    zip(task.queries, chosen, parts, strict=True)
                )
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
    number: int,
    query: str,
    chosen: list[SearchResult],
    part: Gathered,
    emit: Emit,
) -> None:
    """One search's pages read and extracted as soon as they are in, while others still fetch."""
    read = await _read_chosen(services, task, number, query, chosen, part, emit)
    await _extract(services, task, [page for _at, page in read], part)


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
