"""Wording, through the real discord.py client: errors are sentences, the stake is "per
point" in sentences, a hand that moved no units is not "+0 u", and an empty recap is said
privately."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import hs_of, make_world, table_of
from .test_evening_review import play_out, showdown

pytestmark = pytest.mark.e2e


async def test_a_stake_0_tables_history_and_recap_speak_of_points_only(tmp_path: Any) -> None:
    """Alice and bob play a hand at a stake-0 table: the channel's history and alice's own
    hands give points, not "+0 u" for each; before it, ``/ofc recap`` says privately that no
    hand has finished (the channel does not read that nothing happened)."""
    async with make_world(tmp_path, seed_factory=lambda: "wording-stake0",
                          next_hand_delay=3600) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=0, buyin=0)
        await w.slash(w.bob, "ofc join", buyin=0)
        r = await w.slash(w.carol, "ofc recap")
        assert r.ephemeral and r.content == "No hand has finished at this table yet."
        await w.slash(w.alice, "ofc start")
        await play_out(w, (w.alice, w.bob))
        await showdown(w, 1)
        history = await w.slash(w.carol, "ofc history")
        line = next(x for x in history.content.split("\n") if x.startswith("**#1**"))
        assert " pts" in line and " u" not in line.replace(" pts", ""), line
        mine = await w.slash(w.alice, "ofc history", mine=True)
        line = next(x for x in mine.content.split("\n") if x.startswith("**#1**"))
        assert line.endswith(" pts") or " pts " in line, line
        assert " u" not in line.split(" — ", 1)[1].replace(" pts", ""), line
        recap = await w.slash(w.carol, "ofc recap")
        assert not recap.ephemeral and ", no units · 1 hand" in recap.content.split("\n")[0]
        w.fake.assert_clean()


async def test_errors_end_as_sentences_and_the_stake_is_per_point(tmp_path: Any) -> None:
    """The engine's messages (whose turn, a card not held, a full row) reach the player as
    sentences; the recap and the server settings say "per point"."""
    async with make_world(tmp_path, seed_factory=lambda: "wording-errors",
                          next_hand_delay=3600) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=2)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        assert t.hand is not None
        waiting = w.alice if t.hand.turn != hs_of(w, w.alice) else w.bob
        r = await w.slash(waiting, "ofc place", move="Ah top")
        assert r.ephemeral and r.content.startswith("⚠️ It is ") and r.content.endswith(
            "turn; you are pinged when it is yours."), r.content
        acting = w.bob if waiting is w.alice else w.alice
        held = {str(c) for c in t.hand.pending[t.hand.turn]}
        stranger = next(c for c in ("As", "Ks", "Qs", "Js", "Ts", "9s") if c not in held)
        r = await w.slash(acting, "ofc place", move=f"{stranger} top")
        assert r.content.startswith(f"⚠️ {stranger} is not in your hand") and r.content.endswith(
            "."), r.content
        cards = sorted(held)
        r = await w.slash(acting, "ofc place", move=" ".join(cards[:4]) + " top " + cards[4]
                          + " bottom")
        assert r.content.endswith("not 4."), r.content
        await play_out(w, (w.alice, w.bob))
        await showdown(w, 1)
        recap = await w.slash(w.carol, "ofc recap")
        assert "ofc, 2 units per point · 1 hand" in recap.content.split("\n")[0], recap.content
        s = await w.slash(w.admin, "ofc-admin settings", max_stake=50)
        assert "max stake 50 per point" in s.content, s.content
        w.fake.assert_clean()
