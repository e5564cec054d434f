"""Alt text: what a screen reader says of a picture (Discord's attachment description).

Every picture is sent with its ``describe_*`` twin in the message's own text, so its alt text
does not say it all again (a screen reader would read it twice): it names the picture and the
heading of its twin, and says where the rest is.  Plain text (Discord does not format an
attachment's description), at most ``ALT_LIMIT`` characters.
"""

from __future__ import annotations

from dataclasses import replace

from .hand import describe_hand
from .leaderboard import describe_leaderboard, describe_stats
from .model import HandView, LeaderboardView, ShowdownView, StatsView, TableView
from .showdown import describe_showdown
from .table import describe_table

ALT_LIMIT = 1024  # (Discord's limit on an attachment's description)

Picture = TableView | ShowdownView | HandView | LeaderboardView | StatsView


def alt_text(view: Picture, continued: bool = False) -> str:
    """``Picture of <what>: <its twin's heading>. <where the rest is>.`` (``continued``: the
    twin goes on in the messages after this one).  A hand's time left is left out: the alt
    text never changes, the clock does (the message's text has it as a Discord timestamp,
    which counts down)."""
    if isinstance(view, TableView):
        what, head, rest = "the table", describe_table(view), "every seat's board"
    elif isinstance(view, ShowdownView):
        what, head, rest = "the showdown", describe_showdown(view), (
            "every board, royalty and result")
    elif isinstance(view, HandView):
        what, head, rest = "your hand", describe_hand(replace(view, time_left=None)), (
            "its cards and board")
    elif isinstance(view, LeaderboardView):
        what, head, rest = "the leaderboard", describe_leaderboard(view), "every row"
    else:
        what, head, rest = "the stats", describe_stats(view), (
            "every figure" + (" and the balance chart's range" if len(view.balances) > 1
                              else ""))
    tail = (f". The text of this message and those after it has {rest}." if continued
            else f". The message's text has {rest}.")
    start = f"Picture of {what}: "
    heading = head.split("\n", 1)[0].strip().rstrip(".")
    room = ALT_LIMIT - len(start) - len(tail)
    if len(heading) > room:
        heading = heading[: room - 1].rstrip() + "…"
    return start + heading + tail
