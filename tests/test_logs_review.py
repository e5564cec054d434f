"""A review of what the bot's log (stderr) and the other files it writes reveal, and whether
the log is useful when something goes wrong.

The situation: on a small server the operator who runs the bot plays at its tables too, and
reads its log to report bugs.  The rule (README): nobody but the owner sees a fantasyland
hand, a pineapple discard, a chinese set (or a declared natural) or the deck before the
showdown.

What was run (the real discord.py client against the loopback Discord of ``tests/e2e``, and
the real ``python -m bot`` process), with the log levels ``setup_logging`` sets (the root at
INFO, ``ofc.*`` at ``OFC_LOG_LEVEL``; here DEBUG, which includes INFO): whole hands of
pineapple (two fantasylands, one a bot's, discards), chinese (a set, a natural when one is
dealt) and ofc (a bot's fantasyland), timeouts (the AI playing for a player), bots, ``/ofc
suggest``, ``/ofc review``, a restart mid-hand and the shutdown; a database failure, Discord
HTTP errors (an outage, a locked thread), an exception in a command; the user's mistakes, a
closed DM, deleted messages, a deleted channel; a hung AI call; the terminal game
(``ofc-bot play``) and its image folder.  Every record is checked, when it is emitted, against
the cards hidden at that moment at every live table (``Spy``).

What holds (plain tests): in normal play the bot logs nothing about hands at all, so no line
names a hidden card, the deck's seed or the token, at INFO or DEBUG; the libraries log
nothing below INFO; user mistakes, a closed DM and deleted messages log nothing at ERROR; a
Discord outage gives one record per failed message, and none once it is over; the terminal
game and its images show a bot's fantasyland face down until the showdown and its discard
never.

Defects found, all fixed since ("Was a defect (fixed)" tests): a bot move the engine refused
logged the bot's whole hidden
hand at ERROR; the error id's line does not say at which table (channel, user) a slash
command failed; a failed message does not say for which table; a locked thread (a documented,
normal state) logs an ERROR with a traceback for every message; a hung AI call does not say
which table's decision hung."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import re
import signal
import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import discord
import pytest

from engine.cards import DECK, Card
from engine.naturals import naturals_in
from tests.e2e.conftest import CARDS_LINE, World, fill_move, hs_of, make_world, table_of
from tests.e2e.fakediscord import FakeDiscord, FakeUser

pytestmark = pytest.mark.e2e

TOKEN = "fake-bot-token"  # (FakeDiscord's default token)


# --------------------------------------------------------------------------- the log spy
def named(text: str, cards: set[str]) -> set[str]:
    """The cards of ``cards`` that ``text`` names (``Ah`` or ``A♥``, as a word of its own)."""
    out = set()
    for c in cards:
        for spelling in (c, Card(c).pretty):
            if re.search(rf"(?<![0-9A-Za-z]){re.escape(spelling)}(?![0-9a-z])", text):
                out.add(c)
    return out


def hidden_now(w: World) -> dict[str, set[str]]:
    """What is hidden at this moment at every live table of ``w``: each seat's pending cards,
    discards, declared natural and hidden (fantasyland, chinese) set, and the deck."""
    out: dict[str, set[str]] = {}
    service = w.bot.service if w.bot is not None else None
    if service is None:
        return out
    for t in list(service.tables.values()):
        h = t.hand
        if h is None or h.is_over:
            continue
        dealt: set[Card] = set()
        for s in range(h.n):
            mine = {*h.pending[s], *h.discards[s], *h.natural_cards[s]}
            dealt |= mine | set(h.boards[s].cards)
            if h.hidden(s):
                mine |= set(h.boards[s].cards)
            out[f"table {t.id} seat {s}'s hidden cards"] = {str(c) for c in mine}
        out[f"table {t.id}'s deck"] = {str(c) for c in DECK if c not in dealt}
    return out


class Spy(logging.Handler):
    """Every record as the bot's stderr shows it (its traceback included), checked when it is
    emitted against the cards hidden at that moment at every live table of ``world``."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        self.records: list[tuple[logging.LogRecord, str]] = []
        self.leaks: list[str] = []
        self.world: World | None = None
        self.seeds: set[str] = set()

    def emit(self, record: logging.LogRecord) -> None:
        text = self.format(record)
        self.records.append((record, text))
        if self.world is None:
            return
        for what, cards in hidden_now(self.world).items():
            hits = named(text, cards)
            if hits:
                self.leaks.append(f"{what} {sorted(hits)} in: {text}")
        if self.world.bot is not None and self.world.bot.service is not None:
            for t in list(self.world.bot.service.tables.values()):
                if t.hand is not None:
                    self.seeds.add(t.hand.seed)

    def since(self, n: int, level: int = logging.DEBUG) -> list[tuple[logging.LogRecord, str]]:
        return [(r, x) for r, x in self.records[n:] if r.levelno >= level]


@pytest.fixture
def spy() -> Iterator[Spy]:
    """The levels ``bot.__main__.setup_logging("DEBUG")`` sets (the root at INFO, ``ofc`` at
    DEBUG), and a ``Spy`` on the root."""
    h = Spy()
    root, ours = logging.getLogger(), logging.getLogger("ofc")
    saved = root.level, ours.level
    root.addHandler(h)
    root.setLevel(logging.INFO)
    ours.setLevel(logging.DEBUG)
    try:
        yield h
    finally:
        root.removeHandler(h)
        root.setLevel(saved[0])
        ours.setLevel(saved[1])


# --------------------------------------------------------------------------- helpers
def user_of(w: World, t: Any, hs: int) -> FakeUser | None:
    seat = t.seat_by_no(t.hand_seats[hs])
    return next((u for u in w.users.values() if seat is not None and u.id == seat.user_id),
                None)


async def play_hand(w: World, absent: tuple[FakeUser, ...] = (), *,
                    before: Callable[[FakeUser, int], Any] | None = None) -> None:
    """The humans at the table in ``w.chan`` play the hand by text (a natural they hold is
    declared); the clocks of the ``absent`` run out (the AI plays for them); bots play."""
    number = table_of(w).row.hand_no
    for _ in range(400):
        t = table_of(w)  # (anew: a restart replaces it)
        if t.hand is None or t.hand.is_over or t.row.hand_no != number:
            return
        acting = [(hs, user_of(w, t, hs)) for hs in t.hand.to_act()]
        present = [(hs, u) for hs, u in acting if u is not None and u not in absent]
        if present:
            hs, u = present[0]
            if before is not None:
                await before(u, hs)
                t = table_of(w)
                if t.hand is None or t.hand.is_over or not t.hand.may_act(hs):
                    continue
            if t.rules.variant == "chinese" and naturals_in(t.hand.pending[hs]):
                natural = naturals_in(t.hand.pending[hs])[0]
                r = await w.slash(u, "ofc declare", natural=natural)
            else:
                panel = await w.slash(u, "ofc hand")
                m = CARDS_LINE.search(panel.content)
                assert m, panel.content
                r = await w.slash(u, "ofc place", move=fill_move(t, hs, m.group(1).split()))
            assert r.content.startswith("✅"), r.content
            continue
        if any(u is not None for _, u in acting):  # only the absent: their clock runs out
            w.clock.offset += 400
            w.service.rearm()
        await asyncio.sleep(0.1)
    raise AssertionError("the hand did not end")


async def open_table(w: World, host: FakeUser, *others: FakeUser, bots: int = 0,
                     fantasyland: dict[str, int] | None = None, **options: Any) -> Any:
    r = await w.slash(host, "ofc new", **{"stake": 1, **options})
    assert "opened" in r.content, r.content
    for u in others:
        assert "sat down" in (await w.slash(u, "ofc join")).content
    for _ in range(bots):
        assert "sat down" in (await w.slash(host, "ofc addbot", level="easy")).content
    t = table_of(w)
    if fantasyland:
        await w.store.update_table(t.id, extra={**t.row.extra, "fantasyland": fantasyland})
        await w.service._refresh(t)
    r = await w.slash(host, "ofc start")
    assert "is dealt" in r.content, r.content
    return table_of(w)


class _Response:
    """What discord.py's HTTPException reads of a response."""

    status = 503
    reason = "Service Unavailable"


def discord_down(w: World, match: Callable[[Any], bool]) -> dict[str, Any]:
    """Every REST call of the bot that ``match``es fails with 503 while ``state["on"]``."""
    assert w.bot is not None
    http = w.bot.http
    real = http.request
    state: dict[str, Any] = {"on": True, "failed": 0}

    async def request(route: Any, **kw: Any) -> Any:
        if state["on"] and match(route):
            state["failed"] += 1
            raise discord.DiscordServerError(_Response(), {"message": "upstream down",
                                                           "code": 0})
        return await real(route, **kw)

    http.request = request  # type: ignore[method-assign]
    return state


async def move_by_text(w: World, t: Any) -> None:
    """The human to act at ``t`` plays a street by text (the channel is ``w.chan``)."""
    hs = t.hand.to_act()[0]
    u = user_of(w, t, hs)
    assert u is not None
    panel = await w.slash(u, "ofc hand")
    m = CARDS_LINE.search(panel.content)
    assert m, panel.content
    r = await w.slash(u, "ofc place", move=fill_move(t, hs, m.group(1).split()))
    assert r.content.startswith("✅"), r.content


async def edits_done(w: World) -> None:
    presenter = w.bot.get_cog("OFC").presenter  # type: ignore[union-attr]
    await w.fake.wait_until(
        lambda: all(task.done() for task in presenter._pending_edits.values()), 5, "edits")


def _hang(*args: Any, **kwargs: Any) -> Any:
    """In the AI's worker: a decision that never comes (a module-level function: picklable)."""
    import time

    time.sleep(60)


# --------------------------------------------------------------------------- what holds
async def test_whole_hands_of_every_variant_log_no_hidden_card_seed_or_token(
    tmp_path: Path, spy: Spy, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pineapple with two fantasylands (a player's, a bot's) and discards, a ``/ofc suggest``,
    a database failure, an exception in a command and a restart mid-hand, the fantasyland's
    clock running out, ``/ofc review``; chinese with a bot and a timeout (a natural declared
    when one is dealt); ofc with a bot in fantasyland.  No record, at DEBUG, names a card
    hidden at that moment, a hand's seed or the token; the libraries log nothing below INFO.
    (The bot logs nothing about a hand being played: the only records during play are the
    provoked failures, whose tracebacks name no card.)"""
    seeds = iter(["logs-pine", "logs-ch-172", "logs-ofc"])
    async with make_world(tmp_path, seed_factory=lambda: next(seeds, "logs-more"),
                          bot_delay=0.0, next_hand_delay=60) as w:
        spy.world = w
        await w.start_bot()
        # pineapple: alice 15 cards of fantasyland (by DM), the bot 14, bob plays streets
        t = await open_table(w, w.alice, w.bob, bots=1, variant="pineapple", seats=3,
                             fantasyland={"0": 15, "2": 14})
        assert t.hand.fantasyland == (15, 0, 14)
        suggestion = await w.fake.slash(w.alice, w.chan, "ofc suggest", timeout=30)
        assert "💡" in "\n".join(m.content or "" for m in suggestion.followups)

        async def trouble(u: FakeUser, hs: int) -> None:
            nonlocal t
            street = sum(1 for a in t.hand.log if a.seat == hs)
            if u is not w.bob or street not in (1, 2) or w.__dict__.get(f"done{street}"):
                return
            w.__dict__[f"done{street}"] = True
            if street == 1:  # a database failure: the move is refused, tried again
                real = w.store.save_hand_state

                async def broken(*args: Any, **kwargs: Any) -> None:
                    w.store.save_hand_state = real
                    raise sqlite3.OperationalError("disk I/O error")

                w.store.save_hand_state = broken
                hand = await w.slash(u, "ofc hand")
                m = CARDS_LINE.search(hand.content)
                assert m
                r = await w.slash(u, "ofc place", move=fill_move(t, hs, m.group(1).split()))
                assert "database" in r.content, r.content
                import cogs.presenter

                async def boom(self: Any, table: Any) -> Any:
                    raise RuntimeError("boom")

                with monkeypatch.context() as mp:  # an exception in a command
                    mp.setattr(cogs.presenter.Presenter, "table_payload", boom)
                    r = await w.slash(w.carol, "ofc table")
                assert "error id" in r.content
            else:  # a restart mid-hand
                await w.stop_bot()
                await w.start_bot()
                t = table_of(w)

        await play_hand(w, absent=(w.alice,), before=trouble)
        assert w.__dict__.get("done2"), "the restart happened"
        review = await w.fake.slash(w.bob, w.chan, "ofc review", timeout=60)
        assert "Your play in hand #1" in "\n".join(m.content or "" for m in review.followups)
        # chinese: carol and dave and a bot; carol's clock runs out
        w.chan = w.fake.add_text_channel(w.guild, "chinese")
        await open_table(w, w.dave, w.carol, bots=1, variant="chinese", seats=3)
        await play_hand(w, absent=(w.carol,))
        # ofc: admin against a bot in fantasyland
        w.chan = w.fake.add_text_channel(w.guild, "classic")
        await open_table(w, w.admin, bots=1, variant="ofc", fantasyland={"1": 13})
        await play_hand(w)
        await edits_done(w)
    with sqlite3.connect(w.db) as con:
        rows = con.execute("SELECT seed, state FROM hands ORDER BY id").fetchall()
    seeds = {seed for seed, _ in rows}
    played = [json.loads(state)["engine"]["state"] for _, state in rows]
    assert played[0]["autoplayed"][0] == 1  # (alice's fantasyland: her clock ran out)
    assert any(played[1]["naturals"])  # (carol's clock: the AI declared her natural)
    texts = [x for _, x in spy.records]
    assert any("saving hand" in x and "Traceback" in x for x in texts), texts  # (checked too)
    assert any("unexpected error" in x for x in texts), texts
    assert spy.leaks == []
    assert len(seeds) == 3
    assert [x for x in texts if TOKEN in x or any(s in x for s in seeds)] == []
    assert [x for r, x in spy.records if r.levelno < logging.INFO
            and not r.name.startswith("ofc")] == []


def test_the_real_bot_at_debug_logs_no_token_no_library_debug_and_no_hidden_card(
    tmp_path: Path,
) -> None:
    """``python -m bot`` with ``OFC_LOG_LEVEL=DEBUG``: a practice pineapple hand against a
    bot to its showdown, ``kill -USR1`` (the stacks) and SIGTERM.  Its stderr holds no token,
    no discord.py or aiosqlite DEBUG record, no seed and none of the bot's discards (hidden
    forever); no traceback."""

    async def run() -> tuple[str, Path, int]:
        async with FakeDiscord(token=TOKEN) as fake:
            guild = fake.add_guild("Logs")
            chan = fake.add_text_channel(guild, "ofc")
            alice = fake.add_user("alice", guild=guild)
            env = {k: v for k, v in os.environ.items()
                   if not k.startswith(("OFC_", "DISCORD_"))}
            db = tmp_path / "ofc.sqlite3"
            env.update(DISCORD_TOKEN=fake.token, DISCORD_API_BASE=fake.api_base,
                       DISCORD_GATEWAY_URL=fake.gateway_url, OFC_AI_PROCESSES="0",
                       OFC_DATABASE=str(db), OFC_DEV_GUILD_ID=str(guild.id),
                       OFC_LOG_LEVEL="DEBUG", OFC_NEXT_HAND_DELAY="60", PYTHONUNBUFFERED="1",
                       PYTHONPATH=str(Path(__file__).resolve().parents[1]))
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=tmp_path, env=env,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE)
            assert proc.stderr is not None
            lines: list[str] = []
            try:
                while not any(" connected as " in x for x in lines):
                    raw = await asyncio.wait_for(proc.stderr.readline(), 120)
                    assert raw, "".join(lines)
                    lines.append(raw.decode(errors="replace"))
                reader = asyncio.ensure_future(proc.stderr.read())
                r = await fake.slash(alice, chan, "ofc new", options={
                    "variant": "pineapple", "bots": 1, "level": "easy"})
                assert "opened" in (r.content or ""), r.content
                await fake.slash(alice, chan, "ofc start")
                free = [3, 5, 5]
                for _ in range(100):
                    if any("Showdown — hand #1" in (m.content or "")
                           for m in fake.messages(chan)):
                        break
                    panel = await fake.slash(alice, chan, "ofc hand")
                    m = CARDS_LINE.search(panel.content or "")
                    if m is None:  # the bot's turn
                        await asyncio.sleep(0.1)
                        continue
                    cards = m.group(1).split()
                    keep = cards if len(cards) == 5 else cards[:2]
                    parts = []
                    for c in keep:
                        row = 2 if free[2] else 1 if free[1] else 0
                        free[row] -= 1
                        parts.append(f"{c} {('top', 'middle', 'bottom')[row]}")
                    parts += [f"{c} discard" for c in cards[len(keep):]]
                    r = await fake.slash(alice, chan, "ofc place",
                                         move=" ".join(parts) + " foul")
                    assert (r.content or "").startswith("✅"), r.content
                await fake.wait_for_message(
                    chan, lambda m: "Showdown — hand #1" in (m.content or ""),
                    include_existing=True, timeout=30)
                proc.send_signal(signal.SIGUSR1)
                await asyncio.sleep(0.5)
                proc.send_signal(signal.SIGTERM)
                rest = await asyncio.wait_for(reader, 60)
                await proc.wait()
            finally:
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
            return "".join(lines) + rest.decode(errors="replace"), db, alice.id

    log, db, alice_id = asyncio.run(run())
    assert "Thread 0x" in log and " ofc.bot: stopped" in log, log  # (the stacks, the stop)
    assert TOKEN not in log
    assert not re.search(r" DEBUG (discord|aiosqlite)", log), log
    assert "Traceback" not in log, log
    with sqlite3.connect(db) as con:
        (seed, state), = con.execute("SELECT seed, state FROM hands").fetchall()
    state = json.loads(state)
    users = [int(u) for u in state["users"]]
    discards = state["engine"]["state"]["discards"]
    secret = {c for seat, cards in enumerate(discards) if users[seat] != alice_id
              for c in cards}
    assert len(secret) == 4  # (the bot's discards: one a street after the first)
    assert seed not in log
    assert named(log, secret) == set(), log


async def test_normal_events_log_nothing_at_error(tmp_path: Path, spy: Spy) -> None:
    """A user's mistakes (a bad move, a move out of turn, a natural at ofc, a bad
    ``/ofc suggest cards:``, joining twice), a fantasyland DM refused (closed DMs), the table
    message and the turn ping deleted by a moderator, and the channel deleted: nothing at ERROR
    (the channel's loss is an INFO line naming the table and its voided hand)."""
    async with make_world(tmp_path, seed_factory=lambda: "logs-normal", bot_delay=0.0,
                          next_hand_delay=60) as w:
        spy.world = w
        w.bob.dms_open = False
        await w.start_bot()
        n = len(spy.records)
        t = await open_table(w, w.alice, w.bob, variant="ofc", fantasyland={"1": 13})
        await w.fake.wait_for_message(w.chan, lambda m: "DMs are closed" in (m.content or ""),
                                      include_existing=True)
        for who, command, options in (
            (w.alice, "ofc place", {"move": "zz top"}),
            (w.alice, "ofc declare", {"natural": "dragon"}),
            (w.carol, "ofc place", {"move": "Ah top"}),
            (w.alice, "ofc suggest", {"cards": "Ah Ah"}),
            (w.carol, "ofc start", {}),
            (w.bob, "ofc join", {}),
        ):
            r = await w.slash(who, command, **options)
            assert r.ephemeral and r.content.startswith("⚠️"), r.content
        await edits_done(w)
        presenter = w.bot.get_cog("OFC").presenter  # type: ignore[union-attr]
        await w.fake._deleted(w.fake.message(presenter._message_ids.get(t.id)
                                             or t.row.message_id))
        for m in w.fake.messages(w.chan):
            if "your turn" in (m.content or "") and not m.deleted:
                await w.fake._deleted(m)
        await move_by_text(w, t)
        await edits_done(w)
        await w.fake.delete_channel(w.chan)
        await w.fake.wait_until(lambda: t.id not in w.service.tables, 5, "closed")
    assert [x for _, x in spy.since(n, logging.ERROR)] == []
    assert any(f"table {t.id} closed: its channel" in x for _, x in spy.since(n)), spy.since(n)
    assert spy.leaks == []


async def test_a_discord_outage_logs_one_record_per_failed_message_and_stops_with_it(
    tmp_path: Path, spy: Spy,
) -> None:
    """Every message to the channel fails (503) while four streets are played: one record per
    failed message (the table's edit, the turn ping), no retry storm, and nothing more once
    Discord is back.  (Each record carries a whole traceback, 12-15 lines, for an HTTP error
    whose status and code say it all: see the locked thread below.)"""
    async with make_world(tmp_path, seed_factory=lambda: "logs-outage", bot_delay=0.0,
                          next_hand_delay=60) as w:
        spy.world = w
        await w.start_bot()
        t = await open_table(w, w.alice, w.bob, variant="ofc")
        await edits_done(w)
        n = len(spy.records)
        down = discord_down(w, lambda route: route.path.startswith("/channels/"))
        for _ in range(4):
            await move_by_text(w, t)
            await edits_done(w)
        await asyncio.sleep(0.5)
        down["on"] = False
        errors = spy.since(n, logging.ERROR)
        assert 4 <= len(errors) <= min(down["failed"], 2 * 4 + 1), [x for _, x in errors]
        m = len(spy.records)
        await asyncio.sleep(1.5)
        assert spy.since(m, logging.WARNING) == []
    assert spy.leaks == []


def test_the_terminal_game_and_its_images_hide_a_bots_cards_until_the_showdown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``ofc-bot play`` (pineapple, a bot in a 14-card fantasyland, the human playing
    ``auto``): before the showdown neither the terminal nor the table images (the views drawn)
    show any of the bot's cards; its discard never; the random seed is told at the end only
    and names no image."""
    import bot.play
    import renderer
    from engine import Hand

    hands: list[Hand] = []

    def dealt(rules: Any, names: Any, button: int, fantasyland: Any, seed: str) -> Hand:
        hand = Hand(rules, names, button, (fantasyland[0], 14), seed=seed)
        hands.append(hand)
        return hand

    drawn: list[Any] = []
    real_table = renderer.render_table

    def table_image(view: Any, **kw: Any) -> bytes:
        drawn.append(view)
        return bytes(real_table(view, **kw))

    monkeypatch.setattr(bot.play, "Hand", dealt)
    monkeypatch.setattr(renderer, "render_table", table_image)
    out = io.StringIO()
    images = tmp_path / "images"
    code = bot.play.main(["--variant", "pineapple", "--bots", "1", "--level", "easy",
                          "--sims", "8", "--images", str(images)],
                         stdin=io.StringIO("auto\n" * 5), stdout=out)
    text = out.getvalue()
    assert code == 0, text
    (hand,) = hands
    assert hand.is_over and hand.fantasyland == (0, 14)
    before, _, after = text.partition("Showdown, hand 1")
    assert after, text
    bot_cards = {str(c) for c in hand.boards[1].cards} | {str(c) for c in hand.discards[1]}
    assert len(bot_cards) == 14
    assert named(before, bot_cards) == set(), before
    assert named(text, {str(c) for c in hand.discards[1]}) == set(), text
    assert drawn and all(not view.seats[1].board.cards and not view.seats[1].last_placed
                         for view in drawn)
    seed = hand.seed.rsplit("/", 1)[0]
    assert seed not in before and seed in text.rstrip().splitlines()[-1], text
    files = sorted(p.name for p in images.iterdir())
    assert files and not any(seed in name for name in files), files


# --------------------------------------------------------------------------- defects
async def test_a_refused_bot_move_does_not_log_the_bots_hidden_cards(
    tmp_path: Path, spy: Spy, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Was a defect (fixed).

    A bot in a 14-card pineapple fantasyland whose AI answers a move the engine refuses
    (an AI bug: the line exists for it, and the operator reads it to report it).
    bot/service.py:2866 logs ``bot move refused; autoplaying`` with the exception, and the
    engine's WrongCount (engine/hand.py:448, ``_count_message``) reads "You must place 13 and
    discard 1 of 3d 5h 6h 6d Kh Ah Kd As 9h 9s 7c 4d Qh Ad: you placed 0 and discarded 0":
    the bot's whole hand, set face down until the showdown, and the card it discards, hidden
    forever, at ERROR (the default level shows it) while the hand is played.  The line does
    not say which table either.  It should name the table, hand, seat and step (what replays
    it from the database) and the exception's type, never its cards; bot/service.py:2705 (a
    timeout's move refused) has the same shape, with a player's own hidden cards."""
    import bot.service

    monkeypatch.setattr(bot.service, "choose_move", lambda *args, **kwargs: ((), ()))
    async with make_world(tmp_path, seed_factory=lambda: "logs-refused", bot_delay=0.0,
                          next_hand_delay=60) as w:
        spy.world = w
        await w.start_bot()
        t = await open_table(w, w.alice, w.bob, bots=1, variant="pineapple", seats=3,
                             fantasyland={"2": 14})
        await w.fake.wait_until(lambda: t.hand.done[2], 20, "the bot's set (autoplayed)")
        refused = [x for r, x in spy.records if "bot's move at hand seat" in x]
        assert refused and f"table {t.id} hand #1" in refused[0], refused  # (where it was)
        assert spy.leaks == [], spy.leaks


async def test_an_exception_in_a_slash_command_logs_where_it_happened(
    tmp_path: Path, spy: Spy, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Was a defect (fixed).

    ``/ofc table`` fails (an exception while drawing the table).  The user sees "Something
    went wrong on our side (error id `06361d62`)"; the log (bot/app.py:273) says
    ``ERROR ofc.bot: unexpected error 06361d62 in ofc table`` and the traceback: the error id
    and the command, but not at which table, in which channel or server, nor who asked.  A
    player's report ("error 06361d62 at our table") cannot be tied to the table's state (its
    hand, the database rows) without a second run.  A component's error names its custom id,
    which carries the table; a slash command's should name the channel (and the table there,
    if any; the user would help too), still never the options sent (a move's text: a
    player's discard)."""
    import cogs.presenter

    async with make_world(tmp_path, seed_factory=lambda: "logs-error-id",
                          next_hand_delay=60) as w:
        spy.world = w
        await w.start_bot()
        t = await open_table(w, w.alice, w.bob, variant="ofc")

        async def boom(self: Any, table: Any) -> Any:
            raise RuntimeError("boom")

        monkeypatch.setattr(cogs.presenter.Presenter, "table_payload", boom)
        r = await w.slash(w.carol, "ofc table")
        error_id = re.search(r"error id `(\w+)`", r.content)
        assert error_id, r.content
        (record, text), = [(rec, x) for rec, x in spy.records if error_id[1] in x]
        assert record.levelno == logging.ERROR and "ofc table" in text and "boom" in text
        message = record.getMessage()
        assert (str(w.chan.id) in message or re.search(rf"\btable #?{t.id}\b", message)), message


async def test_a_message_that_fails_names_its_table(tmp_path: Path, spy: Spy) -> None:
    """Was a defect (fixed).

    A turn ping that Discord refuses (here a 503) is logged by the service's SafeNotifier
    (bot/service.py:313) as ``ERROR ofc.service: notifier turn_started failed`` and a
    traceback through presenter.turn_started, discord.py and a ``503 Service Unavailable``:
    nothing says which table (or channel) lost its ping, its showdown or its notice.  With two
    tables the operator cannot tell which one a player's "I was never pinged" is about.  It
    should name the table (and its channel), as presenter.py:630 does for a failed edit."""
    async with make_world(tmp_path, seed_factory=lambda: "logs-notifier", bot_delay=0.0,
                          next_hand_delay=60) as w:
        spy.world = w
        await w.start_bot()
        t = await open_table(w, w.alice, w.bob, variant="ofc")
        await edits_done(w)
        n = len(spy.records)
        down = discord_down(w, lambda route: route.method == "POST"
                            and route.path == "/channels/{channel_id}/messages")
        await move_by_text(w, t)
        await edits_done(w)
        down["on"] = False
        failed = [r.getMessage() for r, _ in spy.since(n, logging.ERROR)
                  if "notifier" in r.getMessage()]
        assert failed, [x for _, x in spy.since(n)]
        assert all(re.search(rf"\btable #?{t.id}\b", m) or str(w.chan.id) in m
                   for m in failed), failed


async def test_a_locked_thread_is_not_an_error_per_message(tmp_path: Path, spy: Spy) -> None:
    """Was a defect (fixed).

    README ("Threads and forum posts"): "A locked thread refuses the bot's messages, so
    the table plays on silently".  It is a moderator's choice, not a failure, yet every move
    played there logs ``ERROR ofc.presenter: could not update the table message of table 1``
    (cogs/presenter.py:630) and ``ERROR ofc.service: notifier turn_started failed``
    (bot/service.py:313), each with a whole traceback ending in ``403 Forbidden (error code:
    50083): Thread is archived``: four moves, eight ERROR tracebacks, without end for as long
    as the thread stays locked and its players click on.  It should be said once (at WARNING
    or INFO: the table's thread is locked, its messages wait), not as an error per message."""
    from tests.e2e.test_threads import table_in_thread

    async with make_world(tmp_path, seed_factory=lambda: "logs-locked",
                          next_hand_delay=60) as w:
        spy.world = w
        thread = await table_in_thread(w)
        await w.fake.wait_for_message(thread, lambda m: "your turn" in (m.content or ""),
                                      include_existing=True)
        await edits_done(w)
        await w.fake.lock_thread(thread)
        await w.fake.wait_until(
            lambda: w.bot.get_guild(w.guild.id).get_thread(thread.id).locked, 5, "locked")
        n = len(spy.records)
        t = table_of(w)
        for _ in range(4):  # (no message box in a locked thread: the panel's moves)
            hs = t.hand.to_act()[0]
            u = user_of(w, t, hs)
            assert u is not None
            req = t.hand.requirement(hs)
            await w.service.place_text(thread.id, u.id,
                                       fill_move(t, hs, [str(c) for c in req.cards]))
            await edits_done(w)
        await asyncio.sleep(0.3)
        assert any(e[3] == 50083 for e in w.fake.api_errors)  # (refused, as Discord does)
        errors = [x for _, x in spy.since(n, logging.ERROR)]
        assert errors == [], f"{len(errors)} ERROR records:\n" + "\n".join(errors)
        said = [x for _, x in spy.since(n, logging.WARNING) if "takes no message" in x]
        assert len(said) == 1, said  # (once for the table, not at every move)


async def test_a_hung_ai_call_names_the_decision_that_hung(
    tmp_path: Path, spy: Spy, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Was a defect (fixed).

    A bot's decision hangs in the AI's worker (``OFC_AI_PROCESSES`` 1, the default): the
    watchdog stops the worker, its stacks go to stderr (no timestamp, no table), and the bot
    logs ``ERROR ofc.thinker: the AI did not answer _hang within 0 s: its worker was stopped
    (where it was stuck is above); a plain move instead`` (bot/thinker.py:180; "0 s": the
    limit, 0.5 here, printed with ``%.0f``).  Which table's decision, in which hand, for which
    seat, is said nowhere, so the position that hangs the AI (a bug to reproduce) cannot be
    found in the database without a second run.  The line (or one by the caller,
    bot/service.py:2852) should name the table, hand and seat, never the cards."""
    import bot.service
    from bot.thinker import Thinker

    async with make_world(tmp_path, seed_factory=lambda: "logs-hang", bot_delay=0.0,
                          next_hand_delay=60) as w:
        spy.world = w
        await w.start_bot()
        w.service.thinker = thinker = Thinker(1, hang_limit=0.5)
        try:
            monkeypatch.setattr(bot.service, "choose_move", _hang)
            t = await open_table(w, w.alice, bots=1, variant="ofc")
            bot_hs = 1 - hs_of(w, w.alice)
            if t.hand.may_act(1 - bot_hs):
                await move_by_text(w, t)
            await w.fake.wait_until(lambda: len(t.hand.boards[bot_hs]) > 0
                                    or t.hand.done[bot_hs], 30, "the bot's plain move")
        finally:
            thinker.close()
        hung = [r.getMessage() for r, _ in spy.records if "did not answer" in r.getMessage()]
        assert hung, [x for _, x in spy.records]
        assert all(re.search(rf"\btable #?{t.id}\b", m) and "hand" in m for m in hung), hung
