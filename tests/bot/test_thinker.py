"""Where the AI thinks: worker processes (the bot's default) or threads."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time

import pytest

from bot.thinker import Hung, Thinker
from engine import Hand, Rules, ai
from engine.ai import choose_move


async def test_threads_warm_this_process_and_think_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ai, "_WARMED", set())
    thinker = Thinker(0)
    await thinker.start()
    assert ai._WARMED == {"pineapple", "ofc"}
    assert await thinker.run(os.getpid) == os.getpid()
    thinker.close()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="kills a worker with SIGKILL")
async def test_a_worker_process_thinks_and_a_dead_one_is_replaced() -> None:
    with pytest.raises(ValueError):
        Thinker(-1)
    thinker = Thinker(1)
    try:
        await thinker.start()
        worker = await thinker.run(os.getpid)
        assert worker != os.getpid()
        # the same moves as in this process (the hand and the seeded rng are sent along)
        hand = Hand(Rules(variant="pineapple"), ["a", "b"], 1, seed="thinker")
        seat = hand.to_act()[0]
        here = choose_move(hand, seat, "easy", random.Random(3), None, 40)
        assert await thinker.run(choose_move, hand, seat, "easy", random.Random(3), None,
                                 40) == here
        assert await thinker.run(hand.autoplay, seat) == hand.autoplay(seat)
        with pytest.raises(ValueError, match="invalid literal"):  # its errors are raised here
            await thinker.run(int, "x")
        # the worker dies: the call that finds it dead is thought again in a new worker
        old = thinker._pool
        os.kill(worker, signal.SIGKILL)
        again = await thinker.run(os.getpid)
        assert again not in (worker, os.getpid()) and thinker._pool is not old
    finally:
        thinker.close()
    assert await thinker.run(os.getpid) == os.getpid()  # closed: threads


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="kills a worker with SIGKILL")
async def test_a_worker_dying_with_several_calls_under_way_loses_none() -> None:
    """Every call that finds the pool broken thinks again in the new worker (the second one
    used to fail: the first had shut the pool down already); a worker that died between two
    calls is replaced before the next (not a call in the bot's own process)."""
    thinker = Thinker(1)
    try:
        await thinker.start()
        worker = await thinker.run(os.getpid)
        calls = [asyncio.ensure_future(thinker.run(time.sleep, 0.5)) for _ in range(3)]
        await asyncio.sleep(0.2)
        os.kill(worker, signal.SIGKILL)
        assert await asyncio.gather(*calls, return_exceptions=True) == [None, None, None]
        worker = await thinker.run(os.getpid)
        assert worker != os.getpid()
        os.kill(worker, signal.SIGKILL)  # dies while idle
        await asyncio.sleep(0.5)
        again = await thinker.run(os.getpid)
        assert again not in (worker, os.getpid())
    finally:
        thinker.close()


async def test_no_worker_to_be_had_thinks_in_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    thinker = Thinker(1)

    def fail(warm: bool = False) -> None:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(thinker, "_executor", fail)
    assert await thinker.run(os.getpid) == os.getpid()
    thinker.close()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="worker processes")
async def test_a_call_that_hangs_is_stopped_and_the_others_go_on(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """Every table's bots and timeouts share the workers: a call stuck in one (a bug) would
    hold them all for good.  After the hang limit the worker writes where it was stuck and
    exits; the hung call gets its fallback (or ``Hung``) and is not tried again; a call queued
    behind it goes on in the new worker."""
    thinker = Thinker(1, hang_limit=1.0)
    try:
        await thinker.start()
        worker = await thinker.run(os.getpid)
        hung = asyncio.ensure_future(thinker.run(time.sleep, 60, fallback=lambda: "plain"))
        await asyncio.sleep(0.3)
        queued = asyncio.ensure_future(thinker.run(os.getpid))
        start = time.monotonic()
        assert await hung == "plain"
        assert time.monotonic() - start < 5
        after = await queued
        assert after not in (worker, os.getpid())  # a new worker, not a thread
        assert "Timeout (0:00:01)!" in capfd.readouterr().err  # the stuck worker's stacks
        with pytest.raises(Hung):  # no fallback
            await thinker.run(time.sleep, 60)
        assert await thinker.run(os.getpid) not in (worker, after, os.getpid())
        assert await thinker.run(time.sleep, 0.5) is None  # under the limit: not a hang
    finally:
        thinker.close()
