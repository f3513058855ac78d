"""Shared test helpers: the CLI aimed at the local web, in-process or as a process to kill."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from typer.testing import CliRunner

from research_studio.faces.cli import app
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import ScriptedChatModel, use_scripted_model


def web_args(web: FakeWeb) -> list[str]:
    """The CLI flags that search the local web's SearXNG, private addresses allowed."""
    return ["--search", "searxng", "--searxng-url", web.base_url, "--allow-private-networks"]


def run_cli(
    web: FakeWeb, command: str, *args: str, model: ScriptedChatModel | str | None = None
) -> Result:
    """`research-studio COMMAND ARGS` on the local web; a fresh research script unless `model`."""
    if model is None:
        model = ResearchScript().model()
    spec = model if isinstance(model, str) else use_scripted_model(model)
    return CliRunner().invoke(app, [command, *args, "--model", spec, *web_args(web)])


def run_id(folder: Path) -> str:
    return str(json.loads((folder / "run.json").read_text())["run_id"])


def schema_name(request: dict[str, Any]) -> str:
    tools = request.get("tools") or []
    if tools:
        return str(tools[0]["function"]["name"])
    return str(
        ((request.get("response_format") or {}).get("json_schema") or {}).get("name", "text")
    )


def schema_counts(web: FakeWeb) -> Counter[str]:
    return Counter(schema_name(request) for request in web.chat.requests)


def hold_second_extraction(web: FakeWeb) -> tuple[threading.Event, list[dict[str, Any]]]:
    """A finishing research script on the chat endpoint whose second page extraction waits.

    A process killed while it waits dies inside an unfinished node. Returns (release, held).
    """
    script = ResearchScript(coverage=[0.9], ready=[True]).chat_responder()
    release, held = threading.Event(), []
    extractions = Counter[str]()

    def responder(request: dict[str, Any]) -> Any:
        if schema_name(request) == "PageExtraction" and not release.is_set():
            extractions["seen"] += 1
            if extractions["seen"] > 1:
                held.append(request)
                release.wait(30)
        return script(request)

    web.chat.responder = responder
    return release, held


def cli(*args: str | bytes) -> list[str | bytes]:
    executable = shutil.which("research-studio") or str(
        Path(sys.executable).parent / "research-studio"
    )
    return [executable, *args]


def cli_env(web: FakeWeb, tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "OPENAI_BASE_URL": web.url("/v1"),
        "SEARXNG_URL": web.base_url,
        "RESEARCH_STUDIO_ALLOW_PRIVATE_NETWORKS": "true",
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }


def start_run(folder: Path, env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    """A single-agent run into `folder` (under <cwd>/runs/) as a process of its own."""
    command = cli("run", "coral bleaching heat stress", "--model", "openai:fake-model")
    return subprocess.Popen(
        [*command, "--single-agent", "--out", str(folder), *args],
        env=env,
        cwd=folder.parent.parent,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def resume(folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`research-studio resume FOLDER` as a process, from where start_run ran."""
    return subprocess.run(
        cli("resume", str(folder)),
        env=env,
        cwd=folder.parent.parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def wait_for(process: subprocess.Popen[str], ready: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 60
    while not ready():
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        if time.monotonic() > deadline:
            pytest.fail(f"the run never reached {what}")
        time.sleep(0.05)


def write_toml(tmp_path: Path, text: str) -> Path:
    """A research-studio.toml settings file in tmp_path holding text."""
    path = tmp_path / "research-studio.toml"
    path.write_text(text)
    return path


EXAMPLE_DOCS = Path(__file__).resolve().parents[1] / "examples" / "urban-heat"


def example_docs_run(
    question: str, out: str, env: dict[str, str] | None = None
) -> tuple[str, dict[str, Any], str]:
    """A single-agent CLI run over the example documents with the research script's model:
    its report.md, its result.json and the CLI's output."""
    result = CliRunner().invoke(
        app,
        [
            "run",
            question,
            "--docs",
            str(EXAMPLE_DOCS),
            "--model",
            use_scripted_model(ResearchScript().model()),
            "--out",
            out,
            "--single-agent",
        ],
        env=env,
    )
    assert result.exit_code == 0, result.output
    folder = Path(out)
    report = (folder / "report.md").read_text(encoding="utf-8")
    return report, json.loads((folder / "result.json").read_text(encoding="utf-8")), result.output


def verify_supports_and_refuses(
    page: Path, statement: str, passage: str, wrong: str, why: str
) -> None:
    """`research-studio verify` supports the statement with a quote holding the passage, and
    refuses the wrong one with a reason holding `why`."""
    result = CliRunner().invoke(app, ["verify", statement, "--source", str(page), "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["supported"], answer
    assert any(passage in quote for quote in answer["quotes"]), answer["quotes"]
    refused = CliRunner().invoke(app, ["verify", wrong, "--source", str(page), "--json"])
    answer = json.loads(refused.stdout)
    assert answer["supported"] is False, answer
    assert any(why in reason for reason in answer["reasons"]), answer["reasons"]
