"""OFC Table's renderer: engine state -> PNG bytes (Pillow), plus a text equivalent of each image.

Knows the engine's types and nothing of Discord.  Every ``render_*`` is a pure function of its
input (same input, same bytes) and safe to call from worker threads; each has a ``describe_*``
twin that says the same thing in text (never naming a face-down card), and the table, hand and
showdown have a ``*_layout`` that lists where every card is drawn.  ``alt_text`` is what a
screen reader says of a picture sent beside its twin.
"""

from .alt import ALT_LIMIT, alt_text
from .hand import describe_hand, hand_layout, hand_scene, render_hand
from .leaderboard import (
    describe_leaderboard,
    describe_stats,
    leaderboard_scene,
    render_leaderboard,
    render_stats,
    stats_scene,
)
from .model import (
    HandView,
    LeaderboardView,
    LeaderRow,
    SeatView,
    ShowdownView,
    StatsView,
    TableView,
    Theme,
)
from .scene import CardSpot, Scene
from .showdown import describe_showdown, render_showdown, showdown_layout, showdown_scene
from .table import describe_table, render_table, table_layout, table_scene
from .warm import warm_up

__all__ = [
    "ALT_LIMIT", "CardSpot", "HandView", "LeaderRow", "LeaderboardView", "Scene", "SeatView",
    "ShowdownView", "StatsView", "TableView", "Theme", "alt_text", "describe_hand",
    "describe_leaderboard",
    "describe_showdown", "describe_stats", "describe_table", "hand_layout", "hand_scene",
    "leaderboard_scene", "render_hand", "render_leaderboard", "render_showdown", "render_stats",
    "render_table", "showdown_layout", "showdown_scene", "stats_scene", "table_layout",
    "table_scene", "warm_up",
]
