"""MCP `search` keeps its services across calls: within `index_recheck_s` a call neither reads
the settings file nor scans the documents folder; through the MCP SDK's in-process client."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from research_studio.faces.mcp_server import build_server

# Reading a file or listing a folder, from any thread of this process.
_DISK_EVENTS = {"open", "os.listdir", "os.scandir", "sqlite3.connect"}
_seen: list[list[tuple[str, str]]] = []
_lock = threading.Lock()


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event in _DISK_EVENTS and _seen:
        with _lock:
            for seen in _seen:
                seen.append((event, str(args[0]) if args else ""))


sys.addaudithook(_audit)  # stays installed; it only records while a test watches


@contextmanager
def _disk_use() -> Iterator[list[tuple[str, str]]]:
    seen: list[tuple[str, str]] = []
    _seen.append(seen)
    try:
        yield seen
    finally:
        _seen.remove(seen)


def _titles(result: Any) -> list[str]:
    assert not result.is_error, result.content
    return sorted({hit["title"] for hit in result.structured_content["result"]})


async def test_search_calls_read_neither_settings_nor_folder_until_the_interval_is_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "roofs.md").write_text("# Roofs\n\nCool roofs reflect sunlight and stay cooler.\n")
    # The server's settings file (the working folder is tmp_path), with the public setting.
    (tmp_path / "research-studio.toml").write_text("index_recheck_s = 3600\n")
    asked = {"query": "cool roofs", "docs": [str(folder)]}
    async with Client(build_server()) as client:
        assert _titles(await client.call_tool("search", asked)) == ["Roofs"]
        (folder / "trees.md").write_text("# Trees\n\nStreet trees shade cool roofs.\n")
        with _disk_use() as seen:
            answers = [await client.call_tool("search", asked) for _ in range(5)]
        assert all(_titles(answer) == ["Roofs"] for answer in answers)  # the new file waits
        assert seen == [], "a call read the settings or the folder, or opened a database"

        # The interval is the server's setting: with none, every call checks the folder again.
        monkeypatch.setenv("RESEARCH_STUDIO_INDEX_RECHECK_S", "0")
        with _disk_use() as seen:
            answers = [await client.call_tool("search", asked) for _ in range(2)]
        assert all(_titles(answer) == ["Roofs", "Trees"] for answer in answers)
        scans = [path for event, path in seen if event == "os.scandir" and path == str(folder)]
        assert len(scans) == 2

        # Checked again, the settings file is read afresh once it was edited.
        (tmp_path / "research-studio.toml").write_text("max_query_chars = 20\n")
        refused = await client.call_tool("search", {**asked, "query": "cool roofs " * 3})
        assert refused.is_error and "too long" in refused.content[0].text
