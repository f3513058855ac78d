"""SQLite cache for search results and fetched pages, with TTL; safe across threads and processes."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from research_studio.core.urls import normalize_url, redact_url
from research_studio.sources.sqlite_wal import set_wal

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    stored_at REAL NOT NULL,
    PRIMARY KEY (namespace, key)
);
"""
_WHITESPACE = re.compile(r"\s+")


def search_key(provider: str, endpoint: str, query: str, max_results: int) -> str:
    """Cache key of a search: provider and its endpoint, normalized query, result count.

    The endpoint keeps one instance's results from answering for another; its secrets are masked.
    """
    normalized = _WHITESPACE.sub(" ", query).strip().lower()
    where = redact_url(normalize_url(endpoint).rstrip("/")) if endpoint else ""
    return f"{provider}@{where}|{max_results}|{normalized}"


def page_key(url: str) -> str:
    """Cache key of a page: its normalized URL."""
    return normalize_url(url)


_BUSY_TIMEOUT_S = 30.0


def _storable(key: str) -> str:
    """The key as SQLite can store it: a lone surrogate (an undecodable byte of a command-line
    argument, kept by Python's surrogateescape) written out as its escape, one key per text."""
    return key.encode("utf-8", "backslashreplace").decode("utf-8")


class Cache:
    """A small key/value store in one SQLite file (WAL mode, busy timeout for concurrent writers).

    Nothing touches the disk until the first read or write, so creating one never blocks a loop.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    @property
    def _connection(self) -> sqlite3.Connection:
        """The database, created on first use (in the worker thread of `aget`/`aput`)."""
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S, check_same_thread=False)
            try:
                set_wal(db, _BUSY_TIMEOUT_S)
                db.execute("PRAGMA synchronous=NORMAL")
                db.executescript(_SCHEMA)
                db.commit()
            except BaseException:
                db.close()
                raise
            self._db = db
        return self._db

    @classmethod
    def in_dir(cls, cache_dir: Path) -> Cache:
        """The cache file inside a cache directory."""
        return cls(cache_dir / "cache.sqlite3")

    def get(self, namespace: str, key: str, ttl_s: float) -> Any | None:
        """The stored JSON value, or None when absent or older than `ttl_s`."""
        with self._lock:
            row = self._connection.execute(
                "SELECT value, stored_at FROM entries WHERE namespace = ? AND key = ?",
                (namespace, _storable(key)),
            ).fetchone()
        if row is None or time.time() - row[1] > ttl_s:
            return None
        return json.loads(row[0])

    def put(self, namespace: str, key: str, value: Any) -> None:
        """Store a JSON-serializable value, replacing any older one."""
        encoded = json.dumps(value, ensure_ascii=False)
        with self._lock:
            self._connection.execute(
                "INSERT OR REPLACE INTO entries (namespace, key, value, stored_at) VALUES (?, ?, ?, ?)",
                (namespace, _storable(key), encoded, time.time()),
            )
            self._connection.commit()

    def purge(self, namespace: str, older_than_s: float) -> int:
        """Delete entries older than the given age; returns how many went."""
        with self._lock:
            cursor = self._connection.execute(
                "DELETE FROM entries WHERE namespace = ? AND stored_at < ?",
                (namespace, time.time() - older_than_s),
            )
            self._connection.commit()
        return cursor.rowcount

    async def aget(self, namespace: str, key: str, ttl_s: float) -> Any | None:
        """`get` off the event loop."""
        return await asyncio.to_thread(self.get, namespace, key, ttl_s)

    async def aput(self, namespace: str, key: str, value: Any) -> None:
        """`put` off the event loop."""
        await asyncio.to_thread(self.put, namespace, key, value)

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
