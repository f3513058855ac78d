"""A model call that may fail: the answer, or None with the failure handed to `lost`."""

from __future__ import annotations

import asyncio

import pytest

from research_studio.core.errors import ModelError, ProviderError, ResearchStudioError
from research_studio.llm.attempts import attempt_call


async def _answer() -> str:
    return "answer"


async def _fails(exc: Exception) -> str:
    raise exc


def test_an_answer_is_returned_and_nothing_is_lost() -> None:
    lost: list[ResearchStudioError] = []
    assert asyncio.run(attempt_call(_answer(), lost.append)) == "answer"
    assert lost == []


def test_a_failure_is_none_and_handed_over() -> None:
    failure = ModelError("server error", kind="server_error")
    lost: list[ResearchStudioError] = []
    assert asyncio.run(attempt_call(_fails(failure), lost.append)) is None
    assert lost == [failure]


def test_a_permanent_model_error_raises_only_when_failing_fast() -> None:
    failure = ModelError("bad key", kind="auth")
    assert failure.permanent
    lost: list[ResearchStudioError] = []
    with pytest.raises(ModelError):
        asyncio.run(attempt_call(_fails(failure), lost.append, fail_fast=True))
    assert asyncio.run(attempt_call(_fails(failure), lost.append)) is None
    assert lost == [failure]


def test_what_is_not_caught_propagates() -> None:
    lost: list[ResearchStudioError] = []
    with pytest.raises(ResearchStudioError):
        asyncio.run(
            attempt_call(_fails(ResearchStudioError("bug")), lost.append, caught=ProviderError)
        )
    with pytest.raises(KeyError):
        asyncio.run(attempt_call(_fails(KeyError("x")), lost.append))
    assert lost == []
