"""The local document index: folders of Markdown, text, HTML and PDF; documents in SQLite, chunks
in tantivy (BM25, see chunkstore.py) and, with hybrid search, their vectors (vectors.py)."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from research_studio.core.chunking import chunk_text
from research_studio.core.errors import UnreadableDocument
from research_studio.core.words import detect_language, match_key, printed, stop_words, words
from research_studio.sources.chunkstore import StoredChunk
from research_studio.sources.docfiles import (
    DEFAULT_MAX_DOCUMENT_BYTES,
    NOT_UTF8_NAME,
    document_files,
    read_bounded,
    read_document,
    undecodable_name,
    vetted_stat,
)
from research_studio.sources.docindex_storage import IndexStorage, PendingDocument

if TYPE_CHECKING:  # numpy and usearch come with the embeddings extra: imported when used
    import numpy as np

    from research_studio.sources.vectors import ChunkEncoder

MAX_QUERY_WORDS = 12
# Text written per transaction: big enough for few index segments, short enough to take turns.
_BATCH_CHARACTERS = 4_000_000


@dataclass
class IndexReport:
    """What one update did."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)  # roots with no readable document

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


def query_words(query: str) -> list[str]:
    """The distinct content words of a query, lower-cased, in order (stop words only if no other)."""
    # Single letters stay: "vitamin D" and "C compilers" are searched with them.
    found = list(dict.fromkeys(printed(word) for word in words(query)))
    stops = stop_words(detect_language(query))
    return ([word for word in found if match_key(word) not in stops] or found)[:MAX_QUERY_WORDS]


def path_of_uri(uri: str) -> str:
    """The filesystem path a file:// URI names (fragment ignored)."""
    return unquote(urlsplit(uri).path)


class DocumentIndex(IndexStorage):
    """Incremental index: unchanged files are skipped by size and mtime, then by content hash.

    Nothing touches the disk until first use, so async code can build one in the event loop and
    call its methods in a thread. Each file is written in its own short `BEGIN IMMEDIATE`
    transaction, so processes indexing the same folder take turns instead of colliding.
    """

    def __init__(
        self,
        path: Path,
        *,
        chunk_size: int = 1000,
        max_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES,
        encoder: ChunkEncoder | None = None,
    ) -> None:
        """`encoder` (hybrid search): each chunk also gets its vector, and search fuses both."""
        super().__init__(path, encoder)
        self.chunk_size = chunk_size
        self.max_bytes = max_bytes

    @classmethod
    def in_dir(
        cls,
        cache_dir: Path,
        *,
        chunk_size: int = 1000,
        max_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES,
        encoder: ChunkEncoder | None = None,
    ) -> DocumentIndex:
        return cls(
            cache_dir / "documents.sqlite3",
            chunk_size=chunk_size,
            max_bytes=max_bytes,
            encoder=encoder,
        )

    def _known(self, root: Path) -> dict[str, tuple[str, float, int]]:
        """(sha256, mtime, size) of the indexed documents under `root` (or of `root` itself)."""
        prefix = str(root) + "/"
        with self._reading() as db:
            rows = db.execute(
                "SELECT path, sha256, mtime, size FROM documents WHERE path = ? OR substr(path, 1, ?) = ?",
                (str(root), len(prefix), prefix),
            ).fetchall()
        return {path: (digest, mtime, size) for path, digest, mtime, size in rows}

    def _prepare(
        self, path: Path, root: Path, known: tuple[str, float, int] | None, report: IndexReport
    ) -> PendingDocument | None:
        """What to write for one file (None: nothing); reading and parsing happen here, unlocked."""
        try:
            real, info = vetted_stat(path, root, self.max_bytes)
            if known is not None and (known[1], known[2]) == (info.st_mtime, info.st_size):
                report.unchanged.append(str(path))
                return None
            data = read_bounded(real, self.max_bytes)
            digest = hashlib.sha256(data).hexdigest()
            same = known is not None and known[0] == digest
            document = None if same else read_document(path, data)
            chunks = chunk_text(document[2], self.chunk_size) if document else []
        except UnreadableDocument as exc:
            report.skipped.append((str(path), str(exc)))
            if known is not None:  # a file that became unreadable must not keep its old text
                with self._writing() as (db, writes):
                    self._remove(db, writes, str(path))
            return None
        return PendingDocument(path, digest, info, document, known is not None, chunks)

    def _embedded(self, batch: list[PendingDocument]) -> list[np.ndarray | None]:
        """Each item's chunk vectors (None without hybrid search), computed outside any lock."""
        if self._vectors is None:
            return [None] * len(batch)
        texts = [chunk for item in batch for chunk in item.chunks]
        matrix = self._vectors.encoder.encode(texts)
        found: list[np.ndarray | None] = []
        start = 0
        for item in batch:
            found.append(matrix[start : start + len(item.chunks)])
            start += len(item.chunks)
        return found

    def _flush(self, batch: list[PendingDocument], root: Path, report: IndexReport) -> None:
        """Write a batch in one transaction (far fewer index segments than one per file)."""
        if not batch:
            return
        vanished: list[Path] = []
        vectors = self._embedded(batch)
        with self._writing() as (db, writes):
            for item, item_vectors in zip(batch, vectors, strict=True):
                key = str(item.path)
                # Read again inside the transaction: another process may have stored it meanwhile.
                current = db.execute(
                    "SELECT sha256 FROM documents WHERE path = ?", (key,)
                ).fetchone()
                if current is not None and current[0] == item.digest:
                    db.execute(
                        "UPDATE documents SET mtime = ?, size = ? WHERE path = ?",
                        (item.info.st_mtime, item.info.st_size, key),
                    )
                    report.unchanged.append(key)
                elif item.document is None:  # its row was removed meanwhile: read it afresh
                    vanished.append(item.path)
                else:
                    self._store(db, writes, item, item_vectors)
                    (report.updated if item.known else report.added).append(key)
        for path in vanished:
            pending = self._prepare(path, root, None, report)
            if pending is not None:
                self._flush([pending], root, report)

    def _embed_missing(self) -> None:
        """Vectors for documents stored without them (before hybrid search, or by a process
        without it), from their indexed chunks, a batch per transaction."""
        if self._vectors is None:
            return
        while True:
            with self._reading() as db:
                rows = db.execute(
                    "SELECT id, chunks FROM documents WHERE vectors = 0 ORDER BY id LIMIT 200"
                ).fetchall()
            if not rows:
                return
            stored = self._chunks.chunks(
                [(doc_id, ordinal) for doc_id, count in rows for ordinal in range(count)]
            )
            texts = {
                doc_id: [stored.get((doc_id, ordinal), "") for ordinal in range(count)]
                for doc_id, count in rows
            }
            matrix = self._vectors.encoder.encode([t for chunks in texts.values() for t in chunks])
            with self._writing() as (db, writes):
                assert writes.vectors is not None
                start = 0
                for doc_id, chunks in texts.items():
                    vectors = matrix[start : start + len(chunks)]
                    start += len(chunks)
                    # Another process may have removed or embedded it meanwhile.
                    if db.execute(
                        "SELECT 1 FROM documents WHERE id = ? AND vectors = 0", (doc_id,)
                    ).fetchone():
                        writes.vectors.add(doc_id, vectors)
                        db.execute("UPDATE documents SET vectors = 1 WHERE id = ?", (doc_id,))

    def update(self, roots: Iterable[Path]) -> IndexReport:
        """Bring the index in line with the given files and folders (removed files are dropped)."""
        report = IndexReport()
        for root in roots:
            root = root.expanduser().resolve()
            shown = undecodable_name(root)
            if shown:
                report.skipped.append((shown, NOT_UTF8_NAME))
                report.empty.append(shown)
                continue
            if not root.exists():
                report.skipped.append((str(root), "no such file or folder"))
                report.empty.append(str(root))
                continue
            before = report.documents
            known = self._known(root)
            batch: list[PendingDocument] = []
            weight = 0
            for path in document_files(root, report.skipped):
                try:
                    pending = self._prepare(path, root, known.pop(str(path), None), report)
                except OSError as exc:
                    report.skipped.append((str(path), f"cannot read ({exc.strerror})"))
                    continue
                if pending is not None:
                    batch.append(pending)
                    weight += pending.weight
                if weight >= _BATCH_CHARACTERS:
                    self._flush(batch, root, report)
                    batch, weight = [], 0
            self._flush(batch, root, report)
            if report.documents == before:
                report.empty.append(str(root))
            if known and root.is_dir():  # indexed documents whose files are gone
                with self._writing() as (db, writes):
                    for gone in known:
                        self._remove(db, writes, gone)
                report.removed.extend(known)
        self._embed_missing()
        return report

    def search(self, query: str, limit: int, roots: Iterable[Path] = ()) -> list[ChunkHit]:
        """Best chunks for `query` by BM25, optionally only from documents under `roots`.

        With hybrid search, the BM25 top `limit` and the vector top `limit` are fused by
        reciprocal rank, so a chunk that shares no word with the query can still be found.
        """
        words = query_words(query)
        if not words:
            return []
        scope = [str(root.expanduser().resolve()) for root in roots]
        with self._reading() as db:
            found = self._chunks.search(words, limit, scope)
            if self._vectors is not None:
                found = self._fused(db, query, found, limit, scope)
            ids = sorted({chunk.doc_id for chunk in found})
            marks = ",".join("?" * len(ids))
            documents = {
                doc_id: (uri, title)
                for doc_id, uri, title in db.execute(
                    f"SELECT id, uri, title FROM documents WHERE id IN ({marks})", ids
                )
            }
        return [
            ChunkHit(
                uri=documents[chunk.doc_id][0],
                title=documents[chunk.doc_id][1],
                ordinal=chunk.ordinal,
                text=chunk.text,
                score=round(chunk.score, 4),
            )
            for chunk in found
            if chunk.doc_id in documents  # chunks of a write cut short by a crash
        ]

    def _fused(
        self,
        db: sqlite3.Connection,
        query: str,
        lexical: list[StoredChunk],
        limit: int,
        scope: list[str],
    ) -> list[StoredChunk]:
        """The lexical and vector rankings fused; each chunk's score is its fused score."""
        from research_studio.sources.vectors import reciprocal_rank_fusion

        assert self._vectors is not None
        # The vectors know no folders: ask for more when a scope will filter some out.
        nearest = self._vectors.search(query, limit * 4 if scope else limit)
        ids = sorted({hit.doc_id for hit in nearest})
        marks = ",".join("?" * len(ids))
        # Vectors count only for documents stored with them (ids of a crashed write, or of a
        # document changed by a process without hybrid search, are skipped), within the scope.
        chunk_counts = {
            doc_id: chunks
            for doc_id, path, chunks in db.execute(
                f"SELECT id, path, chunks FROM documents WHERE vectors = 1 AND id IN ({marks})", ids
            )
            if not scope or any(path == root or path.startswith(root + "/") for root in scope)
        }
        semantic = [
            (hit.doc_id, hit.ordinal)
            for hit in nearest
            if hit.ordinal < chunk_counts.get(hit.doc_id, 0)
        ][:limit]
        known = {(chunk.doc_id, chunk.ordinal): chunk.text for chunk in lexical}
        texts = known | self._chunks.chunks([place for place in semantic if place not in known])
        fused = reciprocal_rank_fusion([list(known), semantic])
        return [
            StoredChunk(doc_id, ordinal, texts[(doc_id, ordinal)], score)
            for (doc_id, ordinal), score in fused[:limit]
            if (doc_id, ordinal) in texts
        ]

    def document(self, uri: str) -> StoredDocument | None:
        """The indexed document a file:// URI names (any #fragment ignored)."""
        path = path_of_uri(uri)
        with self._reading() as db:
            row = db.execute(
                "SELECT uri, path, title, kind, text FROM documents WHERE path = ?", (path,)
            ).fetchone()
        return StoredDocument(*row) if row else None

    def count(self) -> tuple[int, int]:
        """(documents, chunks) in the index."""
        with self._reading() as db:
            documents, chunks = db.execute(
                "SELECT count(*), coalesce(sum(chunks), 0) FROM documents"
            ).fetchone()
        return int(documents), int(chunks)
