"""The aiosqlite store: servers, players, tables, seats, hands, results and the unit ledger.

Money model
-----------
Units are never stored as a balance.  Every movement is a ``ledger`` row and

* a wallet ("balance") is ``SUM(amount)`` over ``(guild_id, user_id, account='balance')``,
* a table stack is ``SUM(amount)`` over ``(table_id, user_id, account='stack')``.

Units enter a server only as a start balance (``kind='start'``, once per player) or an
audited grant (``'grant'``).  Buy-ins and cash-outs are pairs of rows in one transaction
(``'buyin'``/``'cashout'``: -x on one account, +x on the other), and a hand moves stack
units between players (``'hand'``, rows summing to zero) in the same transaction that
records its results.  UNIQUE indexes make a second start, a second buy-in/cash-out of a
seat and a second settlement of a hand impossible; ``verify_ledger`` re-checks it all.

Bots hold no units: seating a bot writes no ledger rows and its stack is always 0, so any
unit a bot "wins" or "loses" must stay out of the movements (play such hands as practice,
or settle only between the humans).

Concurrency: one connection, one ``asyncio.Lock``.  Every method takes the lock; writes
run inside ``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on any error), so a method
that raises has written nothing and a method that returns has committed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from importlib import resources
from os import PathLike
from typing import Any

import aiosqlite

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
    PER_HAND_MIN_HANDS,
    SETTING_NAMES,
    AuditEntry,
    ExportedHand,
    HandResult,
    HandRow,
    JSONObject,
    LeaderEntry,
    Player,
    PlayerHand,
    PlayerStats,
    RecapRow,
    SeatRow,
    ServerSettings,
    TableRecap,
    TableRow,
)

__all__ = ["Store", "load_migrations", "split_statements"]

log = logging.getLogger(__name__)

_MIGRATION_NAME = re.compile(r"(\d{3,})_[A-Za-z0-9_]+\.sql")
TABLE_STATUSES = ("open", "closing", "closed")
LEADERBOARD_KEYS = ("units", "points", "hands", "fantasylands", "points_per_hand")
HISTORY_POINTS = 30
_TABLE_FIELDS = ("status", "message_id", "button", "hand_no", "extra", "rules")
_SEAT_FIELDS = ("sitting_out", "leaving", "name", "bot_level")
_Params = Sequence[Any] | Mapping[str, Any]


# --------------------------------------------------------------------------- migrations


def load_migrations() -> list[tuple[int, str, str]]:
    """``(number, file name, sql)`` of every ``NNN_name.sql`` package resource, in order.
    Numbers must run 1, 2, 3 ... without gaps."""
    root = resources.files(__package__ or "bot.store").joinpath("migrations")
    found: list[tuple[int, str, str]] = []
    for entry in root.iterdir():
        match = _MIGRATION_NAME.fullmatch(entry.name)
        if match and entry.is_file():
            found.append((int(match[1]), entry.name, entry.read_text(encoding="utf-8")))
    found.sort()
    numbers = [number for number, _, _ in found]
    if numbers != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migrations must be numbered 1..n without gaps, found {numbers}")
    return found


STEP_MARK = "\n-- (step)\n"
"""A migration's line where its step in Python (``_STEPS``) runs, between its statements."""


async def _ranked_points_of_older_hands(store: Store) -> None:
    """Migration 010's step: the points against humans of the results written before
    migration 003 at hands with a bot (NULL there), from each hand's final state, and the
    standings corrected by the difference.  A hand whose state cannot be read keeps NULL."""
    from engine import Hand  # (the engine only for this step: the store never plays)

    rows = await store._all(
        "SELECT r.hand_id, r.seat_no, r.user_id, r.guild_id, r.points, h.state,"
        " COALESCE(CASE WHEN json_valid(h.rules) THEN json_extract(h.rules, '$.variant') END,"
        "          'ofc') AS variant"
        " FROM results r JOIN hands h ON h.id = r.hand_id"
        " WHERE r.ranked_points IS NULL AND r.counted = 1 AND r.is_bot = 0"
        " AND EXISTS (SELECT 1 FROM results b WHERE b.hand_id = r.hand_id AND b.is_bot = 1)"
        " ORDER BY r.hand_id, r.seat_no")
    bots: dict[int, set[int]] = {}
    for row in await store._all("SELECT hand_id, seat_no FROM results WHERE is_bot = 1"):
        bots.setdefault(row["hand_id"], set()).add(row["seat_no"])
    matrices: dict[int, tuple[list[list[int]], list[int]] | None] = {}
    for row in rows:
        hand_id = row["hand_id"]
        if hand_id not in matrices:
            try:
                state = json.loads(row["state"])
                hand = Hand.from_json(state["engine"])
                assert hand.settlement is not None
                matrices[hand_id] = (hand.settlement.matrix(), [int(x) for x in state["seats"]])
            except Exception:
                log.warning("migration 010: hand %s has no readable final state; its points "
                            "against humans stay all its points", hand_id)
                matrices[hand_id] = None
        found = matrices[hand_id]
        if found is None or row["seat_no"] not in found[1]:
            continue
        matrix, seats = found
        i = seats.index(row["seat_no"])
        ranked = sum(matrix[i][j] for j, seat_no in enumerate(seats)
                     if j != i and seat_no not in bots[hand_id])
        await store._db.execute(
            "UPDATE results SET ranked_points = ? WHERE hand_id = ? AND seat_no = ?",
            (ranked, hand_id, row["seat_no"]))
        if ranked != row["points"]:
            key = (ranked - row["points"], row["guild_id"], row["user_id"])
            await store._db.execute(
                "UPDATE standings SET points = points + ? WHERE guild_id = ? AND user_id = ?",
                key)
            await store._db.execute(
                "UPDATE variant_standings SET points = points + ?"
                " WHERE guild_id = ? AND user_id = ? AND variant = ?", (*key, row["variant"]))


_STEPS: dict[int, Callable[[Store], Awaitable[None]]] = {10: _ranked_points_of_older_hands}
"""Migration number -> its step in Python (run at its ``STEP_MARK``)."""


def split_statements(sql: str) -> list[str]:
    """Split a script into complete statements (triggers' ``BEGIN ... END;`` stay whole)."""
    statements: list[str] = []
    buffer = ""
    for line in sql.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    rest = "\n".join(
        line for line in buffer.splitlines() if line.strip() and not line.strip().startswith("--")
    )
    if rest.strip():
        raise RuntimeError(f"incomplete SQL statement at the end of a migration: {rest[:80]!r}")
    return statements


# --------------------------------------------------------------------------- helpers


def _now(now: float | None) -> float:
    return time.time() if now is None else float(now)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _loads_obj(text: str) -> JSONObject:
    value = json.loads(text)
    return value if isinstance(value, dict) else {"value": value}


def _loads_list(text: str) -> list[Any]:
    value = json.loads(text)
    return value if isinstance(value, list) else [value]


def _whole(value: Any, what: str) -> int:
    """An int (not a bool, not a float with a fraction), else StoreError naming ``what``."""
    if isinstance(value, bool):
        raise StoreError(f"{what} must be a whole number.")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    raise StoreError(f"{what} must be a whole number.")


def _id(value: Any, what: str = "id") -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an int, got {value!r}")
    return value


def _units(n: int) -> str:
    return f"{n} unit" if abs(n) == 1 else f"{n} units"


def _settings_of(row: sqlite3.Row) -> ServerSettings:
    return ServerSettings(
        guild_id=row["guild_id"], start_balance=row["start_balance"], max_stake=row["max_stake"],
        default_buyin=row["default_buyin"], max_buyin=row["max_buyin"],
        default_timer=row["default_timer"], admin_role_id=row["admin_role_id"],
        idle_hours=row["idle_hours"],
    )


def _table_of(row: sqlite3.Row) -> TableRow:
    return TableRow(
        id=row["id"], guild_id=row["guild_id"], channel_id=row["channel_id"],
        creator_id=row["creator_id"], rules=_loads_obj(row["rules"]), stake=row["stake"],
        buyin=row["buyin"], max_seats=row["max_seats"], status=row["status"],
        message_id=row["message_id"], button=row["button"], hand_no=row["hand_no"],
        extra=_loads_obj(row["extra"]), created_at=row["created_at"],
        updated_at=row["updated_at"], closed_at=row["closed_at"],
    )


def _seat_of(row: sqlite3.Row) -> SeatRow:
    return SeatRow(
        id=row["id"], table_id=row["table_id"], seat_no=row["seat_no"], guild_id=row["guild_id"],
        user_id=row["user_id"], name=row["name"], is_bot=bool(row["is_bot"]),
        bot_level=row["bot_level"], buyin=row["buyin"], sitting_out=bool(row["sitting_out"]),
        leaving=bool(row["leaving"]), joined_at=row["joined_at"], left_at=row["left_at"],
        stack=row["stack"],
    )


def _hand_of(row: sqlite3.Row) -> HandRow:
    return HandRow(
        id=row["id"], table_id=row["table_id"], number=row["number"], seed=row["seed"],
        rules=_loads_obj(row["rules"]), state=_loads_obj(row["state"]),
        log=_loads_list(row["log"]), status=row["status"], deadline=row["deadline"],
        created_at=row["created_at"], updated_at=row["updated_at"],
        finished_at=row["finished_at"],
    )


def _result_of(row: sqlite3.Row) -> HandResult:
    return HandResult(
        user_id=row["user_id"], seat_no=row["seat_no"], name=row["name"], points=row["points"],
        units=row["units"], fouled=bool(row["fouled"]), royalties=row["royalties"],
        fantasyland=bool(row["fantasyland"]), surrendered=bool(row["surrendered"]),
        natural=row["natural"], is_bot=bool(row["is_bot"]), counted=bool(row["counted"]),
        ranked_points=row["ranked_points"],
    )


def _player_hand_of(row: sqlite3.Row) -> PlayerHand:
    return PlayerHand(table_id=row["hand_table"], channel_id=row["channel"],
                      number=row["hand_number"], variant=row["game"],
                      finished_at=row["finished_at"], stake=int(row["stake"]),
                      result=_result_of(row))


def _own_rows(seats: str | None, boards: str | None,
              seat_no: int) -> tuple[str, str, str] | None:
    """Seat ``seat_no``'s final top, middle and bottom from a stored hand's seats and boards
    (JSON), each as its cards' text; none when the hand holds no such board."""
    try:
        where = [int(s) for s in json.loads(seats or "[]")].index(seat_no)
        board = json.loads(boards or "[]")[where]
        top, middle, bottom = (" ".join(str(c) for c in row) for row in board)
    except (ValueError, IndexError, TypeError):
        return None
    return (top, middle, bottom) if top or middle or bottom else None


def _audit_of(row: sqlite3.Row) -> AuditEntry:
    return AuditEntry(
        id=row["id"], guild_id=row["guild_id"], by_user_id=row["by_user_id"],
        user_id=row["user_id"], amount=row["amount"], reason=row["reason"],
        balance_after=row["balance_after"], created_at=row["created_at"],
    )


_GAME = ("COALESCE(CASE WHEN json_valid(h.rules) THEN json_extract(h.rules, '$.variant') END,"
         " 'ofc')")
"""The game of hand ``h``: what its rules say, else theirs by default (``Rules().variant``;
migration 007 and its trigger read it alike)."""

_SEAT_SELECT = """
    SELECT s.*,
           CASE WHEN s.is_bot THEN 0 ELSE COALESCE((
               SELECT SUM(l.amount) FROM ledger l
               WHERE l.table_id = s.table_id AND l.user_id = s.user_id AND l.account = 'stack'
           ), 0) END AS stack
    FROM seats s
"""


# --------------------------------------------------------------------------- the store


class Store:
    """Open with ``await Store.open(path)`` (``":memory:"`` works); ``await store.close()``."""

    def __init__(self, db: aiosqlite.Connection, path: str) -> None:
        self._db = db
        self._lock = asyncio.Lock()
        self.path = path

    # ---------------------------------------------------------------- lifecycle

    @classmethod
    async def open(cls, path: str | PathLike[str]) -> Store:
        """Connect, turn on WAL and foreign keys, and apply pending migrations."""
        location = str(path)
        db = await aiosqlite.connect(location, isolation_level=None)
        try:
            db.row_factory = sqlite3.Row
            await db.execute("PRAGMA foreign_keys = ON")
            await db.execute("PRAGMA busy_timeout = 5000")
            await db.execute("PRAGMA journal_mode = WAL")
            store = cls(db, location)
            await store._migrate()
        except BaseException:
            await db.close()
            raise
        return store

    async def close(self) -> None:
        async with self._lock:
            await self._db.close()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def schema_version(self) -> int:
        async with self._lock:
            return int(await self._scalar("PRAGMA user_version"))

    async def _migrate(self) -> None:
        migrations = load_migrations()
        latest = migrations[-1][0] if migrations else 0
        async with self._lock:
            current = int(await self._scalar("PRAGMA user_version"))
            if current > latest:
                raise StoreError(
                    f"The database is at schema version {current}, newer than this bot "
                    f"({latest}). Update the bot."
                )
            for number, _name, sql in migrations:
                if number <= current:
                    continue
                await self._db.execute("BEGIN IMMEDIATE")
                try:
                    # another process may have migrated while we waited for the write lock
                    if int(await self._scalar("PRAGMA user_version")) < number:
                        before, marked, after = sql.partition(STEP_MARK)
                        for statement in split_statements(before):
                            await self._db.execute(statement)
                        if marked:
                            await _STEPS[number](self)
                        for statement in split_statements(after):
                            await self._db.execute(statement)
                        await self._db.execute(f"PRAGMA user_version = {number:d}")
                except BaseException:
                    await self._db.rollback()
                    raise
                await self._db.commit()
                current = number

    # ---------------------------------------------------------------- low level

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[None]:
        """Lock + ``BEGIN IMMEDIATE``; commit on success, roll back on any exception, the
        commit's own too (a COMMIT that fails, disk full or I/O error, left the transaction
        open: its writes visible to the reads that followed, every later write refused), and
        a cancellation while the BEGIN is on its way (it still runs: the ROLLBACK is queued
        after it on the connection's thread; with no transaction it does nothing)."""
        async with self._lock:
            try:
                await self._db.execute("BEGIN IMMEDIATE")
                yield
                await self._db.commit()
            except BaseException:
                await self._db.rollback()
                raise

    async def _one(self, sql: str, params: _Params = ()) -> sqlite3.Row | None:
        async with self._db.execute(sql, params) as cursor:
            row: sqlite3.Row | None = await cursor.fetchone()
            return row

    async def _all(self, sql: str, params: _Params = ()) -> list[sqlite3.Row]:
        async with self._db.execute(sql, params) as cursor:
            return list(await cursor.fetchall())

    async def _scalar(self, sql: str, params: _Params = ()) -> Any:
        row = await self._one(sql, params)
        return None if row is None else row[0]

    async def _insert(self, sql: str, params: _Params = ()) -> int:
        async with self._db.execute(sql, params) as cursor:
            rowid = cursor.lastrowid
        assert rowid is not None
        return rowid

    async def _ledger(
        self, guild_id: int, user_id: int, account: str, kind: str, amount: int, now: float,
        *, table_id: int | None = None, seat_id: int | None = None, hand_id: int | None = None,
        audit_id: int | None = None,
    ) -> None:
        await self._db.execute(
            "INSERT INTO ledger (guild_id, user_id, account, kind, amount, table_id, seat_id,"
            " hand_id, audit_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (guild_id, user_id, account, kind, amount, table_id, seat_id, hand_id, audit_id, now),
        )

    async def _balance(self, guild_id: int, user_id: int) -> int:
        return int(await self._scalar(
            "SELECT COALESCE(SUM(amount), 0) FROM ledger"
            " WHERE guild_id = ? AND user_id = ? AND account = 'balance'",
            (guild_id, user_id),
        ))

    async def _stack(self, table_id: int, user_id: int) -> int:
        return int(await self._scalar(
            "SELECT COALESCE(SUM(amount), 0) FROM ledger"
            " WHERE table_id = ? AND user_id = ? AND account = 'stack'",
            (table_id, user_id),
        ))

    async def _settings(self, guild_id: int) -> ServerSettings:
        row = await self._one("SELECT * FROM servers WHERE guild_id = ?", (guild_id,))
        return ServerSettings(guild_id=guild_id) if row is None else _settings_of(row)

    async def _table(self, table_id: int) -> TableRow | None:
        row = await self._one("SELECT * FROM tables WHERE id = ?", (table_id,))
        return None if row is None else _table_of(row)

    async def _active_seat(self, table_id: int, seat_no: int) -> SeatRow | None:
        row = await self._one(
            _SEAT_SELECT + " WHERE s.table_id = ? AND s.seat_no = ? AND s.left_at IS NULL",
            (table_id, seat_no),
        )
        return None if row is None else _seat_of(row)

    async def _hand(self, hand_id: int) -> HandRow | None:
        row = await self._one("SELECT * FROM hands WHERE id = ?", (hand_id,))
        return None if row is None else _hand_of(row)

    async def _ensure_player(
        self, guild_id: int, user_id: int, name: str | None, now: float
    ) -> Player:
        """Inside a write transaction: create the player (with the start balance) if new,
        update the display name when one is given."""
        row = await self._one(
            "SELECT * FROM players WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
        )
        is_new = row is None
        if row is None:
            await self._db.execute(
                "INSERT INTO players (guild_id, user_id, name, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (guild_id, user_id, name or "", now, now),
            )
            start = (await self._settings(guild_id)).start_balance
            if start:
                await self._ledger(guild_id, user_id, "balance", "start", start, now)
            created_at, stored_name = now, name or ""
        else:
            created_at, stored_name = row["created_at"], row["name"]
            if name is not None and name != stored_name:
                await self._db.execute(
                    "UPDATE players SET name = ?, updated_at = ? WHERE guild_id = ? AND user_id = ?",
                    (name, now, guild_id, user_id),
                )
                stored_name = name
        return Player(
            guild_id=guild_id, user_id=user_id, name=stored_name,
            balance=await self._balance(guild_id, user_id), created_at=created_at, is_new=is_new,
        )

    # ---------------------------------------------------------------- servers

    async def get_settings(self, guild_id: int) -> ServerSettings:
        """The server's settings, or the defaults when it never changed any."""
        async with self._lock:
            return await self._settings(_id(guild_id, "guild_id"))

    async def update_settings(
        self, guild_id: int, *, now: float | None = None, **changes: int | None
    ) -> ServerSettings:
        """Change some settings (names: ``models.SETTING_NAMES``); returns the new settings.
        Unknown names and invalid values raise StoreError and change nothing."""
        guild_id = _id(guild_id, "guild_id")
        for key in changes:
            if key not in SETTING_NAMES:
                raise StoreError(
                    f"Unknown setting {key!r}. Settings: {', '.join(SETTING_NAMES)}."
                )
        clean: dict[str, int | None] = {}
        for key, value in changes.items():
            if key == "admin_role_id":
                clean[key] = None if value is None else _id(value, key)
                continue
            label = key.replace("_", " ")
            number = _whole(value, f"The {label}")
            if key == "default_timer" and not 1 <= number <= 86_400:
                raise StoreError("The timer must be between 1 and 86400 seconds.")
            if key == "idle_hours" and number > MAX_IDLE_HOURS:
                raise StoreError(f"Idle tables close after at most {MAX_IDLE_HOURS} hours "
                                 "(0: never).")
            if number < 0:
                raise StoreError(f"The {label} cannot be negative.")
            clean[key] = number
        when = _now(now)
        async with self._write():
            current = await self._settings(guild_id)
            values: dict[str, Any] = {name: getattr(current, name) for name in SETTING_NAMES}
            values.update(clean)
            if values["default_buyin"] > values["max_buyin"]:
                raise StoreError(
                    f"The default buy-in ({_units(values['default_buyin'])}) cannot be above "
                    f"the maximum buy-in ({_units(values['max_buyin'])})."
                )
            columns = ", ".join(SETTING_NAMES)
            marks = ", ".join("?" for _ in SETTING_NAMES)
            updates = ", ".join(f"{name} = excluded.{name}" for name in SETTING_NAMES)
            await self._db.execute(
                f"INSERT INTO servers (guild_id, {columns}, updated_at) VALUES (?, {marks}, ?)"
                f" ON CONFLICT (guild_id) DO UPDATE SET {updates}, updated_at = excluded.updated_at",
                (guild_id, *(values[name] for name in SETTING_NAMES), when),
            )
            return await self._settings(guild_id)

    # ---------------------------------------------------------------- players and money

    async def ensure_player(
        self, guild_id: int, user_id: int, name: str, *, now: float | None = None
    ) -> Player:
        """The player, created with the server's start balance (ledger 'start') the first
        time; the display name is updated on every call."""
        guild_id, user_id = _id(guild_id, "guild_id"), _id(user_id, "user_id")
        async with self._write():
            return await self._ensure_player(guild_id, user_id, str(name), _now(now))

    async def get_player(self, guild_id: int, user_id: int) -> Player | None:
        """The player, or None if they never appeared in the server (creates nothing)."""
        async with self._lock:
            row = await self._one(
                "SELECT * FROM players WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
            )
            if row is None:
                return None
            return Player(
                guild_id=guild_id, user_id=user_id, name=row["name"],
                balance=await self._balance(guild_id, user_id), created_at=row["created_at"],
            )

    async def balance(self, guild_id: int, user_id: int) -> int:
        """Wallet units (not at a table).  0 for a player who never appeared: call
        ``ensure_player`` first to give the start balance."""
        async with self._lock:
            return await self._balance(_id(guild_id, "guild_id"), _id(user_id, "user_id"))

    async def grant(
        self, guild_id: int, user_id: int, amount: int, by_user_id: int, reason: str = "",
        *, now: float | None = None,
    ) -> int:
        """Add (or with a negative amount, remove) units; audit-logged.  The wallet may not go
        below 0 (InsufficientFunds).  A user who never appeared is created first (start
        balance).  Returns the new balance."""
        guild_id, user_id = _id(guild_id, "guild_id"), _id(user_id, "user_id")
        by_user_id = _id(by_user_id, "by_user_id")
        amount = _whole(amount, "The amount")
        if amount == 0:
            raise StoreError("The amount cannot be zero.")
        when = _now(now)
        async with self._write():
            player = await self._ensure_player(guild_id, user_id, None, when)
            after = player.balance + amount
            if after < 0:
                _, at_tables = await self._wallet(guild_id, user_id)
                where = (f" in their balance ({_units(at_tables)} more at tables: a stack "
                         "comes back to the balance when they leave)" if at_tables else "")
                raise InsufficientFunds(
                    f"They have {_units(player.balance)}{where}; you cannot remove "
                    f"{_units(-amount)}.",
                    have=player.balance, need=-amount,
                )
            audit_id = await self._insert(
                "INSERT INTO audit (guild_id, by_user_id, user_id, amount, reason, balance_after,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (guild_id, by_user_id, user_id, amount, str(reason), after, when),
            )
            await self._ledger(
                guild_id, user_id, "balance", "grant", amount, when, audit_id=audit_id
            )
            return after

    async def audit_log(
        self, guild_id: int, limit: int = 20, user_id: int | None = None
    ) -> list[AuditEntry]:
        """Grants in the server (to ``user_id`` only, if given), newest first."""
        who = "" if user_id is None else " AND user_id = ?"
        params = (() if user_id is None else (_id(user_id, "user_id"),))
        async with self._lock:
            rows = await self._all(
                f"SELECT * FROM audit WHERE guild_id = ?{who} ORDER BY id DESC LIMIT ?",
                (_id(guild_id, "guild_id"), *params, max(0, int(limit))),
            )
        return [_audit_of(row) for row in rows]

    # ---------------------------------------------------------------- tables

    async def create_table(
        self, guild_id: int, channel_id: int, creator_id: int, rules_json: Mapping[str, Any],
        stake: int, buyin: int, max_seats: int, now: float | None = None,
    ) -> TableRow:
        """A new open table.  TableExists when the channel already has one that is not
        closed; StoreError when stake/buy-in break the server's limits."""
        args = self._table_args(guild_id, channel_id, creator_id, rules_json, stake, buyin,
                                max_seats)
        when = _now(now)
        async with self._write():
            return await self._insert_table(*args, when)

    async def open_table(
        self, guild_id: int, channel_id: int, creator_id: int, creator_name: str,
        rules_json: Mapping[str, Any], stake: int, buyin: int, max_seats: int,
        now: float | None = None, *, bots: Sequence[tuple[str, str | int | None]] = (),
        bot_user_id: Callable[[int, int], int] | None = None,
    ) -> tuple[TableRow, list[SeatRow]]:
        """A new open table with its creator in seat 0 (``buyin`` from the wallet) and
        ``bots`` ((name, level) each) in seats 1, 2, ..., all in one transaction: should
        anything fail, nothing was written.  A bot's user id is ``bot_user_id(table_id,
        seat_no)``.  Errors: as ``create_table`` and ``seat_player`` (InsufficientFunds,
        TableFull when the bots do not fit)."""
        table_args = self._table_args(guild_id, channel_id, creator_id, rules_json, stake,
                                      buyin, max_seats)
        guild_id, creator_id = table_args[0], table_args[2]
        buyin, max_seats = table_args[5], table_args[6]
        if bots and bot_user_id is None:
            raise ValueError("open_table: bots need bot_user_id")
        if 1 + len(bots) > max_seats:
            raise TableFull(f"A {max_seats}-seat table has room for at most {max_seats - 1} "
                            "bots.")
        when = _now(now)
        async with self._write():
            table = await self._insert_table(*table_args, when)
            player = await self._ensure_player(guild_id, creator_id, str(creator_name), when)
            if player.balance < buyin:
                raise InsufficientFunds(
                    f"You have {_units(player.balance)}; the buy-in is {buyin}.",
                    have=player.balance, need=buyin,
                )
            seats = [await self._sit(table.id, 0, guild_id, creator_id, str(creator_name),
                                     buyin, when)]
            for seat_no, (name, level) in enumerate(bots, start=1):
                assert bot_user_id is not None
                seats.append(await self._sit(table.id, seat_no, guild_id,
                                             _id(bot_user_id(table.id, seat_no), "user_id"),
                                             str(name), 0, when, True, level))
            return table, seats

    @staticmethod
    def _table_args(
        guild_id: int, channel_id: int, creator_id: int, rules_json: Mapping[str, Any],
        stake: int, buyin: int, max_seats: int,
    ) -> tuple[int, int, int, str, int, int, int]:
        """``create_table``'s arguments checked: (guild, channel, creator, rules JSON, stake,
        buy-in, seats)."""
        guild_id, channel_id = _id(guild_id, "guild_id"), _id(channel_id, "channel_id")
        creator_id = _id(creator_id, "creator_id")
        stake, buyin = _whole(stake, "The stake"), _whole(buyin, "The buy-in")
        max_seats = _whole(max_seats, "The number of seats")
        if stake < 0:
            raise StoreError("The stake cannot be negative.")
        if buyin < 0:
            raise StoreError("The buy-in cannot be negative.")
        if not 1 <= max_seats <= 10:
            raise StoreError("A table has between 1 and 10 seats.")
        return (guild_id, channel_id, creator_id, _dumps(dict(rules_json)), stake, buyin,
                max_seats)

    async def _insert_table(
        self, guild_id: int, channel_id: int, creator_id: int, rules: str, stake: int,
        buyin: int, max_seats: int, when: float,
    ) -> TableRow:
        """The new table's row (inside a write): the server's limits and the channel checked."""
        settings = await self._settings(guild_id)
        if stake > settings.max_stake:
            raise StoreError(
                f"The stake can be at most {_units(settings.max_stake)} per point here."
            )
        if buyin > settings.max_buyin:
            raise StoreError(f"The buy-in can be at most {_units(settings.max_buyin)} here.")
        existing = await self._scalar(
            "SELECT id FROM tables WHERE channel_id = ? AND status != 'closed'", (channel_id,)
        )
        if existing is not None:
            raise TableExists(
                "There is already a table in this channel.", table_id=int(existing)
            )
        try:
            table_id = await self._insert(
                "INSERT INTO tables (guild_id, channel_id, creator_id, rules, stake, buyin,"
                " max_seats, status, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?, ?)",
                (guild_id, channel_id, creator_id, rules, stake, buyin, max_seats, when, when),
            )
        except sqlite3.IntegrityError as exc:  # the partial unique index, belt and braces
            raise TableExists(
                "There is already a table in this channel.", table_id=None
            ) from exc
        table = await self._table(table_id)
        assert table is not None
        return table

    async def get_table(self, table_id: int) -> TableRow | None:
        async with self._lock:
            return await self._table(_id(table_id, "table_id"))

    async def table_in_channel(self, channel_id: int) -> TableRow | None:
        """The channel's table that is not closed (open or closing), if any."""
        async with self._lock:
            row = await self._one(
                "SELECT * FROM tables WHERE channel_id = ? AND status != 'closed'",
                (_id(channel_id, "channel_id"),),
            )
        return None if row is None else _table_of(row)

    async def last_table_in_channel(self, channel_id: int) -> TableRow | None:
        """The channel's latest table, closed or not (``/ofc history`` after a close)."""
        async with self._lock:
            row = await self._one(
                "SELECT * FROM tables WHERE channel_id = ? ORDER BY id DESC LIMIT 1",
                (_id(channel_id, "channel_id"),),
            )
        return None if row is None else _table_of(row)

    async def closed_tables_marked(self, key: str) -> list[TableRow]:
        """Closed tables whose ``extra`` holds ``key`` (e.g. a close not yet shown in the
        channel when the bot stopped), oldest first."""
        async with self._lock:
            rows = await self._all(
                "SELECT * FROM tables WHERE status = 'closed' AND extra LIKE ? ORDER BY id",
                (f'%"{key}"%',),
            )
        tables = []
        for row in rows:
            try:
                table = _table_of(row)
            except ValueError:  # (unreadable: left as it is)
                log.exception("table %s cannot be read back; left out", row["id"])
                continue
            if key in table.extra:
                tables.append(table)
        return tables

    async def open_tables(self, guild_id: int | None = None) -> list[TableRow]:
        """Tables open or closing (restart recovery), oldest first; all servers by default."""
        async with self._lock:
            if guild_id is None:
                rows = await self._all(
                    "SELECT * FROM tables WHERE status != 'closed' ORDER BY id"
                )
            else:
                rows = await self._all(
                    "SELECT * FROM tables WHERE status != 'closed' AND guild_id = ? ORDER BY id",
                    (_id(guild_id, "guild_id"),),
                )
        tables = []
        for row in rows:
            try:
                tables.append(_table_of(row))
            except ValueError:  # its JSON does not parse: one table must not keep the others
                # (or the bot's start) down; it stays as it is in the database
                log.exception("table %s cannot be read back; left out", row["id"])
        return tables

    async def update_table(
        self, table_id: int, *, now: float | None = None, **fields: Any
    ) -> TableRow:
        """Change ``status`` ('open'|'closing'|'closed'), ``message_id``, ``button``,
        ``hand_no``, ``extra`` or ``rules`` (JSON objects, replaced whole).  Returns the new row.

        Closing (``status='closed'``) is final and, in the same transaction, aborts a hand
        still playing (no units move), cashes out every seat still there and marks all
        seats left.  To know each amount, ``unseat_player`` the seats before closing."""
        table_id = _id(table_id, "table_id")
        for key in fields:
            if key not in _TABLE_FIELDS:
                raise ValueError(f"update_table: unknown field {key!r}")
        sets: dict[str, Any] = {}
        if "status" in fields:
            if fields["status"] not in TABLE_STATUSES:
                raise ValueError(f"table status must be one of {TABLE_STATUSES}")
            sets["status"] = fields["status"]
        if "message_id" in fields:
            sets["message_id"] = (
                None if fields["message_id"] is None else _id(fields["message_id"], "message_id")
            )
        for key in ("button", "hand_no"):
            if key in fields:
                sets[key] = _id(fields[key], key)
        for key in ("extra", "rules"):
            if key in fields:
                sets[key] = _dumps(dict(fields[key]))
        when = _now(now)
        async with self._write():
            table = await self._table(table_id)
            if table is None:
                raise NotFound("That table no longer exists.")
            if table.status == "closed" and sets.get("status", "closed") != "closed":
                raise TableClosed("This table is closed.")
            closing = sets.get("status") == "closed" and table.status != "closed"
            if closing:
                await self._close_table(table, when)
                sets["closed_at"] = when
            if sets:
                if set(sets) != {"message_id"}:  # (the bot's own message is no change of the
                    sets["updated_at"] = when  # table: its idle time goes on, ``idle_since``)
                assignments = ", ".join(f"{key} = ?" for key in sets)
                await self._db.execute(
                    f"UPDATE tables SET {assignments} WHERE id = ?", (*sets.values(), table_id)
                )
            updated = await self._table(table_id)
            assert updated is not None
            return updated

    async def _close_table(self, table: TableRow, now: float) -> None:
        await self._db.execute(
            "UPDATE hands SET status = 'aborted', finished_at = ?, updated_at = ?, deadline = NULL"
            " WHERE table_id = ? AND status = 'playing'",
            (now, now, table.id),
        )
        rows = await self._all(
            _SEAT_SELECT + " WHERE s.table_id = ? AND s.left_at IS NULL ORDER BY s.seat_no",
            (table.id,),
        )
        for row in rows:
            await self._unseat(_seat_of(row), now)

    # ---------------------------------------------------------------- seats

    async def seat_player(
        self, table_id: int, seat_no: int, guild_id: int, user_id: int, name: str, buyin: int,
        now: float | None = None, is_bot: bool = False, bot_level: str | int | None = None,
    ) -> SeatRow:
        """Sit a human (moving ``buyin`` units from the wallet to the table stack: ledger
        'buyin' -buyin balance / +buyin stack, one transaction) or a bot (no units; the
        stack stays 0 and ``buyin`` is only recorded).  Seat numbers are any int >= 0; at
        most ``max_seats`` seats are taken.  Errors: InsufficientFunds, AlreadySeated,
        SeatTaken, TableFull, TableClosed, NotFound."""
        table_id, guild_id = _id(table_id, "table_id"), _id(guild_id, "guild_id")
        user_id = _id(user_id, "user_id")
        seat_no = _whole(seat_no, "The seat number")
        buyin = _whole(buyin, "The buy-in")
        if seat_no < 0:
            raise StoreError("The seat number cannot be negative.")
        if buyin < 0:
            raise StoreError("The buy-in cannot be negative.")
        when = _now(now)
        async with self._write():
            table = await self._table(table_id)
            if table is None:
                raise NotFound("That table no longer exists.")
            if table.guild_id != guild_id:
                raise ValueError(f"table {table_id} belongs to guild {table.guild_id}")
            if table.status != "open":
                raise TableClosed(f"This table is {table.status}; nobody can sit down.")
            seated = await self._all(
                "SELECT seat_no, user_id FROM seats WHERE table_id = ? AND left_at IS NULL",
                (table_id,),
            )
            if any(row["user_id"] == user_id for row in seated):
                raise AlreadySeated(
                    "That bot is already at this table." if is_bot
                    else "You are already sitting at this table."
                )
            if any(row["seat_no"] == seat_no for row in seated):
                raise SeatTaken(f"Seat {seat_no} is taken.")
            if len(seated) >= table.max_seats:
                raise TableFull("This table is full.")
            if not is_bot:
                player = await self._ensure_player(guild_id, user_id, str(name), when)
                if player.balance < buyin:
                    raise InsufficientFunds(
                        f"You have {_units(player.balance)}; the buy-in is {buyin}.",
                        have=player.balance, need=buyin,
                    )
            return await self._sit(table_id, seat_no, guild_id, user_id, str(name), buyin, when,
                                   is_bot, bot_level)

    async def _sit(
        self, table_id: int, seat_no: int, guild_id: int, user_id: int, name: str, buyin: int,
        when: float, is_bot: bool = False, bot_level: str | int | None = None,
        joined_at: float | None = None,
    ) -> SeatRow:
        """The seat row and, for a human, the buy-in from the wallet (inside a write).
        ``joined_at``: when the player sat down (default ``when``; a rebuy keeps the first)."""
        try:
            seat_id = await self._insert(
                "INSERT INTO seats (table_id, seat_no, guild_id, user_id, name, is_bot,"
                " bot_level, buyin, joined_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (table_id, seat_no, guild_id, user_id, name, int(bool(is_bot)),
                 bot_level, buyin, when if joined_at is None else joined_at),
            )
        except sqlite3.IntegrityError as exc:  # the partial unique indexes
            raise SeatTaken(f"Seat {seat_no} is taken.") from exc
        if not is_bot and buyin:
            await self._ledger(guild_id, user_id, "balance", "buyin", -buyin, when,
                               table_id=table_id, seat_id=seat_id)
            await self._ledger(guild_id, user_id, "stack", "buyin", buyin, when,
                               table_id=table_id, seat_id=seat_id)
        seat = await self._active_seat(table_id, seat_no)
        assert seat is not None
        return seat

    async def rebuy(
        self, table_id: int, seat_no: int, buyin: int, now: float | None = None
    ) -> SeatRow:
        """A human whose stack is empty buys in again at the same seat, in one transaction:
        the old seat is left (nothing to cash out) and a new one takes its number (and the
        time the player first sat down) with ``buyin`` units from the wallet (ledger 'buyin').  Errors: InsufficientFunds,
        NotFound, StoreError (a bot, or a stack that is not empty), TableClosed."""
        table_id, seat_no = _id(table_id, "table_id"), _id(seat_no, "seat_no")
        buyin = _whole(buyin, "The buy-in")
        if buyin <= 0:
            raise StoreError("The buy-in must be at least 1.")
        when = _now(now)
        async with self._write():
            table = await self._table(table_id)
            if table is None:
                raise NotFound("That table no longer exists.")
            if table.status != "open":
                raise TableClosed(f"This table is {table.status}; nobody can buy in.")
            seat = await self._active_seat(table_id, seat_no)
            if seat is None:
                raise NotFound(f"Nobody sits in seat {seat_no}.")
            if seat.is_bot:
                raise StoreError("A bot does not buy in.")
            stack = await self._stack(table_id, seat.user_id)
            if stack:
                raise StoreError(f"Your stack is not empty ({_units(stack)}).")
            balance = await self._balance(seat.guild_id, seat.user_id)
            if balance < buyin:
                raise InsufficientFunds(
                    f"You have {_units(balance)}; the buy-in is {buyin}.",
                    have=balance, need=buyin,
                )
            await self._unseat(seat, when)
            # still seated since they first sat down (who hosts next goes by that)
            return await self._sit(table_id, seat_no, seat.guild_id, seat.user_id, seat.name,
                                   buyin, when, joined_at=seat.joined_at)

    async def seats(self, table_id: int) -> list[SeatRow]:
        """Seats still taken (not left), by seat number, with the ledger stack."""
        async with self._lock:
            rows = await self._all(
                _SEAT_SELECT + " WHERE s.table_id = ? AND s.left_at IS NULL ORDER BY s.seat_no",
                (_id(table_id, "table_id"),),
            )
        return [_seat_of(row) for row in rows]

    async def update_seat(self, table_id: int, seat_no: int, **fields: Any) -> SeatRow:
        """Change ``sitting_out`` / ``leaving`` (bools), ``name`` or ``bot_level`` of a
        taken seat.  Returns the new row; NotFound if nobody sits there."""
        table_id, seat_no = _id(table_id, "table_id"), _id(seat_no, "seat_no")
        for key in fields:
            if key not in _SEAT_FIELDS:
                raise ValueError(f"update_seat: unknown field {key!r}")
        sets: dict[str, Any] = {}
        for key in ("sitting_out", "leaving"):
            if key in fields:
                sets[key] = int(bool(fields[key]))
        if "name" in fields:
            sets["name"] = str(fields["name"])
        if "bot_level" in fields:
            sets["bot_level"] = fields["bot_level"]
        async with self._write():
            seat = await self._active_seat(table_id, seat_no)
            if seat is None:
                raise NotFound(f"Nobody sits in seat {seat_no}.")
            if sets:
                assignments = ", ".join(f"{key} = ?" for key in sets)
                await self._db.execute(
                    f"UPDATE seats SET {assignments} WHERE id = ?", (*sets.values(), seat.id)
                )
            updated = await self._active_seat(table_id, seat_no)
            assert updated is not None
            return updated

    async def unseat_player(
        self, table_id: int, seat_no: int, now: float | None = None, *, force: bool = False,
        table_extra: Mapping[str, Any] | None = None,
    ) -> int:
        """Cash out the seat's stack to the wallet (ledger 'cashout', one transaction) and
        mark the seat left; returns the amount.  While a hand is playing at the table a
        human cannot leave (HandInProgress: set ``leaving`` instead) unless ``force`` - then
        the caller must keep that player out of the hand's movements.  ``table_extra``
        replaces the table's extra in the same transaction (e.g. a forfeited fantasyland)."""
        table_id, seat_no = _id(table_id, "table_id"), _id(seat_no, "seat_no")
        extra = None if table_extra is None else _dumps(dict(table_extra))
        when = _now(now)
        async with self._write():
            seat = await self._active_seat(table_id, seat_no)
            if seat is None:
                raise NotFound(f"Nobody sits in seat {seat_no}.")
            if not seat.is_bot and not force:
                playing = await self._scalar(
                    "SELECT number FROM hands WHERE table_id = ? AND status = 'playing'",
                    (table_id,),
                )
                if playing is not None:
                    raise HandInProgress(
                        f"Hand #{playing} is in progress; you will leave when it ends."
                    )
            amount = await self._unseat(seat, when)
            if extra is not None:
                await self._db.execute(
                    "UPDATE tables SET extra = ?, updated_at = ? WHERE id = ?",
                    (extra, when, table_id),
                )
            return amount

    async def abort_hand(
        self, hand_id: int, now: float | None = None, *,
        table_extra: Mapping[str, Any] | None = None,
    ) -> None:
        """Void a hand still playing: status 'aborted', no units move.  ``table_extra``
        replaces the table's extra in the same transaction (e.g. a fantasyland given back)."""
        hand_id = _id(hand_id, "hand_id")
        when = _now(now)
        extra = None if table_extra is None else _dumps(dict(table_extra))
        async with self._write():
            cur = await self._db.execute(
                "UPDATE hands SET status = 'aborted', finished_at = ?, updated_at = ?,"
                " deadline = NULL WHERE id = ? AND status = 'playing'",
                (when, when, hand_id),
            )
            if extra is not None and cur.rowcount:
                await self._db.execute(
                    "UPDATE tables SET extra = ?, updated_at = ? WHERE id ="
                    " (SELECT table_id FROM hands WHERE id = ?)",
                    (extra, when, hand_id),
                )

    async def _unseat(self, seat: SeatRow, now: float) -> int:
        amount = 0 if seat.is_bot else await self._stack(seat.table_id, seat.user_id)
        if amount < 0:  # cannot happen: finish_hand refuses to overdraw a stack
            raise StoreError(f"Seat {seat.seat_no} has a negative stack ({amount}).")
        if amount:
            await self._ledger(seat.guild_id, seat.user_id, "stack", "cashout", -amount, now,
                               table_id=seat.table_id, seat_id=seat.id)
            await self._ledger(seat.guild_id, seat.user_id, "balance", "cashout", amount, now,
                               table_id=seat.table_id, seat_id=seat.id)
        await self._db.execute("UPDATE seats SET left_at = ? WHERE id = ?", (now, seat.id))
        return amount

    async def stack(self, table_id: int, user_id: int) -> int:
        """The user's units at the table (0 after cashing out)."""
        async with self._lock:
            return await self._stack(_id(table_id, "table_id"), _id(user_id, "user_id"))

    # ---------------------------------------------------------------- hands

    async def create_hand(
        self, table_id: int, number: int, seed: str, rules_json: Mapping[str, Any],
        state_json: Mapping[str, Any], now: float | None = None, deadline: float | None = None,
        *, button: int | None = None, table_extra: Mapping[str, Any] | None = None,
    ) -> HandRow:
        """Start hand ``number`` at the table (also sets ``tables.hand_no`` and, if given, the
        table's ``button`` and ``extra``, in the same transaction).
        HandInProgress if a hand is still playing there; StoreError if the number is used
        (nothing written)."""
        table_id, number = _id(table_id, "table_id"), _id(number, "number")
        rules, state = _dumps(dict(rules_json)), _dumps(dict(state_json))
        next_button = None if button is None else _id(button, "button")
        extra = None if table_extra is None else _dumps(dict(table_extra))
        when = _now(now)
        async with self._write():
            table = await self._table(table_id)
            if table is None:
                raise NotFound("That table no longer exists.")
            if table.status == "closed":
                raise TableClosed("This table is closed.")
            playing = await self._scalar(
                "SELECT number FROM hands WHERE table_id = ? AND status = 'playing'", (table_id,)
            )
            if playing is not None:
                raise HandInProgress(f"Hand #{playing} is still in progress.")
            try:
                hand_id = await self._insert(
                    "INSERT INTO hands (table_id, number, seed, rules, state, log, status,"
                    " deadline, created_at, updated_at)"
                    " VALUES (?, ?, ?, ?, ?, '[]', 'playing', ?, ?, ?)",
                    (table_id, number, str(seed), rules, state, deadline, when, when),
                )
            except sqlite3.IntegrityError as exc:
                raise StoreError(f"Hand #{number} already exists at this table.") from exc
            await self._db.execute(
                "UPDATE tables SET hand_no = MAX(hand_no, ?), button = COALESCE(?, button),"
                " extra = COALESCE(?, extra), updated_at = ? WHERE id = ?",
                (number, next_button, extra, when, table_id),
            )
            hand = await self._hand(hand_id)
            assert hand is not None
            return hand

    async def save_hand_state(
        self, hand_id: int, state_json: Mapping[str, Any], log_json: Sequence[Any],
        deadline: float | None, now: float | None = None,
    ) -> None:
        """Replace the state and action log of a playing hand (StoreError once it ended)."""
        hand_id = _id(hand_id, "hand_id")
        state, log = _dumps(dict(state_json)), _dumps(list(log_json))
        when = _now(now)
        async with self._write():
            status = await self._scalar("SELECT status FROM hands WHERE id = ?", (hand_id,))
            if status is None:
                raise NotFound("That hand no longer exists.")
            if status != "playing":
                raise StoreError(f"That hand is already over ({status}).")
            await self._db.execute(
                "UPDATE hands SET state = ?, log = ?, deadline = ?, updated_at = ? WHERE id = ?",
                (state, log, deadline, when, hand_id),
            )

    async def current_hand(self, table_id: int) -> HandRow | None:
        """The table's playing hand, if any."""
        async with self._lock:
            row = await self._one(
                "SELECT * FROM hands WHERE table_id = ? AND status = 'playing'",
                (_id(table_id, "table_id"),),
            )
        return None if row is None else _hand_of(row)

    async def abort_unreadable_hand(self, table_id: int, now: float | None = None) -> int | None:
        """Void the table's playing hand without reading its state (which may not even parse):
        its number, or None when there is none."""
        table_id = _id(table_id, "table_id")
        async with self._lock:
            row = await self._one(
                "SELECT id, number FROM hands WHERE table_id = ? AND status = 'playing'",
                (table_id,),
            )
        if row is None:
            return None
        await self.abort_hand(int(row["id"]), now)
        return int(row["number"])

    async def get_hand(self, hand_id: int) -> HandRow | None:
        async with self._lock:
            return await self._hand(_id(hand_id, "hand_id"))

    async def finish_hand(
        self, hand_id: int, final_state_json: Mapping[str, Any], results: Sequence[HandResult],
        movements: Mapping[int, int], now: float | None = None,
        *, log_json: Sequence[Any] | None = None, button: int | None = None,
        table_extra: Mapping[str, Any] | None = None,
    ) -> HandRow:
        """Settle a hand in ONE transaction: status 'done', final state (and log, if given),
        the results, one ledger row (account 'stack', kind 'hand') per non-zero movement and,
        if given, the table's next ``button`` and ``extra`` (e.g. the fantasyland it earned).

        ValueError (nothing written) when the movements do not sum to 0, disagree with the
        results (a counted human's ``units`` must equal their movement; practice results
        have units 0; bots and uncounted seats move nothing), name a user not seated at the
        table, or would take a stack below 0.  AlreadyApplied (nothing written) when the hand
        was settled before: treat it as success."""
        hand_id = _id(hand_id, "hand_id")
        moves: dict[int, int] = {}
        for user, amount in movements.items():
            moves[_id(user, "movement user id")] = _id(amount, "movement amount")
        if sum(moves.values()) != 0:
            raise ValueError(f"hand {hand_id}: movements sum to {sum(moves.values())}, not 0")
        self._check_results(hand_id, results, moves)
        state = _dumps(dict(final_state_json))
        log = None if log_json is None else _dumps(list(log_json))
        next_button = None if button is None else _id(button, "button")
        extra = None if table_extra is None else _dumps(dict(table_extra))
        when = _now(now)
        async with self._write():
            hand = await self._hand(hand_id)
            if hand is None:
                raise NotFound("That hand no longer exists.")
            if hand.status == "done" or await self._scalar(
                "SELECT 1 FROM hand_settlements WHERE hand_id = ?", (hand_id,)
            ):
                raise AlreadyApplied(
                    f"Hand #{hand.number} was already settled.", hand_id=hand_id
                )
            if hand.status != "playing":
                raise StoreError(f"Hand #{hand.number} was {hand.status}; it cannot be settled.")
            table = await self._table(hand.table_id)
            assert table is not None
            for user, amount in moves.items():
                if amount == 0:
                    continue
                seated = await self._one(
                    "SELECT is_bot FROM seats WHERE table_id = ? AND user_id = ?"
                    " AND left_at IS NULL",
                    (table.id, user),
                )
                if seated is None or seated["is_bot"]:
                    raise ValueError(
                        f"hand {hand_id}: user {user} moves {amount} units but is not a human"
                        f" seated at table {table.id}"
                    )
                stack = await self._stack(table.id, user)
                if stack + amount < 0:
                    raise ValueError(
                        f"hand {hand_id}: user {user} would lose {-amount} units with a stack"
                        f" of {stack}"
                    )
            try:
                await self._db.execute(
                    "INSERT INTO hand_settlements (hand_id, applied_at) VALUES (?, ?)",
                    (hand_id, when),
                )
                for user, amount in sorted(moves.items()):
                    if amount:
                        await self._ledger(table.guild_id, user, "stack", "hand", amount, when,
                                           table_id=table.id, hand_id=hand_id)
            except sqlite3.IntegrityError as exc:
                raise AlreadyApplied(
                    f"Hand #{hand.number} was already settled.", hand_id=hand_id
                ) from exc
            for result in results:
                await self._db.execute(
                    "INSERT INTO results (hand_id, seat_no, user_id, guild_id, name, points,"
                    " units, fouled, royalties, fantasyland, surrendered, natural, is_bot,"
                    " counted, finished_at, ranked_points)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (hand_id, result.seat_no, result.user_id, table.guild_id, result.name,
                     result.points, result.units, int(result.fouled), result.royalties,
                     int(result.fantasyland), int(result.surrendered), result.natural,
                     int(result.is_bot), int(result.counted), when, result.ranked_points),
                )
            seq = int(await self._scalar("SELECT COALESCE(MAX(id), 0) FROM ledger"))
            await self._db.execute(
                "UPDATE hands SET status = 'done', state = ?, log = COALESCE(?, log),"
                " deadline = NULL, finished_at = ?, updated_at = ?, ledger_seq = ? WHERE id = ?",
                (state, log, when, when, seq, hand_id),
            )
            if next_button is not None or extra is not None:
                await self._db.execute(
                    "UPDATE tables SET button = COALESCE(?, button), extra = COALESCE(?, extra),"
                    " updated_at = ? WHERE id = ?",
                    (next_button, extra, when, table.id),
                )
            done = await self._hand(hand_id)
            assert done is not None
            return done

    @staticmethod
    def _check_results(
        hand_id: int, results: Sequence[HandResult], moves: Mapping[int, int]
    ) -> None:
        seats_seen: set[int] = set()
        users_seen: set[int] = set()
        for result in results:
            if not isinstance(result, HandResult):
                raise ValueError(f"hand {hand_id}: results must be HandResult, got {result!r}")
            _id(result.user_id, "result user_id")
            _id(result.seat_no, "result seat_no")
            _id(result.points, "result points")
            if result.ranked_points is not None:
                _id(result.ranked_points, "result ranked points")
            _id(result.units, "result units")
            _id(result.royalties, "result royalties")
            if result.seat_no in seats_seen or result.user_id in users_seen:
                raise ValueError(f"hand {hand_id}: two results for seat/user {result}")
            seats_seen.add(result.seat_no)
            users_seen.add(result.user_id)
            moved = moves.get(result.user_id, 0)
            if not result.counted and result.units != 0:
                raise ValueError(f"hand {hand_id}: practice result with units: {result}")
            if (result.is_bot or not result.counted) and moved != 0:
                raise ValueError(
                    f"hand {hand_id}: user {result.user_id} is a bot or not counted but moves"
                    f" {moved} units"
                )
            if result.counted and not result.is_bot and result.units != moved:
                raise ValueError(
                    f"hand {hand_id}: user {result.user_id} result units {result.units}"
                    f" != movement {moved}"
                )
        for user, amount in moves.items():
            if amount and user not in users_seen:
                raise ValueError(f"hand {hand_id}: user {user} moves {amount} but has no result")

    async def history(self, table_id: int, count: int = 5) -> list[tuple[HandRow, list[HandResult]]]:
        """The table's last ``count`` settled hands, newest first, results by seat."""
        async with self._lock:
            hand_rows = await self._all(
                "SELECT * FROM hands WHERE table_id = ? AND status = 'done'"
                " ORDER BY number DESC, id DESC LIMIT ?",
                (_id(table_id, "table_id"), max(0, int(count))),
            )
            out: list[tuple[HandRow, list[HandResult]]] = []
            for row in hand_rows:
                results = await self._all(
                    "SELECT * FROM results WHERE hand_id = ? ORDER BY seat_no", (row["id"],)
                )
                out.append((_hand_of(row), [_result_of(r) for r in results]))
        return out

    RECAP = (
        "SELECT r.user_id AS user_id, MAX(r.is_bot) AS is_bot, COUNT(*) AS hands,"
        " SUM(r.points) AS points, SUM(CASE WHEN r.counted THEN r.units ELSE 0 END) AS units,"
        " SUM(r.counted) AS counted, SUM(r.fouled AND NOT r.surrendered) AS fouls,"
        " SUM(CASE WHEN r.counted THEN COALESCE(r.ranked_points, r.points) ELSE 0 END)"
        " AS ranked,"
        " SUM(r.fantasyland) AS fantasylands, MAX(r.points) AS best,"
        " MIN(h.created_at) AS started, MAX(h.finished_at) AS ended"
        " FROM hands h JOIN results r ON r.hand_id = h.id"
        " WHERE h.table_id = ? AND h.status = 'done' GROUP BY r.user_id")
    """``table_recap``'s sums (the table's settled hands by ``hands_by_table_done``, migration
    009, their results by their primary key).  A surrender scores as a foul but is not one
    (as in ``player_stats``)."""
    RECAP_NAMES = (
        "SELECT r.user_id AS user_id, r.name AS name, MAX(r.hand_id) AS last"
        " FROM hands h JOIN results r ON r.hand_id = h.id"
        " WHERE h.table_id = ? AND h.status = 'done' GROUP BY r.user_id")
    """Each player's name in their last hand there (SQLite takes the bare ``name`` from the
    row of the one ``MAX``)."""

    async def table_recap(self, table_id: int) -> TableRecap | None:
        """How a table's settled hands went for each of its players, most points first (ties:
        more hands, then the lower user id); none before its first settled hand."""
        key = (_id(table_id, "table_id"),)
        async with self._lock:
            rows = await self._all(self.RECAP, key)
            names = {int(r["user_id"]): str(r["name"] or "")
                     for r in await self._all(self.RECAP_NAMES, key)}
            count = await self._one(
                "SELECT COUNT(*) AS n FROM hands WHERE table_id = ? AND status = 'done'", key)
        if not rows or count is None:
            return None
        players = sorted((RecapRow(
            user_id=int(r["user_id"]), name=names.get(int(r["user_id"]), ""),
            is_bot=bool(r["is_bot"]), hands=int(r["hands"]), points=int(r["points"]),
            units=int(r["units"]), fouls=int(r["fouls"]), fantasylands=int(r["fantasylands"]),
            best=int(r["best"]), counted=int(r["counted"]), ranked=int(r["ranked"]),
        ) for r in rows), key=lambda p: (-p.points, -p.hands, p.user_id))
        return TableRecap(hands=int(count["n"]), started=min(float(r["started"]) for r in rows),
                          ended=max(float(r["ended"] or 0) for r in rows),
                          players=tuple(players))

    async def numbered_hand(
        self, table_id: int, number: int
    ) -> tuple[HandRow, list[HandResult]] | None:
        """The table's hand ``number`` (a settled one before a voided one of that number) and
        its results by seat; none when the table dealt no such hand."""
        async with self._lock:
            row = await self._one(
                "SELECT * FROM hands WHERE table_id = ? AND number = ?"
                " ORDER BY status = 'done' DESC, id DESC LIMIT 1",
                (_id(table_id, "table_id"), int(number)),
            )
            if row is None:
                return None
            results = await self._all(
                "SELECT * FROM results WHERE hand_id = ? ORDER BY seat_no", (row["id"],)
            )
        return _hand_of(row), [_result_of(r) for r in results]

    _PLAYER = (f"SELECT r.*, h.number AS hand_number, h.table_id AS hand_table, {_GAME} AS game,"
               " t.channel_id AS channel, t.stake AS stake")
    _PLAYER_DONE = (" FROM results r"
                    " JOIN hands h ON h.id = r.hand_id JOIN tables t ON t.id = h.table_id"
                    " WHERE r.guild_id = ? AND r.user_id = ? AND h.status = 'done'")
    _NEWEST_FIRST = " ORDER BY r.finished_at DESC, r.hand_id DESC LIMIT ?"
    PLAYER_HANDS = _PLAYER + _PLAYER_DONE + _NEWEST_FIRST
    """``player_hands``'s query (by the index ``results_by_player_time``, migration 008)."""

    async def player_hands(self, guild_id: int, user_id: int, count: int) -> list[PlayerHand]:
        """The player's last ``count`` settled hands in the server, at every table (practice
        hands too), newest first."""
        async with self._lock:
            rows = await self._all(self.PLAYER_HANDS, (
                _id(guild_id, "guild_id"), _id(user_id, "user_id"), max(0, int(count))))
        return [_player_hand_of(r) for r in rows]

    PLAYER_EXPORT = (
        _PLAYER + ","
        " (SELECT COUNT(*) FROM results o WHERE o.hand_id = r.hand_id) AS players,"
        " CASE WHEN json_valid(h.state) THEN json_extract(h.state, '$.seats') END AS seats,"
        " CASE WHEN json_valid(h.state)"
        "  THEN json_extract(h.state, '$.engine.state.boards') END AS boards"
        + _PLAYER_DONE + " AND (r.finished_at < ? OR (r.finished_at = ? AND r.hand_id < ?))"
        + _NEWEST_FIRST)
    """``player_export``'s query: ``PLAYER_HANDS``'s from a point on, with the number of
    players and the seats' final boards (SQLite reads the two out of the stored
    state)."""

    async def player_export(
        self, guild_id: int, user_id: int, limit: int,
        before: tuple[float, int] = (math.inf, 0),
    ) -> list[ExportedHand]:
        """The player's ``limit`` settled hands in the server before ``before`` (a hand's
        ``(finished_at, hand id)``; default: the newest), newest first, each with the player's
        own final rows (never another seat's).  A page at a time: the store is held for one
        page only (other tables' writes come between two)."""
        at, hand_id = before
        key = (_id(guild_id, "guild_id"), _id(user_id, "user_id"), at, at, hand_id,
               max(0, int(limit)))
        async with self._lock:
            rows = await self._all(self.PLAYER_EXPORT, key)
        return [ExportedHand(
            hand=_player_hand_of(r), players=int(r["players"]),
            rows=_own_rows(r["seats"], r["boards"], int(r["seat_no"])),
            hand_id=int(r["hand_id"])) for r in rows]

    # ---------------------------------------------------------------- leaderboards and stats

    _ALL_TIME = """
        SELECT s.user_id AS user_id, COALESCE(p.name, s.name, '') AS shown, s.units AS units,
               s.points AS points, s.hands AS hands, s.fantasylands AS fantasylands
        FROM standings s
        LEFT JOIN players p ON p.guild_id = s.guild_id AND p.user_id = s.user_id
        WHERE s.guild_id = ?
    """
    # a player's totals over the results ``r`` (each LEFT JOINed to its ledger row ``l``)
    _TOTALS = """r.user_id AS user_id, MAX(r.name) AS name,
        COALESCE(SUM(l.amount), 0) AS units, SUM(COALESCE(r.ranked_points, r.points)) AS points,
        COUNT(*) AS hands, SUM(r.fantasyland) AS fantasylands"""
    _PERIOD = f"""
        SELECT {_TOTALS}, COALESCE(MAX(p.name), MAX(r.name), '') AS shown
        FROM results r
        LEFT JOIN ledger l
               ON l.hand_id = r.hand_id AND l.user_id = r.user_id AND l.kind = 'hand'
        LEFT JOIN players p ON p.guild_id = r.guild_id AND p.user_id = r.user_id
        WHERE r.guild_id = ? AND r.counted = 1 AND r.is_bot = 0 AND r.finished_at >= ?
        GROUP BY r.user_id
    """

    # one game's: its totals kept by migration 007, or a period's results of its hands
    _VARIANT_ALL_TIME = _ALL_TIME.replace("FROM standings s", "FROM variant_standings s") + \
        " AND s.variant = ?"
    _VARIANT_PERIOD = _PERIOD.replace(
        "WHERE r.guild_id = ?",
        f"JOIN hands h ON h.id = r.hand_id WHERE r.guild_id = ? AND {_GAME} = ?")

    @classmethod
    def _kept_totals_check(cls, table: str, by_game: bool) -> str:
        """A query for the rows of the kept totals ``table`` (migration 005, or 007 when
        ``by_game``: by each hand's game, ``_GAME``) that disagree with the results added up,
        or that no result backs; each row's keys."""
        keys = ("guild_id", "variant", "user_id") if by_game else ("guild_id", "user_id")
        game, hands = (f", {_GAME} AS variant", " JOIN hands h ON h.id = r.hand_id") if by_game \
            else ("", "")
        match = " AND ".join(f"s.{k} = t.{k}" for k in keys)
        return (
            f"WITH t AS (SELECT r.guild_id AS guild_id{game}, {cls._TOTALS} FROM results r{hands}"
            "   LEFT JOIN ledger l"
            "     ON l.hand_id = r.hand_id AND l.user_id = r.user_id AND l.kind = 'hand'"
            "   WHERE r.counted = 1 AND r.is_bot = 0"
            f"   GROUP BY {', '.join(f'r.{k}' if k != 'variant' else k for k in keys)})"
            f" SELECT {', '.join(f't.{k}' for k in keys)} FROM t LEFT JOIN {table} s ON {match}"
            " WHERE s.user_id IS NULL OR s.units != t.units OR s.points != t.points"
            "    OR s.hands != t.hands OR s.fantasylands != t.fantasylands"
            "    OR s.name != t.name"
            f" UNION SELECT {', '.join(f's.{k}' for k in keys)} FROM {table} s"
            f" WHERE NOT EXISTS (SELECT 1 FROM t WHERE {match})"
        )

    async def leaderboard(
        self, guild_id: int, by: str = "units", since: float | None = None, limit: int = 10,
        variant: str | None = None,
    ) -> list[LeaderEntry]:
        """Humans ranked by ``by`` ('units'|'points'|'hands'|'fantasylands'|'points_per_hand':
        of those with ``PER_HAND_MIN_HANDS`` hands or more, ties by more hands) over counted
        hands finished at or after ``since`` (all time if None), of one ``variant`` if given
        (the game of the hand).  Units come from the ledger.
        Ties: more units, then more points, then lower user id.  The first ``limit``, and
        every player tied on ``by`` with the last of them (a tie shares its rank: none of it
        is cut off)."""
        if by not in LEADERBOARD_KEYS:
            raise StoreError(f"Leaderboards: {', '.join(LEADERBOARD_KEYS)}.")
        # All time reads the totals kept as results are written (migration 005); a period
        # adds up its results (a query of its own: "? IS NULL OR finished_at >= ?" kept
        # SQLite from using the index's finished_at range, so a day read every hand ever).
        if variant is None:
            query = self._ALL_TIME if since is None else self._PERIOD
            args: tuple[Any, ...] = (_id(guild_id, "guild_id"),)
        else:
            query = self._VARIANT_ALL_TIME if since is None else self._VARIANT_PERIOD
            args = (_id(guild_id, "guild_id"), str(variant))
        args = (*args, *(() if since is None else (since,)))
        sql = f"{query} ORDER BY {by} DESC, units DESC, points DESC, user_id ASC"
        if by == "points_per_hand":  # (of those with enough hands to tell)
            sql = (f"SELECT *, CAST(points AS REAL) / hands AS points_per_hand FROM ({query})"
                   " WHERE hands >= ? ORDER BY points_per_hand DESC, hands DESC, units DESC,"
                   " user_id ASC")
            args = (*args, PER_HAND_MIN_HANDS)
        async with self._lock:
            rows = await self._all(sql, args)
        entries = [
            LeaderEntry(user_id=row["user_id"], name=row["shown"], units=row["units"],
                        points=row["points"], hands=row["hands"],
                        fantasylands=row["fantasylands"])
            for row in rows
        ]
        limit = max(0, int(limit))
        if 0 < limit < len(entries):  # the players tied with the last one shown share its
            last = getattr(entries[limit - 1], by)  # rank (points a hand: as shown)
            while limit < len(entries) and getattr(entries[limit], by) == last:
                limit += 1
        return entries[:limit]

    async def wallet(self, guild_id: int, user_id: int) -> tuple[int, int]:
        """``(balance, units at tables)`` of a player in a server."""
        guild_id, user_id = _id(guild_id, "guild_id"), _id(user_id, "user_id")
        async with self._lock:
            return await self._wallet(guild_id, user_id)

    async def _wallet(self, guild_id: int, user_id: int) -> tuple[int, int]:
        balance = await self._balance(guild_id, user_id)
        in_play = int(await self._scalar(
            "SELECT COALESCE(SUM(amount), 0) FROM ledger"
            " WHERE guild_id = ? AND user_id = ? AND account = 'stack'",
            (guild_id, user_id),
        ))
        return balance, in_play

    async def player_stats(
        self, guild_id: int, user_id: int, variant: str | None = None
    ) -> PlayerStats:
        """Counted hands of a human in a server (a surrender counts as no foul), the wallet,
        and units owned before and after each of the last 30 counted hands (see
        ``PlayerStats.balance_history``); of one ``variant``'s hands if given (the units
        owned are still the player's in the server)."""
        guild_id, user_id = _id(guild_id, "guild_id"), _id(user_id, "user_id")
        join, only = "", ""
        game: tuple[str, ...] = ()
        if variant is not None:
            join, only, game = "JOIN hands h ON h.id = r.hand_id", f"AND {_GAME} = ?", (variant,)
        async with self._lock:
            totals = await self._one(
                f"""
                SELECT COUNT(*) AS hands,
                       COALESCE(SUM(COALESCE(r.ranked_points, r.points)), 0) AS points,
                       COALESCE(SUM(l.amount), 0) AS units,
                       COALESCE(SUM(r.fouled AND NOT r.surrendered), 0) AS fouls,
                       COALESCE(SUM(r.fantasyland), 0) AS fantasylands
                FROM results r {join}
                LEFT JOIN ledger l
                       ON l.hand_id = r.hand_id AND l.user_id = r.user_id AND l.kind = 'hand'
                WHERE r.guild_id = ? AND r.user_id = ? AND r.counted = 1 AND r.is_bot = 0 {only}
                """,
                (guild_id, user_id, *game),
            )
            assert totals is not None
            last = await self._all(
                f"""
                SELECT h.ledger_seq AS seq,
                       (SELECT COALESCE(SUM(l.amount), 0) FROM ledger l
                        WHERE l.hand_id = h.id AND l.user_id = r.user_id
                          AND l.kind = 'hand') AS won
                FROM results r JOIN hands h ON h.id = r.hand_id
                WHERE r.guild_id = ? AND r.user_id = ? AND r.counted = 1 AND r.is_bot = 0 {only}
                ORDER BY h.ledger_seq DESC, h.finished_at DESC, h.id DESC
                LIMIT ?
                """,
                (guild_id, user_id, *game, HISTORY_POINTS),
            )
            # units owned after each of them: what is owned now less what moved since (the
            # player's ledger read once, not once per hand: that was 30 reads of a long one)
            after: list[sqlite3.Row] = []
            owned_now = 0
            if last:
                owned_now = int(await self._scalar(
                    "SELECT COALESCE(SUM(amount), 0) FROM ledger"
                    " WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)))
                after = await self._all(
                    "SELECT id, amount FROM ledger WHERE guild_id = ? AND user_id = ? AND id > ?",
                    (guild_id, user_id, min(row["seq"] for row in last)))
            balance, in_play = await self._wallet(guild_id, user_id)
            name = await self._scalar(
                "SELECT name FROM players WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
            )
        owned = [owned_now - sum(a["amount"] for a in after if a["id"] > row["seq"])
                 for row in reversed(last)]
        if last:  # and before the oldest of them
            owned.insert(0, owned[0] - last[-1]["won"])
        return PlayerStats(
            hands=totals["hands"], points=totals["points"], units=totals["units"],
            fouls=totals["fouls"], fantasylands=totals["fantasylands"], balance=balance,
            balance_history=owned,
            in_play=in_play, name=name or "",
        )

    # ---------------------------------------------------------------- checks

    async def total_units(self, guild_id: int) -> tuple[int, int]:
        """``(units owned in the server, units ever given)``: wallets + stacks vs. start
        balances + grants.  Equal whenever the ledger is consistent."""
        async with self._lock:
            row = await self._one(
                "SELECT COALESCE(SUM(amount), 0) AS owned,"
                " COALESCE(SUM(CASE WHEN kind IN ('start', 'grant') THEN amount END), 0) AS given"
                " FROM ledger WHERE guild_id = ?",
                (_id(guild_id, "guild_id"),),
            )
        assert row is not None
        return int(row["owned"]), int(row["given"])

    async def verify_ledger(self) -> list[str]:
        """Every inconsistency found, as sentences; ``[]`` when the books are clean."""
        problems: list[str] = []

        def add(rows: Iterable[sqlite3.Row], template: str) -> None:
            problems.extend(template.format(**dict(row)) for row in rows)

        async with self._lock:
            add(await self._all(
                "SELECT hand_id, SUM(amount) AS total FROM ledger WHERE kind = 'hand'"
                " GROUP BY hand_id HAVING SUM(amount) != 0"
            ), "hand {hand_id}: ledger rows sum to {total}, not 0")
            add(await self._all(
                "SELECT DISTINCT l.hand_id, h.status FROM ledger l"
                " LEFT JOIN hands h ON h.id = l.hand_id"
                " LEFT JOIN hand_settlements s ON s.hand_id = l.hand_id"
                " WHERE l.kind = 'hand' AND (h.status IS NOT 'done' OR s.hand_id IS NULL)"
            ), "hand {hand_id}: units moved but the hand is {status} / not settled")
            add(await self._all(
                "SELECT h.id AS hand_id FROM hands h"
                " LEFT JOIN hand_settlements s ON s.hand_id = h.id"
                " WHERE h.status = 'done' AND s.hand_id IS NULL"
            ), "hand {hand_id}: done but has no settlement row")
            add(await self._all(
                "SELECT guild_id, user_id, SUM(amount) AS total FROM ledger"
                " WHERE account = 'balance' GROUP BY guild_id, user_id HAVING SUM(amount) < 0"
            ), "guild {guild_id} user {user_id}: negative balance {total}")
            add(await self._all(
                "SELECT table_id, user_id, SUM(amount) AS total FROM ledger"
                " WHERE account = 'stack' GROUP BY table_id, user_id HAVING SUM(amount) < 0"
            ), "table {table_id} user {user_id}: negative stack {total}")
            add(await self._all(
                "SELECT l.table_id, l.user_id, SUM(l.amount) AS total FROM ledger l"
                " WHERE l.account = 'stack' GROUP BY l.table_id, l.user_id"
                " HAVING SUM(l.amount) != 0 AND NOT EXISTS ("
                "   SELECT 1 FROM seats s WHERE s.table_id = l.table_id"
                "   AND s.user_id = l.user_id AND s.left_at IS NULL AND s.is_bot = 0)"
            ), "table {table_id} user {user_id}: {total} units at a table they do not sit at")
            add(await self._all(
                "SELECT l.seat_id, l.kind, SUM(l.amount) AS total, COUNT(*) AS n,"
                " SUM(l.user_id != s.user_id OR l.table_id != s.table_id"
                "     OR l.guild_id != s.guild_id OR s.id IS NULL) AS wrong"
                " FROM ledger l LEFT JOIN seats s ON s.id = l.seat_id"
                " WHERE l.kind IN ('buyin', 'cashout') GROUP BY l.seat_id, l.kind"
                " HAVING SUM(l.amount) != 0 OR COUNT(*) != 2 OR wrong != 0"
            ), "seat {seat_id}: {kind} rows do not pair up (sum {total}, {n} rows)")
            add(await self._all(
                "SELECT DISTINCT l.seat_id FROM ledger l JOIN seats s ON s.id = l.seat_id"
                " WHERE s.is_bot = 1"
            ), "seat {seat_id}: a bot has ledger rows")
            add(await self._all(
                "SELECT r.hand_id, r.user_id, r.units, COALESCE(l.amount, 0) AS moved"
                " FROM results r LEFT JOIN ledger l"
                "   ON l.hand_id = r.hand_id AND l.user_id = r.user_id AND l.kind = 'hand'"
                " WHERE (r.counted = 1 AND r.is_bot = 0 AND r.units != COALESCE(l.amount, 0))"
                "    OR ((r.counted = 0 OR r.is_bot = 1) AND l.id IS NOT NULL)"
            ), "hand {hand_id} user {user_id}: result says {units} units, ledger moved {moved}")
            add(await self._all(
                "SELECT l.hand_id, l.user_id, l.amount FROM ledger l"
                " LEFT JOIN results r ON r.hand_id = l.hand_id AND r.user_id = l.user_id"
                " WHERE l.kind = 'hand' AND r.hand_id IS NULL"
            ), "hand {hand_id} user {user_id}: moved {amount} units without a result")
            add(await self._all(self._kept_totals_check("standings", by_game=False)),
                "guild {guild_id} user {user_id}: the leaderboard's totals disagree with the"
                " results")
            add(await self._all(self._kept_totals_check("variant_standings", by_game=True)),
                "guild {guild_id} user {user_id}: the {variant} leaderboard's totals disagree"
                " with the results")
            add(await self._all(
                "SELECT a.id AS audit_id, a.amount, COALESCE(SUM(l.amount), 0) AS moved"
                " FROM audit a LEFT JOIN ledger l ON l.audit_id = a.id AND l.kind = 'grant'"
                "  AND l.user_id = a.user_id AND l.guild_id = a.guild_id"
                " GROUP BY a.id HAVING COUNT(l.id) != 1 OR moved != a.amount"
            ), "grant {audit_id}: audit says {amount} units, ledger moved {moved}")
            add(await self._all(
                "SELECT l.id AS ledger_id FROM ledger l LEFT JOIN audit a ON a.id = l.audit_id"
                " WHERE l.kind = 'grant' AND a.id IS NULL"
            ), "ledger row {ledger_id}: a grant without an audit entry")
            add(await self._all(
                "SELECT t.id AS table_id FROM tables t JOIN seats s ON s.table_id = t.id"
                " WHERE t.status = 'closed' AND s.left_at IS NULL GROUP BY t.id"
            ), "table {table_id}: closed but seats are still taken")
            for row in await self._all("PRAGMA foreign_key_check"):
                problems.append(
                    f"foreign key: {row[0]} row {row[1]} points to a missing {row[2]} row"
                )
        return problems
