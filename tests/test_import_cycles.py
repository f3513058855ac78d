"""No two modules of the package import each other, directly or through others.

Every `import` and `from ... import` counts, also those inside functions and `if TYPE_CHECKING`
blocks: a lazy import inside a cycle hides it rather than ending it.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "research_studio"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """The absolute modules an import statement names (relative ones resolved)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level == 0:
        base = node.module or ""
    else:
        parts = module.split(".")
        parts = parts[: len(parts) - node.level + (1 if is_package else 0)]
        base = ".".join([*parts, *([node.module] if node.module else [])])
    # `from research_studio.run import runs` names the submodule runs.
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def import_graph(sources: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """module -> the modules of `sources` it imports (module: (source text, is a package))."""
    graph: dict[str, set[str]] = {}
    for module, (source, is_package) in sources.items():
        edges: set[str] = set()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges.update(t for t in _targets(node, module, is_package) if t in sources)
        edges.discard(module)
        graph[module] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path that ends where it starts, or None."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path: list[str] = []
        on_path: set[str] = set()
        stack: list[tuple[str, list[str]]] = [(start, sorted(graph[start]))]
        path.append(start)
        on_path.add(start)
        while stack:
            node, pending = stack[-1]
            if not pending:
                stack.pop()
                path.pop()
                on_path.discard(node)
                done.add(node)
                continue
            nxt = pending.pop()
            if nxt in on_path:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in done:
                stack.append((nxt, sorted(graph[nxt])))
                path.append(nxt)
                on_path.add(nxt)
    return None


def _package_sources() -> dict[str, tuple[str, bool]]:
    return {
        _module_name(path): (path.read_text(encoding="utf-8"), path.name == "__init__.py")
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def test_the_package_has_no_import_cycle() -> None:
    cycle = find_cycle(import_graph(_package_sources()))
    assert cycle is None, " -> ".join(cycle or [])


def test_a_cycle_through_a_lazy_import_is_found() -> None:
    sources = {
        "pkg.a": ("from pkg.b import f\n", False),
        "pkg.b": ("def f():\n    from pkg import c\n", False),
        "pkg.c": ("if TYPE_CHECKING:\n    from .a import g\n", False),
        "pkg.d": ("from pkg.a import f\n", False),
    }
    assert find_cycle(import_graph(sources)) == ["pkg.a", "pkg.b", "pkg.c", "pkg.a"]


def test_a_graph_without_a_cycle_passes() -> None:
    sources = {
        "pkg.a": ("from pkg.b import f\nfrom pkg.c import g\n", False),
        "pkg.b": ("from pkg.c import g\n", False),
        "pkg.c": ("import os\n", False),
    }
    assert find_cycle(import_graph(sources)) is None
