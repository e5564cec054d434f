"""A review of 9e96072..ce1db61: each test failed on a defect found there, now fixed (a late
sit-in kept through two failed saves; the surrender cost for one opponent left and for a short
stack; close texts at tables without fantasyland; a close waits for a fantasyland both players
earned, and for one owed at a table set closing by an older version)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import bot.service as service_module
import engine.hand as hand_module
from cogs.presenter import table_view

from .test_service import (
    ALICE,
    BOB,
    CAROL,
    CH,
    Clock,
    G,
    finish_by_autoplay,
    heads_up,
    make,
    until,
)
from .test_session_review import _failing_saves, _mover, _ten_second_table


def _earn_fantasyland(monkeypatch: pytest.MonkeyPatch, seats: tuple[int, ...] = (0,)) -> None:
    """Every hand ends with these hand seats earning a 13-card fantasyland."""
    real = hand_module.Hand._finish

    def finish(self: Any) -> None:
        real(self)
        self.fantasyland_next = tuple(13 if i in seats else 0 for i in range(self.n))

    monkeypatch.setattr(hand_module.Hand, "_finish", finish)


# ---------------------------------------------------------------------------- back_late
async def test_late_sitin_whose_save_failed_is_forgotten_by_the_next_failed_save(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`_clock_ran_out`: a failed save of the late sit-in is "kept in memory: only a restart
    before the timeout forgets it".  But `_restore` now reads back_late from the stored state,
    so the timeout's own failed save (`_not_saved` -> `_restore(t.stored)`) forgets it, and
    the retry sits out the player who was told they play on."""
    monkeypatch.setattr(service_module, "SAVE_RETRY", 0.05)
    clock = Clock()
    svc, rec, store, t, hs, user = await _ten_second_table(clock, "late-review-save2")
    # the sit-in's save, then the timeout's first save
    fails = _failing_saves(monkeypatch, svc, 2)
    clock.offset += 11
    said = await svc.sit_out(CH, user, False)
    assert "already run out" in said and "the next ones" in said
    assert t.back_late == {hs: 0}
    svc.rearm()
    await until(lambda: t.hand is not None and any(a.seat == hs for a in t.hand.log))
    await asyncio.sleep(0.3)
    assert not fails
    assert any(a.seat == hs for a in t.hand.log)
    assert not t.seat_of_user(user).sitting_out, f"told {said!r}, then sat out"
    await svc.shutdown()
    await store.close()


# ---------------------------------------------------------------------------- surrender text
async def test_surrender_cost_with_one_opponent_left_of_three() -> None:
    """3 players, alice surrendered: bob is told "each of the 1 opponents who have not
    surrendered"."""
    svc, rec, store = await make(seed_factory=lambda: "late-review-3")
    await svc.new_table(G, CH, ALICE, "alice", variant="chinese", stake=1)
    await svc.join(G, CH, BOB, "bob")
    await svc.join(G, CH, CAROL, "carol")
    await svc.start(CH, ALICE)
    await svc.surrender(CH, ALICE)
    text = svc.surrender_terms(CH, BOB)
    assert "1 opponents" not in text, text
    await svc.shutdown()
    await store.close()


async def test_surrender_cost_overstates_what_a_short_stack_pays() -> None:
    """A player can never lose more than the stack brought (RULES.md): bob (10 units at a 10
    units/pt table) is told he pays 30 units, and pays 10."""
    svc, rec, store = await make(seed_factory=lambda: "late-review-short")
    await svc.new_table(G, CH, ALICE, "alice", variant="chinese", stake=10, buyin=500)
    await svc.join(G, CH, BOB, "bob", buyin=10)
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    said = await svc.surrender(CH, BOB)
    await finish_by_autoplay(svc)
    await until(lambda: t.last_result is not None)
    res = t.last_result
    paid = -res.units[res.user_ids.index(BOB)]
    assert f"{paid} units" in said or f"{paid} unit" in said, (said, paid)
    await svc.shutdown()
    await store.close()


# ---------------------------------------------------------------------------- close texts
@pytest.mark.parametrize("variant,fantasyland", [("chinese", True), ("ofc", False)])
async def test_close_mid_hand_promises_a_fantasyland_where_there_is_none(
    variant: str, fantasyland: bool,
) -> None:
    """Chinese has no fantasyland (`Rules.has_fantasyland`), nor a table with it off; the
    close's answer and the table note still speak of "the fantasyland hand it earns"."""
    svc, rec, store = await make(seed_factory=lambda: "late-review-close-txt")
    await svc.new_table(G, CH, ALICE, "alice", variant=variant, fantasyland=fantasyland)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    said = await svc.close(CH, ALICE, False)
    note = table_view(t).note
    assert "fantasyland" not in said, said
    assert "fantasyland" not in note, note
    await svc.shutdown()
    await store.close()


async def test_close_promising_the_fantasyland_hand_closes_without_it_when_both_earn_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Heads-up, `/ofc close` mid-hand answers that the fantasyland hand it sends someone to is
    played first; the hand sends both players to fantasyland, nobody 'owes' it, and the table
    closes at once without it."""
    _earn_fantasyland(monkeypatch, (0, 1))
    svc, rec, store, t = await heads_up("late-review-both", variant="ofc")
    said = await svc.close(CH, ALICE, False)
    assert "fantasyland hand" in said
    await finish_by_autoplay(svc)
    await until(lambda: t.id not in svc.tables or t.row.hand_no > 1, 3)
    assert t.id in svc.tables and t.row.hand_no == 2, (
        f"answered {said!r}; the table closed after hand #{t.row.hand_no}")
    await svc.shutdown()
    await store.close()


# ---------------------------------------------------------------------------- restart
async def test_a_table_closing_before_the_upgrade_still_deals_the_fantasyland_owed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A table set 'closing' by the previous version (no CLOSE_AFTER in its extra) between
    hands, waiting for the fantasyland owed, is loaded after the upgrade's restart:
    `_closing_deals` is False without CLOSE_AFTER and it closes at once, skipping the
    fantasyland hand its players may not skip (RULES.md)."""
    db = tmp_path / "legacy.sqlite3"
    clock = Clock()
    _earn_fantasyland(monkeypatch, (0,))
    svc, rec, store = await make(db, clock=clock, seed_factory=lambda: "late-review-legacy",
                                 next_hand_delay=3600.0)
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    await finish_by_autoplay(svc)
    await until(lambda: t.hand is None)
    assert t.owes_fantasyland(1)
    # what the previous version's /ofc close wrote here
    await store.update_table(t.id, status="closing", now=clock())
    await svc.shutdown()
    await store.close()

    svc2, rec2, store2 = await make(db, clock=clock, seed_factory=lambda: "late-review-legacy")
    await svc2.recover()
    t2 = svc2.tables.get(t.id)
    await until(lambda: t2 is None or t2.id not in svc2.tables or t2.hand is not None, 3)
    assert t2 is not None and t2.id in svc2.tables and t2.hand is not None, (
        "closed without the fantasyland hand owed")
    await svc2.shutdown()
    await store2.close()


async def test_the_panel_says_who_declared_the_natural() -> None:
    """(The review's last note.)  After a declare the panel says which natural; when the set
    clock declared it, it says so, not "You declared"."""
    svc, rec, store, t = await heads_up("late-review-panel", variant="chinese")
    hs, user = _mover(t)
    t.hand.naturals[hs] = "dragon"  # as the engine's declare leaves it
    t.hand.done[hs] = True
    assert svc.panel_in_channel(CH, user).waiting_for.startswith("You declared dragon")
    t.hand.autoplayed[hs] = 1  # declared by the set clock
    assert svc.panel_in_channel(CH, user).waiting_for.startswith(
        "Your clock ran out: the bot declared dragon")
    await svc.shutdown()
    await store.close()
