"""The local documents provider: BM25 over the document index; pages are served from the index."""

from __future__ import annotations

import asyncio
from pathlib import Path

from research_studio.core.errors import ConfigError, FetchError
from research_studio.sources.docindex import ChunkHit, DocumentIndex, IndexReport
from research_studio.sources.fetch import Page
from research_studio.sources.search.base import SearchResult


class LocalSearch:
    """Chunk-level results; each URL is the document's file:// URI with a #chunk-N fragment."""

    name = "local"

    def __init__(self, index: DocumentIndex, roots: list[Path]) -> None:
        self._index = index
        self._roots = roots
        self._refreshed = False
        self._refresh_lock = asyncio.Lock()
        self.last_report: IndexReport | None = None

    async def refresh(self) -> IndexReport | None:
        """Bring the index up to date with the configured folders, once per run."""
        async with self._refresh_lock:
            if not self._refreshed and self._roots:
                self.last_report = await asyncio.to_thread(self._index.update, self._roots)
            self._refreshed = True
        if self.last_report is not None and not self.last_report.documents:
            raise ConfigError(f"no readable documents in {', '.join(self.last_report.empty)}")
        return self.last_report

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        await self.refresh()
        hits = await asyncio.to_thread(self._index.search, query, max_results * 4, self._roots)
        # Distinct documents first (their best chunk), then further chunks, so readers get breadth.
        best_per_document: dict[str, ChunkHit] = {}
        for hit in hits:
            best_per_document.setdefault(hit.uri, hit)
        firsts = list(best_per_document.values())
        hits = (firsts + [hit for hit in hits if hit not in firsts])[:max_results]
        if not hits and not self._roots:
            documents, _chunks = await asyncio.to_thread(self._index.count)
            if not documents:
                raise ConfigError(
                    "no local documents are indexed: pass --docs PATH or run `research-studio index PATH`"
                )
        return [
            SearchResult(
                url=f"{hit.uri}#chunk-{hit.ordinal}",
                title=hit.title,
                snippet=hit.text[:300],
                score=hit.score,
                provider=self.name,
            )
            for hit in hits
        ]


class IndexedDocumentFetcher:
    """Fetches file:// URLs from the index only: a path that was not indexed is refused."""

    def __init__(self, index: DocumentIndex) -> None:
        self._index = index

    async def fetch(self, url: str) -> Page:
        document = await asyncio.to_thread(self._index.document, url)
        if document is None:
            raise FetchError(url, "not an indexed local document", kind="refused")
        return Page(
            url=url,
            final_url=document.uri,
            title=document.title,
            text=document.text,
            kind=document.kind,
        )
