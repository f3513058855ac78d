"""When the supervisor loop stops (spec 004): a pure rule, asked by its supervisor node."""

from __future__ import annotations

from research_studio.pipelines.kit.stopping import CONTINUE, StopReason, cap_reached


def supervisor_stop_reason(
    *, rounds_done: int, max_iterations: int, tool_calls: int, research_complete: bool
) -> StopReason:
    """The supervisor loop (spec 004): ResearchComplete, no tool calls, or out of turns."""
    if research_complete:
        return "research_complete"
    if not tool_calls:
        return "no_tool_calls"
    if cap_reached(rounds_done, max_iterations):
        return "iteration_cap"
    return CONTINUE
