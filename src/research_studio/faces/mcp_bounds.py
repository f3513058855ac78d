"""What one MCP tool call may carry: a client that a model drives may send text of any size.

An address, a run id, an answer or a setting is a line; a statement is a paragraph; a question
or a query is as long as `max_query_chars` allows (as for `run`); a document's text is as large
as a document file the server indexes (`max_document_bytes`).
Anything larger is refused in one line before any work starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

MAX_LINE_CHARS = 4_000
MAX_STATEMENT_CHARS = 10_000
MAX_LIST_ITEMS = 100


def bounded(name: str, value: str, limit: int = MAX_LINE_CHARS) -> str:
    """The value, or a one-line refusal when it is longer than `limit` characters."""
    if len(value) > limit:
        raise ToolError(f"`{name}` is too long: {len(value):,} characters, at most {limit:,}")
    return value


def bounded_settings(values: Mapping[str, Any]) -> None:
    """Refuse a setting's text (or list of texts) longer than a line."""
    for name, value in values.items():
        if isinstance(value, str):
            bounded(name, value)
        elif isinstance(value, list):
            if len(value) > MAX_LIST_ITEMS:
                raise ToolError(f"`{name}` has {len(value):,} items, at most {MAX_LIST_ITEMS}")
            for item in value:
                if isinstance(item, str):
                    bounded(name, item)
