"""Blocks every prompt shares: the request with any clarification, numbered lists, page fences.

Labels are constants because the scripted test model reads prompts back by them: rewording
a label changes the prompt and its reader together.
"""

from __future__ import annotations

from collections.abc import Iterable

REQUEST_LABEL = "Research request:"
CLARIFICATION_LABEL = "User clarification:"
QUESTIONS_LABEL = "Research questions:"
NUMBERED_ITEM = "{number}. {item}"
NONE = "(none)"
LIST_SEPARATOR = "; "
PAGE_TEXT_OPEN = "<<<"
PAGE_TEXT_CLOSE = ">>>"


def request_block(query: str, clarification: str = "") -> str:
    """The research request; a clarification, when given, is part of it from then on."""
    request = f"{REQUEST_LABEL} {query}"
    if clarification.strip():
        return f"{request}\n{CLARIFICATION_LABEL} {clarification.strip()}"
    return request


def numbered(items: Iterable[str]) -> str:
    """Items as a numbered list, or '(none)'."""
    lines = (NUMBERED_ITEM.format(number=number, item=item) for number, item in enumerate(items, 1))
    return "\n".join(lines) or NONE


def inline(items: Iterable[str]) -> str:
    """Items on one line (outlines, sections), as readers split them."""
    return LIST_SEPARATOR.join(items)


def additional_instructions(system_prompt: str) -> str:
    """The user's own instructions for a writer, or nothing."""
    return f"Additional instructions: {system_prompt}" if system_prompt else ""
