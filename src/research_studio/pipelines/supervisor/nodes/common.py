"""What the supervisor pipeline's nodes share: limits, the date."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from research_studio.core.config import Configuration

TEST_MODE_LIMITS = (2, 3, 2)  # supervisor turns, researcher tool calls, parallel researchers


@dataclass(frozen=True)
class Limits:
    """How far the supervisor and its researchers may go."""

    turns: int
    tool_calls: int
    parallel: int


def limits(config: Configuration) -> Limits:
    """The configured limits, cut down in test mode."""
    turns, calls, parallel = (
        config.max_researcher_iterations,
        config.max_react_tool_calls,
        config.max_concurrent_research_units,
    )
    if config.test_mode:
        turns, calls, parallel = (
            min(value, cap)
            for value, cap in zip((turns, calls, parallel), TEST_MODE_LIMITS, strict=True)
        )
    return Limits(turns=turns, tool_calls=calls, parallel=parallel)


def today() -> str:
    return dt.date.today().isoformat()
