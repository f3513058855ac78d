"""`research-studio serve`: the web page on this machine (loopback unless a token guards it)."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Annotated

import typer

from research_studio.core.errors import ConfigError
from research_studio.faces.cli import common

TOKEN_ENV = "RESEARCH_STUDIO_SERVE_TOKEN"


def listening_socket(host: str, port: int) -> socket.socket:
    """The server's socket, bound before anything is printed: a taken port is one line."""
    try:
        family, kind, proto, _name, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except OSError as exc:
        raise ConfigError(f"cannot serve on {host}: {exc.strerror or exc}") from None
    listener = socket.socket(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
    except OSError as exc:
        listener.close()
        reason = exc.strerror or str(exc)
        raise ConfigError(f"cannot serve on {host}:{port}: {reason.lower()}") from None
    return listener


def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to bind (non-loopback needs --token).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port.")] = 8765,
    docs_root: Annotated[
        list[Path] | None,
        typer.Option("--docs-root", help="A documents folder the page may research; repeatable."),
    ] = None,
    token: Annotated[
        str | None,
        typer.Option("--token", help=f"Access token for every request (or {TOKEN_ENV})."),
    ] = None,
    config_file: common.ConfigFileOption = None,
) -> None:
    """Serve the research page: start runs, follow them live, read reports, manage runs."""
    import uvicorn

    from research_studio.faces.web import ServeSettings, create_app

    with common.user_errors():
        for root in docs_root or []:
            if not root.is_dir():
                raise ConfigError(f"--docs-root {root} is not a folder")
        settings = ServeSettings(
            host=host,
            port=port,
            token=token or os.environ.get(TOKEN_ENV) or None,
            docs_roots=docs_root or [],
            config_file=config_file,
        )
        settings.check_exposure()
        listener = listening_socket(host, port)
        app = create_app(settings)
    common.out.print(f"Research Studio: [bold]{settings.url()}[/]", highlight=False)
    common.err.print("[dim]Ctrl-C stops the server; running runs are saved as interrupted.[/]")
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
    with listener:
        server.run(sockets=[listener])
