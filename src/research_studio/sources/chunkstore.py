"""The chunks of the local document index in tantivy: BM25 top-k that does not scan every match.

SQLite FTS5 must score every chunk that matches a query, so its cost grows with the index;
tantivy skips blocks that cannot reach the top k (block-max WAND), which keeps question-style
queries in milliseconds at 100,000 chunks (measured in docs/performance.md). The documents
themselves stay in SQLite (docindex_storage.py); its write transaction is what lets one process
at a time hold tantivy's writer, so processes indexing the same folder take turns.
"""

from __future__ import annotations

import functools
import os
import shutil
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # loaded where an index is used: a run over web search opens none
    import tantivy

# English stemming as before (FTS5's porter), folded to ASCII as FTS5's unicode61 did.
_ANALYZER_NAME = "words"
_WRITER_HEAP = 50_000_000
# Titles count half as much as body text.
_TITLE_BOOST = 0.5
_RELOAD_ATTEMPTS = 5
ORDINAL_BITS = 24
# Sets of roots remembered, per commit, as holding every chunk or not.
_SCOPES_KEPT = 64


def _analyzer() -> tantivy.TextAnalyzer:
    import tantivy

    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(80))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


@functools.cache
def _schema() -> tantivy.Schema:
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("text", stored=True, tokenizer_name=_ANALYZER_NAME)
    builder.add_text_field("title", tokenizer_name=_ANALYZER_NAME, index_option="freq")
    builder.add_integer_field("doc_id", stored=True, indexed=True)
    builder.add_integer_field("ordinal", stored=True)
    # doc_id << 24 | ordinal: hybrid search reads the text of the chunks its vectors found.
    builder.add_integer_field("key", indexed=True)
    # The document's path and every folder above it, verbatim: the roots filter is a term.
    builder.add_text_field("folders", tokenizer_name="raw", index_option="basic")
    return builder.build()


def chunk_key(doc_id: int, ordinal: int) -> int:
    """One chunk's number: its document's id above its ordinal (as the vector index keys it)."""
    return (doc_id << ORDINAL_BITS) | ordinal


def folders_of(path: str) -> list[str]:
    """The path itself and each folder above it."""
    found = [path]
    parent = os.path.dirname(path)
    while parent and parent != found[-1]:
        found.append(parent)
        parent = os.path.dirname(parent)
    return found


@dataclass(frozen=True)
class StoredChunk:
    """One chunk found by a query: its document's id, its position, its text and its score."""

    doc_id: int
    ordinal: int
    text: str
    score: float


class ChunkWrites:
    """Chunk additions and removals of one transaction; `commit` makes them visible at once."""

    def __init__(self, store: ChunkStore) -> None:
        self._store = store
        self._writer: tantivy.IndexWriter | None = None

    def _open(self) -> tantivy.IndexWriter:
        if self._writer is None:
            self._writer = self._store.index().writer(heap_size=_WRITER_HEAP, num_threads=1)
        return self._writer

    def add(self, doc_id: int, path: str, title: str, chunks: Iterable[str]) -> None:
        import tantivy

        writer = self._open()
        folders = folders_of(path)
        for ordinal, chunk in enumerate(chunks):
            document = tantivy.Document(
                text=chunk,
                title=title,
                doc_id=doc_id,
                ordinal=ordinal,
                key=chunk_key(doc_id, ordinal),
            )
            for folder in folders:
                document.add_text("folders", folder)
            writer.add_document(document)

    def remove(self, doc_id: int) -> None:
        self._open().delete_documents_by_term("doc_id", doc_id)

    def commit(self) -> None:
        """Write the changes (merging segments as needed) and release tantivy's writer lock."""
        if self._writer is not None:
            writer, self._writer = self._writer, None
            writer.commit()
            writer.wait_merging_threads()

    def rollback(self) -> None:
        if self._writer is not None:
            writer, self._writer = self._writer, None
            writer.rollback()
            writer.wait_merging_threads()


class ChunkStore:
    """A tantivy index in one folder; opened on first use, reloaded when another process commits."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._index: tantivy.Index | None = None
        self._analyzer = _analyzer()
        self._seen: tuple[int, int] | None = None
        # Per commit: whether every chunk lies under a set of roots (its filter then changes
        # nothing, and costs as much as the query: block-max WAND cannot skip under it).
        self._whole: dict[tuple[str, ...], bool] = {}

    def create(self, fresh: bool) -> None:
        """Open the index, creating it if missing (or anew if `fresh`); the caller excludes writers."""
        import tantivy

        if fresh and self.folder.exists():
            shutil.rmtree(self.folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        index = tantivy.Index(_schema(), path=str(self.folder), reuse=True)
        index.register_tokenizer(_ANALYZER_NAME, self._analyzer)
        self._index = index

    def index(self) -> tantivy.Index:
        if self._index is None:
            raise RuntimeError("the chunk store is used before it was opened")
        return self._index

    def _fresh_searcher(self) -> tantivy.Searcher:
        """A searcher over the latest commit (reloaded only when the commit changed)."""
        index = self.index()
        try:
            info = (self.folder / "meta.json").stat()
            seen = (info.st_mtime_ns, info.st_size)
        except OSError:
            seen = None
        if seen != self._seen:
            for attempt in range(_RELOAD_ATTEMPTS):
                try:
                    index.reload()
                    break
                except ValueError:
                    # Another process merged and deleted the segments of the commit read a
                    # moment ago: read the newer commit.
                    if attempt == _RELOAD_ATTEMPTS - 1:
                        raise
                    time.sleep(0.01)
            self._seen = seen
            self._whole.clear()
        return index.searcher()

    def query_terms(self, words: Iterable[str]) -> list[str]:
        """The index terms of the words (stemmed and folded as the text was)."""
        return list(dict.fromkeys(term for word in words for term in self._analyzer.analyze(word)))

    def count(self) -> int:
        return int(self._fresh_searcher().num_docs)

    def search(self, words: list[str], limit: int, roots: list[str]) -> list[StoredChunk]:
        """The best `limit` chunks holding any of the words, optionally under the given paths."""
        import tantivy

        terms = self.query_terms(words)
        if not terms or limit <= 0:
            return []
        schema = _schema()
        should = [
            (tantivy.Occur.Should, tantivy.Query.term_query(schema, "text", term)) for term in terms
        ] + [
            (
                tantivy.Occur.Should,
                tantivy.Query.boost_query(
                    tantivy.Query.term_query(schema, "title", term), _TITLE_BOOST
                ),
            )
            for term in terms
        ]
        query = tantivy.Query.boolean_query(should)
        searcher = self._fresh_searcher()
        if roots:
            scope = tantivy.Query.term_set_query(schema, "folders", roots)
            if not self._holds_all(searcher, tuple(roots), scope):
                # Scored 0: a chunk scores the same with or without the filter.
                query = tantivy.Query.boolean_query(
                    [
                        (tantivy.Occur.Must, query),
                        (tantivy.Occur.Must, tantivy.Query.const_score_query(scope, 0.0)),
                    ]
                )
        return self._found(searcher, query, limit)

    def _holds_all(
        self, searcher: tantivy.Searcher, roots: tuple[str, ...], scope: tantivy.Query
    ) -> bool:
        """Whether every chunk of this commit lies under the roots (counted once per commit)."""
        if roots not in self._whole:
            if len(self._whole) >= _SCOPES_KEPT:
                self._whole.clear()
            # `count` is missing from tantivy's type stub (0.27), not from the class.
            under = searcher.search(scope, 1, count=True).count  # type: ignore[attr-defined]
            self._whole[roots] = under == searcher.num_docs
        return self._whole[roots]

    def chunks(self, places: list[tuple[int, int]]) -> dict[tuple[int, int], str]:
        """The text of each (document id, ordinal) present in the index."""
        import tantivy

        if not places:
            return {}
        keys = [chunk_key(doc_id, ordinal) for doc_id, ordinal in places]
        query = tantivy.Query.term_set_query(_schema(), "key", keys)
        found = self._found(self._fresh_searcher(), query, len(keys))
        return {(chunk.doc_id, chunk.ordinal): chunk.text for chunk in found}

    def _found(
        self, searcher: tantivy.Searcher, query: tantivy.Query, limit: int
    ) -> list[StoredChunk]:
        found = []
        for score, address in searcher.search(query, limit, count=False).hits:
            document = searcher.doc(address)
            found.append(
                StoredChunk(
                    doc_id=int(document["doc_id"][0]),
                    ordinal=int(document["ordinal"][0]),
                    text=str(document["text"][0]),
                    score=float(score),
                )
            )
        return found
