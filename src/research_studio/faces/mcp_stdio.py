"""The MCP server's stdio transport without a thread per line.

The SDK's stdio transport reads each line, writes each message and flushes it in a worker thread
(anyio's file wrapper): three trips between threads per call, about 1.4 ms of the server's CPU
per call and, on busy cores, more wall time than a local search itself (docs/performance.md).
When stdin and stdout are pipes or sockets, as an MCP client starts a server, they are read and
written here by the event loop instead, with the SDK's framing and session unchanged. As the
SDK does, descriptors 0 and 1 point at the null device and at stderr while serving, so stray
output of a handler or a child process never reaches the wire; both are restored on exit.
Anything else (a file, a terminal, Windows) is served by the SDK's own transport.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server

# A message is one line; the SDK's own transport reads lines of any length too.
_MAX_LINE = 1 << 30


class _Lines:
    """The lines of the wire, as the SDK's stdio transport iterates them."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        line = await self._reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class _Output:
    """Writes to the wire, as the SDK's stdio transport writes them; `flush` waits while the
    pipe is full (the client reads slowly), without a thread."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        self._writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self._writer.drain()


def _is_pipe(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def pipes_served_here() -> bool:
    """Whether stdin and stdout are served by the event loop (else by the SDK's threads)."""
    return sys.platform != "win32" and _is_pipe(0) and _is_pipe(1)


@asynccontextmanager
async def _wire() -> AsyncIterator[tuple[_Lines, _Output]]:
    """The client's pipes, moved off descriptors 0 and 1 for as long as the server runs."""
    loop = asyncio.get_running_loop()
    wire_in, wire_out = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    reading: asyncio.BaseTransport | None = None
    writing: asyncio.WriteTransport | None = None
    try:
        reader = asyncio.StreamReader(limit=_MAX_LINE, loop=loop)
        reading, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader, loop=loop), os.fdopen(wire_in, "rb", 0)
        )
        writing, protocol = await loop.connect_write_pipe(
            lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader(loop=loop), loop=loop),
            os.fdopen(wire_out, "wb", 0),
        )
        yield _Lines(reader), _Output(asyncio.StreamWriter(writing, protocol, None, loop))
    finally:
        for transport in (reading, writing):
            if transport is not None:
                transport.close()
        for fd, saved in ((0, saved_in), (1, saved_out)):
            os.set_blocking(saved, True)  # the pipe as it was given (asyncio made it non-blocking)
            os.dup2(saved, fd)
            os.close(saved)


async def _serve(server: Any) -> None:
    async with _wire() as (lines, output), stdio_server(lines, output) as (read, write):  # type: ignore[arg-type]
        await server.run(read, write, server.create_initialization_options())


def run_stdio(server: MCPServer) -> None:
    """Serve over stdio until the client closes the connection."""
    # The SDK's low-level server (its in-memory client reaches it by this name as well).
    lowlevel = getattr(server, "_lowlevel_server", None)
    if lowlevel is None or not pipes_served_here():
        server.run("stdio")
        return
    anyio.run(_serve, lowlevel)
