"""The files written from the registry: langgraph.json's graphs and the README's pipeline table.

`python -m research_studio.pipelines.catalogue [ROOT]` rewrites both from `registry.specs()`;
with `--check` it changes nothing and exits 1 naming each file that differs (the test suite
makes the same check), so a pipeline added to the registry cannot be missing from either.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from research_studio.core.errors import ConfigError
from research_studio.core.files import write_atomically
from research_studio.pipelines import registry
from research_studio.pipelines.kit.spec import PipelineSpec

LANGGRAPH_FILE = "langgraph.json"
TABLE_FILE = "README.md"
TABLE_START = "<!-- pipelines: written by `python -m research_studio.pipelines.catalogue` -->"
TABLE_END = "<!-- /pipelines -->"
_NEW_CONFIG: dict[str, Any] = {"dependencies": ["."]}


def langgraph_text(root: Path, current: str | None) -> str:
    """langgraph.json for `root`: its other keys as they are, "graphs" from the registry."""
    try:
        config = json.loads(current) if current else dict(_NEW_CONFIG)
    except ValueError:
        config = None
    if not isinstance(config, dict):
        raise ConfigError(f"{root / LANGGRAPH_FILE} is not a JSON object")
    config["graphs"] = registry.langgraph_graphs(root)
    return json.dumps(config, indent=2) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _row(spec: PipelineSpec) -> str:
    modes = " and ".join(spec.modes)
    review = "yes" if spec.plan_review else "no"
    graphs = ", ".join(f"`{graph_id}`" for graph_id in spec.graphs)
    return f"| `{spec.name}` | {_cell(spec.summary)} | {modes} | {review} | {graphs} |"


def pipelines_table() -> str:
    """Every registered pipeline: name, summary, modes, plan review, LangGraph graph ids."""
    lines = [
        "| `--pipeline` | What it does | Modes | Plan review | LangGraph graphs |",
        "|---|---|---|---|---|",
        *(_row(spec) for spec in registry.specs()),
    ]
    return "\n".join(lines)


def with_table(text: str, where: str = TABLE_FILE) -> str:
    """`text` with the lines between the table's markers replaced by `pipelines_table()`."""
    start, end = text.find(TABLE_START), text.find(TABLE_END)
    if start < 0 or end < start:
        raise ConfigError(f"{where} lacks the pipeline table's markers {TABLE_START} … {TABLE_END}")
    head = text[: start + len(TABLE_START)]
    return f"{head}\n{pipelines_table()}\n{text[end:]}"


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None


def written(root: Path) -> dict[Path, str]:
    """Each generated file under `root` and the text the registry gives it."""
    langgraph, table = root / LANGGRAPH_FILE, root / TABLE_FILE
    readme = _read(table)
    if readme is None:
        raise ConfigError(f"{table} does not exist")
    return {
        langgraph: langgraph_text(root, _read(langgraph)),
        table: with_table(readme, str(table)),
    }


def stale(root: Path) -> list[Path]:
    """The generated files under `root` that differ from what the registry gives them."""
    return [path for path, text in written(root).items() if _read(path) != text]


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite the generated files (or, with --check, name the stale ones and exit 1)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in arguments
    folders = [item for item in arguments if item != "--check"]
    root = Path(folders[0] if folders else ".")
    try:
        if check:
            late = stale(root)
            for path in late:
                print(f"{path} is out of date: run python -m research_studio.pipelines.catalogue")
            return 1 if late else 0
        for path, text in written(root).items():
            if _read(path) != text:
                write_atomically(path, text)
                print(f"wrote {path}")
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
