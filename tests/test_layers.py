"""The folders are the layers: a module imports only from its own layer or the layers below."""

from __future__ import annotations

import ast
import re
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


# A module named in a string: `import_module("research_studio.x")`, a "module:attribute" reference.
_MODULE_STRING = re.compile(r"^research_studio(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_]\w*)?$")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolved(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module an import-from names (relative imports resolved against `module`)."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _string_module(node: ast.expr, module: str) -> str | None:
    """The module a string names: a constant, or an f-string whose head is `{__name__}` or text."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, ast.JoinedStr) and node.values:
        head = node.values[0]
        if isinstance(head, ast.FormattedValue) and ast.unparse(head.value) == "__name__":
            text = module + "".join(
                v.value for v in node.values[1:2] if isinstance(v, ast.Constant)
            )
        elif isinstance(head, ast.Constant) and isinstance(head.value, str):
            text = head.value
        else:
            return None
    else:
        return None
    text = text.rstrip(".")
    return text.split(":")[0] if _MODULE_STRING.match(text) else None


def imports_of(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """Every module `source` imports or names for import, absolute, with its line."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            target = _resolved(node, module, is_package)
            found.append((node.lineno, target))
            # `from research_studio import core`, `from . import grounding`: submodules by name.
            found.extend((node.lineno, f"{target}.{alias.name}") for alias in node.names)
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.Constant | ast.JoinedStr):
            named = _string_module(node, module)
            if named:
                found.append((node.lineno, named))
    return found


def _imports(path: Path) -> list[tuple[int, str]]:
    return imports_of(
        path.read_text(encoding="utf-8"), _module_name(path), path.name == "__init__.py"
    )


def upward(source: str, module: str, is_package: bool = False) -> list[str]:
    """The imports of a module of the package that reach a layer above its own."""
    own = _layer(module)
    if own is None:  # the top package: imported by every layer, so it imports none of them
        return [
            f"line {line}: {target}"
            for line, target in imports_of(source, module, True)
            if _layer(target) is not None
        ]
    return [
        f"line {line}: {target} ({layer} is above {own})"
        for line, target in imports_of(source, module, is_package)
        if (layer := _layer(target)) in RANK and layer != own and RANK[layer] >= RANK[own]
    ]


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_subpackage_is_a_known_layer() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(RANK)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_only_go_down(path: Path) -> None:
    found = upward(path.read_text(encoding="utf-8"), _module_name(path), path.name == "__init__.py")
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    ("source", "module", "is_package"),
    [
        # a relative import that climbs to a higher layer
        ("from ...faces import cli", "research_studio.core.sub.mod", False),
        ("from ..run import runner", "research_studio.core.config", False),
        # a layer named through the top package
        ("from research_studio import faces", "research_studio.core.config", False),
        # the top package importing a layer
        ("from research_studio.core import config", "research_studio", True),
        # a module loaded by name
        ("importlib.import_module('research_studio.run.runner')", "research_studio.llm.x", False),
        (
            "importlib.import_module(f'research_studio.faces.{name}')",
            "research_studio.run.x",
            False,
        ),
        ('REF = "research_studio.faces.cli:main"', "research_studio.pipelines.spec", False),
    ],
)
def test_the_layer_check_sees_every_way_to_reach_upward(
    source: str, module: str, is_package: bool
) -> None:
    assert upward(source, module, is_package), source


def test_imports_within_a_layer_or_downward_pass() -> None:
    assert not upward("from . import config", "research_studio.core.errors", False)
    assert not upward("from ..core import config", "research_studio.llm.models", False)
    assert not upward(
        "importlib.import_module(f'{__name__}.{module}')", "research_studio.faces.cli", True
    )


def test_the_product_ships_no_test_double_or_bench() -> None:
    for path in PACKAGE.rglob("*.py"):
        names = [module for _, module in _imports(path)]
        assert not [n for n in names if n.split(".")[0] in {"tests", "benchmarks"}], path
