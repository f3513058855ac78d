"""Page fetching and content extraction (HTML, PDF, plain text, Markdown), bounded and guarded."""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

import httpx
from pydantic import BaseModel

from research_studio.core.errors import FetchError, ParseError
from research_studio.core.urls import is_web_url
from research_studio.sources.cache import Cache, page_key
from research_studio.sources.http_client import (
    BlockedAddressError,
    PrivateNetworkPolicy,
    track_private_hosts,
)
from research_studio.sources.parser_pool import ParserPool
from research_studio.sources.parsing import ContentKind
from research_studio.sources.parsing import (
    extract_html as extract_html,  # re-exported for the index
)
from research_studio.sources.parsing import extract_pdf as extract_pdf

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES: dict[str, ContentKind] = {
    "text/plain": "text",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
}
SNIFFED_TYPES = frozenset({"", "application/octet-stream", "binary/octet-stream"})
KIND_LABELS: dict[ContentKind, str] = {
    "html": "HTML",
    "pdf": "PDF",
    "text": "text",
    "markdown": "Markdown",
}


class Page(BaseModel):
    """The readable text of a fetched document."""

    url: str
    final_url: str
    title: str = ""
    text: str
    kind: ContentKind
    published: str | None = None


class Fetcher(Protocol):
    """Anything that turns a URL into a Page, raising FetchError on failure."""

    async def fetch(self, url: str) -> Page: ...


def _sniff(body: bytes) -> ContentKind | None:
    head = body[:512].lstrip().lower()
    if head.startswith(b"%pdf-"):
        return "pdf"
    if head.startswith((b"<!doctype html", b"<html")):
        return "html"
    return None


def _looks_binary(body: bytes) -> bool:
    return b"\x00" in body[:8192]


def _status_error(url: str, status: int) -> FetchError:
    if status in (404, 410):
        return FetchError(url, f"not found (HTTP {status})", kind="not_found")
    if status == 429:
        return FetchError(url, "rate limited (HTTP 429)", kind="rate_limited")
    if status in (401, 402, 403):
        return FetchError(
            url, f"access denied, likely a paywall or login (HTTP {status})", kind="paywall"
        )
    if status >= 500:
        return FetchError(url, f"server error (HTTP {status})", kind="server_error")
    return FetchError(url, f"HTTP {status}", kind="bad_response")


def _check_parses(url: str) -> None:
    """Refuse a URL the HTTP client cannot parse (octal or zero-padded IPv4, full-width digits,
    circled letters, a bad port): one lost page, never an exception that ends the run."""
    try:
        httpx.URL(url)
    except (httpx.InvalidURL, ValueError) as exc:
        raise FetchError(url, f"malformed URL ({exc})", kind="refused") from exc


class PageFetcher:
    """Fetches with a size cap, a total deadline and a concurrency bound; parses in worker processes."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        parser: ParserPool,
        deadline_s: float,
        max_bytes: int,
        max_concurrency: int,
    ) -> None:
        self._client = client
        self._parser = parser
        self._deadline_s = deadline_s
        self._max_bytes = max_bytes
        self._semaphore = asyncio.Semaphore(max_concurrency)

    async def _download(self, url: str) -> tuple[str, str, bytes, str | None]:
        async with self._client.stream("GET", url) as response:
            if response.status_code >= 400:
                raise _status_error(url, response.status_code)
            declared = response.headers.get("Content-Length")
            if declared and declared.isdigit() and int(declared) > self._max_bytes:
                raise FetchError(
                    url, f"body of {int(declared)} bytes exceeds the limit", kind="too_large"
                )
            buffer = bytearray()
            async for piece in response.aiter_bytes():
                buffer.extend(piece)
                if len(buffer) > self._max_bytes:
                    raise FetchError(url, f"body exceeds {self._max_bytes} bytes", kind="too_large")
            content_type = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
            return str(response.url), content_type, bytes(buffer), response.charset_encoding

    async def _get(self, url: str) -> tuple[str, str, bytes, str | None]:
        try:
            # The client's timeout bounds each read; this bounds connect + headers + whole body,
            # so a server that drips a byte at a time cannot hold a fetch for long.
            async with asyncio.timeout(self._deadline_s):
                return await self._download(url)
        except TimeoutError as exc:
            raise FetchError(
                url,
                f"no complete answer within the {self._deadline_s:g} s deadline",
                kind="timeout",
            ) from exc
        except BlockedAddressError as exc:
            raise FetchError(url, str(exc), kind="refused") from exc
        except httpx.TooManyRedirects as exc:
            raise FetchError(url, "too many redirects", kind="refused") from exc
        except httpx.TimeoutException as exc:
            raise FetchError(url, "timed out", kind="timeout") from exc
        except (httpx.InvalidURL, UnicodeError) as exc:  # not HTTPErrors (a bad redirect target)
            raise FetchError(url, f"malformed URL ({exc})", kind="refused") from exc
        except httpx.HTTPError as exc:
            raise FetchError(
                url, f"network error ({type(exc).__name__}: {exc})", kind="network"
            ) from exc

    async def fetch(self, url: str) -> Page:
        if not is_web_url(url):
            raise FetchError(url, "only absolute http(s) URLs can be fetched", kind="refused")
        _check_parses(url)
        async with self._semaphore:
            final_url, content_type, body, charset = await self._get(url)
        return await self._parse(url, final_url, content_type, body, charset)

    async def _parse(
        self, url: str, final_url: str, content_type: str, body: bytes, charset: str | None
    ) -> Page:
        kind: ContentKind | None
        if content_type in HTML_TYPES:
            kind = "html"
        elif content_type == "application/pdf":
            kind = "pdf"
        elif content_type in TEXT_TYPES:
            kind = TEXT_TYPES[content_type]
        elif content_type in SNIFFED_TYPES:
            kind = _sniff(body)
        else:
            kind = None
        if kind is None:
            raise FetchError(
                url, f"unsupported content type {content_type or 'unknown'!r}", kind="unsupported"
            )
        if kind != "pdf" and _looks_binary(body):
            raise FetchError(url, f"binary data labelled {content_type!r}", kind="unsupported")

        try:
            title, text, published = await self._parser.parse(kind, body, charset)
        except ParseError as exc:  # HTML, PDF and text fail alike, whatever the library raised
            raise FetchError(
                url, f"unreadable {KIND_LABELS[kind]} ({exc.reason})", kind=exc.kind
            ) from exc
        if not text.strip():
            raise FetchError(url, "no readable text in the document", kind="bad_response")
        return Page(
            url=url, final_url=final_url, title=title, text=text, kind=kind, published=published
        )


class RoutingFetcher:
    """file:// URLs go to the local documents fetcher (when there is one), everything else to the web."""

    def __init__(self, web: Fetcher, local: Fetcher | None) -> None:
        self._web = web
        self._local = local

    async def fetch(self, url: str) -> Page:
        if url.strip().lower().startswith("file:"):
            if self._local is None:
                raise FetchError(
                    url, "local files are only read from the document index", kind="refused"
                )
            return await self._local.fetch(url)
        return await self._web.fetch(url)


class CachedFetcher:
    """Serves pages fetched before from the cache; failures are never cached.

    An entry records the hosts it reached at private addresses; only a run whose private-network
    exception covers them all is served it (`private`, by default no exception).
    """

    def __init__(
        self,
        inner: Fetcher,
        cache: Cache,
        ttl_s: float,
        *,
        private: PrivateNetworkPolicy | None = None,
    ) -> None:
        self._inner = inner
        self._cache = cache
        self._ttl_s = ttl_s
        self._private = private or PrivateNetworkPolicy()

    def _may_serve(self, entry: dict[str, Any]) -> bool:
        if "page" not in entry:  # an entry from before private hosts were recorded
            return False
        hosts = entry.get("private_hosts")
        return isinstance(hosts, list) and all(
            self._private.allows(host, port) for host, port in hosts
        )

    async def fetch(self, url: str) -> Page:
        key = page_key(url)
        cached = await self._cache.aget("page", key, self._ttl_s)
        if isinstance(cached, dict) and self._may_serve(cached):
            return Page.model_validate(cached["page"])
        with track_private_hosts() as private_hosts:
            page = await self._inner.fetch(url)
        entry = {"page": page.model_dump(), "private_hosts": sorted(private_hosts)}
        await self._cache.aput("page", key, entry)
        return page
