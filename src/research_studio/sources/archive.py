"""The text of every page a run read, kept for verbatim passages and for a later audit."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

from research_studio.core.files import write_atomically
from research_studio.core.records import SourceRecord
from research_studio.core.urls import normalize_url

KEPT_SOURCES_DIR = "sources"


def kept_page_path(run_dir: Path, sid: str) -> Path:
    """Where a run folder keeps the extracted text of a cited source."""
    return run_dir / KEPT_SOURCES_DIR / f"{sid}.txt"


class PageArchive:
    """Page texts by normalized URL; in memory, and in a SQLite file when the run has a folder."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._texts: dict[str, str] = {}
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            assert self._path is not None
            self._db = sqlite3.connect(self._path, check_same_thread=False)
            self._db.execute("CREATE TABLE IF NOT EXISTS pages (url TEXT PRIMARY KEY, text TEXT)")
        return self._db

    def _store(self, url: str, text: str) -> None:
        with self._lock:
            db = self._connection()
            db.execute("INSERT OR REPLACE INTO pages (url, text) VALUES (?, ?)", (url, text))
            db.commit()

    def _load(self, url: str) -> str | None:
        with self._lock:
            row = (
                self._connection()
                .execute("SELECT text FROM pages WHERE url = ?", (url,))
                .fetchone()
            )
        return row[0] if row else None

    async def keep(self, url: str, text: str) -> None:
        """Remember a page's text (written through to the run folder when there is one)."""
        key = normalize_url(url)
        self._texts[key] = text
        if self._path is not None:
            await asyncio.to_thread(self._store, key, text)

    async def text(self, url: str) -> str | None:
        """A page's text, also one read before a resume."""
        key = normalize_url(url)
        if key in self._texts or self._path is None:
            return self._texts.get(key)
        found = await asyncio.to_thread(self._load, key)
        if found is not None:
            self._texts[key] = found
        return found

    async def export(
        self, sources: Sequence[SourceRecord], sids: Sequence[str], run_dir: Path
    ) -> None:
        """Write `sources/<sid>.txt` for the given source ids into the run folder."""
        by_sid = {source["sid"]: source for source in sources}
        for sid in sids:
            source = by_sid.get(sid)
            text = await self.text(source["url"]) if source else None
            if text is not None:
                path = kept_page_path(run_dir, sid)
                await asyncio.to_thread(write_atomically, path, text)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
