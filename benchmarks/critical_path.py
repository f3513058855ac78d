"""The critical path of a run: the longest chain of calls that had to happen one after another."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Interval:
    """One timed call (model call, search, page fetch)."""

    kind: str
    started: float
    ended: float

    @property
    def duration(self) -> float:
        return max(0.0, self.ended - self.started)


def critical_path(
    intervals: Sequence[Interval], tolerance: float = 0.002
) -> tuple[float, list[Interval]]:
    """The chain of non-overlapping calls with the largest total duration, and that duration.

    Calls that overlap ran concurrently, so no chain contains two of them; a call that starts
    after another ended may have depended on it. The heaviest such chain is the least time the
    run could have taken with unlimited parallelism and no overhead (weighted interval
    scheduling, O(n log n)). `tolerance` absorbs clock jitter between a call and its successor.
    """
    ordered = sorted(intervals, key=lambda interval: interval.ended)
    ends = [interval.ended for interval in ordered]
    best = [0.0] * (len(ordered) + 1)
    choice: list[bool] = [False] * len(ordered)
    previous = [0] * len(ordered)
    for index, interval in enumerate(ordered):
        previous[index] = bisect.bisect_right(ends, interval.started + tolerance, 0, index)
        take = interval.duration + best[previous[index]]
        choice[index] = take > best[index]
        best[index + 1] = take if choice[index] else best[index]
    chain: list[Interval] = []
    index = len(ordered) - 1
    while index >= 0:
        if choice[index]:
            chain.append(ordered[index])
            index = previous[index] - 1
        else:
            index -= 1
    return best[-1], list(reversed(chain))
