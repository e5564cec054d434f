"""Review of idle tables closing (``TableService.close_idle``) and ``/ofc tables``: a table
closed while somebody uses it, units moved twice, races between the idle close and commands,
what the channel and the table message say after it, a settings change taking effect, and
the listing (what a member may see, its state words, long lists, names with markdown)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any
from unittest.mock import MagicMock

import discord
import pytest

from bot.service import ServiceError, TableService
from bot.store import Store
from cogs.ofc import _may_see, _table_line

from ..bot.test_idle_tables import notices, seated, warned_and_due
from ..bot.test_service import (
    ALICE,
    BOB,
    CAROL,
    CH,
    Clock,
    G,
    finish_by_autoplay,
    make,
    until,
)
from ..timestamps import as_read
from .conftest import make_world, table_of

HOUR = 3600.0


async def done(svc: TableService, store: Store) -> None:
    assert await store.verify_ledger() == []
    await svc.shutdown()
    await store.close()


class Held:
    """Hold the idle close inside the table lock: its write to the store waits for
    ``release`` (what a slow disk does), so a command can queue behind it."""

    def __init__(self, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        real = store.update_table

        async def slow(*a: Any, **kw: Any) -> Any:
            if kw.get("status") == "closed":
                self.entered.set()
                await self.release.wait()
            return await real(*a, **kw)

        monkeypatch.setattr(store, "update_table", slow)


async def closing_idle_while(svc: TableService, store: Store, monkeypatch: pytest.MonkeyPatch,
                             command: Any) -> tuple[list[Any], Any]:
    """Run ``command()`` while the idle close holds the table's lock; (closed, its outcome)."""
    held = Held(store, monkeypatch)
    closer = asyncio.ensure_future(svc.close_idle())
    await asyncio.wait_for(held.entered.wait(), 5)
    cmd = asyncio.ensure_future(command())
    await asyncio.sleep(0.05)  # (the command waits for the lock)
    held.release.set()
    closed = await closer
    try:
        outcome: Any = await cmd
    except ServiceError as e:
        outcome = e
    return closed, outcome


# ----------------------------------------------------------------- races under the lock


async def test_a_join_queued_behind_the_idle_close_moves_no_units(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    await warned_and_due(svc, clock)
    closed, outcome = await closing_idle_while(
        svc, store, monkeypatch, lambda: svc.join(G, CH, CAROL, "carol"))
    assert closed == [t]
    assert isinstance(outcome, ServiceError), outcome
    assert "`/ofc new`" in str(outcome), outcome  # (what to do next)
    assert await store.balance(G, CAROL) in (0, 1000)  # never bought in (0: never played)
    assert CAROL not in [s.user_id for s in await store.seats(t.id)]
    assert await store.balance(G, ALICE) == 1000 and await store.balance(G, BOB) == 1000
    await done(svc, store)


async def test_a_close_queued_behind_the_idle_close_pays_nobody_twice(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    await warned_and_due(svc, clock)
    closed, outcome = await closing_idle_while(
        svc, store, monkeypatch, lambda: svc.close(CH, ALICE, False))
    assert closed == [t]
    assert await store.balance(G, ALICE) == 1000 and await store.balance(G, BOB) == 1000
    assert t.row.status == "closed"
    await done(svc, store)


async def test_a_leave_queued_behind_the_idle_close_pays_nobody_twice(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    await warned_and_due(svc, clock)
    closed, outcome = await closing_idle_while(
        svc, store, monkeypatch, lambda: svc.leave(CH, BOB))
    assert closed == [t]
    assert await store.balance(G, ALICE) == 1000 and await store.balance(G, BOB) == 1000
    await done(svc, store)


async def test_options_changed_behind_the_idle_close_are_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Was a defect (fixed: every command that waited for the table checks it is still open
    (``TableService._holding``) and says it has just closed): ``/ofc options`` that queued
    behind the idle close (the table lock) is not re-checked once it gets the lock: it
    writes the new options to the table just closed and answers the host that they changed
    (and marks the table message again), while the channel is told the table is closed."""
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    await warned_and_due(svc, clock)
    closed, outcome = await closing_idle_while(
        svc, store, monkeypatch, lambda: svc.set_options(CH, ALICE, False, deck="two"))
    assert closed == [t]
    assert isinstance(outcome, ServiceError), f"answered as done: {outcome!r}"
    await done(svc, store)


async def test_a_start_behind_the_idle_close_says_the_table_closed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Was a defect (fixed: every command that waited for the table checks it is still open
    (``TableService._holding``) and says it has just closed): ``/ofc start`` that queued
    behind the idle close answers the player who sat there "You are not seated at this
    table. Take a seat with `/ofc join`" (the close emptied the seats); ``/ofc join`` then
    says there is no table.  It should say the table closed."""
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    await warned_and_due(svc, clock)
    closed, outcome = await closing_idle_while(
        svc, store, monkeypatch, lambda: svc.start(CH, ALICE))
    assert closed == [t] and isinstance(outcome, ServiceError)
    assert "not seated" not in str(outcome), str(outcome)
    await done(svc, store)


# ----------------------------------------------------------------- what counts as use


async def test_changing_options_or_seating_a_bot_keeps_the_table_open() -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    clock.offset += 23.5 * HOUR
    await svc.set_options(CH, ALICE, False, deck="two")
    clock.offset += 23.5 * HOUR
    assert await svc.close_idle() == []
    await svc.add_bot(CH, ALICE, "normal")
    clock.offset += 23.9 * HOUR
    assert await svc.close_idle() == []
    clock.offset += 0.2 * HOUR
    assert await svc.close_idle() == [t]
    await done(svc, store)


async def test_a_player_sitting_in_again_keeps_the_table_open() -> None:
    """Was a defect (fixed: every write of the table's seats, deals and hand ends counts as
    use (``TableState.touched``)): both players sat out after a hand; 23.9 hours later Alice
    comes back with ``/ofc sitin`` and is told "Welcome back: you will be dealt in from the
    next hand", yet 12 minutes later the table closes as idle under her ("no hand for 24
    hours"): only a new seat (``joined_at``), a table write or a hand resets the idle clock,
    not a player sitting back in while she waits for the other."""
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    await svc.start(CH, ALICE)
    await svc.sit_out(CH, ALICE, True)
    await svc.sit_out(CH, BOB, True)
    await finish_by_autoplay(svc)
    await until(lambda: t.waiting)
    clock.offset += 23.9 * HOUR
    text = await svc.sit_out(CH, ALICE, False)
    assert text.startswith("Welcome back"), text
    clock.offset += 0.2 * HOUR
    closed = await svc.close_idle()
    try:
        assert closed == [], "closed 12 minutes after a player sat in again"
    finally:
        await done(svc, store)


async def test_a_hand_just_ended_with_the_next_deal_pending_stays_open() -> None:
    """The pause between hands (``next_hand_delay``) after a long hand: never closed."""
    clock = Clock()
    svc, rec, store, t = await seated(clock, next_hand_delay=0.3)
    await svc.start(CH, ALICE)
    clock.offset += 30 * HOUR  # a slow hand
    await finish_by_autoplay(svc)
    assert t.hand is None and t.row.hand_no == 1
    assert await svc.close_idle() == []
    await until(lambda: t.hand is not None)
    assert t.hand is not None and t.row.hand_no == 2  # the next hand came
    assert await svc.close_idle() == []
    await done(svc, store)


async def test_a_table_waiting_after_a_hand_closes_a_day_after_it() -> None:
    """Bob left after the hand: Alice waits alone; a day after the hand ended it closes, her
    stack (won or lost) goes back once."""
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    await svc.start(CH, ALICE)
    await svc.leave(CH, BOB)
    await finish_by_autoplay(svc)
    await until(lambda: t.seat_of_user(BOB) is None and t.waiting)
    stack = t.seat_of_user(ALICE).stack
    balance = await store.balance(G, ALICE)
    clock.offset += 23.9 * HOUR
    assert await svc.close_idle() == []
    clock.offset += 0.2 * HOUR
    assert await svc.close_idle() == [t]
    assert await store.balance(G, ALICE) == balance + stack
    assert await store.balance(G, ALICE) + await store.balance(G, BOB) == 2000
    await done(svc, store)


async def test_a_lower_idle_hours_takes_effect_at_the_next_look() -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    clock.offset += 3 * HOUR
    assert await svc.close_idle() == []
    await svc.update_settings(G, True, idle_hours=2)
    assert await svc.close_idle() == []  # warned first: it closes in half an hour
    assert notices(rec)[-1].startswith("⏳")
    assert "closes in 30 minutes" in as_read(notices(rec)[-1], clock())
    clock.offset += 0.51 * HOUR
    assert await svc.close_idle() == [t]
    assert notices(rec)[-1].startswith("🕸️ Nothing happened here for 3 hours, so the table is closed")
    await done(svc, store)


async def test_idle_hours_1_says_one_hour() -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    await svc.update_settings(G, True, idle_hours=1)
    clock.offset += 0.8 * HOUR
    assert await svc.close_idle() == []  # (its warning, a quarter of an hour before)
    clock.offset += 0.3 * HOUR
    assert await svc.close_idle() == [t]
    assert notices(rec)[-1].startswith("🕸️ Nothing happened here for 1 hour, so")
    await done(svc, store)


async def test_a_table_loaded_but_not_resumed_is_left_alone(tmp_path: Path) -> None:
    clock = Clock()
    path = tmp_path / "ofc.db"
    svc, rec, store, t = await seated(clock, path)
    await svc.shutdown()
    await store.close()
    svc, rec, store = await make(path, clock=clock)
    await svc.load_tables()
    clock.offset += 48 * HOUR  # (the gateway never came: nothing resumed, nothing looked)
    assert await svc.close_idle() == []
    assert len(svc.tables) == 1
    await done(svc, store)


async def test_idle_time_before_a_short_restart_still_counts(tmp_path: Path) -> None:
    """Was a defect (fixed: the idle time is the stored one (the table's and seats' rows),
    down time included, and a start gives the tables an hour (``IDLE_GRACE``)): "time the
    bot was down does not count", but the idle clock restarts from zero at every start
    (``idle_since`` is floored at the start): a table idle for 23 hours before a one-minute
    restart stays open another 24 hours, and a bot restarted daily (a deploy, a host's
    nightly reboot) never closes a forgotten table at all."""
    clock = Clock()
    path = tmp_path / "ofc.db"
    svc, rec, store, t = await seated(clock, path)
    clock.offset += 23 * HOUR
    assert await svc.close_idle() == []
    await svc.shutdown()
    await store.close()
    clock.offset += 60  # a one-minute restart
    svc, rec, store = await make(path, clock=clock)
    await svc.load_tables()
    await svc.resume()
    clock.offset += 0.5 * HOUR
    assert await svc.close_idle() == []  # its warning (idle 23.5 hours)
    clock.offset += 1.0 * HOUR  # 24.5 hours idle while the bot was up
    closed = await svc.close_idle()
    try:
        assert [x.id for x in closed] == [t.id]
    finally:
        await done(svc, store)


async def test_a_channel_deleted_while_the_idle_close_runs_pays_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    await warned_and_due(svc, clock)
    closed, outcome = await closing_idle_while(
        svc, store, monkeypatch, lambda: svc.channel_gone(CH))
    assert closed == [t] and outcome is False
    assert await store.balance(G, ALICE) == 1000 and await store.balance(G, BOB) == 1000
    await done(svc, store)


async def test_idle_hours_0_then_back_closes_at_the_next_look() -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    await svc.update_settings(G, True, idle_hours=0)
    clock.offset += 30 * HOUR
    assert await svc.close_idle() == []
    await svc.update_settings(G, True, idle_hours=24)
    assert await svc.close_idle() == []  # warned first: it closes in an hour
    assert "closes in 1 hour" in as_read(notices(rec)[-1], clock())
    clock.offset += 1.01 * HOUR
    assert await svc.close_idle() == [t]
    await done(svc, store)


async def test_a_table_where_only_bots_could_play_closes_and_the_human_is_paid_back() -> None:
    """Alice sat out after a hand against a bot: bots never play alone, the table waits; a
    day later it closes and her stack goes back once."""
    clock = Clock()
    svc, rec, store = await make(clock=clock, seed_factory=lambda: "idle-bots")
    t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=0, buyin=0, bots=1)
    await svc.resume()
    await svc.start(CH, ALICE)
    await svc.sit_out(CH, ALICE, True)
    for _ in range(500):  # alice's moves (the bot plays its own)
        if t.hand is None:
            break
        async with t.lock:
            h = t.hand
            if h is not None and not h.is_over:
                mine = [hs for hs in h.to_act() if t.hand_seats[hs] == t.seat_of_user(ALICE).seat_no]
                if mine:
                    h.autoplay(mine[0])
                    await svc._after_action(t)
        await asyncio.sleep(0.01)
    await until(lambda: t.waiting)
    assert t.hand is None and t.waiting
    clock.offset += 23.5 * HOUR
    assert await svc.close_idle() == []  # (its warning)
    clock.offset += 0.6 * HOUR
    assert await svc.close_idle() == [t]
    assert "Nothing happened here for 24 hours" in notices(rec)[-1]
    assert await store.balance(G, ALICE) == 1000
    await done(svc, store)


# ----------------------------------------------------------------- /ofc tables


class _Interaction:
    def __init__(self, user: Any, channel: Any) -> None:
        self.user = user
        self.guild = type("Guild", (), {"get_channel_or_thread": lambda _s, _id: channel})()


def _member(user_id: int) -> Any:
    m = MagicMock(spec=discord.Member)
    m.id = user_id
    return m


def _channel(kind: type, view: bool, private: bool = False) -> Any:
    c = MagicMock(spec=kind)
    c.permissions_for.return_value = discord.Permissions(view_channel=view)
    c.type = (discord.ChannelType.private_thread if private else
              discord.ChannelType.public_thread if kind is discord.Thread else
              discord.ChannelType.text)
    return c


async def test_who_may_see_a_table_in_the_list() -> None:
    """A channel the member cannot view hides its table (unless they play there); a private
    thread's table shows to its players only; a channel the bot does not know hides it."""
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    carol, bob = _member(CAROL), _member(BOB)
    hidden = _channel(discord.TextChannel, view=False)
    assert not _may_see(_Interaction(carol, hidden), t)  # type: ignore[arg-type]
    assert _may_see(_Interaction(bob, hidden), t)  # type: ignore[arg-type]
    assert _may_see(_Interaction(carol, _channel(discord.TextChannel, True)), t)  # type: ignore[arg-type]
    assert not _may_see(_Interaction(carol, _channel(discord.Thread, True, private=True)), t)  # type: ignore[arg-type]
    assert _may_see(_Interaction(carol, _channel(discord.Thread, True)), t)  # type: ignore[arg-type]
    assert not _may_see(_Interaction(carol, None), t)  # type: ignore[arg-type]
    orphan = _channel(discord.Thread, True)  # (its parent not cached: discord.py raises)
    orphan.permissions_for.side_effect = discord.ClientException("Parent channel not found")
    assert not _may_see(_Interaction(carol, orphan), t)  # type: ignore[arg-type]
    assert _may_see(_Interaction(bob, orphan), t)  # type: ignore[arg-type]
    await done(svc, store)


async def test_state_words_of_a_waiting_and_a_practice_table() -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    line = _table_line(t)
    assert line.endswith("2/4 seated: alice, bob — not started yet; 2 seats free"), line
    assert "buy-in 300" in line
    await svc.start(CH, ALICE)
    assert "hand #1 being played" in _table_line(t)
    await svc.sit_out(CH, BOB, True)
    await finish_by_autoplay(svc)
    await until(lambda: t.waiting)
    line = _table_line(t)
    assert line.endswith("alice, bob (sitting out) — between hands; 2 seats free"), line
    await done(svc, store)


async def test_a_stakes_table_with_a_bot_lists_its_stakes() -> None:
    """Was a defect (fixed: the listing gives the stakes a newcomer would play for and says
    the table is practice while one human plays): Alice's table at 5 units a point, with a
    bot and a free seat, is listed as "Open Face · practice, buy-in 300": the member looking
    for a table to join is not told the stakes they would play for (the hand is practice
    only while Alice is the one human; whoever joins plays her for 5 units a point)."""
    svc, rec, store = await make(clock=Clock())
    t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=5, buyin=300, bots=1)
    line = _table_line(t)
    try:
        assert "5 units/pt" in line, line
    finally:
        await done(svc, store)


async def test_a_long_list_is_split_between_lines_under_2000_characters(tmp_path: Any) -> None:
    """Thirty tables whose players have long names full of markdown: every table line once,
    whole, in ephemeral messages of at most 2,000 characters; no name renders as markdown or
    a mention."""
    async with make_world(tmp_path, seed_factory=lambda: "tables-long") as w:
        await w.start_bot()
        names = [f"**{i:02d}**_x_~~y~~||z||`q`@everyone"[:32] for i in range(30)]
        users = [w.fake.add_user(n, guild=w.guild) for n in names]
        chans = [w.fake.add_text_channel(w.guild, f"t{i}") for i in range(30)]
        for u, c in zip(users, chans, strict=True):
            await w.service.new_table(w.guild.id, c.id, u.id, u.display_name, variant="chinese",
                                      stake=0, buyin=0, bots=3)
        r = await w.slash(w.alice, "ofc tables")
        assert r.ephemeral
        await w.fake.wait_until(lambda: sum(len(m.content or "") for m in r.messages) > 4000,
                                10, "the follow-ups")
        await asyncio.sleep(0.3)
        msgs = r.messages
        assert len(msgs) >= 3 and all(m.ephemeral for m in msgs)
        assert all(len(m.content or "") <= 2000 for m in msgs), [len(m.content) for m in msgs]
        lines = [x for m in msgs for x in (m.content or "").split("\n")]
        assert lines[0] == "Open tables (30):"
        body = lines[1:]
        assert len(body) == 30
        for c, line in zip(chans, body, strict=True):
            assert line.startswith(f"<#{c.id}> — Chinese poker · no units (practice while one "
                                   "human plays) — 4/4 seated: "), line
            assert line.endswith("— not started yet; full"), line
            assert "@everyone" not in line and "**" not in line.replace("\\*\\*", "")
            assert re.search(r"\\\*\\\*\d\d\\\*\\\*\\_x\\_", line), line
        w.fake.assert_clean()


async def test_an_idle_close_then_the_channel_and_the_list(tmp_path: Any) -> None:
    """A table with a bot closes idle: the channel is told once, the message loses its
    buttons, the list drops it, ``/ofc join`` there says there is no table; the ledger holds."""
    async with make_world(tmp_path, seed_factory=lambda: "idle-review", idle_check=0.05) as w:
        await w.start_bot()
        r = await w.slash(w.alice, "ofc new", variant="ofc", buyin=300, bots=1)
        assert "opened" in r.content, r.content
        await w.slash(w.bob, "ofc join", buyin=200)
        await w.fake.wait_for_message(w.chan, lambda m: bool(m.files), include_existing=True)
        r = await w.slash(w.carol, "ofc tables")
        assert "3/4 seated: alice, Ada (bot), bob — not started yet; 1 seat free" in r.content
        w.clock.offset += 23.5 * 3600
        await w.fake.wait_for_message(  # the warning first
            w.chan, lambda m: (m.content or "").startswith("⏳"), timeout=10,
            include_existing=True)
        w.clock.offset += 0.6 * 3600
        await w.fake.wait_for_message(
            w.chan, lambda m: "Nothing happened here for 24 hours" in (m.content or ""), timeout=10,
            include_existing=True)
        await w.fake.wait_until(lambda: not any(
            m.components for m in w.fake.messages(w.chan) if m.author is w.fake.bot), 10,
            "the table message's buttons gone")
        await asyncio.sleep(0.3)
        told = [m for m in w.fake.messages(w.chan) if "Nothing happened here for" in (m.content or "")]
        assert len(told) == 1
        assert await w.store.balance(w.guild.id, w.alice.id) == 1000
        assert await w.store.balance(w.guild.id, w.bob.id) == 1000
        r = await w.slash(w.carol, "ofc tables")
        assert r.content.startswith("No table is open")
        r = await w.slash(w.dave, "ofc join")
        assert "no table" in r.content.lower(), r.content
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean()


async def test_the_settings_answer_says_the_idle_hours(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "idle-settings") as w:
        await w.start_bot()
        r = await w.slash(w.admin, "ofc-admin settings")
        assert r.ephemeral and "a table closes after 24 hours with nothing happening" in r.content
        r = await w.slash(w.admin, "ofc-admin settings", idle_hours=1)
        assert "a table closes after 1 hour with nothing happening" in r.content, r.content
        assert (await w.store.get_settings(w.guild.id)).idle_hours == 1
        w.fake.assert_clean()


async def test_a_restart_after_days_down_resumes_the_table_and_closes_it_an_hour_later(
        tmp_path: Any) -> None:
    """Three days down: the table resumes (its players could not use it meanwhile) and closes
    an hour after the start if nothing happens (it had been idle for longer than a day)."""
    async with make_world(tmp_path, seed_factory=lambda: "idle-restart",
                          idle_check=0.05) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", buyin=300)
        await w.slash(w.bob, "ofc join", buyin=300)
        await w.fake.wait_for_message(w.chan, lambda m: bool(m.files), include_existing=True)
        await w.stop_bot()
        w.clock.offset += 72 * 3600
        await w.start_bot()
        await w.fake.wait_for_message(
            w.chan, lambda m: "play resumes" in (m.content or ""), timeout=10,
            include_existing=True)
        await asyncio.sleep(0.3)
        assert table_of(w).row.status == "open"
        r = await w.slash(w.carol, "ofc tables")
        assert "2/4 seated: alice, bob — not started yet" in r.content, r.content
        w.clock.offset += 0.9 * 3600
        await asyncio.sleep(0.3)
        assert table_of(w).row.status == "open"
        warned = [m for m in w.fake.messages(w.chan) if (m.content or "").startswith("⏳")]
        assert len(warned) == 1 and "for 72 hours, so this table closes in 1 hour" in as_read(
            warned[0].content or "", w.clock() - 0.9 * 3600), [m.content for m in warned]
        # (said at the start, 0.9 hours ago)
        w.clock.offset += 0.2 * 3600
        await w.fake.wait_for_message(  # (the time it really was)
            w.chan, lambda m: "Nothing happened here for 73 hours" in (m.content or ""),
            timeout=10, include_existing=True)
        assert await w.store.balance(w.guild.id, w.bob.id) == 1000
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean()
