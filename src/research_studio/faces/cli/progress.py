"""Live progress of a run: node, iteration, searches, sources, evidence, calls, errors."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.live import Live
from rich.table import Table


class ProgressView:
    """Consumes run events; a live panel in a terminal, plain lines elsewhere."""

    def __init__(self, console: Console, *, title: str) -> None:
        self.console = console
        self.title = title
        self.node = "starting"
        self.message = ""
        self.counts = {
            "iteration": 0,
            "searches": 0,
            "sources": 0,
            "evidence": 0,
            "llm calls": 0,
            "errors": 0,
        }
        self._live: Live | None = None

    def _panel(self) -> Table:
        table = Table.grid(padding=(0, 2))
        table.add_row(f"[bold]{self.title}[/]")
        table.add_row(f"[cyan]{self.node}[/] {self.message}"[:200])
        table.add_row("  ".join(f"{name}: [bold]{value}[/]" for name, value in self.counts.items()))
        return table

    def __call__(self, event: dict[str, Any]) -> None:
        counts = event.get("counts") or {}
        kind, node = event["kind"], event["node"]
        if kind == "end":
            self.counts["evidence"] += counts.get("evidence", 0)
            self.counts["llm calls"] += counts.get("llm_calls", 0)
            self.counts["sources"] = counts.get("sources", self.counts["sources"])
            self.counts["searches"] = counts.get("searches_done", self.counts["searches"])
            self.counts["iteration"] = counts.get("iteration", self.counts["iteration"])
        if kind == "error":
            self.counts["errors"] += 1
        self.node, self.message = node, event["message"]
        if self._live is not None:
            self._live.update(self._panel())
        elif kind in ("end", "error") or (
            kind == "progress" and node in ("detect_gaps", "synthesize", "verify", "clarify")
        ):
            style = "red" if kind == "error" else "dim"
            self.console.print(f"[{style}]{node}: {event['message']}[/]", highlight=False)

    @contextmanager
    def shown(self) -> Iterator[ProgressView]:
        """Show the live panel (in a terminal) for the duration of the block."""
        if self.console.is_terminal:
            with Live(
                self._panel(), console=self.console, refresh_per_second=8, transient=True
            ) as live:
                self._live = live
                try:
                    yield self
                finally:
                    self._live = None
        else:
            yield self

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Hide the live panel while the user is asked something."""
        live = self._live
        if live is not None:
            live.stop()
        try:
            yield
        finally:
            if live is not None:
                live.start()
