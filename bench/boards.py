"""Leaderboards, stats and history on a big server: ``python -m bench.boards``.

A server that has played for a year has tens of thousands of hands; `/ofc leaderboard`,
`/ofc stats` and `/ofc history` read them under the store's lock, so every table's next save
waits for them.  This writes ``--hands`` settled hands (default 25,000; two players, the three
games in turn, results and ledger rows as a settlement writes them, the kept totals filled by
their triggers) to a database file, then times each query (median of ``--repeat``, default 7).
The peer of each board is the same board added up from every result (a period starting
before the first hand), in the same run: the figure is their ratio.

Options: ``--hands N``, ``--repeat R``, ``--json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bot.store import Store

GUILD, ALICE, BOB = 1, 7, 8
GAMES = ("pineapple", "ofc", "chinese")


async def _fill(store: Store, hands: int) -> list[int]:
    """``hands`` settled hands at three tables (one a game), in one transaction; the tables."""
    tables = []
    for channel, game in enumerate(GAMES, start=1):
        table = await store.create_table(GUILD, channel, ALICE, {"variant": game}, 1, 0, 2, 1.0)
        await store.seat_player(table.id, 0, GUILD, ALICE, "alice", 0, 1.0)
        await store.seat_player(table.id, 1, GUILD, BOB, "bob", 0, 1.0)
        tables.append(table.id)
    db = store._db
    await db.execute("BEGIN")
    for n in range(hands):
        k = n % len(GAMES)  # (the game, and its table)
        when = 1.0e9 + n
        cur = await db.execute(
            "INSERT INTO hands (table_id, number, seed, rules, status, created_at, updated_at,"
            " finished_at, ledger_seq) VALUES (?, ?, 's', ?, 'done', ?, ?, ?, 0)",
            (tables[k], n // len(GAMES) + 1, json.dumps({"variant": GAMES[k]}), when,
             when, when))
        hand_id = cur.lastrowid
        await db.execute("INSERT INTO hand_settlements VALUES (?, ?)", (hand_id, when))
        won = (n % 7) - 3
        for seat, (user, amount) in enumerate(((ALICE, won), (BOB, -won))):
            if amount:
                await db.execute(
                    "INSERT INTO ledger (guild_id, user_id, account, kind, amount, table_id,"
                    " hand_id, created_at) VALUES (?, ?, 'stack', 'hand', ?, ?, ?, ?)",
                    (GUILD, user, amount, tables[k], hand_id, when))
            await db.execute(
                "INSERT INTO results (hand_id, seat_no, user_id, guild_id, name, points, units,"
                " fantasyland, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (hand_id, seat, user, GUILD, ("alice", "bob")[seat], amount, amount,
                 int(n % 11 == 0 and amount > 0), when))
        await db.execute("UPDATE hands SET ledger_seq = (SELECT MAX(id) FROM ledger)"
                         " WHERE id = ?", (hand_id,))
    await db.commit()
    return tables


async def _median(call: Callable[[], Awaitable[Any]], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        await call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


async def run(hands: int, repeat: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(Path(folder) / "boards.sqlite3")
        try:
            tables = await _fill(store, hands)
            game = GAMES[0]
            board = store.leaderboard
            queries: dict[str, Callable[[], Awaitable[Any]]] = {
                "leaderboard, all time": lambda: board(GUILD, "units"),
                "leaderboard, all time, added up": lambda: board(GUILD, "units", 0.0),
                "leaderboard of one game, all time": lambda: board(GUILD, "units", variant=game),
                "leaderboard of one game, added up": lambda: board(
                    GUILD, "units", 0.0, variant=game),
                "stats": lambda: store.player_stats(GUILD, ALICE),
                "stats of one game": lambda: store.player_stats(GUILD, ALICE, game),
                "history (5 hands)": lambda: store.history(tables[0], 5),
                "one hand by number": lambda: store.numbered_hand(tables[0], 1),
            }
            seconds = {name: await _median(call, repeat) for name, call in queries.items()}
            assert await board(GUILD, "units") == await board(GUILD, "units", 0.0)
            assert await board(GUILD, "units", variant=game) == \
                await board(GUILD, "units", 0.0, variant=game)
        finally:
            await store.close()
    return {
        "hands": hands, "repeat": repeat,
        "ms": {name: round(s * 1000, 3) for name, s in seconds.items()},
        "kept_vs_added_up": {
            "every game": seconds["leaderboard, all time, added up"]
            / seconds["leaderboard, all time"],
            "one game": seconds["leaderboard of one game, added up"]
            / seconds["leaderboard of one game, all time"],
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.boards", description=__doc__.split(
        "\n")[0])
    parser.add_argument("--hands", type=int, default=25_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.hands < 3 or args.repeat < 1:
        parser.error("--hands is at least 3 and --repeat at least 1")
    data = asyncio.run(run(args.hands, args.repeat))
    if args.json:
        print(json.dumps(data))
        return 0
    print(f"{data['hands']:,} hands, median of {data['repeat']} (ms):")
    for name, ms in data["ms"].items():
        print(f"  {name:<36} {ms:9.3f}")
    for what, ratio in data["kept_vs_added_up"].items():
        print(f"kept totals vs adding up every result, {what}: {ratio:,.0f}x faster")
    return 0


if __name__ == "__main__":
    sys.exit(main())
