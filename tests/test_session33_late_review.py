"""A late review of the session's last changes (7621bf9..HEAD, with the several-tables work of
84f8e05 they build on), as a player, an operator and a maintainer meet them.

Covered:

* playing at several tables: the "you play at the one in #x" answer (``SeatedElsewhere(
  here=True)``, ``_seated_elsewhere``) and "Your turn is at #x" (``_turn_elsewhere``), driven
  through the service (the way ``tests/bot/test_service.py`` does): which server's tables they
  name, whether they name a table where the turn is not really the player's (a chinese set
  made, another server), and whether they come wherever a move is typed at a table where it
  is not the player's turn (a hand finished there, a player not dealt in);
* the DM panel's place (``panel_text``'s ``channel_id``/``server``, ``server_name``): a server
  name full of markdown and mentions, the longest panel (a 17-card fantasyland) within
  Discord's 2,000 characters;
* ``OFCBot.on_ready`` closing the tables of servers Discord no longer lists, through the real
  discord.py client against the loopback Discord: a server that is only unavailable (an
  outage: READY lists it, no GUILD_CREATE follows) and a new session (op 9, re-IDENTIFY);
* the timeout notice (``_timeout_text``'s ``from_panel``) for several players at once, with
  and without a move arranged in the panel, the real clock included;
* every 403 turned into ``ChannelMuted`` (``table_channel``), ``SafeNotifier._muted``: the
  table's first message at ``/ofc new`` without Attach Files, a locked thread where a
  fantasyland cannot be sent by DM, Send Messages or Attach Files taken away in a normal
  channel, and when the log says a channel "takes messages again";
* the new log lines: a hung AI call names its decision (``Thinker.run(what=...)``); no
  new line names a card (the timeout notice checked too).

Defects found, all fixed since (the tests whose docstrings start "Was a defect (fixed)" say
what happened, what should, and where): "Your turn is at #x" is missing where the player's hand there is finished or
they are not dealt in; a removed server's table is resumed (bots, settlement) before
``on_ready`` closes it; a late click on a panel whose arranged move the timeout played says
the AI played; Send Messages denied in a channel is told to no player; Attach Files denied
is logged as a silent channel, warned again every hand; the fantasyland fallback post in a
locked thread and the first table message at ``/ofc new`` are still ERRORs with a
traceback; a muted channel is said to take messages again when nothing reached it; a hung
review call names no table.  The plain tests pin what was checked and holds."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest

import bot.service
from bot.service import NOT_SEATED, SafeNotifier, SeatedElsewhere, ServiceError, TableService
from bot.store import Store
from bot.thinker import Thinker
from cogs.presenter import Presenter, panel_text
from engine.autoplay import choose_placement
from tests.e2e.conftest import World, make_world, table_of
from tests.e2e.fakediscord import FakeChannel, Perm

G, G2 = 10, 11
CH, CH2, CH3, CH4 = 20, 21, 22, 23
ALICE, BOB, CAROL, DAVE = 101, 102, 103, 104


# --------------------------------------------------------------------------- helpers
class Recorder:
    """A notifier that keeps what it was told (as in tests/bot/test_service.py)."""

    def __init__(self) -> None:
        self.notices: list[str] = []

    async def table_changed(self, t: Any) -> None:
        pass

    async def turn_started(self, t: Any, seats: list[int], requirement: Any) -> None:
        pass

    async def fantasyland_dealt(self, t: Any, seat_no: int) -> None:
        pass

    async def showdown(self, t: Any, result: Any) -> None:
        pass

    async def notice(self, t: Any, text: str, *, ping: bool = True) -> None:
        self.notices.append(text)


class Clock:
    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


async def service(**kw: Any) -> tuple[TableService, Recorder, Store]:
    store = await Store.open(":memory:")
    rec = Recorder()
    svc = TableService(store, rec, **{"next_hand_delay": 60.0,
                                      "seed_factory": lambda: "late-review", **kw})
    return svc, rec, store


async def table(svc: TableService, guild: int, channel: int, *users: int,
                variant: str = "ofc", start: bool = True) -> Any:
    """A table in ``channel`` opened by the first of ``users``, the others seated."""
    names = {ALICE: "alice", BOB: "bob", CAROL: "carol", DAVE: "dave"}
    await svc.new_table(guild, channel, users[0], names[users[0]], variant=variant)
    for u in users[1:]:
        await svc.join(guild, channel, u, names[u])
    if start:
        await svc.start(channel, users[0])
    return svc.table_in_channel(channel)


def hs_of(t: Any, user: int) -> int:
    hs = t.hand_seat_of(t.seat_of_user(user).seat_no)
    assert hs is not None
    return int(hs)


async def autoplay(svc: TableService, t: Any, hs: int) -> None:
    async with t.lock:
        t.hand.autoplay(hs)
        await svc._after_action(t)


async def until_turn_of(svc: TableService, t: Any, user: int) -> int:
    """The others play (autoplay) until it is ``user``'s turn at ``t``."""
    for _ in range(30):
        hs = hs_of(t, user)
        if t.hand.may_act(hs):
            return hs
        await autoplay(svc, t, t.hand.to_act()[0])
    raise AssertionError("never the player's turn")


async def until_not_turn_of(svc: TableService, t: Any, user: int) -> None:
    """``user`` plays (autoplay) until it is somebody else's turn at ``t``."""
    for _ in range(30):
        hs = hs_of(t, user)
        if not t.hand.may_act(hs):
            return
        await autoplay(svc, t, hs)
    raise AssertionError("always the player's turn")


async def refusal(coro: Any) -> str:
    with pytest.raises(ServiceError) as e:
        await coro
    return str(e.value)


async def closed(svc: TableService, store: Store) -> None:
    await svc.shutdown()
    await store.close()


def deny_bot(w: World, permission: int) -> None:
    """A moderator denies the bot ``permission`` (a channel overwrite, in effect: the stand-in
    models none, so its permission check is narrowed for the bot alone; players keep theirs,
    and an interaction's ``app_permissions`` shows it)."""
    real = w.fake.channel_permissions

    def narrowed(channel: Any, user: Any) -> int:
        perms = real(channel, user)
        return perms & ~permission if user is w.fake.bot else perms

    w.fake.channel_permissions = narrowed  # type: ignore[method-assign]


async def open_and_start(w: World, chan: FakeChannel, host: Any, *others: Any) -> Any:
    r = await w.fake.slash(host, chan, "ofc new", options={"variant": "ofc"})
    assert "opened" in (r.content or ""), r.content
    for u in others:
        r = await w.fake.slash(u, chan, "ofc join")
        assert "sat down" in (r.content or ""), r.content
    r = await w.fake.slash(host, chan, "ofc start")
    assert "dealt" in (r.content or ""), r.content
    return w.service.table_in_channel(chan.id)


def records(caplog: Any, text: str, level: int = logging.DEBUG) -> list[logging.LogRecord]:
    return [r for r in caplog.records if text in r.getMessage() and r.levelno >= level]


def _hang(*args: Any, **kwargs: Any) -> Any:
    """In the AI's worker: a decision that never comes (module level: picklable)."""
    time.sleep(60)


class _Response:
    """What discord.py's HTTPException reads of a response."""

    status = 503
    reason = "Service Unavailable"


# =========================================================================== defects
async def test_a_move_typed_where_the_players_hand_is_finished_does_not_point_to_the_turn(
) -> None:
    """Was a defect (fixed).

    alice plays chinese at #a (her set made, bob still setting) and ofc at #b, where it
    is her turn: she was pinged there and her clock runs.  She types her #b move with
    `/ofc place` in #a and reads "⚠️ You have finished this hand; wait for the others." —
    nothing about #b, whose clock runs out (a timeout plays for her and sits her out).
    README ("The private panel"): "a move typed at a table where it is not your turn says
    where your turn is"; it does so only when the engine's refusal is ``NotYourTurn``: a
    set made (chinese or fantasyland) or a surrendered hand is ``AlreadyDone``.  The answer
    should end "Your turn is at <#b>." as it does when another player is to act at #a.
    Responsible: bot/service.py:2313-2326 (``_requirement_or_error`` looks for the turn
    elsewhere only ``if isinstance(e, NotYourTurn)``)."""
    svc, _, store = await service()
    try:
        ta = await table(svc, G, CH, ALICE, BOB, variant="chinese")
        tb = await table(svc, G, CH2, ALICE, CAROL)
        await until_turn_of(svc, tb, ALICE)
        await autoplay(svc, ta, hs_of(ta, ALICE))  # her chinese set, made
        assert ta.hand.done[hs_of(ta, ALICE)] and not ta.hand.is_over
        text = await refusal(svc.place_text(CH, ALICE, "Ah top"))
        assert f"<#{CH2}>" in text, text
    finally:
        await closed(svc, store)


async def test_a_move_typed_where_the_player_sits_out_does_not_point_to_the_turn() -> None:
    """Was a defect (fixed).

    alice sat out at #a (`/ofc sitout`, to play at #b: bob and carol play #a's hand
    without her) and it is her turn at #b.  She types her #b move in #a and reads "⚠️ You
    are not in this hand: you sit out until `/ofc sitin`." — which sends her to sit in at #a,
    not to #b, whose clock runs out.  README: "a move typed at a table where it is not your
    turn says where your turn is".  The same between two hands at #a ("No hand is being
    played right now ...").  Responsible: bot/service.py:1183-1190 (``_my_hand_seat``
    raises ``_not_in_hand``/``_no_hand``, bot/service.py:1192 and :2467, without
    ``_turn_elsewhere``, bot/service.py:1171)."""
    svc, _, store = await service()
    try:
        await table(svc, G, CH, BOB, ALICE, CAROL, start=False)
        await svc.sit_out(CH, ALICE, True)
        await svc.start(CH, BOB)
        tb = await table(svc, G, CH2, ALICE, DAVE)
        await until_turn_of(svc, tb, ALICE)
        text = await refusal(svc.place_text(CH, ALICE, "Ah top"))
        assert f"<#{CH2}>" in text, text
    finally:
        await closed(svc, store)


async def test_a_fantasyland_in_a_locked_thread_logs_an_error_with_a_traceback(
    tmp_path: Path, caplog: Any,
) -> None:
    """Was a defect (fixed).

    alice's DMs are closed and her table's thread is locked by a moderator.  A hand deals
    her a fantasyland: the DM is refused (403 50007), so the presenter posts "your
    fantasyland hand is ready, but your DMs are closed" in the thread, which refuses it too
    (403 50083).  That send is not inside ``table_channel``, so ``discord.Forbidden`` reaches
    ``SafeNotifier`` as an unexpected error: ``ERROR ofc.service: notifier fantasyland_dealt
    failed at table 1`` with a whole traceback, at every fantasyland, however muted the
    table is already.  The change's promise (README, "Threads": "The log says so once a
    table (a warning) ... not at every message"; commit 1502321: a channel that refuses the
    bot is ChannelMuted, "not an ERROR with a traceback at every message") should hold for
    this message too.  Responsible: cogs/presenter.py:826 (``fantasyland_dealt``'s fallback
    ``self.channel(t).send`` outside ``with table_channel(t)``)."""
    from tests.e2e.test_threads import move_to_thread

    caplog.set_level(logging.INFO)
    async with make_world(tmp_path, seed_factory=lambda: "late-fl-locked") as w:
        w.alice.dms_open = False
        thread = move_to_thread(w)
        await w.start_bot()
        r = await w.slash(w.alice, "ofc new", variant="ofc")
        assert "opened" in r.content, r.content
        r = await w.slash(w.bob, "ofc join")
        assert "sat down" in r.content, r.content
        t = table_of(w)
        await w.store.update_table(t.id, extra={**t.row.extra, "fantasyland": {"0": 13}})
        await w.service._refresh(t)
        await w.fake.lock_thread(thread)
        n = len(caplog.records)
        await w.service.start(thread.id, w.alice.id)  # (no command box in a locked thread)

        def refused_posts_after_the_dm() -> int:
            codes = [e[3] for e in w.fake.api_errors if e[0] == "POST"]
            return codes[codes.index(50007):].count(50083) if 50007 in codes else 0

        # (the fallback post, then bob's turn ping, which is sent after it: both refused)
        await w.fake.wait_until(lambda: refused_posts_after_the_dm() >= 2, 15,
                                "the refused fallback post and turn ping")
        await asyncio.sleep(0.1)
        errors = [f"{r.name}: {r.getMessage()}" for r in caplog.records[n:]
                  if r.levelno >= logging.ERROR and r.name.startswith("ofc")]
        assert errors == [], errors


async def test_a_channel_that_took_send_messages_away_tells_no_player_why_it_is_silent(
    tmp_path: Path,
) -> None:
    """Was a defect (fixed).

    A moderator denies the bot Send Messages in the table's channel mid-hand.  Every
    turn ping, notice and showdown is refused (403 50013); since this session that is
    ``ChannelMuted``, "normal enough" (bot/service.py:299): one WARNING in the log, and that
    is all.  The players are never pinged, their clocks run out, the AI plays for them and
    sits them out, and the channel is not told.  The other player, wondering, opens the
    panel with `/ofc hand`: it says nothing about the table being unable to post (in a
    locked thread the same panel says "⚠️ This thread is locked, so the table cannot post
    here ... Your moves still count.", README "Threads").  The bot knows
    (``interaction.app_permissions`` lacks send_messages, and ``SafeNotifier._muted`` holds
    the table).  A panel or command answered at a table whose channel refuses the bot
    should say so and what to allow, as ``/ofc new`` does (cogs/ofc.py:137
    ``_what_to_allow``).  Responsible: cogs/views.py:112 (``_closed_thread_note`` looks at
    a locked thread only) with cogs/presenter.py:521-522 (every 403 made ``ChannelMuted``,
    logged once at WARNING)."""
    async with make_world(tmp_path, seed_factory=lambda: "late-no-send") as w:
        await w.start_bot()
        t = await open_and_start(w, w.chan, w.alice, w.bob)
        deny_bot(w, Perm.SEND_MESSAGES)
        mover = w.alice if t.hand.may_act(hs_of(t, w.alice.id)) else w.bob
        other = w.bob if mover is w.alice else w.alice
        hs = hs_of(t, mover.id)
        placed, discards = choose_placement(t.hand, hs, t.hand.requirement(hs), plain=True)
        move = " ".join([f"{c} {('top', 'middle', 'bottom')[r]}" for c, r in placed]
                        + [f"{c} discard" for c in discards])
        r = await w.slash(mover, "ofc place", move=move + " foul")
        assert r.content.startswith("✅"), r.content
        await w.fake.wait_until(lambda: any(e[3] == 50013 for e in w.fake.api_errors), 5,
                                "the refused turn ping")
        panel = await w.slash(other, "ofc hand")
        assert re.search(r"cannot post|can't post|may not post|Send Messages|permission",
                         panel.content), panel.content


async def test_a_channel_without_attach_files_is_warned_as_silent_at_every_hand(
    tmp_path: Path, caplog: Any,
) -> None:
    """Was a defect (fixed).

    A moderator denies the bot Attach Files in the table's channel.  Turn pings and
    notices (text) still reach the channel; every showdown (it carries its picture) is
    refused (403 50013) and is lost.  The log says, at each showdown, ``WARNING table 1:
    its channel ... takes no message from the bot now (403 50013: Missing Permissions); it
    plays on silently`` — not true, the pings arrive — then at the next turn ping ``INFO
    ... takes messages again``: a warning and its all-clear every hand, for as long as the
    permission is missing, while the players never see a result.  README ("Threads"): "The
    log says so once a table (a warning), and once when it takes messages again, not at
    every message".  A
    refusal of the picture alone is not a channel that takes no message: it should be said
    once, as what it is (a permission missing for files), not flap with every hand.
    Responsible: cogs/presenter.py:521-522 (every 403, whatever its code and whatever was
    sent, becomes ``ChannelMuted``) with bot/service.py:326-338 (``SafeNotifier._call``
    clears the mute at the next text that gets through)."""
    caplog.set_level(logging.INFO)
    async with make_world(tmp_path, seed_factory=lambda: "late-no-files",
                          next_hand_delay=0.2) as w:
        await w.start_bot()
        t = await open_and_start(w, w.chan, w.alice, w.bob)
        mark = 0
        deny_bot(w, Perm.ATTACH_FILES)
        for number in (1, 2):
            await w.fake.wait_until(lambda n=number: t.hand is not None
                                    and t.row.hand_no == n, 10, f"hand #{number}")
            await w.fake.wait_until(lambda after=mark: any(  # (its turn ping got there)
                "your turn" in (m.content or "") and m.id > after
                for m in w.fake.messages(w.chan, include_deleted=True)), 10, "the turn ping")
            mark = max(m.id for m in w.fake.messages(w.chan, include_deleted=True))
            for u in (w.alice, w.bob):
                with contextlib.suppress(ServiceError):  # (the hand may end at the first)
                    await w.service.surrender(w.chan.id, u.id)
            await w.fake.wait_until(lambda n=number: t.row.hand_no == n + 1, 10,
                                    f"hand #{number + 1}")
        await asyncio.sleep(1.0)  # (the second showdown's refusal, logged)
        warned = records(caplog, "takes no message", logging.WARNING)
        assert len(warned) <= 1, [r.getMessage() for r in warned]


async def test_a_muted_channel_is_said_to_take_messages_again_when_nothing_reached_it(
    caplog: Any,
) -> None:
    """Was a defect (fixed).

    Commit 9a79afe: "A muted channel is said to take messages again only when a message
    reached it".  ``SafeNotifier`` takes a ``turn_started``/``notice``/``showdown`` call that
    returns as a message that reached the channel, but two of the presenter's return
    without sending: ``turn_started`` whose hand ended before the ping went out (the ping is decided
    when the turn moves and sent later, bot/service.py:2133), and ``notice`` that swallows
    any other refusal (a 503 of an outage, cogs/presenter.py:872).  Either logs ``INFO table
    7: its channel 70 takes messages again`` for a thread still locked, and the next message
    warns again (the warning this commit stopped repeating).  The mute should be lifted
    only when a message was sent.  Responsible: bot/service.py:334-338 (the ``else:`` of
    ``SafeNotifier._call``) with cogs/presenter.py:774 and :864-873."""
    caplog.set_level(logging.INFO, logger="ofc")

    async def refused(*args: Any, **kwargs: Any) -> None:
        raise discord.DiscordServerError(_Response(), {"message": "upstream down", "code": 0})

    channel = SimpleNamespace(send=refused)
    bot_stub = SimpleNamespace(get_partial_messageable=lambda *a, **k: channel, service=None)
    presenter = Presenter(bot_stub, 0.0)  # type: ignore[arg-type]
    t = SimpleNamespace(id=7, row=SimpleNamespace(channel_id=70, guild_id=1, status="open"),
                        hand=None, seat_by_no=lambda n: SimpleNamespace(user_id=ALICE),
                        hand_seat_of=None)
    safe = SafeNotifier(presenter)
    safe._muted.add(t.id)
    await safe.turn_started(t, [0], None)  # type: ignore[arg-type]  # (its hand ended)
    await safe.notice(t, "⏰ Time ran out ...")  # type: ignore[arg-type]  # (a 503)
    again = records(caplog, "takes messages again")
    assert again == [], [r.getMessage() for r in again]


async def test_a_hung_review_call_does_not_name_its_table(
    caplog: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Was a defect (fixed).

    README (``OFC_LOG_LEVEL``): "... a hung AI call the table, hand and seat".  The
    session gave ``Thinker.run`` its ``what`` at the bots', timeouts' and suggestions' calls,
    not at the review's: a decision of *Review my play* / `/ofc review` that hangs in the AI's
    worker logs ``ERROR ofc.thinker: the AI did not answer _hang within 0.5 s: its worker
    was stopped (where it was stuck is above); given up`` — no table, hand or seat, so the
    position that hangs the AI cannot be found again (the player only reads "The AI did not
    answer in time").  It should name them, as the other calls do (``_decision``).  (The
    two calls that think again after a refused move, bot/service.py:2737 and :2900, have no
    ``what`` either.)  Responsible: bot/service.py:3386 (``thinker.run(judge, decision)``)."""
    caplog.set_level(logging.INFO, logger="ofc")
    svc, _, store = await service()
    thinker = Thinker(1, hang_limit=0.5)
    try:
        t = await table(svc, G, CH, ALICE, BOB)
        while t.hand is not None and not t.hand.is_over:
            await autoplay(svc, t, t.hand.to_act()[0])
        for _ in range(200):  # (settled in the background)
            if await store.history(t.id, 5):
                break
            await asyncio.sleep(0.02)
        assert await store.history(t.id, 5), "the hand was not settled"
        svc.thinker = thinker
        monkeypatch.setattr(bot.service, "judge", _hang)
        text = await refusal(svc.review_here(CH, ALICE, 1))
        assert "did not answer in time" in text, text
        hung = [r.getMessage() for r in records(caplog, "the AI did not answer")]
        assert hung, [r.getMessage() for r in caplog.records]
        assert all(re.search(rf"\btable #?{t.id}\b", m) and "hand" in m for m in hung), hung
    finally:
        thinker.close()
        await closed(svc, store)


async def test_a_removed_servers_hand_settles_at_resume_before_on_ready_closes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Was a defect (fixed).

    alice and bob play chinese with a bot in Other Server; both have set their hands, the
    bot is still thinking, when the bot is stopped (an upgrade).  Meanwhile Other Server
    removes it.  At the start ``on_connect`` (READY) resumes every loaded table at once: the
    bot's set is played (milliseconds), the hand ends and is settled, units move between
    alice and bob in a server the bot is no longer in.  ``on_ready``, which closes the
    tables of the servers Discord no longer lists, comes only after every GUILD_CREATE plus
    discord.py's ``guild_ready_timeout`` (2 s by default, the bot keeps it; with many
    servers, as long as they take to come in; here it is held back until the hand is
    settled, 10 s at most): too late, the hand is settled, not voided.  Its docstring
    (bot/app.py:175: "close as if it had been removed now (their hand voided, every stack
    back)") and README ("the bot removed from the server ... closes its table at once: the
    hand being played is voided (no units move) ...; the tables of a server that removed
    the bot while it was stopped close as soon as it connects again") say otherwise.  The tables of the servers
    READY does not list (its guild list is there at ``on_connect``) should not be resumed,
    or be closed before anything is played.  Responsible: bot/app.py:174-191 (``on_ready``)
    with bot/app.py:157-161 (``on_connect`` resumes first) and bot/service.py:954
    (``resume``: timers, bots, settlement)."""
    from bot.app import OFCBot

    async with make_world(tmp_path, seed_factory=lambda: "late-removed", bot_delay=60.0) as w:
        w.dev_guild = False
        g2 = w.fake.add_guild("Other Server")
        c2 = w.fake.add_text_channel(g2, "ofc")
        for u in (w.alice, w.bob):
            w.fake.add_member(g2, u)
        await w.start_bot()
        r = await w.fake.slash(w.alice, c2, "ofc new", options={"variant": "chinese"})
        assert "opened" in (r.content or ""), r.content
        r = await w.fake.slash(w.bob, c2, "ofc join")
        r = await w.fake.slash(w.alice, c2, "ofc addbot", options={"level": "easy"})
        assert "sat down" in (r.content or ""), r.content
        r = await w.fake.slash(w.alice, c2, "ofc start")
        t2 = w.service.table_in_channel(c2.id)
        for u in (w.alice, w.bob):
            hs = hs_of(t2, u.id)
            placed, _ = choose_placement(t2.hand, hs, t2.hand.requirement(hs), plain=True)
            move = " ".join(f"{c} {('top', 'middle', 'bottom')[row]}" for c, row in placed)
            await w.service.place_text(c2.id, u.id, move + " foul")
        assert not t2.hand.is_over  # (the bot has not set yet)
        hand = t2.hand_row.id
        await w.stop_bot()
        w.fake.guilds.pop(g2.id)  # removed meanwhile: READY lists only Poker Night
        w.service_options["bot_delay"] = 0.0
        first_ready = OFCBot.on_ready

        async def late_ready(self: Any) -> None:  # (READY's servers still coming in)
            for _ in range(100):
                row = await self.store.get_hand(hand)
                if row is not None and row.status == "done":
                    break
                await asyncio.sleep(0.1)
            await first_ready(self)

        monkeypatch.setattr(OFCBot, "on_ready", late_ready)
        await w.start_bot()  # (returns once on_ready was dispatched)
        await w.fake.wait_until(lambda: t2.id not in w.service.tables, 15, "closed")
        assert (await w.store.get_hand(hand)).status != "done"  # voided, not settled
        for u in (w.alice, w.bob):
            assert await w.store.wallet(g2.id, u.id) == (1000, 0)


async def test_a_late_confirm_after_the_arranged_move_was_played_blames_the_ai() -> None:
    """Was a defect (fixed).

    alice arranges her whole first street in the panel and does not press Confirm in
    time: the timeout plays her arrangement, and the channel is told so since this session
    ("Time ran out for @alice: the move left arranged in the panel was played for them.",
    ``_timeout_text``'s ``from_panel``; README "Timers": "the channel is told whose move it
    was, yours as arranged or the AI's").  She presses Confirm a moment later and her panel
    answers "Your time ran out, so the AI has been playing for you. Here is your current
    panel." — the AI played nothing; her board is the one she arranged.  The panel's answer
    should say what the notice says (her arranged move was played).  Responsible:
    bot/service.py:2526-2528 (``panel_action``'s stale answer after a timeout knows no
    arranged move)."""
    clock = Clock()
    svc, _, store = await service(clock=clock)
    try:
        t = await table(svc, G, CH, ALICE, BOB)
        hs = await until_turn_of(svc, t, ALICE)
        step, number = svc.step_of(t, hs), t.row.hand_no
        req = t.hand.requirement(hs)
        placed, _ = choose_placement(t.hand, hs, req, plain=True)
        async with t.lock:
            t.drafts[hs] = bot.service.Draft(assigned=list(placed))
        clock.offset += 200
        svc.rearm()
        for _ in range(200):
            if svc.step_of(t, hs) != step:
                break
            await asyncio.sleep(0.02)
        assert sorted(map(str, t.hand.boards[hs].cards)) == sorted(str(c) for c, _ in placed)
        seat_no = t.seat_of_user(ALICE).seat_no
        with pytest.raises(ServiceError) as e:
            await svc.panel_action(t.id, ALICE, seat_no, number, step, "confirm")
        assert "arranged" in str(e.value), str(e.value)
    finally:
        await closed(svc, store)


async def test_a_refused_first_table_message_is_an_error_with_a_traceback(
    tmp_path: Path, caplog: Any,
) -> None:
    """Was a defect (fixed).

    ``/ofc new`` in a channel where the bot may not attach files (or send): the host is
    told what to allow, as before; the log gets ``ERROR ofc.cog: could not post the
    table message of table 1`` with a whole traceback through discord.py to ``ChannelMuted:
    403 50013: Missing Permissions`` — each time a member tries again.  This session made
    such a 403 "normal enough" (``ChannelMuted``, bot/service.py:299: logged once, at
    WARNING, never "an ERROR with a traceback", commit 1502321), and the same refusal a
    moment later, at the first turn ping, is a WARNING; the first message's should be said
    the same way (it is the host's to fix, and they are told).  Responsible:
    cogs/ofc.py:281-282 (``except (discord.HTTPException, ChannelMuted):
    log.exception(...)``)."""
    caplog.set_level(logging.INFO)
    async with make_world(tmp_path, seed_factory=lambda: "late-new-error") as w:
        await w.start_bot()
        deny_bot(w, Perm.ATTACH_FILES)
        n = len(caplog.records)
        r = await w.slash(w.alice, "ofc new", variant="ofc")
        assert "opened" in r.content, r.content
        await w.fake.wait_followups(r, 1, timeout=10)
        bad = [f"{x.levelname} {x.name}: {x.getMessage()}" for x in caplog.records[n:]
               if x.name.startswith("ofc") and (x.levelno >= logging.ERROR or x.exc_info)]
        assert bad == [], bad


# =========================================================================== what holds
async def test_the_seated_elsewhere_answer_names_only_this_servers_tables() -> None:
    """alice plays at a table of another server (and at #b of this one); at #a of this
    server, where she does not sit, `/ofc leave`, `/ofc hand` and `/ofc sitin` name #b only
    (``SeatedElsewhere(here=True)``), never the other server's channel; a player seated
    only in another server reads the plain "not seated" answer; the answer's ``for_guild``
    (what report_error shows) is the same text.  As a server manager she adds a bot to #a,
    changes an option and closes it without being sent to #b."""
    svc, _, store = await service()
    try:
        await table(svc, G, CH, BOB, CAROL, start=False)
        await table(svc, G2, CH3, ALICE, DAVE, start=False)
        for call in (svc.leave(CH, ALICE), svc.sit_out(CH, ALICE, False)):
            with pytest.raises(SeatedElsewhere) as e:
                await call
            assert str(e.value) == NOT_SEATED and e.value.for_guild(G) == NOT_SEATED
        with pytest.raises(SeatedElsewhere):
            svc.panel_in_channel(CH, ALICE)
        await table(svc, G, CH2, ALICE, DAVE, start=False)
        for call in (svc.leave(CH, ALICE), svc.sit_out(CH, ALICE, False)):
            with pytest.raises(SeatedElsewhere) as e:
                await call
            text = e.value.for_guild(G)
            assert f"<#{CH2}>" in text and f"<#{CH3}>" not in text, text
            assert str(e.value) == text
        t = svc.table_in_channel(CH)
        assert t.seat_of_user(ALICE) is None  # (nothing done at #a)
        # a manager seated at #b runs #a's table (a bot, an option, the close) unhindered
        await svc.add_bot(CH, ALICE, "easy", True)
        await svc.set_options(CH, ALICE, True, timer=30)
        assert "close" in (await svc.close(CH, ALICE, True)).lower()
    finally:
        await closed(svc, store)


async def test_your_turn_is_at_names_only_a_real_turn_of_this_server() -> None:
    """At #a it is bob's turn; alice's chinese set at #b is made (not her turn), at a table of
    another server it is her turn: a move she types at #a says whose turn it is and names no
    table (neither the finished set nor the other server's).  When it is her turn at #c of
    this server, #c alone is named."""
    svc, _, store = await service()
    try:
        ta = await table(svc, G, CH, ALICE, BOB)
        await until_not_turn_of(svc, ta, ALICE)
        tb = await table(svc, G, CH2, ALICE, CAROL, variant="chinese")
        await autoplay(svc, tb, hs_of(tb, ALICE))
        assert tb.hand.done[hs_of(tb, ALICE)] and not tb.hand.is_over
        tother = await table(svc, G2, CH3, ALICE, DAVE)
        await until_turn_of(svc, tother, ALICE)
        text = await refusal(svc.place_text(CH, ALICE, "Ah top"))
        assert text.startswith("It is bob's turn") and "Your turn is at" not in text, text
        tc = await table(svc, G, CH4, ALICE, DAVE)
        await until_turn_of(svc, tc, ALICE)
        text = await refusal(svc.place_text(CH, ALICE, "Ah top"))
        assert text.endswith(f"Your turn is at <#{CH4}>."), text
    finally:
        await closed(svc, store)


async def test_a_dm_panels_server_name_is_escaped_and_the_panel_fits_a_message() -> None:
    """The DM panel's place, "at <#channel> in **server**": a server name of markdown and
    mentions shows as typed (no bold, spoiler, link, ping or channel of its own), the
    typed-set hint names the channel alone, and the longest panel (a 17-card pineapple
    fantasyland, a server name of 100 markdown characters) fits in Discord's 2,000
    characters with the DM's first line (nothing is cut by the ``[:1990]``)."""
    svc, _, store = await service()
    try:
        t = await table(svc, G, CH, ALICE, BOB, variant="pineapple", start=False)
        await store.update_table(t.id, extra={**t.row.extra, "fantasyland": {"0": 17}})
        await svc._refresh(t)
        await svc.start(CH, ALICE)
        p = svc.panel(t.id, ALICE)
        assert p.requirement is not None and len(p.requirement.cards) == 17
        evil = "**Poker** ||x|| [a](https://e.x) @everyone <@1> <#2> <t:0:R> `c` ~~s~~ _i_"
        text = panel_text(p, "pineapple", time.time() + 120, t.rules, CH, evil)
        first = text.splitlines()[0]
        assert first.startswith(f"**Your panel** — hand #1 at <#{CH}> in **"), first
        for live in ("**Poker**", "||x||", "[a](", "@everyone", "<@1>", "<#2>", "<t:0:R>",
                     "`c`", "~~s~~", "_i_"):
            assert not re.search(r"(?<!\\)" + re.escape(live), first), (live, first)
        assert f"`/ofc place` in <#{CH}>:" in text, text
        longest = panel_text(p, "pineapple", time.time() + 120, t.rules, CH, "*" * 100)
        dm = "🌴 **Fantasyland!** Your private hand (only you see it).\n" + longest
        assert len(dm) <= 1990, len(dm)
    finally:
        await closed(svc, store)


async def test_timeouts_of_several_players_say_whose_move_was_arranged() -> None:
    """Four play chinese; the clocks of alice, bob and carol run out at once (dave's later):
    alice had arranged her whole set in the panel, the others nothing.  The notice (one,
    pinging the three) says that alice's arranged move was played and the AI's for bob and
    carol; ``_timeout_text`` says "for them" when all or none had arranged theirs; no card
    is named."""
    clock = Clock()
    svc, rec, store = await service(clock=clock)
    try:
        t = await table(svc, G, CH, ALICE, BOB, CAROL, DAVE, variant="chinese")
        seats = [t.seat_of_user(u) for u in (ALICE, BOB, CAROL)]
        assert TableService._timeout_text(t, seats, ()).startswith(
            f"⏰ Time ran out for <@{ALICE}>, <@{BOB}>, <@{CAROL}>: the AI played that move "
            "for them.")
        assert TableService._timeout_text(t, seats, {ALICE, BOB, CAROL}).startswith(
            f"⏰ Time ran out for <@{ALICE}>, <@{BOB}>, <@{CAROL}>: the move left arranged in "
            "the panel was played for them.")
        hs = hs_of(t, ALICE)
        req = t.hand.requirement(hs)
        placed, _ = choose_placement(t.hand, hs, req, plain=True)
        async with t.lock:
            t.drafts[hs] = bot.service.Draft(assigned=list(placed))
            t.deadlines[hs_of(t, DAVE)] = clock() + 10_000
        clock.offset += 200
        svc.rearm()
        for _ in range(200):
            if rec.notices:
                break
            await asyncio.sleep(0.02)
        (notice,) = [n for n in rec.notices if "Time ran out" in n]
        assert notice.startswith(
            f"⏰ Time ran out for <@{ALICE}>, <@{BOB}>, <@{CAROL}>: the move left arranged in "
            f"the panel was played for <@{ALICE}>, the AI's for <@{BOB}>, <@{CAROL}>."), notice
        assert sorted(map(str, t.hand.boards[hs].cards)) == sorted(str(c) for c, _ in placed)
        assert not re.search(r"\b[2-9TJQKA][cdhs]\b", notice), notice
    finally:
        await closed(svc, store)


async def test_on_ready_keeps_the_tables_of_an_unavailable_server_and_after_a_new_session(
    tmp_path: Path,
) -> None:
    """Other Server is down in a Discord outage when the bot starts (READY lists it as
    unavailable, no GUILD_CREATE follows): discord.py keeps it in ``bot.guilds``, so
    ``on_ready`` leaves its table open, units in its stacks.  A session invalidated later
    (op 9: a new READY, a second ``on_ready``) closes nothing either."""
    async with make_world(tmp_path, seed_factory=lambda: "late-outage") as w:
        w.dev_guild = False
        g2 = w.fake.add_guild("Other Server")
        c2 = w.fake.add_text_channel(g2, "ofc")
        for u in (w.alice, w.bob):
            w.fake.add_member(g2, u)
        await w.start_bot()
        r = await w.fake.slash(w.alice, c2, "ofc new", options={"variant": "ofc"})
        assert "opened" in (r.content or ""), r.content
        r = await w.fake.slash(w.bob, c2, "ofc join")
        t2 = w.service.table_in_channel(c2.id)
        await w.stop_bot()
        real = w.fake._emit

        async def outage(event: str, data: dict[str, Any]) -> None:
            if event == "GUILD_CREATE" and data.get("id") == str(g2.id):
                return  # (unavailable: Discord sends it when the server is back)
            await real(event, data)

        w.fake._emit = outage  # type: ignore[method-assign]
        bot = await w.start_bot()
        guild = bot.get_guild(g2.id)
        assert guild is not None and guild.unavailable
        await asyncio.sleep(0.3)
        assert t2.id in w.service.tables
        assert await w.store.wallet(g2.id, w.alice.id) == (800, 200)
        w.fake._emit = real  # type: ignore[method-assign]

        async def no_wait(*args: Any, **kwargs: Any) -> None:
            return None

        readies: list[int] = []
        first_ready = bot.on_ready

        async def on_ready() -> None:
            readies.append(1)
            await first_ready()

        bot.before_identify_hook = no_wait  # type: ignore[method-assign]
        bot.on_ready = on_ready  # type: ignore[method-assign]
        await w.fake.invalidate_session()
        await w.fake.wait_until(lambda: bool(readies), 10, "on_ready again")
        await asyncio.sleep(0.3)
        assert t2.id in w.service.tables
        assert await w.store.wallet(g2.id, w.alice.id) == (800, 200)


async def test_a_new_table_without_attach_files_tells_its_host_what_to_allow(
    tmp_path: Path,
) -> None:
    """``/ofc new`` in a channel where the bot may not attach files: the table message is
    refused (403, now ``ChannelMuted``), caught as before (cogs/ofc.py:281): the table is
    open and its host is told, privately, what to allow."""
    async with make_world(tmp_path, seed_factory=lambda: "late-new-no-files") as w:
        await w.start_bot()
        deny_bot(w, Perm.ATTACH_FILES)
        r = await w.slash(w.alice, "ofc new", variant="ofc")
        assert "opened" in r.content, r.content
        (told,) = await w.fake.wait_followups(r, 1, timeout=10)
        assert told.ephemeral and "attach files" in (told.content or ""), told.content
        assert table_of(w).row.status == "open"
