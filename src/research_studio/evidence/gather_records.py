"""What a worker's research cycle is asked (`GatherRequest`) and what it produced (`Gathered`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from research_studio.core.errors import ProviderError
from research_studio.core.records import ErrorRecord, FindingRecord, ModelCallRecord, PageRecord

Emit = Callable[[str], None]


@dataclass
class Gathered:
    """Everything one cycle produced, failures included."""

    searches: list[str] = field(default_factory=list)
    pages: list[PageRecord] = field(default_factory=list)
    findings: list[FindingRecord] = field(default_factory=list)
    errors: list[ErrorRecord] = field(default_factory=list)
    calls: list[ModelCallRecord] = field(default_factory=list)
    fetches: int = 0
    empty_queries: list[str] = field(default_factory=list)
    # What the last extraction made of its pages (a worker's answer to its question).
    answer: str = ""
    confidence: float = 0.0
    gaps: list[str] = field(default_factory=list)

    def error(self, node: str, exc: Exception, target: str) -> None:
        kind = exc.kind if isinstance(exc, ProviderError) else type(exc).__name__
        self.errors.append(ErrorRecord(node=node, kind=kind, message=str(exc), target=target))


@dataclass
class GatherRequest:
    """What to research and in which context."""

    node: str
    queries: list[str]
    request: str
    questions: list[str]
    known_urls: set[str]  # read in earlier steps of this run (from state: survives a resume)
    # Workers of one fan-out (`fanout`, the same for all of them) claim pages in plan order
    # (`worker`, the task's plan index), not in the order their searches answer. A task alone
    # leaves `fanout` empty.
    fanout: str = ""
    worker: int = 0
