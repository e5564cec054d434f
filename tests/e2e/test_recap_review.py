"""Review of ``/ofc recap`` and the recap added to a table's closing words (commit 54b5dea):
the numbers against the raw rows (players who left and came back, a seat taken by someone else,
bots, practice hands among counted ones, a voided hand, surrenders, a chinese natural,
fantasyland hands, a stack emptied), every close path's notice (and none without a finished
hand, no pings), Discord's 2,000 characters, the right table (a thread, another channel),
concurrency, the store's query plan, and a store that fails while a table closes.

Passing tests are what works; each ``xfail(strict=True)`` test is a defect its docstring
describes."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

import bot.service as service_module
from bot.service import EMPTY_CLOSED, NO_TABLE_HERE, TableService, recap_lines
from bot.store import RecapRow, Store, TableRecap, TableRow
from engine import parse_cards

from ..bot.test_service import (
    ALICE,
    BOB,
    CAROL,
    CH,
    Clock,
    G,
    Recorder,
    heads_up,
    make,
    until,
)
from .conftest import make_world, table_of

HOUR = 3600.0
DAVE = 104


# ----------------------------------------------------------------- helpers
def notices(rec: Recorder) -> list[str]:
    return [text for kind, text in rec.events if kind == "notice"]


async def done(svc: TableService, store: Store) -> None:
    assert await store.verify_ledger() == []
    await svc.shutdown()
    await store.close()


async def truth(store: Store, table_id: int) -> dict[int, dict[str, Any]]:
    """Per player of the table's settled hands, from the raw rows (results by hand; the units
    from the ledger's 'hand' rows, not from ``results.units``): hands, points, units, fouls
    (a surrender not counted), fantasylands, best hand and the name of the last hand."""
    out: dict[int, dict[str, Any]] = {}
    async with store._db.execute(
        "SELECT r.*, h.number,"
        " (SELECT SUM(l.amount) FROM ledger l WHERE l.hand_id = r.hand_id"
        "  AND l.user_id = r.user_id AND l.kind = 'hand') AS moved"
        " FROM results r JOIN hands h ON h.id = r.hand_id"
        " WHERE h.table_id = ? AND h.status = 'done' ORDER BY h.number", (table_id,)
    ) as cur:
        rows = list(await cur.fetchall())
    for r in rows:
        p = out.setdefault(int(r["user_id"]), {"hands": 0, "points": 0, "units": 0, "fouls": 0,
                                               "fantasylands": 0, "best": None, "name": ""})
        p["hands"] += 1
        p["points"] += int(r["points"])
        p["units"] += int(r["moved"] or 0)
        p["fouls"] += int(bool(r["fouled"]) and not bool(r["surrendered"]))
        p["fantasylands"] += int(r["fantasyland"])
        p["best"] = int(r["points"]) if p["best"] is None else max(p["best"], int(r["points"]))
        p["name"] = str(r["name"])
        p["is_bot"] = bool(r["is_bot"])
    return out


async def assert_recap_is_true(store: Store, table_id: int) -> TableRecap:
    """The store's recap agrees with the raw rows, player by player (fouls aside: see the
    surrender defect below), ordered by points."""
    recap = await store.table_recap(table_id)
    assert recap is not None
    want = await truth(store, table_id)
    got = {p.user_id: p for p in recap.players}
    assert set(got) == set(want)
    for user, w in want.items():
        p = got[user]
        assert (p.hands, p.points, p.fantasylands, p.best, p.name) == (
            w["hands"], w["points"], w["fantasylands"], w["best"], w["name"]), (user, p, w)
        assert p.units == (0 if w["is_bot"] else w["units"]), (user, p, w)
    points = [p.points for p in recap.players]
    assert points == sorted(points, reverse=True)
    async with store._db.execute(
        "SELECT COUNT(*) FROM hands WHERE table_id = ? AND status = 'done'", (table_id,)
    ) as cur:
        row = await cur.fetchone()
    assert row is not None and recap.hands == row[0]
    return recap


async def next_hand(t: Any, number: int) -> None:
    """Wait until hand ``number`` is dealt."""
    await until(lambda: t.hand is not None and t.row.hand_no == number)
    assert t.hand is not None and t.row.hand_no == number


async def play_out(svc: TableService, channel: int = CH) -> None:
    """Autoplay the hand to its end, every seat (a bot's own move racing it is refused: the
    seat to act is read under the table's lock)."""
    t = svc.table_in_channel(channel)
    for _ in range(2000):
        async with t.lock:
            if t.hand is None or t.hand.is_over:
                return
            t.hand.autoplay(t.hand.to_act()[0])
            await svc._after_action(t)
        await asyncio.sleep(0)
    raise AssertionError("the hand did not end")


async def settled_and_quiet(t: Any) -> None:
    """The hand settled and its showdown done with (nothing left to touch the table)."""
    await until(lambda: t.hand is None and t.last_result is not None
                and service_module.SHOWDOWN_PENDING not in t.row.extra)
    assert t.hand is None and service_module.SHOWDOWN_PENDING not in t.row.extra


def rendered(text: str) -> str:
    """What Discord shows of escaped text: a backslash before punctuation is not shown."""
    return re.sub(r"\\([^0-9A-Za-z\s])", r"\1", text)


def line_of(text: str, name: str) -> str:
    """The recap line of the player shown as ``name``."""
    found = [line for line in text.split("\n")[1:] if f" {name} " in line]
    assert len(found) == 1, (name, text)
    return found[0]


# ------------------------------------------------------- the numbers (works)
async def test_left_and_came_back_a_seat_taken_by_another_and_the_latest_name() -> None:
    """Bob plays hand 1 and leaves; Carol takes his seat for hand 2; Bob comes back (as
    "Bobby Tables", another seat) for hand 3: one row each, his two hands added up under the
    name of his last hand."""
    svc, rec, store, t = await heads_up("rv-rejoin", variant="ofc")
    bob_seat = t.seat_of_user(BOB).seat_no
    assert "after this hand" in await svc.leave(CH, BOB)
    await play_out(svc)
    await until(lambda: t.seat_of_user(BOB) is None and t.waiting)
    await svc.join(G, CH, CAROL, "carol")
    assert t.seat_of_user(CAROL).seat_no == bob_seat  # his seat, someone else now
    await next_hand(t, 2)
    await svc.join(G, CH, BOB, "Bobby Tables")
    await play_out(svc)
    await next_hand(t, 3)
    await play_out(svc)
    await next_hand(t, 4)
    recap = await assert_recap_is_true(store, t.id)
    rows = {p.user_id: p for p in recap.players}
    assert (rows[ALICE].hands, rows[BOB].hands, rows[CAROL].hands) == (3, 2, 2)
    assert rows[BOB].name == "Bobby Tables"
    text = await svc.recap(CH)
    assert "3 hands" in text.split("\n")[0]
    assert "Bobby Tables" in text and " bob " not in text
    await done(svc, store)


async def test_practice_hands_among_counted_ones_count_points_and_only_the_counted_units(
) -> None:
    """Alice plays a bot alone (practice: no units), then Bob sits down (counted between
    humans; against the bot for points only): units are the ledger's, points every hand's;
    the bot's line has no units."""
    svc, rec, store = await make(seed_factory=lambda: "rv-practice")
    t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=2, bots=1)
    await svc.start(CH, ALICE)
    assert t.hand_practice
    await svc.join(G, CH, BOB, "bob")
    await play_out(svc)
    await next_hand(t, 2)
    assert not t.hand_practice
    await play_out(svc)
    await next_hand(t, 3)
    recap = await assert_recap_is_true(store, t.id)
    units = {p.user_id: p.units for p in recap.players if not p.is_bot}
    assert units[ALICE] + units[BOB] == 0  # only between the humans
    assert units[ALICE] == await store.balance(G, ALICE) + await store.stack(t.id, ALICE) - 1000
    text = await svc.recap(CH)
    bot_line = next(line for line in text.split("\n") if "Ada" in line)
    assert "unit" not in bot_line
    await done(svc, store)


async def test_an_emptied_stack_shows_the_capped_units_and_every_point() -> None:
    """Bob (10 units at 5 a point) loses more than his stack: the recap gives his points in
    full and the 10 units he could pay (Alice the same 10)."""
    deck = parse_cards("2c 3d 4h 5s 7c  Ah Ad Ac Kh Kd")  # bob trash, alice the nuts
    svc, rec, store = await make(seed_factory=lambda: "rv-cap", deck_factory=lambda t: deck)
    t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=5, buyin=500)
    await svc.join(G, CH, BOB, "bob", buyin=10)
    svc.next_hand_delay = 3600.0
    await svc.start(CH, ALICE)
    await play_out(svc)
    await until(lambda: t.last_result is not None)
    recap = await assert_recap_is_true(store, t.id)
    rows = {p.user_id: p for p in recap.players}
    assert rows[BOB].units == -10 and rows[ALICE].units == 10
    assert rows[BOB].points * 5 < -10  # more than he could pay
    text = await svc.recap(CH)
    assert f"−{-rows[BOB].points} points (−10 units)" in line_of(text, "bob")
    await done(svc, store)


async def test_a_voided_hand_is_not_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    svc, rec, store, t = await heads_up("rv-void", variant="ofc")
    await play_out(svc)
    await next_hand(t, 2)
    real = store.finish_hand

    async def broken(*a: Any, **kw: Any) -> Any:
        raise OSError("disk gone")

    monkeypatch.setattr(service_module, "SETTLE_ATTEMPTS", 1)
    monkeypatch.setattr(store, "finish_hand", broken)
    await play_out(svc)  # hand 2 cannot be settled: voided
    await until(lambda: t.hand is None)
    monkeypatch.setattr(store, "finish_hand", real)
    await next_hand(t, 3)
    await play_out(svc)
    await next_hand(t, 4)
    assert any("Hand #2 could not be settled" in n for n in notices(rec))
    recap = await assert_recap_is_true(store, t.id)
    assert recap.hands == 2 and all(p.hands == 2 for p in recap.players)
    assert "· 2 hands, " in (await svc.recap(CH)).split("\n")[0]
    await done(svc, store)


async def test_fantasyland_hands_and_the_fantasylands_earned() -> None:
    """Seed "fl2": alice earns a fantasyland in hand 1 of a pineapple table and plays it in
    hand 2: both hands count, the fantasyland earned is shown."""
    svc, rec, store, t = await heads_up("fl2", variant="pineapple")
    await play_out(svc)
    await next_hand(t, 2)
    assert any(t.hand.fantasyland)
    await play_out(svc)
    await next_hand(t, 3)
    recap = await assert_recap_is_true(store, t.id)
    alice = next(p for p in recap.players if p.user_id == ALICE)
    assert alice.fantasylands >= 1 and alice.hands == 2
    assert f"🌴 {alice.fantasylands}" in line_of(await svc.recap(CH), "alice")
    await done(svc, store)


async def test_a_chinese_natural_and_a_chinese_surrender() -> None:
    """Hand 1: bob is dealt a dragon and declares it (13 a opponent); hand 2: bob surrenders
    (3 a opponent, not a foul)."""
    dragon = parse_cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    svc, rec, store = await make(seed_factory=lambda: "rv-dragon",
                                 deck_factory=lambda t: dragon if t.row.hand_no == 0 else None)
    t = await svc.new_table(G, CH, ALICE, "alice", variant="chinese")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    holder = next(u for u in (ALICE, BOB)
                  if t.hand.pending[t.hand_seat_of(t.seat_of_user(u).seat_no)][0] == dragon[0])
    other = BOB if holder == ALICE else ALICE
    await svc.declare(CH, holder, "dragon")
    await play_out(svc)
    await next_hand(t, 2)
    await svc.surrender(CH, holder, svc.surrender_check(CH, holder))
    await play_out(svc)
    await next_hand(t, 3)
    recap = await assert_recap_is_true(store, t.id)
    rows = {p.user_id: p for p in recap.players}
    assert rows[holder].points == 13 - 3 and rows[holder].best == 13
    assert rows[other].points == -10 and rows[holder].fouls == 0
    await done(svc, store)


async def test_bots_removed_and_added_add_up() -> None:
    """A bot plays hand 1 and is taken away after it; another bot is seated (in the seat it
    left) and plays hand 3: the numbers add up per user id. (A bot's user id is its seat's,
    ``_bot_user_id``: the two bots, both named "Ada (bot)", are one row.)"""
    svc, rec, store = await make(seed_factory=lambda: "rv-bots")
    t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc", bots=1)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    assert "after this hand" in await svc.remove_bot(CH, ALICE)
    await play_out(svc)
    await next_hand(t, 2)
    assert not t.bots
    await svc.add_bot(CH, ALICE, "strong")
    await play_out(svc)
    await next_hand(t, 3)
    await play_out(svc)
    await next_hand(t, 4)
    recap = await assert_recap_is_true(store, t.id)
    bots = [p for p in recap.players if p.is_bot]
    assert len(bots) == 1 and bots[0].hands == 2 and bots[0].units == 0
    await done(svc, store)


async def test_two_players_with_the_same_name_are_two_rows() -> None:
    svc, rec, store = await make(seed_factory=lambda: "rv-same")
    t = await svc.new_table(G, CH, ALICE, "sam", variant="ofc")
    await svc.join(G, CH, BOB, "sam")
    await svc.start(CH, ALICE)
    await play_out(svc)
    await next_hand(t, 2)
    recap = await assert_recap_is_true(store, t.id)
    assert [p.name for p in recap.players] == ["sam", "sam"]
    assert len((await svc.recap(CH)).split("\n")) == 3
    await done(svc, store)


async def test_recap_while_a_hand_is_being_settled_sees_it_whole_or_not_at_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The settlement is held inside its transaction's lock: a recap asked meanwhile waits
    and then sees the hand whole (never the results without the hand, or half of them)."""
    svc, rec, store, t = await heads_up("rv-race", variant="ofc")
    await play_out(svc)
    await next_hand(t, 2)
    entered, release = asyncio.Event(), asyncio.Event()
    real = store.finish_hand

    async def slow(*a: Any, **kw: Any) -> Any:
        entered.set()
        await release.wait()
        return await real(*a, **kw)

    monkeypatch.setattr(store, "finish_hand", slow)
    finishing = asyncio.ensure_future(play_out(svc))
    await asyncio.wait_for(entered.wait(), 5)
    before = await svc.recap(CH)  # while hand 2 is being settled
    assert "· 1 hand, " in before.split("\n")[0]
    reading = asyncio.ensure_future(store.table_recap(t.id))
    release.set()
    await finishing
    during = await reading
    assert during is not None and during.hands in (1, 2)
    assert all(p.hands == during.hands for p in during.players)
    await next_hand(t, 3)
    await assert_recap_is_true(store, t.id)
    await done(svc, store)


# ------------------------------------------------ closing: every path (works)
async def test_after_the_last_hand_the_notice_has_the_recap_and_pings_nobody() -> None:
    svc, rec, store = await make(seed_factory=lambda: "rv-last")
    t = await svc.new_table(G, CH, ALICE, "<@999> @everyone", variant="ofc")
    await svc.join(G, CH, BOB, "**bob**")
    await svc.start(CH, ALICE)
    await svc.close(CH, ALICE, False)
    await play_out(svc)
    await until(lambda: t.id not in svc.tables  # (the notice comes just after the close)
                and "Thanks for playing" in (notices(rec) or [""])[-1])
    closing = notices(rec)[-1]
    assert closing.startswith(f"The table is closed, as <@{ALICE}> asked during hand #1: every "
                              "stack went back to its owner's balance. Thanks for playing!\n"
                              "📋 **Recap** — ofc")
    assert rec.pings[-1] is False
    assert "\\<\\@999\\> \\@everyone" in closing and "\\*\\*bob\\*\\*" in closing
    assert not re.search(r"(?<!\\)[<@]", closing.split("\n", 1)[1].replace("<t:", ""))
    assert await svc.recap(CH) == closing.split("\n", 1)[1]
    await done(svc, store)


async def test_everyone_leaving_between_hands_posts_the_recap_once() -> None:
    svc, rec, store, t = await heads_up("rv-leave", variant="ofc", next_hand_delay=3600.0)
    await play_out(svc)
    await until(lambda: t.hand is None and t.last_result is not None)
    await svc.leave(CH, BOB)
    text = await svc.leave(CH, ALICE)
    assert text.endswith("Nobody is left, so the table is closed.")
    last = notices(rec)[-1]
    assert last.startswith(f"🚪 <@{ALICE}> left the table. {EMPTY_CLOSED}\n📋 **Recap** — ")
    assert rec.pings[-1] is False
    assert sum("📋" in n for n in notices(rec)) == 1
    assert await store.balance(G, ALICE) + await store.balance(G, BOB) == 2000
    await done(svc, store)


async def test_a_tidy_retried_later_closes_with_the_recap(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """The close after everyone left fails once (the database): ``_tidy_later`` closes the
    table a moment later, with the recap."""
    svc, rec, store = await make(seed_factory=lambda: "rv-tidy", next_hand_delay=3600.0)
    monkeypatch.setattr(service_module, "SAVE_RETRY", 0.05)
    t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    await play_out(svc)
    await until(lambda: t.hand is None and t.last_result is not None)
    await svc.leave(CH, BOB)
    real = svc._maybe_close_empty
    calls = []

    async def once(table: Any) -> bool:
        calls.append(1)
        if len(calls) == 1:
            raise OSError("disk busy")
        return await real(table)

    monkeypatch.setattr(svc, "_maybe_close_empty", once)
    await svc.leave(CH, ALICE)
    await until(lambda: t.id not in svc.tables)
    await until(lambda: (notices(rec) or [""])[-1].startswith(EMPTY_CLOSED))
    assert notices(rec)[-1].startswith(f"{EMPTY_CLOSED}\n📋 **Recap** — ofc")
    assert rec.pings[-1] is False
    await done(svc, store)


async def test_an_idle_close_has_the_recap_and_none_without_a_hand() -> None:
    clock = Clock()
    svc, rec, store = await make(clock=clock, seed_factory=lambda: "rv-idle",
                                 next_hand_delay=10 * 24 * HOUR)
    t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.resume()
    await svc.start(CH, ALICE)
    await play_out(svc)
    await settled_and_quiet(t)
    clock.offset += 23.5 * HOUR
    assert await svc.close_idle() == []  # (the warning)
    clock.offset += 0.6 * HOUR
    assert await svc.close_idle() == [t]
    last = notices(rec)[-1]
    assert last.startswith("🕸️ Nothing happened here for 24 hours")
    assert "idle_hours`).\n📋 **Recap** — ofc, 1 unit per point · 1 hand, " in last
    assert rec.pings[-1] is False
    assert await store.balance(G, ALICE) + await store.balance(G, BOB) == 2000
    # a table that never finished a hand closes as idle without a recap
    t2 = await svc.new_table(G, CH, CAROL, "carol", variant="ofc")
    clock.offset += 23.5 * HOUR
    await svc.close_idle()
    clock.offset += 0.6 * HOUR
    assert await svc.close_idle() == [t2]
    assert notices(rec)[-1].endswith("`/ofc-admin settings idle_hours`).")
    assert await svc.recap(CH) == "No hand was played at the last table here."
    await done(svc, store)


async def test_no_recap_when_no_hand_finished_only_a_voided_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The only hand was voided; then everyone leaves: the table closes without a recap."""
    svc, rec, store, t = await heads_up("rv-onlyvoid", variant="ofc", next_hand_delay=3600.0)

    async def broken(*a: Any, **kw: Any) -> Any:
        raise OSError("disk gone")

    monkeypatch.setattr(service_module, "SETTLE_ATTEMPTS", 1)
    monkeypatch.setattr(store, "finish_hand", broken)
    await play_out(svc)
    await until(lambda: t.hand is None)
    await svc.leave(CH, BOB)
    await svc.leave(CH, ALICE)
    assert t.id not in svc.tables
    assert notices(rec)[-1] == f"🚪 <@{ALICE}> left the table. {EMPTY_CLOSED}"
    assert await svc.recap(CH) == "No hand was played at the last table here."
    await done(svc, store)


async def test_a_store_that_fails_never_stops_a_close_nor_loses_units(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``table_recap`` raises on every close path: each table still closes, its channel is
    told (without the recap) and every stack goes back."""
    async def broken(table_id: int) -> Any:
        raise OSError("disk gone")

    # after the last hand (/ofc close during it)
    svc, rec, store = await make(seed_factory=lambda: "rv-fail1")
    monkeypatch.setattr(store, "table_recap", broken)
    t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    await svc.close(CH, ALICE, False)
    await play_out(svc)
    await until(lambda: t.id not in svc.tables)
    await until(lambda: "Thanks for playing" in (notices(rec) or [""])[-1])
    assert notices(rec)[-1] == (f"The table is closed, as <@{ALICE}> asked during hand #1: every "
                                "stack went back to its owner's balance. Thanks for playing!")
    assert await store.balance(G, ALICE) + await store.balance(G, BOB) == 2000
    await done(svc, store)
    # everyone leaving
    svc, rec, store = await make(seed_factory=lambda: "rv-fail2", next_hand_delay=3600.0)
    monkeypatch.setattr(store, "table_recap", broken)
    t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    await play_out(svc)
    await until(lambda: t.hand is None and t.last_result is not None)
    await svc.leave(CH, BOB)
    await svc.leave(CH, ALICE)
    assert t.id not in svc.tables
    assert notices(rec)[-1] == f"🚪 <@{ALICE}> left the table. {EMPTY_CLOSED}"
    assert await store.balance(G, ALICE) + await store.balance(G, BOB) == 2000
    with pytest.raises(OSError):
        await svc.recap(CH)  # (the command: the cog's error handler answers it)
    await done(svc, store)
    # idle
    clock = Clock()
    svc, rec, store = await make(clock=clock, seed_factory=lambda: "rv-fail3",
                                 next_hand_delay=10 * 24 * HOUR)
    monkeypatch.setattr(store, "table_recap", broken)
    t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.resume()
    await svc.start(CH, ALICE)
    await play_out(svc)
    await settled_and_quiet(t)
    clock.offset += 23.5 * HOUR
    await svc.close_idle()
    clock.offset += 0.6 * HOUR
    assert await svc.close_idle() == [t]
    assert notices(rec)[-1].endswith("`/ofc-admin settings idle_hours`).")
    assert await store.balance(G, ALICE) + await store.balance(G, BOB) == 2000
    await done(svc, store)


async def test_the_query_reads_the_tables_hands_by_index() -> None:
    """EXPLAIN QUERY PLAN: the hands by the covering index of migration 009 (their rows, with
    their large state and log, are not read), their results by the primary key, for the sums
    and for the names alike: no table is scanned whole."""
    store = await Store.open(":memory:")
    for query in (Store.RECAP, Store.RECAP_NAMES):
        async with store._db.execute("EXPLAIN QUERY PLAN " + query, (1,)) as cur:
            plan = [str(row[3]) for row in await cur.fetchall()]
        assert not [step for step in plan if step.startswith("SCAN")], plan
        assert ("SEARCH h USING COVERING INDEX hands_by_table_done (table_id=? AND status=?)"
                in plan), plan
        assert any(step.startswith("SEARCH r USING INDEX") for step in plan), plan
    await store.close()


# -------------------------------------------------- 2,000 characters (works)
WORST_NAME = "*_~|`>#[]()<@:-\\*_~|`>#[]()<@:-\\"[:32]  # 32 characters, each one escaped


async def test_four_players_with_the_longest_names_fit_every_message() -> None:
    """Four humans whose 32-character names double when escaped, at a table with stakes:
    the recap and the longest closing words (idle) stay within 2,000 characters."""
    assert len(WORST_NAME) == 32
    clock = Clock()
    svc, rec, store = await make(clock=clock, seed_factory=lambda: "rv-long",
                                 next_hand_delay=10 * 24 * HOUR)
    users = [ALICE, BOB, CAROL, DAVE]
    t = await svc.new_table(G, CH, ALICE, WORST_NAME, variant="ofc", stake=100, buyin=1000)
    for u in users[1:]:
        await svc.store.grant(G, u, 10**6, u, "test")
        await svc.join(G, CH, u, WORST_NAME[::-1], buyin=1000)
    await svc.resume()
    await svc.start(CH, ALICE)
    await play_out(svc)
    await settled_and_quiet(t)
    text = await svc.recap(CH)
    assert len(text.split("\n")) == 5 and len(text) <= 2000
    clock.offset += 23.5 * HOUR
    await svc.close_idle()
    clock.offset += 0.6 * HOUR
    assert await svc.close_idle() == [t]
    assert "📋 **Recap**" in notices(rec)[-1] and len(notices(rec)[-1]) <= 2000
    await done(svc, store)


# ================================================================= defects
async def test_a_bot_is_named_once() -> None:
    """A bot is named once.  (Was a defect: a bot's recap line reads "Ada (bot) (bot)" (markdown: ``Ada \\(bot\\) (bot)``),
    in ``/ofc recap`` and in every closing recap of a table that had a bot. Cause: bots are
    seated named ``"Ada (bot)"`` (``TableService._bot_names``), and ``recap_lines`` (bot/
    service.py) appends ``' (bot)'`` to the name of every ``is_bot`` row again (its unit test
    used a bare "Ada"). It should read "Ada (bot)" once.)"""
    svc, rec, store = await make(seed_factory=lambda: "rv-bot")
    t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc", bots=1)
    await svc.start(CH, ALICE)
    await play_out(svc)
    await next_hand(t, 2)
    text = await svc.recap(CH)
    try:
        assert "(bot) (bot)" not in rendered(text), rendered(text)
    finally:
        await done(svc, store)


async def test_a_practice_table_recap_does_not_claim_units() -> None:
    """A practice table's recap says practice and shows no units.  (Was a defect: at a practice
    table (one human and bots, e.g. ``/ofc new bots:1`` at the default
    stake of 1) no hand moves a unit (``/ofc new`` and ``/ofc rules`` say "Practice table: no
    units move"), yet its recap heads "ofc, 1 unit a point" and gives the human "(+0 units)",
    against README "units (at a table that plays for them)". Cause: ``recap_lines``
    (bot/service.py) decides on ``table.stake`` alone, and ``Store.table_recap`` does not say
    whether any of the table's hands was counted. With no counted hand the recap should say
    practice (no units) and leave the units out.  Fixed: ``RecapRow.counted``.)"""
    svc, rec, store = await make(seed_factory=lambda: "rv-bot")
    t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc", bots=1)
    assert t.row.stake == 1 and t.practice
    assert any("no units move" in line for line in svc.rules_text(CH))
    await svc.start(CH, ALICE)
    await play_out(svc)
    await next_hand(t, 2)
    text = await svc.recap(CH)
    try:
        assert text.split("\n")[0].startswith("📋 **This table so far** — ofc, practice, "
                                               "no units · "), text
        assert "unit" not in "\n".join(text.split("\n")[1:]) and "per point" not in text, text
    finally:
        await done(svc, store)


async def test_a_surrender_is_not_a_foul_in_the_recap() -> None:
    """A surrender is not a foul in the recap.  (Was a defect: Bob surrenders an ofc hand and the recap says "1 foul" (``/ofc stats`` says no
    foul: README "a surrender is not counted as a foul there", and the showdown tags him
    "(surrendered)", not "(foul)"). Cause: ``Store.RECAP`` sums ``r.fouled``, which the
    scoring sets for an ofc/pineapple surrender (it *scores* as a foul); ``player_stats``
    counts ``r.fouled AND NOT r.surrendered``. The recap should count fouls the same way (and
    could say the surrenders).  Fixed: ``Store.RECAP`` counts them so.)"""
    svc, rec, store, t = await heads_up("sur", variant="ofc")
    await svc.surrender(CH, BOB, svc.surrender_check(CH, BOB))
    await play_out(svc)
    await next_hand(t, 2)
    stats = await store.player_stats(G, BOB)
    assert stats.fouls == 0 and (await truth(store, t.id))[BOB]["fouls"] == 0
    text = await svc.recap(CH)
    try:
        assert "foul" not in line_of(text, "bob"), text
    finally:
        await done(svc, store)


async def test_a_table_played_over_days_says_when_it_ended() -> None:
    """A table over days says the day it ended.  (Was a defect: a table whose hands ran from one evening to two days later is recapped as
    "<t:start:f> to <t:end:t>": Discord shows e.g. "27 November 2026 20:00 to 21:30", the end
    without its date, so a 40-hour table reads like an hour and a half. Cause:
    ``recap_lines`` (bot/service.py) always formats the end with ``:t`` (time only). The end
    should carry its date (``:f``) at least when it is not within the start's day (in every
    time zone: a span of more than a day is never within one).  Fixed: from 12 hours on.)"""
    clock = Clock()
    svc, rec, store = await make(clock=clock, seed_factory=lambda: "rv-days")
    t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    for number in (1, 2, 3):  # a hand every 20 hours (never idle for a day)
        await svc.sit_out(CH, BOB, True)
        await play_out(svc)
        await until(lambda: t.hand is None and t.waiting)
        clock.offset += 20 * HOUR
        await svc.sit_out(CH, BOB, False)
        await next_hand(t, number + 1)
    recap = await store.table_recap(t.id)
    assert recap is not None and recap.ended - recap.started > 40 * HOUR
    head = (await svc.recap(CH)).split("\n")[0]
    try:
        assert re.search(rf"<t:{int(recap.started)}:f> to <t:{int(recap.ended)}:[fFdD]>",
                         head), head
    finally:
        await done(svc, store)


def test_tied_places_after_the_medals_show_as_ties() -> None:
    """Tied places after the medals show as ties.  (Was a defect: from the fourth place on a recap line starts "4. ", "4. " (tied), which is a
    Discord markdown ordered list: Discord numbers its items itself from the first one
    (``<ol start=4>``), so two players tied 4th show as "4." and "5." (and in a table's recap
    with many players, nine tied at 10th show 10. to 18.), against "ties share a place".
    Cause: ``recap_lines`` (bot/service.py) writes ``f"{place + 1}."`` at the start of the
    line, unescaped. It should escape the dot (``4\\.``) or write the place differently.
    Fixed: "4\\.".)"""
    row = TableRow(id=1, guild_id=G, channel_id=CH, creator_id=ALICE, rules={"variant": "ofc"},
                   stake=1, buyin=100, max_seats=4, status="closed", button=0, hand_no=5,
                   message_id=None, extra={}, created_at=0.0, updated_at=0.0, closed_at=0.0)
    players = tuple(RecapRow(k, name, False, 2, pts, pts, 0, 0, 3)
                    for k, (name, pts) in enumerate(
                        [("ann", 9), ("ben", 4), ("cat", 1), ("dan", -7), ("eve", -7)]))
    lines = recap_lines(row, TableRecap(5, 1_700_000_000.0, 1_700_003_600.0, players), True)
    assert lines[4].startswith("4\\. dan") and lines[5].startswith("4\\. eve")
    listed = [line for line in lines if re.match(r"\d+\. ", line)]
    assert not listed, listed


def _long_name(k: int) -> str:
    """A 32-character display name (Discord's longest) with some markdown in it."""
    return f"[OFC] Player_{k:02d} (the_best) ~ok~"[:32].ljust(32, "_")


async def test_the_closing_notice_of_a_table_many_played_at_fits_a_message() -> None:
    """The closing notice of a table many played at fits a message.  (Was a defect: a 4-seat
    table where players came and went (24 in all, 32-character names as
    Discord allows) closes after its last hand with "The table is closed. Thanks for
    playing!" plus a recap of 2,000+ characters: Discord refuses the message (50035) and
    ``Notifier.notice`` only logs it, so the channel is never told that the table closed (it
    was, before this feature) and sees no recap. The same for ``/ofc close``'s answer, an idle
    close and everyone leaving. Cause: ``_recap_after`` / ``recap_lines`` (bot/service.py)
    list every player who ever finished a hand there, with no limit and no split (the table
    is bounded by its seats, its history is not). It should stay within 2,000 characters
    (split into more messages, or the top players and "and N more").  Fixed: at most
    ``RECAP_CHARS`` of recap, the rest counted: "… and N more players".)"""
    svc, rec, store = await make(seed_factory=lambda: "rv-many")
    users = [500 + k for k in range(24)]
    t = await svc.new_table(G, CH, users[0], _long_name(0), variant="ofc", seats=4)
    await svc.join(G, CH, users[1], _long_name(1))
    await svc.start(CH, users[0])
    nxt = 2
    for number in range(1, 13):
        await next_hand(t, number)
        for seat in list(t.seats):
            await svc.leave(CH, seat.user_id)
        if number < 12:
            for _ in range(2):
                await svc.join(G, CH, users[nxt], _long_name(nxt))
                nxt += 1
        await play_out(svc)
    await until(lambda: t.id not in svc.tables)
    await until(lambda: "Thanks for playing" in (notices(rec) or [""])[-1])
    closing = notices(rec)[-1]
    recap = await store.table_recap(t.id)
    assert recap is not None and len(recap.players) == 24
    try:
        assert closing.startswith("The table is closed. Thanks for playing!")
        assert len(closing) <= 2000, len(closing)
        assert re.search(r"\n… and \d+ more players \(`/ofc recap` lists them all\)$",
                         closing), closing
    finally:
        await done(svc, store)


# ---------------------------------------------------------------- e2e
async def _e2e_many_played(w: Any) -> tuple[Any, list[Any]]:
    """Through the fake Discord: a 4-seat ofc table (1 unit a point) where each of 11 hands
    is played by two newcomers with 32-character names (the two before them leave during
    it): 22 players have finished a hand; the next two are seated, between hands."""
    await w.start_bot()
    people = [w.fake.add_user(f"player{k}", guild=w.guild, global_name=_long_name(k))
              for k in range(24)]
    by_id = {p.id: p for p in people}
    await w.slash(people[0], "ofc new", variant="ofc", stake=1, seats=4)
    await w.slash(people[1], "ofc join")
    await w.slash(people[0], "ofc start")
    t = table_of(w)
    nxt = 2
    for number in range(1, 12):
        await w.fake.wait_until(lambda n=number: t.hand is not None and t.row.hand_no == n,
                                10, f"hand {number}")
        for seat in list(t.seats):
            await w.slash(by_id[seat.user_id], "ofc leave")
        for _ in range(2):
            await w.slash(people[nxt], "ofc join")
            nxt += 1
        if number == 11:
            w.service.next_hand_delay = 3600.0  # (then the table waits between hands)
        await play_out(w.service, w.chan.id)
    await w.fake.wait_until(lambda: t.hand is None and t.last_result is not None
                            and service_module.SHOWDOWN_PENDING not in t.row.extra, 10,
                            "hand 11 settled")
    recap = await w.store.table_recap(t.id)
    assert recap is not None and len(recap.players) == 22
    return t, people


@pytest.mark.e2e
async def test_e2e_recap_of_a_table_many_played_at(tmp_path: Path) -> None:
    """``/ofc recap`` of a table many played at lists them all.  (Was a defect: ``/ofc recap`` at a table where 22 players (32-character names) came and went
    answers with one message of 2,000+ characters; Discord refuses it (400, 50035 "Must be
    2000 or fewer in length") and the member who asked gets "Something went wrong on our
    side" instead of the recap. Cause: ``OFC.recap`` (cogs/ofc.py) sends
    ``TableService.recap``'s text in one ``send_message``, and ``recap_lines``
    (bot/service.py) has no limit on the players it lists. It should split the recap
    (``split_message``, as ``/ofc history`` does) or shorten it.  Fixed: split.)"""
    async with make_world(tmp_path, seed_factory=lambda: "rv-many-e2e",
                          next_hand_delay=0.01) as w:
        t, people = await _e2e_many_played(w)
        r = await w.slash(people[-1], "ofc recap")
        await w.fake.wait_until(lambda: len(r.messages) >= 2, 10, "the rest of the recap")
        shown = "\n".join(m.content or "" for m in r.messages)
        assert shown.startswith("📋 **This table so far**"), (r.content, r.errors)
        assert all(m.author is w.fake.bot for m in r.messages)
        for k in range(22):
            assert f"Player\\_{k:02d}" in shown, k


@pytest.mark.e2e
async def test_e2e_close_of_a_table_many_played_at(tmp_path: Path) -> None:
    """``/ofc close`` of a table many played at answers that it closed.  (Was a defect:
    ``/ofc close`` between hands at the same table closes it (every stack back
    to its owner's balance) but its answer, the closing words plus the 2,000+-character
    recap, is refused by Discord, so the one who closed it reads "Something went wrong on
    our side ... The table is unchanged; please try again." and the channel is never told it
    closed. Cause: ``TableService.close`` (bot/service.py) appends ``_recap_after`` to its
    answer with no length limit, after ``_close_now`` committed; ``OFC.close`` (cogs/ofc.py)
    sends it as one message. The close should be answered within 2,000 characters (the
    recap split off or shortened).  Fixed: ``RECAP_CHARS``.)"""
    async with make_world(tmp_path, seed_factory=lambda: "rv-many-close",
                          next_hand_delay=0.01) as w:
        t, people = await _e2e_many_played(w)
        r = await w.slash(w.admin, "ofc close")
        assert t.id not in w.service.tables and t.row.status == "closed"  # it did close
        assert (r.content or "").startswith("The table is closed; every stack went back"), (
            r.content, r.errors)


@pytest.mark.e2e
async def test_e2e_names_that_look_like_mentions_ping_nobody(tmp_path: Path) -> None:
    """Display names "@everyone", "<@id>" (of a real member) and markdown: the recap of
    ``/ofc recap`` and of ``/ofc close`` (sent with the bot's default allowed mentions,
    users on) shows them as typed and pings nobody."""
    async with make_world(tmp_path, seed_factory=lambda: "rv-pings",
                          next_hand_delay=30) as w:
        w.alice.global_name = f"<@{w.dave.id}> @everyone"
        w.bob.global_name = "**bold** ||x|| @here"
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=1)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        await play_out(w.service, w.chan.id)
        await w.fake.wait_until(lambda: t.hand is None and t.last_result is not None, 10,
                                "showdown")
        r = await w.slash(w.carol, "ofc recap")
        assert r.message is not None and not r.ephemeral
        assert r.message.pinged == []
        assert f"\\<\\@{w.dave.id}\\> \\@everyone" in r.content
        assert "\\*\\*bold\\*\\* \\|\\|x\\|\\| \\@here" in r.content
        closed = await w.slash(w.alice, "ofc close")
        assert closed.message is not None and "📋 **Recap**" in closed.content
        assert closed.message.pinged == []
        assert f"<@{w.dave.id}>" not in closed.content
        w.fake.assert_clean()


@pytest.mark.e2e
async def test_e2e_the_right_table_a_thread_and_another_channel(tmp_path: Path) -> None:
    """A table with a hand in the channel, a table without one in a thread under it, nothing in
    a second channel: each recap is its own channel's."""
    async with make_world(tmp_path, seed_factory=lambda: "rv-where",
                          next_hand_delay=30) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=1)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        await play_out(w.service, w.chan.id)
        await w.fake.wait_until(lambda: t.hand is None and t.last_result is not None, 10,
                                "showdown")
        thread = w.fake.add_thread(w.chan, "side table", owner=w.carol)
        other = w.fake.add_text_channel(w.guild, "elsewhere")
        await w.fake.slash(w.carol, thread, "ofc new", options={"variant": "pineapple"})
        await w.fake.slash(w.dave, thread, "ofc join")
        r = await w.fake.slash(w.dave, thread, "ofc recap")
        assert r.content == "No hand has finished at this table yet." and r.ephemeral
        r = await w.fake.slash(w.alice, other, "ofc recap")
        assert r.content is not None and NO_TABLE_HERE in r.content
        r = await w.slash(w.dave, "ofc recap")
        assert r.content.startswith("📋 **This table so far** — ofc, 1 unit per point · 1 hand")
        names = {line.split(" ")[1] for line in r.content.split("\n")[1:]}
        assert names == {"alice", "bob"}
        await w.slash(w.alice, "ofc close")
        r = await w.fake.slash(w.dave, thread, "ofc recap")  # the thread's table is open
        assert r.content == "No hand has finished at this table yet."
        await w.slash(w.carol, "ofc new", variant="chinese")  # a new table in the channel
        r = await w.slash(w.dave, "ofc recap")  # (nothing to show: said privately)
        assert r.content == "No hand has finished at this table yet." and r.ephemeral
        w.fake.assert_clean()
