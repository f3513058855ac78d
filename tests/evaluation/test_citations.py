"""FACT-style citation accuracy: pairs from statements, judged against the kept page text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from research_studio.core.config import Configuration
from research_studio.evaluation.citations import (
    citation_accuracy,
    citation_checks,
    citation_pairs,
    page_excerpt,
)
from research_studio.evaluation.judging import Judge
from tests.doubles.fake_web import FakeWeb
from tests.doubles.scripted_model import ScriptedChatModel, use_scripted_model
from tests.evaluation.conftest import chat_verdict
from tests.evaluation.outputs import good_document, write_run

MakeConfig = Callable[..., Configuration]


def test_pairs_come_from_statements_one_per_statement_and_source() -> None:
    document = good_document()
    first = dict(document["statements"][0])
    # The summary repeats a statement (one pair only), another cites two sources (two pairs).
    both = {
        **first,
        "text": "Shade and reflection both cool cities.",
        "sids": ["S1", "S2"],
        "quotes": [{"sid": "S1", "quote": "q1"}, {"sid": "S2", "quote": "q2"}],
    }
    document["statements"] = [first, *document["statements"], both]
    pairs = citation_pairs(document)
    assert len(pairs) == 14 + 2
    assert [(p.sid, p.quotes) for p in pairs[-2:]] == [("S1", ["q1"]), ("S2", ["q2"])]
    uncited = {**first, "sids": [], "quotes": [], "kind": "connective"}
    assert citation_pairs({"statements": [uncited]}) == []


async def test_accuracy_and_effective_citations_with_a_scripted_judge(
    tmp_path: Path, judge_model: ScriptedChatModel
) -> None:
    output = write_run(tmp_path)
    figures = await citation_accuracy(Judge("scripted:judge", Configuration()), output)
    # Seven pairs per source, judged six at a time; statement 2 of each batch is unsupported.
    assert (figures.pairs, figures.judged, figures.supported) == (14, 14, 12)
    assert figures.citation_accuracy == 0.857 and figures.effective_citations == 12
    assert len(judge_model.calls) == 4
    prompt = judge_model.calls[0].prompt
    assert "Source text:\n<<<\n" in prompt and "1. " in prompt
    assert figures.audit.ok and figures.audit.statements == figures.audit.statements_held == 14
    checks = {check.name: check for check in citation_checks(figures, judged=True)}
    assert checks["citation_accuracy"].score == 0.857 and checks["citation_accuracy"].passed
    assert figures.unjudged == 0 and "(14 judged, 0 unjudged)" in checks["citation_accuracy"].reason
    assert checks["audit"].passed and "14/14 cited statements hold" in checks["audit"].reason


async def test_a_source_without_kept_text_is_not_judged_and_fails_the_audit(
    tmp_path: Path, judge_model: ScriptedChatModel
) -> None:
    output = write_run(tmp_path)
    (tmp_path / "sources" / "S2.txt").unlink()
    figures = await citation_accuracy(Judge("scripted:judge", Configuration()), output)
    assert figures.judged == 7 and figures.supported == 6
    skipped = [pair for pair in figures.results if pair.sid == "S2"]
    assert all(pair.supported is None and "not kept" in pair.reason for pair in skipped)
    # The seven pairs nobody could judge count against accuracy, never for it.
    assert figures.unjudged == 7 and figures.citation_accuracy == round(6 / 14, 3)
    accuracy = next(
        c for c in citation_checks(figures, judged=True) if c.name == "citation_accuracy"
    )
    assert accuracy.passed is False and "7 unjudged" in accuracy.reason
    assert figures.audit.ok is False
    assert any("page text was not kept" in problem for problem in figures.audit.problems)
    audit = next(c for c in citation_checks(figures, judged=True) if c.name == "audit")
    assert audit.passed is False


async def test_a_failing_judge_leaves_accuracy_unmeasured(tmp_path: Path) -> None:
    model = ScriptedChatModel().script("CitationVerdicts", "I would rather not.")
    judge = Judge(use_scripted_model(model, "judge"), Configuration())
    figures = await citation_accuracy(judge, write_run(tmp_path))
    assert figures.citation_accuracy is None and figures.judged == 0
    check = citation_checks(figures, judged=True)[0]
    assert check.passed is None and "invalid_json" in check.reason


async def test_without_a_judge_only_the_audit_runs(tmp_path: Path) -> None:
    figures = await citation_accuracy(None, write_run(tmp_path))
    assert figures.pairs == 14 and figures.citation_accuracy is None
    assert [check.name for check in citation_checks(figures, judged=False)] == ["audit"]


async def test_accuracy_over_an_openai_compatible_judge(
    tmp_path: Path, web: FakeWeb, make_config: MakeConfig
) -> None:
    web.chat.responder = chat_verdict
    judge = Judge(
        "openai:fake-model", make_config(openai_base_url=web.url("/v1"), llm_max_retries=0)
    )
    try:
        figures = await citation_accuracy(judge, write_run(tmp_path))
    finally:
        await judge.aclose()
    assert figures.citation_accuracy == 0.857 and figures.effective_citations == 12
    assert len(web.chat.requests) == 4


def test_a_long_page_keeps_the_stretches_around_the_quotes() -> None:
    page = (
        "Opening words. " + "filler text " * 3000 + "The quoted sentence is here. " + "tail " * 2000
    )
    excerpt = page_excerpt(page, ["The quoted sentence is here."], limit=5_000)
    assert excerpt.startswith("Opening words.") and "The quoted sentence is here." in excerpt
    assert len(excerpt) <= 5_000
    assert page_excerpt("short page", ["x"]) == "short page"


async def test_pairs_the_judge_skipped_are_unjudged_not_correct(tmp_path: Path) -> None:
    """A judge that answers only for the first statement of each batch: the rest stay unjudged
    and accuracy divides by every pair (148 judged of 560 must not read 1.00)."""
    model = ScriptedChatModel(
        fallback=lambda request: {"verdicts": [{"statement": 1, "supported": True}]}
    )
    judge = Judge(use_scripted_model(model, "judge"), Configuration())
    figures = await citation_accuracy(judge, write_run(tmp_path))
    # Two sources of seven pairs, judged six at a time: four batches, four verdicts.
    assert (figures.pairs, figures.judged, figures.supported, figures.unjudged) == (14, 4, 4, 10)
    assert figures.citation_accuracy == round(4 / 14, 3)
    skipped = [pair for pair in figures.results if pair.supported is None]
    assert len(skipped) == 10 and all(
        pair.reason == "the judge gave no verdict" for pair in skipped
    )
    check = citation_checks(figures, judged=True)[0]
    assert check.passed is False and check.details["unjudged"] == 10
