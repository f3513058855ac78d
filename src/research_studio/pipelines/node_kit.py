"""What every node needs from its runtime: services, progress events, call records."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from research_studio.config import Configuration
from research_studio.errors import ProviderError, ResearchStudioError
from research_studio.services import Services, current_services
from research_studio.state import ErrorRecord, LLMCallRecord
from research_studio.structured import ModelCaller


def services_of(runtime: Runtime[Configuration]) -> Services:
    """The run's services for this node."""
    return current_services(runtime.context)


def emitter(runtime: Runtime[Configuration], node: str) -> Callable[..., None]:
    """A function that streams a progress event (custom stream mode) for this node."""

    def emit(message: str, **counts: Any) -> None:
        runtime.stream_writer(
            {"node": node, "kind": "progress", "message": message, "counts": counts}
        )

    return emit


def call_records(*callers: ModelCaller) -> list[LLMCallRecord]:
    """The calls made through these callers, as state records."""
    return [
        LLMCallRecord(**call.model_dump())  # type: ignore[typeddict-item]
        for caller in callers
        for call in caller.calls
    ]


def error_record(node: str, exc: BaseException, target: str = "") -> ErrorRecord:
    """A failure as data."""
    kind: str
    if isinstance(exc, ProviderError):
        kind = exc.kind
    elif isinstance(exc, ResearchStudioError):
        kind = type(exc).__name__
    else:
        kind = "internal"
    return ErrorRecord(node=node, kind=kind, message=str(exc), target=target)


def clip(items: Iterable[str], limit: int) -> list[str]:
    """Distinct, stripped, non-empty items, at most `limit`."""
    kept: list[str] = []
    for item in items:
        item = item.strip()
        if item and item not in kept:
            kept.append(item)
    return kept[:limit]


def query_of(state: Mapping[str, Any], key: str) -> str:
    """The research question: the state's `key`, else the last human message (LangGraph Studio chat)."""
    query = state.get(key) or next(
        (
            str(m.content)
            for m in reversed(state.get("messages", []))
            if isinstance(m, HumanMessage)
        ),
        "",
    )
    if not str(query).strip():
        raise ResearchStudioError(f"no query given: pass {key} or a human message")
    return str(query).strip()
