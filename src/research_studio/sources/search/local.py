"""The local documents provider: BM25 over the document index; pages are served from the index.

A process keeps one open index per file and settings (`shared_index`), whatever number of runs
it serves (`serve`, `mcp`, `eval`), and checks a set of folders for changed files at most once
per `index_recheck_s` (`checked_update`): a query is answered from the index, never by reading
the folders again.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from research_studio.core.errors import ConfigError, FetchError
from research_studio.sources.docindex import ChunkHit, DocumentIndex, IndexReport
from research_studio.sources.fetch import Page
from research_studio.sources.search.base import SearchResult

if TYPE_CHECKING:
    from research_studio.sources.vectors import ChunkEncoder


@dataclass
class _Check:
    """When a set of folders was last checked against an index, and what that found."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    at: float = 0.0
    report: IndexReport | None = None


_indexes: dict[tuple[str, int, int, str], DocumentIndex] = {}
_checks: dict[tuple[str, tuple[str, ...]], _Check] = {}
_registry = threading.Lock()


def shared_index(
    cache_dir: Path,
    *,
    chunk_size: int,
    max_bytes: int,
    encoder: Callable[[], ChunkEncoder | None],
) -> DocumentIndex:
    """This process's open index in `cache_dir` for these settings (opened once, never closed
    by a run: the next run, or the next MCP call, answers from it at once)."""
    vectors = encoder()
    key = (str(cache_dir.resolve()), chunk_size, max_bytes, type(vectors).__name__)
    with _registry:
        index = _indexes.get(key)
        if index is None:
            index = _indexes[key] = DocumentIndex.in_dir(
                cache_dir, chunk_size=chunk_size, max_bytes=max_bytes, encoder=vectors
            )
        return index


def _check_of(index: DocumentIndex, roots: list[Path]) -> _Check:
    """The process's record of checks of these folders against this index (blocking: resolves)."""
    key = (str(index.path), tuple(sorted(str(root.expanduser().resolve()) for root in roots)))
    with _registry:
        return _checks.setdefault(key, _Check())


def _current(
    check: _Check, index: DocumentIndex, roots: list[Path], recheck_s: float
) -> IndexReport:
    with check.lock:
        now = time.monotonic()
        if check.report is None or now - check.at >= recheck_s:
            check.report = index.update(roots)
            check.at = time.monotonic()
        return check.report


def checked_update(index: DocumentIndex, roots: list[Path], recheck_s: float) -> IndexReport:
    """The folders' last check against the index, done again (blocking) only when none was done
    in this process within `recheck_s` seconds; concurrent callers wait for one check."""
    return _current(_check_of(index, roots), index, roots, recheck_s)


class LocalSearch:
    """Chunk-level results; each URL is the document's file:// URI with a #chunk-N fragment.

    A run's first query has the folders checked (`checked_update`: at most once per
    `recheck_s` in the process); its later queries only read the index. A provider that lasts
    (`lasting`: one kept by a server across calls) has them checked again once per `recheck_s`.
    Each query takes one trip to a worker thread, the check included.
    """

    name = "local"

    def __init__(
        self,
        index: DocumentIndex,
        roots: list[Path],
        recheck_s: float = 0.0,
        *,
        lasting: bool = False,
    ) -> None:
        self._index = index
        self._roots = roots
        self._recheck_s = recheck_s
        self._lasting = lasting
        self._check: _Check | None = None
        self.last_report: IndexReport | None = None

    def _refresh(self) -> None:
        """Bring the index up to date with the configured folders when due (blocking)."""
        if self._roots and (self.last_report is None or self._lasting):
            if self._check is None:
                self._check = _check_of(self._index, self._roots)
            self.last_report = _current(self._check, self._index, self._roots, self._recheck_s)
        if self.last_report is not None and not self.last_report.documents:
            raise ConfigError(f"no readable documents in {', '.join(self.last_report.empty)}")

    def _search(self, query: str, max_results: int) -> list[SearchResult]:
        self._refresh()
        hits = self._index.search(query, max_results * 4, self._roots)
        # Distinct documents first (their best chunk), then further chunks, so readers get breadth.
        best_per_document: dict[str, ChunkHit] = {}
        for hit in hits:
            best_per_document.setdefault(hit.uri, hit)
        firsts = list(best_per_document.values())
        hits = (firsts + [hit for hit in hits if hit not in firsts])[:max_results]
        if not hits and not self._roots and not self._index.count()[0]:
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

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        return await asyncio.to_thread(self._search, query, max_results)


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
