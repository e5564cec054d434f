"""``/ofc recap`` and the recap posted when a table closes, through the real discord.py
client: in the channel, names as typed (no pings)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import make_world
from .test_past_hands import pineapple_hand_played, showdown_of

pytestmark = pytest.mark.e2e


async def test_recap_in_the_channel_and_when_the_table_closes(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "recap-e2e",
                          next_hand_delay=30) as w:
        t, _ = await pineapple_hand_played(w)
        await showdown_of(w, 1)
        r = await w.slash(w.carol, "ofc recap")  # anyone: it is posted in the channel
        assert not r.ephemeral and r.message is not None and r.message.is_visible_to(w.dave)
        lines = r.content.split("\n")
        assert lines[0].startswith("📋 **This table so far** — pineapple, 1 unit per point · "
                                   "1 hand, <t:")
        assert {line.split(" ")[1] for line in lines[1:]} == {"alice", "bob"}
        assert all(" · 1 hand · " in line for line in lines[1:])
        assert not r.message.pinged
        closed = await w.slash(w.alice, "ofc close")
        assert closed.content.startswith("The table is closed; every stack went back to its "
                                         "owner's balance.\n📋 **Recap** — pineapple")
        assert closed.content.split("\n")[2:] == lines[1:]
        r = await w.slash(w.carol, "ofc recap")  # the channel's last table, closed
        assert r.content.split("\n")[0].startswith("📋 **Recap** — pineapple")
        w.fake.assert_clean()
