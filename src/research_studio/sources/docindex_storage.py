"""The document index's storage: documents in SQLite, chunks in tantivy, vectors with hybrid
search; set up, upgraded, and written in one transaction across the three (docindex.py decides
what to read, write and search)."""

from __future__ import annotations

import os
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from research_studio.sources.chunkstore import ChunkStore, ChunkWrites
from research_studio.sources.sqlite_wal import set_wal

if TYPE_CHECKING:  # numpy and usearch come with the embeddings extra: imported when used
    import numpy as np

    from research_studio.sources.vectors import ChunkEncoder, VectorStore, VectorWrites

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path TEXT NOT NULL UNIQUE,
    uri TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    mtime REAL NOT NULL,
    size INTEGER NOT NULL,
    text TEXT NOT NULL,
    chunks INTEGER NOT NULL,
    indexed_at REAL NOT NULL,
    vectors INTEGER NOT NULL DEFAULT 0
)
"""
# 3: chunks keyed for hybrid search, documents marked when their vectors are stored;
# 2: chunks in tantivy beside the SQLite file; 1: chunks in an FTS5 table of that file.
_FORMAT = 3


@dataclass(frozen=True)
class PendingDocument:
    """A file read and parsed, waiting for its write."""

    path: Path
    digest: str
    info: os.stat_result
    document: tuple[str, str, str] | None  # (kind, title, text); None: same content as indexed
    known: bool
    chunks: list[str] = field(default_factory=list)

    @property
    def weight(self) -> int:
        return 1000 + (len(self.document[2]) if self.document else 0)


class _Writes:
    """The chunk and vector changes of one transaction."""

    def __init__(self, chunks: ChunkWrites, vectors: VectorStore | None) -> None:
        self.chunks = chunks
        self.vectors: VectorWrites | None = None
        if vectors is not None:
            from research_studio.sources.vectors import VectorWrites

            self.vectors = VectorWrites(vectors)

    def commit(self) -> None:
        self.chunks.commit()
        if self.vectors is not None:
            self.vectors.commit()

    def rollback(self) -> None:
        self.chunks.rollback()
        if self.vectors is not None:
            self.vectors.rollback()


class IndexStorage:
    """The index's three stores, opened on first use and kept in step by one lock and one
    transaction per write."""

    def __init__(self, path: Path, encoder: ChunkEncoder | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._chunks = ChunkStore(path.with_suffix(".tantivy"))
        self._vectors: VectorStore | None = None
        if encoder is not None:
            from research_studio.sources.vectors import VectorStore

            self._vectors = VectorStore(path.with_suffix(".vectors"), encoder)

    def _connection(self) -> sqlite3.Connection:
        """The open database (opened and set up on first use); the caller holds `_lock`."""
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(
                self.path, timeout=60.0, check_same_thread=False, isolation_level=None
            )
            set_wal(db)
            # WAL with NORMAL stays consistent on a crash; one commit per file need not fsync.
            db.execute("PRAGMA synchronous=NORMAL")
            # Queries read many posting lists: keep them in memory (64 MiB cache, mapped file).
            db.execute("PRAGMA cache_size=-65536")
            db.execute("PRAGMA mmap_size=268435456")
            db.execute("BEGIN IMMEDIATE")  # one process at a time sets up both stores
            try:
                fresh = self._upgrade(db)
                db.execute(_SCHEMA)
                db.execute(f"PRAGMA user_version={_FORMAT}")
                self._chunks.create(fresh)
                if self._vectors is not None:
                    reason = self._vectors.create(fresh)
                    if reason is not None and not fresh:
                        self._forget_vectors(db, reason)
            except BaseException:
                db.execute("ROLLBACK")
                db.close()
                raise
            db.execute("COMMIT")
            self._db = db
        return self._db

    def _upgrade(self, db: sqlite3.Connection) -> bool:
        """Whether the chunks must start afresh: an index of an earlier format is rebuilt.

        Its documents are forgotten, so the next update reads every file again; a chunk folder
        that went missing is handled the same way. Called inside the set-up transaction.
        """
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        chunks_missing = not (self._chunks.folder / "meta.json").is_file()
        if version == _FORMAT and not chunks_missing:
            return False
        if "documents" in tables and db.execute("SELECT 1 FROM documents LIMIT 1").fetchone():
            print(
                f"research-studio: the document index {self.path} is from an earlier version;"
                " it is rebuilt from your folders on the next update",
                file=sys.stderr,
            )
        for table in ("chunks", "documents"):
            if table in tables:
                db.execute(f"DROP TABLE {table}")
        return True

    def _forget_vectors(self, db: sqlite3.Connection, reason: str) -> None:
        """Mark every document as lacking vectors (the next update embeds them from the index)."""
        if db.execute("SELECT 1 FROM documents LIMIT 1").fetchone():
            why = "has no vectors yet" if reason == "missing" else "has vectors of another version"
            print(
                f"research-studio: the document index {self.path} {why} for hybrid search;"
                " they are computed from its chunks on the next update",
                file=sys.stderr,
            )
        db.execute("UPDATE documents SET vectors = 0")

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._connection()

    @contextmanager
    def _writing(self) -> Iterator[tuple[sqlite3.Connection, _Writes]]:
        """One write transaction; another process's writer makes it wait (busy timeout), not fail.

        The chunks and vectors are committed just before the documents: a crash in between
        leaves chunks whose document id is unknown, which search ignores.
        """
        with self._lock:
            db = self._connection()
            db.execute("BEGIN IMMEDIATE")
            writes = _Writes(ChunkWrites(self._chunks), self._vectors)
            try:
                yield db, writes
                writes.commit()
            except BaseException:
                writes.rollback()
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def _store(
        self,
        db: sqlite3.Connection,
        writes: _Writes,
        item: PendingDocument,
        vectors: np.ndarray | None,
    ) -> None:
        assert item.document is not None
        kind, title, text = item.document
        path, digest, info, chunks = item.path, item.digest, item.info, item.chunks
        self._remove(db, writes, str(path))
        doc_id = db.execute(
            "INSERT INTO documents (path, uri, title, kind, sha256, mtime, size, text, chunks,"
            " indexed_at, vectors) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                str(path),
                path.as_uri(),
                title,
                kind,
                digest,
                info.st_mtime,
                info.st_size,
                text,
                len(chunks),
                time.time(),
                int(vectors is not None and writes.vectors is not None),
            ),
        ).lastrowid
        assert doc_id is not None
        writes.chunks.add(doc_id, str(path), title, chunks)
        if vectors is not None and writes.vectors is not None:
            writes.vectors.add(doc_id, vectors)

    @staticmethod
    def _remove(db: sqlite3.Connection, writes: _Writes, path: str) -> None:
        row = db.execute("SELECT id, chunks FROM documents WHERE path = ?", (path,)).fetchone()
        if row is not None:
            writes.chunks.remove(int(row[0]))
            if writes.vectors is not None:
                writes.vectors.remove(int(row[0]), int(row[1]))
            db.execute("DELETE FROM documents WHERE id = ?", (row[0],))
