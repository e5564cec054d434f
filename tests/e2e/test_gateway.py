"""The clocks and Discord's gateway, through the real discord.py client: while the gateway is
lost (discord.py's ``disconnect`` event, until ``resumed``) no clock plays a timeout; when it is
back a clock that ran out gets ``RESUME_GRACE`` and its player is pinged again with the new
countdown. A quick drop that discord.py resumes at once changes no clock."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from bot.service import RESUME_GRACE

from .conftest import hs_of, make_world, table_of

pytestmark = pytest.mark.e2e


async def test_a_lost_gateway_holds_the_clocks_and_gives_a_grace(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "gw-e2e", next_hand_delay=30) as w:
        bot = await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", timer=60)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        await w.fake.wait_until(lambda: t.hand is not None, 5, "the deal")
        hs = t.hand.turn
        mover = w.alice if hs_of(w, w.alice) == hs else w.bob
        deadline = t.deadlines[hs]
        await w.fake.drop_connection()  # a quick drop, resumed at once: nothing changes
        await asyncio.sleep(0.2)
        assert t.deadlines[hs] == deadline
        bot.dispatch("disconnect")
        await asyncio.sleep(0.1)
        w.clock.offset += 300  # five minutes out of reach, far past the 60 s clock
        w.service.rearm()
        await asyncio.sleep(0.5)
        assert t.hand.autoplayed[hs] == 0 and not t.hand.boards[hs].cards
        before = max(m.id for m in w.fake.messages(w.chan))
        bot.dispatch("resumed")
        ping = await w.fake.wait_for_message(
            w.chan, lambda m: m.id > before and "your turn" in (m.content or "")
            and mover.id in m.pinged, include_existing=True)
        new = t.deadlines[hs]
        assert new >= w.clock() + RESUME_GRACE - 2
        assert re.findall(r"<t:(\d+):R>", ping.content or "") == [str(int(new))]
        r = await w.slash(mover, "ofc hand")
        assert r.ephemeral and "ran out" not in (r.content or "")
        assert t.hand.autoplayed[hs] == 0
        w.fake.assert_clean()
