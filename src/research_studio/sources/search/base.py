"""The search provider protocol, its normalized result, retries and caching."""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

import httpx
from pydantic import BaseModel, Field

from research_studio.core.errors import RetryableError, SearchError
from research_studio.core.urls import is_web_url
from research_studio.sources.cache import Cache, search_key
from research_studio.sources.http_client import BlockedAddressError

T = TypeVar("T")


class SearchResult(BaseModel):
    """One normalized hit, whatever the provider."""

    url: str
    title: str = ""
    snippet: str = ""
    content: str | None = Field(None, description="Full page text when the provider returns it.")
    score: float = 0.0
    provider: str
    published: str | None = None


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def web_hit(
    provider: str,
    url: object,
    *,
    title: object = "",
    snippet: object = "",
    content: object = None,
    score: object = 0.0,
    published: object = None,
) -> SearchResult | None:
    """A provider's hit from its foreign JSON; None when its URL is no absolute web address.

    Fields of the wrong type are dropped rather than raised: one odd hit never costs a search.
    """
    if not isinstance(url, str) or not is_web_url(url):
        return None
    try:
        value = float(score)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        value = 0.0
    return SearchResult(
        url=url.strip(),
        title=_text(title),
        snippet=_text(snippet),
        content=_text(content) or None,
        score=value if math.isfinite(value) else 0.0,
        provider=provider,
        published=_text(published) or None,
    )


def web_hits(
    provider: str, items: object, keys: Mapping[str, str], limit: int
) -> list[SearchResult]:
    """The hits of a provider's JSON result list, each field read from its key in `keys`
    (`url` required); items that are no object or have no web URL are left out."""
    hits: list[SearchResult] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        fields = {field: item.get(key) for field, key in keys.items() if field != "url"}
        hit = web_hit(provider, item.get(keys["url"]), **fields)
        if hit is not None:
            hits.append(hit)
    return hits[:limit]


@runtime_checkable
class SearchProvider(Protocol):
    """Anything that turns a query into normalized results, raising SearchError on failure."""

    name: str

    async def search(self, query: str, max_results: int) -> list[SearchResult]: ...


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return float(response.headers["Retry-After"])
    except (KeyError, ValueError):
        return None


def check_response(response: httpx.Response, provider: str, query: str) -> None:
    """Raise RetryableError for 429/5xx and SearchError for other non-2xx answers."""
    status = response.status_code
    if status == 429:
        raise RetryableError("rate limited (HTTP 429)", "rate_limited", _retry_after(response))
    if status >= 500:
        raise RetryableError(
            f"server error (HTTP {status})", "server_error", _retry_after(response)
        )
    if status in (401, 403):
        raise SearchError(provider, query, f"not authorized (HTTP {status})", kind="auth")
    if status >= 400:
        raise SearchError(provider, query, f"request refused (HTTP {status})", kind="bad_response")


def classify_transport_error(exc: httpx.HTTPError) -> RetryableError | None:
    """A retryable wrapper for transient httpx errors; None for errors that will not go away."""
    if isinstance(exc, BlockedAddressError):
        return None
    if isinstance(exc, httpx.TimeoutException):
        return RetryableError("timed out", "timeout")
    if isinstance(exc, httpx.TransportError):
        return RetryableError(f"network error ({type(exc).__name__})", "network")
    return None


async def with_retries(
    attempt: Callable[[], Awaitable[T]],
    *,
    provider: str,
    query: str,
    retries: int,
    base_delay_s: float,
    max_delay_s: float = 20.0,
) -> T:
    """Run `attempt`, retrying RetryableError with exponential backoff and full jitter."""
    for number in range(retries + 1):
        try:
            return await attempt()
        except RetryableError as exc:
            if number == retries:
                raise SearchError(
                    provider, query, f"{exc.reason} after {retries + 1} attempts", kind=exc.kind
                ) from exc
            backoff = min(max_delay_s, base_delay_s * 2**number) * random.uniform(0.5, 1.0)
            await asyncio.sleep(min(max_delay_s, max(backoff, exc.retry_after or 0.0)))
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class Retries:
    """How a provider retries a transient failure: how many more times, from what first delay."""

    times: int
    base_delay_s: float

    async def run(self, provider: str, query: str, attempt: Callable[[], Awaitable[T]]) -> T:
        """`attempt`, retried as `with_retries` does; a last failure is a SearchError."""
        return await with_retries(
            attempt,
            provider=provider,
            query=query,
            retries=self.times,
            base_delay_s=self.base_delay_s,
        )


class DeadlineSearch:
    """Bounds a whole search (connect, answer, retries and their backoff) by one deadline."""

    def __init__(self, inner: SearchProvider, deadline_s: float) -> None:
        self.inner = inner
        self.name = inner.name
        self._deadline_s = deadline_s

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        try:
            # The client's timeout bounds each read; a server that drips bytes needs this one.
            async with asyncio.timeout(self._deadline_s):
                return await self.inner.search(query, max_results)
        except TimeoutError as exc:
            raise SearchError(
                self.name,
                query,
                f"no answer within the {self._deadline_s:g} s deadline",
                kind="timeout",
            ) from exc


class CachedSearch:
    """Serves repeated queries from the cache; only successful searches are stored."""

    def __init__(self, inner: SearchProvider, cache: Cache, ttl_s: float, *, endpoint: str) -> None:
        self.inner = inner
        self.name = inner.name
        self._cache = cache
        self._ttl_s = ttl_s
        self._endpoint = endpoint  # part of the key: one instance never answers for another

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        key = search_key(self.name, self._endpoint, query, max_results)
        cached = await self._cache.aget("search", key, self._ttl_s)
        if cached is not None:
            return [SearchResult.model_validate(item) for item in cached]
        results = await self.inner.search(query, max_results)
        await self._cache.aput("search", key, [result.model_dump() for result in results])
        return results
