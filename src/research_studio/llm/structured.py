"""Model calls for nodes: schema in, validated object out, with method fallback, repair and records."""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, SystemMessage
from pydantic import BaseModel, ValidationError

from research_studio.core.errors import (
    ModelError,
    StructuredOutputError,
)
from research_studio.core.records import ModelCallRecord
from research_studio.llm.budget import Budget
from research_studio.llm.json_reply import (
    THINK,
    parse_json_payload,
)
from research_studio.llm.messages import message_text
from research_studio.llm.model_faults import (
    failure_kind,
    is_cut_off,
    malformed_reply_reason,
    raw_from_parse_error,
    shorten,
)
from research_studio.llm.model_prompts import SCHEMA_INSTRUCTIONS
from research_studio.llm.models import ModelTier
from research_studio.llm.pricing import call_cost
from research_studio.llm.schema_replies import (
    SchemaT,
    UnusableReply,
    coerce_reply,
    describe_error,
    raw_text,
    repair_messages,
    validate_payload,
)

__all__ = [
    "ALL_METHODS",
    "MethodMemory",
    "ModelCaller",
    "call_records",
    "parse_json_payload",
    "validate_payload",
]

Method = Literal["json_schema", "function_calling", "json_mode", "prompt"]
ALL_METHODS: tuple[Method, ...] = ("json_schema", "function_calling", "json_mode", "prompt")
ANSWERS = 3  # replies asked for per structured call: the first and two repairs
SHORTENINGS = 2  # prompt halvings after the server says the prompt is too long


class _Unsupported(Exception):
    """The model or server cannot serve this structured-output method."""


class _ParseFailure(Exception):
    """The client library rejected the reply while parsing it (some parse inside `invoke`)."""

    def __init__(self, raw: str, error: str, record: ModelCallRecord, *, cut: bool = False) -> None:
        super().__init__(error)
        self.raw = raw
        self.record = record
        self.cut = cut


NUM_CTX_HEADROOM = 2048  # tokens left for the reply
MIN_NUM_CTX = 4096
# A server that read less than this share of the estimated prompt dropped the rest.
TRUNCATED_SHARE = 0.7


def estimated_tokens(messages: Sequence[BaseMessage]) -> int:
    """A prompt's size in tokens, estimated from its characters (about four per token)."""
    return sum(len(message_text(message)) for message in messages) // 4 + 4 * len(messages)


@dataclass
class CallPolicy:
    """What a run asks of every model call: its budget, prices, and the model's context."""

    budget: Budget | None = None
    prices: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    context_tokens: int | None = None  # the model's window, when known: longer prompts are cut
    num_ctx_limit: int | None = None  # the server needs num_ctx sized per call (Ollama)
    reports_truncation: bool = False  # the server cuts long prompts silently (Ollama)
    # A malformed reply (a proxy's HTML page, a cut body) is asked again like a transient fault.
    malformed_retries: int = 2
    retry_delay_s: float = 1.0


class MethodMemory:
    """Remembers which methods a model refused, so later calls skip them."""

    def __init__(self) -> None:
        self._refused: dict[str, set[str]] = {}

    def refused(self, key: str) -> set[str]:
        return self._refused.setdefault(key, set())


def call_records(*callers: ModelCaller) -> list[ModelCallRecord]:
    """The calls made through these callers, as state records."""
    return [ModelCallRecord(**call) for caller in callers for call in caller.calls]


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
        policy: CallPolicy | None = None,
    ) -> None:
        self.model = model
        self._policy = policy or CallPolicy()
        self.spec = spec
        self.node = node
        self.tier = tier
        self.calls: list[ModelCallRecord] = []
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

    async def _invoke(
        self, runnable: Any, messages: Sequence[BaseMessage], method: str
    ) -> tuple[Any, ModelCallRecord]:
        """One call; a malformed reply is asked again (each attempt is its own record)."""
        retries = self._policy.malformed_retries
        for attempt in range(retries + 1):
            try:
                return await self._invoke_once(runnable, messages, method)
            except ModelError as exc:
                if exc.kind != "bad_response" or attempt == retries:
                    raise
            await asyncio.sleep(self._policy.retry_delay_s * 2**attempt)
        raise AssertionError("unreachable")

    async def _invoke_once(
        self, runnable: Any, messages: Sequence[BaseMessage], method: str
    ) -> tuple[Any, ModelCallRecord]:
        reached = self._policy.budget.admit() if self._policy.budget else ""
        if reached:
            raise ModelError(
                f"budget reached ({reached}): {self.node} makes no call", kind="budget"
            )
        started = time.time()
        record = ModelCallRecord(
            node=self.node,
            tier=self.tier,
            model=self.spec,
            method=method,
            started=started,
            ended=started,
            prompt_tokens=None,
            completion_tokens=None,
            ok=True,
            error=None,
            error_kind=None,
            cost_usd=None,
        )
        self.calls.append(record)
        try:
            async with self._limiter:
                record["started"] = time.time()
                result = await runnable.ainvoke(list(messages))
        except asyncio.CancelledError:  # a deadline ended the node: the call still counts
            record["ended"], record["ok"], record["error"] = time.time(), False, "cancelled"
            record["error_kind"] = "timeout"
            self._spend(record)
            raise
        except (ValidationError, OutputParserException) as exc:
            record["ended"], record["ok"], record["error"] = time.time(), False, f"parse: {exc}"
            self._spend(record)
            raise _ParseFailure(raw_from_parse_error(exc), describe_error(exc), record) from exc
        except Exception as exc:
            kind = failure_kind(exc)
            record["ended"], record["ok"], record["error_kind"] = time.time(), False, kind
            record["error"] = f"{type(exc).__name__}: {exc}"
            self._spend(record)
            if kind == "bad_response":
                record["error"] = malformed_reply_reason(exc)
                raise ModelError(
                    f"{self.spec} call failed in {self.node}: {record['error']}", kind=kind
                ) from exc
            if kind == "truncated":  # the client refused to parse a reply cut at the length limit
                raise _ParseFailure(raw_from_parse_error(exc), str(exc), record, cut=True) from exc
            if kind == "unsupported" and method != "text":
                raise _Unsupported(str(exc)) from exc
            raise ModelError(f"{self.spec} call failed in {self.node}: {exc}", kind=kind) from exc
        record["ended"] = time.time()
        raw = result["raw"] if isinstance(result, dict) and "raw" in result else result
        usage = getattr(raw, "usage_metadata", None) or {}
        record["prompt_tokens"] = usage.get("input_tokens")
        record["completion_tokens"] = usage.get("output_tokens")
        self._spend(record)
        sent = estimated_tokens(messages)
        read = record["prompt_tokens"]
        if self._policy.reports_truncation and read and read < TRUNCATED_SHARE * sent:
            # The server kept only part of the prompt (Ollama cuts to num_ctx without an error).
            record["ok"], record["error_kind"] = False, "context_truncated"
            record["error"] = f"the server read {read} of about {sent} prompt tokens"
            raise ModelError(
                f"{self.spec} truncated the prompt in {self.node}", kind="context_length"
            )
        return result, record

    def _spend(self, record: ModelCallRecord) -> None:
        record["cost_usd"] = call_cost(
            self.spec, record["prompt_tokens"], record["completion_tokens"], self._policy.prices
        )
        if self._policy.budget is not None:
            self._policy.budget.spend(record)

    def _sized_model(self, messages: Sequence[BaseMessage]) -> BaseChatModel:
        """The model, with a context window sized to this prompt where the server needs told."""
        limit = self._policy.num_ctx_limit
        if limit is None or "num_ctx" not in type(self.model).model_fields:
            return self.model
        wanted = estimated_tokens(messages) + NUM_CTX_HEADROOM
        num_ctx = min(limit, -(-wanted // 1024) * 1024)
        return self.model.model_copy(update={"num_ctx": max(num_ctx, MIN_NUM_CTX)})

    def _fitted(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        """The prompt shortened by code (longest message first) until it fits the window."""
        window = self._policy.context_tokens
        while window and estimated_tokens(messages) > window - NUM_CTX_HEADROOM:
            shorter = shorten(messages)
            if shorter is None:
                break
            messages = shorter
        return messages

    async def text(self, messages: Sequence[BaseMessage]) -> str:
        """A free-text reply, with any <think> block removed; a too-long prompt is shortened."""
        prompt = self._fitted(list(messages))
        for shortening in range(SHORTENINGS + 1):
            try:
                reply, _ = await self._invoke(self._sized_model(prompt), prompt, "text")
                return THINK.sub("", message_text(reply)).strip()
            except ModelError as exc:
                shorter = shorten(prompt) if exc.kind == "context_length" else None
                if shorter is None or shortening == SHORTENINGS:
                    raise
                prompt = shorter
        raise AssertionError("unreachable")

    def _bind(
        self, method: Method, schema: type[BaseModel], messages: Sequence[BaseMessage]
    ) -> Any:
        model = self._sized_model(messages)
        if method == "prompt":
            return model
        kwargs: dict[str, Any] = {"method": method} if self._accepts_method else {}
        try:
            return model.with_structured_output(schema, include_raw=True, **kwargs)
        except (NotImplementedError, TypeError, ValueError) as exc:
            raise _Unsupported(str(exc)) from exc

    async def _attempt(
        self, method: Method, schema: type[BaseModel], messages: Sequence[BaseMessage]
    ) -> tuple[Any, str, bool, ModelCallRecord]:
        """(parsed or None, raw text, cut off by the length limit, record) of one call."""
        try:
            result, record = await self._invoke(
                self._bind(method, schema, messages), messages, method
            )
        except _ParseFailure as failure:
            raw = failure.raw or f"(a reply the client could not parse: {failure})"
            return None, raw, failure.cut, failure.record
        if method == "prompt":
            return None, message_text(result), is_cut_off(result), record
        return result.get("parsed"), raw_text(result["raw"]), is_cut_off(result["raw"]), record

    async def structured(self, schema: type[SchemaT], messages: Sequence[BaseMessage]) -> SchemaT:
        """A validated `schema` instance; raises StructuredOutputError or ModelError, both typed.

        A method the server says it does not support is skipped for the rest of the run; a
        request it rejects for other reasons moves on to the next method for this call only.
        """
        rejected: ModelError | None = None
        for method in self._methods():
            try:
                return await self._structured_with(method, schema, list(messages))
            except _Unsupported:
                self._memory.refused(self.spec).add(method)
            except ModelError as exc:
                if exc.kind != "bad_request":
                    raise
                rejected = exc
        if rejected is not None:
            raise rejected
        raise StructuredOutputError(
            schema.__name__, f"{self.spec} supports no structured output method", kind="unsupported"
        )

    @staticmethod
    def _prompt(
        method: Method, schema: type[BaseModel], messages: list[BaseMessage]
    ) -> list[BaseMessage]:
        if method not in ("json_mode", "prompt"):
            return list(messages)
        instructions = SCHEMA_INSTRUCTIONS.format(schema=json.dumps(schema.model_json_schema()))
        return [*messages, SystemMessage(content=instructions)]

    async def _structured_with(
        self, method: Method, schema: type[SchemaT], messages: list[BaseMessage]
    ) -> SchemaT:
        """Up to ANSWERS replies (repairs show the last problem), shortening a too-long prompt."""
        repair: list[BaseMessage] = []
        shortenings = answers = 0
        messages = self._fitted(messages)
        while True:
            prompt = [*self._prompt(method, schema, messages), *repair]
            try:
                parsed, raw, cut, record = await self._attempt(method, schema, prompt)
            except ModelError as exc:
                shorter = shorten(messages) if exc.kind == "context_length" else None
                if shorter is None or shortenings == SHORTENINGS:
                    raise
                messages, shortenings = shorter, shortenings + 1
                continue
            answers += 1
            try:
                result, truncated = coerce_reply(schema, parsed, raw, cut)
            except UnusableReply as failure:
                record["ok"], record["error_kind"] = False, failure.kind
                record["error"] = f"{failure.kind}: {failure}"
                if answers == ANSWERS:
                    raise StructuredOutputError(
                        schema.__name__, str(failure), raw, kind=failure.kind
                    ) from failure
                repair = repair_messages(raw, failure)
                continue
            if truncated:
                record["ok"], record["error_kind"] = True, "truncated"
                record["error"] = "the reply was cut off; its complete part was used"
            else:
                record["ok"], record["error"], record["error_kind"] = True, None, None
            return result
