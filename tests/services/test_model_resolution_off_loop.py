"""A server's event loop never waits on model resolution (the Ollama probe)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import langchain_ollama  # noqa: F401 (imported up front, as a server has it: imports block)
import pytest
from blockbuster import BlockingError, blockbuster_ctx

from research_studio.services.clients import Services
from tests.services.test_resolution import config_from


class _Tags(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps({"models": [{"name": "qwen3:4b"}]}).encode()
        self.send_response(200 if self.path == "/api/tags" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def ollama_host() -> Iterator[str]:
    """An address answering Ollama's model list, as a local Ollama does."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Tags)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _services(tmp_path: Path, host: str) -> Services:
    config = config_from({"OLLAMA_HOST": host}, tmp_path, cache_dir=tmp_path / "cache")
    return Services(config)


async def test_the_model_is_chosen_in_a_worker_thread(tmp_path: Path, ollama_host: str) -> None:
    services = _services(tmp_path, ollama_host)
    with blockbuster_ctx("research_studio"):
        await services.resolve_model()  # the probe runs off the loop
        caller = services.caller("understand", "smart")  # uses the choice: no second probe
    assert caller.spec == "ollama:qwen3:4b"


async def test_the_detector_sees_a_probe_on_the_event_loop(
    tmp_path: Path, ollama_host: str
) -> None:
    services = _services(tmp_path, ollama_host)
    with blockbuster_ctx("research_studio"), pytest.raises(BlockingError):
        services.caller("understand", "smart")  # what the first node did before
