"""A pipeline is a folder plus one registry line: a tiny one, written to a temporary folder and
registered by that line, reaches the CLI, the web form, MCP and LangGraph's graph list."""

from __future__ import annotations

import importlib.util
import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from langchain_core.runnables import Runnable
from langgraph_cli.config import validate_config_file
from typer.testing import CliRunner

from research_studio.faces.cli import app
from research_studio.faces.mcp_server import build_server
from research_studio.faces.web import ServeSettings, create_app
from research_studio.pipelines import catalogue, registry
from research_studio.pipelines.kit.spec import PipelineSpec
from research_studio.run.steps import after_loop, step_words
from tests.doubles.fake_web import FakeWeb
from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]

# The folder a maintainer writes: its stop rule, its graph and its spec, nothing elsewhere.
TINY_FILES = {
    "__init__.py": '"""A tiny pipeline: counted rounds, then a short answer."""\n',
    "stopping.py": """
        from research_studio.pipelines.kit.stopping import CONTINUE, StopReason, cap_reached


        def tiny_stop_reason(*, rounds_done: int, max_iterations: int) -> StopReason:
            return "iteration_cap" if cap_reached(rounds_done, max_iterations) else CONTINUE
    """,
    "graph.py": """
        from typing import Any

        from langgraph.graph import END, START
        from langgraph.runtime import Runtime

        from research_studio.core.config import Configuration
        from research_studio.pipelines.kit import wiring
        from research_studio.pipelines.kit.contract import ResearchOutput
        from tiny.stopping import tiny_stop_reason


        class TinyState(ResearchOutput, total=False):
            rounds_done: int
            stop_reason: str


        def count_round(state: TinyState, runtime: Runtime[Configuration]) -> dict[str, Any]:
            rounds = state.get("rounds_done", 0) + 1
            limit = runtime.context.max_iterations
            return {
                "rounds_done": rounds,
                "stop_reason": tiny_stop_reason(rounds_done=rounds, max_iterations=limit),
            }


        def answer(state: TinyState) -> dict[str, Any]:
            rounds = state["rounds_done"]
            report = f"# {state['query']}\\n\\nA tiny answer after {rounds} rounds.\\n"
            return {"report": report, "metadata": {"iterations": rounds}}


        def build_graph(checkpointer: Any = None, interrupt_on_clarify: bool = True) -> Any:
            builder = wiring.research_graph(TinyState, wiring.named(count_round, answer))
            wiring.chain(builder, START, "count_round")
            again = wiring.route_on("stop_reason", "answer", "count_round")
            builder.add_conditional_edges("count_round", again, ["answer", "count_round"])
            wiring.chain(builder, "answer", END)
            return builder.compile(checkpointer=checkpointer, name="tiny")


        graph = build_graph()
    """,
    "spec.py": """
        from research_studio.pipelines.kit.spec import PipelineSpec
        from tiny.stopping import tiny_stop_reason

        TINY = PipelineSpec.of_package(
            __name__,
            "counted rounds, then a short answer",
            stop_rules=(tiny_stop_reason,),
            settings=("max_iterations",),
            steps={"count_round": "counting a round", "answer": "writing the tiny answer"},
            after_loop=frozenset({"answer"}),
        )
    """,
}


@pytest.fixture
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PipelineSpec]:
    """The tiny pipeline's folder on the path, and the registry with its one line."""
    folder = tmp_path / "plugins" / "tiny"
    folder.mkdir(parents=True)
    for name, text in TINY_FILES.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder.parent))
    # The one line a maintainer adds to registry.PIPELINES:
    monkeypatch.setattr(registry, "PIPELINES", (*registry.PIPELINES, "tiny.spec:TINY"))
    spec = registry.spec("tiny")
    registry._compiled.cache_clear()  # no graph compiled under another registry's names
    yield spec
    registry._compiled.cache_clear()
    for module in [name for name in sys.modules if name == "tiny" or name.startswith("tiny.")]:
        del sys.modules[module]


def test_the_cli_lists_and_runs_the_new_pipeline(
    tiny: PipelineSpec, web: FakeWeb, tmp_path: Path
) -> None:
    runner = CliRunner()
    shown = runner.invoke(app, ["run", "--help"], env={"COLUMNS": "300"}).output
    help_text = " ".join(shown.replace("│", " ").split())  # Rich wraps and boxes the help
    assert "|tiny>" in help_text and "tiny (counted rounds, then a short answer)" in help_text
    refused = runner.invoke(app, ["run", "a question", "--pipeline", "tiny", "--single-agent"])
    assert refused.exit_code != 0 and "--single-agent" in refused.output

    out = tmp_path / "run"
    ran = run_cli(
        web, "run", "why is the sky blue", "--pipeline", "tiny", "--iterations", "2",
        "--out", str(out), "--no-clarify",
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    assert "A tiny answer after 2 rounds." in (out / "report.md").read_text(encoding="utf-8")
    assert json.loads((out / "result.json").read_text(encoding="utf-8"))["pipeline"] == "tiny"
    assert step_words("count_round") == "counting a round" and "answer" in after_loop()


def test_the_web_form_offers_the_new_pipeline_and_its_step_words(
    tiny: PipelineSpec, tmp_path: Path
) -> None:
    settings = tmp_path / "research-studio.toml"
    settings.write_text(f'runs_dir = "{tmp_path / "runs"}"\n', encoding="utf-8")
    web = create_app(ServeSettings(config_file=settings))
    with TestClient(web, base_url="http://127.0.0.1") as client:  # the host the server allows
        options = client.get("/api/options").json()
        steps = client.get("/api/steps").json()
    assert "tiny" in options["pipelines"] and "tiny" not in options["single_agent_pipelines"]
    assert steps["words"]["count_round"] == "counting a round" and "answer" in steps["after_loop"]


async def test_the_mcp_research_tool_accepts_the_new_pipeline(tiny: PipelineSpec) -> None:
    tools = {tool.name: tool for tool in await build_server().list_tools()}
    assert "tiny" in tools["research"].input_schema["properties"]["pipeline"]["enum"]


def test_langgraph_lists_the_new_pipelines_graph(tiny: PipelineSpec, tmp_path: Path) -> None:
    # The checked-in files now lag the registry, and the check says so.
    assert set(catalogue.stale(ROOT)) == {ROOT / "langgraph.json", ROOT / "README.md"}
    assert "| `tiny` | counted rounds, then a short answer | multi | no | `tiny` |" in (
        catalogue.pipelines_table()
    )

    project = tmp_path / "project"
    project.mkdir()
    (project / "README.md").write_text(
        f"# Project\n\n{catalogue.TABLE_START}\n{catalogue.TABLE_END}\n", encoding="utf-8"
    )
    assert catalogue.main([str(project)]) == 0
    assert catalogue.main(["--check", str(project)]) == 0
    config = validate_config_file(project / "langgraph.json")
    assert set(config["graphs"]) == {*registry.langgraph_graphs(project), "tiny"}
    # Loaded as the LangGraph server loads a "./file.py:attribute" graph.
    file, _, attribute = str(config["graphs"]["tiny"]).rpartition(":")
    found = importlib.util.spec_from_file_location("tiny_graph_file", project / file)
    assert found is not None and found.loader is not None
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    graph = getattr(module, attribute)
    assert isinstance(graph, Runnable)
    assert {"count_round", "answer"} <= set(graph.get_graph().nodes)
