"""The registry is the one list of pipelines: every face, langgraph.json and the bench read it."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from benchmarks import harness
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from research_studio.core.config import Configuration
from research_studio.core.errors import ConfigError
from research_studio.evaluation.cases import parse_pipelines
from research_studio.faces.cli import app
from research_studio.faces.remote import graph_id
from research_studio.faces.web import ServeSettings, create_app
from research_studio.faces.web.report_view import mark_verbatim
from research_studio.pipelines import registry
from research_studio.pipelines.kit.spec import PipelineSpec, load
from research_studio.pipelines.standard.spec import STANDARD

ROOT = Path(__file__).resolve().parents[2]
# A fifth pipeline as a new folder would declare it: here the standard builder under a new name.
EXTRA = dataclasses.replace(
    STANDARD,
    name="tiny",
    summary="a tiny test pipeline",
    graphs={"tiny": "research_studio.pipelines.standard.graph:graph"},
    plan_text=None,
    modes=("multi",),
    bench_modes=(),
    verbatim_heading="Tiny Quotes",
)


@pytest.fixture
def extra_pipeline(monkeypatch: pytest.MonkeyPatch) -> Iterator[PipelineSpec]:
    """The registry with one more line."""
    monkeypatch.setattr(registry, "PIPELINES", (*registry.PIPELINES, EXTRA))
    yield EXTRA


def langgraph_file() -> dict[str, str]:
    graphs: dict[str, str] = json.loads((ROOT / "langgraph.json").read_text())["graphs"]
    return graphs


def test_langgraph_json_lists_exactly_the_registered_graphs() -> None:
    assert langgraph_file() == registry.langgraph_graphs()


@pytest.mark.parametrize("spec", registry.specs(), ids=lambda spec: spec.name)
def test_every_spec_names_real_builders_graphs_and_settings(spec: PipelineSpec) -> None:
    assert callable(spec.graph_builder())
    assert all(load(reference) is not None for reference in spec.graphs.values())
    if spec.plan_text is not None:
        assert callable(load(spec.plan_text))
    unknown = set(spec.settings) - set(Configuration.model_fields)
    assert not unknown, f"{spec.name} declares settings Configuration lacks: {unknown}"
    assert set(spec.bench_modes) <= set(spec.modes)


def test_a_pipeline_folder_declares_only_what_is_its_own() -> None:
    spec = PipelineSpec.of_package(
        "research_studio.pipelines.standard.spec",
        "summary",
        graph_id="pipeline",
        stop_rules=(),
        modes=("single",),
    )
    assert (spec.name, spec.summary, spec.modes) == ("standard", "summary", ("single",))
    assert spec.builder == "research_studio.pipelines.standard.graph:build_graph"
    assert dict(spec.graphs) == {"pipeline": "research_studio.pipelines.standard.graph:graph"}
    assert spec.graph_builder() is registry.spec("standard").graph_builder()
    by_name = PipelineSpec.of_package(
        "research_studio.pipelines.supervisor.spec", "summary", stop_rules=()
    )
    assert by_name.graph_id == "supervisor"


def test_an_unknown_pipeline_is_a_one_line_error_naming_the_others() -> None:
    with pytest.raises(ConfigError) as caught:
        registry.compile_pipeline("nope", None, False)
    assert "\n" not in str(caught.value) and "supervisor" in str(caught.value)
    with pytest.raises(ConfigError):
        parse_pipelines("nope")


def test_plan_review_and_single_worker_lists_come_from_the_specs() -> None:
    assert registry.plan_review_names() == ("standard", "advanced")
    assert "supervisor" not in registry.single_worker_names()
    assert graph_id("standard") == "pipeline" and graph_id("advanced-full") == "advanced-full"
    assert set(harness.VARIANTS) == {
        "standard-single",
        "standard-multi",
        "advanced",
        "advanced-full",
        "advanced-optimized",
    }


def test_a_registered_pipeline_appears_in_every_face(
    extra_pipeline: PipelineSpec, tmp_path: Path
) -> None:
    runner = CliRunner()
    shown = runner.invoke(app, ["run", "--help"], env={"COLUMNS": "300"}).output
    help_text = " ".join(shown.replace("│", " ").split())  # Rich wraps and boxes the help
    assert "|supervisor|tiny>" in help_text and "tiny (a tiny test pipeline)" in help_text
    rejected = runner.invoke(app, ["run", "a question", "--pipeline", "tinier"])
    assert rejected.exit_code != 0 and "'tiny'" in rejected.output

    settings = tmp_path / "research-studio.toml"
    settings.write_text(f'runs_dir = "{tmp_path / "runs"}"\n')
    web = create_app(ServeSettings(config_file=settings))
    with TestClient(web, base_url="http://127.0.0.1") as client:
        options = client.get("/api/options").json()
    assert "tiny" in options["pipelines"] and "tiny" not in options["single_agent_pipelines"]

    # langgraph.json's check now fails until the file gains the new graph.
    path = registry.langgraph_graphs()["tiny"]
    assert path == "./src/research_studio/pipelines/standard/graph.py:graph"
    assert langgraph_file() != registry.langgraph_graphs()

    assert parse_pipelines("tiny")[0].name == "tiny"
    assert graph_id("tiny") == "tiny"
    assert "tiny" not in registry.plan_review_names()
    html = "<h2>Tiny Quotes</h2><p>quoted</p><h2>Sources</h2>"
    assert mark_verbatim(html).startswith('<section class="verbatim"><h2>Tiny Quotes</h2>')
    assert registry.compile_pipeline("tiny", None, False).get_graph().nodes
