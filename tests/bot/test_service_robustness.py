"""The table service when Discord or the database misbehave, and the leave / fantasyland-owed
paths (found in review): play never stops, units never get stuck, nothing is misreported."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

import bot.service as service_module
from bot.service import ServiceError, TableService
from bot.store import Store
from cogs.presenter import table_status, table_view
from engine import parse_cards
from engine.autoplay import choose_placement
from engine.notation import format_move

from ..stubborn import ignores_cancellation, loses_one_cancellation, release_and_stop
from .test_service import (
    ALICE,
    BOB,
    CAROL,
    CH,
    Clock,
    G,
    Recorder,
    finish_by_autoplay,
    make,
    until,
)
from .test_store import count


class Failing:
    """Stands in for a store method: after ``after`` calls that work, the next ``times`` calls
    (all of them with None) raise a database error, the next ones do what ``real`` does;
    ``failures`` and ``passed`` count."""

    def __init__(self, real: Any = None, times: int | None = None, after: int = 0) -> None:
        self.real, self.times, self.after = real, times, after
        self.failures = self.passed = 0

    async def __call__(self, *args: Any, **kw: Any) -> Any:
        if self.passed >= self.after and (self.times is None or self.failures < self.times):
            self.failures += 1
            raise sqlite3.OperationalError("database is locked")
        self.passed += 1
        return await self.real(*args, **kw)


def failing_closes(monkeypatch: pytest.MonkeyPatch, store: Store,
                   times: int | None = None) -> Failing:
    """Closing a table (``update_table(status="closed")``) fails ``times`` times (None: every
    time); the store's other writes work."""
    closes = Failing(store.update_table, times=times)
    real_update = store.update_table

    async def update_table(*args: Any, **kw: Any) -> Any:
        return await (closes if kw.get("status") == "closed" else real_update)(*args, **kw)

    monkeypatch.setattr(store, "update_table", update_table)
    return closes


async def left_with_a_bot(db: Path, monkeypatch: pytest.MonkeyPatch, seed: str) -> int:
    """A table that never started, alice and a bot at it; alice leaves and closing it fails
    (its retry waits an hour); the bot stops.  The table's id."""
    monkeypatch.setattr(service_module, "SAVE_RETRY", 3600.0)
    svc, rec, store = await make(db, seed_factory=lambda: seed)
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.add_bot(CH, ALICE, "easy")
    t = svc.table_in_channel(CH)
    failing_closes(monkeypatch, store)
    assert "You left the table" in await svc.leave(CH, ALICE)
    assert t.id in svc.tables and not t.humans
    await svc.shutdown()
    await store.close()
    return t.id


async def _seated_pair(svc: TableService, variant: str = "ofc") -> None:
    await svc.new_table(G, CH, ALICE, "alice", variant=variant)
    await svc.join(G, CH, BOB, "bob")


def _a_move_text(svc: TableService) -> tuple[int, str]:
    """The user to act now and a legal ``/ofc place`` text for them."""
    t = svc.table_in_channel(CH)
    assert t.hand is not None
    hs = t.hand.to_act()[0]
    req = t.hand.requirement(hs)
    assert req is not None
    placed, dropped = choose_placement(t.hand, hs, req)
    seat = t.seat_by_no(t.hand_seats[hs])
    assert seat is not None
    return seat.user_id, format_move(placed, dropped)


async def test_a_showdown_message_that_fails_does_not_stop_the_table() -> None:
    class NoAttachments(Recorder):
        async def showdown(self, t: Any, result: Any) -> None:
            raise RuntimeError("403 Forbidden: Missing Permissions")

    store = await Store.open(":memory:")
    svc = TableService(store, NoAttachments(), next_hand_delay=0.01, seed_factory=lambda: "r1")
    await _seated_pair(svc)
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    await finish_by_autoplay(svc)
    await until(lambda: t.hand is not None)
    assert t.hand is not None and t.row.hand_no == 2  # the next hand was dealt
    await svc.shutdown()
    await store.close()


async def test_a_late_turn_ping_says_what_was_asked_when_the_turn_moved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ping sent late (a rate-limited channel) describes the step that started the turn, not
    whatever the table asks by the time it is sent."""
    monkeypatch.setattr(service_module, "NOTIFY_WAIT", 0.05)
    pings: list[tuple[list[int], Any]] = []

    class Late(Recorder):
        async def turn_started(self, t: Any, seats: list[int], requirement: Any) -> None:
            await asyncio.sleep(0.4)
            pings.append((seats, requirement))

    store = await Store.open(":memory:")
    svc = TableService(store, Late(), seed_factory=lambda: "r2")
    await _seated_pair(svc, "pineapple")
    await svc.start(CH, ALICE)
    user, text = _a_move_text(svc)
    await svc.place_text(CH, user, text)
    t = svc.table_in_channel(CH)
    assert t.hand is not None
    second = t.hand.to_act()[0]
    asked = t.hand.requirement(second)
    assert asked is not None and asked.place == 5
    user, text = _a_move_text(svc)
    await svc.place_text(CH, user, text)  # the table moves on before that ping is sent
    assert t.hand.requirement(second) is None
    await until(lambda: len(pings) >= 3)
    late = [req for seats, req in pings if seats == [t.hand_seats[second]]]
    assert late == [asked]
    await svc.shutdown()
    await store.close()


async def test_slow_or_failing_turn_messages_never_delay_or_misreport_a_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(service_module, "NOTIFY_WAIT", 0.2)

    class RateLimited(Recorder):
        async def turn_started(self, t: Any, seats: list[int], requirement: Any) -> None:
            await asyncio.sleep(3.5)  # a 429 with retry_after 3.5 s

    store = await Store.open(":memory:")
    svc = TableService(store, RateLimited(), seed_factory=lambda: "r2")
    await _seated_pair(svc)
    await svc.start(CH, ALICE)
    user, text = _a_move_text(svc)
    began = time.perf_counter()
    await svc.place_text(CH, user, text)
    assert time.perf_counter() - began < 1.0  # the command answers; the ping goes on
    t = svc.table_in_channel(CH)
    assert t.hand is not None and len(t.hand.log) == 1
    await svc.shutdown()
    await store.close()

    class Broken(Recorder):
        async def turn_started(self, t: Any, seats: list[int], requirement: Any) -> None:
            raise RuntimeError("500 Internal Server Error")

    store = await Store.open(":memory:")
    svc = TableService(store, Broken(), seed_factory=lambda: "r2")
    await _seated_pair(svc)
    await svc.start(CH, ALICE)
    user, text = _a_move_text(svc)
    await svc.place_text(CH, user, text)  # no error: the move was applied and saved
    t = svc.table_in_channel(CH)
    assert t.hand is not None and len(t.hand.log) == 1
    assert t.hand_row is not None
    stored = await store.get_hand(t.hand_row.id)
    assert stored is not None and len(stored.log) == 1
    await svc.shutdown()
    await store.close()


async def test_a_settlement_that_fails_to_write_is_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service_module, "SETTLE_RETRY", 0.01)
    svc, rec, store = await make(seed_factory=lambda: "r3")
    await _seated_pair(svc)
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    flaky = Failing(store.finish_hand, times=1)
    monkeypatch.setattr(store, "finish_hand", flaky)
    hand_id = t.hand_row.id if t.hand_row else 0
    await finish_by_autoplay(svc)
    for _ in range(200):
        done = await store.get_hand(hand_id)
        if done is not None and done.status == "done" and t.hand is not None:
            break
        await asyncio.sleep(0.01)
    assert flaky.failures + flaky.passed == 2
    done = await store.get_hand(hand_id)
    assert done is not None and done.status == "done"
    assert t.hand is not None and t.row.hand_no == 2  # play went on
    assert await store.verify_ledger() == []
    await svc.shutdown()
    await store.close()


async def test_settlement_writes_the_next_button_and_fantasyland_with_the_units() -> None:
    svc, rec, store = await make(seed_factory=lambda: "r4")
    await _seated_pair(svc)
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None
    await finish_by_autoplay(svc)
    await svc.shutdown()  # no next hand: look at what the settlement left
    row = await store.get_table(t.id)
    assert row is not None
    result = t.last_result
    assert result is not None
    expected = {str(t.hand_seats[i]): c for i, c in enumerate(result.fantasyland_next) if c}
    assert row.extra["fantasyland"] == expected
    await store.close()


async def test_a_seated_player_outside_the_hand_can_leave_at_once() -> None:
    svc, rec, store = await make(seed_factory=lambda: "r5")
    await _seated_pair(svc)
    await svc.start(CH, ALICE)
    await svc.join(G, CH, CAROL, "carol", buyin=80)  # joins mid-hand: not dealt in
    before = await store.balance(G, CAROL)
    text = await svc.leave(CH, CAROL)
    assert "You left the table; 80 units" in text
    assert await store.balance(G, CAROL) == before + 80
    assert svc.table_in_channel(CH).seat_of_user(CAROL) is None
    await svc.shutdown()
    await store.close()


async def _owed(svc: TableService, store: Store, pending: dict[str, int]) -> Any:
    t = svc.table_in_channel(CH)
    await store.update_table(
        t.id, extra={"fantasyland": pending, "fantasyland_owed_by": [0, 1]}
    )
    await svc._refresh(t)
    return t


async def test_when_the_fantasyland_player_leaves_the_others_are_free_to_go() -> None:
    svc, rec, store = await make(seed_factory=lambda: "r6")
    await _seated_pair(svc, "pineapple")
    t = await _owed(svc, store, {"0": 14})  # alice earned it with bob
    assert "after the fantasyland hand" in await svc.leave(CH, BOB)
    bob_before = await store.balance(G, BOB)
    await svc.leave(CH, ALICE)  # alice forfeits her fantasyland: bob is not held any more
    assert t.seat_of_user(BOB) is None
    assert await store.balance(G, BOB) > bob_before
    await svc.shutdown()
    await store.close()


async def test_a_restart_sends_an_unset_fantasyland_hand_and_the_turn_again(
    tmp_path: Any,
) -> None:
    """A hand dealt just before the bot stopped: its fantasyland DM and turn ping may never
    have gone out.  At the restart the fantasyland hand not set yet is sent again and the
    player to act is pinged again; a fantasyland already set is not sent twice."""
    db = tmp_path / "news.sqlite3"
    svc, rec, store = await make(db, seed_factory=lambda: "r14")
    await _seated_pair(svc, "pineapple")
    await _owed(svc, store, {"0": 14})
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None and tuple(t.hand.fantasyland) == (14, 0)
    assert ("fantasyland", 0) in rec.events and ("turn", [1]) in rec.events
    await svc.shutdown()
    await store.close()

    svc2, rec2, store2 = await make(db)
    await svc2.recover()
    await until(lambda: ("turn", [1]) in rec2.events)  # sent in the background
    assert ("fantasyland", 0) in rec2.events and ("turn", [1]) in rec2.events
    assert any("play resumes" in str(text) for kind, text in rec2.events if kind == "notice")
    t2 = svc2.table_in_channel(CH)
    async with t2.lock:  # alice sets her fantasyland hand
        assert t2.hand is not None
        t2.hand.autoplay(0)
        await svc2._after_action(t2)
    await svc2.shutdown()
    await store2.close()

    svc3, rec3, store3 = await make(db)
    await svc3.recover()
    await until(lambda: ("turn", [1]) in rec3.events)
    assert ("turn", [1]) in rec3.events
    assert not any(kind == "fantasyland" for kind, _ in rec3.events)
    await svc3.shutdown()
    await store3.close()


async def test_a_restart_does_not_ping_a_player_whose_clock_ran_out() -> None:
    """Their timeout plays for them at once: no ping, no fantasyland hand sent, for a turn
    that is no longer theirs to take."""
    svc, rec, store = await make(seed_factory=lambda: "r15")
    await _seated_pair(svc, "pineapple")
    await _owed(svc, store, {"0": 14})
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    fantasyland, (ping, requirement) = svc._news(t, still_on_time=True)
    assert fantasyland == [0] and ping == [1] and requirement is not None
    t.deadlines = {hs: svc.clock() - 1 for hs in t.deadlines}
    assert svc._news(t, still_on_time=True) == ([], ([], None))
    assert svc._news(t)[0] == [0]  # (a new deal never filters)
    await svc.shutdown()
    await store.close()


async def test_only_start_deals_a_tables_first_hand(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table nobody was left at before its first hand is closed at a restart; while that
    close is retried a player sits down: the retry does not deal him a hand (``/ofc start``
    deals the first one)."""
    table_id = await left_with_a_bot(tmp_path / "first.sqlite3", monkeypatch, "r16")
    monkeypatch.setattr(service_module, "SAVE_RETRY", 0.3)
    svc, rec, store = await make(tmp_path / "first.sqlite3")
    closes = failing_closes(monkeypatch, store, times=1)
    await svc.recover()
    await until(lambda: closes.failures == 1)
    await svc.join(G, CH, BOB, "bob")  # before the retry
    t = svc.tables[table_id]
    await asyncio.sleep(0.6)  # the retry ran: bob is there, so it does not close either
    assert t.hand is None and t.row.hand_no == 0 and t.row.status == "open"
    await svc.start(CH, BOB)
    assert t.hand is not None and t.row.hand_no == 1
    await svc.shutdown()
    await store.close()


async def test_a_newcomer_does_not_owe_a_fantasyland_and_a_seat_does_not_inherit_one() -> None:
    svc, rec, store = await make(seed_factory=lambda: "r7")
    await _seated_pair(svc, "pineapple")
    t = await _owed(svc, store, {"1": 15})  # bob earned a 15-card fantasyland with alice
    await svc.join(G, CH, CAROL, "carol")
    assert "You left the table" in await svc.leave(CH, CAROL)  # carol was not in that hand
    assert "You left the table" in await svc.leave(CH, BOB)  # bob forfeits his fantasyland
    assert t.fantasyland_pending == {}
    await svc.join(G, CH, CAROL, "carol")  # takes bob's old seat
    assert t.seat_of_user(CAROL) is not None and t.seat_of_user(CAROL).seat_no == 1
    await svc.start(CH, ALICE)
    assert t.hand is not None and t.hand.fantasyland == (0, 0)
    await svc.shutdown()
    await store.close()


async def test_no_bot_joins_a_closing_table() -> None:
    svc, rec, store = await make(seed_factory=lambda: "r8")
    await _seated_pair(svc)
    await svc.start(CH, ALICE)
    await svc.close(CH, ALICE, manage_guild=False)
    with pytest.raises(ServiceError, match="closing: no new seats"):
        await svc.add_bot(CH, ALICE, "easy")
    await svc.shutdown()
    await store.close()


async def _play_humans_until_settled(svc: TableService) -> None:
    """The humans play by autoplay, bots by themselves, until the hand is settled."""
    t = svc.table_in_channel(CH)
    for _ in range(3000):
        if t.last_result is not None:
            return
        async with t.lock:
            hand = t.hand
            if hand is not None and not hand.is_over:
                for hs in hand.to_act():
                    seat = t.seat_by_no(t.hand_seats[hs])
                    if seat is not None and not seat.is_bot:
                        hand.autoplay(hs)
                        await svc._after_action(t)
                        break
        await asyncio.sleep(0.01)


async def test_a_practice_hand_stays_practice_when_a_second_human_joins_mid_hand() -> None:
    svc, rec, store = await make(seed_factory=lambda: "r9")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.add_bot(CH, ALICE, "easy")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand_practice
    await svc.join(G, CH, BOB, "bob")  # the table is no longer practice from the next hand
    await _play_humans_until_settled(svc)
    result = t.last_result
    assert result is not None and result.practice and result.units is None
    assert await store.leaderboard(G) == []
    await svc.shutdown()
    await store.close()


async def test_a_hand_over_but_not_settled_is_settled_after_a_restart(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service_module, "SETTLE_RETRY", 3600.0)  # the process dies first
    db = tmp_path / "restart.sqlite3"
    svc, rec, store = await make(db, seed_factory=lambda: "r10")
    await _seated_pair(svc)
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    hand_id = t.hand_row.id if t.hand_row else 0

    async def down(*args: Any, **kw: Any) -> Any:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(store, "finish_hand", down)
    await finish_by_autoplay(svc)
    final_log = [a.to_json() for a in t.hand.log] if t.hand else []
    await svc.shutdown()
    await store.close()

    svc2, rec2, store2 = await make(db, seed_factory=lambda: "r10b")
    await svc2.recover()
    done = await store2.get_hand(hand_id)
    assert done is not None and done.status == "done"
    assert done.log == final_log  # the last action was kept
    assert await store2.verify_ledger() == []
    await svc2.shutdown()
    await store2.close()


async def test_a_closing_table_whose_close_fails_at_a_restart_is_closed_on_a_retry(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``/ofc close`` during a hand, then the bot stops before the table closes after it: at
    the next start a database error while closing it is tried again (it used to be logged and
    never retried: the table stayed 'closing', its stacks held, ``/ofc start`` and ``/ofc
    join`` refused).  Until it is closed nobody can deal a hand there."""
    monkeypatch.setattr(service_module, "SAVE_RETRY", 0.05)
    db = tmp_path / "closing.sqlite3"
    svc, rec, store = await make(db, seed_factory=lambda: "r12", next_hand_delay=3600.0)
    await _seated_pair(svc)
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    await svc.close(CH, ALICE, False)  # after this hand
    await finish_by_autoplay(svc)
    await until(lambda: t.hand is None)
    assert t.hand is None and t.row.status == "closing"
    units = sum([await store.balance(G, u) for u in (ALICE, BOB)] + [s.stack for s in t.seats])
    await svc.shutdown()  # stopped during the wait before the next deal
    await store.close()

    svc2, rec2, store2 = await make(db)
    closes = failing_closes(monkeypatch, store2, times=1)
    monkeypatch.setattr(service_module, "SAVE_RETRY", 3600.0)  # hold the retry: a window
    await svc2.recover()
    await until(lambda: closes.failures == 1)
    assert closes.failures == 1 and svc2.tables[t.id].row.status == "closing"
    with pytest.raises(ServiceError, match="closing"):
        await svc2.start(CH, ALICE)
    with pytest.raises(ServiceError, match="closing"):
        await svc2.join(G, CH, CAROL, "carol")
    await svc2.shutdown()
    await store2.close()

    svc3, rec3, store3 = await make(db)  # a third start: the close fails once, then works
    closes = failing_closes(monkeypatch, store3, times=1)
    monkeypatch.setattr(service_module, "SAVE_RETRY", 0.05)
    await svc3.recover()
    await until(lambda: svc3.tables == {} and any(  # (the notice comes just after the close)
        kind == "notice" and "table is closed" in text for kind, text in rec3.events))
    assert closes.failures == 1 and closes.passed == 1
    row = await store3.get_table(t.id)
    assert row is not None and row.status == "closed"
    assert await store3.seats(t.id) == [] and await store3.verify_ledger() == []
    assert await store3.balance(G, ALICE) + await store3.balance(G, BOB) == units
    notices = [text for kind, text in rec3.events if kind == "notice"]
    assert notices and "table is closed" in notices[-1]
    await svc3.shutdown()
    await store3.close()


async def test_a_table_nobody_is_left_at_is_closed_at_a_restart(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last human left a table that never started and closing it failed (tried again
    while the bot runs); the bot stopped first: the next start closes it, and gives the bot's
    seat up, instead of keeping a table nobody can play at."""
    db = tmp_path / "empty.sqlite3"
    table_id = await left_with_a_bot(db, monkeypatch, "r13")
    store = await Store.open(db)
    units = await store.balance(G, ALICE)
    await store.close()
    svc2, rec2, store2 = await make(db)
    await svc2.recover()
    await until(lambda: svc2.tables == {})
    row = await store2.get_table(table_id)
    assert row is not None and row.status == "closed" and svc2.tables == {}
    assert await store2.balance(G, ALICE) == units
    assert await store2.verify_ledger() == []
    await svc2.shutdown()
    await store2.close()


async def test_nobody_owes_a_fantasyland_its_player_cannot_play() -> None:
    svc, rec, store = await make(seed_factory=lambda: "r11")
    await _seated_pair(svc, "pineapple")
    t = await _owed(svc, store, {"0": 14})
    await svc.sit_out(CH, ALICE, True)  # e.g. she timed out on her last street
    assert "You left the table" in await svc.leave(CH, BOB)
    assert t.seat_of_user(BOB) is None
    await svc.shutdown()
    await store.close()


async def test_leavers_are_released_whatever_their_seat_order() -> None:
    svc, rec, store = await make(seed_factory=lambda: "r12")
    await _seated_pair(svc, "pineapple")
    t = await _owed(svc, store, {"1": 14})  # bob (seat 1) earned it; alice (seat 0) owes it
    for seat_no in (0, 1):  # both asked to leave during that hand
        await store.update_seat(t.id, seat_no, leaving=True)
    await svc._refresh(t)
    await svc._next_hand_later(t, 0.0)
    assert t.seats == []  # bob's leaving forfeits his fantasyland, so alice goes too
    assert await store.balance(G, ALICE) == await store.balance(G, BOB)  # both cashed out
    await svc.shutdown()
    await store.close()


async def _a_hand_that_cannot_be_settled(
    monkeypatch: pytest.MonkeyPatch, seed: str
) -> tuple[TableService, Recorder, Store, Any, int, Any, list[int]]:
    """A heads-up hand dealt whose settlement the store always refuses: (service, recorder,
    store, table, the hand's id, the real ``finish_hand``, the refused calls (one number))."""
    monkeypatch.setattr(service_module, "SETTLE_RETRY", 0.01)
    svc, rec, store = await make(seed_factory=lambda: seed)
    await _seated_pair(svc)
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    first = t.hand_row.id if t.hand_row else 0
    real = store.finish_hand
    calls = [0]

    async def refuses(*args: Any, **kw: Any) -> Any:
        calls[0] += 1
        raise ValueError("movements sum to 1, not 0")

    monkeypatch.setattr(store, "finish_hand", refuses)
    return svc, rec, store, t, first, real, calls


async def test_a_hand_that_can_never_be_settled_is_voided_and_play_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    svc, rec, store, t, first, real, calls = await _a_hand_that_cannot_be_settled(
        monkeypatch, "r13")
    await finish_by_autoplay(svc)
    await until(lambda: t.hand is not None and t.row.hand_no == 2)
    assert calls == [service_module.SETTLE_ATTEMPTS]
    voided = await store.get_hand(first)
    assert voided is not None and voided.status == "aborted"
    assert any(kind == "notice" and "voided" in text for kind, text in rec.events)
    assert t.hand is not None and t.row.hand_no == 2  # the next hand was dealt
    monkeypatch.setattr(store, "finish_hand", real)
    assert await store.verify_ledger() == []
    await svc.shutdown()
    await store.close()


async def test_a_void_that_fails_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The void's own write failing once (the database busy) must not leave the finished hand
    in memory with nothing to move it on (until a restart): it is tried again."""
    svc, rec, store, t, first, real, _ = await _a_hand_that_cannot_be_settled(
        monkeypatch, "r13v")
    aborts = Failing(store.abort_hand, times=1)
    monkeypatch.setattr(store, "abort_hand", aborts)
    try:
        await finish_by_autoplay(svc)
        await until(lambda: t.hand is not None and t.row.hand_no == 2)
        assert aborts.failures == 1 and aborts.passed == 1
        voided = await store.get_hand(first)
        assert voided is not None and voided.status == "aborted"
        assert sum("voided" in text for kind, text in rec.events if kind == "notice") == 1
        monkeypatch.setattr(store, "finish_hand", real)
        assert await store.verify_ledger() == []
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_fantasyland_waits_for_its_player_sitting_out() -> None:
    """Sat out (say, after a timeout on the street that earned it), a fantasyland is not lost to
    the hands dealt without its player: it is dealt when they sit in again."""
    svc, rec, store = await make(seed_factory=lambda: "r14")
    await _seated_pair(svc, "pineapple")
    await svc.join(G, CH, CAROL, "carol")
    t = await _owed(svc, store, {"0": 14})  # alice earned it
    text = await svc.sit_out(CH, ALICE, True)
    assert "Your fantasyland (14 cards) waits for you" in text
    svc.next_hand_delay = 3600.0  # the test deals the next hand itself
    await svc.start(CH, BOB)
    assert t.hand is not None and t.hand.n == 2 and t.hand.fantasyland == (0, 0)
    row = await store.get_table(t.id)
    assert row is not None and row.extra["fantasyland"] == {"0": 14}
    assert row.extra["fantasyland_owed_by"] == []  # nobody is held for it
    await finish_by_autoplay(svc)
    row = await store.get_table(t.id)
    assert row is not None and row.extra["fantasyland"].get("0") == 14  # survives settlement
    assert "your next hand is your fantasyland (14 cards)" in await svc.sit_out(CH, ALICE, False)
    await until(lambda: t.hand is None)
    await svc._next_hand_later(t, 0.0)
    assert t.hand is not None and t.hand.n == 3
    assert t.hand.fantasyland[t.hand_seat_of(0)] == 14
    row = await store.get_table(t.id)
    assert row is not None and "0" not in row.extra["fantasyland"]  # spent
    await svc.shutdown()
    await store.close()


async def test_a_deal_that_fails_after_the_pause_between_hands_is_retried_soon(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first retry of a failed deal waits ``SAVE_RETRY`` (then twice as long...), not twice
    the pause between hands it came after (README: 2 s, doubling up to 60 s)."""
    monkeypatch.setattr(service_module, "SAVE_RETRY", 0.05)
    svc, rec, store = await make(seed_factory=lambda: "r15b")
    await _seated_pair(svc)
    svc.next_hand_delay = 3600.0  # the test deals the next hand itself
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    await finish_by_autoplay(svc)
    await until(lambda: t.hand is None)
    monkeypatch.setattr(store, "create_hand", Failing(store.create_hand, times=1))
    deal = svc._next_hand_later
    retries: list[tuple[float, bool]] = []

    async def retry(t: Any, delay: float, retry: bool = False) -> None:
        retries.append((delay, retry))

    monkeypatch.setattr(svc, "_next_hand_later", retry)
    await deal(t, 0.3)  # after a showdown, with a pause of 0.3 s
    await until(lambda: any(again for _, again in retries))
    assert [r for r in retries if r[1]] == [(0.05, True)]  # not 2 x 0.3
    await svc.shutdown()
    await store.close()


async def test_the_button_passes_a_seat_sitting_out() -> None:
    svc, rec, store = await make(seed_factory=lambda: "r15")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", fantasyland=False)
    await svc.join(G, CH, BOB, "bob")  # seat 1
    await svc.join(G, CH, CAROL, "carol")  # seat 2
    await svc.sit_out(CH, BOB, True)
    svc.next_hand_delay = 3600.0  # the test deals each hand itself
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    buttons = []
    for _ in range(3):
        assert t.hand is not None and t.hand_seats == [0, 2]
        buttons.append(t.hand_seats[t.hand.button])
        await finish_by_autoplay(svc)
        await until(lambda: t.hand is None)
        await svc._next_hand_later(t, 0.0)
    assert buttons == [0, 2, 0]  # the button alternates between the two players dealt in
    await svc.shutdown()
    await store.close()


async def test_sitting_out_does_not_free_a_player_from_a_fantasyland_owed() -> None:
    """Heads-up, bob played the hand that earned alice a fantasyland.  Sitting out used to free
    him (he was never dealt while sitting out): `/ofc sitout` then `/ofc leave` cashed him out
    at once and alice's fantasyland was never played.  Players of that hand "are not allowed to
    quit or skip the Fantasyland hand" (seeds/004): he is dealt into it sitting out or not (a
    timeout sits a player out, so an absent one is played by the clock), then goes."""
    svc, rec, store = await make(seed_factory=lambda: "r16")
    await _seated_pair(svc, "pineapple")
    t = await _owed(svc, store, {"0": 14})
    said = await svc.sit_out(CH, BOB, True)
    assert "after the coming fantasyland hand" in said
    assert "after the fantasyland hand you helped earn" in await svc.leave(CH, BOB)
    assert t.seat_of_user(BOB) is not None and t.owes_fantasyland(1)
    await svc.start(CH, ALICE)
    assert t.hand is not None and t.hand_seats == [0, 1] and t.hand.fantasyland == (14, 0)
    await finish_by_autoplay(svc)
    await until(lambda: t.seat_of_user(BOB) is None)  # gone after it, as asked
    await svc.shutdown()
    await store.close()


async def test_only_the_fantasylands_of_the_hand_played_bind_its_players() -> None:
    svc, rec, store = await make(seed_factory=lambda: "r17")
    await _seated_pair(svc, "pineapple")
    await svc.join(G, CH, CAROL, "carol")
    t = svc.table_in_channel(CH)
    # alice's fantasyland is carried (she sat out); bob and carol played a hand in which carol
    # earned one: what the settlement writes
    await store.update_table(t.id, extra={"fantasyland": {"0": 14, "2": 14},
                                          "fantasyland_owed_by": [1, 2]})
    await svc._refresh(t)
    assert t.owes_fantasyland(1)  # bob owes carol's
    assert "You left the table" in await svc.leave(CH, CAROL)  # carol forfeits hers
    assert t.row.extra["fantasyland_owed_by"] == [1]
    assert not t.owes_fantasyland(1)  # bob never played the hand that earned alice's
    assert "You left the table" in await svc.leave(CH, BOB)
    await svc.shutdown()
    await store.close()


async def test_bots_never_play_each_other_alone() -> None:
    svc, rec, store = await make(seed_factory=lambda: "r18")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", bots=2, bot_level="easy")
    svc.next_hand_delay = 3600.0
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    await svc.sit_out(CH, ALICE, True)  # or her clock ran out
    await _play_humans_until_settled(svc)
    await until(lambda: t.hand is None)
    await svc._next_hand_later(t, 0.0)
    assert t.hand is None and t.waiting and t.row.hand_no == 1
    with pytest.raises(ServiceError, match="Waiting for a human: bots do not play each other alone"):
        await svc.start(CH, ALICE)
    await svc.sit_out(CH, ALICE, False)  # back: the next hand is dealt
    await until(lambda: t.hand is not None)
    assert t.hand is not None and t.row.hand_no == 2 and t.hand.n == 3
    await svc.shutdown()
    await store.close()


async def test_practice_is_decided_by_the_players_dealt_in() -> None:
    """Alice against a bot, with bob seated but sitting out: practice (nothing counts)."""
    svc, rec, store = await make(seed_factory=lambda: "r19")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.add_bot(CH, ALICE, "easy")
    await svc.join(G, CH, BOB, "bob")
    await svc.sit_out(CH, BOB, True)
    svc.next_hand_delay = 3600.0
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None and t.hand.n == 2 and t.hand_practice
    await _play_humans_until_settled(svc)
    assert t.last_result is not None and t.last_result.practice
    assert await store.leaderboard(G, "points") == []
    await svc.shutdown()
    await store.close()


async def test_a_hand_that_cannot_be_loaded_is_voided_and_the_other_tables_resume(
    tmp_path: Any,
) -> None:
    db = tmp_path / "broken.sqlite3"
    svc, rec, store = await make(db, seed_factory=lambda: "r20")
    await svc.new_table(G, CH, ALICE, "alice")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)  # table 1: mid-hand, fine
    await svc.new_table(G, CH + 1, CAROL, "carol")
    await svc.join(G, CH + 1, BOB + 10, "dave")
    await svc.start(CH + 1, CAROL)  # table 2: mid-hand, its stored hand breaks
    broken = svc.table_in_channel(CH + 1)
    assert broken.hand_row is not None
    broken_hand = broken.hand_row.id
    await svc.shutdown()
    await store.save_hand_state(broken_hand, {"engine": {"bogus": 1}, "seats": [0, 1]}, [], None)
    await store.close()

    svc2, rec2, store2 = await make(db, seed_factory=lambda: "r20b")
    resumed = await svc2.recover()
    assert len(resumed) == 2
    assert svc2.table_in_channel(CH).hand is not None  # table 1 plays on
    t2 = svc2.table_in_channel(CH + 1)
    voided = await store2.get_hand(broken_hand)
    assert voided is not None and voided.status == "aborted"
    assert any(kind == "notice" and "could not be restored and was voided" in text
               for kind, text in rec2.events)
    await until(lambda: t2.hand is not None)  # and the next hand is dealt there
    assert t2.hand is not None and t2.row.hand_no == 2
    assert await store2.verify_ledger() == []
    await svc2.shutdown()
    await store2.close()


async def test_a_voided_hand_gives_its_fantasyland_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service_module, "SETTLE_RETRY", 0.01)
    svc, rec, store = await make(seed_factory=lambda: "r21")
    await _seated_pair(svc, "pineapple")
    await _owed(svc, store, {"0": 14})
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None and t.hand.fantasyland[t.hand_seat_of(0)] == 14

    async def refuses(*args: Any, **kw: Any) -> Any:
        raise ValueError("movements sum to 1, not 0")

    monkeypatch.setattr(store, "finish_hand", refuses)
    await finish_by_autoplay(svc)
    await until(lambda: t.hand is not None and t.row.hand_no == 2)
    assert t.hand is not None and t.hand.fantasyland[t.hand_seat_of(0)] == 14  # dealt again
    await svc.shutdown()
    await store.close()


async def test_a_move_that_cannot_be_saved_is_not_played(monkeypatch: pytest.MonkeyPatch) -> None:
    svc, rec, store = await make(seed_factory=lambda: "r22")
    await _seated_pair(svc)
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None
    before = t.hand.to_json()
    user, text = _a_move_text(svc)
    real = store.save_hand_state
    monkeypatch.setattr(store, "save_hand_state", Failing())
    with pytest.raises(ServiceError, match="could not be saved"):
        await svc.place_text(CH, user, text)
    assert t.hand.to_json() == before  # memory is what the store has
    monkeypatch.setattr(store, "save_hand_state", real)
    assert "Placed" in (await svc.place_text(CH, user, text)).text  # the same move, now saved
    hand_row = await store.get_hand(t.hand_row.id if t.hand_row else 0)
    assert hand_row is not None and len(hand_row.log) == 1
    await svc.shutdown()
    await store.close()


async def test_a_timeout_that_cannot_be_saved_is_played_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(service_module, "SAVE_RETRY", 0.05)
    clock = Clock()
    svc, rec, store = await make(clock=clock, seed_factory=lambda: "r23")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", timer=10)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None
    first = t.hand.turn
    assert first is not None
    flaky = Failing(store.save_hand_state, times=2)
    monkeypatch.setattr(store, "save_hand_state", flaky)
    clock.offset += 60
    svc.rearm()
    # (``passed`` counts a call as it starts: the save is done when the failures reset)
    await until(lambda: flaky.passed > 0 and t.save_failures == 0)
    assert flaky.failures == 2 and t.hand is not None and t.hand.autoplayed[first] == 1
    hand_row = await store.get_hand(t.hand_row.id if t.hand_row else 0)
    assert hand_row is not None and len(hand_row.log) == len(t.hand.log) >= 1  # saved
    await svc.shutdown()
    await store.close()


async def test_sitting_in_takes_a_leave_request_back_and_messages_say_where_you_are() -> None:
    svc, rec, store = await make(seed_factory=lambda: "r24")
    await _seated_pair(svc)
    await svc.join(G, CH, CAROL, "carol")
    await svc.sit_out(CH, CAROL, True)
    svc.next_hand_delay = 3600.0
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    with pytest.raises(ServiceError, match="you sit out until `/ofc sitin`"):
        await svc.place_text(CH, CAROL, "Ah top")
    assert "after this hand" in await svc.leave(CH, BOB)
    text = await svc.sit_out(CH, BOB, False)
    assert text.startswith("Welcome back: you stay at the table, and you play this hand and "
                           "the next ones.")  # (in the hand being played: not "from the next")
    # the channel, told bob would leave, is told he stays (naming him without a ping)
    assert ("notice", f"🪑 <@{BOB}> stays at the table after all.") in rec.events
    assert rec.pings[[e for e in rec.events if e[0] == "notice"].index(
        ("notice", f"🪑 <@{BOB}> stays at the table after all."))] is False
    await finish_by_autoplay(svc)
    await until(lambda: t.hand is None)
    assert t.seat_of_user(BOB) is not None  # still seated after the hand
    assert "You left the table" in await svc.leave(CH, CAROL)
    with pytest.raises(ServiceError, match="not seated at this table any more"):
        svc.panel(t.id, CAROL, 2)
    await svc.shutdown()
    await store.close()


async def test_points_against_bots_rank_nothing() -> None:
    """Alice, bob and a bot: the leaderboards count only the points between alice and bob."""
    svc, rec, store = await make(seed_factory=lambda: "r25")
    await _seated_pair(svc)
    await svc.add_bot(CH, ALICE, "easy")
    svc.next_hand_delay = 3600.0
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None and t.hand.n == 3 and not t.hand_practice
    seats = list(t.hand_seats)
    await _play_humans_until_settled(svc)
    result = t.last_result
    assert result is not None
    matrix = result.settlement.matrix()
    a, b = seats.index(0), seats.index(1)
    assert result.settlement.totals[a] != matrix[a][b]  # this deal: alice won or lost vs the bot
    board = {e.user_id: e.points for e in await store.leaderboard(G, "points")}
    assert board == {ALICE: matrix[a][b], BOB: matrix[b][a]}
    assert (await store.player_stats(G, ALICE)).points == matrix[a][b]
    (_, results), = await store.history(t.id, 1)
    mine = next(r for r in results if r.user_id == ALICE)
    assert mine.points == result.settlement.totals[a] and mine.ranked_points == matrix[a][b]
    await svc.shutdown()
    await store.close()


async def test_the_turn_coming_back_to_the_same_player_pings_them() -> None:
    """Heads-up against a fantasyland, the regular player acts on every street in a row: each
    new street is a new turn and is announced."""
    svc, rec, store = await make(seed_factory=lambda: "r26")
    await _seated_pair(svc)
    t = await _owed(svc, store, {"1": 13})  # bob plays his fantasyland
    svc.next_hand_delay = 3600.0
    await svc.start(CH, ALICE)
    assert t.hand is not None and t.hand.fantasyland[t.hand_seat_of(1)] == 13
    await asyncio.sleep(0.05)
    rec.events.clear()
    hs = t.hand_seat_of(0)
    assert hs is not None and t.hand.turn == hs
    req = t.hand.requirement(hs)
    assert req is not None
    await svc.place_text(CH, ALICE, format_move(*choose_placement(t.hand, hs, req)))
    await until(lambda: any(kind == "turn" for kind, _ in rec.events))
    assert t.hand is not None and t.hand.street == 2
    assert ("turn", [0]) in rec.events  # alice, told it is her turn again
    await svc.shutdown()
    await store.close()


async def test_the_button_stays_when_the_coming_hand_has_a_fantasyland() -> None:
    """Decided at the deal, by who is dealt in: alice's fantasyland, carried while she sat out,
    keeps the button where it was when she comes back; without her the button moves on."""
    svc, rec, store = await make(seed_factory=lambda: "r27")
    await _seated_pair(svc, "pineapple")
    await svc.join(G, CH, CAROL, "carol")
    t = await _owed(svc, store, {"0": 14})
    await svc.sit_out(CH, ALICE, True)
    svc.next_hand_delay = 3600.0
    await svc.start(CH, BOB)
    assert t.hand is not None and t.hand_seats == [1, 2]
    first = t.hand_seats[t.hand.button]
    await finish_by_autoplay(svc)
    await until(lambda: t.hand is None)
    await svc.sit_out(CH, ALICE, False)
    await svc._next_hand_later(t, 0.0)
    assert t.hand is not None and t.hand.fantasyland[t.hand_seat_of(0)] == 14
    assert t.hand_seats[t.hand.button] == first  # stays for alice's fantasyland
    await finish_by_autoplay(svc)
    await until(lambda: t.hand is None)
    if not t.fantasyland_pending:  # no fantasyland next: the button moves on
        await svc._next_hand_later(t, 0.0)
        assert t.hand is not None and t.hand_seats[t.hand.button] != first
    await svc.shutdown()
    await store.close()


async def test_a_practice_hand_is_shown_as_practice() -> None:
    """Alice against a bot while bob sits out: the hand is practice, and the table says so."""
    from cogs.presenter import table_view

    svc, rec, store = await make(seed_factory=lambda: "r28")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=2, bots=1)
    await svc.join(G, CH, BOB, "bob")
    await svc.sit_out(CH, BOB, True)
    svc.next_hand_delay = 3600.0
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand_practice and t.practice
    assert "practice" in table_view(t).title.lower()
    assert "Practice table" in svc.rules_text(CH)[-1]
    await svc.shutdown()
    await store.close()


async def test_a_timeout_not_saved_does_not_sit_the_player_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(service_module, "SAVE_RETRY", 3600.0)  # the player acts meanwhile
    clock = Clock()
    svc, rec, store = await make(clock=clock, seed_factory=lambda: "r29")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", timer=10)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    user, text = _a_move_text(svc)
    real = store.save_hand_state
    down = Failing()
    monkeypatch.setattr(store, "save_hand_state", down)
    clock.offset += 30
    svc.rearm()
    await until(lambda: down.failures >= 1)
    await asyncio.sleep(0.05)
    seat = t.seat_of_user(user)
    assert seat is not None and not seat.sitting_out  # the timeout's move was not played
    assert not any(kind == "notice" and "Time ran out" in str(x) for kind, x in rec.events)
    monkeypatch.setattr(store, "save_hand_state", real)
    assert "Placed" in (await svc.place_text(CH, user, text)).text  # their own move
    seat = t.seat_of_user(user)
    assert seat is not None and not seat.sitting_out
    await svc.shutdown()
    await store.close()


async def test_a_hand_whose_state_does_not_even_parse_is_voided(tmp_path: Any) -> None:
    db = tmp_path / "garbled.sqlite3"
    svc, rec, store = await make(db, seed_factory=lambda: "r30")
    await _seated_pair(svc)
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand_row is not None
    hand_id = t.hand_row.id
    await svc.shutdown()
    await store._db.execute("UPDATE hands SET state = ? WHERE id = ?", ('{"engine": {tr', hand_id))
    await store._db.commit()
    await store.close()
    svc2, rec2, store2 = await make(db, seed_factory=lambda: "r30b")
    assert len(await svc2.recover()) == 1
    async with store2._db.execute("SELECT status FROM hands WHERE id = ?", (hand_id,)) as cur:
        assert tuple(await cur.fetchone()) == ("aborted",)
    assert any(kind == "notice" and "could not be restored" in str(x) for kind, x in rec2.events)
    await svc2.shutdown()
    await store2.close()


async def test_a_table_row_that_does_not_parse_keeps_no_other_table_down(tmp_path: Any) -> None:
    db = tmp_path / "garbled-table.sqlite3"
    svc, rec, store = await make(db, seed_factory=lambda: "r30t")
    await _seated_pair(svc)
    await svc.new_table(G, CH + 1, CAROL, "carol", variant="ofc")
    broken = svc.table_in_channel(CH).id
    await svc.shutdown()
    await store._db.execute("UPDATE tables SET extra = ? WHERE id = ?", ('{"fanta', broken))
    await store._db.commit()
    await store.close()
    svc2, rec2, store2 = await make(db, seed_factory=lambda: "r30u")
    try:
        assert [t.row.channel_id for t in await svc2.recover()] == [CH + 1]  # the bot starts
    finally:
        await svc2.shutdown()
        await store2.close()


async def test_a_bot_move_that_cannot_be_saved_is_thought_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(service_module, "SAVE_RETRY", 0.05)
    svc, rec, store = await make(seed_factory=lambda: "r31")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.add_bot(CH, ALICE, "easy")
    svc.next_hand_delay = 3600.0
    flaky = Failing(store.save_hand_state, times=1)
    monkeypatch.setattr(store, "save_hand_state", flaky)
    await svc.start(CH, ALICE)  # the bot sits left of the button: it acts first
    t = svc.table_in_channel(CH)
    assert t.hand is not None
    bot = t.hand_seat_of(1)
    assert bot is not None  # (it acts first; its task may have begun while start() posted)
    await until(lambda: t.hand is not None and len(t.hand.boards[bot]) == 5)
    assert flaky.failures == 1 and t.hand is not None and t.hand.autoplayed[bot] == 0  # its own move
    hand_row = await store.get_hand(t.hand_row.id if t.hand_row else 0)
    assert hand_row is not None and len(hand_row.log) == 1  # saved
    await svc.shutdown()
    await store.close()


async def test_a_save_that_keeps_failing_backs_off_and_tells_the_channel_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(service_module, "SAVE_RETRY", 0.01)
    clock = Clock()
    svc, rec, store = await make(clock=clock, seed_factory=lambda: "r32")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", timer=10)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    flaky = Failing(store.save_hand_state, times=5)
    monkeypatch.setattr(store, "save_hand_state", flaky)
    delays: list[float] = []
    assert svc._retry_delay(t) == 0.01
    for k in range(1, 7):
        t.save_failures = k
        delays.append(svc._retry_delay(t))
    assert delays == [0.01, 0.02, 0.04, 0.08, 0.16, 0.32]  # doubling
    t.save_failures = 40
    assert svc._retry_delay(t) == service_module.SAVE_RETRY_MAX
    t.save_failures = 0
    clock.offset += 60
    svc.rearm()
    await until(lambda: flaky.passed > 0)
    await until(lambda: any("can save again" in str(x) for _, x in rec.events))
    stuck = [x for kind, x in rec.events if kind == "notice" and "cannot save" in str(x)]
    assert len(stuck) == 1 and flaky.failures == 5 and t.save_failures == 0
    await svc.shutdown()
    await store.close()


class FailNext:
    """Wraps a store method: after ``arm()`` its next call raises a database error once."""

    def __init__(self, real: Any) -> None:
        self.real, self.armed, self.hits = real, False, 0

    def arm(self) -> None:
        self.armed = True

    async def __call__(self, *args: Any, **kw: Any) -> Any:
        if self.armed:
            self.armed = False
            self.hits += 1
            raise sqlite3.OperationalError("database is locked")
        return await self.real(*args, **kw)


def _then(real: Any, after: Any) -> Any:
    """``real`` (a store write), then ``after()``."""

    async def call(*args: Any, **kw: Any) -> Any:
        out = await real(*args, **kw)
        after()
        return out

    return call


async def test_a_read_failing_after_the_settlement_was_written_does_not_stop_the_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    svc, rec, store = await make(seed_factory=lambda: "r33")
    await _seated_pair(svc)
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    seats = FailNext(store.seats)
    monkeypatch.setattr(store, "seats", seats)
    monkeypatch.setattr(store, "finish_hand", _then(store.finish_hand, seats.arm))
    await finish_by_autoplay(svc)
    await until(lambda: t.row.hand_no == 2 and t.hand is not None)  # the next hand follows
    assert seats.hits == 1 and any(kind == "showdown" for kind, _ in rec.events)
    first = await store.history(t.id, 5)
    assert [h.number for h, _ in first] == [1] and first[0][0].status == "done"
    await svc.shutdown()
    await store.close()


async def test_a_read_failing_after_the_deal_was_written_keeps_the_hand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    svc, rec, store = await make(seed_factory=lambda: "r34")
    await _seated_pair(svc)
    t = svc.table_in_channel(CH)
    seats = FailNext(store.seats)
    monkeypatch.setattr(store, "seats", seats)
    monkeypatch.setattr(store, "create_hand", _then(store.create_hand, seats.arm))
    assert await svc.start(CH, ALICE) == "Hand #1 is dealt."
    assert seats.hits == 1 and t.hand is not None and t.row.hand_no == 1
    stored = await store.current_hand(t.id)
    assert stored is not None and t.hand_row is not None and stored.id == t.hand_row.id
    assert "after this hand" in await svc.leave(CH, BOB)  # bob is in the hand: no cash-out now
    user, text = _a_move_text(svc)
    assert "Placed" in (await svc.place_text(CH, user, text)).text
    await svc.shutdown()
    await store.close()


async def test_a_table_whose_loading_fails_once_at_start_is_loaded_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    monkeypatch.setattr(service_module, "LOAD_RETRY", 0.01)
    db = tmp_path / "load.sqlite3"
    svc, rec, store = await make(db, seed_factory=lambda: "r35")
    await _seated_pair(svc)
    await svc.start(CH, ALICE)
    await svc.shutdown()
    await store.close()
    svc, rec, store = await make(db, seed_factory=lambda: "r35")
    seats = FailNext(store.seats)
    seats.arm()
    monkeypatch.setattr(store, "seats", seats)
    current = FailNext(store.current_hand)
    current.arm()  # a database error reading the hand must not void it
    monkeypatch.setattr(store, "current_hand", current)
    assert len(await svc.recover()) == 1 and seats.hits == 1 and current.hits == 1
    t = svc.table_in_channel(CH)
    assert t.hand is not None and t.hand_row is not None and t.hand_row.status == "playing"
    await svc.shutdown()
    await store.close()


async def test_the_last_move_is_played_only_once_it_is_written(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    """Its save and the settlement both fail: the player is told, and the stored hand still
    waits for that move (it was not answered as played)."""
    monkeypatch.setattr(service_module, "SETTLE_RETRY", 3600.0)
    svc, rec, store = await make(tmp_path / "last.sqlite3", seed_factory=lambda: "r36")
    await svc.new_table(G, CH, ALICE, "alice", variant="chinese")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    user, text = _a_move_text(svc)
    await svc.place_text(CH, user, text)  # the first set: saved
    real_save, real_finish = store.save_hand_state, store.finish_hand
    monkeypatch.setattr(store, "save_hand_state", Failing())
    monkeypatch.setattr(store, "finish_hand", Failing())
    user, text = _a_move_text(svc)
    with pytest.raises(ServiceError, match="could not be saved"):
        await svc.place_text(CH, user, text)
    assert t.hand is not None and not t.hand.is_over and len(t.hand.log) == 1
    monkeypatch.setattr(store, "save_hand_state", real_save)
    monkeypatch.setattr(store, "finish_hand", real_finish)
    assert "Your hand is set" in (await svc.place_text(CH, user, text)).text
    await until(lambda: any(kind == "showdown" for kind, _ in rec.events))
    await svc.shutdown()
    await store.close()


async def test_the_timer_thinks_without_holding_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """While a timeout's move is being found, other commands go on, and a player who acts
    at the last moment keeps their own move (the timer's is dropped)."""
    from engine import Hand

    thinking = asyncio.Event()
    real = Hand.autoplay

    def slow(self: Hand, seat: int) -> Any:
        thinking.set()
        time.sleep(1.5)  # (long: on a busy machine the commands below must still fit in it)
        return real(self, seat)

    monkeypatch.setattr(Hand, "autoplay", slow)
    clock = Clock()
    svc, rec, store = await make(clock=clock, seed_factory=lambda: "r37")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", timer=10)
    await svc.join(G, CH, BOB, "bob")
    await svc.join(G, CH, CAROL, "carol")
    await svc.sit_out(CH, CAROL, True)
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None
    first = t.hand.turn
    assert first is not None
    user, text = _a_move_text(svc)
    clock.offset += 60
    svc.rearm()
    await asyncio.wait_for(thinking.wait(), 5)
    started = time.monotonic()
    await svc.sit_out(CH, CAROL, False)  # another command, answered while the timer thinks
    assert time.monotonic() - started < 1.0
    assert "Placed" in (await svc.place_text(CH, user, text)).text  # just in time
    await asyncio.sleep(1.7)
    assert t.hand is not None and t.hand.autoplayed[first] == 0
    assert len([a for a in t.hand.log if a.seat == first]) == 1
    assert not any("Time ran out" in str(x) for _, x in rec.events)
    await svc.shutdown()
    await store.close()


async def test_the_panel_says_what_to_do_before_a_hand_and_to_someone_not_seated() -> None:
    svc, rec, store = await make(seed_factory=lambda: "r38")
    await _seated_pair(svc)
    t = svc.table_in_channel(CH)
    with pytest.raises(ServiceError, match="`/ofc join` takes a seat"):
        svc.panel(t.id, CAROL)  # the table's Open my panel button
    with pytest.raises(ServiceError, match="not started yet: `/ofc start` deals the first hand"):
        svc.panel(t.id, ALICE)
    await svc.start(CH, ALICE)
    await svc.sit_out(CH, BOB, True)
    await finish_by_autoplay(svc)
    await until(lambda: t.waiting)
    with pytest.raises(ServiceError, match="No hand is being played. Waiting for at least 2"):
        svc.panel(t.id, ALICE)
    await svc.shutdown()
    await store.close()


def _timers() -> list[asyncio.Task[Any]]:
    return [task for task in asyncio.all_tasks() if not task.done()
            and getattr(task.get_coro(), "__qualname__", "") == "TableService._timer"]


async def _to_last_decision(svc: TableService) -> None:
    """Autoplay the hand at CH until one decision is left."""
    t = svc.table_in_channel(CH)
    assert t.hand is not None
    while len([hs for hs in range(t.hand.n) if not t.hand.done[hs]]) > 1 or \
            len(t.hand.boards[t.hand.to_act()[0]]) < 12:
        async with t.lock:
            t.hand.autoplay(t.hand.to_act()[0])
            await svc._after_action(t)


async def test_a_timeout_that_ends_the_hand_leaves_no_second_timer() -> None:
    """(Found by a soak test.)  The timer plays the last move of a hand: the hand is
    settled inside the timer loop (``_clear_hand`` sets ``t.timer = None`` but does not cancel
    the running loop), the loop releases the table, and the next hand is dealt before the
    loop takes the table again (``next_hand_delay`` 0, or a slow write in
    ``_sit_out_after_timeout``).  ``_deal`` arms a new timer; the old loop finds a hand being
    played and goes on sleeping until its deadlines: two timers for one table, the second
    one known to nobody (``shutdown`` and closing the table cancel ``t.timer`` only, and
    ``rearm`` wakes only it).  Each such hand added one more; each thought again at every
    timeout.  Now a timer loop stops once it is no longer the table's timer."""
    clock = Clock()
    svc, rec, store = await make(clock=clock, seed_factory=lambda: "orphan",
                                 next_hand_delay=0.0)
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", timer=10)
    await svc.join(G, CH, BOB, "bob")
    await svc.join(G, CH, CAROL, "carol")  # two play on when the one who timed out sits out
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    await _to_last_decision(svc)
    clock.offset += 60  # the last decision's clock runs out: the timer plays it
    svc.rearm()
    await until(lambda: t.hand is not None and t.row.hand_no == 2)
    await asyncio.sleep(0.1)
    assert t.hand is not None and t.row.hand_no == 2
    assert _timers() == [t.timer]  # the first hand's timer loop has stopped
    await svc.shutdown()
    await asyncio.sleep(0.05)
    assert _timers() == []
    await store.close()


async def test_rearm_while_a_timeout_is_being_saved_lets_it_finish() -> None:
    """``rearm`` (the tests' clock jumps) while the timer is saving the move of a run-out
    clock: the timer is woken, not cancelled, so the timeout is finished: the move saved, its
    player sat out and told, and the same timer goes on with the next player's clock.  (It
    used to cancel the timer: the sit-out mark and the notice were lost.)"""
    clock = Clock()
    svc, rec, store = await make(clock=clock, seed_factory=lambda: "rearm-saving")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", timer=10)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None
    real = store.save_hand_state
    saving, go = asyncio.Event(), asyncio.Event()

    async def slow_save(*args: Any, **kwargs: Any) -> Any:
        saving.set()
        await go.wait()
        return await real(*args, **kwargs)

    store.save_hand_state = slow_save  # type: ignore[method-assign]
    first = t.hand.to_act()[0]
    user = t.seat_by_no(t.hand_seats[first]).user_id
    clock.offset += 60  # the first player's clock runs out
    svc.rearm()
    await asyncio.wait_for(saving.wait(), 5)
    timer = t.timer
    assert timer is not None and not timer.done()
    svc.rearm()  # the clock "moves" again while the timeout is being saved
    store.save_hand_state = real  # type: ignore[method-assign]
    go.set()
    await until(lambda: any("Time ran out" in str(e[1]) for e in rec.events
                            if e[0] == "notice"))
    (notice,) = [str(e[1]) for e in rec.events if e[0] == "notice" and "Time ran out" in str(e[1])]
    assert f"<@{user}>" in notice
    assert t.seat_of_user(user).sitting_out
    assert len(t.hand.boards[first]) == 5 and t.hand.autoplayed[first] == 1
    assert t.timer is timer and not timer.done()  # the same loop, on the next clock now
    assert list(t.deadlines) == [1 - first]
    await svc.shutdown()
    await store.close()


async def test_a_player_who_left_is_not_dealt_in_when_the_read_back_failed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """(Found by a soak test.)  ``/ofc leave`` between hands: ``unseat_player``
    commits (carol's stack is back in her wallet), then the read-back in ``_unseat``'s
    ``finally: await self._refresh(t)`` fails once.  The command raises the database error
    (the cog answers "Something went wrong ... The table is unchanged; please try again"),
    although carol has left, and memory still seats her: ``/ofc start`` deals her in."""
    svc, rec, store = await make(seed_factory=lambda: "gone")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.join(G, CH, CAROL, "carol")
    t = svc.table_in_channel(CH)
    seats = FailNext(store.seats)
    monkeypatch.setattr(store, "seats", seats)
    monkeypatch.setattr(store, "unseat_player", _then(store.unseat_player, seats.arm))
    await svc.leave(CH, CAROL)  # done, so not reported as a failure
    assert await store.balance(G, CAROL) == 1000  # she did leave: her stack is back
    assert [s.user_id for s in await store.seats(t.id)] == [ALICE, BOB]
    await svc.start(CH, ALICE)
    assert t.hand is not None
    assert "carol" not in t.hand.names
    await svc.shutdown()
    await store.close()


async def test_a_foul_warning_that_could_not_be_saved_does_not_play_the_foul(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """(Found by a soak test.)  ``panel_action`` changes the draft in memory, then
    saves it; when the save fails the error escapes and the draft stays changed in memory
    (``_after_action`` restores memory when a move cannot be saved; the panel does not).  For
    a Confirm that fouls, ``draft.warned`` is set before the save: the player never sees the
    warning (they get "Something went wrong"), and their next Confirm plays the foul."""
    bob = parse_cards("Ah Ad Kc 2c 3d 4h 5s 7c 8d 9h Js Qc 6d")  # bob sits left of the button
    svc, rec, store = await make(seed_factory=lambda: "warn", deck_factory=lambda t: bob)
    await svc.new_table(G, CH, ALICE, "alice", variant="chinese")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    p = svc.panel(t.id, BOB)

    async def click(action: str, values: tuple[str, ...] = ()) -> Any:
        return await svc.panel_action(t.id, BOB, p.seat_no, p.hand_no, p.step, action, values)

    for cards, row in ((("Ah", "Ad", "Kc"), "top"), (("2c", "3d", "4h", "5s", "7c"), "middle"),
                       (("8d", "9h", "Js", "Qc", "6d"), "bottom")):  # aces on top: a foul
        await click("pick", cards)
        await click(row)
    monkeypatch.setattr(store, "save_hand_state", Failing(store.save_hand_state, times=1))
    with pytest.raises(sqlite3.OperationalError):  # the warning's save fails
        await click("confirm")
    hs = t.hand_seat_of(p.seat_no)
    assert t.hand is not None and hs is not None
    with pytest.raises(ServiceError, match="This board fouls"):  # warned, not played
        await click("confirm")
    await svc.shutdown()
    await store.close()


async def test_a_database_error_between_hands_does_not_stall_the_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """(Found by a soak test.)  ``_next_hand_later`` guards only ``_deal``: a
    database error in ``_release_leavers`` (cashing out who asked to leave, or its read-back)
    or in ``_close_now`` ends the background task.  The table is left with no hand and not
    ``waiting``: nothing deals again, ``/ofc join`` and ``/ofc sitin`` do not start the next
    hand (they do only when ``waiting``), and ``/ofc start`` refuses ("This table already
    started; hands follow on their own.") until the bot restarts."""
    svc, rec, store = await make(seed_factory=lambda: "stall")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.join(G, CH, CAROL, "carol")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert "after this hand" in await svc.leave(CH, BOB)
    monkeypatch.setattr(store, "unseat_player", Failing(store.unseat_player, times=1))
    await finish_by_autoplay(svc)  # bob's cash-out after the hand fails once
    await until(lambda: t.hand is not None and t.row.hand_no == 2, 6.0)  # after a retry
    assert t.hand is not None and t.row.hand_no == 2
    await svc.shutdown()
    await store.close()


async def test_after_a_deal_that_failed_the_channel_is_told_the_right_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """(Found by a soak test.)  When the next deal failed on a database error, the table
    waited and posted ``_why_waiting``, which assumes the deal was impossible: with two humans
    ready it said "Waiting for a human: bots do not play each other alone", wrong, and not
    that ``/ofc start`` deals.  Now it says what happened and what to do."""
    monkeypatch.setattr(service_module, "SAVE_RETRY", 3600.0)  # the player starts meanwhile
    svc, rec, store = await make(seed_factory=lambda: "why")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    monkeypatch.setattr(store, "create_hand", Failing(store.create_hand, times=1))
    await finish_by_autoplay(svc)
    await until(lambda: t.waiting and any(  # (the notice comes just after the state)
        kind == "notice" and "could not be dealt" in text for kind, text in rec.events))
    notices = [text for kind, text in rec.events if kind == "notice"]
    assert t.waiting and notices
    assert "bots do not play each other alone" not in notices[-1]
    assert "could not be dealt" in notices[-1] and "/ofc start" in notices[-1]
    # the table message says so too, not "Waiting for players" (two are seated and ready)
    assert t.deal_failed and "could not be dealt" in table_status(t)
    assert "could not be dealt" in table_view(t).note
    await svc.start(CH, ALICE)  # and it does
    assert t.hand is not None and not t.deal_failed
    assert "could not be dealt" not in table_status(t)
    await svc.shutdown()
    await store.close()


async def test_a_deal_that_failed_is_tried_again_and_told_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """(Found by the soak: a failed deal waited for ``/ofc start``, a table of players
    waiting for the next hand stood still.)  The deal is tried again, backing off; the
    channel is told once, then the new hand is announced."""
    monkeypatch.setattr(service_module, "SAVE_RETRY", 0.05)
    svc, rec, store = await make(seed_factory=lambda: "again")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    first = t.hand_row.id if t.hand_row is not None else None
    failing = Failing(store.create_hand, times=2)
    monkeypatch.setattr(store, "create_hand", failing)
    await finish_by_autoplay(svc)
    await until(lambda: t.hand is not None and t.hand_row is not None and t.hand_row.id != first
                and any(kind == "notice" and "could not be dealt" in text  # (posted after
                        for kind, text in rec.events))  # the failed deal, outside the lock)
    assert failing.failures == 2 and failing.passed == 1
    notices = [text for kind, text in rec.events if kind == "notice"]
    assert sum("could not be dealt" in n for n in notices) == 1
    assert not t.waiting
    await svc.shutdown()
    await store.close()


@pytest.mark.parametrize("failing_call", [1, 2, 3])
async def test_a_new_table_that_fails_to_seat_its_players_is_not_left_behind(
    monkeypatch: pytest.MonkeyPatch, failing_call: int,
) -> None:
    """Found by the soak: ``new_table`` created the table, then seated the creator and the
    bots in more transactions; a database error there (the creator: call 1, a bot: 2 or 3)
    left an open table in the channel (with the creator's buy-in on it) although the command
    failed, and trying again said "This channel already has a table".  Now the table, its
    creator and its bots are one transaction: a failure anywhere in it writes nothing."""
    svc, rec, store = await make(seed_factory=lambda: "half")
    monkeypatch.setattr(store, "_sit", Failing(store._sit, times=1, after=failing_call - 1))
    before = (await store.ensure_player(G, ALICE, "alice")).balance
    ledger = await count(store, "ledger")
    with pytest.raises(sqlite3.OperationalError):
        await svc.new_table(G, CH, ALICE, "alice", variant="ofc", buyin=200, bots=2)
    assert await store.table_in_channel(CH) is None
    assert not svc.tables
    assert await store.balance(G, ALICE) == before  # no buy-in moved
    assert await count(store, "tables") == await count(store, "seats") == 0  # nor closed ones
    assert await count(store, "ledger") == ledger
    t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc", buyin=200, bots=2)
    assert [s.is_bot for s in t.seats] == [False, True, True]
    assert t.seats == await store.seats(t.id)
    assert [s.name for s in t.seats] == ["alice", "Ada (bot)", "Turing (bot)"]
    assert await store.balance(G, ALICE) == before - 200
    await svc.shutdown()
    await store.close()


async def test_a_seat_change_whose_read_back_fails_is_still_done(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found by the soak (seed 104): ``/ofc sitin`` wrote the seat, then reading the table
    back failed, and the command was reported as failed (memory kept the old mark, so the
    user was told nothing changed while the database had it).  The same for ``/ofc sitout``,
    ``/ofc join`` and ``/ofc addbot``: a committed seat write is done, memory has it."""
    svc, rec, store = await make(seed_factory=lambda: "seat-read")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    t = svc.table_in_channel(CH)
    seats = FailNext(store.seats)
    monkeypatch.setattr(store, "seats", seats)
    # each write arms a failure of the next read of the seats: the read-back
    monkeypatch.setattr(store, "seat_player", _then(store.seat_player, seats.arm))
    monkeypatch.setattr(store, "update_seat", _then(store.update_seat, seats.arm))

    async def memory_is_stored(hits: int) -> None:
        assert seats.hits == hits
        assert t.seats == await store.seats(t.id)

    await svc.join(G, CH, BOB, "bob")
    assert t.seat_of_user(BOB) is not None
    await memory_is_stored(1)
    await svc.sit_out(CH, BOB, True)
    assert t.seat_of_user(BOB).sitting_out  # type: ignore[union-attr]
    await memory_is_stored(2)
    await svc.sit_out(CH, BOB, False)
    assert not t.seat_of_user(BOB).sitting_out  # type: ignore[union-attr]
    await memory_is_stored(3)
    await svc.add_bot(CH, ALICE, "easy")
    assert [s.is_bot for s in t.seats] == [False, False, True]
    await memory_is_stored(4)
    await svc.shutdown()
    await store.close()


async def test_a_leave_is_done_when_tidying_the_table_after_it_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found by the soak (seed 111): ``/ofc leave`` cashed the seat out, then reading the
    table back (letting other leavers go) failed, and the leave was reported as failed
    although it was done.  Now it is reported done; closing a table nobody is left at is
    tried again when it fails."""
    monkeypatch.setattr(service_module, "SAVE_RETRY", 0.05)
    svc, rec, store = await make(seed_factory=lambda: "tidy")
    await _seated_pair(svc)
    t = svc.table_in_channel(CH)
    seats = FailNext(store.seats)
    monkeypatch.setattr(store, "seats", seats)
    monkeypatch.setattr(store, "unseat_player", _then(store.unseat_player, seats.arm))
    # the read-back of the leave works (memory drops the seat anyway), the next read fails
    real_after = svc._refresh_after_write

    async def read_back_then_arm(*args: Any, **kw: Any) -> None:
        await real_after(*args, **kw)
        seats.arm()

    monkeypatch.setattr(svc, "_refresh_after_write", read_back_then_arm)
    text = await svc.leave(CH, BOB)
    assert "You left the table" in text and seats.hits >= 1
    assert [s.user_id for s in t.seats] == [s.user_id for s in await store.seats(t.id)] == [ALICE]
    monkeypatch.setattr(svc, "_refresh_after_write", real_after)
    monkeypatch.setattr(store, "update_table", Failing(store.update_table, times=1))
    text = await svc.leave(CH, ALICE)  # the last human: closing fails once, then works
    assert "You left the table" in text
    await until(lambda: svc.tables == {} and any(  # (the notice comes just after the close)
        kind == "notice" and "table is closed" in text for kind, text in rec.events))
    assert await store.table_in_channel(CH) is None
    notices = [text for kind, text in rec.events if kind == "notice"]
    assert "table is closed" in notices[-1]
    await svc.shutdown()
    await store.close()


async def test_shutdown_stops_a_task_whose_cancellation_was_lost(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    """A clean-clone test run under load once hung on stopping the bot (killed after 30 s;
    the threads' stacks showed the AI's workers still up, i.e. ``shutdown`` waiting for the
    tables' tasks).  A cancellation can be lost (``asyncio.wait_for`` in a library swallows
    it when what it waits for finishes at the same moment): ``shutdown`` cancels again until
    the task stops, and gives up on one that never does after ``SHUTDOWN_WAIT``."""
    monkeypatch.setattr(service_module, "SHUTDOWN_WAIT", 2.0)
    svc, rec, store = await make(seed_factory=lambda: "stop")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    t = svc.table_in_channel(CH)
    lost: list[str] = []
    release = asyncio.Event()
    first = svc._spawn(t, loses_one_cancellation(lost))
    await asyncio.sleep(0)
    start = time.monotonic()
    await svc.shutdown()
    assert first is not None and first.cancelled() and lost == ["first"]
    assert time.monotonic() - start < 1.5  # the second cancellation, half a second later

    svc2, _, store2 = await make(seed_factory=lambda: "stop2")
    await svc2.new_table(G, CH, ALICE, "alice", variant="ofc")
    stuck = svc2._spawn(svc2.table_in_channel(CH), ignores_cancellation(release, lost))
    await asyncio.sleep(0)
    start = time.monotonic()
    with caplog.at_level("ERROR", logger="ofc.service"):
        await svc2.shutdown()
    assert 2.0 <= time.monotonic() - start < 3.0
    assert stuck is not None and not stuck.done()
    assert "did not stop within 2 s" in caplog.text
    assert svc2.thinker._closed  # the AI's workers are stopped all the same
    await release_and_stop(release, stuck)  # the test's own clean-up
    await store.close()
    await store2.close()


async def test_a_bots_fantasyland_holds_nobody() -> None:
    """A fantasyland a bot earned is worth nothing to anyone (bots play for points only): the
    human who played the hand that earned it leaves at once (a practice table then closes),
    and a close does not wait for it; a human's fantasyland still holds the bot's table mate."""
    svc, rec, store = await make(seed_factory=lambda: "r-botfl")
    await svc.new_table(G, CH, ALICE, "alice", variant="pineapple", bots=1)
    t = await _owed(svc, store, {"1": 15})  # the bot (seat 1) earned it with alice
    assert t.seat_by_no(1) is not None and t.seat_by_no(1).is_bot
    assert not t.owes_fantasyland(0) and not t.fantasyland_playable()
    text = await svc.leave(CH, ALICE)
    assert "after the fantasyland hand" not in text
    assert CH not in svc._by_channel  # nobody left: closed
    await svc.shutdown()
    await store.close()
    svc, rec, store = await make(seed_factory=lambda: "r-botfl2")
    await svc.new_table(G, CH, ALICE, "alice", variant="pineapple", bots=1)
    t = await _owed(svc, store, {"0": 15})  # alice earned it: she is the one in fantasyland
    assert t.fantasyland_playable()
    await svc.shutdown()
    await store.close()
