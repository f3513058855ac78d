"""The five judge evaluators against a scripted judge and against an OpenAI-compatible server."""

from __future__ import annotations

import ssl
from collections.abc import Callable
from pathlib import Path

import pytest

from research_studio.core.config import Configuration
from research_studio.core.errors import ConfigError
from research_studio.evaluation.judges import judge_checks, judge_groundedness, judge_relevance
from research_studio.evaluation.judging import Judge, default_judge
from research_studio.evaluation.snapshots import VerdictStore
from research_studio.sources.http_client import shared_ssl_context
from tests.doubles.fake_chat import ChatFaults
from tests.doubles.fake_web import FakeWeb
from tests.doubles.scripted_model import ScriptedChatModel, use_scripted_model
from tests.evaluation.conftest import chat_verdict
from tests.evaluation.outputs import write_run

MakeConfig = Callable[..., Configuration]
# What the fair judge's verdicts on write_run() score, judge by judge (relevance 4/5,
# groundedness 3/4, completeness 3/5, quality 3.6/5, faithfulness 5/5).
FAIR_SCORES = [0.75, 0.75, 0.5, 0.65, 1.0]


async def test_five_judges_score_a_run_through_structured_output(
    tmp_path: Path, judge_model: ScriptedChatModel
) -> None:
    output = write_run(tmp_path)
    judge = Judge("scripted:judge", Configuration())
    checks = {check.name: check for check in await judge_checks(judge, output, aspects=["cost"])}
    assert list(checks) == [
        "relevance",
        "groundedness",
        "completeness",
        "quality",
        "citation_faithfulness",
    ]
    assert checks["relevance"].score == 0.75 and checks["relevance"].details["sections"] == {
        "How cool roofs lower temperatures": 4,
        "How trees cool streets": 4,
    }
    assert (
        checks["groundedness"].score == 0.75
        and "3/4 claims grounded" in checks["groundedness"].reason
    )
    assert checks["groundedness"].details["ungrounded"] == ["an invented claim"]
    completeness = checks["completeness"]
    assert completeness.details["covered"] == ["How do cool roofs lower temperatures?"]
    assert completeness.details["missed"] == ["How do trees cool streets?", "cost"]
    assert checks["quality"].details["rating"] == 3.6 and checks["quality"].score == 0.65
    assert checks["citation_faithfulness"].score == 1.0
    assert all(check.passed for check in checks.values())
    # Each judge evaluator called the judge once, recorded under its own node.
    assert sorted(call["node"] for call in judge.calls) == [
        "judge_completeness",
        "judge_faithfulness",
        "judge_groundedness",
        "judge_quality",
        "judge_relevance",
    ]
    assert judge.costs().model_calls == 5 and judge.costs().prompt_tokens > 0
    report = next(call.prompt for call in judge_model.calls if call.schema_name == "QualityVerdict")
    # The report reaches the judge fenced as data, without its Sources list.
    assert "<<<\n# How do cool roofs" in report and "## Sources" not in report


async def test_a_grounded_claim_must_name_evidence_the_run_has(tmp_path: Path) -> None:
    model = ScriptedChatModel().script(
        "GroundednessVerdict",
        {
            "claims": [
                {
                    "claim": "cool roofs reflect sunlight",
                    "grounded": True,
                    "evidence_ids": ["[E1]"],
                },
                {"claim": "roofs cure asthma", "grounded": True, "evidence_ids": ["E999"]},
                {"claim": "trees shade streets", "grounded": True, "evidence_ids": []},
            ]
        },
    )
    judge = Judge(use_scripted_model(model, "judge"), Configuration())
    check = await judge_groundedness(judge, write_run(tmp_path), None)
    assert check.details["grounded"] == 1 and check.details["claims"] == 3
    assert check.passed is False and check.score == 0.333


async def test_invalid_json_from_the_judge_is_retried_then_recorded(tmp_path: Path) -> None:
    model = ScriptedChatModel().script(
        "RelevanceVerdict", ["not json at all", "I cannot rate this.", "Sure! Here it is."]
    )
    judge = Judge(use_scripted_model(model, "judge"), Configuration())
    check = await judge_relevance(judge, write_run(tmp_path), None)
    assert check.passed is None and check.score is None
    assert check.reason.startswith("judge failed (invalid_json)")
    assert check.details["error_kind"] == "invalid_json"
    # Three answers: the first and two repairs, each shown its problem, all on record.
    assert len(model.calls) == 3 and "could not be used" in model.calls[1].prompt
    assert [call["ok"] for call in judge.calls] == [False, False, False]
    assert judge.costs().failed_calls == 3


async def test_a_judge_failure_is_kept_so_rescoring_agrees_without_a_call(tmp_path: Path) -> None:
    model = ScriptedChatModel().script("RelevanceVerdict", "no JSON, ever")
    spec = use_scripted_model(model, "judge")
    output = write_run(tmp_path)
    store = VerdictStore(output.folder)
    first = await judge_relevance(Judge(spec, Configuration()), output, store)
    store.save()
    again = Judge(spec, Configuration())
    second = await judge_relevance(again, output, VerdictStore(output.folder))
    assert second.model_dump() == first.model_dump() and first.passed is None
    assert len(model.calls) == 3 and again.calls == [] and again.reused == 1
    # --rejudge: the kept failure is ignored and the judge is asked again.
    await judge_relevance(
        Judge(spec, Configuration()), output, VerdictStore(output.folder, reuse=False)
    )
    assert len(model.calls) == 6


async def test_a_repaired_judge_reply_is_used(tmp_path: Path) -> None:
    model = ScriptedChatModel().script(
        "RelevanceVerdict", ["```json\n{oops", {"sections": [{"section": 1, "score": 2}]}]
    )
    judge = Judge(use_scripted_model(model, "judge"), Configuration())
    check = await judge_relevance(judge, write_run(tmp_path), None)
    assert check.score == 0.25 and check.passed is False
    assert [call["ok"] for call in judge.calls] == [False, True]


async def test_out_of_range_ratings_are_refused_by_the_schema(tmp_path: Path) -> None:
    model = ScriptedChatModel().script(
        "RelevanceVerdict",
        [{"sections": [{"section": 1, "score": 9}]}, {"sections": [{"section": 1, "score": 5}]}],
    )
    judge = Judge(use_scripted_model(model, "judge"), Configuration())
    check = await judge_relevance(judge, write_run(tmp_path), None)
    assert check.score == 1.0 and len(model.calls) == 2


async def test_kept_verdicts_are_reused_without_a_model_call(
    tmp_path: Path, judge_model: ScriptedChatModel
) -> None:
    output = write_run(tmp_path)
    store = VerdictStore(output.folder)
    first = await judge_checks(Judge("scripted:judge", Configuration()), output, store)
    store.save()
    calls = len(judge_model.calls)
    again = Judge("scripted:judge", Configuration())
    second = await judge_checks(again, output, VerdictStore(output.folder))
    assert [c.score for c in second] == [c.score for c in first]
    assert len(judge_model.calls) == calls and again.calls == [] and again.reused == 5


async def test_judges_over_an_openai_compatible_server(
    tmp_path: Path, web: FakeWeb, make_config: MakeConfig
) -> None:
    web.chat.responder = chat_verdict
    config = make_config(openai_base_url=web.url("/v1"), llm_max_retries=0)
    judge = Judge("openai:fake-model", config)
    try:
        checks = await judge_checks(judge, write_run(tmp_path))
    finally:
        await judge.aclose()
    assert [check.score for check in checks] == [0.75, 0.75, 0.5, 0.65, 1.0]
    assert len(web.chat.requests) == 5
    assert all(call["prompt_tokens"] for call in judge.calls)


async def test_judges_survive_a_server_that_breaks_replies(
    tmp_path: Path, web: FakeWeb, make_config: MakeConfig
) -> None:
    web.chat.responder = chat_verdict
    # At most two broken replies: the judges run concurrently, so which judge gets which fault
    # depends on arrival order, and each structured call repairs at least two in a row.
    web.chat.faults = ChatFaults(rate=0.5, seed=7, kinds=("prose", "truncated", "empty"), limit=2)
    config = make_config(openai_base_url=web.url("/v1"), llm_max_retries=0)
    judge = Judge("openai:fake-model", config)
    try:
        checks = await judge_checks(judge, write_run(tmp_path))
    finally:
        await judge.aclose()
    assert web.chat.injected
    # The fair judge's verdicts, scored as when no reply broke (as in the first test).
    assert [check.score for check in checks] == FAIR_SCORES, [c.reason for c in checks]
    assert len(judge.calls) == 5 + len(web.chat.injected)


async def test_invalid_json_from_an_openai_compatible_judge_is_recorded(
    tmp_path: Path, web: FakeWeb, make_config: MakeConfig
) -> None:
    web.chat.queue("no JSON here", "still none", "{broken")
    config = make_config(openai_base_url=web.url("/v1"), llm_max_retries=0)
    judge = Judge("openai:fake-model", config)
    try:
        check = await judge_relevance(judge, write_run(tmp_path), None)
    finally:
        await judge.aclose()
    assert check.passed is None and check.details["error_kind"] == "invalid_json"
    assert len(web.chat.requests) == 3


def test_the_judge_defaults_to_the_smart_model_and_checks_its_spec() -> None:
    assert (
        default_judge(Configuration(model="openai:gpt-4o", fast_model="openai:mini"))
        == "openai:gpt-4o"
    )
    with pytest.raises(ConfigError, match="provider:name"):
        Judge("gpt-4o", Configuration())


def test_a_judge_loads_no_ca_bundle_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge's model client uses the process's TLS context (sources.http_client): building
    one per judge cost a CA-bundle load on the event loop."""
    shared_ssl_context()  # the process's context, loaded once
    loads: list[object] = []
    monkeypatch.setattr(
        ssl.SSLContext, "load_verify_locations", lambda *args, **kwargs: loads.append(args)
    )
    for _ in range(3):
        Judge(use_scripted_model(ScriptedChatModel(), "judge"), Configuration()).caller("judge")
    assert loads == []
