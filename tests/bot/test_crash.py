"""The bot process killed hard (SIGKILL) at a chosen moment, then started again on the same
database (a new Store and TableService, ``recover()``).  A kill is simulated by a ``Crash`` (a
BaseException nothing catches) raised right after a store write committed: what the dead
process held in memory is gone, the database keeps what was committed.  (A review also killed
the real bot process 45 times against the loopback Discord: units, hands and the ledger held;
these are the moments it found, or that a test reaches every time.)"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.store import Store

from .test_service import ALICE, BOB, CH, Clock, G, finish_by_autoplay, make, until


class Crash(BaseException):
    """The process dies here."""


def crash_after(store: Store, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``store.<name>`` commits, then the process dies before the caller sees the result."""
    real = getattr(store, name)

    async def committed_then_killed(*args: Any, **kw: Any) -> Any:
        await real(*args, **kw)
        raise Crash(name)

    monkeypatch.setattr(store, name, committed_then_killed)


async def _abandon(svc: Any, store: Store) -> None:
    """The dead process: its tasks stop, its connection goes (nothing more is written)."""
    svc._closed = True
    for t in svc.tables.values():
        for task in [*t.tasks, t.timer]:
            if task is not None:
                task.cancel()
    await asyncio.sleep(0)
    await store.close()


async def test_a_kill_between_settlement_and_showdown_message_posts_it_at_the_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand settled (units moved, results written) just before the process died was never
    shown: the restarted service dealt the next hand and the channel never got that hand's
    showdown.  The settlement notes in the same transaction that its showdown is pending; the
    restart posts it (rebuilt from the final state and results), then deals."""
    db = tmp_path / "crash.sqlite3"
    svc, rec, store = await make(db, seed_factory=lambda: "crash-settle")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand_row is not None
    hand_id, number = t.hand_row.id, t.hand_row.number
    crash_after(store, "finish_hand", monkeypatch)
    with pytest.raises(Crash):
        await finish_by_autoplay(svc)
    await _abandon(svc, store)

    svc2, rec2, store2 = await make(db, seed_factory=lambda: "crash-settle-2")
    await svc2.recover()
    settled = await store2.get_hand(hand_id)
    assert settled is not None and settled.status == "done"  # the units moved
    assert await store2.verify_ledger() == []
    for _ in range(100):  # the next hand is dealt meanwhile (next_hand_delay 0.01)
        await asyncio.sleep(0.01)
    shown = [r for kind, r in rec2.events if kind == "showdown"]
    notices = [text for kind, text in rec2.events if kind == "notice"]
    assert [r.hand_no for r in shown] == [number], (
        f"hand #{number} was settled but its showdown was never posted; after the restart "
        f"the channel got only: {notices}")
    (row, results), = [h for h in await store2.history(t.id, 5) if h[0].id == hand_id]
    r = shown[0]
    assert r.units is not None and sum(r.units) == 0
    assert dict(zip(r.user_ids, r.units, strict=True)) == {x.user_id: x.units for x in results}
    assert list(r.settlement.totals) == list(x.points for x in sorted(
        results, key=lambda x: r.user_ids.index(x.user_id)))
    t2 = svc2.table_in_channel(CH)
    assert t2.row.hand_no == number + 1 and "showdown_pending" not in t2.row.extra
    await svc2.shutdown()
    await store2.close()
    svc3, rec3, store3 = await make(db, seed_factory=lambda: "crash-settle-3")
    await svc3.recover()  # posted: not again
    await asyncio.sleep(0.2)
    assert not [r for kind, r in rec3.events if kind == "showdown"]
    await svc3.shutdown()
    await store3.close()


async def test_a_kill_right_after_the_deal_commit_resumes_the_same_hand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deal is committed before anything is sent: the restarted service resumes
    the very same hand (same seed, same cards), pings the player to act, and it is played to a
    settlement that sums to zero."""
    db = tmp_path / "deal.sqlite3"
    svc, rec, store = await make(db, seed_factory=lambda: "crash-deal")
    await svc.new_table(G, CH, ALICE, "alice", variant="pineapple")
    await svc.join(G, CH, BOB, "bob")
    crash_after(store, "create_hand", monkeypatch)
    with pytest.raises(Crash):
        await svc.start(CH, ALICE)
    await _abandon(svc, store)

    svc2, rec2, store2 = await make(db, seed_factory=lambda: "other-seed")
    await svc2.recover()
    t = svc2.table_in_channel(CH)
    assert t.hand is not None and t.hand_row is not None and t.hand_row.seed == "crash-deal"
    for _ in range(100):  # the turn ping goes out in the background
        await asyncio.sleep(0.01)
    assert any(kind == "turn" for kind, _ in rec2.events), rec2.events
    await asyncio.wait_for(finish_by_autoplay(svc2), 60)
    assert await store2.verify_ledger() == []
    owned, given = await store2.total_units(G)
    assert owned == given
    await svc2.shutdown()
    await store2.close()


async def test_a_kill_after_a_timeout_settled_the_hand_still_tells_the_timeout_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clocks ran out and the bot played the hand's last moves; the settlement committed,
    then the process died before the showdown was posted.  The restart posts the timeout's
    notice ("Time ran out ...: they sit out") and then the showdown, as the live bot would
    have: the notice is part of the hand's final state."""
    db = tmp_path / "crash.sqlite3"
    clock = Clock()
    svc, rec, store = await make(db, seed_factory=lambda: "crash-timeout", clock=clock)
    await svc.new_table(G, CH, ALICE, "alice", variant="chinese", timer=10)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand_row is not None
    hand_id = t.hand_row.id
    crash_after(store, "finish_hand", monkeypatch)
    clock.offset += 300  # nobody sets: the bot sets both hands, the settlement commits
    svc.rearm()
    await until(lambda: t.timer is not None and t.timer.done(), 10)
    assert not [e for e in rec.events if e[0] == "showdown"]
    await _abandon(svc, store)

    svc2, rec2, store2 = await make(db, seed_factory=lambda: "crash-timeout-2", clock=clock)
    await svc2.recover()
    settled = await store2.get_hand(hand_id)
    assert settled is not None and settled.status == "done"
    await until(lambda: any(kind == "showdown" for kind, _ in rec2.events), 10)
    told = [kind for kind, x in rec2.events
            if kind == "showdown" or (kind == "notice" and "Time ran out" in str(x))]
    assert told == ["notice", "showdown"], rec2.events
    await svc2.shutdown()
    await store2.close()
