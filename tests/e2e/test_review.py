"""*Review my play* and ``/ofc review`` through the real discord.py client: a player's own
decisions in a finished hand against the AI's, privately; never another player's cards,
never a hand still being played."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine.cards import cards_from_json

from .conftest import World, make_world, table_of
from .test_past_hands import named, pineapple_hand_played, showdown_of

pytestmark = pytest.mark.e2e

HEADING = re.compile(r"🧠 \*\*Your play in hand #1\*\*(?P<where> at <#\d+>)?, <t:\d+:f> "
                     r"\(pineapple\), against the AI's:\n")


async def discards_of(w: World, who: Any) -> set[str]:
    t = table_of(w)
    row, _ = await w.service.store.numbered_hand(t.id, 1)
    seat = [int(u) for u in row.state["users"]].index(who.id)
    return {str(c) for c in cards_from_json(row.state["engine"]["state"]["discards"][seat])}


def review_text(rec: Any) -> str:
    return "\n".join(m.content or "" for m in rec.followups)


async def test_review_my_play_under_the_showdown_and_by_command(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "review-e2e",
                          next_hand_delay=0.01) as w:
        t, _ = await pineapple_hand_played(w)
        live = await showdown_of(w, 1)
        assert [b["label"] for b in live.buttons()] == ["Replay", "Review my play"]
        await w.fake.wait_until(lambda: t.hand is not None and t.row.hand_no == 2, 20, "hand 2")
        bobs = await discards_of(w, w.bob)
        alices = await discards_of(w, w.alice)

        click = await w.click(w.alice, live, label="Review my play", timeout=60)
        text = review_text(click)
        assert all(m.ephemeral and m.is_visible_to(w.alice) and not m.is_visible_to(w.bob)
                   for m in click.followups)
        assert HEADING.match(text) and not HEADING.match(text)["where"], text  # (asked here)
        assert [int(n) for n in re.findall(r"^Round (\d) · ", text, re.M)] == [1, 2, 3, 4, 5]
        assert text.count("  you ") == 5 and "```" in text
        assert "-# Values: the points a move was expected to bring" in text
        assert not named(text, bobs)  # never another player's discards
        assert named(text, alices) == alices  # her own, as dealt to her
        # the same answer by the command (her last hand), and from /ofc history hand:
        again = await w.fake.slash(w.alice, w.chan, "ofc review", timeout=60)
        assert review_text(again) == text
        shown = await w.slash(w.alice, "ofc history", hand=1)
        click = await w.click(w.alice, shown, label="Review my play", timeout=60)
        assert review_text(click) == text

        bob = await w.fake.slash(w.bob, w.chan, "ofc review", timeout=60, hand=1)
        assert HEADING.match(review_text(bob)) and not named(review_text(bob), alices)

        r = await w.click(w.carol, live, label="Review my play")
        assert r.ephemeral and r.content == (
            "⚠️ You did not play hand #1: a review is of your own decisions.")
        r = await w.slash(w.alice, "ofc review", hand=2)
        assert r.ephemeral and r.content == (
            "⚠️ Hand #2 is being played: review it after its showdown.")
        r = await w.slash(w.carol, "ofc review")
        assert r.ephemeral and r.content == (
            "⚠️ You have not finished a hand in this server yet.")
        w.fake.assert_clean()


async def test_a_chinese_hand_has_no_replay_but_a_review(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "review-chinese",
                          next_hand_delay=30) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", stake=1)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        for who in (w.alice, w.bob):
            hs = [s.user_id for s in sorted(t.seats, key=lambda s: s.seat_no)].index(who.id)
            hand_seat = t.hand_seat_of(hs)
            assert t.hand is not None and hand_seat is not None
            move = " ".join(f"{c} {'top' if i < 3 else 'middle' if i < 8 else 'bottom'}"
                            for i, c in enumerate(sorted(t.hand.pending[hand_seat])))
            await w.slash(who, "ofc place", move=move + " foul")
        live = await showdown_of(w, 1)
        assert [b["label"] for b in live.buttons()] == ["Review my play"]
        click = await w.click(w.bob, live, label="Review my play", timeout=60)
        text = review_text(click)
        assert "(chinese), against the AI's:" in text and "\nSet · " in text
        assert "A set is judged by the solver against a typical opponent." in text
        w.fake.assert_clean()


async def test_ofc_solve_privately_with_the_picture(tmp_path: Any) -> None:
    """``/ofc suggest cards:``: the best setting of typed cards, privately, the board drawn with its
    discards; a mistake is said; in a channel with a pineapple table, its options count."""
    async with make_world(tmp_path, seed_factory=lambda: "solve-e2e") as w:
        await w.start_bot()
        r = await w.slash(w.carol, "ofc suggest", cards="Qh Qd Qs Kh Kd Ks 4c 3d 9c Tc Jc 2c 8c 7d 6s")
        assert r.ephemeral and r.content.split("\n") == [
            "🧮 The best setting of 15 cards (pineapple, exact):",
            "top Qs Qh Qd (three queens) · middle Ks Kh Kd 7d 6s (three kings) · bottom Jc Tc 9c "
            "8c 4c (jack-high flush)",
            "discard 3d 2c",
            "Royalties 26 (top 20, middle 2, bottom 4); stays in fantasyland (14 cards next, "
            "counted +14.5): worth 40.5.",
            "`Qs Qh Qd top, Ks Kh Kd 7d 6s middle, Jc Tc 9c 8c 4c bottom, 3d 2c discard`"]
        assert r.files[0][0] == "solution.png" and r.files[0][1].startswith(b"\x89PNG")
        r = await w.slash(w.carol, "ofc suggest", cards="Qh Qd Qs", variant="ofc")
        assert r.ephemeral and r.content == (
            "⚠️ An ofc fantasyland hand is 13 cards, not 3.") and not r.files
        await w.slash(w.alice, "ofc new", variant="pineapple")
        await w.slash(w.alice, "ofc options", stay_value="40")
        r = await w.slash(w.carol, "ofc suggest", cards="Qh Qd Qs Kh Kd Ks 4c 3d 9c Tc Jc 2c 8c 7d 6s")
        assert "counted +40): worth 66." in r.content
        w.fake.assert_clean()


async def test_suggest_takes_variant_only_with_cards(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "suggest-variant") as w:
        await w.start_bot()
        r = await w.slash(w.carol, "ofc suggest", variant="ofc")
        assert r.ephemeral and r.content.startswith("⚠️ `variant` goes with `cards`")
        w.fake.assert_clean()
