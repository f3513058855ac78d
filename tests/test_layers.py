"""The folders are the layers: a module imports only from its own layer or the layers below."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "research_studio"

# Lowest first; layers on one rank may not import each other.
RANKS: list[tuple[str, ...]] = [
    ("core",),
    ("llm", "sources", "grounding"),
    ("services",),
    ("evidence",),
    ("pipelines",),
    ("run",),
    ("export", "evaluation"),
    ("faces",),
]
RANK = {layer: rank for rank, layers in enumerate(RANKS) for layer in layers}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "research_studio" else None


def _imports(path: Path) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
    return found


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p.parent != PACKAGE)


def test_every_subpackage_is_a_known_layer() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(RANK)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_only_go_down(path: Path) -> None:
    own = path.relative_to(PACKAGE).parts[0]
    upward = [
        f"line {line}: {module} ({_layer(module)} is above {own})"
        for line, module in _imports(path)
        if (layer := _layer(module)) is not None and layer != own and RANK[layer] >= RANK[own]
    ]
    assert not upward, "\n".join(upward)


def test_the_product_ships_no_test_double_or_bench() -> None:
    for path in PACKAGE.rglob("*.py"):
        names = [module for _, module in _imports(path)]
        assert not [n for n in names if n.split(".")[0] in {"tests", "benchmarks"}], path
