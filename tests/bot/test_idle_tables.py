"""Idle tables close (``TableService.close_idle``, the server's ``idle_hours``): a table with no
hand dealt or ended and nobody sitting down for that long closes, stacks back to balances, the
channel told and free for a new table; never during a hand, never counting time the bot was
down, per server, and not at all with ``idle_hours`` 0."""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.service import ServiceError, TableService
from bot.store import Store

from .test_service import (
    ALICE,
    BOB,
    CAROL,
    CH,
    Clock,
    G,
    Recorder,
    finish_by_autoplay,
    heads_up,
    make,
    until,
)

HOUR = 3600.0


async def seated(clock: Clock, path: Path | str = ":memory:", **kw: Any) -> tuple[
        TableService, Recorder, Store, Any]:
    """Alice's table with Bob seated, not started, play resumed (the idle clock runs)."""
    svc, rec, store = await make(path, clock=clock, **kw)
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", buyin=300)
    await svc.join(G, CH, BOB, "bob")
    await svc.resume()
    return svc, rec, store, svc.table_in_channel(CH)


def notices(rec: Recorder) -> list[str]:
    return [text for kind, text in rec.events if kind == "notice"]


async def warned_and_due(svc: TableService, clock: Clock, hours: float = 25) -> None:
    """``hours`` (more than a day) of nothing happening at a table idle from now, the bot
    having looked in the hour before its close (no table closes without that warning)."""
    clock.offset += 23.5 * HOUR
    await svc.close_idle()
    clock.offset += (hours - 23.5) * HOUR


async def test_a_table_without_a_hand_for_a_day_closes_and_gives_the_stacks_back() -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    assert await store.balance(G, ALICE) == 700
    clock.offset += 23.9 * HOUR
    assert await svc.close_idle() == [] and t.id in svc.tables
    clock.offset += 0.2 * HOUR
    assert await svc.close_idle() == [t]
    assert t.id not in svc.tables and t.row.status == "closed"
    assert await store.balance(G, ALICE) == 1000 and await store.balance(G, BOB) == 1000
    assert notices(rec)[-1] == (
        "🕸️ Nothing happened here for 24 hours, so the table is closed; every stack went back "
        "to its owner's balance. `/ofc new` opens another (server managers: `/ofc-admin "
        "settings idle_hours`).")
    assert ("table", t.id) in rec.events  # (its message is marked closed)
    await svc.new_table(G, CH, CAROL, "carol", variant="ofc")  # the channel is free
    assert await store.verify_ledger() == []
    await svc.shutdown()
    await store.close()


async def test_the_bots_own_table_message_is_no_activity() -> None:
    """The table's message posted (its id saved) is the bot's doing, not the players': the
    table's idle time goes on.  (Was a defect (fixed): saving the message id set the table's
    ``updated_at``, from which its idle time counts; a message saved after the clock jumped
    put the idle close a whole period later: ``test_an_idle_table_closes_in_the_channel``
    failed about once in six runs.)"""
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    since = t.idle_since()
    clock.offset += 23.9 * HOUR
    await svc.set_message_id(t, 4242)
    assert t.row.message_id == 4242 and t.idle_since() == since
    assert await svc.close_idle() == []  # (warned)
    clock.offset += 0.2 * HOUR
    assert await svc.close_idle() == [t]
    await svc.shutdown()
    await store.close()


async def test_a_hand_being_played_is_never_cut_short_and_its_end_counts() -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    await svc.start(CH, ALICE)
    clock.offset += 100 * HOUR
    assert await svc.close_idle() == [] and t.hand is not None
    await svc.leave(CH, BOB)  # after this hand: alice is left waiting alone
    await finish_by_autoplay(svc)
    await until(lambda: t.seat_of_user(BOB) is None)
    assert t.hand is None and t.row.hand_no == 1
    clock.offset += 23.9 * HOUR
    assert await svc.close_idle() == []  # a day from the hand's end, not from its deal
    clock.offset += 0.2 * HOUR
    assert await svc.close_idle() == [t]
    await svc.shutdown()
    await store.close()


async def test_arrivals_count_and_each_server_has_its_own_hours() -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    await store.update_settings(G + 1, idle_hours=2)
    await svc.new_table(G + 1, CH + 1, CAROL, "carol", variant="pineapple")
    other = svc.table_in_channel(CH + 1)
    clock.offset += 1.9 * HOUR
    assert await svc.close_idle() == []  # (the other table's warning)
    clock.offset += 18.1 * HOUR
    await svc.join(G, CH, CAROL, "carol")  # somebody sat down: a day from now
    clock.offset += 20 * HOUR
    assert await svc.close_idle() == [other]  # 40 hours > its server's 2
    clock.offset += 3.5 * HOUR
    assert await svc.close_idle() == []  # (its warning)
    clock.offset += 0.6 * HOUR
    assert await svc.close_idle() == [t]
    await svc.shutdown()
    await store.close()


async def test_idle_hours_0_keeps_tables_open() -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    s = await svc.update_settings(G, True, idle_hours=0)
    assert s.idle_hours == 0
    clock.offset += 10_000 * HOUR
    assert await svc.close_idle() == [] and t.id in svc.tables
    await svc.shutdown()
    await store.close()


async def test_a_restart_gives_an_hour_and_the_idle_time_before_it_counts(
    tmp_path: Path,
) -> None:
    """Time before a restart counts (a bot restarted daily must still close a forgotten
    table), and so does time it was down; but no table closes in the first hour after a start
    (its players could not use it while the bot was down)."""
    clock = Clock()
    path = tmp_path / "ofc.db"
    svc, rec, store, t = await seated(clock, path)
    clock.offset += 23 * HOUR
    await svc.shutdown()
    await store.close()
    clock.offset += 60  # a one-minute restart
    svc, rec, store = await make(path, clock=clock)
    await svc.load_tables()
    await svc.resume()
    t = svc.table_in_channel(CH)
    assert await svc.close_idle() == []  # idle 23 h: not yet
    clock.offset += 0.9 * HOUR
    assert await svc.close_idle() == []  # idle 24 h, in the hour after the start
    clock.offset += 0.2 * HOUR
    assert await svc.close_idle() == [t]
    await svc.shutdown()
    await store.close()
    # three days down: an hour after the start, not at once
    svc, rec, store = await make(path, clock=clock)
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.shutdown()
    await store.close()
    clock.offset += 72 * HOUR
    svc, rec, store = await make(path, clock=clock)
    await svc.load_tables()
    await svc.resume()
    assert await svc.close_idle() == []
    clock.offset += 1.01 * HOUR
    assert [x.row.channel_id for x in await svc.close_idle()] == [CH]
    await svc.shutdown()
    await store.close()


async def test_sitting_in_or_out_and_options_count_as_use() -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    clock.offset += 23 * HOUR
    await svc.sit_out(CH, BOB, True)
    clock.offset += 23 * HOUR
    assert await svc.close_idle() == []
    await svc.sit_out(CH, BOB, False)
    clock.offset += 23 * HOUR
    assert await svc.close_idle() == []
    await svc.set_options(CH, ALICE, False, timer=90)
    clock.offset += 23.9 * HOUR
    assert await svc.close_idle() == []
    clock.offset += 0.2 * HOUR
    assert await svc.close_idle() == [t]
    await svc.shutdown()
    await store.close()


async def queued(lock: asyncio.Lock, count: int) -> None:
    """Wait until ``count`` tasks wait for ``lock`` (an ``asyncio.Lock`` keeps them in
    ``_waiters``): not a fixed pause, which a slow machine (or store) outruns."""
    await until(lambda: len(lock._waiters or ()) == count)
    assert len(lock._waiters or ()) == count


async def test_a_command_waiting_behind_the_close_is_told_the_table_closed() -> None:
    """Found by a review: a command that waited for the table while the idle close held it
    went on at the closed table (options written to it, "you are not seated" to a player who
    was); now every command that waited says the table has just closed, and changes nothing."""
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    await warned_and_due(svc, clock)
    for command in (lambda: svc.set_options(CH, ALICE, False, timer=90),
                    lambda: svc.start(CH, ALICE), lambda: svc.leave(CH, BOB),
                    lambda: svc.sit_out(CH, BOB, True), lambda: svc.join(G, CH, CAROL, "carol"),
                    lambda: svc.close(CH, ALICE, False)):
        if t.id not in svc.tables:  # (a new table for each try)
            await svc.new_table(G, CH, ALICE, "alice", variant="ofc", buyin=300)
            await svc.join(G, CH, BOB, "bob")
            t = svc.table_in_channel(CH)
            await warned_and_due(svc, clock)
        async with t.lock:  # the close waits for the table first ...
            closing = asyncio.ensure_future(svc.close_idle())
            await queued(t.lock, 1)  # (it reads the store first)
            waiting = asyncio.ensure_future(command())  # ... then the command, behind it
            await queued(t.lock, 2)
        assert await closing == [t]
        with pytest.raises(ServiceError, match=r"^This table has just closed: every stack went"):
            await waiting
        assert t.id not in svc.tables
    assert await store.verify_ledger() == []
    await svc.shutdown()
    await store.close()


async def test_the_bot_looks_on_its_own() -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock, idle_check=0.02)
    clock.offset += 23.5 * HOUR
    await until(lambda: any(n.startswith("⏳") for n in notices(rec)))  # the warning
    clock.offset += 0.6 * HOUR
    await until(lambda: t.id not in svc.tables  # (the notice comes just after the close)
                and "Nothing happened" in (notices(rec) or [""])[-1])
    assert t.id not in svc.tables and "Nothing happened here for 24 hours" in notices(rec)[-1]
    await svc.shutdown()
    await store.close()


async def test_a_close_that_fails_on_the_database_is_tried_at_the_next_look(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    await warned_and_due(svc, clock)
    told = len(notices(rec))  # (the warning)
    real = store.update_table

    async def broken(*a: Any, **kw: Any) -> Any:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(store, "update_table", broken)
    with caplog.at_level(logging.ERROR):
        assert await svc.close_idle() == []
    assert f"closing idle table {t.id} failed" in caplog.text
    assert t.id in svc.tables and t.row.status == "open" and len(notices(rec)) == told
    assert await store.balance(G, ALICE) == 700  # nothing moved
    monkeypatch.setattr(store, "update_table", real)
    assert await svc.close_idle() == [t]
    assert await store.balance(G, ALICE) == 1000
    await svc.shutdown()
    await store.close()


async def test_the_setting_is_checked() -> None:
    svc, rec, store, t = await heads_up("idle-setting", start=False)
    assert (await store.get_settings(G)).idle_hours == 24  # the default
    with pytest.raises(ServiceError, match=r"at most 720 hours \(0: never\)"):
        await svc.update_settings(G, True, idle_hours=721)
    with pytest.raises(ServiceError, match="cannot be negative"):
        await svc.update_settings(G, True, idle_hours=-1)
    with pytest.raises(ServiceError, match="Manage Server"):
        await svc.update_settings(G, False, idle_hours=1)
    assert (await store.get_settings(G)).idle_hours == 24
    assert (await svc.update_settings(G, True, idle_hours=720)).idle_hours == 720
    await store.close()


async def test_migration_006_gives_existing_servers_the_default(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    store = await Store.open(path)
    await store.update_settings(G, start_balance=500)
    await store.close()
    con = sqlite3.connect(path)
    con.executescript("DROP TRIGGER results_to_variant_standings;"
                      "DROP TRIGGER variant_standings_no_delete; DROP TABLE variant_standings;"
                      "ALTER TABLE servers DROP COLUMN idle_hours; PRAGMA user_version = 5;")
    con.close()
    store = await Store.open(path)
    try:
        s = await store.get_settings(G)
        assert (s.start_balance, s.idle_hours) == (500, 24)
    finally:
        await store.close()


async def test_shutdown_stops_the_looking() -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock, idle_check=0.01)
    task = svc._idle_task
    assert task is not None and not task.done()
    await svc.shutdown()
    await asyncio.sleep(0.05)
    assert task.done()
    await store.close()


async def test_no_close_while_discord_is_out_of_reach_nor_in_the_hour_after() -> None:
    """Found by a review: a long loss of the gateway (players cannot act) counted as idle
    time; now nothing closes while it is lost, nor in the hour after it came back."""
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    clock.offset += 25 * HOUR
    svc.connection_lost()
    assert await svc.close_idle() == []
    clock.offset += 5 * HOUR
    assert await svc.close_idle() == []
    svc.connection_back()
    clock.offset += 0.9 * HOUR
    assert await svc.close_idle() == []
    svc.connection_back()  # (a second word of it changes nothing)
    clock.offset += 0.2 * HOUR
    assert await svc.close_idle() == [t]
    await svc.shutdown()
    await store.close()


def closes_in(text: str, clock: Clock) -> float:
    """The seconds left that a warning's Discord timestamp says (``closes <t:N:R>``: it counts
    down when the warning is read later)."""
    found = re.search(r"closes <t:(\d+):R>", text)
    assert found, text
    return int(found[1]) - clock()


def warnings(rec: Recorder) -> list[tuple[str, bool]]:
    """The idle warnings posted, each with whether it pinged."""
    return [(text, ping) for (kind, text), ping in zip(
        [e for e in rec.events if e[0] == "notice"], rec.pings, strict=True)
        if text.startswith("⏳")]


async def test_the_channel_is_warned_once_an_hour_before_and_the_players_pinged() -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    await svc.add_bot(CH, ALICE, "easy")
    clock.offset += 22.9 * HOUR
    assert await svc.close_idle() == [] and warnings(rec) == []
    clock.offset += 0.11 * HOUR  # (the look comes every minute: about an hour before)
    assert await svc.close_idle() == []
    [(said, pinged)] = warnings(rec)
    assert pinged and re.fullmatch(
        rf"⏳ <@{ALICE}> <@{BOB}>: nothing has happened here for 23 hours, so this table closes "
        r"<t:\d+:R> \(every stack back to its owner's balance\) unless a hand is dealt or "
        r"someone sits down or in \(`/ofc start`, `/ofc join`, `/ofc sitin`\)\.", said)
    assert 0.8 * HOUR < closes_in(said, clock) <= HOUR  # (no bot named; about an hour)
    clock.offset += 0.5 * HOUR
    assert await svc.close_idle() == [] and len(warnings(rec)) == 1  # once
    clock.offset += 0.5 * HOUR
    assert await svc.close_idle() == [t] and len(warnings(rec)) == 1
    await svc.shutdown()
    await store.close()


async def test_use_after_the_warning_keeps_the_table_and_the_next_idle_time_warns_again(
) -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    clock.offset += 23.5 * HOUR
    await svc.close_idle()
    assert len(warnings(rec)) == 1
    await svc.sit_out(CH, BOB, True)  # something happened: a day from now
    clock.offset += 1 * HOUR
    assert await svc.close_idle() == [] and len(warnings(rec)) == 1
    clock.offset += 22.5 * HOUR
    assert await svc.close_idle() == [] and len(warnings(rec)) == 2
    assert "for 23 hours" in warnings(rec)[1][0]
    clock.offset += 0.6 * HOUR
    assert await svc.close_idle() == [t]
    await svc.shutdown()
    await store.close()


async def test_a_short_idle_time_warns_a_quarter_of_it_before() -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    await svc.update_settings(G, True, idle_hours=1)
    clock.offset += 0.7 * HOUR
    assert await svc.close_idle() == [] and warnings(rec) == []
    clock.offset += 0.05 * HOUR + 1
    assert await svc.close_idle() == []
    assert "nothing has happened here for 45 minutes, so this table closes <t:" in \
        warnings(rec)[0][0]
    assert abs(closes_in(warnings(rec)[0][0], clock) - 0.25 * HOUR) < 3
    clock.offset += 0.25 * HOUR
    assert await svc.close_idle() == [t]
    await svc.shutdown()
    await store.close()


async def test_after_a_restart_the_warning_tells_the_close_an_hour_later(tmp_path: Path) -> None:
    """Three days down: the table closes an hour after the start, and says so at once."""
    clock = Clock()
    path = tmp_path / "ofc.db"
    svc, rec, store, t = await seated(clock, path)
    await svc.shutdown()
    await store.close()
    clock.offset += 72 * HOUR
    svc, rec, store = await make(path, clock=clock)
    await svc.load_tables()
    await svc.resume()
    assert await svc.close_idle() == []
    said = [w for w, _ in warnings(rec) if "for 72 hours, so this table closes <t:" in w]
    assert said and abs(closes_in(said[0], clock) - HOUR) < 3
    clock.offset += 0.5 * HOUR
    assert await svc.close_idle() == [] and len(warnings(rec)) == 1
    clock.offset += 0.51 * HOUR
    assert [x.row.channel_id for x in await svc.close_idle()] == [CH]
    await svc.shutdown()
    await store.close()


async def test_no_warning_during_a_hand_while_disconnected_or_with_idle_hours_0() -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    await svc.start(CH, ALICE)
    clock.offset += 23.5 * HOUR
    assert await svc.close_idle() == [] and warnings(rec) == []  # a hand is being played
    await svc.leave(CH, BOB)
    await finish_by_autoplay(svc)
    await until(lambda: t.seat_of_user(BOB) is None, 20)  # (released after the hand: a loaded
    assert t.seat_of_user(BOB) is None  # machine took more than until's default 4 s once)
    clock.offset += 23.5 * HOUR
    svc.connection_lost()
    assert await svc.close_idle() == [] and warnings(rec) == []
    svc.connection_back()
    await svc.update_settings(G, True, idle_hours=0)
    assert await svc.close_idle() == [] and warnings(rec) == []
    await svc.update_settings(G, True, idle_hours=24)
    assert await svc.close_idle() == []
    assert [w for w in warnings(rec) if w[0].startswith(f"⏳ <@{ALICE}>: ")]  # bob left
    await svc.shutdown()
    await store.close()


async def test_no_close_without_its_warning_whatever_idle_hours_does() -> None:
    """Found by a review: idle_hours lowered below a table's idle time closed it at the next
    look, unwarned; raised after the warning, the later close was not warned again.  Now a
    close already due is warned first and waits the warning's lead; a close moved later is
    warned again; a close moved earlier after the warning keeps the time the warning said."""
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    clock.offset += 10 * HOUR
    await svc.update_settings(G, True, idle_hours=2)  # 10 hours idle already
    assert await svc.close_idle() == []
    assert re.search(
        r"nothing has happened here for 10 hours, so this table closes <t:\d+:R> \(every "
        r"stack back to its owner's balance\) unless a hand is dealt or someone sits down or in "
        r"\(`/ofc start`, `/ofc join`, `/ofc sitin`\)\.$", warnings(rec)[-1][0])
    assert abs(closes_in(warnings(rec)[-1][0], clock) - 0.5 * HOUR) < 3
    clock.offset += 0.4 * HOUR
    assert await svc.close_idle() == []
    await svc.update_settings(G, True, idle_hours=1)  # lowered after the warning
    assert await svc.close_idle() == []  # the time the warning said holds
    clock.offset += 0.11 * HOUR
    assert await svc.close_idle() == [t]
    assert "Nothing happened here for 10 hours" in notices(rec)[-1]  # (the real time)
    # raised after the warning: the later close is warned again
    await svc.update_settings(G, True, idle_hours=4)
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", buyin=300)
    t = svc.table_in_channel(CH)
    clock.offset += 3.1 * HOUR
    assert await svc.close_idle() == [] and len(warnings(rec)) == 2
    await svc.update_settings(G, True, idle_hours=8)
    clock.offset += 1 * HOUR
    assert await svc.close_idle() == [] and t.id in svc.tables  # 4.1 h: not at the old time
    clock.offset += 2.9 * HOUR
    assert await svc.close_idle() == [] and len(warnings(rec)) == 3  # 7 h: warned again
    assert abs(closes_in(warnings(rec)[-1][0], clock) - HOUR) < 3
    clock.offset += 1.1 * HOUR
    assert await svc.close_idle() == [t]
    await svc.shutdown()
    await store.close()
