"""A model call that may fail: its answer, or None with the failure handed over as a loss.

The one try/except for model calls. Nodes use `pipelines/kit/models.attempt`, which records the
loss as an error record of the node; the evidence layer (below pipelines) records its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from research_studio.core.errors import ModelError, ResearchStudioError

T = TypeVar("T")


async def attempt_call(
    call: Awaitable[T],
    lost: Callable[[ResearchStudioError], object],
    *,
    caught: type[ResearchStudioError] = ResearchStudioError,
    fail_fast: bool = False,
) -> T | None:
    """The call's answer; on a `caught` failure None, after `lost(failure)` recorded it.

    `fail_fast` raises a permanent model error (a bad key, an unknown model) instead, as no
    later call would work either. Anything not `caught` propagates.
    """
    try:
        return await call
    except caught as exc:
        if fail_fast and isinstance(exc, ModelError) and exc.permanent:
            raise
        lost(exc)
        return None
