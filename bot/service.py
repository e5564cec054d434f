"""The table service: every table's rules, locks, timers, bots, persistence and recovery.

Cogs call the public coroutines below; each raises ``ServiceError`` (a message for the user)
or returns a result to show.  Everything that changes a table is written to the store before
the coroutine returns.  Things that happen on their own (a timer runs out, a bot acts, the
next hand is dealt, a showdown) are told to a ``Notifier`` that the Discord side implements.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import dataclasses
import io
import logging
import math
import re
import secrets
import sqlite3
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn, Protocol

from engine import Board, Card, CardError, Hand, IllegalAction, Rules, RulesError
from engine.actions import Declare, Place
from engine.ai import choose_move, choose_natural, suggest  # at start: ~60 ms, not mid-game
from engine.autoplay import Move, choose_placement
from engine.cards import cards_from_json, cards_to_json, parse_cards
from engine.hand import Requirement, Round
from engine.notation import plural, sentence, signed, signed_amount
from engine.review import Review, decisions, judge
from engine.rules import NATURAL_NAMES, VARIANTS, Variant
from engine.scoring import Settlement, units_moved
from engine.solver import Solution, check_fantasyland_cards, solve_fantasyland

from .stopping import stop_tasks
from .store import (
    AlreadyApplied,
    AuditEntry,
    ExportedHand,
    HandResult,
    HandRow,
    InsufficientFunds,
    LeaderEntry,
    PlayerHand,
    PlayerStats,
    SeatRow,
    ServerSettings,
    Store,
    StoreError,
    TableRecap,
    TableRow,
)
from .store.store import LEADERBOARD_KEYS
from .thinker import Hung, Thinker

log = logging.getLogger("ofc.service")

BOT_LEVELS = ("easy", "normal", "strong")
BOT_NAMES = ("Ada", "Turing", "Lovelace", "Hopper", "Knuth", "Dijkstra")
BOT_USER_BASE = 1_000_000  # bot seats get user ids far below any Discord snowflake

SHUTDOWN_WAIT = 10.0  # seconds ``shutdown`` waits for the tables' tasks to stop
ROW_NAMES = ("top", "middle", "bottom", "discard")
REASON_LENGTH = 200
"""The longest reason a grant keeps for the audit log (characters)."""
EXPORT_HANDS = 10_000
"""The most hands ``/ofc history file`` puts in its file (the newest)."""
EXPORT_PAGE = 1_000
"""Hands read at a time for it (the store is held ~40 ms a page)."""
REVIEWS_KEPT = 64
"""Reviews of past hands kept for the next ask (``TableService.review_at``)."""
PERIODS = {"day": 86_400.0, "week": 7 * 86_400.0, "month": 30 * 86_400.0, "all": None}


NO_RECAP_OPEN = "No hand has finished at this table yet."
NO_RECAP_CLOSED = "No hand was played at the last table here."
NO_RECAP = frozenset({NO_RECAP_OPEN, NO_RECAP_CLOSED})
"""``recap``'s answers when there is nothing to recap (the cog says them privately: the
channel does not need to read that nothing happened)."""


NO_BUY_INS = "it takes no new buy-ins: its stake is above this server's maximum now"
"""Why a table whose stake is above a lowered maximum seats nobody (``TableState.over_max_stake``:
``/ofc tables``, an emptied stack's advice)."""


def _or_its_fantasyland(t: TableState) -> str:
    """The end of "... will leave after this hand": a player of a hand that sends someone
    to fantasyland plays that fantasyland hand first (RULES.md)."""
    return (" (or, if it sends a player to fantasyland, after that fantasyland hand)"
            if t.rules.has_fantasyland else "")


def _stack_said(stack: int) -> str:
    """`` (N units in your stack)``, nothing for an empty one (a stake-0 table's)."""
    return f" ({plural(stack, 'unit')} in your stack)" if stack else ""


def grant_reason(text: str) -> str:
    """A grant's reason as the audit log keeps it: one line, single spaces."""
    return " ".join(text.split())


def _bot_user_id(table_id: int, seat_no: int) -> int:
    """The user id of the bot in seat ``seat_no`` of table ``table_id``."""
    return BOT_USER_BASE + table_id * 10 + seat_no


class ServiceError(Exception):
    """Something the user did that cannot be done; the message says what and what to do, as
    a sentence (an engine's message passed on gets its full stop)."""

    def __init__(self, message: str = "") -> None:
        super().__init__(sentence(message))


class Stale(ServiceError):
    """A panel button for a decision that was already taken."""


class SeatedElsewhere(ServiceError):
    """No table in this channel, but the player is seated at ``seated`` ((server, channel)
    pairs): the message points there, naming only the tables of the server the command came
    from (``for_guild``; a command can never reach another server's table)."""

    def __init__(self, seated: list[tuple[int, int]], here: bool = False) -> None:
        self.seated = seated
        self.here = here
        """There is a table in this channel, where the player is not seated."""
        super().__init__(self._text(seated))

    def _text(self, seated: list[tuple[int, int]]) -> str:
        channels = ", ".join(f"<#{channel}>" for _, channel in seated)
        if self.here:
            return (f"You are not seated at this table: you play at the one in {channels}; "
                    "use the command there (or `/ofc join` to take a seat here too)."
                    if seated else NOT_SEATED)
        if not seated:
            return NO_TABLE_HERE
        return (f"There is no table in this channel: you are seated at the one in {channels}; "
                "use the command there.")

    def for_guild(self, guild_id: int | None) -> str:
        if guild_id is None:
            return str(self)
        return self._text([(g, c) for g, c in self.seated if g == guild_id])


NOT_SEATED = "You are not seated at this table. Take a seat with `/ofc join`."


JUST_CLOSED = ("This table has just closed: every stack went back to its owner's balance. "
               "`/ofc new` opens another.")
IDLE_CHECK = 60.0
"""Seconds between two looks for idle tables (``TableService.close_idle``)."""
IDLE_GRACE = 3600.0
"""No table closes as idle in the first hour after the bot started or its connection to
Discord came back."""
IDLE_WARNING = 3600.0
"""How long before an idle close its channel is warned (at most a quarter of the idle time:
15 minutes before a close after one idle hour), pinging its seated players."""


_MARKDOWN = re.compile(r"([\\*_~|`>#\[\]()<@:-])")


def _as_typed(text: str) -> str:
    """Text a user typed, echoed in a message as typed (Discord's markdown and mentions
    escaped)."""
    return _MARKDOWN.sub(r"\\\1", text)


RECAP_CHARS = 1500
"""The most characters of a recap added to a closing notice (with its words, within Discord's
2,000): the players that do not fit are counted on its last line (``/ofc recap`` lists every
one, over several messages when need be)."""


def recap_lines(table: TableRow, recap: TableRecap, closed: bool,
                limit: int | None = None) -> list[str]:
    """A table's recap in a message (names as typed): its game and stake, its hands and when,
    then each player, most points first (ties share their place): points, units where the
    hands counted (not practice), hands, fantasylands earned, fouls (a surrender is none)
    and the best hand.  With ``limit``, the players after those that fit in that many
    characters are counted on a last line instead."""
    rules = Rules.from_json(table.rules)
    counted = any(p.counted for p in recap.players)
    stake = ("practice, no units" if not counted else
             f"{plural(table.stake, 'unit')} per point" if table.stake else "no units")
    span = recap.ended - recap.started
    end = "f" if span >= 12 * 3600 else "t"  # (a table over days says the day it ended)
    when = (f"<t:{int(recap.started)}:f> to <t:{int(recap.ended)}:{end}>" if span >= 60
            else f"<t:{int(recap.ended)}:f>")
    lines = [f"📋 **{'Recap' if closed else 'This table so far'}** — {rules.variant}, {stake} · "
             f"{plural(recap.hands, 'hand')}, {when}"]
    medals = ("🥇", "🥈", "🥉")
    place = 0
    size = len(lines[0])
    for k, p in enumerate(recap.players):
        if not k or p.points != recap.players[k - 1].points:
            place = k
        # (a place after the medals is "4\." : "4." starting a line is a list Discord numbers)
        mark = medals[place] if place < len(medals) else f"{place + 1}\\."
        points = signed_amount(p.points, "point")  # (as the showdown: "−3", "0")
        said = []  # (the points of /ofc stats and the leaderboards, when they are others)
        if p.counted and not p.is_bot and p.ranked is not None and p.ranked != p.points:
            said.append(f"{signed(p.ranked)} vs humans")
        if table.stake and p.counted and not p.is_bot:
            said.append(signed_amount(p.units, "unit"))
        elif counted and not p.counted and not p.is_bot:  # (a table that counted for others)
            said.append("practice only")
        units = f" ({', '.join(said)})" if said else ""
        parts = [f"{mark} {_as_typed(p.name) or 'Player'} {points}{units}",
                 plural(p.hands, "hand")]
        if p.fantasylands:
            parts.append(f"🌴 {plural(p.fantasylands, 'fantasyland')}")
        if p.fouls:
            parts.append(plural(p.fouls, "foul"))
        parts.append(f"best hand {signed(p.best)}")
        line = " · ".join(parts)
        left = len(recap.players) - k
        more = f"… and {plural(left, 'more player')} (`/ofc recap` lists them all)"
        if limit is not None and size + len(line) + 1 + (len(more) + 1 if left > 1 else 0) \
                > limit:
            lines.append(more)
            break
        lines.append(line)
        size += len(line) + 1
    return lines


def _decision(t: TableState, hs: int, kind: str) -> str:
    """What the AI is asked, for the log of a call that hangs: ``a bot's move at table 3,
    hand #12, hand seat 1`` (where to find the position again)."""
    return f"{kind} at table {t.id}, hand #{t.row.hand_no}, hand seat {hs}"


def _about(seconds: float, *, past: bool = False) -> str:
    """A span in words, roughly: whole hours from about an hour on, else minutes (``past``: a
    time gone by, rounded down, so that it never says more than it was)."""
    if past:
        return (plural(int(seconds // 3600), "hour") if seconds >= 3600
                else plural(max(1, int(seconds // 60)), "minute"))
    if seconds >= 3600 - 150:
        return plural(round(seconds / 3600), "hour")
    return plural(max(1, round(seconds / 60)), "minute")


NO_TABLE_HERE = "There is no table in this channel. Open one with `/ofc new`."
NO_HANDS_YET = "You have not finished a hand in this server yet."


class Notifier(Protocol):
    async def table_changed(self, table: TableState) -> None: ...

    async def turn_started(
        self, table: TableState, seats: list[int], requirement: Requirement | None
    ) -> bool | None: ...

    async def fantasyland_dealt(self, table: TableState, seat_no: int) -> None: ...

    async def showdown(self, table: TableState, result: ShowdownResult) -> bool | None: ...

    async def notice(self, table: TableState, text: str, *, ping: bool = True) -> bool | None:
        """Post ``text`` in the table's channel; ``ping=False``: its mentions notify nobody.
        (These three return ``True`` when a message reached the channel.)"""

    # optional: ``table_gone(table)``, the table closed because its channel is gone (nothing
    # can be posted there): what the notifier keeps of it can go (``SafeNotifier.table_gone``)


class NullNotifier:
    async def table_changed(self, table: TableState) -> None:
        return None

    async def turn_started(
        self, table: TableState, seats: list[int], requirement: Requirement | None
    ) -> None:
        return None

    async def fantasyland_dealt(self, table: TableState, seat_no: int) -> None:
        return None

    async def showdown(self, table: TableState, result: ShowdownResult) -> None:
        return None

    async def notice(self, table: TableState, text: str, *, ping: bool = True) -> None:
        return None


class ChannelGone(Exception):
    """Raised by a notifier: the table's channel no longer exists (deleted while the bot was
    away, say), so nobody can play there any more."""


class ChannelMuted(Exception):
    """Raised by a notifier: the table's channel takes no message from the bot now (a locked
    or archived thread, a permission taken away).  Normal enough: the table plays on
    silently, and the log says so once, not at every message."""


class SafeNotifier:
    """Messages are best effort: a send that fails (permissions, Discord errors) is logged and
    never undoes, stops or misreports play.  A table whose channel is gone is handed to
    ``on_gone`` (the service closes it); one whose channel takes no message now is logged
    once (again when it takes them again)."""

    def __init__(self, inner: Notifier,
                 on_gone: Callable[[TableState], None] | None = None) -> None:
        self.inner = inner
        self.on_gone = on_gone
        self._muted: set[int] = set()
        """Tables whose channel refused the bot's last message."""
        self._told: set[int] = set()
        """Tables whose muting was logged as a warning (once a run: a channel that takes
        pings but not pictures, say, would warn at every hand)."""

    async def _call(self, name: str, table: TableState, *args: Any, **kwargs: Any) -> None:
        try:
            sent = await getattr(self.inner, name)(table, *args, **kwargs)
        except asyncio.CancelledError:
            raise
        except ChannelGone:
            log.warning("the channel %s of table %s is gone", table.row.channel_id, table.id)
            if self.on_gone is not None:
                self.on_gone(table)
        except ChannelMuted as e:
            if table.id not in self._muted:
                self._muted.add(table.id)
                log.log(logging.DEBUG if table.id in self._told else logging.WARNING,
                        "table %s: its channel %s takes no message from the bot now (%s); it "
                        "plays on silently", table.id, table.row.channel_id, e)
                self._told.add(table.id)
        except Exception:
            log.exception("notifier %s failed at table %s (channel %s)", name, table.id,
                          table.row.channel_id)
        else:  # (``True``: a message reached the channel; not an edit queued, not a DM)
            if sent is True and table.id in self._muted:
                self._muted.discard(table.id)
                log.info("table %s: its channel %s takes messages again", table.id,
                         table.row.channel_id)
        if table.row.status == "closed":  # (its last messages are out: nothing to keep)
            self.forget(table.id)

    def forget(self, table_id: int) -> None:
        """Drop what is kept about a closed table."""
        self._muted.discard(table_id)
        self._told.discard(table_id)

    def muted(self, table: TableState) -> bool:
        """The table's channel refused the bot's last message."""
        return table.id in self._muted

    async def table_changed(self, table: TableState) -> None:
        await self._call("table_changed", table)

    async def table_gone(self, table: TableState) -> None:
        """The table closed because its channel is gone (for a notifier that has a
        ``table_gone``: the protocol's optional method)."""
        if hasattr(self.inner, "table_gone"):
            await self._call("table_gone", table)

    async def turn_started(
        self, table: TableState, seats: list[int], requirement: Requirement | None
    ) -> None:
        await self._call("turn_started", table, seats, requirement)

    async def fantasyland_dealt(self, table: TableState, seat_no: int) -> None:
        await self._call("fantasyland_dealt", table, seat_no)

    async def showdown(self, table: TableState, result: ShowdownResult) -> None:
        await self._call("showdown", table, result)

    async def notice(self, table: TableState, text: str, *, ping: bool = True) -> None:
        await self._call("notice", table, text, ping=ping)


SETTLE_RETRY = 5.0
"""Seconds before a settlement that failed to write (a database error) is tried again."""

SETTLE_ATTEMPTS = 5
"""Attempts before a hand that cannot be settled is voided (no units move)."""

RESUME_GRACE = 30.0
"""After a restart, a decision whose clock ran out while the bot was down (nobody could act)
gets this long from the moment play resumes (the player is pinged again): a bot outage must
not sit players out."""
SAVE_RETRY = 2.0
"""Seconds before a timeout's or a bot's move that could not be saved is played again; the
wait doubles with every failure in a row, up to ``SAVE_RETRY_MAX``."""

SAVE_RETRY_MAX = 60.0


def _backoff(delay: float) -> float:
    """The wait before trying again after a try that waited ``delay`` (0: the first)."""
    return min(max(2 * delay, SAVE_RETRY), SAVE_RETRY_MAX)


EMPTY_CLOSED = "Nobody is left: the table is closed (`/ofc new` opens another)."

LOAD_ATTEMPTS = 3
LOAD_RETRY = 0.5
"""At start, a table whose loading fails (a database error) is tried again after 0.5 s, then
1 s; after 3 attempts it is left out (logged) until the next start."""

SAVE_FAILURES_NOTICE = 3
"""Saves failed in a row before the channel is told that the table is stuck (once; it is told
again when saving works)."""


CLOSING = ("This table is closing: no new seats or hands. Once it has closed (after the hand "
           "being played, if any, and the fantasyland hand it owes, if any), `/ofc new` opens "
           "another in this channel.")
CLOSE_AFTER = "close_after"
"""In a closing table's ``extra``: the number of the hand the close was asked during (or after);
a fantasyland that hand earns is still dealt and played (its players may not skip it), then the
table closes: never more than that one hand (a stay in fantasyland does not keep it open)."""
CLOSE_BY = "close_by"
"""In a closing table's ``extra``: who asked for the close (the channel is told, when it closes
a hand or two later, who closed it: players who were not watching then would not know)."""
CLOSE_ASKED = "close_asked"
"""In a closing table's ``extra``: whether the close was asked ``during`` its ``CLOSE_AFTER``
hand or ``after`` it (between hands, a fantasyland owed)."""

NOTIFY_WAIT = 1.0
"""Seconds a command waits for its messages (turn pings, DMs) before it answers anyway: the
sends go on in the background, so a rate-limited channel never costs the 3-second answer."""


def practice_of(seats: Sequence[SeatRow]) -> bool:
    """Whether a hand of these seats is practice: one human (or none) and bots."""
    humans = sum(1 for s in seats if not s.is_bot)
    return humans <= 1 and len(seats) > humans


@dataclass
class Draft:
    """A player's panel selection before Confirm: cards picked in the select, cards assigned."""

    selected: list[Card] = field(default_factory=list)
    assigned: list[tuple[Card, int]] = field(default_factory=list)  # row 3 = discard
    presses: list[int] = field(default_factory=list)
    """How many cards each row press assigned (Undo takes back the last press)."""
    warned: list[tuple[Card, int]] | None = None
    """The arrangement a Confirm was warned about (it fouls): a second Confirm plays it."""

    def to_json(self) -> dict[str, Any]:
        return {
            "selected": cards_to_json(self.selected),
            "assigned": [[str(c), r] for c, r in self.assigned],
            "presses": list(self.presses),
            "warned": None if self.warned is None else [[str(c), r] for c, r in self.warned],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Draft:
        return cls(
            selected=cards_from_json(data.get("selected", [])),
            assigned=[(c, int(r)) for c, (_, r) in zip(
                cards_from_json([x[0] for x in data.get("assigned", [])]),
                data.get("assigned", []), strict=True)],
            presses=[int(x) for x in data.get("presses", [])],
            warned=None if data.get("warned") is None else [
                (Card(str(c)), int(r)) for c, r in data["warned"]],
        )


def _draft_move(
    req: Requirement, draft: Draft
) -> tuple[list[tuple[Card, int]], list[Card]]:
    """The move a panel's draft stands for (Confirm, or a timeout): its cards on rows and its
    discards, with the cards left over when every card to place is on a row and they are
    exactly the discards still to make."""
    placed = [(c, r) for c, r in draft.assigned if r < 3]
    discards = [c for c, r in draft.assigned if r == 3]
    left = [c for c in req.cards if c not in {c for c, _ in draft.assigned}]
    if len(left) == req.discard - len(discards) and len(placed) == req.place:
        discards += left  # the cards left over are the discards
    return placed, discards


@dataclass
class TableState:
    """A table in memory (mirrors the store)."""

    row: TableRow
    seats: list[SeatRow]
    hand: Hand | None = None
    hand_row: HandRow | None = None
    hand_seats: list[int] = field(default_factory=list)  # table seat_no per hand seat
    deadlines: dict[int, float] = field(default_factory=dict)  # hand seat -> unix time
    drafts: dict[int, Draft] = field(default_factory=dict)
    away: set[int] = field(default_factory=set)
    """Hand seats whose clock ran out in this hand and who have not acted since: their later
    decisions get the ``away_timer`` option's clock (persisted with the hand)."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timer: asyncio.Task[None] | None = None
    wake: asyncio.Future[None] | None = None
    """What the timer sleeps on until its next deadline (``TableService._doze``)."""
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)
    last_result: ShowdownResult | None = None
    bot_keys: set[tuple[int, int, int]] = field(default_factory=set)
    waiting: bool = False
    """Between hands with too few players: the next join / sit-in / start deals."""
    deal_failed: bool = False
    """Waiting because the last deal failed on the database (retried; ``/ofc start`` deals)."""
    hand_practice: bool = False
    """Whether the hand being played was dealt as practice (decided at the deal)."""
    stored: dict[str, Any] | None = None
    """The hand's state as last written: what memory goes back to when a save fails."""
    settle_failures: int = 0
    save_failures: int = 0
    """Saves of the hand that failed in a row (0 after a save that worked)."""
    back_late: dict[int, int] = field(default_factory=dict)
    """Hand seat -> the step (``step_of``) of a decision whose clock had run out when its
    player sat in (``/ofc sitin``), while the timeout's move was being found: that move is
    still the timeout's, but they are not sat out nor given the short clock (they said they
    are here).  Saved with the hand."""
    showdown_notes: list[str] = field(default_factory=list)
    """Notices that go out just before the showdown of the hand under way (the timeout that
    played its last move: said before the showdown, not after it).  Saved with the hand (and
    in its final state: a restart before the showdown was posted still says them)."""
    resuming: bool = False
    """Loaded after a restart and not resumed yet (``TableService.resume``): commands wait."""
    touched: float = 0.0
    """When this process last wrote a change of the table (a seat, a deal, a hand's end: see
    ``_refresh_after_write``; 0: none yet): with the table row's last write and its seats'
    arrivals, when it went idle (``idle_since``)."""
    idle_warned: tuple[float, float] | None = None
    """The last idle warning (``close_idle``): the ``idle_since`` it was about and the close
    it announced (not saved: a restart, which delays the close, may warn again)."""
    over_max_stake: bool = False
    """Its stake is above the server's maximum (lowered since it opened): it takes no new
    buy-ins (``join`` refuses them; kept by ``load_tables`` and ``update_settings``)."""

    @property
    def takes_buy_ins(self) -> bool:
        """Whether ``/ofc join`` can seat someone here (or buy an empty stack in again)."""
        return self.row.status == "open" and not self.over_max_stake

    def idle_since(self) -> float:
        """Since when nothing happened here: no hand dealt or ended, nobody sat down, in or
        out, no option changed (what a restart keeps of it: the table's and seats' rows)."""
        return max(self.row.created_at, self.row.updated_at, self.touched,
                   *(s.joined_at for s in self.seats))

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def rules(self) -> Rules:
        """The rules being played: the hand's while one is dealt (options changed meanwhile
        wait for the next hand), else the table's."""
        return self.hand.rules if self.hand is not None else self.table_rules

    @property
    def four_colour(self) -> bool:
        """The table's images draw a four-colour deck (default) or the classic two-colour one
        (``/ofc options deck``)."""
        return bool(self.row.extra.get("deck", "four") != "two")

    @property
    def table_rules(self) -> Rules:
        """The table's options: what the next hand is dealt with."""
        return Rules.from_json(self.row.rules)

    def seat_by_no(self, seat_no: int) -> SeatRow | None:
        return next((s for s in self.seats if s.seat_no == seat_no), None)

    def seat_of_user(self, user_id: int) -> SeatRow | None:
        return next((s for s in self.seats if s.user_id == user_id), None)

    def hand_seat_of(self, seat_no: int) -> int | None:
        return self.hand_seats.index(seat_no) if seat_no in self.hand_seats else None

    @property
    def humans(self) -> list[SeatRow]:
        return [s for s in self.seats if not s.is_bot]

    @property
    def bots(self) -> list[SeatRow]:
        return [s for s in self.seats if s.is_bot]

    @property
    def practice(self) -> bool:
        """One human against bots: no units move and nothing counts in leaderboards.  While a
        hand is played, what was decided at its deal (by the seats dealt in)."""
        if self.hand is not None:
            return self.hand_practice
        return practice_of(self.seats)

    @property
    def host_id(self) -> int:
        """Who may change the options and close the table (besides server managers): its
        creator; when the host leaves, the human seated longest (``extra["host"]``)."""
        return int(self.row.extra.get("host", self.row.creator_id))

    def host_after(self, seat_no: int) -> int | None:
        """The next host if the seat ``seat_no`` leaves (None: the host stays, or no human is
        left to take over)."""
        seat = self.seat_by_no(seat_no)
        if seat is None or seat.user_id != self.host_id:
            return None
        others = [s for s in self.humans if s.seat_no != seat_no]
        return min(others, key=lambda s: (s.joined_at, s.seat_no)).user_id if others else None

    @property
    def fantasyland_earned(self) -> dict[int, int]:
        """Seat number -> cards of the fantasyland it earned, kept as earned (what is stored):
        the deal sizes it by the table's options then (``fantasyland_pending``), so switching
        ``progressive`` off and on again between hands changes nothing."""
        return {int(k): int(v) for k, v in self.row.extra.get("fantasyland", {}).items()}

    @property
    def fantasyland_pending(self) -> dict[int, int]:
        """Seat number -> cards of the fantasyland hand the next deal owes, as the table's
        options deal it now."""
        rules = self.table_rules
        now = {no: rules.fantasyland_cards_now(c) for no, c in self.fantasyland_earned.items()}
        return {no: c for no, c in now.items() if c}

    def can_be_dealt(self, seat: SeatRow) -> bool:
        """Not sitting out, and a bot or someone with chips (or a table without stakes)."""
        return not seat.sitting_out and self.can_pay(seat)

    def can_pay(self, seat: SeatRow) -> bool:
        """A bot, someone with chips, or any seat at a table without stakes."""
        return seat.is_bot or seat.stack > 0 or self.row.stake == 0

    def owes_fantasyland(self, seat_no: int) -> bool:
        """Whether this seat played the hand that earned a pending fantasyland (and is not
        the one in fantasyland): it stays for that hand even if it asked to leave.  Only the
        fantasylands earned in that hand bind (not one carried over for a player who sat it
        out), only while their player can play them, and only a seat with chips to play it
        (a player without chips is free to go).  Sitting out does not free a seat: it is dealt
        into that hand all the same ("not allowed to quit or skip the Fantasyland hand",
        seeds/004), else sitting out first would let it leave at once."""
        pending = self.fantasyland_pending
        owed_by = {int(x) for x in self.row.extra.get("fantasyland_owed_by", [])}
        seat = self.seat_by_no(seat_no)
        if seat_no not in owed_by or seat_no in pending or seat is None:
            return False
        if not self.can_pay(seat):
            return False
        return self.fantasyland_playable()

    def fantasyland_playable(self) -> bool:
        """A player the last hand sent to fantasyland can play it now (not leaving, not
        sitting out): what binds that hand's players, and what a closing table still deals.
        A bot's fantasyland binds nobody: it is worth nothing to anyone (a bot plays for
        points only), so it neither keeps a human at the table nor a closing table open."""
        owed_by = {int(x) for x in self.row.extra.get("fantasyland_owed_by", [])}
        earners = (self.seat_by_no(no) for no in self.fantasyland_pending if no in owed_by)
        return any(e is not None and not e.is_bot and not e.leaving and self.can_be_dealt(e)
                   for e in earners)

    def name_of(self, hand_seat: int) -> str:
        seat = self.seat_by_no(self.hand_seats[hand_seat])
        return seat.name if seat else f"seat {hand_seat}"


@dataclass(frozen=True)
class ShowdownResult:
    hand_no: int
    names: tuple[str, ...]
    user_ids: tuple[int, ...]
    settlement: Settlement
    units: tuple[int, ...] | None
    fantasyland_next: tuple[int, ...]
    practice: bool
    rules: Rules
    natural_cards: tuple[tuple[Card, ...], ...]
    seat_nos: tuple[int, ...] = ()
    """Per hand seat, the table seat (from 0) it was dealt to."""
    broke: tuple[int, ...] = ()
    """Users whose stack this hand emptied: not dealt in until they buy in again."""
    notes: tuple[str, ...] = ()
    """Notices that go out just before the showdown (``TableState.showdown_notes``)."""
    replayable: bool = False
    """Played round by round (ofc, pineapple, someone not in fantasyland): the showdown
    offers its replay (``Hand.rounds``)."""
    bots: tuple[bool, ...] = ()
    """Per hand seat, whether a bot played it (points against a bot move no units)."""


@dataclass(frozen=True)
class PastHand:
    """A settled hand's showdown again (``/ofc history hand``), with what its picture needs
    of its table."""

    result: ShowdownResult
    stake: int
    four_colour: bool
    finished_at: float
    closed: bool
    """The table is closed (the channel's last one)."""
    table_id: int = 0
    rounds: tuple[Round, ...] = ()
    """Its street-by-street replay (``Hand.rounds``; none for a chinese hand, or when its log
    cannot be played again)."""
    channel_id: int = 0
    """Where its table is (or was)."""
    players: frozenset[int] = frozenset()
    """The humans who played it (each has a result in it)."""


@dataclass(frozen=True)
class HandReview:
    """A member's decisions in a settled hand, judged (``TableService.review_at``)."""

    number: int
    table_id: int
    channel_id: int
    finished_at: float
    review: Review


@dataclass(frozen=True)
class PlaceResult:
    text: str
    hand_over: bool


@dataclass(frozen=True)
class PanelState:
    table_id: int
    seat_no: int
    hand_no: int
    step: int
    requirement: Requirement | None
    board: Board
    draft: Draft
    fantasyland: bool
    discards: tuple[Card, ...]
    waiting_for: str
    name: str
    can_declare: bool = False
    """Chinese: the hand's rules have naturals to declare (a table can take them all off)."""

    @property
    def remaining(self) -> list[Card]:
        if self.requirement is None:
            return []
        used = {c for c, _ in self.draft.assigned}
        return [c for c in self.requirement.shown if c not in used]


def _seed() -> str:
    return secrets.token_hex(16)


def _wake(woken: asyncio.Future[None]) -> None:
    """End a timer's ``_doze`` (its deadline came, or ``rearm``)."""
    if not woken.done():
        woken.set_result(None)


def _plain_autoplay(hand: Hand, hs: int) -> Callable[[], Place | Declare]:
    """A timeout's move for ``hs`` found without the AI (the fallback when it does not
    answer: ``Thinker``), on a copy of ``hand`` (autoplay plays the move on the hand)."""
    return lambda: Hand.from_json(hand.to_json()).autoplay(hs, plain=True)


def _plain_move(hand: Hand, hs: int) -> Callable[[], Move]:
    """A bot's move for ``hs`` found without the AI (the fallback when it does not answer)."""

    def move() -> Move:
        req = hand.requirement(hs)
        assert req is not None
        return choose_placement(hand, hs, req, plain=True)

    return move


SHOWDOWN_PENDING = "showdown_pending"
"""The table's ``extra`` key naming the hand settled whose showdown is not posted yet."""
CLOSE_UNMARKED = "close_unmarked"
"""In a closed table's ``extra``: its table message may still look live (button and all); it is
written by the close and removed once the message says closed, so a bot stopped between the
two marks it when it starts again."""


def _settled_showdown(
    row: HandRow, results: Sequence[HandResult], rules: Rules | None = None
) -> ShowdownResult | None:
    """The showdown of a settled hand as it was posted, rebuilt from its final state and its
    ``results`` (units by user); none when the state holds no settlement.  The fantasyland
    sizes are the ones the settlement showed (saved with the final state; for a hand settled
    before they were, as dealt under ``rules``, default the hand's own, where the results say
    one was earned).  A state that cannot be read back raises (any error)."""
    st = row.state
    hand = Hand.from_json(st["engine"])
    if hand.settlement is None:
        return None
    seat_nos = tuple(int(x) for x in st["seats"])
    users = tuple(int(u) for u in st.get("users", [0] * len(seat_nos)))
    # (a hand saved before "practice" was: one that counted for nobody)
    practice = bool(st.get("practice", bool(results) and not any(r.counted for r in results)))
    won = {r.user_id: r.units for r in results}
    bots = {r.user_id for r in results if r.is_bot}
    if "fantasyland_shown" in st:
        earned = tuple(int(c) for c in st["fantasyland_shown"])
    else:
        rules = hand.rules if rules is None else rules
        flagged = {r.seat_no: r.fantasyland for r in results}
        earned = tuple(rules.fantasyland_cards_now(c) if flagged.get(no, True) else 0
                       for no, c in zip(seat_nos, hand.fantasyland_next, strict=True))
    return ShowdownResult(
        hand_no=row.number, names=hand.names, user_ids=users, settlement=hand.settlement,
        units=None if practice else tuple(won.get(u, 0) for u in users),
        fantasyland_next=earned, practice=practice, rules=hand.rules,
        natural_cards=tuple(hand.natural_cards), seat_nos=seat_nos,
        notes=tuple(str(x) for x in st.get("showdown_notes", [])),
        replayable=bool(hand.regular_seats),
        bots=tuple(u in bots for u in users),
    )


EXPORT_COLUMNS = ("table", "hand", "finished_utc", "channel", "game", "stake", "players",
                  "points", "points_vs_humans", "units", "practice", "fouled", "surrendered",
                  "royalties", "natural", "fantasyland", "top", "middle", "bottom")
"""``hands_csv``'s header: ``channel`` a link to it (a channel id has more digits than a
spreadsheet keeps), ``points_vs_humans`` the points ``/ofc stats`` and the leaderboards count
(those against humans; none in practice), ``practice`` a hand that moved no units,
``fantasyland`` whether the hand earned one, ``top``/``middle``/``bottom`` the rows as set."""


def hands_csv(hands: Sequence[ExportedHand], guild_id: int) -> str:
    """One player's hands as CSV (RFC 4180, a header line, ``EXPORT_COLUMNS``): what a
    spreadsheet opens.  Yes/no columns are 1/0, times ISO 8601 in UTC."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(EXPORT_COLUMNS)
    for e in hands:
        h, r = e.hand, e.hand.result
        counted = (r.points if r.ranked_points is None else r.ranked_points) if r.counted else 0
        writer.writerow((
            h.table_id, h.number,
            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(h.finished_at)),
            f"https://discord.com/channels/{guild_id}/{h.channel_id}",
            h.variant, h.stake, e.players, r.points, counted, r.units, int(not r.counted),
            int(r.fouled and not r.surrendered), int(r.surrendered), r.royalties,
            r.natural or "", int(r.fantasyland), *(e.rows or ("", "", ""))))
    return out.getvalue()


def _check_game(variant: str | None) -> None:
    """A board or stats of one game (``variant``) or of every game (None)."""
    if variant is not None and variant not in VARIANTS:
        raise ServiceError("The game is ofc, pineapple or chinese.")


def _resumed(t: TableState) -> TableState:
    """``t``, unless the bot has just restarted and not resumed it yet (``load_tables``)."""
    if t.resuming:
        raise ServiceError("The bot has just restarted and is resuming this table: try again "
                           "in a few seconds.")
    return t


def _require_host(t: TableState, user_id: int, manage_guild: bool, what: str) -> None:
    """Table changes are for its host or a server manager (lock held: the host changes under
    it, when the host leaves)."""
    if user_id != t.host_id and not manage_guild:
        raise ServiceError(f"Only the table's host (<@{t.host_id}>) or a server manager can "
                           f"{what}.")


class TableService:
    def __init__(
        self,
        store: Store,
        notifier: Notifier | None = None,
        *,
        clock: Callable[[], float] = time.time,
        next_hand_delay: float = 5.0,
        seed_factory: Callable[[], str] = _seed,
        deck_factory: Callable[[TableState], Sequence[Card] | None] | None = None,
        bot_delay: float = 0.0,
        thinker: Thinker | None = None,
        idle_check: float = IDLE_CHECK,
    ) -> None:
        self.store = store
        self.thinker = thinker or Thinker(0)
        """Where the AI thinks (worker processes, or threads of this process)."""
        self._notifier = SafeNotifier(notifier or NullNotifier(), self.channel_lost)
        self.clock = clock
        self.next_hand_delay = next_hand_delay
        self.seed_factory = seed_factory
        self.deck_factory = deck_factory
        self.bot_delay = bot_delay
        self.tables: dict[int, TableState] = {}
        self._by_channel: dict[int, int] = {}
        self._to_resume: list[tuple[TableState, int | None]] = []
        """Tables loaded, not resumed yet, each with the number of its hand voided as
        unreadable (``load_tables``, ``resume``)."""
        self._to_mark: list[TableState] = []
        """Tables closed just before the stop whose message may still look live (``resume``
        marks them)."""
        self._gone_retries: set[int] = set()
        """Tables whose channel is gone and whose close is tried again (``_close_gone``)."""
        self._closed = False
        self.idle_check = idle_check
        """Seconds between two looks for idle tables (``close_idle``)."""
        self._awake_since: float | None = None
        """When play resumed in this process (``resume``), or the gateway came back
        (``connection_back``): no table closes as idle in the ``IDLE_GRACE`` after it."""
        self._idle_task: asyncio.Task[None] | None = None
        self._connected = False
        """Connected to Discord's gateway (``resume``, ``connection_lost``): players can act."""
        self._online = asyncio.Event()
        """Cleared while the gateway is lost (``connection_lost``): no clock plays then."""
        self._online.set()
        self._reviews: dict[tuple[int, int, int], HandReview] = {}
        """Reviews made, by (table, hand row, member): a hand's review never changes."""
        self._reviewing: set[int] = set()
        """Members whose review is being worked out (one at a time each)."""
        self._review_turn = asyncio.Lock()
        """Held while a review's decision is judged: the AI's workers hold at most one such
        call at a time (up to about a second), so that the bots and clocks of the tables,
        which share the workers, wait at most that long behind reviews however many are
        asked for; reviews of several members take turns, decision by decision."""

    @property
    def notifier(self) -> SafeNotifier:
        return self._notifier

    @notifier.setter
    def notifier(self, notifier: Notifier) -> None:
        self._notifier = SafeNotifier(notifier, self.channel_lost)

    # ------------------------------------------------------------------ lifecycle / recovery
    async def recover(self) -> list[TableState]:
        """Reload every open table and resume play there (``load_tables`` then ``resume``)."""
        loaded = await self.load_tables()
        await self.resume()
        return loaded

    async def load_tables(self) -> list[TableState]:
        """Reload every open table, nothing more: no timer, no bot, no message until
        ``resume`` (the bot calls it once connected to Discord's gateway, so that a start
        that fails to connect, tried again and again by a supervisor, neither posts a notice
        at every table each time nor plays the timeouts of players who cannot reach it).
        Meanwhile a command at such a table is answered that it resumes in a moment."""
        loaded = []
        unreadable: dict[int, int] = {}  # table id -> number of the hand voided
        for row in await self.store.open_tables():
            for attempt in range(1, LOAD_ATTEMPTS + 1):  # a database error may pass
                try:
                    t = await self._load_table(row, unreadable)
                    break
                except Exception:  # one broken table must not keep the others down
                    log.exception("loading table %s failed (attempt %d of %d)", row.id,
                                  attempt, LOAD_ATTEMPTS)
                    if attempt < LOAD_ATTEMPTS:
                        await asyncio.sleep(LOAD_RETRY * attempt)
            else:
                continue
            t.resuming = True
            with contextlib.suppress(Exception):  # (join checks it anyway)
                t.over_max_stake = (
                    row.stake > (await self.store.get_settings(row.guild_id)).max_stake)
            self.tables[row.id] = t
            self._by_channel[row.channel_id] = row.id
            loaded.append(t)
            self._to_resume.append((t, unreadable.get(t.id)))
        try:
            self._to_mark = [TableState(row=row, seats=[]) for row in
                             await self.store.closed_tables_marked(CLOSE_UNMARKED)]
        except Exception:  # only a message to mark: never keeps the bot from starting
            log.exception("looking for closed tables whose message may look live failed")
        return loaded

    async def resume(self) -> None:
        """Resume play at the tables ``load_tables`` loaded: re-arm their timers (a clock that
        ran out while the bot was down gets ``RESUME_GRACE``), let their bots play, settle a
        hand stopped before it was settled, and tell each channel that play resumes (again the
        turn and the fantasyland hands not set: what was sent just before the stop may not have
        gone out)."""
        pending, self._to_resume = self._to_resume, []
        if pending:
            log.info("resuming %d table(s)", len(pending))
        self.connection_back()
        if self._idle_task is None and not self._closed:
            self._idle_task = asyncio.ensure_future(self._look_for_idle())
        closed, self._to_mark = self._to_mark, []
        for t in closed:  # closed just before the stop: their message says so now
            await self.notifier.table_changed(t)
        for t, lost in pending:
            news: tuple[list[int], tuple[list[int], Requirement | None]] | None = None
            try:
                async with t.lock:
                    t.resuming = False
                    if self.tables.get(t.id) is not t:  # closed meanwhile (channel deleted)
                        continue
                    if t.hand is not None and t.hand.is_over:  # stopped before it was settled
                        await self._showdown(t)
                    elif t.hand is not None:
                        now = self.clock()
                        for hs, deadline in list(t.deadlines.items()):
                            if deadline <= now:  # ran out while nobody could act
                                t.deadlines[hs] = now + RESUME_GRACE
                        self._arm(t)
                        self._schedule_bots(t)
                        news = self._news(t, still_on_time=True)
                    elif t.row.status == "closing" or not t.humans:
                        # closed between hands, as after a hand (a database error there is
                        # tried again, and the channel is told when it is closed)
                        t.waiting = t.row.hand_no > 0
                        self._spawn(t, await self._between_hands(t))
                        continue
                    elif t.row.hand_no > 0:
                        t.waiting = True
                        self._spawn(t, await self._between_hands(t))
            except Exception:  # one broken table must not keep the others down
                log.exception("recovering table %s failed", t.id)
                continue
            if t.row.status != "closed":
                await self.notifier.notice(t, "The bot restarted: play resumes where it was." if
                                           lost is None else
                                           f"The bot restarted: hand #{lost} could not be "
                                           "restored and was voided (no units moved); the next "
                                           "hand follows.")
                if news is not None:  # (the table message too) in the background: the
                    self._spawn(t, self._send_news(t, *news))  # next tables wait for none
                else:
                    await self.notifier.table_changed(t)

    async def _between_hands(self, t: TableState) -> Awaitable[None]:
        """What a table resumed between hands does: the next hand (or its closing) at once,
        after the showdown of the hand settled just before the stop if it may not have been
        posted (lock held)."""
        result = None
        if SHOWDOWN_PENDING in t.row.extra:
            try:
                result = await self._stored_showdown(t)
            except Exception:  # not worth holding the table up
                log.exception("table %s: the last showdown could not be rebuilt", t.id)
        if result is None:
            return self._next_hand_later(t, 0.0)
        t.last_result = result
        t.waiting = False  # (a join or start meanwhile must not deal before the showdown)
        return self._after_showdown(t, result, delay=0.0)

    def _load_hand(self, t: TableState, hand_row: HandRow) -> None:
        t.hand_row = hand_row
        self._restore(t, hand_row.state)

    async def _load_table(self, row: TableRow, unreadable: dict[int, int]) -> TableState:
        """A stored table and its hand (a hand that cannot be read back is voided and its
        number noted in ``unreadable``)."""
        t = TableState(row=row, seats=await self.store.seats(row.id))
        await self._from_older_versions(t)
        try:
            hand_row = await self.store.current_hand(row.id)
            if hand_row is not None:
                self._load_hand(t, hand_row)
        except sqlite3.Error:  # the database, not the hand: the caller tries again
            raise
        except Exception:  # e.g. written by another version: void it, play on
            log.exception("the hand of table %s cannot be loaded; voiding it", row.id)
            number = await self.store.abort_unreadable_hand(row.id, self.clock())
            t.hand, t.hand_row, t.hand_seats, t.stored = None, None, [], None
            t.deadlines, t.drafts = {}, {}
            if number is not None:
                unreadable[row.id] = number
        return t

    async def _from_older_versions(self, t: TableState) -> None:
        """What a table saved by an older version lacks, filled in once (its idle time kept):
        a closing table's ``CLOSE_AFTER`` (before 2026-11-25: the hand under way, or the last,
        is the one the close was asked during, so it closes after that hand's fantasyland, not
        after every fantasyland that stays), and a host in the creator's place when they have
        left (before hosts were handed on, the creator stayed host after leaving)."""
        extra = dict(t.row.extra)
        if t.row.status == "closing" and CLOSE_AFTER not in extra:
            extra[CLOSE_AFTER] = t.row.hand_no
        if "host" not in extra and t.humans and t.seat_of_user(t.row.creator_id) is None:
            extra["host"] = min(t.humans, key=lambda s: (s.joined_at, s.seat_no)).user_id
        if extra != t.row.extra:
            try:
                t.row = await self.store.update_table(t.row.id, extra=extra,
                                                      now=t.row.updated_at)
            except Exception:  # (the table loads all the same; the next start tries again)
                log.exception("filling in what table %s lacks from an older version failed",
                              t.row.id)
                t.row = dataclasses.replace(t.row, extra=extra)

    @staticmethod
    def _restore(t: TableState, st: dict[str, Any]) -> None:
        """The hand in memory from a stored state (a restart, or a save that failed)."""
        t.hand = Hand.from_json(st["engine"])
        t.hand_seats = [int(x) for x in st["seats"]]
        t.deadlines = {int(k): float(v) for k, v in st.get("deadlines", {}).items()}
        t.drafts = {int(k): Draft.from_json(v) for k, v in st.get("drafts", {}).items()}
        t.away = {int(x) for x in st.get("away", [])}
        # (a late sit-in whose own save failed stays: memory goes back to the stored state
        # when a later save fails too)
        t.back_late = {**{int(k): int(v) for k, v in st.get("back_late", {}).items()},
                       **t.back_late}
        t.hand_practice = bool(st.get("practice", practice_of(t.seats)))
        t.showdown_notes = [str(x) for x in st.get("showdown_notes", [])]
        t.stored = st

    async def shutdown(self) -> None:
        """Stop every table's timer and background task, then the AI's workers.  A task is
        cancelled again every half second while it runs (a cancellation can be lost, e.g. by
        ``asyncio.wait_for`` inside a library when what it waits for finishes at the same
        moment: a clean-clone test run under load once hung here); after ``SHUTDOWN_WAIT``
        seconds the ones still running are logged and left."""
        self._closed = True
        await stop_tasks(lambda: [x for t in self.tables.values() for x in [*t.tasks, t.timer]
                                  if x is not None] + [x for x in [self._idle_task] if x],
                         SHUTDOWN_WAIT, "table task(s)", log)
        self.thinker.close()

    def rearm(self) -> None:
        """Make every table's timer read its deadlines again now (after a clock change; the
        tests' fake clocks, nothing in the bot calls it).  A running timer is woken, not
        cancelled: a timeout it is thinking about or saving at that instant is finished
        first, then it reads the clock and the deadlines; a table without one gets one."""
        for t in self.tables.values():
            if t.timer is not None and not t.timer.done():
                if t.wake is not None:
                    _wake(t.wake)
            else:
                self._arm(t)

    def _spawn(self, t: TableState, coro: Awaitable[Any]) -> asyncio.Task[Any] | None:
        if self._closed:
            close = getattr(coro, "close", None)
            if close:
                close()
            return None
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        t.tasks.add(task)

        def done(task: asyncio.Task[Any]) -> None:
            t.tasks.discard(task)
            if not task.cancelled() and task.exception() is not None:
                log.error("table %s background task failed", t.id, exc_info=task.exception())

        task.add_done_callback(done)
        return task

    async def _tell(self, t: TableState, coro: Awaitable[Any]) -> None:
        """Send a command's messages, waiting at most ``NOTIFY_WAIT`` (the rest goes on in
        the background)."""
        task = self._spawn(t, coro)
        if task is not None:
            await asyncio.wait({task}, timeout=NOTIFY_WAIT)

    # ------------------------------------------------------------------ lookups
    def table_in_channel(self, channel_id: int, user_id: int | None = None) -> TableState:
        """The table in the channel; none: an error that points ``user_id`` (a player acting)
        to the table where they are seated, if any (a ping answered in the wrong channel must
        not read as "open a table here")."""
        table_id = self._by_channel.get(channel_id)
        if table_id is None or table_id not in self.tables:
            seated = [(t.row.guild_id, t.row.channel_id) for t in self.tables.values()
                      if user_id is not None and t.seat_of_user(user_id) is not None]
            if seated:
                raise SeatedElsewhere(seated)
            raise ServiceError(NO_TABLE_HERE)
        return _resumed(self.tables[table_id])

    @contextlib.asynccontextmanager
    async def _holding(self, t: TableState, stale: bool = False) -> AsyncIterator[None]:
        """A command's hold of the table's lock, once the table is still open: one closed
        while the command waited (by ``/ofc close``, as idle, its channel deleted) answers
        that (``stale``: as a panel's click, which loses its buttons) and changes nothing."""
        async with t.lock:
            if self.tables.get(t.id) is not t:
                raise (Stale if stale else ServiceError)(JUST_CLOSED)
            yield

    def table(self, table_id: int) -> TableState:
        t = self.tables.get(table_id)
        if t is None:
            raise Stale("That table is closed.")
        return _resumed(t)

    def _my_seat(self, t: TableState, user_id: int) -> SeatRow:
        seat = t.seat_of_user(user_id)
        if seat is None:  # (seated at another table of the server, e.g. in a thread: there)
            raise SeatedElsewhere(self._seated_elsewhere(t, user_id), here=True)
        return seat

    def _seated_elsewhere(self, t: TableState, user_id: int) -> list[tuple[int, int]]:
        """(server, channel) of the other tables of ``t``'s server where ``user_id`` sits."""
        return [(o.row.guild_id, o.row.channel_id) for o in self.tables.values()
                if o is not t and o.row.guild_id == t.row.guild_id
                and o.seat_of_user(user_id) is not None]

    def _turn_elsewhere(self, t: TableState, user_id: int, why: str) -> ServiceError:
        """Why ``user_id`` cannot act at ``t``, and `` Your turn is at <#…>.`` when they have
        a decision to make now at another table of ``t``'s server (a move typed in the wrong
        channel)."""
        channels = []
        for o in self.tables.values():
            seat = o.seat_of_user(user_id) if o is not t and o.row.guild_id == t.row.guild_id \
                else None
            hs = o.hand_seat_of(seat.seat_no) if seat is not None else None
            if hs is not None and o.hand is not None and o.hand.may_act(hs):
                channels.append(f"<#{o.row.channel_id}>")
        return ServiceError(f"{sentence(why)} Your turn is at {', '.join(channels)}."
                            if channels else why)

    def _my_hand_seat(self, t: TableState, user_id: int) -> int:
        seat = self._my_seat(t, user_id)
        if t.hand is None:
            raise self._turn_elsewhere(t, user_id, str(self._no_hand(t)))
        hs = t.hand_seat_of(seat.seat_no)
        if hs is None:
            raise self._turn_elsewhere(t, user_id, self._not_in_hand(t, seat))
        return hs

    def _not_in_hand(self, t: TableState, seat: SeatRow) -> str:
        """Why a seated player is not in the hand being played, and what comes next."""
        if seat.leaving:
            return "You are not in this hand, and you are leaving the table."
        if seat.sitting_out:
            return "You are not in this hand: you sit out until `/ofc sitin`."
        if self.is_broke(t, seat) and t.row.status == "closing":
            return "You are not in this hand, and your stack is empty; the table is closing."
        if self.is_broke(t, seat):
            return ("You are not in this hand, and your stack is empty: `/ofc join` buys in "
                    "again (between your hands) to be dealt in, `/ofc leave` goes.")
        return "You are not in this hand; you will be dealt in the next one."

    # ------------------------------------------------------------------ table admin
    async def new_table(
        self, guild_id: int, channel_id: int, user_id: int, name: str, *, variant: str = "ofc",
        stake: int = 1, buyin: int | None = None, seats: int | None = None,
        scoring: str | None = None, fantasyland: bool = True, timer: int | None = None,
        bots: int = 0, bot_level: str = "normal",
    ) -> TableState:
        if channel_id in self._by_channel and self._by_channel[channel_id] in self.tables:
            if self.tables[self._by_channel[channel_id]].row.status == "closing":
                raise ServiceError(CLOSING)
            raise ServiceError("This channel already has a table: `/ofc join` to sit down.")
        settings = await self.store.get_settings(guild_id)
        try:
            rules = Rules(
                variant=variant,  # type: ignore[arg-type]
                scoring=scoring,  # type: ignore[arg-type]
                fantasyland=fantasyland,
                timer=timer or settings.default_timer,
                set_timer=max(120, 2 * (timer or settings.default_timer)),
            )
        except RulesError as e:
            raise ServiceError(str(e)) from None
        max_seats = seats or rules.max_players
        try:
            rules.check_players(max_seats)
        except RulesError as e:
            raise ServiceError(str(e)) from None
        if not 0 <= bots < max_seats:
            raise ServiceError(f"A {max_seats}-seat table has room for at most "
                               f"{plural(max_seats - 1, 'bot')}.")
        if bot_level not in BOT_LEVELS:
            raise ServiceError(f"Bot level must be one of {', '.join(BOT_LEVELS)}.")
        if buyin is None:  # (a stake-0 table plays for no units: no buy-in)
            buyin = settings.default_buyin if stake else 0
        self._check_money(settings, stake, buyin)
        player = await self.store.ensure_player(guild_id, user_id, name)
        if buyin > player.balance:
            raise ServiceError(
                f"You have {plural(player.balance, 'unit')}; the buy-in is {buyin}. "
                "Choose a smaller `buyin`"
                + (", or play for no units with `stake:0 buyin:0` (e.g. against bots)."
                   if player.balance == 0 else ".")
            )
        bot_seats = [(bot_name, bot_level) for bot_name in self._bot_names([], bots)]
        try:
            # all or nothing: the table, its creator and its bots in one transaction
            row, seated = await self.store.open_table(
                guild_id, channel_id, user_id, name, rules.to_json(), stake, buyin, max_seats,
                self.clock(), bots=bot_seats, bot_user_id=_bot_user_id,
            )
        except StoreError as e:
            raise ServiceError(str(e)) from None
        t = TableState(row=row, seats=seated)
        self.tables[row.id] = t
        self._by_channel[channel_id] = row.id
        return t

    @staticmethod
    def _check_money(settings: ServerSettings, stake: int, buyin: int) -> None:
        if stake < 0:
            raise ServiceError("The stake cannot be negative.")
        if stake > settings.max_stake:
            raise ServiceError(
                f"The stake is at most {plural(settings.max_stake, 'unit')} per point on this server."
            )
        if buyin > 0 and stake == 0:
            raise ServiceError("A table for no units (stake 0) takes no buy-in: leave `buyin` "
                               "out (or 0).")
        if buyin < 0 or (buyin == 0 and stake > 0):
            raise ServiceError("The buy-in must be at least 1 unit (0 only at a table with "
                               "stake 0, which plays for no units).")
        if buyin > settings.max_buyin:
            raise ServiceError(f"The buy-in is at most {plural(settings.max_buyin, 'unit')} on this server.")

    async def _refresh(self, t: TableState) -> None:
        row = await self.store.get_table(t.id)
        if row is not None:
            t.row = row
        t.seats = await self.store.seats(t.id)

    async def _refresh_after_write(self, t: TableState, **written: Any) -> None:
        """Read the table back after a write that committed.  Memory takes the table fields
        just written (``written``) at once (what is read without the lock, e.g. a new hand
        with its number, is never half old), then the read; should the read fail, memory
        keeps them and goes on: the write happened, so it must not be reported or retried as
        a failure (the next refresh reads the rest)."""
        t.row = dataclasses.replace(t.row, **written)
        t.touched = self.clock()  # (something happened here: the table is not idle)
        try:
            await self._refresh(t)
        except Exception:
            log.exception("reading table %s back after a write failed", t.id)

    async def _seat_written(self, t: TableState, seat: SeatRow) -> None:
        """A write of ``seat`` committed (the store returned its new row): memory takes it at
        once, then reads the table back; a failed read is only logged (the command
        succeeded, and saying otherwise would make the user do it twice)."""
        others = [s for s in t.seats if s.seat_no != seat.seat_no]
        t.seats = sorted([*others, seat], key=lambda s: s.seat_no)
        await self._refresh_after_write(t)

    async def _update_seat(self, t: TableState, seat_no: int, **fields: Any) -> SeatRow:
        """``store.update_seat``, then memory as in ``_seat_written``."""
        seat = await self.store.update_seat(t.id, seat_no, **fields)
        await self._seat_written(t, seat)
        return seat

    def _forget(self, t: TableState) -> None:
        self.tables.pop(t.id, None)
        self._notifier.forget(t.id)
        if self._by_channel.get(t.row.channel_id) == t.id:
            self._by_channel.pop(t.row.channel_id, None)
        if t.timer:
            t.timer.cancel()

    def _free_seat(self, t: TableState) -> int:
        taken = {s.seat_no for s in t.seats}
        for n in range(t.row.max_seats):
            if n not in taken:
                return n
        raise ServiceError(f"The table is full ({t.row.max_seats} seats).")

    async def join(
        self, guild_id: int, channel_id: int, user_id: int, name: str, buyin: int | None = None
    ) -> SeatRow:
        t = self.table_in_channel(channel_id)
        async with self._holding(t):
            if t.row.status != "open":
                raise ServiceError(CLOSING)
            seated = t.seat_of_user(user_id)
            if seated and seated.leaving:
                when = ("after this hand" if t.hand is not None and seated.seat_no in t.hand_seats
                        else "after the fantasyland hand you helped earn")
                raise ServiceError(
                    f"You are seated{_stack_said(seated.stack)} and leave {when}, as you asked: "
                    "`/ofc sitin` keeps your seat.")
            if seated and not self.is_broke(t, seated):
                raise ServiceError(
                    f"You are already seated at this table{_stack_said(seated.stack)}.")
            if seated and t.hand is not None and t.hand_seat_of(seated.seat_no) is not None:
                raise ServiceError("You are in the hand being played: buy in again after it.")
            settings = await self.store.get_settings(guild_id)
            # (a stake-0 table takes none, whatever it was opened with by an older version)
            amount = (t.row.buyin if t.row.stake else 0) if buyin is None else buyin
            if t.row.stake > settings.max_stake:  # the server's maximum was lowered since
                raise ServiceError(
                    f"This table plays for {t.row.stake} unit{'s' if t.row.stake != 1 else ''} "
                    "per point, above this server's "
                    f"maximum stake now ({settings.max_stake}): it takes no new buy-ins. Open a "
                    "table within the maximum in another channel (a server manager can "
                    "`/ofc close` this one).")
            if buyin is None and amount > settings.max_buyin:
                raise ServiceError(
                    f"This table's buy-in ({amount}) is above this server's maximum now "
                    f"({settings.max_buyin}): choose a `buyin` of at most "
                    f"{settings.max_buyin}.")
            self._check_money(settings, t.row.stake, amount)
            await self.store.ensure_player(guild_id, user_id, name)
            try:
                if seated:  # an empty stack: buy in again at the same seat
                    seat = await self.store.rebuy(t.id, seated.seat_no, amount, self.clock())
                else:
                    seat = await self.store.seat_player(
                        t.id, self._free_seat(t), guild_id, user_id, name, amount, self.clock()
                    )
            except InsufficientFunds as e:
                raise ServiceError(f"{e} Choose a smaller `buyin`.") from None
            except StoreError as e:
                raise ServiceError(str(e)) from None
            await self._seat_written(t, seat)
        await self.notifier.table_changed(t)
        if t.waiting:
            self._spawn(t, self._next_hand_later(t, 0.0))
        return seat

    async def add_bot(self, channel_id: int, user_id: int, level: str,
                      manage_guild: bool = False) -> SeatRow:
        """Seat a bot: the table's host or a server manager (another player could otherwise
        fill the host's table with bots)."""
        t = self.table_in_channel(channel_id)
        if level not in BOT_LEVELS:
            raise ServiceError(f"Bot level must be one of {', '.join(BOT_LEVELS)}.")
        async with self._holding(t):
            _require_host(t, user_id, manage_guild, "seat a bot")
            if t.row.status != "open":
                raise ServiceError(CLOSING)
            try:
                seat = await self._add_bot(t, level)
            except StoreError as e:
                raise ServiceError(str(e)) from None
        await self.notifier.table_changed(t)
        if t.waiting:
            self._spawn(t, self._next_hand_later(t, 0.0))
        return seat

    async def remove_bot(self, channel_id: int, user_id: int, name: str | None = None,
                         manage_guild: bool = False) -> str:
        """Take a bot's seat back (the table's host or a server manager): at once between
        hands, else after the hand it plays (or the fantasyland it helped earn).  ``name``:
        the bot's name (or its seat number); none when the table has one bot."""
        t = self.table_in_channel(channel_id)
        async with self._holding(t):
            _require_host(t, user_id, manage_guild, "remove a bot")
            bots = [s for s in t.bots if not s.leaving]
            if not bots:
                raise ServiceError("No bot sits at this table (or every bot is already leaving).")
            wanted = (name or "").strip().casefold()
            listed = ", ".join(f"**{b.name}** (seat {b.seat_no + 1})" for b in bots) + "."
            found = [b for b in bots if wanted in (b.name.casefold(),
                     b.name.casefold().removesuffix(" (bot)"), str(b.seat_no + 1))]
            if not wanted and len(bots) > 1:
                raise ServiceError(f"Which bot? {listed}")
            if wanted and not found:
                raise ServiceError(f"No bot '{_as_typed(name or '')}' here: {listed}")
            seat = found[0] if wanted else bots[0]
            in_hand = t.hand is not None and seat.seat_no in t.hand_seats
            if in_hand or t.owes_fantasyland(seat.seat_no):
                await self._update_seat(t, seat.seat_no, leaving=True)
                public = (f"🤖 **{seat.name}** will leave the table after this hand"
                          f"{_or_its_fantasyland(t)}." if in_hand
                          else f"🤖 **{seat.name}** will leave after the fantasyland hand.")
            else:
                await self._unseat(t, seat.seat_no)
                public = f"🤖 **{seat.name}** left the table."
                await self._tidy_after_leave(t)  # a fantasyland it forfeited frees leavers
        await self._tell(t, self.notifier.notice(t, public, ping=False))
        await self.notifier.table_changed(t)
        return public

    @staticmethod
    def _bot_names(seats: Sequence[SeatRow], count: int) -> list[str]:
        """Names for ``count`` new bots at a table seated as ``seats``: the first
        ``BOT_NAMES`` not in use ("Bot" when they all are)."""
        used = {s.name for s in seats}
        names = []
        for _ in range(count):
            name = next((f"{n} (bot)" for n in BOT_NAMES if f"{n} (bot)" not in used), "Bot")
            used.add(name)
            names.append(name)
        return names

    async def _add_bot(self, t: TableState, level: str) -> SeatRow:
        await self._refresh(t)
        seat_no = self._free_seat(t)
        (name,) = self._bot_names(t.seats, 1)
        seat = await self.store.seat_player(
            t.id, seat_no, t.row.guild_id, _bot_user_id(t.id, seat_no), name, 0,
            self.clock(), is_bot=True, bot_level=level,
        )
        await self._seat_written(t, seat)
        return seat

    async def leave(self, channel_id: int, user_id: int) -> str:
        t = self.table_in_channel(channel_id, user_id)
        async with self._holding(t):
            seat = self._my_seat(t, user_id)
            in_hand = t.hand is not None and seat.seat_no in t.hand_seats
            owes_fl = t.owes_fantasyland(seat.seat_no)
            if in_hand or owes_fl:
                await self._update_seat(t, seat.seat_no, leaving=True)
                msg = (
                    f"You will leave after this hand{_or_its_fantasyland(t)}"
                    if in_hand
                    else "You will leave after the fantasyland hand you helped earn is played"
                )
                text = (f"{msg}; your stack then returns to your balance (`/ofc sitin` to "
                        "stay after all).")
                hs = t.hand_seat_of(seat.seat_no) if in_hand else None
                if hs is not None and t.hand is not None and t.hand.can_surrender(hs):
                    text += (" Not playing it out? `/ofc surrender` ends your part of this "
                             "hand now, so the others do not wait for you.")
                public = (f"🚪 <@{user_id}> will leave the table after this hand"
                          f"{_or_its_fantasyland(t)}." if in_hand
                          else f"🚪 <@{user_id}> will leave after the fantasyland hand.")
                closed = False
            else:
                # not in the hand being played (if any): nothing of theirs is at stake
                host = t.host_id
                amount = await self._unseat(t, seat.seat_no)
                text = "You left the table" + (
                    f"; {plural(amount, 'unit')} returned to your balance." if amount else ".")
                public = f"🚪 <@{user_id}> left the table."
                closed = await self._tidy_after_leave(t)
                if closed:
                    text += " Nobody is left, so the table is closed."
                    public += f" {EMPTY_CLOSED}" + await self._recap_after(t)
                elif t.host_id != host:
                    public += f" <@{t.host_id}> hosts the table now."
        # the leaver is named, not pinged; the command answers within NOTIFY_WAIT
        await self._tell(t, self.notifier.notice(t, public, ping=False))
        await self.notifier.table_changed(t)
        return text

    async def _unseat(self, t: TableState, seat_no: int) -> int:
        """Cash a seat out (lock held; the seat is not in the hand being played).  A pending
        fantasyland of that seat is forfeited: it never passes to whoever sits there next."""
        pending = t.fantasyland_earned
        owed_by = [int(x) for x in t.row.extra.get("fantasyland_owed_by", [])]
        extra: dict[str, Any] | None = None
        if seat_no in pending or seat_no in owed_by:
            pending.pop(seat_no, None)
            extra = {**t.row.extra, "fantasyland": {str(k): v for k, v in pending.items()},
                     "fantasyland_owed_by": [no for no in owed_by if no != seat_no]}
            if not pending:
                extra["fantasyland_owed_by"] = []
        host = t.host_after(seat_no)
        if host is not None:  # the host's rights pass on, in the same transaction
            extra = {**(extra or t.row.extra), "host": host}
        try:
            amount = await self.store.unseat_player(
                t.id, seat_no, self.clock(), force=True, table_extra=extra
            )
        except Exception:
            with contextlib.suppress(Exception):
                await self._refresh(t)
            raise
        # done (committed): memory lets the seat go at once, whether or not the read-back works
        t.seats = [s for s in t.seats if s.seat_no != seat_no]
        await self._refresh_after_write(t, **({} if extra is None else {"extra": extra}))
        return amount

    async def _release_leavers(self, t: TableState) -> None:
        """Between hands: seats that asked to leave go now, unless they still owe a
        fantasyland hand (lock held)."""
        released = True
        gone: list[SeatRow] = []
        host = t.host_id
        while released:  # a leaver's forfeited fantasyland can release the others
            released = False
            for seat in list(t.seats):
                current = t.seat_by_no(seat.seat_no)
                if current is not None and current.leaving and not t.owes_fantasyland(
                    seat.seat_no
                ):
                    await self._unseat(t, seat.seat_no)
                    gone.append(current)
                    released = True
        await self._refresh(t)
        humans = [f"<@{s.user_id}>" for s in gone if not s.is_bot]
        if humans:  # (bots leaving were told when asked for)
            text = f"🚪 {', '.join(humans)} left the table, as asked."
            if t.host_id != host and t.humans:
                text += f" <@{t.host_id}> hosts the table now."
            self._spawn(t, self.notifier.notice(t, text, ping=False))

    async def _tidy_after_leave(self, t: TableState, delay: float = 0.0) -> bool:
        """After a seat left (lock held; the leave is written): between hands the other
        leavers go too, and a table no human sits at closes; whether it closed.  The leave is
        done whatever happens here: a database error is logged and this is tried again
        later, backing off, so the table is not left open with nobody at it."""
        try:
            if t.hand is None:
                await self._release_leavers(t)
            return await self._maybe_close_empty(t)
        except Exception:
            log.exception("tidying table %s after a leave failed", t.id)
            self._spawn(t, self._tidy_later(t, _backoff(delay)))
            return False

    async def _tidy_later(self, t: TableState, delay: float) -> None:
        await asyncio.sleep(delay)
        async with t.lock:
            if t.id not in self.tables:
                return
            closed = await self._tidy_after_leave(t, delay)
        if closed:
            await self.notifier.notice(t, EMPTY_CLOSED + await self._recap_after(t), ping=False)
            await self.notifier.table_changed(t)

    async def _maybe_close_empty(self, t: TableState) -> bool:
        """Close a table no human sits at any more (between hands); whether it did."""
        if not t.humans and t.hand is None:
            await self._close_now(t)
            return True
        return False

    async def sit_out(self, channel_id: int, user_id: int, out: bool) -> str:
        t = self.table_in_channel(channel_id, user_id)
        async with self._holding(t):
            seat = self._my_seat(t, user_id)
            was_out = seat.sitting_out
            stays = not out and seat.leaving  # sitting in takes a leave request back
            if stays:
                await self._update_seat(t, seat.seat_no, sitting_out=False, leaving=False)
            else:
                await self._update_seat(t, seat.seat_no, sitting_out=out)
            late = renewed = False
            if not out:
                renewed = await self._back_in_hand(t, seat.seat_no)
                late = await self._clock_ran_out(t, seat.seat_no)
            start = (not out) and t.waiting
            # the whole clock from now on a decision already pinged: the ping says it
            ping = self._to_ping(t) if renewed else ([], None)
        await self.notifier.table_changed(t)
        if stays:  # (the channel was told they would leave)
            await self._tell(t, self.notifier.notice(
                t, f"🪑 <@{user_id}> stays at the table after all.", ping=False))
        if seat.seat_no in ping[0]:
            await self._tell(t, self.notifier.turn_started(t, *ping))
        if start:
            self._spawn(t, self._next_hand_later(t, 0.0))
        waiting = t.fantasyland_pending.get(seat.seat_no)
        # still in the hand being played (a timeout only sits a player out after it)
        hs = t.hand_seat_of(seat.seat_no) if t.hand is not None else None
        playing = hs is not None and t.hand is not None and not t.hand.done[hs]
        if out:
            text = "You are sitting out: you will not be dealt in until `/ofc sitin`."
            if t.hand is None and t.owes_fantasyland(seat.seat_no):
                text = ("You sit out after the coming fantasyland hand: you played the hand "
                        "that earned it, so you play it too (then you are not dealt in until "
                        "`/ofc sitin`).")
            if playing and hs is not None and t.hand is not None:
                text += " You still play the hand being played" + (
                    " (or `/ofc surrender`)." if t.hand.can_surrender(hs) else ".")
            if waiting:
                text += (f" Your fantasyland ({waiting} cards) waits for you: it is dealt when "
                         "you sit in again (leaving the table forfeits it).")
            return text
        back = ("Welcome back: you stay at the table, and " if stays else "Welcome back: "
                if was_out else "You were not sitting out: ")
        if self.is_broke(t, seat):
            return (f"{back}your stack is empty, so you are not dealt in: `/ofc join` buys in "
                    "again.")
        if waiting:
            return f"{back}your next hand is your fantasyland ({waiting} cards)."
        if late:
            return (f"{back}your clock for this decision had already run out, so the AI "
                    "plays it for you; you play the rest of this hand and the next ones.")
        if playing and hs is not None and t.hand is not None:
            now = " It is your turn." if t.hand.may_act(hs) else ""
            return f"{back}you play this hand and the next ones.{now}"
        return f"{back}you will be dealt in from the next hand."

    async def _clock_ran_out(self, t: TableState, seat_no: int) -> bool:
        """Whether the seat's clock has run out on a decision the timeout is about to play
        (lock held); if so the player is noted as back for that decision (``back_late``,
        saved: a restart keeps it)."""
        hs = t.hand_seat_of(seat_no) if t.hand is not None else None
        if hs is None or t.hand is None or not t.hand.may_act(hs):
            return False
        deadline = t.deadlines.get(hs)
        if deadline is None or deadline > self.clock():
            return False
        t.back_late[hs] = self.step_of(t, hs)
        try:
            await self._save(t)
        except Exception:  # kept in memory: only a restart before the timeout forgets it
            log.exception("saving table %s's hand after a late sit-in failed", t.id)
            self._save_failed(t)
        return True

    async def _back_in_hand(self, t: TableState, seat_no: int) -> bool:
        """A player whose clock ran out in this hand sits in again: their next decisions get
        the whole clock (lock held; if the hand cannot be saved, they keep the short one).
        Whether the decision they have now got the whole clock from now."""
        hs = t.hand_seat_of(seat_no) if t.hand is not None else None
        if hs is None or hs not in t.away:
            return False
        deadline = t.deadlines.get(hs)
        t.away.discard(hs)
        if deadline is not None:  # their decision now: the whole clock from now
            del t.deadlines[hs]
            self._set_deadlines(t)
        try:
            await self._save(t)
        except Exception:
            log.exception("saving table %s's hand after a sit-in failed", t.id)
            self._save_failed(t)
            t.away.add(hs)
            if deadline is not None:
                t.deadlines[hs] = deadline
            return False
        self._arm(t)
        return deadline is not None and hs in t.deadlines

    async def close(self, channel_id: int, user_id: int, manage_guild: bool) -> str:
        t = self.table_in_channel(channel_id)
        async with self._holding(t):  # (the host changes under the lock, when it leaves)
            _require_host(t, user_id, manage_guild, "close it")
            if t.row.status == "closing" and t.hand is not None:
                raise ServiceError("This table already closes when the hand being played ends.")
            if t.hand is not None or self._fantasyland_due(t):  # (a fantasyland owed: the
                # next hand comes on its own, then it closes)
                t.row = await self.store.update_table(
                    t.id, status="closing",
                    extra={**t.row.extra, CLOSE_AFTER: t.row.hand_no, CLOSE_BY: user_id,
                           CLOSE_ASKED: "during" if t.hand is not None else "after"},
                    now=self.clock())
                if t.hand is None:
                    text = ("The table will close after the fantasyland hand that is owed: the "
                            "players of the hand that earned it play it first (RULES.md).")
                elif t.table_rules.has_fantasyland:  # (what the settlement earns by)
                    text = ("The table will close after this hand (or, if it sends someone to "
                            "fantasyland, after that fantasyland hand: its players play it).")
                else:
                    text = "The table will close after this hand."
            else:
                await self._close_now(t)
                text = ("The table is closed; every stack went back to its owner's balance."
                        + await self._recap_after(t))
        await self.notifier.table_changed(t)
        return text

    def channel_muted(self, table_id: int) -> bool:
        """The channel of table ``table_id`` refused the bot's last message."""
        t = self.tables.get(table_id)
        return t is not None and self._notifier.muted(t)

    def connection_lost(self) -> None:
        """Discord's gateway is gone for now: its players cannot act, so no table closes as
        idle until it is back, and for ``IDLE_GRACE`` after (``connection_back``), and no
        clock plays a timeout until it is back (then ``RESUME_GRACE``)."""
        self._connected = False
        self._online.clear()

    def connection_back(self) -> None:
        """Connected again (or for the first time): the idle closes wait ``IDLE_GRACE``; after
        a loss, a decision whose clock ran out meanwhile (or runs out within
        ``RESUME_GRACE``) gets ``RESUME_GRACE`` from now, its player pinged again, as after a
        restart: nobody could act while the bot was out of reach."""
        if not self._connected:
            self._connected = True
            self._awake_since = self.clock()
        if not self._online.is_set():
            for t in list(self.tables.values()):
                self._grace_after_outage(t)
            self._online.set()

    def _grace_after_outage(self, t: TableState) -> None:
        """``connection_back`` at one table: the clocks that ran out (or nearly) while nobody
        could act get ``RESUME_GRACE`` from now (in memory: a restart before they are saved
        gives the same grace), the players pinged again."""
        if t.hand is None or t.hand.is_over or t.resuming:
            return
        now = self.clock()
        renewed = [hs for hs, deadline in t.deadlines.items()
                   if deadline < now + RESUME_GRACE and t.hand.may_act(hs)]
        if not renewed:
            return
        for hs in renewed:
            t.deadlines[hs] = now + RESUME_GRACE
        if t.timer is None or t.timer.done():  # (a running timer reads the new deadlines
            self._arm(t)  # itself: cancelling it could cut short a timeout it is saving)
        fantasyland, ping = self._news(t)
        if not any(t.hand_seats[hs] in ping[0] for hs in renewed):
            ping = ([], None)
        # a fantasyland hand not set yet is sent again with its new clock (as at a restart)
        fantasyland = [no for no in fantasyland if t.hand_seat_of(no) in renewed]
        self._spawn(t, self._send_news(t, fantasyland, ping))

    async def _look_for_idle(self) -> None:
        """Every ``idle_check`` seconds, close the tables left idle (``close_idle``)."""
        while not self._closed:
            await asyncio.sleep(self.idle_check)
            try:
                await self.close_idle()
            except Exception:  # (a database error: the next look tries again)
                log.exception("looking for idle tables failed")

    async def close_idle(self) -> list[TableState]:
        """Close every table where nothing happened for its server's ``idle_hours`` (no hand
        dealt or ended, nobody sat down, in or out, no option changed): stacks go back to
        balances, the channel is told, and the channel is free for a new table.  A hand being
        played is never cut short, and none closes in the first ``IDLE_GRACE`` seconds after
        the bot started or its connection to Discord came back (its players could not use it
        meanwhile), nor while that connection is lost.  ``IDLE_WARNING`` before a close (at
        most a quarter of the idle time) the channel is warned once, its seated players
        pinged, and no table closes without that warning (nor before the time it said).  The
        tables closed; one whose close fails on the database is tried again at the next
        look."""
        now = self.clock()
        if not self._connected or self._awake_since is None:
            return []  # (nobody can act, nor be told)
        grace_ends = self._awake_since + IDLE_GRACE
        hours: dict[int, int] = {}
        closed = []
        for t in list(self.tables.values()):
            if t.hand is not None or t.resuming:
                continue
            try:
                guild = t.row.guild_id
                if guild not in hours:
                    hours[guild] = (await self.store.get_settings(guild)).idle_hours
                limit = hours[guild] * 3600
                if not limit:  # (idle tables stay open: a warning given before stands no more)
                    t.idle_warned = None
                    continue
                since = t.idle_since()
                due = max(since + limit, grace_ends)
                lead = min(IDLE_WARNING, limit / 4)
                warned = t.idle_warned
                if warned is not None and warned[0] == since and due <= warned[1] + 60:
                    closes_at = warned[1]  # as the warning said (idle_hours lowered since:
                    # not earlier)
                elif due - now <= lead:  # never a close without its warning: one already
                    # due (idle_hours lowered) waits the warning's lead; a later one
                    # (idle_hours raised since the warning) is warned again
                    closes_at = due if due > now else now + lead
                    t.idle_warned = (since, closes_at)
                    await self._warn_idle(t, now - since, closes_at - now)
                    continue
                else:  # not closing soon (idle_hours raised): an earlier warning no longer
                    t.idle_warned = None  # stands for a later close
                    continue
                if now < closes_at:
                    continue
                async with t.lock:
                    if (t.hand is not None or self.tables.get(t.id) is not t
                            or t.idle_since() != since):
                        continue  # (something happened meanwhile)
                    await self._close_now(t)
            except Exception:
                log.exception("closing idle table %s failed", t.id)
                continue
            log.info("table %s closed: idle for %.1f hours", t.id, (now - since) / 3600)
            closed.append(t)
            await self.notifier.notice(
                t, f"🕸️ Nothing happened here for {_about(now - since, past=True)}, so the table "
                "is closed; every stack went back to its owner's balance. `/ofc new` opens "
                "another (server managers: `/ofc-admin settings idle_hours`)."
                + await self._recap_after(t), ping=False)
            await self.notifier.table_changed(t)
        return closed

    async def _warn_idle(self, t: TableState, idle: float, left: float) -> None:
        """Tell the channel (pinging its seated players) that nothing happened for ``idle``
        seconds and the table closes in ``left`` unless something happens before (a Discord
        timestamp: it counts down when the warning is read later)."""
        who = " ".join(f"<@{s.user_id}>" for s in t.humans)
        await self.notifier.notice(
            t, f"⏳ {who + ': ' if who else ''}nothing has happened here for "
            f"{_about(idle, past=True)}, so this table closes <t:{int(self.clock() + left)}:R>"
            " (every stack back to its owner's balance) unless a hand is dealt or someone sits "
            "down or in (`/ofc start`, `/ofc join`, `/ofc sitin`).")

    async def channel_gone(self, channel_id: int) -> bool:
        """The channel (or thread) of a table was deleted, or the bot was removed from its
        server: nobody can play there any more.  The table closes at once: a hand being
        played is voided (no units move) and every stack goes back to its owner's balance
        (``/ofc balance`` anywhere in the server shows it).  False when no table was open
        there.  When the database fails the close is tried again in the background (no
        message of the table will come to try it: its stacks would stay locked until a
        restart), and the failure is raised."""
        table_id = self._by_channel.get(channel_id)
        t = self.tables.get(table_id) if table_id is not None else None
        if t is None:
            return False
        return await self._close_gone(t)

    async def _close_gone(self, t: TableState, delay: float = 0.0) -> bool:
        """``delay``: how long this try waited after the last failed one (0: the first)."""
        async with t.lock:
            if t.id not in self.tables:  # closed meanwhile
                return False
            number = t.hand_row.number if t.hand_row is not None else None
            try:  # (the store voids a hand still playing, in the same transaction)
                await self._close_now(t)
            except Exception:
                if t.id not in self._gone_retries:
                    self._gone_retries.add(t.id)
                    self._spawn(t, self._retry_close_gone(t, _backoff(delay)))
                raise
            t.hand = None  # what is still running for it (a bot thinking) finds no hand
            t.hand_row = None
            t.stored = None
            t.deadlines = {}
            t.drafts = {}
        log.info("table %s closed: its channel %s is gone%s", t.id, t.row.channel_id,
                 f" (hand #{number} voided)" if number is not None else "")
        await self.notifier.table_gone(t)
        return True

    async def _retry_close_gone(self, t: TableState, delay: float) -> None:
        await asyncio.sleep(delay)
        self._gone_retries.discard(t.id)
        try:
            await self._close_gone(t, delay)
        except Exception:  # (tried again once more, waiting longer)
            log.exception("closing table %s, whose channel is gone, failed again", t.id)

    async def guild_gone(self, guild_id: int) -> int:
        """The bot left (or was removed from) a server: its tables close as in
        ``channel_gone``, each on its own (one that fails is tried again and keeps none of
        the others open).  Returns how many closed now."""
        channels = [t.row.channel_id for t in list(self.tables.values())
                    if t.row.guild_id == guild_id]
        closed = 0
        for channel_id in channels:
            try:
                closed += await self.channel_gone(channel_id)
            except Exception:
                log.exception("closing the table of channel %s failed; trying again",
                              channel_id)
        return closed

    def channel_lost(self, t: TableState) -> None:
        """A notifier found the table's channel gone: close the table (in a task of its own,
        the notifier may have been called with the table's lock held)."""
        self._spawn(t, self._close_lost(t))

    async def _close_lost(self, t: TableState) -> None:
        try:
            await self.channel_gone(t.row.channel_id)
        except Exception:  # the database: tried again in the background
            log.exception("closing table %s, whose channel is gone, failed", t.id)

    async def set_options(
        self, channel_id: int, user_id: int, manage_guild: bool, *, deck: str | None = None,
        **changes: Any,
    ) -> tuple[list[str], bool]:
        """Change the table's options (RULES.md's "(option)" points; ``None`` = unchanged;
        natural values by name, 0 taking that natural off the table) and its ``deck``
        (``four`` or ``two`` colours: the pictures, at once).  Returns the changes in words
        and whether the rules wait for the next hand (one is being played)."""
        t = self.table_in_channel(channel_id)
        changes = {k: v for k, v in changes.items() if v is not None}
        if not changes and deck is None:
            raise ServiceError("Give at least one option to change (`/ofc rules` shows them "
                               "all).")
        if deck not in (None, "four", "two"):
            raise ServiceError("The deck has `four` or `two` colours.")
        async with self._holding(t):  # (the host changes under the lock, when it leaves)
            _require_host(t, user_id, manage_guild, "change its options")
            old = t.table_rules
            new = self._changed_rules(old, changes)
            words = new.changes_from(old)
            extra = dict(t.row.extra)
            if deck is not None and deck != extra.get("deck", "four"):
                words.append(f"deck: {extra.get('deck', 'four')} colours → {deck} colours")
                extra["deck"] = deck
            if not words:
                return [], False
            # the fantasylands owed, kept as earned (the deal sizes them), none when it is
            # off: then nobody is held at the table for one either
            extra["fantasyland"] = {k: v for k, v in extra.get("fantasyland", {}).items()
                                    if new.fantasyland_cards_now(int(v))}
            if not extra["fantasyland"]:
                extra["fantasyland_owed_by"] = []
            t.row = await self.store.update_table(
                t.id, rules=new.to_json(), extra=extra, now=self.clock())
            later = t.hand is not None and new != old  # (a deck change shows at once)
        await self.notifier.table_changed(t)
        return words, later

    @staticmethod
    def _changed_rules(old: Rules, changes: dict[str, Any]) -> Rules:
        """``old`` with ``changes`` (``Rules.changed``), or a ServiceError saying why not."""
        try:
            return old.changed(changes)
        except RulesError as e:
            raise ServiceError(str(e)) from None

    async def _close_now(self, t: TableState) -> None:
        """Cash every seat out and close the table: one transaction, all or nothing (the store
        cashes the seats out when the status becomes 'closed')."""
        t.row = await self.store.update_table(
            t.id, status="closed", extra={**t.row.extra, CLOSE_UNMARKED: True}, now=self.clock())
        t.seats = []
        self._forget(t)

    async def close_marked(self, t: TableState) -> None:
        """The closed table's message says it is closed (or is gone): forget ``CLOSE_UNMARKED``."""
        if CLOSE_UNMARKED not in t.row.extra:
            return
        extra = {k: v for k, v in t.row.extra.items() if k != CLOSE_UNMARKED}
        try:
            t.row = await self.store.update_table(t.id, extra=extra, now=self.clock())
        except Exception:  # marked again after the next start, no harm
            log.exception("could not note that table %s's message says closed", t.id)

    # ------------------------------------------------------------------ hands
    async def start(self, channel_id: int, user_id: int) -> str:
        t = self.table_in_channel(channel_id)
        async with self._holding(t):
            self._my_seat(t, user_id)
            if t.hand is not None:
                raise ServiceError("A hand is already being played.")
            if t.row.status == "closing":
                raise ServiceError(CLOSING)
            if t.row.hand_no > 0 and not t.waiting:
                raise ServiceError("This table already started; hands follow on their own.")
            ready = self._ready_seats(t)
            if len(ready) < 2:
                raise ServiceError(
                    "At least 2 players must be seated (and not sitting out) to start. "
                    "Invite someone with `/ofc join` or add a bot with `/ofc addbot`."
                    + self._broke_note(t)
                )
            if not self._can_deal(t):
                raise ServiceError(self._why_waiting(t))
            await self._deal(t)
        await self._tell(t, self._announce_new_hand(t))
        return f"Hand #{t.row.hand_no} is dealt."

    @staticmethod
    def is_broke(t: TableState, seat: SeatRow) -> bool:
        """A human at a table with stakes whose stack is empty: not dealt in until they buy
        in again (``/ofc join``)."""
        return not seat.is_bot and t.row.stake > 0 and seat.stack <= 0

    def _broke_note(self, t: TableState) -> str:
        """Who is not dealt in for an empty stack, and what to do (empty when nobody)."""
        broke = [s for s in t.seats if self.is_broke(t, s) and not s.leaving]
        if not broke:
            return ""
        names = ", ".join(f"<@{s.user_id}>" for s in broke)
        return (f" {names} {'has' if len(broke) == 1 else 'have'} no units left at the table: "
                + ("`/ofc join` buys in again (or `/ofc leave`)." if t.takes_buy_ins else
                   f"`/ofc leave` ({NO_BUY_INS})."))

    def _why_waiting(self, t: TableState) -> str:
        """Why the next hand cannot be dealt, and what would deal it."""
        ready = self._ready_seats(t)
        if len(ready) >= 2:  # bots only
            return ("Waiting for a human: bots do not play each other alone (`/ofc sitin`, or "
                    "a player with units at the table).")
        return ("Waiting for at least 2 players who are not sitting out to deal the next hand."
                + self._broke_note(t))

    def _closing_deals(self, t: TableState) -> bool:
        """A closing table deals one more hand: the fantasyland earned by the hand the close
        was asked during or after (``CLOSE_AFTER``; a table set closing without it, by an
        older version, counts its last hand), never a later one."""
        return (t.row.extra.get(CLOSE_AFTER, t.row.hand_no) == t.row.hand_no
                and t.row.hand_no > 0 and self._fantasyland_due(t))

    def _fantasyland_due(self, t: TableState) -> bool:
        """Between hands: the last hand sent a player to fantasyland who can play it, and it
        can be dealt."""
        return t.fantasyland_playable() and self._can_deal(t)

    def _can_deal(self, t: TableState) -> bool:
        """Two players or more are ready, at least one of them human (bots never play each
        other alone, e.g. while the only human sits out)."""
        ready = self._ready_seats(t)
        return len(ready) >= 2 and any(not s.is_bot for s in ready)

    def _ready_seats(self, t: TableState) -> list[SeatRow]:
        """Seats dealt into the next hand.  A player who asked to leave, or sits out, still
        plays the fantasyland hand they helped earn (RULES.md)."""
        return [
            s for s in t.seats
            if t.owes_fantasyland(s.seat_no) or (t.can_be_dealt(s) and not s.leaving)
        ]

    async def _deal(self, t: TableState) -> None:
        """Deal the next hand (lock held)."""
        was_waiting, t.waiting = t.waiting, False
        rules = t.table_rules
        ready = sorted(self._ready_seats(t), key=lambda s: s.seat_no)[: rules.max_players]
        seat_nos = [s.seat_no for s in ready]
        fl_pending = t.fantasyland_pending
        fl = {i: rules.fantasyland_cards_now(fl_pending[no])  # options may have changed
              for i, no in enumerate(seat_nos) if no in fl_pending}
        fl = {i: cards for i, cards in fl.items() if cards}
        # the button goes to the nearest seat dealt in at or after its seat, clockwise (a seat
        # sitting out or empty passes it on); it stays where it was for the last hand when this
        # one has a player in fantasyland (RULES.md option), decided now, by who is dealt in
        start = t.row.button
        before = t.row.extra.get("button_before")
        if rules.button_stays_for_fantasyland and before is not None and fl:
            start = int(before)
        button = next((i for i, no in enumerate(seat_nos) if no >= start), 0)
        seed = self.seed_factory()
        deck = self.deck_factory(t) if self.deck_factory else None
        hand = Hand(rules, [s.name for s in ready], button, fl, seed, deck=deck)
        number = t.row.hand_no + 1
        t.hand = hand  # staged to build the stored state; shown only once it is stored
        t.hand_seats = seat_nos
        t.hand_practice = practice_of(ready)  # of the seats dealt in
        t.drafts = {}
        t.deadlines = {}
        t.away = set()
        t.back_late = {}
        self._set_deadlines(t)
        state = self._state_json(t)
        t.hand = None
        table_extra = {**t.row.extra, "fantasyland": self._carried_fantasyland(t),
                       "fantasyland_owed_by": [], "button_before": None}
        try:
            # the hand, the button and the spent fantasyland in one transaction
            hand_row = await self.store.create_hand(
                t.id, number, seed, rules.to_json(), state, self.clock(),
                self._next_deadline(t), button=seat_nos[button], table_extra=table_extra,
            )
        except Exception:  # nothing dealt: the table waits as it did
            t.hand_seats, t.deadlines, t.waiting = [], {}, was_waiting
            raise
        t.hand_row = hand_row  # dealt: whatever fails now, memory has the hand
        t.deal_failed = False
        t.hand, t.stored = hand, state
        await self._refresh_after_write(
            t, hand_no=number, button=seat_nos[button], extra=table_extra)
        self._arm(t)
        self._schedule_bots(t)

    @staticmethod
    def _carried_fantasyland(t: TableState) -> dict[str, int]:
        """The pending fantasylands of seats not dealt into the current hand (sitting out, e.g.
        after a timeout): they wait for their player's next hand at this table (leaving the
        table forfeits them).  Nobody is held at the table for them."""
        dealt = set(t.hand_seats)
        return {str(no): c for no, c in t.fantasyland_earned.items() if no not in dealt}

    def _announce_new_hand(self, t: TableState) -> Awaitable[None]:
        """The messages of a new deal: who they go to is decided now (the sends may run
        after the table has moved on)."""
        return self._send_news(t, *self._news(t))

    def _news(
        self, t: TableState, still_on_time: bool = False
    ) -> tuple[list[int], tuple[list[int], Requirement | None]]:
        """Seat numbers of the humans whose fantasyland hand is not set yet, and whom to ping
        for their turn (``_to_ping``); ``still_on_time``: not those whose clock ran out (a
        restart: the timeout plays for them at once)."""
        fantasyland: list[int] = []
        ping, requirement = self._to_ping(t)
        if t.hand is not None:
            acting = t.hand.to_act()
            for hs, cards in enumerate(t.hand.fantasyland):
                seat = t.seat_by_no(t.hand_seats[hs])
                if cards and hs in acting and seat is not None and not seat.is_bot:
                    fantasyland.append(t.hand_seats[hs])
        if still_on_time:
            now = self.clock()

            def on_time(seat_no: int) -> bool:
                hs = t.hand_seat_of(seat_no)
                return hs is None or t.deadlines.get(hs, now + 1) > now

            fantasyland = [no for no in fantasyland if on_time(no)]
            ping = [no for no in ping if on_time(no)]
        return fantasyland, (ping, requirement if ping else None)

    def _to_ping(self, t: TableState) -> tuple[list[int], Requirement | None]:
        """Seat numbers of the humans whose turn it is (not fantasyland sets), and what the
        first of them must do, decided now (the ping may be sent after the table moved on)."""
        if t.hand is None or t.hand.is_over:
            return [], None
        humans = []
        for hs in t.hand.to_act():
            seat = t.seat_by_no(t.hand_seats[hs])
            if seat is not None and not seat.is_bot and not t.hand.fantasyland[hs]:
                humans.append(t.hand_seats[hs])
        first = t.hand_seat_of(humans[0]) if humans else None
        return humans, t.hand.requirement(first) if first is not None else None

    async def _send_news(
        self, t: TableState, fantasyland: list[int],
        ping: tuple[list[int], Requirement | None],
    ) -> None:
        await self.notifier.table_changed(t)
        for seat_no in fantasyland:
            await self.notifier.fantasyland_dealt(t, seat_no)
        if ping[0]:
            await self.notifier.turn_started(t, *ping)

    def _state_json(self, t: TableState) -> dict[str, Any]:
        assert t.hand is not None
        return {
            "engine": t.hand.to_json(),
            "seats": t.hand_seats,
            "users": [seat.user_id if (seat := t.seat_by_no(no)) else 0 for no in t.hand_seats],
            "deadlines": {str(k): v for k, v in t.deadlines.items()},
            "drafts": {str(k): d.to_json() for k, d in t.drafts.items()},
            "away": sorted(t.away),
            "back_late": {str(k): v for k, v in t.back_late.items()},
            "practice": t.hand_practice,
            "showdown_notes": list(t.showdown_notes),
        }

    def _set_deadlines(self, t: TableState) -> None:
        assert t.hand is not None
        rules = t.rules
        acting = set(t.hand.to_act())
        for hs in list(t.deadlines):
            if hs not in acting:
                del t.deadlines[hs]
        for hs in acting:
            if hs not in t.deadlines:
                req = t.hand.requirement(hs)
                seconds: float = (rules.set_timer if req is not None and req.is_set
                                  else rules.timer)
                if hs in t.away and rules.away_timer:
                    seconds = min(seconds, rules.away_timer)
                t.deadlines[hs] = self.clock() + seconds

    def _next_deadline(self, t: TableState) -> float | None:
        return min(t.deadlines.values()) if t.deadlines else None

    async def _save(self, t: TableState) -> None:
        assert t.hand is not None and t.hand_row is not None
        state = self._state_json(t)
        await self.store.save_hand_state(
            t.hand_row.id, state, [a.to_json() for a in t.hand.log],
            self._next_deadline(t), self.clock(),
        )
        t.stored = state
        if t.save_failures >= SAVE_FAILURES_NOTICE:
            self._spawn(t, self.notifier.notice(t, "✅ The table can save again: play goes on."))
        t.save_failures = 0

    def _save_failed(self, t: TableState) -> None:
        """Count a failed save (the channel is told once when it keeps failing)."""
        t.save_failures += 1
        if t.save_failures == SAVE_FAILURES_NOTICE:
            self._spawn(t, self.notifier.notice(
                t, "⚠️ The table cannot save its moves right now (a database problem). Nothing "
                "saved is lost; it keeps trying, and moves count once they are saved."))

    @staticmethod
    def _retry_delay(t: TableState) -> float:
        """Seconds before a timeout or a bot whose move was not saved tries again."""
        return float(min(SAVE_RETRY * 2 ** max(t.save_failures - 1, 0), SAVE_RETRY_MAX))

    def step_of(self, t: TableState, hand_seat: int) -> int:
        """How many actions this hand seat has taken (panels carry it to detect staleness)."""
        assert t.hand is not None
        return sum(1 for a in t.hand.log if a.seat == hand_seat)

    async def _after_action(self, t: TableState) -> None:
        """Persist, then tell everyone (lock held by the caller).  When the state cannot be
        saved, memory goes back to what is stored (the action is undone) and a
        ``ServiceError`` says so: nothing is played that the database does not have."""
        assert t.hand is not None
        if t.hand.is_over:
            t.deadlines = {}
            try:  # the last action is kept even if settling has to wait
                await self._save(t)
            except Exception:  # the settlement writes the final state too: settle it now
                log.exception("saving the final state of hand %s failed", t.hand_row and
                              t.hand_row.id)
                try:
                    await self._settle(t)
                except Exception:  # neither written: the last action is not played
                    log.exception("settling hand %s failed", t.hand_row and t.hand_row.id)
                    self._not_saved(t)
                return
            await self._showdown(t)
            return
        self._set_deadlines(t)
        try:
            await self._save(t)
        except Exception:
            log.exception("saving hand %s failed", t.hand_row and t.hand_row.id)
            self._not_saved(t)
        self._arm(t)
        self._schedule_bots(t)

    def _not_saved(self, t: TableState) -> NoReturn:
        """The action just played could not be written: memory goes back to what is stored
        and the caller is told (a ``ServiceError``)."""
        self._save_failed(t)
        if t.stored is None:
            raise ServiceError("The table could not be saved (a database problem).")
        self._restore(t, t.stored)
        self._arm(t)
        raise ServiceError(
            "The table could not be saved (a database problem), so that was not played: "
            "please try again."
        )

    def _turn_mark(self, t: TableState) -> tuple[int | None, int]:
        """Whose turn it is and how many actions that seat has taken: it changes when the turn
        moves, and when it comes back to the same seat at the next street (the others are in
        fantasyland, have surrendered or are done)."""
        assert t.hand is not None
        turn = t.hand.turn
        return turn, (self.step_of(t, turn) if turn is not None else 0)

    def _notify_after(self, t: TableState, before: tuple[int | None, int]) -> Awaitable[None]:
        """The messages after an action (the table edit; a ping when the turn moved or came
        back), decided now."""
        moved = t.hand is not None and not t.hand.is_over and self._turn_mark(t) != before
        return self._send_news(t, [], self._to_ping(t) if moved else ([], None))

    # ------------------------------------------------------------------ player actions
    async def place_text(self, channel_id: int, user_id: int, text: str) -> PlaceResult:
        from engine.autoplay import foul_confirmed
        from engine.notation import parse_move

        t = self.table_in_channel(channel_id, user_id)
        text, foul_ok = foul_confirmed(text)
        async with self._holding(t):
            hs = self._my_hand_seat(t, user_id)
            assert t.hand is not None
            req = self._requirement_or_error(t, hs)
            try:
                placed, discards = parse_move(text, req, t.hand.boards[hs])
            except (IllegalAction, CardError) as e:
                raise ServiceError(str(e)) from None
            warning = self._foul_warning(t, hs, req, placed)
            if warning and not foul_ok:
                raise ServiceError(f"This board fouls: {warning}, so it loses every row. "
                                   "Nothing was played. To play it anyway, add `foul` at the "
                                   "end of your move.")
            result, before = await self._place(t, hs, placed, discards)
        await self._tell(t, self._notify_after(t, before))
        return result

    @staticmethod
    def _foul_warning(
        t: TableState, hs: int, req: Requirement, placed: Sequence[tuple[Card, int]]
    ) -> str | None:
        """Why the board this move completes fouls, when another move would not (the
        player is asked to confirm it); None otherwise."""
        from engine.autoplay import foul_warning

        assert t.hand is not None
        try:
            return foul_warning(t.hand.boards[hs], req, placed, t.hand.rules)
        except ValueError:  # not a legal move: the engine says why when it is played
            return None

    def _requirement_or_error(self, t: TableState, hs: int) -> Requirement:
        assert t.hand is not None
        req = t.hand.requirement(hs)
        if req is None:
            try:
                t.hand._verify_actor(hs)
            except IllegalAction as e:
                seat = t.seat_by_no(t.hand_seats[hs])  # (their turn elsewhere, if it is)
                raise (self._turn_elsewhere(t, seat.user_id, str(e)) if seat is not None
                       else ServiceError(str(e))) from None
            raise ServiceError("You have nothing to place right now.")
        return req

    async def _place(
        self, t: TableState, hs: int, placed: Sequence[tuple[Card, int]],
        discards: Sequence[Card], auto: bool = False,
    ) -> tuple[PlaceResult, tuple[int | None, int]]:
        assert t.hand is not None
        before = self._turn_mark(t)
        req = t.hand.requirement(hs)
        try:
            action = t.hand.place(hs, placed, discards, auto=auto)
        except IllegalAction as e:
            raise ServiceError(str(e)) from None
        hand = t.hand
        hidden = hand.hidden(hs) and not hand.is_over
        t.drafts.pop(hs, None)
        t.deadlines.pop(hs, None)
        t.away.discard(hs)  # they are back: the whole clock again
        await self._after_action(t)
        if req is not None and req.is_set:
            text = f"Your hand is set: {action.describe()}."
            if action.discards:
                text += f" Discarded {' '.join(str(c) for c in action.discards)}."
            hidden = True
        else:
            text = f"Placed {action.describe()}."
        if action.discards and not hidden:
            text += f" Discarded {' '.join(str(c) for c in action.discards)} (only you see this)."
        return PlaceResult(text=text, hand_over=hand.is_over), before

    async def _seat_action(
        self, channel_id: int, user_id: int, do: Callable[[Hand, int], object],
        hand_no: int | None = None, table_id: int | None = None,
        terms: Callable[[TableState, int], str] | None = None,
    ) -> tuple[TableState, str]:
        """Run a declare/surrender for the user's seat: verified by the engine (a refusal
        changes nothing), persisted, then announced.  ``hand_no``: only in that hand;
        ``table_id``: only at that table (a new table in the channel counts hands from 1).
        Returns the table and what ``terms`` said of the action just before it was done."""
        t = self.table_in_channel(channel_id, user_id) if table_id is None else self.tables.get(table_id)
        if t is None:
            raise ServiceError(f"That table is closed: hand #{hand_no} is over; nothing was "
                               "done.")
        _resumed(t)
        async with self._holding(t):
            if hand_no is not None and (t.hand is None or t.row.hand_no != hand_no):
                raise ServiceError(f"Hand #{hand_no} is over: nothing was done.")
            hs = self._my_hand_seat(t, user_id)
            assert t.hand is not None
            before = self._turn_mark(t)
            said = terms(t, hs) if terms is not None else ""
            try:
                do(t.hand, hs)
            except IllegalAction as e:
                raise ServiceError(str(e)) from None
            t.drafts.pop(hs, None)
            t.deadlines.pop(hs, None)
            t.away.discard(hs)
            await self._after_action(t)
        await self._tell(t, self._notify_after(t, before))
        return t, said

    async def declare(self, channel_id: int, user_id: int, natural: str) -> str:
        if natural not in NATURAL_NAMES:
            raise ServiceError(f"Choose a natural: {', '.join(NATURAL_NAMES)}.")
        await self._seat_action(channel_id, user_id, lambda h, s: h.declare(s, natural))
        return f"You declared {natural}. It is revealed at the showdown."

    def surrender_check(self, channel_id: int, user_id: int) -> int:
        """The number of the hand the user may surrender now (a ServiceError says why not):
        the confirmation asked first is bound to it."""
        t = self.table_in_channel(channel_id, user_id)
        hs = self._my_hand_seat(t, user_id)
        assert t.hand is not None
        try:
            t.hand.verify_surrender(hs)
        except IllegalAction as e:
            raise ServiceError(str(e)) from None
        return t.row.hand_no

    def surrender_terms(self, channel_id: int, user_id: int) -> str:
        """What surrendering costs the user now, in words (for the confirmation)."""
        t = self.table_in_channel(channel_id, user_id)
        return self._surrender_cost(t, self._my_hand_seat(t, user_id))

    @staticmethod
    def _surrender_cost(t: TableState, hs: int) -> str:
        """What surrendering costs the hand seat ``hs`` now: chinese pays the table's
        ``surrender`` points to each opponent who has not surrendered too (times the stake
        against players; bots play for points), ofc and pineapple score it as a foul."""
        hand = t.hand
        assert hand is not None
        if t.rules.variant != "chinese":
            return "it scores as a foul: you lose every row"
        value = t.rules.chinese_surrender
        others = [o for o in range(hand.n) if o != hs and not hand.surrendered[o]]
        if not others:
            return "every other player surrendered, so nobody is paid (the hand is even)"
        if not value:
            return "it costs nothing at this table (its surrender value is 0)"
        who = ("your opponent" if hand.n == 2 else "each opponent" if len(others) == hand.n - 1
               else "the opponent who has not surrendered" if len(others) == 1
               else f"each of the {len(others)} opponents who have not surrendered")
        text = f"you pay {plural(value, 'point')} to {who}"
        stake = 0 if t.hand_practice else t.row.stake
        seats = [t.seat_by_no(t.hand_seats[o]) for o in others]
        players = [s for s in seats if s is not None and not s.is_bot]
        if stake and players:
            units = plural(value * stake, "unit")
            text += (f" ({units}" if len(players) == len(others)
                     else f" ({units} to each player; bots play for points")
            mine = t.seat_by_no(t.hand_seats[hs])
            if mine is not None and not mine.is_bot and mine.stack < value * stake * len(players):
                text += f"; never more than your stack of {plural(mine.stack, 'unit')}"
            text += ")"
        return text

    async def surrender(self, channel_id: int, user_id: int, hand_no: int | None = None,
                        table_id: int | None = None) -> str:
        """Surrender the user's hand (``hand_no`` at ``table_id``: only that hand, e.g. from a
        confirmation asked earlier)."""
        _, cost = await self._seat_action(channel_id, user_id, lambda h, s: h.surrender(s),
                                          hand_no, table_id, terms=self._surrender_cost)
        return f"You surrendered: {cost}."

    # ------------------------------------------------------------------ the private panel
    def panel(self, table_id: int, user_id: int, seat_no: int | None = None) -> PanelState:
        t = self.table(table_id)
        seat = t.seat_of_user(user_id)
        if seat is None and seat_no is None:  # the table's "Open my panel" button
            raise ServiceError("You are not seated at this table: `/ofc join` takes a seat.")
        if seat is None:
            raise ServiceError("You are not seated at this table any more.")
        if seat_no is not None and seat.seat_no != seat_no:
            raise ServiceError("This panel belongs to another player.")
        return self._panel_state(t, seat)

    def panel_in_channel(self, channel_id: int, user_id: int) -> PanelState:
        t = self.table_in_channel(channel_id, user_id)
        return self._panel_state(t, self._my_seat(t, user_id))

    def _no_hand(self, t: TableState) -> ServiceError:
        """No hand is being played: why, and what comes next."""
        if t.row.hand_no == 0:
            return ServiceError("The game has not started yet: `/ofc start` deals the first "
                                "hand once everyone has joined.")
        if t.waiting:
            return ServiceError(f"No hand is being played. {self._why_waiting(t)}")
        return ServiceError("No hand is being played right now; the next one is dealt in a "
                            "moment.")

    def _panel_state(self, t: TableState, seat: SeatRow) -> PanelState:
        hand = t.hand
        if hand is None:
            raise self._no_hand(t)
        hs = t.hand_seat_of(seat.seat_no)
        if hs is None:
            raise ServiceError(self._not_in_hand(t, seat))
        req = hand.requirement(hs)
        waiting = ""
        if req is None:
            if hand.naturals[hs]:
                who = ("Your clock ran out: the bot declared" if hand.autoplayed[hs]
                       else "You declared")
                waiting = (f"{who} {hand.naturals[hs]} (shown at the showdown); waiting for "
                           "the others.")
            elif hand.surrendered[hs]:
                waiting = "You surrendered this hand; waiting for the others."
            elif hand.done[hs]:
                waiting = "You are done for this hand; waiting for the others."
            elif hand.turn is not None:
                waiting = f"It is {hand.names[hand.turn]}'s turn."
        return PanelState(
            table_id=t.id, seat_no=seat.seat_no, hand_no=t.row.hand_no,
            step=self.step_of(t, hs), requirement=req, board=hand.boards[hs],
            draft=t.drafts.get(hs, Draft()), fantasyland=bool(hand.fantasyland[hs]),
            discards=hand.discards[hs], waiting_for=waiting, name=seat.name,
            can_declare=hand.rules.variant == "chinese"
            and any(v > 0 for v in hand.rules.natural_values.values()),
        )

    async def panel_action(
        self, table_id: int, user_id: int, seat_no: int, hand_no: int, step: int, action: str,
        values: Sequence[str] = (),
    ) -> tuple[PanelState | None, str]:
        """A click on a panel: ``pick`` (values = cards), ``top``/``middle``/``bottom``/
        ``discard`` (assign the selected cards), ``undo``, ``clear``, ``confirm``."""
        t = self.table(table_id)
        before: tuple[int | None, int] = (None, 0)
        confirmed = False
        async with self._holding(t, stale=True):
            seat = t.seat_of_user(user_id)
            if seat is None:  # (their own panel, from before they left: it loses its buttons)
                raise Stale("You are not seated at this table any more: `/ofc join` takes a "
                            "seat again.")
            if seat.seat_no != seat_no:
                raise ServiceError("This panel belongs to another player.")
            if t.hand is None or t.row.hand_no != hand_no:
                raise Stale(f"Hand #{hand_no} is over.")  # (with the panel of a new one)
            hs = t.hand_seat_of(seat_no)
            if hs is not None and hs in t.away and self.step_of(t, hs) != step:
                raise Stale("Your time ran out, so the clock played for you (what you had "
                            "arranged, when it was a whole move, else the AI). Here is "
                            "your current panel.")
            if hs is None or self.step_of(t, hs) != step:
                raise Stale("That was already done. Here is your current panel.")
            req = self._requirement_or_error(t, hs)
            had = t.drafts.get(hs)
            before_draft = None if had is None else Draft.from_json(had.to_json())

            async def save_draft() -> None:
                """Save the changed draft; if that fails, memory gets the old one back."""
                try:
                    await self._save(t)
                except BaseException:
                    if before_draft is None:
                        t.drafts.pop(hs, None)
                    else:
                        t.drafts[hs] = before_draft
                    raise

            draft = t.drafts.setdefault(hs, Draft())
            message = ""
            if action == "pick":
                try:
                    cards = [Card(v) for v in values]
                except CardError as e:
                    raise ServiceError(str(e)) from None
                if len(set(cards)) != len(cards):  # (a client sends each option once)
                    raise ServiceError("A card was picked twice: pick each card once.")
                rows = dict(draft.assigned)
                for c in cards:
                    if c not in req.cards:
                        raise ServiceError(f"{c} is not in your hand")
                    if c in rows:  # another panel of theirs (DM, /ofc hand) placed it
                        where = ("discarded" if rows[c] == 3
                                 else f"already on your {ROW_NAMES[rows[c]]} row")
                        raise Stale(f"{c} is {where} (**Undo** takes it back). Here is your "
                                    "current panel.")
                draft.selected = cards
            elif action in ROW_NAMES:
                row = ROW_NAMES.index(action)
                if not draft.selected:
                    raise ServiceError("Pick cards in the menu first, then press a row.")
                if row == 3:
                    dropped = sum(1 for _, r in draft.assigned if r == 3)
                    if dropped + len(draft.selected) > req.discard:
                        raise ServiceError(
                            f"You discard {req.discard} card{'s' if req.discard != 1 else ''} "
                            "this round." if req.discard else "Nothing is discarded this round."
                        )
                else:
                    free = req.free[row] - sum(1 for _, r in draft.assigned if r == row)
                    if len(draft.selected) > free:
                        raise ServiceError(
                            f"The {action} row is full" if free == 0 else
                            f"The {action} row has room for {free} more card"
                            f"{'s' if free != 1 else ''}, not {len(draft.selected)}"
                        )
                draft.assigned.extend((c, row) for c in draft.selected)
                draft.presses.append(len(draft.selected))
                draft.selected = []
            elif action == "undo":
                if draft.selected:
                    draft.selected = []
                elif draft.assigned:
                    last = draft.presses.pop() if draft.presses else 1
                    del draft.assigned[-last:]
                else:
                    raise ServiceError("Nothing to undo.")
            elif action == "clear":
                t.drafts[hs] = Draft()
            elif action == "confirm":
                placed, discards = _draft_move(req, draft)
                warning = self._foul_warning(t, hs, req, placed)
                if warning and draft.warned != draft.assigned:  # asked once per arrangement
                    draft.warned = list(draft.assigned)
                    await save_draft()
                    raise ServiceError(
                        f"This board fouls: {warning}, so it loses every row. Nothing was "
                        "played: press **Confirm** again to play it anyway, or change it.")
                result, before = await self._place(t, hs, placed, discards)
                message = result.text
                confirmed = True
            else:
                raise ServiceError(f"Unknown panel action {action!r}.")
            if not confirmed:
                await save_draft()
            state = self._panel_state(t, seat) if t.hand is not None else None
        if confirmed:
            await self._tell(t, self._notify_after(t, before))
        return state, message

    # ------------------------------------------------------------------ suggestions
    async def suggest(self, channel_id: int, user_id: int) -> str:
        t = self.table_in_channel(channel_id, user_id)
        async with self._holding(t):
            hs = self._my_hand_seat(t, user_id)
            assert t.hand is not None
            req = self._requirement_or_error(t, hs)
            fantasy = bool(t.hand.fantasyland[hs])
            if not (t.hand_practice or fantasy):
                raise ServiceError(
                    "Suggestions are for practice tables and fantasyland hands only: "
                    "at a real-stakes table they would be cheating."
                )
            snapshot = t.hand.redacted_for(hs)
        try:
            s = await self.thinker.run(suggest, snapshot, hs, "normal",
                                       what=_decision(t, hs, "a suggestion"))
        except Hung:
            raise ServiceError("The AI did not answer in time; please try again.") from None
        return f"{req.describe()}: suggested {s.explanation}"

    # ------------------------------------------------------------------ timers and bots
    def _arm(self, t: TableState) -> None:
        if t.timer is not None and t.timer is asyncio.current_task():
            return  # the running timer loop picks up the new deadlines itself
        if t.timer is not None and not t.timer.done():
            t.timer.cancel()
        if t.hand is None or t.hand.is_over or not t.deadlines or self._closed:
            t.timer = None
            return
        t.timer = asyncio.ensure_future(self._timer(t))

    def _drafted_move(self, t: TableState, hs: int) -> Place | None:
        """What a player left arranged in their panel without pressing Confirm, when it is a
        whole legal move that does not foul (when a clean board was possible): a timeout plays
        it rather than the AI's move (lock held)."""
        draft = t.drafts.get(hs)
        req = t.hand.requirement(hs) if t.hand is not None else None
        if draft is None or req is None or t.hand is None:
            return None
        placed, discards = _draft_move(req, draft)
        if len(placed) != req.place:
            return None
        if self._foul_warning(t, hs, req, placed):
            return None
        try:
            placements, dropped = t.hand.verify_place(hs, placed, discards)
        except IllegalAction:
            return None
        return Place(hs, placements, dropped, auto=True)

    @staticmethod
    async def _doze(t: TableState, seconds: float) -> None:
        """The timer's sleep until its next deadline, which ``rearm`` can end early."""
        loop = asyncio.get_running_loop()
        woken: asyncio.Future[None] = loop.create_future()
        t.wake = woken
        handle = loop.call_later(seconds, _wake, woken)
        try:
            await woken
        finally:
            handle.cancel()
            if t.wake is woken:
                t.wake = None

    async def _timer(self, t: TableState) -> None:
        """The table's clock: plays the moves of the seats whose time ran out.  It stops when
        its hand ends or when it is no longer the table's timer (a hand it settled clears it,
        and the next hand, dealt meanwhile, arms a timer of its own)."""

        def superseded() -> bool:
            return t.timer is not asyncio.current_task()

        try:
            while True:
                deadline = self._next_deadline(t)
                if deadline is None:
                    return
                await self._doze(t, max(0.0, deadline - self.clock()))
                if not self._online.is_set():  # nobody can act: the clocks wait for Discord
                    await self._online.wait()  # (which gives the ones run out a grace)
                    continue
                async with t.lock:
                    if superseded() or t.hand is None or t.hand.is_over:
                        return
                    now = self.clock()
                    expired = [hs for hs, d in t.deadlines.items() if d <= now]
                    todo = []  # (hand seat, its step) of the seats that may still act
                    for hs in sorted(expired):
                        if t.hand.may_act(hs):
                            todo.append((hs, self.step_of(t, hs)))
                        else:
                            t.deadlines.pop(hs, None)
                    if not todo:
                        continue
                    hand_no = t.row.hand_no
                    drafted = {hs: m for hs, _ in todo
                               if (m := self._drafted_move(t, hs)) is not None}
                    # each seat's move is found on what that seat may see
                    snapshots = {hs: t.hand.redacted_for(hs) for hs, _ in todo
                                 if hs not in drafted}
                # think without holding the table (the others' commands go on meanwhile)
                moves = {hs: drafted[hs] if hs in drafted
                         else await self.thinker.run(
                             snapshots[hs].autoplay, hs,
                             fallback=_plain_autoplay(snapshots[hs], hs),
                             what=_decision(t, hs, "a timeout"))
                         for hs, _ in todo}
                async with t.lock:
                    if superseded():
                        return
                    if t.hand is None or t.hand.is_over or t.row.hand_no != hand_no:
                        continue
                    before = self._turn_mark(t)
                    timed_out: list[SeatRow] = []
                    from_panel: set[int] = set()  # (players whose arranged move was played)
                    played = 0
                    now = self.clock()
                    for hs, step in todo:
                        if (not t.hand.may_act(hs) or self.step_of(t, hs) != step
                                or t.deadlines.get(hs, now + 1) > now):
                            continue  # the player acted meanwhile: their move stands
                        seat = t.seat_by_no(t.hand_seats[hs])
                        try:
                            t.hand.apply(moves[hs])
                            if hs in drafted and seat is not None:
                                from_panel.add(seat.user_id)
                        except IllegalAction as e:  # cannot happen: found on this seat's
                            # state (its message would name the seat's cards: not logged)
                            log.error("table %s hand #%s: the timeout's move at hand seat %s "
                                      "was refused (%s); thinking again", t.id,
                                      t.row.hand_no, hs, type(e).__name__)
                            fresh = t.hand.redacted_for(hs)
                            t.hand.apply(await self.thinker.run(
                                fresh.autoplay, hs, fallback=_plain_autoplay(fresh, hs),
                                what=_decision(t, hs, "a timeout, again")))
                        played += 1
                        t.deadlines.pop(hs, None)
                        t.drafts.pop(hs, None)
                        # (a /ofc sitin after this clock ran out: here, not sat out)
                        if seat is not None and not seat.is_bot and t.back_late.get(hs) != step:
                            if hs not in t.away:  # told (and pinged) once a hand
                                timed_out.append(seat)
                            t.away.add(hs)  # a short clock for their next decisions
                    if not played:
                        continue
                    # (the hand's last move: told before its showdown, which settling posts)
                    preface = (self._timeout_text(t, timed_out, from_panel)
                               if t.hand.is_over else "")
                    t.showdown_notes = [preface] if preface else []
                    try:
                        await self._after_action(t)
                    except ServiceError:  # not saved, so not played: try again shortly
                        t.showdown_notes = []
                        failed = True
                    else:
                        failed = False
                        # only a move that was saved sits its player out
                        await self._sit_out_after_timeout(t, timed_out)
                        self._spawn(t, self._timeout_notices(
                            t, "" if preface else self._timeout_text(t, timed_out, from_panel),
                            before))
                if failed:
                    await asyncio.sleep(self._retry_delay(t))
                    continue
                async with t.lock:
                    if superseded():
                        return
                    if t.hand is None or t.hand.is_over:
                        t.timer = None
                        return
        except asyncio.CancelledError:
            return

    async def _sit_out_after_timeout(self, t: TableState, seats: list[SeatRow]) -> None:
        """Mark the players whose clock ran out as sitting out (lock held; their moves are
        saved).  A failure here costs only the mark: the hand goes on."""
        try:
            for seat in seats:
                await self._update_seat(t, seat.seat_no, sitting_out=True)
        except Exception:
            log.exception("marking timed-out players of table %s as sitting out failed", t.id)

    @staticmethod
    def _timeout_text(t: TableState, seats: list[SeatRow],
                      from_panel: Collection[int] = ()) -> str:
        """The notice for the players whose clock ran out (lock held, the moves played; empty
        when none): they are pinged.  ``from_panel``: the players whose move was the one they
        had left arranged in their panel (the others' the AI played)."""
        if not seats:
            return ""

        def mentions(group: list[SeatRow]) -> str:
            return ", ".join(f"<@{seat.user_id}>" for seat in group)

        names = mentions(seats)
        arranged = [seat for seat in seats if seat.user_id in from_panel]
        by_ai = [seat for seat in seats if seat.user_id not in from_panel]
        if not arranged:
            how = "the AI played that move for them."
        elif not by_ai:
            how = "the move left arranged in the panel was played for them."
        else:
            how = (f"the move left arranged in the panel was played for {mentions(arranged)}, "
                   f"the AI's for {mentions(by_ai)}.")
        hand = t.hand
        rules = t.rules
        short = (f" ({min(rules.away_timer, rules.timer)} s a decision until they act again)"
                 if rules.away_timer else "")

        def more(group: list[SeatRow]) -> bool:  # (still decisions to make in this hand)
            return hand is not None and not hand.is_over and any(
                (hs := t.hand_seat_of(seat.seat_no)) is not None and not hand.done[hs]
                for seat in group)

        text = f"⏰ Time ran out for {names}: {how}"
        for leaving in (False, True):  # (a player who asked to leave after this hand)
            group = [seat for seat in seats if seat.leaving == leaving]
            if not group:
                continue
            one = len(group) == 1 < len(seats)
            who = f"<@{group[0].user_id}>" if one else "They" if len(group) == len(seats) \
                else ", ".join(f"<@{seat.user_id}>" for seat in group)
            s = "s" if one else ""
            playing = more(group)
            then = (f"leave{s} the table after {'it' if playing else 'this hand'}, as asked"
                    if leaving else f"sit{s} out from the next hand (`/ofc sitin` to come back)")
            text += (f" {who} " + (f"play{s} on in this hand{short} and " if playing else "")
                     + then + ".")
        return text

    async def _timeout_notices(
        self, t: TableState, text: str, before: tuple[int | None, int]
    ) -> None:
        if text:
            await self.notifier.notice(t, text)
        await self._tell(t, self._notify_after(t, before))

    def _schedule_bots(self, t: TableState) -> None:
        if t.hand is None or t.hand.is_over:
            return
        for hs in t.hand.to_act():
            seat = t.seat_by_no(t.hand_seats[hs])
            if seat is not None and seat.is_bot:
                key = (t.row.hand_no, hs, self.step_of(t, hs))
                if key in t.bot_keys:
                    continue
                t.bot_keys.add(key)
                self._spawn(t, self._bot_act(t, hs, key[0], key[2]))

    async def _bots_later(self, t: TableState) -> None:
        """The bots whose move could not be saved think again after a while (``SAVE_RETRY``,
        doubling while saves keep failing)."""
        await asyncio.sleep(self._retry_delay(t))
        async with t.lock:
            self._schedule_bots(t)

    async def _bot_act(self, t: TableState, hs: int, hand_no: int, step: int) -> None:
        if self.bot_delay:
            await asyncio.sleep(self.bot_delay)

        def current() -> bool:
            return (
                t.hand is not None and t.row.hand_no == hand_no
                and self.step_of(t, hs) == step and t.hand.may_act(hs)
            )

        async with t.lock:
            if not current():
                return
            assert t.hand is not None
            seat = t.seat_by_no(t.hand_seats[hs])
            level = str(seat.bot_level) if seat and seat.bot_level else "normal"
            snapshot = t.hand.redacted_for(hs)  # what this seat may see, nothing more
        # think without holding the table: the others' commands go on meanwhile
        natural = await self.thinker.run(choose_natural, snapshot, hs, fallback=lambda: None,
                                         what=_decision(t, hs, "a bot's natural"))
        if not natural and not current():  # (closed or moved on meanwhile: no search for it)
            return
        placed, discards = (
            ((), ()) if natural else await self.thinker.run(
                choose_move, snapshot, hs, level, fallback=_plain_move(snapshot, hs),
                what=_decision(t, hs, "a bot's move"))
        )
        async with t.lock:
            if not current():
                return
            assert t.hand is not None
            before = self._turn_mark(t)
            try:
                if natural:
                    t.hand.declare(hs, natural)
                else:
                    t.hand.place(hs, placed, discards)
            except IllegalAction as e:  # (its message would name the bot's hidden cards)
                log.error("table %s hand #%s: the bot's move at hand seat %s was refused (%s); "
                          "autoplaying", t.id, t.row.hand_no, hs, type(e).__name__)
                t.hand.apply(await self.thinker.run(
                    snapshot.autoplay, hs, fallback=_plain_autoplay(snapshot, hs),
                    what=_decision(t, hs, "a bot's move, again")))
            t.deadlines.pop(hs, None)
            try:
                await self._after_action(t)
            except ServiceError:  # not saved, so not played: the bot tries again shortly
                t.bot_keys.discard((hand_no, hs, step))
                self._spawn(t, self._bots_later(t))
                return
        await self._tell(t, self._notify_after(t, before))

    # ------------------------------------------------------------------ showdown
    async def _showdown(self, t: TableState) -> None:
        """Settle the finished hand (lock held).  If that fails nothing was written and the
        hand stays over in memory and in the store (a restart settles it too): it is tried
        again shortly, a few times, then voided."""
        assert t.hand_row is not None
        hand_id = t.hand_row.id
        try:
            await self._settle(t)  # clears the hand (and its failure count) when done
        except Exception:
            t.settle_failures += 1
            if t.settle_failures < SETTLE_ATTEMPTS:
                log.exception("settling hand %s failed; retrying", hand_id)
                self._spawn(t, self._retry_showdown(t, hand_id))
            else:
                log.exception("settling hand %s failed %d times; voiding it", hand_id,
                              t.settle_failures)
                await self._void_hand(t)

    async def _settle(self, t: TableState) -> None:
        """Units, results, the next button and the fantasyland owed: one store transaction."""
        hand = t.hand
        assert hand is not None and hand.settlement is not None and t.hand_row is not None
        s = hand.settlement
        seats = [t.seat_by_no(no) for no in t.hand_seats]
        is_bot = [seat is None or seat.is_bot for seat in seats]
        practice = t.hand_practice
        n = hand.n
        matrix = s.matrix()
        for i in range(n):
            for j in range(n):
                if is_bot[i] or is_bot[j] or practice:
                    matrix[i][j] = 0
        stacks = [10**12 if is_bot[i] else (seat.stack if (seat := seats[i]) else 0)
                  for i in range(n)]
        units = units_moved(matrix, t.row.stake, stacks, hand.button)
        # the fantasylands earned, as the table's options deal them now (they may have been
        # changed during the hand: fantasyland off, progressive off)
        table_rules = t.table_rules  # (read from the table's JSON: once)
        earned = tuple(table_rules.fantasyland_cards_now(c) for c in hand.fantasyland_next)
        results = []
        movements: dict[int, int] = {}
        for i, seat in enumerate(seats):
            assert seat is not None
            counted = not practice and not seat.is_bot
            u = units[i] if counted else 0
            if counted and u:
                movements[seat.user_id] = u
            results.append(HandResult(
                user_id=seat.user_id, seat_no=seat.seat_no, name=seat.name,
                points=s.totals[i], units=u, fouled=s.fouled[i], royalties=s.royalties[i],
                fantasyland=earned[i] > 0, surrendered=s.surrendered[i],
                natural=s.naturals[i], is_bot=seat.is_bot, counted=counted,
                ranked_points=sum(matrix[i]) if counted and any(is_bot) else None,
            ))
        final = {**self._state_json(t), "fantasyland_shown": list(earned)}  # (as shown)
        # (kept as earned: the deal sizes it by the options then)
        fl_next = {str(t.hand_seats[i]): c for i, c in enumerate(hand.fantasyland_next)
                   if earned[i]}
        # the next seat clockwise; the deal keeps this hand's button instead when the coming
        # hand has a player in fantasyland (``button_before``)
        button_seat = self._next_seat_clockwise(t, t.hand_seats[hand.button])
        extra = {**t.row.extra, "fantasyland": {**self._carried_fantasyland(t), **fl_next},
                 "fantasyland_owed_by": list(t.hand_seats) if fl_next else [],
                 "button_before": t.hand_seats[hand.button],
                 # until its showdown is posted: a stop before that posts it at the restart
                 SHOWDOWN_PENDING: t.hand_row.id}
        try:
            await self.store.finish_hand(
                t.hand_row.id, final, results, movements, self.clock(),
                log_json=[a.to_json() for a in hand.log], button=button_seat, table_extra=extra,
            )
        except AlreadyApplied:
            log.info("hand %s was already settled", t.hand_row.id)
        result = ShowdownResult(
            hand_no=t.row.hand_no, names=hand.names,
            user_ids=tuple(seat.user_id if seat else 0 for seat in seats), settlement=s,
            units=None if practice else tuple(units), fantasyland_next=earned,
            practice=practice, rules=t.rules, natural_cards=tuple(hand.natural_cards),
            seat_nos=tuple(t.hand_seats), notes=tuple(t.showdown_notes),
            replayable=bool(hand.regular_seats),
            bots=tuple(bool(seat and seat.is_bot) for seat in seats),
        )
        await self._clear_hand(t, button=button_seat, extra=extra)
        if not practice:  # (not those leaving: they go)
            result = dataclasses.replace(result, broke=tuple(
                s.user_id for s in t.seats
                if s.seat_no in result.seat_nos and self.is_broke(t, s) and not s.leaving))
        t.last_result = result
        self._spawn(t, self._after_showdown(t, result))

    async def _clear_hand(self, t: TableState, **written: Any) -> None:
        """The hand is settled or voided: forget it in memory (lock held).  ``written``: the
        table fields the settlement or voiding wrote (see ``_refresh_after_write``)."""
        t.hand = None
        t.hand_row = None
        t.stored = None
        t.deadlines = {}
        t.drafts = {}
        t.showdown_notes = []
        t.away = set()
        t.back_late = {}
        t.settle_failures = 0
        t.bot_keys.clear()  # (the hand's bot decisions: a table's life of them would pile up)
        if t.timer is not None and t.timer is not asyncio.current_task():
            t.timer.cancel()
        t.timer = None
        await self._refresh_after_write(t, **written)

    async def _void_hand(self, t: TableState) -> None:
        """A hand that cannot be settled is voided: no units move, a fantasyland it dealt is
        given back to its player, play goes on (lock held)."""
        assert t.hand_row is not None
        number = t.hand_row.number
        given_back = {}
        if t.hand is not None:  # (as dealt: the next deal sizes it by the options then)
            rules = t.table_rules
            given_back = {str(t.hand_seats[i]): c for i, c in enumerate(t.hand.fantasyland)
                          if rules.fantasyland_cards_now(c)}
        extra = {**t.row.extra, "fantasyland": {**t.row.extra.get("fantasyland", {}),
                                                 **given_back}}
        try:
            await self.store.abort_hand(t.hand_row.id, self.clock(), table_extra=extra)
        except Exception:
            log.exception("voiding hand %s failed; trying again", t.hand_row.id)
            # the hand stays over in memory: try again (the settlement first, then the void),
            # or nothing would ever deal the next hand before a restart
            self._spawn(t, self._retry_showdown(t, t.hand_row.id))
            return
        notes = tuple(t.showdown_notes)
        await self._clear_hand(t, extra=extra)
        self._spawn(t, self._notify_void(t, number, notes))

    async def _notify_void(self, t: TableState, number: int, notes: Sequence[str] = ()) -> None:
        for note in notes:
            await self.notifier.notice(t, note)
        await self.notifier.notice(
            t, f"Hand #{number} could not be settled and was voided: no units moved. "
            "Sorry! The next hand follows."
        )
        await self._next_hand_later(t, self.next_hand_delay)

    async def _retry_showdown(self, t: TableState, hand_id: int) -> None:
        await asyncio.sleep(SETTLE_RETRY)
        async with t.lock:
            if t.hand is not None and t.hand.is_over and t.hand_row is not None and (
                t.hand_row.id == hand_id
            ):
                await self._showdown(t)

    def _next_seat_clockwise(self, t: TableState, seat_no: int) -> int:
        nos = sorted(s.seat_no for s in t.seats)
        for no in nos:
            if no > seat_no:
                return no
        return nos[0] if nos else 0

    async def _after_showdown(
        self, t: TableState, result: ShowdownResult, delay: float | None = None
    ) -> None:
        for note in result.notes:
            await self.notifier.notice(t, note)
        await self.notifier.showdown(t, result)
        await self._showdown_posted(t)
        await self._next_hand_later(t, self.next_hand_delay if delay is None else delay)

    async def _showdown_posted(self, t: TableState) -> None:
        """The settled hand's showdown went out (or was tried): a restart need not post it
        again.  Should this write fail, a restart posts it a second time, no worse."""
        async with t.lock:
            if SHOWDOWN_PENDING not in t.row.extra or t.id not in self.tables:
                return
            extra = {k: v for k, v in t.row.extra.items() if k != SHOWDOWN_PENDING}
            try:
                await self.store.update_table(t.id, extra=extra, now=self.clock())
            except Exception:
                log.exception("table %s: could not note that a showdown was posted", t.id)
                return
            await self._refresh_after_write(t, extra=extra)

    async def _stored_showdown(self, t: TableState) -> ShowdownResult | None:
        """The showdown of the hand settled just before the bot stopped, when it may not have
        been posted (``SHOWDOWN_PENDING``), rebuilt from what the settlement wrote: its final
        state and results (lock held)."""
        hand_id = t.row.extra.get(SHOWDOWN_PENDING)
        row = await self.store.get_hand(int(hand_id)) if hand_id is not None else None
        if row is None or row.status != "done":
            return None
        found = await self.store.numbered_hand(t.id, row.number)
        results = found[1] if found is not None and found[0].id == row.id else []
        result = _settled_showdown(row, results, t.table_rules)
        if result is None or result.practice:
            return result
        seat_nos = set(result.seat_nos)
        broke = tuple(s.user_id for s in t.seats
                      if s.seat_no in seat_nos and self.is_broke(t, s) and not s.leaving)
        return dataclasses.replace(result, broke=broke)

    async def _next_hand_later(self, t: TableState, delay: float, retry: bool = False) -> None:
        """Between hands (after ``delay``): release the leavers, close the table or deal the
        next hand.  When the database fails this tries again, waiting twice as long each time
        (from ``SAVE_RETRY`` up to ``SAVE_RETRY_MAX``; ``retry``: this is such a try); a
        failed deal also leaves the table waiting, so ``/ofc start`` (or a join / sitin)
        deals at once, and the channel is told once."""
        if delay:
            await asyncio.sleep(delay)
        again = _backoff(delay if retry else 0.0)  # (the first wait after a showdown is the
        # pause between hands, not a retry's)
        async with t.lock:
            if t.hand is not None or t.id not in self.tables:
                return
            closed = False
            try:
                await self._release_leavers(t)
                if not t.humans or (t.row.status == "closing" and not self._closing_deals(t)):
                    await self._close_now(t)
                    closed = True
            except Exception:  # the database failed: try again shortly, or the table stalls
                log.exception("between hands at table %s: releasing or closing failed", t.id)
                self._spawn(t, self._next_hand_later(t, again, retry=True))
                return
            if not closed and t.row.hand_no == 0:
                return  # the first hand is dealt by /ofc start only
            deal_failed = False
            if not closed:
                if self._can_deal(t):
                    try:
                        await self._deal(t)
                    except Exception:  # nothing dealt: try again (and /ofc start can)
                        log.exception("dealing at table %s failed", t.id)
                        t.waiting = deal_failed = True
                        self._spawn(t, self._next_hand_later(t, again, retry=True))
                else:
                    t.waiting = True
            t.deal_failed = deal_failed
        if closed:
            by = t.row.extra.get(CLOSE_BY)
            said = ("The table is closed. Thanks for playing!" if by is None else
                    f"The table is closed, as <@{by}> asked "
                    f"{t.row.extra.get(CLOSE_ASKED, 'during')} hand #"
                    f"{t.row.extra.get(CLOSE_AFTER, t.row.hand_no)}: every stack went back to "
                    "its owner's balance. Thanks for playing!")
            await self.notifier.notice(t, said + await self._recap_after(t), ping=False)
            await self.notifier.table_changed(t)
            return
        if t.hand is not None:
            await self._announce_new_hand(t)
        elif not (deal_failed and retry):
            why = ("The next hand could not be dealt (the database failed): trying again "
                   + ("shortly." if t.row.status == "closing"
                      else "shortly, or `/ofc start` deals it now.")) if deal_failed \
                else self._why_waiting(t)
            # (its mentions, a stack the hand emptied, notify nobody: the showdown pinged them)
            await self.notifier.notice(t, why, ping=False)
            await self.notifier.table_changed(t)

    async def set_message_id(self, t: TableState, message_id: int) -> None:
        """Remember the table's public message (edited in place)."""
        if t.row.status == "closed":
            return
        t.row = await self.store.update_table(t.id, message_id=message_id, now=self.clock())

    # ------------------------------------------------------------------ read-only
    def rules_text(self, channel_id: int) -> list[str]:
        t = self.table_in_channel(channel_id)
        lines = t.rules.describe()
        if not t.four_colour:
            lines.append("Pictures: the classic two-colour deck.")
        pending = t.table_rules.changes_from(t.rules)
        if pending:
            lines.append("From the next hand: " + "; ".join(pending) + ".")
        lines.insert(0, (f"Stake {plural(t.row.stake, 'unit')} per point, buy-in {t.row.buyin}"
                         if t.row.stake else "No units (stake 0)")
                     + f", {t.row.max_seats} seats.")
        if t.practice:
            lines.append("Practice table (one human against bots): no units move and nothing "
                         "counts in the leaderboard.")
        elif t.bots:
            lines.append("Bots play for points only: results against a bot move no units.")
        return lines

    async def history(
        self, channel_id: int, count: int
    ) -> tuple[list[tuple[HandRow, list[HandResult]]], bool, int]:
        """The last ``count`` hands of the channel's table, whether that table is closed
        (with no table open in the channel, the last one that was: its record outlives it),
        and its stake."""
        if not 1 <= count <= 25:
            raise ServiceError("Choose a count from 1 to 25.")
        table, closed = await self._record_table(channel_id)
        return await self.store.history(table.id, count), closed, table.stake

    async def player_hands(self, guild_id: int, user_id: int, count: int) -> list[PlayerHand]:
        """The player's last ``count`` settled hands at every table of the server (open or
        closed, practice too), newest first: ``/ofc history mine``."""
        if not 1 <= count <= 25:
            raise ServiceError("Choose a count from 1 to 25.")
        return await self.store.player_hands(guild_id, user_id, count)

    async def export_hands(self, guild_id: int, user_id: int) -> tuple[str, int, bool]:
        """``/ofc history file``: the player's last ``EXPORT_HANDS`` settled hands in the
        server as CSV text (``hands_csv``), how many, and whether there are older ones."""
        hands: list[ExportedHand] = []
        while len(hands) <= EXPORT_HANDS:  # (a page at a time: other tables write between)
            last = hands[-1] if hands else None
            page = await self.store.player_export(
                guild_id, user_id, EXPORT_PAGE, before=(math.inf, 0) if last is None
                else (last.hand.finished_at, last.hand_id))
            hands += page
            if len(page) < EXPORT_PAGE:
                break
        text = await asyncio.to_thread(hands_csv, hands[:EXPORT_HANDS], guild_id)  # (~0.2 s)
        return text, min(len(hands), EXPORT_HANDS), len(hands) > EXPORT_HANDS

    async def past_hand(self, channel_id: int, number: int) -> PastHand:
        """Hand ``number`` of the channel's table (or of its last one, closed) shown again: its
        showdown as it was posted, rebuilt from its final state and results, and its rounds.
        Only a settled hand has one: a hand being played keeps its cards hidden."""
        table, closed = await self._record_table(channel_id)
        return await self._past_hand(table, closed, number)

    async def past_hand_at(self, guild_id: int, table_id: int, number: int) -> PastHand:
        """``past_hand`` of table ``table_id`` of this server, wherever it is now (a replay's
        buttons name their table: the channel may have another since)."""
        table = await self._guild_table(guild_id, table_id)
        return await self._past_hand(table, table.status == "closed", number)

    async def _guild_table(self, guild_id: int, table_id: int) -> TableRow:
        """Table ``table_id``'s record, open or closed, if it is of this server."""
        if not 0 < table_id < 2**63:  # (an id SQLite cannot hold names no table)
            raise ServiceError("That table's record is gone.")
        t = self.tables.get(table_id)
        table = t.row if t is not None else await self.store.get_table(table_id)
        if table is None or table.guild_id != guild_id:
            raise ServiceError("That table's record is gone.")
        return table

    # ---------------------------------------------------------------- recaps
    async def recap(self, channel_id: int) -> str:
        """``/ofc recap``: how the channel's table has gone so far for each player (or, with no
        table open here, how its last one went)."""
        table, closed = await self._record_table(channel_id)
        found = await self.store.table_recap(table.id)
        if found is None:
            return NO_RECAP_CLOSED if closed else NO_RECAP_OPEN
        return "\n".join(recap_lines(table, found, closed))

    async def _recap_after(self, t: TableState) -> str:
        """The recap of a table that just closed, as lines to add to its closing words (none
        before its first hand, or when the database cannot say: the close goes on)."""
        try:
            found = await self.store.table_recap(t.id)
        except Exception:
            log.exception("table %s: its recap could not be read", t.id)
            return ""
        return "" if found is None else "\n" + "\n".join(
            recap_lines(t.row, found, True, RECAP_CHARS))

    # ---------------------------------------------------------------- the solver for all
    async def solve(self, channel_id: int, user_id: int, text: str,
                    variant: Variant | None = None) -> tuple[Rules, Solution]:
        """The exact solver's best setting of a fantasyland hand typed as text (13 cards in
        ofc, 14-17 in pineapple): under the rules of this channel's table when it plays that
        game (its stay and moon options), else the game's default rules (without
        ``variant``: ofc for 13 cards, pineapple for more).  Refused for the cards of a
        chinese hand the member is setting at a table that is not practice (a suggestion
        there would be cheating, as ``/ofc suggest`` says): the same ranks (a card or two
        aside), whatever the suits."""
        try:
            cards = parse_cards(text)
        except CardError as e:
            raise ServiceError(str(e)) from None
        if not cards:
            raise ServiceError("Type the cards to set: 13 for ofc, 14 to 17 for pineapple, "
                               "e.g. `Qh Qd Ks Kd 9c 9d 7s 7h 5c 5d 3s 3h 2c`.")
        if variant == "chinese":
            raise ServiceError("The solver sets fantasyland hands (ofc, pineapple); a "
                               "chinese hand is set with the table's own tools.")
        here = self._by_channel.get(channel_id)
        t = self.tables.get(here) if here is not None else None
        decided = variant or (t.rules.variant if t is not None and t.rules.variant != "chinese"
                              else None)
        if decided is None and not 13 <= len(cards) <= 17:  # (neither game's: say both)
            raise ServiceError(f"A fantasyland hand is 13 cards in ofc, 14 to 17 in pineapple; "
                               f"these are {len(cards)}.")
        game = decided or ("ofc" if len(cards) == 13 else "pineapple")
        table = t is not None and t.rules.variant == game
        rules = t.rules if t is not None and table else Rules(variant=game)
        try:
            check_fantasyland_cards(cards, rules)
        except ValueError as e:
            other = "pineapple" if game == "ofc" else "ofc"
            fits = len(cards) == 13 if other == "ofc" else 14 <= len(cards) <= 17
            hint = ((f" (the options of this channel's table; `variant:{other}` for the other "
                     "game)" if fits else " (the options of this channel's table)")
                    if table else "")
            raise ServiceError(f"{e}{hint}.") from None
        self._not_your_chinese_hand(user_id, cards)
        return rules, await asyncio.to_thread(solve_fantasyland, cards, rules)

    def _not_your_chinese_hand(self, user_id: int, cards: Sequence[Card]) -> None:
        """Refuse to solve the chinese hand the member is setting at a table that is not
        practice: the same ranks as typed, suits aside, but for up to two cards (a hand
        whose suits are relabelled, or a card changed, would be solved alike)."""
        typed = Counter(c.rank for c in cards)
        for other in self.tables.values():
            seat = other.seat_of_user(user_id)
            hs = other.hand_seat_of(seat.seat_no) if seat is not None else None
            if (other.hand is None or hs is None or other.hand_practice
                    or other.hand.fantasyland[hs]):
                continue
            req = other.hand.requirement(hs)
            if req is None or not req.is_set:
                continue
            held = Counter(c.rank for c in req.cards)
            if sum((held & typed).values()) >= len(req.cards) - 2:
                raise ServiceError(f"Those are the cards of your hand #{other.row.hand_no} at "
                                   f"<#{other.row.channel_id}>, a table that is not practice: "
                                   "the solver is not for the hand you are playing.")

    # ---------------------------------------------------------------- reviews of past hands
    async def review_here(self, channel_id: int, user_id: int, number: int) -> HandReview:
        """``review_at`` of hand ``number`` of the channel's table (or of its last one,
        closed)."""
        table, _ = await self._record_table(channel_id)
        return await self._review(table, user_id, number)

    async def review_last(self, guild_id: int, user_id: int) -> HandReview:
        """``review_at`` of the member's last settled hand in this server, at any table."""
        last = await self.store.player_hands(guild_id, user_id, 1)
        if not last:
            raise ServiceError(NO_HANDS_YET)
        table = await self._guild_table(guild_id, last[0].table_id)
        return await self._review(table, user_id, last[0].number)

    async def review_at(self, guild_id: int, user_id: int, table_id: int,
                        number: int) -> HandReview:
        """The member's own decisions in settled hand ``number`` of table ``table_id`` of this
        server, each measured against the AI's choice (street by street) or the solver's
        (sets) from what the member could see then (``engine.review``).  Only the member's:
        another player's decisions would show their discards.  Each decision is judged in
        the AI's workers on its own, one review's decision at a time (``_review_turn``: other
        tables' bots go on between them); the result is kept for the next ask."""
        return await self._review(await self._guild_table(guild_id, table_id), user_id, number)

    async def _review(self, table: TableRow, user_id: int, number: int) -> HandReview:
        row, _ = await self._finished_hand(table, number, "review it after its showdown")
        if row.status != "done":
            raise ServiceError(f"Hand #{number} was voided (no units moved): it has nothing to "
                               "review.")
        key = (table.id, row.id, user_id)
        kept = self._reviews.get(key)
        if kept is not None:
            return kept
        st = row.state
        users = [int(u) for u in st.get("users", [])]
        if user_id not in users:
            raise ServiceError(f"You did not play hand #{number}: a review is of your own "
                               "decisions.")
        seat = users.index(user_id)
        if user_id in self._reviewing:
            raise ServiceError("Your last review is still being worked out: wait for it, then "
                               "ask again.")
        self._reviewing.add(user_id)
        try:
            try:
                found = await asyncio.to_thread(decisions, st["engine"], seat)
            except Exception:  # (a log that cannot be played again is not worth a crash)
                log.exception("table %s hand %s: its log cannot be played again", table.id,
                              row.id)
                raise ServiceError(f"Hand #{number}'s moves could not be read back.") from None
            verdicts = []
            for decision in found:
                try:
                    async with self._review_turn:  # (one decision of one review at a time)
                        verdicts.append(await self.thinker.run(
                            judge, decision,
                            what=f"a review of hand #{number} at table {table.id}"))
                except Hung:
                    raise ServiceError("The AI did not answer in time; please try again.") \
                        from None
        finally:
            self._reviewing.discard(user_id)
        rules = Rules.from_json(st["engine"]["rules"])
        result = HandReview(number=number, table_id=table.id, channel_id=table.channel_id,
                            finished_at=row.finished_at or row.updated_at,
                            review=Review(seat, rules.variant, tuple(verdicts)))
        self._reviews[key] = result
        while len(self._reviews) > REVIEWS_KEPT:
            self._reviews.pop(next(iter(self._reviews)))
        return result

    async def _finished_hand(
        self, table: TableRow, number: int, playing: str
    ) -> tuple[HandRow, list[HandResult]]:
        """Hand ``number`` of ``table`` as stored, with its results; refused while it is being
        played (``playing``: what waits for its showdown)."""
        if number < 1:
            raise ServiceError("Hands are numbered from 1.")
        found = (await self.store.numbered_hand(table.id, number)
                 if number <= table.hand_no else None)  # (a number SQLite cannot hold too)
        last = table.hand_no
        if found is None:
            if last < 1:
                raise ServiceError("No hand has been dealt at this table yet.")
            raise ServiceError(f"There is no hand #{number} here: this table's hands are "
                               + ("#1." if last == 1 else f"#1 to #{last}."))
        row, results = found
        if row.status == "playing":
            raise ServiceError(f"Hand #{number} is being played: {playing}.")
        return row, results

    async def _past_hand(self, table: TableRow, closed: bool, number: int) -> PastHand:
        row, results = await self._finished_hand(table, number,
                                                 "its cards are shown at its showdown")
        try:
            result = _settled_showdown(row, results) if row.status == "done" else None
        except Exception:  # (a stored state is not worth a crash; the others stay readable)
            log.exception("table %s hand %s: the final state cannot be read back", table.id,
                          row.id)
            raise ServiceError(f"Hand #{number}'s cards could not be read back.") from None
        if result is None:
            raise ServiceError(f"Hand #{number} was voided (no units moved): it has no "
                               "showdown.")
        try:
            rounds = tuple(Hand.rounds(row.state["engine"]))
        except Exception:  # (the showdown is still worth showing)
            log.exception("table %s hand %s: its log cannot be played again", table.id, row.id)
            rounds = ()
        return PastHand(result=result, stake=table.stake,
                        four_colour=table.extra.get("deck", "four") != "two",
                        finished_at=row.finished_at or row.updated_at, closed=closed,
                        table_id=table.id, rounds=rounds, channel_id=table.channel_id,
                        players=frozenset(r.user_id for r in results if not r.is_bot))

    async def _record_table(self, channel_id: int) -> tuple[TableRow, bool]:
        """The channel's table, or when none is open its last one if that is closed (a
        table's record outlives it), and whether it is that closed one."""
        try:
            return self.table_in_channel(channel_id).row, False
        except ServiceError:
            last = await self.store.last_table_in_channel(channel_id)
            if last is None or last.status != "closed":
                raise
            return last, True

    async def balance(self, guild_id: int, user_id: int, name: str) -> tuple[int, int]:
        """(wallet balance, units at tables in this server)."""
        await self.store.ensure_player(guild_id, user_id, name)
        return await self.store.wallet(guild_id, user_id)

    def open_tables(self, guild_id: int) -> list[TableState]:
        """The server's tables that are open (or closing), oldest first (``/ofc tables``;
        which of them a member may see is the caller's to decide)."""
        return sorted((t for t in self.tables.values() if t.row.guild_id == guild_id),
                      key=lambda t: t.id)

    async def leaderboard(
        self, guild_id: int, by: str, period: str, limit: int = 10, variant: str | None = None
    ) -> list[LeaderEntry]:
        """``variant``: that game's hands only (None: every game's)."""
        if by not in LEADERBOARD_KEYS:
            raise ServiceError("Rank by units, points, hands, fantasylands or points per hand.")
        if period not in PERIODS:
            raise ServiceError("The period is day, week, month or all.")
        _check_game(variant)
        span = PERIODS[period]
        since = None if span is None else self.clock() - span
        return await self.store.leaderboard(guild_id, by, since, limit, variant)

    async def stats(
        self, guild_id: int, user_id: int, name: str, variant: str | None = None
    ) -> PlayerStats:
        """``variant``: that game's hands only (None: every game's)."""
        _check_game(variant)
        await self.store.ensure_player(guild_id, user_id, name)
        return await self.store.player_stats(guild_id, user_id, variant)

    async def grant(
        self, guild_id: int, by_user: int, user_id: int, name: str, amount: int, manage: bool,
        reason: str = "",
    ) -> int:
        """Give (or take back) units; the audit log keeps who, to whom, how many and why
        (``reason``: one line, at most ``REASON_LENGTH`` characters)."""
        if not manage:
            raise ServiceError("Only members with Manage Server can grant units.")
        if amount == 0:
            raise ServiceError("Grant a positive amount (or a negative one to take units back).")
        reason = grant_reason(reason)
        if len(reason) > REASON_LENGTH:
            raise ServiceError(f"The reason is {len(reason)} characters long; at most "
                               f"{REASON_LENGTH}.")
        await self.store.ensure_player(guild_id, user_id, name)
        try:
            return await self.store.grant(guild_id, user_id, amount, by_user, reason)
        except StoreError as e:
            raise ServiceError(str(e)) from None

    async def audit(
        self, guild_id: int, manage: bool, count: int = 10, user_id: int | None = None
    ) -> list[AuditEntry]:
        """The server's last ``count`` (1-25) grants, newest first (to ``user_id`` only)."""
        if not manage:
            raise ServiceError("Only members with Manage Server can read the audit log.")
        if not 1 <= count <= 25:
            raise ServiceError("Show 1 to 25 grants.")
        return await self.store.audit_log(guild_id, count, user_id)

    async def update_settings(
        self, guild_id: int, manage: bool, **changes: Any
    ) -> ServerSettings:
        if not manage:
            raise ServiceError("Only members with Manage Server can change the server settings.")
        changes = {k: v for k, v in changes.items() if v is not None}
        for key, value in changes.items():
            if isinstance(value, int) and value < 0:
                raise ServiceError(f"{key} cannot be negative.")
        if "default_timer" in changes and not 10 <= changes["default_timer"] <= 600:
            raise ServiceError("The default timer is between 10 and 600 seconds.")
        if not changes:
            return await self.store.get_settings(guild_id)
        try:
            settings = await self.store.update_settings(guild_id, **changes)
        except StoreError as e:
            raise ServiceError(str(e)) from None
        for t in self.open_tables(guild_id):  # (a lowered maximum stake: no more buy-ins)
            over = t.row.stake > settings.max_stake
            if over != t.over_max_stake:
                t.over_max_stake = over
                await self.notifier.table_changed(t)
        return settings
