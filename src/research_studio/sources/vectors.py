"""Chunk vectors for hybrid local search: one MiniLM vector per chunk in a usearch HNSW index.

An HNSW graph answers a query by visiting a few thousand vectors whatever the index size, where an
exact scan reads every vector: at 1,000,000 vectors a scan of a memory-mapped float16 matrix
costs hundreds of milliseconds, the graph about a millisecond (docs/performance.md). The file is
rewritten whole and swapped in by rename inside the document index's write transaction, so one
process at a time changes it and readers see either the old file or the new one.

Imported only when hybrid search is on: numpy and usearch come with the `embeddings` extra.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

import numpy as np
from usearch.index import Index

from research_studio.sources.chunkstore import ORDINAL_BITS, chunk_key

# 1: cosine HNSW of float16 vectors, keyed by chunk_key (document id, ordinal).
FORMAT = 1
_FILE = "chunks.usearch"
_META = "meta.json"
# The constant of reciprocal rank fusion (Cormack et al. 2009): ranks past ~60 weigh little.
RRF_K = 60

Key = TypeVar("Key", bound=Hashable)


class ChunkEncoder(Protocol):
    """Unit-length vectors for texts (the packaged MiniLM)."""

    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[Key]], k: int = RRF_K
) -> list[tuple[Key, float]]:
    """Items of several rankings, best first, by the sum of 1 / (k + rank) over the rankings.

    Ranks start at 1; an item a ranking lacks gets nothing from it; ties keep first-seen order.
    """
    scores: dict[Key, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda pair: -pair[1])


@dataclass(frozen=True)
class VectorHit:
    doc_id: int
    ordinal: int
    similarity: float


class VectorWrites:
    """Vector additions and removals of one transaction; `commit` swaps the new file in."""

    def __init__(self, store: VectorStore) -> None:
        self._store = store
        self._index: Index | None = None

    def _open(self) -> Index:
        if self._index is None:
            self._index = self._store.writable()
        return self._index

    def add(self, doc_id: int, vectors: np.ndarray) -> None:
        if not len(vectors):
            return
        index = self._open()
        keys = np.array([chunk_key(doc_id, n) for n in range(len(vectors))], dtype=np.uint64)
        # A crash between the vector and the SQLite commits can leave vectors under an id the
        # next document gets again: replace them.
        stale = keys[np.asarray(index.contains(keys), dtype=bool)]
        if len(stale):
            index.remove(stale)
        index.add(keys, np.asarray(vectors, dtype=np.float32))

    def remove(self, doc_id: int, chunks: int) -> None:
        index = self._open()
        keys = np.array([chunk_key(doc_id, n) for n in range(chunks)], dtype=np.uint64)
        present = keys[np.asarray(index.contains(keys), dtype=bool)] if len(keys) else keys
        if len(present):
            index.remove(present)

    def commit(self) -> None:
        if self._index is not None:
            index, self._index = self._index, None
            self._store.save(index)

    def rollback(self) -> None:
        self._index = None
        self._store.forget_writable()


class VectorStore:
    """The vector file in one folder; read memory-mapped, reloaded when another process saves."""

    def __init__(self, folder: Path, encoder: ChunkEncoder) -> None:
        self.folder = folder
        self.encoder = encoder
        self._file = folder / _FILE
        self._view: Index | None = None
        self._seen: tuple[int, int, int] | None = None
        self._writable: tuple[tuple[int, int, int] | None, Index] | None = None
        self._ndim = 0

    def _meta(self) -> dict[str, object]:
        return {"format": FORMAT, "model": self.encoder.name}

    def create(self, fresh: bool) -> str | None:
        """Open, creating if missing; why the vectors start afresh ("missing", "changed"), or None.

        The caller excludes writers, and marks every document as lacking vectors when not None.
        """
        meta = self.folder / _META
        try:
            same = json.loads(meta.read_text()) == self._meta()
        except (OSError, ValueError):
            same = False
        if same and not fresh and self._file.is_file():
            return None
        reason = "changed" if meta.is_file() else "missing"
        if self.folder.exists():
            shutil.rmtree(self.folder)
        self.folder.mkdir(parents=True)
        self.save(self._new())
        meta.write_text(json.dumps(self._meta()))
        return reason

    def _new(self) -> Index:
        if not self._ndim:
            self._ndim = int(self.encoder.encode(["dimension"]).shape[1])
        return Index(ndim=self._ndim, metric="cos", dtype="f16")

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            info = self._file.stat()
        except OSError:
            return None
        return (info.st_ino, info.st_mtime_ns, info.st_size)

    def writable(self) -> Index:
        """The saved index loaded for change (kept between transactions while nobody else saves)."""
        seen = self._stat()
        if self._writable is not None and self._writable[0] == seen:
            return self._writable[1]
        index = Index.restore(str(self._file))
        if index is None:
            raise RuntimeError(f"the vector index {self._file} cannot be read")
        self._writable = (seen, index)
        return index

    def forget_writable(self) -> None:
        self._writable = None

    def save(self, index: Index) -> None:
        """Write a new file and rename it over the old one (readers keep the file they mapped)."""
        partial = self.folder / f".{_FILE}.{os.getpid()}"
        index.save(str(partial))
        os.replace(partial, self._file)
        self._writable = (self._stat(), index)

    def _reader(self) -> Index | None:
        seen = self._stat()
        if seen != self._seen:
            self._view = Index.restore(str(self._file), view=True) if seen else None
            self._seen = seen
        return self._view

    def search(self, text: str, limit: int) -> list[VectorHit]:
        """The `limit` chunks nearest to the text's vector, nearest first."""
        index = self._reader()
        if index is None or not len(index) or limit <= 0:
            return []
        query = np.asarray(self.encoder.encode([text])[0], dtype=np.float32)
        found = index.search(query, min(limit, len(index)))
        mask = (1 << ORDINAL_BITS) - 1
        return [
            VectorHit(int(key) >> ORDINAL_BITS, int(key) & mask, 1.0 - float(distance))
            for key, distance in zip(found.keys, found.distances, strict=True)
        ]
