"""The SQLite cache: TTL, replacement, concurrent use, keys by endpoint, private pages kept apart."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from research_studio.core.config import Configuration
from research_studio.core.errors import FetchError, SearchError
from research_studio.services.clients import open_services
from research_studio.sources.cache import Cache, page_key, search_key
from tests.doubles.fake_web import FakeWeb


def test_round_trip_and_ttl(tmp_path: Path) -> None:
    cache = Cache.in_dir(tmp_path)
    cache.put("search", "k", {"a": [1, 2]})
    assert cache.get("search", "k", ttl_s=60) == {"a": [1, 2]}
    assert cache.get("page", "k", ttl_s=60) is None
    time.sleep(0.02)
    assert cache.get("search", "k", ttl_s=0.01) is None
    assert cache.purge("search", older_than_s=0.01) == 1


def test_keys_are_normalized() -> None:
    tavily = "https://api.tavily.com"
    assert search_key("tavily", tavily, "  Solid  State ", 5) == search_key(
        "tavily", tavily + "/", "solid state", 5
    )
    assert search_key("tavily", tavily, "q", 5) != search_key("searxng", tavily, "q", 5)
    assert page_key("HTTP://A.org/x#top") == page_key("http://a.org/x")


def test_search_key_names_the_endpoint_without_its_secrets() -> None:
    first = search_key("searxng", "https://alice:hunter2@searx.one/?token=abc", "q", 5)
    assert first != search_key("searxng", "https://searx.two/", "q", 5)
    assert "hunter2" not in first and "abc" not in first and "searx.one" in first


async def test_another_endpoints_cached_results_are_not_served(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    """A run against an unreachable SearXNG fails instead of reading another instance's results."""
    async with open_services(make_config()) as services:
        assert await services.search.search("coral bleaching", 3)
    unreachable = make_config(searxng_url="http://127.0.0.1:9", search_retries=0)
    async with open_services(unreachable) as services:
        with pytest.raises(SearchError):
            await services.search.search("coral bleaching", 3)
    async with open_services(make_config()) as services:  # the first instance still hits
        assert await services.search.search("coral bleaching", 3)
    assert len(web.requests_to("/search")) == 1


async def test_a_page_cached_under_the_private_exception_needs_it(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    page = web.pages[0]
    async with open_services(make_config(allow_private_networks=True)) as services:
        await services.fetcher.fetch(page.url)
    assert len(web.requests) == 1
    async with open_services(make_config(allow_private_networks=False)) as services:
        with pytest.raises(FetchError) as caught:
            await services.fetcher.fetch(page.url)
    assert caught.value.kind == "refused" and len(web.requests) == 1
    scoped = make_config(allow_private_networks=False, private_network_hosts=["127.0.0.1"])
    async with open_services(scoped) as services:  # an exception covering the host: served
        assert (await services.fetcher.fetch(page.url)).url == page.url
    assert len(web.requests) == 1


async def test_an_entry_without_its_private_hosts_is_refetched(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    """Entries written before private hosts were recorded are not trusted."""
    config = make_config()
    page = web.pages[0]
    legacy = {"url": page.url, "final_url": page.url, "text": "stale", "kind": "text"}
    Cache.in_dir(config.cache_dir).put("page", page_key(page.url), legacy)
    async with open_services(config) as services:
        fetched = await services.fetcher.fetch(page.url)
    assert fetched.text != "stale" and len(web.requests) == 1


def test_concurrent_writers_across_connections(tmp_path: Path) -> None:
    first, second = Cache.in_dir(tmp_path), Cache.in_dir(tmp_path)

    def write(cache: Cache, prefix: str) -> None:
        for index in range(50):
            cache.put("page", f"{prefix}{index}", index)

    threads = [
        threading.Thread(target=write, args=(c, p))
        for c, p in ((first, "a"), (second, "b"), (first, "c"))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(first.get("page", f"{p}{i}", 60) == i for p in "abc" for i in range(50))


def test_first_openings_of_one_file_race_without_locking_errors(tmp_path: Path) -> None:
    """Connections that set up a new file together wait for each other, never "database is locked"."""
    errors: list[BaseException] = []

    def write(cache: Cache, prefix: str) -> None:
        try:
            for index in range(5):
                cache.put("page", f"{prefix}{index}", index)
        except BaseException as error:
            errors.append(error)

    for round_ in range(60):
        folder = tmp_path / str(round_)
        caches = [Cache.in_dir(folder) for _ in range(3)]
        threads = [
            threading.Thread(target=write, args=(cache, str(n))) for n, cache in enumerate(caches)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for cache in caches:
            cache.close()
    assert errors == []
