"""One research cycle for a worker: search, read the best new pages, extract evidence."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from research_studio.errors import ProviderError, ResearchStudioError
from research_studio.extraction import extract_findings, extract_sentences
from research_studio.search import SearchResult
from research_studio.services import Services
from research_studio.state import ErrorRecord, FindingRecord, LLMCallRecord, PageRecord
from research_studio.structured import ModelCaller
from research_studio.urls import normalize_url

Emit = Callable[[str], None]


@dataclass
class Gathered:
    """Everything one cycle produced, failures included."""

    searches: list[str] = field(default_factory=list)
    pages: list[PageRecord] = field(default_factory=list)
    findings: list[FindingRecord] = field(default_factory=list)
    errors: list[ErrorRecord] = field(default_factory=list)
    calls: list[LLMCallRecord] = field(default_factory=list)
    fetches: int = 0

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
    known_urls: set[str]


def _record_calls(caller: ModelCaller, gathered: Gathered) -> None:
    gathered.calls.extend(LLMCallRecord(**call.model_dump()) for call in caller.calls)  # type: ignore[typeddict-item]
    caller.calls.clear()


async def _read(
    services: Services, task: GatherRequest, result: SearchResult, gathered: Gathered
) -> None:
    """Fetch (unless the provider sent the text), then extract; failures become error records."""
    text, title, published = result.content or "", result.title, result.published
    if not text:
        gathered.fetches += 1
        try:
            page = await services.fetcher.fetch(result.url)
        except ProviderError as exc:
            gathered.error(task.node, exc, result.url)
            return
        text, title, published = page.text, page.title or result.title, page.published or published
    if services.extraction_mode == "extractive":
        findings = extract_sentences(
            services.config,
            request=task.request,
            questions=task.questions,
            url=result.url,
            text=text,
        )
        _keep(result, title, published, findings, gathered)
        return
    caller = services.caller(task.node, "fast")
    try:
        findings = await extract_findings(
            caller,
            services.config,
            request=task.request,
            questions=task.questions,
            url=result.url,
            title=title,
            text=text,
        )
    except ResearchStudioError as exc:
        gathered.error(task.node, exc, result.url)
        findings = []
    finally:
        _record_calls(caller, gathered)
    _keep(result, title, published, findings, gathered)


def _keep(
    result: SearchResult,
    title: str,
    published: str | None,
    findings: list[FindingRecord],
    gathered: Gathered,
) -> None:
    """Record the page read and its findings, under normalized URLs."""
    gathered.pages.append(
        PageRecord(
            url=normalize_url(result.url),
            title=title or result.url,
            snippet=result.snippet[:300],
            provider=result.provider,
            published=published,
        )
    )
    for finding in findings:
        finding["url"] = normalize_url(finding["url"])
    gathered.findings.extend(findings)


async def _search(
    services: Services, task: GatherRequest, query: str, gathered: Gathered
) -> list[SearchResult]:
    gathered.searches.append(query)
    try:
        async with services.search_limiter:
            return await services.search.search(query, services.config.search_results)
    except ProviderError as exc:
        gathered.error(task.node, exc, query)
        return []


def _new_results(
    services: Services, task: GatherRequest, results: list[SearchResult]
) -> list[SearchResult]:
    """Up to pages_per_search results whose URL no one in this run has read or claimed."""
    chosen: list[SearchResult] = []
    for result in results:
        url = normalize_url(result.url)
        if url in task.known_urls or not services.claim_url(url):
            continue
        task.known_urls.add(url)
        chosen.append(result)
        if len(chosen) == services.config.pages_per_search:
            break
    return chosen


async def gather(
    services: Services, task: GatherRequest, *, emit: Emit, parallel_searches: bool
) -> Gathered:
    """Run the task's searches (in parallel or in order) and read the new pages they find."""
    gathered = Gathered()

    async def one(query: str) -> None:
        emit(f"searching: {query}")
        results = await _search(services, task, query, gathered)
        chosen = _new_results(services, task, results)
        if chosen:
            emit(f"reading {len(chosen)} page(s) for: {query}")
        await asyncio.gather(*(_read(services, task, result, gathered) for result in chosen))

    if parallel_searches:
        await asyncio.gather(*(one(query) for query in task.queries))
    else:
        for query in task.queries:
            await one(query)
    return gathered
