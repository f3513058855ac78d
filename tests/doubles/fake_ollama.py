"""An Ollama-compatible /api/chat for the fake web: structured output by `format`, silent
truncation of prompts longer than the context window, as a real Ollama server does."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]
DEFAULT_NUM_CTX = 2048  # what Ollama uses when a request does not set num_ctx


def _prompt_tokens(messages: object) -> int:
    if not isinstance(messages, list):
        return 0
    chars = sum(len(str(message.get("content") or "")) for message in messages)
    return chars // 4 + 4 * len(messages)


@dataclass
class OllamaEndpoint:
    """Replies come from `responder(request)` (OpenAI-shaped, so research scripts serve both)."""

    responder: Callable[[JSON], object] | None = None
    honours_num_ctx: bool = True  # False: a server (or proxy) that keeps its default window
    requests: list[JSON] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
        self.responder = None
        self.honours_num_ctx = True

    def handle(self, request: JSON) -> tuple[bytes, str]:
        """The body and content type answering one POST /api/chat."""
        with self._lock:
            self.requests.append(request)
        options = request.get("options") or {}
        window = options.get("num_ctx") if self.honours_num_ctx else None
        window = window or DEFAULT_NUM_CTX
        # Ollama keeps only the last `num_ctx` tokens of a longer prompt, and says nothing.
        read = min(_prompt_tokens(request.get("messages")), window)
        reply = self._reply(request)
        content = reply if isinstance(reply, str) else json.dumps(reply)
        final = {
            "model": request.get("model", ""),
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "message": {"role": "assistant", "content": content},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": read,
            "eval_count": max(1, len(content) // 4),
        }
        if request.get("stream", True):
            return (json.dumps(final) + "\n").encode(), "application/x-ndjson"
        return json.dumps(final).encode(), "application/json"

    def _reply(self, request: JSON) -> object:
        if self.responder is None:
            return "OK"
        schema = request.get("format")
        shaped: JSON = {"messages": request.get("messages", [])}
        if isinstance(schema, dict):
            shaped["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema.get("title"), "schema": schema},
            }
        return self.responder(shaped)
