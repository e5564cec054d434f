"""Player names in the bot's messages, messages too long for one Discord message, and
stopping the table-message edits at shutdown."""

from __future__ import annotations

import asyncio
import time
from typing import Any, cast

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
