"""Councils: votes in parallel, consensus, revisions up to the cap, human review, fact-checks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from research_studio.core.config import Configuration
from research_studio.pipelines.registry import compile_pipeline, graph_builder
from research_studio.pipelines.supervisor.nodes.council import (
    consensus,
    council_outcome,
    impossible_dates,
    rejection,
)
from research_studio.pipelines.supervisor.prompts import FEEDBACK_LABEL, REVIEW_FEEDBACK_LABEL
from research_studio.pipelines.supervisor.state import CouncilVote
from research_studio.services.clients import open_services
from tests.doubles.scripted_model import ScriptedChatModel, use_scripted_model
from tests.doubles.supervisor_script import TOOLS_KEY, SupervisorScript
from tests.pipelines.supervisor.conftest import QUERY


def vote(decision: str, confidence: float = 0.9) -> CouncilVote:
    return CouncilVote(model="m", decision=decision, confidence=confidence, feedback="")


def test_consensus_weighs_approvals_by_confidence_and_ignores_failed_members() -> None:
    assert consensus([vote("approve"), vote("revise")]) == 0.5
    assert consensus([vote("approve", 0.9), vote("reject", 0.3)]) == 0.75
    assert consensus([vote("approve"), vote("failed", 0.0)]) == 1.0
    assert consensus([vote("failed")]) is None


def test_the_outcome_revises_until_the_cap() -> None:
    assert council_outcome(0.8, 0.7, 0, 3) == "approved"
    assert council_outcome(0.5, 0.7, 2, 3) == "revise"
    assert council_outcome(0.5, 0.7, 3, 3) == "revision_cap"
    assert council_outcome(None, 0.7, 0, 3) == "no_council"


def test_a_rejection_is_final_whatever_the_revision_count() -> None:
    assert council_outcome(0.0, 0.7, 0, 3, rejected=1.0) == "rejected"
    assert council_outcome(0.5, 0.7, 3, 3, rejected=0.5) == "rejected"
    assert council_outcome(0.75, 0.7, 0, 3, rejected=0.25) == "approved"
    assert rejection([vote("approve", 0.9), vote("reject", 0.3)]) == 0.25
    assert rejection([vote("failed")]) == 0.0


def test_code_flags_future_years_that_no_source_states() -> None:
    flagged = impossible_dates("Reefs died in 2091 and 2024.", "a source from 2024", 2025)
    assert flagged == ["impossible_date: 2091 is in the future and in no source"]
    assert impossible_dates("by 2030", "a target for 2030", 2025) == []


@pytest.mark.e2e
async def test_a_disagreeing_council_sends_the_brief_back_until_the_revision_cap(
    run_supervisor: Callable[..., Any],
) -> None:
    yes = use_scripted_model(SupervisorScript(council=["approve"]).model(), "yes")
    no = use_scripted_model(SupervisorScript(council=["revise"]).model(), "no")
    state, model = await run_supervisor(council_models=[yes, no], council_max_revisions=2)
    briefs = model.calls_for("ResearchQuestion")
    assert len(briefs) == 3  # the first brief and two revisions, then the cap
    assert FEEDBACK_LABEL not in briefs[0].prompt
    assert all("Name the time period to cover." in call.prompt for call in briefs[1:])
    assert state["council_outcome"] == "revision_cap" and state["council_revision_count"] == 2
    assert [v["decision"] for v in state["council_votes"]] == ["approve", "revise"] * 3
    assert state["metadata"]["council_consensus"] == 0.5 and state["report"]
    assert "(revision 2)" in state["research_brief"]


@pytest.mark.e2e
async def test_the_default_council_is_the_run_model_and_the_fast_model(
    run_supervisor: Callable[..., Any],
) -> None:
    smart = SupervisorScript().model()
    fast = SupervisorScript().model()
    smart_spec, fast_spec = use_scripted_model(smart, "smart"), use_scripted_model(fast, "fast")
    state, _ = await run_supervisor(chat_model=smart, model=smart_spec, fast_model=fast_spec)
    assert [v["model"] for v in state["council_votes"]] == [smart_spec, fast_spec]
    assert len(smart.calls_for("CouncilReview")) == len(fast.calls_for("CouncilReview")) == 1


@pytest.mark.e2e
async def test_a_rejected_brief_is_never_researched_even_with_revisions_left(
    run_supervisor: Callable[..., Any],
) -> None:
    yes = use_scripted_model(SupervisorScript(council=["approve"]).model(), "yes")
    no = use_scripted_model(
        SupervisorScript(council=["reject"], council_feedback="It asks about forests.").model(),
        "no",
    )
    state, model = await run_supervisor(council_models=[yes, no], council_max_revisions=3)
    assert state["council_outcome"] == "rejected" and "council_revision_count" not in state
    assert len(model.calls_for("ResearchQuestion")) == 1
    assert not [call for call in model.calls if (call.schema_name or "").startswith(TOOLS_KEY)]
    assert "rejected the research brief" in state["report"]
    assert "It asks about forests." in state["report"]
    assert state["metadata"]["council_outcome"] == "rejected" and not state["sources"]


@pytest.mark.e2e
async def test_the_councils_feedback_reaches_the_brief_as_one_instruction(
    run_supervisor: Callable[..., Any],
) -> None:
    first = SupervisorScript(council=["revise", "approve"], council_feedback="Name the years.")
    second = SupervisorScript(council=["revise", "approve"], council_feedback="Name the region.")
    a, b = use_scripted_model(first.model(), "a"), use_scripted_model(second.model(), "b")
    state, model = await run_supervisor(council_models=[a, b])
    [merge] = model.calls_for("FeedbackSynthesis")
    assert "- Name the years." in merge.prompt and "- Name the region." in merge.prompt
    instruction = "Revise the brief: Name the years; Name the region."
    assert state["feedback_on_brief"] == [instruction]
    revised = model.calls_for("ResearchQuestion")[1].prompt
    assert revised.count("Name the years") == 1 and f"- {instruction}" in revised
    assert state["council_outcome"] == "approved"


@pytest.mark.e2e
async def test_a_council_of_one_that_approves_lets_the_brief_through(
    run_supervisor: Callable[..., Any],
) -> None:
    state, model = await run_supervisor()
    assert len(model.calls_for("CouncilReview")) == 1
    assert state["council_outcome"] == "approved" and len(model.calls_for("ResearchQuestion")) == 1


@pytest.mark.e2e
async def test_a_failing_council_member_is_recorded_not_fatal(
    run_supervisor: Callable[..., Any],
) -> None:
    yes = use_scripted_model(SupervisorScript().model(), "yes")
    broken = use_scripted_model(ScriptedChatModel().script("CouncilReview", "no verdict"), "broken")
    state, _ = await run_supervisor(council_models=[yes, broken, "scripted:unregistered"])
    assert [v["decision"] for v in state["council_votes"]] == ["approve", "failed", "failed"]
    failed = {e["target"] for e in state["errors"] if e["node"] == "validate_brief"}
    assert failed == {broken, "scripted:unregistered"}
    assert state["council_outcome"] == "approved" and state["report"]


@pytest.mark.e2e
async def test_without_a_council_the_brief_goes_straight_on(
    run_supervisor: Callable[..., Any],
) -> None:
    state, model = await run_supervisor(use_council=False)
    assert not model.calls_for("CouncilReview") and state["council_outcome"] == "skipped"


async def paused_run(config: Configuration) -> tuple[Any, Any]:
    graph = graph_builder("supervisor")(checkpointer=InMemorySaver(), interrupt_on_clarify=True)
    thread: Any = {"configurable": {"thread_id": "review"}}
    await graph.ainvoke({"query": QUERY}, thread, context=config)
    return graph, thread


@pytest.mark.e2e
async def test_brief_review_interrupts_and_the_edited_brief_is_researched(
    make_config: Callable[..., Configuration],
) -> None:
    model = SupervisorScript().model()
    config = make_config(model=use_scripted_model(model), review_mode="brief")
    edited = "I want to know how the 2024 bleaching hit the Great Barrier Reef."
    async with open_services(config):
        graph, thread = await paused_run(config)
        paused = await graph.aget_state(thread)
        assert paused.next == ("review_brief",)
        question = paused.interrupts[0].value
        assert question["kind"] == "brief_review" and question["brief"].startswith("I want")
        await graph.ainvoke(Command(resume=edited), thread, context=config)
        state = (await graph.aget_state(thread)).values
    assert state["research_brief"] == state["human_approved_brief"] == edited
    supervisor_prompt = model.calls_for(f"{TOOLS_KEY}ConductResearch,ResearchComplete,think_tool")[
        0
    ]
    assert edited in supervisor_prompt.prompt and state["report"]


@pytest.mark.e2e
async def test_full_review_also_asks_about_the_report(
    make_config: Callable[..., Configuration],
) -> None:
    model = SupervisorScript().model()
    config = make_config(model=use_scripted_model(model), review_mode="full")
    async with open_services(config):
        graph, thread = await paused_run(config)
        await graph.ainvoke(Command(resume="approve"), thread, context=config)
        paused = await graph.aget_state(thread)
        assert paused.next == ("review_report",)
        assert paused.interrupts[0].value["report"].startswith("# ")
        await graph.ainvoke(Command(resume="Add more on recovery."), thread, context=config)
        again = await graph.aget_state(thread)
        assert again.next == ("review_report",)  # the revised report, for another look
        await graph.ainvoke(Command(resume="approve"), thread, context=config)
        state = (await graph.aget_state(thread)).values
    drafts = model.calls_for("ReportDraft")
    assert len(drafts) == 2 and REVIEW_FEEDBACK_LABEL not in drafts[0].prompt
    assert f"{REVIEW_FEEDBACK_LABEL} Add more on recovery." in drafts[1].prompt
    assert state["metadata"]["human_review"] == "approved" and state["report_revisions"] == 1


@pytest.mark.e2e
async def test_feedback_past_the_cap_is_kept_but_not_rewritten_again(
    make_config: Callable[..., Configuration],
) -> None:
    model = SupervisorScript().model()
    config = make_config(model=use_scripted_model(model), review_mode="full")
    async with open_services(config):
        graph, thread = await paused_run(config)
        await graph.ainvoke(Command(resume="approve"), thread, context=config)
        for turn in range(3):
            await graph.ainvoke(Command(resume=f"More detail {turn}."), thread, context=config)
        state = await graph.aget_state(thread)
    assert state.next == () and len(model.calls_for("ReportDraft")) == 3
    assert state.values["metadata"]["human_review"] == "More detail 2."


@pytest.mark.e2e
async def test_no_clarify_keeps_the_brief_review(make_config: Callable[..., Configuration]) -> None:
    model = SupervisorScript().model()
    config = make_config(model=use_scripted_model(model), review_mode="brief")
    graph = compile_pipeline("supervisor", InMemorySaver(), interrupt_on_clarify=False)
    thread: Any = {"configurable": {"thread_id": "no-clarify"}}
    async with open_services(config):
        await graph.ainvoke({"query": QUERY}, thread, context=config)
        paused = await graph.aget_state(thread)
    assert paused.next == ("review_brief",)
    assert paused.interrupts[0].value["kind"] == "brief_review"


@pytest.mark.e2e
async def test_flagged_findings_are_kept_and_shown_to_the_writer(
    run_supervisor: Callable[..., Any],
) -> None:
    issue = "The notes quote a survey without naming it."
    state, model = await run_supervisor(SupervisorScript(findings_issues=[issue]))
    assert state["flagged_issues"] == [f"uncited_claim: {issue}"]
    assert issue in model.calls_for("ReportDraft")[0].prompt
    assert state["metadata"]["flagged_issues"] == state["flagged_issues"]


@pytest.mark.e2e
@pytest.mark.parametrize("enabled", [True, False])
async def test_enable_brief_context_decides_the_preliminary_search(
    run_supervisor: Callable[..., Any], enabled: bool
) -> None:
    state, model = await run_supervisor(enable_brief_context=enabled)
    assert bool(model.calls_for("BriefContext")) == enabled
    assert bool(state.get("brief_context")) == enabled
