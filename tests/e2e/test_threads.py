"""Tables in Discord threads: a public thread under a text channel and a forum post, through
the loopback Discord's threads (tests/e2e/fakediscord.py says what of them is modelled).

A thread is a channel of its own (its id is the channel id of its messages and of the
interactions from it), so a table there is a table like any other; these tests check that
nothing leaks to the parent channel, that a table in a channel and one in its thread do not
mix, and what happens when a thread is archived or locked while a hand is played."""

from __future__ import annotations

import asyncio
import functools
import re
from typing import Any

import pytest

from .conftest import World, make_world, panel_cards, table_of
from .fakediscord import (
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_EVERYONE_PERMISSIONS,
    ComponentUnavailable,
    FakeChannel,
    FakeMessage,
    Perm,
)
from .test_bot import play_regular_hand, to_act, wait_showdown

pytestmark = pytest.mark.e2e


def move_to_thread(w: World, *, forum: bool = False) -> FakeChannel:
    """A thread under the world's channel (or a post of a new forum) becomes ``w.chan``, where
    the helpers act; the channel is kept as ``w.parent``."""
    parent = w.chan
    if forum:
        board = w.fake.add_forum_channel(w.guild, "tables")
        thread = w.fake.add_forum_post(board, "Friday OFC", owner=w.alice)
    else:
        thread = w.fake.add_thread(parent, "Friday OFC", owner=w.alice)
    w.__dict__["parent"] = parent
    w.chan = thread
    return thread


def posts(w: World, chan: FakeChannel, text: str) -> list[FakeMessage]:
    """The bot's public messages in ``chan`` (deleted ones too) containing ``text``."""
    return [m for m in w.fake.messages(chan, include_ephemeral=False, include_deleted=True)
            if m.author is w.fake.bot and text in (m.content or "")]


async def table_in_thread(w: World, **options: Any) -> FakeChannel:
    """The bot up, a thread, alice's ofc table there with bob seated, its first hand dealt."""
    thread = move_to_thread(w)
    await w.start_bot()
    await w.slash(w.alice, "ofc new", **{"variant": "ofc", **options})
    await w.slash(w.bob, "ofc join")
    await w.slash(w.alice, "ofc start")
    return thread


async def act(w: World, who: Any) -> None:
    """``who`` plays their street by text (bottom first, then middle, then top)."""
    cards = panel_cards((await w.slash(who, "ofc hand")).content)
    t = table_of(w)
    board = t.hand.boards[t.hand_seat_of(t.seat_of_user(who.id).seat_no)]
    free = {"bottom": 5 - len(board.bottom), "middle": 5 - len(board.middle),
            "top": 3 - len(board.top)}
    parts = []
    for c in cards:
        row = next(r for r in ("bottom", "middle", "top") if free[r])
        free[row] -= 1
        parts.append(f"{c} {row}")
    r = await w.slash(who, "ofc place", move=" ".join(parts))
    assert r.content.startswith("✅"), r.content


async def play_on(w: World) -> None:
    """Everyone plays by text (``act``) until the hand being played ends."""
    number = table_of(w).row.hand_no
    while table_of(w).hand is not None and table_of(w).row.hand_no == number:
        acting = to_act(w)
        if not acting:
            await asyncio.sleep(0.02)
            continue
        await act(w, acting[0])


# --------------------------------------------------------------------------- scenarios
@pytest.mark.parametrize("forum", [False, True], ids=["thread", "forum-post"])
async def test_a_hand_played_in_a_thread(tmp_path: Any, forum: bool) -> None:
    """Opened, joined and played to the showdown inside a thread (or forum post): the table
    message, the turn pings, the panels and the showdown image are all in the thread, none in
    the channel; ``/ofc table`` and the leaderboard answer there."""
    async with make_world(tmp_path, seed_factory=lambda: "thread-1") as w:
        thread = move_to_thread(w, forum=forum)
        await w.start_bot()
        r = await w.slash(w.alice, "ofc new", variant="ofc", stake=2, buyin=300)
        assert "opened an **Open Face** table" in r.content and not r.followups
        table_msg = await w.fake.wait_for_message(
            thread, lambda m: bool(m.files) and "Open my panel" in str(m.components),
            include_existing=True)
        assert table_msg.channel is thread
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        turn = await w.fake.wait_for_message(
            thread, lambda m: "your turn" in (m.content or ""), include_existing=True)
        assert f"<@{w.bob.id}>" in turn.content
        panel = await w.click(w.bob, turn, label="Open my panel")  # the panel from the thread
        assert panel.ephemeral and panel.files and panel.message.channel is thread
        await play_regular_hand(w, [w.alice, w.bob])
        showdown = await wait_showdown(w)
        assert showdown.channel is thread and showdown.files[0][1][:4] == b"\x89PNG"
        assert all(m.deleted for m in posts(w, thread, "your turn"))
        result = table_of(w).last_result
        assert sum(result.units) == 0 and await w.store.verify_ledger() == []

        snap = await w.slash(w.bob, "ofc table")
        assert snap.files and not snap.ephemeral and snap.message.channel is thread
        lb = await w.slash(w.alice, "ofc leaderboard", by="points")
        assert lb.files and "alice" in lb.content and "bob" in lb.content
        hist = await w.slash(w.bob, "ofc history")
        assert "#1" in hist.content

        parent = w.__dict__["parent"]
        assert w.fake.messages(parent, include_deleted=True) == []  # nothing leaked
        if forum:  # the post's starter message is the player's, untouched
            assert w.fake.message(thread.id).author is w.alice
        w.fake.assert_clean()


async def test_a_restart_resumes_the_table_of_a_thread(tmp_path: Any) -> None:
    """After a restart the thread's table says so in the thread, pings there again (the ping
    from before the restart is found in the thread's history and deleted) and plays on."""
    async with make_world(tmp_path, seed_factory=lambda: "thread-2") as w:
        thread = await table_in_thread(w)
        await w.fake.wait_for_message(thread, lambda m: "your turn" in (m.content or ""),
                                      include_existing=True)
        await act(w, to_act(w)[0])
        await w.fake.wait_until(lambda: len(posts(w, thread, "your turn")) == 2, 5, "2nd ping")
        await w.stop_bot()
        await w.start_bot()
        await w.fake.wait_for_message(thread, lambda m: "play resumes" in (m.content or ""),
                                      include_existing=True)
        await w.fake.wait_until(lambda: len(posts(w, thread, "your turn")) == 3, 5, "new ping")
        pings = posts(w, thread, "your turn")
        await w.fake.wait_until(lambda: all(m.deleted for m in pings[:-1]), 5, "old pings gone")
        await play_on(w)
        assert (await wait_showdown(w)).channel is thread
        assert w.fake.messages(w.__dict__["parent"], include_deleted=True) == []
        w.fake.assert_clean()


async def test_a_table_in_a_channel_and_one_in_its_thread_are_apart(tmp_path: Any) -> None:
    """Two tables, one in the channel and one in a thread of it: seats, hands, pings, leaving
    and closing of one do not touch the other."""
    async with make_world(tmp_path, seed_factory=lambda: "thread-3") as w:
        parent = w.chan
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        thread = move_to_thread(w)  # (created while the bot runs: THREAD_CREATE)
        r = await w.slash(w.carol, "ofc new", variant="pineapple")
        assert "opened" in r.content  # one table per channel: the thread is another channel
        await w.slash(w.dave, "ofc join")
        svc = w.service
        outer, inner = svc.table_in_channel(parent.id), svc.table_in_channel(thread.id)
        assert outer.id != inner.id and inner.row.channel_id == thread.id
        assert {s.user_id for s in outer.seats} == {w.alice.id, w.bob.id}
        assert {s.user_id for s in inner.seats} == {w.carol.id, w.dave.id}
        r = await w.slash(w.alice, "ofc hand")  # alice sits at the channel's table only
        assert r.ephemeral and "You are not seated at this table" in r.content
        await w.slash(w.carol, "ofc start")
        await w.fake.wait_for_message(thread, lambda m: "your turn" in (m.content or ""),
                                      include_existing=True)
        assert outer.hand is None and posts(w, parent, "your turn") == []
        await w.fake.slash(w.alice, parent, "ofc start")
        await w.fake.wait_for_message(parent, lambda m: "your turn" in (m.content or ""),
                                      include_existing=True)
        await act(w, to_act(w)[0])  # a move in the thread ...
        assert outer.hand is not None and outer.hand.street == 1  # ... is not one outside
        r = await w.fake.slash(w.bob, parent, "ofc leave")
        assert inner.seat_of_user(w.dave.id) is not None and inner.row.status == "open"
        r = await w.slash(w.carol, "ofc close")
        assert svc.table_in_channel(parent.id) is outer and outer.row.status == "open"
        w.fake.assert_clean()


async def edits_done(w: World) -> None:
    """Wait until the table-message edits under way have come back (refused ones too)."""
    presenter = w.bot.get_cog("OFC").presenter
    await w.fake.wait_until(lambda: all(task.done() for task in presenter._pending_edits.values()),
                            5, "edits done")


def table_message(w: World) -> FakeMessage:
    t = table_of(w)
    msg = w.fake.message(t.row.message_id)
    assert msg is not None
    return msg


async def test_a_thread_archived_between_moves(tmp_path: Any) -> None:
    """A moderator closes (archives) the thread mid-hand: nobody can act there, so the clock
    runs out; the bot's notice reopens the thread (a message unarchives a thread that is not
    locked), the table message catches up and the hand is played to its end."""
    async with make_world(tmp_path, seed_factory=lambda: "thread-4") as w:
        thread = await table_in_thread(w, timer=60)
        ping = await w.fake.wait_for_message(thread, lambda m: "your turn" in (m.content or ""),
                                             include_existing=True)
        await w.fake.archive_thread(thread)
        late = to_act(w)[0]
        with pytest.raises(ComponentUnavailable):
            await w.slash(late, "ofc hand")
        with pytest.raises(ComponentUnavailable):
            await w.click(late, ping, label="Open my panel")
        w.clock.offset += 61
        w.service.rearm()
        await w.fake.wait_for_message(thread, lambda m: "Time ran out" in (m.content or ""),
                                      include_existing=True, timeout=10)
        assert not thread.archived
        t = table_of(w)
        await w.fake.wait_until(lambda: late not in to_act(w), 5, "the AI's move")
        mover = to_act(w)[0]
        await w.fake.wait_until(lambda: f"**{mover.name}**" in table_message(w).content, 5,
                                "the table message shows whose turn it is")
        await play_on(w)
        assert (await wait_showdown(w)).channel is thread
        assert t.row.status == "open" and await w.store.verify_ledger() == []
        w.fake.assert_clean(allow_api_errors={50083})


async def test_a_change_made_while_the_thread_is_archived_shows_when_it_reopens(
    tmp_path: Any,
) -> None:
    """A change that only edits the table message (a fantasyland set from the DM panel, say)
    while the thread is archived cannot be shown (50083); when the thread is reopened the
    table message catches up at once, not at the next move."""
    async with make_world(tmp_path, seed_factory=lambda: "thread-6") as w:
        thread = await table_in_thread(w)
        await w.fake.wait_until(lambda: "**bob**" in table_message(w).content, 5, "table")
        await w.fake.archive_thread(thread)
        before = len(w.fake.api_errors)
        await w.service.sit_out(thread.id, w.bob.id, True)  # (no message of its own)
        await w.fake.wait_until(lambda: len(w.fake.api_errors) > before, 5, "a refused edit")
        assert "sitting out" not in table_message(w).content
        await w.fake.unarchive_thread(thread)
        await w.fake.wait_until(lambda: "sitting out" in table_message(w).content, 5,
                                "the table message caught up")
        w.fake.assert_clean(allow_api_errors={50083})


async def test_a_thread_locked_between_moves(tmp_path: Any) -> None:
    """A moderator closes and locks the thread mid-hand: the bot cannot post there (50083)
    and nobody can act, so the clocks play the hand out; nothing crashes and the hand is
    settled and kept.  Reopened, the table message shows where the table is, and the table
    goes on."""
    async with make_world(tmp_path, seed_factory=lambda: "thread-5",
                          next_hand_delay=0.2) as w:
        thread = await table_in_thread(w, timer=60)
        await w.fake.wait_for_message(thread, lambda m: "your turn" in (m.content or ""),
                                      include_existing=True)
        await w.fake.archive_thread(thread, locked=True)
        seen = len(w.fake.messages(thread, include_deleted=True))
        svc = w.service
        t = table_of(w)

        def played_since(moves: int) -> bool:
            """A timeout played after ``moves`` moves, and its turn done: saved, its player
            sat out (the table free again, so the next clock jump finds it done)."""
            hand = t.hand
            return not t.lock.locked() and (hand is None or hand.is_over
                                             or len(hand.log) > moves)

        # every clock runs out, one after the other
        while t.hand is not None and not t.hand.is_over and t.row.hand_no == 1:
            w.clock.offset += 61
            moves = len(t.hand.log)
            svc.rearm()
            await w.fake.wait_until(functools.partial(played_since, moves), 10,
                                    "the timeout played")
        await w.fake.wait_until(lambda: t.last_result is not None and t.waiting, 10, "settled")
        assert thread.archived and thread.locked
        assert len(w.fake.messages(thread, include_deleted=True)) == seen  # none got through
        assert await w.store.verify_ledger() == []
        balance = await w.fake.slash(w.alice, w.__dict__["parent"], "ofc balance")
        assert "at tables" in balance.content  # the bot answers elsewhere all the while

        # the "Waiting for at least 2 players" notice was refused, then the table's last edit
        # (in the order the stand-in got them: under load that edit may come back before this
        # test looks for it, so it is found after the notice, not counted from a later look)
        def refused_edit_after_the_notice() -> bool:
            reqs = w.fake.requests
            notice = next((k for k, r in enumerate(reqs) if r.method == "POST"
                           and re.search(rf"/channels/{thread.id}/messages$", r.path)
                           and "Waiting for at least 2" in (r.payload or {}).get("content", "")),
                          None)
            return notice is not None and any(
                r.method == "PATCH" and f"/channels/{thread.id}/messages/" in r.path
                and r.status == 403 for r in reqs[notice + 1:])

        await w.fake.wait_until(refused_edit_after_the_notice, 5,
                                "the waiting notice, then the table's last edit")
        await edits_done(w)
        assert "Waiting for players" not in table_message(w).content
        await w.fake.unarchive_thread(thread)
        await w.fake.wait_until(lambda: "Waiting for players" in table_message(w).content, 5,
                                "the table message caught up")  # (both timed out: sitting out)
        hist = await w.slash(w.bob, "ofc history")
        assert "#1" in hist.content  # the hand nobody saw settle
        for who in (w.alice, w.bob):
            r = await w.slash(who, "ofc sitin")
            assert "Welcome back" in r.content
        await w.fake.wait_until(lambda: t.row.hand_no == 2, 5, "hand #2 dealt")
        await w.fake.wait_for_message(
            thread, lambda m: "your turn" in (m.content or "") and not m.deleted,
            include_existing=True)
        await w.fake.wait_until(lambda: "Hand #2" in table_message(w).content, 5, "hand #2")
        w.fake.assert_clean(allow_api_errors={50083})


async def test_a_locked_thread_still_open_says_why_the_table_is_silent(tmp_path: Any) -> None:
    """Locked but not closed: nobody may post there, but the buttons on its messages still
    work.  The player who opens a panel there is told that the table cannot post in the
    thread until it is unlocked; the moves count, and the table message catches up on
    unlock."""
    async with make_world(tmp_path, seed_factory=lambda: "thread-7") as w:
        thread = await table_in_thread(w)
        ping = await w.fake.wait_for_message(thread, lambda m: "your turn" in (m.content or ""),
                                             include_existing=True)
        await w.fake.lock_thread(thread)
        await w.fake.wait_until(
            lambda: w.bot.get_guild(w.guild.id).get_thread(thread.id).locked, 5, "seen locked")
        mover = to_act(w)[0]
        with pytest.raises(ComponentUnavailable):
            await w.slash(mover, "ofc hand")  # no message box in a locked thread
        panel = await w.click(mover, ping, label="Open my panel")
        assert panel.ephemeral and "locked" in panel.content and "moderator" in panel.content
        cards = panel_cards(panel.content)
        sel = panel.message.selects()[0]["custom_id"]
        rec = await w.select(mover, panel, sel, cards)
        rec = await w.click(mover, rec, label="Bottom")
        rec = await w.click(mover, rec, label="Confirm")
        assert "✅ Placed" in rec.content
        nxt = to_act(w)[0]
        assert nxt is not mover
        # the move's table edit was refused while locked (so only the unlock can show it)
        await edits_done(w)
        assert any(e[3] == 50083 and e[0] == "PATCH" for e in w.fake.api_errors)
        assert f"**{nxt.name}**" not in table_message(w).content
        await w.fake.lock_thread(thread, False)
        await w.fake.wait_until(lambda: f"**{nxt.name}**" in table_message(w).content, 5,
                                "the table message caught up")
        w.fake.assert_clean(allow_api_errors={50083})


@pytest.mark.parametrize("private", [False, True], ids=["public", "private"])
async def test_a_table_where_the_bot_may_not_post_names_what_to_fix(
    tmp_path: Any, private: bool,
) -> None:
    """Posting in a thread takes Send Messages in Threads (Send Messages does nothing there),
    and a private thread takes the bot as a member: when its first picture is refused, the
    creator is told that, not to check Send Messages."""
    async with make_world(tmp_path) as w:
        if private:
            thread = w.fake.add_thread(w.chan, "Private OFC", owner=w.alice, private=True,
                                       members=[w.bob])
            w.__dict__["parent"], w.chan = w.chan, thread
        else:
            thread = move_to_thread(w)
            w.guild.everyone.permissions = (DEFAULT_EVERYONE_PERMISSIONS
                                            & ~Perm.SEND_MESSAGES_IN_THREADS)
            bot_role = w.guild.role(w.fake.bot.name)
            bot_role.permissions = DEFAULT_BOT_PERMISSIONS & ~Perm.SEND_MESSAGES_IN_THREADS
        await w.start_bot()
        r = await w.slash(w.alice, "ofc new", variant="ofc")
        assert "opened an **Open Face** table" in r.content
        (note,) = await w.fake.wait_followups(r)
        assert note.ephemeral and "could not post its picture" in note.content
        if private:
            assert "add me to this private thread" in note.content, note.content
        else:
            assert "Send Messages in Threads" in note.content, note.content
        assert "unchanged" not in note.content
        r = await w.slash(w.bob, "ofc join")
        assert "sat down" in r.content  # the table is there all the same
        w.fake.assert_clean(allow_api_errors={50013, 50001})
