"""Live progress of a run: a spinner, elapsed time, the current step in words, the iteration, counts.

In a terminal the live lines stay on screen when the run ends; piped, each event is one line.
Every message comes from a run (models, pages, servers): it is printed through `terminal.foreign`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

from research_studio.faces.cli.terminal import foreign, line

# What each graph node does, in the words a reader of the progress line understands.
STEP_WORDS: dict[str, str] = {
    "run": "the run",
    "review": "the review",
    # standard
    "understand": "understanding the question",
    "clarify": "asking a clarification",
    "clarify_with_user": "checking whether the question is clear",
    "plan": "planning the research",
    "review_plan": "waiting for the plan review",
    "orchestrate": "assigning searches to workers",
    "search_worker": "searching and reading pages",
    "search_and_extract": "searching and reading pages",
    "collect": "collecting the workers' findings",
    "detect_gaps": "looking for gaps",
    "synthesize": "writing the report",
    "write_report": "writing the report",
    "verify": "checking the citations",
    # advanced
    "query_analyzer": "understanding the question",
    "complexity_router": "judging the question's complexity",
    "planner": "planning the research",
    "orchestrator": "assigning searches to subagents",
    "subagent": "searching and reading pages",
    "discovery": "searching and reading pages",
    "collect_findings": "collecting the subagents' findings",
    "consolidate_sources": "merging duplicate sources",
    "gap_detector": "looking for gaps",
    "increment_iteration": "starting another iteration",
    "early_termination_check": "deciding whether to stop early",
    "confidence_check": "deciding whether to stop early",
    "trust_engine": "checking sources and claims",
    "credibility_scorer": "scoring source credibility",
    "ranker": "ranking sources",
    "claim_extractor": "extracting claims",
    "cross_validate": "cross-checking claims between sources",
    "confidence_scorer": "scoring claim confidence",
    "span_verify": "checking quotes against pages",
    "batched_cred_claims": "scoring sources and extracting claims",
    "batched_verify": "checking claims against quotes",
    "backtrack_handler": "researching weak claims again",
    "analyzer": "analysing the evidence",
    "auto_refine": "refining the report",
    "cite": "adding citations",
    "writer": "writing the report",
    # supervisor
    "check_store": "looking for earlier research",
    "write_research_brief": "writing the research brief",
    "validate_brief": "checking the research brief",
    "review_brief": "waiting for the brief review",
    "research_supervisor": "researching (supervisor and researchers)",
    "validate_findings": "checking the findings",
    "extract_evidence": "extracting evidence",
    "verify_evidence": "checking quotes against pages",
    "final_report_generation": "writing the report",
    "review_report": "waiting for the report review",
    "verify_claims": "checking claims",
}
# Steps after the research loop: the iteration shown is the number done, not the one running.
_AFTER_LOOP = frozenset(
    {
        "synthesize",
        "write_report",
        "verify",
        "trust_engine",
        "credibility_scorer",
        "ranker",
        "claim_extractor",
        "cross_validate",
        "confidence_scorer",
        "span_verify",
        "batched_cred_claims",
        "batched_verify",
        "analyzer",
        "auto_refine",
        "cite",
        "writer",
        "extract_evidence",
        "verify_evidence",
        "final_report_generation",
        "review_report",
        "verify_claims",
    }
)
# Piped, starts are not printed: an end or a progress line says more.
_PIPED_KINDS = frozenset({"end", "error", "progress"})


def step_words(node: str) -> str:
    """The step a node performs, in words (an unknown node by its name, underscores spaced)."""
    return STEP_WORDS.get(node) or node.replace("_", " ").strip() or "working"


def elapsed_text(seconds: float) -> str:
    """0:07, 1:42, 1:02:05."""
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _own_message(node: str, message: str) -> str:
    """The message without a leading repeat of the node's name ("synthesize: …", "plan started")."""
    for prefix in (f"{node}: ", f"{node} "):
        if node and message.startswith(prefix):
            return message[len(prefix) :]
    return message


class ProgressView:
    """Consumes run events; a live display in a terminal, one line per event elsewhere."""

    def __init__(self, console: Console, *, title: str, clock: Any = time.monotonic) -> None:
        self.console = console
        self.title = title
        self.clock = clock
        self.started = clock()
        self.node = "run"
        self.message = "starting"
        self.iterations_done = 0
        self.counts = {"searches": 0, "sources": 0, "evidence": 0, "model calls": 0, "errors": 0}
        self.ended: bool | None = None  # None while running; then whether it ended cleanly
        self._spinner = Spinner("dots")
        self._live: Live | None = None

    @property
    def elapsed(self) -> float:
        return self.clock() - self.started

    def iteration_text(self) -> str:
        if self.node in _AFTER_LOOP:
            done = self.iterations_done
            return f"{done} iteration{'s' if done != 1 else ''} done"
        return f"iteration {self.iterations_done + 1}"

    def status_line(self) -> Text:
        """Elapsed time, iteration, the current step in words and its latest message."""
        message = _own_message(self.node, self.message)
        status = line(
            (elapsed_text(self.elapsed), "bold"),
            "  ",
            (self.iteration_text(), "cyan"),
            "  ",
            (step_words(self.node), "bold cyan"),
        )
        if message and not message.endswith(("started", "finished")):
            status.append_text(line(" — ", foreign(message, "dim")))
        status.truncate(max(20, self.console.width - 4), overflow="ellipsis")
        return status

    def counts_line(self) -> Text:
        parts: list[str | tuple[str, str] | Text] = []
        for name, value in self.counts.items():
            style = "bold red" if name == "errors" and value else "bold"
            parts += [f"{name} ", (str(value), style), "  "]
        return line(*parts[:-1])

    def __rich__(self) -> RenderableType:
        """Rendered afresh on every refresh, so the elapsed time and the spinner move."""
        table = Table.grid(padding=(0, 1))
        table.add_column(width=2)
        table.add_column()
        mark: RenderableType = (
            self._spinner
            if self.ended is None
            else Text("✓", "green")
            if self.ended
            else Text("✗", "red")
        )
        table.add_row("", foreign(self.title, "bold"))
        table.add_row(mark, self.status_line())
        table.add_row("", self.counts_line())
        return Group(table)

    def __call__(self, event: dict[str, Any]) -> None:
        counts = event.get("counts") or {}
        kind, node = str(event.get("kind", "")), str(event.get("node", ""))
        message = str(event.get("message", ""))
        if kind == "end":
            self.counts["evidence"] += counts.get("evidence", 0)
            self.counts["model calls"] += counts.get("llm_calls", 0)
            self.counts["sources"] = counts.get("sources", self.counts["sources"])
            self.counts["searches"] = counts.get("searches_done", self.counts["searches"])
            self.iterations_done = counts.get("iteration", self.iterations_done)
        if kind == "error":
            self.counts["errors"] += 1
        self.node, self.message = node, message
        if self._live is not None:
            self._live.refresh()
        elif kind in _PIPED_KINDS:
            self.console.print(self._piped(kind, node, message, counts), highlight=False)

    def _piped(self, kind: str, node: str, message: str, counts: dict[str, Any]) -> Text:
        """One line: elapsed time, the step in words, and what happened (no node name twice)."""
        stamp = (f"{elapsed_text(self.elapsed):>7}  ", "dim")
        step = step_words(node)
        if kind == "error":
            return line(stamp, (f"{step}: ", "red"), foreign(_own_message(node, message), "red"))
        if kind == "end":
            found = [
                f"{counts[key]} {label}"
                for key, label in (("sources", "sources"), ("evidence", "evidence"))
                if counts.get(key)
            ]
            return line(stamp, f"{step}: done" + (f" ({', '.join(found)})" if found else ""))
        return line(stamp, f"{step}: ", foreign(_own_message(node, message)))

    @contextmanager
    def shown(self) -> Iterator[ProgressView]:
        """Show the live display (in a terminal) for the block; it stays on screen after it."""
        if not self.console.is_terminal:
            yield self
            return
        with Live(self, console=self.console, refresh_per_second=8, transient=False) as live:
            self._live = live
            self.ended = False
            try:
                yield self
                self.ended = True
            finally:
                live.refresh()
                self._live = None

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Hide the live display while the user is asked something."""
        live = self._live
        if live is not None:
            live.stop()
        try:
            yield
        finally:
            if live is not None:
                live.start()
