"""A player's last hands at every table of the server (``Store.player_hands``, the service's
``player_hands``, ``/ofc history mine``): settled hands only, newest first, the player's own
result, this server's only, read by an index in that order (migration 008)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.service import ServiceError
from bot.store import Store

from .test_service import make
from .test_store import ALICE, BOB, CAROL, CH, G
from .test_variant_leaderboard import DAY, played, seated


async def test_the_last_hands_of_a_player_at_every_table_newest_first() -> None:
    store = await Store.open(":memory:")
    pine = await seated(store, G, CH, "pineapple")
    chinese = await seated(store, G, CH + 1, "chinese", (ALICE, CAROL))
    elsewhere = await seated(store, G + 1, CH + 2, "ofc")  # another server
    await played(store, pine, 1, "pineapple", {ALICE: 30, BOB: -30}, 1 * DAY)
    await played(store, chinese, 1, "chinese", {ALICE: -6, CAROL: 6}, 2 * DAY)
    await played(store, pine, 2, "pineapple", {ALICE: -5, BOB: 5}, 3 * DAY, fantasyland=True)
    await played(store, elsewhere, 1, "ofc", {ALICE: 9, BOB: -9}, 4 * DAY)
    voided = await store.create_hand(pine, 3, "s", {"variant": "pineapple"}, {}, 5 * DAY)
    await store.abort_hand(voided.id, 5 * DAY)

    hands = await store.player_hands(G, ALICE, 10)
    assert [(h.table_id, h.channel_id, h.number, h.variant, h.finished_at)
            for h in hands] == [(pine, CH, 2, "pineapple", 3 * DAY),
                                (chinese, CH + 1, 1, "chinese", 2 * DAY),
                                (pine, CH, 1, "pineapple", 1 * DAY)]
    assert [(h.result.user_id, h.result.points, h.result.units, h.result.fantasyland)
            for h in hands] == [(ALICE, -5, -5, True), (ALICE, -6, -6, False),
                                (ALICE, 30, 30, False)]
    assert [h.number for h in await store.player_hands(G, ALICE, 2)] == [2, 1]
    assert [h.variant for h in await store.player_hands(G + 1, ALICE, 10)] == ["ofc"]
    assert [h.table_id for h in await store.player_hands(G, CAROL, 10)] == [chinese]
    assert await store.player_hands(G, CAROL + 1, 10) == []
    await store.close()


async def test_read_by_the_index_in_its_order(tmp_path: Path) -> None:
    """The query walks ``results_by_player_time`` backwards: no sort of the player's results
    (a player with 25,000 hands would otherwise have them all sorted for five lines)."""
    path = tmp_path / "ofc.sqlite3"
    store = await Store.open(path)
    await store.close()
    con = sqlite3.connect(path)
    plan = [row[3] for row in con.execute("EXPLAIN QUERY PLAN " + Store.PLAYER_HANDS, (1, 2, 5))]
    con.close()
    assert plan[0] == "SEARCH r USING INDEX results_by_player_time (guild_id=? AND user_id=?)"
    assert "USE TEMP B-TREE FOR ORDER BY" not in plan, plan  # (ties of a time: sorted apart)


async def test_migration_008_indexes_an_older_database(tmp_path: Path) -> None:
    path = tmp_path / "ofc.sqlite3"
    store = await Store.open(path)
    pine = await seated(store, G, CH, "pineapple")
    await played(store, pine, 1, "pineapple", {ALICE: 3, BOB: -3}, DAY)
    await store.close()
    con = sqlite3.connect(path)
    con.executescript("DROP INDEX results_by_player_time; PRAGMA user_version = 7;")
    con.close()
    store = await Store.open(path)
    assert [h.number for h in await store.player_hands(G, BOB, 5)] == [1]
    await store.close()
    con = sqlite3.connect(path)
    names = {row[0] for row in con.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    con.close()
    assert "results_by_player_time" in names


async def test_the_service_checks_the_count() -> None:
    svc, _, store = await make()
    assert await svc.player_hands(G, ALICE, 25) == []
    for count in (0, 26):
        with pytest.raises(ServiceError, match="from 1 to 25"):
            await svc.player_hands(G, ALICE, count)
    await svc.shutdown()
    await store.close()
