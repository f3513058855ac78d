"""Research on a LangGraph server (`langgraph dev`, or a deployment) through its own SDK."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, cast

import httpx

from research_studio.core.errors import ResearchStudioError
from research_studio.core.urls import is_web_url
from research_studio.pipelines.registry import graph_id

# Answers the server's clarification question: text to continue with it, "" to go on without.
RemoteAsk = Callable[[str, list[str]], Awaitable[str]]
NodeFn = Callable[[str], None]
MAX_ERROR_CHARS = 300


@dataclass
class RemoteResult:
    """What a server run ended with: its thread, report and sources."""

    thread_id: str
    report: str
    sources: list[dict[str, Any]] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)


async def _assistant_id(client: Any, server: str, pipeline: str) -> str:
    try:
        assistants = await client.assistants.search(graph_id=graph_id(pipeline), limit=1)
    except httpx.HTTPError as exc:
        raise ResearchStudioError(f"cannot reach the LangGraph server at {server}: {exc}") from exc
    if not assistants:
        raise ResearchStudioError(f"the LangGraph server at {server} has no {pipeline} pipeline")
    return str(assistants[0]["assistant_id"])


def server_error_line(data: Any) -> str:
    """A server's error event ({"error": kind, "message": text} or anything) as one readable
    line: kind and message, whitespace folded, control characters dropped, length bounded."""
    if isinstance(data, dict):
        kind, message = str(data.get("error") or "").strip(), str(data.get("message") or "")
        text = f"{kind}: {message}" if kind and message.strip() else kind or message
    else:
        text = str(data)
    printable = "".join(char if char.isprintable() else " " for char in text)
    line = " ".join(printable.split())
    return (
        line[:MAX_ERROR_CHARS] + " …" if len(line) > MAX_ERROR_CHARS else line
    ) or "no reason given"


async def _stream(
    client: Any,
    thread_id: str,
    assistant_id: str,
    payload: dict[str, Any] | None,
    context: dict[str, Any],
    on_node: NodeFn,
) -> None:
    async for part in client.runs.stream(
        thread_id, assistant_id, input=payload, context=context, stream_mode="updates"
    ):
        if part.event == "error":
            raise ResearchStudioError(f"the server's run failed: {server_error_line(part.data)}")
        if part.event == "updates" and isinstance(part.data, dict):
            for node in part.data:
                on_node(node)


async def research_remote(
    server: str,
    question: str,
    *,
    pipeline: str,
    context: dict[str, Any],
    ask: RemoteAsk,
    on_node: NodeFn,
) -> RemoteResult:
    """Run the pipeline on the server in a new thread, answering its clarification if asked.

    Settings in `context` override the server's own; secrets stay in the server's environment.
    """
    from langgraph_sdk import get_client

    if not is_web_url(server):
        raise ResearchStudioError(f"--server must be an http(s) URL, not {server!r}")
    async with get_client(url=server) as client:
        assistant_id = await _assistant_id(client, server, pipeline)
        try:
            thread_id = str((await client.threads.create())["thread_id"])
            payload: dict[str, Any] | None = {"query": question}
            while True:
                await _stream(client, thread_id, assistant_id, payload, context, on_node)
                state = await client.threads.get_state(thread_id)
                values: dict[str, Any] = dict(cast("dict[str, Any]", state.get("values") or {}))
                if "clarify" not in (state.get("next") or []):
                    break
                reply = await ask(
                    str(values.get("clarification_question", "")),
                    list(values.get("clarification_options", [])),
                )
                await client.threads.update_state(thread_id, {"user_clarification": reply})
                payload = None
        except httpx.HTTPError as exc:
            raise ResearchStudioError(f"the LangGraph server at {server} failed: {exc}") from exc
        if not values.get("report"):
            raise ResearchStudioError(f"thread {thread_id} on {server} ended without a report")
        return RemoteResult(
            thread_id, str(values["report"]), list(values.get("sources", [])), values
        )
