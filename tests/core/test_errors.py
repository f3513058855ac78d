"""core/errors.py holds the package's error classes and draws their hierarchy in its docstring."""

from __future__ import annotations

import inspect
import re

from research_studio.core import errors

# "* Name" or "* Name (a BaseName)", indented two spaces per level.
_TREE_LINE = re.compile(r"^(?P<indent> *)\* (?P<name>\w+)(?: \(an? (?P<base>\w+)\))?$")


def _drawn_tree() -> dict[str, str]:
    """Each class the docstring draws, with the parent it is drawn under (or the base it names)."""
    parents: dict[str, str] = {}
    stack: list[str] = []
    for line in (errors.__doc__ or "").splitlines():
        match = _TREE_LINE.match(line)
        if match is None:
            continue
        depth = len(match["indent"]) // 2
        del stack[depth:]
        parents[match["name"]] = stack[-1] if stack else match["base"] or ""
        stack.append(match["name"])
    return parents


def _defined_classes() -> dict[str, type]:
    return {
        name: value
        for name, value in vars(errors).items()
        if inspect.isclass(value) and value.__module__ == errors.__name__
    }


def test_the_docstring_draws_exactly_the_classes_defined_in_the_module() -> None:
    assert set(_drawn_tree()) == set(_defined_classes())


def test_each_drawn_class_sits_under_its_base() -> None:
    classes = _defined_classes()
    for name, parent in _drawn_tree().items():
        assert classes[name].__bases__[0].__name__ == parent, name
