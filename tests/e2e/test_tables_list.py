"""``/ofc tables``: the server's open tables, where to join, privately, through the real
discord.py client: each table's channel, game, stakes, players, state and free seats; never a
table of another server, nor one in a private thread to a member who does not play there."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from .conftest import fill_move, hs_of, make_world, panel_cards, table_of

pytestmark = pytest.mark.e2e


async def test_the_open_tables_of_the_server_each_in_one_line(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "tables") as w:
        w.dev_guild = False  # commands published globally: usable in both servers
        other = w.fake.add_guild("Elsewhere")
        elsewhere = w.fake.add_text_channel(other, "ofc")
        w.fake.add_member(other, w.bob)
        await w.start_bot()
        r = await w.slash(w.bob, "ofc tables")
        assert r.ephemeral and r.content == (
            "No table is open in this server (that you can see): `/ofc new` opens one in a "
            "channel.")
        # a real-stakes pineapple table in the channel, its first hand being played
        await w.slash(w.alice, "ofc new", variant="pineapple", stake=5, buyin=200, seats=3)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        await w.fake.wait_until(lambda: table_of(w).hand is not None, 5, "the deal")
        # a practice table in a public thread, not started; a private thread's table
        public = w.fake.add_thread(w.chan, "Practice", owner=w.carol)
        private = w.fake.add_thread(w.chan, "Secret", owner=w.dave, private=True,
                                    members=[w.fake.bot])
        await asyncio.sleep(0.2)  # (THREAD_CREATE reaches the bot's cache)
        r = await w.fake.slash(w.carol, public, "ofc new", variant="ofc", stake=0, bots=1,
                                seats=2)
        assert "opened" in r.content, r.content
        r = await w.fake.slash(w.dave, private, "ofc new", variant="chinese", stake=0)
        assert "opened" in r.content, r.content
        # another server's table is never listed
        r = await w.fake.slash(w.bob, elsewhere, "ofc new", variant="ofc")
        assert "opened" in r.content, r.content
        for where in (public, private, elsewhere):  # (each table's picture posted)
            await w.fake.wait_for_message(where, lambda m: bool(m.files), include_existing=True)

        r = await w.slash(w.bob, "ofc tables")
        assert r.ephemeral
        lines = r.content.split("\n")
        assert lines == [
            "Open tables (2):",
            f"<#{w.chan.id}> — Pineapple · 5 units/pt, buy-in 200 — 2/3 seated: alice, bob — "
            "hand #1 being played; 1 seat free",
            f"<#{public.id}> — Open Face · no units (practice while one human plays) — 2/2 "
            "seated: carol, Ada (bot) — not started yet; full",
        ], lines
        r = await w.slash(w.dave, "ofc tables")  # he plays in the private thread: listed
        assert r.content.startswith("Open tables (3):")
        assert (f"<#{private.id}> — Chinese poker · no units — 1/4 seated: dave — not started yet; "
                "3 seats free") in r.content.split("\n"), r.content
        r = await w.fake.slash(w.bob, elsewhere, "ofc tables")
        assert r.content.split("\n")[1].startswith(f"<#{elsewhere.id}> — ")
        assert str(w.chan.id) not in r.content and len(r.content.split("\n")) == 2
        w.fake.assert_clean()


async def test_who_sits_out_and_a_closing_table(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "tables-closing") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=1, seats=2)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        await w.fake.wait_until(lambda: table_of(w).hand is not None, 5, "the deal")
        await w.slash(w.bob, "ofc sitout")
        await w.slash(w.alice, "ofc close")
        r = await w.slash(w.carol, "ofc tables")
        assert r.content.split("\n")[1].endswith(
            "2/2 seated: alice, bob (sitting out) — closing"), r.content
        w.fake.assert_clean()


async def test_an_idle_table_closes_in_the_channel(tmp_path: Any) -> None:
    """A server manager sets ``idle_hours``; a table left with nothing happening that long closes: the
    channel is told, its message loses its button, stacks are back, ``/ofc tables`` is empty
    and the channel takes a new table."""
    async with make_world(tmp_path, seed_factory=lambda: "tables-idle", idle_check=0.05) as w:
        await w.start_bot()
        r = await w.slash(w.admin, "ofc-admin settings", idle_hours=2)
        assert r.ephemeral and "a table closes after 2 hours with nothing happening" in r.content
        await w.slash(w.alice, "ofc new", variant="ofc", buyin=300)
        await w.slash(w.bob, "ofc join", buyin=300)
        w.clock.offset += 1.9 * 3600
        # warned first (no table closes without it; under load 0.3 s could pass without the
        # idle check's turn, and the close came the warning's lead after the clock's next jump)
        await w.fake.wait_for_message(
            w.chan, lambda m: "so this table closes <t:" in (m.content or ""), timeout=10,
            include_existing=True)
        assert table_of(w).row.status == "open"
        w.clock.offset += 0.2 * 3600
        notice = await w.fake.wait_for_message(
            w.chan, lambda m: "Nothing happened here for 2 hours" in (m.content or ""), timeout=10,
            include_existing=True)
        assert "every stack went back" in (notice.content or "")
        await w.fake.wait_until(lambda: not any(
            m.components for m in w.fake.messages(w.chan) if m.author is w.fake.bot), 10,
            "the table message's button gone")
        assert await w.store.balance(w.guild.id, w.bob.id) == 1000
        r = await w.slash(w.carol, "ofc tables")
        assert r.content.startswith("No table is open")
        r = await w.slash(w.carol, "ofc new", variant="pineapple")
        assert "opened" in r.content
        r = await w.slash(w.admin, "ofc-admin settings", idle_hours=0)
        assert "idle tables stay open" in r.content
        w.fake.assert_clean()


async def test_the_channel_is_warned_before_an_idle_close(tmp_path: Any) -> None:
    """A quarter of ``idle_hours`` before the close (an hour at most) the channel is told once,
    the seated players pinged (the bot is not); a hand dealt then keeps the table."""
    async with make_world(tmp_path, seed_factory=lambda: "tables-warn", idle_check=0.05,
                          next_hand_delay=30) as w:
        await w.start_bot()
        await w.slash(w.admin, "ofc-admin settings", idle_hours=2)
        await w.slash(w.alice, "ofc new", variant="ofc", buyin=300, bots=1)
        await w.slash(w.bob, "ofc join", buyin=300)
        # (the table message's id, saved once it is posted, is a write of the table: wait)
        await w.fake.wait_until(lambda: table_of(w).row.message_id is not None, 10,
                                "the table message")
        w.clock.offset += 1.45 * 3600
        await asyncio.sleep(0.3)
        assert not [m for m in w.fake.messages(w.chan) if "⏳" in (m.content or "")]
        w.clock.offset += 0.06 * 3600
        warning = await w.fake.wait_for_message(
            w.chan, lambda m: "⏳" in (m.content or ""), timeout=10, include_existing=True)
        said = re.fullmatch(
            f"⏳ <@{w.alice.id}> <@{w.bob.id}>: nothing has happened here for 1 hour, so this "
            r"table closes <t:(\d+):R> \(every stack back to its owner's balance\) unless "
            r"a hand is dealt or someone sits down or in \(`/ofc start`, `/ofc join`, "
            r"`/ofc sitin`\)\.", warning.content or "")
        assert said and 29 * 60 - 3 < int(said[1]) - w.clock() <= 30 * 60, warning.content
        assert warning.pinged == [w.alice.id, w.bob.id]
        await asyncio.sleep(0.3)
        assert len([m for m in w.fake.messages(w.chan) if "⏳" in (m.content or "")]) == 1
        r = await w.slash(w.bob, "ofc start")
        assert "dealt" in r.content, r.content
        w.clock.offset += 0.6 * 3600
        await asyncio.sleep(0.3)
        assert table_of(w).row.status == "open"
        assert not [m for m in w.fake.messages(w.chan) if "Nothing happened" in (m.content or "")]
        w.fake.assert_clean()


async def test_a_games_own_leaderboard(tmp_path: Any) -> None:
    """`/ofc leaderboard variant:` ranks one game's hands: a chinese hand played here is on
    the chinese board and the board of every game, not on the pineapple one."""
    async with make_world(tmp_path, seed_factory=lambda: "tables-board",
                          next_hand_delay=30) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", stake=2)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        await w.fake.wait_until(lambda: t.hand is not None, 5, "the deal")
        ask = await w.slash(w.bob, "ofc surrender")
        await w.click(w.bob, ask, label="Yes, surrender")
        cards = panel_cards((await w.slash(w.alice, "ofc hand")).content)
        await w.slash(w.alice, "ofc place", move=fill_move(t, hs_of(w, w.alice), cards))
        await w.fake.wait_until(lambda: t.last_result is not None, 20, "the settlement")
        r = await w.slash(w.carol, "ofc leaderboard", variant="chinese")
        assert r.files and r.content.startswith("Poker Night Chinese poker leaderboard"), \
            r.content
        assert r.content.index("alice") < r.content.index("bob")
        r = await w.slash(w.carol, "ofc leaderboard", variant="pineapple")
        assert "alice" not in r.content and "bob" not in r.content, r.content
        r = await w.slash(w.carol, "ofc leaderboard")
        assert "alice" in r.content and "bob" in r.content
        r = await w.slash(w.bob, "ofc stats", variant="chinese")  # and the player's own
        assert r.ephemeral and r.files and "bob · Chinese poker — 1 hand," in r.content, r.content
        r = await w.slash(w.bob, "ofc stats", variant="pineapple")
        assert "bob · Pineapple — 0 hands" in r.content, r.content
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean()


async def test_the_gateway_lost_and_back_reaches_the_idle_close(tmp_path: Any) -> None:
    """discord.py's disconnect and resumed events hold the idle close, then give an hour."""
    async with make_world(tmp_path, seed_factory=lambda: "tables-gateway",
                          idle_check=0.05) as w:
        bot = await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.fake.wait_for_message(w.chan, lambda m: bool(m.files), include_existing=True)
        bot.dispatch("disconnect")
        await asyncio.sleep(0.1)
        w.clock.offset += 30 * 3600
        await asyncio.sleep(0.3)
        assert table_of(w).row.status == "open"
        bot.dispatch("resumed")
        await asyncio.sleep(0.3)
        assert table_of(w).row.status == "open"  # (the hour after)
        await w.fake.wait_for_message(  # warned at once: it closes in an hour
            w.chan, lambda m: "for 30 hours, so this table closes <t:" in (m.content or ""),
            timeout=10, include_existing=True)
        w.clock.offset += 1.1 * 3600
        await w.fake.wait_for_message(
            w.chan, lambda m: "Nothing happened here for 31 hours" in (m.content or ""),
            timeout=10, include_existing=True)
        w.fake.assert_clean()


async def test_a_leaderboard_by_points_a_hand(tmp_path: Any) -> None:
    """`/ofc leaderboard by:points_per_hand`: only players with 20 counted hands; the text
    says the points a hand and the points; nobody with enough hands says so."""
    from bot.store import HandResult

    async with make_world(tmp_path, seed_factory=lambda: "tables-per-hand") as w:
        await w.start_bot()
        r = await w.slash(w.carol, "ofc leaderboard", by="points_per_hand")
        assert r.files and "Nobody has played 20 hands yet" in r.content, r.content
        store, g = w.store, w.guild.id
        await w.slash(w.alice, "ofc new", variant="ofc", seats=3)
        table = w.service.table_in_channel(w.chan.id)
        await store.seat_player(table.id, 1, g, w.bob.id, "bob", 100)
        await store.seat_player(table.id, 2, g, w.carol.id, "carol", 100)
        for number in range(1, 23):  # alice and bob 21 hands each, carol one
            a, b = (w.alice, w.bob) if number < 22 else (w.alice, w.carol)
            won = 3 if number % 3 else -3  # alice: +3, +3, -3, ...
            hand = await store.create_hand(table.id, number, "s", {}, {})
            await store.finish_hand(hand.id, {}, [
                HandResult(user_id=a.id, seat_no=0, name=a.name, points=won, units=won),
                HandResult(user_id=b.id, seat_no=1 if b is w.bob else 2, name=b.name,
                           points=-won, units=-won),
            ], {a.id: won, b.id: -won})
        r = await w.slash(w.carol, "ofc leaderboard", by="points_per_hand")
        lines = r.content.split("\n")
        assert lines[0].endswith("— top players, all time, by points per hand (20+ hands)")
        # alice: 22 hands, 15 won (+3) and 7 lost (-3): +24 points, +1.09 a hand
        assert lines[1] == ("1\\. alice — +24 units, +1.09 points a hand (+24 points), 22 hands, "
                            "0 fantasylands"), lines
        assert lines[2].startswith("2\\. bob — −21 units, −1.00 points a hand (−21 points), "
                                   "21 hands"), lines
        assert len(lines) == 3 and "carol" not in r.content  # one hand: not ranked
        assert await store.verify_ledger() == []
        w.fake.assert_clean()
