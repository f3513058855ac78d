"""Query deduplication in the orchestrator: MiniLM similarity when the embeddings extra is
installed, a lexical fallback without it; the threshold is query_similarity_threshold."""

from __future__ import annotations

import pytest

from research_studio.core.config import Configuration
from research_studio.llm.embeddings import minilm_folder
from research_studio.pipelines.advanced import query_dedup
from research_studio.pipelines.advanced.nodes.orchestrator import make_assignments

SUBJECT = "green roofs"
GROUPS = [
    ("What are the risks?", "Risks", ["green roofs health risks"], []),
    (
        "What harm can they do?",
        "Harm",
        [
            "green roofs dangers to health",  # a paraphrase of the first search
            "green roof installation cost",
            "installation cost of green roofs",  # the same words, reordered
        ],
        [],
    ),
    # The bare subject adds nothing: a repeat of discovery's search, not of the aspects.
    ("What are green roofs?", "Overview", ["green roofs"], []),
]
DONE = ["Green roofs"]


async def assigned(config: Configuration) -> tuple[list[str], str]:
    searches = [query for group in GROUPS for query in group[2]]
    measure, kind = await query_dedup.query_measure([*DONE, *searches], SUBJECT)
    assignments = make_assignments(GROUPS, DONE, config, 0, measure)
    return [query for item in assignments for query in item["queries"]], kind


@pytest.mark.skipif(minilm_folder() is None, reason="needs the embeddings extra")
async def test_with_minilm_a_paraphrase_is_a_repeat() -> None:
    kept, kind = await assigned(Configuration())
    assert kind == "semantic"
    assert kept == ["green roofs health risks", "green roof installation cost"]


async def test_without_embeddings_reorderings_are_repeats_and_paraphrases_are_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(query_dedup, "minilm_folder", lambda: None)
    kept, kind = await assigned(Configuration())
    assert kind == "lexical"
    assert kept == [
        "green roofs health risks",
        "green roofs dangers to health",
        "green roof installation cost",
    ]


@pytest.mark.skipif(minilm_folder() is None, reason="needs the embeddings extra")
async def test_the_threshold_decides() -> None:
    # At 0.95 the paraphrase (cosine ≈ 0.90) is a search of its own; the reordering is not.
    kept, _kind = await assigned(Configuration(query_similarity_threshold=0.95))
    assert "green roofs dangers to health" in kept
    assert "installation cost of green roofs" not in kept
