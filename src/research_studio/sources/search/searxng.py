"""SearXNG JSON API provider (self-hosted metasearch)."""

from __future__ import annotations

from functools import partial

import httpx

from research_studio.core.errors import SearchError
from research_studio.sources.search.base import (
    Retries,
    SearchResult,
    check_response,
    classify_transport_error,
    web_hits,
)

# Each result field and the key of the provider's JSON that holds it.
SEARXNG_KEYS = {
    "url": "url",
    "title": "title",
    "snippet": "content",
    "score": "score",
    "published": "publishedDate",
}


class SearxngSearch:
    """Queries `<base>/search?format=json`; results' `content` is the engine snippet."""

    name = "searxng"

    def __init__(
        self,
        client: httpx.AsyncClient,
        base_url: str,
        *,
        retries: int,
        base_delay_s: float,
        time_range: str | None = None,
    ) -> None:
        self._client = client
        self._endpoint = base_url.rstrip("/") + "/search"
        self._retries = Retries(retries, base_delay_s)
        self._time_range = time_range  # day, week, month or year: SearXNG's own filter

    async def _once(self, query: str) -> dict:
        try:
            params: dict[str, str | int] = {"q": query, "format": "json", "pageno": 1}
            if self._time_range:
                params["time_range"] = self._time_range
            response = await self._client.get(self._endpoint, params=params)
        except httpx.HTTPError as exc:
            transient = classify_transport_error(exc)
            if transient is None:
                raise SearchError(self.name, query, str(exc), kind="refused") from exc
            raise transient from exc
        check_response(response, self.name, query)
        try:
            payload = response.json()
        except ValueError as exc:  # JSONDecodeError, or UnicodeDecodeError on binary bodies
            raise SearchError(self.name, query, "answer is not JSON", kind="bad_response") from exc
        if not isinstance(payload, dict) or not isinstance(payload.get("results"), list):
            raise SearchError(self.name, query, "answer has no results list", kind="bad_response")
        return payload

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        payload = await self._retries.run(self.name, query, partial(self._once, query))
        return web_hits(self.name, payload["results"], SEARXNG_KEYS, max_results)
