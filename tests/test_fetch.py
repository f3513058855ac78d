"""Fetching: content types, limits, typed failures, the SSRF guard (also across redirects), cache."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote

import httpx
import pytest

from research_studio.config import Configuration
from research_studio.errors import FetchError
from research_studio.fetch import Page, PageFetcher
from research_studio.http_client import GuardedTransport, is_public_address
from research_studio.services import open_services
from research_studio.testing.fake_web import FakeWeb, Fault


async def fetch(config: Configuration, url: str) -> Page:
    async with open_services(config) as services:
        return await services.fetcher.fetch(url)


async def fetch_error(config: Configuration, url: str) -> FetchError:
    with pytest.raises(FetchError) as caught:
        await fetch(config, url)
    return caught.value


async def test_html_main_text_without_boilerplate(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    page = web.page("lithium-dendrites-solid-state")
    fetched = await fetch(make_config(), page.url)
    assert fetched.kind == "html"
    assert fetched.title == page.title
    assert page.paragraphs[1][:60] in fetched.text
    assert "cookie" not in fetched.text.lower()


async def test_pdf_text_is_extracted(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    page = web.page("solid-state-manufacturing-cost")
    fetched = await fetch(make_config(), page.url)
    assert fetched.kind == "pdf"
    words = page.paragraphs[1].split()[:6]
    assert " ".join(words) in " ".join(fetched.text.split())


@pytest.mark.parametrize(
    ("slug", "kind"),
    [("solid-state-battery-news-digest", "text"), ("coral-reef-recovery", "markdown")],
)
async def test_text_and_markdown_as_is(
    slug: str, kind: str, web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    page = web.page(slug)
    fetched = await fetch(make_config(), page.url)
    assert fetched.kind == kind
    assert fetched.text.strip() == page.source.strip()


@pytest.mark.parametrize(
    ("path", "kind", "reason"),
    [
        ("/binary", "unsupported", "application/octet-stream"),
        ("/image.png", "unsupported", "image/png"),
        ("/mislabeled-binary", "unsupported", "binary data"),
        ("/huge", "too_large", "exceeds"),
        ("/huge-declared", "too_large", "exceeds"),
        ("/notfound", "not_found", "404"),
        ("/status/403", "paywall", "paywall"),
        ("/status/500", "server_error", "500"),
        ("/redirect-chain/9", "refused", "too many redirects"),
    ],
)
async def test_refusals_have_kinds_and_reasons(
    path: str, kind: str, reason: str, web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    error = await fetch_error(make_config(max_page_bytes=1_000_000), web.url(path))
    assert error.kind == kind
    assert reason in str(error)


async def test_timeout_and_rate_limit(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    page = web.page("coral-bleaching-causes")
    web.set_fault(page.path, Fault("timeout", delay_s=1.0, times=1))
    assert (await fetch_error(make_config(fetch_timeout_s=0.2), page.url)).kind == "timeout"
    web.set_fault(page.path, Fault("status", status=429, times=1))
    assert (await fetch_error(make_config(use_cache=False), page.url)).kind == "rate_limited"


async def test_redirects_are_followed_within_the_limit(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    fetched = await fetch(make_config(), web.url("/redirect-chain/3"))
    assert fetched.final_url == web.pages[0].url
    assert fetched.url.endswith("/redirect-chain/3")


async def test_only_http_urls(make_config: Callable[..., Configuration]) -> None:
    for url in ("file:///etc/passwd", "ftp://example.com/x", "javascript:alert(1)", "not a url"):
        assert (await fetch_error(make_config(), url)).kind == "refused"


async def test_private_addresses_are_refused_by_default(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    config = make_config(allow_private_networks=False)
    for url in (
        web.url("/pages/x.html"),
        "http://localhost/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://10.0.0.1/",
    ):
        error = await fetch_error(config, url)
        assert error.kind == "refused" and "non-public" in str(error)
    assert web.requests == []


async def test_guard_applies_after_a_redirect(web: FakeWeb) -> None:
    """A public start that redirects inward is stopped at the inward hop, before it is sent."""

    class FirstHopPublic(GuardedTransport):
        async def _check(self, request: httpx.Request) -> None:
            if request.url.path != "/redirect":  # the fake web plays a public site on hop one
                await super()._check(request)

    target = quote(web.url("/pages/internal.html"), safe="")
    transport = FirstHopPublic(httpx.AsyncHTTPTransport(), allow_private=False)
    async with httpx.AsyncClient(transport=transport, follow_redirects=True) as client:
        fetcher = PageFetcher(client, max_bytes=1_000_000, max_concurrency=2)
        with pytest.raises(FetchError) as caught:
            await fetcher.fetch(web.url(f"/redirect?to={target}"))
    assert caught.value.kind == "refused"
    assert [request.path for request in web.requests] == ["/redirect"]


def test_address_classes() -> None:
    assert is_public_address("93.184.216.34")
    for private in (
        "127.0.0.1",
        "10.1.2.3",
        "192.168.1.1",
        "172.16.0.1",
        "169.254.169.254",
        "::1",
        "fe80::1",
        "::ffff:127.0.0.1",
        "0.0.0.0",
        "100.64.0.1",
    ):
        assert not is_public_address(private), private


async def test_second_fetch_of_a_page_comes_from_cache(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    page = web.page("coral-bleaching-causes")
    config = make_config()
    first = await fetch(config, page.url + "#section")
    second = await fetch(config, page.url.replace("http://", "HTTP://") + "?utm_source=news")
    assert first.text == second.text
    assert len(web.requests_to(page.path)) == 1
    await fetch(make_config(use_cache=False), page.url)
    assert len(web.requests_to(page.path)) == 2
