"""A scripted OpenAI-compatible chat-completions endpoint for the fake web."""

from __future__ import annotations

import json
import math
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]


@dataclass(frozen=True)
class ChatToolCall:
    """A reply that calls a named tool (use when the request offers several tools)."""

    name: str
    arguments: object  # dumped to JSON unless it is already a str


def openai_error(message: str, param: str | None, kind: str = "invalid_request_error") -> JSON:
    """An OpenAI-style error body."""
    return {"error": {"message": message, "type": kind, "param": param, "code": None}}


def _tokens(chars: int) -> int:
    return math.ceil(chars / 4)


def _content_chars(messages: object) -> int:
    total = 0
    for message in messages if isinstance(messages, list) else []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            total += len(content)
        elif isinstance(content, list):  # multi-part content: count the text parts
            total += sum(len(p.get("text") or "") for p in content if isinstance(p, dict))
    return total


@dataclass
class ChatEndpoint:
    """Replies come from `responses` (FIFO), then `responder(request)`; every request JSON is kept.

    A reply is a str (sent verbatim as content), a dict/list (JSON; a tool call when tools are
    offered and the reply is a dict), a ChatToolCall, or a list of ChatToolCall (parallel calls).
    """

    supports_json_schema: bool = True
    supports_tools: bool = True
    supports_json_mode: bool = True
    model_name: str = "fake-model"
    responses: deque[object] = field(default_factory=deque)
    responder: Callable[[JSON], object] | None = None
    requests: list[JSON] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def queue(self, *replies: object) -> None:
        """Append scripted replies, served in order."""
        self.responses.extend(replies)

    def reset(self) -> None:
        """Forget replies, responder and requests, and switch every capability back on."""
        with self._lock:
            self.responses.clear()
            self.requests.clear()
        self.responder = None
        self.supports_json_schema = self.supports_tools = self.supports_json_mode = True

    def models(self) -> JSON:
        """The body of GET /v1/models."""
        return {
            "object": "list",
            "data": [
                {
                    "id": self.model_name,
                    "object": "model",
                    "created": 1_700_000_000,
                    "owned_by": "fake-web",
                }
            ],
        }

    def handle(self, request: JSON) -> tuple[int, JSON]:
        """Status and body for one POST /v1/chat/completions."""
        with self._lock:
            self.requests.append(request)
        problem = self._unsupported(request)
        if problem:
            return 400, problem
        try:
            reply = self._next_reply(request)
        except LookupError:
            return 500, openai_error(
                "fake chat endpoint has no queued reply and no responder", None, "server_error"
            )
        except (
            Exception
        ) as exc:  # a broken test responder should surface as a server error, not a hang
            return 500, openai_error(f"responder failed: {exc!r}", None, "server_error")
        message, finish_reason, completion = self._message(request, reply)
        prompt_tokens = _tokens(_content_chars(request.get("messages")))
        completion_tokens = _tokens(len(completion))
        return 200, {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model") or self.model_name,
            "system_fingerprint": None,
            "choices": [
                {"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _unsupported(self, request: JSON) -> JSON | None:
        if request.get("stream"):
            return openai_error("stream=true is not supported by this fake endpoint", "stream")
        response_format = request.get("response_format")
        kind = response_format.get("type") if isinstance(response_format, dict) else None
        if kind == "json_schema" and not self.supports_json_schema:
            return openai_error(
                "response_format 'json_schema' is not supported by this model", "response_format"
            )
        if kind == "json_object" and not self.supports_json_mode:
            return openai_error(
                "response_format 'json_object' is not supported by this model", "response_format"
            )
        if (request.get("tools") or request.get("tool_choice")) and not self.supports_tools:
            return openai_error("tools are not supported by this model", "tools")
        return None

    def _next_reply(self, request: JSON) -> object:
        try:
            return self.responses.popleft()
        except IndexError:
            if self.responder is None:
                raise LookupError("no reply") from None
            return self.responder(request)

    def _message(self, request: JSON, reply: object) -> tuple[JSON, str, str]:
        calls = self._tool_calls(request, reply)
        if calls:
            wire = [
                {
                    "id": f"call_{uuid.uuid4().hex[:24]}",
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in calls
            ]
            message = {"role": "assistant", "content": None, "refusal": None, "tool_calls": wire}
            return message, "tool_calls", "".join(str(c.arguments) for c in calls)
        content = reply if isinstance(reply, str) else json.dumps(reply)
        return {"role": "assistant", "content": content, "refusal": None}, "stop", content

    def _tool_calls(self, request: JSON, reply: object) -> list[ChatToolCall]:
        def dumped(call: ChatToolCall) -> ChatToolCall:
            args = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
            return ChatToolCall(call.name, args)

        if isinstance(reply, ChatToolCall):
            return [dumped(reply)]
        if isinstance(reply, list) and reply and all(isinstance(r, ChatToolCall) for r in reply):
            return [dumped(r) for r in reply]
        tools = request.get("tools") or []
        choice = request.get("tool_choice")
        if not isinstance(reply, dict) or not tools or choice == "none":
            return []
        name = ""
        if isinstance(choice, dict):
            name = (choice.get("function") or {}).get("name", "")
        name = name or (tools[0].get("function") or {}).get("name", "")
        return [dumped(ChatToolCall(name, reply))]
