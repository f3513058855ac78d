"""The local document index: folders of Markdown, text, HTML and PDF in SQLite FTS5 (BM25)."""

from __future__ import annotations

import hashlib
import re
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from research_studio.chunking import chunk_text
from research_studio.fetch import extract_html, extract_pdf
from research_studio.queries import STOP_WORDS

SUPPORTED_SUFFIXES = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
}
_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    uri TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    mtime REAL NOT NULL,
    size INTEGER NOT NULL,
    text TEXT NOT NULL,
    indexed_at REAL NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks USING fts5(
    text, title, doc_id UNINDEXED, ordinal UNINDEXED, tokenize = 'porter unicode61'
);
"""
_WORD = re.compile(r"\w+", re.UNICODE)


class UnreadableDocument(Exception):
    """A file the index skips (and says why)."""


@dataclass
class IndexReport:
    """What one update did."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)

    @property
    def documents(self) -> int:
        return len(self.added) + len(self.updated) + len(self.unchanged)


@dataclass(frozen=True)
class ChunkHit:
    """One matching chunk, best first."""

    uri: str
    title: str
    ordinal: int
    text: str
    score: float


@dataclass(frozen=True)
class StoredDocument:
    """A document's text as indexed."""

    uri: str
    path: str
    title: str
    kind: str
    text: str


def _read_text(data: bytes) -> str:
    if b"\x00" in data[:8192]:
        raise UnreadableDocument("binary data")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UnreadableDocument(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def read_document(path: Path, data: bytes) -> tuple[str, str, str]:
    """(kind, title, text) of a file; raises UnreadableDocument for what cannot be used."""
    kind = SUPPORTED_SUFFIXES[path.suffix.lower()]
    title = ""
    if kind == "pdf":
        try:
            title, text = extract_pdf(data)
        except Exception as exc:  # pypdf raises many types for damaged files
            raise UnreadableDocument(f"unreadable PDF ({type(exc).__name__})") from None
    elif kind == "html":
        title, text, _date = extract_html(_read_text(data).encode("utf-8"))
    else:
        text = _read_text(data)
        first = text.strip().splitlines()[0].strip() if text.strip() else ""
        if kind == "markdown" and first.startswith("# "):
            title = first[2:].strip()
        elif kind == "text" and 0 < len(first) <= 150:
            title = first
    if not text.strip():
        raise UnreadableDocument("no readable text")
    return kind, title or path.stem.replace("-", " ").replace("_", " "), text


def _files(root: Path) -> Iterator[Path]:
    if root.is_file():
        yield root
        return
    for path in sorted(root.rglob("*")):
        if (
            path.is_file()
            and path.suffix.lower() in SUPPORTED_SUFFIXES
            and not any(part.startswith(".") for part in path.relative_to(root).parts)
        ):
            yield path


def match_expression(query: str) -> str:
    """An FTS5 query: the content words of `query`, each quoted, OR-ed (BM25 does the ranking)."""
    words = list(dict.fromkeys(word.lower() for word in _WORD.findall(query)))
    content = [word for word in words if word not in STOP_WORDS] or words
    return " OR ".join(f'"{word}"' for word in content[:32])


def path_of_uri(uri: str) -> str:
    """The filesystem path a file:// URI names (fragment ignored)."""
    return unquote(urlsplit(uri).path)


class DocumentIndex:
    """Incremental index: unchanged files are skipped by size and mtime, then by content hash."""

    def __init__(self, path: Path, *, chunk_size: int = 1000) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.chunk_size = chunk_size
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, timeout=30.0, check_same_thread=False)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            # Queries read many posting lists: keep them in memory (64 MiB cache, mapped file).
            self._db.execute("PRAGMA cache_size=-65536")
            self._db.execute("PRAGMA mmap_size=268435456")
            self._db.executescript(_SCHEMA)
            # Title matches count half as much as body matches.
            self._db.execute("INSERT INTO chunks(chunks, rank) VALUES ('rank', 'bm25(1.0, 0.5)')")
            self._db.commit()

    @classmethod
    def in_dir(cls, cache_dir: Path, *, chunk_size: int = 1000) -> DocumentIndex:
        return cls(cache_dir / "documents.sqlite3", chunk_size=chunk_size)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _store(
        self,
        path: Path,
        kind: str,
        title: str,
        text: str,
        digest: str,
        stat_mtime: float,
        size: int,
    ) -> None:
        uri = path.as_uri()
        cursor = self._db.execute("SELECT id FROM documents WHERE path = ?", (str(path),))
        row = cursor.fetchone()
        if row is not None:
            self._db.execute("DELETE FROM chunks WHERE doc_id = ?", (row[0],))
            self._db.execute("DELETE FROM documents WHERE id = ?", (row[0],))
        doc_id = self._db.execute(
            "INSERT INTO documents (path, uri, title, kind, sha256, mtime, size, text, indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (str(path), uri, title, kind, digest, stat_mtime, size, text, time.time()),
        ).lastrowid
        self._db.executemany(
            "INSERT INTO chunks (text, title, doc_id, ordinal) VALUES (?, ?, ?, ?)",
            [
                (chunk, title, doc_id, ordinal)
                for ordinal, chunk in enumerate(chunk_text(text, self.chunk_size))
            ],
        )

    def _update_file(self, path: Path, report: IndexReport) -> None:
        stat = path.stat()
        known = self._db.execute(
            "SELECT sha256, mtime, size FROM documents WHERE path = ?", (str(path),)
        ).fetchone()
        if known is not None and known[1] == stat.st_mtime and known[2] == stat.st_size:
            report.unchanged.append(str(path))
            return
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if known is not None and known[0] == digest:
            self._db.execute(
                "UPDATE documents SET mtime = ?, size = ? WHERE path = ?",
                (stat.st_mtime, stat.st_size, str(path)),
            )
            report.unchanged.append(str(path))
            return
        try:
            kind, title, text = read_document(path, data)
        except UnreadableDocument as exc:
            report.skipped.append((str(path), str(exc)))
            if known is not None:  # a file that became unreadable must not keep its old text
                self._remove(str(path))
            return
        self._store(path, kind, title, text, digest, stat.st_mtime, stat.st_size)
        (report.updated if known is not None else report.added).append(str(path))

    def _remove(self, path: str) -> None:
        row = self._db.execute("SELECT id FROM documents WHERE path = ?", (path,)).fetchone()
        if row is not None:
            self._db.execute("DELETE FROM chunks WHERE doc_id = ?", (row[0],))
            self._db.execute("DELETE FROM documents WHERE id = ?", (row[0],))

    def update(self, roots: Iterable[Path]) -> IndexReport:
        """Bring the index in line with the given files and folders (removed files are dropped)."""
        report = IndexReport()
        with self._lock:
            for root in roots:
                root = root.expanduser().resolve()
                if not root.exists():
                    report.skipped.append((str(root), "no such file or folder"))
                    continue
                seen: set[str] = set()
                for path in _files(root):
                    seen.add(str(path))
                    try:
                        self._update_file(path, report)
                    except OSError as exc:
                        report.skipped.append((str(path), f"cannot read ({exc.strerror})"))
                if root.is_dir():
                    prefix = str(root) + "/"
                    stale = self._db.execute(
                        "SELECT path FROM documents WHERE substr(path, 1, ?) = ?",
                        (len(prefix), prefix),
                    ).fetchall()
                    for (path,) in stale:
                        if path not in seen:
                            self._remove(path)
                            report.removed.append(path)
            self._db.commit()
        return report

    def search(self, query: str, limit: int, roots: Iterable[Path] = ()) -> list[ChunkHit]:
        """Best chunks for `query` by BM25, optionally only from documents under `roots`."""
        expression = match_expression(query)
        if not expression:
            return []
        # FTS5 ranks and limits on its own (the configured `rank`); documents are joined only
        # for the hits, which keeps a 10,000-chunk query in a few milliseconds.
        sql = "SELECT rowid, doc_id, ordinal, text, rank FROM chunks WHERE chunks MATCH ?"
        parameters: list[object] = [expression]
        prefixes = [str(root.expanduser().resolve()) for root in roots]
        if prefixes:
            scope = " OR ".join("path = ? OR substr(path, 1, ?) = ?" for _ in prefixes)
            sql += f" AND doc_id IN (SELECT id FROM documents WHERE {scope})"
            for prefix in prefixes:
                parameters += [prefix, len(prefix) + 1, prefix + "/"]
        sql += " ORDER BY rank LIMIT ?"
        parameters.append(limit)
        with self._lock:
            rows = self._db.execute(sql, parameters).fetchall()
            ids = sorted({row[1] for row in rows})
            marks = ",".join("?" * len(ids))
            documents = {
                doc_id: (uri, title)
                for doc_id, uri, title in self._db.execute(
                    f"SELECT id, uri, title FROM documents WHERE id IN ({marks})", ids
                )
            }
        return [
            ChunkHit(
                uri=documents[doc_id][0],
                title=documents[doc_id][1],
                ordinal=int(ordinal),
                text=text,
                score=round(-rank, 4),
            )
            for _rowid, doc_id, ordinal, text, rank in rows
        ]

    def document(self, uri: str) -> StoredDocument | None:
        """The indexed document a file:// URI names (any #fragment ignored)."""
        path = path_of_uri(uri)
        with self._lock:
            row = self._db.execute(
                "SELECT uri, path, title, kind, text FROM documents WHERE path = ?", (path,)
            ).fetchone()
        return StoredDocument(*row) if row else None

    def count(self) -> tuple[int, int]:
        """(documents, chunks) in the index."""
        with self._lock:
            documents = self._db.execute("SELECT count(*) FROM documents").fetchone()[0]
            chunks = self._db.execute("SELECT count(*) FROM chunks").fetchone()[0]
        return int(documents), int(chunks)
