"""A review of the session b6b6fa2..9e96072: each test failed on a defect it found, now fixed
(a late /ofc sitin kept through a failed save and a restart; a close waits for at most the one
fantasyland hand owed, and says so; a closing table's failed deal does not offer /ofc start)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import bot.service as service_module
import engine.hand as hand_module
from bot.service import ServiceError
from cogs.presenter import table_status, table_view

from .test_service import ALICE, BOB, CH, Clock, G, finish_by_autoplay, heads_up, make, until


def _notices(rec: Any) -> list[str]:
    return [str(e[1]) for e in rec.events if e[0] == "notice"]


def _mover(t: Any) -> tuple[int, int]:
    """The hand seat to act and its user."""
    hs = t.hand.to_act()[0]
    return hs, t.seat_by_no(t.hand_seats[hs]).user_id


async def _ten_second_table(clock: Clock, seed: str, db: Path | str = ":memory:") -> Any:
    """Heads-up ofc with a 10 s clock, dealt: (svc, rec, store, t, hand seat to act, its user)."""
    svc, rec, store = await make(db, clock=clock, seed_factory=lambda: seed)
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", timer=10)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    return (svc, rec, store, t, *_mover(t))


def _failing_saves(monkeypatch: pytest.MonkeyPatch, svc: Any, times: int) -> list[int]:
    """The next ``times`` saves of the hand fail (a locked database); the list left of them."""
    real_save = svc._save
    fails = [1] * times

    async def save(tt: Any) -> None:
        if fails:
            fails.pop()
            raise RuntimeError("database is locked")
        await real_save(tt)

    monkeypatch.setattr(svc, "_save", save)
    return fails


# ---------------------------------------------------------------------------- back_late
async def test_sitin_late_then_a_failed_save_of_the_timeout_does_not_sit_the_player_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`/ofc sitin` after the clock ran out answers "you play the rest of this hand and the
    next ones" (back_late).  The timeout's move is then played but its save fails once (the
    move is undone, tried again shortly): the first pass already popped back_late, so the
    retry sat the player out and pinged "Time ran out" after all."""
    monkeypatch.setattr(service_module, "SAVE_RETRY", 0.05)
    clock = Clock()
    svc, rec, store, t, hs, user = await _ten_second_table(clock, "review-late-save")
    clock.offset += 11  # the clock ran out; the timer (real time) has not woken yet
    said = await svc.sit_out(CH, user, False)
    assert "already run out" in said and "the next ones" in said
    fails = _failing_saves(monkeypatch, svc, 1)
    svc.rearm()
    await until(lambda: t.hand is not None and any(a.seat == hs for a in t.hand.log))
    await asyncio.sleep(0.2)
    assert not fails, "the save never failed"
    assert any(a.seat == hs for a in t.hand.log), "the timeout's move was not played"
    seat = t.seat_of_user(user)
    assert not seat.sitting_out, f"told {said!r}, then sat out"
    assert not any(f"Time ran out for <@{user}>" in n for n in _notices(rec))
    await svc.shutdown()
    await store.close()


async def test_sitin_late_then_a_restart_does_not_sit_the_player_out(tmp_path: Path) -> None:
    """The same answer, then the bot stops before the timer played the move: back_late lived
    only in memory, so after the restart the expired clock played the move and sat out the
    player who was told they play on.  It is saved with the hand now."""
    db = tmp_path / "late.sqlite3"
    clock = Clock()
    svc, rec, store, t, hs, user = await _ten_second_table(clock, "review-late-rs", db)
    clock.offset += 11
    said = await svc.sit_out(CH, user, False)
    assert "already run out" in said and "the next ones" in said
    await svc.shutdown()
    await store.close()

    svc2, rec2, store2 = await make(db, clock=clock, seed_factory=lambda: "review-late-rs")
    await svc2.recover()
    t2 = svc2.table_in_channel(CH)
    assert t2.back_late == {hs: 0}
    clock.offset += service_module.RESUME_GRACE + 1  # (a clock run out while the bot was
    svc2.rearm()  # down gets a grace; the player does not act in it)
    await until(lambda: t2.hand is not None and any(a.seat == hs for a in t2.hand.log))
    await asyncio.sleep(0.2)
    assert any(a.seat == hs for a in t2.hand.log)
    assert not t2.seat_of_user(user).sitting_out, f"told {said!r}, then sat out after a restart"
    await svc2.shutdown()
    await store2.close()


# ------------------------------------------------------------------ close and fantasyland
def _alice_earns_fantasyland(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every hand ends with alice's seat (table seat 0) earning (or keeping) a 13-card
    fantasyland, as a QQ+ top (or a stay hand) would."""
    real = hand_module.Hand._finish

    def finish(self: Any) -> None:
        real(self)
        self.fantasyland_next = tuple(13 if i == 0 else 0 for i in range(self.n))

    monkeypatch.setattr(hand_module.Hand, "_finish", finish)


async def test_close_during_a_hand_that_earns_a_fantasyland_says_it_plays_that_hand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`/ofc close` mid-hand answered "The table will close after this hand." and the table
    note said so; the hand earned alice a fantasyland and the table dealt another hand.  It
    still deals it (its players may not skip it), says so, and closes after it."""
    _alice_earns_fantasyland(monkeypatch)
    svc, rec, store, t = await heads_up("review-close-mid", variant="ofc")
    said = await svc.close(CH, ALICE, False)
    assert "close after this hand" in said and "fantasyland hand" in said
    assert "or the fantasyland hand it earns" in table_view(t).note
    await finish_by_autoplay(svc)
    await until(lambda: t.id not in svc.tables or t.row.hand_no > 1, 3)
    assert t.hand is not None and t.row.hand_no == 2 and t.hand.fantasyland[0] == 13
    assert table_view(t).note == "This table closes after this hand."
    await finish_by_autoplay(svc)  # alice stays in fantasyland: no third hand
    await until(lambda: t.id not in svc.tables, 3)
    assert t.id not in svc.tables and t.row.hand_no == 2
    await svc.shutdown()
    await store.close()


async def test_close_waiting_for_the_fantasyland_owed_does_not_outlast_it_when_it_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Between hands `/ofc close` answers "The table will close after the fantasyland hand
    that is owed"; alice stays in fantasyland in that hand, so another fantasyland is owed and
    the table dealt again (and again, as long as she stayed).  One fantasyland hand only."""
    svc, rec, store, t = await heads_up("review-close-stay", variant="ofc",
                                        next_hand_delay=0.3)
    _alice_earns_fantasyland(monkeypatch)
    await finish_by_autoplay(svc)  # hand 1 earns alice a fantasyland, bob owes it
    await until(lambda: t.hand is None)
    assert t.owes_fantasyland(1)
    said = await svc.close(CH, ALICE, False)  # during the pause between hands
    assert "after the fantasyland hand that is owed" in said
    await until(lambda: t.hand is not None)
    assert t.hand is not None and t.row.hand_no == 2 and t.hand.fantasyland[0] == 13
    await finish_by_autoplay(svc)  # the owed fantasyland hand: alice stays
    await until(lambda: t.id not in svc.tables or t.row.hand_no > 2, 3)
    assert t.id not in svc.tables, (
        f"answered {said!r}; after the fantasyland hand it dealt hand #{t.row.hand_no}")
    await svc.shutdown()
    await store.close()


async def test_a_closing_table_whose_deal_failed_does_not_offer_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Closing, waiting for the fantasyland owed, and its deal fails on the database: the
    table message said "/ofc start deals it now", and /ofc start is refused (closing).  It
    says it tries again, and the channel is told the same."""
    monkeypatch.setattr(service_module, "SAVE_RETRY", 3600.0)
    svc, rec, store, t = await heads_up("review-close-dealfail", variant="ofc",
                                        next_hand_delay=0.3)
    _alice_earns_fantasyland(monkeypatch)
    await finish_by_autoplay(svc)
    await until(lambda: t.hand is None)
    said = await svc.close(CH, ALICE, False)
    assert "after the fantasyland hand that is owed" in said

    async def create_hand(*a: Any, **k: Any) -> Any:
        raise RuntimeError("database is locked")

    monkeypatch.setattr(store, "create_hand", create_hand)
    await until(lambda: t.deal_failed)
    assert t.deal_failed and t.row.status == "closing"
    status = table_status(t)
    assert "could not be dealt" in status and "trying again" in status
    assert "/ofc start" not in status
    assert not any("/ofc start" in n for n in _notices(rec) if "could not be dealt" in n)
    with pytest.raises(ServiceError, match="closing"):
        await svc.start(CH, ALICE)
    await svc.shutdown()
    await store.close()
