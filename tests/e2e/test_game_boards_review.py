"""Review of one game's leaderboard and stats (``/ofc leaderboard variant:``, ``/ofc stats
variant:``): each game's board against the every-game board and against the results read the
way the bot reads a hand's game (``Rules.from_json(hands.rules).variant``), for hands played
through the real service (three games, bots, practice, two servers), the migration on an
older database, a failed settlement, the stats per game and bad input."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.service import ServiceError, TableService
from bot.store import LeaderEntry, Store
from bot.store.store import load_migrations
from engine.rules import VARIANTS, Rules
from tests.bot.test_service import ALICE, BOB, CAROL, CH, Clock, G, make, until
from tests.bot.test_store import res
from tests.bot.test_variant_leaderboard import back_to_schema_6
from tests.e2e.conftest import make_world

G2 = G + 1
DAVE = 104
KEYS = ("units", "points", "hands", "fantasylands")
ALL = 10_000  # a limit that shows everyone


# --------------------------------------------------------------------------- helpers


def game_of(rules: str) -> str:
    """The game of a hand as the store files it: its rules' variant when they name one, else
    the rules' default game (ofc), as the bot reads rules that do not say (and as unreadable
    rules are filed, so that the games' boards still add up to the every-game board); a
    variant that is not text is no game ('')."""
    try:
        data = json.loads(rules)
    except ValueError:
        return Rules().variant
    variant = data.get("variant") if isinstance(data, dict) else None
    if variant is None:
        return Rules().variant
    return variant if isinstance(variant, str) else ""


async def truth(store: Store, guild: int,
                since: float | None = None) -> dict[str, dict[int, list[int]]]:
    """Each game's totals per human (units, points, hands, fantasylands), from the results."""
    rows = await store._all(
        "SELECT r.user_id, r.points, r.ranked_points, r.fantasyland, h.rules,"
        " (SELECT COALESCE(SUM(amount), 0) FROM ledger l WHERE l.hand_id = r.hand_id"
        "   AND l.user_id = r.user_id AND l.kind = 'hand') AS won"
        " FROM results r JOIN hands h ON h.id = r.hand_id"
        " WHERE r.guild_id = ? AND r.counted = 1 AND r.is_bot = 0 AND r.finished_at >= ?",
        (guild, -1.0 if since is None else since))
    out: dict[str, dict[int, list[int]]] = {}
    for row in rows:
        acc = out.setdefault(game_of(row["rules"]), {}).setdefault(row["user_id"], [0, 0, 0, 0])
        acc[0] += row["won"]
        acc[1] += row["points"] if row["ranked_points"] is None else row["ranked_points"]
        acc[2] += 1
        acc[3] += row["fantasyland"]
    return out


def totals(entries: list[LeaderEntry]) -> dict[int, list[int]]:
    return {e.user_id: [e.units, e.points, e.hands, e.fantasylands] for e in entries}


async def check_boards_add_up(store: Store, guild: int, since: float | None = None) -> None:
    """Each game's board equals its results; the games' boards add up to the every-game
    board for every key; the same names; ranked the same way."""
    for by in KEYS:
        every = await store.leaderboard(guild, by, since, ALL)
        summed: dict[int, list[int]] = {}
        names = {e.user_id: e.name for e in every}
        for variant in VARIANTS:
            board = await store.leaderboard(guild, by, since, ALL, variant)
            for e in board:
                acc = summed.setdefault(e.user_id, [0, 0, 0, 0])
                for i, v in enumerate((e.units, e.points, e.hands, e.fantasylands)):
                    acc[i] += v
                assert e.name == names.get(e.user_id), (variant, e)
            # ranked by the key, then units, points, lower id
            order = [(-getattr(e, by), -e.units, -e.points, e.user_id) for e in board]
            assert order == sorted(order), (variant, by)
        assert summed == totals(every), by


async def check_boards_are_the_results(store: Store, guild: int,
                                       since: float | None = None) -> None:
    want = await truth(store, guild, since)
    for variant in VARIANTS:
        got = totals(await store.leaderboard(guild, "units", since, ALL, variant))
        assert got == want.get(variant, {}), variant


async def autoplay(svc: TableService, channel: int) -> None:
    """Autoplay every seat until the hand is over (a bot's own move may end it first)."""
    t = svc.table_in_channel(channel)
    while True:
        async with t.lock:
            if t.hand is None or t.hand.is_over:
                return
            t.hand.autoplay(t.hand.to_act()[0])
            await svc._after_action(t)


async def play_hands(svc: TableService, channel: int, n: int) -> None:
    """Play ``n`` hands at the table of ``channel`` (everyone autoplayed), each settled."""
    t = svc.table_in_channel(channel)
    for _ in range(n):
        await until(lambda: t.hand is not None, seconds=10.0)
        assert t.hand is not None
        number = t.row.hand_no
        await autoplay(svc, channel)
        await until(lambda n=number: t.row.hand_no > n and t.hand is not None, seconds=10.0)
        assert t.row.hand_no > number, "the next hand was not dealt"


async def played_world(clock: Clock | None = None) -> tuple[TableService, Store]:
    """Hands of all three games in server G (humans only; humans and a bot: ranked points;
    one human and a bot: practice) and pineapple in server G2, through the service."""
    svc, rec, store = await make(clock=clock or Clock(), seed_factory=lambda: "review-seed")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    await svc.new_table(G, CH + 1, ALICE, "alice", variant="pineapple", bots=1,
                        bot_level="easy")
    await svc.join(G, CH + 1, CAROL, "carol")  # humans and a bot: ranked points
    await svc.start(CH + 1, ALICE)
    await svc.new_table(G, CH + 2, BOB, "bob", variant="chinese", bots=1, bot_level="easy")
    await svc.join(G, CH + 2, CAROL, "carol")
    await svc.join(G, CH + 2, DAVE, "dave")
    await svc.start(CH + 2, BOB)
    await svc.new_table(G, CH + 3, DAVE, "dave", variant="ofc", bots=1, bot_level="easy")
    await svc.start(CH + 3, DAVE)  # practice
    await svc.new_table(G2, CH + 4, ALICE, "alice", variant="pineapple")
    await svc.join(G2, CH + 4, BOB, "bob")
    await svc.start(CH + 4, ALICE)
    for channel in range(CH, CH + 5):
        await play_hands(svc, channel, 3)
    return svc, store


# --------------------------------------------------------------------------- boards


async def test_games_boards_add_up_to_the_every_game_board_for_real_hands() -> None:
    svc, store = await played_world()
    try:
        counted = await store._all(
            "SELECT r.guild_id, h.rules, r.is_bot, r.counted, r.ranked_points"
            " FROM results r JOIN hands h ON h.id = r.hand_id")
        games = {(r["guild_id"], json.loads(r["rules"])["variant"]) for r in counted
                 if r["counted"]}
        assert games == {(G, "ofc"), (G, "pineapple"), (G, "chinese"), (G2, "pineapple")}
        assert any(r["ranked_points"] is not None for r in counted)  # humans and a bot
        assert any(not r["counted"] and not r["is_bot"] for r in counted)  # practice
        for guild in (G, G2):
            await check_boards_add_up(store, guild)
            await check_boards_add_up(store, guild, 0.0)
            await check_boards_are_the_results(store, guild)
            await check_boards_are_the_results(store, guild, 0.0)
        # dave's practice hands count nowhere: only his chinese ones
        assert totals(await store.leaderboard(G, "hands", None, ALL, "ofc")).keys() == {
            ALICE, BOB}
        assert DAVE in totals(await store.leaderboard(G, "hands", None, ALL, "chinese"))
        # the other server's pineapple is not this one's
        g2 = totals(await store.leaderboard(G2, "hands", None, ALL, "pineapple"))
        assert g2.keys() == {ALICE, BOB} and all(v[2] == 3 for v in g2.values())
        assert await store.leaderboard(G2, "hands", None, ALL, "ofc") == []
        # through the service, each period
        for period in ("day", "week", "month", "all"):
            for by in KEYS:
                every = await svc.leaderboard(G, by, period, ALL)
                per = [await svc.leaderboard(G, by, period, ALL, variant=v) for v in VARIANTS]
                summed: dict[int, int] = {}
                for board in per:
                    for e in board:
                        summed[e.user_id] = summed.get(e.user_id, 0) + getattr(e, by)
                assert summed == {e.user_id: getattr(e, by) for e in every}, (period, by)
        assert await store.verify_ledger() == []
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_period_board_of_one_game_leaves_out_older_hands() -> None:
    clock = Clock()
    svc, rec, store = await make(clock=clock, seed_factory=lambda: "review-period")
    try:
        await svc.new_table(G, CH, ALICE, "alice", variant="pineapple")
        await svc.join(G, CH, BOB, "bob")
        await svc.start(CH, ALICE)
        await play_hands(svc, CH, 2)
        clock.offset += 3 * 86_400.0  # three days later: two more
        await play_hands(svc, CH, 2)
        day = await svc.leaderboard(G, "hands", "day", ALL, variant="pineapple")
        week = await svc.leaderboard(G, "hands", "week", ALL, variant="pineapple")
        assert {e.user_id: e.hands for e in day} == {ALICE: 2, BOB: 2}
        assert {e.user_id: e.hands for e in week} == {ALICE: 4, BOB: 4}
        assert await svc.leaderboard(G, "hands", "day", ALL, variant="ofc") == []
        since = clock() - 86_400.0
        await check_boards_add_up(store, G, since)
        await check_boards_are_the_results(store, G, since)
        assert week == await svc.leaderboard(G, "hands", "all", ALL, variant="pineapple")
    finally:
        await svc.shutdown()
        await store.close()


async def seat_all(store: Store, guild: int, channel: int, variant: str,
                   users: list[int], rules: dict[str, Any] | None = None) -> int:
    table = await store.create_table(guild, channel, users[0],
                                     rules if rules is not None else {"variant": variant},
                                     1, 100, 10, 10.0)
    for seat, user in enumerate(users):
        await store.seat_player(table.id, seat, guild, user, f"p{user}", 100, 11.0)
    return table.id


async def settle(store: Store, table_id: int, number: int, rules: dict[str, Any],
                 moves: dict[int, int], now: float, **kw: Any) -> int:
    hand = await store.create_hand(table_id, number, "s", rules, {}, now)
    seats = {s.user_id: s.seat_no for s in await store.seats(table_id)}
    await store.finish_hand(hand.id, {}, [res(u, seats[u], m, m, **kw) for u, m in
                                          moves.items()], moves, now)
    return hand.id


async def test_the_tenth_place_tie_and_ties_on_one_games_board() -> None:
    store = await Store.open(":memory:")
    try:
        users = [1000 + i for i in range(13)]
        first = await seat_all(store, G, CH, "chinese", users[:7])
        second = await seat_all(store, G, CH + 1, "chinese", users[7:])
        other = await seat_all(store, G, CH + 2, "ofc", [2000, 2001])
        # chinese: 9..4, 3, 2, then three tied on -1 in tenth place, -2 and -39
        moves = {u: 9 - i for i, u in enumerate(users[:6])}
        moves[users[6]] = -sum(moves.values())
        await settle(store, first, 1, {"variant": "chinese"}, moves, 100.0)
        await settle(store, second, 1, {"variant": "chinese"},
                     {users[7]: 3, users[8]: 2, users[9]: -1, users[10]: -1, users[11]: -1,
                      users[12]: -2}, 100.0)
        # ofc: others, so the every-game board differs from each game's
        await settle(store, other, 1, {"variant": "ofc"}, {2000: -50, 2001: 50}, 100.0)
        board = await store.leaderboard(G, "units", None, 10, "chinese")
        assert [e.user_id for e in board] == [*users[:6], *users[7:12]]  # the tie all shown
        assert [e.units for e in board[8:]] == [-1, -1, -1]
        assert board == await store.leaderboard(G, "units", 0.0, 10, "chinese")
        every = await store.leaderboard(G, "units", None, 10)
        assert [e.user_id for e in every] == [2001, *users[:6], *users[7:12]]
        # ties on hands: all 13 played one chinese hand: ranked by units then id
        hands = await store.leaderboard(G, "hands", None, 10, "chinese")
        assert len(hands) == 13
        assert [e.user_id for e in hands] == [
            e.user_id for e in await store.leaderboard(G, "units", None, ALL, "chinese")]
        await check_boards_add_up(store, G)
        await check_boards_add_up(store, G, 0.0)
        assert await store.verify_ledger() == []
    finally:
        await store.close()


async def test_surrenders_naturals_fouls_and_bots_by_game() -> None:
    """Results of every kind in one server, through the store: each game's board and stats
    equal to its results."""
    store = await Store.open(":memory:")
    try:
        chinese = await seat_all(store, G, CH, "chinese", [ALICE, BOB, CAROL])
        pine = await seat_all(store, G, CH + 1, "pineapple", [ALICE, BOB])
        bot_table = await store.create_table(G, CH + 2, ALICE, {"variant": "ofc"}, 1, 100, 3,
                                             10.0)
        await store.seat_player(bot_table.id, 0, G, ALICE, "Alice", 100, 11.0)
        await store.seat_player(bot_table.id, 1, G, BOB, "Bob", 100, 11.0)
        hand = await store.create_hand(bot_table.id, 1, "s", {"variant": "ofc"}, {}, 50.0)
        results = [res(ALICE, 0, 10, 4, ranked_points=4), res(BOB, 1, -3, -4, ranked_points=-4)]
        await store.finish_hand(hand.id, {}, results, {ALICE: 4, BOB: -4}, 50.0)
        hand = await store.create_hand(chinese, 1, "s", {"variant": "chinese"}, {}, 60.0)
        await store.finish_hand(hand.id, {}, [
            res(ALICE, 0, 6, 6, natural="dragon"),
            res(BOB, 1, -3, -3, surrendered=True, fouled=True),
            res(CAROL, 2, -3, -3, fouled=True)], {ALICE: 6, BOB: -3, CAROL: -3}, 60.0)
        await settle(store, pine, 1, {"variant": "pineapple"}, {ALICE: -2, BOB: 2}, 70.0,
                     fantasyland=True)
        await check_boards_add_up(store, G)
        await check_boards_are_the_results(store, G)
        ofc = totals(await store.leaderboard(G, "points", None, ALL, "ofc"))
        assert ofc == {ALICE: [4, 4, 1, 0], BOB: [-4, -4, 1, 0]}  # ranked points, not 10/-3
        bob = await store.player_stats(G, BOB, "chinese")
        carol = await store.player_stats(G, CAROL, "chinese")
        assert (bob.hands, bob.fouls, carol.fouls) == (1, 0, 1)  # a surrender is no foul
        pine_alice = await store.player_stats(G, ALICE, "pineapple")
        assert (pine_alice.hands, pine_alice.fantasylands, pine_alice.units) == (1, 1, -2)
        assert await store.verify_ledger() == []
    finally:
        await store.close()


# --------------------------------------------------------------------------- stats


async def check_stats(store: Store, guild: int, user: int) -> None:
    """A player's stats of each game against the results and the ledger; the games' stats
    add up to the every-game stats."""
    every = await store.player_stats(guild, user)
    sums = [0, 0, 0, 0, 0]
    for variant in VARIANTS:
        st = await store.player_stats(guild, user, variant)
        rows = await store._all(
            "SELECT r.*, h.rules, h.ledger_seq AS seq, h.id AS hid,"
            " (SELECT COALESCE(SUM(amount), 0) FROM ledger l WHERE l.hand_id = r.hand_id"
            "   AND l.user_id = r.user_id AND l.kind = 'hand') AS won"
            " FROM results r JOIN hands h ON h.id = r.hand_id"
            " WHERE r.guild_id = ? AND r.user_id = ? AND r.counted = 1 AND r.is_bot = 0"
            " ORDER BY h.ledger_seq, h.finished_at, h.id", (guild, user))
        mine = [r for r in rows if game_of(r["rules"]) == variant]
        want = (len(mine),
                sum(r["points"] if r["ranked_points"] is None else r["ranked_points"]
                    for r in mine),
                sum(r["won"] for r in mine),
                sum(1 for r in mine if r["fouled"] and not r["surrendered"]),
                sum(r["fantasyland"] for r in mine))
        got = (st.hands, st.points, st.units, st.fouls, st.fantasylands)
        assert got == want, variant
        sums = [a + b for a, b in zip(sums, got, strict=True)]
        # the balance line: owned before the first of the last 30, and after each
        last = mine[-30:]
        owned = []
        for r in last:
            owned.append(int(await store._scalar(
                "SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE guild_id = ? AND user_id = ?"
                " AND id <= ?", (guild, user, r["seq"]))))
        if last:
            owned.insert(0, owned[0] - last[0]["won"])
        assert st.balance_history == owned, variant
        assert (st.balance, st.in_play) == (every.balance, every.in_play)
    assert sums == [every.hands, every.points, every.units, every.fouls, every.fantasylands]


async def test_each_games_stats_are_its_results_for_real_hands() -> None:
    svc, store = await played_world()
    try:
        for guild in (G, G2):
            for user in (ALICE, BOB, CAROL, DAVE):
                await check_stats(store, guild, user)
        st = await svc.stats(G, DAVE, "dave", "ofc")  # practice only
        assert st.hands == 0 and st.balance_history == []
        assert (await svc.stats(G, DAVE, "dave", "chinese")).hands == 3
    finally:
        await svc.shutdown()
        await store.close()


# --------------------------------------------------------------------------- bad input


async def test_bad_games_are_refused_not_crashed() -> None:
    svc, rec, store = await make()
    try:
        for bad in ("", "OFC", "Pineapple", " ofc", "poker", 1, "all"):
            with pytest.raises(ServiceError, match="The game is ofc, pineapple or chinese."):
                await svc.leaderboard(G, "units", "all", variant=bad)  # type: ignore[arg-type]
            with pytest.raises(ServiceError, match="The game is ofc, pineapple or chinese."):
                await svc.stats(G, ALICE, "alice", bad)  # type: ignore[arg-type]
        for period in ("day", "week", "month", "all"):
            for variant in (*VARIANTS, None):
                assert await svc.leaderboard(G, "fantasylands", period, variant=variant) == []
        with pytest.raises(ServiceError):
            await svc.leaderboard(G, "names", "all", variant="ofc")
    finally:
        await store.close()


# ------------------------------------------------------------------- hands whose rules do not say


async def test_a_hand_whose_rules_name_no_game_still_settles() -> None:
    """The trigger reads the game of the hand's rules: JSON that is not an object, or whose
    variant is not text, never keeps a hand from settling, and the totals stay checked.
    (Rules that are not JSON at all the store cannot read back as a hand: ``_loads_obj``.)"""
    store = await Store.open(":memory:")
    try:
        table = await seat_all(store, G, CH, "ofc", [ALICE, BOB])
        odd = ("[1, 2]", '"ofc"', '{"variant": null}', '{"variant": 7}',
               '{"variant": {"a": 1}}', "null", '{"variant": "OFC"}')
        for n, raw in enumerate(odd, start=1):
            hand = await store.create_hand(table, n, "s", {"variant": "ofc"}, {}, 10.0 * n)
            await store._db.execute("UPDATE hands SET rules = ? WHERE id = ?", (raw, hand.id))
            await store._db.commit()
            await store.finish_hand(hand.id, {}, [res(ALICE, 0, 1, 1), res(BOB, 1, -1, -1)],
                                    {ALICE: 1, BOB: -1}, 10.0 * n)
        assert (await store.player_stats(G, ALICE)).hands == len(odd)
        assert totals(await store.leaderboard(G, "hands")) == {
            ALICE: [7, 7, 7, 0], BOB: [-7, -7, 7, 0]}
        assert await store.verify_ledger() == []
        # the four whose rules name no game are the default game's (ofc); the others no
        # game's board shows ("OFC", 7, an object)
        for variant in VARIANTS:
            want = {ALICE: [4, 4, 4, 0], BOB: [-4, -4, 4, 0]} if variant == "ofc" else {}
            assert totals(await store.leaderboard(G, "units", None, ALL, variant)) == want
            assert totals(await store.leaderboard(G, "units", 0.0, ALL, variant)) == want
    finally:
        await store.close()


async def test_a_hand_whose_rules_do_not_name_the_game_is_ofc() -> None:
    """Was a defect (fixed: the store, migration 007 and its trigger read such a hand as the
    rules' default game, ofc): hands.rules defaults to '{}' (migration 001) and the bot
    reads a hand whose rules do not name the game as ofc (``Rules.from_json({}).variant ==
    'ofc'``, the game's default), but migration 007, its trigger, the period board and
    ``player_stats`` file such a hand under the game '' that no command shows.  A player who
    played such hands sees them on ``/ofc leaderboard`` but on none of the ofc, pineapple or
    chinese boards: the games' boards (and ``/ofc stats variant:``) do not add up to the
    every-game board and stats."""
    store = await Store.open(":memory:")
    try:
        table = await seat_all(store, G, CH, "ofc", [ALICE, BOB], rules={})
        await settle(store, table, 1, {}, {ALICE: 5, BOB: -5}, 10.0)
        await settle(store, table, 2, {"scoring": "1-6"}, {ALICE: 2, BOB: -2}, 20.0)
        assert await store.verify_ledger() == []
        assert totals(await store.leaderboard(G, "units")) == {
            ALICE: [7, 7, 2, 0], BOB: [-7, -7, 2, 0]}
        stats = await store.player_stats(G, ALICE, "ofc")
        assert (stats.hands, stats.units) == (2, 7)
        await check_boards_are_the_results(store, G)
        await check_boards_add_up(store, G)
    finally:
        await store.close()


async def old_database(path: Path) -> None:
    """A database of hands of each game (through the service) and of hands whose rules are
    '{}' or not JSON, taken back to before migration 007."""
    svc, rec, store = await make(path, seed_factory=lambda: "review-old")
    await svc.new_table(G, CH, ALICE, "alice", variant="pineapple")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    await svc.new_table(G, CH + 1, BOB, "bob", variant="chinese", bots=1, bot_level="easy")
    await svc.join(G, CH + 1, CAROL, "carol")
    await svc.start(CH + 1, BOB)
    for channel in (CH, CH + 1):
        await play_hands(svc, channel, 2)
    await svc.shutdown()
    table = await seat_all(store, G, CH + 5, "ofc", [ALICE, CAROL], rules={})
    await settle(store, table, 1, {}, {ALICE: -4, CAROL: 4}, 10.0)
    bad = await settle(store, table, 2, {}, {ALICE: 3, CAROL: -3}, 20.0)
    await store._db.execute("UPDATE hands SET rules = '{broken' WHERE id = ?", (bad,))
    await store._db.commit()
    await store.close()
    back_to_schema_6(path)


async def test_migration_007_on_an_older_database_keeps_checked_totals(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    await old_database(path)
    store = await Store.open(path)
    try:
        assert await store.schema_version() == load_migrations()[-1][0]
        assert await store.verify_ledger() == []
        for variant in ("pineapple", "chinese"):
            board = await store.leaderboard(G, "units", None, ALL, variant)
            assert board == await store.leaderboard(G, "units", 0.0, ALL, variant)
        want = await truth(store, G)
        for variant in ("pineapple", "chinese"):
            assert totals(await store.leaderboard(G, "units", None, ALL, variant)) == \
                want[variant]
        # a hand after the migration, of rules that name no game, still settles
        table = await seat_all(store, G, CH + 6, "ofc", [BOB, CAROL])
        hand = await store.create_hand(table, 1, "s", {}, {}, 30.0)
        await store.finish_hand(hand.id, {}, [res(BOB, 0, 1, 1), res(CAROL, 1, -1, -1)],
                                {BOB: 1, CAROL: -1}, 30.0)
        assert await store.verify_ledger() == []
    finally:
        await store.close()


async def test_migration_007_counts_older_hands_of_the_default_game(tmp_path: Path) -> None:
    """Was a defect (fixed: as above, ofc): migration 007's backfill filed an older hand
    whose rules are '{}' (the column's default) under the game '' instead of ofc, the game
    the bot plays it as.  After the upgrade such hands are on the every-game board but on no
    game's board: alice's and carol's ofc hands vanish from ``/ofc leaderboard
    variant:ofc``."""
    path = tmp_path / "old.db"
    await old_database(path)
    store = await Store.open(path)
    try:
        ofc = totals(await store.leaderboard(G, "units", None, ALL, "ofc"))
        assert ofc == (await truth(store, G))["ofc"]
        await check_boards_add_up(store, G)
    finally:
        await store.close()


# --------------------------------------------------------------------------- rollback


async def test_a_failed_settlement_leaves_no_trace_in_the_games_totals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = await Store.open(":memory:")
    try:
        table = await seat_all(store, G, CH, "pineapple", [ALICE, BOB])
        await settle(store, table, 1, {"variant": "pineapple"}, {ALICE: 3, BOB: -3}, 10.0)
        before = await store._all("SELECT * FROM variant_standings ORDER BY user_id")
        before_all = await store._all("SELECT * FROM standings ORDER BY user_id")
        hand = await store.create_hand(table, 2, "s", {"variant": "pineapple"}, {}, 20.0)
        real = store._db.execute

        def failing(sql: str, *args: Any, **kw: Any) -> Any:
            if sql.startswith("UPDATE hands SET status = 'done'"):
                raise sqlite3.OperationalError("disk I/O error")
            return real(sql, *args, **kw)

        monkeypatch.setattr(store._db, "execute", failing)
        with pytest.raises(sqlite3.OperationalError):
            await store.finish_hand(hand.id, {}, [res(ALICE, 0, 9, 9, fantasyland=True),
                                                  res(BOB, 1, -9, -9)],
                                    {ALICE: 9, BOB: -9}, 20.0)
        monkeypatch.setattr(store._db, "execute", real)
        rows = await store._all("SELECT * FROM variant_standings ORDER BY user_id")
        assert [tuple(r) for r in rows] == [tuple(r) for r in before]
        assert [tuple(r) for r in await store._all(
            "SELECT * FROM standings ORDER BY user_id")] == [tuple(r) for r in before_all]
        assert await store.verify_ledger() == []
        # settled again, it counts once
        await store.finish_hand(hand.id, {}, [res(ALICE, 0, 9, 9, fantasyland=True),
                                              res(BOB, 1, -9, -9)], {ALICE: 9, BOB: -9}, 20.0)
        assert totals(await store.leaderboard(G, "units", None, ALL, "pineapple")) == {
            ALICE: [12, 12, 2, 1], BOB: [-12, -12, 2, 0]}
        assert await store.verify_ledger() == []
    finally:
        await store.close()


# ------------------------------------------------------------------- a table that changes its game


async def test_a_table_that_changes_its_game_counts_each_hand_in_the_game_dealt() -> None:
    """The game changed while a hand is played waits for the next hand: the hand being
    played is counted in the game it was dealt as, the next ones in the new game."""
    svc, rec, store = await make(seed_factory=lambda: "review-change")
    try:
        await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
        await svc.join(G, CH, BOB, "bob")
        await svc.start(CH, ALICE)
        await play_hands(svc, CH, 1)
        t = svc.table_in_channel(CH)
        assert t.hand is not None  # hand 2, dealt as ofc
        words, later = await svc.set_options(CH, ALICE, False, variant="pineapple")
        assert later, words
        await play_hands(svc, CH, 3)  # hand 2 (ofc), 3 and 4 (pineapple)
        ofc = totals(await store.leaderboard(G, "hands", None, ALL, "ofc"))
        pine = totals(await store.leaderboard(G, "hands", None, ALL, "pineapple"))
        assert {u: v[2] for u, v in ofc.items()} == {ALICE: 2, BOB: 2}
        assert {u: v[2] for u, v in pine.items()} == {ALICE: 2, BOB: 2}
        logs = await store._all("SELECT number, rules, log FROM hands WHERE status = 'done'"
                                " ORDER BY number")
        assert [json.loads(r["rules"])["variant"] for r in logs] == [
            "ofc", "ofc", "pineapple", "pineapple"]
        await check_boards_add_up(store, G)
        await check_boards_are_the_results(store, G)
        for user in (ALICE, BOB):
            await check_stats(store, G, user)
        assert await store.verify_ledger() == []
    finally:
        await svc.shutdown()
        await store.close()


async def test_the_balance_line_of_one_game_over_more_than_30_hands() -> None:
    """The last 30 hands of one game, among hands of the others: the units owned after each."""
    store = await Store.open(":memory:")
    try:
        pine = await seat_all(store, G, CH, "pineapple", [ALICE, BOB])
        ofc = await seat_all(store, G, CH + 1, "ofc", [ALICE, BOB])
        for n in range(1, 41):
            await settle(store, pine, n, {"variant": "pineapple"},
                         {ALICE: n % 5 - 2, BOB: 2 - n % 5}, 100.0 + n)
            if n % 3 == 0:
                await settle(store, ofc, n, {"variant": "ofc"},
                             {ALICE: -1, BOB: 1}, 100.5 + n, fouled=True)
        for user in (ALICE, BOB):
            await check_stats(store, G, user)
        st = await store.player_stats(G, ALICE, "pineapple")
        assert st.hands == 40 and len(st.balance_history) == 31
        st = await store.player_stats(G, ALICE, "ofc")
        assert (st.hands, st.fouls, len(st.balance_history)) == (13, 13, 14)
    finally:
        await store.close()


# --------------------------------------------------------------------------- through Discord

LINE = re.compile(r"^\d+\\\. (.+) — ([+-]?\d+) units?, ([+-]?\d+) points?, (\d+) hands?, "
                  r"(\d+) fantasylands?$")


def board_lines(content: str) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for line in content.replace("\u2212", "-").splitlines()[1:]:  # (a minus sign)
        m = LINE.match(line)
        if m:
            out[m.group(1)] = [int(m.group(i)) for i in range(2, 6)]
    return out


@pytest.mark.e2e
async def test_the_game_boards_in_discord_add_up(tmp_path: Path) -> None:
    """Hands of three games played at the real bot's tables (one with a bot): each game's
    `/ofc leaderboard variant:` and `/ofc stats variant:` add up to the every-game ones."""
    async with make_world(tmp_path, seed_factory=lambda: "review-discord",
                          next_hand_delay=0.05) as w:
        await w.start_bot()
        chans = [w.chan, w.fake.add_text_channel(w.guild, "two"),
                 w.fake.add_text_channel(w.guild, "three")]
        await asyncio.sleep(0.2)
        setups = [("chinese", {}), ("pineapple", {"bots": 1}), ("ofc", {})]
        for chan, (variant, extra) in zip(chans, setups, strict=True):
            r = await w.fake.slash(w.alice, chan, "ofc new", options={"variant": variant,
                                                                      **extra})
            assert "opened" in r.content, r.content
            await w.fake.slash(w.bob, chan, "ofc join")
            await w.fake.slash(w.alice, chan, "ofc start")
        for chan in chans:
            await play_hands(w.service, chan.id, 2)
        every_content = (await w.slash(w.carol, "ofc leaderboard")).content
        every = board_lines(every_content)
        summed: dict[str, list[int]] = {}
        for variant in VARIANTS:
            r = await w.slash(w.carol, "ofc leaderboard", variant=variant)
            for name, v in board_lines(r.content).items():
                acc = summed.setdefault(name, [0, 0, 0, 0])
                summed[name] = [a + b for a, b in zip(acc, v, strict=True)]
        assert set(every) == {"alice", "bob"} and summed == every, (summed, every)
        assert all(v[2] == 6 for v in every.values())
        for who in (w.alice, w.bob):
            whole = (await w.slash(who, "ofc stats")).content
            hands = 0
            for v in VARIANTS:
                text = (await w.slash(who, "ofc stats", variant=v)).content
                m = re.search(r" — (\d+) hands?,", text)
                assert m is not None, text
                hands += int(m.group(1))
            assert f" — {hands} hands," in whole and hands == 6, whole
        assert await w.store.verify_ledger() == []
