"""How parallel workers share out the pages their searches found.

Workers of one fan-out (the standard pipeline's search workers, the advanced subagents) would
race: whoever's search answered first would claim a page several found, and the report would
depend on network timing. Here each worker posts its search results; once every worker that
started has posted, the pages are shared out by one rule (rank by rank, workers in plan order),
so the pages each worker reads depend on the inputs alone, and each gets its best pages in turn.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")
# A peer that has not posted within this time is not waited for any longer (the run goes on;
# only the share-out is then left to timing).
POST_WAIT_S = 300.0
Allocate = Callable[[dict[int, T]], dict[int, T]]


@dataclass
class _Fanout(Generic[T]):
    started: set[int] = field(default_factory=set)
    posted: dict[int, T] = field(default_factory=dict)
    shares: dict[int, T] | None = None
    all_posted: asyncio.Event = field(default_factory=asyncio.Event)

    def check(self) -> None:
        if self.started <= set(self.posted):
            self.all_posted.set()


class PageShares(Generic[T]):
    """Per fan-out: `join` at a worker's start (before any await), then `share` its results,
    or `leave` when it fails before it could."""

    def __init__(self, wait_s: float = POST_WAIT_S) -> None:
        self._fanouts: dict[str, _Fanout[T]] = {}
        self._wait_s = wait_s

    def join(self, fanout: str, worker: int) -> bool:
        """Register a worker; False when it already took part in this fan-out."""
        state = self._fanouts.setdefault(fanout, _Fanout())
        if worker in state.started or worker in state.posted:
            return False
        state.started.add(worker)
        return True

    def leave(self, fanout: str, worker: int) -> None:
        """The worker will not post (it failed): nobody waits for it."""
        state = self._fanouts[fanout]
        state.started.discard(worker)
        state.check()

    async def share(self, fanout: str, worker: int, found: T, allocate: Allocate[T]) -> T:
        """This worker's share of what every started worker found (`allocate` decides, once)."""
        state = self._fanouts[fanout]
        state.posted[worker] = found
        state.check()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(state.all_posted.wait(), self._wait_s)
        # No await from here on: the share-out is computed once, by whoever gets here first.
        if state.shares is None:
            state.shares = allocate(dict(state.posted))
        if worker not in state.shares:  # posted after the share-out: what is left
            state.shares.update(allocate({worker: found}))
        return state.shares[worker]
