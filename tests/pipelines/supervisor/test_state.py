"""The supervisor states' reducers: lists extend, an override replaces."""

from __future__ import annotations

from research_studio.pipelines.supervisor.state import override, override_reducer


def test_updates_extend_the_list() -> None:
    assert override_reducer(["a"], ["b", "c"]) == ["a", "b", "c"]
    assert override_reducer(None, ["a"]) == ["a"]
    assert override_reducer(["a"], "b") == ["a", "b"]


def test_an_override_replaces_the_list() -> None:
    assert override_reducer(["a", "b"], override(["c"])) == ["c"]
    assert override_reducer(["a"], override([])) == []
