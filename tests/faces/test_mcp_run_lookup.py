"""MCP `audit` finds a run as the CLI and the web page do: by the id in its run.json, also in a
folder saved under another name (`--out NAME`) inside the runs folder."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from research_studio.faces.mcp_server import build_server

pytestmark = pytest.mark.e2e


def test_audit_finds_a_run_saved_under_another_name_by_its_id(
    finished_run_folder: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "runs" / "my-roofs-run"  # RESEARCH_STUDIO_RUNS_DIR of every test
    shutil.copytree(finished_run_folder, folder)
    run_id = json.loads((folder / "run.json").read_text())["run_id"]
    assert run_id != folder.name
    for name in (run_id, folder.name):
        result = asyncio.run(build_server().call_tool("audit", {"run": name}))
        assert not result.is_error and result.structured_content["ok"] is True, name
