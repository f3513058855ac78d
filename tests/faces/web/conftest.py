"""A real server on 127.0.0.1 (in a thread of this process, so scripted models serve its runs)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from research_studio.faces.web import ServeSettings, create_app
from tests.doubles.fake_web import FakeWeb

SECRET_KEY = "tvly-web-secret-0123456789"


class LiveServer:
    """uvicorn serving the app until stopped; `url` is its address."""

    def __init__(self, settings: ServeSettings) -> None:
        self.app = create_app(settings)
        config = uvicorn.Config(self.app, host="127.0.0.1", port=0, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        for _ in range(500):
            if self.server.started:
                break
            time.sleep(0.01)
        assert self.server.started, "the server did not start"
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)


@pytest.fixture
def settings_file(tmp_path: Path, web: FakeWeb) -> Path:
    """Settings aimed at the local web, with a secret the server must never show."""
    path = tmp_path / "research-studio.toml"
    path.write_text(
        f'searxng_url = "{web.base_url}"\n'
        "allow_private_networks = true\n"
        f'runs_dir = "{tmp_path / "runs"}"\n'
        f'tavily_api_key = "{SECRET_KEY}"\n'
        f'tavily_base_url = "{web.url("/tavily")}"\n'
        "retry_base_delay_s = 0.01\n"
    )
    return path


@pytest.fixture
def serve(settings_file: Path, tmp_path: Path) -> Iterator[Callable[..., LiveServer]]:
    """Start servers with these settings (stopped after the test)."""
    started: list[LiveServer] = []

    def start(**options: Any) -> LiveServer:
        server = LiveServer(ServeSettings(config_file=settings_file, **options))
        started.append(server.__enter__())
        return server

    yield start
    for server in started:
        server.__exit__(None, None, None)


@pytest.fixture
def server(serve: Callable[..., LiveServer]) -> LiveServer:
    return serve()


def sse(
    client: httpx.Client, url: str, *, until: Callable[[dict[str, Any]], bool], **headers: str
) -> list[dict[str, Any]]:
    """SSE messages ({event, id, data}) read until `until` holds for one or the stream ends."""
    messages: list[dict[str, Any]] = []
    with client.stream("GET", url, headers=headers, timeout=30) as response:
        assert response.status_code == 200, response.read()
        message: dict[str, Any] = {}
        for line in response.iter_lines():
            if not line:
                if "event" in message:
                    messages.append(message)
                    if until(message):
                        return messages
                message = {}
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                message["data"] = json.loads(value)
            elif name in ("event", "id"):
                message[name] = value
    return messages


def ended(message: dict[str, Any]) -> bool:
    return message["event"] == "end"


def status_is(*statuses: str) -> Callable[[dict[str, Any]], bool]:
    return lambda message: message["event"] == "status" and message["data"]["status"] in statuses


def wait_for_status(client: httpx.Client, run_id: str, *statuses: str) -> dict[str, Any]:
    """Poll the run until it reaches one of the statuses."""
    for _ in range(600):
        data: dict[str, Any] = client.get(f"/api/runs/{run_id}").json()
        if data["status"] in statuses and not data["running_here"]:
            return data
        time.sleep(0.05)
    raise AssertionError(f"run {run_id} never reached {statuses}")
