"""Naming what a failed model call was, and shortening a prompt that is too long."""

from __future__ import annotations

import httpx
import ollama
import openai
import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from research_studio.llm.model_faults import failure_kind, shorten


def api_error(status: int, message: str) -> openai.APIStatusError:
    response = httpx.Response(status, request=httpx.Request("POST", "http://127.0.0.1/v1"))
    classes = {
        400: openai.BadRequestError,
        401: openai.AuthenticationError,
        404: openai.NotFoundError,
        429: openai.RateLimitError,
    }
    return classes.get(status, openai.InternalServerError)(message, response=response, body=None)


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (
            api_error(400, "This model's maximum context length is 8192 tokens. Please reduce"),
            "context_length",
        ),
        (
            ollama.ResponseError("prompt is too long: 9000 tokens > 8192 maximum", 400),
            "context_length",
        ),
        (
            api_error(400, "response_format 'json_schema' is not supported by this model"),
            "unsupported",
        ),
        (
            ollama.ResponseError("registry.ollama.ai/library/gemma does not support tools", 400),
            "unsupported",
        ),
        (
            api_error(400, "Invalid schema for response_format 'Plan': 'required' is missing"),
            "bad_request",
        ),
        (api_error(400, "Invalid value for 'temperature': must be at most 2"), "bad_request"),
        (api_error(404, "The model 'gpt-9' does not exist"), "not_found"),
        (api_error(401, "Incorrect API key provided"), "auth"),
        (api_error(429, "Rate limit reached"), "rate_limited"),
        (api_error(500, "<html><h1>500 Internal Server Error</h1></html>"), "server_error"),
        (httpx.ReadTimeout("timed out"), "timeout"),
        (httpx.ConnectError("connection refused"), "network"),
        (NotImplementedError("no tools"), "unsupported"),
    ],
)
def test_failures_are_named_by_what_they_were(error: BaseException, kind: str) -> None:
    assert failure_kind(error) == kind


def test_shorten_halves_the_longest_message_keeping_its_start_and_end() -> None:
    page = "START " + "filler " * 300 + " END"
    messages = [SystemMessage("rules"), HumanMessage(page), HumanMessage("question?")]
    shorter = shorten(messages)
    assert shorter is not None
    assert [m.content for m in (shorter[0], shorter[2])] == ["rules", "question?"]
    cut = str(shorter[1].content)
    assert cut.startswith("START ") and cut.endswith(" END") and "cut to fit" in cut
    assert len(cut) < 0.6 * len(page)
    assert isinstance(shorter[1], HumanMessage)


def test_short_prompts_are_not_shortened() -> None:
    assert shorten([HumanMessage("a short question")]) is None
