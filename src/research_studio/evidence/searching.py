"""A cycle's searches and the pages each search gets to read: run side by side, then chosen in
one deterministic order (shared out between the workers of a fan-out)."""

from __future__ import annotations

import asyncio

from research_studio.core.errors import ProviderError
from research_studio.core.urls import normalize_url
from research_studio.evidence.crosslingual import query_in_documents_language
from research_studio.evidence.gather_records import Emit, Gathered, GatherRequest
from research_studio.services.clients import Services
from research_studio.sources.search import SearchResult


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


async def search_for(
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


def page_limit(services: Services) -> int:
    config = services.config
    return (
        config.search_results if services.search_choice.name == "local" else config.pages_per_search
    )


def new_results(
    services: Services, task: GatherRequest, results: list[SearchResult]
) -> list[SearchResult]:
    """Up to pages_per_search results whose URL no one in this run has read or claimed.

    Local documents cost nothing to read, so every result of a local search is read.
    """
    limit = page_limit(services)
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
    limit = page_limit(services)
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


async def searched_and_shared(
    services: Services, task: GatherRequest, parts: list[Gathered], emit: Emit
) -> list[list[SearchResult]]:
    """Run the task's searches side by side (each one recorded in its own part) and choose the
    pages each reads once all have answered, in query order; a worker of a fan-out shares them
    out with its peers by one rule. Same inputs, same pages, whatever the network timing."""

    async def search(query: str, part: Gathered) -> list[SearchResult]:
        emit(f"searching: {query}")
        return await search_for(services, task, query, part)

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
    return [new_results(services, task, results) for results in found]
