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
async def test_an_unsupported_claim_never_reaches_the_claims_the_packaged_model_scores(
    run_supervisor: Callable[..., Any],
) -> None:
    # The support check drops the writer's unsupported sentence before any claim is scored.
    script = SupervisorScript(writer_unsupported_claim=UNSUPPORTED)
    state, _ = await run_supervisor(script, use_claim_verification=True)
    assert "moon landing" not in state["report"]
    claims = {claim["text"]: claim for claim in state["claims"]}
    assert claims and UNSUPPORTED not in claims
    checked = state["metadata"]["claim_verification"]
    assert checked["method"] == "packaged:all-MiniLM-L6-v2"
    assert UNSUPPORTED not in [low["claim"] for low in checked["low_support"]]
