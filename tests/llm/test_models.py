"""Chat model resolution, and structured output over a real OpenAI-compatible HTTP endpoint."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from research_studio.core.config import Configuration
from research_studio.core.errors import ConfigError, ModelError, StructuredOutputError
from research_studio.llm.models import create_chat_model, model_spec_for, split_spec
from research_studio.services.clients import open_services
from tests.doubles.fake_chat import ChatFaults
from tests.doubles.fake_web import FakeWeb, Fault


class Verdict(BaseModel):
    supported: bool
    reason: str


def openai_config(web: FakeWeb, make_config: Callable[..., Configuration]) -> Configuration:
    return make_config(model="openai:fake-model", openai_base_url=web.url("/v1"), llm_max_retries=0)


async def ask(config: Configuration) -> tuple[Verdict, list[str]]:
    async with open_services(config) as services:
        caller = services.caller("verify", "smart")
        verdict = await caller.structured(Verdict, [HumanMessage("Is the sky blue?")])
        return verdict, [call["method"] for call in caller.calls]


def response_kind(request: dict) -> str:
    if request.get("tools"):
        return "tools"
    return (request.get("response_format") or {}).get("type", "plain")


async def test_native_json_schema_is_tried_first(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.chat.queue({"supported": True, "reason": "it is"})
    verdict, methods = await ask(openai_config(web, make_config))
    assert verdict.supported and methods == ["json_schema"]
    assert [response_kind(r) for r in web.chat.requests] == ["json_schema"]


async def test_function_calling_only_server(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.chat.supports_json_schema = False
    web.chat.queue({"supported": False, "reason": "no"}, {"supported": True, "reason": "again"})
    config = openai_config(web, make_config)
    async with open_services(config) as services:
        first = await services.caller("verify", "smart").structured(Verdict, [HumanMessage("q")])
        second = await services.caller("verify", "smart").structured(Verdict, [HumanMessage("q")])
    assert (first.reason, second.reason) == ("no", "again")
    # The refused method is remembered: the second call goes straight to tools.
    assert [response_kind(r) for r in web.chat.requests] == ["json_schema", "tools", "tools"]


async def test_every_call_for_a_schema_sends_the_same_schema_fields(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    """The schema's request fields are built once per process: no call may alter the next's."""
    web.chat.supports_json_schema = False  # the first call of each caller also tries json_schema
    web.chat.queue(*({"supported": True, "reason": f"call {n}"} for n in range(3)))
    config = openai_config(web, make_config)
    async with open_services(config) as services:
        for _ in range(3):
            await services.caller("verify", "smart").structured(Verdict, [HumanMessage("q")])
    sent = [
        (r.get("response_format"), r.get("tools"), r.get("tool_choice")) for r in web.chat.requests
    ]
    schema, tools = sent[0], sent[1]
    assert schema[0]["type"] == "json_schema" and tools[1][0]["function"]["name"] == "Verdict"
    assert schema[0]["json_schema"]["schema"]["additionalProperties"] is False
    assert sent == [schema, tools, tools, tools]


async def test_json_mode_only_server_gets_schema_instructions(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.chat.supports_json_schema = False
    web.chat.supports_tools = False
    web.chat.queue('```json\n{"supported": true, "reason": "fenced"}\n```')
    verdict, methods = await ask(openai_config(web, make_config))
    assert verdict.reason == "fenced"
    assert methods == ["json_schema", "function_calling", "json_mode"]
    last = web.chat.requests[-1]
    assert response_kind(last) == "json_object"
    assert "JSON schema" in json.dumps(last["messages"]) and "supported" in json.dumps(
        last["messages"]
    )


async def test_plain_server_with_think_blocks_and_repair(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.chat.supports_json_schema = web.chat.supports_tools = web.chat.supports_json_mode = False
    web.chat.queue(
        '<think>hmm</think>{"supported": "maybe"}',
        'Sure: {"supported": true, "reason": "fixed"} done.',
    )
    verdict, methods = await ask(openai_config(web, make_config))
    assert verdict.reason == "fixed"
    assert methods[-2:] == ["prompt", "prompt"]
    assert "could not be used" in json.dumps(web.chat.requests[-1]["messages"])


async def test_unusable_replies_raise_one_typed_error(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.chat.queue("nope", "still nope", "<html><body>nope</body></html>")
    with pytest.raises(StructuredOutputError, match="Verdict") as caught:
        await ask(openai_config(web, make_config))
    assert caught.value.kind == "invalid_json"
    assert len(web.chat.requests) == 3


async def test_a_reply_cut_at_the_length_limit_is_retried(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.chat.faults = ChatFaults(rate=1.0, kinds=("truncated",), limit=1)
    web.chat.queue({"supported": True, "reason": "it is blue"})
    config = openai_config(web, make_config)
    async with open_services(config) as services:
        caller = services.caller("verify", "smart")
        verdict = await caller.structured(Verdict, [HumanMessage("Is the sky blue?")])
    assert verdict == Verdict(supported=True, reason="it is blue")
    assert web.chat.injected == ["truncated"]
    assert [(call["ok"], call["error_kind"]) for call in caller.calls] == [
        (False, "truncated"),
        (True, None),
    ]
    # Same method both times; the retry shows the cut reply and asks for a shorter one.
    assert [response_kind(r) for r in web.chat.requests] == ["json_schema", "json_schema"]
    assert "cut off" in json.dumps(web.chat.requests[1]["messages"])


async def test_a_context_length_400_shortens_this_call_and_keeps_the_method(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.chat.max_prompt_chars = 2_000
    web.chat.queue({"supported": True, "reason": "short"}, {"supported": False, "reason": "next"})
    page = "BEGIN " + "coral reefs bleach when the sea is hot. " * 100 + " END"
    config = openai_config(web, make_config)
    async with open_services(config) as services:
        first = services.caller("verify", "smart")
        await first.structured(Verdict, [HumanMessage(page)])
        second = services.caller("judge", "smart")
        verdict = await second.structured(Verdict, [HumanMessage("Is the sky blue?")])
    assert verdict.reason == "next"
    # The refusal was handled inside the first call; the next call still used json_schema.
    assert [response_kind(r) for r in web.chat.requests] == ["json_schema"] * 4
    sent = [r["messages"][0]["content"] for r in web.chat.requests]
    assert len(sent[0]) > 2_000 and len(sent[1]) > 2_000 and len(sent[2]) <= 2_000
    assert sent[2].startswith("BEGIN ") and sent[2].endswith(" END")
    assert [c["error_kind"] for c in first.calls] == ["context_length", "context_length", None]
    assert [c["method"] for c in second.calls] == ["json_schema"]


async def test_a_prompt_that_cannot_be_shortened_enough_is_a_context_length_error(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.chat.max_prompt_chars = 10
    with pytest.raises(ModelError) as caught:
        await ask(openai_config(web, make_config))
    assert caught.value.kind == "context_length"
    assert len(web.chat.requests) == 1  # the prompt is too short to cut


async def test_a_bad_request_tries_the_next_method_for_this_call_only(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.set_fault("/v1/chat/completions", Fault(kind="status", status=400, times=1))
    web.chat.queue({"supported": True, "reason": "tools"}, {"supported": True, "reason": "again"})
    config = openai_config(web, make_config)
    async with open_services(config) as services:
        first = services.caller("verify", "smart")
        await first.structured(Verdict, [HumanMessage("q")])
        second = services.caller("verify", "smart")
        verdict = await second.structured(Verdict, [HumanMessage("q")])
    assert verdict.reason == "again"
    assert [(c["method"], c["error_kind"]) for c in first.calls] == [
        ("json_schema", "bad_request"),
        ("function_calling", None),
    ]
    assert [c["method"] for c in second.calls] == ["json_schema"]


async def test_an_html_error_page_is_a_server_error(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.chat.faults = ChatFaults(rate=1.0, kinds=("html_500",))
    with pytest.raises(ModelError) as caught:
        await ask(openai_config(web, make_config))
    assert caught.value.kind == "server_error" and "500" in str(caught.value)
    assert web.chat.injected == ["html_500"]


async def test_a_429_is_retried_after_retry_after_then_labelled(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    config = make_config(
        model="openai:fake-model", openai_base_url=web.url("/v1"), llm_max_retries=1
    )
    web.chat.faults = ChatFaults(rate=1.0, kinds=("rate_limit",), retry_after_s=0.01, limit=1)
    web.chat.queue({"supported": True, "reason": "after one retry"})
    verdict, _ = await ask(config)
    assert verdict.reason == "after one retry" and web.chat.injected == ["rate_limit"]

    web.chat.reset()
    web.chat.faults = ChatFaults(rate=1.0, kinds=("rate_limit",), retry_after_s=0.01)
    with pytest.raises(ModelError) as caught:
        await ask(config)
    assert caught.value.kind == "rate_limited"
    assert web.chat.injected == ["rate_limit", "rate_limit"]  # one client retry, then the error


async def test_server_failure_is_a_model_error(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    with pytest.raises(ModelError) as caught:  # nothing queued: the server answers 500
        await ask(openai_config(web, make_config))
    assert caught.value.kind == "server_error"


def test_spec_errors_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="provider:name"):
        split_spec("gpt-4o")
    with pytest.raises(ConfigError, match="unknown model provider 'foo'"):
        split_spec("foo:bar")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        create_chat_model("openai:gpt-4o-mini", Configuration())
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        create_chat_model("anthropic:claude-haiku-4-5", Configuration())


def test_builtin_providers_are_built_with_their_settings() -> None:
    config = Configuration(
        openai_api_key="sk-x", anthropic_api_key="sk-ant", ollama_host="http://127.0.0.1:11434"
    )
    assert type(create_chat_model("openai:gpt-4o-mini", config)).__name__ == "OpenAICompatibleChat"
    assert type(create_chat_model("anthropic:claude-haiku-4-5", config)).__name__ == "ChatAnthropic"
    ollama = create_chat_model("ollama:llama3.1", config)
    assert type(ollama).__name__ == "ChatOllama" and ollama.base_url == "http://127.0.0.1:11434"


def test_model_choice_per_node() -> None:
    config = Configuration(
        model="openai:big",
        fast_model="openai:small",
        model_overrides={"write_report": "anthropic:w"},
    )
    assert model_spec_for(config, "plan", "smart") == "openai:big"
    assert model_spec_for(config, "extract", "fast") == "openai:small"
    assert model_spec_for(config, "write_report", "smart") == "anthropic:w"
    assert model_spec_for(Configuration(model="openai:big"), "extract", "fast") == "openai:big"
    with pytest.raises(ConfigError, match="no chat model configured"):
        model_spec_for(Configuration(), "plan", "smart")


class Source(BaseModel):
    url: str
    note: str | None = None


class Sources(BaseModel):
    sources: list[Source]


async def test_the_json_schema_sent_is_strict_down_to_nested_objects(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.chat.queue({"sources": [{"url": "https://a.example", "note": None}]})
    async with open_services(openai_config(web, make_config)) as services:
        caller = services.caller("verify", "smart")
        found = await caller.structured(Sources, [HumanMessage("Which sources?")])
    assert found.sources == [Source(url="https://a.example")]
    sent = web.chat.requests[0]["response_format"]["json_schema"]
    assert sent["strict"] is True and sent["name"] == "Sources"
    nested = sent["schema"]["$defs"]["Source"]
    # OpenAI's strict mode: every property required, no other keys, no null default.
    assert nested["required"] == ["url", "note"] and nested["additionalProperties"] is False
    assert "default" not in nested["properties"]["note"]
    assert sent["schema"]["additionalProperties"] is False
