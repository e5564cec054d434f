"""The numbers players see about money and results: /ofc balance, /ofc stats, /ofc
leaderboard, /ofc history and the showdown's totals, checked against the ledger and the hands
actually played (from a review of them)."""

from __future__ import annotations

from pathlib import Path

from bot.store import HandResult, Store
from renderer.leaderboard import describe_stats
from renderer.model import StatsView
from tests.bot.test_service import (
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

G2 = 11  # a second server
CH2, CH3 = 21, 30  # a second table in G, a table in G2


async def _hand_units(store: Store, table_id: int) -> dict[int, int]:
    """Units each user won or lost at a table, from the ledger's 'hand' rows."""
    async with store._db.execute(
        "SELECT user_id, SUM(amount) FROM ledger WHERE kind = 'hand' AND table_id = ?"
        " GROUP BY user_id", (table_id,)
    ) as cur:
        return {int(u): int(a) for u, a in await cur.fetchall()}


async def test_an_ofc_surrender_is_not_counted_as_a_foul_in_stats() -> None:
    """A surrender in ofc/pineapple scores as a foul (the engine marks its board ``fouled``,
    stored so in ``results.fouled``) but is no foul in /ofc stats' foul % (it said "fouls
    100%" after a hand the player surrendered), as the showdown and /ofc history tell a
    surrender apart from a foul."""
    svc, rec, store, t = await heads_up("review-surrender", "ofc")
    svc.next_hand_delay = 3600.0
    text = await svc.surrender(CH, ALICE, svc.surrender_check(CH, ALICE))
    assert "surrender" in text.lower()
    await finish_by_autoplay(svc)
    await until(lambda: t.last_result is not None)
    result = t.last_result
    assert result is not None
    a = result.user_ids.index(ALICE)
    assert result.settlement.surrendered[a]
    (_, results), = await store.history(t.id, 1)
    mine = next(r for r in results if r.user_id == ALICE)
    assert mine.surrendered  # /ofc history shows "(surrendered)", not "(foul)"
    stats = await store.player_stats(G, ALICE)
    assert stats.hands == 1
    assert stats.fouls == 0, "a surrender is shown as a foul in /ofc stats' foul %"
    await svc.shutdown()
    await store.close()


async def test_the_stats_balance_line_starts_before_the_first_hand_it_covers(
    tmp_path: Path,
) -> None:
    """The balance line starts before the first hand it covers: after a player's only hand,
    won by 30 units, /ofc stats said "from 1030 to 1030" and drew one point (the series held
    the units owned after each hand only, so the first hand's result was invisible)."""
    store = await Store.open(tmp_path / "ofc.db")
    table = await store.create_table(G, CH, ALICE, {"variant": "ofc"}, 1, 100, 2, 10.0)
    await store.seat_player(table.id, 0, G, ALICE, "alice", 100, 11.0)
    await store.seat_player(table.id, 1, G, BOB, "bob", 100, 12.0)
    hand = await store.create_hand(table.id, 1, "s", {}, {}, 20.0)
    await store.finish_hand(hand.id, {}, [
        HandResult(user_id=ALICE, seat_no=0, name="alice", points=30, units=30),
        HandResult(user_id=BOB, seat_no=1, name="bob", points=-30, units=-30),
    ], {ALICE: 30, BOB: -30}, 21.0)
    st = await store.player_stats(G, ALICE)
    # what cogs/ofc.py's /ofc stats builds from it
    view = StatsView(name="alice", hands=st.hands, points=st.points, units=st.units,
                     foul_rate=0.0, fantasyland_rate=0.0, balances=tuple(st.balance_history))
    text = describe_stats(view)
    assert "from 1000 to 1030" in text, text
    await store.close()


async def test_two_servers_and_two_tables_keep_their_numbers_apart() -> None:
    """Alice plays at two tables of one server and at a table of another at the same time:
    each server's balance, units at tables, stats, balance chart and leaderboard hold exactly
    the hands played there (checked against the ledger), and nothing mixes."""
    seeds = iter(f"review-two-{n}" for n in range(100))
    svc, rec, store = await make(seed_factory=lambda: next(seeds))
    svc.next_hand_delay = 3600.0
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=3, buyin=200)
    await svc.join(G, CH, BOB, "bob", buyin=200)
    await svc.new_table(G, CH2, ALICE, "alice", variant="pineapple", stake=2, buyin=300)
    await svc.join(G, CH2, CAROL, "carol", buyin=300)
    await svc.new_table(G2, CH3, ALICE, "alice-2", variant="chinese", stake=5, buyin=400)
    await svc.join(G2, CH3, BOB, "bob-2", buyin=400)
    tables = {ch: svc.table_in_channel(ch) for ch in (CH, CH2, CH3)}
    for ch in (CH, CH2, CH3):
        await svc.start(ch, ALICE)
    for ch in (CH, CH2, CH3):
        await finish_by_autoplay(svc, ch)
    await until(lambda: all(t.last_result is not None for t in tables.values()))
    won = {ch: await _hand_units(store, t.id) for ch, t in tables.items()}
    for ch, t in tables.items():  # the showdown's units are the ledger's
        r = t.last_result
        assert r is not None and r.units is not None
        assert dict(zip(r.user_ids, r.units, strict=True)) == {
            u: won[ch].get(u, 0) for u in r.user_ids}
    in_g = won[CH].get(ALICE, 0) + won[CH2].get(ALICE, 0)
    in_g2 = won[CH3].get(ALICE, 0)
    assert await store.wallet(G, ALICE) == (500, 500 + in_g)
    assert await store.wallet(G2, ALICE) == (600, 400 + in_g2)
    assert await store.wallet(G, BOB) == (800, 200 + won[CH].get(BOB, 0))
    assert await store.wallet(G2, BOB) == (600, 400 + won[CH3].get(BOB, 0))
    st, st2 = await store.player_stats(G, ALICE), await store.player_stats(G2, ALICE)
    assert (st.hands, st.units, st.balance_history[-1]) == (2, in_g, 1000 + in_g)
    assert (st2.hands, st2.units, st2.balance_history) == (1, in_g2, [1000, 1000 + in_g2])
    assert st.name == "alice" and st2.name == "alice-2"
    board = {e.user_id: (e.units, e.hands, e.name) for e in await store.leaderboard(G)}
    board2 = {e.user_id: (e.units, e.hands, e.name) for e in await store.leaderboard(G2)}
    assert board[ALICE] == (in_g, 2, "alice") and board2[ALICE] == (in_g2, 1, "alice-2")
    assert set(board) == {ALICE, BOB, CAROL} and set(board2) == {ALICE, BOB}
    assert await store.total_units(G) == (3000, 3000)
    assert await store.total_units(G2) == (2000, 2000)
    assert await store.verify_ledger() == []
    await svc.shutdown()
    await store.close()


async def test_a_stake_0_table_moves_nothing_but_its_points_count() -> None:
    """Two humans at a stake-0 table: no ledger row, +0 units in the showdown, history and
    leaderboard, the balances untouched; the hand counts in hands and points (it is not
    practice: README only calls one human against bots practice)."""
    svc, rec, store = await make(seed_factory=lambda: "review-stake0")
    svc.next_hand_delay = 3600.0
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=0, buyin=0)
    await svc.join(G, CH, BOB, "bob", buyin=0)
    t = svc.table_in_channel(CH)
    await svc.start(CH, ALICE)
    await finish_by_autoplay(svc)
    await until(lambda: t.last_result is not None)
    r = t.last_result
    assert r is not None and not r.practice and r.units == (0, 0)
    assert await _hand_units(store, t.id) == {}
    totals = dict(zip(r.user_ids, r.settlement.totals, strict=True))
    board = {e.user_id: (e.units, e.points, e.hands) for e in await store.leaderboard(G)}
    assert board == {ALICE: (0, totals[ALICE], 1), BOB: (0, totals[BOB], 1)}
    assert await store.wallet(G, ALICE) == (1000, 0)
    (_, results), = await store.history(t.id, 1)
    assert all(x.counted and x.units == 0 for x in results)
    await svc.shutdown()
    await store.close()


async def test_the_day_and_week_periods_are_the_last_24_hours_and_7_days() -> None:
    """The service's periods: a hand finished 2 days ago is in the week's leaderboard, not
    the day's; one 8 days ago only in all time."""
    clock = Clock()
    svc, rec, store = await make(seed_factory=lambda: "review-period", clock=clock)
    table = await store.create_table(G, CH, ALICE, {"variant": "ofc"}, 1, 100, 2)
    await store.seat_player(table.id, 0, G, ALICE, "alice", 100)
    await store.seat_player(table.id, 1, G, BOB, "bob", 100)
    now = clock()
    for number, (ago, swing) in enumerate(((8 * 86_400, 5), (2 * 86_400, 7),
                                           (86_400 - 60, 11)), start=1):
        hand = await store.create_hand(table.id, number, "s", {}, {}, now - ago)
        await store.finish_hand(hand.id, {}, [
            HandResult(user_id=ALICE, seat_no=0, name="alice", points=swing, units=swing),
            HandResult(user_id=BOB, seat_no=1, name="bob", points=-swing, units=-swing),
        ], {ALICE: swing, BOB: -swing}, now - ago)

    async def alice(period: str) -> tuple[int, int]:
        entry = next(e for e in await svc.leaderboard(G, "units", period)
                     if e.user_id == ALICE)
        return entry.units, entry.hands

    assert await alice("day") == (11, 1)
    assert await alice("week") == (18, 2)
    assert await alice("all") == (23, 3)
    await svc.shutdown()
    await store.close()
