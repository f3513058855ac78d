"""Shared fixtures: an isolated environment, the local web, configurations and scripted models."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from research_studio.core.config import Configuration
from research_studio.core.config_loading import PROVIDER_ENV_VARS
from tests.doubles.fake_web import FakeWeb
from tests.doubles.scripted_model import ScriptedChatModel, use_scripted_model

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's keys, settings file or cache."""
    for name in list(os.environ):
        if name.startswith("RESEARCH_STUDIO_") or name in PROVIDER_ENV_VARS.values():
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    # Run history in the test's folder (the per-user default is tested on its own).
    monkeypatch.setenv("RESEARCH_STUDIO_RUNS_DIR", str(tmp_path / "runs"))
    # Subprocesses (the MCP fixture server, the bench) import tests.doubles and benchmarks.
    paths = [str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="session")
def web_server() -> Iterator[FakeWeb]:
    with FakeWeb() as web:
        yield web


@pytest.fixture
def web(web_server: FakeWeb) -> Iterator[FakeWeb]:
    """The local web, with faults, logs, latency and the chat endpoint reset for each test."""
    yield web_server
    web_server.clear_faults()
    web_server.clear_requests()
    web_server.latency_s = web_server.search_latency_s = web_server.page_latency_s = 0.0
    web_server.search_delay = None
    web_server.chat.reset()
    web_server.ollama.reset()


@pytest.fixture
def make_config(tmp_path: Path, web: FakeWeb) -> Callable[..., Configuration]:
    """A configuration aimed at the local web: SearXNG and Tavily endpoints, private networks on."""

    def make(**overrides: Any) -> Configuration:
        values: dict[str, Any] = {
            "search": "searxng",
            "searxng_url": web.base_url,
            "tavily_base_url": web.url("/tavily"),
            "tavily_api_key": "tvly-test",
            "allow_private_networks": True,
            "cache_dir": tmp_path / "cache",
            "runs_dir": tmp_path / "runs",
            "retry_base_delay_s": 0.01,
            "search_timeout_s": 2.0,
            "fetch_timeout_s": 2.0,
        }
        values.update(overrides)
        return Configuration(**values)

    return make


@pytest.fixture
def scripted() -> ScriptedChatModel:
    """A fresh scripted model registered as "scripted:default"."""
    model = ScriptedChatModel()
    use_scripted_model(model)
    return model


async def full_state(
    pipeline: str, payload: dict[str, Any], config: Configuration, **compile_options: Any
) -> dict[str, Any]:
    """Run a compiled pipeline to its end and return its whole state, not only its output."""
    from langgraph.checkpoint.memory import InMemorySaver

    from research_studio.pipelines.registry import graph_builder
    from research_studio.services.clients import open_services

    options = {"interrupt_on_clarify": False, **compile_options}
    graph = graph_builder(pipeline)(checkpointer=InMemorySaver(), **options)
    thread: Any = {"configurable": {"thread_id": "test"}}
    async with open_services(config):
        await graph.ainvoke(payload, thread, context=config)
        return dict((await graph.aget_state(thread)).values)


@pytest.fixture
def run_pipeline(make_config: Callable[..., Configuration]) -> Callable[..., Any]:
    """Run a pipeline to the end (no clarification pause) with a research script; whole state."""
    from tests.doubles.research_script import ResearchScript

    async def run(
        query: str,
        *,
        mode: str = "single",
        script: ResearchScript | None = None,
        pipeline: str = "standard",
        chat_model: ScriptedChatModel | None = None,
        **settings: Any,
    ) -> tuple[dict[str, Any], ScriptedChatModel]:
        model = chat_model or (script or ResearchScript()).model()
        config = make_config(model=use_scripted_model(model), **settings)
        state = await full_state(pipeline, {"query": query, "mode": mode}, config)
        return state, model

    return run


@pytest.fixture(scope="session")
def finished_run_folder(web_server: FakeWeb, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A completed standard run folder made once by the CLI (copy it before changing it)."""
    from tests.helpers import run_cli

    base = tmp_path_factory.mktemp("finished-run")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(base / "cache"))
        patch.chdir(base)
        result = run_cli(web_server, "run", "coral bleaching heat stress", "--out", "run")
    assert result.exit_code == 0, result.output
    return base / "run"
