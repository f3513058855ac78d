"""The loop rules of every pipeline count rounds the same way."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from research_studio.pipelines.advanced.stopping import advanced_stop_reason
from research_studio.pipelines.standard.stopping import standard_stop_reason
from research_studio.pipelines.supervisor.stopping import supervisor_stop_reason


def _reasons(rounds_done: int, max_iterations: int) -> set[str]:
    """Each pipeline's verdict when nothing but the round count could stop it."""
    return {
        standard_stop_reason(
            ready=False,
            coverage=0.0,
            min_coverage=0.9,
            pending_searches=1,
            rounds_done=rounds_done,
            max_iterations=max_iterations,
        ),
        advanced_stop_reason(
            rounds_done=rounds_done,
            max_iterations=max_iterations,
            confidence=0.1 * rounds_done / (rounds_done + 1),
            previous=0.0,
            gaps=1,
            refinements=1,
            min_confidence=0.99,
            min_gain=0.0,
        ),
        supervisor_stop_reason(
            rounds_done=rounds_done,
            max_iterations=max_iterations,
            tool_calls=1,
            research_complete=False,
        ),
    }


@given(st.integers(min_value=0, max_value=60), st.integers(min_value=1, max_value=50))
def test_every_loop_stops_after_exactly_max_rounds(rounds_done: int, max_iterations: int) -> None:
    expected = "iteration_cap" if rounds_done >= max_iterations else ""
    assert _reasons(rounds_done, max_iterations) == {expected}


def test_two_iterations_mean_two_rounds_everywhere() -> None:
    assert _reasons(1, 2) == {""}
    assert _reasons(2, 2) == {"iteration_cap"}
