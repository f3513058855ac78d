"""Plan review at the terminal: show the plan, take approval, an edit, or a cancel."""

from __future__ import annotations

import asyncio

from rich.prompt import Prompt

from research_studio.faces.cli import common
from research_studio.faces.cli.progress import ProgressView
from research_studio.faces.cli.terminal import foreign, line
from research_studio.run.runner import ReviewFn

HOW = (
    "Enter to approve, 'e' to edit the plan in your editor, 'cancel' to stop, "
    "or type what to change"
)


def reviewer(view: ProgressView, *, reply: str | None, interactive: bool) -> ReviewFn:
    """A reply given up front (--plan-reply), else the terminal's, else None (the run pauses)."""

    async def review(plan: str) -> str | None:
        if reply is not None:
            return reply
        if not interactive:
            return None

        def ask() -> str:
            common.err.print("\n[bold]Research plan[/]")
            common.err.print(foreign(plan, newlines=True), highlight=False)
            answer = Prompt.ask(HOW, console=common.err, default="", show_default=False).strip()
            if answer.lower() in {"e", "edit"}:
                import click  # (here: a run whose plan is never edited does not load it)

                edited = click.edit(plan)
                return "" if edited is None or edited.strip() == plan.strip() else edited
            return answer

        with view.paused():
            return await asyncio.to_thread(ask)

    return review


def print_pending_review(run_id: str, plan: str) -> None:
    """The plan a paused run waits on, and how to answer it."""
    common.err.print(line((f"Run {run_id} waits for plan review:", "yellow")))
    common.err.print(foreign(plan, newlines=True), highlight=False)
    common.err.print(
        f"Approve:  research-studio resume {run_id} --answer approve\n"
        f'Edit:     research-studio resume {run_id} --answer "- first question\\n- second question"\n'
        f"Cancel:   research-studio resume {run_id} --answer cancel",
        highlight=False,
        markup=False,
    )
