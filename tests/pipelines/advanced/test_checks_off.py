"""The enable_* switches of the advanced family: each check off changes what the graph does,
identically in every trust engine, and a pipeline that has no such check refuses the switch."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from research_studio.core.config import Configuration
from research_studio.pipelines.advanced.graph import build_trust_engine_subgraph
from research_studio.services.clients import open_services
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import ScriptedChatModel, use_scripted_model
from tests.helpers import run_cli
from tests.pipelines.advanced.test_trust_engines import consolidated, verdicts

ENGINES = ("full", "batched", "single")


async def engines(
    make_config: Callable[..., Configuration], **settings: Any
) -> dict[str, tuple[dict[str, Any], ScriptedChatModel]]:
    """Each trust engine's result on the same evidence, with its scripted model."""
    results = {}
    for engine in ENGINES:
        model = ResearchScript().model()
        config = make_config(model=use_scripted_model(model), **settings)
        async with open_services(config):
            subgraph = build_trust_engine_subgraph(engine)  # type: ignore[arg-type]
            results[engine] = (await subgraph.ainvoke(consolidated(), context=config), model)
    return results


def same_verdicts(results: dict[str, tuple[dict[str, Any], ScriptedChatModel]]) -> None:
    full = verdicts(results["full"][0]["claims"])
    assert (
        full
        == verdicts(results["batched"][0]["claims"])
        == verdicts(results["single"][0]["claims"])
    )


async def test_credibility_scoring_off_scores_and_drops_no_source(
    make_config: Callable[..., Configuration],
) -> None:
    # A minimum no source reaches: with scoring on every source is dropped.
    scored = await engines(make_config, min_source_credibility=0.95)
    unscored = await engines(
        make_config, min_source_credibility=0.95, enable_credibility_scoring=False
    )
    for engine in ENGINES:
        assert scored[engine][0]["sources"] == [] and scored[engine][0]["sources_dropped"] == 3
        result, model = unscored[engine]
        assert len(result["sources"]) == 3 and result["sources_dropped"] == 0
        assert result["source_credibility"] == {}
        # Nothing about the sources is asked when nothing is scored.
        assert not model.calls_for("SourceAssessments") and not model.calls_for(
            "CredibilityAndClaims"
        )
        # Verified, but no credibility lends it confidence: at most ✓, never ✓✓.
        claims = result["claims"]
        assert any(claim["verified"] for claim in claims)
        assert all(claim["indicator"] != "✓✓" for claim in claims)
    assert unscored["batched"][1].calls_for("DraftClaims")
    same_verdicts(unscored)


async def test_span_verification_off_verifies_no_claim(
    make_config: Callable[..., Configuration],
) -> None:
    results = await engines(make_config, enable_span_verification=False)
    for result, model in results.values():
        claims = result["claims"]
        assert claims and not any(claim["verified"] for claim in claims)
        assert all(claim["indicator"] == "⚠" and not claim["cross_validated"] for claim in claims)
        assert result["hallucination_score"] == 1.0 and result["overall_confidence"] == 0.0
        assert not model.calls_for("SpanChecks") and not model.calls_for("ClaimVerification")
    same_verdicts(results)


async def test_cross_validation_off_marks_no_claim_cross_validated(
    make_config: Callable[..., Configuration],
) -> None:
    on = await engines(make_config)
    off = await engines(make_config, enable_cross_validation=False)
    assert any(claim["cross_validated"] for claim in on["full"][0]["claims"])
    for engine in ENGINES:
        claims = off[engine][0]["claims"]
        assert any(claim["verified"] for claim in claims)
        assert not any(claim["cross_validated"] for claim in claims)
        assert all(claim["indicator"] != "✓✓" for claim in claims)
    assert not off["full"][1].calls_for("CrossChecks") and on["full"][1].calls_for("CrossChecks")
    same_verdicts(off)


@pytest.mark.parametrize(
    ("pipeline", "flag", "allowed"),
    [
        ("standard", "--no-span-verification", "advanced, advanced-full and advanced-optimized"),
        (
            "supervisor",
            "--no-credibility-scoring",
            "advanced, advanced-full and advanced-optimized",
        ),
        ("advanced", "--no-backtracking", "advanced-full and advanced-optimized"),
        ("standard", "--no-cross-validation", "advanced, advanced-full and advanced-optimized"),
    ],
)
def test_a_pipeline_without_the_check_refuses_the_switch_in_one_line(
    pipeline: str, flag: str, allowed: str, web: FakeWeb, tmp_path: Path
) -> None:
    result = run_cli(web, "run", "why is the sky blue", "--pipeline", pipeline, flag)
    assert result.exit_code == 2, result.output
    assert f"{flag} does not apply to the {pipeline} pipeline (only to {allowed})" in result.output
    assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "runs").exists()
