"""Local search speed on real text: index build rate and question latency at growing sizes;
with hybrid search, the same plus the vector index, and the vector index options alone."""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.corpus import CACHE, Corpus, CorpusWriter, load_corpus, questions
from benchmarks.process_tree import load
from research_studio.sources.docindex import DocumentIndex

QUICK_SIZES = (10_000,)
SIZES = (10_000, 100_000)
MILLION = 1_000_000
# Sizes from here on are built once into their own folder under CACHE and kept (a 1,000,000-chunk
# build takes a quarter of an hour on two busy cores); the build's figures are kept beside them.
CACHED_FROM = MILLION


def percentile(values: list[float], share: float) -> float:
    """The value below which `share` of the values fall (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def _timed_questions(index: DocumentIndex, asked: list[str], limit: int) -> dict[str, Any]:
    index.search(asked[0], limit)  # the first query opens the database and warms its cache
    load_before = load()
    latencies = []
    for question in asked:
        started = time.perf_counter()
        index.search(question, limit)
        latencies.append((time.perf_counter() - started) * 1000)
    return {
        "queries": len(asked),
        "query_p50_ms": round(statistics.median(latencies), 2),
        "query_p95_ms": round(percentile(latencies, 0.95), 2),
        "query_max_ms": round(max(latencies), 2),
        "load_before": load_before,
        "load_after": load(),
    }


def _build(index: DocumentIndex, writer: CorpusWriter, size: int) -> dict[str, Any]:
    """Grow the folder to `size` chunks and index it; the build's figures."""
    writer.grow(size)
    load_before = load()
    started = time.perf_counter()
    report = index.update([writer.folder])
    build_s = time.perf_counter() - started
    documents, chunks = index.count()
    return {
        "documents": documents,
        "chunks": chunks,
        "text_reused": writer.reused,
        "added_documents": len(report.added),
        "build_s": round(build_s, 2),
        "chunks_per_s": round(len(report.added) * chunks / max(documents, 1) / build_s, 1),
        "build_load": load_before,
    }


def _cached_build(
    corpus: Corpus, size: int, chunk_size: int
) -> tuple[DocumentIndex, dict[str, Any]]:
    """The index of `size` chunks kept under CACHE, built on first use; its build's figures."""
    home = CACHE / f"local-search-{size}-{chunk_size}"
    figures = home / "build.json"
    index = DocumentIndex.in_dir(home / "index", chunk_size=chunk_size)
    if figures.is_file():
        stored = json.loads(figures.read_text())
        if stored.get("corpus") == corpus.name:
            started = time.perf_counter()
            index.update([home / "corpus"])  # nothing to do unless the cache was disturbed
            return index, {
                **stored["build"],
                "cached_recheck_s": round(time.perf_counter() - started, 2),
            }
    build = _build(index, CorpusWriter(corpus, home / "corpus", chunk_size), size)
    figures.write_text(json.dumps({"corpus": corpus.name, "build": build}))
    return index, build


class BenchEncoder:
    """MiniLM for the questions, random unit vectors for the chunks.

    Embedding 100,000 chunks with MiniLM on numpy takes hours on two cores (its rate is reported
    beside the figures); the index's search cost depends on the number of vectors, not on what
    they mean, and each question is embedded for real, as a run does.
    """

    name = "bench:random-chunks"

    def __init__(self) -> None:
        from research_studio.llm.embeddings import PackagedEmbedder, minilm_folder

        folder = minilm_folder()
        if folder is None:
            raise RuntimeError("the hybrid bench needs the embeddings extra")
        self.model = PackagedEmbedder(folder)
        self._random = np.random.default_rng(0)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 1:
            return self.model.encode(texts)
        return _unit_rows(self._random.standard_normal((len(texts), 384), dtype=np.float32))


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    return np.asarray(matrix / np.linalg.norm(matrix, axis=1, keepdims=True), dtype=np.float32)


def minilm_rate(corpus: Corpus, chunks: int = 64, chunk_size: int = 1000) -> dict[str, Any]:
    """MiniLM's indexing rate on real chunks (what hybrid search adds to a build)."""
    encoder = BenchEncoder()
    text = " ".join(corpus.paragraphs[: chunks * 20])
    sample = [text[n * chunk_size : (n + 1) * chunk_size] for n in range(chunks)]
    encoder.model.encode(sample[:2])  # loads the model
    load_before = load()
    started = time.perf_counter()
    encoder.model.encode(sample)
    return {
        "minilm_chunks_per_s": round(len(sample) / (time.perf_counter() - started), 1),
        "load": load_before,
    }


def run_local_search(
    sizes: tuple[int, ...] = SIZES,
    queries: int = 200,
    chunk_size: int = 1000,
    limit: int = 20,
    hybrid: bool = False,
) -> dict[str, Any]:
    """Grow one folder of real text to each size in turn, index it incrementally, time questions.

    Sizes of CACHED_FROM chunks or more are built once into their own folder and kept.
    `limit` is what a run asks for (LocalSearch asks four times the results it shows).
    `hybrid`: with chunk vectors (BenchEncoder), fused with BM25 as hybrid_search does.
    """
    encoder = BenchEncoder() if hybrid else None
    corpus = load_corpus()
    asked = questions(corpus, queries)
    results: dict[str, Any] = {
        "corpus": corpus.name,
        "corpus_characters": corpus.characters,
        "chunk_size": chunk_size,
        "limit": limit,
        "example_questions": asked[:3],
        "hybrid": hybrid,
        "sizes": {},
    }
    with tempfile.TemporaryDirectory() as root:
        writer = CorpusWriter(corpus, Path(root) / "corpus", chunk_size)
        index = DocumentIndex.in_dir(Path(root) / "cache", chunk_size=chunk_size, encoder=encoder)
        grown = [size for size in sizes if size < CACHED_FROM]
        for size in grown:
            build = _build(index, writer, size)
            results["sizes"][str(size)] = {**build, **_timed_questions(index, asked, limit)}
        if grown:
            started = time.perf_counter()
            unchanged = index.update([writer.folder])
            results["incremental_recheck_s"] = round(time.perf_counter() - started, 3)
            results["unchanged_on_recheck"] = len(unchanged.unchanged)
        index.close()
    for size in sizes:
        if size >= CACHED_FROM and not hybrid:
            kept, build = _cached_build(corpus, size, chunk_size)
            results["sizes"][str(size)] = {**build, **_timed_questions(kept, asked, limit)}
            kept.close()
    return results


def _timed(search: Callable[[np.ndarray], object], asked: np.ndarray) -> dict[str, Any]:
    search(asked[0])
    load_before = load()
    latencies = []
    for vector in asked:
        started = time.perf_counter()
        search(vector)
        latencies.append((time.perf_counter() - started) * 1000)
    return {
        "p50_ms": round(statistics.median(latencies), 2),
        "p95_ms": round(percentile(latencies, 0.95), 2),
        "load": load_before,
    }


def _exact(matrix: np.ndarray, limit: int) -> Callable[[np.ndarray], np.ndarray]:
    """Exact top-k over a memory-mapped matrix, a block at a time (as float32 for BLAS)."""
    block = 65_536

    def search(vector: np.ndarray) -> np.ndarray:
        scores = np.concatenate(
            [
                np.asarray(matrix[start : start + block], dtype=np.float32) @ vector
                for start in range(0, len(matrix), block)
            ]
        )
        top = np.argpartition(-scores, limit)[:limit]
        return top[np.argsort(-scores[top])]

    return search


def run_vector_options(
    sizes: tuple[int, ...] = (100_000, MILLION), queries: int = 100, limit: int = 20
) -> dict[str, Any]:
    """The vector index options at each size, on random unit vectors (384 dimensions, MiniLM's).

    Random vectors because embedding 1,000,000 chunks with MiniLM on numpy takes days here; a
    scan costs the same whatever the vectors hold, and random vectors are HNSW's hard case (no
    clusters). Exact search reads a float16 or int8 matrix memory-mapped from disk; usearch
    searches its HNSW graph memory-mapped from its file, as VectorStore does. Recall is
    usearch's top 20 against the exact float16 top 20.
    """
    from usearch.index import Index

    random = np.random.default_rng(0)
    asked = _unit_rows(random.standard_normal((queries, 384), dtype=np.float32))
    results: dict[str, Any] = {"dimensions": 384, "limit": limit, "sizes": {}}
    for size in sizes:
        home = CACHE / f"vectors-{size}"
        home.mkdir(parents=True, exist_ok=True)
        figures = home / "build.json"
        if not figures.is_file():
            half = np.lib.format.open_memmap(
                home / "f16.npy", mode="w+", dtype=np.float16, shape=(size, 384)
            )
            small = np.lib.format.open_memmap(
                home / "i8.npy", mode="w+", dtype=np.int8, shape=(size, 384)
            )
            graph = Index(ndim=384, metric="cos", dtype="f16")
            load_before, started = load(), time.perf_counter()
            for start in range(0, size, 50_000):
                rows = _unit_rows(
                    random.standard_normal((min(50_000, size - start), 384), dtype=np.float32)
                )
                half[start : start + len(rows)] = rows
                small[start : start + len(rows)] = np.round(rows * 127)
                graph.add(np.arange(start, start + len(rows), dtype=np.uint64), rows, threads=2)
            graph.save(str(home / "graph.usearch"))
            half.flush()
            small.flush()
            del half, small, graph
            figures.write_text(
                json.dumps(
                    {
                        "usearch_build_s": round(time.perf_counter() - started, 1),
                        "build_load": load_before,
                    }
                )
            )
        half = np.load(home / "f16.npy", mmap_mode="r")
        small = np.load(home / "i8.npy", mmap_mode="r")
        graph = Index.restore(str(home / "graph.usearch"), view=True)
        assert graph is not None
        exact = _exact(half, limit)
        found = sum(
            len(
                set(exact(vector).tolist()) & {int(key) for key in graph.search(vector, limit).keys}
            )
            for vector in asked[:20]
        )
        results["sizes"][str(size)] = {
            **json.loads(figures.read_text()),
            # A scan reads every row: fewer queries keep the 1,000,000 row within minutes.
            "exact_f16": _timed(exact, asked[:40]),
            "exact_i8": _timed(_exact(small, limit), asked[:40]),
            "usearch_hnsw_f16": _timed(partial(graph.search, count=limit), asked),
            "usearch_recall_at_20": round(found / (20 * limit), 3),
            "mb_on_disk": {
                path.name: round(path.stat().st_size / 2**20) for path in sorted(home.iterdir())
            },
        }
    return results
