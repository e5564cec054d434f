"""Run the real bot (discord.py client, store, service, cogs) against the loopback Discord."""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.app import OFCBot
from bot.settings import Settings

from .fakediscord import FakeDiscord, FakeInteraction, FakeUser

LATENCIES: list[float] = []


class Clock:
    """Wall time plus an offset the tests can move forward (timers)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


@dataclass
class World:
    fake: FakeDiscord
    guild: Any
    chan: Any
    users: dict[str, FakeUser]
    db: Path
    clock: Clock = field(default_factory=Clock)
    bot: OFCBot | None = None
    stack: contextlib.AsyncExitStack = field(default_factory=contextlib.AsyncExitStack)
    service_options: dict[str, Any] = field(default_factory=dict)
    ai_processes: int = 0
    """The AI's worker processes (``OFC_AI_PROCESSES``); 0: threads, faster to start."""
    dev_guild: bool = True
    """``OFC_DEV_GUILD_ID`` set to the guild (commands synced there); else none (global)."""
    settings: dict[str, Any] = field(default_factory=dict)
    """More of the bot's settings (e.g. ``backup_dir``)."""

    def __getattr__(self, name: str) -> FakeUser:
        users = self.__dict__.get("users", {})
        if name in users:
            return users[name]
        raise AttributeError(name)

    async def start_bot(self) -> OFCBot:
        settings = Settings(
            discord_token=self.fake.token, database=str(self.db), api_base=self.fake.api_base,
            gateway_url=self.fake.gateway_url,
            dev_guild_id=self.guild.id if self.dev_guild else None,
            next_hand_delay=30.0, edit_coalesce=0.05, ai_processes=self.ai_processes,
            **self.settings,
        )
        bot = OFCBot(settings, guild_ready_timeout=0.05)
        bot.service_options = {"clock": self.clock, **self.service_options}
        self.bot = bot
        await self.stack.enter_async_context(self.fake.run_client(bot))
        return bot

    async def stop_bot(self) -> None:
        await self.stack.aclose()
        self.stack = contextlib.AsyncExitStack()
        self.bot = None

    @property
    def service(self) -> Any:
        assert self.bot is not None and self.bot.service is not None
        return self.bot.service

    @property
    def store(self) -> Any:
        assert self.bot is not None and self.bot.store is not None
        return self.bot.store

    async def slash(self, who: FakeUser, command: str, **options: Any) -> FakeInteraction:
        rec = await self.fake.slash(who, self.chan, command, options=options)
        if rec.latency is not None:
            LATENCIES.append(rec.latency)
        return rec

    async def click(self, user: FakeUser, message: Any, **kw: Any) -> FakeInteraction:
        rec = await self.fake.click(user, message, **kw)
        if rec.latency is not None:
            LATENCIES.append(rec.latency)
        return rec

    async def select(self, user: FakeUser, message: Any, custom_id: str | None,
                     values: list[str]) -> FakeInteraction:
        rec = await self.fake.select(user, message, custom_id, values)
        if rec.latency is not None:
            LATENCIES.append(rec.latency)
        return rec


@contextlib.asynccontextmanager
async def make_world(
    tmp_path: Path, names: tuple[str, ...] = ("alice", "bob", "carol", "dave"),
    ai_processes: int = 0, **service_options: Any,
) -> AsyncIterator[World]:
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Poker Night")
        chan = fake.add_text_channel(guild, "ofc")
        users = {n: fake.add_user(n, guild=guild) for n in names}
        users["admin"] = fake.add_user("admin", guild=guild, manage_guild=True)
        world = World(fake=fake, guild=guild, chan=chan, users=users,
                      db=tmp_path / "ofc.sqlite3", service_options=service_options,
                      ai_processes=ai_processes)
        try:
            yield world
        finally:
            await world.stop_bot()
        # (every picture the bot sent has its alt text: what a screen reader says of it)
        assert [a.filename for a in fake.uploads() if a.filename.endswith(".png")
                and not (a.description or "").startswith("Picture of ")] == []


def table_of(w: World) -> Any:
    """The table in the world's channel."""
    return w.service.table_in_channel(w.chan.id)


async def resumed_table(w: World, channel: Any = None, timeout: float = 10.0) -> Any:
    """The table in ``channel`` (default: the world's) once a start of the bot resumed it:
    ``start_bot`` returns at READY, and the tables are resumed one by one just after (until
    then the service refuses them: "resuming this table")."""
    channel_id = (channel or w.chan).id

    def resumed() -> bool:
        table_id = w.service._by_channel.get(channel_id)
        t = w.service.tables.get(table_id) if table_id is not None else None
        return t is not None and not t.resuming

    await w.fake.wait_until(resumed, timeout, "the table resumed")
    return w.service.table_in_channel(channel_id)


def hs_of(w: World, user: FakeUser) -> int:
    """The hand seat of ``user`` at the table in the world's channel."""
    t = table_of(w)
    hs = t.hand_seat_of(t.seat_of_user(user.id).seat_no)
    assert hs is not None
    return int(hs)


def fill_move(t: Any, hs: int, cards: Sequence[str]) -> str:
    """Every card on a row with room (bottom first), the rest discarded; ``foul`` allowed."""
    req = t.hand.requirement(hs)
    free = list(req.free)
    keep = len(cards) - req.discard
    parts = []
    for c in cards[:keep]:
        r = 2 if free[2] else 1 if free[1] else 0
        free[r] -= 1
        parts.append(f"{c} {('top', 'middle', 'bottom')[r]}")
    parts += [f"{c} discard" for c in cards[keep:]]
    return " ".join(parts) + " foul"


CARDS_LINE = re.compile(r"^(?:Place|Set)[^\n]*: ((?:[2-9TJQKA][cdhs] ?)+)$", re.M)


def panel_cards(text: str) -> list[str]:
    m = CARDS_LINE.search(text)
    assert m, f"no cards in panel text: {text!r}"
    return m.group(1).split()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not LATENCIES:
        return
    data = sorted(LATENCIES)

    def pct(p: float) -> float:
        return data[min(len(data) - 1, int(round(p * (len(data) - 1))))] * 1000

    terminalreporter.write_line(
        f"e2e interaction -> response: n={len(data)} p50={pct(0.5):.1f} ms "
        f"p99={pct(0.99):.1f} ms max={data[-1] * 1000:.1f} ms"
    )


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class ErrorLog(logging.Handler):
    """Collects the bot's ERROR records (an unexpected exception is one)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def errors() -> Any:
    """The ERROR records logged while the test runs (an unexpected exception is one)."""
    h = ErrorLog()
    root = logging.getLogger()
    root.addHandler(h)
    yield h.records
    root.removeHandler(h)
