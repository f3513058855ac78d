"""Fetching: content types, limits, typed failures, the SSRF guard (also across redirects), cache."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from research_studio.core.config import Configuration
from research_studio.core.errors import FetchError
from research_studio.services.clients import open_services
from research_studio.sources.fetch import Page, PageFetcher
from research_studio.sources.http_client import GuardedTransport, is_public_address
from research_studio.sources.parser_pool import ParserPool
from tests.doubles.fake_web import FakeWeb, Fault


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
    parser = ParserPool(workers=1, timeout_s=5.0, max_memory_mb=256)
    async with httpx.AsyncClient(transport=transport, follow_redirects=True) as client:
        fetcher = PageFetcher(
            client, parser=parser, deadline_s=5.0, max_bytes=1_000_000, max_concurrency=2
        )
        with pytest.raises(FetchError) as caught:
            await fetcher.fetch(web.url(f"/redirect?to={target}"))
    await parser.aclose()
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


# --- bounds: total deadline, parser time, memory and crashes ------------------------------


async def test_a_dripping_page_is_cut_at_the_total_deadline(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    """A byte every 0.2 s never trips a 1 s read timeout; the whole fetch is still bounded."""
    started = time.monotonic()
    error = await fetch_error(make_config(fetch_timeout_s=1.0), web.url("/drip?every=0.2"))
    assert time.monotonic() - started < 3.0  # the drip alone would take about 30 s
    assert error.kind == "timeout" and "within the 1 s deadline" in str(error)


HUGE = 25_000_000  # accepts the fake web's 20 MB page, which takes many seconds and 600 MB to parse


async def test_a_page_over_the_parse_time_bound_fails_and_the_next_fetch_works(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    config = make_config(parse_timeout_s=1.0, max_page_bytes=HUGE, fetch_timeout_s=10.0)
    async with open_services(config) as services:
        with pytest.raises(FetchError) as caught:
            await services.fetcher.fetch(web.url("/huge-declared"))
        page = await services.fetcher.fetch(web.page("coral-bleaching-causes").url)
    assert caught.value.kind == "timeout"
    assert "unreadable HTML (parsing took longer than 1 s)" in str(caught.value)
    assert page.title == web.page("coral-bleaching-causes").title


async def test_a_page_over_the_memory_bound_fails_and_the_next_fetch_works(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    config = make_config(parse_max_memory_mb=32, max_page_bytes=HUGE, fetch_timeout_s=10.0)
    async with open_services(config) as services:
        with pytest.raises(FetchError) as caught:
            await services.fetcher.fetch(web.url("/huge-declared"))
        page = await services.fetcher.fetch(web.page("coral-bleaching-causes").url)
    assert caught.value.kind == "too_large" and "more than 32 MB" in str(caught.value)
    assert page.kind == "html"


async def test_a_parser_crash_fails_that_fetch_only(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    """A native crash (here SIGABRT, as lxml's double free) is a failed fetch; the run goes on."""
    pages = [web.page(slug) for slug in ("coral-bleaching-causes", "python-313-release")]
    config = make_config(max_page_bytes=HUGE, fetch_timeout_s=10.0, use_cache=False)
    async with open_services(config) as services:
        doomed = asyncio.create_task(services.fetcher.fetch(web.url("/huge-declared")))
        for _ in range(500):
            if busy := services.parser.pids(parsing=True):
                break
            await asyncio.sleep(0.01)
        os.kill(busy[0], signal.SIGABRT)
        others = await asyncio.gather(*(services.fetcher.fetch(page.url) for page in pages))
        with pytest.raises(FetchError) as caught:
            await doomed
    assert caught.value.kind == "bad_response"
    assert "parser process died (killed by SIGABRT)" in str(caught.value)
    assert [page.title for page in others] == [page.title for page in pages]


async def test_many_pages_parse_concurrently(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    html = [page for page in web.pages if page.path.startswith("/pages/")]
    async with open_services(make_config(use_cache=False)) as services:
        fetched = await asyncio.gather(*(services.fetcher.fetch(page.url) for page in html * 2))
        assert len(services.parser.pids()) <= 2
    assert len(html) >= 6
    assert [page.title for page in fetched] == [page.title for page in html * 2]


@pytest.mark.parametrize(
    ("route", "settings", "reason"),
    [
        ("/broken.pdf", {}, "unreadable PDF (Pdf"),
        ("/huge-declared", {"parse_timeout_s": 0.5, "max_page_bytes": HUGE}, "unreadable HTML ("),
    ],
)
async def test_pdf_and_html_failures_are_alike(
    route: str,
    settings: dict[str, float],
    reason: str,
    web: FakeWeb,
    make_config: Callable[..., Configuration],
) -> None:
    error = await fetch_error(make_config(fetch_timeout_s=10.0, **settings), web.url(route))
    assert type(error) is FetchError and error.kind in ("bad_response", "timeout")
    assert reason in str(error)


async def test_text_in_an_unknown_charset_is_read_as_utf8(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    page = await fetch(make_config(), web.url("/odd-charset"))
    assert page.kind == "text" and page.text == "Café au lait."


@pytest.mark.e2e
def test_cli_fetch_of_a_dripping_page_ends_with_one_line(web: FakeWeb, tmp_path: Path) -> None:
    executable = shutil.which("research-studio") or str(
        Path(sys.executable).parent / "research-studio"
    )
    started = time.monotonic()
    completed = subprocess.run(
        [executable, "fetch", web.url("/drip?every=0.5"), "--allow-private-networks", "--no-cache"],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
        env={**os.environ, "RESEARCH_STUDIO_FETCH_TIMEOUT_S": "2", "COLUMNS": "400"},
    )
    assert time.monotonic() - started < 40  # the drip alone takes about 70 s
    assert completed.returncode == 2 and completed.stdout == ""
    lines = [line for line in completed.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in completed.stderr
    assert lines[0].startswith("error: cannot fetch ") and "within the 2 s deadline" in lines[0]
