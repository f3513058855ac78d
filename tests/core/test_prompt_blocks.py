"""The blocks every prompt shares: the request with its clarification, numbered lists."""

from __future__ import annotations

from research_studio.core.prompt_blocks import (
    CLARIFICATION_LABEL,
    REQUEST_LABEL,
    inline,
    numbered,
    request_block,
)


def test_a_clarification_becomes_part_of_the_request() -> None:
    assert request_block("python", "") == f"{REQUEST_LABEL} python"
    assert request_block("python", "  the snake ") == (
        f"{REQUEST_LABEL} python\n{CLARIFICATION_LABEL} the snake"
    )


def test_lists_are_numbered_or_say_none() -> None:
    assert numbered(["first", "second"]) == "1. first\n2. second"
    assert numbered([]) == "(none)"
    assert inline(["Background", "Outlook"]) == "Background; Outlook"
