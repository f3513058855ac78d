"""The run-scoped services nodes use: search, fetching, cache and model callers."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
from langchain_core.language_models import BaseChatModel

from research_studio.core.config import Configuration
from research_studio.core.config_loading import load_configuration
from research_studio.core.errors import ConfigError
from research_studio.core.timerange import TimeRange, time_range
from research_studio.llm.budget import Budget
from research_studio.llm.embeddings import hybrid_encoder
from research_studio.llm.models import ModelTier, create_chat_model, model_spec_for
from research_studio.llm.structured import CallPolicy, MethodMemory, ModelCaller
from research_studio.services.claims import PageShares
from research_studio.services.extraction import ExtractionStrategy, choose_extraction
from research_studio.sources.archive import PageArchive
from research_studio.sources.cache import Cache
from research_studio.sources.docindex import DocumentIndex
from research_studio.sources.fetch import CachedFetcher, Fetcher, PageFetcher, RoutingFetcher
from research_studio.sources.http_client import (
    PrivateNetworkPolicy,
    build_http_client,
    shared_ssl_context,
)
from research_studio.sources.parser_pool import ParserPool
from research_studio.sources.search import (
    CachedSearch,
    SearchChoice,
    SearchProvider,
    SearchResult,
    build_search_provider,
    choose_search_provider,
    search_endpoint,
)
from research_studio.sources.search.base import DeadlineSearch
from research_studio.sources.search.dated import DatedSearch
from research_studio.sources.search.local import shared_index

if TYPE_CHECKING:
    from research_studio.sources.mcp_sources import McpSources


class Services:
    """Shared, lazily built clients for one configuration; close with `aclose`."""

    def __init__(
        self, config: Configuration, *, archive_path: Path | None = None, lasting: bool = False
    ) -> None:
        """`lasting`: kept by a server across calls (MCP `search`), so the documents folders are
        checked again once per `index_recheck_s`, where a run's are checked once."""
        self.config = config
        self._lasting = lasting
        self.archive = PageArchive(archive_path)
        self.cache: Cache | None = Cache.in_dir(config.cache_dir) if config.use_cache else None
        self._clients: list[httpx.AsyncClient] = []
        self._search: SearchProvider | None = None
        self._index: DocumentIndex | None = None
        self._fetcher: Fetcher | None = None
        self._parser: ParserPool | None = None
        self._models: dict[str, BaseChatModel] = {}
        self._llm_limiter = asyncio.Semaphore(config.max_concurrent_llm_calls)
        self._search_limiter = asyncio.Semaphore(config.max_concurrent_searches)
        self._methods = MethodMemory()
        self._claimed_urls: set[str] = set()
        self.page_shares: PageShares[list[list[SearchResult]]] = PageShares()
        self._resolved: Configuration | None = None
        self._extraction: ExtractionStrategy | None = None
        self._mcp: McpSources | None = None
        self.budget = Budget.of(config)
        # Which execution of the run this is: 1, then one more per resume (the runner sets it).
        self.attempt = 1
        self.search_choice: SearchChoice = choose_search_provider(config)

    def _client(self, timeout_s: float, private_endpoint: str | None = None) -> httpx.AsyncClient:
        client = build_http_client(
            self.config, timeout_s=timeout_s, private_endpoint=private_endpoint
        )
        self._clients.append(client)
        return client

    @property
    def index(self) -> DocumentIndex:
        """The local document index (in the cache folder, used even with the cache off)."""
        if self._index is None:
            # One per process, kept open across runs; it touches the disk on first use, in a
            # worker thread.
            self._index = shared_index(
                self.config.cache_dir,
                chunk_size=self.config.index_chunk_size,
                max_bytes=self.config.max_document_bytes,
                encoder=lambda: hybrid_encoder(self.config),
            )
        return self._index

    @property
    def search(self) -> SearchProvider:
        """The configured search provider (web providers cached when the cache is on)."""
        if self._search is None:
            if self.search_choice.name == "local":
                from research_studio.sources.search.local import LocalSearch

                local = LocalSearch(
                    self.index,
                    list(self.config.docs),
                    self.config.index_recheck_s,
                    lasting=self._lasting,
                )
                self._search = self._dated(local)
                return self._search
            if self.search_choice.name == "mcp":
                from research_studio.sources.search.mcp import McpSearch

                if not self.config.mcp_search_tool:
                    raise ConfigError("mcp search needs mcp_search_tool = 'server.tool'")
                self._search = self._dated(McpSearch(self.mcp, self.config.mcp_search_tool))
                return self._search
            # The search endpoint (often self-hosted) may be private for the search client only.
            endpoint = search_endpoint(self.search_choice.name, self.config)
            provider = build_search_provider(
                self.search_choice.name,
                self.config,
                self._client(self.config.search_timeout_s, private_endpoint=endpoint),
            )
            provider = DeadlineSearch(provider, self.config.search_deadline_s)
            if self.cache is not None:
                window = time_range(self.config.since, self.config.until)
                # A time range changes what the provider answers: part of the cache key.
                keyed = f"{endpoint}#{window.key()}" if window else endpoint
                provider = CachedSearch(
                    provider, self.cache, self.config.search_cache_ttl_s, endpoint=keyed
                )
            self._search = self._dated(provider)
        return self._search

    @property
    def results_outside_range(self) -> int:
        """Search results this run left out because their date is outside the time range."""
        return len(self._search.outside) if isinstance(self._search, DatedSearch) else 0

    def _dated(self, provider: SearchProvider) -> SearchProvider:
        """The provider with the run's time range applied to dated results (undated marked)."""
        return DatedSearch(provider, self.time_range) if self.time_range else provider

    @property
    def time_range(self) -> TimeRange | None:
        """The dates this run's sources may carry (the since/until settings), if any."""
        return time_range(self.config.since, self.config.until)

    @property
    def mcp(self) -> McpSources:
        """The configured MCP servers (each started on first use, stopped with the run)."""
        if self._mcp is None:
            from research_studio.sources.mcp_sources import McpSources  # only runs that use MCP

            self._mcp = McpSources.of(self.config)
        return self._mcp

    @property
    def search_limiter(self) -> asyncio.Semaphore:
        """Bounds searches in flight across all workers of a run."""
        return self._search_limiter

    @property
    def parser(self) -> ParserPool:
        """Worker processes that parse fetched pages (started on first use)."""
        if self._parser is None:
            self._parser = ParserPool.shared(
                timeout_s=self.config.parse_timeout_s,
                max_memory_mb=self.config.parse_max_memory_mb,
            )
        return self._parser

    @property
    def fetcher(self) -> Fetcher:
        """The page fetcher (cached when the cache is on)."""
        if self._fetcher is None:
            fetcher: Fetcher = PageFetcher(
                self._client(self.config.fetch_timeout_s),
                parser=self.parser,
                deadline_s=self.config.fetch_timeout_s,
                max_bytes=self.config.max_page_bytes,
                max_concurrency=self.config.max_concurrent_fetches,
            )
            if self.config.use_tavily_extract:
                from research_studio.sources.search.tavily import (
                    TavilyExtractFetcher,
                    TavilySearch,
                )

                endpoint = self.config.tavily_base_url
                tavily = build_search_provider(
                    "tavily",
                    self.config,
                    self._client(self.config.fetch_timeout_s, private_endpoint=endpoint),
                )
                assert isinstance(tavily, TavilySearch)
                fetcher = TavilyExtractFetcher(tavily, fetcher)
            if self.cache is not None:
                fetcher = CachedFetcher(
                    fetcher,
                    self.cache,
                    self.config.page_cache_ttl_s,
                    private=PrivateNetworkPolicy.from_config(self.config),
                )
            local: Fetcher | None = None
            if self.search_choice.name == "local" or self.config.docs:
                from research_studio.sources.search.local import IndexedDocumentFetcher

                local = IndexedDocumentFetcher(self.index)
            self._fetcher = RoutingFetcher(fetcher, local)
        return self._fetcher

    @property
    def extraction(self) -> ExtractionStrategy:
        """How this run extracts evidence (chosen once, from the resolved fast model)."""
        if self._extraction is None:
            resolved = self._model_config()
            self._extraction = choose_extraction(
                self.config, resolved.fast_model or resolved.model or ""
            )
        return self._extraction

    def remember_urls(self, urls: Iterable[str]) -> None:
        """URLs read earlier in this run (after a resume the ledger starts from state)."""
        self._claimed_urls.update(urls)

    def claim_url(self, url: str) -> bool:
        """True the first time a (normalized) URL is claimed in this run, so it is read once."""
        if url in self._claimed_urls:
            return False
        self._claimed_urls.add(url)
        return True

    def _model_config(self) -> Configuration:
        """The configuration with a model chosen, for runs that did not name one (Studio)."""
        if self.config.model:
            return self.config
        if self._resolved is None:
            from research_studio.services.resolution import choose_model

            choice = choose_model(self.config)
            self._resolved = self.config.model_copy(
                update={"model": choice.model, "fast_model": choice.fast_model}
            )
        return self._resolved

    async def resolve_model(self) -> None:
        """Choose the model off the event loop: choosing may probe Ollama over the network and
        look for the embedded model on disk, which a server's event loop must never wait on."""
        if not self.config.model and self._resolved is None:
            await asyncio.to_thread(self._model_config)

    def caller(self, node: str, tier: ModelTier, *, spec: str | None = None) -> ModelCaller:
        """A recording model caller for one node invocation (`spec` names another model)."""
        spec = spec or model_spec_for(self._model_config(), node, tier)
        if spec not in self._models:
            # Model servers are often local: no address guard, but our own closable client.
            client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.config.llm_timeout_s), verify=shared_ssl_context()
            )
            self._clients.append(client)
            self._models[spec] = create_chat_model(spec, self.config, http_async_client=client)
        return ModelCaller(
            self._models[spec],
            spec=spec,
            node=node,
            tier=tier,
            limiter=self._llm_limiter,
            memory=self._methods,
            policy=self._policy(spec),
        )

    def _policy(self, spec: str) -> CallPolicy:
        """The run's budget and prices, and what the model's server needs about its context."""
        provider = spec.partition(":")[0]
        ollama = provider == "ollama"
        return CallPolicy(
            budget=self.budget,
            prices=self.config.model_prices,
            context_tokens=self.config.ollama_max_context
            if ollama
            else self.config.local_model_context
            if provider == "local"
            else None,
            num_ctx_limit=self.config.ollama_max_context if ollama else None,
            reports_truncation=ollama,
            malformed_retries=self.config.llm_max_retries,
            retry_delay_s=self.config.retry_base_delay_s,
        )

    def close_now(self) -> None:
        """Close what needs no event loop (files, databases, processes); clients are left to GC."""
        if self._parser is not None:
            self._parser.kill_now()
            self._parser = None
        if self._mcp is not None:
            self._mcp.close_now()
        if self.cache is not None:
            self.cache.close()
        self._index = None  # the process's shared index stays open for the next run
        self.archive.close()

    async def aclose(self) -> None:
        """Close HTTP clients, parser processes, the cache, the index and the page archive."""
        await asyncio.gather(*(client.aclose() for client in self._clients))
        self._clients.clear()
        if self._mcp is not None:
            await self._mcp.aclose()
        if self._parser is not None:
            await self._parser.aclose()
            self._parser = None
        self.close_now()


_current: ContextVar[Services | None] = ContextVar("research_studio_services", default=None)


@asynccontextmanager
async def open_services(
    config: Configuration, *, archive_path: Path | None = None
) -> AsyncIterator[Services]:
    """Services for the duration of a block; nodes started inside it find them."""
    services = Services(config, archive_path=archive_path)
    token = _current.set(services)
    try:
        yield services
    finally:
        _current.reset(token)
        await services.aclose()


# Runs without an `open_services` block (the LangGraph server, Studio) get one Services per
# run: LangGraph hands every node of a run the same configuration object, so it is the key.
_by_run: dict[int, Services] = {}
_closing: set[asyncio.Task[None]] = set()


def current_services(config: Configuration) -> Services:
    """The services of the enclosing `open_services` block, else the run's own (one per run)."""
    services = _current.get()
    if services is not None and services.config is config:
        return services
    adopted = _by_run.get(id(config))
    if adopted is not None:
        return adopted
    # The services keep their own object: holding the run's would keep it alive forever.
    adopted = Services(server_configuration(config))
    _by_run[id(config)] = adopted
    # Closed when the run lets go of its configuration, so nothing outlives the run.
    weakref.finalize(config, _release, id(config))
    return adopted


def server_configuration(config: Configuration) -> Configuration:
    """A server run's context over the process's settings file and environment, as the CLI
    merges them: models, keys and endpoints come from the server, never need a run's context."""
    given = {name: getattr(config, name) for name in config.model_fields_set}
    return load_configuration(given).config


def _release(key: int) -> None:
    services = _by_run.pop(key, None)
    if services is None:
        return
    try:
        task = asyncio.get_running_loop().create_task(services.aclose())
    except RuntimeError:  # no loop any more: close what can be closed without one
        services.close_now()
        return
    _closing.add(task)
    task.add_done_callback(_closing.discard)


def adopted_services() -> int:
    """How many runs currently hold services outside an `open_services` block."""
    return len(_by_run)
