"""A member's play in a settled hand against the AI's (``TableService.review_at``,
``/ofc review``, *Review my play*): only one's own decisions, only after the showdown, each
judged in the AI's workers on its own, kept for the next ask."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.service import ServiceError
from bot.thinker import Thinker
from engine.review import judge

from .test_service import ALICE, BOB, CAROL, CH, G, finish_by_autoplay, heads_up, until


class CountingThinker(Thinker):
    """Threads of this process, counting the calls (and holding them while ``hold`` is
    clear)."""

    def __init__(self) -> None:
        super().__init__(0)
        self.calls: list[Any] = []
        self.hold = asyncio.Event()
        self.hold.set()

    async def run(self, fn: Any, *args: Any, fallback: Any = None, what: str = "") -> Any:
        self.calls.append(fn)
        await self.hold.wait()
        return await super().run(fn, *args, fallback=fallback)


async def first_hand_played(seed: str, variant: str = "pineapple") -> tuple[Any, Any, Any,
                                                                             CountingThinker]:
    thinker = CountingThinker()
    svc, rec, store, t = await heads_up(seed, variant=variant, thinker=thinker)
    await finish_by_autoplay(svc)
    await until(lambda: t.hand is not None and t.row.hand_no == 2)
    thinker.calls.clear()
    return svc, store, t, thinker


async def test_each_players_own_decisions_one_worker_call_each_then_kept() -> None:
    svc, store, t, thinker = await first_hand_played("review-svc")
    mine = await svc.review_here(CH, ALICE, 1)
    assert mine.number == 1 and mine.table_id == t.id and mine.channel_id == CH
    assert mine.review.variant == "pineapple"
    verdicts = mine.review.verdicts
    assert [v.kind for v in verdicts] == ["street"] * 5
    assert all(v.auto for v in verdicts)  # (played by the clock's move: autoplay)
    assert thinker.calls == [judge] * 5  # one call each: other tables' bots go in between
    hand_seat = [int(u) for u in (await store.numbered_hand(t.id, 1))[0].state["users"]]
    assert mine.review.seat == hand_seat.index(ALICE)
    # kept: the same answer at once, whichever way it is asked for
    assert await svc.review_at(G, ALICE, t.id, 1) is mine
    assert await svc.review_last(G, ALICE) is mine  # (hand #2 is not over: #1 is the last)
    assert thinker.calls == [judge] * 5
    theirs = await svc.review_here(CH, BOB, 1)
    assert theirs.review.seat != mine.review.seat
    assert {v.cards for v in theirs.review.verdicts}.isdisjoint(
        {v.cards for v in verdicts})
    await store.close()


async def test_only_players_only_after_the_showdown_only_of_this_server() -> None:
    svc, store, t, thinker = await first_hand_played("review-refused", variant="ofc")
    with pytest.raises(ServiceError, match=r"^You did not play hand #1: a review is of your "
                                           r"own decisions\.$"):
        await svc.review_here(CH, CAROL, 1)
    with pytest.raises(ServiceError, match=r"^Hand #2 is being played: review it after its "
                                           r"showdown\.$"):
        await svc.review_here(CH, ALICE, 2)
    with pytest.raises(ServiceError, match=r"^There is no hand #3 here"):
        await svc.review_here(CH, ALICE, 3)
    with pytest.raises(ServiceError, match=r"^That table's record is gone\.$"):
        await svc.review_at(G + 1, ALICE, t.id, 1)  # another server's member
    with pytest.raises(ServiceError, match=r"^That table's record is gone\.$"):
        await svc.review_at(G, ALICE, 2**63, 1)
    with pytest.raises(ServiceError, match=r"^You have not finished a hand in this server"):
        await svc.review_last(G, CAROL)
    assert thinker.calls == []
    # after the channel is gone: its last table's settled hand still, the voided one not
    assert await svc.channel_gone(CH)
    assert (await svc.review_here(CH, ALICE, 1)).number == 1
    with pytest.raises(ServiceError, match=r"^Hand #2 was voided \(no units moved\): it has "
                                           r"nothing to review\.$"):
        await svc.review_here(CH, ALICE, 2)
    last = await svc.review_last(G, BOB)
    assert last.number == 1 and last.table_id == t.id
    await store.close()


async def test_one_review_at_a_time_for_each_member() -> None:
    svc, store, t, thinker = await first_hand_played("review-one-at-a-time")
    thinker.hold.clear()
    first = asyncio.create_task(svc.review_here(CH, ALICE, 1))
    await until(lambda: bool(thinker.calls))
    with pytest.raises(ServiceError, match=r"^Your last review is still being worked out"):
        await svc.review_here(CH, ALICE, 1)
    other = asyncio.create_task(svc.review_here(CH, BOB, 1))  # another member: not held up
    thinker.hold.set()
    done = await first
    assert len(done.review.verdicts) == 5 and len((await other).review.verdicts) == 5
    assert await svc.review_here(CH, ALICE, 1) is done  # and free again
    await store.close()


async def test_a_review_that_fails_frees_the_member() -> None:
    svc, store, t, thinker = await first_hand_played("review-fails")

    async def broken(fn: Any, *args: Any, fallback: Any = None, what: str = "") -> Any:
        raise ServiceError("The AI did not answer in time; please try again.")

    thinker.run = broken  # type: ignore[method-assign]
    with pytest.raises(ServiceError, match="did not answer in time"):
        await svc.review_here(CH, ALICE, 1)
    del thinker.run
    assert len((await svc.review_here(CH, ALICE, 1)).review.verdicts) == 5
    await store.close()


async def test_in_a_worker_process() -> None:
    """Each decision crosses to an AI worker process and its verdict back (both pickled)."""
    thinker = Thinker(1)
    svc, rec, store, t = await heads_up("review-process", variant="ofc", thinker=thinker)
    try:
        await finish_by_autoplay(svc)
        await until(lambda: t.hand is not None and t.row.hand_no == 2)
        found = await svc.review_here(CH, ALICE, 1)
        assert len(found.review.verdicts) == 9
        assert found.review.verdicts[0].played_value is not None
    finally:
        thinker.close()
        await store.close()
