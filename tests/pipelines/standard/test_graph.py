"""The standard pipeline end to end: compiled graph, scripted model, local web. No node is mocked."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from research_studio.core.config import Configuration
from research_studio.pipelines.kit.contract import ResearchOutput
from research_studio.pipelines.standard.graph import (
    build_graph,
    route_after_gaps,
    route_after_synthesis,
)
from research_studio.services.clients import open_services
from tests.conftest import full_state
from tests.doubles.fake_web import FakeWeb, Fault
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

pytestmark = pytest.mark.e2e
RunPipeline = Callable[..., Any]


def cited(report: str) -> set[str]:
    return set(re.findall(r"\[(S\d+)\]", report))


async def test_ambiguous_query_pauses_and_the_answer_reaches_every_later_prompt(
    make_config: Callable[..., Configuration],
) -> None:
    model = ResearchScript(ambiguous=True).model()
    config = make_config(model=use_scripted_model(model), max_iterations=1)
    graph = build_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=True)
    thread = {"configurable": {"thread_id": "t-ambiguous"}}
    async with open_services(config):
        paused = await graph.ainvoke({"query": "python", "mode": "single"}, thread, context=config)
        paused = dict((await graph.aget_state(thread)).values)
        snapshot = await graph.aget_state(thread)
        assert snapshot.next == ("clarify",)
        assert paused["is_ambiguous"] and paused["clarification_question"]
        assert 3 <= len(paused["clarification_options"]) <= 5
        assert not model.calls_for("ResearchPlan")

        await graph.aupdate_state(thread, {"user_clarification": "The programming language"})
        final = await graph.ainvoke(None, thread, context=config)
        final = dict((await graph.aget_state(thread)).values)

    assert final["user_clarification"] == "The programming language"
    [plan_call] = model.calls_for("ResearchPlan")
    assert "User clarification: The programming language" in plan_call.prompt
    for schema in ("PageExtraction", "GapAssessment", "ReportDraft"):
        assert all(
            "User clarification: The programming language" in call.prompt
            for call in model.calls_for(schema)
        ), schema
    assert final["report"]


@pytest.mark.parametrize(
    ("script", "settings", "iterations", "reason"),
    [
        (ResearchScript(coverage=[0.2], ready=[True]), {}, 1, "ready"),
        (ResearchScript(coverage=[0.3, 0.75], ready=[False]), {}, 2, "coverage_reached"),
        (
            ResearchScript(coverage=[0.2], ready=[False], follow_up_searches=False),
            {},
            1,
            "no_searches_left",
        ),
        (ResearchScript(coverage=[0.1], ready=[False]), {"max_iterations": 3}, 3, "iteration_cap"),
    ],
)
async def test_gap_loop_stops_on_each_exit_condition(
    run_pipeline: RunPipeline,
    script: ResearchScript,
    settings: dict[str, Any],
    iterations: int,
    reason: str,
) -> None:
    state, model = await run_pipeline("solid-state battery electrolytes", script=script, **settings)
    assert state["iteration"] == iterations, reason
    assert state["stop_reason"] == reason == state["metadata"]["stop_reason"]
    assert len(model.calls_for("GapAssessment")) == iterations
    assert state["metadata"]["iterations"] == iterations
    if iterations > 1:
        assert len(state["searches_done"]) > 4  # follow-up searches ran after the first round
    # The last round the cap allows is verified beside its judgement; an earlier stop after it.
    cap = settings.get("max_iterations", Configuration().max_iterations)
    assert state["last_round"] == (iterations == cap)
    assert len(model.calls_for("Verification")) <= 1 and state["claims"]
    assert route_after_gaps(state) == ("write_report" if state["last_round"] else "verify")


def test_stop_rules_are_pure_and_routers_only_read_the_reason() -> None:
    from research_studio.pipelines.standard.stopping import standard_stop_reason

    base = {
        "ready": False,
        "coverage": 0.4,
        "min_coverage": 0.7,
        "pending_searches": 1,
        "rounds_done": 1,
        "max_iterations": 3,
    }
    assert standard_stop_reason(**base) == ""
    assert standard_stop_reason(**{**base, "ready": True}) == "ready"
    assert standard_stop_reason(**{**base, "coverage": 0.7}) == "coverage_reached"
    assert standard_stop_reason(**{**base, "pending_searches": 0}) == "no_searches_left"
    assert standard_stop_reason(**{**base, "rounds_done": 3}) == "iteration_cap"
    assert route_after_gaps({"stop_reason": ""}) == "search_and_extract"
    assert route_after_gaps({"stop_reason": "ready"}) == "verify"
    assert route_after_synthesis({"stop_reason": ""}) == "orchestrate"
    assert route_after_synthesis({"stop_reason": "iteration_cap"}) == "verify"


async def test_parallel_workers_all_contribute_and_urls_are_read_once(
    run_pipeline: RunPipeline, web: FakeWeb
) -> None:
    state, _model = await run_pipeline(
        "coral bleaching heat stress",
        mode="multi",
        script=ResearchScript(ready=[True]),
        max_subagents=4,
    )
    results = state["worker_results"]
    # The first round follows the plan: one worker per research question, no orchestration call.
    assert len(results) == state["done_workers"] == state["total_workers"] == 3
    assert len({result["worker_id"] for result in results}) == 3
    assert not _model.calls_for("WorkPlan")
    # A worker's extraction (fast model) answers its question: no smart-model summary call.
    worker_calls = [call for call in state["llm_calls"] if call["node"] == "search_worker"]
    assert worker_calls and {call["tier"] for call in worker_calls} == {"fast"}
    evidence_urls = {item["url"] for item in state["evidence"]}
    contributing = [result for result in results if result["findings"]]
    assert len(contributing) >= len(results) - 1  # a worker may find only pages already claimed
    for result in contributing:
        assert {finding["url"] for finding in result["findings"]} <= evidence_urls
        assert result["key_findings"]
    urls = [source["url"] for source in state["sources"]]
    assert len(urls) == len(set(urls))
    page_paths = [
        request.path
        for request in web.requests
        if request.path.startswith(("/pages/", "/docs/", "/text/"))
    ]
    assert len(page_paths) == len(set(page_paths)), "a page was fetched twice in one run"


def test_collect_dedupes_the_same_url_from_two_workers() -> None:
    from research_studio.pipelines.kit.consolidate import consolidate

    page = {
        "url": "https://Reef.org/a#x",
        "title": "A",
        "snippet": "",
        "provider": "searxng",
        "published": None,
    }
    same = {**page, "url": "https://reef.org/a?utm_source=feed"}
    findings = [
        {
            "url": "https://reef.org/a",
            "text": "Fact one.",
            "quote": "q1",
            "quote_verified": True,
            "question": "",
        },
        {
            "url": "https://reef.org/a?utm_medium=x",
            "text": "Fact two.",
            "quote": "q2",
            "quote_verified": True,
            "question": "",
        },
        {
            "url": "https://reef.org/a",
            "text": "fact ONE.",
            "quote": "q1",
            "quote_verified": True,
            "question": "",
        },
    ]
    sources, evidence = consolidate([], [], [page, same], findings, max_sources=10)
    assert [s["sid"] for s in sources] == ["S1"]
    assert [(e["eid"], e["sid"]) for e in evidence] == [("E1", "S1"), ("E2", "S1")]


@pytest.mark.parametrize("mode", ["single", "multi"])
async def test_a_made_up_citation_never_reaches_the_report(
    run_pipeline: RunPipeline, mode: str
) -> None:
    state, model = await run_pipeline(
        "solid-state battery energy density",
        mode=mode,
        script=ResearchScript(bogus_citation="[S99]"),
    )
    assert "[S99]" in model.calls_for("ReportDraft")[0].reply
    report = state["report"]
    assert "[S99]" not in report
    sids = {source["sid"] for source in state["sources"]}
    assert cited(report) and cited(report) <= sids
    listed = re.findall(r"^- \[(S\d+)\]", report.split("## Sources", 1)[1], re.MULTILINE)
    assert set(listed) == cited(report.split("## Sources", 1)[0])


async def test_bullet_points_and_detailed_reports_differ(run_pipeline: RunPipeline) -> None:
    bullets, bullet_model = await run_pipeline(
        "coral reef recovery", report_structure="bullet_points"
    )
    detailed, detailed_model = await run_pipeline(
        "coral reef recovery", report_structure="detailed"
    )
    body = lambda report: report.split("## Sources")[0]  # noqa: E731
    assert re.search(r"^- .+\[S\d+\]", body(bullets["report"]), re.MULTILINE)
    assert "**Summary:**" in bullets["report"]
    assert not re.search(r"^- ", body(detailed["report"]), re.MULTILINE)
    assert "## Summary" in detailed["report"] and "## Conclusion" in detailed["report"]
    assert "bullet points" in bullet_model.calls_for("ReportDraft")[0].prompt
    assert "thorough report" in detailed_model.calls_for("ReportDraft")[0].prompt


async def test_system_prompt_reaches_the_writer(run_pipeline: RunPipeline) -> None:
    _, model = await run_pipeline(
        "coral reef recovery", system_prompt="Write for marine biologists."
    )
    assert "Write for marine biologists." in model.calls_for("ReportDraft")[0].prompt


@pytest.mark.parametrize("mode", ["single", "multi"])
async def test_metadata_matches_the_state(run_pipeline: RunPipeline, mode: str) -> None:
    state, model = await run_pipeline("solid-state battery manufacturing cost", mode=mode)
    metadata = state["metadata"]
    assert metadata["sources_count"] == len(state["sources"])
    assert metadata["evidence_count"] == len(state["evidence"])
    assert metadata["llm_calls"] == len(state["llm_calls"]) == len(model.calls)
    assert metadata["prompt_tokens"] == sum(call["prompt_tokens"] for call in state["llm_calls"])
    assert metadata["searches"] == len(state["searches_done"])
    assert 0 <= metadata["coverage"] <= 1 and 0 <= metadata["confidence"] <= 1
    checked = state["claims"]
    assert metadata["confidence"] == round(sum(c["verified"] for c in checked) / len(checked), 3)
    assert all(item["quote_verified"] for item in state["evidence"])
    assert metadata["search_provider"] == "searxng" and metadata["model"] == "scripted:default"


async def test_unverified_quotes_are_not_supported(run_pipeline: RunPipeline) -> None:
    script = ResearchScript()
    original = script.extraction

    def tampered(prompt: str) -> dict[str, Any]:
        facts = original(prompt)["facts"]
        if facts:
            facts[0]["quote"] = "The report states that reefs fully recovered within two weeks."
        return {"facts": facts}

    script.extraction = tampered  # type: ignore[method-assign]
    state, _ = await run_pipeline("coral reef recovery", script=script)
    bad = [item for item in state["evidence"] if not item["quote_verified"]]
    assert bad
    verdicts = {claim["supporting_eids"][0]: claim for claim in state["claims"]}
    for item in bad:
        assert verdicts[item["eid"]]["verified"] is False
        assert item["text"] not in state["report"]
    assert state["confidence"] < 1.0


async def test_failing_searches_and_pages_become_errors_and_the_run_completes(
    run_pipeline: RunPipeline, web: FakeWeb
) -> None:
    web.set_fault("/search", Fault("status", status=429, times=2))
    web.set_fault(web.page("solid-state-electrolytes-explained").path, Fault("status", status=503))
    web.set_fault(web.page("lithium-dendrites-solid-state").path, Fault("timeout", delay_s=1.0))
    state, _ = await run_pipeline(
        "solid-state battery electrolytes",
        search_retries=1,
        fetch_timeout_s=0.3,
        script=ResearchScript(coverage=[0.3, 0.9], ready=[False, True]),
    )
    kinds = {error["kind"] for error in state["metadata"]["errors"]}
    assert {"rate_limited", "server_error", "timeout"} <= kinds
    assert state["report"] and state["evidence"]
    assert any(
        error["target"].endswith("solid-state-electrolytes-explained.html")
        for error in state["errors"]
    )
    limitations = state["report"].split("## Limitations of this run", 1)[1].split("## Sources")[0]
    assert "search(es) failed" in limitations and "page(s) could not be read" in limitations
    assert "solid-state-electrolytes-explained.html>: server_error" in limitations


@pytest.mark.parametrize("capability", ["json_mode_only", "function_calling_only"])
async def test_full_run_over_a_limited_openai_compatible_server(
    capability: str, web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.chat.supports_json_schema = False
    web.chat.supports_tools = capability == "function_calling_only"
    web.chat.responder = ResearchScript().chat_responder()
    config = make_config(
        model="openai:fake-model", openai_base_url=web.url("/v1"), llm_max_retries=0
    )
    state = await full_state(
        "standard", {"query": "coral bleaching heat stress", "mode": "multi"}, config
    )
    assert state["evidence"] and cited(state["report"]) <= {s["sid"] for s in state["sources"]}
    assert not state["errors"]
    expected = "json_mode" if capability == "json_mode_only" else "function_calling"
    assert {call["method"] for call in state["llm_calls"] if call["ok"]} == {expected}
    assert (
        web.chat.requests[-1].get("tools")
        if expected == "function_calling"
        else web.chat.requests[-1]["response_format"]["type"] == "json_object"
    )


async def test_a_studio_chat_message_is_the_query(
    make_config: Callable[..., Configuration],
) -> None:
    from langchain_core.messages import HumanMessage

    from research_studio.pipelines.registry import compile_pipeline

    config = make_config(model=use_scripted_model(ResearchScript().model()), max_iterations=1)
    async with open_services(config):
        for pipeline in ("standard", "advanced"):
            state = await compile_pipeline(pipeline, None, False).ainvoke(
                {"messages": [HumanMessage("coral reef recovery")]}, context=config
            )
            # The output schema is shared: the same keys from every pipeline.
            assert state["report"] and state["query"] == "coral reef recovery"
            assert set(state) <= set(ResearchOutput.__annotations__)
            # Chat sends no mode: the run is multi for every node (router and writer alike).
            assert state.get("mode") == "multi"
