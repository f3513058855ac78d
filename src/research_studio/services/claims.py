"""How parallel workers share out the pages their searches found.

Workers of one fan-out (the standard pipeline's search workers, the advanced subagents) would
race: whoever's search answered first would claim a page several found, and the report would
depend on network timing. Here each worker posts its search results; once every worker that
started has posted, the pages are shared out by one rule (rank by rank, workers in plan order),
so the pages each worker reads depend on the inputs alone, and each gets its best pages in turn.
Workers that search in rounds (later subagent rounds, supervisor researchers' turns) share out
each round the same way (`follow`, `retire`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")
# A peer that has not posted within this time is not waited for any longer (the run goes on;
# only the share-out is then left to timing).
POST_WAIT_S = 300.0
Allocate = Callable[[dict[int, T]], dict[int, T]]


@dataclass
class _Fanout(Generic[T]):
    members: set[int] = field(default_factory=set)  # expected to post or leave
    joined: set[int] = field(default_factory=set)
    posted: dict[int, T] = field(default_factory=dict)
    left: set[int] = field(default_factory=set)  # will not post here (failed, or no search)
    retired: set[int] = field(default_factory=set)  # posts neither here nor in any round after
    followers: list[str] = field(default_factory=list)
    shares: dict[int, T] | None = None
    all_posted: asyncio.Event = field(default_factory=asyncio.Event)

    def check(self) -> None:
        if self.members - self.left - self.retired <= set(self.posted):
            self.all_posted.set()


class PageShares(Generic[T]):
    """Per fan-out: `join` at a worker's start (before any await), then `share` its results,
    or `leave` when it will not post (it failed, or searches nothing this round).

    Workers that search in rounds (a subagent's refinements, a researcher's turns) name one
    fan-out per round and `follow` the previous one before joining it: every worker of the
    previous round is then waited for, until it posts, leaves, or `retire`s (stops for good), so
    a fast worker's next round is not shared out before a slow one's."""

    def __init__(self, wait_s: float = POST_WAIT_S) -> None:
        self._fanouts: dict[str, _Fanout[T]] = {}
        self._wait_s = wait_s

    def _state(self, fanout: str) -> _Fanout[T]:
        return self._fanouts.setdefault(fanout, _Fanout())

    def expect(self, fanout: str, workers: Iterable[int]) -> None:
        """Workers that will post to the fan-out or leave it (known before any of them runs)."""
        self._state(fanout).members.update(workers)

    def follow(self, fanout: str, after: str) -> None:
        """The fan-out is the next round of `after`: its workers that did not retire are expected."""
        previous, state = self._state(after), self._state(fanout)
        if fanout not in previous.followers:
            previous.followers.append(fanout)
            state.members |= previous.members - previous.retired
            state.retired |= previous.retired
            state.check()

    def join(self, fanout: str, worker: int) -> bool:
        """Register a worker; False when it already took part in this fan-out."""
        state = self._state(fanout)
        if worker in state.joined or worker in state.posted:
            return False
        state.joined.add(worker)
        state.members.add(worker)
        state.left.discard(worker)
        return True

    def leave(self, fanout: str, worker: int) -> None:
        """The worker will not post to this fan-out: nobody waits for it here."""
        state = self._state(fanout)
        state.left.add(worker)
        state.check()

    def retire(self, fanout: str, worker: int) -> None:
        """The worker takes no part in this fan-out's later rounds (it stopped)."""
        state = self._state(fanout)
        state.retired.add(worker)
        state.check()
        for follower in state.followers:
            self.retire(follower, worker)

    async def share(self, fanout: str, worker: int, found: T, allocate: Allocate[T]) -> T:
        """This worker's share of what every expected worker found (`allocate` decides, once)."""
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
