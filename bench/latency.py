"""Interaction latency, end to end: ``python -m bench.latency [--tables N] [--hands H] [--quick]``.

Discord wants an answer to an interaction within 3 s.  This runs the real bot, ``python -m bot``
(what ``ofc-bot`` runs) with its default settings (``OFC_AI_PROCESSES=1`` worker process,
``OFC_EDIT_COALESCE=0.4``, ``OFC_NEXT_HAND_DELAY=5``), in a process of its own as in production,
against the loopback Discord of the end-to-end tests (``tests/e2e/fakediscord.py``: REST and
gateway on 127.0.0.1, given to the bot as ``DISCORD_API_BASE`` / ``DISCORD_GATEWAY_URL``), and has
simulated people use it through interactions, as their Discord clients would:

* players wait for their turn ping (or fantasyland DM), look at their cards (the ping's *Open my
  panel* button, or ``/ofc hand``) and play them, every other decision with the panel (pick the
  cards of a row in the menu, press the row, ..., Confirm) and with ``/ofc place`` (the text made
  from the cards the panel showed); a board that fouls is played anyway (Confirm again; ``foul``);
* one onlooker per table asks for ``/ofc table``, ``/ofc rules``, ``/ofc leaderboard`` in turn.

Measured in the stand-in, per kind of interaction (monotonic clock): the *initial response*, from
sending INTERACTION_CREATE to the bot's callback having arrived (a reply, or the panel's update,
image included: no command here defers, so for the panel, ``/ofc table`` and ``/ofc leaderboard``
it is also the final result); and for moves the *final visible result*: until the table message
shows the move (or the hand's showdown is posted); the table edits its message
``OFC_EDIT_COALESCE`` after a change.

Two phases, one bot: *idle*, one table (ofc, 2 players) alone for ``--idle-hands`` hands; *load*,
``--tables`` tables at once (in turn: pineapple heads-up, ofc with 2 players, a practice table of
1 player and 2 strong bots, chinese with 3 players) until each has played ``--hands`` hands (a
table done early plays on: the load lasts to the end).  The report: p50 / p95 / max per kind in
each phase, the initial responses later than 3 s (must be 0), and the ratio load / idle of the
same kind on the same bot in the same run.  ``/ofc rules`` (text from memory) is the trivial round
trip: its ratio is the queueing every interaction pays.

The stand-in and the simulated people run in this process, on the same cores as the bot: the CPU
time of each process is printed.  ``--probe`` runs the bot under ``bench.latency_probe`` (an
event-loop watchdog, see there) and prints where the bot's event loop was while it stalled.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import re
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.e2e.fakediscord import (
    ComponentUnavailable,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    InteractionFailed,
)

ROOT = Path(__file__).resolve().parents[1]
HEARTBEAT_RACE = re.compile(r"Can't keep up, shard ID \S+ websocket is (4[01]|8[23])\.\ds behind")
DEADLINE = 3.0
STOP_STEP = re.compile(r" ofc\.bot: (stopping: |stopped$)")
"""The bot's log lines of its way out (``OFCBot.close``)."""
STOP_WAIT = 30.0
"""Seconds the bot has to stop after SIGTERM before it is killed (after a dump of its stacks)."""
CB_UPDATE = 7

KINDS: list[tuple[str, str]] = [
    ("rules", "/ofc rules (trivial: text)"),
    ("hand", "/ofc hand (panel image)"),
    ("open", "Open my panel button (image)"),
    ("pick", "panel: pick cards (menu)"),
    ("row", "panel: row button"),
    ("confirm", "panel: Confirm"),
    ("place", "/ofc place"),
    ("table", "/ofc table (table image)"),
    ("leaderboard", "/ofc leaderboard (image)"),
]
FINALS: list[tuple[str, str]] = [
    ("confirm", "panel: Confirm"),
    ("place", "/ofc place"),
]


@dataclass(frozen=True)
class TableKind:
    key: str
    label: str
    variant: str
    humans: int
    bots: int = 0
    level: str = "strong"


TABLE_KINDS = [
    TableKind("pineapple", "pineapple heads-up", "pineapple", 2),
    TableKind("ofc", "ofc, 2 players", "ofc", 2),
    TableKind("practice", "practice: 1 player + 2 strong bots", "pineapple", 1, 2),
    TableKind("chinese", "chinese, 3 players", "chinese", 3),
]
IDLE_KIND = TABLE_KINDS[1]


# ------------------------------------------------------------------------------ the stand-in
class TimedFake(FakeDiscord):
    """The stand-in, also noting when each message change arrived and its text then (a table
    message is edited in place: its text later is not its text at that change)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.changes: list[tuple[float, str, FakeMessage, str]] = []

    async def _bump(self, message: FakeMessage | None = None, kind: str = "edit") -> None:
        async with self._cond:
            if message is not None:
                self._changelog.append((kind, message))
                self.changes.append((time.monotonic(), kind, message, message.content or ""))
            self._cond.notify_all()

    def forget_images(self, older_than: float) -> None:
        """Drop the bytes of attachments older than ``older_than`` seconds (the run keeps every
        image the bot sent otherwise: hundreds of megabytes in a long run)."""
        cutoff = (int((time.time() - older_than) * 1000) - 1420070400000) << 22
        for att in self._attachments.values():
            if att.id < cutoff and att.data:
                att.data = b""


# ------------------------------------------------------------------------------ panels and moves
REQ_LINE = re.compile(r"^((?:Place|Set)[^\n]*): ((?:[2-9TJQKA][cdhs] ?)+)$", re.M)
HAND_NO = re.compile(r"hand #(\d+)")
BOARD_LINE = re.compile(r"^Board — (.*)$", re.M)
CARD = re.compile(r"\b[2-9TJQKA][cdhs]\b")
RANKS = "23456789TJQKA"
ROWS = ("top", "middle", "bottom")


@dataclass
class Panel:
    hand_no: int
    cards: list[str]
    place: int
    discard: int
    is_set: bool
    counts: list[int]


def parse_panel(text: str) -> Panel | None:
    """What a panel (or a fantasyland DM) asks for; None when it asks nothing."""
    m = REQ_LINE.search(text)
    n = HAND_NO.search(text)
    if m is None or n is None:
        return None
    what, cards = m.group(1), m.group(2).split()
    is_set = what.startswith("Set")
    d = re.search(r"discard (\d+)", what)
    p = re.match(r"Place (\d+)", what)
    counts = [0, 0, 0]
    b = BOARD_LINE.search(text)
    if b is not None:
        for i, part in enumerate(b.group(1).split(" | ")[:3]):
            counts[i] = len(CARD.findall(part.split("(")[0]))
    return Panel(int(n.group(1)), cards, 13 if is_set else int(p.group(1)) if p else len(cards),
                 int(d.group(1)) if d else 0, is_set, counts)


def plan_move(p: Panel) -> tuple[list[tuple[str, int]], list[str]]:
    """(card, row) placements and discards: high cards low on the board, the lowest cards
    discarded; a whole set is the 5 highest cards at the bottom, the next 5 in the middle."""
    cards = sorted(p.cards, key=lambda c: RANKS.index(c[0]), reverse=True)
    if p.is_set:
        keep = cards[:13]
        rows = [2] * 5 + [1] * 5 + [0] * 3
        return list(zip(keep, rows, strict=True)), cards[13:]
    keep, drop = cards[: p.place], cards[p.place:]
    free = [3 - p.counts[0], 5 - p.counts[1], 5 - p.counts[2]]
    placed = []
    for c in keep:
        r = 2 if free[2] else 1 if free[1] else 0
        free[r] -= 1
        placed.append((c, r))
    return placed, drop


def move_text(placed: list[tuple[str, int]], drop: list[str]) -> str:
    parts = []
    for row in (2, 1, 0):
        cards = [c for c, r in placed if r == row]
        if cards:
            parts.append(" ".join(cards) + " " + ROWS[row])
    if drop:
        parts.append(" ".join(drop) + " discard")
    return " ".join(parts) + " foul"


# ------------------------------------------------------------------------------ measurements
@dataclass
class Sample:
    phase: str
    kind: str
    table: str
    initial: float | None
    final: float | None = None
    failure: str | None = None
    wants_final: bool = False
    dispatched: float | None = None
    channel: int = 0


@dataclass
class Table:
    kind: TableKind
    chan: FakeChannel
    humans: list[FakeUser]
    onlooker: FakeUser
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    hands: int = 0
    decisions: int = 0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    return {"n": len(values), "p50": percentile(values, 0.5), "p95": percentile(values, 0.95),
            "max": max(values), "over": sum(v > DEADLINE for v in values)}


# ------------------------------------------------------------------------------ CPU time
def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _cpu(fields: list[str]) -> float:
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_times(pid: int | None) -> dict[str, float]:
    """CPU seconds so far: this process (stand-in and players), the bot's, its children's (the
    AI worker; Linux /proc, else left out)."""
    out = {"wall": time.monotonic(), "bench": time.process_time()}
    if pid is None:
        return out
    own = _stat(pid)
    if own is None:
        return out
    out["bot"] = _cpu(own)
    children = 0.0
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                fields = _stat(int(entry))
                if fields is not None and fields[1] == str(pid):
                    children += _cpu(fields)
    out["worker"] = children
    return out


# ------------------------------------------------------------------------------ the bot
class BotProcess:
    """``python -m bot`` (or the probe around it) against the stand-in; its log is kept."""

    def __init__(self, fake: FakeDiscord, guild: FakeGuild, workdir: Path,
                 probe: Path | None) -> None:
        self.fake, self.guild, self.workdir, self.probe = fake, guild, workdir, probe
        self.proc: asyncio.subprocess.Process | None = None
        self.lines: list[str] = []
        self.ready = asyncio.Event()
        self.ai_ready: float | None = None
        self._reader: asyncio.Task[None] | None = None
        self.stop_tail: list[str] = []
        """When the bot had to be killed: why, and the last lines of its log."""
        self.stop_seconds: float | None = None
        """From SIGTERM to the bot's exit."""

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def env(self) -> dict[str, str]:
        # the bot's own defaults: no OFC_* or DISCORD_* from this environment, no .env
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OFC_", "DISCORD_"))}
        path = [str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
        env.update(
            DISCORD_TOKEN=self.fake.token, DISCORD_API_BASE=self.fake.api_base,
            DISCORD_GATEWAY_URL=self.fake.gateway_url,
            OFC_DATABASE=str(self.workdir / "ofc.sqlite3"), OFC_DEV_GUILD_ID=str(self.guild.id),
            PYTHONPATH=os.pathsep.join(path), PYTHONUNBUFFERED="1",
        )
        if self.probe is not None:
            env["OFC_BENCH_PROBE"] = str(self.probe)
        return env

    async def start(self, timeout: float = 180.0) -> None:
        module = "bench.latency_probe" if self.probe is not None else "bot"
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", module, cwd=self.workdir, env=self.env(),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        self._reader = asyncio.create_task(self._read())
        waiter = asyncio.create_task(self.ready.wait())
        done, _ = await asyncio.wait({waiter, self._reader}, timeout=timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
        if waiter not in done:
            waiter.cancel()
            tail = "\n".join(self.lines[-20:])
            raise RuntimeError(f"the bot did not connect within {timeout:.0f} s:\n{tail}")

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        async for raw in self.proc.stderr:
            line = raw.decode(errors="replace").rstrip()
            self.lines.append(line)
            if "AI ready in" in line:
                m = re.search(r"AI ready in ([\d.]+) s", line)
                self.ai_ready = float(m.group(1)) if m else None
            if " connected as " in line:
                self.ready.set()

    async def stop(self) -> int | None:
        if self.proc is None:
            return None
        if self.proc.returncode is None:
            started = time.monotonic()
            with contextlib.suppress(ProcessLookupError):
                # the bot stops cleanly on SIGTERM as on Ctrl-C; SIGINT is not used: a bench
                # started as a background job of a shell has SIGINT ignored, and so has the bot
                self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), STOP_WAIT)
            except TimeoutError:
                # it hangs: its threads' stacks to its log (faulthandler), then kill it
                self.stop_tail = [f"the bot did not stop within {STOP_WAIT:.0f} s of SIGTERM"]
                with contextlib.suppress(ProcessLookupError):
                    self.proc.send_signal(signal.SIGUSR1)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.proc.wait(), 2)
                with contextlib.suppress(ProcessLookupError):
                    self.proc.kill()
                await self.proc.wait()
            self.stop_seconds = time.monotonic() - started
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._reader, 5)
        if self.stop_tail:
            self.stop_tail += self.lines[-200:]
        return self.proc.returncode

    def problems(self) -> list[str]:
        """Log records at WARNING or above (a traceback counts with its first line), but
        discord.py's "Can't keep up, ... websocket is 41.3s behind": its keep-alive thread
        notes the heartbeat's send time only after the send completes, so an ACK that arrives
        first (the stand-in answers at once) is timed from the previous heartbeat, one
        interval (41.25 s) earlier.  Not a lag; counted apart (``heartbeat_race``)."""
        return [ln for ln in self.lines if re.search(r" (WARNING|ERROR|CRITICAL) ", ln)
                and not HEARTBEAT_RACE.search(ln)]

    def heartbeat_race(self) -> int:
        return sum(1 for ln in self.lines if HEARTBEAT_RACE.search(ln))


# ------------------------------------------------------------------------------ the run
class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.rng = random.Random(args.seed)
        self.fake = TimedFake()
        self.samples: list[Sample] = []
        self.phase = "setup"
        self.errors: list[str] = []
        self.all_done = asyncio.Event()
        self.reached = 0
        self.tables: list[Table] = []
        self.pending: set[asyncio.Task[None]] = set()
        """Moves whose final result is being waited for (the player plays on meanwhile)."""

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    # -- interactions ------------------------------------------------------------------
    async def interact(
        self, kind: str, table: Table, send: Coroutine[Any, Any, FakeInteraction],
        wants_final: bool = False,
    ) -> tuple[FakeInteraction | None, Sample, int]:
        """Send one interaction and record its initial response; the record (None if it
        failed), the sample, and the position in the change log when it was sent."""
        mark = len(self.fake.changes)
        failure = None
        try:
            rec = await send
        except InteractionFailed as e:
            rec, failure = e.record, e.reason
            self.errors.append(f"{kind} at {table.kind.key}: {e.reason}")
        sample = Sample(self.phase, kind, table.kind.key, rec.latency, failure=failure,
                        wants_final=wants_final, dispatched=rec.dispatched_at,
                        channel=table.chan.id)
        self.samples.append(sample)
        return (rec if failure is None else None), sample, mark

    async def wait_change(
        self, cursor: int, pred: Callable[[FakeMessage, str], bool], timeout: float,
        stop: asyncio.Event | None = None, creates_only: bool = False,
    ) -> tuple[tuple[float, FakeMessage] | None, int]:
        """The first message change from position ``cursor`` of the change log on whose text,
        as it was then, satisfies ``pred``: ((when it arrived, the message) or None after
        ``timeout`` or once ``stop`` is set, the position after the last change looked at)."""
        deadline = time.monotonic() + timeout
        while True:
            changes = self.fake.changes
            while cursor < len(changes):
                at, kind, msg, text = changes[cursor]
                cursor += 1
                if kind == "delete" or (creates_only and kind != "create"):
                    continue
                if pred(msg, text):
                    return (at, msg), cursor
            remaining = deadline - time.monotonic()
            if remaining <= 0 or (stop is not None and stop.is_set()):
                return None, cursor
            await self._changed(len(changes), min(remaining, 0.5))

    async def _changed(self, seen: int, timeout: float) -> None:
        """Until the change log is longer than ``seen`` (at most ``timeout`` seconds)."""
        with contextlib.suppress(TimeoutError):
            await self.fake.wait_until(lambda: len(self.fake.changes) > seen, timeout, "a change")

    def shows_move(self, table: Table, user: FakeUser, panel: Panel,
                   placed: list[tuple[str, int]]) -> Callable[[FakeMessage, str], bool]:
        """The table message shows the move (its cards on the player's board, or the set
        marked ``set``), or the hand's showdown is posted."""
        head = f"{user.name} — "
        showdown = f"Showdown — hand #{panel.hand_no}**"
        cards = {c for c, _ in placed}

        def pred(msg: FakeMessage, text: str) -> bool:
            if msg.channel is not table.chan or msg.interaction is not None:
                return False
            if showdown in text:
                return True
            if not msg.attachments:
                return False
            for line in text.split("\n"):
                if line.startswith(head):
                    if panel.is_set:
                        return line.endswith(" · set")
                    return cards <= set(CARD.findall(line))
            return False

        return pred

    async def record_final(self, table: Table, user: FakeUser, rec: FakeInteraction,
                           sample: Sample, mark: int, panel: Panel,
                           placed: list[tuple[str, int]]) -> None:
        found, _ = await self.wait_change(mark, self.shows_move(table, user, panel, placed), 20.0)
        if found is not None and rec.dispatched_at is not None:
            sample.final = found[0] - rec.dispatched_at
        else:
            self.errors.append(f"{sample.kind} at {table.kind.key}: the table never showed it")

    # -- people --------------------------------------------------------------------------
    def think(self, scale: float = 1.0) -> float:
        return float(self.args.think) * scale * self.rng.uniform(0.5, 1.5)

    async def player(self, table: Table, user: FakeUser, index: int, cursor: int) -> None:
        dm = self.fake.dm_channel(user)
        mention = f"<@{user.id}>"
        decisions = 0

        def trigger(msg: FakeMessage, text: str) -> bool:
            if msg.channel is table.chan:
                return msg.interaction is None and "your turn" in text and mention in text
            return msg.channel is dm and "Fantasyland!" in text

        while not table.stop.is_set():
            found, cursor = await self.wait_change(cursor, trigger, 1.0, table.stop,
                                                   creates_only=True)
            if found is None:
                continue
            msg = found[1]
            if msg.deleted:
                continue  # the turn moved on meanwhile
            await asyncio.sleep(self.think())
            if table.stop.is_set():
                break
            panel_mode = (decisions + index) % 2 == 0
            decisions += 1
            try:
                await self.decide(table, user, msg, dm, panel_mode)
            except ComponentUnavailable as e:  # e.g. the ping was replaced meanwhile
                self.errors.append(f"{table.kind.key}: {user.name}: {e}")

    async def decide(self, table: Table, user: FakeUser, trigger: FakeMessage,
                     dm: FakeChannel, panel_mode: bool) -> None:
        if trigger.channel is dm:  # a fantasyland: the DM is the panel
            panel_msg, text = trigger, trigger.content
        else:
            if panel_mode:
                rec, _, _ = await self.interact(
                    "open", table, self.fake.click(user, trigger, label="Open my panel"))
            else:
                rec, _, _ = await self.interact(
                    "hand", table, self.fake.slash(user, table.chan, "ofc hand"))
            if rec is None or rec.message is None:
                return
            panel_msg, text = rec.message, rec.content or ""
        panel = parse_panel(text)
        if panel is None:
            return  # nothing to do (the turn moved on)
        placed, drop = plan_move(panel)
        table.decisions += 1
        await asyncio.sleep(self.think(0.5))
        if panel_mode:
            await self.by_panel(table, user, panel_msg, panel, placed)
        else:
            rec, sample, mark = await self.interact(
                "place", table, self.fake.slash(user, table.chan, "ofc place",
                                                options={"move": move_text(placed, drop)}),
                wants_final=True)
            if rec is not None and (rec.content or "").startswith("✅"):
                self.spawn(self.record_final(table, user, rec, sample, mark, panel, placed))
            elif rec is not None:
                sample.wants_final = False
                self.errors.append(f"/ofc place at {table.kind.key}: {rec.content!r}")

    async def by_panel(self, table: Table, user: FakeUser, msg: FakeMessage, panel: Panel,
                       placed: list[tuple[str, int]]) -> None:
        for row in (2, 1, 0):
            cards = [c for c, r in placed if r == row]
            if not cards:
                continue
            menus = msg.selects()
            if not menus:
                return
            rec, _, _ = await self.interact(
                "pick", table, self.fake.select(user, msg, menus[0]["custom_id"], cards))
            if rec is None or rec.callback_type != CB_UPDATE:
                return
            await asyncio.sleep(self.think(0.2))
            rec, _, _ = await self.interact(
                "row", table, self.fake.click(user, msg, label=ROWS[row].title()))
            if rec is None or rec.callback_type != CB_UPDATE:
                return
            await asyncio.sleep(self.think(0.2))
        for _ in range(2):  # a board that fouls: Confirm again plays it
            rec, sample, mark = await self.interact(
                "confirm", table, self.fake.click(user, msg, label="Confirm"), wants_final=True)
            if rec is None:
                return
            answer = (rec.callback_data or {}).get("content") or ""
            if answer.startswith("✅"):
                self.spawn(self.record_final(table, user, rec, sample, mark, panel, placed))
                return
            sample.wants_final = False
            if "Confirm** again" not in answer:
                self.errors.append(f"Confirm at {table.kind.key}: {answer!r}")
                return

    async def onlooker(self, table: Table, index: int) -> None:
        steps = ("table", "rules", "leaderboard", "rules")
        boards = ("units", "points", "hands", "fantasylands")
        k = index
        while not table.stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(table.stop.wait(),
                                       float(self.args.watch) * self.rng.uniform(0.5, 1.5))
            if table.stop.is_set():
                break
            kind = steps[k % len(steps)]
            if kind == "leaderboard":
                send = self.fake.slash(table.onlooker, table.chan, "ofc leaderboard",
                                       by=boards[(k // len(steps)) % len(boards)])
            else:
                send = self.fake.slash(table.onlooker, table.chan, f"ofc {kind}")
            k += 1
            await self.interact(kind, table, send)

    # -- tables ---------------------------------------------------------------------------
    async def setup(self, table: Table, command: str, user: FakeUser, **options: Any) -> str:
        rec, _, _ = await self.interact("setup", table,
                                        self.fake.slash(user, table.chan, command, **options))
        content = rec.content if rec is not None else None
        if rec is None or content is None or content.startswith("⚠️"):
            raise RuntimeError(f"{command} at {table.kind.key} failed: {content!r}")
        return content

    async def play(self, table: Table, index: int, hands: int, warm: bool = False) -> None:
        kind = table.kind
        creator = table.humans[0]
        options: dict[str, Any] = {"variant": kind.variant, "stake": 1, "buyin": 1000}
        if kind.bots:
            options.update(bots=kind.bots, level=kind.level)
        await self.setup(table, "ofc new", creator, **options)
        for user in table.humans[1:]:
            await self.setup(table, "ofc join", user, buyin=1000)
        if warm:  # the first image of each kind and the first queries, not counted
            for command in ("ofc table", "ofc leaderboard", "ofc rules"):
                await self.setup(table, command, table.onlooker)
        cursor = len(self.fake.changes)
        people = [asyncio.create_task(self.player(table, u, i, cursor))
                  for i, u in enumerate(table.humans)]
        people.append(asyncio.create_task(self.onlooker(table, index)))
        try:
            await self.setup(table, "ofc start", creator)
            while not self.all_done.is_set():
                number = table.hands + 1
                showdown = f"Showdown — hand #{number}**"
                found, cursor = await self.wait_change(
                    cursor, lambda m, text, s=showdown: m.channel is table.chan and s in text,
                    float(self.args.timeout), self.all_done, creates_only=True)
                if found is None:
                    if not self.all_done.is_set():
                        raise TimeoutError(f"{kind.key}: no showdown of hand #{number} within "
                                           f"{self.args.timeout:.0f} s")
                    break
                table.hands = number
                if table.hands == hands:
                    self.reached += 1
                    if self.reached == len(self.tables):
                        self.all_done.set()
        finally:
            table.stop.set()
            await asyncio.gather(*people, return_exceptions=True)
            for task in people:
                if task.done() and not task.cancelled() and task.exception() is not None:
                    self.errors.append(f"{kind.key}: {task.exception()!r}")

    async def phase_run(self, name: str, tables: list[Table], hands: int, bot: BotProcess,
                        warm: bool = False) -> dict[str, Any]:
        self.phase = name
        self.tables = tables
        self.reached = 0
        self.all_done = asyncio.Event()
        before = cpu_times(bot.pid)
        load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
        cleaner = asyncio.create_task(self._forget_images())
        start_wall = time.time()
        first_request = len(self.fake.requests)
        try:
            await asyncio.gather(*(self.play(t, i, hands, warm) for i, t in enumerate(tables)))
        except BaseException:
            self.all_done.set()  # the other tables stop too
            raise
        finally:
            cleaner.cancel()
            await asyncio.gather(*self.pending, return_exceptions=True)
        after = cpu_times(bot.pid)
        images = Counter(re.sub(r"[-\d]*\.png$", "", f) for r in self.fake.requests[first_request:]
                         for f in r.files)
        self.phase = "between"
        return {
            "tables": [t.kind.key for t in tables], "hands": {t.chan.name: t.hands for t in tables},
            "decisions": sum(t.decisions for t in tables), "window": (start_wall, time.time()),
            "images": dict(images.most_common()),
            "cpu": {k: after[k] - before[k] for k in after if k in before},
            "loadavg": (load_before, os.getloadavg() if hasattr(os, "getloadavg") else None),
        }

    async def _forget_images(self) -> None:
        while True:
            await asyncio.sleep(5)
            self.fake.forget_images(30)


def make_tables(fake: FakeDiscord, guild: FakeGuild, kinds: list[TableKind],
                prefix: str) -> list[Table]:
    tables = []
    for i, kind in enumerate(kinds, 1):
        chan = fake.add_text_channel(guild, f"{prefix}{i}-{kind.key}")
        humans = [fake.add_user(f"{prefix}{i}{'abcd'[j]}", guild=guild) for j in range(kind.humans)]
        onlooker = fake.add_user(f"{prefix}{i}watch", guild=guild)
        tables.append(Table(kind, chan, humans, onlooker))
    return tables


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    bench = Bench(args)
    fake = bench.fake
    await fake.start()
    guild = fake.add_guild("Latency")
    idle_tables = make_tables(fake, guild, [IDLE_KIND], "idle")
    load_kinds = [TABLE_KINDS[i % len(TABLE_KINDS)] for i in range(args.tables)]
    load_tables = make_tables(fake, guild, load_kinds, "t")
    phases: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="ofc-latency-") as tmp:
        probe_path = Path(tmp) / "probe.json" if args.probe else None
        bot = BotProcess(fake, guild, Path(tmp), probe_path)
        started = time.monotonic()
        try:
            await bot.start()
            startup = time.monotonic() - started
            phases["idle"] = await bench.phase_run("idle", idle_tables, args.idle_hands, bot,
                                                   warm=True)
            await bench.setup(idle_tables[0], "ofc close", idle_tables[0].humans[0])
            phases["load"] = await bench.phase_run("load", load_tables, args.hands, bot)
        finally:
            code = await bot.stop()
            await fake.stop()
        probe = json.loads(probe_path.read_text()) if probe_path and probe_path.exists() else None
    return collect(args, bench, bot, phases, startup, code, probe)


def collect(args: argparse.Namespace, bench: Bench, bot: BotProcess, phases: dict[str, Any],
            startup: float, code: int | None, probe: dict[str, Any] | None) -> dict[str, Any]:
    def values(phase: str, kind: str, final: bool = False) -> list[float]:
        out = []
        for s in bench.samples:
            if s.phase != phase or s.kind != kind:
                continue
            v = s.final if final else s.initial
            if v is not None:
                out.append(v)
        return out

    kinds = {k: {"label": label, "idle": summary(values("idle", k)),
                 "load": summary(values("load", k))} for k, label in KINDS}
    finals = {k: {"label": label, "idle": summary(values("idle", k, True)),
                  "load": summary(values("load", k, True))} for k, label in FINALS}
    measured = [s for s in bench.samples if s.phase in ("idle", "load") and s.kind != "setup"]
    by_table = {}
    for kind in dict.fromkeys(s.table for s in measured if s.phase == "load"):
        mine = [s.initial for s in measured
                if s.phase == "load" and s.table == kind and s.initial is not None]
        finals_ = [s.final for s in measured
                   if s.phase == "load" and s.table == kind and s.final is not None]
        by_table[kind] = {"initial": summary(mine), "final": summary(finals_)}
    late = [s for s in bench.samples if s.initial is not None and s.initial > DEADLINE]
    fake = bench.fake
    pings = ping_split(bench)
    return {
        "command": "python -m bench.latency " + " ".join(args.argv),
        "args": {k: v for k, v in vars(args).items() if k != "argv"},
        "machine": {"python": platform.python_version(), "cores": os.cpu_count(),
                    "system": platform.platform()},
        "startup": startup, "ai_ready": bot.ai_ready, "exit_code": code,
        "stop_tail": bot.stop_tail, "stop_seconds": bot.stop_seconds,
        "stop_steps": [ln for ln in bot.lines if STOP_STEP.search(ln)],
        "phases": phases, "kinds": kinds, "finals": finals, "by_table": by_table,
        "interactions": len(measured),
        "late": [(s.phase, s.kind, s.table, s.initial) for s in late],
        "failed": [(s.phase, s.kind, s.table, s.failure) for s in bench.samples if s.failure],
        "missing_finals": sum(1 for s in measured if s.wants_final and s.final is None),
        "errors": bench.errors,
        "bot_log": bot.problems(), "heartbeat_race": bot.heartbeat_race(),
        "fake": {"unhandled": fake.unhandled, "internal_errors": fake.internal_errors,
                 "api_errors": sorted(Counter(str(e[3]) for e in fake.api_errors).items())},
        "pings": pings,
        "probe": probe_summary(probe, phases) if probe else None,
    }


def ping_split(bench: Bench) -> dict[str, Any]:
    """Moves (``/ofc place``, Confirm) answered after the bot sent the next turn ping: the
    command waits for its messages (``NOTIFY_WAIT``, at most 1 s) before it answers.  Per
    phase: how many, and the time from the interaction to the ping's POST arriving, and from
    there to the answer."""
    posts: dict[int, list[float]] = {}
    for r in bench.fake.requests:
        payload = r.payload if isinstance(r.payload, dict) else {}
        if r.method == "POST" and "your turn" in str(payload.get("content") or ""):
            m = re.match(r"/channels/(\d+)/messages$", r.path)
            if m:
                posts.setdefault(int(m.group(1)), []).append(r.at)
    out: dict[str, Any] = {}
    for phase in ("idle", "load"):
        moves = [s for s in bench.samples if s.phase == phase and s.kind in ("place", "confirm")
                 and s.final is not None and s.initial is not None and s.dispatched is not None]
        before, after = [], []
        for s in moves:
            assert s.initial is not None and s.dispatched is not None
            answered = s.dispatched + s.initial
            at = next((t for t in posts.get(s.channel, []) if s.dispatched < t < answered), None)
            if at is not None:
                before.append(at - s.dispatched)
                after.append(answered - at)
        out[phase] = {"moves": len(moves), "before": summary(before), "after": summary(after)}
    return out


def _coarse(site: str) -> str:
    """A sampled site without its line numbers (one function, wherever in it)."""
    return re.sub(r":\d+ ", " ", site)


def probe_summary(probe: dict[str, Any], phases: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, phase in phases.items():
        lo, hi = phase["window"]
        late = [s for t, s in probe["late"] if lo <= t <= hi]
        stalls = [d for t, d in probe["stalls"] if lo <= t <= hi]
        samples = [(site, others) for t, site, others in probe["samples"] if lo <= t <= hi]
        sites = Counter(site for site, _ in samples)
        others = Counter(o for _, os_ in samples for o in set(os_))
        seconds = hi - lo
        prof = [(site, others) for t, site, others in probe.get("profile", []) if lo <= t <= hi]
        busy = Counter(_coarse(site) for site, _ in prof if site is not None)
        threads = Counter(_coarse(o) for _, os_ in prof for o in os_)
        out[name + "_profile"] = {
            "samples": len(prof), "main_busy": sum(busy.values()),
            "main": busy.most_common(10), "threads": threads.most_common(8),
        }
        out[name] = {
            "seconds": seconds, "beats_late_50ms": sum(x > 0.05 for x in late),
            "beats_late_250ms": sum(x > 0.25 for x in late),
            "max_late": max(late, default=0.0), "late_total": sum(late),
            "stalls": len(stalls), "stall_total": sum(stalls), "samples": len(samples),
            "sample_ms": probe["sample"] * 1000, "sites": sites.most_common(8),
            "others": others.most_common(5),
        }
    return out


# ------------------------------------------------------------------------------ report
def _ms(stats: dict[str, float], key: str) -> str:
    return f"{stats[key] * 1000:.0f}" if stats.get("n") else "-"


def _ratio(load: dict[str, float], idle: dict[str, float], key: str) -> str:
    if not load.get("n") or not idle.get("n") or not idle[key]:
        return "-"
    return f"{load[key] / idle[key]:.1f}x"


def render(r: dict[str, Any]) -> str:
    a = r["args"]
    lines = [f"$ {r['command'].strip()}"]
    lines.append(
        f"bot: python -m bot in its own process, default settings (OFC_AI_PROCESSES=1, "
        f"OFC_EDIT_COALESCE=0.4, OFC_NEXT_HAND_DELAY=5){' under the probe' if a['probe'] else ''};"
        f" connected in {r['startup']:.1f} s (AI ready in {r['ai_ready'] or 0:.1f} s)"
        + (f", stopped {r['stop_seconds']:.1f} s after SIGTERM (exit code {r['exit_code']})"
           if r.get("stop_seconds") is not None else ""))
    lines.append(f"machine: {r['machine']['cores']} cores, Python {r['machine']['python']}; "
                 f"players think {a['think']:.2f} s (x0.5-1.5), onlookers every {a['watch']:.1f} s")
    for name, p in r["phases"].items():
        cpu = p["cpu"]
        wall = cpu["wall"]
        shares = ", ".join(f"{label} {cpu[k]:.1f} s ({cpu[k] / wall:.0%})"
                           for k, label in (("bot", "bot"), ("worker", "AI worker"),
                                            ("bench", "stand-in + people")) if k in cpu)
        hands = ", ".join(f"{k} {v}" for k, v in p["hands"].items())
        load = p["loadavg"]
        la = f"; load average {load[0][0]:.1f} -> {load[1][0]:.1f}" if load[0] and load[1] else ""
        images = sum(p["images"].values())
        kinds = ", ".join(f"{k} {v}" for k, v in p["images"].items())
        lines.append(f"{name}: {len(p['tables'])} table(s), {wall:.0f} s, hands {hands}, "
                     f"{p['decisions']} decisions, {images} images sent ({images / wall:.1f}/s: "
                     f"{kinds}); CPU {shares}{la}")
    lines.append("")
    head = (f"{'ms':32} {'idle n':>6} {'p50':>5} {'p95':>5} {'max':>5}  {'load n':>6} {'p50':>5} "
            f"{'p95':>5} {'max':>5} {'>3s':>3}  {'load/idle p50':>13} {'p95':>5}")
    lines.append(head)
    lines.append("-" * len(head))

    def row(label: str, item: dict[str, Any]) -> str:
        i, lo = item["idle"], item["load"]
        return (f"{label:32} {i.get('n', 0):6d} {_ms(i, 'p50'):>5} {_ms(i, 'p95'):>5} "
                f"{_ms(i, 'max'):>5}  {lo.get('n', 0):6d} {_ms(lo, 'p50'):>5} {_ms(lo, 'p95'):>5} "
                f"{_ms(lo, 'max'):>5} {lo.get('over', 0):3d}  {_ratio(lo, i, 'p50'):>13} "
                f"{_ratio(lo, i, 'p95'):>5}")

    lines.append("initial response (interaction -> callback)")
    for k, _ in KINDS:
        lines.append(row("  " + r["kinds"][k]["label"], r["kinds"][k]))
    lines.append("final result (-> table shows the move)")
    for k, _ in FINALS:
        lines.append(row("  " + r["finals"][k]["label"], r["finals"][k]))
    lines.append("")
    lines.append("load phase by table (every interaction): initial p50 / p95 / max ms; "
                 "final p50 / p95")
    for key, t in r["by_table"].items():
        i, f = t["initial"], t["final"]
        lines.append(f"  {key:10} n {i.get('n', 0):4d}: {_ms(i, 'p50'):>5} / {_ms(i, 'p95'):>5}"
                     f" / {_ms(i, 'max'):>5};  final {_ms(f, 'p50'):>5} / {_ms(f, 'p95'):>5}")
    lines.append("")
    lines.append("moves answered after their turn ping was sent (the command waits for it): "
                 "interaction -> ping POST, ping POST -> answer, p50 / p95 ms")
    for phase, p in r["pings"].items():
        b, f = p["before"], p["after"]
        lines.append(f"  {phase:5} {b.get('n', 0):4d} of {p['moves']:4d} moves: "
                     f"{_ms(b, 'p50'):>5} / {_ms(b, 'p95'):>5}, then {_ms(f, 'p50'):>5} / "
                     f"{_ms(f, 'p95'):>5}")
    lines.append("")
    every = r["interactions"]
    late = r["late"]
    lines.append(f"initial responses later than 3 s: {len(late)} of {every}"
                 + ("" if not late else ": " + "; ".join(
                     f"{ph} {k} at {t} {v:.2f} s" for ph, k, t, v in late[:5])))
    if r["failed"]:
        lines.append(f"failed interactions: {len(r['failed'])}: "
                     + "; ".join(f"{k} at {t}: {why}" for _, k, t, why in r["failed"][:5]))
    if r["missing_finals"]:
        lines.append(f"moves the table never showed (within 20 s): {r['missing_finals']}")
    if r["errors"]:
        lines.append(f"bench notes: {len(r['errors'])}: " + "; ".join(r["errors"][:5]))
    fake = r["fake"]
    if fake["unhandled"] or fake["internal_errors"] or fake["api_errors"]:
        lines.append(f"stand-in: unhandled {fake['unhandled'][:3]}, internal errors "
                     f"{fake['internal_errors'][:3]}, API errors by code {fake['api_errors']}")
    if r["bot_log"]:
        lines.append(f"bot log, warnings and errors: {len(r['bot_log'])}: "
                     + " | ".join(r["bot_log"][:3]))
    if r["heartbeat_race"]:
        lines.append(f"discord.py \"Can't keep up ... 41.3s behind\" warnings: "
                     f"{r['heartbeat_race']} (a race in its keep-alive thread: the heartbeat's ACK "
                     "came before the thread noted the send; one interval, not a lag)")
    if r["probe"]:
        lines.append("")
        lines.append("event loop of the bot (probe: a 10 ms heartbeat; stacks sampled every "
                     "5 ms while it is > 50 ms late)")
        for name, p in sorted(r["probe"].items()):
            if name.endswith("_profile"):
                total = p["samples"] or 1
                lines.append(f"  {name[:-8]}, sampling profile ({p['samples']} samples, every "
                             f"10 ms): main thread busy {p['main_busy'] / total:.0%}")
                for site, n in p["main"]:
                    lines.append(f"      {n / total:4.0%}  {site}")
                lines.append("    other threads not waiting (running, or waiting for the GIL), "
                             "average number of threads there:")
                for site, n in p["threads"]:
                    lines.append(f"      {n / total:4.2f}  {site}")
                continue
            lines.append(
                f"  {name}: {p['seconds']:.0f} s; heartbeats > 50 ms late {p['beats_late_50ms']},"
                f" > 250 ms {p['beats_late_250ms']}, max {p['max_late'] * 1000:.0f} ms; stalls "
                f"{p['stalls']}, {p['stall_total']:.1f} s in all")
            total = p["samples"] or 1
            for site, n in p["sites"]:
                lines.append(f"      {n / total:4.0%}  {site}")
            if p["others"]:
                lines.append("    other threads busy meanwhile:")
                for site, n in p["others"]:
                    lines.append(f"      {n / total:4.0%}  {site}")
    lines.append("")
    verdict = "ok" if not late and not r["failed"] else "OVER"
    lines.append(f"every initial response within 3 s: {verdict}")
    return "\n".join(lines)


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=4, help="tables at once in the load phase")
    p.add_argument("--hands", type=int, default=3, help="hands each load table plays (at least)")
    p.add_argument("--idle-hands", type=int, default=2, help="hands of the idle phase")
    p.add_argument("--think", type=float, default=0.5,
                   help="seconds a player takes before a decision (x0.5-1.5; half as long "
                        "between seeing the cards and playing, a fifth between clicks)")
    p.add_argument("--watch", type=float, default=2.0,
                   help="seconds between an onlooker's interactions (x0.5-1.5)")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="seconds a table may take for one hand before the run is abandoned")
    p.add_argument("--seed", type=int, default=2026, help="the people's random timings")
    p.add_argument("--probe", action="store_true",
                   help="run the bot under bench.latency_probe (event-loop stalls and stacks)")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: 1 idle hand, 1 hand per table, quicker people")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    args = p.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    if args.quick:
        args.hands, args.idle_hands = 1, 1
        args.think, args.watch = min(args.think, 0.1), min(args.watch, 0.5)
    if args.tables < 1 or args.hands < 1 or args.idle_hands < 1:
        p.error("--tables, --hands and --idle-hands must be 1 or more")
    return args


def run(argv: list[str] | None = None) -> dict[str, Any]:
    return asyncio.run(_run(parse(argv)))


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    results = asyncio.run(_run(args))
    if args.json:
        print(json.dumps(results, indent=1, default=str))
    else:
        print(render(results))
    return 1 if results["late"] or results["failed"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
