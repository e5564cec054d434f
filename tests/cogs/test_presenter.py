"""Player names in the bot's messages, messages too long for one Discord message, and
stopping the table-message edits at shutdown."""

from __future__ import annotations

import asyncio
import itertools
import logging
import sqlite3
import time
from dataclasses import replace
from types import SimpleNamespace
from typing import Any, cast
from unittest.mock import MagicMock

import pytest

from cogs import presenter as presenter_module
from cogs.presenter import Presenter, for_message, in_code, md, split_message
from engine import Board, Hand, Rules
from renderer import (
    LeaderboardView,
    LeaderRow,
    SeatView,
    ShowdownView,
    TableView,
    describe_leaderboard,
    describe_showdown,
    describe_table,
)

from ..stubborn import ignores_cancellation, release_and_stop

NASTY = ("# HUGE", "||Bob", "*Fiona", "Bobby_Tables", "@everyone", "a```b")


def test_names_cannot_format_or_ping() -> None:
    assert md("||Bob") == "\\|\\|Bob" and md("*Fiona") == "\\*Fiona"
    assert md("Bobby_Tables") == "Bobby\\_Tables"
    assert "@everyone" not in md("@everyone") and "<@123456789012345678>" not in md(
        "<@123456789012345678>")
    assert "```" not in in_code("a```b")
    # nothing Discord draws from <...>: a timestamp, a channel, a custom emoji (shown as typed)
    assert md("<t:0:R> <#123> <:x:456>") == "\\<t:0:R> \\<#123> \\<:x:456>"


def test_text_twins_of_messages_escape_names_and_images_keep_them() -> None:
    hand = Hand(Rules(), list(NASTY[:4]), seed=3)
    while not hand.is_over:
        hand.autoplay(hand.to_act()[0])
    assert hand.settlement is not None
    view = ShowdownView(names=tuple(hand.names), settlement=hand.settlement, rules=hand.rules,
                        title="*table*")
    text = describe_showdown(for_message(view))
    assert "\\|\\|Bob" in text and "Bobby\\_Tables" in text and "\\*table\\*" in text
    assert view.names[1] == "||Bob"  # the image's view is untouched
    board = LeaderboardView(title="x", by="units", period="all time", rows=tuple(
        LeaderRow(rank=i + 1, name=n, units=0, points=0, hands=1, fantasylands=0)
        for i, n in enumerate(NASTY)))
    text = describe_leaderboard(for_message(board))
    assert "@everyone" not in text and "\\# HUGE" in text
    table = TableView(title="t", variant="ofc",
                      seats=tuple(SeatView(name=n, board=Board()) for n in NASTY))
    assert "```" not in describe_table(for_message(table))


def test_table_text_has_no_countdown_that_would_go_stale() -> None:
    """The message is edited on changes, not each second: its text says who is to act, and
    the status line above it (a Discord timestamp) counts down."""
    table = TableView(title="t", variant="ofc", seats=(
        SeatView(name="Ann", board=Board(), is_turn=True, time_left=59),
        SeatView(name="Bob", board=Board())))
    assert "0:59 left" in describe_table(table)  # (the renderer's own text says it)
    text = describe_table(for_message(table))
    assert "to act" in text and "left" not in text
    assert table.seats[0].time_left == 59  # the image keeps its clock


def test_long_messages_are_split_between_lines() -> None:
    lines = [f"line {i} " + "x" * 90 for i in range(60)]
    parts = split_message("\n".join(lines))
    assert len(parts) > 1 and all(len(p) <= 1990 for p in parts)
    assert "\n".join(parts).split("\n") == lines  # nothing lost, nothing cut mid-line
    assert split_message("short") == ["short"]
    huge = split_message("y" * 5000)
    assert [len(p) for p in huge] == [1990, 1990, 1020]


async def test_closing_does_not_wait_for_ever_on_an_edit_that_ignores_cancellation(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    """The bot's exit waits for the table-message edits under way: at most ``CLOSE_WAIT``."""
    monkeypatch.setattr(presenter_module, "CLOSE_WAIT", 1.0)
    release = asyncio.Event()
    presenter = Presenter(cast(Any, None))
    stuck = asyncio.ensure_future(ignores_cancellation(release))
    presenter._pending_edits[7] = stuck
    presenter._pending_edits[8] = polite = asyncio.ensure_future(asyncio.sleep(3600))
    await asyncio.sleep(0)
    start = time.monotonic()
    with caplog.at_level("ERROR", logger="ofc.presenter"):
        await presenter.close()
    assert 1.0 <= time.monotonic() - start < 1.5
    assert polite.cancelled() and not stuck.done()
    assert "1 table message edit(s) did not stop" in caplog.text
    await release_and_stop(release, stuck)


class _Channel:
    """A channel that takes every message (ids 555, 556, ...) and edits."""

    def __init__(self) -> None:
        self.sent: list[int] = []
        self.edited: list[int] = []
        self.deleted: list[int] = []

    async def send(self, *args: Any, **kw: Any) -> Any:
        self.sent.append(555 + len(self.sent))
        return SimpleNamespace(id=self.sent[-1])

    def get_partial_message(self, message_id: int) -> Any:
        async def edit(**kw: Any) -> None:
            self.edited.append(message_id)

        async def delete() -> None:
            self.deleted.append(message_id)
        return SimpleNamespace(edit=edit, delete=delete)


def _interaction(user_id: int, channel_id: int, guild_id: int) -> Any:
    it = MagicMock()
    it.guild_id, it.channel_id = guild_id, channel_id
    it.user = SimpleNamespace(id=user_id, name="alice", display_name="alice")
    it.sent = []
    done = {"v": False}

    async def send_message(text: str = "", **kw: Any) -> None:
        done["v"] = True
        it.sent.append(text)

    async def followup(text: str = "", **kw: Any) -> None:
        it.sent.append(text)

    it.response.send_message = send_message
    it.response.is_done = lambda: done["v"]
    it.followup.send = followup
    it.command = None
    return it


async def test_a_table_message_whose_id_cannot_be_saved_is_still_posted_and_kept() -> None:
    """``/ofc new`` opened the table, then saving its message's id failed (the database): the
    user used to read "Something went wrong... The table is unchanged; please try again" (and
    trying again was refused: the table existed).  Now the message is posted, the command
    succeeds, and the table's later edits go to that message (memory keeps its id)."""
    from bot.app import report_error
    from cogs.ofc import OFC

    from ..bot.test_service import ALICE, CH, G, make

    svc, rec, store = await make(seed_factory=lambda: "p1")
    channel = _Channel()
    bot = SimpleNamespace(service=svc, get_partial_messageable=lambda cid, guild_id: channel)
    presenter = Presenter(cast(Any, bot), 0.0)
    cog = SimpleNamespace(service=svc, presenter=presenter)
    real = store.update_table

    async def failing(table_id: int, **kw: Any) -> Any:
        if "message_id" in kw:
            raise sqlite3.OperationalError("database is locked")
        return await real(table_id, **kw)

    store.update_table = failing  # type: ignore[method-assign]
    it = _interaction(ALICE, CH, G)
    try:
        await OFC.new.callback(cast(Any, cog), it)
    except Exception as e:  # what the command tree would hand to on_app_command_error
        await report_error(it, e)
    assert len(it.sent) == 1 and "opened" in it.sent[0]
    t = svc.table_in_channel(CH)
    assert channel.sent == [555] and t.row.message_id is None
    await presenter.post_table(t, edit=True)
    assert channel.edited == [555] and channel.sent == [555]  # the same message, edited
    # an older id saved before: a new message whose id cannot be saved is the one edited
    store.update_table = real  # type: ignore[method-assign]
    presenter._message_ids.clear()
    await presenter.post_table(t, edit=False)  # 556, saved
    assert t.row.message_id == 556
    store.update_table = failing  # type: ignore[method-assign]
    await presenter.post_table(t, edit=False)  # 557 (e.g. after a showdown), not saved
    assert t.row.message_id == 556 and channel.sent == [555, 556, 557]
    assert channel.deleted == [556]  # the one replaced, deleted (it looked live)
    await presenter.post_table(t, edit=True)
    assert channel.edited[-1] == 557
    await svc.shutdown()
    await store.close()


async def test_a_table_picture_that_cannot_be_drawn_does_not_undo_a_new_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whatever fails while posting the first table message, ``/ofc new`` says the table is
    open (it is) and how to see it, never "unchanged; please try again"."""
    from cogs.ofc import OFC

    from ..bot.test_service import ALICE, CH, G, make

    svc, rec, store = await make(seed_factory=lambda: "p2")
    channel = _Channel()
    bot = SimpleNamespace(service=svc, get_partial_messageable=lambda cid, guild_id: channel)
    presenter = Presenter(cast(Any, bot), 0.0)

    async def broken(*args: Any, **kw: Any) -> Any:
        raise ValueError("the renderer failed")

    monkeypatch.setattr(presenter, "table_payload", broken)
    it = _interaction(ALICE, CH, G)
    await OFC.new.callback(cast(Any, SimpleNamespace(service=svc, presenter=presenter)), it)
    assert "opened" in it.sent[0] and "The table is open" in it.sent[1]
    assert "tried again" in it.sent[1] and svc.table_in_channel(CH).row.status == "open"
    await svc.shutdown()
    await store.close()


def test_the_table_status_counts_down_in_the_client() -> None:
    """The table message is edited when the table changes, not every second: its clock is a
    Discord timestamp (it showed the seconds left when the message was last edited)."""
    hand = Hand(Rules(variant="ofc"), ["Ann", "Bo"], seed="status")
    acting = hand.to_act()[0]
    t = SimpleNamespace(hand=hand, row=SimpleNamespace(hand_no=3), deadlines={acting: 1234.9},
                        name_of=lambda hs: ["Ann", "Bo"][hs], hand_seats=[0, 1],
                        seat_by_no=lambda no: SimpleNamespace(is_bot=False))
    status = presenter_module.table_status(cast(Any, t))
    assert status == (f"Hand #3, round 1 of {hand.streets}. To act: "
                      f"**{['Ann', 'Bo'][acting]}** (time runs out <t:1234:R>)")
    t.deadlines = {}
    assert presenter_module.table_status(cast(Any, t)).endswith(f"**{['Ann', 'Bo'][acting]}**")
    t.deadlines = {acting: 1234.9}  # a bot's clock (a safety net) is not shown
    t.seat_by_no = lambda no: SimpleNamespace(is_bot=True)
    assert presenter_module.table_status(cast(Any, t)).endswith(f"**{['Ann', 'Bo'][acting]}**")


def test_a_showdown_is_titled_by_its_hand_not_by_the_seats_now() -> None:
    """A human who joined a practice table during the hand makes the next hands real, not
    the one shown: its showdown says practice (``Presenter.showdown`` passes the result's)."""
    from cogs.presenter import table_title

    t = cast(Any, SimpleNamespace(rules=Rules(), practice=False, row=SimpleNamespace(stake=2)))
    assert table_title(t) == "Open Face · 2 units/pt"
    assert table_title(t, True) == "Open Face · practice"
    t.row.stake = 0  # a table for no units says so (it read "0 units/pt")
    assert table_title(t) == "Open Face · no units"
    t.row.stake = 1
    assert table_title(t) == "Open Face · 1 unit/pt"
    t.row.stake = 2
    t.practice = True
    assert table_title(t) == table_title(t, True) and table_title(t, False).endswith("2 units/pt")


async def test_an_unexpected_error_is_logged_without_the_cards_sent_with_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The log names the command or the component, never what came with it: a panel's select
    values (or a move's text) can be a player's discard, hidden from everyone else, and whoever
    reads the logs may be at the table."""
    from bot.app import report_error

    it = _interaction(101, 20, 10)
    # (cards no hexadecimal error id can spell: "7c" was once in "814f7c23")
    it.data = {"custom_id": "ofc:ps:1:0:3:2", "component_type": 3, "values": ["Ks", "Qd"]}
    with caplog.at_level(logging.ERROR, logger="ofc.bot"):
        await report_error(it, RuntimeError("boom"))
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "ofc:ps:1:0:3:2" in logged and "Ks" not in logged and "Qd" not in logged
    assert "Something went wrong" in it.sent[0]


class _Messages:
    """A channel whose messages can be edited and deleted (ids 900, 901, ... in every
    channel, as Discord's are)."""

    ids = itertools.count(900)

    def __init__(self) -> None:
        self.sent: list[tuple[int, str]] = []
        self.deleted: list[int] = []

    async def send(self, content: str = "", **kw: Any) -> Any:
        message_id = next(self.ids)
        self.sent.append((message_id, content))

        async def delete() -> None:
            self.deleted.append(message_id)
        return SimpleNamespace(id=message_id, delete=delete)

    def get_partial_message(self, message_id: int) -> Any:
        async def edit(**kw: Any) -> None:
            pass

        async def delete() -> None:
            self.deleted.append(message_id)
        return SimpleNamespace(id=message_id, edit=edit, delete=delete)


async def test_nothing_of_a_closed_table_stays_in_the_presenter() -> None:
    """A bot runs for months and sees thousands of tables open and close: the presenter's
    locks, pending edits, pings and message ids of a table go once its closed message is
    marked (they used to stay, a lock or two and a task per table ever opened)."""
    import gc

    from ..bot.test_service import ALICE, BOB, G, finish_by_autoplay, make, until

    svc, rec, store = await make(seed_factory=lambda: "mem")
    channels: dict[int, _Messages] = {}
    bot = SimpleNamespace(
        service=svc, user=None,
        get_partial_messageable=lambda cid, guild_id: channels.setdefault(cid, _Messages()))
    presenter = Presenter(cast(Any, bot), 0.0)
    svc.notifier = presenter

    def cleared() -> bool:
        return (not svc.tables and not presenter._pending_edits and not presenter._dirty
                and not presenter._last_ping and not presenter._message_ids
                and not presenter._swept and len(presenter._closed_marked) == 3)

    for ch in (501, 502, 503):
        await svc.new_table(G, ch, ALICE, "alice", fantasyland=False)
        await svc.join(G, ch, BOB, "bob")
        await svc.start(ch, ALICE)
        if ch != 503:  # 503 closes during its first hand, the others after it
            await finish_by_autoplay(svc, ch)
        await svc.close(ch, ALICE, True)
        while ch in svc._by_channel and svc._by_channel[ch] in svc.tables:
            await finish_by_autoplay(svc, ch)  # (the hand being played, if any)
            await asyncio.sleep(0.01)
        await until(lambda: not presenter._pending_edits, 10)
    await until(cleared, 10)  # (a slow run: the last marks may come after the last edit)
    gc.collect()
    assert not svc.tables
    assert not presenter._pending_edits and not presenter._dirty
    assert not presenter._last_ping and not presenter._message_ids and not presenter._swept
    assert len(presenter._edit_locks) == 0 and len(presenter._ping_locks) == 0
    assert len(presenter._closed_marked) == 3  # (bounded: MARKED_KEPT)
    for c in channels.values():  # every turn ping was deleted (by its table's showdown)
        pings = [message_id for message_id, text in c.sent if text.startswith("🎯")]
        assert pings and set(pings) <= set(c.deleted)
    await svc.shutdown()
    await store.close()


async def test_the_closed_messages_remembered_are_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(presenter_module, "MARKED_KEPT", 3)
    presenter = Presenter(cast(Any, None))
    for message_id in range(10):
        presenter._remember_marked(message_id)
    assert list(presenter._closed_marked) == [7, 8, 9]


def test_a_showdown_says_why_units_are_not_points_times_the_stake() -> None:
    """Points against a bot move no units, and a short stack pays what it holds, shared in
    proportion: the showdown's text says so (a player read "−1 point, −30 units" at 10 units
    a point and thought the bot miscounted)."""
    from bot.service import ShowdownResult
    from cogs.presenter import units_notes
    from engine import settle, units_moved

    rules = Rules(variant="chinese")
    boards = [Board.parse("6c 5d 4d / As Qs Jc 9d 7c / Kh Qh Jh 9h 5h"), None,
              Board.parse("9c 8h 4h / 2d 2c Ac Qc Js / 3h 3d 3c 7h 7d")]
    st = settle(boards, rules, surrendered=[1])
    units = units_moved(st, 10, stacks=[500, 20, 500])
    r = ShowdownResult(hand_no=1, names=("alice", "bob", "carol"), user_ids=(1, 2, 3),
                       settlement=st, units=tuple(units), fantasyland_next=(0, 0, 0),
                       practice=False, rules=rules, natural_cards=((), (), ()),
                       bots=(False, False, False))
    assert units[1] == -20 and st.totals[1] * 10 < -20
    assert units_notes(r, 10) == [
        "⚖️ Units are not points × 10 here: **bob** could not pay all they owed, so all they "
        "had went to those owed, in proportion to what each was owed."]
    assert units_notes(r, 0) == [] and units_notes(replace(r, units=None), 10) == []
    # the same hand with carol a bot: her points move no units
    botty = replace(r, bots=(False, False, True),
                    units=tuple(units_moved([[0, st.matrix()[0][1], 0],
                                             [st.matrix()[1][0], 0, 0], [0, 0, 0]], 10,
                                            stacks=[500, 20, 0])))
    notes = units_notes(botty, 10)
    assert notes[0] == ("🤖 Points against **carol** move no units: a player's units follow "
                        "their points against humans.")


def test_a_hand_that_moved_no_units_says_none() -> None:
    """``/ofc history``'s result of a hand: its units where the hand could move some; a
    stake-0 table's hand is not "+0 u" for everyone (the points say it all), a practice hand
    says practice."""
    from bot.store import HandResult, PlayerHand
    from cogs.presenter import result_summary
    from cogs.views import my_hand_line

    won = HandResult(user_id=1, seat_no=0, name="a", points=7, units=14, fantasyland=True)
    assert result_summary(won) == "+7 pts, +14 u 🌴 fantasyland"
    assert result_summary(replace(won, units=0), units=False) == "+7 pts 🌴 fantasyland"
    assert result_summary(replace(won, units=0, counted=False), " (practice)",
                          units=False) == "+7 pts (practice) 🌴 fantasyland"
    for stake, said in ((2, "+7 pts, +14 u 🌴 fantasyland"), (0, "+7 pts 🌴 fantasyland")):
        line = my_hand_line(PlayerHand(table_id=1, channel_id=5, number=3, variant="ofc",
                                       stake=stake, finished_at=0.0,
                                       result=won if stake else replace(won, units=0)))
        assert line == f"**#3** in <#5> · ofc · <t:0:f> — {said}"


async def test_the_table_message_is_of_one_moment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Play goes on while the table's picture is drawn (in a thread): the message's status
    line, text and picture are all taken before it.  (Was a defect (fixed): the status was
    read after the drawing, so a move made meanwhile put "round 2" above the text and
    picture of round 1, and the last edit before a showdown could stay so.)"""
    from ..bot.test_service import ALICE, BOB, CH, G, make

    svc, rec, store = await make(seed_factory=lambda: "one-moment")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    presenter = Presenter(cast(Any, SimpleNamespace(service=svc)), 0.0)
    assert t.hand is not None and t.hand.street == 1
    before = presenter_module.table_status(t)

    async def drawn_while_play_goes_on(fn: Any, view: Any, table: Any) -> bytes:
        assert table.hand is not None
        table.hand = None  # (say the hand ended meanwhile, the next one counted)
        table.row = replace(table.row, hand_no=table.row.hand_no + 1)
        return b"png"

    monkeypatch.setattr(presenter_module, "render", drawn_while_play_goes_on)
    text, _file = await presenter.table_payload(t)
    assert text.startswith(before + "\n```\n"), text
    assert _file.filename == f"table-{t.id}-1.png"
    await svc.shutdown()
    await store.close()
