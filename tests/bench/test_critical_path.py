"""The critical path: the heaviest chain of calls that did not overlap."""

from __future__ import annotations

import pytest
from benchmarks.critical_path import Interval, critical_path


def test_sequential_calls_add_up() -> None:
    calls = [Interval("llm", 0, 1), Interval("search", 1, 1.5), Interval("llm", 1.5, 3)]
    length, chain = critical_path(calls)
    assert length == pytest.approx(3.0) and [c.kind for c in chain] == ["llm", "search", "llm"]


def test_parallel_calls_count_once() -> None:
    workers = [Interval("llm", 1, 2 + i / 10) for i in range(4)]
    length, chain = critical_path([Interval("plan", 0, 1), *workers, Interval("write", 2.3, 3)])
    assert length == pytest.approx(1 + 1.3 + 0.7)
    assert [c.kind for c in chain] == ["plan", "llm", "write"]


def test_heaviest_chain_wins_over_longest_count() -> None:
    calls = [
        Interval("a", 0, 0.1),
        Interval("b", 0.1, 0.2),
        Interval("c", 0.2, 0.3),
        Interval("long", 0, 2),
    ]
    assert critical_path(calls)[0] == pytest.approx(2.0)


def test_empty() -> None:
    assert critical_path([]) == (0.0, [])
