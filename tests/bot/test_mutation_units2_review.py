"""Mutation review of the code that moves units, second part: what the first
(test_mutation_units_review.py) left unrun.  The promise: "Units move only inside one SQLite
transaction, and every hand sums to zero; a table never loses a hand or a unit; bad input
never changes state" (README "Money").

Targets: engine/scoring.py units_moved (points -> units with the stack cap) and the
Settlement.matrix it reads; bot/store/store.py update_table, _close_table and the _unseat it
calls for every seat (closing cashes each stack back), abort_hand and abort_unreadable_hand
(a voided hand moves no units); bot/service.py the unit paths of leave, _unseat,
_release_leavers, _tidy_after_leave, _maybe_close_empty, close, _close_now, _void_hand.

Mutants (an AST tool kept in /tmp, not in the repository; each applied to the source alone,
the file restored after it): comparison operators swapped (< <=, > >=, == !=, in, is), + and
- (and * //, % //) swapped, unary minus and `not` removed, integer constants c -> c+1 and
c-1, and/or swapped, True/False swapped, min/max swapped, a status 'open'/'closing'/'closed'
for another, an `if` test made True or False, one statement deleted (an awaited write, an
assignment, an `if`, a loop, a raise, a continue, a break), and in SQL strings >=/>, <=/<,
=/!=, AND/OR, IS [NOT] NULL, +/-, 'balance'/'stack' and 'playing'/'aborted' swapped, and the
account names passed to the ledger.  Tests for each mutant were chosen by coverage
(tests/bot, tests/cogs and the engine's scoring tests run once under `coverage` with
test_function contexts; for units_moved's default arguments, the engine's units_moved
tests), fastest first, up to 20 s of them per mutant, one core, `pytest -x`.

Counts: 435 generated (96 in units_moved/matrix, 153 in the store, 186 in the service); 81
set aside as not about units (leave's, close's and _release_leavers' words, update_table's
message_id/button/hand_no/rules fields, a log line).  Of the 354 left all were run (100%;
81% of all generated).  Killed by the existing suite: 284 (one of them, the void's retry
when abort_hand fails, reached by no coverage context and run by hand against
test_service_robustness's test_a_void_that_fails_is_tried_again; four others reached by no
context were run likewise against the store's or the service's robustness tests, and
survived).  Survived: 70.
Equivalent: 28.  Gaps this file now covers: 40 mutants, by the tests below (each checked to
pass on the code as it is and to fail on its mutants).  Left: 2 (below).  Defect found: one
(units_moved's pass limit), fixed (engine/scoring.py: the passes go on until nothing
changes; after PLAIN_PASSES of them a share may only go down, so they end, each stack
covering its loss), and pinned by the two tests after LONG_CASCADE.

The defect: units_moved applied the caps again until nothing changes, but at most 4n^2+4
passes (68 for four players).  A cascade of caps can need more: four players, stake 25,
stacks [25, 25, 25, 100], pair results near 50 points (LONG_CASCADE below) settle after 72
passes; the loop stopped at 68 and returned [-26, -25, -25, 76] - seat 0 loses 26 units with
25 at the table (the fixed point is [-25, -25, -25, 75]).  The sum is still zero, but the
service's _settle hands that to finish_hand, which refuses a movement that "would take a
stack below 0" (ValueError); after SETTLE_ATTEMPTS the hand is voided: the table loses a
hand that should have settled.  Random searches found such cascades only with some pair
results of 50 points or more (none in 90 s of tries with every pair within 45 points), so it
is rare in play.

Equivalent survivors, in short (of the code as it was reviewed): units_moved never stopping early (the `if not changed`
test False or deleted, `changed = False` made True, the `break` deleted: passes after the
fixed point change nothing); the cap applied to every seat (the `if -net <= stack` test
False or deleted, the `continue` deleted: when the stack covers the loss the cap formula
gives back the claims) and -net < stack (at equality the same shares); rewriting a share
that did not change (it only sets `changed`); a 0 claim in `owed` (< 0 -> <= 0, < 1) and a 0
in `receipts` (> 0 -> >= 0, > -1): they add nothing; the remainder loop's rest >= 0 /
> -1 (an extra of min(0, ...) = 0); max(-1, stack + receipts) (never negative).  The
service: _close_now's `t.seats = []` (the table is forgotten, nothing reads its seats) and
its CLOSE_UNMARKED True -> False (the key's presence marks the close, not its value);
_void_hand's `given_back = {}` and `if t.hand is not None` made True (its only caller,
_showdown, runs with the hand in memory); leave's `closed = False` deleted or made True (a
dead store: `closed` is read only in the other branch); _unseat's read-back after a failed
cash-out deleted (the write was rolled back: there is nothing new to read);
_release_leavers' `released = True` deleted or made False (a second sweep never releases
anyone: letting a leaver go can only forfeit the fantasyland of a player who is leaving,
and a leaving player's fantasyland binds nobody already); _unseat's emptying of
fantasyland_owed_by once no fantasyland is pending (`if not pending` made False or deleted,
its assignment deleted): such a list binds nobody (owes_fantasyland needs a playable
earner).

Left unpinned: units_moved's pass limit made 4n^2+3 or 4n^2+5 (67 or 69 passes for four
players), which differed from the code only where its answer was already the defect's.  The
fix removed that limit (the passes end where nothing changes: a deleted `break` now hangs,
no longer equivalent); the shares-only-go-down phase after PLAIN_PASSES is pinned by
tests/engine/test_units_cascade.py."""

from __future__ import annotations

from typing import Any

import pytest

import bot.service as service_module
from bot.store import NotFound, Store, StoreError, TableClosed
from engine.scoring import units_moved

from . import test_service as ts
from .test_mutation_units_review import ALICE, BOB, CAROL, CH, RULES, G, books, res, table_of_two
from .test_service import finish_by_autoplay, make, until

DAVE = 204


async def hand_status(store: Store, hand_id: int) -> str:
    hand = await store.get_hand(hand_id)
    assert hand is not None
    return hand.status


# --------------------------------------------------------------------------- units_moved

# Seat 3 owes 40 points to seat 1 and wins 2 from each other seat; seat 1 and seat 2 hold
# nothing, seat 3 holds 2 units: each cap lowers what a capped seat receives, which caps
# another, and so on - 10 passes before nothing changes.
CASCADE_10 = ([[0, 21, 2, 2], [-21, 0, 14, -40], [-2, -14, 0, 2], [-2, 40, -2, 0]],
              3, [28, 0, 0, 2], 2)
# Every seat holds one point's worth (50 units) and most pairs owe more: 66 passes.
CASCADE_66 = ([[0, -4, 52, -48], [4, 0, 5, 1], [-52, -5, 0, 52], [48, -1, -52, 0]],
              50, [50, 50, 50, 50], 3)
# 54 passes (the 52nd does not end it).
CASCADE_54 = ([[0, 25, -2, -41], [-25, 0, -1, 53], [2, 1, 0, 7], [41, -53, -7, 0]],
              100, [100, 100, 200, 200], 0)


def test_the_default_button_is_seat_0() -> None:
    """``units_moved(..., button=0)``: without a button the remainder of a capped loser's
    split goes to the earliest creditor left of seat 0 (seat 1), as with ``button=0`` - not
    as with button 1 or -1 (seat 0 first)."""
    m = [[0, 0, 5], [0, 0, 5], [-5, -5, 0]]  # seat 2 owes 5 to each of 0 and 1, holds 3
    assert units_moved(m, 1, [100, 100, 3]) == units_moved(m, 1, [100, 100, 3], 0) == [1, 2, -3]


@pytest.mark.parametrize(
    ("case", "expected"),
    [(CASCADE_10, [2, 0, 0, -2]), (CASCADE_66, [-50, 150, -50, -50]),
     (CASCADE_54, [-100, -100, 400, -200])],
    ids=["10-passes", "66-passes", "54-passes"])
def test_a_long_cascade_of_caps_ends_where_nothing_changes(
    case: tuple[list[list[int]], int, list[int], int], expected: list[int]
) -> None:
    """``units_moved``: the caps are applied again until nothing changes (up to 4n^2+4
    passes); cascades needing 10, 54 and 66 passes end at that fixed point, where nobody
    loses more than their stack and the units sum to zero.  Stopping after 8, 52 or 60
    passes leaves a seat paying more than it holds (seat 3 pays 3 of its 2 units)."""
    m, unit, stacks, button = case
    got = units_moved(m, unit, stacks, button)
    assert got == expected
    assert sum(got) == 0 and all(-u <= s for u, s in zip(got, stacks, strict=True))


# Four seats, stake 25; seat 3 brought 100, the others one point's worth (25).  The caps
# cascade for 72 passes (units_moved stopped after 4n^2+4 = 68, before the fixed point).
LONG_CASCADE = ([[0, 59, -47, -3], [-59, 0, 49, 1], [47, -49, 0, -3], [3, -1, 3, 0]],
                25, [25, 25, 25, 100], 3)


def test_a_cascade_longer_than_the_pass_limit_still_respects_every_stack() -> None:
    """Was a defect (fixed). ``units_moved``: "nobody losing more than their stack.  Always sums to zero."  With
    four players whose stacks are one point's worth and pair results near 50 points, the caps
    take 72 passes to settle; the loop stops at 68 and returns [-26, -25, -25, 76] (the
    fixed point is [-25, -25, -25, 75])."""
    m, unit, stacks, button = LONG_CASCADE
    got = units_moved(m, unit, stacks, button)
    assert all(-u <= s for u, s in zip(got, stacks, strict=True)), got
    assert got == [-25, -25, -25, 75]


async def test_a_hand_settled_by_a_long_cascade_is_accepted_by_the_store(store: Store) -> None:
    """Was a defect (fixed). What the service does with ``units_moved``'s answer (``_settle``): the movements go
    to ``finish_hand``, which refuses any that "would take a stack below 0".  Seated as in
    LONG_CASCADE, the hand should settle (the fixed point respects every stack)."""
    m, unit, stacks, button = LONG_CASCADE
    users = [ALICE, BOB, CAROL, DAVE]
    table = await store.create_table(G, CH, ALICE, RULES, unit, 100, 4, 10.0)
    for no, (user, stack) in enumerate(zip(users, stacks, strict=True)):
        await store.seat_player(table.id, no, G, user, f"p{user}", stack, 11.0 + no)
    hand = await store.create_hand(table.id, 1, "s", RULES, {}, 20.0, button=button)
    units = units_moved(m, unit, stacks, button)
    results = [res(user, no, sum(m[no]), units[no]) for no, user in enumerate(users)]
    await store.finish_hand(hand.id, {}, results, dict(zip(users, units, strict=True)), 21.0)
    assert [await store.stack(table.id, u) for u in users] == [
        s + u for s, u in zip(stacks, units, strict=True)]


# --------------------------------------------------------------------------- abort_hand


async def test_voiding_a_hand_voids_that_hand_only(store: Store) -> None:
    """``abort_hand``: "Void a hand still playing" - that hand, by its id: a hand playing at
    another table goes on, and voiding a hand already settled changes nothing anywhere
    (no status, no units)."""
    first = await table_of_two(store)
    other = await store.create_table(G, CH + 1, CAROL, RULES, 10, 100, 4, 10.0)
    await store.seat_player(other.id, 0, G, CAROL, "Carol", 100, 11.0)
    await store.seat_player(other.id, 1, G, DAVE, "Dave", 100, 12.0)
    settled = await store.create_hand(first, 1, "s", RULES, {}, 20.0)
    await store.finish_hand(settled.id, {}, [res(ALICE, 0, 1, 10), res(BOB, 1, -1, -10)],
                            {ALICE: 10, BOB: -10}, 21.0)
    playing = await store.create_hand(first, 2, "s", RULES, {}, 22.0)
    elsewhere = await store.create_hand(other.id, 1, "s", RULES, {}, 22.0)
    before = await books(store)
    await store.abort_hand(settled.id, 23.0)
    assert await hand_status(store, settled.id) == "done"
    assert await hand_status(store, playing.id) == "playing"
    assert await hand_status(store, elsewhere.id) == "playing"
    await store.abort_hand(playing.id, 24.0)
    assert await hand_status(store, playing.id) == "aborted"
    assert await hand_status(store, elsewhere.id) == "playing"
    assert await hand_status(store, settled.id) == "done"
    assert await books(store) == before


async def test_a_hand_id_that_is_not_an_int_voids_nothing(store: Store) -> None:
    """``abort_hand`` and ``abort_unreadable_hand``: the id is checked (``_id``): ``True`` is
    not hand 1 nor table 1 - ValueError, the hand still playing."""
    table_id = await table_of_two(store)
    hand = await store.create_hand(table_id, 1, "s", RULES, {}, 20.0)
    assert hand.id == table_id == 1
    with pytest.raises(ValueError):
        await store.abort_hand(True, 21.0)
    with pytest.raises(ValueError):
        await store.abort_unreadable_hand(True, 21.0)
    assert await hand_status(store, hand.id) == "playing"


async def test_voiding_the_hand_of_a_table_playing_none_does_nothing(store: Store) -> None:
    """``abort_unreadable_hand``: "its number, or None when there is none" - a table whose
    last hand was settled has nothing to void: None, nothing written."""
    table_id = await table_of_two(store)
    hand = await store.create_hand(table_id, 1, "s", RULES, {}, 20.0)
    await store.finish_hand(hand.id, {}, [res(ALICE, 0, 1, 10), res(BOB, 1, -1, -10)],
                            {ALICE: 10, BOB: -10}, 21.0)
    before = await books(store)
    assert await store.abort_unreadable_hand(table_id, 22.0) is None
    assert await hand_status(store, hand.id) == "done" and await books(store) == before
    playing = await store.create_hand(table_id, 2, "s", RULES, {}, 23.0)
    assert await store.abort_unreadable_hand(table_id, 24.0) == 2
    assert await hand_status(store, playing.id) == "aborted" and await books(store) == before


# --------------------------------------------------------------------------- update_table


async def test_a_bad_status_or_a_missing_table_is_refused_before_anything_is_written(
    store: Store
) -> None:
    """``update_table``: a status that is none of 'open'|'closing'|'closed' is a ValueError
    (not the schema's IntegrityError), a table that does not exist NotFound (not an
    AttributeError), an id that is not an int (``True``) a ValueError; either way the table,
    its seats and every unit stay as they were."""
    table_id = await table_of_two(store)
    before = (await store.get_table(table_id), await store.seats(table_id), await books(store))
    with pytest.raises(ValueError, match="status must be one of"):
        await store.update_table(table_id, status="gone", now=30.0)
    with pytest.raises(NotFound):
        await store.update_table(table_id + 1, status="closed", now=31.0)
    assert table_id == 1
    with pytest.raises(ValueError):  # True is not table 1: closing it would cash out
        await store.update_table(True, status="closed", now=32.0)
    after = (await store.get_table(table_id), await store.seats(table_id), await books(store))
    assert after == before


async def test_an_update_with_nothing_to_change_changes_nothing(store: Store) -> None:
    """``update_table`` with no field writes nothing: not even ``updated_at`` (the table's
    idle time goes on)."""
    table_id = await table_of_two(store)
    before = await store.get_table(table_id)
    assert before is not None
    assert await store.update_table(table_id, now=before.updated_at + 50.0) == before
    assert await store.get_table(table_id) == before


async def test_a_closed_table_stays_closed_but_its_extra_may_change(store: Store) -> None:
    """``update_table``: closing is final - a closed table set 'closing' (or 'open') is
    TableClosed, nothing written; closing it again is no second cash-out; its ``extra``
    (what ``close_marked`` writes) and message may still change."""
    table_id = await table_of_two(store)
    await store.update_table(table_id, status="closed", now=30.0)
    closed = await store.get_table(table_id)
    assert closed is not None and closed.status == "closed"
    cashed = await books(store)
    assert await store.balance(G, ALICE) == await store.balance(G, BOB) == 1000
    for status in ("closing", "open"):
        with pytest.raises(TableClosed):
            await store.update_table(table_id, status=status, now=31.0)
    again = await store.update_table(table_id, status="closed", now=32.0)
    assert again.status == "closed" and again.closed_at == closed.closed_at
    marked = await store.update_table(table_id, extra={"seen": 1}, message_id=77, now=33.0)
    assert marked.status == "closed" and marked.extra == {"seen": 1} and marked.message_id == 77
    assert await books(store) == cashed


# --------------------------------------------------------------------------- the service


async def two_at_stake(
    seed: str, start: bool = True, **kw: Any
) -> tuple[Any, Any, Store, Any]:
    """Alice's table (stake 5, buy-in 100) with Bob seated, the first hand dealt unless
    ``start`` is False (``kw``: the service's)."""
    svc, rec, store = await make(seed_factory=lambda: seed, **kw)
    await svc.new_table(ts.G, ts.CH, ts.ALICE, "alice", stake=5, buyin=100)
    await svc.join(ts.G, ts.CH, ts.BOB, "bob", buyin=100)
    if start:
        await svc.start(ts.CH, ts.ALICE)
    return svc, rec, store, svc.table_in_channel(ts.CH)


async def test_a_hand_that_cannot_be_settled_is_voided_and_moves_no_units(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``_void_hand``: a hand whose settlement fails SETTLE_ATTEMPTS times is voided - the
    store's hand 'aborted', no stack nor balance changes, the table forgets the hand (its
    memory matches the store) and says so: "could not be settled and was voided: no units
    moved"; then the next hand is dealt."""
    monkeypatch.setattr(service_module, "SETTLE_RETRY", 0.01)
    svc, rec, store, t = await two_at_stake("mut-units2-void")
    try:
        async def refused(*args: Any, **kw: Any) -> Any:
            raise StoreError("the settlement is refused")

        monkeypatch.setattr(store, "finish_hand", refused)
        svc.next_hand_delay = 0.05
        hand_id = t.hand_row.id
        before = await books(store)
        await finish_by_autoplay(svc)
        said = "Hand #1 could not be settled and was voided: no units moved."
        await until(lambda: any(said in str(e) for e in rec.events))
        assert any(said in str(e) for e in rec.events)
        assert await hand_status(store, hand_id) == "aborted"
        assert await books(store) == before
        assert [await store.stack(t.id, u) for u in (ts.ALICE, ts.BOB)] == [100, 100]
        assert [s.stack for s in t.seats] == [100, 100]
        await until(lambda: t.row.hand_no == 2 and t.hand is not None)
        assert t.row.hand_no == 2 and t.hand is not None and t.hand_row is not None
        assert t.hand_row.number == 2 and t.hand_row.id != hand_id
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_second_close_during_the_hand_is_refused_and_changes_nothing() -> None:
    """``close``: during a hand the table is set 'closing' (stacks go back when the hand
    ends); asking again during that hand is "This table already closes when the hand being
    played ends." - the table's close as first asked stays, no stack moves."""
    svc, _rec, store, t = await two_at_stake("mut-units2-close-twice")
    try:
        await svc.close(ts.CH, ts.ALICE, False)
        first = t.row
        assert first.status == "closing"
        with pytest.raises(service_module.ServiceError, match="already closes"):
            await svc.close(ts.CH, ts.ALICE, False)
        assert t.row == first == await store.get_table(t.id)
        assert [await store.stack(t.id, u) for u in (ts.ALICE, ts.BOB)] == [100, 100]
    finally:
        await svc.shutdown()
        await store.close()


async def test_leaving_between_hands_cashes_out_and_the_others_play_on() -> None:
    """``leave`` between hands: the stack goes back to the balance at once ("You left the
    table; 100 units returned to your balance."), the seat leaves memory and the store, and
    a table where a human still sits stays open - neither answer says it closed.  The leave
    is activity: the table is idle from then on, not from before it."""
    clock = ts.Clock()
    svc, rec, store, t = await two_at_stake("mut-units2-leave", start=False, clock=clock)
    try:
        assert await store.balance(ts.G, ts.BOB) == 900
        clock.offset = 3600.0
        said = await svc.leave(ts.CH, ts.BOB)
        assert t.idle_since() >= clock() - 60
        assert said == "You left the table; 100 units returned to your balance."
        assert await store.balance(ts.G, ts.BOB) == 1000
        assert await store.stack(t.id, ts.BOB) == 0
        assert [s.user_id for s in t.seats] == [ts.ALICE]
        assert [s.user_id for s in await store.seats(t.id)] == [ts.ALICE]
        assert t.id in svc.tables and t.row.status == "open"
        public = f"🚪 <@{ts.BOB}> left the table."
        await until(lambda: ("notice", public) in rec.events)
        assert ("notice", public) in rec.events
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_leave_the_store_refuses_leaves_the_seat_and_its_stack_in_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``_unseat``: when the cash-out fails (nothing written), the error reaches the caller
    and memory still seats the player with their stack - it never lets a seat go whose units
    are still at the table."""
    svc, _rec, store, t = await two_at_stake("mut-units2-leave-fails", start=False)
    try:
        async def refused(*args: Any, **kw: Any) -> Any:
            raise StoreError("disk I/O error")

        monkeypatch.setattr(store, "unseat_player", refused)
        with pytest.raises(StoreError, match="disk I/O error"):
            await svc.leave(ts.CH, ts.BOB)
        assert [s.user_id for s in t.seats] == [ts.ALICE, ts.BOB]
        assert [s.user_id for s in await store.seats(t.id)] == [ts.ALICE, ts.BOB]
        assert await store.stack(t.id, ts.BOB) == 100
        assert await store.balance(ts.G, ts.BOB) == 900
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_leave_during_a_hand_lets_no_player_of_that_hand_go_before_it_is_settled() -> None:
    """``_tidy_after_leave``: other leavers go only between hands.  Bob (dealt in) asks to
    leave; Carol (joined during the hand, not dealt in) leaves at once with her 100 units;
    Bob stays seated with his stack until the hand is settled, then goes "as asked" with
    what he has left - the units still sum to the 200 brought."""
    svc, rec, store, t = await two_at_stake("mut-units2-leave-mid-hand")
    try:
        await svc.join(ts.G, ts.CH, ts.CAROL, "carol", buyin=100)
        assert "after this hand" in await svc.leave(ts.CH, ts.BOB)
        said = await svc.leave(ts.CH, ts.CAROL)
        assert said == "You left the table; 100 units returned to your balance."
        assert await store.balance(ts.G, ts.CAROL) == 1000
        assert [s.user_id for s in t.seats] == [ts.ALICE, ts.BOB]
        assert [s.user_id for s in await store.seats(t.id)] == [ts.ALICE, ts.BOB]
        assert await store.stack(t.id, ts.BOB) == 100
        await finish_by_autoplay(svc)
        gone = f"🚪 <@{ts.BOB}> left the table, as asked."
        await until(lambda: ("notice", gone) in rec.events)
        assert ("notice", gone) in rec.events
        assert [s.user_id for s in await store.seats(t.id)] == [ts.ALICE]
        assert await store.stack(t.id, ts.BOB) == 0
        bob_back = await store.balance(ts.G, ts.BOB) - 900
        assert bob_back + await store.stack(t.id, ts.ALICE) == 200
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_leave_whose_tidying_fails_does_not_say_the_table_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``_tidy_after_leave``: when letting the other leavers go fails, the leave is done (the
    units returned) and answered as done - "You left the table; 100 units returned to your
    balance." - without "the table is closed": Alice still sits there."""
    svc, _rec, store, t = await two_at_stake("mut-units2-tidy-fails", start=False)
    try:
        async def fails(*args: Any, **kw: Any) -> None:
            raise StoreError("disk I/O error")

        monkeypatch.setattr(svc, "_release_leavers", fails)
        said = await svc.leave(ts.CH, ts.BOB)
        assert said == "You left the table; 100 units returned to your balance."
        assert await store.balance(ts.G, ts.BOB) == 1000
        assert t.id in svc.tables and [s.user_id for s in t.seats] == [ts.ALICE]
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_leave_whose_read_back_fails_keeps_the_tables_row_in_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``_unseat``: after the cash-out commits, memory takes only the table fields written
    (none, for a leaver who is not the host and owes no fantasyland) and the seat goes at
    once, whether or not reading the table back works: Carol, who joined during the hand,
    leaves while the read-back fails - her units are back, memory no longer seats her, and
    the table's row in memory is still the stored one (its ``extra`` not lost)."""
    svc, _rec, store, t = await two_at_stake("mut-units2-read-back")
    try:
        await svc.join(ts.G, ts.CH, ts.CAROL, "carol", buyin=100)
        real = store.get_table
        fails = {"armed": False}

        async def get_table(*args: Any, **kw: Any) -> Any:
            if fails["armed"]:
                fails["armed"] = False
                raise StoreError("database is locked")
            return await real(*args, **kw)

        async def unseat_then_fail(*args: Any, **kw: Any) -> Any:
            out = await real_unseat(*args, **kw)
            fails["armed"] = True
            return out

        real_unseat = store.unseat_player
        monkeypatch.setattr(store, "get_table", get_table)
        monkeypatch.setattr(store, "unseat_player", unseat_then_fail)
        said = await svc.leave(ts.CH, ts.CAROL)
        assert said == "You left the table; 100 units returned to your balance."
        assert not fails["armed"]  # (the read-back was tried, and failed)
        assert await store.balance(ts.G, ts.CAROL) == 1000
        assert [s.user_id for s in t.seats] == [ts.ALICE, ts.BOB]
        assert t.row == await real(t.id)
        assert t.host_id == ts.ALICE
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_carried_over_fantasyland_never_passes_to_the_next_player_in_the_seat() -> None:
    """``_unseat``: "A pending fantasyland of that seat is forfeited: it never passes to
    whoever sits there next" - also one carried over (its player sat out the hand after
    earning it, so nobody owes it): Bob leaves with it, Carol takes his seat and is dealt an
    ordinary hand."""
    svc, _rec, store = await make(seed_factory=lambda: "mut-units2-fl-forfeit")
    try:
        await svc.new_table(ts.G, ts.CH, ts.ALICE, "alice", variant="pineapple")
        await svc.join(ts.G, ts.CH, ts.BOB, "bob")
        t = svc.table_in_channel(ts.CH)
        await store.update_table(
            t.id, extra={"fantasyland": {"1": 14}, "fantasyland_owed_by": []})
        await svc._refresh(t)
        assert t.fantasyland_pending == {1: 14}
        assert "You left the table" in await svc.leave(ts.CH, ts.BOB)
        assert t.fantasyland_earned == {}
        seat = await svc.join(ts.G, ts.CH, ts.CAROL, "carol")
        assert seat.seat_no == 1
        await svc.start(ts.CH, ts.ALICE)
        hs = t.hand_seat_of(1)
        assert t.hand is not None and hs is not None and t.hand.fantasyland[hs] == 0
    finally:
        await svc.shutdown()
        await store.close()
