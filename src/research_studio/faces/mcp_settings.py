"""The MCP tools' setting parameters: one per setting, named and described by its field.

A tool's mistakes come back as one line naming its settings as that tool takes them.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field, JsonValue

from research_studio.core.declarations import DECLARED, Declared, client_settings, reword
from research_studio.faces.mcp_bounds import bounded_settings

# The settings `research` (and `research_start`) takes, and those `search` takes.
MCP_SETTINGS = client_settings("mcp.research")
SEARCH_SETTINGS = client_settings("mcp.search")


def _parameter(declared: Declared) -> inspect.Parameter:
    """A tool parameter for one setting: its name, type and description are the field's."""
    bounds: dict[str, JsonValue] = {
        key: value
        for key, value in (
            ("minimum", declared.minimum),
            ("maximum", declared.maximum),
            ("exclusiveMinimum", declared.above),
        )
        if value is not None
    }
    annotation = list[str] if declared.name == "docs" else declared.annotation
    return inspect.Parameter(
        declared.name,
        inspect.Parameter.KEYWORD_ONLY,
        default=None,
        annotation=Annotated[
            annotation | None, Field(description=declared.help, json_schema_extra=bounds or None)
        ],
    )


Tool = Callable[..., Awaitable[Any]]


def setting_parameters(*names: str) -> Callable[[Tool], Tool]:
    """Give a tool one parameter per named setting; it receives them as `overrides`."""

    def decorate(tool: Tool) -> Tool:
        signature = inspect.signature(tool, eval_str=True)
        own = [param for name, param in signature.parameters.items() if name != "overrides"]

        @functools.wraps(tool)
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            overrides = {name: kwargs.pop(name, None) for name in names}
            bounded_settings(overrides)
            return await tool(*args, overrides=overrides, **kwargs)

        params = [*own, *(_parameter(DECLARED[name]) for name in names)]
        wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        return wrapper

    return decorate


def in_mcp_words(parameters: tuple[str, ...]) -> Callable[[Declared], str]:
    """A setting as an MCP user can set it: a parameter of the tool called, or the server's
    settings."""

    def words(declared: Declared) -> str:
        if declared.name in parameters:
            return f"the `{declared.name}` parameter"
        return f"the server's `{declared.name}` setting"

    return words


def one_line(exc: Exception, parameters: tuple[str, ...] = MCP_SETTINGS) -> ToolError:
    """The error's first line, its settings named as the tool called (with `parameters`) takes
    them."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return ToolError(reword(text, in_mcp_words(parameters)))
