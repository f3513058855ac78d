"""Runs handed to a LangGraph server: the server researches, this process keeps the run folder.

With `langgraph_server` set, `run`, `serve` and `eval` drive the pipeline on that server through
LangGraph's own client instead of in this process, so capacity grows with the server's workers
(a LangGraph deployment with PostgreSQL and Redis; `langgraph dev` in tests). The run folder is
kept here as for any run: events, clarification pauses, report.md and result.json. The server has
no run folder, so the text of each cited source is read again here, through this process's own
fetcher, and kept for `audit`.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from research_studio.core.config import SECRET_FIELDS, Configuration
from research_studio.core.errors import ResearchStudioError
from research_studio.pipelines.registry import graph_id
from research_studio.run.runs import PAGES_FILE, RunFolder
from research_studio.services.clients import open_services

AskFn = Callable[[str, list[str]], Awaitable[str | None]]
RecordFn = Callable[..., None]
# Where the server runs, these are its own: never sent from here.
LOCAL_ONLY = frozenset({"cache_dir", "runs_dir", "checkpoints", "langgraph_server"})


class Paused:
    """The server's thread waits for a clarification this process could not give yet."""

    def __init__(self, values: dict[str, Any], question: str, options: list[str]) -> None:
        self.values, self.question, self.options = values, question, options

    def pending(self) -> tuple[dict[str, Any], str, list[str]]:
        """The thread's values and what it asks."""
        return self.values, self.question, self.options


def thread_id(run_id: str) -> str:
    """The server thread of a run: the same on every resume, a UUID as the server wants."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"research-studio:{run_id}"))


def server_context(config: Configuration) -> dict[str, Any]:
    """The run's settings for the server: what differs from the defaults, never a secret."""
    values = config.model_dump(mode="json", exclude_defaults=True)
    return {
        name: value
        for name, value in values.items()
        if name not in SECRET_FIELDS and name not in LOCAL_ONLY and name != "mcp_servers"
    }


def _failure(server: str, detail: Any) -> ResearchStudioError:
    text = detail.get("message") or detail.get("error") if isinstance(detail, dict) else detail
    line = " ".join(str(text or "unknown error").split())[:300]
    return ResearchStudioError(f"the LangGraph server at {server} failed the run: {line}")


async def _assistant(client: Any, server: str, pipeline: str) -> str:
    assistants = await client.assistants.search(graph_id=graph_id(pipeline), limit=1)
    if not assistants:
        raise ResearchStudioError(f"the LangGraph server at {server} has no {pipeline} pipeline")
    return str(assistants[0]["assistant_id"])


async def _stream(
    client: Any,
    server: str,
    thread: str,
    assistant: str,
    payload: Any,
    context: Any,
    record: RecordFn,
) -> None:
    async for part in client.runs.stream(
        thread, assistant, input=payload, context=context, stream_mode="updates"
    ):
        if part.event == "error":
            raise _failure(server, part.data)
        if part.event == "updates" and isinstance(part.data, dict):
            for node in part.data:
                if not node.startswith("__"):
                    record(node, "end", f"{node} finished on the server")


async def drive_on_server(
    folder: RunFolder,
    config: Configuration,
    initial: dict[str, Any] | None,
    ask: AskFn,
    record: RecordFn,
    answer: str | None,
) -> dict[str, Any] | Paused:
    """The pipeline run on the server to its end (its final values) or to a clarification."""
    from langgraph_sdk import get_client

    server = str(config.langgraph_server).rstrip("/")
    thread = thread_id(folder.record.run_id)
    context = server_context(config)
    try:
        async with get_client(url=server) as client:
            assistant = await _assistant(client, server, folder.record.pipeline)
            await client.threads.create(thread_id=thread, if_exists="do_nothing")
            payload: dict[str, Any] | None = initial
            if initial is None and answer is not None:
                await client.threads.update_state(thread, {"user_clarification": answer})
                record("clarify", "progress", f"clarification: {answer or '(none given)'}")
            record("run", "progress", f"running on the LangGraph server at {server}")
            while True:
                await _stream(client, server, thread, assistant, payload, context, record)
                payload = None
                state = await client.threads.get_state(thread)
                raw = state.get("values")
                values: dict[str, Any] = dict(raw) if isinstance(raw, dict) else {}
                if "clarify" not in (state.get("next") or []):
                    break
                question = str(values.get("clarification_question", ""))
                options = [str(option) for option in values.get("clarification_options", [])]
                reply = await ask(question, options)
                if reply is None:
                    return Paused(values, question, options)
                record("clarify", "progress", f"clarification: {reply or '(none given)'}")
                await client.threads.update_state(thread, {"user_clarification": reply})
    except httpx.HTTPError as exc:
        raise ResearchStudioError(
            f"cannot reach the LangGraph server at {server}: {type(exc).__name__}"
        ) from exc
    await _keep_sources(folder, config, values)
    return values


async def _keep_sources(folder: RunFolder, config: Configuration, values: dict[str, Any]) -> None:
    """The text of every source, read here (the server keeps none), so the run can be audited."""
    sources = list(values.get("sources", []))
    async with open_services(config, archive_path=folder.path / PAGES_FILE) as services:
        for source in sources:
            try:
                page = await services.fetcher.fetch(source["url"])
            except ResearchStudioError as exc:
                folder.event(
                    "run", "error", f"source {source['sid']} could not be read again: {exc}"
                )
                continue
            await services.archive.keep(source["url"], page.text)
        await services.archive.export(sources, [s["sid"] for s in sources], folder.path)
