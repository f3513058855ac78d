"""How the user's request, with any clarification, is shown to every prompt."""

from __future__ import annotations


def request_block(query: str, clarification: str = "") -> str:
    """The research request; a clarification, when given, is part of it from then on."""
    if clarification.strip():
        return f"Research request: {query}\nUser clarification: {clarification.strip()}"
    return f"Research request: {query}"


def numbered(items: list[str]) -> str:
    """Items as a numbered list, or '(none)'."""
    return "\n".join(f"{index}. {item}" for index, item in enumerate(items, 1)) or "(none)"
