"""verify_claims: the report's claims scored against the stored sources by embeddings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from research_studio.llm.embeddings import minilm_folder
from tests.doubles.supervisor_script import SupervisorScript

UNSUPPORTED = "The first moon landing was filmed in a studio in the Nevada desert."


@pytest.mark.e2e
async def test_claim_verification_is_off_by_default(run_supervisor: Callable[..., Any]) -> None:
    state, _ = await run_supervisor()
    assert not state.get("claims")
    assert "claim_verification" not in state["metadata"]


@pytest.mark.e2e
@pytest.mark.skipif(minilm_folder() is None, reason="needs research-studio[embeddings]")
async def test_the_packaged_model_scores_a_supported_claim_above_an_unsupported_one(
    run_supervisor: Callable[..., Any],
) -> None:
    script = SupervisorScript(writer_unsupported_claim=UNSUPPORTED)
    state, _ = await run_supervisor(script, use_claim_verification=True)
    claims = {claim["text"]: claim for claim in state["claims"]}
    unsupported = claims.pop(UNSUPPORTED)
    assert claims and all(c["span_match"] > unsupported["span_match"] for c in claims.values())
    assert not unsupported["verified"] and unsupported["indicator"] == "⚠"
    checked = state["metadata"]["claim_verification"]
    assert checked["method"] == "packaged:all-MiniLM-L6-v2"
    assert [low["claim"] for low in checked["low_support"]] == [UNSUPPORTED]
