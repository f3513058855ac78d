"""Tool calling on every provider: native tool calls, else the model picks tools as JSON.

Servers and local models without tool support get the same tools through structured output
(`ToolChoice`): the model names a tool and its arguments, code validates both.
"""

from __future__ import annotations

import contextlib
import json
import uuid
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
)
from pydantic import BaseModel, ValidationError

from research_studio.core.errors import ModelError
from research_studio.core.records import ErrorRecord
from research_studio.llm.messages import message_text
from research_studio.llm.structured import ModelCaller
from research_studio.pipelines.supervisor.prompts import (
    RESEARCH_COMPLETE_DESCRIPTION,
    THINK_DESCRIPTION,
    TOOL_FALLBACK,
    TOOL_LINE,
)
from research_studio.pipelines.supervisor.schemas import ResearchCompleteArgs, ThinkArgs, ToolChoice

# Models (this run's instances) whose server refused native tool calls: later calls go
# straight to the JSON fallback. Keyed by identity, so a test's next server starts afresh.
_NO_NATIVE: weakref.WeakValueDictionary[int, BaseChatModel] = weakref.WeakValueDictionary()
# Refusals that mean "no tools here" rather than a broken request.
_FALLBACK_KINDS = frozenset({"unsupported", "bad_request"})


@dataclass(frozen=True)
class Tool:
    """A tool a model may call: its name, what it is for, and its arguments' schema."""

    name: str
    description: str
    args: type[BaseModel]

    def spec(self) -> dict[str, Any]:
        """The OpenAI function-tool format every chat model binding accepts."""
        schema = self.args.model_json_schema()
        schema.pop("title", None)
        schema.pop("description", None)
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": schema},
        }


# The tools the supervisor and its researchers both have.
THINK = Tool("think_tool", THINK_DESCRIPTION, ThinkArgs)
COMPLETE = Tool("ResearchComplete", RESEARCH_COMPLETE_DESCRIPTION, ResearchCompleteArgs)


@dataclass
class ToolTurn:
    """A model's turn: the message kept in the conversation, how it was made, what was dropped."""

    message: AIMessage
    method: str  # "native" or "fallback"
    errors: list[ErrorRecord]

    @property
    def calls(self) -> list[ToolCall]:
        return list(self.message.tool_calls)


def supports_native(model: BaseChatModel) -> bool:
    """Whether native tool calls are still worth trying with this model instance."""
    return _NO_NATIVE.get(id(model)) is not model


def _refuse_native(model: BaseChatModel) -> None:
    # A model that cannot be weakly referenced is simply tried natively again next time.
    with contextlib.suppress(TypeError):
        _NO_NATIVE[id(model)] = model


def _checked(
    node: str, tools: Sequence[Tool], raw: Sequence[tuple[str, Any]]
) -> tuple[list[ToolCall], list[ErrorRecord]]:
    """Calls of known tools whose arguments validate; the others become error records."""
    by_name = {tool.name: tool for tool in tools}
    calls: list[ToolCall] = []
    errors: list[ErrorRecord] = []
    for name, args in raw:
        tool = by_name.get(name)
        if tool is None:
            errors.append(_error(node, f"the model called an unknown tool {name!r}"))
            continue
        try:
            parsed = tool.args.model_validate(args if isinstance(args, dict) else {})
        except ValidationError as exc:
            errors.append(_error(node, f"bad arguments for {name}: {exc.errors()[0]['msg']}"))
            continue
        calls.append(
            ToolCall(name=name, args=parsed.model_dump(), id=f"call_{uuid.uuid4().hex[:12]}")
        )
    return calls, errors


def _error(node: str, message: str) -> ErrorRecord:
    return ErrorRecord(node=node, kind="invalid_json", message=message, target="")


async def _native(
    caller: ModelCaller, tools: Sequence[Tool], messages: Sequence[BaseMessage]
) -> ToolTurn:
    bound = caller.model.bind_tools([tool.spec() for tool in tools])
    # The caller's own bounded, recorded invocation; "text" leaves unsupported requests
    # as a ModelError of kind "unsupported" for us to act on.
    reply, record = await caller._invoke(bound, messages, "text")
    record["method"] = "tools"
    raw = [(call["name"], call["args"]) for call in getattr(reply, "tool_calls", [])]
    calls, errors = _checked(caller.node, tools, raw)
    for invalid in getattr(reply, "invalid_tool_calls", []):
        errors.append(_error(caller.node, f"unreadable arguments for {invalid.get('name')}"))
    text = message_text(reply) if isinstance(reply, BaseMessage) else ""
    return ToolTurn(AIMessage(content=text, tool_calls=calls), "native", errors)


def plain_history(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The conversation without tool-call structure, for servers that reject tool messages."""
    plain: list[BaseMessage] = []
    for message in messages:
        if isinstance(message, AIMessage) and message.tool_calls:
            picks = [
                {"tool": call["name"], "arguments": call["args"]} for call in message.tool_calls
            ]
            text = message_text(message)
            plain.append(AIMessage(content=f"{text}\nCalled: {json.dumps(picks)}".strip()))
        elif isinstance(message, ToolMessage):
            plain.append(HumanMessage(content=f"Result of {message.name}:\n{message.content}"))
        else:
            plain.append(message)
    return plain


async def _fallback(
    caller: ModelCaller, tools: Sequence[Tool], messages: Sequence[BaseMessage]
) -> ToolTurn:
    listing = "\n".join(
        TOOL_LINE.format(
            name=tool.name,
            description=tool.description,
            arguments=json.dumps(tool.spec()["function"]["parameters"].get("properties", {})),
        )
        for tool in tools
    )
    prompt = [*plain_history(messages), SystemMessage(content=TOOL_FALLBACK.format(tools=listing))]
    choice = await caller.structured(ToolChoice, prompt)
    calls, errors = _checked(
        caller.node, tools, [(pick.tool, pick.arguments) for pick in choice.calls]
    )
    return ToolTurn(AIMessage(content="", tool_calls=calls), "fallback", errors)


async def call_tools(
    caller: ModelCaller, tools: Sequence[Tool], messages: Sequence[BaseMessage]
) -> ToolTurn:
    """The model's next turn with these tools: native calls where supported, else JSON picks.

    Raises ModelError or StructuredOutputError when neither way yields an answer.
    """
    if supports_native(caller.model):
        try:
            return await _native(caller, tools, messages)
        except NotImplementedError:  # the binding itself offers no tools (e.g. a local model)
            _refuse_native(caller.model)
        except ModelError as exc:
            if exc.kind not in _FALLBACK_KINDS:
                raise
            if exc.kind == "unsupported":
                _refuse_native(caller.model)
    return await _fallback(caller, tools, messages)


def tool_result(call: ToolCall, content: str) -> ToolMessage:
    """The answer to one tool call, as the conversation keeps it."""
    return ToolMessage(content=content, name=call["name"], tool_call_id=call["id"] or "")
