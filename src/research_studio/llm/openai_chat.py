"""A chat model for OpenAI-compatible chat-completions endpoints, spoken over httpx.

Why not langchain-openai: its ChatOpenAI imports the openai SDK, and `import openai` loads a type
for every part of OpenAI's API (about 0.85 CPU-s, a third of a cold run's imports). A run needs
one request: POST {base_url}/chat/completions, with tools, a response format or neither. The
wire format follows what ChatOpenAI sends (strict JSON schema, forced tool choice, no parallel
tool calls for structured output); retries follow the openai client's rules (408, 409, 429 and
5xx, Retry-After honoured). Errors keep the status and response the failure classifier reads.
"""

from __future__ import annotations

import asyncio
import functools
import json
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, convert_to_openai_messages
from langchain_core.messages.ai import UsageMetadata
from langchain_core.messages.tool import invalid_tool_call, tool_call
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.utils.function_calling import convert_to_openai_tool
from langchain_core.utils.json import parse_json_markdown
from pydantic import BaseModel, ConfigDict, Field, SecretStr

from research_studio.llm.messages import message_text

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_RETRIED_STATUSES = frozenset({408, 409, 429})
_FIRST_DELAY_S, _MAX_DELAY_S, _MAX_RETRY_AFTER_S = 0.5, 8.0, 60.0  # as the openai client


class _ModelStatusError(Exception):
    """The server answered with an error status (its code and response kept for classifying)."""

    def __init__(self, response: httpx.Response) -> None:
        self.status_code = response.status_code
        self.response = response
        super().__init__(f"Error code: {response.status_code} - {_error_message(response)}")


class _ModelConnectionError(Exception):
    """The request never got an answer (refused, reset, closed): the address or network."""


def _error_message(response: httpx.Response) -> str:
    """The error's own message from an OpenAI-style body, else the status's reason phrase."""
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        error = None
    message = error.get("message") if isinstance(error, dict) else error
    return str(message) if message else response.reason_phrase


def _retry_delay(attempt: int, response: httpx.Response | None) -> float:
    """Seconds before retry `attempt` (0-based): the server's Retry-After, else backoff."""
    if response is not None:
        for header, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
            try:
                seconds = float(response.headers.get(header, "")) * scale
            except ValueError:
                continue
            if 0 <= seconds <= _MAX_RETRY_AFTER_S:
                return seconds
    delay = min(_FIRST_DELAY_S * 2**attempt, _MAX_DELAY_S)
    return delay * (1 - 0.25 * random.random())


def _should_retry(response: httpx.Response) -> bool:
    return response.status_code in _RETRIED_STATUSES or response.status_code >= 500


def _completion(response: httpx.Response) -> dict[str, Any]:
    """The chat completion in a 2xx reply; raises what a malformed reply is (ValueError kinds)."""
    if response.status_code >= 400:
        raise _ModelStatusError(response)
    try:
        body = response.json()
    except json.JSONDecodeError as exc:
        exc.response = response  # type: ignore[attr-defined]  # read by the failure classifier
        raise
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        error = ValueError("the reply holds no chat completion choices")
        error.response = response  # type: ignore[attr-defined]
        raise error
    return body


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema in the form OpenAI's strict structured outputs need, as the openai client
    makes it: closed objects, every property required, no null defaults, lone allOf merged."""
    schema = dict(schema)
    for key in ("$defs", "definitions"):
        if isinstance(schema.get(key), dict):
            schema[key] = {name: strict_schema(part) for name, part in schema[key].items()}
    properties = schema.get("properties")
    if schema.get("type") == "object" or isinstance(properties, dict):
        schema.setdefault("additionalProperties", False)
        if isinstance(properties, dict):
            schema["properties"] = {name: strict_schema(p) for name, p in properties.items()}
            schema["required"] = list(properties)
    if isinstance(schema.get("items"), dict):
        schema["items"] = strict_schema(schema["items"])
    if isinstance(schema.get("anyOf"), list):
        schema["anyOf"] = [strict_schema(part) for part in schema["anyOf"]]
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1:
        del schema["allOf"]
        schema.update(strict_schema(all_of[0]))
    elif isinstance(all_of, list):
        schema["allOf"] = [strict_schema(part) for part in all_of]
    if "default" in schema and schema["default"] is None:
        del schema["default"]
    return schema


def _tool_choice(choice: object) -> object:
    """ChatOpenAI's spellings of a tool choice, in the wire format."""
    if choice is True or choice == "any":
        return "required"
    if isinstance(choice, str) and choice not in ("auto", "none", "required"):
        return {"type": "function", "function": {"name": choice}}
    return choice


def _message(completion: dict[str, Any]) -> AIMessage:
    """The first choice as an AIMessage: text, tool calls (unreadable ones kept apart), usage."""
    choice = completion["choices"][0]
    wire = choice.get("message") or {}
    calls, invalid = [], []
    for call in wire.get("tool_calls") or []:
        function = call.get("function") or {}
        name, arguments = function.get("name") or "", function.get("arguments") or ""
        try:
            args = json.loads(arguments) if arguments else {}
            if not isinstance(args, dict):
                raise ValueError("tool arguments are not a JSON object")
            calls.append(tool_call(name=name, args=args, id=call.get("id")))
        except ValueError as exc:
            invalid.append(
                invalid_tool_call(name=name, args=arguments, id=call.get("id"), error=str(exc))
            )
    usage = completion.get("usage") or {}
    metadata = {
        "finish_reason": choice.get("finish_reason"),
        "model_name": completion.get("model"),
        "id": completion.get("id"),
        "token_usage": usage,
        "model_provider": "openai",
    }
    extra = {"refusal": wire["refusal"]} if wire.get("refusal") else {}
    return AIMessage(
        content=wire.get("content") or "",
        tool_calls=calls,
        invalid_tool_calls=invalid,
        additional_kwargs=extra,
        response_metadata=metadata,
        usage_metadata=UsageMetadata(
            input_tokens=int(usage.get("prompt_tokens") or 0),
            output_tokens=int(usage.get("completion_tokens") or 0),
            total_tokens=int(usage.get("total_tokens") or 0),
        )
        if usage
        else None,
    )


def _parser(schema: Any, method: str, include_raw: bool) -> Callable[[AIMessage], Any]:
    """Reads a structured reply: the schema's instance (or dict), or with `include_raw` the
    {"raw", "parsed", "parsing_error"} the callers of with_structured_output expect."""

    def parse(raw: AIMessage) -> Any:
        if raw.response_metadata.get("finish_reason") == "length":
            raise ValueError("the reply was cut off at the length limit")
        if method == "function_calling":
            if not raw.tool_calls:
                raise ValueError("the reply calls no tool")
            payload: Any = raw.tool_calls[0]["args"]
        else:
            payload = parse_json_markdown(message_text(raw))
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            return schema.model_validate(payload)
        return payload

    def read(raw: AIMessage) -> Any:
        if not include_raw:
            return parse(raw)
        try:
            return {"raw": raw, "parsed": parse(raw), "parsing_error": None}
        except ValueError as exc:  # pydantic's ValidationError and JSON errors are ValueErrors
            return {"raw": raw, "parsed": None, "parsing_error": exc}

    return read


class OpenAICompatibleChat(BaseChatModel):
    """Chat completions from OpenAI or any server that speaks its API (vLLM, llama.cpp, ...)."""

    model_config = ConfigDict(
        arbitrary_types_allowed=True, populate_by_name=True, protected_namespaces=()
    )

    model_name: str = Field(alias="model")
    api_key: SecretStr = SecretStr("not-needed")
    base_url: str = DEFAULT_BASE_URL
    temperature: float | None = None
    timeout: float | None = None
    max_retries: int = 2
    # One client per event loop: the caller owns it and closes it (None: one per call).
    http_async_client: httpx.AsyncClient | None = Field(default=None, exclude=True)

    @property
    def _llm_type(self) -> str:
        return "openai-compatible"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name, "base_url": self.base_url}

    def _payload(self, messages: Sequence[BaseMessage], **kwargs: Any) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.model_name,
            "messages": convert_to_openai_messages(list(messages)),
            "stream": False,
        }
        name = self.model_name.lower()
        # gpt-5 (but its chat model) and o1 accept only their default temperature.
        fixed = name.startswith("o1") or (name.startswith("gpt-5") and "chat" not in name)
        if self.temperature is not None and not (fixed and self.temperature != 1):
            payload["temperature"] = self.temperature
        payload.update({key: value for key, value in kwargs.items() if value is not None})
        return payload

    def _request(self) -> tuple[str, dict[str, str]]:
        url = self.base_url.rstrip("/") + "/chat/completions"
        return url, {"Authorization": f"Bearer {self.api_key.get_secret_value()}"}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        url, headers = self._request()
        payload = self._payload(messages, stop=stop, **kwargs)
        with httpx.Client(timeout=self.timeout) as client:
            for attempt in range(self.max_retries + 1):
                last = attempt == self.max_retries
                try:
                    response = client.post(url, json=payload, headers=headers)
                except httpx.TimeoutException:
                    if last:
                        raise
                    response = None
                except httpx.TransportError as exc:
                    if last:
                        raise _ModelConnectionError(f"connection error: {exc}") from exc
                    response = None
                if response is not None and (last or not _should_retry(response)):
                    return _result(_completion(response))
                time.sleep(_retry_delay(attempt, response))
        raise AssertionError("unreachable")

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        url, headers = self._request()
        payload = self._payload(messages, stop=stop, **kwargs)
        client = self.http_async_client or httpx.AsyncClient(timeout=self.timeout)
        try:
            for attempt in range(self.max_retries + 1):
                last = attempt == self.max_retries
                try:
                    response = await client.post(
                        url, json=payload, headers=headers, timeout=self.timeout
                    )
                except httpx.TimeoutException:
                    if last:
                        raise
                    response = None
                except httpx.TransportError as exc:
                    if last:
                        raise _ModelConnectionError(f"connection error: {exc}") from exc
                    response = None
                if response is not None and (last or not _should_retry(response)):
                    return _result(_completion(response))
                await asyncio.sleep(_retry_delay(attempt, response))
        finally:
            if client is not self.http_async_client:
                await client.aclose()
        raise AssertionError("unreachable")

    def bind_tools(
        self,
        tools: Sequence[Mapping[str, Any] | type | Callable[..., Any] | Any],
        *,
        tool_choice: object = None,
        **kwargs: Any,
    ) -> Runnable[Any, AIMessage]:
        """The model offered `tools` (any form LangChain converts), optionally forced to one."""
        specs = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=specs, tool_choice=_tool_choice(tool_choice), **kwargs)

    def with_structured_output(
        self,
        schema: Mapping[str, Any] | type,
        *,
        method: str = "json_schema",
        include_raw: bool = False,
        strict: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[Any, Any]:
        """Replies as `schema`: a strict JSON schema, a forced tool call, or JSON mode."""
        if method not in _STRUCTURED_METHODS:
            raise ValueError(f"unknown structured output method {method!r}")
        # A schema class is converted once per process; a schema given as a mapping every time.
        build = _cached_structured_request if isinstance(schema, type) else _structured_request
        request = build(schema, method, strict)
        bound: Runnable[Any, AIMessage] = self.bind(**request)
        return bound | RunnableLambda(_parser(schema, method, include_raw))


_STRUCTURED_METHODS = ("function_calling", "json_schema", "json_mode")


def _structured_request(
    schema: Mapping[str, Any] | type, method: str, strict: bool | None
) -> dict[str, Any]:
    """The request fields that ask for replies as `schema` with `method`."""
    tool = convert_to_openai_tool(schema)  # (also in JSON mode: a schema it refuses is refused)
    if method == "json_mode":
        return {"response_format": {"type": "json_object"}}
    function = tool["function"]
    if method == "function_calling":
        if strict:
            function["strict"] = True
        return {
            "tools": [tool],
            "tool_choice": {"type": "function", "function": {"name": function["name"]}},
            "parallel_tool_calls": False,
        }
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        parameters = schema.model_json_schema()  # titles kept, as ChatOpenAI sends it
    else:
        parameters = function.get("parameters") or {}
    format_ = {
        "name": function["name"],
        "schema": strict_schema(parameters),
        "strict": strict is not False,
    }
    return {"response_format": {"type": "json_schema", "json_schema": format_}}


# Converting a schema costs milliseconds and a run asks for the same few schemas on every call:
# their request fields are built once per process, shared by every call and never changed.
_cached_structured_request = functools.lru_cache(maxsize=256)(_structured_request)


def _result(completion: dict[str, Any]) -> ChatResult:
    message = _message(completion)
    return ChatResult(
        generations=[ChatGeneration(message=message)],
        llm_output={"model_name": completion.get("model")},
    )
