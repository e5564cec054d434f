"""Every picture reaches Discord with its alt text (the attachment's description: what a screen
reader says of it instead of its file name): the table message and its edits, the panel, a
fantasyland hand by DM, the showdown, a past hand, the leaderboard, stats and a solved hand.
(``make_world`` also checks, after every e2e test, that no picture went without one.)"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import fill_move, hs_of, make_world, panel_cards, table_of
from .fakediscord import FakeMessage

pytestmark = pytest.mark.e2e


def alt(m: FakeMessage | None) -> str:
    assert m is not None and len(m.attachments) == 1, m
    return m.attachments[0].description or ""


async def test_every_kind_of_picture_has_its_alt_text(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "alt-text") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        t = table_of(w)
        await w.store.update_table(t.id, extra={"fantasyland": {"0": 13}})
        await w.service._refresh(t)
        await w.slash(w.alice, "ofc start")
        dm = await w.fake.wait_for_message(
            w.alice, lambda m: "Fantasyland" in (m.content or ""), include_existing=True)
        assert alt(dm).startswith("Picture of your hand: alice (fantasyland) — Set 13 cards")
        assert alt(dm).endswith(". The message's text has its cards and board.")

        table_msg = await w.fake.wait_for_message(
            w.chan, lambda m: bool(m.attachments) and "Hand 1" in alt(m), include_existing=True)
        assert alt(table_msg).startswith("Picture of the table: Open Face · 1 unit/pt — Hand 1")
        assert alt(table_msg).endswith(
            "The message's text has every seat's board.")

        panel = await w.slash(w.bob, "ofc hand")
        assert panel.ephemeral and alt(panel.message).startswith("Picture of your hand: bob — ")

        await w.slash(w.alice, "ofc place",
                      move=fill_move(table_of(w), hs_of(w, w.alice), panel_cards(dm.content)))
        ask = await w.slash(w.bob, "ofc surrender")
        await w.click(w.bob, ask, label="Yes, surrender")
        showdown = await w.fake.wait_for_message(
            w.chan, lambda m: "Showdown — hand #1" in (m.content or ""), include_existing=True)
        assert alt(showdown).startswith("Picture of the showdown: Open Face · ")
        assert alt(showdown).endswith("The message's text has every board, royalty and result.")
        edited = w.fake.messages(w.chan)
        assert all(a.description for m in edited for a in m.attachments)

        past = await w.slash(w.carol, "ofc history", hand=1)
        assert alt(past.message).startswith("Picture of the showdown: ")
        board = await w.slash(w.carol, "ofc leaderboard")
        assert alt(board.message).startswith("Picture of the leaderboard: Poker Night leaderboard")
        stats = await w.slash(w.bob, "ofc stats")
        assert alt(stats.message).startswith("Picture of the stats: bob — 1 hand, ")
        solved = await w.slash(w.carol, "ofc suggest",
                               cards="Qh Qd Qs Kh Kd Ks 4c 3d 9c Tc Jc 2c 8c")
        assert alt(solved.message).startswith("Picture of your hand: carol (fantasyland) — Best ")
        for pictured in (dm, table_msg, panel.message, showdown, past.message, board.message,
                         stats.message, solved.message):
            assert "\n" not in alt(pictured) and len(alt(pictured)) <= 1024


