"""The configured MCP servers' tools as researcher tools: what they return is read like a page.

A tool's answer becomes a source: its text is kept in the page archive (so `sources/S<n>.txt`
is written and `audit` can check quotes in it) under the URL the answer names, else
`mcp://<server>/<tool>?h=<hash of the arguments>`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from research_studio.core.errors import McpError
from research_studio.core.records import ErrorRecord
from research_studio.evidence.gathering import PageText
from research_studio.pipelines.kit.node_kit import error_record
from research_studio.pipelines.supervisor.tool_calls import Tool
from research_studio.services.clients import Services
from research_studio.sources.mcp_sources import McpTool
from research_studio.sources.search import SearchResult

MAX_MCP_CALLS_PER_TURN = 3
DESCRIPTION_CHARS = 600


class PassThroughArgs(BaseModel):
    """Any arguments: the MCP server validates its own (its schema is what the model sees)."""

    model_config = ConfigDict(extra="allow")


@dataclass(frozen=True)
class McpResearchTool(Tool):
    """A researcher tool backed by one tool of a configured MCP server."""

    source: McpTool | None = None
    schema: dict[str, Any] = field(default_factory=dict)

    def spec(self) -> dict[str, Any]:
        parameters = dict(self.schema) or {"type": "object", "properties": {}}
        parameters.pop("title", None)
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": parameters,
            },
        }


def research_tool(tool: McpTool) -> McpResearchTool:
    """The researcher's view of an MCP tool: prefixed name, its description, its own schema."""
    about = tool.description.strip() or f"The {tool.name} tool."
    description = f"[MCP server {tool.server}] {about}"[:DESCRIPTION_CHARS]
    return McpResearchTool(
        tool.exposed_name, description, PassThroughArgs, source=tool, schema=tool.input_schema
    )


async def researcher_mcp_tools(
    services: Services,
) -> tuple[list[McpResearchTool], list[ErrorRecord]]:
    """Every configured server's tools (the MCP search tool is reached through `search`)."""
    if not services.config.mcp_servers:
        return [], []
    listed, failed = await services.mcp.all_tools()
    search_tool = services.config.mcp_search_tool
    tools = [research_tool(tool) for tool in listed if f"{tool.server}.{tool.name}" != search_tool]
    return tools, [error_record("researcher", exc, "mcp") for exc in failed]


async def read_tool(
    services: Services, tool: McpResearchTool, arguments: dict[str, Any]
) -> PageText:
    """Call the tool and keep its answer as a page's text (raises McpError)."""
    assert tool.source is not None
    answer = await services.mcp.call(tool.source.server, tool.source.name, arguments)
    await services.archive.keep(answer.url, answer.text)
    title = f"{tool.source.server}.{tool.source.name}"
    shown = ", ".join(f"{key}={value}" for key, value in arguments.items())[:120]
    result = SearchResult(
        url=answer.url,
        title=f"{title}({shown})",
        snippet=answer.text[:300],
        content=answer.text,
        provider=f"mcp:{tool.source.server}",
    )
    return PageText(result, shown, result.title, answer.text, None)


__all__ = [
    "MAX_MCP_CALLS_PER_TURN",
    "McpError",
    "McpResearchTool",
    "read_tool",
    "research_tool",
    "researcher_mcp_tools",
]
