"""Our graphs under `langgraph dev`, driven by LangGraph's own client (langgraph_sdk).

The server takes its model key and search endpoint from its environment, as the CLI does;
no run sends a secret in its context.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.supervisor_script import SupervisorScript

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[1]
LANGGRAPH = shutil.which("langgraph", path=str(Path(sys.executable).parent)) or shutil.which(
    "langgraph"
)
STARTUP_S = 120.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _project_copy(tmp_path: Path) -> Path:
    """langgraph.json in a scratch folder (the dev server writes its state beside it)."""
    folder = tmp_path / "project"
    folder.mkdir()
    spec = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))
    spec["graphs"] = {
        name: str((ROOT / path.split(":")[0]).resolve()) + ":" + path.split(":")[1]
        for name, path in spec["graphs"].items()
    }
    (folder / "langgraph.json").write_text(json.dumps(spec), encoding="utf-8")
    return folder


def _wait_until_up(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"langgraph dev exited:\n{log.read_text(errors='replace')[-3000:]}")
        try:
            if httpx.get(f"{url}/ok", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    pytest.fail(f"langgraph dev did not start:\n{log.read_text(errors='replace')[-3000:]}")


@contextlib.contextmanager
def _dev_server(tmp_path: Path, environment: dict[str, str]) -> Iterator[tuple[str, Path]]:
    """`langgraph dev` on our graphs with this environment, stopped as one process group."""
    if LANGGRAPH is None:
        pytest.skip('the langgraph CLI is not installed (pip install -e ".[dev]")')
    pytest.importorskip("langgraph_sdk", reason="langgraph-sdk is not installed")
    project = _project_copy(tmp_path)
    port = _free_port()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "RESEARCH_STUDIO_ALLOW_PRIVATE_NETWORKS": "true",
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGSMITH_TRACING": "false",
        "LANGCHAIN_TRACING_V2": "false",
        **environment,
    }
    log = tmp_path / "langgraph-dev.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [LANGGRAPH, "dev", "--no-browser", "--no-reload", "--port", str(port)],
            cwd=project,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, ended as one below
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, process, log)
        yield url, log
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.fixture(scope="module")
def server(
    web_server: FakeWeb, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Path]]:
    """`langgraph dev` on our graphs, its model and search from its environment."""
    web = web_server
    environment = {
        "OPENAI_API_KEY": "sk-test",
        "OPENAI_BASE_URL": web.url("/v1"),
        "SEARXNG_URL": web.base_url,
        "PYTHONPATH": str(ROOT / "src"),  # this tree's code, whichever copy is installed
    }
    with _dev_server(tmp_path_factory.mktemp("langgraph"), environment) as running:
        yield running


def _assert_cited_report(values: dict[str, Any], log: Path) -> None:
    server_log = log.read_text(errors="replace")
    assert "Blocking" not in server_log, server_log[-3000:]
    assert values.get("report"), server_log[-3000:]
    cited = set(re.findall(r"\[(S\d+)\]", values["report"]))
    assert cited and cited <= {source["sid"] for source in values["sources"]}


async def _assistant(client: Any, graph_id: str) -> dict[str, Any]:
    assistants = await client.assistants.search(graph_id=graph_id, limit=5)
    assert assistants, f"no assistant for {graph_id}"
    return dict(assistants[0])


async def test_the_standard_pipeline_asks_is_answered_and_resumes_under_langgraph_dev(
    web: FakeWeb, server: tuple[str, Path]
) -> None:
    from langgraph_sdk import get_client

    url, log = server
    web.chat.responder = ResearchScript(ambiguous=True).chat_responder()
    client = get_client(url=url)

    assistants = await client.assistants.search(limit=50)
    graphs = {assistant["graph_id"] for assistant in assistants}
    assert {"pipeline", "advanced", "supervisor"} <= graphs
    for assistant in assistants:
        schemas = await client.assistants.get_schemas(assistant["assistant_id"])
        knobs = (schemas.get("context_schema") or {}).get("properties", {})
        assert {"model", "max_iterations", "search", "report_structure"} <= set(knobs)
        assert not {"openai_api_key", "anthropic_api_key", "tavily_api_key"} & set(knobs)

    standard = await _assistant(client, "pipeline")
    thread = await client.threads.create()
    await client.runs.wait(
        thread["thread_id"],
        standard["assistant_id"],
        input={"query": "coral bleaching heat stress"},
        context={"max_iterations": 1},
        raise_error=False,
    )
    paused = await client.threads.get_state(thread["thread_id"])
    assert "clarify" in paused["next"], log.read_text(errors="replace")[-3000:]
    assert paused["values"].get("clarification_question")
    await client.threads.update_state(
        thread["thread_id"], {"user_clarification": "ocean heat stress on reefs"}
    )
    await client.runs.wait(
        thread["thread_id"], standard["assistant_id"], input=None, context={"max_iterations": 1}
    )
    state = await client.threads.get_state(thread["thread_id"])
    values: dict[str, Any] = state["values"]
    _assert_cited_report(values, log)
    assert values.get("user_clarification") == "ocean heat stress on reefs"
    assert web.chat.requests, "the model must come from the server's OPENAI_BASE_URL"
    assert web.requests_to("/search"), "search must come from the server's SEARXNG_URL"
    runs = await client.runs.list(thread["thread_id"])
    assert all("sk-test" not in json.dumps(run) for run in runs)


async def test_the_answer_typed_in_the_chat_answers_the_question_under_langgraph_dev(
    web: FakeWeb, server: tuple[str, Path]
) -> None:
    """What Studio sends when its user types the answer: the next chat message, same thread."""
    from langgraph_sdk import get_client

    url, log = server
    web.chat.responder = ResearchScript(ambiguous=True).chat_responder()
    client = get_client(url=url)
    standard = await _assistant(client, "pipeline")
    thread = await client.threads.create()
    for text in ("coral bleaching heat stress", "ocean heat stress on reefs"):
        await client.runs.wait(
            thread["thread_id"],
            standard["assistant_id"],
            input={"messages": [{"role": "user", "content": text}]},
            context={"max_iterations": 1},
            raise_error=False,
        )
        if text.startswith("coral"):
            paused = await client.threads.get_state(thread["thread_id"])
            assert "clarify" in paused["next"], log.read_text(errors="replace")[-3000:]
    state = await client.threads.get_state(thread["thread_id"])
    assert not state["next"]
    _assert_cited_report(state["values"], log)
    assert state["values"]["user_clarification"] == "ocean heat stress on reefs"
    assert state["values"]["query"] == "coral bleaching heat stress"


async def test_the_reply_typed_in_the_chat_reviews_the_plan_under_langgraph_dev(
    web: FakeWeb, server: tuple[str, Path]
) -> None:
    """What Studio sends at plan review: the reply as the next chat message, same thread."""
    from langgraph_sdk import get_client

    url, log = server
    web.chat.responder = ResearchScript().chat_responder()
    client = get_client(url=url)
    standard = await _assistant(client, "pipeline")
    thread = await client.threads.create()
    for text in ("coral bleaching heat stress", "approve"):
        await client.runs.wait(
            thread["thread_id"],
            standard["assistant_id"],
            input={"messages": [{"role": "user", "content": text}]},
            context={"max_iterations": 1, "review_plan": True},
            raise_error=False,
        )
        if text.startswith("coral"):
            paused = await client.threads.get_state(thread["thread_id"])
            assert "review_plan" in paused["next"], log.read_text(errors="replace")[-3000:]
    state = await client.threads.get_state(thread["thread_id"])
    assert not state["next"]
    _assert_cited_report(state["values"], log)
    assert state["values"]["query"] == "coral bleaching heat stress"


@pytest.mark.parametrize("graph_id", ["advanced", "supervisor"])
async def test_chat_message_input_runs_to_a_report_under_langgraph_dev(
    web: FakeWeb, server: tuple[str, Path], graph_id: str
) -> None:
    from langgraph_sdk import get_client

    url, log = server
    script = SupervisorScript() if graph_id == "supervisor" else ResearchScript()
    web.chat.responder = script.chat_responder()
    client = get_client(url=url)
    assistant = await _assistant(client, graph_id)
    thread = await client.threads.create()
    # What Studio's chat sends: a list of messages, no `query`.
    message = {"role": "user", "content": "coral bleaching heat stress"}
    await client.runs.wait(
        thread["thread_id"],
        assistant["assistant_id"],
        input={"messages": [message]},
        context={"max_iterations": 1},
        raise_error=False,
    )
    state = await client.threads.get_state(thread["thread_id"])
    _assert_cited_report(state["values"], log)


def test_the_cli_researches_on_the_server_and_answers_its_question(
    web: FakeWeb, server: tuple[str, Path], tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from research_studio.faces.cli import app

    url, log = server
    web.chat.responder = ResearchScript(ambiguous=True).chat_responder()
    report = tmp_path / "report.md"
    result = CliRunner().invoke(
        app,
        [
            "remote",
            "coral bleaching heat stress",
            "--server",
            url,
            "--answer",
            "ocean heat stress on reefs",
            "--iterations",
            "1",
            "--out",
            str(report),
        ],
    )
    assert result.exit_code == 0, result.output + log.read_text(errors="replace")[-2000:]
    assert "clarify finished" in result.output
    assert re.search(r"\[S\d+\]", report.read_text())
    assert web.chat.requests, "the model is the server's"


def test_the_cli_names_a_server_it_cannot_reach() -> None:
    from typer.testing import CliRunner

    from research_studio.faces.cli import app

    result = CliRunner().invoke(
        app, ["remote", "coral reefs", "--server", f"http://127.0.0.1:{_free_port()}"]
    )
    assert result.exit_code == 2
    assert "cannot reach the LangGraph server" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("server", ["http://[::1", "ftp://example.org", "localhost:2024"])
def test_the_cli_refuses_a_server_that_is_no_web_url(server: str) -> None:
    from typer.testing import CliRunner

    from research_studio.faces.cli import app

    result = CliRunner().invoke(app, ["remote", "coral reefs", "--server", server])
    assert result.exit_code == 2 and "must be an http(s) URL" in result.output
    assert "Traceback" not in result.output


def _handed_folder_holds(folder: Path, answer: str) -> None:
    """A run handed to the server: its folder here has what any run folder has, and audits."""
    from typer.testing import CliRunner

    from research_studio.faces.cli import app

    assert json.loads((folder / "run.json").read_text())["status"] == "completed"
    calls = folder / "calls.jsonl"
    assert not calls.exists() or not calls.read_text(), "this process made no model call"
    cited = set(re.findall(r"\[(S\d+)\]", (folder / "report.md").read_text()))
    assert cited
    assert {path.stem for path in (folder / "sources").glob("S*.txt")} >= cited
    events = (folder / "events.jsonl").read_text()
    assert "on the server" in events and f"clarification: {answer}" in events
    result = json.loads((folder / "result.json").read_text())
    assert result["clarification"]["answer"] == answer
    audit = CliRunner().invoke(app, ["audit", str(folder)])
    assert audit.exit_code == 0, audit.output


def test_a_cli_run_handed_to_the_server_keeps_its_folder_here(
    web: FakeWeb, server: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`langgraph_server`: the server researches and asks; the answer, report and audit are here."""
    from typer.testing import CliRunner

    from research_studio.faces.cli import app

    url, log = server
    web.chat.responder = ResearchScript(ambiguous=True).chat_responder()
    monkeypatch.setenv("RESEARCH_STUDIO_LANGGRAPH_SERVER", url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    # The sources are re-read here for audit, from the local web.
    monkeypatch.setenv("RESEARCH_STUDIO_ALLOW_PRIVATE_NETWORKS", "true")
    folder = tmp_path / "handed"
    result = CliRunner().invoke(
        app,
        [
            *("run", "coral bleaching heat stress", "--model", "openai:fake-model"),
            *("--iterations", "1", "--answer", "ocean heat stress on reefs"),
            *("--out", str(folder)),
        ],
    )
    assert result.exit_code == 0, result.output + log.read_text(errors="replace")[-2000:]
    assert web.chat.requests, "the server made the model calls"
    _handed_folder_holds(folder, "ocean heat stress on reefs")


def test_serve_hands_its_runs_to_the_server_and_they_pause_and_resume(
    web: FakeWeb, server: tuple[str, Path], tmp_path: Path
) -> None:
    from research_studio.faces.web import ServeSettings
    from tests.faces.web.conftest import LiveServer, sse, status_is, wait_for_status

    url, log = server
    web.chat.responder = ResearchScript(ambiguous=True).chat_responder()
    settings = tmp_path / "research-studio.toml"
    settings.write_text(
        f'langgraph_server = "{url}"\nruns_dir = "{tmp_path / "runs"}"\n'
        f'searxng_url = "{web.base_url}"\nallow_private_networks = true\n'
    )
    with (
        LiveServer(ServeSettings(config_file=settings)) as page,
        httpx.Client(base_url=page.url) as client,
    ):
        response = client.post(
            "/api/runs",
            json={"question": "coral bleaching heat stress", "model": "openai:fake-model"},
        )
        assert response.status_code == 201, response.text
        run_id = response.json()["run_id"]
        events = f"/api/runs/{run_id}/events"
        paused = sse(client, events, until=status_is("awaiting_clarification", "failed"))
        assert paused[-1]["data"]["status"] == "awaiting_clarification", (
            paused[-1],
            log.read_text(errors="replace")[-2000:],
        )
        answer = "ocean heat stress on reefs"
        assert client.post(f"/api/runs/{run_id}/answer", json={"answer": answer}).is_success
        wait_for_status(client, run_id, "completed", "failed")
    _handed_folder_holds(tmp_path / "runs" / run_id, answer)


def test_a_run_handed_to_a_server_that_is_gone_fails_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from research_studio.faces.cli import app

    monkeypatch.setenv("RESEARCH_STUDIO_LANGGRAPH_SERVER", f"http://127.0.0.1:{_free_port()}")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    result = CliRunner().invoke(
        app,
        ["run", "coral reefs", "--model", "openai:fake-model", "--out", str(tmp_path / "gone")],
    )
    assert result.exit_code != 0
    assert "cannot reach the LangGraph server" in result.output
    assert "Traceback" not in result.output


async def test_with_no_model_configured_the_server_finds_ollama_off_its_event_loop(
    web: FakeWeb, tmp_path: Path
) -> None:
    """No key, no model named: the first node probes Ollama without blocking the server's loop."""
    from langgraph_sdk import get_client

    web.ollama.responder = ResearchScript().chat_responder()
    environment = {
        "OLLAMA_HOST": web.base_url,
        "SEARXNG_URL": web.base_url,
        "PYTHONPATH": str(ROOT / "src"),  # this tree's code, whichever copy is installed
    }
    with _dev_server(tmp_path, environment) as (url, log):
        client = get_client(url=url)
        assistant = await _assistant(client, "pipeline")
        thread = await client.threads.create()
        await client.runs.wait(
            thread["thread_id"],
            assistant["assistant_id"],
            input={"query": "coral bleaching heat stress"},
            context={"max_iterations": 1},
            raise_error=False,
        )
        state = await client.threads.get_state(thread["thread_id"])
        _assert_cited_report(state["values"], log)
    assert web.ollama.requests, "the model must be the Ollama the server found"
    assert web.requests_to("/api/tags"), "the server asked Ollama which models it has"


async def test_a_server_without_a_model_tells_the_client_why_in_one_line(tmp_path: Path) -> None:
    """No key, no Ollama, no embedded model: the client's stream ends with the reason."""
    from langgraph_sdk import get_client

    from research_studio.llm import local_model

    if local_model.embedded_model_available():
        pytest.skip("the embedded model is installed: a model can serve")
    environment = {
        "OLLAMA_HOST": f"http://127.0.0.1:{_free_port()}",
        "PYTHONPATH": str(ROOT / "src"),  # this tree's code, whichever copy is installed
    }
    with _dev_server(tmp_path, environment) as (url, _log):
        client = get_client(url=url)
        assistant = await _assistant(client, "pipeline")
        thread = await client.threads.create()
        parts = [
            part
            async for part in client.runs.stream(
                thread["thread_id"],
                assistant["assistant_id"],
                input={"query": "coral bleaching heat stress"},
                stream_mode="values",
            )
        ]
    errors = [part.data for part in parts if part.event == "error"]
    assert errors, f"the stream must end with an error: {parts}"
    error = errors[-1]
    assert error["error"] == "ConfigError"
    assert error["message"].startswith("no chat model can serve: set OPENAI_API_KEY")
    assert "\n" not in error["message"] and "internal error" not in error["message"]


async def test_a_wrong_knob_or_mode_from_studio_ends_the_stream_in_one_line(
    web: FakeWeb, server: tuple[str, Path]
) -> None:
    """What Studio's form or the SDK may send by mistake: the reason, one line, no model call."""
    from langgraph_sdk import get_client

    url, _log = server
    client = get_client(url=url)
    assistant = await _assistant(client, "pipeline")
    sent: list[tuple[dict[str, Any], dict[str, Any], str]] = [
        ({"query": "coral reefs"}, {"max_iterations": 0}, "invalid configuration: max_iterations"),
        ({"query": "coral reefs", "mode": "fast"}, {}, "unknown mode 'fast'"),
    ]
    for given, context, reason in sent:
        thread = await client.threads.create()
        parts = [
            part
            async for part in client.runs.stream(
                thread["thread_id"], assistant["assistant_id"], input=given, context=context
            )
        ]
        [error] = [part.data for part in parts if part.event == "error"]
        assert error["message"].startswith(reason) and "\n" not in error["message"], error
    assert not web.chat.requests
