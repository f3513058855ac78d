"""`research-studio mcp`: serve Research Studio's tools to MCP clients over stdio."""

from __future__ import annotations

from research_studio.faces.cli import common


def mcp() -> None:
    """Serve research, search, fetch and audit to an MCP client over stdio (settings from env)."""
    # Imported here: the MCP SDK is only loaded by the command that needs it.
    from research_studio.faces.mcp_server import serve

    with common.user_errors():
        serve()
