"""The MCP `search` tool, and the search services a server keeps across its calls.

Settings read and validated, services built and a folder check for every call cost more than
the index query itself (docs/performance.md), so the server keeps one set of services per
distinct parameters (the few most recent). Within `index_recheck_s` of their last check, a call
takes them without touching the disk; after it, the documents folders are checked to exist and
the settings file for changes (services made afresh if it changed), and a local search checks
its folders for changed files. A call's local search is then one trip to a worker thread,
answered from the process's one open index.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from research_studio.core.config_loading import load_configuration, settings_file
from research_studio.core.errors import ResearchStudioError
from research_studio.faces.mcp_bounds import bounded
from research_studio.faces.mcp_settings import SEARCH_SETTINGS, one_line, setting_parameters
from research_studio.run.launch import check_docs
from research_studio.services.clients import Services
from research_studio.services.resolution import choose_search
from research_studio.sources.search import SearchResult

# Sets of parameters whose services a server keeps (the least recently used go first).
KEPT = 8


def _settings_mark() -> tuple[int, int, int] | None:
    """What changes when the settings file is edited, replaced or removed."""
    try:
        info = settings_file().stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size, info.st_ino


@dataclass
class _Kept:
    mark: tuple[int, int, int] | None
    services: Services
    checked_at: float
    users: int = 0
    dropped: bool = False


class KeptSearches:
    """Search services kept across calls, one per set of parameters; thread-safe."""

    def __init__(self, size: int = KEPT) -> None:
        self._size = size
        self._kept: OrderedDict[str, _Kept] = OrderedDict()
        self._lock = threading.Lock()

    def _held(self, key: str, fresh_only: bool) -> _Kept | None:
        """The kept services for these parameters, held for one call; with `fresh_only`, only
        if checked within `index_recheck_s` (no disk is touched: fit for the event loop)."""
        with self._lock:
            kept = self._kept.get(key)
            if kept is None or kept.dropped:
                return None
            age = time.monotonic() - kept.checked_at
            if fresh_only and age >= kept.services.config.index_recheck_s:
                return None
            self._kept.move_to_end(key)
            kept.users += 1
            return kept

    def _checked(
        self, key: str, overrides: dict[str, Any], query: str
    ) -> tuple[_Kept, list[Services]]:
        """The services for these parameters after checking the folders and the settings file,
        held for one call, and any let go that no call holds (to close). Blocking."""
        given_docs = [Path(path).expanduser() for path in overrides.get("docs") or []]
        check_docs(given_docs)  # as `research` checks them
        docs = [path.resolve() for path in given_docs]
        mark = _settings_mark()
        kept = self._held(key, fresh_only=False)
        if kept is not None and kept.mark == mark:
            kept.checked_at = time.monotonic()
            return kept, []
        # Settings edited: made afresh below (the old ones are closed once no call holds them).
        closing = [kept.services] if kept is not None and self._give_back(kept) else []
        given = {**overrides, "docs": [str(path) for path in docs] or None}
        config = load_configuration(given).config
        bounded("query", query, config.max_query_chars)  # before the provider's own checks
        choose_search(config)
        fresh = _Kept(mark, Services(config, lasting=True), time.monotonic(), users=1)
        with self._lock:
            replaced = [self._kept.pop(key)] if key in self._kept else []
            self._kept[key] = fresh
            while len(self._kept) > self._size:
                replaced.append(self._kept.popitem(last=False)[1])
            for old in replaced:
                old.dropped = True
            return fresh, closing + [old.services for old in replaced if old.users == 0]

    def _give_back(self, kept: _Kept) -> bool:
        """Whether the call was the last to hold services that were let go (to close)."""
        with self._lock:
            kept.users -= 1
            return kept.dropped and kept.users == 0

    @asynccontextmanager
    async def services(self, overrides: dict[str, Any], query: str) -> AsyncIterator[Services]:
        """The kept services for these parameters, for the duration of a block; a query longer
        than their settings allow is refused."""
        # The server's environment is part of its settings (a host process may change it).
        environment = hash(frozenset(os.environ.items()))
        key = json.dumps([overrides, environment], sort_keys=True, default=str)
        held = self._held(key, fresh_only=True)
        kept, unused = (
            (held, [])
            if held is not None
            else await asyncio.to_thread(self._checked, key, overrides, query)
        )
        try:
            for services in unused:
                await services.aclose()
            bounded("query", query, kept.services.config.max_query_chars)
            yield kept.services
        finally:
            if self._give_back(kept):
                await kept.services.aclose()

    def close_now(self) -> None:
        """Close what needs no event loop (when the server stops)."""
        with self._lock:
            kept, self._kept = list(self._kept.values()), OrderedDict()
        for entry in kept:
            entry.services.close_now()


SEARCHES = KeptSearches()


@setting_parameters(*SEARCH_SETTINGS)
async def search(
    query: Annotated[str, Field(description="What to search for.")],
    max_results: Annotated[
        int, Field(description="Results wanted (1 to 50).", json_schema_extra={"maximum": 50})
    ] = 5,
    *,
    overrides: dict[str, Any],
) -> list[SearchResult]:
    """Search the web, or documents folders (`docs`, else the server's), with the configured
    provider (or the one `search` names)."""
    if not query.strip():
        raise ToolError("the query is empty")
    try:
        async with SEARCHES.services(overrides, query) as services:
            return await services.search.search(query, max(1, min(max_results, 50)))
    except ResearchStudioError as exc:
        raise one_line(exc, SEARCH_SETTINGS) from None
