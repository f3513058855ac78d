"""The deterministic tail: passages cut from sources, each checked against its source by code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from research_studio.pipelines.supervisor.nodes.evidence import (
    MAX_WORDS,
    MIN_WORDS,
    split_passages,
    verify_snippet,
)
from research_studio.pipelines.supervisor.prompts import VERIFIED_HEADING
from research_studio.pipelines.supervisor.state import EvidenceSnippet
from tests.doubles.supervisor_script import SupervisorScript

PAGE = """# Reef heat

Corals bleach when the water stays warmer than usual for weeks. The algae living in their \
tissue are expelled, and the coral turns white. Without the algae the coral starves slowly.

Scientists track heat stress with <b>degree heating weeks</b>, a measure described on \
[the NOAA site](https://coralreefwatch.example/dhw) that adds up weekly excess warmth. A value \
of four means significant bleaching is likely across the reef.

Short line."""

FABRICATED = (
    "Every coral reef on Earth will have disappeared completely by the year 2031 according to "
    "a secret study that no scientist has ever been able to read."
)


def snippet(quote: str) -> EvidenceSnippet:
    return EvidenceSnippet(
        snippet_id="V1", url="u", title="t", quote=quote, origin="notes", status="PENDING",
        match="", score=0.0,
    )  # fmt: skip


def test_passages_are_15_to_60_words_within_one_paragraph_without_markup() -> None:
    passages = split_passages(PAGE)
    assert passages and all(MIN_WORDS <= len(p.split()) <= MAX_WORDS for p in passages)
    assert passages[0].startswith("Corals bleach") and "Short line" not in " ".join(passages)
    assert not any("<b>" in p or "](" in p or "Reef heat" in p for p in passages)
    assert any("the NOAA site that adds up weekly excess warmth" in p for p in passages)


def test_verification_passes_contiguous_quotes_in_the_pages_characters_and_fails_the_rest() -> None:
    text = "\n\n".join(split_passages(PAGE))
    first = split_passages(PAGE)[0]
    exact = verify_snippet(snippet(first.upper()), text)
    assert (exact["status"], exact["match"], exact["score"]) == ("PASS", "exact", 1.0)
    assert exact["quote"] == first  # what is printed is the page's own characters
    # One word changed (a near-verbatim quote) is not on the page: no bag-of-words match.
    near = first.replace("expelled", "ejected")
    assert verify_snippet(snippet(near), text)["status"] == "FAIL"
    flipped = first.replace("are expelled", "are not expelled")
    assert verify_snippet(snippet(flipped), text)["status"] == "FAIL"
    assert verify_snippet(snippet(FABRICATED), text)["status"] == "FAIL"
    assert verify_snippet(snippet(near), None)["match"] == "no such source"


def test_passages_keep_the_pages_characters_and_never_join_list_items() -> None:
    page = (
        "Keep chillers below <30 °C when the C# service and the snake\\_case job run, and set "
        "`vacuum_cost_limit` to 2000 so that autovacuum keeps pace with busy write traffic.\n\n"
        "- The first list item says that roofs cool the street by day and by night alike.\n"
        "- The second list item says that trees shade the pavement through the whole summer."
    )
    passages = split_passages(page)
    assert "<30 °C" in passages[0] and "C#" in passages[0] and "snake_case" in passages[0]
    assert "vacuum_cost_limit" in passages[0]
    assert not any("first list item" in p and "second list item" in p for p in passages)


@pytest.mark.e2e
async def test_a_fabricated_quote_fails_and_never_reaches_verified_findings(
    run_supervisor: Callable[..., Any],
) -> None:
    script = SupervisorScript(fabricated_quote=FABRICATED, selector_fabricates=True)
    state, _ = await run_supervisor(script)
    verdicts = {s["quote"]: s["status"] for s in state["evidence_snippets"]}
    assert verdicts[FABRICATED] == "FAIL"
    assert "secret study" not in state["report"]
    passing = {s["quote"] for s in state["evidence_snippets"] if s["status"] == "PASS"}
    shown = [r for r in state["statements"] if r["section"] == VERIFIED_HEADING]
    assert len(shown) >= 3 and all(r["quotes"][0]["quote"] in passing for r in shown)
    # The altered passage and the invented one were both refused by the byte check.
    assert state["metadata"]["selector_rejected"] == 2
