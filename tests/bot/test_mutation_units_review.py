"""Mutation review of the code that moves units.  The promise: "Units move only inside one
SQLite transaction, and every hand sums to zero; a table never loses a hand or a unit; bad
input never changes state" (README "Money", "Bots", `ofc-bot check`, `/ofc-admin grant`).

Targets: bot/store/store.py - every function that writes balances, stacks, grants, hand
results or the ledger (_ensure_player, grant, open_table/_insert_table/_table_args,
seat_player/_sit, rebuy, unseat_player/_unseat, update_table/_close_table, abort_hand,
finish_hand/_check_results, _ledger/_balance/_stack/_wallet, total_units) and the books'
check (verify_ledger); bot/service.py - _settle and engine.scoring.units_moved which it calls,
new_table/_check_money, join, leave/_unseat/_release_leavers, close/_close_now, _void_hand,
practice_of/TableState.practice, can_pay/is_broke, grant.

Mutants (an AST tool kept in /tmp, not in the repository): comparison operators swapped
(< <=, > >=, == !=, in, is), + and - swapped, unary minus removed, integer constants c -> c+1
and c-1, and/or swapped, `not` removed, True/False swapped, min/max swapped, one statement
deleted (an awaited write, an expression, an `if` check, a raise, a continue), and in SQL
strings >=/>, <=/<, != -> =, AND/OR, IS [NOT] NULL, +/-, 'balance'/'stack' swapped (and the
account names passed to the ledger).  Tests for each mutant were chosen by coverage (tests/bot
run once under `coverage` with test_function contexts; the engine's units_moved tests added
for units_moved), fastest first, a few tens of seconds of them per mutant.

Counts: 840 generated; 96 set aside as not about units (the rules/bots part of new_table and
_deal, leave's and _release_leavers' messages); of the 744 left, 297 were run (40%: 272 of
the 607 in store/service money code, sampled favouring the operators that change how many
units move, and 25 of the 137 in units_moved and verify_ledger).  Killed by the existing suite:
210.  Survived: 87 (17 of them reached by no test).  Equivalent: 22.  Gaps this file now
covers: 65 mutants, by the tests below (each checked to pass on the code as it is and to
fail on its mutants).  Defects found: none (no survivor hid units lost or created, a hand not
summing to zero or a write outside the transaction).

Equivalent survivors, in short: seat_player's negative-seat and seat-taken checks (the
schema's CHECK and partial unique index refuse the same, as SeatTaken, rolled back); _sit's
and finish_hand's IntegrityError handlers (unreachable: the same checks run before, under the
write lock); rebuy's "a bot does not buy in" (a bot has no balance: InsufficientFunds, nothing
written); join's "you are in the hand being played" (a seat dealt in holds chips until the
settlement, so it is never broke then); _settle's 10**12 bot stack (any huge number: a bot's
pairs are zeroed), its `else 0` for a missing seat (such a seat counts as a bot), earned > 0
vs > 1 (0 or 13-17 cards), ranked_points 0 instead of None on uncounted results (read only
when counted); units_moved's loop bound and early break (the fixed point comes in a few
passes), -net <= stack vs < (at equality the cap recomputes the same shares), a 0 claim in
`owed` and a 0 in `receipts` (add nothing)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from bot.service import ServiceError, practice_of
from bot.store import (
    HandResult,
    InsufficientFunds,
    NotFound,
    SeatRow,
    Store,
    StoreError,
    TableClosed,
)
from engine import parse_cards
from engine.scoring import units_moved

from .test_ledger_review import _hand_rows
from .test_service import finish_by_autoplay, make, until

G = 4242  # guild
CH = 4343  # channel
ALICE, BOB, CAROL = 201, 202, 203
BOT = -7  # a bot's user id (the service gives bots negative ids)
RULES = {"variant": "ofc", "fantasyland": True}


def res(user: int, seat: int, points: int, units: int, **kw: Any) -> HandResult:
    return HandResult(user_id=user, seat_no=seat, name=f"p{user}", points=points, units=units,
                      **kw)


async def books(store: Store) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Everything a settlement may write: the ledger and the results."""
    async with store._db.execute("SELECT * FROM ledger ORDER BY id") as cur:
        ledger = [tuple(r) for r in await cur.fetchall()]
    async with store._db.execute("SELECT * FROM results ORDER BY hand_id, seat_no") as cur:
        results = [tuple(r) for r in await cur.fetchall()]
    return ledger, results


async def table_of_two(store: Store, buyin: int = 100, stake: int = 10,
                       bot: bool = False) -> int:
    """Alice and Bob (or a bot in seat 1) seated with ``buyin`` each."""
    table = await store.create_table(G, CH, ALICE, RULES, stake, buyin, 4, 10.0)
    await store.seat_player(table.id, 0, G, ALICE, "Alice", buyin, 11.0)
    if bot:
        await store.seat_player(table.id, 1, G, BOT, "Bot", 0, 12.0, is_bot=True,
                                bot_level="normal")
    else:
        await store.seat_player(table.id, 1, G, BOB, "Bob", buyin, 12.0)
    return table.id


# --------------------------------------------------------------------------- finish_hand


@pytest.mark.parametrize("winner_seated", ["never", "left"])
async def test_units_never_go_to_someone_not_seated_at_the_table(
    store: Store, winner_seated: str
) -> None:
    """``finish_hand``: ValueError (nothing written) when the movements "name a user not
    seated at the table" - a winner too, not only a loser whose empty stack cannot pay: a
    table never creates units for someone who holds no stack there."""
    table_id = await table_of_two(store)
    await store.ensure_player(G, CAROL, "Carol", now=13.0)
    winner = CAROL
    if winner_seated == "left":  # Bob sat here and left before the hand: he holds nothing
        assert await store.unseat_player(table_id, 1, 14.0) == 100
        winner = BOB
    hand = await store.create_hand(table_id, 1, "s", RULES, {}, 20.0)
    before = await books(store)
    with pytest.raises(ValueError):
        await store.finish_hand(hand.id, {}, [res(ALICE, 0, -1, -10), res(winner, 2, 1, 10)],
                                {ALICE: -10, winner: 10}, 30.0)
    assert await books(store) == before
    assert await store.stack(table_id, ALICE) == 100
    assert await store.stack(table_id, winner) == 0
    assert (await store.get_hand(hand.id)).status == "playing"  # type: ignore[union-attr]
    assert await store.verify_ledger() == []


async def test_one_unit_lost_by_someone_not_seated_is_refused_too(store: Store) -> None:
    """The smallest loss is checked like any other: a user not seated at the table cannot
    lose 1 unit there (it would leave a stack of -1, a unit created for the winner)."""
    table_id = await table_of_two(store)
    await store.ensure_player(G, CAROL, "Carol", now=13.0)
    hand = await store.create_hand(table_id, 1, "s", RULES, {}, 20.0)
    before = await books(store)
    with pytest.raises(ValueError):
        await store.finish_hand(hand.id, {}, [res(ALICE, 0, 1, 1), res(CAROL, 2, -1, -1)],
                                {ALICE: 1, CAROL: -1}, 30.0)
    assert await books(store) == before
    assert await store.stack(table_id, ALICE) == 100 and await store.stack(table_id, CAROL) == 0


async def test_a_zero_movement_is_no_movement(store: Store) -> None:
    """"One ledger row (account 'stack', kind 'hand') per non-zero movement": a movement of
    0 (here a human's and a bot's, in a hand against a bot) writes nothing and is no error
    (a bot holds no units, and moving none is not moving any)."""
    table_id = await table_of_two(store, bot=True)
    hand = await store.create_hand(table_id, 1, "s", RULES, {}, 20.0)
    ledger_before, _ = await books(store)
    done = await store.finish_hand(
        hand.id, {}, [res(ALICE, 0, -3, 0), res(BOT, 1, 3, 30, is_bot=True)],
        {ALICE: 0, BOT: 0}, 30.0)
    assert done.status == "done"
    ledger_after, results = await books(store)
    assert ledger_after == ledger_before  # no 'hand' row at all
    assert len(results) == 2
    assert await store.stack(table_id, ALICE) == 100
    assert await store.verify_ledger() == []


async def test_a_practice_result_moves_no_units(store: Store) -> None:
    """HandResult: "Uncounted results (practice hands) carry units == 0"; README: a practice
    hand moves no units.  Movements for players whose results are not counted are refused
    (ValueError, nothing written), even when each result says 0 units."""
    table_id = await table_of_two(store)
    hand = await store.create_hand(table_id, 1, "s", RULES, {}, 20.0)
    before = await books(store)
    with pytest.raises(ValueError):
        await store.finish_hand(
            hand.id, {}, [res(ALICE, 0, 1, 0, counted=False), res(BOB, 1, -1, 0, counted=False)],
            {ALICE: 10, BOB: -10}, 30.0)
    assert await books(store) == before
    assert await store.stack(table_id, ALICE) == 100 and await store.stack(table_id, BOB) == 100


async def test_a_practice_result_records_no_units(store: Store) -> None:
    """A practice result that says it won or lost units (with no movement) is refused: the
    history would show units that never moved."""
    table_id = await table_of_two(store)
    hand = await store.create_hand(table_id, 1, "s", RULES, {}, 20.0)
    before = await books(store)
    with pytest.raises(ValueError):
        await store.finish_hand(
            hand.id, {},
            [res(ALICE, 0, 1, 10, counted=False), res(BOB, 1, -1, -10, counted=False)], {}, 30.0)
    assert await books(store) == before


@pytest.mark.parametrize("twice", ["seat", "user"])
async def test_two_results_for_one_seat_or_one_user_are_refused(store: Store, twice: str) -> None:
    """One result a seat and a user: a hand with two results for the same seat (two users)
    or for the same user (two seats) is refused, nothing written (a second result would
    count a player's units or points twice)."""
    table_id = await table_of_two(store)
    hand = await store.create_hand(table_id, 1, "s", RULES, {}, 20.0)
    if twice == "seat":
        results = [res(ALICE, 0, 1, 10), res(BOB, 0, -1, -10)]
    else:
        results = [res(ALICE, 0, 1, 10), res(ALICE, 1, -1, -10)]
    before = await books(store)
    with pytest.raises(ValueError):
        await store.finish_hand(hand.id, {}, results,
                                {ALICE: 10, BOB: -10} if twice == "seat" else {}, 30.0)
    assert await books(store) == before
    assert await store.stack(table_id, ALICE) == 100 and await store.stack(table_id, BOB) == 100


@pytest.mark.parametrize("field", ["seat_no", "points", "royalties", "ranked_points"])
async def test_a_result_with_a_fraction_is_refused(store: Store, field: str) -> None:
    """Bad input never changes state: a result whose seat, points, royalties or ranked
    points is not a whole number is refused (ValueError) and nothing is written."""
    table_id = await table_of_two(store)
    hand = await store.create_hand(table_id, 1, "s", RULES, {}, 20.0)
    fraction: dict[str, Any] = {field: 1.5}
    bad = dataclasses.replace(res(ALICE, 0, 1, 10), **fraction)
    before = await books(store)
    with pytest.raises(ValueError):
        await store.finish_hand(hand.id, {}, [bad, res(BOB, 1, -1, -10)],
                                {ALICE: 10, BOB: -10}, 30.0)
    assert await books(store) == before
    assert (await store.get_hand(hand.id)).status == "playing"  # type: ignore[union-attr]


async def test_a_bots_notional_units_must_be_whole(store: Store) -> None:
    """HandResult: "a bot's ``units`` is stored as given (notional)" - as a whole number: a
    bot's result of 2.5 units (which no movement checks, a bot moving none) is refused,
    nothing written."""
    table_id = await table_of_two(store, bot=True)
    hand = await store.create_hand(table_id, 1, "s", RULES, {}, 20.0)
    before = await books(store)
    notional: Any = 2.5
    with pytest.raises(ValueError):
        await store.finish_hand(hand.id, {}, [res(ALICE, 0, -3, 0),
                                              res(BOT, 1, 3, notional, is_bot=True)], {}, 30.0)
    assert await books(store) == before
    assert (await store.get_hand(hand.id)).status == "playing"  # type: ignore[union-attr]


async def test_results_must_be_hand_results(store: Store) -> None:
    """``finish_hand`` takes HandResult records: anything else is a ValueError, nothing
    written."""
    table_id = await table_of_two(store)
    hand = await store.create_hand(table_id, 1, "s", RULES, {}, 20.0)
    before = await books(store)
    fake: Any = {"user_id": ALICE, "seat_no": 0, "points": 0, "units": 0}
    with pytest.raises(ValueError):
        await store.finish_hand(hand.id, {}, [fake], {}, 30.0)
    assert await books(store) == before


async def test_settling_a_hand_that_does_not_exist_is_not_found(store: Store) -> None:
    """A settlement of a hand that is gone raises NotFound (a StoreError: "the operation was
    refused and nothing was written")."""
    await table_of_two(store)
    before = await books(store)
    with pytest.raises(NotFound):
        await store.finish_hand(99_999, {}, [], {}, 30.0)
    assert await books(store) == before


async def test_the_settlement_sets_the_next_button_without_an_extra(store: Store) -> None:
    """``finish_hand``: "if given, the table's next ``button`` and ``extra``" - either one
    alone is written in the settlement's transaction (here the button, with 10 units won)."""
    table_id = await table_of_two(store)
    hand = await store.create_hand(table_id, 1, "s", RULES, {}, 20.0, button=0)
    await store.finish_hand(hand.id, {}, [res(ALICE, 0, 1, 10), res(BOB, 1, -1, -10)],
                            {ALICE: 10, BOB: -10}, 30.0, button=1)
    table = await store.get_table(table_id)
    assert table is not None and table.button == 1
    assert await store.stack(table_id, ALICE) == 110 and await store.stack(table_id, BOB) == 90


# --------------------------------------------------------------------------- cash-out


async def test_a_corrupt_negative_stack_is_not_cashed_out(store: Store) -> None:
    """``_unseat``: a negative stack "cannot happen" (finish_hand refuses to overdraw), and
    if a damaged database holds one, leaving refuses (StoreError) rather than take the
    missing units from the wallet: nothing is written, the seat stays."""
    table_id = await table_of_two(store)
    # the damage: a forged row leaves Bob's stack at -1 (bypassing the store)
    hand = await store.create_hand(table_id, 1, "s", RULES, {}, 20.0)
    await store._db.execute(
        "INSERT INTO ledger (guild_id, user_id, account, kind, amount, table_id, hand_id,"
        " created_at) VALUES (?, ?, 'stack', 'hand', -101, ?, ?, 0)", (G, BOB, table_id, hand.id))
    await store.abort_hand(hand.id, 21.0)
    assert await store.stack(table_id, BOB) == -1
    ledger_before, _ = await books(store)
    with pytest.raises(StoreError):
        await store.unseat_player(table_id, 1, 30.0)
    assert (await books(store))[0] == ledger_before
    assert await store.balance(G, BOB) == 900
    assert [s.user_id for s in await store.seats(table_id)] == [ALICE, BOB]


# --------------------------------------------------------------------------- the service


async def test_the_showdown_knows_which_seats_are_bots_and_only_humans_move_units() -> None:
    """README: "At a table with several humans, bots play for points only: results against
    a bot move no units", and where units are not points x stake "the text says why (points
    against a bot move no units ...)".  The settled ShowdownResult marks the bot's seat (and
    only it) as a bot: the humans' units are the stake times their points against each
    other, the bot's 0, and the ledger moved exactly those units, summing to zero."""
    from cogs.presenter import units_notes

    svc, _rec, store = await make(seed_factory=lambda: "mut-units-bots")
    svc.next_hand_delay = 3600.0
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=3, buyin=900, bots=1)
    await svc.join(G, CH, BOB, "bob", buyin=900)
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    await finish_by_autoplay(svc, CH)
    await until(lambda: t.last_result is not None)
    r = t.last_result
    assert r is not None and r.units is not None and not r.practice
    bot_seat = next(s.seat_no for s in t.seats if s.is_bot)
    assert r.bots == tuple(no == bot_seat for no in r.seat_nos)
    m = r.settlement.matrix()
    a, b, x = (r.seat_nos.index(no) for no in (0, 2, bot_seat))
    assert r.units[a] == 3 * m[a][b] and r.units[b] == 3 * m[b][a] and r.units[x] == 0
    assert await _hand_rows(store, t.id) == {
        u: r.units[i] for i, u in ((a, ALICE), (b, BOB)) if r.units[i]}
    against_bot = any(m[i][x] for i in (a, b))
    assert against_bot  # (this seed: points were won or lost against the bot)
    assert any("move no units" in line for line in units_notes(r, 3))
    assert await store.wallet(G, ALICE) == (100, 900 + r.units[a])
    assert await store.wallet(G, BOB) == (100, 900 + r.units[b])
    assert await store.verify_ledger() == []
    await svc.shutdown()
    await store.close()


# --------------------------------------------------------------------------- boundaries


async def test_a_grant_may_take_a_balance_to_exactly_zero(store: Store) -> None:
    """``grant``: "The wallet may not go below 0" - down to 0 it may: taking back all 1000
    units leaves 0 (audited with balance_after 0), one more is InsufficientFunds."""
    await store.ensure_player(G, ALICE, "Alice", now=1.0)
    assert await store.grant(G, ALICE, -1000, by_user_id=BOB, now=2.0) == 0
    assert await store.balance(G, ALICE) == 0
    (entry,) = await store.audit_log(G)
    assert (entry.amount, entry.balance_after) == (-1000, 0)
    with pytest.raises(InsufficientFunds):
        await store.grant(G, ALICE, -1, by_user_id=BOB, now=3.0)
    assert await store.balance(G, ALICE) == 0
    assert await store.total_units(G) == (0, 0)
    assert await store.verify_ledger() == []


async def test_a_buy_in_of_the_whole_balance_is_allowed(store: Store) -> None:
    """A buy-in moves units from the balance to the stack; a balance of exactly the buy-in
    pays it (seat_player, open_table and rebuy alike), one unit more is InsufficientFunds."""
    table, _ = await store.open_table(G, CH, ALICE, "Alice", RULES, 10, 1000, 4, 1.0)
    assert await store.balance(G, ALICE) == 0 and await store.stack(table.id, ALICE) == 1000
    await store.ensure_player(G, BOB, "Bob", now=2.0)
    with pytest.raises(InsufficientFunds):
        await store.seat_player(table.id, 1, G, BOB, "Bob", 1001, 3.0)
    seat = await store.seat_player(table.id, 1, G, BOB, "Bob", 1000, 3.0)
    assert seat.stack == 1000 and await store.balance(G, BOB) == 0
    # Bob loses it all, is given 300, and buys in again with exactly 300
    hand = await store.create_hand(table.id, 1, "s", RULES, {}, 4.0)
    await store.finish_hand(hand.id, {}, [res(ALICE, 0, 100, 1000), res(BOB, 1, -100, -1000)],
                            {ALICE: 1000, BOB: -1000}, 5.0)
    await store.grant(G, BOB, 300, by_user_id=ALICE, now=6.0)
    with pytest.raises(InsufficientFunds):
        await store.rebuy(table.id, 1, 301, 7.0)
    again = await store.rebuy(table.id, 1, 300, 7.0)
    assert again.stack == 300 and await store.balance(G, BOB) == 0
    assert await store.stack(table.id, ALICE) == 2000
    assert await store.total_units(G) == (2300, 2300)
    assert await store.verify_ledger() == []


async def test_a_rebuy_of_nothing_is_refused(store: Store) -> None:
    """``rebuy``: "The buy-in must be at least 1" - a rebuy of 0 is refused and writes
    nothing (the empty seat stays as it was)."""
    table_id = await table_of_two(store)
    hand = await store.create_hand(table_id, 1, "s", RULES, {}, 20.0)
    await store.finish_hand(hand.id, {}, [res(ALICE, 0, 10, 100), res(BOB, 1, -10, -100)],
                            {ALICE: 100, BOB: -100}, 21.0)
    before = await books(store)
    seats_before = await store.seats(table_id)
    with pytest.raises(StoreError):
        await store.rebuy(table_id, 1, 0, 22.0)
    assert await books(store) == before and await store.seats(table_id) == seats_before
    assert await store.balance(G, BOB) == 900


async def test_the_servers_maximum_stake_and_buy_in_are_allowed(store: Store) -> None:
    """``create_table``: "StoreError when stake/buy-in break the server's limits" - the
    limits themselves (a stake of 100, a buy-in of 1000 by default) do not break them."""
    table = await store.create_table(G, CH, ALICE, RULES, 100, 1000, 4, 1.0)
    assert (table.stake, table.buyin) == (100, 1000)
    await store.update_table(table.id, status="closed", now=2.0)
    with pytest.raises(StoreError):
        await store.create_table(G, CH, ALICE, RULES, 101, 1000, 4, 3.0)
    with pytest.raises(StoreError):
        await store.create_table(G, CH, ALICE, RULES, 100, 1001, 4, 3.0)


async def test_a_rebuy_is_refused_at_a_closing_table_and_at_an_empty_seat(store: Store) -> None:
    """``rebuy``: TableClosed at a table that is not open (closing), NotFound at a seat
    nobody sits in; either way nothing is written."""
    table_id = await table_of_two(store)
    hand = await store.create_hand(table_id, 1, "s", RULES, {}, 20.0)
    await store.finish_hand(hand.id, {}, [res(ALICE, 0, 10, 100), res(BOB, 1, -10, -100)],
                            {ALICE: 100, BOB: -100}, 21.0)
    before = await books(store)
    with pytest.raises(NotFound):
        await store.rebuy(table_id, 3, 50, 22.0)
    await store.update_table(table_id, status="closing", now=23.0)
    with pytest.raises(TableClosed):
        await store.rebuy(table_id, 1, 50, 24.0)
    assert await books(store) == before
    assert await store.balance(G, BOB) == 900 and await store.stack(table_id, BOB) == 0


async def test_a_refused_grant_says_what_it_needed(store: Store) -> None:
    """InsufficientFunds carries ``have`` (the balance) and ``need`` (the units asked to be
    taken back, positive)."""
    await store.ensure_player(G, ALICE, "Alice", now=1.0)
    with pytest.raises(InsufficientFunds) as info:
        await store.grant(G, ALICE, -1001, by_user_id=BOB, now=2.0)
    assert (info.value.have, info.value.need) == (1000, 1001)
    assert await store.balance(G, ALICE) == 1000 and await store.audit_log(G) == []


async def test_a_new_name_renames_only_that_player(store: Store) -> None:
    """``ensure_player`` updates the display name of that player only (not every player of
    the server), and their balance is untouched."""
    await store.ensure_player(G, ALICE, "Alice", now=1.0)
    await store.ensure_player(G, BOB, "Bob", now=2.0)
    renamed = await store.ensure_player(G, ALICE, "Alice II", now=3.0)
    assert (renamed.name, renamed.balance) == ("Alice II", 1000)
    bob = await store.get_player(G, BOB)
    assert bob is not None and (bob.name, bob.balance) == ("Bob", 1000)


# --------------------------------------------------------------------------- service money


@pytest.mark.parametrize(("stake", "buyin"), [(-1, None), (-1, 100), (5, 0), (5, -1), (0, 5)])
async def test_new_table_with_bad_money_changes_nothing(stake: int, buyin: int | None) -> None:
    """README: "bad input never changes state"; ``/ofc new``: a stake below 0, a buy-in of 0
    (or below) at a table with stakes, a buy-in at a stake-0 table are refused before
    anything is written - no table, not even a player row or start balance for a newcomer."""
    svc, _rec, store = await make()
    with pytest.raises(ServiceError):
        await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=stake, buyin=buyin)
    assert await store.get_player(G, ALICE) is None
    assert await store.table_in_channel(CH) is None
    assert await store.total_units(G) == (0, 0)
    await svc.shutdown()
    await store.close()


async def test_the_maximum_stake_and_buy_in_are_allowed_and_the_whole_balance_buys_in() -> None:
    """``/ofc new`` takes a stake up to the server's maximum (100) and a buy-in up to its
    maximum (1000), the latter the creator's whole balance; ``/ofc join`` with the whole
    balance too.  Every unit stays owned: balance + stacks = what was given."""
    svc, _rec, store = await make()
    t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=100, buyin=1000)
    assert (t.row.stake, t.row.buyin) == (100, 1000)
    assert await store.wallet(G, ALICE) == (0, 1000)
    seat = await svc.join(G, CH, BOB, "bob", buyin=1000)
    assert seat.stack == 1000 and await store.wallet(G, BOB) == (0, 1000)
    assert await store.total_units(G) == (2000, 2000)
    await svc.shutdown()
    await store.close()


async def test_a_seat_at_another_servers_table_is_refused(store: Store) -> None:
    """``seat_player``: a table belongs to one server: sitting at it as a player of another
    server is a ValueError - no buy-in moves from that server's balance (README: balances are
    per server)."""
    table = await store.create_table(G, CH, ALICE, RULES, 10, 100, 4, 1.0)
    await store.ensure_player(G, ALICE, "Alice", now=2.0)
    await store.ensure_player(G + 1, BOB, "Bob", now=2.0)
    before = await books(store)
    with pytest.raises(ValueError):
        await store.seat_player(table.id, 0, G + 1, BOB, "Bob", 100, 3.0)
    assert await books(store) == before and await store.seats(table.id) == []
    assert await store.balance(G, ALICE) == 1000 and await store.balance(G + 1, BOB) == 1000


async def test_a_join_the_store_refuses_is_answered_and_moves_nothing() -> None:
    """``/ofc join``: a seat the store refuses (here the seat the service chose was taken
    meanwhile, behind its back) is answered as a ServiceError, not an internal error, and
    no buy-in moves (bad input never changes state)."""
    svc, _rec, store = await make()
    t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=2, buyin=100)
    await store.seat_player(t.id, 1, G, CAROL, "carol", 100, 5.0)  # memory does not know
    with pytest.raises(ServiceError):
        await svc.join(G, CH, BOB, "bob", buyin=300)
    assert await store.wallet(G, BOB) == (1000, 0)
    assert {s.user_id: s.stack for s in await store.seats(t.id)} == {ALICE: 100, CAROL: 100}
    await svc.shutdown()
    await store.close()


# --------------------------------------------------------------------------- the books' check


async def test_the_check_finds_units_moved_in_a_practice_hand(store: Store) -> None:
    """README ``ofc-bot check``: "every settled hand's settlement and results" - a practice
    (uncounted) hand whose ledger moved units anyway (a damaged database: the rows forged
    here, summing to zero) is reported, naming the hand and the units moved."""
    table_id = await table_of_two(store)
    hand = await store.create_hand(table_id, 1, "s", RULES, {}, 20.0)
    await store.finish_hand(hand.id, {}, [res(ALICE, 0, 2, 0, counted=False),
                                          res(BOB, 1, -2, 0, counted=False)], {}, 21.0)
    assert await store.verify_ledger() == []
    for user, amount in ((ALICE, 20), (BOB, -20)):
        await store._db.execute(
            "INSERT INTO ledger (guild_id, user_id, account, kind, amount, table_id, hand_id,"
            " created_at) VALUES (?, ?, 'stack', 'hand', ?, ?, ?, 0)",
            (G, user, amount, table_id, hand.id))
    problems = await store.verify_ledger()
    assert f"hand {hand.id} user {ALICE}: result says 0 units, ledger moved 20" in problems
    assert f"hand {hand.id} user {BOB}: result says 0 units, ledger moved -20" in problems


async def test_the_check_reports_a_broken_foreign_key(store: Store) -> None:
    """``ofc-bot check``: "SQLite's integrity and foreign-key checks" - a seat whose table is
    missing (written with the foreign keys off, as a damaged database might hold) is
    reported."""
    await store._db.execute("PRAGMA foreign_keys = OFF")
    await store._db.execute(
        "INSERT INTO seats (table_id, seat_no, guild_id, user_id, name, is_bot, buyin,"
        " joined_at) VALUES (999, 0, ?, ?, 'ghost', 0, 0, 0)", (G, ALICE))
    await store._db.execute("PRAGMA foreign_keys = ON")
    problems = await store.verify_ledger()
    assert any(p.startswith("foreign key: seats row") and "missing tables row" in p
               for p in problems)


# --------------------------------------------------------------------------- units_moved


def test_units_moved_never_takes_a_unit_from_an_empty_stack() -> None:
    """engine.scoring.units_moved: "nobody losing more than their stack" - a stack of 0
    pays nothing (not even 1 unit) and nothing is created; without ``unit`` a point is 1
    unit ("points x unit", default 1)."""
    assert units_moved([[0, -5], [5, 0]], 1, [0, 100]) == [0, 0]
    assert units_moved([[0, -5, 0], [5, 0, 0], [0, 0, 0]], 3, [0, 100, 100]) == [0, 0, 0]
    assert units_moved([[0, 2], [-2, 0]]) == [2, -2]


# --------------------------------------------------------------------------- practice and broke


def _seat(no: int, is_bot: bool) -> SeatRow:
    return SeatRow(id=no + 1, table_id=1, seat_no=no, guild_id=G, user_id=BOT - no if is_bot
                   else ALICE + no, name=f"s{no}", is_bot=is_bot, bot_level=None, buyin=0,
                   sitting_out=False, leaving=False, joined_at=0.0, left_at=None, stack=0)


def test_practice_is_one_human_or_none_with_bots() -> None:
    """README: "a hand dealt to one human and bots is practice" (``practice_of``: "one
    human (or none) and bots") - not two humans with or without a bot, not one human
    alone."""
    human, other, bot = _seat(0, False), _seat(1, False), _seat(2, True)
    assert practice_of([human, bot]) is True
    assert practice_of([bot, _seat(3, True)]) is True
    assert practice_of([human]) is False
    assert practice_of([human, other]) is False
    assert practice_of([human, other, bot]) is False


async def test_a_stack_emptied_at_a_stake_1_table_is_broke() -> None:
    """README: "A player whose stack a hand empties is named (pinged) in the showdown and is
    not dealt in" - at the smallest stake too: Bob's 1 unit at 1 a point is lost, the
    showdown names him, and only ``/ofc join`` deals him in again (1 unit is a stack)."""
    deck = parse_cards("2c 3d 4h 5s 7c  Ah Ad Ac Kh Kd")  # bob trash, alice the nuts
    svc, _rec, store = await make(seed_factory=lambda: "svc-cap", deck_factory=lambda t: deck)
    svc.next_hand_delay = 3600.0
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=1, buyin=500)
    await svc.join(G, CH, BOB, "bob", buyin=1)
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    await finish_by_autoplay(svc, CH)
    await until(lambda: t.last_result is not None)
    r = t.last_result
    assert r is not None and r.units is not None
    assert dict(zip(r.user_ids, r.units, strict=True)) == {ALICE: 1, BOB: -1}
    assert await store.stack(t.id, BOB) == 0 and await store.stack(t.id, ALICE) == 501
    assert r.broke == (BOB,)
    bob = t.seat_of_user(BOB)
    assert bob is not None and svc.is_broke(t, bob)
    again = await svc.join(G, CH, BOB, "bob", buyin=1)  # buys in again: 1 unit is enough
    assert again.stack == 1 and not svc.is_broke(t, again)
    assert await store.wallet(G, BOB) == (998, 1)
    await svc.shutdown()
    await store.close()


async def test_nobody_is_broke_at_a_table_for_no_units() -> None:
    """README: "`stake:0` plays for no units ... it takes no buy-in": its players hold 0
    units and are never broke - a hand there moves no unit and the showdown names nobody's
    empty stack."""
    svc, _rec, store = await make(seed_factory=lambda: "mut-free")
    svc.next_hand_delay = 3600.0
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=0)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    await finish_by_autoplay(svc, CH)
    await until(lambda: t.last_result is not None)
    r = t.last_result
    assert r is not None and r.units == (0, 0) and r.broke == ()
    assert not any(svc.is_broke(t, s) for s in t.seats)
    assert await _hand_rows(store, t.id) == {}
    assert await store.wallet(G, ALICE) == (1000, 0) and await store.wallet(G, BOB) == (1000, 0)
    await svc.shutdown()
    await store.close()


# --------------------------------------------------------------------------- /ofc-admin grant


async def test_a_grant_of_nothing_creates_nobody() -> None:
    """``/ofc-admin grant`` with amount 0 is refused before anything is written: a user the
    server never saw gets no player row and no start balance (bad input never changes
    state); 1 and -1 are grants like any other."""
    svc, _rec, store = await make()
    with pytest.raises(ServiceError):
        await svc.grant(G, ALICE, CAROL, "carol", 0, True)
    assert await store.get_player(G, CAROL) is None
    assert await store.total_units(G) == (0, 0)
    assert await svc.grant(G, ALICE, BOB, "bob", 1, True) == 1001
    assert await svc.grant(G, ALICE, BOB, "bob", -1, True) == 1000
    await svc.shutdown()
    await store.close()


async def test_a_grant_to_a_newcomer_keeps_their_name_and_an_overdraw_is_answered() -> None:
    """A grant to someone new creates them under their name with the start balance plus the
    grant; taking back more than the balance is answered (ServiceError) and changes
    nothing."""
    svc, _rec, store = await make()
    assert await svc.grant(G, ALICE, CAROL, "carol", 50, True, "welcome") == 1050
    carol = await store.get_player(G, CAROL)
    assert carol is not None and (carol.name, carol.balance) == ("carol", 1050)
    with pytest.raises(ServiceError):
        await svc.grant(G, ALICE, CAROL, "carol", -1051, True)
    assert await store.balance(G, CAROL) == 1050
    assert [(e.amount, e.balance_after) for e in await store.audit_log(G)] == [(50, 1050)]
    await svc.shutdown()
    await store.close()
