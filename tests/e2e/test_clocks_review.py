"""A review of the table clocks as a player meets them: the move clock (``timer``), the set
clock (``set_timer``: a fantasyland or a chinese set), the short clock after a timeout
(``away_timer``), what a timeout plays and whom it sits out, the turn pings with their
countdown, clocks changed by ``/ofc options`` during a hand, a restart in the middle of a
clock, a move racing its own timeout, several clocks running out at once and bots."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from typing import Any

import pytest

from engine.actions import Place

from .conftest import World, fill_move, hs_of, make_world, panel_cards, table_of
from .fakediscord import FakeMessage, FakeUser

pytestmark = pytest.mark.e2e


# --------------------------------------------------------------------------- helpers
def user_by_id(w: World, uid: int) -> FakeUser | None:
    return next((u for u in w.users.values() if u.id == uid), None)


def acting_users(w: World) -> list[FakeUser]:
    """The humans to act now (street moves and sets)."""
    t = table_of(w)
    if t.hand is None or t.hand.is_over:
        return []
    out = []
    for hs in t.hand.to_act():
        seat = t.seat_by_no(t.hand_seats[hs])
        u = user_by_id(w, seat.user_id) if seat is not None else None
        if u is not None:
            out.append(u)
    return out


def left(w: World, user: FakeUser) -> float:
    """Seconds left on ``user``'s clock (the service's clock)."""
    t = table_of(w)
    return float(t.deadlines[hs_of(w, user)] - w.clock())


async def run_out(w: World, seconds: float) -> None:
    """Move the bot's clock ``seconds`` on and let the timer look at once."""
    w.clock.offset += seconds
    w.service.rearm()


def mark(w: World) -> int:
    return max((m.id for m in w.fake.messages(include_deleted=True)), default=0)


def channel_messages(w: World, since: int = 0) -> list[FakeMessage]:
    return [m for m in w.fake.messages(w.chan, include_ephemeral=False, include_deleted=True)
            if m.id > since]


def notices(w: World, words: str, since: int = 0) -> list[FakeMessage]:
    return [m for m in channel_messages(w, since) if words in (m.content or "")]


async def wait_notice(w: World, words: str, since: int = 0, timeout: float = 10) -> FakeMessage:
    await w.fake.wait_until(lambda: bool(notices(w, words, since)), timeout, repr(words))
    return notices(w, words, since)[0]


async def wait_showdown(w: World, hand_no: int = 1, timeout: float = 20) -> FakeMessage:
    return await w.fake.wait_for_message(
        w.chan, lambda m: f"Showdown — hand #{hand_no}**" in (m.content or ""),
        include_existing=True, timeout=timeout)


async def place_all(w: World, user: FakeUser) -> Any:
    """``user`` plays their whole decision by ``/ofc place`` (every card on a row with room,
    the rest discarded, foul allowed)."""
    t = table_of(w)
    hs = hs_of(w, user)
    req = t.hand.requirement(hs)
    cards = [str(c) for c in req.cards]
    r = await w.slash(user, "ofc place", move=fill_move(t, hs, cards))
    return r


async def open_table(w: World, *others: FakeUser, start: bool = True, **options: Any) -> Any:
    if w.bot is None:
        await w.start_bot()
    r = await w.slash(w.alice, "ofc new", **{"variant": "ofc", "stake": 1, **options})
    assert "opened" in r.content, r.content
    for who in others or (w.bob,):
        r = await w.slash(who, "ofc join")
        assert "sat down" in r.content, r.content
    if start:
        r = await w.slash(w.alice, "ofc start")
        assert "is dealt" in r.content, r.content
    return table_of(w)


async def sums_to_zero(w: World, table_id: int) -> int:
    hands = await w.store.history(table_id, 25)
    for row, results in hands:
        assert sum(r.units for r in results) == 0, (row.number, results)
    assert await w.store.verify_ledger() == []
    return len(hands)


def no_errors_logged(caplog: Any) -> None:
    errors = [f"{r.name}: {r.getMessage()}" for r in caplog.records
              if r.levelno >= logging.ERROR]
    assert errors == [], errors


def ts(text: str) -> list[int]:
    """The Discord timestamps (<t:N:R>) in a text."""
    return [int(x) for x in re.findall(r"<t:(\d+):R>", text)]


# --------------------------------------------------------------------------- move clock
async def test_a_timeout_plays_for_its_seat_pings_it_once_and_gives_it_the_short_clock(
    tmp_path: Any, caplog: Any
) -> None:
    """Pineapple, 30 s clock: the first player lets it run out.  The bot plays that seat's
    move (only that seat's), the channel is told once (the player pinged, the short clock
    named), the player sits out from the next hand; their next decision gets 10 s (and its
    ping says so), a decision they play themselves gives them the whole clock back."""
    async with make_world(tmp_path, seed_factory=lambda: "clk-away") as w:
        t = await open_table(w, variant="pineapple", timer=30)
        first = acting_users(w)[0]
        second = w.bob if first is w.alice else w.alice
        hs1, hs2 = hs_of(w, first), hs_of(w, second)
        assert 29 <= left(w, first) <= 30
        m0 = mark(w)
        await run_out(w, 31)
        await w.fake.wait_until(lambda: len(t.hand.boards[hs1]) == 5, 10, "the timeout")
        note = await wait_notice(w, "Time ran out", m0)
        assert note.pinged == [first.id]
        assert note.content == (
            f"⏰ Time ran out for <@{first.id}>: the AI played that move for them. They play "
            "on in this hand (10 s a decision until they act again) and sit out from the next "
            "hand (`/ofc sitin` to come back).")
        played = [a for a in t.hand.log if a.seat == hs1]
        assert len(played) == 1 and isinstance(played[0], Place) and played[0].auto
        assert [a for a in t.hand.log if a.seat == hs2] == []
        assert t.seat_of_user(first.id).sitting_out
        assert not t.seat_of_user(second.id).sitting_out
        # the second player's turn: the whole clock, pinged
        assert acting_users(w) == [second] and 29 <= left(w, second) <= 30
        ping = await w.fake.wait_for_message(
            w.chan, lambda m: "your turn" in (m.content or "") and second.id in m.pinged,
            include_existing=True)
        assert ts(ping.content) and abs(ts(ping.content)[0] - t.deadlines[hs2]) <= 1
        m1 = mark(w)
        r = await place_all(w, second)
        assert r.content.startswith("✅"), r.content
        # back to the player who timed out: 10 s, and the ping says when it runs out
        await w.fake.wait_until(lambda: acting_users(w) == [first], 5, "first's turn")
        assert 9 <= left(w, first) <= 10
        ping = await w.fake.wait_for_message(
            w.chan, lambda m: "your turn" in (m.content or "") and first.id in m.pinged
            and m.id > m1, include_existing=True)
        assert abs(ts(ping.content)[0] - t.deadlines[hs1]) <= 1
        # a second timeout in the same hand is not told again
        m2 = mark(w)
        await run_out(w, 11)
        await w.fake.wait_until(lambda: acting_users(w) == [second], 10, "second timeout")
        assert len([a for a in t.hand.log if a.seat == hs1]) == 2
        await asyncio.sleep(0.3)
        assert notices(w, "Time ran out", m2) == []
        r = await place_all(w, second)
        assert r.content.startswith("✅"), r.content
        # the player acts themself: the whole clock again from their next decision
        await w.fake.wait_until(lambda: acting_users(w) == [first], 5, "first's turn")
        assert 9 <= left(w, first) <= 10
        r = await place_all(w, first)
        assert r.content.startswith("✅"), r.content
        r = await place_all(w, second)
        assert r.content.startswith("✅"), r.content
        await w.fake.wait_until(lambda: acting_users(w) == [first], 5, "first's turn")
        assert 29 <= left(w, first) <= 30
        assert await sums_to_zero(w, t.id) == 0
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- options
async def test_clocks_changed_during_a_hand_apply_from_the_next_hand(
    tmp_path: Any, caplog: Any
) -> None:
    """``/ofc options timer away_timer`` during hand 1: its later decisions keep the clocks it
    was dealt with (30 s, and 10 s after a timeout, as its notice says); hand 2 is dealt with
    the new ones."""
    async with make_world(tmp_path, seed_factory=lambda: "clk-opts", next_hand_delay=0.2) as w:
        t = await open_table(w, variant="ofc", timer=30)
        first = acting_users(w)[0]
        second = w.bob if first is w.alice else w.alice
        r = await w.slash(w.alice, "ofc options", timer=90, away_timer=20)
        assert "(rules from the next hand)" in r.content, r.content
        assert t.hand.rules.timer == 30 and t.table_rules.timer == 90
        r = await w.slash(w.bob, "ofc rules")
        now, _, later = r.content.partition("From the next hand")
        assert "Clock: 30 s per decision" in now and "90" in later and "20" in later, r.content
        m0 = mark(w)
        await run_out(w, 31)
        note = await wait_notice(w, "Time ran out", m0)
        assert "(10 s a decision until they act again)" in note.content, note.content
        await w.fake.wait_until(lambda: acting_users(w) == [second], 5, "second's turn")
        assert 29 <= left(w, second) <= 30  # not 90
        r = await place_all(w, second)
        assert r.content.startswith("✅"), r.content
        await w.fake.wait_until(lambda: acting_users(w) == [first], 5, "first's turn")
        assert 9 <= left(w, first) <= 10  # not 20
        # the rest of hand 1 played by hand
        while t.hand is not None and t.row.hand_no == 1:
            users = acting_users(w)
            if not users:
                await asyncio.sleep(0.02)
                continue
            r = await place_all(w, users[0])
            assert r.content.startswith("✅"), r.content
        await wait_showdown(w, 1)
        # hand 2: the first player sat out after the timeout; sitting in deals it
        await w.slash(first, "ofc sitin")
        await w.fake.wait_until(lambda: t.hand is not None and t.row.hand_no == 2, 10, "hand 2")
        assert t.hand.rules.timer == 90
        user = acting_users(w)[0]
        assert 89 <= left(w, user) <= 90
        assert await sums_to_zero(w, t.id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- restarts
async def test_a_restart_keeps_the_deadline_and_gives_30_s_to_a_clock_that_ran_out_meanwhile(
    tmp_path: Any, caplog: Any
) -> None:
    """A restart 10 s into a 60 s clock keeps the deadline (50 s left, not a new minute);
    then a restart that lasts past the deadline gives the player 30 s from the resume and
    pings them again; no timeout is played for the time the bot was down."""
    async with make_world(tmp_path, seed_factory=lambda: "clk-restart") as w:
        t = await open_table(w, variant="ofc")
        mover = acting_users(w)[0]
        hs = hs_of(w, mover)
        deadline = t.deadlines[hs]
        stopped = time.monotonic()
        await w.stop_bot()
        w.clock.offset += 10
        m0 = mark(w)
        await w.start_bot()
        await wait_notice(w, "play resumes", m0)
        t = table_of(w)
        assert t.deadlines[hs] == pytest.approx(deadline, abs=0.01)
        # (50 s left at the restart, less the time the restart itself took on this machine)
        assert 49 <= left(w, mover) + (time.monotonic() - stopped) <= 50
        ping = await w.fake.wait_for_message(
            w.chan, lambda m: "your turn" in (m.content or "") and mover.id in m.pinged
            and m.id > m0, include_existing=True)
        assert abs(ts(ping.content)[0] - deadline) <= 1
        # down for two minutes: the clock ran out while nobody could act
        await w.stop_bot()
        w.clock.offset += 120
        m1 = mark(w)
        await w.start_bot()
        await wait_notice(w, "play resumes", m1)
        t = table_of(w)
        assert 29 <= left(w, mover) <= 30
        ping = await w.fake.wait_for_message(
            w.chan, lambda m: "your turn" in (m.content or "") and mover.id in m.pinged
            and m.id > m1, include_existing=True)
        assert abs(ts(ping.content)[0] - t.deadlines[hs]) <= 1
        await asyncio.sleep(0.3)
        assert not t.hand.autoplayed[hs] and notices(w, "Time ran out", m0) == []
        # the grace runs out like any clock
        await run_out(w, 31)
        await wait_notice(w, "Time ran out", m1)
        assert t.hand.autoplayed[hs] == 1 and t.seat_of_user(mover.id).sitting_out
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_the_short_clock_of_a_player_who_timed_out_survives_a_restart(
    tmp_path: Any, caplog: Any
) -> None:
    """After a timeout, a restart does not hand the absent player the whole clock again:
    their next decision still has the short clock (the deadline kept), and the notice is not
    repeated."""
    async with make_world(tmp_path, seed_factory=lambda: "clk-away-restart") as w:
        t = await open_table(w, variant="ofc", timer=40)
        first = acting_users(w)[0]
        second = w.bob if first is w.alice else w.alice
        m0 = mark(w)
        await run_out(w, 41)
        await wait_notice(w, "Time ran out", m0)
        await w.fake.wait_until(lambda: acting_users(w) == [second], 5, "second's turn")
        r = await place_all(w, second)
        assert r.content.startswith("✅"), r.content
        await w.fake.wait_until(lambda: acting_users(w) == [first], 5, "first's turn")
        hs = hs_of(w, first)
        deadline = t.deadlines[hs]
        assert 9 <= left(w, first) <= 10
        await w.stop_bot()
        w.clock.offset += 3
        m1 = mark(w)
        await w.start_bot()
        await wait_notice(w, "play resumes", m1)
        t = table_of(w)
        assert hs in t.away and t.deadlines[hs] == pytest.approx(deadline, abs=0.01)
        await run_out(w, 8)
        await w.fake.wait_until(lambda: acting_users(w) == [second], 10, "the short clock")
        assert t.hand.autoplayed[hs] == 2
        await asyncio.sleep(0.3)
        assert notices(w, "Time ran out", m1) == []  # told once a hand
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- races
class GatedTimeouts:
    """The timeout's AI is held until ``release`` (``entered`` once it is asked): the player's
    last-moment action can land while the timeout's move is being found."""

    def __init__(self, w: World) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        thinker = w.service.thinker
        real = thinker.run

        async def run(fn: Any, *args: Any, fallback: Any = None, what: str = "") -> Any:
            if getattr(fn, "__name__", "") == "autoplay":
                self.entered.set()
                await self.release.wait()
            return await real(fn, *args, fallback=fallback)

        thinker.run = run


@pytest.mark.parametrize("how", ["place", "confirm"])
async def test_a_move_made_while_the_timeout_thinks_is_the_one_that_counts(
    tmp_path: Any, caplog: Any, how: str
) -> None:
    """The clock runs out and the timeout starts thinking; the player's own move (by text or
    the panel's Confirm) lands before it is done: the player's move is played, once, the
    timeout's is dropped, nobody is told the time ran out, nobody sits out, and the hand
    plays on with the whole clock."""
    async with make_world(tmp_path, seed_factory=lambda: f"clk-race-{how}") as w:
        t = await open_table(w, variant="pineapple", timer=20)
        mover = acting_users(w)[0]
        other = w.bob if mover is w.alice else w.alice
        hs = hs_of(w, mover)
        panel = await w.slash(mover, "ofc hand")
        cards = panel_cards(panel.content)
        gate = GatedTimeouts(w)
        m0 = mark(w)
        await run_out(w, 21)
        await asyncio.wait_for(gate.entered.wait(), 5)
        if how == "place":
            r = await w.slash(mover, "ofc place", move=fill_move(t, hs, cards))
        else:
            rec = await w.select(mover, panel, panel.message.selects()[0]["custom_id"], cards)
            rec = await w.click(mover, rec, label="Bottom")
            r = await w.click(mover, rec, label="Confirm")
        assert "✅" in (r.content or ""), r.content
        gate.release.set()
        await w.fake.wait_until(lambda: acting_users(w) == [other], 5, "the other's turn")
        await asyncio.sleep(0.3)  # (the timeout's move, had it been played)
        played = [a for a in t.hand.log if a.seat == hs]
        assert len(played) == 1 and not played[0].auto
        assert len(t.hand.boards[hs]) == 5 and not t.hand.autoplayed[hs]
        assert notices(w, "Time ran out", m0) == []
        assert not t.seat_of_user(mover.id).sitting_out and hs not in t.away
        assert 19 <= left(w, other) <= 20
        r = await place_all(w, other)
        assert r.content.startswith("✅"), r.content
        await w.fake.wait_until(lambda: acting_users(w) == [mover], 5, "mover's turn")
        assert 19 <= left(w, mover) <= 20  # the whole clock: they did act
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_a_sitin_while_the_timeout_thinks_keeps_the_player_in(
    tmp_path: Any, caplog: Any
) -> None:
    """A player who sat out during the hand lets the clock run out and says ``/ofc sitin``
    while the timeout's move is being found: that move is played (the clock had run out, as
    the answer says) but they are not sat out, not told, and keep the whole clock."""
    async with make_world(tmp_path, seed_factory=lambda: "clk-race-sitin") as w:
        t = await open_table(w, variant="ofc", timer=20)
        mover = acting_users(w)[0]
        other = w.bob if mover is w.alice else w.alice
        hs = hs_of(w, mover)
        await w.slash(mover, "ofc sitout")
        gate = GatedTimeouts(w)
        m0 = mark(w)
        await run_out(w, 21)
        await asyncio.wait_for(gate.entered.wait(), 5)
        r = await w.slash(mover, "ofc sitin")
        assert "already run out, so the AI plays it for you" in r.content, r.content
        gate.release.set()
        await w.fake.wait_until(lambda: acting_users(w) == [other], 5, "the other's turn")
        await asyncio.sleep(0.3)
        assert t.hand.autoplayed[hs] == 1
        assert not t.seat_of_user(mover.id).sitting_out and hs not in t.away
        assert notices(w, "Time ran out", m0) == []
        r = await place_all(w, other)
        assert r.content.startswith("✅"), r.content
        await w.fake.wait_until(lambda: acting_users(w) == [mover], 5, "mover's turn")
        assert 19 <= left(w, mover) <= 20
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_a_move_after_the_timeout_played_is_refused_and_changes_nothing(
    tmp_path: Any, caplog: Any
) -> None:
    """The timeout's move went first: the player's late ``/ofc place`` of the same cards is
    refused privately, the board is the timeout's, and the panel they had open says the time
    ran out."""
    async with make_world(tmp_path, seed_factory=lambda: "clk-late") as w:
        t = await open_table(w, variant="ofc", timer=20)
        mover = acting_users(w)[0]
        hs = hs_of(w, mover)
        panel = await w.slash(mover, "ofc hand")
        cards = panel_cards(panel.content)
        m0 = mark(w)
        await run_out(w, 21)
        await wait_notice(w, "Time ran out", m0)
        board = str(t.hand.boards[hs])
        r = await w.slash(mover, "ofc place", move=" ".join(cards) + " bottom")
        assert r.ephemeral and r.content.startswith("⚠️"), r.content
        assert str(t.hand.boards[hs]) == board
        assert len([a for a in t.hand.log if a.seat == hs]) == 1
        rec = await w.select(mover, panel, panel.message.selects()[0]["custom_id"], cards[:1])
        assert "time ran out" in (rec.content or "").lower(), rec.content
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- several clocks
async def test_chinese_set_clock_pings_everyone_and_three_timeouts_are_one_notice(
    tmp_path: Any, caplog: Any
) -> None:
    """Chinese, three players: one ping names all three with the set clock (120 s); one sets
    in time, the other two let it run out at the same instant: one notice names both (no
    short clock promised: the set was their whole hand), told before the showdown; both sit
    out, the units sum to zero."""
    async with make_world(tmp_path, seed_factory=lambda: "clk-chinese") as w:
        t = await open_table(w, w.bob, w.carol, variant="chinese", stake=2)
        ping = await w.fake.wait_for_message(
            w.chan, lambda m: "your turn" in (m.content or ""), include_existing=True)
        assert sorted(ping.pinged) == sorted(u.id for u in (w.alice, w.bob, w.carol))
        for u in (w.alice, w.bob, w.carol):
            assert 119 <= left(w, u) <= 120
        assert abs(ts(ping.content)[0] - min(t.deadlines.values())) <= 1
        r = await place_all(w, w.alice)
        assert r.content.startswith("✅"), r.content
        m0 = mark(w)
        await run_out(w, 121)
        show = await wait_showdown(w, 1)
        (note,) = notices(w, "Time ran out", m0)
        assert sorted(note.pinged) == sorted([w.bob.id, w.carol.id])
        assert note.content.endswith("They sit out from the next hand (`/ofc sitin` to come "
                                     "back).")
        assert note.id < show.id
        # (they are sat out just after the showdown is posted, the table still held)
        await w.fake.wait_until(lambda: all(t.seat_of_user(u.id).sitting_out
                                            for u in (w.bob, w.carol)), 5, "both sat out")
        for u in (w.bob, w.carol):
            assert t.seat_of_user(u.id).sitting_out
        assert not t.seat_of_user(w.alice.id).sitting_out
        assert await sums_to_zero(w, t.id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_a_fantasyland_set_clock_runs_on_its_own_while_the_others_play_streets(
    tmp_path: Any, caplog: Any
) -> None:
    """Pineapple, alice in fantasyland (14 cards, 120 s), bob and carol on 60 s street
    clocks.  The streets played meanwhile do not reset her clock; it runs out during bob's
    turn: the bot sets her hand (hidden: none of her cards reaches the channel before the
    showdown), the notice names her only, the street player's clock is untouched; the
    others finish the hand, the units summing to zero."""
    async with make_world(tmp_path, seed_factory=lambda: "clk-fl") as w:
        t = await open_table(w, w.bob, w.carol, variant="pineapple", start=False)
        await w.store.update_table(t.id, extra={**t.row.extra, "fantasyland": {"0": 14}})
        await w.service._refresh(t)
        r = await w.slash(w.alice, "ofc start")
        assert "is dealt" in r.content, r.content
        assert t.hand.fantasyland[0] == 14
        deadline = t.deadlines[0]
        assert 119 <= deadline - w.clock() <= 120
        fl_cards = {str(c) for c in t.hand.requirement(0).cards}
        m0 = mark(w)
        # bob and carol play their first streets 50 s each
        for _ in range(2):
            u = next(x for x in acting_users(w) if x is not w.alice)
            assert 59 <= left(w, u) <= 60
            w.clock.offset += 50
            r = await place_all(w, u)
            assert r.content.startswith("✅"), r.content
            assert t.deadlines[0] == deadline
        # 100 s gone: at 121 hers has run out, the street player's has 40 s left
        u = next(x for x in acting_users(w) if x is not w.alice)
        hs_u = hs_of(w, u)
        await run_out(w, 21)
        note = await wait_notice(w, "Time ran out", m0)
        assert note.pinged == [w.alice.id]
        assert t.hand.done[0] and t.hand.autoplayed[0] == 1
        assert not t.hand.autoplayed[hs_u] and 38 <= left(w, u) <= 40
        assert t.seat_of_user(w.alice.id).sitting_out
        shown = "\n".join(m.text for m in channel_messages(w, m0))
        leaked = [c for c in fl_cards if re.search(rf"\b{c}\b", shown)]
        assert leaked == [], leaked
        # the others play the hand out
        while t.hand is not None and t.row.hand_no == 1:
            users = [x for x in acting_users(w) if x is not w.alice]
            if not users:
                await asyncio.sleep(0.02)
                continue
            r = await place_all(w, users[0])
            assert r.content.startswith("✅"), r.content
        await wait_showdown(w, 1)
        assert await sums_to_zero(w, t.id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_a_fantasyland_set_and_a_street_running_out_together_are_one_notice(
    tmp_path: Any, caplog: Any
) -> None:
    """Ofc, alice in fantasyland (13 cards, 120 s), bob on his first street (60 s): both
    clocks are found run out in the same instant: both moves are played (each on that seat),
    one notice names both, bob gets the short clock for his next street."""
    async with make_world(tmp_path, seed_factory=lambda: "clk-fl-both") as w:
        t = await open_table(w, w.bob, variant="ofc", start=False)
        await w.store.update_table(t.id, extra={**t.row.extra, "fantasyland": {"0": 13}})
        await w.service._refresh(t)
        r = await w.slash(w.alice, "ofc start")
        assert "is dealt" in r.content, r.content
        assert t.hand.fantasyland[0] == 13 and acting_users(w) == [w.alice, w.bob]
        m0 = mark(w)
        await run_out(w, 200)
        await w.fake.wait_until(lambda: t.hand.done[0] and len(t.hand.boards[1]) == 5, 10,
                                "both played")
        note = await wait_notice(w, "Time ran out", m0)
        await asyncio.sleep(0.2)
        assert len(notices(w, "Time ran out", m0)) == 1
        assert sorted(note.pinged) == sorted([w.alice.id, w.bob.id])
        assert "They play on in this hand (10 s a decision" in note.content
        assert t.hand.autoplayed[0] == 1 and t.hand.autoplayed[1] == 1
        assert 9 <= left(w, w.bob) <= 10
        for u in (w.alice, w.bob):
            assert t.seat_of_user(u.id).sitting_out
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_the_last_set_racing_its_timeout_settles_the_hand_once(
    tmp_path: Any, caplog: Any
) -> None:
    """Chinese, heads-up, four hands: the second player's set and the clock running out at
    the same instant (the last decision of the hand, so it settles).  Whichever counts,
    exactly one move is played for that seat, one showdown per hand, a "Time ran out" notice
    exactly when the bot's move was the one played, and the units sum to zero."""
    async with make_world(tmp_path, seed_factory=lambda: "clk-last-race",
                          next_hand_delay=0.05) as w:
        t = await open_table(w, variant="chinese", stake=3, timer=10)
        outcomes = []
        for number in range(1, 5):
            await w.fake.wait_until(lambda n=number: t.hand is not None and t.row.hand_no == n
                                    and len(acting_users(w)) == 2, 10, f"hand {number}")
            r = await place_all(w, w.alice)
            assert r.content.startswith("✅"), r.content
            hs = hs_of(w, w.bob)
            req = t.hand.requirement(hs)
            move = fill_move(t, hs, [str(c) for c in req.cards])
            m0 = mark(w)
            w.clock.offset += 121
            rec = await w.fake.slash(w.bob, w.chan, "ofc place", wait=False,
                                     options={"move": move})
            w.service.rearm()
            await w.fake.wait_answered(rec)
            await wait_showdown(w, number)
            await asyncio.sleep(0.2)
            res = t.last_result
            assert res is not None and res.hand_no == number
            answer = (rec.callback_data or {}).get("content") or ""
            told = notices(w, "Time ran out", m0)
            bob_auto = "✅" not in answer
            outcomes.append(bob_auto)
            assert len(told) == (1 if bob_auto else 0), (answer, told)
            assert len(notices(w, f"Showdown — hand #{number}**", m0)) == 1
            assert t.seat_of_user(w.bob.id).sitting_out == bob_auto
            if bob_auto:
                r = await w.slash(w.bob, "ofc sitin")
                assert "Welcome back" in r.content, r.content
        assert await sums_to_zero(w, t.id) == 4
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- bots
async def test_a_slow_bot_is_never_told_pinged_or_sat_out(tmp_path: Any, caplog: Any) -> None:
    """A bot that thinks longer than the clock (a worker hung: its limit is 30 s, the clock
    may be 10 s): the table's clock plays a move for it so the table never stalls, but the
    bot is never named in a "Time ran out" notice, never pinged, never sat out, and the
    human's clock is the whole one."""
    async with make_world(tmp_path, seed_factory=lambda: "clk-bot", bot_delay=1.0) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=0, bots=1, timer=10)
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        bot_hs = next(hs for hs, no in enumerate(t.hand_seats) if t.seat_by_no(no).is_bot)
        assert t.hand.to_act() == [bot_hs]
        m0 = mark(w)
        await run_out(w, 11)
        await w.fake.wait_until(lambda: acting_users(w) == [w.alice], 5, "alice's turn")
        assert 9 <= left(w, w.alice) <= 10
        await asyncio.sleep(1.2)  # (the bot's own decision, late: nothing more)
        assert len([a for a in t.hand.log if a.seat == bot_hs]) == 1
        assert notices(w, "Time ran out", m0) == []
        assert all(not m.pinged or m.pinged == [w.alice.id] for m in channel_messages(w, m0))
        assert not t.seat_by_no(t.hand_seats[bot_hs]).sitting_out and bot_hs not in t.away
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_the_table_message_shows_no_countdown_for_a_bot(tmp_path: Any) -> None:
    """Was a defect (the table message showed a bot's countdown), fixed: ``table_status`` shows no
    clock for a bot's seat (its deadline stays, a safety net against a stuck AI).
    Defect: while a bot thinks (a strong bot takes about a second, a hung worker up to
    30 s), the table message reads "To act: **Ada (bot)** (time runs out in 10 seconds)":
    the bot's seat gets a deadline like a player's (``TableService._set_deadlines`` arms every
    seat to act, bots included) and ``table_status`` shows it.  A bot is never on a clock:
    the message should name the bot to act without a countdown (a safety net against a stuck
    AI need not be shown as the player's clock)."""
    async with make_world(tmp_path, seed_factory=lambda: "clk-bot-shown", bot_delay=1.0) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=0, bots=1, timer=10)
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        bot_hs = next(hs for hs, no in enumerate(t.hand_seats) if t.seat_by_no(no).is_bot)
        assert t.hand.to_act() == [bot_hs]
        msg = await w.fake.wait_for_message(
            w.chan, lambda m: "To act: **Ada (bot)**" in (m.content or ""),
            include_existing=True)
        status = msg.content.split("\n")[0]
        assert "time runs out" not in status, status


# --------------------------------------------------------------------------- sitting in
async def _away_on_own_turn(w: World) -> tuple[Any, FakeUser]:
    """Three at ofc (30 s clock): the first player times out and the others play, so it is
    the absent player's turn again, on the short clock."""
    t = await open_table(w, w.bob, w.carol, variant="ofc", timer=30)
    first = acting_users(w)[0]
    m0 = mark(w)
    await run_out(w, 31)
    await wait_notice(w, "Time ran out", m0)
    while acting_users(w) != [first]:
        r = await place_all(w, acting_users(w)[0])
        assert r.content.startswith("✅"), r.content
    assert 9 <= left(w, first) <= 10
    return t, first


async def test_sitting_in_on_the_short_clock_gives_the_whole_clock_from_now(
    tmp_path: Any, caplog: Any
) -> None:
    """``/ofc sitin`` on one's own turn after a timeout: the answer says it is their turn,
    the clock is the whole 30 s from now (the table message shows it), they are no longer
    sitting out, and the next decisions keep the whole clock."""
    async with make_world(tmp_path, seed_factory=lambda: "clk-sitin") as w:
        t, first = await _away_on_own_turn(w)
        hs = hs_of(w, first)
        r = await w.slash(first, "ofc sitin")
        assert r.content == ("Welcome back: you play this hand and the next ones. It is your "
                             "turn."), r.content
        assert 29 <= left(w, first) <= 30 and hs not in t.away
        assert not t.seat_of_user(first.id).sitting_out
        msg = await w.fake.wait_for_message(
            w.chan, lambda m: bool(m.files) and "To act:" in (m.content or "")
            and str(int(t.deadlines[hs])) in m.content, include_existing=True)
        assert ts(msg.content) == [int(t.deadlines[hs])]
        # the short clock is gone: the whole clock does not run out at 10 s
        await run_out(w, 11)
        await asyncio.sleep(0.3)
        assert acting_users(w) == [first] and t.hand.autoplayed[hs] == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_the_turn_ping_counts_down_the_clock_given_by_sitting_in(tmp_path: Any) -> None:
    """Was a defect (the ping kept counting down to the short clock), fixed: ``sit_out`` pings
    again when ``_back_in_hand`` gives the decision the whole clock.
    Defect: on the short clock after a timeout, the channel's turn ping says "time runs
    out in 10 seconds"; ``/ofc sitin`` gives the player the whole clock from now (30 s), but
    the ping kept in the channel (the one with the live countdown) still counts down to the
    old deadline, 20 s too early (``TableService.sit_out`` / ``_back_in_hand`` only edit the
    table message).  The ping should count down to the deadline that holds (a new ping, or
    the old one edited)."""
    async with make_world(tmp_path, seed_factory=lambda: "clk-sitin-ping") as w:
        t, first = await _away_on_own_turn(w)
        hs = hs_of(w, first)
        await w.slash(first, "ofc sitin")
        await asyncio.sleep(0.3)
        pings = [m for m in w.fake.messages(w.chan, include_ephemeral=False)
                 if "your turn" in (m.content or "") and first.id in m.pinged]
        assert pings, "no ping"
        assert ts(pings[-1].content) == [int(t.deadlines[hs])], pings[-1].content


async def test_a_restart_while_the_timeout_thinks_plays_nothing_twice(
    tmp_path: Any, caplog: Any
) -> None:
    """The bot stops while a timeout's move is being found (not saved): after the restart the
    clock that ran out before the stop gets the 30 s grace, the player is pinged, and then
    plays themself; exactly one move for the seat, nobody told the time ran out."""
    async with make_world(tmp_path, seed_factory=lambda: "clk-restart-think") as w:
        t = await open_table(w, variant="pineapple", timer=20)
        mover = acting_users(w)[0]
        hs = hs_of(w, mover)
        gate = GatedTimeouts(w)
        m0 = mark(w)
        await run_out(w, 21)
        await asyncio.wait_for(gate.entered.wait(), 5)
        await w.stop_bot()
        await w.start_bot()
        await wait_notice(w, "play resumes", m0)
        t = table_of(w)
        assert [a for a in t.hand.log if a.seat == hs] == []
        assert 29 <= left(w, mover) <= 30
        await w.fake.wait_for_message(
            w.chan, lambda m: "your turn" in (m.content or "") and mover.id in m.pinged
            and m.id > m0, include_existing=True)
        r = await place_all(w, mover)
        assert r.content.startswith("✅"), r.content
        await asyncio.sleep(0.3)
        played = [a for a in t.hand.log if a.seat == hs]
        assert len(played) == 1 and not played[0].auto
        assert notices(w, "Time ran out", m0) == []
        assert not t.seat_of_user(mover.id).sitting_out
        no_errors_logged(caplog)
        w.fake.assert_clean()
