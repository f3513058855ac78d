"""Each pipeline's wiring as Mermaid text, for snapshot tests and the architecture page.

`python -m research_studio.pipelines.topology DIR` writes one `<pipeline>.mmd` per pipeline.
"""

from __future__ import annotations

import sys
from pathlib import Path

from research_studio.pipelines.registry import compile_pipeline, names


def mermaid(pipeline: str) -> str:
    """The compiled graph's nodes and edges (conditional edges dotted), as Mermaid."""
    return compile_pipeline(pipeline, None, False).get_graph().draw_mermaid()


def nodes(pipeline: str) -> list[str]:
    """The graph's own nodes, without LangGraph's start and end markers."""
    graph = compile_pipeline(pipeline, None, False).get_graph()
    return [name for name in graph.nodes if not name.startswith("__")]


def write_snapshots(folder: Path) -> list[Path]:
    """Write `<pipeline>.mmd` for every pipeline into the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for pipeline in names():
        path = folder / f"{pipeline}.mmd"
        path.write_text(mermaid(pipeline), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for written_path in write_snapshots(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/graphs")):
        print(written_path)
