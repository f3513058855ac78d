"""Which planned searches repeat one another: semantic similarity when it can be had.

The orchestrator drops a query as a repeat when it is at least `query_similarity_threshold`
similar to one already run or assigned (spec 003: an embedding similarity, 0.85). Every planned
query names the subject (the primary anchor), and whole-query embeddings are dominated by it:
with all-MiniLM-L6-v2, "coral bleaching heat stress" and "coral bleaching heat stress latest
data" score about 0.9, so a plan would repeat discovery's search. The similarity is therefore
measured on what each query adds to the subject, with the packaged MiniLM (the `embeddings`
extra): reordered or paraphrased aspects ("manufacturers of hardware" / "hardware
manufacturers" 0.97, "health risks" / "dangers to health" 0.90) reach 0.85; distinct aspects
("how it works" / "latest data" 0.11, "biography" / "early life" 0.29) and near-synonyms
("price" / "cost" 0.74) stay below, so a doubtful pair is searched twice rather than a question
lost. A query that adds nothing repeats only another that adds nothing.

Without the extra the measure is `core.queries.similarity` on the whole queries, a soft Jaccard
of content words that matches plurals and typos: it catches reorderings and word variants, never
paraphrases. Searches that differ by an operator on purpose (backtracking's `site:`
alternatives, a subagent's refinements) keep that lexical measure: embeddings read
"X site:wikipedia.org" as X.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rapidfuzz import fuzz

from research_studio.core.queries import TOKEN_MATCH, content_words, normalize_query, similarity
from research_studio.llm.embeddings import PackagedEmbedder, minilm_folder

if TYPE_CHECKING:  # numpy comes with the embeddings extra, imported only when it is there
    import numpy as np

Similarity = Callable[[str, str], float]


def is_repeat(query: str, others: Sequence[str], threshold: float, measure: Similarity) -> bool:
    """True when `query` is at least `threshold` similar to one of `others`."""
    return any(measure(query, other) >= threshold for other in others)


def aspect(query: str, subject: str) -> str:
    """What a query adds to the subject: its content words that are not the subject's
    (a plural or a typo of a subject word is the subject word)."""
    named = content_words(subject) if subject.strip() else []
    return " ".join(
        word
        for word in content_words(query)
        if not any(word == name or fuzz.ratio(word, name) >= TOKEN_MATCH for name in named)
    )


def semantic_measure(aspects: dict[str, str], vectors: np.ndarray) -> Similarity:
    """Cosine of the embeddings of two queries' aspects (`aspects`: query → aspect, in the
    vectors' order of distinct non-empty aspects); lexical for a query not among them."""
    from research_studio.llm.minilm import cosine_matrix

    rows = {text: row for row, text in enumerate(dict.fromkeys(a for a in aspects.values() if a))}
    cosines = cosine_matrix(vectors, vectors) if rows else vectors[:0, :0]

    def measure(first: str, second: str) -> float:
        a, b = aspects.get(normalize_query(first)), aspects.get(normalize_query(second))
        if a is None or b is None:
            return similarity(first, second)
        if not a or not b:
            return 1.0 if a == b else 0.0
        return float(cosines[rows[a], rows[b]])

    return measure


async def query_measure(queries: Sequence[str], subject: str) -> tuple[Similarity, str]:
    """The measure for these queries and its name: MiniLM on their aspects, else lexical."""
    folder = minilm_folder()
    aspects = {normalize_query(q): aspect(q, subject) for q in queries if q.strip()}
    distinct = list(dict.fromkeys(a for a in aspects.values() if a))
    if folder is None or not aspects:
        return similarity, "lexical"
    import numpy as np

    vectors = await PackagedEmbedder(folder).embed(distinct) if distinct else np.zeros((0, 0))
    return semantic_measure(aspects, vectors), "semantic"


__all__ = ["Similarity", "aspect", "is_repeat", "query_measure", "semantic_measure"]
