"""What the supervisor pipeline's nodes share: role models, limits, the date."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

from research_studio.core.config import Configuration
from research_studio.llm.models import ModelTier
from research_studio.llm.structured import ModelCaller
from research_studio.services.clients import Services

Role = Literal["research", "summarization", "compression", "final_report"]
_TIER: dict[Role, ModelTier] = {
    "research": "smart",
    "summarization": "fast",
    "compression": "smart",
    "final_report": "smart",
}
TEST_MODE_LIMITS = (2, 3, 2)  # supervisor turns, researcher tool calls, parallel researchers


def role_caller(services: Services, config: Configuration, node: str, role: Role) -> ModelCaller:
    """A caller for a node: its override, else the role's model, else the role's tier."""
    spec = config.model_overrides.get(node) or getattr(config, f"{role}_model")
    return services.caller(node, _TIER[role], spec=spec)


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
