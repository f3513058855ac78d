"""Search providers behind one protocol, and the choice of provider for a configuration."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import httpx

from research_studio.core.config import Configuration, SearchProviderName
from research_studio.core.errors import ConfigError
from research_studio.core.timerange import time_range
from research_studio.sources.search.base import CachedSearch, SearchProvider, SearchResult

__all__ = [
    "CachedSearch",
    "SearchChoice",
    "SearchProvider",
    "SearchResult",
    "build_search_provider",
    "choose_search_provider",
    "search_endpoint",
]


@dataclass(frozen=True)
class SearchChoice:
    """The provider a configuration resolves to, and why."""

    name: SearchProviderName
    reason: str


def choose_search_provider(config: Configuration) -> SearchChoice:
    """Explicit choice, else local docs, else an MCP search tool, else a Tavily key, else a
    SearXNG URL, else DuckDuckGo."""
    if config.search:
        return SearchChoice(config.search, "chosen explicitly")
    if config.docs:
        return SearchChoice("local", "local documents were given")
    if config.mcp_search_tool:
        return SearchChoice("mcp", f"an MCP search tool is named ({config.mcp_search_tool})")
    if config.secret("tavily_api_key"):
        return SearchChoice("tavily", "a Tavily API key is set")
    if config.searxng_url:
        return SearchChoice("searxng", "a SearXNG URL is set")
    return SearchChoice("duckduckgo", "no key or endpoint is configured; DuckDuckGo needs none")


def search_endpoint(name: SearchProviderName, config: Configuration) -> str:
    """The URL a provider talks to ("" when it has no configurable one); secrets are not masked."""
    if name == "searxng":
        return config.searxng_url or ""
    if name == "tavily":
        return config.tavily_base_url
    return ""


def build_search_provider(
    name: SearchProviderName, config: Configuration, client: httpx.AsyncClient
) -> SearchProvider:
    """The provider `name`, configured from `config`, using `client` for HTTP."""
    retries, base_delay_s = config.search_retries, config.retry_base_delay_s
    window = time_range(config.since, config.until)
    if name == "searxng":
        from research_studio.sources.search.searxng import SearxngSearch

        if not config.searxng_url:
            raise ConfigError("searxng needs a base URL: set SEARXNG_URL or --searxng-url")
        return SearxngSearch(
            client,
            config.searxng_url,
            retries=retries,
            base_delay_s=base_delay_s,
            time_range=window.searxng(dt.date.today()) if window else None,
        )
    if name == "tavily":
        from research_studio.sources.search.tavily import TavilySearch

        client.base_url = httpx.URL(config.tavily_base_url.rstrip("/") + "/")
        return TavilySearch(
            client,
            config.secret("tavily_api_key"),
            retries=retries,
            base_delay_s=base_delay_s,
            timeout_s=config.search_timeout_s,
            start_date=str(window.since) if window and window.since else None,
            end_date=str(window.until) if window and window.until else None,
        )
    if name == "duckduckgo":
        from research_studio.sources.search.duckduckgo import DuckDuckGoSearch

        return DuckDuckGoSearch(
            retries=retries, base_delay_s=base_delay_s, timeout_s=config.search_timeout_s
        )
    needs = "the run's MCP sessions" if name == "mcp" else "the document index"
    raise ConfigError(f"search provider {name!r} needs {needs}; use Services")
