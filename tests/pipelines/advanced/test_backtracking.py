"""Backtracking: dead ends become alternative searches by failure type, and the next round runs them."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from research_studio.core.config import Configuration
from research_studio.core.records import DeadEnd
from research_studio.pipelines.advanced.nodes.backtrack import alternatives
from tests.conftest import full_state
from tests.doubles.fake_web import FakeWeb, Fault
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model


def dead_end(reason: str, query: str = "", url: str = "") -> DeadEnd:
    return DeadEnd(subagent_id="SA1.1", query=query, url=url, reason=reason, detail="")


def test_alternatives_by_failure_type() -> None:
    anchor, context = "coral bleaching", ["Great Barrier Reef"]
    broad = alternatives(
        dead_end("no_results", '"coral bleaching" heat stress 2031 survey'), anchor, []
    )
    assert broad[0] == "coral bleaching heat stress" and broad[1].endswith("overview")
    assert all('"' not in query for query in broad)
    assert alternatives(dead_end("irrelevant", "coral bleaching causes"), anchor, context) == [
        "coral bleaching causes Great Barrier Reef"
    ]
    paywall = alternatives(
        dead_end("paywall", url="https://news.example.com/pages/reef-heat-report.html"), anchor, []
    )
    assert paywall == [
        "coral bleaching reef heat report site:wikipedia.org",
        "coral bleaching reef heat report -site:news.example.com",
    ]
    assert alternatives(dead_end("low_credibility", "coral bleaching facts"), anchor, []) == [
        "coral bleaching facts site:.edu",
        "coral bleaching facts site:.gov",
    ]
    assert alternatives(dead_end("search_error", "coral bleaching data"), anchor, []) == [
        "coral bleaching data overview"
    ]


@pytest.mark.e2e
async def test_a_paywalled_path_gives_alternatives_that_the_next_round_runs(
    make_config: Callable[..., Configuration], web: FakeWeb
) -> None:
    web.set_fault(web.page("coral-bleaching-causes").path, Fault("status", status=402))
    model = ResearchScript(coverage=[0.5, 0.9], ready=[False, True], evidence_per_section=2).model()
    # Two rounds: the second runs what backtracking proposed (coverage by count decides the
    # rest, and a paywalled page leaves a section thin).
    config = make_config(model=use_scripted_model(model), max_iterations=2)
    state = await full_state("advanced-full", {"query": "coral bleaching heat stress"}, config)
    paywalled = [end for end in state["dead_ends"] if end["reason"] == "paywall"]
    assert paywalled and paywalled[0]["url"].endswith("coral-bleaching-causes.html")
    assert any(step["action"] == "backtrack" for step in state["research_trajectory"])
    assert f"paywall||{paywalled[0]['url']}" in state["handled_dead_ends"]
    second_round = {
        query
        for f in state["subagent_findings"]
        if f["iteration"] == 1
        for query in f["queries_run"]
    }
    assert "coral bleaching causes site:wikipedia.org" in second_round
    assert any("-site:127.0.0.1" in query for query in second_round)
    assert state["report"] and state["research_iteration"] == 1


@pytest.mark.e2e
async def test_backtracking_off_retries_no_dead_end_and_the_report_says_so(
    make_config: Callable[..., Configuration], web: FakeWeb
) -> None:
    web.set_fault(web.page("coral-bleaching-causes").path, Fault("status", status=402))
    model = ResearchScript(coverage=[0.5, 0.9], ready=[False, True], evidence_per_section=2).model()
    config = make_config(
        model=use_scripted_model(model), max_iterations=2, enable_backtracking=False
    )
    state = await full_state("advanced-full", {"query": "coral bleaching heat stress"}, config)
    assert any(end["reason"] == "paywall" for end in state["dead_ends"])
    steps = [s for s in state["research_trajectory"] if s["action"] == "backtrack"]
    assert steps and all(
        s["summary"].endswith("0 alternative search(es) (backtracking off)") for s in steps
    )
    searched = {query for f in state["subagent_findings"] for query in f["queries_run"]}
    assert not any("site:" in query for query in searched)
    # The gap detector's refinements still make a second round: only backtracking is off.
    assert state["research_iteration"] == 1
    assert "| Checks switched off | backtracking |" in state["report"]
    assert state["metadata"]["checks_off"] == ["backtracking"]


@pytest.mark.e2e
async def test_span_verification_off_prints_nothing_as_verified(
    make_config: Callable[..., Configuration],
) -> None:
    model = ResearchScript().model()
    config = make_config(model=use_scripted_model(model), enable_span_verification=False)
    state = await full_state("advanced", {"query": "coral bleaching heat stress"}, config)
    assert state["claims"] and not any(claim["verified"] for claim in state["claims"])
    assert state["metadata"]["verified_claims"] == 0
    assert "✓" not in state["report"].split("## Research Quality")[0]
    assert "| Checks switched off | span verification |" in state["report"]
    assert "Span verification was switched off for this run" in state["report"]
