"""What a run writes as it goes: each model request to calls.jsonl, each task and message to
events.jsonl (with its counts), and the same events to the caller."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.outputs import LLMResult
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph

from research_studio.core.config import Configuration
from research_studio.run.runs import RunFolder

EventFn = Callable[[dict[str, Any]], None]


class CallLedger(BaseCallbackHandler):
    """Writes each model request to calls.jsonl when it is sent and when it ends.

    Graph state only keeps the calls of nodes that finished; the ledger also keeps those of a
    node a killed attempt never finished, so a resumed run can count every attempt's calls.
    """

    run_inline = True  # one line per event, written in order on the event loop

    def __init__(self, folder: RunFolder) -> None:
        self.folder = folder

    @property
    def attempt(self) -> int:
        """The execution the calls belong to: read when they are made, after the run's start
        has counted it."""
        return self.folder.record.attempts

    @property
    def ignore_chain(self) -> bool:
        return True

    def _log(self, run_id: UUID, phase: str, **fields: Any) -> None:
        entry = {"time": round(time.time(), 3), "attempt": self.attempt, "call": str(run_id)}
        self.folder.log_call({**entry, "phase": phase, **fields})

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        metadata = metadata or {}
        node = str(metadata.get("langgraph_node", ""))
        self._log(run_id, "start", node=node, model=str(metadata.get("ls_model_name", "")))

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        prompt = completion = 0
        for generations in response.generations:
            for generation in generations:
                usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
                prompt += (usage or {}).get("input_tokens") or 0
                completion += (usage or {}).get("output_tokens") or 0
        self._log(run_id, "end", ok=True, prompt_tokens=prompt, completion_tokens=completion)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._log(run_id, "end", ok=False, error=type(error).__name__)


def _counts(result: Any) -> dict[str, Any]:
    if not isinstance(result, dict):
        return {}
    counts: dict[str, Any] = {}
    for key in ("evidence", "sources", "searches_done", "llm_calls", "errors", "worker_results"):
        value = result.get(key)
        if isinstance(value, list):
            counts[key] = len(value)
    for key in ("iteration", "coverage", "confidence"):
        if key in result:
            counts[key] = result[key]
    return counts


class RecordFn(Protocol):
    """Records one event in the run folder and passes it on."""

    def __call__(
        self, node: str, kind: str, message: str, counts: dict[str, Any] | None = None
    ) -> None: ...


def event_recorder(folder: RunFolder, on_event: EventFn) -> RecordFn:
    """The folder's event log followed by `on_event`, as one call."""

    def record(node: str, kind: str, message: str, counts: dict[str, Any] | None = None) -> None:
        on_event(folder.event(node, kind, message, counts))

    return record


async def stream_events(
    graph: CompiledStateGraph[Any, Any, Any, Any],
    payload: Any,
    thread: RunnableConfig,
    config: Configuration,
    record: RecordFn,
) -> None:
    # "sync": each step's checkpoint is on disk before the next step starts, so a killed run
    # resumes after its last finished node instead of redoing it.
    async for mode, chunk in graph.astream(
        payload, thread, context=config, stream_mode=["tasks", "custom"], durability="sync"
    ):
        if mode == "custom" and isinstance(chunk, dict):
            node, message = str(chunk.get("node", "")), str(chunk.get("message", ""))
            record(node, "progress", message, chunk.get("counts") or {})
        elif mode == "tasks" and isinstance(chunk, dict):
            name = str(chunk.get("name", ""))
            if "input" in chunk:
                record(name, "start", f"{name} started")
                continue
            if chunk.get("error"):
                record(name, "error", f"{name} failed: {chunk['error']}")
                continue
            result = chunk.get("result")
            record(name, "end", f"{name} finished", _counts(result))
            for error in (result or {}).get("errors", []) if isinstance(result, dict) else []:
                message = f"{error.get('kind')}: {error.get('message')}"
                record(
                    error.get("node", name), "error", message, {"target": error.get("target", "")}
                )
