"""DuckDuckGo (and other engines) through the ddgs package; needs no API key."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any, Protocol

from research_studio.core.errors import RetryableError, SearchError
from research_studio.sources.search.base import (
    Retries,
    SearchResult,
    web_hit,
)


class TextSearcher(Protocol):
    """The part of `ddgs.DDGS` this provider uses."""

    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]: ...


def _default_searcher(timeout_s: float) -> TextSearcher:
    from ddgs import DDGS

    return DDGS(timeout=max(1, int(timeout_s)))


class DuckDuckGoSearch:
    """ddgs is synchronous, so each search runs in a worker thread to keep the event loop free."""

    name = "duckduckgo"

    def __init__(
        self,
        *,
        retries: int,
        base_delay_s: float,
        timeout_s: float,
        searcher_factory: Callable[[float], TextSearcher] = _default_searcher,
    ) -> None:
        self._retries = Retries(retries, base_delay_s)
        self._timeout_s = timeout_s
        self._searcher_factory = searcher_factory

    def _search_blocking(self, query: str, max_results: int) -> list[dict[str, Any]]:
        from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

        searcher = self._searcher_factory(self._timeout_s)
        try:
            return searcher.text(query, max_results=max_results)
        except RatelimitException as exc:
            raise RetryableError("rate limited", "rate_limited") from exc
        except TimeoutException as exc:
            raise RetryableError("timed out", "timeout") from exc
        except DDGSException as exc:
            if "no results" in str(exc).lower():
                return []
            raise SearchError(self.name, query, str(exc), kind="bad_response") from exc

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        blocking = partial(asyncio.to_thread, self._search_blocking, query, max_results)
        rows = await self._retries.run(self.name, query, blocking)
        count = len(rows)
        hits = [
            web_hit(
                self.name,
                row.get("href"),
                title=row.get("title"),
                snippet=row.get("body"),
                score=1.0 - index / max(count, 1),
            )
            for index, row in enumerate(rows[:max_results])
            if isinstance(row, dict)
        ]
        return [hit for hit in hits if hit is not None]
