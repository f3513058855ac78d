"""A run's steps in words, for every face that shows progress.

Each pipeline's spec names its own nodes in words (`PipelineSpec.steps`, `after_loop`); the
runner adds its own two events, `run` and `review`. The faces ask only this module.
"""

from __future__ import annotations

from research_studio.pipelines import registry

# The runner's own events (a run's start, failure or cancellation; a person's review).
RUN_STEPS: dict[str, str] = {"run": "the run", "review": "the review"}


def step_table() -> dict[str, str]:
    """Every step's words: the runner's events and every registered pipeline's nodes."""
    return {**RUN_STEPS, **registry.step_words()}


def after_loop() -> frozenset[str]:
    """Steps after the research loop: progress shows the iterations done, not one running."""
    return registry.after_loop()


def step_words(node: str) -> str:
    """The step a node performs, in words (an unknown node by its name, underscores spaced)."""
    return step_table().get(node) or node.replace("_", " ").strip() or "working"
