"""Page shares: what each parallel worker reads does not depend on whose search answered first."""

from __future__ import annotations

import asyncio

from research_studio.services.claims import PageShares


def _draft(posted: dict[int, list[str]]) -> dict[int, list[str]]:
    """A share-out rule for the test: in plan order, each worker takes what nobody took."""
    taken: set[str] = set()
    shares = {}
    for worker in sorted(posted):
        shares[worker] = [url for url in posted[worker] if url not in taken]
        taken.update(shares[worker])
    return shares


async def _run(delays: dict[int, float]) -> dict[int, list[str]]:
    shares: PageShares[list[str]] = PageShares(wait_s=5.0)
    found = {1: ["a", "b"], 2: ["b", "c"], 3: ["a", "c", "d"]}

    async def worker(index: int) -> tuple[int, list[str]]:
        shares.join("step", index)
        await asyncio.sleep(delays[index])  # its searches
        return index, await shares.share("step", index, found[index], _draft)

    return dict(await asyncio.gather(*(worker(index) for index in found)))


async def test_the_shares_are_the_same_whichever_worker_posts_first() -> None:
    first = await _run({1: 0.0, 2: 0.02, 3: 0.04})
    second = await _run({1: 0.04, 2: 0.02, 3: 0.0})
    assert first == second == {1: ["a", "b"], 2: ["c"], 3: ["d"]}


async def test_a_worker_that_fails_before_posting_is_not_waited_for() -> None:
    shares: PageShares[list[str]] = PageShares(wait_s=5.0)
    shares.join("step", 1)
    shares.join("step", 2)
    shares.leave("step", 1)
    assert await asyncio.wait_for(shares.share("step", 2, ["a"], _draft), 1.0) == ["a"]
    assert not shares.join("step", 2)  # one share per worker and fan-out


async def _rounds(delays: dict[int, float]) -> dict[int, list[str]]:
    """Three workers' second rounds; worker 3 stops after its first (it retires)."""
    shares: PageShares[list[str]] = PageShares(wait_s=5.0)
    first = {1: ["a"], 2: ["b"], 3: ["c"]}
    second = {1: ["d", "e"], 2: ["e", "d"]}

    async def worker(index: int) -> tuple[int, list[str]]:
        shares.join("round:1", index)
        await shares.share("round:1", index, first[index], _draft)
        await asyncio.sleep(delays[index])  # its extraction: when it decides to go on or stop
        if index not in second:
            shares.retire("round:1", index)
            return index, []
        shares.follow("round:2", after="round:1")
        shares.join("round:2", index)
        return index, await shares.share("round:2", index, second[index], _draft)

    return dict(await asyncio.gather(*(worker(index) for index in first)))


async def test_later_rounds_are_shared_out_in_plan_order_whoever_goes_on_first() -> None:
    fast_first = await _rounds({1: 0.0, 2: 0.03, 3: 0.06})
    slow_first = await _rounds({1: 0.06, 2: 0.03, 3: 0.0})
    assert fast_first == slow_first == {1: ["d", "e"], 2: [], 3: []}


async def test_a_round_skipped_by_a_worker_is_not_waited_for() -> None:
    shares: PageShares[list[str]] = PageShares(wait_s=5.0)
    shares.expect("turn:1", [0, 1])
    shares.leave("turn:1", 1)  # searches nothing this turn
    shares.join("turn:1", 0)
    mine = await asyncio.wait_for(shares.share("turn:1", 0, ["a"], _draft), 1.0)
    assert mine == ["a"]
