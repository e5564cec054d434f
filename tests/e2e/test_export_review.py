"""Review of `/ofc history file:true` (the CSV of a member's hands) and of the evening
review's fixes (7b63284, ea28b86): the units notes under a showdown, "buy in to play", the
export's pointers and columns, its cap and paging, through the real discord.py client.

The tests whose docstrings start "Was a defect" were strict xfails, each a defect found (fixed
since); the others pin what was checked and found right that no other test covers."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
import sqlite3
import time
from typing import Any

import pytest

from bot.store import Store
from engine.autoplay import choose_placement

from .conftest import World, fill_move, make_world, panel_cards, table_of
from .fakediscord import FakeChannel, FakeUser
from .test_evening_review import (
    ROWS,
    chinese_with_a_short_stack,
    hand_seat,
    sensible_move,
    showdown,
    surrender,
    table_messages,
)

pytestmark = pytest.mark.e2e


# --------------------------------------------------------------------------- helpers
async def export(w: World, who: FakeUser) -> tuple[str, list[dict[str, str]]]:
    """``who``'s `/ofc history file:true`: the message and the CSV's lines."""
    r = await w.slash(who, "ofc history", file=True)
    (sent,) = await w.fake.wait_followups(r, 1, timeout=30)
    assert sent.ephemeral
    if not sent.files:
        return sent.content or "", []
    ((_, data),) = sent.files
    return sent.content or "", list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


async def play_chinese(w: World, chan: FakeChannel, players: tuple[FakeUser, ...],
                       stake: int = 1) -> Any:
    """``players[0]`` opens a chinese table in ``chan``, the others join, and all set hand #1
    by ``fill_move``; the table (its showdown posted)."""
    await w.fake.slash(players[0], chan, "ofc new", options={"variant": "chinese",
                                                             "stake": stake})
    for p in players[1:]:
        await w.fake.slash(p, chan, "ofc join")
    await w.fake.slash(players[0], chan, "ofc start")
    t = w.service.table_in_channel(chan.id)
    await w.fake.wait_until(lambda: t.hand is not None, 5, "the deal")
    for who in players:
        hs = t.hand_seat_of(t.seat_of_user(who.id).seat_no)
        cards = panel_cards((await w.fake.slash(who, chan, "ofc hand")).content)
        r = await w.fake.slash(who, chan, "ofc place", options={"move": fill_move(t, hs, cards)})
        assert r.content.startswith("✅"), r.content
    await w.fake.wait_for_message(chan, lambda m: "Showdown — hand #1**" in (m.content or ""),
                                  timeout=20, include_existing=True)
    return t


def fill_hands(db: str, guild: int, alice: int, bob: int, channel: int, hands: int,
               when: float = 1.7e9) -> list[int]:
    """``hands`` settled hands of alice and bob at three closed tables of ``channel`` (one a
    game), every one finished at the same moment ``when``, each with a stored state whose
    boards give alice ``Ah Kh Qh`` and bob ``2c 3c 4c`` on top (alice at table seat 1, the
    second hand seat; bob at table seat 0); the table ids."""
    con = sqlite3.connect(db)
    try:
        tables = []
        for game in ("pineapple", "ofc", "chinese"):
            cur = con.execute(
                "INSERT INTO tables (guild_id, channel_id, creator_id, rules, stake, buyin,"
                " max_seats, status, created_at, updated_at, closed_at)"
                " VALUES (?, ?, ?, ?, 2, 10, 3, 'closed', 1, 1, 1)",
                (guild, channel, alice, json.dumps({"variant": game})))
            tables.append(int(cur.lastrowid or 0))
        state = json.dumps({"seats": [0, 1], "users": [bob, alice], "engine": {"state": {
            "boards": [[["2c", "3c", "4c"], ["5d"] * 5, ["6s"] * 5],
                       [["Ah", "Kh", "Qh"], ["Jd"] * 5, ["Ts"] * 5]]}}})
        for n in range(hands):
            k = n % 3
            cur = con.execute(
                "INSERT INTO hands (table_id, number, seed, rules, state, status, created_at,"
                " updated_at, finished_at, ledger_seq) VALUES (?, ?, 's', ?, ?, 'done', ?, ?,"
                " ?, 0)", (tables[k], n // 3 + 1,
                           json.dumps({"variant": ("pineapple", "ofc", "chinese")[k]}), state,
                           when, when, when))
            hand_id = cur.lastrowid
            con.execute("INSERT INTO hand_settlements VALUES (?, ?)", (hand_id, when))
            won = n % 7 - 3
            con.executemany(
                "INSERT INTO results (hand_id, seat_no, user_id, guild_id, name, points,"
                " units, counted, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)",
                [(hand_id, 1, alice, guild, "alice", won, 2 * won, when),
                 (hand_id, 0, bob, guild, "bob", -won, -2 * won, when)])
        con.commit()
        return tables
    finally:
        con.close()


async def prepared_world_db(w: World, hands: int) -> list[int]:
    """The world's database migrated (the store opened once) and filled with ``hands``."""
    store = await Store.open(str(w.db))
    await store.close()
    return await asyncio.to_thread(fill_hands, str(w.db), w.guild.id, w.alice.id, w.bob.id,
                                   w.chan.id, hands)


# --------------------------------------------------------------------------- defects
async def test_a_winner_whose_own_stack_ran_short_is_named_by_the_units_note(
    tmp_path: Any,
) -> None:
    """Was a defect (fixed): A chinese table at 1 unit a point, surrender worth 10: alice (stack 1) surrenders, bob
    (stack 2) fouls against carol. bob wins 10 points from alice and loses 7 to carol: +3
    points. alice can pay 1 unit in all (to carol), so bob, owed 10, gets nothing and cannot
    pay carol's 7 from a stack of 2: he ends "+3 points, −2 units". The showdown's note says
    only "A stack too short to pay all it lost paid what it held (alice 1 of 20 units), shared
    by the winners in proportion": bob, a "winner" by his points, paid what he held too."""
    async with make_world(tmp_path, seed_factory=lambda: "cascade-1") as w:
        await w.start_bot()
        await w.slash(w.carol, "ofc new", variant="chinese", stake=1, buyin=100)
        await w.slash(w.carol, "ofc options", surrender=10)
        await w.slash(w.alice, "ofc join", buyin=1)
        await w.slash(w.bob, "ofc join", buyin=2)
        await w.slash(w.carol, "ofc start")
        await surrender(w, w.alice)
        t = table_of(w)
        hs = hand_seat(w, w.bob)
        assert hs is not None and t.hand is not None
        req = t.hand.requirement(hs)
        assert req is not None
        placed, _ = choose_placement(t.hand, hs, req, plain=True)
        swap = {0: 0, 1: 2, 2: 1}  # (his middle and bottom swapped: a foul)
        r = await w.slash(w.bob, "ofc place",
                          move=" ".join(f"{c} {ROWS[swap[r]]}" for c, r in placed) + " foul")
        assert r.content.startswith("✅"), r.content
        r = await w.slash(w.carol, "ofc place", move=sensible_move(w, w.carol))
        assert r.content.startswith("✅"), r.content
        sd = await showdown(w, 1)
        res = table_of(w).last_result
        bob = res.names.index("bob")
        assert res.settlement.totals[bob] > 0 and res.units[bob] < 0, (
            res.settlement.totals, res.units)  # won points, lost units
        notes = [x for x in (sd.content or "").split("\n") if x.startswith(("⚖️", "🤖"))]
        assert notes and any("bob" in x for x in notes), notes


async def test_an_empty_stack_at_a_closing_table_is_not_told_to_buy_in(tmp_path: Any) -> None:
    """Was a defect (fixed): bob's stack is emptied in hand #1 (the evening review's chinese short stack); during
    hand #2 the host closes the table. bob's `/ofc hand` says "`/ofc join` buys in again
    (between your hands) to be dealt in", and the table message reads "bob ... stack 0 · buy
    in to play" under "This table closes after this hand."; `/ofc join` answers "This table
    is closing: no new seats or hands"."""
    async with make_world(tmp_path, seed_factory=lambda: "ev-broke", next_hand_delay=0.2) as w:
        await chinese_with_a_short_stack(w)
        await w.fake.wait_until(lambda: table_of(w).hand is not None
                                and table_of(w).row.hand_no == 2, 10, "hand #2")
        r = await w.slash(w.alice, "ofc close")
        assert "close after this hand" in r.content, r.content
        told = (await w.slash(w.bob, "ofc hand")).content
        joined = (await w.slash(w.bob, "ofc join")).content
        await w.fake.wait_until(lambda: "closes after this hand" in (
            table_messages(w)[-1].content or ""), 5, "the table message says closing")
        line = next(x for x in (table_messages(w)[-1].content or "").split("\n")
                    if x.startswith("bob — "))
        if "/ofc join" in told or "buy in" in line:
            assert "closing" not in joined, (told, line, joined)


async def test_the_csv_survives_a_spreadsheet(tmp_path: Any) -> None:
    """Was a defect (fixed): README: "a CSV file a spreadsheet opens". Every cell that a spreadsheet reads as a
    number must keep its value there: a number of more than 15 digits does not (a channel
    id, 1234567890123456789, becomes 1.23456789012346E+18)."""
    async with make_world(tmp_path) as w:
        await prepared_world_db(w, 3)
        await w.start_bot()
        _, lines = await export(w, w.alice)
        assert len(lines) == 3
        too_long = {k: v for line in lines for k, v in line.items()
                    if re.fullmatch(r"-?\d{16,}", v)}
        assert not too_long, too_long


async def test_the_exports_pointer_to_a_hand_finds_that_hand(tmp_path: Any) -> None:
    """Was a defect (fixed): alice and bob play hand #1 at a table in #ofc and leave (it closes); alice and carol
    open another there and play its hand #1. The file's message says: "the table and hand
    (`/ofc history hand:` there)"; the older line's `/ofc history hand:1` in #ofc shows the
    hand alice played with carol, not the one with bob."""
    async with make_world(tmp_path, seed_factory=lambda: "export-pointer",
                          next_hand_delay=60) as w:
        await w.start_bot()
        first = await play_chinese(w, w.chan, (w.alice, w.bob))
        for u in (w.bob, w.alice):
            await w.slash(u, "ofc leave")
        await w.fake.wait_until(lambda: first.id not in w.service.tables, 20, "closed")
        second = await play_chinese(w, w.chan, (w.alice, w.carol))
        assert second.id != first.id
        message, lines = await export(w, w.alice)
        old = next(x for x in lines if int(x["table"]) == first.id)
        assert (old["channel"].rsplit("/", 1)[1], old["hand"]) == (str(w.chan.id), "1")
        if "/ofc history hand:" in message:
            shown = await w.slash(w.alice, "ofc history", hand=int(old["hand"]))
            text = shown.content or ""
            assert "bob" in text and "carol" not in text, text


# --------------------------------------------------------------------------- what works
async def test_the_export_maps_a_seat_to_its_own_board_when_hand_and_table_seats_differ(
    tmp_path: Any,
) -> None:
    """alice (table seat 0), bob (seat 1) and carol (seat 2) sit at a chinese table, bob sits
    out: the hand is dealt to seats 0 and 2, so carol is hand seat 1 (the table seat 1 is
    bob's). carol's line has her own board, never alice's; alice surrenders: her line is
    "surrendered", not fouled, with no rows (her cards stay unseen); bob has no hands."""
    async with make_world(tmp_path, seed_factory=lambda: "export-seats",
                          next_hand_delay=60) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", stake=3)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.carol, "ofc join")
        await w.slash(w.bob, "ofc sitout")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        await w.fake.wait_until(lambda: t.hand is not None, 5, "the deal")
        assert t.hand_seats == [0, 2]
        await surrender(w, w.alice)
        hs = hand_seat(w, w.carol)
        assert hs == 1
        cards = panel_cards((await w.slash(w.carol, "ofc hand")).content)
        r = await w.slash(w.carol, "ofc place", move=fill_move(t, hs, cards))
        assert r.content.startswith("✅"), r.content
        await showdown(w, 1)
        res = t.last_result
        _, (line,) = await export(w, w.carol)
        board = res.settlement.boards[1]
        assert (line["top"], line["middle"], line["bottom"]) == tuple(
            " ".join(str(c) for c in row) for row in (board.top, board.middle, board.bottom))
        assert line["players"] == "2" and line["stake"] == "3" and line["practice"] == "0"
        assert int(line["units"]) == 3 * int(line["points"]) == 3 * res.settlement.totals[1]
        _, (mine,) = await export(w, w.alice)
        assert (mine["surrendered"], mine["fouled"]) == ("1", "0")
        assert (mine["top"], mine["middle"], mine["bottom"]) == ("", "", "")
        shown = set(" ".join((mine["top"], mine["middle"], mine["bottom"])).split())
        assert not shown & {str(c) for c in board.cards}
        message, lines = await export(w, w.bob)
        assert not lines and "You have not finished a hand" in message


async def test_the_export_holds_the_newest_10000_hands_once_each_when_all_tie(
    tmp_path: Any,
) -> None:
    """10,001 hands at three tables, every one finished at the same second: the file has
    the newest 10,000 (by the hand's id where the time ties), each once, the message says
    "Your last 10,000 hands", every line's rows are alice's own (never bob's, who sat at the
    lower seat), and the file is far below Discord's attachment limit."""
    async with make_world(tmp_path) as w:
        tables = await prepared_world_db(w, 10_001)
        await w.start_bot()
        start = time.perf_counter()
        message, lines = await export(w, w.alice)
        took = time.perf_counter() - start
        assert message.startswith("Your last 10,000 hands in this server"), message
        assert len(lines) == 10_000
        keys = [(int(x["table"]), int(x["hand"])) for x in lines]
        assert len(set(keys)) == 10_000
        # hand ids 2..10001 kept, newest first: the first filled (table 1, hand 1) left out
        assert (tables[0], 1) not in set(keys)
        assert keys[0] == (tables[10_000 % 3], 10_000 // 3 + 1)
        assert {(x["top"], x["middle"], x["bottom"]) for x in lines} == {
            ("Ah Kh Qh", " ".join(["Jd"] * 5), " ".join(["Ts"] * 5))}
        assert {x["finished_utc"] for x in lines} == {
            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1.7e9))}
        r = await w.slash(w.alice, "ofc history", file=True)
        (sent,) = await w.fake.wait_followups(r, 1, timeout=30)
        ((_, data),) = sent.files
        assert len(data) < 2_000_000
        assert took < 20, took
        # bob's file: his own rows
        _, theirs = await export(w, w.bob)
        assert {x["top"] for x in theirs} == {"2c 3c 4c"}


async def test_the_csv_says_the_points_that_count_beside_a_bots(tmp_path: Any) -> None:
    """Was a defect (fixed): The evening review's pineapple table at 2 units a point with a bot: alice surrenders
    hand #1 (−26 points, −12 units: −6 vs humans). Her file's line gives −26 points and −12
    units; summed in a spreadsheet her points are not her `/ofc stats` points, and a unit
    column that is not the points times the stake has no explanation."""
    from .test_evening_review import pineapple_with_a_bot

    async with make_world(tmp_path, seed_factory=lambda: "ev-bot-units") as w:
        await pineapple_with_a_bot(w)
        await showdown(w, 1)
        (stored,) = await w.store.player_hands(w.guild.id, w.alice.id, 5)
        ranked = stored.result.ranked_points
        assert ranked is not None and ranked != stored.result.points
        _, (line,) = await export(w, w.alice)
        assert int(line["points"]) == stored.result.points
        assert any("human" in k and v == str(ranked) for k, v in line.items()), line


async def test_a_practice_only_player_in_the_recap_of_a_table_with_stakes(
    tmp_path: Any,
) -> None:
    """Was a defect (fixed): alice opens an ofc table at 2 units a point with a bot and plays hand #1 alone
    with it (practice); bob and carol sit down during it, alice leaves after it and
    surrenders. bob and carol play hand #2 with the bot (it counts). The recap's header says
    "2 units a point"; its line for alice gives her points (against the bot) and nothing
    else, though `/ofc stats` counts none of them (README: "the points against humans that
    `/ofc stats` counts beside them when they differ")."""
    from .test_evening_review import play_out

    async with make_world(tmp_path, seed_factory=lambda: "practice-recap",
                          next_hand_delay=0.2) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=2, bots=1, level="easy",
                      seats=4)
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        await w.fake.wait_until(lambda: t.hand is not None, 5, "the deal")
        assert t.hand_practice
        await w.slash(w.bob, "ofc join")
        await w.slash(w.carol, "ofc join")
        await w.slash(w.alice, "ofc leave")
        await surrender(w, w.alice)
        await showdown(w, 1)
        await w.fake.wait_until(lambda: t.hand is not None and t.row.hand_no == 2, 10,
                                "hand #2")
        assert not t.hand_practice
        await surrender(w, w.bob)
        await play_out(w, (w.carol,))
        await showdown(w, 2)
        recap = (await w.slash(w.bob, "ofc recap")).content or ""
        assert "2 units per point" in recap.split("\n")[0], recap
        alice = next(x for x in recap.split("\n") if " alice " in x)
        assert re.search(r" [+−]?\d+ points?", alice), alice
        assert re.search(r"practice|vs humans|unit", alice), alice


async def test_a_store_failure_during_the_export_is_answered_privately(
    tmp_path: Any, errors: list[Any],
) -> None:
    """The export is deferred (thinking, ephemeral); when the store fails on a later page the
    member gets the private "Something went wrong" follow-up with an error id (logged), not a
    partial file nor a public message; the next ask works."""
    async with make_world(tmp_path) as w:
        await prepared_world_db(w, 1_500)
        await w.start_bot()
        real = w.store.player_export
        calls = 0

        async def failing(*args: Any, **kw: Any) -> Any:
            nonlocal calls
            calls += 1
            if calls == 2:
                raise sqlite3.OperationalError("disk I/O error")
            return await real(*args, **kw)

        w.store.player_export = failing
        r = await w.slash(w.alice, "ofc history", file=True)
        (sent,) = await w.fake.wait_followups(r, 1)
        assert r.deferred and sent.ephemeral and not sent.files
        assert "Something went wrong on our side (error id `" in (sent.content or "")
        assert any("unexpected error" in rec.getMessage() for rec in errors)
        errors.clear()
        message, lines = await export(w, w.alice)
        assert message.startswith("Your 1,500 hands in this server") and len(lines) == 1_500
        assert not any(m for m in w.fake.messages(w.chan) if not m.ephemeral)


async def test_a_stack_emptied_by_a_closing_tables_last_hand_is_not_told_to_buy_in(
    tmp_path: Any,
) -> None:
    """The showdown's 💸 line said "so you sit the next hands out. `/ofc join` buys in
    again" under the last hand of a table closing after it (its next hand never comes, and
    a closing table takes no buy-in): there it only says the stack is empty."""
    from .test_evening_review import play_out, showdown, surrender

    async with make_world(tmp_path, seed_factory=lambda: "ev-broke") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", stake=10, buyin=100)
        await w.slash(w.bob, "ofc join", buyin=20)
        await w.slash(w.carol, "ofc join")
        await w.slash(w.alice, "ofc start")
        r = await w.slash(w.alice, "ofc close")
        assert "close after this hand" in r.content, r.content
        await surrender(w, w.bob)
        await play_out(w, (w.alice, w.carol))
        sd = await showdown(w, 1)
        broke = [x for x in (sd.content or "").split("\n") if x.startswith("💸")]
        assert broke == [f"💸 <@{w.bob.id}>: your stack is empty."], broke
