"""A real judge model tells a grounded report from a fabricated one (needs a configured model).

Run with RESEARCH_STUDIO_EVAL_JUDGE=provider:name (and the provider's key or base URL), or with
OPENAI_API_KEY / ANTHROPIC_API_KEY set, which judge with the provider's default smart model.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from research_studio.core.config_loading import load_configuration
from research_studio.evaluation.citations import citation_accuracy
from research_studio.evaluation.judges import judge_checks
from research_studio.evaluation.judging import Judge, default_judge
from tests.evaluation.conftest import LIVE_ENVIRONMENT
from tests.evaluation.outputs import PAGES, good_document, write_run

pytestmark = pytest.mark.live

FABRICATED = (
    "Cool roofs were banned in 2019 because they make buildings hotter, and street trees raise "
    "afternoon temperatures by 9 degrees."
)


def _fabricated() -> dict[str, object]:
    document = good_document()
    _title, _url, sentences = PAGES["S1"]
    document["report"] = document["report"].replace(sentences[0][:-1], FABRICATED[:-1], 1)
    for record in document["statements"]:
        if record["text"] == sentences[0]:
            record["text"] = FABRICATED
    return document


async def test_a_real_judge_prefers_the_grounded_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in LIVE_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    config = load_configuration().config
    judge = Judge(
        LIVE_ENVIRONMENT.get("RESEARCH_STUDIO_EVAL_JUDGE") or default_judge(config), config
    )
    try:
        good = write_run(tmp_path / "good")
        fabricated = write_run(tmp_path / "fabricated", _fabricated())  # type: ignore[arg-type]
        good_checks = {c.name: c for c in await judge_checks(judge, good)}
        good_figures = await citation_accuracy(judge, good)
        bad_figures = await citation_accuracy(judge, fabricated)
    finally:
        await judge.aclose()
    assert all(check.score is not None for check in good_checks.values()), good_checks
    assert good_checks["relevance"].score is not None and good_checks["relevance"].score >= 0.5
    assert good_figures.citation_accuracy is not None and bad_figures.citation_accuracy is not None
    assert good_figures.citation_accuracy > bad_figures.citation_accuracy
    unsupported = [pair.statement for pair in bad_figures.results if pair.supported is False]
    assert FABRICATED in unsupported
