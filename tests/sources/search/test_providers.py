"""Search providers against the local web: normalization, retries, typed failures, caching."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from research_studio.core.config import Configuration
from research_studio.core.errors import ConfigError, SearchError
from research_studio.services.clients import open_services
from research_studio.sources.search import SearchResult, choose_search_provider
from research_studio.sources.search.duckduckgo import DuckDuckGoSearch
from tests.doubles.fake_web import FakeWeb, Fault

QUERY = "solid-state battery electrolyte"


async def search_with(
    config: Configuration, query: str = QUERY, limit: int = 5
) -> list[SearchResult]:
    async with open_services(config) as services:
        return await services.search.search(query, limit)


@pytest.mark.parametrize("provider", ["searxng", "tavily"])
async def test_results_are_normalized(
    provider: str, web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    results = await search_with(make_config(search=provider))
    assert results and len(results) <= 5
    top = results[0]
    assert top.provider == provider
    assert top.url == web.page("solid-state-electrolytes-explained").url
    assert "Electrolytes" in top.title and top.snippet
    assert top.published
    if provider == "tavily":
        assert top.content and "sulfide" in top.content.lower()
        assert web.requests_to("/tavily/search")[0].headers["authorization"] == "Bearer tvly-test"


async def test_tavily_extract(web: FakeWeb, make_config: Callable[..., Configuration]) -> None:
    from research_studio.sources.http_client import build_http_client
    from research_studio.sources.search import build_search_provider
    from research_studio.sources.search.tavily import TavilySearch

    config = make_config()
    async with build_http_client(config, timeout_s=2) as client:
        provider = build_search_provider("tavily", config, client)
        assert isinstance(provider, TavilySearch)
        page = web.page("coral-bleaching-causes")
        texts = await provider.extract([page.url, "https://elsewhere.invalid/x"])
    assert list(texts) == [page.url]
    assert "bleaching" in texts[page.url].lower()


@pytest.mark.parametrize(
    ("provider", "path"), [("searxng", "/search"), ("tavily", "/tavily/search")]
)
@pytest.mark.parametrize("status", [429, 503])
async def test_transient_failures_are_retried(
    provider: str, path: str, status: int, web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.set_fault(path, Fault("status", status=status, times=2))
    results = await search_with(make_config(search=provider, search_retries=3))
    assert results
    assert len(web.requests_to(path)) == 3


@pytest.mark.parametrize(
    ("provider", "path"), [("searxng", "/search"), ("tavily", "/tavily/search")]
)
async def test_persistent_rate_limit_becomes_a_typed_error(
    provider: str, path: str, web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.set_fault(path, Fault("status", status=429))
    with pytest.raises(SearchError) as caught:
        await search_with(make_config(search=provider, search_retries=2))
    assert caught.value.kind == "rate_limited"
    assert "after 3 attempts" in str(caught.value)
    assert len(web.requests_to(path)) == 3


async def test_timeout_becomes_a_typed_error(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.set_fault("/search", Fault("timeout", delay_s=1.0))
    with pytest.raises(SearchError) as caught:
        await search_with(make_config(search_timeout_s=0.2, search_retries=1))
    assert caught.value.kind == "timeout"


async def test_garbage_answer_is_a_bad_response(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.set_fault("/search", Fault("binary"))
    with pytest.raises(SearchError) as caught:
        await search_with(make_config(search_retries=0))
    assert caught.value.kind == "bad_response"


async def test_second_identical_search_is_served_from_cache(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    config = make_config()
    first = await search_with(config, "Solid-State  battery electrolyte")
    second = await search_with(config, "solid-state battery ELECTROLYTE ")
    assert first == second
    assert len(web.requests_to("/search")) == 1
    await search_with(make_config(use_cache=False))
    assert len(web.requests_to("/search")) == 2


@pytest.mark.parametrize(("provider", "path"), [("searxng", "/search"), ("tavily", "/tavily")])
async def test_a_private_search_endpoint_needs_no_switch(
    provider: str, path: str, web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    """The configured endpoint (here on 127.0.0.1) is the search client's scoped exception."""
    results = await search_with(make_config(search=provider, allow_private_networks=False))
    assert results and len(web.requests_to(path)) == 1


async def test_tavily_without_key_is_a_config_error(
    make_config: Callable[..., Configuration],
) -> None:
    with pytest.raises(ConfigError, match="TAVILY_API_KEY"):
        await search_with(make_config(search="tavily", tavily_api_key=None))


class FakeDDGS:
    """Stands in for ddgs.DDGS, which only talks to the public engines over TLS."""

    def __init__(self, outcomes: list[Any]) -> None:
        self.outcomes = outcomes
        self.calls = 0

    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        self.calls += 1
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome[: kwargs["max_results"]]


async def test_duckduckgo_adapter_normalizes_and_retries() -> None:
    from ddgs.exceptions import DDGSException, RatelimitException

    rows = [
        {"title": f"T{i}", "href": f"https://site.example/{i}", "body": f"B{i}"} for i in range(4)
    ]
    fake = FakeDDGS([RatelimitException("slow down"), rows])
    provider = DuckDuckGoSearch(
        retries=2, base_delay_s=0.001, timeout_s=1, searcher_factory=lambda _t: fake
    )
    results = await provider.search("q", 3)
    assert [r.url for r in results] == [
        "https://site.example/0",
        "https://site.example/1",
        "https://site.example/2",
    ]
    assert results[0].score > results[2].score and results[0].provider == "duckduckgo"
    assert fake.calls == 2

    empty = DuckDuckGoSearch(
        retries=0,
        base_delay_s=0,
        timeout_s=1,
        searcher_factory=lambda _t: FakeDDGS([DDGSException("No results found.")]),
    )
    assert await empty.search("q", 3) == []
    limited = DuckDuckGoSearch(
        retries=1,
        base_delay_s=0.001,
        timeout_s=1,
        searcher_factory=lambda _t: FakeDDGS([RatelimitException("x"), RatelimitException("x")]),
    )
    with pytest.raises(SearchError) as caught:
        await limited.search("q", 3)
    assert caught.value.kind == "rate_limited"


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({"search": "searxng", "searxng_url": "http://s"}, "searxng"),
        ({"docs": ["/tmp"]}, "local"),
        ({"tavily_api_key": "k"}, "tavily"),
        ({"searxng_url": "http://s"}, "searxng"),
        ({}, "duckduckgo"),
    ],
)
def test_provider_choice(settings: dict[str, Any], expected: str) -> None:
    choice = choose_search_provider(Configuration(**settings))
    assert choice.name == expected and choice.reason
