"""The clocks while Discord's gateway is lost (``connection_lost`` / ``connection_back``):
nobody can act then (interactions come through the gateway), so no clock plays a timeout; when
it is back, a decision whose clock ran out meanwhile, or runs out within ``RESUME_GRACE``, gets
that long from now and its player is pinged again, as after a restart."""

from __future__ import annotations

import asyncio

from bot.service import RESUME_GRACE

from .test_service import Clock, heads_up, until


def turns(rec: object) -> list[object]:
    return [e for e in rec.events if e[0] == "turn"]  # type: ignore[attr-defined]


async def test_no_timeout_while_discord_is_out_of_reach_and_a_grace_after() -> None:
    clock = Clock()
    svc, rec, store, t = await heads_up("gw-clocks", clock=clock)
    assert t.hand is not None and t.hand.turn is not None
    hs = t.hand.turn
    seat_no = t.hand_seats[hs]
    svc.connection_lost()
    clock.offset += 10 * t.rules.timer  # far past the deadline, nobody able to act
    svc.rearm()
    await asyncio.sleep(0.3)
    assert t.hand.autoplayed[hs] == 0 and len(t.hand.boards[hs]) == 0
    assert not [e for e in rec.events if e[0] == "notice" and "Time ran out" in e[1]]
    pinged = len(turns(rec))
    svc.connection_back()
    assert t.deadlines[hs] >= clock() + RESUME_GRACE - 1
    await until(lambda: len(turns(rec)) > pinged)
    assert turns(rec)[-1] == ("turn", [seat_no])  # pinged again
    await asyncio.sleep(0.2)
    assert t.hand.autoplayed[hs] == 0  # the grace holds
    clock.offset += RESUME_GRACE + 1
    svc.rearm()
    await until(lambda: t.hand is not None and t.hand.autoplayed[hs] == 1)
    await until(lambda: any("Time ran out" in str(e[1]) for e in rec.events
                            if e[0] == "notice"))
    assert await store.verify_ledger() == []
    await svc.shutdown()
    await store.close()


async def test_a_short_loss_leaves_a_long_clock_alone_and_pings_nobody() -> None:
    clock = Clock()
    svc, rec, store, t = await heads_up("gw-blip", clock=clock)
    assert t.hand is not None and t.hand.turn is not None
    hs = t.hand.turn
    deadline = t.deadlines[hs]
    assert deadline - clock() > RESUME_GRACE + 10  # (the default clock is longer)
    pinged = len(turns(rec))
    svc.connection_lost()
    svc.connection_back()
    await asyncio.sleep(0.2)
    assert t.deadlines[hs] == deadline and len(turns(rec)) == pinged
    # a clock with only seconds left at the return gets the grace too
    svc.connection_lost()
    clock.offset += deadline - clock() - 5
    svc.connection_back()
    assert t.deadlines[hs] >= clock() + RESUME_GRACE - 1
    await until(lambda: len(turns(rec)) > pinged)
    await svc.shutdown()
    await store.close()


async def test_a_timeout_found_before_the_loss_is_not_played_over_the_grace() -> None:
    """The timeout's move was being found when the gateway went and came back with a grace:
    the grace stands (the move found is dropped), the player plays themself."""
    clock = Clock()
    release, entered = asyncio.Event(), asyncio.Event()
    svc, rec, store, t = await heads_up("gw-think", clock=clock)
    assert t.hand is not None and t.hand.turn is not None
    hs = t.hand.turn
    real = svc.thinker.run

    async def held(*args: object, **kw: object) -> object:
        entered.set()
        await release.wait()
        return await real(*args, **kw)  # type: ignore[arg-type]

    svc.thinker.run = held  # type: ignore[method-assign]
    clock.offset += t.deadlines[hs] - clock() + 1
    svc.rearm()
    await asyncio.wait_for(entered.wait(), 5)  # the clock ran out: its move is being found
    svc.connection_lost()
    svc.connection_back()
    release.set()
    await asyncio.sleep(0.3)
    assert t.hand.autoplayed[hs] == 0 and t.deadlines[hs] > clock()
    await svc.shutdown()
    await store.close()
