"""Review: what the bot's process keeps that grows without bound over months of tables, hands,
interactions, reviews, replays and DMs.

The tests under "defects" were strict xfails, each a defect found (fixed since; their
docstrings say what grew): each drives a few of the operations that leaked and asserts what a
bounded bot shows (the container back to its baseline).  The plain tests are places looked at and found bounded, checked where
it is cheap.  Everything runs the real discord.py client against the loopback Discord
(``tests/e2e``), except the pure cache checks at the end.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import pkgutil
from types import SimpleNamespace
from typing import Any

import discord
import pytest

import engine
import renderer
from bot.service import REVIEWS_KEPT
from cogs.presenter import CLOSED_TABLE, MARKED_KEPT, Presenter
from cogs.views import MyHandsSelect

from .e2e.conftest import World, make_world, table_of
from .e2e.test_my_hands import play_hand, showdown_in

pytestmark = pytest.mark.e2e

UNKNOWN_CHANNEL = 10003


# --------------------------------------------------------------------------- helpers


def presenter_of(w: World) -> Presenter:
    assert w.bot is not None
    cog: Any = w.bot.cogs["OFC"]
    return cog.presenter  # type: ignore[no-any-return]


def kept_by_presenter(w: World) -> dict[str, int]:
    """What the presenter keeps per table (``_closed_marked`` is capped: left out)."""
    p = presenter_of(w)
    return {"_pending_edits": len(p._pending_edits), "_message_ids": len(p._message_ids),
            "_last_ping": len(p._last_ping), "_dirty": len(p._dirty), "_swept": len(p._swept)}


def gone(w: World, table_id: int) -> Any:
    """A condition: table ``table_id`` is closed (no longer in the service's memory)."""
    return lambda: table_id not in w.service.tables


def edited(message: Any) -> Any:
    """A condition: ``message`` was edited (a history menu sent again after a choice)."""
    return lambda: message.edited_ms is not None


def view_store(w: World) -> Any:
    assert w.bot is not None
    return w.bot._connection._view_store


def kept_by_view_store(w: World) -> dict[str, int]:
    vs = view_store(w)
    return {"_views": len(vs._views), "_synced_message_views": len(vs._synced_message_views),
            "_modals": len(vs._modals)}


def expiring_views() -> list[Any]:
    """The views discord.py is counting down (an ephemeral message's view gets 15 minutes):
    each with the task that will time it out."""
    out = []
    for task in asyncio.all_tasks():
        coro = task.get_coro()
        frame = getattr(coro, "cr_frame", None)
        if getattr(coro, "__qualname__", "").endswith("__timeout_task_impl") and frame:
            out.append(frame.f_locals["self"])
    return out


def time_out(views: list[Any]) -> None:
    """What discord.py does when a view's 15 minutes are up (``__timeout_task_impl``)."""
    for view in views:
        view._dispatch_timeout()


async def open_started_table(w: World, chan: Any) -> Any:
    """Alice opens a no-stakes table in ``chan``, Bob joins, the first hand is dealt and its
    turn ping posted; the table."""
    w.chan = chan
    await w.slash(w.alice, "ofc new", variant="ofc", buyin=0, stake=0)
    await w.slash(w.bob, "ofc join", buyin=0)
    await w.slash(w.alice, "ofc start")
    await w.fake.wait_for_message(chan, lambda m: (m.content or "").startswith("🎯"),
                                  include_existing=True)
    await asyncio.sleep(0.2)  # the table message's edits done
    return table_of(w)


async def new_channel(w: World, name: str) -> Any:
    chan = w.fake.add_text_channel(w.guild, name)
    await w.fake.wait_until(lambda: w.bot is not None and w.bot.get_channel(chan.id) is not None,
                            5, "the channel in the bot's cache")
    return chan


# --------------------------------------------------------------------------- defects


async def test_tables_of_deleted_channels_are_forgotten_by_the_presenter(tmp_path: Any) -> None:
    """Was a defect (fixed): cogs/presenter.py keeps _message_ids, _last_ping (a
    discord.Message) and _pending_edits (a done task) of a table closed because its channel
    was deleted: TableService._close_gone (bot/service.py:1658) never tells the notifier, so
    Presenter._forget never runs for it (~3.3 KB per such table, until a restart)."""
    async with make_world(tmp_path, next_hand_delay=60) as w:
        await w.start_bot()
        baseline = kept_by_presenter(w)
        for k in range(3):
            chan = await new_channel(w, f"gone-{k}")
            t = await open_started_table(w, chan)
            await w.fake.delete_channel(chan)
            await w.fake.wait_until(gone(w, t.id), 5, "closed")
        await asyncio.sleep(0.3)
        assert w.service.tables == {} and w.service._by_channel == {}  # (the service: fine)
        assert kept_by_presenter(w) == baseline


async def test_tables_of_a_server_that_removed_the_bot_are_forgotten(tmp_path: Any) -> None:
    """Was a defect (fixed): the bot removed from a server (on_guild_remove ->
    TableService.guild_gone -> channel_gone): the same path as a deleted channel, so
    cogs/presenter.py keeps _message_ids, _last_ping and _pending_edits of each of that
    server's tables."""
    async with make_world(tmp_path, next_hand_delay=60) as w:
        bot = await w.start_bot()
        baseline = kept_by_presenter(w)
        tables = [await open_started_table(w, await new_channel(w, f"room-{k}"))
                  for k in range(2)]
        guild = bot.get_guild(w.guild.id)
        assert guild is not None
        bot.dispatch("guild_remove", guild)  # (what discord.py calls when the bot is kicked)
        await w.fake.wait_until(
            lambda: all(t.id not in w.service.tables for t in tables), 5, "closed")
        await asyncio.sleep(0.3)
        assert kept_by_presenter(w) == baseline


async def test_a_failed_close_mark_does_not_leave_the_tables_edit_task(
        tmp_path: Any, monkeypatch: Any) -> None:
    """Was a defect (fixed): cogs/presenter.py Presenter._mark_closed returns early (without
    _forget) when the edit that marks a closed table's message fails with a Discord server
    error: the table's done _edit_later task stays in _pending_edits (~0.5 KB per table
    closed while Discord failed, until a restart)."""
    edit = discord.PartialMessage.edit

    async def failing_mark(self: Any, **kw: Any) -> Any:
        if kw.get("content") == CLOSED_TABLE:  # Discord down just as the table closes
            raise discord.DiscordServerError(SimpleNamespace(status=503, reason="down"),
                                             "Service Unavailable")
        return await edit(self, **kw)

    monkeypatch.setattr(discord.PartialMessage, "edit", failing_mark)
    async with make_world(tmp_path, next_hand_delay=60) as w:
        await w.start_bot()
        baseline = kept_by_presenter(w)
        for _ in range(3):
            await w.slash(w.alice, "ofc new", variant="ofc", buyin=0, stake=0)
            await w.slash(w.bob, "ofc join", buyin=0)
            t = table_of(w)
            await asyncio.sleep(0.2)
            r = await w.slash(w.alice, "ofc close")
            assert (r.content or "").startswith("The table is closed"), r.content
            await w.fake.wait_until(gone(w, t.id), 5, "closed")
            await asyncio.sleep(0.3)
        assert kept_by_presenter(w) == baseline


async def test_history_menus_leave_nothing_in_discords_view_store(tmp_path: Any) -> None:
    """Was a defect (fixed): cogs/views.py MyHandsSelect.callback re-sends the menu as
    discord.ui.View.from_message(..., timeout=None): a plain (not dynamic) Select with a
    custom_id, so discord.py stores it in ViewStore._views[message_id] (and
    _synced_message_views, popped only if the first view's 15-minute timeout comes later)
    for good: one per /ofc history mine menu used (~3 KB with one hand, ~4.5 KB with the
    default 5, ~12 KB with 25), never removed."""
    async with make_world(tmp_path, seed_factory=lambda: "growth-menu",
                          next_hand_delay=60) as w:
        await w.start_bot()
        t = await play_hand(w, w.chan, "pineapple", stake=0)
        await showdown_in(w, w.chan)
        baseline = kept_by_view_store(w)
        for _ in range(3):
            r = await w.slash(w.alice, "ofc history", mine=True)
            choice = await w.select(w.alice, r.message, "ofc:mh", [f"{t.id}:1"])
            assert choice.followups, "the hand shown again"
            menu = r.message
            assert menu is not None
            await w.fake.wait_until(edited(menu), 5, "the menu again")
        await asyncio.sleep(0.1)
        time_out(expiring_views())  # every ephemeral menu's 15 minutes are up
        await asyncio.sleep(0.05)
        assert kept_by_view_store(w) == baseline


async def test_a_used_history_menu_timing_out_does_not_break_the_others(tmp_path: Any) -> None:
    """Was a defect (fixed): (not growth: the same line's functional side effect) once a
    history menu that was used times out (15 min), discord.py's ViewStore.remove_view finds
    the plain Select that MyHandsSelect.callback stored for that message and pops the
    MyHandsSelect pattern from _dynamic_items: every other /ofc history mine menu then stops
    answering (the interaction fails) until a new menu is posted or the bot restarts."""
    async with make_world(tmp_path, seed_factory=lambda: "growth-menu-timeout",
                          next_hand_delay=60) as w:
        await w.start_bot()
        t = await play_hand(w, w.chan, "pineapple", stake=0)
        await showdown_in(w, w.chan)
        before = set(expiring_views())
        mine = await w.slash(w.alice, "ofc history", mine=True)
        alices_menu = [v for v in set(expiring_views()) - before
                       if any(isinstance(i, MyHandsSelect) for i in v.children)]
        assert len(alices_menu) == 1
        bobs = (await w.slash(w.bob, "ofc history", mine=True)).message  # used later
        alices = mine.message
        assert alices is not None and bobs is not None
        await w.select(w.alice, alices, "ofc:mh", [f"{t.id}:1"])
        await w.fake.wait_until(edited(alices), 5, "the menu again")
        await asyncio.sleep(0.1)
        time_out(alices_menu)  # alice's menu's 15 minutes are up
        await asyncio.sleep(0.05)
        choice = await w.fake.select(w.bob, bobs, "ofc:mh", [f"{t.id}:1"], timeout=3)
        assert choice.followups and "Showdown — hand #1**" in choice.followups[0].content


# --------------------------------------------------------------------------- found bounded


async def test_tables_played_and_closed_leave_nothing_behind(tmp_path: Any) -> None:
    """Tables opened, played to a showdown through panels and moves, and closed (by command,
    and as the last human leaves), then the showdown's replay and review: the presenter, the
    service and discord.py's view store are back to their baseline (the closed messages
    marked are capped at ``MARKED_KEPT``; the reviews kept at ``REVIEWS_KEPT``)."""
    async with make_world(tmp_path, seed_factory=lambda: "growth-fine",
                          next_hand_delay=60) as w:
        await w.start_bot()
        service = w.service
        presenter = kept_by_presenter(w)
        store = kept_by_view_store(w)
        dynamic = len(view_store(w)._dynamic_items)
        t = None
        for k in range(3):
            chan = w.chan if k == 0 else await new_channel(w, f"fine-{k}")
            w.chan = chan
            t = await play_hand(w, chan, "pineapple", stake=0)  # (/ofc hand: a panel each)
            await showdown_in(w, chan)
            await asyncio.sleep(0.2)
            if k == 2:  # the last human to leave closes it
                await w.slash(w.bob, "ofc leave")
                r = await w.slash(w.alice, "ofc leave")
                assert "the table is closed" in (r.content or ""), r.content
            else:
                await w.slash(w.alice, "ofc close")
            await w.fake.wait_until(gone(w, t.id), 20, "closed")
            await asyncio.sleep(0.3)
        assert t is not None
        showdown = await w.fake.wait_for_message(
            w.chan, lambda m: "Showdown — hand #1**" in (m.content or ""), include_existing=True)
        replay = await w.click(w.alice, showdown, label="Replay")
        step = await w.click(w.alice, replay.followups[0], label="Round 2 ▶")
        await w.click(w.alice, step.message, label="🏁 Showdown")
        for n in range(REVIEWS_KEPT):  # the reviews kept are full: the next drops the oldest
            service._reviews[(-1, -1, n)] = object()
        review = await w.click(w.alice, showdown, label="Review my play")
        assert review.followups and "Your play in hand #1" in review.followups[0].content
        await asyncio.sleep(0.2)
        assert len(service._reviews) == REVIEWS_KEPT
        assert service.tables == {} and service._by_channel == {}
        assert service._gone_retries == set() and service._reviewing == set()
        assert kept_by_presenter(w) == presenter
        assert kept_by_view_store(w) == store  # (fully dynamic views are never stored)
        assert len(view_store(w)._dynamic_items) == dynamic
        assert len(presenter_of(w)._closed_marked) <= MARKED_KEPT
        assert len(presenter_of(w)._edit_locks) == 0 and len(presenter_of(w)._ping_locks) == 0


async def test_dm_channels_are_capped_by_discord_py(tmp_path: Any) -> None:
    """A fantasyland hand goes by DM (``Presenter.fantasyland_dealt``: ``fetch_user`` then
    ``send``): discord.py keeps the last 128 DM channels, however many players get one."""
    async with make_world(tmp_path, names=("alice",)) as w:
        bot = await w.start_bot()
        players = [w.fake.add_user(f"p{k}", guild=w.guild) for k in range(140)]
        for player in players:
            user = await bot.fetch_user(player.id)
            await user.send("🌴 **Fantasyland!**")
        state = bot._connection
        assert len(state._private_channels) == 128
        assert len(state._private_channels_by_user) <= 128


def test_closed_messages_marked_are_capped() -> None:
    p = Presenter(SimpleNamespace(service=None))  # type: ignore[arg-type]
    for message_id in range(MARKED_KEPT + 500):
        p._remember_marked(message_id)
    assert len(p._closed_marked) == MARKED_KEPT


def _modules(package: Any) -> list[Any]:
    out = [package]
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if info.name.endswith(("gallery", "emoji_build")):  # (tools, not the bot's)
            continue
        out.append(importlib.import_module(info.name))
    return out


def test_every_lru_cache_of_the_engine_and_renderer_has_a_size() -> None:
    """The renderer's and the engine's ``lru_cache``s all have a maxsize (the biggest in bytes:
    ``renderer.fonts.text_layers``, 4096 text pictures: player names among them)."""
    caches = {}
    for module in _modules(engine) + _modules(renderer):
        for name, value in vars(module).items():
            if isinstance(value, functools._lru_cache_wrapper) and value.__module__ == (
                    module.__name__):
                caches[f"{module.__name__}.{name}"] = value.cache_info().maxsize
    assert caches, "no cache found"
    assert {k: v for k, v in caches.items() if v is None} == {}


def test_the_ais_models_are_capped() -> None:
    """``engine.ai._MODELS`` (one per rule set the AI plays): emptied past 16."""
    from engine import ai
    from engine.rules import Rules

    for points in range(40):
        ai._model(Rules(variant="ofc", shoot_the_moon=True, shoot_the_moon_points=points),
                  ai.DEFAULT_CONFIG)
    assert len(ai._MODELS) <= 17
