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
from research_studio.run.steps import after_loop, step_words

# Piped, starts are not printed: an end or a progress line says more.
_PIPED_KINDS = frozenset({"end", "error", "progress"})


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

    def __init__(
        self,
        console: Console,
        *,
        title: str,
        clock: Any = time.monotonic,
        started: float | None = None,
    ) -> None:
        self.console = console
        self.title = title
        self.clock = clock
        self.started = clock() if started is None else started  # `clock`'s time of the start
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
        if self.node in after_loop():
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
        said = _own_message(node, message)
        if said.casefold() == step.casefold():  # "planning the research: planning the research"
            return line(stamp, f"{step} …")
        return line(stamp, f"{step}: ", foreign(said))

    @contextmanager
    def shown(self) -> Iterator[ProgressView]:
        """Show the live display (in a terminal) for the block; it stays on screen after it."""
        if not self.console.is_terminal:
            yield self
            return
        with Live(self, console=self.console, refresh_per_second=8, transient=False) as live:
            self._live = live
            try:
                yield self  # the spinner turns while `ended` is None
            except BaseException:
                self.ended = False
                raise
            else:
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
