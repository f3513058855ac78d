"""A scripted chat model: replies chosen per schema by tests, with simulated latency and a call log."""

from __future__ import annotations

import asyncio
import json
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from research_studio.core.config import Configuration
from research_studio.llm.messages import message_text
from research_studio.llm.models import register_provider

TEXT = "__text__"  # the script key of free-text calls (no schema bound)


@dataclass(frozen=True)
class ScriptedRequest:
    """What a responder sees: the schema asked for (None for free text) and the messages."""

    schema_name: str | None
    messages: Sequence[BaseMessage]

    @property
    def prompt(self) -> str:
        """All message text, in order."""
        return "\n\n".join(message_text(message) for message in self.messages)


@dataclass(frozen=True)
class RecordedCall:
    """One call the model answered, with its wall-clock interval (time.monotonic)."""

    schema_name: str | None
    prompt: str
    reply: str
    started: float
    ended: float


Reply = BaseModel | dict[str, Any] | list[Any] | str
Script = Callable[[ScriptedRequest], Reply] | list[Reply] | Reply


def _tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


class NoScriptError(AssertionError):
    """The model was asked for something no script covers."""


class ScriptedChatModel(BaseChatModel):
    """Answers structured calls (as tool calls) and text calls from per-schema scripts.

    A script is a callable (request -> reply), a list (replies served in order), or one constant
    reply. A dict or pydantic reply becomes a tool call; a str reply is sent as plain content,
    which lets tests exercise repair paths (code fences, <think> blocks, invalid JSON).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    scripts: dict[str, Any] = Field(default_factory=dict)
    fallback: Callable[[ScriptedRequest], Reply] | None = None
    latency_s: float = 0.0
    latency_per_token_s: float = 0.0
    model_name: str = "scripted"
    _calls: list[RecordedCall] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def calls(self) -> list[RecordedCall]:
        """Every answered call, in completion order."""
        with self._lock:
            return list(self._calls)

    def calls_for(self, schema_name: str | None) -> list[RecordedCall]:
        """Answered calls for one schema (None or TEXT for free text)."""
        wanted = None if schema_name == TEXT else schema_name
        return [call for call in self.calls if call.schema_name == wanted]

    def script(self, schema_name: str, script: Script) -> ScriptedChatModel:
        """Set the script of a schema (TEXT for free-text calls); returns self for chaining."""
        self.scripts[schema_name] = list(script) if isinstance(script, list) else script
        return self

    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any
    ) -> Runnable[Any, AIMessage]:
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def _reply_for(self, request: ScriptedRequest) -> Reply:
        key = request.schema_name or TEXT
        with self._lock:
            script = self.scripts.get(key)
            if isinstance(script, list):
                if not script:
                    raise NoScriptError(f"the script for {key} has run out of replies")
                return script.pop(0)
        if script is None:
            if self.fallback is None:
                raise NoScriptError(f"no script for {key}")
            return self.fallback(request)
        return script(request) if callable(script) else script

    def _respond(
        self, messages: list[BaseMessage], tools: Any
    ) -> tuple[AIMessage, RecordedCall, float]:
        schema_name = tools[0]["function"]["name"] if tools else None
        request = ScriptedRequest(schema_name, messages)
        started = time.monotonic()
        reply = self._reply_for(request)
        if isinstance(reply, BaseModel):
            reply = reply.model_dump(mode="json")
        prompt_tokens = _tokens(request.prompt)
        if isinstance(reply, dict) and schema_name:
            text = json.dumps(reply)
            message = AIMessage(
                content="",
                tool_calls=[{"name": schema_name, "args": reply, "id": f"call_{len(self._calls)}"}],
            )
        else:
            text = reply if isinstance(reply, str) else json.dumps(reply)
            message = AIMessage(content=text)
        completion_tokens = _tokens(text)
        message.usage_metadata = {
            "input_tokens": prompt_tokens,
            "output_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        delay = self.latency_s + self.latency_per_token_s * completion_tokens
        call = RecordedCall(schema_name, request.prompt, text, started, started + delay)
        return message, call, delay

    def _finish(self, message: AIMessage, call: RecordedCall) -> ChatResult:
        with self._lock:
            self._calls.append(
                RecordedCall(
                    call.schema_name, call.prompt, call.reply, call.started, time.monotonic()
                )
            )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message, call, delay = self._respond(messages, kwargs.get("tools"))
        if delay:
            time.sleep(delay)
        return self._finish(message, call)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message, call, delay = self._respond(messages, kwargs.get("tools"))
        if delay:
            await asyncio.sleep(delay)
        return self._finish(message, call)


_instances: dict[str, ScriptedChatModel] = {}


def _factory(name: str, config: Configuration) -> BaseChatModel:
    try:
        return _instances[name]
    except KeyError:
        from research_studio.core.errors import ConfigError

        raise ConfigError(f"no scripted model named {name!r} is registered") from None


def use_scripted_model(model: ScriptedChatModel, name: str = "default") -> str:
    """Register `model` so that the spec "scripted:<name>" resolves to it; returns the spec."""
    _instances[name] = model
    register_provider("scripted", _factory)
    return f"scripted:{name}"
