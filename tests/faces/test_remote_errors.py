"""`research-studio remote` prints a server's run error as one readable line."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from typer.testing import CliRunner

from research_studio.faces.cli import app


@dataclass
class _Part:
    event: str
    data: Any


class _FailingServer:
    """Just enough of langgraph_sdk's client: one assistant, one thread, a run that errors."""

    def __init__(self, error: Any) -> None:
        self.error = error
        self.assistants = self
        self.threads = self
        self.runs = self

    async def __aenter__(self) -> _FailingServer:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        return None

    async def search(self, **_kwargs: Any) -> list[dict[str, str]]:
        return [{"assistant_id": "a1"}]

    async def create(self) -> dict[str, str]:
        return {"thread_id": "t1"}

    async def stream(self, *_args: Any, **_kwargs: Any) -> AsyncIterator[_Part]:
        yield _Part("updates", {"understand": {}})
        yield _Part("error", self.error)


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (
            {"error": "BlockingError", "message": "Blocking call to socket.socket.connect\n  at x"},
            "BlockingError: Blocking call to socket.socket.connect at x",
        ),
        ({"error": "ConfigError", "message": ""}, "ConfigError"),
        ("plain\x1b]0;title\x07 text", "plain ]0;title text"),
        ({"message": "x" * 400}, "x" * 300 + " …"),
    ],
)
def test_a_server_error_is_one_readable_line(
    error: Any, line: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import langgraph_sdk

    monkeypatch.setattr(langgraph_sdk, "get_client", lambda **_kwargs: _FailingServer(error))
    result = CliRunner().invoke(app, ["remote", "coral reefs", "--server", "http://127.0.0.1:1"])
    assert result.exit_code == 2
    errors = [text for text in result.output.splitlines() if text.startswith("error:")]
    assert errors == [f"error: the server's run failed: {line}"], result.output
    assert "{" not in errors[0] and "\x1b" not in result.output
