"""A scripted OpenAI-compatible chat-completions endpoint for the fake web, with seeded faults."""

from __future__ import annotations

import json
import math
import random
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

JSON = dict[str, Any]
ChatFaultKind = Literal[
    "truncated",
    "prose",
    "empty",
    "html_500",
    "rate_limit",
    "context_length",
    "slow",
    "html_200",
    "cut_body",
    "wrong_shape",
]
CHAT_FAULT_KINDS: tuple[ChatFaultKind, ...] = get_args(ChatFaultKind)
# Malformed replies with HTTP 200, as a proxy or a broken gateway sends them: drawn only when
# asked for, so the seeded suites written before them keep their sequences.
MALFORMED_REPLY_KINDS: tuple[ChatFaultKind, ...] = ("html_200", "cut_body", "wrong_shape")
DEFAULT_FAULT_KINDS = tuple(kind for kind in CHAT_FAULT_KINDS if kind not in MALFORMED_REPLY_KINDS)
_PROSE = (
    "I'm sorry, but I can't put that into the requested format. In short, the sources "
    "disagree and more research would be needed before drawing a conclusion."
)
_HTML_500 = (
    b"<html>\r\n<head><title>500 Internal Server Error</title></head>\r\n<body>\r\n"
    b"<center><h1>500 Internal Server Error</h1></center>\r\n<hr><center>nginx</center>\r\n"
    b"</body>\r\n</html>\r\n"
)

_PROXY_PAGE = (
    b"<!DOCTYPE html><html><head><title>Sign in to continue</title></head><body>"
    b"<h1>Corporate proxy</h1><p>Please sign in to reach this site.</p></body></html>"
)


@dataclass(frozen=True)
class ChatToolCall:
    """A reply that calls a named tool (use when the request offers several tools)."""

    name: str
    arguments: object  # dumped to JSON unless it is already a str


def openai_error(
    message: str, param: str | None, kind: str = "invalid_request_error", code: str | None = None
) -> JSON:
    """An OpenAI-style error body."""
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def _context_error(chars: int) -> JSON:
    return openai_error(
        "This model's maximum context length is 8192 tokens. However, your messages resulted "
        f"in {_tokens(chars)} tokens. Please reduce the length of the messages.",
        "messages",
        code="context_length_exceeded",
    )


@dataclass
class ChatFaults:
    """Seeded misbehaviour: each request breaks with probability `rate`, in one of `kinds`.

    truncated: the reply (content or tool arguments) cut off, finish_reason "length";
    prose / empty: text without JSON, or nothing; html_500: an nginx error page;
    rate_limit: HTTP 429 with Retry-After; context_length: HTTP 400 context_length_exceeded;
    slow: the right reply after `slow_s` seconds; html_200: a proxy's HTML page with HTTP 200;
    cut_body: HTTP 200 with a JSON body cut off mid-way; wrong_shape: HTTP 200 with JSON that is
    no chat completion. `limit` caps how many faults are injected.
    """

    rate: float
    seed: int = 0
    kinds: tuple[ChatFaultKind, ...] = DEFAULT_FAULT_KINDS
    slow_s: float = 1.0
    retry_after_s: float = 0.05
    limit: int | None = None
    _random: random.Random = field(init=False, repr=False)
    _count: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        unknown = set(self.kinds) - set(CHAT_FAULT_KINDS)
        if unknown or not self.kinds or not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"bad chat faults: rate {self.rate}, kinds {self.kinds}")
        self._random = random.Random(self.seed)

    def draw(self) -> ChatFaultKind | None:
        """The fault of the next request, if any."""
        if self.limit is not None and self._count >= self.limit:
            return None
        if self._random.random() >= self.rate:
            return None
        self._count += 1
        return self._random.choice(self.kinds)

    def cut(self, text: str) -> str:
        """`text` cut off somewhere between a fifth and four fifths of its length."""
        return text[: int(len(text) * self._random.uniform(0.2, 0.8))]


@dataclass(frozen=True)
class ChatReply:
    """What the endpoint sends: status, body, headers, after `delay_s` seconds."""

    status: int
    body: bytes
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0

    @classmethod
    def of(cls, status: int, payload: object, **kwargs: Any) -> ChatReply:
        return cls(status, json.dumps(payload).encode(), **kwargs)

    def json(self) -> Any:
        """The body, parsed."""
        return json.loads(self.body)


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
    `faults` breaks a seeded share of requests (each injected kind is appended to `injected`);
    `max_prompt_chars` refuses longer prompts with a context-length error, as a real server does.
    """

    supports_json_schema: bool = True
    supports_tools: bool = True
    supports_json_mode: bool = True
    model_name: str = "fake-model"
    responses: deque[object] = field(default_factory=deque)
    responder: Callable[[JSON], object] | None = None
    requests: list[JSON] = field(default_factory=list)
    faults: ChatFaults | None = None
    max_prompt_chars: int | None = None
    injected: list[ChatFaultKind] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def queue(self, *replies: object) -> None:
        """Append scripted replies, served in order."""
        self.responses.extend(replies)

    def reset(self) -> None:
        """Forget replies, responder, requests and faults; switch every capability back on."""
        with self._lock:
            self.responses.clear()
            self.requests.clear()
            self.injected.clear()
        self.responder = None
        self.faults = None
        self.max_prompt_chars = None
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

    def handle(self, request: JSON) -> ChatReply:
        """The reply to one POST /v1/chat/completions."""
        with self._lock:
            self.requests.append(request)
        problem = self._unsupported(request)
        if problem:
            return ChatReply.of(400, problem)
        chars = _content_chars(request.get("messages"))
        if self.max_prompt_chars is not None and chars > self.max_prompt_chars:
            return ChatReply.of(400, _context_error(chars))
        fault = self._draw_fault()
        if fault in ("html_500", "rate_limit", "context_length", *MALFORMED_REPLY_KINDS):
            return self._failure(fault, chars)
        try:
            if fault in ("prose", "empty"):
                reply: object = _PROSE if fault == "prose" else ""
            else:  # a truncated reply leaves the scripted one for the retry
                reply = self._next_reply(request, peek=fault == "truncated")
        except LookupError:
            return ChatReply.of(
                500,
                openai_error(
                    "fake chat endpoint has no queued reply and no responder", None, "server_error"
                ),
            )
        except (
            Exception
        ) as exc:  # a broken test responder should surface as a server error, not a hang
            return ChatReply.of(
                500, openai_error(f"responder failed: {exc!r}", None, "server_error")
            )
        message, finish_reason, completion = self._message(request, reply)
        if fault == "truncated":
            message, completion = self._truncate(message)
            finish_reason = "length"
        prompt_tokens = _tokens(chars)
        completion_tokens = _tokens(len(completion))
        body = {
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
        delay = self.faults.slow_s if fault == "slow" and self.faults else 0.0
        return ChatReply.of(200, body, delay_s=delay)

    def _draw_fault(self) -> ChatFaultKind | None:
        with self._lock:
            fault = self.faults.draw() if self.faults else None
            if fault:
                self.injected.append(fault)
            return fault

    def _failure(self, fault: ChatFaultKind, chars: int) -> ChatReply:
        if fault == "html_500":
            return ChatReply(500, _HTML_500, "text/html")
        if fault == "html_200":
            return ChatReply(200, _PROXY_PAGE, "text/html")
        if fault == "cut_body":
            return ChatReply(200, b'{"id": "chatcmpl-cut", "object": "chat.completion", "choi')
        if fault == "wrong_shape":
            return ChatReply.of(200, {"object": "error", "message": "upstream unavailable"})
        if fault == "context_length":
            return ChatReply.of(400, _context_error(chars))
        seconds = self.faults.retry_after_s if self.faults else 0.0
        return ChatReply.of(
            429,
            openai_error(
                "Rate limit reached for requests. Please try again later.",
                None,
                "requests",
                code="rate_limit_exceeded",
            ),
            # Both headers, as OpenAI sends them; its client prefers the milliseconds one.
            headers={"Retry-After": f"{seconds:g}", "retry-after-ms": str(int(seconds * 1000))},
        )

    def _truncate(self, message: JSON) -> tuple[JSON, str]:
        assert self.faults is not None
        calls = message.get("tool_calls")
        if calls:
            function = calls[0]["function"]
            cut = self.faults.cut(function["arguments"])
            call = {**calls[0], "function": {**function, "arguments": cut}}
            return {**message, "tool_calls": [call]}, cut
        cut = self.faults.cut(message.get("content") or "")
        return {**message, "content": cut}, cut

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

    def _next_reply(self, request: JSON, *, peek: bool = False) -> object:
        try:
            return self.responses[0] if peek else self.responses.popleft()
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
