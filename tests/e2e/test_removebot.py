"""/ofc removebot: the table's host (or a server manager) takes a bot's seat back."""

from __future__ import annotations

import asyncio
from typing import Any

from .conftest import make_world, table_of
from .test_bot import act_by_text, to_act, wait_showdown


async def test_the_host_removes_bots_between_and_during_hands(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "e2e-removebot",
                          next_hand_delay=0.2) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", seats=3, bots=2, level="easy")
        t = table_of(w)
        names = [b.name for b in t.bots]
        assert len(names) == 2
        r = await w.slash(w.bob, "ofc join")
        assert r.ephemeral and "full" in r.content.lower()
        # which bot, when there are two; the menu offers them; only the host
        r = await w.slash(w.alice, "ofc removebot")
        assert r.ephemeral and "Which bot?" in r.content and all(n in r.content for n in names)
        choices = await w.fake.autocomplete(w.alice, w.chan, "ofc removebot", "bot")
        assert [c["name"] for c in choices] == [f"{b.name} (seat {b.seat_no + 1})" for b in t.bots]
        assert [c["value"] for c in choices] == [str(b.seat_no + 1) for b in t.bots]
        r = await w.slash(w.alice, "ofc removebot", bot="nobody")
        assert r.ephemeral and "No bot 'nobody' here" in r.content
        r = await w.slash(w.bob, "ofc removebot", bot=names[0])
        assert r.ephemeral and "Only the table's host" in r.content
        # between hands: at once, and the seat is free
        r = await w.slash(w.alice, "ofc removebot", bot=names[0])
        assert r.ephemeral and f"**{names[0]}** left the table" in r.content
        await w.fake.wait_for_message(
            w.chan, lambda m: f"**{names[0]}** left the table" in (m.content or ""),
            include_existing=True)
        assert [b.name for b in t.bots] == names[1:]
        r = await w.slash(w.bob, "ofc join")
        assert "sat down" in r.content
        # during a hand: after it (it plays its hand out), by seat number
        await w.slash(w.alice, "ofc start")
        bot_seat = t.bots[0].seat_no
        r = await w.slash(w.alice, "ofc removebot", bot=str(bot_seat + 1))
        assert r.ephemeral and "will leave the table after this hand" in r.content
        r = await w.slash(w.alice, "ofc removebot")
        assert r.ephemeral and "No bot sits at this table" in r.content
        filled = {w.alice.id: [0, 0, 0], w.bob.id: [0, 0, 0]}
        while table_of(w).hand is not None and table_of(w).row.hand_no == 1:
            acting = to_act(w)
            if acting:
                await act_by_text(w, acting[0], filled[acting[0].id])
            else:
                await asyncio.sleep(0.02)
        await wait_showdown(w)
        assert len(t.last_result.seat_nos) == 3  # it played the hand out
        await w.fake.wait_until(lambda: not t.bots, 10, "the bot gone after the hand")
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean()


async def test_a_server_manager_may_remove_a_bot(tmp_path: Any) -> None:
    async with make_world(tmp_path) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="pineapple", bots=1)
        r = await w.slash(w.admin, "ofc removebot")
        assert r.ephemeral and "left the table" in r.content
        assert not table_of(w).bots
        w.fake.assert_clean()
