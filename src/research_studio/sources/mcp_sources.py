"""The configured MCP servers as sources of text: sessions opened once per run, tools called
with timeouts, results turned into text (and a URL to cite them by).

Each session lives in its own task: the SDK's transports are anyio task groups, which must be
left by the task that entered them, while tool calls come from any node of the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

import anyio

from research_studio.core.config import Configuration
from research_studio.core.config_fields import McpServerSpec
from research_studio.core.errors import ConfigError, McpError
from research_studio.core.urls import is_web_url

if TYPE_CHECKING:  # the MCP SDK is imported when a server is used, not with every run
    import mcp.types as types
    from mcp.client.session import ClientSession

_EXPOSED_NAME = re.compile(r"[^A-Za-z0-9_-]")
CLOSE_GRACE_S = 5.0
_SDK_PARSE_FAILURE = "Failed to parse JSONRPC message from server"


class _QuietParseFailures(logging.Filter):
    """Drops the SDK's traceback for each stdout line that is not an MCP message: such lines
    are counted per server and recorded as one loss instead of flooding the terminal."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.msg != _SDK_PARSE_FAILURE


_QUIET = _QuietParseFailures()


@dataclass(frozen=True)
class McpTool:
    """A tool one configured server offers."""

    server: str
    name: str
    description: str
    input_schema: dict[str, Any]

    @property
    def exposed_name(self) -> str:
        """The name a model calls it by: server name, underscore, tool name (function-safe)."""
        return _EXPOSED_NAME.sub("_", f"{self.server}_{self.name}")[:64]


@dataclass(frozen=True)
class McpText:
    """What a tool call returned, as text, and the URL a report cites it by."""

    server: str
    tool: str
    url: str
    text: str
    structured: Any = None


def tool_url(server: str, tool: str, arguments: dict[str, Any]) -> str:
    """`mcp://<server>/<tool>?h=<hash of the arguments>`: one URL per distinct call."""
    canonical = json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:16]
    return f"mcp://{server}/{tool}?h={digest}"


def split_tool_name(qualified: str) -> tuple[str, str]:
    """`server.tool` as its two parts; a ConfigError naming the expected form otherwise."""
    server, dot, tool = qualified.partition(".")
    if not dot or not server or not tool:
        raise ConfigError(f"mcp_search_tool must be server.tool, not {qualified!r}")
    return server, tool


def check_servers(config: Configuration) -> None:
    """Fail fast (one line) on what can be checked without starting anything."""
    for spec in config.mcp_servers:
        if spec.command is not None and shutil.which(spec.command) is None:
            raise ConfigError(f"MCP server {spec.name!r}: command {spec.command!r} not found")
    names = [spec.name for spec in config.mcp_servers]
    if len(set(names)) != len(names):
        raise ConfigError("mcp_servers: two servers have the same name")
    if config.search == "mcp" or config.mcp_search_tool:
        if not config.mcp_search_tool:
            raise ConfigError("mcp search needs mcp_search_tool = 'server.tool'")
        server, _ = split_tool_name(config.mcp_search_tool)
        if server not in names:
            raise ConfigError(
                f"mcp_search_tool names server {server!r}, but mcp_servers has "
                f"{', '.join(map(repr, names)) or 'none'}"
            )


def result_text(result: types.CallToolResult) -> str:
    """The text of a tool result: its text blocks (and embedded text resources), else its JSON."""
    import mcp.types as types

    parts: list[str] = []
    for block in result.content:
        if isinstance(block, types.TextContent):
            parts.append(block.text)
        elif isinstance(block, types.EmbeddedResource) and isinstance(
            block.resource, types.TextResourceContents
        ):
            parts.append(block.resource.text)
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False, indent=1))
    return "\n\n".join(part for part in parts if part.strip())


def named_url(result: types.CallToolResult) -> str | None:
    """A web URL the result gives for itself (a resource's URI or a top-level `url`), if any."""
    import mcp.types as types

    for block in result.content:
        uri = None
        if isinstance(block, types.EmbeddedResource):
            uri = str(block.resource.uri)
        elif isinstance(block, types.ResourceLink):
            uri = str(block.uri)
        if uri and is_web_url(uri):
            return uri
    structured = result.structured_content
    if isinstance(structured, dict) and isinstance(structured.get("url"), str):
        return structured["url"] if is_web_url(structured["url"]) else None
    return None


@dataclass
class _Server:
    """One server's session, owned by its task until the run closes it."""

    spec: McpServerSpec
    ready: asyncio.Future[ClientSession]
    stop: asyncio.Event
    task: asyncio.Task[None]
    tools: list[McpTool] | None = None
    errlog: TextIO | None = None
    http_client: Any = None  # an HTTP server's httpx client, closed with the session


@dataclass
class McpSources:
    """The run's MCP sessions, opened on first use and closed with the run's services."""

    specs: Sequence[McpServerSpec]
    timeout_s: float
    _servers: dict[str, _Server] = field(default_factory=dict)
    _opening: asyncio.Lock = field(default_factory=asyncio.Lock)
    _reported: set[str] = field(default_factory=set)  # servers whose failure was returned
    _noise: dict[str, int] = field(default_factory=dict)  # non-protocol stdout lines per server
    _noise_reported: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        logging.getLogger("mcp.client.stdio").addFilter(_QUIET)  # idempotent

    @classmethod
    def of(cls, config: Configuration) -> McpSources:
        return cls(list(config.mcp_servers), config.mcp_timeout_s)

    @property
    def configured(self) -> bool:
        return bool(self.specs)

    def _spec(self, name: str) -> McpServerSpec:
        for spec in self.specs:
            if spec.name == name:
                return spec
        raise McpError(f"no MCP server named {name!r} is configured", kind="not_found")

    async def session(self, name: str) -> ClientSession:
        """The server's session, started on first use (a failed start is remembered)."""
        async with self._opening:
            server = self._servers.get(name)
            if server is None:
                server = await self._start(self._spec(name))
                self._servers[name] = server
        return await asyncio.shield(server.ready)

    async def _start(self, spec: McpServerSpec) -> _Server:
        # A file, not a pipe: the server's log must not fill a pipe nobody reads.
        errlog = client = None
        if spec.command is not None:
            errlog = await asyncio.to_thread(tempfile.TemporaryFile, "w+", encoding="utf-8")
        else:
            import httpx2

            client = httpx2.AsyncClient(
                headers={key: value.get_secret_value() for key, value in spec.headers.items()},
                timeout=httpx2.Timeout(self.timeout_s, read=max(self.timeout_s, 300.0)),
            )
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[ClientSession] = loop.create_future()
        stop = asyncio.Event()
        task = loop.create_task(
            self._own(spec, ready, stop, errlog, client), name=f"mcp:{spec.name}"
        )
        return _Server(spec, ready, stop, task, errlog=errlog, http_client=client)

    def _transport(self, spec: McpServerSpec, errlog: TextIO | None, client: Any) -> Any:
        from mcp.client.stdio import StdioServerParameters, stdio_client
        from mcp.client.streamable_http import streamable_http_client

        if spec.command is not None:
            params = StdioServerParameters(
                command=spec.command,
                args=list(spec.args),
                env={key: value.get_secret_value() for key, value in spec.env.items()} or None,
            )
            return stdio_client(params, errlog=errlog) if errlog else stdio_client(params)
        return streamable_http_client(str(spec.url), http_client=client)

    async def _own(
        self,
        spec: McpServerSpec,
        ready: asyncio.Future[ClientSession],
        stop: asyncio.Event,
        errlog: TextIO | None,
        client: Any,
    ) -> None:
        from mcp.client.session import ClientSession

        try:
            async with contextlib.AsyncExitStack() as stack:
                if client is not None:  # the SDK does not close a client it was given
                    await stack.enter_async_context(client)
                read, write = await stack.enter_async_context(self._transport(spec, errlog, client))
                session = await stack.enter_async_context(
                    ClientSession(read, write, message_handler=self._message_handler(spec.name))
                )
                with anyio.fail_after(self.timeout_s):
                    await session.initialize()
                ready.set_result(session)
                await stop.wait()
        except Exception as exc:  # any failure to start is reported as data
            if not ready.done():
                ready.set_exception(await self._start_error(spec, exc, errlog))

    def _message_handler(self, name: str) -> Any:
        async def handle(message: Any) -> None:
            if isinstance(message, Exception):  # a line on stdout that is no MCP message
                self._noise[name] = self._noise.get(name, 0) + 1

        return handle

    def noise_losses(self) -> list[McpError]:
        """One loss per server that wrote non-protocol lines to stdout (once per run)."""
        losses = []
        for name, lines in self._noise.items():
            if name not in self._noise_reported:
                self._noise_reported.add(name)
                losses.append(
                    McpError(
                        f"MCP server {name!r} wrote {lines} line(s) to stdout that are not MCP "
                        "messages; they were ignored",
                        kind="bad_response",
                    )
                )
        return losses

    async def _start_error(
        self, spec: McpServerSpec, exc: Exception, errlog: TextIO | None
    ) -> McpError:
        reason = _first_message(exc)
        if errlog is not None:
            logged = await asyncio.to_thread(_last_line, errlog)
            reason = f"{reason} ({logged})" if logged else reason
        timed_out = isinstance(_innermost(exc), TimeoutError)
        return McpError(
            f"MCP server {spec.name!r} did not start: {reason}",
            kind="timeout" if timed_out else "network",
        )

    async def tools(self, name: str) -> list[McpTool]:
        """The tools a server lists (asked once per run)."""
        session = await self.session(name)
        server = self._servers[name]
        if server.tools is None:
            try:
                with anyio.fail_after(self.timeout_s):
                    listed = await session.list_tools()
            except Exception as exc:
                raise McpError(
                    f"MCP server {name!r} did not list its tools: {_first_message(exc)}",
                    kind="bad_response",
                ) from exc
            server.tools = [
                McpTool(name, tool.name, tool.description or "", dict(tool.input_schema or {}))
                for tool in listed.tools
            ]
        return server.tools

    async def all_tools(self) -> tuple[list[McpTool], list[McpError]]:
        """Every configured server's tools; a server that fails is returned once, not raised."""
        found: list[McpTool] = []
        failed: list[McpError] = []
        listed = await asyncio.gather(
            *(self.tools(spec.name) for spec in self.specs), return_exceptions=True
        )
        for spec, outcome in zip(self.specs, listed, strict=True):
            if isinstance(outcome, McpError):
                # Asked every researcher turn: the run records the failure once.
                if spec.name not in self._reported:
                    self._reported.add(spec.name)
                    failed.append(outcome)
            elif isinstance(outcome, BaseException):
                raise outcome
            else:
                found.extend(outcome)
        return found, [*failed, *self.noise_losses()]

    async def call(self, server: str, tool: str, arguments: dict[str, Any]) -> McpText:
        """Call a tool within the timeout; its text, or McpError (also for an empty answer)."""
        session = await self.session(server)
        label = f"{server}.{tool}"
        try:
            with anyio.fail_after(self.timeout_s):
                result = await session.call_tool(tool, arguments)
        except TimeoutError as exc:
            raise McpError(
                f"{label}: no answer within {self.timeout_s:g} s", kind="timeout"
            ) from exc
        except Exception as exc:  # the SDK raises several kinds
            raise McpError(f"{label} failed: {_first_message(exc)}", kind="bad_response") from exc
        text = result_text(result)
        if result.is_error:
            raise McpError(f"{label} failed: {text[:300] or 'error'}", kind="bad_response")
        if not text.strip():
            raise McpError(f"{label} returned no text", kind="bad_response")
        url = named_url(result) or tool_url(server, tool, arguments)
        return McpText(server, tool, url, text, result.structured_content)

    async def aclose(self) -> None:
        """Stop every session (its task leaves the transport, ending a stdio server)."""
        servers, self._servers = list(self._servers.values()), {}
        for server in servers:
            server.stop.set()
        for server in servers:
            try:
                await asyncio.wait_for(server.task, CLOSE_GRACE_S)
            except (TimeoutError, asyncio.CancelledError):
                pass  # wait_for cancelled it: the transport kills the process on the way out
            except Exception:  # closing must not fail a finished run
                pass
            if server.errlog is not None:
                await asyncio.to_thread(server.errlog.close)

    def close_now(self) -> None:
        """Without a loop: cancel the sessions' tasks (their processes end with them)."""
        for server in self._servers.values():
            server.task.cancel()
            if server.errlog is not None:
                server.errlog.close()
        self._servers = {}


def _innermost(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _first_message(exc: BaseException) -> str:
    inner = _innermost(exc)
    if isinstance(inner, TimeoutError):
        return "timed out"
    text = str(inner).strip().splitlines()
    return text[0] if text else type(inner).__name__


def _last_line(errlog: TextIO) -> str:
    errlog.seek(0)
    lines = [line.strip() for line in errlog.read().splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""
