"""The registry is the one list of pipelines: what every registered pipeline must declare, and
the files written from it (langgraph.json, the README's table). No test here names the list;
tests/pipelines/test_new_pipeline.py registers one more and finds it in every face."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import pytest
from benchmarks import harness

from research_studio.core.config import Configuration
from research_studio.core.errors import ConfigError
from research_studio.evaluation.cases import parse_pipelines
from research_studio.faces.remote import graph_id
from research_studio.faces.web.report_view import mark_verbatim
from research_studio.pipelines import catalogue, registry
from research_studio.pipelines.kit.spec import KIT_STEPS, PipelineSpec, load
from research_studio.pipelines.kit.stopping import StopReason
from research_studio.run.steps import RUN_STEPS, step_words

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "research_studio"
# The layers above the pipelines, and the pipeline modules they may name: the registry, the
# shared kit and what is written from the registry. A pipeline's own folder is named only there.
ABOVE = ("run", "export", "evaluation", "faces")
SHARED = ("registry", "kit", "catalogue", "topology")
EVERY = pytest.mark.parametrize("spec", registry.specs(), ids=lambda spec: spec.name)


def _nodes(spec: PipelineSpec) -> set[str]:
    graph = registry.compile_pipeline(spec.name, None, True).get_graph()
    return {node for node in graph.nodes if not node.startswith("__")}


def test_the_generated_files_agree_with_the_registry() -> None:
    stale = catalogue.stale(ROOT)
    assert not stale, f"run python -m research_studio.pipelines.catalogue: {stale} are stale"


def _imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_the_layers_above_reach_a_pipeline_only_through_the_registry() -> None:
    reached = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for layer in ABOVE
        for path in (PACKAGE / layer).rglob("*.py")
        for name in _imported(path)
        if name.startswith("research_studio.pipelines.") and name.split(".")[2] not in SHARED
    }
    assert not reached, f"modules that name a pipeline's own folder: {sorted(reached)}"


def test_names_and_graph_ids_are_unique() -> None:
    names = registry.names()
    assert len(set(names)) == len(names)
    ids = [gid for spec in registry.specs() for gid in spec.graphs]
    assert len(set(ids)) == len(ids)


@EVERY
def test_every_spec_names_real_builders_graphs_and_settings(spec: PipelineSpec) -> None:
    assert callable(spec.graph_builder())
    assert all(load(reference) is not None for reference in spec.graphs.values())
    if spec.plan_text is not None:
        assert callable(load(spec.plan_text))
    unknown = set(spec.settings) - set(Configuration.model_fields)
    assert not unknown, f"{spec.name} declares settings Configuration lacks: {unknown}"
    assert set(spec.bench_modes) <= set(spec.modes)
    assert spec.modes and spec.summary and "\n" not in spec.summary


def _shape(graph: typing.Any) -> tuple[object, ...]:
    """What a compiled graph runs: its nodes, edges, pauses, name and channels."""
    drawn = graph.get_graph()
    edges = sorted((edge.source, edge.target, edge.conditional) for edge in drawn.edges)
    pauses = graph.interrupt_before_nodes, graph.interrupt_after_nodes
    return sorted(drawn.nodes), edges, pauses, graph.name, sorted(graph.channels)


@EVERY
def test_a_run_compiles_the_graph_its_builder_makes(spec: PipelineSpec) -> None:
    """A run takes the main graph its module built as it loaded (or a copy without the pause
    before `clarify`) instead of building it again: it must be what the builder makes."""
    build = spec.graph_builder()
    for pause in (True, False):
        run_graph = registry.compile_pipeline(spec.name, None, pause)
        assert _shape(run_graph) == _shape(build(checkpointer=None, interrupt_on_clarify=pause))
        assert run_graph.checkpointer is None and run_graph.store is None


@EVERY
def test_every_stop_rule_answers_in_the_shared_vocabulary(spec: PipelineSpec) -> None:
    assert spec.stop_rules, f"{spec.name} names no stop rule"
    for rule in spec.stop_rules:
        assert typing.get_type_hints(rule)["return"] == StopReason, rule.__name__


@EVERY
def test_every_node_has_words_of_its_own_pipeline(spec: PipelineSpec) -> None:
    nodes = _nodes(spec)
    unnamed = nodes - set(spec.steps) - set(KIT_STEPS)
    assert not unnamed, f"{spec.name}'s steps lack words for {sorted(unnamed)}"
    assert spec.after_loop <= set(spec.steps), "after_loop names a step it does not declare"
    for node in nodes:
        assert step_words(node) == {**KIT_STEPS, **spec.steps}[node]


def test_a_node_shared_by_pipelines_has_the_same_words_in_each() -> None:
    words: dict[str, set[str]] = {}
    for spec in registry.specs():
        for node, said in {**RUN_STEPS, **spec.steps}.items():
            words.setdefault(node, set()).add(said)
    differing = {node: said for node, said in words.items() if len(said) > 1}
    assert not differing, f"nodes whose words differ between pipelines: {differing}"


@EVERY
def test_plan_review_is_declared_where_the_graph_pauses_for_it(spec: PipelineSpec) -> None:
    assert ("review_plan" in _nodes(spec)) == spec.plan_review
    assert ("review_plan" in spec.settings) == spec.plan_review
    assert (spec.name in registry.plan_review_names()) == spec.plan_review


@EVERY
def test_every_face_reads_the_spec(spec: PipelineSpec) -> None:
    assert (spec.name in registry.single_worker_names()) == ("single" in spec.modes)
    assert graph_id(spec.name) == spec.graph_id == next(iter(spec.graphs))
    assert parse_pipelines(spec.name)[0].name == spec.name
    assert f"{spec.name} ({spec.summary})" in registry.help_text()
    benched = {pair for pair in harness.VARIANTS.values() if pair[0] == spec.name}
    assert benched == {(spec.name, mode) for mode in spec.bench_modes}
    if spec.verbatim_heading:
        html = f"<h2>{spec.verbatim_heading}</h2><p>quoted</p><h2>Sources</h2>"
        assert mark_verbatim(html).startswith('<section class="verbatim"><h2>')


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
    assert spec.langgraph_graphs(ROOT) == {
        "pipeline": "./src/research_studio/pipelines/standard/graph.py:graph"
    }
    by_name = PipelineSpec.of_package(
        "research_studio.pipelines.supervisor.spec", "summary", stop_rules=()
    )
    assert by_name.graph_id == "supervisor"


def test_an_unknown_pipeline_is_a_one_line_error_naming_the_others() -> None:
    with pytest.raises(ConfigError) as caught:
        registry.compile_pipeline("nope", None, False)
    assert "\n" not in str(caught.value) and registry.names()[-1] in str(caught.value)
    with pytest.raises(ConfigError):
        parse_pipelines("nope")


def test_a_registry_line_that_names_no_spec_is_a_one_line_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    line = "research_studio.pipelines.kit.spec:KIT_STEPS"
    monkeypatch.setattr(registry, "PIPELINES", (*registry.PIPELINES, line))
    with pytest.raises(ConfigError, match="is not a PipelineSpec"):
        registry.names()


def test_a_readme_without_the_table_markers_is_a_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# A project\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        catalogue.written(tmp_path)
    assert "\n" not in str(caught.value) and "markers" in str(caught.value)
    assert catalogue.main(["--check", str(tmp_path)]) == 2
    (tmp_path / "README.md").write_text(f"{catalogue.TABLE_START}\n{catalogue.TABLE_END}\n")
    (tmp_path / "langgraph.json").write_text("[1, 2]", encoding="utf-8")
    assert catalogue.main([str(tmp_path)]) == 2
    assert (tmp_path / "langgraph.json").read_text(encoding="utf-8") == "[1, 2]"
