"""Mutation review of persistence and recovery: tests for the mutants that survived.

Targets: bot/service.py ``recover``, ``load_tables``, ``resume``, ``_between_hands``,
``_load_table``, ``_load_hand``, ``_from_older_versions``, ``_restore``, ``_state_json``,
``_save``, ``_save_failed``, ``_retry_delay``, ``_not_saved``, ``_after_action``, ``_deal``,
``_refresh``, ``_refresh_after_write``, ``_seat_written``, ``_update_seat``,
``_set_deadlines``, ``_next_deadline``, ``_clock_ran_out``, ``_back_in_hand``,
``_grace_after_outage`` (deadlines, ``RESUME_GRACE``), ``Draft.to_json``/``from_json``;
engine/hand.py ``Hand.header_json``, ``to_json``, ``_new_from_header``, ``from_json``;
bot/store/store.py ``_table_of``, ``_seat_of``, ``_hand_of``, ``_loads_obj``,
``_loads_list``, ``get_table``, ``open_tables``, ``update_table``, ``seats``,
``update_seat``, ``create_hand``, ``save_hand_state``, ``current_hand``,
``abort_unreadable_hand``, ``get_hand``, ``_table``, ``_hand``, ``_active_seat``.

Operators (an AST tool kept in /tmp, not in the repository): comparisons swapped (``<``/``<=``,
``>``/``>=``, ``==``/``!=``, ``in``/``not in``, ``is``/``is not``), ``and``/``or`` swapped,
``not`` removed, ``True``/``False`` swapped, integer constants ±1, a statement deleted
(assignment, call, ``if``, ``raise``), ``return X`` -> ``return None``, a string key dropped
from a dict literal (what is saved).

Counts: 601 mutants generated; 162 run (27 %, sampled: every non-integer mutant of the save
and restore path first, then restart-critical functions, shuffled; no ``c±1`` mutant was
reached in the hour), each against the tests of tests/bot and tests/engine that cover its line
by coverage contexts (at most 60 of them, restart tests first; tests/bot/test_crash.py too
when the line also runs in background tasks).  108 were killed by the existing suite, 43
survived and 11 were reached by no test.  Of those 54: 8 equivalent (an unreachable
``t.stored is None`` guard in ``_not_saved``, twice; ``zip(strict=...)`` over two lists of
one length in ``Draft.from_json``; an ``assert`` weakened in ``_save``; ``_clock_ran_out``'s
first guard, since only seats that may act have deadlines; ``return False`` -> ``None`` twice,
read as a bool; ``_not_saved`` not re-arming a timer that it never cancelled); 41 are now killed
by this file (11 tests; two of them, the read-back memory of a deal and a closing table's
``close_after``, were also killed by existing tests left out by the selection: so 39 gaps);
5 were left unpinned (not equivalent, outside what the promise covers: the "resuming N
tables" log line, the load retry's wait (``<`` -> ``<=`` and the sleep deleted), and the timer
not re-armed after a saved move or a sit-in (``_after_action``, ``_back_in_hand``), which
only delays a timeout whose deadline comes before the one the running timer sleeps to); the
re-arm after a move was pinned afterwards (the last test, which takes the 5 s of a short clock).
Defects found: none (no state lost or changed across a restart, no memory left differing from
the database after a failed save, in what was run and read).
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import bot.service as service_module
from bot.service import ServiceError, TableService, TableState
from bot.store import NotFound, Store, StoreError

from .test_service import ALICE, BOB, CH, Clock, G, Recorder, make, until
from .test_service_robustness import Failing, _a_move_text


async def _stop(svc: TableService, store: Store) -> None:
    await svc.shutdown()
    await store.close()


async def _restart(db: Path, clock: Clock | None = None, **kw: Any
                   ) -> tuple[TableService, Recorder, Store, TableState]:
    """A new service on the same file, ``recover()``: the bot started again."""
    svc, rec, store = await make(db, **({"clock": clock} if clock else {}), **kw)
    await svc.recover()
    return svc, rec, store, svc.table_in_channel(CH)


async def test_a_practice_hand_stays_practice_after_a_restart_when_a_human_sat_down_meanwhile(
    tmp_path: Path,
) -> None:
    """Promise: a restarted bot resumes every table where it was.  A hand dealt to one human
    and a bot is practice, decided at the deal; a second human who sits down during it is not
    dealt in.  After a restart the hand is still practice (no units move at its end): the
    saved state keeps ``practice``, it is not worked out again from the seats as they are now
    (alice, bob and the bot: not practice)."""
    db = tmp_path / "practice.sqlite3"
    svc, _rec, store = await make(db, seed_factory=lambda: "mut-practice")
    await svc.new_table(G, CH, ALICE, "alice", bots=1)
    t = svc.table_in_channel(CH)
    if t.hand is None:
        await svc.start(CH, ALICE)
    assert t.hand is not None and t.hand_practice and t.practice
    await svc.join(G, CH, BOB, "bob")
    assert t.hand is not None and len(t.hand_seats) == 2 and t.practice
    seats = list(t.hand_seats)
    await _stop(svc, store)

    svc2, _rec2, store2, t2 = await _restart(db)
    assert t2.hand is not None and t2.hand_seats == seats
    assert len(t2.humans) == 2  # bob sits there now, not dealt in
    assert t2.hand_practice is True and t2.practice is True
    await _stop(svc2, store2)


async def test_a_hand_whose_saved_panels_cannot_be_read_is_voided_and_leaves_nothing_in_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """Promise: when a stored hand cannot be read back it is voided, and memory holds what the
    database has (no hand).  The engine state here reads fine but a panel draft does not, so
    the hand, its row, its seats, its clocks and its stored state must all be dropped, not
    kept half-loaded for a hand the database has aborted; the log says which table's hand was
    voided, with why."""
    db = tmp_path / "drafts.sqlite3"
    svc, _rec, store = await make(db, seed_factory=lambda: "mut-drafts")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", timer=100)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand_row is not None
    hand_id = t.hand_row.id
    await _stop(svc, store)
    store = await Store.open(db)
    row = await store.get_hand(hand_id)
    assert row is not None and row.state["deadlines"]
    broken = {**row.state, "drafts": {"0": {"assigned": [["Ah"]]}}}  # (no row for Ah)
    await store.save_hand_state(hand_id, broken, row.log, row.deadline)
    await store.close()

    svc2, rec2, store2 = await make(db, seed_factory=lambda: "mut-drafts-2")
    await svc2.load_tables()
    t2 = svc2.tables[next(iter(svc2.tables))]
    assert (t2.hand, t2.hand_row, t2.hand_seats, t2.stored) == (None, None, [], None)
    assert t2.deadlines == {} and t2.drafts == {}
    voided = await store2.get_hand(hand_id)
    assert voided is not None and voided.status == "aborted"
    said = [r for r in caplog.records
            if r.getMessage() == f"the hand of table {t2.id} cannot be loaded; voiding it"]
    assert len(said) == 1 and said[0].exc_info is not None
    await svc2.resume()
    assert any(kind == "notice" and "hand #1 could not be restored" in str(text)
               for kind, text in rec2.events)
    await until(lambda: t2.hand is not None)
    assert t2.hand is not None and t2.hand_row is not None and t2.hand_row.number == 2
    assert await store2.verify_ledger() == []
    await _stop(svc2, store2)


async def test_sitting_out_and_in_counts_as_use_of_the_table(tmp_path: Path) -> None:
    """Promise (README, idle tables): sitting out or in is use of the table.  A seat's write
    does not change the table's row, so the service notes the moment it wrote
    (``touched``): the table's idle time starts again from the sit-out."""
    clock = Clock()
    svc, _rec, store = await make(tmp_path / "idle.sqlite3", clock=clock,
                                  seed_factory=lambda: "mut-idle")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    t = svc.table_in_channel(CH)
    assert t.hand is None
    clock.offset += 5 * 3600
    assert t.idle_since() < clock() - 4 * 3600
    await svc.sit_out(CH, BOB, True)
    assert t.seat_of_user(BOB) is not None and t.seat_of_user(BOB).sitting_out  # type: ignore[union-attr]
    assert t.idle_since() >= clock() - 5
    clock.offset += 3600
    await svc.sit_out(CH, BOB, False)
    assert t.idle_since() >= clock() - 5
    await _stop(svc, store)


async def test_a_players_moves_that_cannot_be_saved_count_as_failed_saves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Promise (README, restarts): after 3 failed saves in a row the channel is told, and told
    again when saving works.  A player's move that cannot be written counts like a timeout's:
    three of them tell the channel once; the move that is then saved says it works again
    and the count starts over."""
    svc, rec, store = await make(seed_factory=lambda: "mut-fails")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", timer=100)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None
    user, text = _a_move_text(svc)
    real = store.save_hand_state
    monkeypatch.setattr(store, "save_hand_state", Failing())
    for attempt in range(1, 4):
        with pytest.raises(ServiceError, match="could not be saved"):
            await svc.place_text(CH, user, text)
        assert t.save_failures == attempt
    await until(lambda: any("cannot save its moves" in str(x) for k, x in rec.events))
    stuck = [x for k, x in rec.events if k == "notice" and "cannot save its moves" in str(x)]
    assert len(stuck) == 1
    monkeypatch.setattr(store, "save_hand_state", real)
    assert "Placed" in (await svc.place_text(CH, user, text)).text
    assert t.save_failures == 0
    await until(lambda: any("can save again" in str(x) for k, x in rec.events))
    assert any(k == "notice" and "can save again" in str(x) for k, x in rec.events)
    await _stop(svc, store)


async def test_a_restart_resumes_every_part_of_a_hand_as_it_was(tmp_path: Path) -> None:
    """Promise: every state change is persisted before the reply and a restarted bot resumes
    every table where it was.  Everything a hand's save holds comes back exactly: the engine
    state, the seats dealt in, each clock (not run out: kept as it was, not renewed), a
    panel's draft (picked cards, cards on rows, presses, a foul warning), who is away, who came
    back late, the notes kept for the showdown, and the table's button and hand number."""
    clock = Clock()
    db = tmp_path / "roundtrip.sqlite3"
    svc, _rec, store = await make(db, clock=clock, seed_factory=lambda: "mut-roundtrip")
    await svc.new_table(G, CH, ALICE, "alice", variant="pineapple", timer=100)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None and t.hand_row is not None
    hs = t.hand.to_act()[0]
    other = 1 - hs
    seat = t.seat_by_no(t.hand_seats[hs])
    assert seat is not None
    req = t.hand.requirement(hs)
    assert req is not None
    cards = [str(c) for c in req.cards]
    step = svc.step_of(t, hs)
    for action, values in (("pick", cards[:2]), ("bottom", ()), ("pick", cards[2:3])):
        await svc.panel_action(t.id, seat.user_id, seat.seat_no, t.row.hand_no, step, action,
                               values)
    async with t.lock:  # (what a timeout and a late sit-in leave in the hand)
        t.away.add(other)
        t.back_late[other] = 0
        t.showdown_notes.append("⏰ a note for the showdown")
        t.drafts[hs].warned = list(t.drafts[hs].assigned)
        await svc._save(t)
    expected = {
        "engine": t.hand.to_json(), "seats": list(t.hand_seats),
        "deadlines": dict(t.deadlines),
        "draft": t.drafts[hs].to_json(), "away": {other}, "back_late": {other: 0},
        "notes": ["⏰ a note for the showdown"], "button": t.row.button, "hand_no": 1,
        "hand_id": t.hand_row.id, "practice": False,
    }
    assert expected["draft"] == {
        "selected": cards[2:3], "assigned": [[cards[0], 2], [cards[1], 2]], "presses": [2],
        "warned": [[cards[0], 2], [cards[1], 2]]}
    assert set(expected["deadlines"]) == {hs} or set(expected["deadlines"]) == {0, 1}
    await _stop(svc, store)

    svc2, _rec2, store2, t2 = await _restart(db, clock)
    assert t2.hand is not None and t2.hand_row is not None
    got = {
        "engine": t2.hand.to_json(), "seats": t2.hand_seats,
        "deadlines": t2.deadlines,
        "draft": t2.drafts[hs].to_json(), "away": t2.away, "back_late": t2.back_late,
        "notes": t2.showdown_notes, "button": t2.row.button, "hand_no": t2.row.hand_no,
        "hand_id": t2.hand_row.id, "practice": t2.hand_practice,
    }
    assert got == expected
    assert list(t2.drafts) == [hs]
    assert t2.stored is not None and t2.stored["engine"] == expected["engine"]
    await _stop(svc2, store2)


async def test_saving_a_hand_the_database_does_not_have_says_so_and_writes_nothing(
    tmp_path: Path,
) -> None:
    """Promise: bad input never loses data.  A hand id that is not an int (``True`` would be
    read by SQLite as hand 1) is refused before anything is written; saving the state of a
    hand that does not exist is ``NotFound`` (not "already over"); saving one that has ended
    is refused: the ended hand's final state and log stay as they were."""
    svc, _rec, store = await make(tmp_path / "save.sqlite3", seed_factory=lambda: "mut-save")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", timer=100)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand_row is not None
    hand_id = t.hand_row.id
    assert hand_id == 1
    with pytest.raises(ValueError, match="hand_id must be an int"):
        await store.save_hand_state(True, {"x": 1}, [], None)  # type: ignore[arg-type]
    kept = await store.get_hand(1)
    assert kept is not None and kept.state == t.stored and kept.log == []
    with pytest.raises(NotFound, match="no longer exists"):
        await store.save_hand_state(hand_id + 99, {"x": 1}, [], None)
    await store.abort_hand(hand_id, 5.0)
    before = await store.get_hand(hand_id)
    assert before is not None and before.status == "aborted"
    with pytest.raises(StoreError, match=r"already over \(aborted\)"):
        await store.save_hand_state(hand_id, {"x": 1}, [{"y": 2}], 7.0, 9.0)
    after = await store.get_hand(hand_id)
    assert after == before and after.state == t.stored
    await _stop(svc, store)


async def test_after_a_restart_a_move_that_cannot_be_saved_is_undone_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Promise: when a save fails, memory goes back to what the database has, after a restart
    too.  The resumed table knows its hand's stored state (``stored``): a move whose save
    fails is not played (the hand, its clocks and the database as before), and the same move
    is played once saving works."""
    db = tmp_path / "undo.sqlite3"
    svc, _rec, store = await make(db, seed_factory=lambda: "mut-undo")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", timer=100)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    await _stop(svc, store)

    svc2, _rec2, store2, t2 = await _restart(db)
    assert t2.hand is not None and t2.hand_row is not None and t2.stored is not None
    before, deadlines = t2.hand.to_json(), dict(t2.deadlines)
    user, text = _a_move_text(svc2)
    real = store2.save_hand_state
    monkeypatch.setattr(store2, "save_hand_state", Failing())
    with pytest.raises(ServiceError, match="so that was not played"):
        await svc2.place_text(CH, user, text)
    assert t2.hand.to_json() == before and t2.deadlines == deadlines
    row = await store2.get_hand(t2.hand_row.id)
    assert row is not None and row.log == [] and row.state["engine"] == before
    monkeypatch.setattr(store2, "save_hand_state", real)
    assert "Placed" in (await svc2.place_text(CH, user, text)).text
    row = await store2.get_hand(t2.hand_row.id)
    assert row is not None and len(row.log) == 1 and row.state["engine"] == t2.hand.to_json()
    await _stop(svc2, store2)


async def test_a_deal_whose_read_back_fails_is_dealt_with_its_number_in_memory(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    """Promise (README, restarts): a command whose write went through is done even when
    reading the table back after it fails.  Memory takes at once what the deal wrote (the hand
    number, the button, the table's extra) and notes the table as used now; the failed read is
    logged, not reported."""
    clock = Clock()
    svc, _rec, store = await make(clock=clock, seed_factory=lambda: "mut-readback")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", timer=100)
    await svc.join(G, CH, BOB, "bob")
    t = svc.table_in_channel(CH)
    clock.offset += 7200
    assert t.row.hand_no == 0 and t.idle_since() < clock() - 3600

    async def unreadable(table: Any) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(svc, "_refresh", unreadable)
    await svc.start(CH, ALICE)
    assert t.hand is not None and t.hand_row is not None and t.hand_row.number == 1
    row = await store.get_table(t.id)
    assert row is not None and row.hand_no == 1
    assert (t.row.hand_no, t.row.button, t.row.extra) == (row.hand_no, row.button, row.extra)
    assert t.touched == pytest.approx(clock(), abs=5) and t.idle_since() >= clock() - 5
    assert any(r.getMessage() == f"reading table {t.id} back after a write failed"
               for r in caplog.records)
    await _stop(svc, store)


async def test_sitting_in_during_a_hand_gives_the_whole_clock_back_and_it_is_saved(
    tmp_path: Path,
) -> None:
    """Promise: every state change is persisted, a restart resumes the table where it was.
    A player whose clock ran out this hand has the short clock (``away_timer``, 10 s); sitting
    in again during the hand gives the decision they have now the whole clock (60 s) and takes
    them off the short clock (their turn pinged again): both saved, so a restart keeps them.
    When that save fails,
    memory keeps what the database has (away, the short clock) until a sit-in is saved."""
    clock = Clock()
    db = tmp_path / "sitin.sqlite3"
    svc, rec, store = await make(db, clock=clock, seed_factory=lambda: "mut-sitin")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", timer=60)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None and t.hand_row is not None and t.rules.away_timer == 10
    hs = t.hand.to_act()[0]
    seat = t.seat_by_no(t.hand_seats[hs])
    assert seat is not None
    async with t.lock:  # (what a timeout leaves: the player away, on the short clock)
        t.away.add(hs)
        t.deadlines.pop(hs, None)
        svc._set_deadlines(t)
        await svc._save(t)
    short = t.deadlines[hs]
    assert short == pytest.approx(clock() + 10, abs=1)
    await svc.sit_out(CH, seat.user_id, True)
    real = store.save_hand_state
    store.save_hand_state = Failing()  # type: ignore[method-assign]
    await svc.sit_out(CH, seat.user_id, False)  # the hand's save fails: memory as stored
    assert hs in t.away and t.deadlines[hs] == short and t.save_failures == 1
    store.save_hand_state = real  # type: ignore[method-assign]
    await svc.sit_out(CH, seat.user_id, True)
    rec.events.clear()
    await svc.sit_out(CH, seat.user_id, False)
    await until(lambda: ("turn", [seat.seat_no]) in rec.events)
    assert ("turn", [seat.seat_no]) in rec.events  # pinged: the whole clock from now
    assert hs not in t.away
    assert t.deadlines[hs] == pytest.approx(clock() + 60, abs=1)
    stored = await store.get_hand(t.hand_row.id)
    assert stored is not None and stored.state["away"] == []
    assert stored.state["deadlines"][str(hs)] == t.deadlines[hs]
    deadline = t.deadlines[hs]
    await _stop(svc, store)

    svc2, _rec2, store2, t2 = await _restart(db, clock)
    assert t2.away == set() and t2.deadlines[hs] == deadline
    await _stop(svc2, store2)


async def test_a_table_saved_by_an_older_version_gets_what_it_lacks_its_idle_time_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """Promise: a restarted bot resumes every table where it was, an older version's too.  A
    table set closing by a version before ``close_after`` gets the hand it was asked during
    written in (here none yet: 0), and one whose creator left before hosts were handed on gets
    the human seated longest as host; both written to the database, the table's idle time
    (``updated_at``) unchanged.  When that write fails, the table loads with them in memory
    (logged) and the next start writes them."""
    clock = Clock()
    db = tmp_path / "older.sqlite3"
    svc, _rec, store = await make(db, clock=clock, seed_factory=lambda: "mut-older")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.join(G, CH, BOB + 50, "carol")
    t = svc.table_in_channel(CH)
    await svc.leave(CH, ALICE)
    assert t.seat_of_user(ALICE) is None and t.host_id == BOB
    # what the older version left: closing without ``close_after``, no ``host`` written
    older = {k: v for k, v in t.row.extra.items() if k not in ("host", service_module.CLOSE_AFTER)}
    row = await store.update_table(t.id, status="closing", extra=older, now=clock() - 600)
    await _stop(svc, store)

    svc1, _rec1, store1 = await make(db, clock=clock)
    store1.update_table = Failing()  # type: ignore[method-assign]
    (t1,) = await svc1.load_tables()  # the fill cannot be written: it loads all the same
    assert t1.row.extra[service_module.CLOSE_AFTER] == 0 and t1.host_id == BOB
    assert any(r.getMessage() == f"filling in what table {t.id} lacks from an older version "
               "failed" for r in caplog.records)
    unfilled = await store1.get_table(t.id)
    assert unfilled is not None and unfilled.extra == older
    await _stop(svc1, store1)

    svc2, _rec2, store2 = await make(db, clock=clock)
    (t2,) = await svc2.load_tables()
    assert t2.row.extra[service_module.CLOSE_AFTER] == 0 and t2.host_id == BOB
    stored = await store2.get_table(t.id)
    assert stored is not None and stored.extra == {
        **older, service_module.CLOSE_AFTER: 0, "host": BOB}
    assert stored.updated_at == row.updated_at == t2.row.updated_at
    await _stop(svc2, store2)


async def test_a_table_never_dealt_is_not_dealt_by_a_restart(tmp_path: Path) -> None:
    """Promise: a restarted bot resumes every table where it was.  Two players seated at a new
    table, nobody has started it (``/ofc start``): after a restart it still waits for the start
    (no hand dealt, hand number 0), as it did; the channel is told and the table's message
    is brought up to date."""
    db = tmp_path / "fresh.sqlite3"
    svc, _rec, store = await make(db, seed_factory=lambda: "mut-fresh")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    t = svc.table_in_channel(CH)
    await asyncio.sleep(0.1)
    assert t.hand is None and t.row.hand_no == 0 and not t.waiting
    await _stop(svc, store)

    svc2, rec2, store2, t2 = await _restart(db)
    await asyncio.sleep(0.3)  # (a deal would come after next_hand_delay, 0.01 s)
    assert t2.hand is None and t2.row.hand_no == 0 and not t2.waiting
    assert await store2.current_hand(t2.id) is None
    assert [text for kind, text in rec2.events if kind == "notice"] == [
        "The bot restarted: play resumes where it was."]
    assert ("table", t2.id) in rec2.events  # its message says so again
    await _stop(svc2, store2)


async def test_a_move_that_brings_an_earlier_deadline_re_arms_the_clock(tmp_path: Path) -> None:
    """Promise (README, clocks): a player on the short clock (``away_timer``) after a timeout
    has that clock at their next decision.  The table's timer sleeps until the earliest
    deadline; when a move hands the turn to a seat whose deadline comes sooner (the short
    clock after a long one), the timer is armed again (``_after_action``'s ``_arm``), so that
    timeout is played when it is due, not when the previous player's clock would have run out.
    (Left unpinned by the persistence review: deleting that ``_arm`` went unnoticed.)"""
    clock = Clock()
    svc, rec, store = await make(tmp_path / "rearm.sqlite3", clock=clock,
                                 seed_factory=lambda: "mut-rearm")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", timer=600)
    await svc.set_options(CH, ALICE, False, away_timer=5)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None and t.rules.away_timer == 5
    first = t.hand.to_act()[0]
    second = 1 - first
    async with t.lock:  # (the second player timed out earlier: away, on the short clock)
        t.away.add(second)
        await svc._save(t)
    await until(lambda: t.timer is not None)
    assert t.deadlines[first] == pytest.approx(clock() + 600, abs=2)
    user, text = _a_move_text(svc)
    await svc.place_text(CH, user, text)
    assert t.hand.to_act() == [second]
    assert t.deadlines[second] == pytest.approx(clock() + 5, abs=2)
    step = svc.step_of(t, second)
    # the timeout comes within the 5 s of the short clock (real seconds: the timer sleeps
    # until the deadline), not after the 600 s the first player's clock still had

    def turns() -> list[Any]:
        return [e for e in rec.events if e[0] == "turn"]

    await until(lambda: len(turns()) >= 3, 20.0)  # (the timeout's move, then the next ping)
    assert svc.step_of(t, second) != step, "the short clock's timeout was not played"
    assert len(turns()) == 3 and turns()[2] == turns()[0] != turns()[1]  # (back to the first)
    await _stop(svc, store)
