"""Local search speed on real text: index build rate and question latency at growing sizes."""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

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


def run_local_search(
    sizes: tuple[int, ...] = SIZES, queries: int = 200, chunk_size: int = 1000, limit: int = 20
) -> dict[str, Any]:
    """Grow one folder of real text to each size in turn, index it incrementally, time questions.

    Sizes of CACHED_FROM chunks or more are built once into their own folder and kept.
    `limit` is what a run asks for (LocalSearch asks four times the results it shows).
    """
    corpus = load_corpus()
    asked = questions(corpus, queries)
    results: dict[str, Any] = {
        "corpus": corpus.name,
        "corpus_characters": corpus.characters,
        "chunk_size": chunk_size,
        "limit": limit,
        "example_questions": asked[:3],
        "sizes": {},
    }
    with tempfile.TemporaryDirectory() as root:
        writer = CorpusWriter(corpus, Path(root) / "corpus", chunk_size)
        index = DocumentIndex.in_dir(Path(root) / "cache", chunk_size=chunk_size)
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
        if size >= CACHED_FROM:
            kept, build = _cached_build(corpus, size, chunk_size)
            results["sizes"][str(size)] = {**build, **_timed_questions(kept, asked, limit)}
            kept.close()
    return results
