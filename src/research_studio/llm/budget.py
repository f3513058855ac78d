"""A run's budgets: model calls, tokens, cost and wall time; the first one reached stops research.

Spend is counted by the process that runs the graph: after a resume the limits apply afresh to
the calls the resumed attempt makes (run metadata still reports the whole run's spend).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from research_studio.core.config import Configuration
from research_studio.core.records import ModelCallRecord


@dataclass
class Budget:
    """Spend so far against the configured limits (None: no limit)."""

    max_llm_calls: int | None = None
    max_tokens: int | None = None
    max_cost_usd: float | None = None
    max_wall_s: float | None = None
    started: float = field(default_factory=time.monotonic)
    llm_calls: int = 0
    tokens: int = 0
    cost_usd: float = 0.0

    @classmethod
    def of(cls, config: Configuration) -> Budget:
        return cls(
            max_llm_calls=config.max_llm_calls,
            max_tokens=config.max_tokens,
            max_cost_usd=config.max_cost_usd,
            max_wall_s=config.max_wall_s,
        )

    def admit(self) -> str:
        """Count a call about to start, or say which budget forbids it (calls in flight count)."""
        reached = self.reached()
        if not reached:
            self.llm_calls += 1
        return reached

    def spend(self, record: ModelCallRecord) -> None:
        """Add what a finished call cost."""
        self.tokens += (record["prompt_tokens"] or 0) + (record["completion_tokens"] or 0)
        self.cost_usd += record.get("cost_usd") or 0.0

    def reached(self) -> str:
        """The first budget reached ("llm_calls", "tokens", "cost_usd", "wall_s"), or ""."""
        if self.max_llm_calls is not None and self.llm_calls >= self.max_llm_calls:
            return "llm_calls"
        if self.max_tokens is not None and self.tokens >= self.max_tokens:
            return "tokens"
        if self.max_cost_usd is not None and self.cost_usd >= self.max_cost_usd:
            return "cost_usd"
        if self.max_wall_s is not None and time.monotonic() - self.started >= self.max_wall_s:
            return "wall_s"
        return ""
