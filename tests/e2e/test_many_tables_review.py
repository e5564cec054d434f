"""A review of one regular playing at several tables at once: two channels of one server (and
a thread beside its parent channel's table) and a table in a second server, with fantasylands
by DM, clocks running out, private panels and typed moves at each.  Checked through the real
discord.py client: whether every message, panel, button, DM and command acts and answers at
the right table, after a restart too; whether each server keeps its own balances, stacks,
grants, settings, hands, stats and leaderboards, and shows each member under that server's
nickname; and what becomes of the other server's table when the bot is removed from one.

Not redone here: the races of ``test_concurrency_review.py`` (the same instant at two tables,
the wrong-channel pointer naming only this server's tables) and the one-table evening of
``test_evening_review.py``.

The review found four defects a player met, all fixed since: a test whose docstring starts
"Was a defect (fixed)" says what they met and what they should (and now do); the others pin
what was checked and found right."""

from __future__ import annotations

import asyncio
import csv
import io
from typing import Any

import pytest

from engine.autoplay import choose_placement

from .conftest import World, make_world, panel_cards
from .fakediscord import FakeChannel, FakeInteraction, FakeMessage, FakeUser

pytestmark = pytest.mark.e2e

ROWS = ("top", "middle", "bottom")


# --------------------------------------------------------------------------- helpers
def second_server(w: World, *members: FakeUser, name: str = "Other Server") -> tuple[Any,
                                                                                     FakeChannel]:
    """A second server (its table channel also named #ofc) where ``members`` play too; the
    commands are published globally so that they work in both (before the bot starts)."""
    w.dev_guild = False
    g2 = w.fake.add_guild(name)
    c2 = w.fake.add_text_channel(g2, "ofc")
    for u in members:
        w.fake.add_member(g2, u)
    return g2, c2


def table_in(w: World, chan: FakeChannel) -> Any:
    return w.service.table_in_channel(chan.id)


def user_of(w: World, user_id: int) -> FakeUser | None:
    return next((u for u in w.users.values() if u.id == user_id), None)


def acting(w: World, chan: FakeChannel) -> list[FakeUser]:
    """The humans whose street it is at the channel's table (not fantasyland sets)."""
    t = table_in(w, chan)
    if t.hand is None:
        return []
    out = []
    for hs in t.hand.to_act():
        if t.hand.fantasyland[hs]:
            continue
        u = user_of(w, t.seat_by_no(t.hand_seats[hs]).user_id)
        if u is not None:
            out.append(u)
    return out


def hs_of(t: Any, user: FakeUser) -> int:
    hs = t.hand_seat_of(t.seat_of_user(user.id).seat_no)
    assert hs is not None
    return int(hs)


def sensible_move(t: Any, hs: int) -> str:
    """What a careful player types: the plain autoplay's move (no AI search)."""
    req = t.hand.requirement(hs)
    placed, discards = choose_placement(t.hand, hs, req, plain=True)
    return " ".join([f"{c} {ROWS[r]}" for c, r in placed] + [f"{c} discard" for c in discards])


async def open_at(w: World, chan: FakeChannel, host: FakeUser, *others: FakeUser,
                  fantasyland: dict[str, int] | None = None, start: bool = True,
                  **options: Any) -> Any:
    r = await w.fake.slash(host, chan, "ofc new", options={"variant": "ofc", **options})
    assert "opened" in (r.content or ""), r.content
    for u in others:
        r = await w.fake.slash(u, chan, "ofc join")
        assert "sat down" in (r.content or ""), r.content
    t = table_in(w, chan)
    if fantasyland:  # (as a hand that earned it would leave it)
        await w.store.update_table(t.id, extra={"fantasyland": fantasyland})
        await w.service._refresh(t)
    if start:
        r = await w.fake.slash(host, chan, "ofc start")
        assert "dealt" in (r.content or ""), r.content
    return t


async def fantasyland_dms(w: World, user: FakeUser, count: int, after: int = 0
                          ) -> list[FakeMessage]:
    await w.fake.wait_until(
        lambda: len([m for m in w.fake.dms(user) if m.id > after
                     and "Fantasyland!" in (m.content or "")]) >= count, 10, "the DMs")
    return [m for m in w.fake.dms(user) if m.id > after and "Fantasyland!" in (m.content or "")]


def dm_of(dms: list[FakeMessage], chan: FakeChannel) -> FakeMessage:
    (dm,) = [m for m in dms if f"<#{chan.id}>" in (m.content or "")]
    return dm


async def play_out(w: World, chan: FakeChannel, *players: FakeUser) -> None:
    """``players`` play the channel's hand to its end by text (sensible moves)."""
    t = table_in(w, chan)
    number = t.row.hand_no
    for _ in range(200):
        if t.hand is None or t.row.hand_no != number:
            return
        movers = [u for u in acting(w, chan) if u in players]
        if not movers:
            await asyncio.sleep(0.02)
            continue
        move = sensible_move(t, hs_of(t, movers[0]))
        r = await w.fake.slash(movers[0], chan, "ofc place", options={"move": move})
        if not r.content.startswith("✅"):  # (a foul it could not avoid)
            r = await w.fake.slash(movers[0], chan, "ofc place", options={"move": move + " foul"})
        assert r.content.startswith("✅"), r.content
    raise AssertionError("the hand did not end")


async def surrender(w: World, user: FakeUser, chan: FakeChannel) -> FakeInteraction:
    ask = await w.fake.slash(user, chan, "ofc surrender")
    r = await w.click(user, ask, label="Yes, surrender")
    assert "You surrendered" in r.content, r.content
    return r


async def showdown(w: World, chan: FakeChannel, number: int) -> FakeMessage:
    return await w.fake.wait_for_message(
        chan, lambda m: f"Showdown — hand #{number}" in (m.content or ""), timeout=20,
        include_existing=True)


async def books_clean(w: World, *guilds: Any) -> None:
    assert await w.store.verify_ledger() == []
    for g in guilds:
        owned, given = await w.store.total_units(g.id)
        assert owned == given, (g, owned, given)


# =========================================================================== defects
async def test_a_fantasyland_dm_still_says_which_table_after_a_click(tmp_path: Any) -> None:
    """Was a defect (fixed).

    alice earned fantasyland at her table in Poker Night's #ofc and at the one in Other
    Server's #ofc: two DMs come at once, each opening "🌴 Fantasyland! Your private hand at
    the table in #ofc". Her first pick in the menu (or a row press) redraws the DM as
    "**Your panel** — hand #1 · 🌴 Fantasyland / Set 13 cards ..." and the line naming the
    table is gone for good: the two DMs now read alike (both hand #1, both 13 cards), the
    one she is arranging no longer says where it will be played, its "type the whole set
    with `/ofc place` in the table's channel" names no channel, and Confirm's answer ("✅
    Your hand is set ...") does not say where either. Each redraw of a DM panel should keep
    naming its table (its channel, and its server, since the two channels share a name).
    Responsible: cogs/views.py:261-295 (``panel_click`` redraws the panel with
    ``panel_text_and_view`` / ``panel_payload``, cogs/views.py:131, i.e. ``panel_text``,
    cogs/presenter.py:302, which knows no table); only ``Presenter.fantasyland_dealt``
    (cogs/presenter.py:790) writes the table into the DM's first text."""
    async with make_world(tmp_path, seed_factory=lambda: "mt-dm-which") as w:
        g2, c2 = second_server(w, w.alice, w.bob)
        await w.start_bot()
        await open_at(w, w.chan, w.alice, w.bob, fantasyland={"0": 13})
        await open_at(w, c2, w.alice, w.bob, fantasyland={"0": 13})
        dms = await fantasyland_dms(w, w.alice, 2)
        dm = dm_of(dms, c2)
        cards = panel_cards(dm.content)
        rec = await w.select(w.alice, dm, dm.selects()[0]["custom_id"], cards[:3])
        assert "Selected:" in rec.content, rec.content
        assert f"<#{c2.id}>" in rec.content, rec.content


async def test_a_command_at_the_parent_channels_table_points_to_the_players_thread(
    tmp_path: Any,
) -> None:
    """Was a defect (fixed).

    alice and bob play in a thread ("alice and bob") of #ofc, where carol and dave have a
    table of their own. alice, pinged, types `/ofc place` (or `/ofc hand`, `/ofc leave`,
    `/ofc surrender`, `/ofc sitin`) in #ofc instead of the thread. She reads "⚠️ You are not
    seated at this table. Take a seat with `/ofc join`." — which sends her to buy in at
    carol's table (a second buy-in) while her clock runs out in the thread. A channel without
    a table already answers "you are seated at the one in <#thread>; use the command there"
    (test_newcomer's defect, since fixed); a channel with another table should say it too:
    "You are not seated at this table: you are seated at the one in <#thread>."
    Responsible: bot/service.py:1123 (``_my_seat``: the pointer of ``table_in_channel``,
    bot/service.py:1094, is given only when the channel has no table)."""
    async with make_world(tmp_path, seed_factory=lambda: "mt-thread") as w:
        await w.start_bot()
        thread = w.fake.add_thread(w.chan, "alice and bob", owner=w.alice)
        await asyncio.sleep(0.2)
        await open_at(w, w.chan, w.carol, w.dave)
        t = await open_at(w, thread, w.alice, w.bob)
        before = t.hand.to_json()
        for cmd, opts in (("ofc place", {"move": "Ah top"}), ("ofc hand", {}),
                          ("ofc leave", {}), ("ofc surrender", {}), ("ofc sitin", {})):
            r = await w.fake.slash(w.alice, w.chan, cmd, options=opts)
            assert r.ephemeral and r.content.startswith("⚠️"), (cmd, r.content)
            assert t.hand.to_json() == before and not t.seat_of_user(w.alice.id).leaving
            assert f"<#{thread.id}>" in r.content, (cmd, r.content)


async def test_a_move_typed_at_the_wrong_table_says_where_the_turn_is(tmp_path: Any) -> None:
    """Was a defect (fixed).

    alice sits at #ofc (bob to act) and at #ofc-b, where it is her turn: she was pinged
    there and her clock runs. She types her move (the cards of #ofc-b's panel) in #ofc. She
    reads "⚠️ It is bob's turn; you are pinged when it is yours." — as if she had nothing to
    do anywhere; she was pinged already, and waits for a ping that came, while #ofc-b's clock
    runs out (a timeout plays for her and sits her out). It should say that her turn is at
    the table in <#ofc-b> (as a channel without a table points to the player's table).
    Responsible: bot/service.py:2258 (``_requirement_or_error`` passes on the engine's
    "you are pinged when it is yours", engine/hand.py:420, without a look at the player's
    other tables of the server)."""
    async with make_world(tmp_path, seed_factory=lambda: "mt-place") as w:
        cb = w.fake.add_text_channel(w.guild, "ofc-b")
        await w.start_bot()
        await open_at(w, w.chan, w.alice, w.bob)
        tb = await open_at(w, cb, w.bob, w.alice)
        assert acting(w, w.chan) == [w.bob] and acting(w, cb) == [w.alice]
        await w.fake.wait_for_message(
            cb, lambda m: f"<@{w.alice.id}>: your turn" in (m.content or ""),
            include_existing=True)
        move = sensible_move(tb, hs_of(tb, w.alice))  # her move at #ofc-b ...
        before = tb.hand.to_json()
        r = await w.fake.slash(w.alice, w.chan, "ofc place", options={"move": move})  # in #ofc
        assert r.ephemeral and r.content.startswith("⚠️ It is bob's turn"), r.content
        assert tb.hand.to_json() == before  # (nothing played anywhere)
        assert f"<#{cb.id}>" in r.content, r.content


async def test_a_server_that_removed_the_bot_while_it_was_down_closes_its_table(
    tmp_path: Any,
) -> None:
    """Was a defect (fixed).

    alice and bob play a hand at Poker Night's #ofc and at Other Server's #ofc. The bot is
    down (an upgrade) while Other Server removes it. At the start Discord's READY no longer
    lists that server, but its table is loaded and resumed like the others: its "play
    resumes" notice is refused (403 Missing Access, not the 404 a deleted channel gives), the
    table stays open with 200 units of each player locked in it, and its clocks play the
    hand on for players who cannot reach it (each timeout sitting them out; played out by
    the clock, the hand settles and moves units as the AI played it). README: "A deleted channel or thread (or the bot removed from the
    server) closes its table at once: the hand being played is voided (no units move) and
    every stack goes back to its owner's balance" — as it does when the removal comes while
    the bot runs (``on_guild_remove``). A table whose server is not among the bot's servers
    once it is connected should close the same way.
    Responsible: bot/service.py:918 (``resume`` resumes every loaded table) with
    cogs/ofc.py:231 (only a live GUILD_DELETE closes a server's tables)."""
    async with make_world(tmp_path, seed_factory=lambda: "mt-kicked") as w:
        g2, c2 = second_server(w, w.alice, w.bob)
        await w.start_bot()
        await open_at(w, w.chan, w.alice, w.bob)
        t2 = await open_at(w, c2, w.alice, w.bob)
        assert await w.store.wallet(g2.id, w.alice.id) == (800, 200)
        await w.stop_bot()
        w.fake.guilds.pop(g2.id)  # removed meanwhile: READY lists only Poker Night
        await w.start_bot()
        await w.fake.wait_for_message(
            w.chan, lambda m: "The bot restarted" in (m.content or ""), include_existing=True)
        await asyncio.sleep(0.5)
        assert table_in(w, w.chan).hand is not None  # (Poker Night plays on)
        assert t2.id not in w.service.tables
        assert await w.store.wallet(g2.id, w.alice.id) == (1000, 0)


# =========================================================================== what holds
async def test_two_fantasyland_dms_each_set_their_own_table_across_a_restart(
    tmp_path: Any, caplog: Any,
) -> None:
    """Two fantasylands at once (a table in each server): after a restart each is sent again
    naming its own channel; the old DM of the second server's table, Confirmed, sets that
    table only; the first is then typed in its channel with `/ofc place`."""
    async with make_world(tmp_path, seed_factory=lambda: "mt-dms") as w:
        g2, c2 = second_server(w, w.alice, w.bob)
        await w.start_bot()
        t1 = await open_at(w, w.chan, w.alice, w.bob, fantasyland={"0": 13})
        t2 = await open_at(w, c2, w.alice, w.bob, fantasyland={"0": 13})
        old = await fantasyland_dms(w, w.alice, 2)
        dm_of(old, w.chan), dm_of(old, c2)  # one each, each naming its channel
        await w.stop_bot()
        await w.start_bot()
        again = await fantasyland_dms(w, w.alice, 2, after=old[-1].id)
        dm_of(again, w.chan), dm_of(again, c2)  # one each, each naming its channel
        t1, t2 = table_in(w, w.chan), table_in(w, c2)
        dm2 = dm_of(old, c2)
        cards = panel_cards(dm2.content)
        assert sorted(cards) == sorted(str(c) for c in t2.hand.pending[0])
        rec: Any = dm2
        for row, chunk in zip(ROWS, (cards[:3], cards[3:8], cards[8:]), strict=True):
            msg = rec if isinstance(rec, FakeMessage) else rec.message
            rec = await w.select(w.alice, rec, msg.selects()[0]["custom_id"], chunk)
            rec = await w.click(w.alice, rec, label=row.title())
        done = await w.click(w.alice, rec, label="Confirm")
        if "press **Confirm** again" in done.content:  # (a fouling set: played as asked)
            done = await w.click(w.alice, done, label="Confirm")
        assert done.content.startswith("✅ Your hand is set"), done.content
        assert t2.hand.done[hs_of(t2, w.alice)] and not t1.hand.done[hs_of(t1, w.alice)]
        r = await w.fake.slash(w.alice, w.chan, "ofc place",
                               options={"move": sensible_move(t1, hs_of(t1, w.alice))})
        assert r.content.startswith("✅ Your hand is set"), r.content
        assert t1.hand.done[hs_of(t1, w.alice)]
        # the re-sent DM of the second server's table is stale now, and says so
        fresh = dm_of(again, c2)
        r = await w.select(w.alice, fresh, fresh.selects()[0]["custom_id"], cards[:1])
        assert "already done" in r.content, r.content
        await books_clean(w, w.guild, g2)
        assert not [r for r in caplog.records if r.levelname == "ERROR"]


async def test_each_command_and_panel_acts_at_the_table_of_its_channel(tmp_path: Any) -> None:
    """alice at #ofc and #ofc-b of one server: `/ofc hand` shows each table's own cards,
    `/ofc surrender` ends her part at that table only, `/ofc leave` during a hand marks her
    leaving there only and `/ofc sitin` takes it back there; her panel from #ofc, clicked
    after #ofc's hand ended while #ofc-b's goes on, says that hand is over and changes
    nothing at #ofc-b."""
    async with make_world(tmp_path, seed_factory=lambda: "mt-place") as w:
        cb = w.fake.add_text_channel(w.guild, "ofc-b")
        await w.start_bot()
        ta = await open_at(w, w.chan, w.alice, w.bob)
        tb = await open_at(w, cb, w.bob, w.alice)
        assert acting(w, w.chan) == [w.bob] and acting(w, cb) == [w.alice]
        # bob plays at #ofc: alice's turn there too now, and her panel there has buttons
        r = await w.fake.slash(w.bob, w.chan, "ofc place",
                               options={"move": sensible_move(ta, hs_of(ta, w.bob))})
        assert r.content.startswith("✅"), r.content
        pa = await w.fake.slash(w.alice, w.chan, "ofc hand")
        pb = await w.fake.slash(w.alice, cb, "ofc hand")
        for panel, t in ((pa, ta), (pb, tb)):
            hs = hs_of(t, w.alice)
            assert sorted(panel_cards(panel.content)) == sorted(
                str(c) for c in t.hand.requirement(hs).cards), panel.content
        assert panel_cards(pa.content) != panel_cards(pb.content)
        # leave during the hand at #ofc-b, then take it back: #ofc untouched
        r = await w.fake.slash(w.alice, cb, "ofc leave")
        assert "You will leave after this hand" in r.content, r.content
        assert tb.seat_of_user(w.alice.id).leaving and not ta.seat_of_user(w.alice.id).leaving
        r = await w.fake.slash(w.alice, cb, "ofc sitin")
        assert not tb.seat_of_user(w.alice.id).leaving
        # #ofc's hand ends by surrenders; #ofc-b's goes on
        await surrender(w, w.alice, w.chan)
        assert not tb.hand.surrendered[hs_of(tb, w.alice)]
        await surrender(w, w.bob, w.chan)
        await showdown(w, w.chan, 1)
        before = tb.hand.to_json()
        cards = panel_cards(pa.content)
        r = await w.select(w.alice, pa, pa.message.selects()[0]["custom_id"], cards[:1])
        assert "Hand #1 is over" in r.content, r.content
        assert tb.hand.to_json() == before and tb.drafts == {}
        # her #ofc-b panel still plays at #ofc-b
        rec = await w.select(w.alice, pb, pb.message.selects()[0]["custom_id"],
                             panel_cards(pb.content))
        rec = await w.click(w.alice, rec, label="Bottom")
        done = await w.click(w.alice, rec, label="Confirm")
        if "press **Confirm** again" in done.content:
            done = await w.click(w.alice, done, label="Confirm")
        assert done.content.startswith("✅ Placed"), done.content
        assert len(tb.hand.boards[hs_of(tb, w.alice)]) == 5
        assert ta.hand is None or ta.row.hand_no == 2
        w.fake.assert_clean()


async def test_clocks_running_out_at_two_tables_sit_the_player_out_at_each_alone(
    tmp_path: Any,
) -> None:
    """bob's clocks at Poker Night's #ofc and Other Server's #ofc run out in the same instant
    (at #ofc-b, a longer clock, his does not): each channel is told of its own timeout,
    pinging him; he is sat out at those two tables and not at #ofc-b, where he plays on, and
    `/ofc sitin` at #ofc brings him back there only."""
    async with make_world(tmp_path, seed_factory=lambda: "mt-clocks") as w:
        g2, c2 = second_server(w, w.alice, w.bob)
        cb = w.fake.add_text_channel(w.guild, "ofc-b")
        await w.start_bot()
        tables = {w.chan.id: await open_at(w, w.chan, w.alice, w.bob, timer=10),
                  c2.id: await open_at(w, c2, w.alice, w.bob, timer=10),
                  cb.id: await open_at(w, cb, w.alice, w.bob, timer=60)}
        # bob is to act at all three
        assert [acting(w, ch) for ch in (w.chan, c2, cb)] == [[w.bob]] * 3
        w.clock.offset += 11
        w.service.rearm()
        for chan in (w.chan, c2):
            note = await w.fake.wait_for_message(
                chan, lambda m: "Time ran out" in (m.content or ""), include_existing=True)
            assert note.content.startswith(f"⏰ Time ran out for <@{w.bob.id}>:"), note.content
        await asyncio.sleep(0.5)
        assert not [m for m in w.fake.messages(cb) if "Time ran out" in (m.content or "")]
        assert len(tables[cb.id].hand.boards[hs_of(tables[cb.id], w.bob)]) == 0
        out = {cid: [s.user_id for s in t.seats if s.sitting_out] for cid, t in tables.items()}
        assert out == {w.chan.id: [w.bob.id], c2.id: [w.bob.id], cb.id: []}, out
        r = await w.fake.slash(w.bob, w.chan, "ofc sitin")
        assert r.ephemeral and r.content.startswith("Welcome back"), r.content
        assert not tables[w.chan.id].seat_of_user(w.bob.id).sitting_out
        assert tables[c2.id].seat_of_user(w.bob.id).sitting_out
        # at #ofc-b, whose clock did not run out, he plays on with the whole clock
        r = await w.fake.slash(w.bob, cb, "ofc place", options={
            "move": sensible_move(tables[cb.id], hs_of(tables[cb.id], w.bob))})
        assert r.content.startswith("✅"), r.content
        assert hs_of(tables[cb.id], w.bob) not in tables[cb.id].away


async def test_hands_units_names_and_records_stay_in_their_server(tmp_path: Any) -> None:
    """alice is "Ace" in Poker Night and "Bee" in Other Server; she wins a hand at each (stake
    1 there, 5 here). Each table's message, showdown and pictures name her as that server
    knows her; `/ofc balance`, `/ofc stats`, both leaderboards (all time and the last day),
    `/ofc history mine` and `/ofc history file` count only that server's hand, units and
    table."""
    async with make_world(tmp_path, seed_factory=lambda: "mt-records") as w:
        g2, c2 = second_server(w, w.alice, w.bob)
        w.fake.member(w.guild, w.alice).nick = "Ace"
        w.fake.member(g2, w.alice).nick = "Bee"
        await w.start_bot()
        t1 = await open_at(w, w.chan, w.alice, w.bob, variant="pineapple", stake=1)
        t2 = await open_at(w, c2, w.alice, w.bob, variant="pineapple", stake=5, buyin=400)
        for chan in (w.chan, c2):
            await surrender(w, w.bob, chan)
            await play_out(w, chan, w.alice)
        shows = {c.id: await showdown(w, c, 1) for c in (w.chan, c2)}
        won = {}
        for t, g in ((t1, w.guild), (t2, g2)):
            ((_, results),) = await w.store.history(t.id, 5)
            won[g.id] = next(r.units for r in results if r.user_id == w.alice.id)
        assert won[w.guild.id] > 0 and won[g2.id] == 5 * won[w.guild.id], won
        buyins = {w.guild.id: 200, g2.id: 400}
        for g, chan, me, other in ((w.guild, w.chan, "Ace", "Bee"), (g2, c2, "Bee", "Ace")):
            texts = [m.text for m in w.fake.messages(chan, include_ephemeral=False)]
            alts = [a.description or "" for m in w.fake.messages(chan) for a in m.attachments]
            assert any(me in x for x in texts) and not any(other in x for x in texts + alts)
            assert me in shows[chan.id].content
            units = won[g.id]
            balance, at_tables = await w.store.wallet(g.id, w.alice.id)
            assert (balance, at_tables) == (1000 - buyins[g.id], buyins[g.id] + units)
            r = await w.fake.slash(w.alice, chan, "ofc balance")
            assert r.content == (f"💰 **{me}** has {balance} units (+{at_tables} at "
                                 "tables)."), r.content
            r = await w.fake.slash(w.alice, chan, "ofc stats")
            assert r.content.startswith(f"{me} — 1 hand, +{units} units"), r.content
            for period in ("all", "day"):
                r = await w.fake.slash(w.alice, chan, "ofc leaderboard",
                                       options={"period": period})
                assert r.content.startswith(f"{g.name} leaderboard"), r.content
                assert f"{me} — +{units} units" in r.content, r.content
                assert other not in r.content and r.content.count("1 hand") == 2, r.content
            r = await w.fake.slash(w.alice, chan, "ofc history", options={"mine": True})
            assert r.content.startswith("Your last hand in this server"), r.content
            assert f"<#{chan.id}>" in r.content and r.content.count("**#1**") == 1, r.content
            r = await w.fake.slash(w.alice, chan, "ofc history", options={"file": True})
            (sent,) = await w.fake.wait_followups(r, 1, timeout=30)
            ((_, data),) = sent.files
            rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
            assert [(row["channel"].rsplit("/", 1)[-1], int(row["units"])) for row in rows] \
                == [(str(chan.id), units)], rows
        await books_clean(w, w.guild, g2)


async def test_grants_settings_and_balances_are_each_servers_own(tmp_path: Any) -> None:
    """A grant in Poker Night, Other Server's settings (start balance, buy-ins, maximum
    stake): each applies in its own server only; Poker Night's balance does not pay a buy-in
    in Other Server, and each server's audit lists its own grants."""
    async with make_world(tmp_path, seed_factory=lambda: "mt-money") as w:
        g2, c2 = second_server(w, w.alice, w.bob)
        boss = w.fake.add_user("boss", guild=g2, manage_guild=True)
        cb = w.fake.add_text_channel(w.guild, "ofc-b")
        await w.start_bot()
        r = await w.fake.slash(w.admin, w.chan, "ofc-admin grant",
                               options={"user": w.alice, "amount": 1000})
        assert "now 2000" in r.content, r.content
        r = await w.fake.slash(boss, c2, "ofc-admin settings", options={
            "start_balance": 300, "default_buyin": 100, "max_buyin": 500})
        assert r.content.startswith("⚙️ Start balance 300"), r.content
        for chan, text in ((w.chan, "2000 units"), (c2, "300 units")):
            r = await w.fake.slash(w.alice, chan, "ofc balance")
            assert text in r.content, (chan, r.content)
        r = await w.fake.slash(w.bob, w.chan, "ofc balance")
        assert "1000 units" in r.content, r.content  # (Poker Night's start balance)
        r = await w.fake.slash(w.alice, c2, "ofc new", options={"buyin": 400})
        assert r.ephemeral and r.content.startswith("⚠️") and "300" in r.content, r.content
        assert await w.store.wallet(g2.id, w.alice.id) == (300, 0)
        t2 = await open_at(w, c2, w.alice, w.bob, start=False)
        t1 = await open_at(w, cb, w.alice, w.bob, start=False, buyin=600)
        assert (t2.row.buyin, t1.row.buyin) == (100, 600)
        assert await w.store.wallet(g2.id, w.alice.id) == (200, 100)
        assert await w.store.wallet(w.guild.id, w.alice.id) == (1400, 600)
        r = await w.fake.slash(boss, c2, "ofc-admin audit")
        assert r.content == "No units were granted yet.", r.content
        r = await w.fake.slash(w.admin, w.chan, "ofc-admin audit")
        assert f"to <@{w.alice.id}> (balance after: 2000)" in r.content, r.content
        # Other Server lowers its maximum stake: its table takes no buy-ins, Poker Night's do
        await w.fake.slash(boss, c2, "ofc-admin settings", options={"max_stake": 0})
        r = await w.fake.slash(w.carol, cb, "ofc join")
        assert "sat down" in r.content, r.content
        w.fake.add_member(g2, w.carol)
        r = await w.fake.slash(w.carol, c2, "ofc join")
        assert r.ephemeral and "maximum stake" in r.content, r.content
        assert not t1.over_max_stake and t2.over_max_stake
        await books_clean(w, w.guild, g2)
        w.fake.assert_clean()


async def test_the_bot_removed_from_one_server_mid_hand_leaves_the_other_playing(
    tmp_path: Any,
) -> None:
    """Other Server removes the bot while a hand plays at both tables: that table closes at
    once (its hand voided, every stack back in that server), alice's fantasyland DM of it
    says it is closed, and Poker Night's hand goes on, typed and by its DM."""
    async with make_world(tmp_path, seed_factory=lambda: "mt-removed") as w:
        g2, c2 = second_server(w, w.alice, w.bob)
        bot = await w.start_bot()
        t1 = await open_at(w, w.chan, w.alice, w.bob, fantasyland={"0": 13})
        t2 = await open_at(w, c2, w.alice, w.bob, fantasyland={"0": 13})
        dms = await fantasyland_dms(w, w.alice, 2)
        hand2 = t2.hand_row.id
        guild = bot.get_guild(g2.id)
        assert guild is not None
        bot.dispatch("guild_remove", guild)  # (GUILD_DELETE without "unavailable")
        await w.fake.wait_until(lambda: t2.id not in w.service.tables, 10, "closed")
        for u in (w.alice, w.bob):
            assert await w.store.wallet(g2.id, u.id) == (1000, 0)
        assert (await w.store.get_hand(hand2)).status != "done"
        dm2 = dm_of(dms, c2)
        r = await w.select(w.alice, dm2, dm2.selects()[0]["custom_id"],
                           panel_cards(dm2.content)[:1])
        assert "closed" in r.content and not r.message.selects(), r.content
        # Poker Night plays on
        assert t1.id in w.service.tables and t1.hand is not None
        (mover,) = acting(w, w.chan)
        r = await w.fake.slash(mover, w.chan, "ofc place",
                               options={"move": sensible_move(t1, hs_of(t1, mover))})
        assert r.content.startswith("✅"), r.content
        dm1 = dm_of(dms, w.chan)
        r = await w.select(w.alice, dm1, dm1.selects()[0]["custom_id"],
                           panel_cards(dm1.content)[:3])
        assert "Selected:" in r.content, r.content
        assert await w.store.wallet(w.guild.id, w.alice.id) == (800, 200)
        await books_clean(w, w.guild, g2)
