"""What one MCP tool call may carry: a client that a model drives may send text of any size.

An address, a run id, an answer or a setting is a line; a statement is a paragraph; a question
or a query is as long as `max_query_chars` allows (as for `run`); a document's text is as large
as a document file the server indexes (`max_document_bytes`).
Anything larger is refused in one line before any work starts, as is an argument the tool
does not take or one of the wrong type (named, with what it expects, never pydantic's report).
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

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


def _shown(value: Any) -> str:
    """A client's value, short and on one line (repr escapes control characters)."""
    if isinstance(value, str):
        return repr(value[:40] + "…" if len(value) > 40 else value)
    if isinstance(value, bool | int | float) or value is None:
        text = "null" if value is None else repr(value)
        return text if len(text) <= 40 else text[:40] + "…"
    return "a list" if isinstance(value, list) else "an object"


def unknown_arguments(tool: str, given: Collection[str], taken: Collection[str]) -> str | None:
    """The arguments a call gives that the tool does not take, in one line (None when none)."""
    unknown = sorted(name for name in given if name not in taken)
    if not unknown:
        return None
    said = []
    for name in unknown:
        close = difflib.get_close_matches(name, list(taken), n=1)
        hint = f" (did you mean `{close[0]}`?)" if close else ""
        shown = repr(name[:60])[1:-1]  # a client's text: control characters escaped
        said.append(f"`{shown}`{hint}")
    plural = "s" if len(unknown) > 1 else ""
    return f"{tool} takes no argument{plural} {', '.join(said)}; it takes {', '.join(taken)}"


def argument_errors(exc: ValidationError) -> str:
    """A tool's arguments refused by its schema, each named with what it expects, on one line."""
    said = []
    for error in exc.errors():
        name = ".".join(str(part) for part in error["loc"]) or "arguments"
        if error["type"] == "missing":
            said.append(f"`{name}` is required")
            continue
        message = str(error["msg"]).splitlines()[0]
        if message.startswith("Value error, "):  # a validator's own words, naming the value
            said.append(f"`{name}`: {message.removeprefix('Value error, ')}")
            continue
        expected = (
            message.removeprefix("Input ")
            if message.startswith("Input ")
            else f"is refused: {message[:1].lower()}{message[1:]}"
        )
        said.append(f"`{name}` {expected} (got {_shown(error.get('input'))})")
    return "; ".join(said)
