"""Mutation review of persistence and recovery, third part: the mutants the second part
(test_mutation_persist2_review.py) generated and did not run.  The promise: every state
change of a table is persisted before the reply; a restarted bot resumes every table and
hand as it was; a saved state that cannot be read back is refused, never loaded half-read.

Targets: bot/store/store.py ``Store.update_seat`` and the rest of ``update_table``;
bot/service.py ``_deal`` (the rest, with its integer mutants) and the service functions that
call ``store.update_table`` / ``_update_seat``: ``sit_out``, ``close``, ``set_options``,
``_close_now``, ``close_marked``, ``_sit_out_after_timeout``, ``_showdown_posted``,
``set_message_id``, ``remove_bot`` (its 8 integer mutants too, reached by no test there),
``leave``; and the two survivors part 2 left: ``resume``'s ``t.waiting = t.row.hand_no > 0``
with 0 -> 1 and 0 -> -1.

Operators: part 2's AST tool unchanged (kept in /tmp, not in the repository), run on today's
source: comparisons swapped, ``and``/``or`` swapped, ``not`` removed, ``True``/``False``
swapped, integer constants +1 / -1, one statement deleted, ``return X`` -> ``return None``,
a string key dropped from a dict literal, a keyword argument dropped from a call.  Each
mutant applied alone in a work tree, the file restored by ``git checkout`` after it.  Part
2's mutants were matched to today's by (file, function, operator, old and new text), so
those it ran were skipped.

Test selection: per-test coverage (test_function contexts) on today's source, of tests/bot
(611 tests, all but the soak) and of 134 tests/e2e tests (removebot, bot, recap_review,
channel_gone, names_review, manager_review, adversarial, permissions_review,
idle_and_tables_review, threads).  First pass: the fastest covering tests, about 6 s of
them, ``pytest -x``, one core; every survivor again with all its covering tests.  Lines run
only in background tasks (no test context) or only by e2e tests got tests picked by hand:
``_showdown_posted``: tests/bot/test_crash.py and e2e recap_review's closing notice;
``close_marked``: e2e test_bot's close shown after a restart; ``_sit_out_after_timeout``:
the timeout tests of test_service, test_session_review, test_late_review; ``remove_bot``:
e2e test_removebot and the seven e2e tests that remove a bot.

Counts: 591 generated; 247 skipped as part 2's; 344 run (336 part 2 never ran, and the 8
integer mutants of ``remove_bot`` it found no test for): ``update_seat`` 27, ``update_table``
12, ``_deal`` 36, ``sit_out`` 71, ``remove_bot`` 50, ``set_options`` 41, ``leave`` 40,
``close`` 26, ``_showdown_posted`` 14, ``close_marked`` 9, ``_close_now`` 7,
``_sit_out_after_timeout`` 6, ``set_message_id`` 5.  Killed by the existing suite: 272 (206
in the first pass, 11 more by all their covering tests, 55 by the tests picked by hand).
Not killed: 72.  Gaps: 54, all killed by this file, and ``resume``'s 0 -> 1 (20 tests; each
checked to pass on the code as it is and to fail on its mutants).  Equivalent: 15, and
``resume``'s 0 -> -1.  Left: 3.  Every one of the 591 has now been run (by part 2 or here).

Equivalent, in short: ``_deal``'s ``t.back_late = {}`` deleted (``_clear_hand`` empties it
at every settled or voided hand, a table loaded between hands starts with it empty: as part
2's ``drafts``/``deadlines``/``away``); ``_close_now``'s ``CLOSE_UNMARKED: True`` -> False
(read only as present: ``in``, and the store's LIKE on the key) and its ``t.seats = []``
deleted (the closed table is forgotten at once; every later command goes through
``self.tables``/``_holding``, which refuse it, and the closed message shows no seats);
``set_message_id``'s closed guard deleted (its one caller, the presenter, checks
``_closed(t)`` just before, with no await between) and its ``now`` dropped (a write of the
message id alone sets no ``updated_at``; ``now`` is read only by a close); ``close_marked``'s
guard deleted (called only when ``CLOSE_UNMARKED`` is there); ``_showdown_posted``'s guard
deleted and its ``or`` -> ``and`` (the settlement writes ``SHOWDOWN_PENDING`` in every case,
so at an open table the note is always there; at a table closed meanwhile the write only
drops it from a closed table's extra, which nothing reads); ``set_options``'s
``fantasyland_owed_by = []`` when no fantasyland is left, deleted twice (who owes binds only
with a pending fantasyland: ``owes_fantasyland``/``fantasyland_playable`` go through the
pending ones; the next settlement writes it anew, the deal writes []); ``leave``'s
``closed = False`` in the in-hand branch deleted or True (never read there);
``remove_bot``'s ``found[0]``/``bots[0]`` -> ``[-1]`` (names are unique: at most 3 bots at
4 seats, 6 names; without a name only one bot is left to remove) and its
``_tidy_after_leave`` after a bot left between hands deleted (a bot's fantasyland binds
nobody, so no leaver is freed; the humans are as they were; a human-less table's close is
retried in the background anyway); ``resume``'s 0 -> -1 (at hand 0 ``waiting`` is read
only to spawn ``_next_hand_later``, which returns at hand 0 after what ``resume``'s own
spawn does).

Left unpinned: three ``log.exception`` lines deleted (``close_marked``, ``_showdown_posted``,
``_sit_out_after_timeout``, in their ``except``): a log line, outside the promise.
Defects found: none (no state lost or loaded differently after a restart, no crash, in what
was run and read).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.service import (
    CLOSE_AFTER,
    CLOSE_ASKED,
    CLOSE_BY,
    CLOSE_UNMARKED,
    SHOWDOWN_PENDING,
    ServiceError,
)
from bot.store import NotFound, Store

from .test_service import ALICE, BOB, CAROL, CH, Clock, G, finish_by_autoplay, make, until
from .test_service_robustness import Failing, FailNext, _then
from .test_store import two_seated


# -- store: what update_seat writes ------------------------------------------------------------
async def test_a_seats_new_name_and_bot_level_are_written_and_read_back_after_a_reopen(
    tmp_path: Path,
) -> None:
    """Promise: every change of a table is persisted.  ``update_seat`` documents ``name`` and
    ``bot_level`` besides the two flags: both are written (the returned row, the seats, and a
    store opened again on the same file say so), and only on that seat."""
    db = tmp_path / "seat.sqlite3"
    store = await Store.open(db)
    table_id = await two_seated(store)
    seat = await store.update_seat(table_id, 1, name="Robert", bot_level="hard")
    assert (seat.name, seat.bot_level, seat.user_id) == ("Robert", "hard", BOB)
    await store.close()
    store = await Store.open(db)
    seats = await store.seats(table_id)
    assert [(s.user_id, s.name, s.bot_level) for s in seats] == [
        (ALICE, "Alice", None), (BOB, "Robert", "hard")]
    await store.close()


async def test_a_seat_named_by_something_not_an_int_is_refused_and_nothing_written(
    store: Store,
) -> None:
    """Promise: a change is written as asked or refused, never applied to a seat it does not
    name.  ``update_seat`` takes the table and seat as ints: ``True`` (Python's 1) or ``"1"``
    (SQLite would compare it equal to 1) are refused with a ValueError naming the argument,
    and seat 1 is left as it was."""
    table_id = await two_seated(store)
    for table, seat_no, what in ((table_id, True, "seat_no"), (table_id, "1", "seat_no"),
                                 (str(table_id), 1, "table_id")):
        with pytest.raises(ValueError, match=f"{what} must be an int"):
            await store.update_seat(table, seat_no, leaving=True)  # type: ignore[arg-type]
    assert [s.leaving for s in await store.seats(table_id)] == [False, False]
    with pytest.raises(NotFound):
        await store.update_seat(table_id, 2, leaving=True)


# -- service: a table resumed between hands ----------------------------------------------------
async def test_a_closing_table_resumed_after_its_first_hand_counts_as_waiting_until_it_closes(
    tmp_path: Path,
) -> None:
    """Promise: a restarted bot resumes every table as it was.  A table the bot stopped at
    between hands, closing after its hand #1 (the close is done in the background at once),
    is between hands and waiting, as any table after a hand: a player asking for their panel
    meanwhile is told no hand is being played and why (not that the next one is dealt in a
    moment: none is).  Then the table closes, every seat cashed out."""
    db = tmp_path / "closing.sqlite3"
    svc, _rec, store = await make(db, seed_factory=lambda: "mut3-closing")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    table_id = svc.table_in_channel(CH).id
    await svc.shutdown()
    await store.close()
    store = await Store.open(db)
    row = await store.get_table(table_id)
    assert row is not None and row.hand_no == 0
    await store.update_table(table_id, status="closing", hand_no=1,
                             extra={**row.extra, CLOSE_AFTER: 1, CLOSE_BY: ALICE})
    await store.close()

    svc2, rec2, store2 = await make(db, seed_factory=lambda: "mut3-closing")
    await svc2.load_tables()
    await svc2.resume()
    t = svc2.table_in_channel(CH)
    assert t.hand is None and t.row.hand_no == 1 and t.row.status == "closing"
    with pytest.raises(ServiceError, match="^No hand is being played. Waiting for"):
        svc2.panel_in_channel(CH, ALICE)
    await until(lambda: table_id not in svc2.tables)
    row = await store2.get_table(table_id)
    assert row is not None and row.status == "closed"
    assert await store2.seats(table_id) == []
    assert any("as <@101> asked" in str(e[1]) for e in rec2.events if e[0] == "notice")
    await svc2.shutdown()
    await store2.close()


# -- service: what a deal keeps in memory ------------------------------------------------------
async def test_a_deal_whose_write_failed_leaves_no_hand_in_memory_and_deals_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Promise: every state change is persisted before it is shown; memory holds what the
    database has.  When writing the first deal fails (a database error), the hand built to
    be written is dropped: no hand in memory (no panel, no seats dealt in), none stored, and
    ``/ofc start`` deals it again (hand #1, not "a hand is already being played")."""
    svc, _rec, store = await make(tmp_path / "deal.sqlite3", seed_factory=lambda: "mut3-deal")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    t = svc.table_in_channel(CH)
    failing = Failing(store.create_hand, times=1)
    monkeypatch.setattr(store, "create_hand", failing)
    with pytest.raises(sqlite3.OperationalError):
        await svc.start(CH, ALICE)
    assert failing.failures == 1
    assert t.hand is None and t.hand_row is None and t.stored is None and t.hand_seats == []
    with pytest.raises(ServiceError, match="not started yet"):
        svc.panel_in_channel(CH, ALICE)
    assert await store.current_hand(t.id) is None
    assert await svc.start(CH, ALICE) == "Hand #1 is dealt."
    assert t.hand is not None and t.hand_seats == [0, 1]
    row = await store.current_hand(t.id)
    assert row is not None and row.number == 1 and t.hand_row == row
    await svc.shutdown()
    await store.close()


async def test_a_deal_whose_read_back_failed_keeps_in_memory_the_button_and_fantasyland_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Promise: memory holds what the database has, also when reading the table back after a
    write fails (the write happened).  The deal writes the hand number, the button (back on
    seat 0 for bob's fantasyland, RULES.md option) and the table's extra (the fantasyland
    spent, nobody owing one, no ``button_before``) in one transaction; the read after it
    fails once.  Memory has those fields as written, not the old ones: the spent fantasyland
    would otherwise be dealt again after this hand."""
    svc, _rec, store = await make(tmp_path / "readback.sqlite3",
                                  seed_factory=lambda: "mut3-readback")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    t = svc.table_in_channel(CH)
    await store.update_table(t.id, button=1, extra={
        **t.row.extra, "fantasyland": {"1": 13}, "fantasyland_owed_by": [0, 1],
        "button_before": 0})
    await svc._refresh(t)
    assert t.fantasyland_pending == {1: 13}
    reads = FailNext(store.get_table)
    monkeypatch.setattr(store, "get_table", reads)
    monkeypatch.setattr(store, "create_hand", _then(store.create_hand, reads.arm))
    assert await svc.start(CH, ALICE) == "Hand #1 is dealt."
    assert reads.hits == 1 and t.hand is not None and t.hand.fantasyland == (0, 13)
    row = await store.get_table(t.id)
    assert row is not None and (row.hand_no, row.button) == (1, 0)
    assert row.extra["fantasyland"] == {} and row.extra["fantasyland_owed_by"] == []
    assert row.extra["button_before"] is None
    assert (t.row.hand_no, t.row.button, t.row.extra) == (1, 0, row.extra)
    assert t.fantasyland_pending == {}
    await svc.shutdown()
    await store.close()


# -- service: closing a table ------------------------------------------------------------------
async def test_a_table_closed_just_before_a_stop_is_marked_closed_by_the_restarted_bot(
    tmp_path: Path,
) -> None:
    """Promise: every change is persisted; a restarted bot resumes every table as it was.  A
    table closed at once (``/ofc close`` between hands) is written closed at the service's
    clock, every seat cashed out, with the note that its message does not say so yet
    (``CLOSE_UNMARKED``): the bot stopping before that message was edited, the restarted bot
    knows the table and tells its notifier (which marks the message closed), and no
    table is loaded for it."""
    db = tmp_path / "closed.sqlite3"
    clock = Clock()
    clock.offset = 5000.0
    svc, rec, store = await make(db, clock=clock, seed_factory=lambda: "mut3-close")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    table_id = svc.table_in_channel(CH).id
    rec.events.clear()
    assert "The table is closed" in await svc.close(CH, ALICE, False)
    assert rec.events[-1] == ("table", table_id)  # (its message says so at once)
    row = await store.get_table(table_id)
    assert row is not None and row.status == "closed" and CLOSE_UNMARKED in row.extra
    assert row.closed_at is not None and abs(row.closed_at - clock()) < 60
    assert await store.seats(table_id) == []
    await svc.shutdown()
    await store.close()

    svc2, rec2, store2 = await make(db, clock=clock)
    assert await svc2.recover() == [] and table_id not in svc2.tables
    assert ("table", table_id) in rec2.events
    await svc2.shutdown()
    await store2.close()


# -- service: the showdown posted --------------------------------------------------------------
async def test_a_posted_showdown_is_written_as_posted_and_not_posted_again_after_a_restart(
    tmp_path: Path,
) -> None:
    """Promise: every change is persisted; a restarted bot resumes every table as it was.
    The settlement notes that its showdown may not be posted yet (``SHOWDOWN_PENDING``); once
    posted, that note is removed in the database (at the service's clock) and in memory.  A
    bot stopped between hands then restarts without posting that showdown a second time
    (and deals the next hand)."""
    db = tmp_path / "posted.sqlite3"
    clock = Clock()
    clock.offset = 7000.0
    svc, rec, store = await make(db, clock=clock, seed_factory=lambda: "mut3-posted",
                                 next_hand_delay=3600.0)
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    await finish_by_autoplay(svc)
    await until(lambda: any(kind == "showdown" for kind, _ in rec.events)
                and SHOWDOWN_PENDING not in t.row.extra)
    assert t.hand is None and SHOWDOWN_PENDING not in t.row.extra
    row = await store.get_table(t.id)
    assert row is not None and row.hand_no == 1 and SHOWDOWN_PENDING not in row.extra
    assert abs(row.updated_at - clock()) < 60
    assert [kind for kind, _ in rec.events].count("showdown") == 1
    await svc.shutdown()
    await store.close()

    svc2, rec2, store2 = await make(db, clock=clock, seed_factory=lambda: "mut3-posted")
    await svc2.recover()
    t2 = svc2.table_in_channel(CH)
    await until(lambda: t2.hand is not None)
    assert t2.hand is not None and t2.row.hand_no == 2
    assert [kind for kind, _ in rec2.events].count("showdown") == 0
    await svc2.shutdown()
    await store2.close()


async def test_a_showdown_noted_posted_whose_read_back_failed_is_noted_in_memory_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Promise: memory holds what the database has, also when the read after a write fails.
    Noting a showdown posted writes the table's extra without ``SHOWDOWN_PENDING``; when
    reading the table back fails, memory drops the note as written (a later write of the
    extra from memory, e.g. the next deal's, would put it back in the database)."""
    svc, _rec, store = await make(tmp_path / "noted.sqlite3", seed_factory=lambda: "mut3-noted")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    t = svc.table_in_channel(CH)
    await store.update_table(t.id, extra={**t.row.extra, SHOWDOWN_PENDING: 1, "keep": 2})
    await svc._refresh(t)
    reads = FailNext(store.get_table)
    monkeypatch.setattr(store, "get_table", reads)
    monkeypatch.setattr(store, "update_table", _then(store.update_table, reads.arm))
    await svc._showdown_posted(t)
    assert reads.hits == 1
    row = await store.get_table(t.id)
    assert row is not None and SHOWDOWN_PENDING not in row.extra and row.extra["keep"] == 2
    assert t.row.extra == row.extra
    await svc.shutdown()
    await store.close()


# -- service: options --------------------------------------------------------------------------
async def test_a_deck_of_no_known_colours_is_refused_unwritten_and_a_known_one_is_written(
    tmp_path: Path,
) -> None:
    """Promise: every change of a table is persisted before the reply, and a change refused
    writes nothing.  ``/ofc options deck:`` takes ``four`` or ``two`` colours: another value
    is refused, and so is no option at all (the table row unchanged, nothing told), ``two``
    is written, said, and the
    table message redrawn; ``two`` again changes nothing and writes nothing (not even the
    time the table was last used); a restarted bot shows the table with two colours."""
    db = tmp_path / "deck.sqlite3"
    svc, rec, store = await make(db, seed_factory=lambda: "mut3-deck")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    t = svc.table_in_channel(CH)
    before = await store.get_table(t.id)
    rec.events.clear()
    with pytest.raises(ServiceError, match="The deck has `four` or `two` colours"):
        await svc.set_options(CH, ALICE, False, deck="three")
    with pytest.raises(ServiceError, match="Give at least one option to change"):
        await svc.set_options(CH, ALICE, False, timer=None)
    assert await store.get_table(t.id) == before and rec.events == []
    assert await svc.set_options(CH, ALICE, False, deck="two") == (
        ["deck: four colours → two colours"], False)
    assert rec.events == [("table", t.id)]
    row = await store.get_table(t.id)
    assert row is not None and row.extra["deck"] == "two" and not t.four_colour
    rec.events.clear()  # the same deck again: no change, nothing written (nor the table used)
    assert await svc.set_options(CH, ALICE, False, deck="two") == ([], False)
    assert await store.get_table(t.id) == row and rec.events == []
    await svc.shutdown()
    await store.close()
    svc2, _rec2, store2 = await make(db, seed_factory=lambda: "mut3-deck")
    await svc2.recover()
    assert svc2.table_in_channel(CH).four_colour is False
    await svc2.shutdown()
    await store2.close()


# -- service: a clock that ran out -------------------------------------------------------------
async def test_a_player_whose_clock_ran_out_is_written_sitting_out_and_stays_so_after_a_restart(
    tmp_path: Path,
) -> None:
    """Promise: every change of a table is persisted; a restarted bot resumes it as it was.
    The player whose clock ran out has the move played for them and is then sat out (not
    dealt the next hand until ``/ofc sitin``): that is written for their seat alone, in
    memory and in the database, and a restarted bot still has them sitting out."""
    db = tmp_path / "timeout.sqlite3"
    clock = Clock()
    svc, _rec, store = await make(db, clock=clock, seed_factory=lambda: "mut3-timeout")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None
    seat_no = t.hand_seats[t.hand.to_act()[0]]
    seat = t.seat_by_no(seat_no)
    assert seat is not None
    user = seat.user_id
    clock.offset += 100
    svc.rearm()
    await until(lambda: (s := t.seat_of_user(user)) is not None and s.sitting_out)
    assert [(s.user_id, s.sitting_out) for s in t.seats] == [
        (ALICE, user == ALICE), (BOB, user == BOB)]
    assert [(s.user_id, s.sitting_out) for s in await store.seats(t.id)] == [
        (ALICE, user == ALICE), (BOB, user == BOB)]
    await svc.shutdown()
    await store.close()

    svc2, _rec2, store2 = await make(db, clock=clock, seed_factory=lambda: "mut3-timeout")
    (t2,) = await svc2.load_tables()
    out = t2.seat_of_user(user)
    assert out is not None and out.sitting_out and out.seat_no == seat_no
    await svc2.shutdown()
    await store2.close()


async def test_a_close_asked_during_a_hand_is_written_at_once_and_kept_by_a_restart(
    tmp_path: Path,
) -> None:
    """Promise: every change is persisted before the reply.  ``/ofc close`` during a hand
    writes the table 'closing' at once, at the service's clock (the table's last use), with
    who asked, when (during) and after which hand; a restarted bot resumes the hand at a
    table still closing after it, its message redrawn at the close."""
    db = tmp_path / "closing2.sqlite3"
    clock = Clock()
    clock.offset = 9000.0
    svc, rec, store = await make(db, clock=clock, seed_factory=lambda: "mut3-closing2")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    rec.events.clear()
    assert "will close after this hand" in await svc.close(CH, ALICE, False)
    assert rec.events == [("table", t.id)]
    row = await store.get_table(t.id)
    assert row is not None and row.status == "closing" and t.row == row
    assert (row.extra[CLOSE_AFTER], row.extra[CLOSE_BY], row.extra[CLOSE_ASKED]) == (
        1, ALICE, "during")
    assert abs(row.updated_at - clock()) < 60
    await svc.shutdown()
    await store.close()

    svc2, _rec2, store2 = await make(db, clock=clock, seed_factory=lambda: "mut3-closing2")
    (t2,) = await svc2.load_tables()
    assert t2.hand is not None and t2.row.status == "closing" and t2.row.extra == row.extra
    await svc2.shutdown()
    await store2.close()


async def test_a_closed_tables_message_marked_is_written_so_and_not_marked_again_after_a_restart(
    tmp_path: Path,
) -> None:
    """Promise: every change is persisted.  Once the closed table's message says it is
    closed, the presenter calls ``close_marked``: ``CLOSE_UNMARKED`` is removed from the
    table in the database (at the service's clock, the rest of its extra kept), so a
    restarted bot does not mark that message again (its notifier is not told of it)."""
    db = tmp_path / "marked.sqlite3"
    clock = Clock()
    clock.offset = 11000.0
    svc, _rec, store = await make(db, clock=clock, seed_factory=lambda: "mut3-marked")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    t = svc.table_in_channel(CH)
    await store.update_table(t.id, extra={**t.row.extra, "keep": 3})
    await svc._refresh(t)
    await svc.close(CH, ALICE, False)
    assert t.row.status == "closed" and CLOSE_UNMARKED in t.row.extra
    before = dict(t.row.extra)
    await svc.close_marked(t)
    row = await store.get_table(t.id)
    assert row is not None and row.status == "closed" and CLOSE_UNMARKED not in row.extra
    assert t.row == row and row.extra == {
        k: v for k, v in before.items() if k != CLOSE_UNMARKED}
    assert row.extra["keep"] == 3
    assert abs(row.updated_at - clock()) < 60
    await svc.shutdown()
    await store.close()

    svc2, rec2, store2 = await make(db, clock=clock)
    assert await svc2.recover() == []
    assert ("table", t.id) not in rec2.events
    await svc2.shutdown()
    await store2.close()


async def test_an_options_change_keeps_the_players_owed_a_fantasyland_held_for_it(
    tmp_path: Path,
) -> None:
    """Promise: every change is persisted as it is, no more.  Changing an option that leaves
    the owed fantasyland as it is (the clock) writes the rules and keeps the fantasyland and
    who owes it (RULES.md: the players of the hand that earned it play it), in the database
    and after a restart: bob, who played that hand, still cannot leave before it."""
    db = tmp_path / "owed.sqlite3"
    svc, _rec, store = await make(db, seed_factory=lambda: "mut3-owed")
    await svc.new_table(G, CH, ALICE, "alice", variant="pineapple")
    await svc.join(G, CH, BOB, "bob")
    t = svc.table_in_channel(CH)
    await store.update_table(t.id, extra={**t.row.extra, "fantasyland": {"0": 15},
                                          "fantasyland_owed_by": [0, 1]})
    await svc._refresh(t)
    assert t.owes_fantasyland(1)
    assert await svc.set_options(CH, ALICE, False, timer=90) == (["clock: 60 s → 90 s"], False)
    row = await store.get_table(t.id)
    assert row is not None and row.rules["timer"] == 90
    assert row.extra["fantasyland"] == {"0": 15} and row.extra["fantasyland_owed_by"] == [0, 1]
    await svc.shutdown()
    await store.close()

    svc2, _rec2, store2 = await make(db, seed_factory=lambda: "mut3-owed")
    await svc2.recover()
    t2 = svc2.table_in_channel(CH)
    assert t2.owes_fantasyland(1) and t2.table_rules.timer == 90
    assert "after the fantasyland hand" in await svc2.leave(CH, BOB)
    assert t2.seat_of_user(BOB) is not None
    await svc2.shutdown()
    await store2.close()


# -- service: leaving --------------------------------------------------------------------------
async def test_a_leave_during_a_hand_is_written_and_kept_by_a_restart_and_the_reply_says_how(
    tmp_path: Path,
) -> None:
    """Promise: every change is persisted before the reply.  Bob leaving during a hand he
    plays is written ``leaving`` on his seat (in memory and in the database; the table
    message redrawn) and he is told he may surrender this hand rather than play it out.
    Sitting out then keeps the leave request (both written); a restarted bot still has him
    in the hand, leaving after it and sitting out; sitting in takes both back, written."""
    db = tmp_path / "leave.sqlite3"
    svc, rec, store = await make(db, seed_factory=lambda: "mut3-leave")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    rec.events.clear()
    text = await svc.leave(CH, BOB)
    assert text.startswith("You will leave after this hand")
    assert "Not playing it out? `/ofc surrender`" in text
    assert rec.events[-1] == ("table", t.id)
    bob = t.seat_of_user(BOB)
    assert bob is not None and bob.leaving
    assert [s.leaving for s in await store.seats(t.id)] == [False, True]
    assert (await svc.sit_out(CH, BOB, True)).startswith("You are sitting out")
    assert [(s.leaving, s.sitting_out) for s in await store.seats(t.id)] == [
        (False, False), (True, True)]
    await svc.shutdown()
    await store.close()

    svc2, _rec2, store2 = await make(db, seed_factory=lambda: "mut3-leave")
    (t2,) = await svc2.load_tables()
    bob2 = t2.seat_of_user(BOB)
    assert bob2 is not None and bob2.leaving and bob2.sitting_out and t2.hand is not None
    assert t2.hand_seat_of(bob2.seat_no) is not None
    await svc2.resume()
    said = await svc2.sit_out(CH, BOB, False)
    assert said.startswith("Welcome back: you stay at the table")
    assert [(s.leaving, s.sitting_out) for s in await store2.seats(t2.id)] == [
        (False, False), (False, False)]
    await svc2.shutdown()
    await store2.close()


async def test_leaves_between_hands_write_the_new_host_then_the_close_and_say_so(
    tmp_path: Path,
) -> None:
    """Promise: every change is persisted before the reply.  Between hands a leave is done
    at once.  The host (alice) leaving passes the host's rights to bob, written with the
    leave (a restarted bot has bob hosting) and said in the channel; bob, the last human,
    leaving closes the table, written so, and his reply says the table closed.  (Nobody is
    pinged for a leave.)"""
    db = tmp_path / "leaves.sqlite3"
    svc, rec, store = await make(db, seed_factory=lambda: "mut3-leaves")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    t = svc.table_in_channel(CH)
    rec.events.clear()
    assert (await svc.leave(CH, ALICE)).startswith("You left the table")
    notices = [text for kind, text in rec.events if kind == "notice"]
    assert notices == ["🚪 <@101> left the table. <@102> hosts the table now."]
    assert rec.pings[-1] is False  # (the leaver is named, not pinged)
    row = await store.get_table(t.id)
    assert row is not None and row.extra["host"] == BOB and t.host_id == BOB
    await svc.shutdown()
    await store.close()

    svc2, _rec2, store2 = await make(db, seed_factory=lambda: "mut3-leaves")
    await svc2.recover()
    t2 = svc2.table_in_channel(CH)
    assert t2.host_id == BOB and [s.user_id for s in t2.seats] == [BOB]
    text = await svc2.leave(CH, BOB)
    assert text.endswith(" Nobody is left, so the table is closed.")
    row = await store2.get_table(t2.id)
    assert row is not None and row.status == "closed" and t2.id not in svc2.tables
    await svc2.shutdown()
    await store2.close()


# -- service: removing a bot -------------------------------------------------------------------
async def test_a_bot_removed_is_written_gone_or_leaving_and_a_restart_keeps_it_so(
    tmp_path: Path,
) -> None:
    """Promise: every change is persisted before the reply.  ``/ofc removebot`` is the
    host's (or a server manager's): bob asking is refused and nothing is written.  During
    a hand the bot plays, it is written ``leaving`` (kept by a restart, still in the hand);
    between hands, or when it was seated after the deal, its seat is left at once (written,
    said in the channel without pinging anyone, the table message redrawn)."""
    db = tmp_path / "removebot.sqlite3"
    svc, rec, store = await make(db, seed_factory=lambda: "mut3-removebot")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", bots=2)
    await svc.join(G, CH, BOB, "bob")
    t = svc.table_in_channel(CH)
    assert t.hand is None and [s.seat_no for s in t.bots] == [1, 2]
    first, bot = t.bots
    with pytest.raises(ServiceError):
        await svc.remove_bot(CH, BOB, first.name)
    assert [s.user_id for s in await store.seats(t.id)] == [
        ALICE, first.user_id, bot.user_id, BOB]
    rec.events.clear()
    said = await svc.remove_bot(CH, ALICE, "2")  # (its seat number, as shown)
    assert said == f"🤖 **{first.name}** left the table."
    assert rec.events == [("notice", said), ("table", t.id)] and rec.pings[-1] is False
    assert [s.user_id for s in await store.seats(t.id)] == [ALICE, bot.user_id, BOB]
    await svc.start(CH, ALICE)
    assert t.hand is not None and t.hand_seats == [0, 2, 3]
    late = await svc.add_bot(CH, ALICE, "easy")  # (seated after the deal: not in the hand)
    said = await svc.remove_bot(CH, ALICE, late.name)
    assert said == f"🤖 **{late.name}** left the table."
    assert [s.user_id for s in await store.seats(t.id)] == [ALICE, bot.user_id, BOB]
    said = await svc.remove_bot(CH, ALICE)
    assert said.startswith(f"🤖 **{bot.name}** will leave the table after this hand")
    assert [(s.user_id, s.leaving) for s in await store.seats(t.id)] == [
        (ALICE, False), (bot.user_id, True), (BOB, False)]
    await svc.shutdown()
    await store.close()

    svc2, _rec2, store2 = await make(db, seed_factory=lambda: "mut3-removebot")
    (t2,) = await svc2.load_tables()
    bot2 = t2.seat_of_user(bot.user_id)
    assert bot2 is not None and bot2.leaving and t2.hand_seat_of(bot2.seat_no) is not None
    await svc2.shutdown()
    await store2.close()


# -- service: sitting out and in ---------------------------------------------------------------
async def test_sitting_out_and_back_in_between_hands_is_written_and_kept_by_a_restart(
    tmp_path: Path,
) -> None:
    """Promise: every change is persisted before the reply.  Bob sitting out between hands is
    written on his seat (memory and database, the table message redrawn) and a restarted bot
    has him sitting out; sitting in again is written too."""
    db = tmp_path / "sitout.sqlite3"
    svc, rec, store = await make(db, seed_factory=lambda: "mut3-sitout")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    t = svc.table_in_channel(CH)
    rec.events.clear()
    assert (await svc.sit_out(CH, BOB, True)).startswith("You are sitting out")
    assert rec.events == [("table", t.id)]
    assert [s.sitting_out for s in await store.seats(t.id)] == [False, True]
    await svc.shutdown()
    await store.close()

    svc2, rec2, store2 = await make(db, seed_factory=lambda: "mut3-sitout")
    await svc2.recover()
    t2 = svc2.table_in_channel(CH)
    bob = t2.seat_of_user(BOB)
    assert bob is not None and bob.sitting_out
    rec2.events.clear()
    assert (await svc2.sit_out(CH, BOB, False)).startswith("Welcome back: ")
    assert rec2.events[0] == ("table", t2.id)
    assert [s.sitting_out for s in await store2.seats(t2.id)] == [False, False]
    await svc2.shutdown()
    await store2.close()


async def test_a_button_past_the_last_seat_dealt_in_wraps_to_the_first_and_is_written(
    tmp_path: Path,
) -> None:
    """Promise: every change of a table is persisted (RULES.md: the button goes to the
    nearest seat dealt in at or after its seat, clockwise).  The button on seat 2, carol's,
    who sits out: no seat dealt in is at or after it, so it wraps round to seat 0 (alice),
    not to any other seat, and the deal writes it so."""
    svc, _rec, store = await make(tmp_path / "wrap.sqlite3", seed_factory=lambda: "mut3-wrap")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", fantasyland=False)
    await svc.join(G, CH, BOB, "bob")
    await svc.join(G, CH, CAROL, "carol")
    t = svc.table_in_channel(CH)
    await store.update_table(t.id, button=2)
    await svc._refresh(t)
    await svc.sit_out(CH, CAROL, True)
    await svc.start(CH, ALICE)
    assert t.hand is not None and t.hand_seats == [0, 1] and t.hand.button == 0
    row = await store.get_table(t.id)
    assert row is not None and row.button == 0 and t.row.button == 0
    await svc.shutdown()
    await store.close()


async def test_sitting_out_on_ones_turn_is_written_and_pings_nobody(tmp_path: Path) -> None:
    """Promise: every change is persisted before the reply.  The player to act sitting out
    during the hand is written sitting out (in the database) and told they still play the
    hand being played; nobody is pinged for a turn (sitting out renews no clock)."""
    svc, rec, store = await make(tmp_path / "myturn.sqlite3", seed_factory=lambda: "mut3-myturn")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None
    seat = t.seat_by_no(t.hand_seats[t.hand.to_act()[0]])
    assert seat is not None
    rec.events.clear()
    said = await svc.sit_out(CH, seat.user_id, True)
    assert said.endswith("You still play the hand being played (or `/ofc surrender`).")
    assert [kind for kind, _ in rec.events] == ["table"]
    assert [(s.user_id, s.sitting_out) for s in await store.seats(t.id)] == [
        (ALICE, seat.user_id == ALICE), (BOB, seat.user_id == BOB)]
    await svc.shutdown()
    await store.close()


async def test_sitting_out_at_a_table_waiting_for_players_is_written_and_deals_nothing(
    tmp_path: Path,
) -> None:
    """Promise: every change is persisted, and only that change is made.  After hand #1 the
    table waits (bob sat out during it: fewer than 2 players to deal).  Alice sitting out
    too is written; it starts no attempt to deal (the channel is not told again why the
    table waits); her sitting in again does (the table still waits: bob is out)."""
    svc, rec, store = await make(tmp_path / "waits.sqlite3", seed_factory=lambda: "mut3-waits")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", fantasyland=False)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    await svc.sit_out(CH, BOB, True)
    await finish_by_autoplay(svc)
    await until(lambda: t.hand is None and t.waiting)
    assert t.hand is None and t.waiting and t.row.hand_no == 1
    await until(lambda: False, 0.2)  # (the notice after the showdown)
    rec.events.clear()
    assert (await svc.sit_out(CH, ALICE, True)).startswith("You are sitting out")
    await until(lambda: False, 0.2)
    assert [kind for kind, _ in rec.events] == ["table"]
    assert [s.sitting_out for s in await store.seats(t.id)] == [True, True]
    rec.events.clear()
    await svc.sit_out(CH, ALICE, False)
    await until(lambda: any(kind == "notice" for kind, _ in rec.events))
    assert [text for kind, text in rec.events if kind == "notice"] == [
        "Waiting for at least 2 players who are not sitting out to deal the next hand."]
    assert t.hand is None and t.waiting
    await svc.shutdown()
    await store.close()
