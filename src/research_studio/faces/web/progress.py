"""Live progress: events.jsonl streamed from a line on and tailed while the run runs, with counters."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from research_studio.core.errors import ResearchStudioError
from research_studio.run.runs import CALLS_FILE, EVENTS_FILE, RESULT_FILE, RunFolder

POLL_S = 0.2
# A stream ends at these; a paused run keeps its stream open so its answer continues it.
FINAL_STATUSES = frozenset({"completed", "failed", "interrupted", "cancelled"})
COUNTERS = ("iteration", "searches", "sources", "evidence", "llm_calls", "tokens")


class EventTail:
    """Reads the complete lines appended to events.jsonl since the last read."""

    def __init__(self, path: Path, after_line: int = 0) -> None:
        self.path = path
        self.line = 0
        self.offset = 0
        self.skip = after_line

    def read(self) -> list[tuple[int, dict[str, Any]]]:
        """(line number, event) for each new complete line; a damaged line is skipped."""
        try:
            with self.path.open("rb") as stream:
                stream.seek(self.offset)
                data = stream.read()
        except FileNotFoundError:
            return []
        end = data.rfind(b"\n") + 1  # a line being written is read next time
        self.offset += end
        events = []
        for raw in data[:end].splitlines():
            self.line += 1
            if self.line <= self.skip:
                continue
            try:
                events.append((self.line, json.loads(raw)))
            except ValueError:
                continue
        return events


def _json_lines(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    lines = []
    for line in text.splitlines():
        try:
            lines.append(json.loads(line))
        except ValueError:
            continue
    return lines


def result_metadata(folder: Path) -> dict[str, Any] | None:
    """The metadata of a finished run's result.json; None when it has none (or it is damaged)."""
    try:
        result = json.loads((folder / RESULT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    metadata = result.get("metadata") if isinstance(result, dict) else None
    return metadata if isinstance(metadata, dict) else None


def counters(folder: Path) -> dict[str, int]:
    """The run's figures so far: from result.json when finished, else from events and calls."""
    metadata = result_metadata(folder)
    if metadata is not None:
        return {
            "iteration": int(metadata.get("iterations") or 0),
            "searches": int(metadata.get("searches") or 0),
            "sources": int(metadata.get("sources_count") or 0),
            "evidence": int(metadata.get("evidence_count") or 0),
            "llm_calls": int(
                metadata.get("llm_calls_all_attempts") or metadata.get("llm_calls") or 0
            ),
            "tokens": int(metadata.get("prompt_tokens_all_attempts") or 0)
            + int(metadata.get("completion_tokens_all_attempts") or 0),
        }
    figures = dict.fromkeys(COUNTERS, 0)
    for event in _json_lines(folder / EVENTS_FILE):
        counts = event.get("counts") or {}
        if event.get("kind") != "end":
            continue
        figures["evidence"] += int(counts.get("evidence", 0))
        figures["sources"] += int(counts.get("sources", 0))
        figures["searches"] += int(counts.get("searches_done", 0))
        if isinstance(counts.get("iteration"), int):
            figures["iteration"] = max(figures["iteration"], counts["iteration"])
    for call in _json_lines(folder / CALLS_FILE):
        if call.get("phase") == "start":
            figures["llm_calls"] += 1
        elif call.get("phase") == "end":
            figures["tokens"] += int(call.get("prompt_tokens") or 0)
            figures["tokens"] += int(call.get("completion_tokens") or 0)
    return figures


def _message(event: str, data: Any, event_id: int | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"event": event, "data": json.dumps(data, ensure_ascii=False)}
    if event_id is not None:
        message["id"] = str(event_id)
    return message


async def follow(
    folder: Path,
    after_line: int,
    status_of: Callable[[RunFolder], dict[str, Any]],
    running: Callable[[], bool],
) -> AsyncIterator[dict[str, Any]]:
    """SSE messages: each event (id = its line), counters, status changes, then "end"."""
    tail = EventTail(folder / EVENTS_FILE, after_line)
    last: dict[str, Any] | None = None
    while True:
        events = await asyncio.to_thread(tail.read)
        for number, event in events:
            yield _message("event", event, number)
        try:
            status = status_of(await asyncio.to_thread(RunFolder.open, folder))
        except ResearchStudioError:  # deleted while followed
            yield _message("end", {"status": None})
            return
        if events or status != last:
            yield _message("counters", await asyncio.to_thread(counters, folder))
        if status != last:
            yield _message("status", status)
            last = status
        if status["status"] in FINAL_STATUSES and not running():
            for number, event in await asyncio.to_thread(tail.read):  # written as it ended
                yield _message("event", event, number)
            yield _message("end", status)
            return
        await asyncio.sleep(POLL_S)
