"""Why a research loop stops: one vocabulary for every pipeline, decided by pure functions.

Each pipeline's rule is a pure function in its own folder (`standard/stopping.py`, ...), named
in its spec's `stop_rules`; this module holds the vocabulary they answer in and the counting and
budget rules they share. The assessing node of each pipeline computes the reason and writes it
to state as `stop_reason` ("" to go on); routers only read it, and run metadata records it.

Every loop counts the same way: `rounds_done` is the number of rounds (iterations, turns)
finished when the rule is asked, and the cap is reached when it equals the setting, so
`max_iterations = 2` means two rounds in every pipeline.
"""

from __future__ import annotations

import typing
from typing import Literal

StopReason = Literal[
    "",
    "ready",  # the assessor judged the evidence sufficient
    "coverage_reached",  # coverage or confidence reached the configured minimum
    "gain_below_threshold",  # the last round added too little
    "low_novelty",  # the last round found too few new sources (advanced, optimized variant)
    "fast_path",  # a simple query, answered by one worker in one round (optimized variant)
    "no_gaps",  # nothing left to look for
    "no_searches_left",  # every proposed search was already run
    "iteration_cap",  # max_iterations reached
    "assessment_failed",  # the assessor's model call failed: write with what there is
    "research_complete",  # the supervisor called ResearchComplete
    "no_tool_calls",  # the supervisor called no tool: nothing more to delegate
    "budget:llm_calls",  # a run budget was reached (see budget.py): write with what there is
    "budget:tokens",
    "budget:cost_usd",
    "budget:wall_s",
]
CONTINUE: StopReason = ""


def cap_reached(rounds_done: int, max_rounds: int) -> bool:
    """True when the rounds finished reach the configured number (the one counting rule)."""
    return rounds_done >= max_rounds


def budget_stop(reached: str) -> StopReason:
    """The stop reason for a budget that was reached ("" when none was)."""
    return typing.cast(StopReason, f"budget:{reached}") if reached else CONTINUE
