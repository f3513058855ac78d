"""The advanced pipeline end to end: compiled graph, scripted model, local web. No node is mocked."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from research_studio.core.config import Configuration
from research_studio.grounding.printed import statement_key
from research_studio.pipelines.advanced.graph import build_graph, route_after_gap_detection
from research_studio.services.clients import open_services
from tests.conftest import full_state
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import ScriptedChatModel, use_scripted_model

pytestmark = pytest.mark.e2e
CLAIM_LINE = re.compile(r"^- (✓✓|✓|⚠) (.*?) ((?:\[S\d+\])+)[.!?]$", re.MULTILINE)


async def run_advanced(
    make_config: Callable[..., Configuration],
    query: str,
    script: ResearchScript,
    model: ScriptedChatModel | None = None,
    **settings: Any,
) -> tuple[dict[str, Any], ScriptedChatModel]:
    model = model or script.model()
    config = make_config(model=use_scripted_model(model), **settings)
    return await full_state("advanced", {"query": query}, config), model


async def test_a_current_events_query_goes_straight_to_the_planner(
    make_config: Callable[..., Configuration],
) -> None:
    script = ResearchScript(query_class="current_events", coverage=[0.9], ready=[True])
    model = script.model()
    config = make_config(model=use_scripted_model(model))
    graph = build_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=True)
    thread = {"configurable": {"thread_id": "current"}}
    async with open_services(config):
        state = await graph.ainvoke(
            {"query": "latest global coral bleaching event 2024"}, thread, context=config
        )
        state = dict((await graph.aget_state(thread)).values)
    assert (await graph.aget_state(thread)).next == ()
    assert (
        state["query_analysis"]["query_class"] == "current_events"
        and not state["needs_clarification"]
    )
    assert not model.calls_for("ClarificationOutput") and state["report"]
    analyzer_prompt = model.calls_for("QueryAnalysisOutput")[0].prompt
    assert "NEVER classify queries about recent or new policies" in analyzer_prompt
    assert (
        '"Deep research about X"' in analyzer_prompt and "comprehensive_overview" in analyzer_prompt
    )
    planner_prompt = model.calls_for("PlanOutput")[0].prompt
    assert "current-events query" in planner_prompt
    years = [q["query"] for q in state["plan"]["queries"]]
    assert all(re.search(r"\b20\d\d\b|latest", query) for query in years), years


async def test_an_ambiguous_person_query_interrupts_and_the_answer_flows_downstream(
    make_config: Callable[..., Configuration],
) -> None:
    model = ResearchScript(ambiguous=True, coverage=[0.9], ready=[True]).model()
    config = make_config(model=use_scripted_model(model))
    graph = build_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=True)
    thread = {"configurable": {"thread_id": "john-smith"}}
    async with open_services(config):
        paused = await graph.ainvoke({"query": "John Smith professor"}, thread, context=config)
        paused = dict((await graph.aget_state(thread)).values)
        assert (await graph.aget_state(thread)).next == ("clarify",)
        assert paused["clarification_question"] and len(paused["clarification_options"]) == 3
        assert paused["query_analysis"]["analysis_confidence"] == 0.3
        await graph.aupdate_state(thread, {"user_clarification": "MIT, computer science"})
        final = await graph.ainvoke(None, thread, context=config)
        final = dict((await graph.aget_state(thread)).values)
    assert "MIT, computer science" in final["enriched_context"]
    assert final["query_analysis"]["analysis_confidence"] == pytest.approx(0.65)
    assert final["primary_anchor"] == "John Smith professor (MIT, computer science)"
    planner_prompt = model.calls_for("PlanOutput")[0].prompt
    assert "MIT, computer science" in planner_prompt
    assert all(
        "MIT, computer science" in call.prompt for call in model.calls_for("SubagentExtraction")
    )


async def test_the_loop_runs_a_second_iteration_and_stops_on_the_gain_rule(
    make_config: Callable[..., Configuration],
) -> None:
    state, model = await run_advanced(
        make_config,
        "coral bleaching heat stress",
        # Two verified items per section: not covered by count, so the model's reading counts.
        ResearchScript(coverage=[0.6, 0.62], ready=[False], evidence_per_section=2),
    )
    assert state["research_iteration"] == 1 and state["stop_reason"] == "gain_below_threshold"
    assert len(model.calls_for("GapAnalysis")) == 2
    second_round = [f for f in state["subagent_findings"] if f["iteration"] == 1]
    assert second_round and all(
        f["question"].startswith("Find more information about") for f in second_round
    )
    refined = {q for f in second_round for q in f["queries_run"]}
    assert any("round 1" in query for query in refined)
    assert state["metadata"]["iterations"] == 2
    assert route_after_gap_detection(state) == "trust_engine"


async def test_four_subagents_run_concurrently(make_config: Callable[..., Configuration]) -> None:
    # Long enough that subagents reading their pages at slightly different moments still overlap.
    model = ResearchScript(coverage=[0.9], ready=[True]).model(latency_s=1.0)
    state, _ = await run_advanced(
        make_config,
        "solid-state battery electrolytes",
        ResearchScript(),
        model=model,
        max_subagents=4,
        pages_per_search=1,
    )
    assert state["total_workers"] == 4
    calls = model.calls_for("SubagentExtraction")
    assert len(calls) == 4
    moments = sorted({call.started for call in calls} | {call.ended for call in calls})
    overlap = max(
        sum(1 for call in calls if call.started <= moment < call.ended) for moment in moments
    )
    assert overlap == 4, [(round(c.started, 3), round(c.ended, 3)) for c in calls]


async def test_the_same_url_from_two_subagents_is_one_source(
    make_config: Callable[..., Configuration], web: FakeWeb
) -> None:
    script = ResearchScript(coverage=[0.9], ready=[True])
    original = script.advanced_plan

    def overlapping(prompt: str) -> dict[str, Any]:
        plan = original(prompt)
        for node in plan["research_tree"]["primary"]:
            node["queries"] = [
                "solid-state battery electrolytes sulfide oxide"
            ]  # every subagent finds the same pages
        return plan

    script.advanced_plan = overlapping  # type: ignore[method-assign]
    state, _ = await run_advanced(
        make_config, "solid-state battery electrolytes", script, query_similarity_threshold=1.0
    )
    urls = [source["url"] for source in state["sources"]]
    assert len(urls) == len(set(urls))
    assert len(state["subagent_assignments"]) >= 2
    page_paths = [
        r.path for r in web.requests if r.path.startswith(("/pages/", "/docs/", "/text/"))
    ]
    assert len(page_paths) == len(set(page_paths))


def test_consolidation_merges_duplicate_urls_from_two_subagents() -> None:
    from research_studio.pipelines.advanced.nodes.loop import consolidate_sources

    source = {
        "url": "https://reef.org/report",
        "title": "Reef report",
        "snippet": "",
        "provider": "tavily",
        "published": None,
    }
    evidence = {
        "url": "https://reef.org/report",
        "text": "Fact.",
        "quote": "Fact.",
        "quote_verified": True,
        "question": "Background",
    }
    state = {
        "pages": [source, {**source, "url": "https://REEF.org/report#top"}],
        "findings": [
            evidence,
            {**evidence, "text": "Another fact.", "url": "https://reef.org/report?utm_source=x"},
        ],
    }

    class Runtime:
        context = Configuration()
        stream_writer = staticmethod(lambda _event: None)

    update = consolidate_sources(state, Runtime())  # type: ignore[arg-type]
    assert [s["sid"] for s in update["sources"]] == ["S1"]
    assert [(e["eid"], e["sid"]) for e in update["evidence"]] == [("E1", "S1"), ("E2", "S1")]


async def test_a_claim_whose_span_is_not_in_its_evidence_is_left_out(
    make_config: Callable[..., Configuration],
) -> None:
    state, _ = await run_advanced(
        make_config,
        "coral bleaching heat stress",
        ResearchScript(coverage=[0.9], ready=[True], fabricated_spans={2}),
    )
    claims = {claim["cid"]: claim for claim in state["claims"]}
    bad = claims["C2"]
    assert not bad["verified"] and bad["span_match"] < 0.6 and bad["indicator"] == "⚠"
    assert bad["text"] not in state["report"]
    assert state["hallucination_score"] == pytest.approx(1 / len(claims), abs=0.001)
    assert state["metadata"]["verified_claims"] == len(claims) - 1


async def test_indicators_follow_the_thresholds_and_citations_exist(
    make_config: Callable[..., Configuration],
) -> None:
    state, _ = await run_advanced(
        make_config,
        "solid-state battery energy density",
        ResearchScript(coverage=[0.9], ready=[True], bogus_citation="[S99]"),
    )
    by_text = {
        statement_key(claim["text"]): claim for claim in state["claims"] if claim["verified"]
    }
    lines = CLAIM_LINE.findall(state["report"])
    assert len(lines) == len(by_text)
    for mark, text, cites in lines:
        claim = by_text[statement_key(text)]
        assert cites == "".join(f"[{sid}]" for sid in claim["supporting_sids"])
        expected = (
            "✓✓"
            if claim["cross_validated"] and claim["confidence"] >= 0.8
            else "✓"
            if claim["confidence"] >= 0.6
            else "⚠"
        )
        assert mark == expected == claim["indicator"]
    sids = {source["sid"] for source in state["sources"]}
    cited = set(re.findall(r"\[(S\d+)\]", state["report"]))
    assert "S99" not in cited and cited <= sids
    assert "## Research Quality" in state["report"] and "| Verified claims |" in state["report"]


async def test_single_source_claims_are_not_cross_validated(
    make_config: Callable[..., Configuration],
) -> None:
    state, _ = await run_advanced(
        make_config,
        "coral reef recovery",
        ResearchScript(coverage=[0.9], ready=[True], cross_validate=False),
    )
    verified = [claim for claim in state["claims"] if claim["verified"]]
    assert verified and not any(claim["cross_validated"] for claim in verified)
    assert {claim["indicator"] for claim in verified} <= {"✓", "⚠"}


async def test_a_paywalled_page_is_a_dead_end(
    make_config: Callable[..., Configuration], web: FakeWeb
) -> None:
    from tests.doubles.fake_web import Fault

    web.set_fault(web.page("coral-bleaching-causes").path, Fault("status", status=402))
    state, _ = await run_advanced(
        make_config, "coral bleaching heat stress", ResearchScript(coverage=[0.9], ready=[True])
    )
    paywalled = [end for end in state["dead_ends"] if end["reason"] == "paywall"]
    assert (
        paywalled
        and paywalled[0]["url"].endswith("coral-bleaching-causes.html")
        and "402" in paywalled[0]["detail"]
    )
    assert state["report"]


def test_dead_end_reasons() -> None:
    from research_studio.evidence.gathering import Gathered
    from research_studio.pipelines.advanced.nodes.subagent import _dead_ends

    gathered = Gathered(empty_queries=["nothing matches this"])
    gathered.errors += [
        {"node": "subagent", "kind": "paywall", "message": "HTTP 402", "target": "https://a.org/x"},
        {
            "node": "subagent",
            "kind": "timeout",
            "message": "timed out",
            "target": "https://b.org/y",
        },
        {"node": "subagent", "kind": "rate_limited", "message": "429", "target": "a search query"},
    ]
    ends = _dead_ends("SA1.1", gathered)
    assert [(end["reason"], end["query"] or end["url"]) for end in ends] == [
        ("no_results", "nothing matches this"),
        ("paywall", "https://a.org/x"),
        ("fetch_error", "https://b.org/y"),
        ("search_error", "a search query"),
    ]
