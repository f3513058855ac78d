"""The structured-output helper: tolerant parsing, repair, typed failure, records, fallbacks."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel, Field

from research_studio.core.errors import StructuredOutputError
from research_studio.llm.structured import ModelCaller, call_records, parse_json_payload
from research_studio.pipelines.kit.node_kit import error_record
from tests.doubles.scripted_model import TEXT, ScriptedChatModel


class Finding(BaseModel):
    fact: str
    confidence: float = Field(ge=0, le=1)


def caller(model: ScriptedChatModel) -> ModelCaller:
    return ModelCaller(model, spec="scripted:test", node="extract", tier="fast")


@pytest.mark.parametrize(
    "reply",
    [
        '{"fact": "x", "confidence": 0.5}',
        '```json\n{"fact": "x", "confidence": 0.5}\n```',
        '<think>Let me see {not json}</think>\n{"fact": "x", "confidence": 0.5}',
        'Sure! Here it is: {"fact": "x", "confidence": 0.5} Hope that helps {:)}',
    ],
)
def test_tolerant_parsing(reply: str) -> None:
    assert parse_json_payload(reply) == {"fact": "x", "confidence": 0.5}


def test_parse_without_json_raises() -> None:
    with pytest.raises(ValueError):
        parse_json_payload("no structure here")


async def test_valid_tool_call_is_returned_and_recorded() -> None:
    model = ScriptedChatModel().script("Finding", {"fact": "x", "confidence": 0.9})
    call = caller(model)
    result = await call.structured(Finding, [HumanMessage("extract")])
    assert result == Finding(fact="x", confidence=0.9)
    [record] = call.calls
    assert (record["node"], record["tier"], record["model"], record["ok"]) == (
        "extract",
        "fast",
        "scripted:test",
        True,
    )
    assert record["prompt_tokens"] and record["completion_tokens"]
    assert record["ended"] >= record["started"]


async def test_fenced_text_reply_is_accepted_without_a_retry() -> None:
    model = ScriptedChatModel().script(
        "Finding", ['<think>hm</think>```json\n{"fact": "y", "confidence": 1}\n```']
    )
    result = await caller(model).structured(Finding, [HumanMessage("extract")])
    assert result.fact == "y"
    assert len(model.calls) == 1


async def test_one_envelope_is_unwrapped() -> None:
    model = ScriptedChatModel().script("Finding", {"Finding": {"fact": "z", "confidence": 0.1}})
    assert (await caller(model).structured(Finding, [HumanMessage("x")])).fact == "z"


async def test_validation_error_is_shown_in_a_single_retry() -> None:
    model = ScriptedChatModel().script(
        "Finding", [{"fact": "x", "confidence": 7}, {"fact": "x", "confidence": 0.7}]
    )
    call = caller(model)
    result = await call.structured(Finding, [HumanMessage("extract")])
    assert result.confidence == 0.7
    retry_prompt = model.calls[1].prompt
    assert "confidence" in retry_prompt and "less than or equal to 1" in retry_prompt
    assert len(call.calls) == 2


async def test_third_failure_raises_one_typed_error() -> None:
    model = ScriptedChatModel().script("Finding", ["not json at all", "", '{"fact": 3}'])
    call = caller(model)
    with pytest.raises(StructuredOutputError) as caught:
        await call.structured(Finding, [HumanMessage("extract")])
    assert caught.value.schema_name == "Finding" and caught.value.kind == "invalid_json"
    assert "confidence" in caught.value.reason
    assert len(model.calls) == 3
    assert [(r["ok"], r["error_kind"]) for r in call.calls] == [(False, "invalid_json")] * 3
    assert "the reply was empty" in str(call.calls[1]["error"])


async def test_a_reply_cut_every_time_raises_a_truncated_error() -> None:
    cut = '{"fact": "the reef is bleach'
    model = ScriptedChatModel().script("Finding", [cut, cut, cut])
    with pytest.raises(StructuredOutputError) as caught:
        await caller(model).structured(Finding, [HumanMessage("extract")])
    assert caught.value.kind == "truncated" and caught.value.raw == cut
    assert error_record("extract", caught.value)["kind"] == "truncated"
    assert "cut off" in model.calls[-1].prompt and "shorter" in model.calls[-1].prompt


async def test_a_cut_reply_with_every_field_complete_is_used_and_labelled() -> None:
    model = ScriptedChatModel().script(
        "Finding", ['{"fact": "x", "confidence": 0.5, "note": "and then the reply stops mid']
    )
    call = caller(model)
    result = await call.structured(Finding, [HumanMessage("extract")])
    assert result == Finding(fact="x", confidence=0.5)
    [record] = call.calls
    assert record["ok"] and record["error_kind"] == "truncated"
    [state_record] = call_records(call)
    assert state_record["error_kind"] == "truncated"  # type: ignore[typeddict-item]


@pytest.mark.parametrize(
    "bad",
    [
        "I'm sorry, I can't format that as JSON.",
        "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>",
        "",
        '{"fact": "the reef',
    ],
)
async def test_unusable_replies_are_retried_twice(bad: str) -> None:
    model = ScriptedChatModel().script(
        "Finding", [bad, bad, 'Here you go: {"fact": "ok", "confidence": 1} Anything else?']
    )
    call = caller(model)
    assert (await call.structured(Finding, [HumanMessage("extract")])).fact == "ok"
    assert [r["ok"] for r in call.calls] == [False, False, True]
    assert call.calls[0]["error_kind"] == ("truncated" if bad.startswith("{") else "invalid_json")
    # Each repair shows the last unusable reply once, not the whole history.
    assert model.calls[2].prompt.count("could not be used") == 1


async def test_text_call_strips_think_blocks() -> None:
    model = ScriptedChatModel().script(TEXT, "<think>plan</think>\n# Report")
    assert await caller(model).text([HumanMessage("write")]) == "# Report"
