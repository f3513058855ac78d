"""What every evaluator returns (a Check with a reason) and what evaluating cost (Costs)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

Group = Literal["structural", "case", "behavioral", "judge", "citations"]
PASS_MARK = 0.5  # a judge check passes at 3 on its 1–5 scale (0.5 once normalised to 0–1)


class Check(BaseModel):
    """One evaluator's verdict: passed (None when it could not be judged), a 0–1 score, why."""

    name: str
    group: Group
    passed: bool | None
    score: float | None = Field(None, description="0–1; None when not measured.")
    reason: str
    details: dict[str, Any] = Field(default_factory=dict)


def verdict(name: str, group: Group, passed: bool, reason: str, **details: Any) -> Check:
    """A pass/fail check scored 1 or 0."""
    return Check(
        name=name,
        group=group,
        passed=passed,
        score=1.0 if passed else 0.0,
        reason=reason,
        details=details,
    )


def not_measured(name: str, group: Group, reason: str, **details: Any) -> Check:
    """A check that could not be made (a judge that failed, a figure the run does not record)."""
    return Check(name=name, group=group, passed=None, score=None, reason=reason, details=details)


def one_to_five(value: float) -> float:
    """A 1–5 rating on a 0–1 scale."""
    return round(max(0.0, min(1.0, (value - 1.0) / 4.0)), 3)


def mean(values: Iterable[float | None]) -> float | None:
    """The mean of the values that are there, None when none is."""
    present = [value for value in values if value is not None]
    return round(sum(present) / len(present), 3) if present else None


def pass_ratio(checks: Sequence[Check]) -> float | None:
    """Passed / judged over pass-fail checks (checks not measured are left out)."""
    judged = [check for check in checks if check.passed is not None]
    return round(sum(1 for c in judged if c.passed) / len(judged), 3) if judged else None


class Costs(BaseModel):
    """Model calls and tokens spent (and money, where the calls were priced)."""

    model_calls: int = 0
    failed_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None

    def plus(self, other: Costs) -> Costs:
        """The sum of two costs."""
        money = (
            None
            if self.cost_usd is None and other.cost_usd is None
            else round((self.cost_usd or 0.0) + (other.cost_usd or 0.0), 6)
        )
        return Costs(
            model_calls=self.model_calls + other.model_calls,
            failed_calls=self.failed_calls + other.failed_calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost_usd=money,
        )

    @classmethod
    def of_calls(cls, calls: Iterable[Mapping[str, Any]]) -> Costs:
        """The costs of model-call records."""
        total = cls()
        for call in calls:
            money = call.get("cost_usd")
            total = total.plus(
                cls(
                    model_calls=1,
                    failed_calls=0 if call.get("ok", True) else 1,
                    prompt_tokens=call.get("prompt_tokens") or 0,
                    completion_tokens=call.get("completion_tokens") or 0,
                    cost_usd=float(money) if isinstance(money, int | float) else None,
                )
            )
        return total

    @classmethod
    def of_run(cls, metadata: Mapping[str, Any]) -> Costs:
        """A run's costs from its result.json metadata (every attempt, where recorded)."""

        def number(*names: str) -> int:
            for name in names:
                value = metadata.get(name)
                if isinstance(value, int) and not isinstance(value, bool):
                    return value
            return 0

        money = metadata.get("cost_usd")
        return cls(
            model_calls=number("llm_calls_all_attempts", "llm_calls"),
            failed_calls=number("llm_calls_failed"),
            prompt_tokens=number("prompt_tokens_all_attempts", "prompt_tokens"),
            completion_tokens=number("completion_tokens_all_attempts", "completion_tokens"),
            cost_usd=float(money) if isinstance(money, int | float) else None,
        )

    def describe(self) -> str:
        """One line: calls, tokens, money."""
        money = f", ${self.cost_usd:.4f}" if self.cost_usd is not None else ""
        failed = f" ({self.failed_calls} failed)" if self.failed_calls else ""
        return (
            f"{self.model_calls} model calls{failed}, {self.prompt_tokens} prompt + "
            f"{self.completion_tokens} completion tokens{money}"
        )
