"""The advanced family's stop rules: the loop's (V9 and both variants) and the optimized
variant's early termination. Pure functions answering in the kit's vocabulary."""

from __future__ import annotations

from research_studio.pipelines.kit.stopping import CONTINUE, StopReason, budget_stop, cap_reached


def advanced_stop_reason(
    *,
    rounds_done: int,
    max_iterations: int,
    confidence: float,
    previous: float,
    gaps: int,
    refinements: int,
    min_confidence: float,
    min_gain: float,
    sufficient: bool = False,
) -> StopReason:
    """The advanced loop (spec's stop rules): cap, confidence, sufficiency, small gain, no gaps
    or searches. `sufficient`: the assessor said so and code found no weak section."""
    if cap_reached(rounds_done, max_iterations):
        return "iteration_cap"
    if confidence >= min_confidence:
        return "coverage_reached"
    if sufficient:
        return "ready"
    if rounds_done > 1 and confidence - previous < min_gain:
        return "gain_below_threshold"
    if not gaps:
        return "no_gaps"
    if not refinements:
        return "no_searches_left"
    return CONTINUE


def early_stop_reason(
    *,
    budget_reached: str,
    fast_path: bool,
    iteration: int,
    confidence: float,
    previous: float,
    min_gain: float,
    new_sources: int,
    known_sources: int,
    min_novelty: float,
) -> StopReason:
    """The optimized variant's early termination: budget, fast path, small gain, low novelty."""
    if budget_reached:
        return budget_stop(budget_reached)
    if fast_path:
        return "fast_path"
    if iteration > 0 and confidence - previous < min_gain:
        return "gain_below_threshold"
    if iteration > 0 and new_sources < min_novelty * max(1, known_sources):
        return "low_novelty"
    return CONTINUE
