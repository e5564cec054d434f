"""Persistence: an aiosqlite store whose balances are derived from a unit ledger."""

from .errors import (
    AlreadyApplied,
    AlreadySeated,
    HandInProgress,
    InsufficientFunds,
    NotFound,
    SeatTaken,
    StoreError,
    TableClosed,
    TableExists,
    TableFull,
)
from .models import (
    MAX_IDLE_HOURS,
    SETTING_NAMES,
    AuditEntry,
    HandResult,
    HandRow,
    LeaderEntry,
    Player,
    PlayerStats,
    SeatRow,
    ServerSettings,
    TableRow,
)
from .store import Store

__all__ = [
    "MAX_IDLE_HOURS",
    "SETTING_NAMES",
    "AlreadyApplied",
    "AlreadySeated",
    "AuditEntry",
    "HandInProgress",
    "HandResult",
    "HandRow",
    "InsufficientFunds",
    "LeaderEntry",
    "NotFound",
    "Player",
    "PlayerStats",
    "SeatRow",
    "SeatTaken",
    "ServerSettings",
    "Store",
    "StoreError",
    "TableClosed",
    "TableExists",
    "TableFull",
    "TableRow",
]
