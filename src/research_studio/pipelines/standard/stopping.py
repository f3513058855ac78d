"""When the standard loop stops: a pure rule, asked by `assess.py` after each round."""

from __future__ import annotations

from research_studio.pipelines.kit.stopping import CONTINUE, StopReason, cap_reached


def standard_stop_reason(
    *,
    ready: bool,
    coverage: float,
    min_coverage: float,
    pending_searches: int,
    rounds_done: int,
    max_iterations: int,
) -> StopReason:
    """The standard loop: ready, covered, out of searches, or out of iterations."""
    if ready:
        return "ready"
    if coverage >= min_coverage:
        return "coverage_reached"
    if not pending_searches:
        return "no_searches_left"
    if cap_reached(rounds_done, max_iterations):
        return "iteration_cap"
    return CONTINUE
