"""Tavily provider: search (with page content) and extract, through tavily-python on our guarded client."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, TypeVar

import httpx
from tavily import AsyncTavilyClient
from tavily import errors as tavily_errors

from research_studio.core.errors import ConfigError, RetryableError, SearchError
from research_studio.sources.fetch import Fetcher, Page
from research_studio.sources.search.base import (
    Retries,
    SearchResult,
    classify_transport_error,
    web_hits,
)

T = TypeVar("T")

# Each result field and the key of the provider's JSON that holds it.
TAVILY_KEYS = {
    "url": "url",
    "title": "title",
    "snippet": "content",
    "content": "raw_content",
    "score": "score",
    "published": "published_date",
}


class TavilySearch:
    """Tavily's search API; asks for raw content so pages often need no separate fetch."""

    name = "tavily"

    def __init__(
        self,
        client: httpx.AsyncClient,
        api_key: str | None,
        *,
        retries: int,
        base_delay_s: float,
        timeout_s: float,
        start_date: str | None = None,
        end_date: str | None = None,
    ) -> None:
        if not api_key:
            raise ConfigError("Tavily needs an API key: set TAVILY_API_KEY or tavily_api_key")
        # The client carries base URL, guard and user agent; tavily-python adds its auth header.
        self._tavily = AsyncTavilyClient(api_key=api_key, client=client)
        self._retries = Retries(retries, base_delay_s)
        self._timeout_s = timeout_s
        # Tavily's own date filter (YYYY-MM-DD); only set ends are sent.
        self._dates = {
            name: value
            for name, value in (("start_date", start_date), ("end_date", end_date))
            if value
        }

    async def _call(self, query: str, call: Callable[[], Awaitable[T]]) -> T:
        try:
            return await call()
        except tavily_errors.UsageLimitExceededError as exc:
            raise RetryableError("rate limited (HTTP 429)", "rate_limited") from exc
        except tavily_errors.TimeoutError as exc:
            raise RetryableError("timed out", "timeout") from exc
        except (tavily_errors.InvalidAPIKeyError, tavily_errors.ForbiddenError) as exc:
            raise SearchError(self.name, query, f"not authorized: {exc}", kind="auth") from exc
        except tavily_errors.BadRequestError as exc:
            raise SearchError(self.name, query, f"bad request: {exc}", kind="bad_response") from exc
        except httpx.HTTPStatusError as exc:
            status = exc.response.status_code
            if status >= 500:
                raise RetryableError(f"server error (HTTP {status})", "server_error") from exc
            raise SearchError(self.name, query, f"HTTP {status}", kind="bad_response") from exc
        except httpx.HTTPError as exc:
            transient = classify_transport_error(exc)
            if transient is None:
                raise SearchError(self.name, query, str(exc), kind="refused") from exc
            raise transient from exc
        except ValueError as exc:  # a non-JSON body
            raise SearchError(self.name, query, "answer is not JSON", kind="bad_response") from exc

    async def _retrying(self, label: str, call: Callable[[], Awaitable[T]]) -> T:
        return await self._retries.run(self.name, label, partial(self._call, label, call))

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        payload: dict[str, Any] = await self._retrying(
            query,
            lambda: self._tavily.search(
                query,
                max_results=max_results,
                include_raw_content="text",
                timeout=self._timeout_s,
                **self._dates,
            ),
        )
        return web_hits(self.name, payload.get("results"), TAVILY_KEYS, max_results)

    async def extract(self, urls: list[str]) -> dict[str, str]:
        """Page text for each URL Tavily could extract; failed URLs are left out."""
        payload: dict[str, Any] = await self._retrying(
            f"extract {len(urls)} urls",
            lambda: self._tavily.extract(urls, format="text", timeout=self._timeout_s),
        )
        return {
            str(item["url"]): str(item.get("raw_content") or "")
            for item in payload.get("results") or []
            if isinstance(item, dict) and item.get("url") and item.get("raw_content")
        }


class TavilyExtractFetcher:
    """Pages through Tavily Extract; a page it cannot extract (or a failed call) is fetched
    by `fallback`, so nothing is lost when Tavily cannot read a page."""

    def __init__(self, tavily: TavilySearch, fallback: Fetcher) -> None:
        self._tavily = tavily
        self._fallback = fallback
        self.extracted = 0  # pages Tavily returned (the rest went to the fallback)

    async def fetch(self, url: str) -> Page:
        try:
            texts = await self._tavily.extract([url])
        except (SearchError, RetryableError):
            texts = {}
        text = texts.get(url, "")
        if not text.strip():
            return await self._fallback.fetch(url)
        self.extracted += 1
        return Page(url=url, final_url=url, text=text, kind="text")
