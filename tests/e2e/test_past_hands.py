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


async def pineapple_hand_played(w: World) -> tuple[Any, set[str]]:
    """Alice and Bob play hand #1 of a pineapple table for 1 unit a point: the table and the
    cards they discarded."""
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
    return t, discards


async def test_a_pineapple_showdown_again_is_the_one_posted_without_the_discards(
    tmp_path: Any,
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "past-e2e",
                          next_hand_delay=0.01) as w:
        t, discards = await pineapple_hand_played(w)
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
            "`/ofc history hand:<number>` shows a hand's showdown again, and replays it round by "
            "round.")
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
        # set at once: no rounds to replay, only the review of one's play
        assert r.message is not None
        assert [b["label"] for b in r.message.buttons()] == ["Review my play"]
        assert [b["label"] for b in live.buttons()] == ["Review my play"]
        w.fake.assert_clean()


async def test_the_buttons_replay_a_hand_round_by_round_without_the_discards(
    tmp_path: Any,
) -> None:
    """Under a past hand's showdown, *Replay: round 1*, then ◀ / ▶ and *Showdown*: the table
    after each round (picture and text), its cards added round by round, the discards never
    named; the showdown comes back as it was."""
    async with make_world(tmp_path, seed_factory=lambda: "past-replay",
                          next_hand_delay=30) as w:
        t, discards = await pineapple_hand_played(w)
        live = await showdown_of(w, 1)
        final = [{str(c) for c in t.last_result.settlement.boards[hs_of(w, who)].cards}
                 for who in (w.alice, w.bob)]
        r = await w.slash(w.carol, "ofc history", hand=1)
        shown = r.message
        assert shown is not None and shown.ephemeral
        assert [b["label"] for b in shown.buttons()] == ["⏪ Replay: round 1", "Review my play"]
        seen: list[int] = []
        click = await w.click(w.carol, shown, label="⏪ Replay: round 1")
        for k in range(1, 6):
            m = click.message
            assert m is not None and m.ephemeral and m.id == shown.id  # the same message
            assert re.match(rf"Hand #1 at this table, <t:\d+:f> — round {k} of 5 \(replay\):\n```\n", m.content), \
                m.content
            assert m.files and m.files[0][1].startswith(b"\x89PNG")
            assert m.files[0][0] == f"hand-1-round-{k}.png"
            assert not named(m.content, discards)
            cards = {c for board in final for c in named(m.content, board)}
            seen.append(len(cards))
            assert [b["label"] for b in m.buttons()] == [
                "◀ No earlier round" if k == 1 else f"◀ Round {k - 1}",
                "No later round ▶" if k == 5 else f"Round {k + 1} ▶",
                "🏁 Showdown"]
            assert ("end of the hand" in m.content) == (k == 5)
            if k < 5:
                click = await w.click(w.carol, m, label=f"Round {k + 1} ▶")
        assert seen == [10, 14, 18, 22, 26]  # 5 each, then 2 each a round
        click = await w.click(w.carol, click.message, label="◀ Round 4")
        assert "round 4 of 5" in (click.content or "")
        click = await w.click(w.carol, click.message, label="🏁 Showdown")
        assert click.content is not None and click.content.endswith(live.content)
        assert [data for _, data in click.message.files] == [data for _, data in live.files]
        w.fake.assert_clean()


async def test_the_replay_buttons_outlive_the_table_and_a_restart(tmp_path: Any) -> None:
    """The buttons name their table: after it closed and the channel opened another (whose
    hand #1 is another hand), and after a restart, they still replay the same hand."""
    async with make_world(tmp_path, seed_factory=lambda: "past-replay-later",
                          next_hand_delay=30) as w:
        t, _ = await pineapple_hand_played(w)
        await showdown_of(w, 1)
        final = {str(c) for c in t.last_result.settlement.boards[hs_of(w, w.alice)].cards}
        shown = (await w.slash(w.bob, "ofc history", hand=1)).message
        r = await w.slash(w.alice, "ofc close")
        await w.fake.wait_until(lambda: t.id not in w.service.tables, 20, "closed")
        r = await w.slash(w.carol, "ofc new", variant="ofc")
        assert "opened" in r.content, r.content
        await w.stop_bot()
        await w.start_bot()
        click = await w.click(w.bob, shown, label="⏪ Replay: round 1")
        click = await w.click(w.bob, click.message, label="Round 2 ▶")
        assert "round 2 of 5 (replay)" in (click.content or "")
        for k in (3, 4, 5):
            click = await w.click(w.bob, click.message, label=f"Round {k} ▶")
        assert "the end of the hand" in (click.content or "")
        assert final <= set(named(click.content or "", final))
        w.fake.assert_clean()


async def test_replay_under_the_posted_showdown_answers_the_clicker_privately(
    tmp_path: Any,
) -> None:
    """*Replay* under the showdown in the channel: the first round to whoever clicks (a
    spectator too), privately, with the replay's buttons; the posted showdown stays as it
    was, for everyone."""
    async with make_world(tmp_path, seed_factory=lambda: "past-replay-live",
                          next_hand_delay=30) as w:
        t, discards = await pineapple_hand_played(w)
        live = await showdown_of(w, 1)
        assert [b["label"] for b in live.buttons()] == ["Replay", "Review my play"]
        before = (live.content, live.files, live.components)
        click = await w.click(w.dave, live, label="Replay")
        m = click.message
        assert m is not None and m.ephemeral and m.is_visible_to(w.dave)
        assert not m.is_visible_to(w.alice) and m.id != live.id
        assert re.match(r"Hand #1, <t:\d+:f> — round 1 of 5 \(replay\):", m.content)
        assert [b["label"] for b in m.buttons()] == ["◀ No earlier round", "Round 2 ▶", "🏁 Showdown"]
        click = await w.click(w.dave, m, label="Round 2 ▶")
        assert "round 2 of 5" in (click.content or "")
        assert not named(click.content or "", discards)
        assert (live.content, live.files, live.components) == before
        w.fake.assert_clean()
