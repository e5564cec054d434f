"""One game's leaderboard (``/ofc leaderboard variant``): the totals of a variant's hands apart,
kept by a trigger as results are written (migration 007), equal to adding up its results, for
all time and for a period; the hands of the other games and bots and practice left out."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.service import ServiceError
from bot.store import LeaderEntry, Store
from bot.store.store import load_migrations

from .test_service import make
from .test_store import ALICE, BOB, CAROL, CH, G2, G, res

DAY = 86_400.0


async def seated(store: Store, guild: int, channel: int, variant: str,
                 users: tuple[int, ...] = (ALICE, BOB)) -> int:
    table = await store.create_table(guild, channel, users[0], {"variant": variant}, 1, 500,
                                     4, 10.0)
    for seat, user in enumerate(users):
        await store.seat_player(table.id, seat, guild, user, f"p{user}", 500, 11.0)
    return table.id


async def played(store: Store, table_id: int, number: int, variant: str,
                 moves: dict[int, int], now: float, **kw: object) -> None:
    hand = await store.create_hand(table_id, number, "s", {"variant": variant}, {}, now)
    seats = {s.user_id: s.seat_no for s in await store.seats(table_id)}
    results = [res(u, seats[u], m, m, **kw) for u, m in moves.items()]
    await store.finish_hand(hand.id, {}, results, moves, now)


def back_to_schema_6(path: Path) -> None:
    """The database at ``path`` as the bot before migration 007 left it."""
    con = sqlite3.connect(path)
    con.executescript("DROP TRIGGER results_to_variant_standings;"
                      "DROP TRIGGER variant_standings_no_delete; DROP TABLE variant_standings;"
                      "PRAGMA user_version = 6;")
    con.close()


def board(entries: list[LeaderEntry]) -> list[tuple[int, int, int, int]]:
    return [(e.user_id, e.units, e.points, e.hands) for e in entries]


async def test_each_game_ranks_its_own_hands_for_all_time_and_a_period() -> None:
    store = await Store.open(":memory:")
    pine = await seated(store, G, CH, "pineapple")
    ofc = await seated(store, G, CH + 1, "ofc", (ALICE, CAROL))
    await played(store, pine, 1, "pineapple", {ALICE: 30, BOB: -30}, 1 * DAY)
    await played(store, pine, 2, "pineapple", {ALICE: -5, BOB: 5}, 5 * DAY,
                 fantasyland=True)
    await played(store, ofc, 1, "ofc", {ALICE: -12, CAROL: 12}, 5 * DAY)
    assert board(await store.leaderboard(G, "units", variant="pineapple")) == [
        (ALICE, 25, 25, 2), (BOB, -25, -25, 2)]
    assert board(await store.leaderboard(G, "units", variant="ofc")) == [
        (CAROL, 12, 12, 1), (ALICE, -12, -12, 1)]
    assert await store.leaderboard(G, "units", variant="chinese") == []
    assert board(await store.leaderboard(G, "units")) == [  # every game's
        (ALICE, 13, 13, 3), (CAROL, 12, 12, 1), (BOB, -25, -25, 2)]
    # a period: the last day's pineapple hands only
    assert board(await store.leaderboard(G, "units", 4 * DAY, variant="pineapple")) == [
        (BOB, 5, 5, 1), (ALICE, -5, -5, 1)]
    fl = await store.leaderboard(G, "fantasylands", variant="pineapple")
    assert [(e.user_id, e.fantasylands) for e in fl] == [(ALICE, 1), (BOB, 1)]
    # the kept totals equal the results added up (the period query from the start of time)
    for variant in ("pineapple", "ofc"):
        for by in ("units", "points", "hands", "fantasylands"):
            assert await store.leaderboard(G, by, variant=variant) == \
                await store.leaderboard(G, by, 0.0, variant=variant)
    assert await store.verify_ledger() == []
    await store.close()


async def test_bots_practice_and_other_servers_are_left_out() -> None:
    store = await Store.open(":memory:")
    pine = await seated(store, G, CH, "pineapple")
    other = await seated(store, G2, CH + 7, "pineapple")
    await played(store, pine, 1, "pineapple", {ALICE: 3, BOB: -3}, DAY)
    hand = await store.create_hand(pine, 2, "s", {"variant": "pineapple"}, {}, DAY)
    await store.finish_hand(hand.id, {}, [res(ALICE, 0, 9, 0, counted=False),
                                          res(BOB, 1, -9, 0, counted=False)], {}, DAY)
    await played(store, other, 1, "pineapple", {ALICE: 100, BOB: -100}, DAY)
    assert board(await store.leaderboard(G, "units", variant="pineapple")) == [
        (ALICE, 3, 3, 1), (BOB, -3, -3, 1)]
    assert await store.verify_ledger() == []
    await store.close()


async def test_the_totals_are_checked_and_never_deleted() -> None:
    store = await Store.open(":memory:")
    pine = await seated(store, G, CH, "pineapple")
    await played(store, pine, 1, "pineapple", {ALICE: 3, BOB: -3}, DAY)
    await store._db.execute("UPDATE variant_standings SET units = 99 WHERE user_id = ?",
                            (ALICE,))
    await store._db.commit()
    assert await store.verify_ledger() == [
        f"guild {G} user {ALICE}: the pineapple leaderboard's totals disagree with the results"]
    with pytest.raises(sqlite3.IntegrityError):
        await store._db.execute("DELETE FROM variant_standings")
    await store.close()


async def test_migration_007_adds_up_each_games_totals_of_an_older_database(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    store = await Store.open(path)
    pine = await seated(store, G, CH, "pineapple")
    ofc = await seated(store, G, CH + 1, "ofc")
    await played(store, pine, 1, "pineapple", {ALICE: 7, BOB: -7}, DAY)
    await played(store, ofc, 1, "ofc", {ALICE: -2, BOB: 2}, DAY)
    old = await store.create_table(G, CH + 2, ALICE, {}, 1, 0, 2, 10.0)  # no variant said
    await store.seat_player(old.id, 0, G, ALICE, "a", 0, 11.0)
    await store.seat_player(old.id, 1, G, BOB, "b", 0, 11.0)
    hand = await store.create_hand(old.id, 1, "s", {}, {}, DAY)
    await store.finish_hand(hand.id, {}, [res(ALICE, 0, 1, 0), res(BOB, 1, -1, 0)], {}, DAY)
    before = {v: await store.leaderboard(G, "units", variant=v) for v in ("pineapple", "ofc")}
    await store.close()
    back_to_schema_6(path)
    store = await Store.open(path)
    try:
        assert await store.schema_version() == load_migrations()[-1][0]
        assert {v: await store.leaderboard(G, "units", variant=v)
                for v in ("pineapple", "ofc")} == before
        assert board(before["pineapple"]) == [(ALICE, 7, 7, 1), (BOB, -7, -7, 1)]
        assert await store.verify_ledger() == []
    finally:
        await store.close()


def test_the_stores_default_game_is_the_rules_default() -> None:
    """A hand whose rules do not say their game is played as ``Rules()``'s: the store files
    it there too (its SQL and migration 007's say 'ofc')."""
    from bot.store.store import _GAME
    from engine import Rules

    migration = next(sql for n, _, sql in load_migrations() if n == 7)
    assert f"'{Rules().variant}')" in _GAME and migration.count(f"'{Rules().variant}')") == 2


async def test_the_service_checks_the_game() -> None:
    svc, rec, store = await make()
    with pytest.raises(ServiceError, match="The game is ofc, pineapple or chinese."):
        await svc.leaderboard(G, "units", "all", variant="poker")
    assert await svc.leaderboard(G, "units", "week", variant="chinese") == []
    await store.close()


async def test_a_players_stats_of_one_game() -> None:
    """`/ofc stats variant:`: that game's hands, fouls and fantasylands; the balance line is
    still the units the player owned after each of them (all games' moves counted)."""
    store = await Store.open(":memory:")
    pine = await seated(store, G, CH, "pineapple")
    ofc = await seated(store, G, CH + 1, "ofc")
    await played(store, pine, 1, "pineapple", {ALICE: 30, BOB: -30}, DAY, fouled=False)
    await played(store, ofc, 1, "ofc", {ALICE: -12, BOB: 12}, 2 * DAY)
    await played(store, pine, 2, "pineapple", {ALICE: -5, BOB: 5}, 3 * DAY, fantasyland=True)
    every = await store.player_stats(G, ALICE)
    pineapple = await store.player_stats(G, ALICE, "pineapple")
    ofc_only = await store.player_stats(G, ALICE, "ofc")
    assert (every.hands, every.units, every.fantasylands) == (3, 13, 1)
    assert (pineapple.hands, pineapple.units, pineapple.points, pineapple.fantasylands) == (
        2, 25, 25, 1)
    assert (ofc_only.hands, ofc_only.units, ofc_only.fantasylands) == (1, -12, 0)
    # owned: 1000 at the start; +30, -12, -5 -> 1030, 1018, 1013
    assert every.balance_history == [1000, 1030, 1018, 1013]
    assert pineapple.balance_history == [1000, 1030, 1013]  # (before the first, after each)
    assert ofc_only.balance_history == [1030, 1018]
    assert pineapple.balance == every.balance
    assert (await store.player_stats(G, ALICE, "chinese")).hands == 0
    await store.close()


async def test_the_service_checks_the_game_of_stats() -> None:
    svc, rec, store = await make()
    with pytest.raises(ServiceError, match="The game is ofc, pineapple or chinese."):
        await svc.stats(G, ALICE, "alice", variant="poker")
    assert (await svc.stats(G, ALICE, "alice", variant="ofc")).hands == 0
    await store.close()
