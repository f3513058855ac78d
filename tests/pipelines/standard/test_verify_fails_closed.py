"""The standard verify node fails closed: a claim the model could not judge is not supported."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from research_studio.core.config import Configuration
from research_studio.pipelines.standard.finish import UNCHECKED
from tests.conftest import full_state
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

pytestmark = pytest.mark.e2e
RunPipeline = Callable[..., Any]


def paraphrasing_script() -> ResearchScript:
    """Extraction states each fact in its own words, so only the model can judge it."""
    script = ResearchScript()
    original = script.extraction

    def paraphrased(prompt: str) -> dict[str, Any]:
        reply = original(prompt)
        for fact in reply["facts"]:
            fact["fact"] = f"In short: {fact['quote']}"
        return reply

    script.extraction = paraphrased  # type: ignore[method-assign]
    return script


async def test_claims_the_model_could_not_judge_are_not_supported(
    make_config: Callable[..., Configuration],
) -> None:
    model = paraphrasing_script().model().script("Verification", "The claims look fine to me.")
    config = make_config(model=use_scripted_model(model), llm_max_retries=0)
    state = await full_state("standard", {"query": "coral reef recovery"}, config)
    assert state["claims"] and all(item["quote_verified"] for item in state["evidence"])
    assert all(claim["verified"] is False for claim in state["claims"])
    assert {claim["reason"] for claim in state["claims"]} == {UNCHECKED}
    assert [e["node"] for e in state["errors"]].count("verify") == 1
    assert state["confidence"] == 0.0


async def test_claims_the_model_judged_keep_its_verdicts(run_pipeline: RunPipeline) -> None:
    state, _ = await run_pipeline("coral reef recovery", script=paraphrasing_script())
    assert state["claims"] and any(claim["verified"] for claim in state["claims"])
    assert UNCHECKED not in {claim["reason"] for claim in state["claims"]}
