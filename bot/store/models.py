"""Rows returned by (and the one record passed to) the store.  Plain frozen dataclasses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

JSONObject = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """Per-server settings; a server that never changed anything gets these defaults."""

    guild_id: int
    start_balance: int = 1000
    """Units a player gets the first time they appear in the server."""
    max_stake: int = 100
    """Largest stake (units per point) a table may be created with."""
    default_buyin: int = 200
    max_buyin: int = 1000
    """Largest table buy-in a table may be created with."""
    default_timer: int = 60
    """Seconds per decision."""
    idle_hours: int = 24
    """A table closes after this many hours with nothing happening (0: never)."""
    admin_role_id: int | None = None
    """Role allowed to grant units and change settings (None: the cog's own rule)."""


MAX_IDLE_HOURS = 720
"""``idle_hours`` at most (30 days)."""
PER_HAND_MIN_HANDS = 20
"""Counted hands a player needs to be ranked by points per hand (fewer tell little)."""

SETTING_NAMES: tuple[str, ...] = (
    "start_balance", "max_stake", "default_buyin", "max_buyin", "default_timer", "admin_role_id",
    "idle_hours",
)


@dataclass(frozen=True, slots=True)
class Player:
    guild_id: int
    user_id: int
    name: str
    balance: int
    """Wallet: units not at any table."""
    created_at: float
    is_new: bool = False
    """True when this call created the player (and gave the start balance)."""


@dataclass(frozen=True, slots=True)
class AuditEntry:
    id: int
    guild_id: int
    by_user_id: int
    user_id: int
    amount: int
    reason: str
    balance_after: int
    created_at: float


@dataclass(frozen=True, slots=True)
class TableRow:
    id: int
    guild_id: int
    channel_id: int
    creator_id: int
    rules: JSONObject
    stake: int
    buyin: int
    max_seats: int
    status: str
    """'open', 'closing' (no new hands, finishing the current one) or 'closed'."""
    message_id: int | None
    button: int
    hand_no: int
    extra: JSONObject
    created_at: float
    updated_at: float
    closed_at: float | None


@dataclass(frozen=True, slots=True)
class SeatRow:
    id: int
    table_id: int
    seat_no: int
    guild_id: int
    user_id: int
    name: str
    is_bot: bool
    bot_level: str | int | None
    buyin: int
    """Units bought in when sitting down (for a bot: whatever the caller passed; no units)."""
    sitting_out: bool
    leaving: bool
    """Leave (and cash out) when the current hand ends."""
    joined_at: float
    left_at: float | None
    stack: int
    """Units at the table, from the ledger.  Always 0 for a bot."""


@dataclass(frozen=True, slots=True)
class HandRow:
    id: int
    table_id: int
    number: int
    seed: str
    rules: JSONObject
    state: JSONObject
    log: list[Any]
    status: str
    """'playing', 'done' (settled) or 'aborted' (table closed mid-hand; nothing moved)."""
    deadline: float | None
    created_at: float
    updated_at: float
    finished_at: float | None


@dataclass(frozen=True, slots=True)
class HandResult:
    """One seat's result of a hand, passed to ``Store.finish_hand`` and returned by ``history``.

    ``units`` must equal the seat's movement for a counted human result.  Uncounted results
    (practice hands) carry ``units == 0`` and appear in the history only.  Bots hold no units,
    so a bot's movement must be 0; a bot's ``units`` is stored as given (notional)."""

    user_id: int
    seat_no: int
    name: str
    points: int
    units: int
    fouled: bool = False
    royalties: int = 0
    fantasyland: bool = False
    """Goes to fantasyland next hand."""
    surrendered: bool = False
    natural: str | None = None
    is_bot: bool = False
    counted: bool = True
    """False for practice hands: recorded, but no units and no leaderboard/stats."""
    ranked_points: int | None = None
    """The points that count in leaderboards and stats: those against humans (None: all of
    ``points``, as for a table without bots)."""


@dataclass(frozen=True, slots=True)
class LeaderEntry:
    user_id: int
    name: str
    units: int
    points: int
    hands: int
    fantasylands: int

    @property
    def points_per_hand(self) -> float:
        """As shown (two decimals): players shown alike share their rank."""
        return round(self.points / self.hands, 2) if self.hands else 0.0


@dataclass(frozen=True, slots=True)
class PlayerHand:
    """One settled hand of a player, at any table of the server (``Store.player_hands``)."""

    table_id: int
    channel_id: int
    number: int
    """The hand's number at its table."""
    variant: str
    finished_at: float
    stake: int
    """The table's units per point (0: it played for none)."""
    result: HandResult
    """The player's own result."""


@dataclass(frozen=True, slots=True)
class ExportedHand:
    """One settled hand of a player with how many played it and the player's own final rows
    (``Store.player_export``: ``/ofc history file``)."""

    hand: PlayerHand
    players: int
    rows: tuple[str, str, str] | None
    """Top, middle, bottom as set (cards by text, e.g. ``"Qh Qd 2s"``); none when the stored
    hand has no board for the seat (a chinese natural declared)."""
    hand_id: int
    """The hand's id in the store (with ``finished_at``, where the next page starts)."""


@dataclass(frozen=True, slots=True)
class RecapRow:
    """One player's results at one table (``Store.table_recap``)."""

    user_id: int
    name: str
    """As in their last hand there."""
    is_bot: bool
    hands: int
    points: int
    units: int
    """Units won or lost in the hands that counted (none in practice hands)."""
    fouls: int
    fantasylands: int
    """Fantasylands earned."""
    best: int
    """The most points in one hand."""
    counted: int = 0
    """Hands that counted (not practice): units move in those only."""
    ranked: int | None = None
    """The points that count in ``/ofc stats`` and the leaderboards: those against humans in
    the hands that counted (None: as ``points``)."""


@dataclass(frozen=True, slots=True)
class TableRecap:
    """A table's settled hands in all (``Store.table_recap``): how it went for each player,
    most points first."""

    hands: int
    started: float
    """When its first settled hand was dealt."""
    ended: float
    """When its last settled hand ended."""
    players: tuple[RecapRow, ...]


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """Counted hands of one human in one server (all time)."""

    hands: int
    points: int
    units: int
    fouls: int
    fantasylands: int
    balance: int
    """Wallet now (units not at a table)."""
    balance_history: list[int] = field(default_factory=list)
    """Units owned (wallet + table stacks) right before the oldest of the last 30 counted
    hands, then right after each of them, oldest first (so one more than the hands; empty
    without hands).  (A hand moves stack units only, so the wallet alone would be flat.)"""
    in_play: int = 0
    """Units at tables in this server now."""
    name: str = ""
