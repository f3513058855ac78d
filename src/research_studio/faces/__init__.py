"""The faces: the CLI, the web page, the MCP server and the remote client."""
