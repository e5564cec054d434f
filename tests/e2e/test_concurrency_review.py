"""A review of concurrency and multi-table behaviour: commands and clicks that arrive in the same
instant, a clock that runs out while a command arrives, one player at tables in two channels and
two servers.  Whatever the interleaving: no error in the bot's log, every interaction answered
once and in time, every settled hand's units summing to zero, the ledger and each server's
totals consistent, one live table message per table, hidden cards never in a channel.

Two levers make a race happen every run instead of now and then, each standing for something
real: ``SlowThinker`` (the AI answers after a pause: one worker process shared by every table's
bots and timeouts, or a strong bot's second) and ``slow_uploads`` (Discord takes a while to
accept a message with a picture, as a 150 KB upload does on a real network)."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import pytest

from bot.thinker import Thinker

from .conftest import World, fill_move, make_world, panel_cards
from .fakediscord import FakeChannel, FakeInteraction, FakeUser

pytestmark = pytest.mark.e2e


# --------------------------------------------------------------------------- helpers
class SlowThinker(Thinker):
    """The AI (threads, as the tests' default) answering ``delay`` seconds late."""

    def __init__(self, delay: float) -> None:
        super().__init__(0)
        self.delay = delay

    async def run(self, fn: Any, *args: Any, fallback: Any = None, what: str = "") -> Any:
        await asyncio.sleep(self.delay)
        return await super().run(fn, *args, fallback=fallback)


def slow_uploads(w: World, seconds: float) -> None:
    """Discord takes ``seconds`` to accept a channel message that carries a picture (the
    loopback stand-in's message route is wrapped; nothing else changes)."""
    routes = w.fake._routes
    for i, (method, regex, pattern, handler, auth) in enumerate(routes):
        if method == "POST" and pattern == "/channels/{channel_id}/messages":
            async def slow(req: Any, channel_id: str, _h: Any = handler) -> Any:
                if req.files:
                    await asyncio.sleep(seconds)
                return await _h(req, channel_id)

            routes[i] = (method, regex, pattern, slow, auth)


def table_in(w: World, chan: FakeChannel) -> Any:
    return w.service.table_in_channel(chan.id)


def table_of(w: World) -> Any:
    return table_in(w, w.chan)


def hs_of(t: Any, user: FakeUser) -> int:
    hs = t.hand_seat_of(t.seat_of_user(user.id).seat_no)
    assert hs is not None
    return int(hs)


def acting_users(w: World, chan: FakeChannel | None = None) -> list[FakeUser]:
    """The humans whose turn it is (not fantasyland sets)."""
    t = table_in(w, chan or w.chan)
    if t.hand is None:
        return []
    out = []
    for hs in t.hand.to_act():
        if t.hand.fantasyland[hs]:
            continue
        seat = t.seat_by_no(t.hand_seats[hs])
        u = next((u for u in w.users.values() if u.id == seat.user_id), None)
        if u is not None:
            out.append(u)
    return out


async def answered(w: World, recs: list[FakeInteraction]) -> list[str]:
    """Every interaction answered once and in time (the stand-in raises otherwise); the texts."""
    out = []
    for r in recs:
        await w.fake.wait_answered(r)
        assert r.ok, r
        out.append("\n".join([r.content or "", *(m.content or "" for m in r.followups)]))
    return out


async def hands_sum_to_zero(w: World, table_id: int) -> int:
    """Every settled hand of the table moved units that sum to zero; how many hands."""
    hands = await w.store.history(table_id, 25)
    for row, results in hands:
        assert sum(r.units for r in results) == 0, (row.number, results)
    return len(hands)


async def books_clean(w: World, *guilds: Any) -> None:
    assert await w.store.verify_ledger() == []
    for g in guilds or (w.guild,):
        owned, given = await w.store.total_units(g.id)
        assert owned == given, (g, owned, given)


def no_errors_logged(caplog: Any) -> None:
    errors = [f"{r.name}: {r.getMessage()}" for r in caplog.records
              if r.levelno >= logging.ERROR and r.name.startswith(("ofc", "discord"))]
    assert errors == []


def live_table_messages(w: World, chan: FakeChannel) -> list[Any]:
    """Table messages in the channel that still carry the "Open my panel" button (turn pings
    and the fantasyland notice carry it too, but no picture)."""
    return [m for m in w.fake.messages(chan, include_ephemeral=False)
            if m.files and any(str(b.get("custom_id", "")).startswith("ofc:open:")
                               for b in m.buttons())
            and not (m.content or "").startswith(("🎯", "🌴"))]


async def open_at(w: World, chan: FakeChannel, host: FakeUser, *others: FakeUser,
                  fantasyland: dict[str, int] | None = None, start: bool = True,
                  **options: Any) -> Any:
    r = await w.fake.slash(host, chan, "ofc new", options={"variant": "ofc", **options})
    assert "opened" in (r.content or ""), r.content
    for u in others:
        r = await w.fake.slash(u, chan, "ofc join")
        assert "sat down" in (r.content or ""), r.content
    t = table_in(w, chan)
    if fantasyland:
        await w.store.update_table(t.id, extra={"fantasyland": fantasyland})
        await w.service._refresh(t)
    if start:
        r = await w.fake.slash(host, chan, "ofc start")
        assert "dealt" in (r.content or ""), r.content
    return table_in(w, chan)


async def wait_showdown(w: World, n: int, chan: FakeChannel | None = None) -> Any:
    return await w.fake.wait_for_message(
        chan or w.chan, lambda m: f"Showdown — hand #{n}" in (m.content or ""), timeout=20,
        include_existing=True)


def showdowns(w: World, chan: FakeChannel | None = None) -> list[Any]:
    return [m for m in w.fake.messages(chan or w.chan, include_ephemeral=False)
            if "Showdown — hand #" in (m.content or "")]


def public_text(w: World, chan: FakeChannel, since: int = 0) -> str:
    return "\n".join(m.text for m in w.fake.messages(chan, include_ephemeral=False)
                     if m.id > since)


# =========================================================================== defects
async def test_sitin_as_the_clock_runs_out_is_not_overruled_by_the_timeout(
    tmp_path: Any, caplog: Any
) -> None:
    """bob's clock runs out; in that instant (while the AI finds his move) he types
    `/ofc sitin`. He reads "You were not sitting out: you play this hand and the next ones. It is
    your turn." — then the timeout plays his move and marks him sitting out, so he is not dealt
    the next hand although he asked to sit in after his time ran out. The sit-in should win (he
    is back, as a move of his would), or the answer should say his time ran out and he sits out
    from the next hand until `/ofc sitin`."""
    async with make_world(tmp_path, seed_factory=lambda: "cr-sitin",
                          thinker=SlowThinker(0.5)) as w:
        await w.start_bot()
        t = await open_at(w, w.chan, w.alice, w.bob, timer=10)
        (mover,) = acting_users(w)
        hs = hs_of(t, mover)
        w.clock.offset += 11
        w.service.rearm()  # the clock runs out now; the AI thinks for half a second
        await asyncio.sleep(0.1)
        r = await w.slash(mover, "ofc sitin")
        assert r.ephemeral
        await w.fake.wait_until(lambda: any(a.seat == hs for a in t.hand.log), 5, "timeout move")
        await asyncio.sleep(0.3)
        seat = t.seat_of_user(mover.id)
        said_plays_on = "the next ones" in r.content
        assert not (said_plays_on and seat.sitting_out), (
            f"answered {r.content!r}, then the timeout sat {mover.name} out")
        # what happens is said: the move was the timeout's, and he plays on
        assert "already run out" in r.content and not seat.sitting_out
        assert hs not in t.away  # nor the short clock: he said he is here
        assert not any(f"Time ran out for <@{mover.id}>" in (m.content or "")
                       for m in w.fake.messages(w.chan))
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_a_join_right_after_new_leaves_one_live_table_message(
    tmp_path: Any, caplog: Any
) -> None:
    """alice opens a table and bob joins at once, while the table's picture is still being
    uploaded (`/ofc new` answers first, then posts the table message outside the table
    message's edit lock). The join's edit finds no table message yet and posts one of its own;
    then /ofc new's arrives: two table messages with a live "Open my panel" button, and only
    the second is ever edited again — the first says "Waiting to start" for good, under a hand
    being played."""
    async with make_world(tmp_path, seed_factory=lambda: "cr-two-msgs") as w:
        await w.start_bot()
        slow_uploads(w, 0.5)
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        await asyncio.sleep(2.0)
        await w.slash(w.alice, "ofc start")
        await asyncio.sleep(2.0)
        live = live_table_messages(w, w.chan)
        assert len(live) == 1, [m.content[:60] for m in live]
        assert live[0].content.startswith("Hand #1"), live[0].content[:80]
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_the_wrong_channel_pointer_names_only_this_servers_tables(
    tmp_path: Any, caplog: Any
) -> None:
    """alice plays at a table in "Poker Night" and at one in "Other Server". In another
    channel of "Poker Night" her `/ofc leave` (or place, hand, sitin) says "you are seated at
    the one in <#ofc>, <#cards>; use the command there": #cards is in the other server, whose
    table the command here can never reach (and a server's members are told which channels of
    another server she plays in). It should name only this server's tables."""
    async with make_world(tmp_path, seed_factory=lambda: "cr-pointer") as w:
        w.dev_guild = False  # commands published globally: usable in both servers
        g2 = w.fake.add_guild("Other Server")
        c2 = w.fake.add_text_channel(g2, "cards")
        for u in (w.alice, w.bob):
            w.fake.add_member(g2, u)
        general = w.fake.add_text_channel(w.guild, "general")
        general2 = w.fake.add_text_channel(g2, "general")
        await w.start_bot()
        await open_at(w, w.chan, w.alice, w.bob)
        await open_at(w, c2, w.alice, w.bob)
        for here, mine, theirs in ((general, w.chan, c2), (general2, c2, w.chan)):
            for cmd, opts in (("ofc leave", {}), ("ofc place", {"move": "Ah top"}),
                              ("ofc hand", {})):
                r = await w.fake.slash(w.alice, here, cmd, options=opts)
                assert r.ephemeral and f"<#{mine.id}>" in r.content, (cmd, r.content)
                assert f"<#{theirs.id}>" not in r.content, (cmd, r.content)
        no_errors_logged(caplog)
        w.fake.assert_clean()


# =========================================================================== what holds
async def test_two_new_tables_at_once_in_one_channel_open_one(tmp_path: Any,
                                                                caplog: Any) -> None:
    async with make_world(tmp_path) as w:
        await w.start_bot()
        recs = [await w.fake.slash(u, w.chan, "ofc new", wait=False, options={"variant": "ofc"})
                for u in (w.alice, w.bob)]
        texts = await answered(w, recs)
        assert sum("opened" in x for x in texts) == 1, texts
        assert sum("already a table" in x for x in texts) == 1, texts
        await asyncio.sleep(0.5)
        assert len(await w.store.open_tables()) == 1 and len(w.service.tables) == 1
        assert len(live_table_messages(w, w.chan)) == 1
        loser = w.bob if "opened" in texts[0] else w.alice
        assert await w.store.wallet(w.guild.id, loser.id) in ((1000, 0), (0, 0))
        await books_clean(w)
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_many_joins_for_the_last_seat_seat_one_and_charge_one(tmp_path: Any,
                                                                     caplog: Any) -> None:
    async with make_world(tmp_path) as w:
        await w.start_bot()
        await open_at(w, w.chan, w.alice, start=False, seats=2)
        crowd = (w.bob, w.carol, w.dave, w.admin)
        recs = [await w.fake.slash(u, w.chan, "ofc join", wait=False) for u in crowd]
        recs.append(await w.fake.slash(w.bob, w.chan, "ofc join", wait=False))  # twice
        texts = await answered(w, recs)
        assert sum("sat down" in x for x in texts) == 1, texts
        t = table_of(w)
        assert len(t.seats) == 2
        for u in crowd:
            balance, at_tables = await w.store.wallet(w.guild.id, u.id)
            seated = t.seat_of_user(u.id) is not None
            assert at_tables == (200 if seated else 0) and balance + at_tables in (0, 1000)
        await books_clean(w)
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_buyins_at_two_tables_at_once_with_units_for_one(tmp_path: Any,
                                                               caplog: Any) -> None:
    async with make_world(tmp_path) as w:
        c2 = w.fake.add_text_channel(w.guild, "ofc2")
        a, b = w.fake.add_text_channel(w.guild, "a"), w.fake.add_text_channel(w.guild, "b")
        await w.start_bot()
        await open_at(w, w.chan, w.alice, start=False)
        await open_at(w, c2, w.bob, start=False)
        await w.slash(w.admin, "ofc-admin grant", user=w.carol, amount=-700)  # 300 left
        recs = [await w.fake.slash(w.carol, c, "ofc join", wait=False, options={"buyin": 200})
                for c in (w.chan, c2)]
        texts = await answered(w, recs)
        assert sum("sat down" in x for x in texts) == 1, texts
        assert await w.store.wallet(w.guild.id, w.carol.id) == (100, 200)
        recs = [await w.fake.slash(w.dave, c, "ofc new", wait=False, options={"buyin": 600})
                for c in (a, b)]
        texts = await answered(w, recs)
        assert sum("opened" in x for x in texts) == 1, texts
        assert await w.store.wallet(w.guild.id, w.dave.id) == (400, 600)
        await books_clean(w)
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_one_player_at_tables_in_two_servers_keeps_them_apart(tmp_path: Any,
                                                                    caplog: Any) -> None:
    """Balances, stacks, leaderboards and stats are each server's own; both tables settle in
    the same instant."""
    async with make_world(tmp_path, seed_factory=lambda: "cr-servers") as w:
        w.dev_guild = False
        g2 = w.fake.add_guild("Other Server")
        c2 = w.fake.add_text_channel(g2, "cards")
        for u in (w.alice, w.bob):
            w.fake.add_member(g2, u)
        await w.start_bot()
        t1 = await open_at(w, w.chan, w.alice, w.bob, buyin=300)
        t2 = await open_at(w, c2, w.alice, w.bob, buyin=200)
        assert await w.store.wallet(w.guild.id, w.alice.id) == (700, 300)
        assert await w.store.wallet(g2.id, w.alice.id) == (800, 200)
        r = await w.fake.slash(w.alice, c2, "ofc balance")
        assert "800 units" in r.content and "+200 at tables" in r.content, r.content
        # at each table the player to act places, the other surrenders: all at once
        recs = []
        for chan, t in ((w.chan, t1), (c2, t2)):
            (mover,) = acting_users(w, chan)
            other = w.bob if mover is w.alice else w.alice
            cards = panel_cards((await w.fake.slash(mover, chan, "ofc hand")).content)
            ask = await w.fake.slash(other, chan, "ofc surrender")
            recs.append(await w.fake.slash(mover, chan, "ofc place", wait=False,
                                           options={"move": fill_move(t, hs_of(t, mover),
                                                                      cards)}))
            recs.append(await w.fake.click(other, ask.message,
                                           ask.message.button("Yes, surrender")["custom_id"],
                                           wait=False))
        texts = await answered(w, recs)
        assert all(x.startswith(("✅", "🏳️")) for x in texts), texts
        # the movers still have to finish their boards: they surrender too
        for chan in (w.chan, c2):
            (mover,) = acting_users(w, chan)
            ask = await w.fake.slash(mover, chan, "ofc surrender")
            await w.click(mover, ask, label="Yes, surrender")
        await wait_showdown(w, 1, w.chan)
        await wait_showdown(w, 1, c2)
        for t in (t1, t2):
            assert await hands_sum_to_zero(w, t.id) == 1
        for g, chan in ((w.guild, w.chan), (g2, c2)):
            r = await w.fake.slash(w.alice, chan, "ofc leaderboard")
            assert g.name in r.content, r.content
            assert r.content.count("1 hand") == 2, r.content  # one hand per server, not two
            r = await w.fake.slash(w.alice, chan, "ofc stats")
            assert "1 hand" in r.content, r.content
        assert len(showdowns(w, w.chan)) == 1 and len(showdowns(w, c2)) == 1
        await books_clean(w, w.guild, g2)
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_fantasyland_set_and_last_move_in_one_instant_settle_once(
    tmp_path: Any, caplog: Any
) -> None:
    """alice (DMs closed: her fantasyland opens from the channel's button, privately) sets her
    14 cards in the very instant bob plays his last street: one showdown, units summing to zero,
    and her cards never in the channel before it."""
    async with make_world(tmp_path, seed_factory=lambda: "cr-fl") as w:
        w.alice.dms_open = False
        await w.start_bot()
        t = await open_at(w, w.chan, w.alice, w.bob, fantasyland={"0": 14},
                          variant="pineapple")
        notice = await w.fake.wait_for_message(
            w.chan, lambda m: "your fantasyland hand is ready" in (m.content or ""),
            include_existing=True)
        panel = await w.click(w.alice, notice, label="Open my panel")
        assert panel.ephemeral
        fl_cards = panel_cards(panel.content)
        assert len(fl_cards) == 14
        while True:
            cards = panel_cards((await w.slash(w.bob, "ofc hand")).content)
            if len(t.hand.boards[1]) + 2 >= 13:
                break
            r = await w.slash(w.bob, "ofc place", move=fill_move(t, 1, cards))
            assert r.content.startswith("✅"), r.content
        for c in fl_cards:
            assert not re.search(rf"\b{c}\b", public_text(w, w.chan)), c
        recs = [await w.fake.slash(w.bob, w.chan, "ofc place", wait=False,
                                   options={"move": fill_move(t, 1, cards)}),
                await w.fake.slash(w.alice, w.chan, "ofc place", wait=False,
                                   options={"move": fill_move(t, 0, fl_cards)})]
        texts = await answered(w, recs)
        assert all(x.startswith("✅") for x in texts), texts
        await wait_showdown(w, 1)
        await asyncio.sleep(1.0)
        assert len(showdowns(w)) == 1
        assert await hands_sum_to_zero(w, t.id) == 1
        assert len(live_table_messages(w, w.chan)) == 1
        await books_clean(w)
        no_errors_logged(caplog)
        w.fake.assert_clean(allow_api_errors=(50007,))  # (the DM refused: closed)


async def test_chinese_sets_racing_the_clock_stand(tmp_path: Any, caplog: Any) -> None:
    """Every clock runs out while three of four players send their sets (the AI slow to find
    the timeouts' moves): the three sets stand, only the fourth is played by the bot."""
    async with make_world(tmp_path, seed_factory=lambda: "cr-chinese",
                          thinker=SlowThinker(0.3)) as w:
        await w.start_bot()
        players = (w.alice, w.bob, w.carol, w.dave)
        t = await open_at(w, w.chan, *players, variant="chinese", timer=30)
        moves = {}
        for u in players[:3]:
            cards = panel_cards((await w.slash(u, "ofc hand")).content)
            moves[u.name] = (" ".join(cards[:5]) + " bottom " + " ".join(cards[5:10])
                             + " middle " + " ".join(cards[10:]) + " top foul")
        w.clock.offset += 200
        w.service.rearm()
        recs = [await w.fake.slash(u, w.chan, "ofc place", wait=False,
                                   options={"move": moves[u.name]}) for u in players[:3]]
        texts = await answered(w, recs)
        assert all(x.startswith("✅ Your hand is set") for x in texts), texts
        await wait_showdown(w, 1)
        await asyncio.sleep(0.5)
        assert [s.sitting_out for s in t.seats] == [False, False, False, True]
        (timeout,) = [m.content for m in w.fake.messages(w.chan, include_ephemeral=False)
                      if "Time ran out" in (m.content or "")]
        assert f"<@{w.dave.id}>" in timeout and not any(
            f"<@{u.id}>" in timeout for u in players[:3]), timeout
        assert len(showdowns(w)) == 1
        assert await hands_sum_to_zero(w, t.id) == 1
        await books_clean(w)
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_double_surrender_and_surrender_racing_the_timeout(tmp_path: Any,
                                                                 caplog: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "cr-surrender",
                          thinker=SlowThinker(0.3)) as w:
        await w.start_bot()
        t = await open_at(w, w.chan, w.alice, w.bob, w.carol, timer=10)
        (mover,) = acting_users(w)
        waiting = next(u for u in (w.alice, w.bob, w.carol) if u is not mover)
        ask = await w.slash(waiting, "ofc surrender")
        yes = ask.message.button("Yes, surrender")["custom_id"]
        recs = [await w.fake.click(waiting, ask.message, yes, wait=False) for _ in range(2)]
        texts = await answered(w, recs)
        assert sum("You surrendered" in x for x in texts) == 1, texts
        assert sum(t.hand.surrendered) == 1
        ask = await w.slash(mover, "ofc surrender")
        w.clock.offset += 11
        w.service.rearm()  # the clock runs out as the player surrenders
        r = await w.click(mover, ask, label="Yes, surrender")
        await asyncio.sleep(1.0)
        hs = hs_of(t, mover)
        played = [a for a in t.hand.log if a.seat == hs]
        assert len(played) == 1, played
        assert ("You surrendered" in r.content) == t.hand.surrendered[hs], r.content
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_close_racing_the_last_move(tmp_path: Any, caplog: Any) -> None:
    """The host closes the table in the instant their move ends the hand: the hand is settled
    and shown once, the table closes, its message says so and keeps no button."""
    async with make_world(tmp_path, seed_factory=lambda: "cr-close") as w:
        await w.start_bot()
        t = await open_at(w, w.chan, w.alice, w.bob)
        ask = await w.slash(w.bob, "ofc surrender")
        await w.click(w.bob, ask, label="Yes, surrender")
        hs = hs_of(t, w.alice)
        while True:
            cards = panel_cards((await w.slash(w.alice, "ofc hand")).content)
            if len(t.hand.boards[hs]) + len(cards) >= 13:
                break
            await w.slash(w.alice, "ofc place", move=fill_move(t, hs, cards))
        recs = [await w.fake.slash(w.alice, w.chan, "ofc place", wait=False,
                                   options={"move": fill_move(t, hs, cards)}),
                await w.fake.slash(w.alice, w.chan, "ofc close", wait=False)]
        texts = await answered(w, recs)
        assert texts[0].startswith("✅") and "close" in texts[1], texts
        await wait_showdown(w, 1)
        await w.fake.wait_until(lambda: t.id not in w.service.tables, 40, "closed")
        await asyncio.sleep(1.0)
        assert len(showdowns(w)) == 1
        assert live_table_messages(w, w.chan) == []
        assert await hands_sum_to_zero(w, t.id) == 1
        for u in (w.alice, w.bob):
            assert (await w.store.wallet(w.guild.id, u.id))[1] == 0
        await books_clean(w)
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_leave_and_close_while_a_bot_thinks(tmp_path: Any, caplog: Any) -> None:
    """A practice table: the only human surrenders, then leaves and closes while the bot is
    still thinking its moves; the bot finishes the hand, the table closes, nothing moved."""
    async with make_world(tmp_path, seed_factory=lambda: "cr-bot", next_hand_delay=0.2,
                          thinker=SlowThinker(0.2)) as w:
        await w.start_bot()
        t = await open_at(w, w.chan, w.alice, bots=1)
        ask = await w.slash(w.alice, "ofc surrender")
        await w.click(w.alice, ask, label="Yes, surrender")
        recs = [await w.fake.slash(w.alice, w.chan, "ofc leave", wait=False),
                await w.fake.slash(w.alice, w.chan, "ofc close", wait=False)]
        texts = await answered(w, recs)
        assert "after this hand" in texts[0] and "after this hand" in texts[1], texts
        await w.fake.wait_until(lambda: t.id not in w.service.tables, 60, "closed")
        await asyncio.sleep(1.0)
        assert len(showdowns(w)) == 1 and live_table_messages(w, w.chan) == []
        assert await w.store.wallet(w.guild.id, w.alice.id) == (1000, 0)
        await books_clean(w)
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_the_host_leaving_while_others_change_the_table(tmp_path: Any,
                                                              caplog: Any) -> None:
    """alice (the host) leaves while bob changes the options, adds a bot and carol closes, all
    at once: each is answered as the host at its turn of the lock allows (bob hosts after)."""
    async with make_world(tmp_path) as w:
        await w.start_bot()
        t = await open_at(w, w.chan, w.alice, w.bob, w.carol, start=False)
        recs = [await w.fake.slash(w.alice, w.chan, "ofc leave", wait=False),
                await w.fake.slash(w.bob, w.chan, "ofc options", wait=False,
                                   options={"timer": 30}),
                await w.fake.slash(w.bob, w.chan, "ofc addbot", wait=False),
                await w.fake.slash(w.carol, w.chan, "ofc close", wait=False)]
        texts = await answered(w, recs)
        assert "You left the table" in texts[0], texts
        assert t.host_id == w.bob.id and t.row.status == "open"
        assert ("changed the table's options" in texts[1]) == (t.rules.timer == 30), texts
        assert ("sat down" in texts[2]) == bool(t.bots), texts
        assert "host" in texts[3], texts
        await books_clean(w)
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_a_burst_of_moves_and_surrenders_leaves_one_table_message(
    tmp_path: Any, caplog: Any
) -> None:
    """The player to act places while all four surrender, at once: one showdown, one live
    table message, no turn ping left behind."""
    async with make_world(tmp_path, seed_factory=lambda: "cr-burst") as w:
        await w.start_bot()
        players = (w.alice, w.bob, w.carol, w.dave)
        t = await open_at(w, w.chan, *players)
        asks = {u.name: await w.slash(u, "ofc surrender") for u in players}
        (mover,) = acting_users(w)
        cards = panel_cards((await w.slash(mover, "ofc hand")).content)
        recs = [await w.fake.slash(mover, w.chan, "ofc place", wait=False,
                                   options={"move": fill_move(t, hs_of(t, mover), cards)})]
        for u in players:
            a = asks[u.name]
            recs.append(await w.fake.click(u, a.message,
                                           a.message.button("Yes, surrender")["custom_id"],
                                           wait=False))
        texts = await answered(w, recs)
        assert sum("You surrendered" in x for x in texts) == 4, texts
        await wait_showdown(w, 1)
        await asyncio.sleep(1.0)
        assert len(showdowns(w)) == 1 and len(live_table_messages(w, w.chan)) == 1
        assert not [m for m in w.fake.messages(w.chan, include_ephemeral=False)
                    if (m.content or "").startswith("🎯")]
        assert await hands_sum_to_zero(w, t.id) == 1
        await books_clean(w)
        no_errors_logged(caplog)
        w.fake.assert_clean()
