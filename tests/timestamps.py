"""Discord's relative timestamps as a reader sees them: the idle warning gives its close as
``<t:N:R>``, which every Discord client shows as the time from when it is read ("in 30
minutes"); tests read it at the moment it was sent, worded as the bot words spans."""

from __future__ import annotations

import re

from bot.service import _about


def as_read(text: str, now: float) -> str:
    """``text`` with each ``<t:N:R>`` as Discord shows it at ``now`` ("in 30 minutes")."""
    return re.sub(r"<t:(\d+):R>", lambda m: f"in {_about(int(m[1]) - now)}", text)
