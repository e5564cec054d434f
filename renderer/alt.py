"""Alt text: what a screen reader says of a picture (Discord's attachment description).

Every picture is sent with its ``describe_*`` twin in the message's own text, so its alt text
does not say it all again (a screen reader would read it twice): it names the picture and the
heading of its twin, and says where the rest is.  Plain text (Discord does not format an
attachment's description), at most ``ALT_LIMIT`` characters.
"""

from __future__ import annotations

from .hand import describe_hand
from .leaderboard import describe_leaderboard, describe_stats
from .model import HandView, LeaderboardView, ShowdownView, StatsView, TableView
from .showdown import describe_showdown
from .table import describe_table

ALT_LIMIT = 1024  # (Discord's limit on an attachment's description)

Picture = TableView | ShowdownView | HandView | LeaderboardView | StatsView


def alt_text(view: Picture) -> str:
    """``Picture of <what>: <its twin's heading>. <where the rest is>.``"""
    if isinstance(view, TableView):
        what, head, rest = "the table", describe_table(view), "every seat's board"
    elif isinstance(view, ShowdownView):
        what, head, rest = "the showdown", describe_showdown(view), (
            "every board, royalty and result")
    elif isinstance(view, HandView):
        what, head, rest = "your hand", describe_hand(view), "its cards and board"
    elif isinstance(view, LeaderboardView):
        what, head, rest = "the leaderboard", describe_leaderboard(view), "every row"
    else:
        what, head, rest = "the stats", describe_stats(view), (
            "every figure" + (" and the balance chart's range" if len(view.balances) > 1
                              else ""))
    tail = f". The message's text has {rest}."
    start = f"Picture of {what}: "
    heading = head.split("\n", 1)[0].strip().rstrip(".")
    room = ALT_LIMIT - len(start) - len(tail)
    if len(heading) > room:
        heading = heading[: room - 1].rstrip() + "…"
    return start + heading + tail
