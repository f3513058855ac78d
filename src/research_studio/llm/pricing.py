"""What model calls cost: a price table per model (USD per million tokens), overridable."""

from __future__ import annotations

from collections.abc import Mapping

# (input, output) USD per million tokens, as published by the providers. Local models cost 0.
BUILTIN_PRICES: dict[str, tuple[float, float]] = {
    "openai:gpt-4o": (2.50, 10.00),
    "openai:gpt-4o-mini": (0.15, 0.60),
    "openai:gpt-4.1": (2.00, 8.00),
    "openai:gpt-4.1-mini": (0.40, 1.60),
    "openai:gpt-4.1-nano": (0.10, 0.40),
    "openai:o4-mini": (1.10, 4.40),
    "openai:gpt-5": (1.25, 10.00),
    "openai:gpt-5-mini": (0.25, 2.00),
    "anthropic:claude-sonnet-4-5": (3.00, 15.00),
    "anthropic:claude-haiku-4-5": (1.00, 5.00),
    "anthropic:claude-opus-4-1": (15.00, 75.00),
}
FREE_PROVIDERS = ("local:", "ollama:", "scripted:")


def price_of(spec: str, overrides: Mapping[str, tuple[float, float]]) -> tuple[float, float] | None:
    """The (input, output) price of a model, or None when it is not known."""
    if spec in overrides:
        return overrides[spec]
    if spec.startswith(FREE_PROVIDERS):
        return (0.0, 0.0)
    return BUILTIN_PRICES.get(spec)


def call_cost(
    spec: str,
    prompt_tokens: int | None,
    completion_tokens: int | None,
    overrides: Mapping[str, tuple[float, float]],
) -> float | None:
    """A call's cost in USD (None when the model's price is unknown)."""
    price = price_of(spec, overrides)
    if price is None:
        return None
    return round(
        ((prompt_tokens or 0) * price[0] + (completion_tokens or 0) * price[1]) / 1_000_000, 6
    )
