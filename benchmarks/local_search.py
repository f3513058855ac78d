"""Local search speed: index build rate and query latency on a generated corpus."""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from research_studio.sources.docindex import DocumentIndex

TOPICS = [
    "battery",
    "reef",
    "python",
    "heat",
    "roof",
    "tree",
    "policy",
    "climate",
    "energy",
    "water",
    "city",
    "health",
]
FILLER = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "was",
    "for",
    "on",
    "that",
    "with",
    "as",
    "by",
    "at",
    "from",
    "it",
    "this",
    "are",
    "be",
    "an",
    "has",
    "have",
    "which",
]


def _vocabulary(rng: random.Random, size: int = 4000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(4, 10))) for _ in range(size)]


def _document(rng: random.Random, vocabulary: list[str], paragraphs: int) -> str:
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]  # Zipf-like word frequencies
    blocks = []
    for _ in range(paragraphs):
        sentences = []
        for _ in range(rng.randint(5, 8)):
            words = (
                rng.choices(vocabulary, weights=weights, k=rng.randint(10, 18))
                + rng.sample(FILLER, 3)
                + [rng.choice(TOPICS)]
            )
            rng.shuffle(words)
            sentences.append(" ".join(words).capitalize() + ".")
        blocks.append(" ".join(sentences))
    return "\n\n".join(blocks)


def write_corpus(folder: Path, documents: int, paragraphs: int, seed: int = 7) -> list[str]:
    """Markdown files of generated prose; returns some of its words to query with."""
    rng = random.Random(seed)
    vocabulary = _vocabulary(rng)
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(documents):
        (folder / f"doc-{number:05d}.md").write_text(
            f"# Document {number}\n\n" + _document(rng, vocabulary, paragraphs)
        )
    return vocabulary[:400]


def percentile(values: list[float], share: float) -> float:
    """The value below which `share` of the values fall (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def run_local_search(
    documents: int = 2500,
    paragraphs: int = 4,
    queries: int = 300,
    chunk_size: int = 1000,
    seed: int = 7,
) -> dict[str, Any]:
    """Build an index of a generated corpus, then time queries of 2-4 words."""
    rng = random.Random(seed + 1)
    with tempfile.TemporaryDirectory() as root:
        corpus = Path(root) / "corpus"
        words = write_corpus(corpus, documents, paragraphs, seed)
        index = DocumentIndex.in_dir(Path(root) / "cache", chunk_size=chunk_size)
        started = time.perf_counter()
        report = index.update([corpus])
        build_s = time.perf_counter() - started
        _docs, chunks = index.count()
        started = time.perf_counter()
        unchanged = index.update([corpus])
        recheck_s = time.perf_counter() - started
        latencies = []
        for _ in range(queries):
            query = " ".join([*rng.sample(words, rng.randint(2, 4)), rng.choice(TOPICS)])
            started = time.perf_counter()
            index.search(query, 10)
            latencies.append((time.perf_counter() - started) * 1000)
        index.close()
    return {
        "documents": len(report.added),
        "chunks": chunks,
        "build_s": round(build_s, 2),
        "documents_per_s": round(len(report.added) / build_s, 1),
        "chunks_per_s": round(chunks / build_s, 1),
        "incremental_recheck_s": round(recheck_s, 3),
        "unchanged_on_recheck": len(unchanged.unchanged),
        "queries": queries,
        "query_p50_ms": round(statistics.median(latencies), 2),
        "query_p95_ms": round(percentile(latencies, 0.95), 2),
        "query_max_ms": round(max(latencies), 2),
    }
