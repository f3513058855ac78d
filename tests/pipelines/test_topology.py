"""Wiring snapshots: a change to a graph's nodes or edges is a visible diff, docs follow it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from research_studio.pipelines.registry import names
from research_studio.pipelines.topology import mermaid, nodes

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOTS = ROOT / "docs" / "graphs"
REGENERATE = "python -m research_studio.pipelines.topology docs/graphs"
PIPELINES = names()


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_the_compiled_graph_matches_its_snapshot(pipeline: str) -> None:
    snapshot = (SNAPSHOTS / f"{pipeline}.mmd").read_text(encoding="utf-8")
    assert mermaid(pipeline) == snapshot, (
        f"the {pipeline} graph changed: review, then run {REGENERATE}"
    )


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_the_readme_diagram_names_every_node(pipeline: str) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```(\w*)\n(.*?)^```", readme, re.DOTALL | re.MULTILINE)
    diagrams = "\n".join(text for language, text in blocks if not language)
    missing = [name for name in nodes(pipeline) if not re.search(rf"\b{name}\b", diagrams)]
    assert not missing, f"README diagrams do not show {pipeline} nodes: {missing}"


def test_the_architecture_page_embeds_the_snapshots() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for pipeline in PIPELINES:
        graph = mermaid(pipeline).split("graph TD;", 1)[1]
        assert graph.strip() in page, f"docs/architecture.md shows an old {pipeline} graph"
