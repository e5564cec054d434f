"""A table whose channel (or thread) is deleted, or whose server removed the bot, closes: the
hand being played is voided, every stack goes back to its owner's balance."""

from __future__ import annotations

import asyncio
from typing import Any

from .conftest import World, make_world, table_of

UNKNOWN_CHANNEL = 10003


async def _two_at_a_hand(w: World, start: bool = True) -> Any:
    await w.slash(w.alice, "ofc new", variant="ofc", buyin=250)
    await w.slash(w.bob, "ofc join", buyin=100)
    if start:
        await w.slash(w.alice, "ofc start")
        await w.fake.wait_for_message(w.chan, lambda m: (m.content or "").startswith("🎯"),
                                      include_existing=True)  # the turn ping
    t = table_of(w)
    await asyncio.sleep(0.3)  # the table message's edits done: nothing more is posted
    assert (t.hand is not None) == start
    assert await w.store.balance(w.guild.id, w.bob.id) == 900
    return t


async def _closed_and_paid_back(w: World, t: Any, hand_id: int) -> None:
    await w.fake.wait_until(lambda: t.id not in w.service.tables, 5, "the table closed")
    row = await w.store.get_table(t.id)
    assert row.status == "closed"
    if hand_id:
        hand = await w.store.get_hand(hand_id)
        assert hand is not None and hand.status == "aborted"  # voided: no units moved
    for user in (w.alice, w.bob):
        assert await w.store.balance(w.guild.id, user.id) == 1000
    assert await w.store.verify_ledger() == []


async def test_a_deleted_channel_closes_its_table(tmp_path: Any) -> None:
    async with make_world(tmp_path) as w:
        await w.start_bot()
        t = await _two_at_a_hand(w)
        hand_id = t.hand_row.id
        other = w.fake.add_text_channel(w.guild, "elsewhere")
        await w.fake.delete_channel(w.chan)
        await _closed_and_paid_back(w, t, hand_id)
        # the balance, asked anywhere in the server, has the stacks back
        r = await w.fake.slash(w.bob, other, "ofc balance")
        assert "1000 units" in r.content and "at tables" not in r.content
        w.fake.assert_clean(allow_api_errors=[UNKNOWN_CHANNEL])


async def test_a_deleted_thread_closes_its_table(tmp_path: Any) -> None:
    async with make_world(tmp_path) as w:
        await w.start_bot()
        thread = w.fake.add_thread(w.chan, "poker night")
        w.chan = thread
        t = await _two_at_a_hand(w)
        hand_id = t.hand_row.id
        await w.fake.delete_channel(thread)
        await _closed_and_paid_back(w, t, hand_id)
        w.fake.assert_clean(allow_api_errors=[UNKNOWN_CHANNEL])


async def test_a_table_in_an_archived_thread_closes_with_its_parent(tmp_path: Any) -> None:
    """Discord sends no event for the threads of a deleted channel, and discord.py reports only
    those in its cache, which has no archived thread: a table waiting there for players (an
    idle thread archives itself) closed only at its next message, the next restart's."""
    async with make_world(tmp_path) as w:
        await w.start_bot()
        parent = w.chan
        other = w.fake.add_text_channel(w.guild, "elsewhere")
        live = w.fake.add_thread(parent, "busy night")
        w.chan = live
        busy = await _two_at_a_hand(w, start=False)
        thread = w.fake.add_thread(other, "poker night")
        w.chan = thread
        await w.slash(w.alice, "ofc new", variant="ofc", buyin=250)
        await w.slash(w.bob, "ofc join", buyin=100)  # two seated, no hand: waiting for a start
        t = table_of(w)
        assert await w.store.balance(w.guild.id, w.bob.id) == 800
        await asyncio.sleep(0.3)  # the table message's edits done before it archives
        await w.fake.archive_thread(thread)
        await w.fake.wait_until(lambda: w.bot.get_channel(thread.id) is None, 5, "uncached")
        await w.fake.delete_channel(parent)  # not this table's: it stays
        await w.fake.wait_until(lambda: busy.id not in w.service.tables, 5, "the busy closed")
        await asyncio.sleep(0.3)
        assert t.id in w.service.tables
        await w.fake.delete_channel(other)
        await w.fake.wait_until(lambda: t.id not in w.service.tables, 5, "the table closed")
        assert (await w.store.get_table(t.id)).status == "closed"
        for user in (w.alice, w.bob):  # both tables' stacks back
            assert await w.store.balance(w.guild.id, user.id) == 1000
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean(allow_api_errors=[UNKNOWN_CHANNEL])


async def test_a_channel_deleted_unseen_closes_at_its_next_message(tmp_path: Any) -> None:
    """No event (deleted while the bot was away, or missed): the next message to it gets 404
    Unknown Channel, and the table closes."""
    async with make_world(tmp_path) as w:
        await w.start_bot()
        t = await _two_at_a_hand(w)
        hand_id = t.hand_row.id
        await w.fake.delete_channel(w.chan, dispatch=False)
        assert t.id in w.service.tables
        await w.service.notifier.notice(t, "anyone there?")
        await _closed_and_paid_back(w, t, hand_id)
        w.fake.assert_clean(allow_api_errors=[UNKNOWN_CHANNEL])


async def test_a_channel_deleted_while_the_bot_was_away(tmp_path: Any) -> None:
    """Resumed, a table tells its channel that play resumes: that message finds it gone."""
    async with make_world(tmp_path) as w:
        await w.start_bot()
        t = await _two_at_a_hand(w, start=False)
        await w.stop_bot()
        await w.fake.delete_channel(w.chan)
        await w.start_bot()
        await _closed_and_paid_back(w, table_of_id(w, t.id), 0)
        w.fake.assert_clean(allow_api_errors=[UNKNOWN_CHANNEL])


def table_of_id(w: World, table_id: int) -> Any:
    class Gone:
        id = table_id

    return w.service.tables.get(table_id, Gone())


async def test_removed_from_the_server(tmp_path: Any) -> None:
    async with make_world(tmp_path) as w:
        bot = await w.start_bot()
        t = await _two_at_a_hand(w)
        hand_id = t.hand_row.id
        # what discord.py calls when the bot is kicked (GUILD_DELETE without "unavailable")
        guild = bot.get_guild(w.guild.id)
        assert guild is not None
        bot.dispatch("guild_remove", guild)
        await _closed_and_paid_back(w, t, hand_id)
        w.fake.assert_clean(allow_api_errors=[UNKNOWN_CHANNEL])
