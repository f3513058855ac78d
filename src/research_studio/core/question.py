"""The research question as every face and every graph takes it: one check, one set of words."""

from __future__ import annotations

from research_studio.core.errors import ResearchStudioError


def check_query(query: str, *, max_chars: int) -> str:
    """The question, stripped; a one-line error for text no run can be made of."""
    try:
        query.encode("utf-8")
    except UnicodeEncodeError:
        raise ResearchStudioError(
            "the question holds bytes that are not valid UTF-8; pass it as UTF-8 text"
        ) from None
    text = query.strip()
    if not text:
        raise ResearchStudioError("the question is empty")
    if len(text) > max_chars:
        raise ResearchStudioError(
            f"the question is {len(text)} characters long; the limit is {max_chars} "
            "(max_query_chars)"
        )
    if not any(char.isalnum() for char in text):
        raise ResearchStudioError("the question has no words, only punctuation or spaces")
    return text
