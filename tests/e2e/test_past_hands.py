"""``/ofc history hand:<number>``: a settled hand's showdown again, privately, through the real
discord.py client: the same picture and text as the showdown that was posted, and nothing
that stayed hidden then (pineapple discards, a chinese surrender's cards)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from .conftest import World, fill_move, hs_of, make_world, panel_cards, table_of
from .fakediscord import FakeMessage

pytestmark = pytest.mark.e2e


async def showdown_of(w: World, number: int, timeout: float = 30) -> FakeMessage:
    return await w.fake.wait_for_message(
        w.chan, lambda m: f"Showdown — hand #{number}**" in (m.content or ""), timeout=timeout,
        include_existing=True)


def named(text: str, cards: set[str]) -> set[str]:
    return {c for c in cards if re.search(rf"(?<![0-9A-Za-z]){c}(?![0-9A-Za-z])", text)}


async def test_a_pineapple_showdown_again_is_the_one_posted_without_the_discards(
    tmp_path: Any,
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "past-e2e",
                          next_hand_delay=0.01) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="pineapple", stake=1)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        discards: set[str] = set()
        while t.hand is not None and t.row.hand_no == 1:
            acted = False
            for who in (w.alice, w.bob):
                hs = hs_of(w, who)
                if t.hand is None or t.row.hand_no != 1 or not t.hand.may_act(hs):
                    continue
                cards = panel_cards((await w.slash(who, "ofc hand")).content)
                discard = t.hand.requirement(hs).discard
                discards |= set(cards[len(cards) - discard:]) if discard else set()
                r = await w.slash(who, "ofc place", move=fill_move(t, hs, cards))
                assert r.content.startswith("✅"), r.content
                acted = True
            if not acted:
                await asyncio.sleep(0.05)
        assert len(discards) == 8  # one a street after the first (four), each player
        live = await showdown_of(w, 1)
        await w.fake.wait_until(lambda: t.hand is not None and t.row.hand_no == 2, 20, "hand 2")

        r = await w.slash(w.carol, "ofc history", hand=2)  # a spectator, mid-hand
        assert r.ephemeral and r.content == (
            "⚠️ Hand #2 is being played: its cards are shown at its showdown.")
        assert not r.files
        r = await w.slash(w.carol, "ofc history", hand=1)
        assert r.ephemeral and re.match(r"Hand #1 at this table, <t:\d+:f>:\n", r.content)
        assert r.content.endswith(live.content), (r.content, live.content)
        assert [data for _, data in r.files] == [data for _, data in live.files]
        assert not named(r.content, discards)
        r = await w.slash(w.carol, "ofc history", hand=3)
        assert r.content == "⚠️ There is no hand #3 here: this table's hands are #1 to #2."
        r = await w.slash(w.carol, "ofc history")
        assert r.content.split("\n")[-1] == (
            "`/ofc history hand:<number>` shows a hand's showdown again.")
        w.fake.assert_clean()


async def test_a_chinese_surrender_stays_unseen_in_a_closed_tables_hand(
    tmp_path: Any,
) -> None:
    """bob surrenders (his cards are never shown), alice sets; the table closes after the
    hand; its channel still shows the hand, in the table's two-colour deck, naming none of
    bob's cards."""
    async with make_world(tmp_path, seed_factory=lambda: "past-chinese",
                          next_hand_delay=0.01) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", stake=2)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc options", deck="two")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        await w.fake.wait_until(lambda: t.hand is not None, 5, "the deal")
        bob_cards = {str(c) for c in t.hand.pending[hs_of(w, w.bob)]}
        ask = await w.slash(w.bob, "ofc surrender")
        await w.click(w.bob, ask, label="Yes, surrender")
        await w.slash(w.alice, "ofc close")
        cards = panel_cards((await w.slash(w.alice, "ofc hand")).content)
        r = await w.slash(w.alice, "ofc place",
                          move=fill_move(t, hs_of(w, w.alice), cards))
        assert "Your hand is set" in r.content, r.content
        live = await showdown_of(w, 1)
        await w.fake.wait_until(lambda: t.id not in w.service.tables, 20, "closed")
        assert not named(live.content, bob_cards)

        r = await w.slash(w.alice, "ofc history", hand=1)
        assert r.ephemeral and r.content.startswith("Hand #1 at the last table here (closed), ")
        assert r.content.endswith(live.content)
        assert "surrender" in r.content.lower()
        assert not named(r.content, bob_cards)
        assert [data for _, data in r.files] == [data for _, data in live.files]
        w.fake.assert_clean()
