"""Review of an upgrade: an operator stops an older bot while tables are open (some mid-hand,
some owing a fantasyland), pulls main and starts it on the same database.  Does the current
code resume every table where it was, keep every unit and every past hand readable, and never
crash?

How the databases were made
---------------------------
Each ``tests/bot/data/upgrade/<hash>.sql`` is a text dump of a database built by THAT
commit's own TableService and Store (no Discord), stopped as the bot stops (``shutdown``,
then the store closed)::

    git worktree add /tmp/upgrade-<hash> <hash>
    cd /tmp/upgrade-<hash> && python3.11 -m venv .venv && .venv/bin/pip install -e '.[dev]'
    .venv/bin/python /work/main/tests/bot/data/upgrade/make_dump.py \\
        /work/main/tests/bot/data/upgrade/<hash>.sql
    git worktree remove --force /tmp/upgrade-<hash>

``make_dump.py`` (beside the dumps) says what each holds; the same in every dump, nine
tables in fixed channels of two servers: ofc on a later street with a player sitting out and
a panel draft not confirmed (1001); pineapple with a bot, discards made (1002); chinese with
two of three sets made and a player leaving (1003); a pineapple fantasyland owed between hands
(1004); a closing ofc table in a fantasyland hand set to stay in fantasyland (1005); an ofc
fantasyland hand being played, not set yet (2001); a closed table (2002); a chinese practice
table against a bot (2003); an ofc table its creator left (2004).  Non-default options
(scoring 2-4, stakes 2 and 3, a 90 s clock; strict top and the two-colour deck where the
version had ``/ofc options``), server settings, a grant.  The hands are the service's
autoplay's moves (made as a player's, not as timeouts) and, for the fantasylands, stacked
decks.  A dump is loaded with ``sqlite3``'s ``executescript`` (its first line says the
commit and what it holds; its second sets ``user_version``, which ``iterdump`` leaves out).
The commits, across the schema's and the saved hand's history:

=========  ================  ======  ===================================================
commit     date (UTC)        schema  why
=========  ================  ======  ===================================================
57559ab    2026-11-21 21:28  2       the first day's bot (the earliest saved-hand format)
b1748b0    2026-11-23 03:31  2       the last before migration 003 (``ranked_points``)
bb41790    2026-11-25 06:16  4       the last before 005 (standings); hands save ``away``
135c03d    2026-11-25 10:06  6       the last before 007 (variant standings)
bc50944    2026-11-27 18:42  8       the last before 009 (the recap's index)
c8d1a4b    2026-11-27 22:00  9       yesterday evening's (schema 9; 010 came after)
=========  ================  ======  ===================================================

What is checked, for each dump, with the current code (``Store.open`` migrates it, then
``TableService.recover`` as tests/bot/test_service.py and test_crash.py drive it; the clock
is two minutes after the old bot stopped, as for an upgrade done at once): the schema and the
books (``verify_ledger``, ``ofc-bot check``, ``ofc-bot backup`` of the old file); every open
table open again with the same seats, stacks, options, hand, street, turn, boards and panel
draft, its turn pinged and its unset fantasyland sent again; every hand under way played to
its end by the service's autoplay and settling to zero, the leaver released, the closing
table closed and cashed out, every table closed with every stack back; the owed fantasyland
dealt (the button kept); a clock that ran out meanwhile (grace, then the drafted move); bots
resuming their play; units conserved; every past hand's showdown, replay frames, pictures and
review (``/ofc history hand:``, ``/ofc review``); ``/ofc history`` (the channel's and
``mine``, and its file), ``/ofc recap``, ``/ofc stats`` and every leaderboard against the
stored results and the ledger; the settings; the buttons old messages carry.  The review
found four defects, all with the two oldest dumps (57559ab and b1748b0), all fixed since: a
test whose docstring starts "Was a defect (fixed)" says what happened and what should.

Not covered: the Discord layer end to end (tests/e2e's stand-in) on an upgraded file; states
an old bot leaves only after a crash or a database error (a hand over but not settled, a
failed deal) or after timeouts, surrenders and rebuys (none in the dumps); stake-0 tables
of older bots (which took buy-ins); going back to an older bot (it refuses a migrated file).
"""

from __future__ import annotations

import asyncio
import csv
import io
import itertools
import json
import sqlite3
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot import maintenance
from bot.service import RESUME_GRACE, ServiceError, TableService, TableState
from bot.store import ServerSettings, Store
from bot.store.store import load_migrations
from cogs.presenter import (
    hand_view,
    panel_text,
    past_hand_payload,
    render,
    round_view,
    table_status,
    table_view,
)
from cogs.views import DYNAMIC_ITEMS
from engine import Board, Card, Hand, Rules, parse_cards
from engine.notation import signed_amount
from engine.review import decisions
from renderer import describe_hand, describe_table, render_hand, render_table

DATA = Path(__file__).parent / "data" / "upgrade"
DUMPS = sorted(DATA.glob("*.sql"))
LATEST = load_migrations()[-1][0]
BOT_BASE = 1_000_000
G1, G2 = 10, 11
CLOSING, FANTASYLAND_PLAYED, CLOSED, PRACTICE, CREATOR_LEFT = 1005, 2001, 2002, 2003, 2004
RITA, SAM = 117, 118
STAYS = {"Ks": 0, "Kc": 0, "5h": 0, "7c": 1, "7d": 1, "7h": 1, "8s": 1, "8d": 1,
         "9c": 2, "9d": 2, "9h": 2, "9s": 2, "Ac": 2}
"""make_dump.py's fantasyland setting that stays in fantasyland (the closing table's hand)."""


def _ids(dumps: list[Path]) -> list[str]:
    return [d.stem for d in dumps]


# ------------------------------------------------------------------ the old database, as stored


@dataclass
class OldTable:
    id: int
    guild: int
    channel: int
    status: str
    hand_no: int
    stake: int
    rules: dict[str, Any]
    extra: dict[str, Any]
    seats: list[tuple[int, int, str, bool, bool, bool]]
    """(seat_no, user_id, name, is_bot, sitting_out, leaving) of the seats taken."""
    stacks: dict[int, int]
    hand_id: int | None = None
    hand_number: int | None = None
    state: dict[str, Any] | None = None

    @property
    def engine(self) -> dict[str, Any]:
        assert self.state is not None
        return dict(self.state["engine"])

    def to_act(self) -> set[int]:
        """The hand seats that may act, read from the stored state (not by the engine):
        whose turn it is, and the seats that set a whole hand (chinese, fantasyland) and
        have not."""
        st = self.engine["state"]
        chinese = self.engine["rules"]["variant"] == "chinese"
        out = {int(st["turn"])} if st["turn"] is not None else set()
        out |= {hs for hs, done in enumerate(st["done"])
                if not done and (chinese or self.engine["fantasyland"][hs])}
        return out


@dataclass
class OldHand:
    id: int
    table_id: int
    guild: int
    channel: int
    number: int
    variant: str
    state: dict[str, Any]
    results: list[sqlite3.Row]
    moved: dict[int, int]
    finished_at: float


@dataclass
class Old:
    """What the old bot left, read with plain SQL before the current code opens the file."""

    stopped: float
    schema: int
    tables: dict[int, OldTable] = field(default_factory=dict)  # by channel, open or closing
    closed: dict[int, int] = field(default_factory=dict)  # channel -> table id
    hands: list[OldHand] = field(default_factory=list)  # settled
    owned: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    """(guild, user) -> (balance, units at tables)."""
    given: dict[int, int] = field(default_factory=dict)  # guild -> start balances + grants
    audit: int = 0


def read_old(path: Path) -> Old:
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    try:
        stopped = max(float(db.execute(f"SELECT COALESCE(MAX({c}), 0) FROM {t}").fetchone()[0])
                      for t, c in (("tables", "updated_at"), ("hands", "updated_at"),
                                   ("seats", "joined_at"), ("ledger", "created_at")))
        old = Old(stopped=stopped, schema=int(db.execute("PRAGMA user_version").fetchone()[0]))
        for t in db.execute("SELECT * FROM tables ORDER BY id"):
            if t["status"] == "closed":
                old.closed[t["channel_id"]] = t["id"]
                continue
            seats = [(s["seat_no"], s["user_id"], s["name"], bool(s["is_bot"]),
                      bool(s["sitting_out"]), bool(s["leaving"])) for s in db.execute(
                "SELECT * FROM seats WHERE table_id = ? AND left_at IS NULL ORDER BY seat_no",
                (t["id"],))]
            stacks = {int(r[0]): int(r[1]) for r in db.execute(
                "SELECT user_id, SUM(amount) FROM ledger WHERE table_id = ? AND account = 'stack'"
                " GROUP BY user_id", (t["id"],))}
            table = OldTable(t["id"], t["guild_id"], t["channel_id"], t["status"], t["hand_no"],
                             t["stake"], json.loads(t["rules"]), json.loads(t["extra"]), seats,
                             stacks)
            h = db.execute("SELECT * FROM hands WHERE table_id = ? AND status = 'playing'",
                           (t["id"],)).fetchone()
            if h is not None:
                table.hand_id, table.hand_number = h["id"], h["number"]
                table.state = json.loads(h["state"])
            old.tables[t["channel_id"]] = table
        for h in db.execute("SELECT h.*, t.guild_id AS guild, t.channel_id AS channel FROM hands h"
                            " JOIN tables t ON t.id = h.table_id WHERE h.status = 'done'"
                            " ORDER BY h.id"):
            results = list(db.execute("SELECT * FROM results WHERE hand_id = ? ORDER BY seat_no",
                                      (h["id"],)))
            moved = {int(r[0]): int(r[1]) for r in db.execute(
                "SELECT user_id, amount FROM ledger WHERE hand_id = ? AND kind = 'hand'",
                (h["id"],))}
            old.hands.append(OldHand(h["id"], h["table_id"], h["guild"], h["channel"],
                                     h["number"], json.loads(h["rules"]).get("variant", "ofc"),
                                     json.loads(h["state"]), results, moved,
                                     float(h["finished_at"])))
        for g, u, balance, stacks in db.execute(
                "SELECT guild_id, user_id,"
                " SUM(CASE WHEN account = 'balance' THEN amount ELSE 0 END),"
                " SUM(CASE WHEN account = 'stack' THEN amount ELSE 0 END)"
                " FROM ledger GROUP BY guild_id, user_id"):
            old.owned[(g, u)] = (balance, stacks)
        for g, given in db.execute("SELECT guild_id, SUM(amount) FROM ledger"
                                   " WHERE kind IN ('start', 'grant') GROUP BY guild_id"):
            old.given[g] = given
        old.audit = int(db.execute("SELECT COUNT(*) FROM audit").fetchone()[0])
        return old
    finally:
        db.close()


def load(dump: Path, tmp_path: Path) -> Path:
    """The dump as a fresh SQLite file (what the old bot left on disk)."""
    path = tmp_path / "ofc.sqlite3"
    db = sqlite3.connect(path)
    try:
        db.executescript(dump.read_text(encoding="utf-8"))
    finally:
        db.close()
    return path


# ------------------------------------------------------------------ the current bot on it


class Recorder:
    """What the service tells Discord, with the table of each message."""

    def __init__(self) -> None:
        self.events: list[tuple[str, int, Any]] = []

    async def table_changed(self, t: Any) -> None:
        self.events.append(("table", t.row.channel_id, None))

    async def turn_started(self, t: Any, seats: list[int], requirement: Any) -> None:
        self.events.append(("turn", t.row.channel_id, list(seats)))

    async def fantasyland_dealt(self, t: Any, seat_no: int) -> None:
        self.events.append(("fantasyland", t.row.channel_id, seat_no))

    async def showdown(self, t: Any, result: Any) -> None:
        self.events.append(("showdown", t.row.channel_id, result))

    async def notice(self, t: Any, text: str, *, ping: bool = True) -> None:
        self.events.append(("notice", t.row.channel_id, text))

    def of(self, kind: str, channel: int) -> list[Any]:
        return [x for k, ch, x in self.events if k == kind and ch == channel]


@dataclass
class Bot:
    path: Path
    old: Old
    store: Store
    svc: TableService
    rec: Recorder
    decks: dict[int, list[Card]]
    """The next deal's cards at a channel (stacked by a test), else the seed's."""

    def table(self, channel: int) -> TableState:
        return self.svc.table_in_channel(channel)


class Clock:
    """Two minutes after the old bot stopped, time passing as it does."""

    def __init__(self, stopped: float) -> None:
        self.offset = stopped + 120.0 - time.time()

    def __call__(self) -> float:
        return time.time() + self.offset


async def until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        await asyncio.sleep(0.01)


@pytest.fixture
async def upgraded(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Bot]:
    """The dump's database opened by the current code and its tables recovered (bots wait:
    the tests play their moves by the service's autoplay)."""
    dump: Path = request.param
    path = load(dump, tmp_path)
    old = read_old(path)
    store = await Store.open(path)
    rec = Recorder()
    seeds = (f"upgrade-review-{n}" for n in itertools.count(1))
    decks: dict[int, list[Card]] = {}
    svc = TableService(store, rec, clock=Clock(old.stopped), next_hand_delay=0.01,
                       bot_delay=3600.0, idle_check=3600.0, seed_factory=lambda: next(seeds),
                       deck_factory=lambda t: decks.pop(t.row.channel_id, None))
    await svc.recover()
    try:
        yield Bot(path, old, store, svc, rec, decks)
    finally:
        await svc.shutdown()
        await store.close()


def each_dump(fixture: str = "upgraded") -> pytest.MarkDecorator:
    return pytest.mark.parametrize(fixture, DUMPS, ids=_ids(DUMPS), indirect=True)


async def finish_hand(bot: Bot, channel: int) -> int:
    """Play the hand under way at ``channel`` to its end by the service's autoplay (every
    seat, bots too); the id of the hand played."""
    t = bot.table(channel)
    assert t.hand_row is not None
    hand_id = t.hand_row.id
    for _ in range(200):
        async with t.lock:
            if t.hand is None or t.hand_row is None or t.hand_row.id != hand_id:
                break
            assert not t.hand.is_over
            t.hand.autoplay(t.hand.to_act()[0])
            await bot.svc._after_action(t)
    return hand_id


def raw(path: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return [tuple(r) for r in db.execute(sql, args)]
    finally:
        db.close()


def human_points(h: OldHand) -> dict[int, int]:
    """Each counted human's points against the other humans of the hand (what the README
    says the leaderboards and stats count), from its final boards."""
    settlement = Hand.from_json(h.state["engine"]).settlement
    assert settlement is not None
    users = [int(u) for u in h.state["users"]]
    bots = {r["user_id"] for r in h.results if r["is_bot"]}
    counted = {r["user_id"] for r in h.results if r["counted"] and not r["is_bot"]}
    m = settlement.matrix()
    return {u: sum(m[i][j] for j, v in enumerate(users) if v not in bots)
            for i, u in enumerate(users) if u in counted}


# ------------------------------------------------------------------ the tests

OFC, PINEAPPLE, CHINESE, OWED = 1001, 1002, 1003, 1004
"""make_dump.py's channels in server 10 (CLOSING, 1005, above)."""
CHANNELS = {OFC: G1, PINEAPPLE: G1, CHINESE: G1, OWED: G1, CLOSING: G1,
            FANTASYLAND_PLAYED: G2, CLOSED: G2, PRACTICE: G2, CREATOR_LEFT: G2}
VARIANTS = {OFC: "ofc", PINEAPPLE: "pineapple", CHINESE: "chinese", OWED: "pineapple",
            CLOSING: "ofc", FANTASYLAND_PLAYED: "ofc", CLOSED: "ofc", PRACTICE: "chinese",
            CREATOR_LEFT: "ofc"}
SETTLED = {OFC: 2, PINEAPPLE: 1, CHINESE: 1, OWED: 1, CLOSING: 1, FANTASYLAND_PLAYED: 1,
           CLOSED: 2, PRACTICE: 1, CREATOR_LEFT: 1}
"""The hands each table had settled when the old bot stopped."""
ADMIN = 900
ALICE, BOB, CAROL, DAVE, ERIN, FRANK, GRACE, HEIDI = range(101, 109)
IVAN, JUDY, KATE, LEO, MALLORY, NICK, PEGGY, QUINN = range(109, 117)
TOM = 119
NAMES = {ALICE: "alice", BOB: "bob", CAROL: "carol", DAVE: "dave", ERIN: "erin",
         FRANK: "frank", GRACE: "grace", HEIDI: "heidi", IVAN: "ivan", JUDY: "judy",
         KATE: "kate", LEO: "leo", MALLORY: "mallory", NICK: "nick", PEGGY: "peggy",
         QUINN: "quinn", RITA: "rita", SAM: "sam", TOM: "tom"}
SCHEMAS = {"57559ab": 2, "b1748b0": 2, "bb41790": 4, "135c03d": 6, "bc50944": 8, "c8d1a4b": 9}
"""The schema version each commit left (the module's table)."""
WITH_OPTIONS = {"bb41790", "135c03d", "bc50944", "c8d1a4b"}
"""The commits with ``/ofc options`` (``TableService.set_options``): make_dump.py set the
pineapple table's strict top and two-colour deck there."""
IDLE_HOURS_FROM = 6
"""The schema that brought ``idle_hours`` (migration 006): make_dump.py set 48 where it was."""


def _panel_ids(seat: int) -> tuple[str, ...]:
    """The ofc table's message button and the panel of the player to act there (table 1, hand
    3, their third decision), as the old bot made them."""
    base = f"1:{seat}:3:2"
    return ("ofc:open:1", f"ofc:ps:{base}", *(
        f"ofc:pb:{base}:{action}"
        for action in ("top", "middle", "bottom", "discard", "undo", "confirm")))


_SURRENDER = ("ofc:sur:3:108:2:yes", "ofc:sur:3:108:2:no")  # heidi's, at the chinese table
_PAST = ("ofc:rps:1:2", "ofc:rv:1:2", "ofc:rp:1:2:1:f", "ofc:rp:1:2:1:p", "ofc:rp:1:2:3:n",
         "ofc:rp:1:2:0:s", "ofc:mh")  # hand 2 of the ofc table shown again, /ofc history mine
OLD_CUSTOM_IDS: dict[str, tuple[str, ...]] = {
    "57559ab": _panel_ids(1),
    "b1748b0": _panel_ids(0),
    "bb41790": (*_panel_ids(0), *_SURRENDER),
    "135c03d": (*_panel_ids(0), *_SURRENDER),
    "bc50944": (*_panel_ids(0), *_SURRENDER, *_PAST),
    "c8d1a4b": (*_panel_ids(0), *_SURRENDER, *_PAST),
}
"""Custom ids each old bot put on its messages, for the tables of its dump (``git show
<commit>:cogs/views.py``): the table message's *Open my panel* (``ofc:open:<table>``), the
panel's menu and buttons (``ofc:ps:`` / ``ofc:pb:<table>:<seat>:<hand>:<step>[:<action>]``),
from bb41790 the surrender question (``ofc:sur:<table>:<user>:<hand>:<yes|no>``), from
bc50944 a past hand's replay, *Replay* under a showdown, *Review my play* and the menu of
``/ofc history mine`` (``ofc:rp:<table>:<hand>:<frame>:<role>``, ``ofc:rps:``, ``ofc:rv:``,
``ofc:mh``)."""
OLD_ITEMS = {"open": "OpenPanelButton", "ps": "PanelSelect", "pb": "PanelButton",
             "sur": "SurrenderButton", "rp": "ReplayButton", "rps": "ReplayFromShowdown",
             "rv": "ReviewButton", "mh": "MyHandsSelect"}
"""The old views' class of each kind of custom id (by its second part)."""
PNG = b"\x89PNG\r\n\x1a\n"


def moved_in(bot: Bot, hands: Collection[int], guild: int, user: int) -> int:
    """The units ``user`` won or lost in ``hands`` (hand ids) in ``guild``, by the ledger."""
    return sum(amount for hand_id, amount in raw(
        bot.path, "SELECT hand_id, amount FROM ledger WHERE kind = 'hand' AND user_id = ?"
        " AND guild_id = ?", user, guild) if hand_id in hands)


def owned_by_hand(bot: Bot, guild: int, user: int, variant: str | None) -> list[int]:
    """The player's balance history by hand as ``/ofc stats`` gives it, from the ledger: the
    units owned (balance and stacks) right before the oldest of their last 30 counted hands
    (of ``variant``'s, if given), then right after each."""
    hands = [(seq, finished, hand_id) for hand_id, seq, finished, rules in raw(
        bot.path, "SELECT h.id, h.ledger_seq, h.finished_at, h.rules FROM results r"
        " JOIN hands h ON h.id = r.hand_id WHERE r.guild_id = ? AND r.user_id = ?"
        " AND r.counted = 1 AND r.is_bot = 0 AND h.status = 'done'", guild, user)
        if variant in (None, json.loads(rules).get("variant", "ofc"))]
    last = sorted(hands)[-30:]
    if not last:
        return []
    ledger = raw(bot.path, "SELECT id, amount FROM ledger WHERE guild_id = ? AND user_id = ?",
                 guild, user)
    after = [sum(amount for row, amount in ledger if row <= seq) for seq, _, _ in last]
    return [after[0] - moved_in(bot, {last[0][2]}, guild, user), *after]


def wallets(bot: Bot) -> dict[tuple[int, int], tuple[int, int]]:
    """(balance, units at tables) of every player the old bot left, by the ledger now."""
    return {(g, u): (balance, stacks) for g, u, balance, stacks in raw(
        bot.path, "SELECT guild_id, user_id,"
        " SUM(CASE WHEN account = 'balance' THEN amount ELSE 0 END),"
        " SUM(CASE WHEN account = 'stack' THEN amount ELSE 0 END)"
        " FROM ledger GROUP BY guild_id, user_id")}


def state_of(table: OldTable) -> dict[str, Any]:
    """The stored state of the hand the old bot left under way at ``table``."""
    assert table.state is not None
    return table.state


def each_dump_alone() -> pytest.MarkDecorator:
    """The dump itself (a test that opens it its own way)."""
    return pytest.mark.parametrize("dump", DUMPS, ids=_ids(DUMPS))


async def play_until_closed(bot: Bot, channel: int, played: set[int]) -> None:
    """Play the hands of a closing table (by the service's autoplay) until it has closed;
    the ids of the hands played are added to ``played``."""
    t = bot.table(channel)
    assert t.row.status == "closing"
    for _ in range(5):
        await until(lambda: t.id not in bot.svc.tables or (
            t.hand is not None and not t.hand.is_over))
        if t.id not in bot.svc.tables:
            return
        played.add(await finish_hand(bot, channel))
    raise AssertionError(f"the closing table at {channel} did not close")


@each_dump_alone()
async def test_the_dump_is_what_its_commit_left(dump: Path, tmp_path: Path) -> None:
    """The dump loads and is the database its commit left, as make_dump.py says: its schema,
    the nine tables in their channels and servers, their players, hands and options, the
    sitting-out player, the leaver, the panel draft, the owed fantasyland, the grant."""
    first, second = dump.read_text(encoding="utf-8").splitlines()[:2]
    assert first.startswith(f"-- Made by tests/bot/data/upgrade/make_dump.py at commit "
                            f"{dump.stem} ")
    path = load(dump, tmp_path)
    old = read_old(path)
    assert old.schema == SCHEMAS[dump.stem] <= LATEST
    assert f"(schema {old.schema}, 18 hands)" in first and second == (
        f"PRAGMA user_version = {old.schema};")
    assert raw(path, "SELECT status, COUNT(*) FROM hands GROUP BY status ORDER BY status") == [
        ("done", 11), ("playing", 7)]
    # the tables, where make_dump.py put them
    assert set(old.tables) == set(CHANNELS) - {CLOSED} and set(old.closed) == {CLOSED}
    assert {ch: (t.guild, t.rules["variant"]) for ch, t in old.tables.items()} == {
        ch: (CHANNELS[ch], VARIANTS[ch]) for ch in old.tables}
    assert {ch: t.status for ch, t in old.tables.items()} == {
        ch: "closing" if ch == CLOSING else "open" for ch in old.tables}
    assert {ch: {u for _, u, _, is_bot, _, _ in t.seats if not is_bot}
            for ch, t in old.tables.items()} == {
        OFC: {ALICE, BOB, CAROL}, PINEAPPLE: {DAVE, ERIN}, CHINESE: {FRANK, GRACE, HEIDI},
        OWED: {IVAN, JUDY}, CLOSING: {MALLORY, NICK}, FANTASYLAND_PLAYED: {KATE, LEO},
        PRACTICE: {QUINN}, CREATOR_LEFT: {SAM, TOM}}
    assert {ch: sum(is_bot for *_, is_bot, _, _ in t.seats) for ch, t in old.tables.items()} == {
        ch: int(ch in (PINEAPPLE, PRACTICE)) for ch in old.tables}
    for ch, t in old.tables.items():
        assert all(NAMES.get(u, name) == name for _, u, name, *_ in t.seats), ch
    assert {(h.channel, h.number) for h in old.hands} == {
        (ch, n) for ch, count in SETTLED.items() for n in range(1, count + 1)}
    assert all(h.guild == CHANNELS[h.channel] and h.variant == VARIANTS[h.channel]
               for h in old.hands)
    assert {x["user_id"] for h in old.hands if h.channel == CLOSED for x in h.results} == {
        ALICE, PEGGY}
    # the hands under way: their numbers and streets
    assert {ch: (t.hand_no, t.hand_number) for ch, t in old.tables.items()} == {
        ch: (SETTLED[ch] if ch == OWED else SETTLED[ch] + 1,
             None if ch == OWED else SETTLED[ch] + 1) for ch in old.tables}
    ofc = old.tables[OFC]
    assert (ofc.stake, ofc.rules["scoring"], ofc.rules["timer"]) == (2, "2-4", 90)
    assert ofc.engine["state"]["street"] == 3
    assert [(u, out) for _, u, _, _, out, _ in ofc.seats] == [
        (ALICE, False), (BOB, False), (CAROL, True)]
    assert CAROL not in state_of(ofc)["users"]  # (sitting out: not dealt in)
    (hs,) = ofc.to_act()
    assert len(state_of(ofc)["drafts"][str(hs)]["assigned"]) == 1  # a card on a row, not confirmed
    pineapple = old.tables[PINEAPPLE]
    assert pineapple.engine["state"]["street"] == 3 and any(pineapple.engine["state"]["discards"])
    assert (pineapple.rules["strict_top"], pineapple.extra.get("deck", "four")) == (
        (True, "two") if dump.stem in WITH_OPTIONS else (False, "four"))
    chinese = old.tables[CHINESE]
    done = dict(zip(state_of(chinese)["users"], chinese.engine["state"]["done"], strict=True))
    assert done == {FRANK: True, GRACE: True, HEIDI: False}
    assert [u for _, u, _, _, _, leaving in chinese.seats if leaving] == [GRACE]
    owed = old.tables[OWED]
    assert owed.state is None  # (between hands: stopped before the next deal)
    assert list(owed.extra["fantasyland"].values()) == [14]
    assert sorted(owed.extra["fantasyland_owed_by"]) == [0, 1]
    closing = old.tables[CLOSING]
    assert closing.stake == 3 and any(closing.engine["fantasyland"])
    fl = closing.engine["fantasyland"]
    assert [closing.engine["state"]["done"][hs] for hs, c in enumerate(fl) if c] == [True]
    assert closing.engine["state"]["street"] == 2
    played = old.tables[FANTASYLAND_PLAYED]
    fl = played.engine["fantasyland"]
    assert [played.engine["state"]["done"][hs] for hs, c in enumerate(fl) if c] == [False]
    assert played.engine["state"]["street"] == 3
    assert state_of(old.tables[PRACTICE])["practice"]
    assert not next(h for h in old.hands if h.channel == PRACTICE).results[0]["counted"]
    left = old.tables[CREATOR_LEFT]
    assert RITA not in {u for _, u, *_ in left.seats} and left.stacks.get(RITA, 0) == 0
    assert any(x["user_id"] == RITA for h in old.hands if h.channel == CREATOR_LEFT
               for x in h.results)
    # the books: every hand moved units that sum to zero, the grant, nothing lost
    assert all(sum(h.moved.values()) == 0 for h in old.hands)
    assert old.audit == 1 and raw(path, "SELECT guild_id, by_user_id, user_id, amount FROM audit"
                                  ) == [(G2, ADMIN, KATE, 500)]
    players = {g: sum(1 for gg, _ in old.owned if gg == g) for g in (G1, G2)}
    assert players == {G1: 12, G2: 8}
    assert old.given == {G1: 1000 * players[G1], G2: 2000 * players[G2] + 500}
    assert {g: sum(b + s for (gg, _), (b, s) in old.owned.items() if gg == g)
            for g in (G1, G2)} == old.given


@each_dump()
async def test_the_upgraded_database_is_migrated_and_its_books_are_clean(upgraded: Bot) -> None:
    """``Store.open`` brings the old file to the current schema; its books are clean
    (``verify_ledger``), and ``ofc-bot check`` calls the file healthy, with what it holds."""
    bot = upgraded
    assert bot.old.schema <= LATEST
    assert await bot.store.schema_version() == LATEST
    assert raw(bot.path, "PRAGMA user_version") == [(LATEST,)]
    assert await bot.store.verify_ledger() == []
    for guild in (G1, G2):
        assert await bot.store.total_units(guild) == (bot.old.given[guild],) * 2
    contents, problems = await asyncio.to_thread(maintenance.check, bot.path)
    assert problems == []
    assert contents is not None and (contents.schema, contents.tables, contents.hands) == (
        LATEST, 9, 11)
    assert contents.players == len(bot.old.owned)


@each_dump()
async def test_every_open_table_resumes_where_it_was(upgraded: Bot) -> None:
    """Every table the old bot left open (or closing) is open again: the same seats, stacks
    and options, the same hand at the same street, the same player to act (read from the
    stored state, not by the engine), the same boards, cards in hand and discards, the same
    clocks (one that ran out meanwhile given the grace), and the panel draft; the table that
    owed a fantasyland deals it."""
    bot = upgraded
    assert {t.row.channel_id for t in bot.svc.tables.values()} == set(bot.old.tables)
    await until(lambda: bot.table(OWED).hand is not None)
    now = bot.svc.clock()
    for channel, old in bot.old.tables.items():
        t = bot.table(channel)
        assert (t.id, t.row.guild_id, t.row.status, t.row.stake) == (
            old.id, old.guild, old.status, old.stake), channel
        assert [(s.seat_no, s.user_id, s.name, s.is_bot, s.sitting_out, s.leaving)
                for s in t.seats] == old.seats, channel
        assert {s.user_id: s.stack for s in t.humans} == {
            u: old.stacks.get(u, 0) for _, u, _, bot_seat, _, _ in old.seats if not bot_seat}
        assert t.table_rules == Rules.from_json(old.rules), channel
        assert t.row.rules == old.rules and t.four_colour == (old.extra.get("deck") != "two")
        if old.state is None:  # (the owed fantasyland: dealt at once)
            assert t.hand is not None and t.row.hand_no == old.hand_no + 1, channel
            continue
        state = old.state
        assert t.hand is not None and t.hand_row is not None, channel
        assert (t.hand_row.id, t.row.hand_no) == (old.hand_id, old.hand_number), channel
        st = old.engine["state"]
        assert (t.hand.street, t.hand.turn, list(t.hand.done)) == (
            st["street"], st["turn"], st["done"]), channel
        assert set(t.hand.to_act()) == old.to_act(), channel
        assert [b.to_json() for b in t.hand.boards] == st["boards"], channel
        assert [[str(c) for c in p] for p in t.hand.pending] == [
            [str(Card(c)) for c in p] for p in st["pending"]], channel
        assert [[str(c) for c in d] for d in t.hand.discards] == [
            [str(Card(c)) for c in d] for d in st["discards"]], channel
        assert list(t.hand.fantasyland) == old.engine["fantasyland"]
        assert len(t.hand.log) == len(old.engine["log"]) and t.hand.seed == old.engine["seed"]
        assert t.hand_seats == state["seats"]
        assert [s.user_id for no in t.hand_seats if (s := t.seat_by_no(no)) is not None
                ] == state["users"], channel
        assert t.hand_practice == bool(state["practice"])
        deadlines = {int(k): float(v) for k, v in state["deadlines"].items()}
        assert set(t.deadlines) == set(deadlines), channel
        for hs, deadline in deadlines.items():
            if deadline > now:
                assert t.deadlines[hs] == pytest.approx(deadline), channel
            else:  # (ran out while the bot was down: the grace)
                assert t.deadlines[hs] >= now + RESUME_GRACE - 5, channel
        assert {hs: ([str(c) for c in d.selected], [(str(c), r) for c, r in d.assigned],
                     d.presses) for hs, d in t.drafts.items()} == {
            int(hs): (d["selected"], [(c, r) for c, r in d["assigned"]], d["presses"])
            for hs, d in state["drafts"].items()}, channel
    assert bot.table(OFC).drafts  # (the panel draft, kept)


@each_dump()
async def test_whose_turn_it_is_is_pinged_again_and_an_unset_fantasyland_sent_again(
    upgraded: Bot
) -> None:
    """At every table the channel is told that play resumes; whoever's turn it is is pinged
    again (a human, not a bot, not a fantasyland set), and a fantasyland hand not set yet is
    sent to its player again (what was sent just before the stop may not have gone out): the
    owed fantasyland's deal pings and sends the same way."""
    bot = upgraded
    await until(lambda: bot.table(OWED).hand is not None)
    want: dict[int, tuple[list[list[int]], list[int]]] = {}
    for channel, old in bot.old.tables.items():
        t = bot.table(channel)
        assert t.hand is not None
        fl = list(t.hand.fantasyland)
        acting = sorted(t.hand.to_act()) if old.state is None else sorted(old.to_act())
        bots = {s.seat_no for s in t.bots}
        humans = [hs for hs in acting if t.hand_seats[hs] not in bots]
        turn = sorted(t.hand_seats[hs] for hs in humans if not fl[hs])
        want[channel] = ([turn] if turn else [], sorted(t.hand_seats[hs] for hs in humans
                                                        if fl[hs]))

    def told() -> dict[int, tuple[list[list[int]], list[int]]]:
        return {ch: ([sorted(seats) for seats in bot.rec.of("turn", ch)],
                     sorted(bot.rec.of("fantasyland", ch))) for ch in bot.old.tables}

    await until(lambda: told() == want)
    assert told() == want
    for channel in bot.old.tables:
        assert bot.rec.of("notice", channel)[0] == (
            "The bot restarted: play resumes where it was."), channel
        assert not any("Time ran out" in text for text in bot.rec.of("notice", channel))
        assert bot.rec.of("table", channel)
    assert bot.rec.of("fantasyland", FANTASYLAND_PLAYED)  # (the one being played: sent again)
    assert bot.rec.of("fantasyland", OWED)  # (the owed one, dealt)
    assert not bot.rec.of("fantasyland", CLOSING)  # (set before the stop: nothing to send)


@each_dump()
async def test_the_owed_fantasyland_is_dealt_with_its_cards(upgraded: Bot) -> None:
    """The pineapple table stopped between the hand that sent a player to fantasyland and
    the next deal: the current bot deals that hand at once, the 14 cards to the player who
    earned them, the other player (who played the hand that earned it) dealt in too, the
    button kept where it was for the hand that earned it (the fantasyland option), and
    the fantasyland spent."""
    bot = upgraded
    t = bot.table(OWED)
    old = bot.old.tables[OWED]
    await until(lambda: t.hand is not None)
    assert t.hand is not None and t.row.hand_no == old.hand_no + 1 == 2
    earner = int(next(iter(old.extra["fantasyland"])))
    assert sorted(t.hand_seats) == [0, 1]
    hs = t.hand_seat_of(earner)
    assert hs is not None and t.hand.fantasyland[hs] == 14
    req = t.hand.requirement(hs)
    assert req is not None and req.is_set and len(req.cards) == 14 and req.discard == 1
    other = 1 - hs
    assert not t.hand.fantasyland[other] and t.hand.turn == other
    assert len(t.hand.pending[other]) == 5
    earned = next(h for h in bot.old.hands if h.channel == OWED)
    assert t.hand_seats[t.hand.button] == earned.state["seats"][earned.state["engine"]["button"]]
    assert t.fantasyland_earned == {} and not t.row.extra.get("fantasyland_owed_by")
    await until(lambda: bool(bot.rec.of("fantasyland", OWED)))
    assert bot.rec.of("fantasyland", OWED) == [earner]
    hand_id = await finish_hand(bot, OWED)
    assert raw(bot.path, "SELECT status FROM hands WHERE id = ?", hand_id) == [("done",)]
    assert moved_in(bot, {hand_id}, G1, IVAN) + moved_in(bot, {hand_id}, G1, JUDY) == 0


@each_dump()
async def test_every_hand_under_way_plays_to_its_end_and_settles_to_zero(upgraded: Bot) -> None:
    """Every hand the old bot left under way (and the owed fantasyland) plays to its end by
    the service's autoplay and settles: its units sum to zero, every seat dealt in has its
    result, the books stay clean.  grace, who asked to leave during the chinese hand, goes
    with her stack; the closing table deals the fantasyland its hand earned, then closes
    and gives every stack back."""
    bot = upgraded
    await until(lambda: bot.table(OWED).hand is not None)
    played: set[int] = set()
    tables = {ch: bot.table(ch) for ch in bot.old.tables}
    for channel, t in tables.items():
        assert t.hand is not None
        dealt = len(t.hand_seats)
        hand_id = await finish_hand(bot, channel)
        played.add(hand_id)
        assert raw(bot.path, "SELECT status FROM hands WHERE id = ?", hand_id) == [("done",)]
        assert raw(bot.path, "SELECT COUNT(*) FROM results WHERE hand_id = ?", hand_id) == [
            (dealt,)], channel
        assert raw(bot.path, "SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE hand_id = ?"
                   " AND kind = 'hand'", hand_id) == [(0,)], channel
    await play_until_closed(bot, CLOSING, played)
    assert raw(bot.path, "SELECT status, hand_no FROM tables WHERE channel_id = ?", CLOSING) == [
        ("closed", bot.old.tables[CLOSING].hand_no + 1)]  # (after the fantasyland hand)
    chinese = tables[CHINESE]
    await until(lambda: chinese.seat_of_user(GRACE) is None)
    assert chinese.seat_of_user(GRACE) is None
    now = wallets(bot)
    for user in (GRACE, MALLORY, NICK):  # (cashed out: their stacks back in their balance)
        balance, stack = bot.old.owned[(G1, user)]
        assert now[(G1, user)] == (balance + stack + moved_in(bot, played, G1, user), 0), user
    assert await bot.store.verify_ledger() == []
    for guild in (G1, G2):
        assert await bot.store.total_units(guild) == (bot.old.given[guild],) * 2


@each_dump()
async def test_balances_and_stacks_are_as_they_were(upgraded: Bot) -> None:
    """Every player's balance and units at tables are what the old bot left (``/ofc
    balance``, ``/ofc stats``), every stack at its table; the grant is in the audit log."""
    bot = upgraded
    names = {(g, u): name for g, u, name in raw(bot.path,
                                                "SELECT guild_id, user_id, name FROM players")}
    assert set(names) == set(bot.old.owned)
    for (guild, user), owned in bot.old.owned.items():
        assert await bot.svc.balance(guild, user, names[(guild, user)]) == owned, (guild, user)
        stats = await bot.svc.stats(guild, user, names[(guild, user)])
        assert (stats.balance, stats.in_play) == owned
    assert wallets(bot) == bot.old.owned
    for channel, old in bot.old.tables.items():
        t = bot.table(channel)
        for seat in t.humans:
            assert seat.stack == old.stacks[seat.user_id] == await bot.store.stack(
                t.id, seat.user_id), (channel, seat.user_id)
    (grant,) = await bot.svc.audit(G2, True)
    assert (grant.by_user_id, grant.user_id, grant.amount) == (ADMIN, KATE, 500)
    assert await bot.svc.audit(G1, True) == []


@each_dump()
async def test_a_sitting_out_player_stays_out_and_can_sit_in(upgraded: Bot) -> None:
    """carol sat out at the ofc table before the stop: after the upgrade she is still out
    (not dealt into the next hand, her stack untouched) until ``/ofc sitin``, then dealt in."""
    bot = upgraded
    t = bot.table(OFC)
    carol = t.seat_of_user(CAROL)
    assert carol is not None and carol.sitting_out and t.hand_seat_of(carol.seat_no) is None
    view = table_view(t, bot.svc.clock())
    assert next(s for s in view.seats if s.name == "carol").status == "sitting out"
    stack = carol.stack
    number = t.row.hand_no
    await finish_hand(bot, OFC)
    await until(lambda: t.hand is not None and t.row.hand_no == number + 1)
    assert t.hand is not None and t.row.hand_no == number + 1
    assert t.hand_seat_of(carol.seat_no) is None and len(t.hand_seats) == 2
    text = await bot.svc.sit_out(OFC, CAROL, False)
    assert text.startswith("Welcome back") and "next hand" in text
    seat = t.seat_of_user(CAROL)
    assert seat is not None and not seat.sitting_out and seat.stack == stack
    await finish_hand(bot, OFC)
    await until(lambda: t.hand is not None and t.row.hand_no == number + 2)
    assert t.hand is not None and t.hand_seat_of(seat.seat_no) is not None
    assert len(t.hand_seats) == 3


@each_dump_alone()
async def test_a_bot_resumes_its_own_play(dump: Path, tmp_path: Path) -> None:
    """The bots play on by themselves after the upgrade (here with a short thinking delay):
    the pineapple table's bot plays its own street when its turn comes (at once where the old
    bot stopped on it), the practice table's bot sets its chinese hand; no bot is pinged."""
    path = load(dump, tmp_path)
    old = read_old(path)
    store = await Store.open(path)
    rec = Recorder()
    svc = TableService(store, rec, clock=Clock(old.stopped), next_hand_delay=3600.0,
                       bot_delay=0.05, idle_check=3600.0)
    try:
        await svc.recover()
        t = svc.table_in_channel(PINEAPPLE)
        (seat,) = t.bots
        hs = t.hand_seat_of(seat.seat_no)
        assert hs is not None and t.hand is not None
        step = svc.step_of(t, hs)
        for _ in range(6):  # the humans play (by the autoplay) until the bot's turn
            if t.hand.may_act(hs):
                break
            async with t.lock:
                t.hand.autoplay(t.hand.to_act()[0])
                await svc._after_action(t)
        assert t.hand.may_act(hs) and svc.step_of(t, hs) == step
        await until(lambda: svc.step_of(t, hs) > step)
        assert svc.step_of(t, hs) == step + 1 and not t.hand.may_act(hs)
        move = [a for a in t.hand.log if a.seat == hs][-1]
        assert not getattr(move, "auto", False) and not t.hand.autoplayed[hs]
        practice = svc.table_in_channel(PRACTICE)
        (seat,) = practice.bots
        bhs = practice.hand_seat_of(seat.seat_no)
        assert bhs is not None and practice.hand is not None
        await until(lambda: practice.hand is not None and practice.hand.done[bhs])
        assert practice.hand.done[bhs] and not practice.hand.autoplayed[bhs]
        assert not practice.hand.is_over  # (quinn's set is still to come)
        for channel in (PINEAPPLE, PRACTICE):
            table = svc.table_in_channel(channel)
            bots = {s.seat_no for s in table.bots}
            assert not any(bots & set(seats) for seats in rec.of("turn", channel))
    finally:
        await svc.shutdown()
        await store.close()


@each_dump()
async def test_every_past_hand_shows_again_as_it_was_settled(upgraded: Bot) -> None:
    """``/ofc history hand:`` shows every hand the old bot settled again as its showdown
    was: the players, points, units and fantasylands of its results, its table's stake and
    deck, the picture and text; a hand played round by round has its replay, whose last
    frame is the final boards."""
    bot = upgraded
    for h in bot.old.hands:
        past = await bot.svc.past_hand_at(h.guild, h.table_id, h.number)
        assert past == await bot.svc.past_hand(h.channel, h.number)
        r = past.result
        users = [int(u) for u in h.state["users"]]
        assert (r.hand_no, list(r.user_ids), list(r.seat_nos)) == (
            h.number, users, [int(x) for x in h.state["seats"]])
        assert list(r.names) == h.state["engine"]["names"]
        by_user = {x["user_id"]: x for x in h.results}
        assert [by_user[u]["points"] for u in users] == list(r.settlement.totals)
        assert [bool(by_user[u]["fouled"]) for u in users] == list(r.settlement.fouled)
        assert [bool(by_user[u]["fantasyland"]) for u in users] == [
            bool(c) for c in r.fantasyland_next]
        assert [bool(by_user[u]["is_bot"]) for u in users] == list(r.bots)
        assert r.practice == (not any(x["counted"] for x in h.results))
        if r.practice:
            assert r.units is None and h.moved == {}
        else:
            assert r.units is not None
            assert [h.moved.get(u, 0) for u in users] == list(r.units)
            assert [by_user[u]["units"] for u in users if not by_user[u]["is_bot"]] == [
                h.moved.get(u, 0) for u in users if not by_user[u]["is_bot"]]
        table = bot.old.tables.get(h.channel)
        stake = table.stake if table is not None else raw(
            bot.path, "SELECT stake FROM tables WHERE id = ?", h.table_id)[0][0]
        assert (past.stake, past.closed, past.table_id, past.channel_id) == (
            stake, h.channel == CLOSED, h.table_id, h.channel)
        assert past.four_colour == (table is None or table.extra.get("deck") != "two")
        assert past.finished_at == h.finished_at
        assert past.players == {u for u in users if not by_user[u]["is_bot"]}
        final = [Board.from_json(b) for b in h.state["engine"]["state"]["boards"]]
        if h.variant == "chinese":
            assert past.rounds == ()
        else:
            assert len(past.rounds) == (9 if h.variant == "ofc" else 5)
            assert [Board.from_json(s["board"]) for s in past.rounds[-1].view["seats"]] == final
        heading = f"Hand #{h.number}:"
        texts, picture = await past_hand_payload(past, 0, heading)
        assert texts[0].startswith(f"{heading}\n🃏 **Showdown — hand #{h.number}**")
        text = "\n".join(texts)
        assert all(name in text for name in r.names)
        assert picture.filename == f"showdown-hand-{h.number}.png"
        assert picture.fp.read().startswith(PNG) and picture.description
        for frame in (1, len(past.rounds)) if past.rounds else ():
            texts, picture = await past_hand_payload(past, frame, heading)
            assert texts[0].startswith(f"Hand #{h.number} — round {frame} of "
                                       f"{len(past.rounds)} (replay):")
            assert picture.fp.read().startswith(PNG)


@each_dump()
async def test_history_recap_and_my_hands_read_with_the_stored_numbers(upgraded: Bot) -> None:
    """``/ofc history`` (the channel's: its hands and each seat's result as stored, the
    points against humans worked out for the hands with a bot), ``/ofc recap`` (each
    player's points, units and hands), ``/ofc history mine`` (every hand of the player in
    the server, newest first) and its file (one row per hand, with the rows set)."""
    bot = upgraded
    for channel in CHANNELS:
        hands = sorted((h for h in bot.old.hands if h.channel == channel),
                       key=lambda h: -h.number)
        stored, closed, stake = await bot.svc.history(channel, 25)
        assert closed == (channel == CLOSED)
        assert stake == (bot.old.tables[channel].stake if channel in bot.old.tables else 1)
        assert [r.number for r, _ in stored] == [h.number for h in hands], channel
        for (hand_row, results), h in zip(stored, hands, strict=True):
            assert hand_row.id == h.id and hand_row.status == "done"
            with_bots = any(x["is_bot"] for x in h.results)
            ranked = human_points(h)
            assert [(x.user_id, x.seat_no, x.name, x.points, x.units, x.fouled, x.fantasyland,
                     x.is_bot, x.counted) for x in results] == [
                (x["user_id"], x["seat_no"], x["name"], x["points"], x["units"],
                 bool(x["fouled"]), bool(x["fantasyland"]), bool(x["is_bot"]),
                 bool(x["counted"])) for x in h.results], (channel, h.number)
            if with_bots:  # (those of the oldest bots' hands: worked out by migration 010)
                assert {x.user_id: x.ranked_points for x in results} == {
                    x.user_id: ranked.get(x.user_id) for x in results}, (channel, h.number)
            else:
                assert all(x.ranked_points in (None, x.points) for x in results)
        text = await bot.svc.recap(channel)
        assert text.startswith("📋 **Recap**" if channel == CLOSED else
                               "📋 **This table so far**")
        heading, *lines = text.split("\n")
        assert f"{len(hands)} hand" in heading
        sums: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for h in hands:
            for x in h.results:
                if not x["is_bot"]:
                    w = sums[x["name"]]
                    w[0] += x["points"]
                    w[1] += h.moved.get(x["user_id"], 0)
                    w[2] += 1
        for name, (points, units, count) in sums.items():
            (line,) = [line for line in lines if f" {name} " in line]
            assert f"{name} {signed_amount(points, 'point')}" in line, (channel, line)
            assert f" · {count} hand" in line and (
                channel == PRACTICE or signed_amount(units, "unit") in line), (channel, line)
    players: dict[tuple[int, int], list[OldHand]] = defaultdict(list)
    for h in bot.old.hands:
        for x in h.results:
            if not x["is_bot"]:
                players[(h.guild, x["user_id"])].append(h)
    for (guild, user), hands in players.items():
        mine = await bot.svc.player_hands(guild, user, 25)
        assert sorted((p.table_id, p.number) for p in mine) == sorted(
            (h.table_id, h.number) for h in hands)
        assert [p.finished_at for p in mine] == sorted((p.finished_at for p in mine),
                                                       reverse=True)
        text, count, more = await bot.svc.export_hands(guild, user)
        rows = list(csv.DictReader(io.StringIO(text)))
        assert count == len(rows) == len(hands) and not more
        for row in rows:
            assert row["natural"] or row["surrendered"] == "1" or (
                row["top"] and row["middle"] and row["bottom"]), (guild, user, row)


@each_dump()
async def test_leaderboards_and_stats_match_the_results(upgraded: Bot) -> None:
    """Every board (each key, each period, all games and each) reads; units, hands and
    fantasylands are the ledger's and the results' (the points: the next test); ``/ofc
    stats`` gives each player their hands, units, fouls, balance and units at tables."""
    bot = upgraded
    for guild in (G1, G2):
        for by in ("units", "points", "hands", "fantasylands", "points_per_hand"):
            for period in ("day", "week", "month", "all"):
                for variant in (None, "ofc", "pineapple", "chinese"):
                    await bot.svc.leaderboard(guild, by, period, 25, variant)
        for variant in (None, "ofc", "pineapple", "chinese"):
            want: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
            for h in bot.old.hands:
                if h.guild != guild or variant not in (None, h.variant):
                    continue
                for x in h.results:
                    if x["counted"] and not x["is_bot"]:
                        w = want[x["user_id"]]
                        w[0] += h.moved.get(x["user_id"], 0)
                        w[1] += 1
                        w[2] += x["fantasyland"]
                        w[3] += x["fouled"] and not x["surrendered"]
            for period in ("all", "month"):
                board = await bot.svc.leaderboard(guild, "units", period, 25, variant)
                assert {e.user_id: [e.units, e.hands, e.fantasylands] for e in board} == {
                    u: w[:3] for u, w in want.items()}, (guild, variant, period)
            for user, w in want.items():
                stats = await bot.svc.stats(guild, user, "x", variant)
                assert [stats.units, stats.hands, stats.fantasylands, stats.fouls] == w
                assert (stats.balance, stats.in_play) == bot.old.owned[(guild, user)]
                assert stats.balance_history == owned_by_hand(bot, guild, user, variant)


@each_dump()
async def test_a_panel_draft_made_before_the_stop_is_kept_and_confirms(upgraded: Bot) -> None:
    """The player to act at the ofc table had picked a card and pressed a row in the panel
    (not confirmed) when the bot stopped: the panel shows it again, and Confirm plays it."""
    bot = upgraded
    t = bot.table(OFC)
    old = bot.old.tables[OFC]
    (hs,) = old.to_act()
    user = int(state_of(old)["users"][hs])
    ((card, row),) = state_of(old)["drafts"][str(hs)]["assigned"]
    name = ("top", "middle", "bottom")[row]
    panel = bot.svc.panel(t.id, user)
    assert panel.draft.assigned == [(Card(card), row)] and not panel.draft.selected
    assert (panel.hand_no, panel.step) == (
        old.hand_number, sum(1 for a in old.engine["log"] if a["seat"] == hs))
    assert panel.requirement is not None and Card(card) in panel.requirement.cards
    assert Card(card) not in panel.remaining
    assert f"Chosen so far: {name}: {card}" in panel_text(panel, "ofc")
    assert (Card(card), name) in hand_view(panel, "ofc").selected
    state, message = await bot.svc.panel_action(t.id, user, panel.seat_no, panel.hand_no,
                                                panel.step, "confirm")
    assert message == f"Placed {card} {name}."
    assert t.hand is not None and Card(card) in t.hand.boards[hs].rows[row]
    move = [a for a in t.hand.log if a.seat == hs][-1]
    assert getattr(move, "placements", None) == ((Card(card), row),)
    assert not getattr(move, "auto", True) and hs not in t.drafts
    assert state is not None and state.step == panel.step + 1 and state.requirement is None


@each_dump()
async def test_the_tables_panels_and_past_hands_draw_and_read(upgraded: Bot) -> None:
    """Every upgraded table's message draws (its picture) and reads (its text twin, its
    status line), each player's panel in the hand under way too (its picture, its text
    twin, the panel's words; someone not dealt in is told so); every frame of every past
    hand's replay reads (the showdowns and the pictures of the replays: the test above)."""
    bot = upgraded
    await until(lambda: bot.table(OWED).hand is not None)
    now = bot.svc.clock()
    panels = 0
    for channel in bot.old.tables:
        t = bot.table(channel)
        assert t.hand is not None
        view = table_view(t, now)
        assert (await render(render_table, view, t)).startswith(PNG)
        text = describe_table(view)
        assert f"Hand {t.row.hand_no}" in text and all(s.name in text for s in t.seats)
        assert table_status(t).startswith(f"Hand #{t.row.hand_no}, ")
        variant = t.rules.variant
        for seat in t.humans:
            hs = t.hand_seat_of(seat.seat_no)
            if hs is None:  # (carol, sitting out)
                with pytest.raises(ServiceError, match="not in this hand: you sit out"):
                    bot.svc.panel(t.id, seat.user_id)
                continue
            panel = bot.svc.panel(t.id, seat.user_id)
            deadline = t.deadlines.get(hs)
            hand = hand_view(panel, variant, deadline, t.rules)
            assert (await render(render_hand, hand, t)).startswith(PNG)
            assert describe_hand(hand).startswith(seat.name)
            words = panel_text(panel, variant, deadline, t.rules)
            assert words.startswith(f"**Your panel** — hand #{t.row.hand_no}")
            assert panel.requirement is None or panel.requirement.describe() in words
            panels += 1
    assert panels == sum(len(bot.table(ch).hand_seats) - len(bot.table(ch).bots)
                         for ch in bot.old.tables)
    for h in bot.old.hands:
        past = await bot.svc.past_hand_at(h.guild, h.table_id, h.number)
        for k, rnd in enumerate(past.rounds):
            view = round_view(past, k)
            assert view.street == rnd.number and view.hand_no == h.number
            text = describe_table(view)
            assert all(name in text for name in past.result.names)
            assert text.endswith("the end of the hand." if k == len(past.rounds) - 1
                                 else f"after round {rnd.number}.")


@each_dump()
async def test_a_clock_that_ran_out_while_the_bot_was_down_plays_the_drafted_move(
    upgraded: Bot
) -> None:
    """The ofc table's 90 s clock ran out while the bot was down (the upgrade took two
    minutes): nobody could act then, so the player to act gets ``RESUME_GRACE`` from the
    restart (and is pinged again); when that runs out too, the move drafted in their panel
    (a card on a row, not confirmed) is played for them, not the AI's, and they are told
    that time ran out and sat out."""
    bot = upgraded
    clock = bot.svc.clock
    assert isinstance(clock, Clock)
    t = bot.table(OFC)
    old = bot.old.tables[OFC]
    (hs,) = old.to_act()
    assert float(state_of(old)["deadlines"][str(hs)]) < clock() - 20  # (ran out meanwhile)
    assert t.hand is not None and not t.hand.autoplayed[hs]
    assert t.deadlines[hs] >= clock() + RESUME_GRACE - 5
    await until(lambda: bool(bot.rec.of("turn", OFC)))
    assert bot.rec.of("turn", OFC) == [[t.hand_seats[hs]]]
    ((card, row),) = state_of(old)["drafts"][str(hs)]["assigned"]
    step = bot.svc.step_of(t, hs)
    clock.offset += RESUME_GRACE + 1
    bot.svc.rearm()
    await until(lambda: t.hand is not None and bool(t.hand.autoplayed[hs]) and any(
        "Time ran out" in text for text in bot.rec.of("notice", OFC)))
    assert t.hand is not None and t.hand.autoplayed[hs] == 1
    assert bot.svc.step_of(t, hs) == step + 1
    move = [a for a in t.hand.log if a.seat == hs][-1]
    assert getattr(move, "placements", None) == ((Card(card), row),)
    assert getattr(move, "auto", False) and Card(card) in t.hand.boards[hs].rows[row]
    assert any("Time ran out" in text for text in bot.rec.of("notice", OFC))
    seat = t.seat_by_no(t.hand_seats[hs])
    assert seat is not None and seat.sitting_out


@each_dump()
async def test_closing_every_upgraded_table_gives_every_stack_back(upgraded: Bot) -> None:
    """Its host closes every upgraded table (the closing one is already closing): each
    closes after its hand under way (and the fantasyland that hand earns); then every table
    is closed with nobody seated, every stack is back in its owner's balance (with what the
    hands played since moved), no unit is lost and the books are clean."""
    bot = upgraded
    await until(lambda: bot.table(OWED).hand is not None)
    played: set[int] = set()
    for channel in bot.old.tables:
        t = bot.table(channel)
        if t.row.status != "closing":
            assert (await bot.svc.close(channel, t.host_id, False)).startswith(
                "The table will close after")
        await play_until_closed(bot, channel, played)
    assert bot.svc.tables == {}
    assert raw(bot.path, "SELECT DISTINCT status FROM tables") == [("closed",)]
    assert raw(bot.path, "SELECT COUNT(*) FROM seats WHERE left_at IS NULL") == [(0,)]
    now = wallets(bot)
    assert set(now) == set(bot.old.owned)
    for (guild, user), (balance, stack) in bot.old.owned.items():
        assert now[(guild, user)] == (
            balance + stack + moved_in(bot, played, guild, user), 0), (guild, user)
    assert await bot.store.verify_ledger() == []
    for guild in (G1, G2):
        assert await bot.store.total_units(guild) == (bot.old.given[guild],) * 2


@each_dump()
async def test_the_server_settings_are_kept(upgraded: Bot) -> None:
    """Server 11's settings are what its managers set under the old bot: start balance
    2000, default buy-in 400, tables idle 48 hours closed where the old bot had that
    setting (else the default), the rest as they were; server 10 has the defaults.  A
    newcomer gets the start balance, a table opened without a buy-in takes the default."""
    bot = upgraded
    idle = 48 if bot.old.schema >= IDLE_HOURS_FROM else ServerSettings(G2).idle_hours
    assert await bot.store.get_settings(G2) == ServerSettings(
        G2, start_balance=2000, default_buyin=400, idle_hours=idle)
    assert await bot.store.get_settings(G1) == ServerSettings(G1)
    newcomer = 998
    assert await bot.svc.balance(G1, newcomer, "newcomer") == (1000, 0)
    assert await bot.svc.balance(G2, newcomer, "newcomer") == (2000, 0)
    t = await bot.svc.new_table(G2, 2999, newcomer, "newcomer")
    seat = t.seat_of_user(newcomer)
    assert t.row.buyin == 400 and seat is not None and seat.stack == 400
    assert await bot.svc.balance(G2, newcomer, "newcomer") == (1600, 400)


@each_dump_alone()
async def test_an_operator_can_back_up_the_old_database_before_the_upgrade(
    dump: Path, tmp_path: Path
) -> None:
    """Before starting the new bot on the old file, the operator backs it up (``ofc-bot
    backup``): the copy is the old database, whole, and the old file is left as it was;
    ``ofc-bot check`` of the old file asks for the bot to be started once first (it
    migrates); the copy upgrades as the file would, its books clean and called healthy."""
    path = load(dump, tmp_path)
    old = read_old(path)
    copy = tmp_path / "before-upgrade.sqlite3"
    contents = maintenance.backup(path, copy)
    assert (contents.schema, contents.tables, contents.hands, contents.players) == (
        old.schema, 9, 11, len(old.owned))
    assert raw(path, "PRAGMA user_version") == [(old.schema,)]
    again = read_old(copy)
    assert (again.schema, again.stopped, again.closed, again.owned, again.given, again.audit) == (
        old.schema, old.stopped, old.closed, old.owned, old.given, old.audit)
    assert {ch: (t.seats, t.stacks, t.rules, t.extra, t.state) for ch, t in again.tables.items()
            } == {ch: (t.seats, t.stacks, t.rules, t.extra, t.state)
                  for ch, t in old.tables.items()}
    assert [(h.id, h.state, h.moved, [tuple(x) for x in h.results]) for h in again.hands] == [
        (h.id, h.state, h.moved, [tuple(x) for x in h.results]) for h in old.hands]
    if old.schema < LATEST:
        with pytest.raises(maintenance.MaintenanceError, match="start the bot once"):
            maintenance.check(path)
    store = await Store.open(copy)
    try:
        assert await store.schema_version() == LATEST
        assert await store.verify_ledger() == []
    finally:
        await store.close()
    checked, problems = await asyncio.to_thread(maintenance.check, copy)
    assert problems == [] and checked is not None and checked.schema == LATEST


@each_dump()
async def test_a_review_of_an_old_hand_judges_every_decision(upgraded: Bot) -> None:
    """Every decision of every player in every hand the old bot settled reads back from its
    stored log (``engine.review.decisions``): a street each round in ofc and pineapple, one
    set in chinese and in fantasyland, each with the cards the player held and the move
    they played; ``/ofc review`` judges each decision of an old chinese and ofc hand."""
    bot = upgraded
    for h in bot.old.hands:
        engine = h.state["engine"]
        users = [int(u) for u in h.state["users"]]
        for x in h.results:
            if x["is_bot"]:
                continue
            hs = users.index(x["user_id"])
            found = decisions(engine, hs)
            actions = [a for a in engine["log"] if a["seat"] == hs]
            assert [d.number for d in found] == list(range(1, len(actions) + 1))
            whole = h.variant == "chinese" or bool(engine["fantasyland"][hs])
            assert [d.kind for d in found] == [
                a["type"] if a["type"] != "place" else "set" if whole else "street"
                for a in actions], (h.id, hs)
            if not whole:
                assert len(found) == (9 if h.variant == "ofc" else 5)
            for d, a in zip(found, actions, strict=True):
                assert d.seat == hs and d.auto == bool(a.get("auto", False))
                if d.move is not None:
                    placed, dropped = d.move
                    assert sorted(str(c) for c, _ in placed) == sorted(c for c, _ in a["cards"])
                    assert {c for c, _ in placed} | set(dropped) == set(d.cards)
    for channel, user in ((CHINESE, FRANK), (CLOSING, MALLORY)):
        h = next(h for h in bot.old.hands if h.channel == channel)
        hs = [int(u) for u in h.state["users"]].index(user)
        want = decisions(h.state["engine"], hs)
        assert want
        review = await bot.svc.review_at(h.guild, user, h.table_id, h.number)
        assert (review.number, review.table_id, review.channel_id, review.review.seat) == (
            h.number, h.table_id, channel, hs)
        assert [(v.number, v.street, v.kind, v.cards, v.auto) for v in review.review.verdicts
                ] == [(d.number, d.street, d.kind, d.cards, d.auto) for d in want]
        assert all(v.played for v in review.review.verdicts)


@each_dump()
async def test_the_buttons_on_the_old_bots_messages_still_answer(
    upgraded: Bot, request: pytest.FixtureRequest
) -> None:
    """The buttons and menus on the messages the old bot posted (``OLD_CUSTOM_IDS``) still
    answer after the upgrade: each custom id is matched by one of the current bot's items,
    of the same kind (its ``template``), which reads it back whole; and what it names is
    still there: the panel's ids are those of the player to act now (the same step: the
    click is not stale, and it works), the surrender question is for the hand being played,
    a past hand's replay and review are of a hand there is, its frame one there is."""
    bot = upgraded
    dump: Path = request.node.callspec.params["upgraded"]
    undo = surrender = None
    for custom_id in OLD_CUSTOM_IDS[dump.stem]:
        found = [(item, m) for item in DYNAMIC_ITEMS
                 if (m := item.__discord_ui_compiled_template__.fullmatch(custom_id))]
        assert len(found) == 1, custom_id
        item, match = found[0]
        kind, *numbers = custom_id.split(":")[1:]
        assert item.__name__ == OLD_ITEMS[kind], custom_id
        again = await item.from_custom_id(None, None, match)  # type: ignore[arg-type]
        assert again.custom_id == custom_id
        if kind == "open":
            t = bot.svc.table(int(numbers[0]))
            assert t.row.channel_id == OFC and t.hand is not None
            (hs,) = bot.old.tables[OFC].to_act()
            user = int(state_of(bot.old.tables[OFC])["users"][hs])
            assert bot.svc.panel(t.id, user).requirement is not None
        elif kind in ("pb", "ps"):
            table_id, seat_no, hand_no, step = (int(x) for x in numbers[:4])
            seat = bot.svc.table(table_id).seat_by_no(seat_no)
            assert seat is not None
            user = seat.user_id
            panel = bot.svc.panel(table_id, user, seat_no)
            assert (panel.hand_no, panel.step) == (hand_no, step) and panel.requirement
            if numbers[4:] == ["undo"]:
                undo = (table_id, user, seat_no, hand_no, step)
        elif kind == "sur":
            table_id, user, hand_no = (int(x) for x in numbers[:3])
            assert bot.svc.table(table_id).row.channel_id == CHINESE
            assert bot.svc.surrender_check(CHINESE, user) == hand_no
            if numbers[3] == "yes":
                surrender = (user, hand_no, table_id)
        elif kind in ("rp", "rps", "rv"):
            table_id, hand_no = int(numbers[0]), int(numbers[1])
            past = await bot.svc.past_hand_at(G1, table_id, hand_no)
            assert past.result.hand_no == hand_no and past.channel_id == OFC
            if kind == "rp":
                assert int(numbers[2]) <= len(past.rounds)
        else:
            assert await bot.svc.player_hands(G1, ALICE, 25)
    assert undo is not None
    state, _ = await bot.svc.panel_action(*undo, "undo")  # (the draft's card taken back)
    assert state is not None and state.draft.assigned == []
    if surrender is not None:  # (*Yes, surrender*: heidi's part of the hand ends)
        user, hand_no, table_id = surrender
        assert (await bot.svc.surrender(CHINESE, user, hand_no, table_id)).startswith(
            "You surrendered")
        assert raw(bot.path, "SELECT surrendered FROM results WHERE hand_id = ? AND user_id = ?",
                   bot.old.tables[CHINESE].hand_id, user) == [(1,)]


@each_dump()
async def test_leaderboards_and_stats_count_only_the_points_against_humans(
    upgraded: Bot,
) -> None:
    """Was a defect (fixed), in the dumps of the bots before migration 003 (2026-11-23).

    README (Bots): results against a bot "count in no leaderboard or stats".  What
    happened: the results written before migration 003 have no ``ranked_points`` (the points
    against humans), and every reader takes a missing one as all the hand's points, so a
    hand's points won from a bot counted in the leaderboards and ``/ofc stats`` (erin showed
    +17 points for a hand she lost to dave by 1).  What should happen: only the points
    against humans count, worked out from each hand's settlement (migration 010 does it for
    the rows it finds without them, and corrects the standings)."""
    bot = upgraded
    for guild in (G1, G2):
        want: dict[int, int] = defaultdict(int)
        for h in bot.old.hands:
            if h.guild == guild:
                for user, points in human_points(h).items():
                    want[user] += points
        for variant in (None, "ofc", "pineapple", "chinese"):
            mine: dict[int, int] = defaultdict(int)
            for h in bot.old.hands:
                if h.guild == guild and variant in (None, h.variant):
                    for user, points in human_points(h).items():
                        mine[user] += points
            board = await bot.svc.leaderboard(guild, "points", "all", 25, variant)
            assert {e.user_id: e.points for e in board} == dict(mine), (guild, variant)
        for user, points in want.items():
            assert (await bot.svc.stats(guild, user, "x")).points == points, (guild, user)
    assert await bot.store.verify_ledger() == []


async def set_by(bot: Bot, channel: int, rows: dict[str, int]) -> None:
    """The seat in fantasyland at ``channel`` sets its hand by ``rows`` (card -> row, as its
    panel's Confirm would; the cards not named are discarded)."""
    t = bot.table(channel)
    async with t.lock:
        assert t.hand is not None
        hs = next(i for i, fl in enumerate(t.hand.fantasyland) if fl and not t.hand.done[i])
        req = t.hand.requirement(hs)
        assert req is not None
        t.hand.place(hs, [(c, rows[str(c)]) for c in req.cards if str(c) in rows],
                     [c for c in req.cards if str(c) not in rows])
        await bot.svc._after_action(t)


@each_dump()
async def test_a_closing_table_of_an_older_bot_deals_one_fantasyland_hand_then_closes(
    upgraded: Bot
) -> None:
    """Was a defect (fixed), in the dumps of the older bots.

    README (/ofc close): the table closes after the fantasyland hand the close hand sends
    a player to, "after that one hand, even if the player stays in fantasyland".  What
    happened: the closing table of a bot from before 2026-11-25 has no ``close_after``; its
    hand (the close hand) stays in fantasyland, so the fantasyland hand is dealt (right), and
    when that one sends someone to fantasyland again (here the player stays, and the other
    one makes aces on top), hand #4 is dealt too, and so on for as long as one does: the
    table does not close.  ``_closing_deals`` reads a missing
    ``close_after`` as the hand number of the moment, not as the hand under way when the
    bot started.  What should happen: it closes after that one fantasyland hand, as a table
    closed by the current bot does."""
    bot = upgraded
    t = bot.table(CLOSING)
    number = t.row.hand_no
    bot.decks[CLOSING] = parse_cards(" ".join([*STAYS, "Qh Qd Qs Qc 2c Ah Ad As Kh Kd 3c 4d 6h"]))
    await finish_hand(bot, CLOSING)  # the close hand: its fantasyland stays
    await until(lambda: t.hand is not None or t.id not in bot.svc.tables)
    assert t.hand is not None and t.row.hand_no == number + 1 and any(t.hand.fantasyland)
    await set_by(bot, CLOSING, STAYS)  # the fantasyland hand stays in fantasyland too
    await finish_hand(bot, CLOSING)
    await until(lambda: t.id not in bot.svc.tables or t.hand is not None)
    assert t.id not in bot.svc.tables and t.row.hand_no == number + 1, (
        f"hand #{t.row.hand_no} was dealt at a closing table")
    assert raw(bot.path, "SELECT status FROM tables WHERE id = ?", t.id) == [("closed",)]


@each_dump()
async def test_the_closing_table_of_an_older_bot_says_a_fantasyland_hand_may_follow(
    upgraded: Bot
) -> None:
    """Was a defect (fixed), in the dumps of the older bots.

    The table message of a closing table whose hand may send someone to fantasyland says
    "This table closes after this hand (or the fantasyland hand it earns)." (the service then
    deals that hand).  What happened: a table set closing by a bot before 2026-11-25 (no
    ``close_after``) says "This table closes after this hand.", then deals the fantasyland
    hand its hand earned (here: the fantasyland being played stays).  What should happen: the
    same words as at a table the current bot set closing."""
    bot = upgraded
    t = bot.table(CLOSING)
    assert t.hand is not None and t.table_rules.has_fantasyland
    assert "(or the fantasyland hand it earns)" in table_view(t).note


@each_dump()
async def test_a_table_whose_creator_left_before_the_upgrade_is_hosted_by_a_player(
    upgraded: Bot
) -> None:
    """Was a defect (fixed), in the dumps of the older bots.

    README (/ofc new): "when the host leaves, the human seated longest hosts" (the
    options, /ofc addbot, /ofc close).  What happened: rita opened the table and left it
    under a bot from before 2026-11-24; after the upgrade ``TableState.host_id`` is still
    rita (``extra`` has no ``host``, and it falls back to the creator), so sam, seated
    longest, is told "Only the table's host (<@rita>) or a server manager can change its
    options", while rita, who is not at the table, can still close it.  What should happen:
    the upgraded table is hosted by sam, as one whose creator left under the current bot."""
    bot = upgraded
    t = bot.table(CREATOR_LEFT)
    assert t.seat_of_user(RITA) is None and t.seat_of_user(SAM) is not None
    words, _ = await bot.svc.set_options(CREATOR_LEFT, SAM, False, timer=120)
    assert words
    assert t.host_id == SAM
