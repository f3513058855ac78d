"""Model calls for nodes: schema in, validated object out, with method fallback, repair and records."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import time
from collections.abc import Sequence
from typing import Any, Literal, TypeVar

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ValidationError

from research_studio.errors import FailureKind, ModelError, StructuredOutputError
from research_studio.models import LLMCall, ModelTier
from research_studio.prompts.structured import REPAIR_REQUEST, SCHEMA_INSTRUCTIONS
from research_studio.state import LLMCallRecord

SchemaT = TypeVar("SchemaT", bound=BaseModel)
Method = Literal["json_schema", "function_calling", "json_mode", "prompt"]
ALL_METHODS: tuple[Method, ...] = ("json_schema", "function_calling", "json_mode", "prompt")

_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
# Status codes with which servers say "I do not support this request shape".
_UNSUPPORTED_STATUS = frozenset({400, 404, 415, 422, 501})


class _Unsupported(Exception):
    """The model or server cannot serve this structured-output method."""


class _ParseFailure(Exception):
    """The client library rejected the reply while parsing it (some parse inside `invoke`)."""

    def __init__(self, raw: str, error: str) -> None:
        super().__init__(error)
        self.raw = raw


def _raw_from_parse_error(exc: Exception) -> str:
    """The reply text a client-side parse error carries, when it carries one."""
    if isinstance(exc, ValidationError):
        for error in exc.errors():
            if isinstance(error.get("input"), str):
                return str(error["input"])
    return getattr(exc, "llm_output", None) or ""


class MethodMemory:
    """Remembers which methods a model refused, so later calls skip them."""

    def __init__(self) -> None:
        self._refused: dict[str, set[str]] = {}

    def refused(self, key: str) -> set[str]:
        return self._refused.setdefault(key, set())


def message_text(message: BaseMessage) -> str:
    """The text of a message whose content may be a string or a list of blocks."""
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(
        block.get("text", "") if isinstance(block, dict) else str(block) for block in content
    )


def parse_json_payload(text: str) -> Any:
    """The first JSON value in a reply, ignoring <think> blocks, code fences and surrounding prose."""
    cleaned = _THINK.sub("", text).strip()
    candidates = [match.group(1).strip() for match in _FENCE.finditer(cleaned)] + [cleaned]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        for index, char in enumerate(candidate):
            if char in "{[":
                try:
                    return decoder.raw_decode(candidate, index)[0]
                except json.JSONDecodeError:
                    continue
    raise ValueError("no JSON object found in the reply")


def validate_payload(schema: type[SchemaT], payload: Any) -> SchemaT:
    """Validate, unwrapping a one-key envelope like {"Plan": {...}} that small models produce."""
    try:
        return schema.model_validate(payload)
    except ValidationError:
        if isinstance(payload, dict) and len(payload) == 1:
            inner = next(iter(payload.values()))
            if isinstance(inner, dict):
                return schema.model_validate(inner)
        raise


def _is_unsupported(exc: BaseException) -> bool:
    if isinstance(exc, NotImplementedError):
        return True
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status in _UNSUPPORTED_STATUS


def _failure_kind(exc: BaseException) -> FailureKind:
    name = type(exc).__name__.lower()
    if "timeout" in name:
        return "timeout"
    if "connect" in name:
        return "network"
    if "ratelimit" in name:
        return "rate_limited"
    return "server_error"


def _describe(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        problems = [
            f"{'.'.join(str(part) for part in error['loc']) or 'value'}: {error['msg']}"
            for error in exc.errors()[:8]
        ]
        return "; ".join(problems)
    return str(exc)


def _raw_text(raw: BaseMessage) -> str:
    if isinstance(raw, AIMessage) and raw.tool_calls:
        return json.dumps(raw.tool_calls[0]["args"])
    return message_text(raw)


def call_records(*callers: ModelCaller) -> list[LLMCallRecord]:
    """The calls made through these callers, as state records."""
    return [
        LLMCallRecord(**call.model_dump())  # type: ignore[typeddict-item]
        for caller in callers
        for call in caller.calls
    ]


class ModelCaller:
    """Calls one chat model on behalf of one node; every call is bounded and recorded."""

    def __init__(
        self,
        model: BaseChatModel,
        *,
        spec: str,
        node: str,
        tier: ModelTier,
        limiter: asyncio.Semaphore | None = None,
        memory: MethodMemory | None = None,
    ) -> None:
        self.model = model
        self.spec = spec
        self.node = node
        self.tier = tier
        self.calls: list[LLMCall] = []
        self._limiter = limiter or asyncio.Semaphore(1_000)
        self._memory = memory or MethodMemory()
        # The base implementation takes no `method`: it only offers tool calling.
        parameters = inspect.signature(type(model).with_structured_output).parameters
        self._accepts_method = "method" in parameters

    def _methods(self) -> list[Method]:
        offered: list[Method] = (
            list(ALL_METHODS) if self._accepts_method else ["function_calling", "prompt"]
        )
        refused = self._memory.refused(self.spec)
        return [method for method in offered if method not in refused]

    async def _invoke(self, runnable: Any, messages: Sequence[BaseMessage], method: str) -> Any:
        started = time.time()
        record = LLMCall(
            node=self.node,
            tier=self.tier,
            model=self.spec,
            method=method,
            started=started,
            ended=started,
        )
        try:
            async with self._limiter:
                record.started = time.time()
                result = await runnable.ainvoke(list(messages))
        except (ValidationError, OutputParserException) as exc:
            record.ended, record.ok, record.error = time.time(), False, f"parse: {exc}"
            self.calls.append(record)
            raise _ParseFailure(_raw_from_parse_error(exc), _describe(exc)) from exc
        except Exception as exc:
            record.ended, record.ok, record.error = (
                time.time(),
                False,
                f"{type(exc).__name__}: {exc}",
            )
            self.calls.append(record)
            if _is_unsupported(exc) and method != "text":
                raise _Unsupported(str(exc)) from exc
            raise ModelError(
                f"{self.spec} call failed in {self.node}: {exc}", kind=_failure_kind(exc)
            ) from exc
        record.ended = time.time()
        raw = result["raw"] if isinstance(result, dict) and "raw" in result else result
        usage = getattr(raw, "usage_metadata", None) or {}
        record.prompt_tokens = usage.get("input_tokens")
        record.completion_tokens = usage.get("output_tokens")
        self.calls.append(record)
        return result

    async def text(self, messages: Sequence[BaseMessage]) -> str:
        """A free-text reply, with any <think> block removed."""
        reply = await self._invoke(self.model, messages, "text")
        return _THINK.sub("", message_text(reply)).strip()

    def _bind(self, method: Method, schema: type[BaseModel]) -> Any:
        if method == "prompt":
            return self.model
        kwargs: dict[str, Any] = {"method": method} if self._accepts_method else {}
        try:
            return self.model.with_structured_output(schema, include_raw=True, **kwargs)
        except (NotImplementedError, TypeError, ValueError) as exc:
            raise _Unsupported(str(exc)) from exc

    async def _attempt(
        self, method: Method, schema: type[BaseModel], messages: Sequence[BaseMessage]
    ) -> tuple[Any, str]:
        try:
            result = await self._invoke(self._bind(method, schema), messages, method)
        except _ParseFailure as failure:
            return None, failure.raw or f"(a reply the client could not parse: {failure})"
        if method == "prompt":
            return None, message_text(result)
        return result.get("parsed"), _raw_text(result["raw"])

    async def structured(self, schema: type[SchemaT], messages: Sequence[BaseMessage]) -> SchemaT:
        """A validated `schema` instance; raises StructuredOutputError when repair fails too."""
        for method in self._methods():
            prompt = list(messages)
            if method in ("json_mode", "prompt"):
                instructions = SCHEMA_INSTRUCTIONS.format(
                    schema=json.dumps(schema.model_json_schema())
                )
                prompt.append(SystemMessage(content=instructions))
            try:
                return await self._structured_with(method, schema, prompt)
            except _Unsupported:
                self._memory.refused(self.spec).add(method)
        raise StructuredOutputError(
            schema.__name__, f"{self.spec} supports no structured output method"
        )

    async def _structured_with(
        self, method: Method, schema: type[SchemaT], prompt: list[BaseMessage]
    ) -> SchemaT:
        parsed, raw = await self._attempt(method, schema, prompt)
        try:
            return self._coerce(schema, parsed, raw)
        except (ValueError, ValidationError) as exc:
            error = _describe(exc)
        repair = [
            *prompt,
            AIMessage(content=raw or "(empty reply)"),
            HumanMessage(content=REPAIR_REQUEST.format(error=error)),
        ]
        parsed, raw = await self._attempt(method, schema, repair)
        try:
            return self._coerce(schema, parsed, raw)
        except (ValueError, ValidationError) as exc:
            raise StructuredOutputError(schema.__name__, _describe(exc), raw) from exc

    @staticmethod
    def _coerce(schema: type[SchemaT], parsed: Any, raw: str) -> SchemaT:
        if isinstance(parsed, schema):
            return parsed
        if isinstance(parsed, dict):
            return validate_payload(schema, parsed)
        return validate_payload(schema, parse_json_payload(raw))
