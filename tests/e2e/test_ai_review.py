"""An adversarial review of the AI as the bot plays it: bot seats, timeouts, /ofc suggest and the
thinker's worker process, driven through the real discord.py client and the loopback Discord.

Every hand handed to the AI is checked to hold nothing its seat may not see (``_Recorder``)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import signal
import time
from collections.abc import Callable
from typing import Any

import pytest

from bot.thinker import Thinker
from engine import Card, Hand
from engine.actions import Place
from engine.ai import LEVELS, choose_move, choose_natural, describe_move, set_move, suggest
from engine.autoplay import street_moves

from .conftest import World, fill_move, make_world, panel_cards, resumed_table, table_of
from .test_concurrency_review import SlowThinker, no_errors_logged

pytestmark = pytest.mark.e2e


# --------------------------------------------------------------------------- helpers
def _slowly(seconds: float, fn: Callable[..., Any], *args: Any) -> Any:
    """In a worker: ``fn(*args)`` after ``seconds`` (a decision still under way when the test
    kills or stops the worker)."""
    time.sleep(seconds)
    return fn(*args)


def _held(hand: Hand, seat: int) -> set[Card]:
    cards: set[Card] = set()
    cards.update(hand.boards[seat].cards, hand.pending[seat], hand.discards[seat],
                 hand.natural_cards[seat])
    return cards


class _Recorder:
    """Wraps the service's ``thinker.run``: records every call (its name, the hand and seat it
    was given, what it answered, how long it took) and checks the hand given holds only what
    that seat of the real hand may see."""

    def __init__(self, w: World, *, around: Callable[..., Any] | None = None) -> None:
        self.w = w
        self.calls: list[dict[str, Any]] = []
        self.failed: list[dict[str, Any]] = []
        """Calls that ended with an exception (cancelled, say): not in ``calls``."""
        self.leaks: list[str] = []
        self.checked = 0
        self.around = around
        self.install()

    def install(self) -> None:
        thinker = self.w.service.thinker
        real = thinker.run
        if getattr(real, "_recorder", None) is not None:  # a restart keeps the same thinker
            real = real._real  # type: ignore[attr-defined]

        async def run(fn: Any, *args: Any, fallback: Any = None, what: str = "") -> Any:
            hand = getattr(fn, "__self__", None)
            if not isinstance(hand, Hand):
                hand = next((a for a in args if isinstance(a, Hand)), None)
            seat = next((a for a in args if type(a) is int), None)
            name = getattr(fn, "__name__", str(fn))
            entry: dict[str, Any] = {"fn": name, "hand": hand, "seat": seat}
            if hand is not None and seat is not None:
                entry["copy"] = Hand.from_json(hand.to_json())
                self._check(hand, seat)
            start = time.monotonic()
            try:
                if self.around is not None:
                    out = await self.around(real, fn, *args, fallback=fallback)
                else:
                    out = await real(fn, *args, fallback=fallback)
            except BaseException as e:  # (a call cancelled or given up has ended too: kept
                entry["seconds"] = time.monotonic() - start  # apart, so that waiting for the
                entry["error"] = e  # calls under way does not wait for it)
                self.failed.append(entry)
                raise
            entry["seconds"] = time.monotonic() - start
            entry["result"] = out
            self.calls.append(entry)
            return out

        run._recorder = self  # type: ignore[attr-defined]
        run._real = real  # type: ignore[attr-defined]
        thinker.run = run

    def _check(self, given: Hand, seat: int) -> None:
        """``given`` against the live hand it was made from (at any table of the bot)."""
        real = None
        for t in list(self.w.service.tables.values()):
            if t.hand is None or t.hand.is_over:
                continue
            if given.seed == t.hand.seed:
                self.leaks.append(f"seat {seat} was given the deck's seed")
                return
            mark = hashlib.sha256(f"seen by {seat}/{t.hand.seed}".encode()).hexdigest()[:32]
            if given.seed == mark:
                real = t.hand
        if real is None:  # (its table closed meanwhile)
            return
        seen = real.cards_seen_by(seat)
        for o in range(given.n):
            extra = _held(given, o) - seen
            if extra:
                self.leaks.append(f"seat {seat} was given seat {o}'s unseen {sorted(extra)}")
        rest = list(real._deck[real._next:])  # (a few cards may come out in order by chance)
        if len(rest) >= 8 and list(given._deck[given._next:]) == rest:
            self.leaks.append(f"seat {seat} was given the deck's order ({len(rest)} left, "
                              f"{len(real.log)} actions)")
        self.checked += 1

    def of(self, name: str) -> list[dict[str, Any]]:
        return [c for c in self.calls if c["fn"] == name]


def _answer(r: Any) -> str:
    return "\n".join([r.content or "", *(m.content or "" for m in r.followups)])


def _user_acting(w: World, user: Any) -> bool:
    t = table_of(w)
    if t.hand is None:
        return False
    seat = t.seat_of_user(user.id)
    hs = t.hand_seat_of(seat.seat_no) if seat is not None else None
    return hs is not None and t.hand.may_act(hs)


def _hs(w: World, user: Any) -> int:
    t = table_of(w)
    hs = t.hand_seat_of(t.seat_of_user(user.id).seat_no)
    assert hs is not None
    return int(hs)


async def _play_for(w: World, user: Any, hand_no: int, timeout: float = 60.0,
                    until: Callable[[], bool] | None = None) -> None:
    """``user`` plays by text (every card on a row with room, ``foul`` allowed) until hand
    ``hand_no`` is over (or ``until()``)."""
    deadline = time.monotonic() + timeout
    await w.fake.wait_until(lambda: table_of(w).row.hand_no >= hand_no, timeout, "the deal")
    while True:
        t = table_of(w)
        if t.hand is None or t.row.hand_no != hand_no or (until is not None and until()):
            return
        assert time.monotonic() < deadline, "the hand did not go on"
        if _user_acting(w, user):
            hs = _hs(w, user)
            cards = panel_cards(_answer(await w.slash(user, "ofc hand")))
            r = await w.slash(user, "ofc place", move=fill_move(t, hs, cards))
            assert r.content.startswith("✅"), r.content
        else:
            await asyncio.sleep(0.02)


async def _showdown(w: World, hand_no: int, chan: Any = None, timeout: float = 60) -> Any:
    return await w.fake.wait_for_message(
        chan or w.chan, lambda m: f"Showdown — hand #{hand_no}" in (m.content or ""),
        timeout=timeout, include_existing=True)


def _bot_hs(w: World) -> list[int]:
    t = table_of(w)
    return [t.hand_seat_of(b.seat_no) for b in t.bots if t.hand_seat_of(b.seat_no) is not None]


# --------------------------------------------------------------------------- time, event loop
async def test_strong_bots_think_in_the_worker_within_budget_and_commands_are_answered(
    tmp_path: Any, caplog: Any
) -> None:
    """Strong bots (1 s a decision) in the worker process: each decision answers within its
    budget plus a generous margin, and the event loop is never held for anything like a
    decision (a ticker measures its longest gap) while other commands are answered."""
    async with make_world(tmp_path, seed_factory=lambda: "air-budget", next_hand_delay=30,
                          ai_processes=1) as w:
        await w.start_bot()
        rec = _Recorder(w)
        r = await w.slash(w.alice, "ofc new", variant="pineapple", stake=0, buyin=0, bots=2,
                          level="strong")
        assert "opened" in r.content, r.content
        gaps: list[float] = []
        stop = asyncio.Event()

        async def ticker() -> None:
            last = time.monotonic()
            while not stop.is_set():
                await asyncio.sleep(0.01)
                now = time.monotonic()
                gaps.append(now - last)
                last = now

        async def chatter() -> None:  # another player's commands meanwhile
            while not stop.is_set():
                r = await w.slash(w.bob, "ofc rules")
                assert r.ok and r.content, r
                await asyncio.sleep(0.05)

        tasks = [asyncio.ensure_future(ticker()), asyncio.ensure_future(chatter())]
        try:
            await w.slash(w.alice, "ofc start")
            await _play_for(w, w.alice, 1, timeout=120)
            await _showdown(w, 1)
        finally:
            stop.set()
            await asyncio.gather(*tasks)
        moves = rec.of("choose_move")
        assert len(moves) >= 10  # 2 bots x 5 streets
        worst = max(c["seconds"] for c in moves)
        assert worst < LEVELS["strong"] + 4.0, worst
        # a decision held on the loop would show a gap of about the budget (1 s)
        assert max(gaps) < 0.75, max(gaps)
        assert not rec.leaks, rec.leaks
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- legal, clean
@pytest.mark.parametrize(("variant", "strict"), [("ofc", False), ("pineapple", True)])
async def test_every_bot_move_is_legal_and_a_last_street_never_fouls_when_clean_is_possible(
    tmp_path: Any, caplog: Any, variant: str, strict: bool
) -> None:
    seats = 3 if variant == "pineapple" else 4
    async with make_world(tmp_path, seed_factory=lambda: f"air-legal-{variant}",
                          next_hand_delay=0.3) as w:
        await w.start_bot()
        rec = _Recorder(w)
        await w.slash(w.alice, "ofc new", variant=variant, stake=0, buyin=0, seats=seats,
                      bots=seats - 1, level="easy")
        if strict:
            r = await w.slash(w.alice, "ofc options", strict_top=True)
            assert r.ok, r
        await w.slash(w.alice, "ofc start")
        for n in (1, 2):
            await _play_for(w, w.alice, n)
            await _showdown(w, n)
        moves = rec.of("choose_move")
        assert len(moves) >= 2 * (seats - 1) * 5
        last_streets = 0
        for c in moves:
            hand, hs = c["copy"], c["seat"]
            placed, discards = c["result"]
            hand.verify_place(hs, placed, discards)  # legal (raises otherwise)
            req = hand.requirement(hs)
            board = hand.boards[hs]
            after = board.place(placed)
            if after.is_complete:
                last_streets += 1
                clean = [m for m in street_moves(req)
                         if not board.place(m[0]).is_foul(hand.rules)]
                assert not (after.is_foul(hand.rules) and clean), (
                    f"fouled {describe_move((placed, discards))} with {describe_move(clean[0])}"
                    " clean")
        assert last_streets == 2 * (seats - 1)
        assert rec.checked >= len(moves)
        assert "bot move refused" not in caplog.text
        assert not rec.leaks, rec.leaks
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- chinese, fantasyland
def _dragons_deck(t: Any) -> list[Card]:
    """Every seat is dealt a dragon (13 ranks)."""
    ranks = "AKQJT98765432"
    suits = "shdc"
    return [Card(r + suits[(i + k) % 4]) for k in range(4) for i, r in enumerate(ranks)]


async def test_a_chinese_bot_declares_a_natural_worth_declaring(tmp_path: Any, caplog: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "air-natural",
                          deck_factory=_dragons_deck) as w:
        await w.start_bot()
        rec = _Recorder(w)
        await w.slash(w.alice, "ofc new", variant="chinese", stake=0, buyin=0, bots=1)
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        (bot,) = _bot_hs(w)
        await w.fake.wait_until(lambda: t.hand is not None and t.hand.done[bot], 30, "bot")
        assert t.hand.naturals[bot] == "dragon"
        assert rec.of("choose_natural")[0]["result"] == "dragon"
        assert not rec.of("choose_move")  # declared, not set
        r = await w.slash(w.alice, "ofc declare", natural="dragon")
        assert r.content.startswith("✅"), r.content
        await _showdown(w, 1)
        assert not rec.leaks, rec.leaks
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_a_chinese_bot_without_a_natural_sets_the_solvers_clean_setting(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "air-chinese-set") as w:
        await w.start_bot()
        rec = _Recorder(w)
        await w.slash(w.alice, "ofc new", variant="chinese", stake=0, buyin=0, bots=2,
                      seats=3)
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        bots = _bot_hs(w)
        await w.fake.wait_until(lambda: all(t.hand.done[b] for b in bots), 30, "bots set")
        for b in bots:
            call = next(c for c in rec.calls if c["fn"] == "choose_natural" and c["seat"] == b)
            cards = call["copy"].pending[b]
            if t.hand.naturals[b]:
                assert choose_natural(call["copy"], b) == t.hand.naturals[b]
                continue
            board = t.hand.boards[b]
            assert board.is_complete and not board.is_foul(t.hand.rules)
            expected = set_move(cards, t.hand.rules)[0][0]
            assert sorted(map(str, board.cards)) == sorted(str(c) for c, _ in expected)
            assert [sorted(map(str, r)) for r in board.rows] == [
                sorted(str(c) for c, row in expected if row == k) for k in range(3)]
        await _play_for(w, w.alice, 1)
        await _showdown(w, 1)
        assert not rec.leaks, rec.leaks
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_a_bot_in_fantasyland_sets_the_solvers_board_never_fouled(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "air-fl-bot") as w:
        await w.start_bot()
        rec = _Recorder(w)
        await w.slash(w.alice, "ofc new", variant="pineapple", stake=0, buyin=0, bots=1)
        t = table_of(w)
        bot_seat = t.bots[0].seat_no
        await w.store.update_table(t.id, extra={**t.row.extra,
                                                "fantasyland": {str(bot_seat): 16}})
        await w.service._refresh(t)
        await w.slash(w.alice, "ofc start")
        (bot,) = _bot_hs(w)
        assert t.hand.fantasyland[bot] == 16
        await w.fake.wait_until(lambda: t.hand is not None and t.hand.done[bot], 30, "bot set")
        call = next(c for c in rec.of("choose_move") if c["seat"] == bot)
        cards = call["copy"].pending[bot]
        assert len(cards) == 16
        (placed, discards), _, _ = set_move(cards, t.hand.rules)
        board = t.hand.boards[bot]
        assert not board.is_foul(t.hand.rules)
        assert [sorted(map(str, r)) for r in board.rows] == [
            sorted(str(c) for c, row in placed if row == k) for k in range(3)]
        assert sorted(map(str, t.hand.discards[bot])) == sorted(map(str, discards))
        await _play_for(w, w.alice, 1)
        await _showdown(w, 1)
        assert not rec.leaks, rec.leaks
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- timeouts
async def test_a_timeout_plays_the_easy_ai_and_a_drafted_street_move_first(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "air-timeout") as w:
        await w.start_bot()
        rec = _Recorder(w)
        await w.slash(w.alice, "ofc new", variant="pineapple", timer=10)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        first = next(u for u in (w.alice, w.bob) if _user_acting(w, u))
        second = w.bob if first is w.alice else w.alice
        hs = _hs(w, first)
        # what the easy AI plays for this seat, on what the seat may see
        expected = t.hand.redacted_for(hs).autoplay(hs)
        w.clock.offset += 11
        w.service.rearm()
        await w.fake.wait_until(lambda: not _user_acting(w, first), 15, "the timeout")
        played = t.hand.log[-1]
        assert isinstance(played, Place) and played.auto and played.seat == hs
        assert sorted(played.placements) == sorted(expected.placements)
        assert [c["fn"] for c in rec.calls] == ["autoplay"]
        # the other one drafts a whole move in the panel, not what the AI would play, and
        # lets the clock run out: the draft is played
        await w.fake.wait_until(lambda: _user_acting(w, second), 15, "the second player")
        hs2 = _hs(w, second)
        ai = t.hand.redacted_for(hs2).autoplay(hs2)
        cards = [str(c) for c in t.hand.pending[hs2]]
        ai_rows = {str(c): r for c, r in ai.placements}
        # five cards: all on the middle and bottom unless that is what the AI does
        rows = ["Bottom"] * 3 + ["Middle"] * 2
        if sorted(ai_rows.values()) == [1, 1, 2, 2, 2]:
            rows = ["Bottom"] * 2 + ["Middle"] * 3
        panel: Any = await w.slash(second, "ofc hand")
        for card, row in zip(cards, rows, strict=True):
            panel = await w.select(second, panel, panel.message.selects()[0]["custom_id"],
                                   [card])
            panel = await w.click(second, panel, label=row)
        w.clock.offset += 11
        w.service.rearm()
        await w.fake.wait_until(lambda: not _user_acting(w, second), 15, "the timeout")
        drafted = t.hand.log[-1]
        assert isinstance(drafted, Place) and drafted.seat == hs2
        names = ("Top", "Middle", "Bottom")
        assert sorted((str(c), names[r]) for c, r in drafted.placements) == sorted(
            zip(cards, rows, strict=True))
        assert [c["fn"] for c in rec.calls] == ["autoplay"]  # the AI was not asked
        assert not rec.leaks, rec.leaks
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- suggest
async def test_suggest_at_a_practice_table_is_private_valued_and_what_the_ai_plays(
    tmp_path: Any, caplog: Any
) -> None:
    """At a practice table: a private answer with a value in points; on the last street
    (exact) the move is the AI's (``choose_move`` on the seat's view)."""
    async with make_world(tmp_path, seed_factory=lambda: "air-suggest") as w:
        await w.start_bot()
        rec = _Recorder(w)
        await w.slash(w.alice, "ofc new", variant="pineapple", stake=0, buyin=0, bots=1)
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        hs = _hs(w, w.alice)

        def last_street() -> bool:
            return (t.hand is not None and t.hand.may_act(hs)
                    and len(t.hand.boards[hs]) == 11)

        await w.fake.wait_until(lambda: _user_acting(w, w.alice), 30, "alice")
        r = await w.fake.slash(w.alice, w.chan, "ofc suggest", timeout=60)
        text = _answer(r)
        assert r.ephemeral and "suggested" in text, text
        assert re.search(r"[+−-]\d+\.\d points", text), text
        assert not any("suggested" in (m.content or "")
                       for m in w.fake.messages(w.chan, include_ephemeral=False))
        await _play_for(w, w.alice, 1, until=last_street)
        await w.fake.wait_until(last_street, 30, "alice's last street")
        view = t.hand.redacted_for(hs)
        r = await w.fake.slash(w.alice, w.chan, "ofc suggest", timeout=60)
        text = _answer(r)
        best = choose_move(view, hs, "normal")
        assert f"suggested {describe_move(best)}:" in text, (text, describe_move(best))
        assert re.search(r"worth [+−]\d+\.\d points", text), text
        assert rec.of("suggest")[-1]["result"].value == pytest.approx(
            suggest(view, hs, "normal").value)
        await _play_for(w, w.alice, 1)
        await _showdown(w, 1)
        assert not rec.leaks, rec.leaks
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_suggest_for_a_fantasyland_is_the_solvers_set(tmp_path: Any, caplog: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "air-suggest-fl") as w:
        await w.start_bot()
        rec = _Recorder(w)
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        t = table_of(w)
        seat = t.seat_of_user(w.alice.id).seat_no
        await w.store.update_table(t.id, extra={**t.row.extra, "fantasyland": {str(seat): 13}})
        await w.service._refresh(t)
        await w.slash(w.alice, "ofc start")
        hs = _hs(w, w.alice)
        cards = t.hand.pending[hs]
        r = await w.fake.slash(w.alice, w.chan, "ofc suggest", timeout=60)
        text = _answer(r)
        assert r.ephemeral and "suggested" in text, text
        move, _, _ = set_move(cards, t.hand.rules)
        assert describe_move(move) in text, text
        assert re.search(r"royalties \d+", text), text
        # bob (a regular street at real stakes) is refused
        r = await w.slash(w.bob, "ofc suggest")
        assert r.ephemeral and "cheating" in _answer(r)
        assert [c["fn"] for c in rec.calls if c["fn"] == "suggest"] == ["suggest"]
        assert not rec.leaks, rec.leaks
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- the worker process
def _worker_pids(thinker: Thinker) -> list[int]:
    pool = thinker._pool
    return [p.pid for p in (getattr(pool, "_processes", None) or {}).values()]


async def test_a_worker_killed_mid_decision_does_not_stall_the_table_and_is_replaced(
    tmp_path: Any, caplog: Any
) -> None:
    killed: list[int] = []

    async def around(real: Any, fn: Any, *args: Any, fallback: Any = None) -> Any:
        if fn is choose_move and not killed:
            thinker = w.service.thinker
            task = asyncio.ensure_future(real(_slowly, 3.0, fn, *args, fallback=fallback))
            await asyncio.sleep(1.0)  # the worker is in the decision now
            (pid,) = _worker_pids(thinker)
            killed.append(pid)
            os.kill(pid, signal.SIGKILL)
            return await task
        return await real(fn, *args, fallback=fallback)

    async with make_world(tmp_path, seed_factory=lambda: "air-kill", ai_processes=1,
                          next_hand_delay=30) as w:
        await w.start_bot()
        rec = _Recorder(w, around=around)
        await w.slash(w.alice, "ofc new", variant="ofc", stake=0, buyin=0, bots=1)
        await w.slash(w.alice, "ofc start")
        await _play_for(w, w.alice, 1, timeout=120)
        await _showdown(w, 1)
        assert len(killed) == 1
        workers = _worker_pids(w.service.thinker)
        assert workers and killed[0] not in workers and os.getpid() not in workers
        pid = await w.service.thinker.run(os.getpid)
        assert pid in workers  # the next decisions think in the new worker
        assert len(rec.of("choose_move")) >= 5
        assert not rec.leaks, rec.leaks
        w.fake.assert_clean()


async def test_a_worker_hung_past_the_limit_gives_the_bot_its_plain_move(
    tmp_path: Any, caplog: Any
) -> None:
    hung: list[int] = []

    async def around(real: Any, fn: Any, *args: Any, fallback: Any = None) -> Any:
        if fn is choose_move and not hung:
            hung.append(1)
            return await real(_slowly, 60.0, fn, *args, fallback=fallback)
        return await real(fn, *args, fallback=fallback)

    async with make_world(tmp_path, seed_factory=lambda: "air-hang", ai_processes=1,
                          next_hand_delay=30, thinker=Thinker(1, hang_limit=2.0)) as w:
        await w.start_bot()
        rec = _Recorder(w, around=around)
        first = _worker_pids(w.service.thinker)
        await w.slash(w.alice, "ofc new", variant="ofc", stake=0, buyin=0, bots=1)
        await w.slash(w.alice, "ofc start")
        await _play_for(w, w.alice, 1, timeout=120)
        await _showdown(w, 1)
        calls = rec.of("choose_move")
        assert calls[0]["seconds"] < 20  # the limit (2 s) and the plain move
        assert len(calls) >= 5
        workers = _worker_pids(w.service.thinker)
        assert workers and not set(workers) & set(first)
        w.fake.assert_clean()


async def test_a_frozen_worker_mid_decision_does_not_stall_the_table(
    tmp_path: Any, caplog: Any
) -> None:
    """Was a defect: the hang limit is enforced only inside the worker (faulthandler): a worker
    that cannot run its own watchdog (stopped, frozen) stalls the bot's decision, and every call
    queued behind it, for good (fixed)."""
    frozen: list[int] = []

    async def around(real: Any, fn: Any, *args: Any, fallback: Any = None) -> Any:
        if fn is choose_move and not frozen:
            task = asyncio.ensure_future(real(_slowly, 1.0, fn, *args, fallback=fallback))
            await asyncio.sleep(0.5)
            (pid,) = _worker_pids(w.service.thinker)
            frozen.append(pid)
            os.kill(pid, signal.SIGSTOP)
            return await task
        return await real(fn, *args, fallback=fallback)

    async with make_world(tmp_path, seed_factory=lambda: "air-frozen", ai_processes=1,
                          next_hand_delay=30, thinker=Thinker(1, hang_limit=2.0)) as w:
        await w.start_bot()
        try:
            _Recorder(w, around=around)
            await w.slash(w.alice, "ofc new", variant="ofc", stake=0, buyin=0, bots=1)
            await w.slash(w.alice, "ofc start")
            t = table_of(w)
            (bot,) = _bot_hs(w)
            await w.fake.wait_until(lambda: bool(frozen), 30, "the bot thinking")
            # the limit is 2 s: a plain move well within 20
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not (
                    t.hand is not None and len(t.hand.boards[bot]) >= 5):
                await asyncio.sleep(0.1)
            assert t.hand is not None and len(t.hand.boards[bot]) >= 5, "the table stalled"
        finally:
            for pid in frozen:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


# --------------------------------------------------------------------------- several tables
async def test_bots_at_several_tables_at_once_share_the_worker(tmp_path: Any, caplog: Any) -> None:
    seeds = iter(f"air-multi-{k}" for k in range(100))
    async with make_world(tmp_path, seed_factory=lambda: next(seeds), ai_processes=1,
                          next_hand_delay=30) as w:
        await w.start_bot()
        rec = _Recorder(w)
        chans = [w.chan, w.fake.add_text_channel(w.guild, "ofc-2"),
                 w.fake.add_text_channel(w.guild, "ofc-3")]
        hosts = [w.alice, w.bob, w.carol]
        for chan, host in zip(chans, hosts, strict=True):
            r = await w.fake.slash(host, chan, "ofc new",
                                   options={"variant": "pineapple", "stake": 0, "buyin": 0,
                                            "bots": 2, "level": "normal"})
            assert "opened" in (r.content or ""), r.content

        async def play(chan: Any, host: Any) -> None:
            r = await w.fake.slash(host, chan, "ofc start")
            assert "dealt" in (r.content or ""), r.content
            t = w.service.table_in_channel(chan.id)
            deadline = time.monotonic() + 180
            while t.hand is not None:
                assert time.monotonic() < deadline, "stalled"
                hs = t.hand_seat_of(t.seat_of_user(host.id).seat_no)
                if t.hand.may_act(hs):
                    r = await w.fake.slash(host, chan, "ofc hand")
                    cards = panel_cards(_answer(r))
                    r = await w.fake.slash(host, chan, "ofc place",
                                           options={"move": fill_move(t, hs, cards)})
                    assert (r.content or "").startswith("✅"), r.content
                else:
                    await asyncio.sleep(0.05)
            await _showdown(w, 1, chan)

        await asyncio.gather(*(play(c, h) for c, h in zip(chans, hosts, strict=True)))
        assert len(rec.of("choose_move")) >= 3 * 2 * 5
        assert not any(c["seconds"] > 30 for c in rec.calls)
        assert not rec.leaks and rec.checked >= len(rec.calls) - 3, rec.leaks
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- gone, removed, restart
async def test_a_channel_deleted_while_a_bot_thinks_applies_no_move(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "air-gone",
                          thinker=SlowThinker(1.5)) as w:
        await w.start_bot()
        rec = _Recorder(w)
        await w.slash(w.alice, "ofc new", variant="ofc", stake=0, buyin=0, bots=1)
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        hand_id = t.hand_row.id
        (bot,) = _bot_hs(w)
        await w.fake.wait_until(lambda: _user_acting(w, w.alice) or t.hand.may_act(bot), 10,
                                "a turn")
        if _user_acting(w, w.alice):
            hs = _hs(w, w.alice)
            cards = panel_cards(_answer(await w.slash(w.alice, "ofc hand")))
            await w.slash(w.alice, "ofc place", move=fill_move(t, hs, cards))
        await asyncio.sleep(0.3)  # the bot is thinking (1.5 s)
        log_len = len(t.hand.log)
        await w.fake.delete_channel(w.chan)
        await w.fake.wait_until(lambda: t.id not in w.service.tables, 10, "closed")
        await asyncio.sleep(3.0)  # the bot's answer comes back meanwhile
        assert t.hand is None
        row = await w.store.get_hand(hand_id)
        assert row is not None and row.status == "aborted"
        assert len(row.log) <= log_len  # the bot's move was not written
        assert rec.of("choose_move") or rec.of("choose_natural")
        no_errors_logged(caplog)


async def test_a_bot_removed_while_it_thinks_plays_its_move_and_leaves_after_the_hand(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "air-remove", next_hand_delay=0.3,
                          thinker=SlowThinker(0.8)) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=0, buyin=0, bots=1)
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        (bot,) = _bot_hs(w)
        await w.fake.wait_until(lambda: t.hand.may_act(bot), 20, "the bot's turn")
        r = await w.slash(w.alice, "ofc removebot")
        assert "after this hand" in r.content, r.content
        await _play_for(w, w.alice, 1)
        await _showdown(w, 1)
        assert len(t.last_result.seat_nos) == 2
        await w.fake.wait_until(lambda: not t.bots, 10, "the bot gone")
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_a_restart_while_a_bot_thinks_plays_its_move_once(tmp_path: Any, caplog: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "air-restart", next_hand_delay=30,
                          thinker=SlowThinker(1.5)) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=0, buyin=0, bots=1)
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        (bot,) = _bot_hs(w)
        await w.fake.wait_until(lambda: t.hand.may_act(bot) or _user_acting(w, w.alice), 10,
                                "a turn")
        if _user_acting(w, w.alice):
            hs = _hs(w, w.alice)
            cards = panel_cards(_answer(await w.slash(w.alice, "ofc hand")))
            await w.slash(w.alice, "ofc place", move=fill_move(t, hs, cards))
        assert t.hand.may_act(bot)
        before = len(t.hand.log)
        await asyncio.sleep(0.3)  # mid-think
        await w.stop_bot()
        await asyncio.sleep(1.5)  # what was thinking ends after the stop
        await w.start_bot()
        t = await resumed_table(w)
        await w.fake.wait_until(lambda: t.hand is not None and not t.hand.may_act(bot)
                                or t.hand is None, 20, "the bot's move after the restart")
        assert len([a for a in t.hand.log[before:] if a.seat == bot]) == 1
        await _play_for(w, w.alice, 1)
        await _showdown(w, 1)
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- hidden information
async def test_timeouts_and_suggestions_in_chinese_are_given_only_the_seats_view(
    tmp_path: Any, caplog: Any
) -> None:
    """Everyone sets at once: each timeout and each suggestion is thought on a hand without the
    others' cards (``_Recorder`` checks every call)."""
    async with make_world(tmp_path, seed_factory=lambda: "air-hidden-ch") as w:
        await w.start_bot()
        rec = _Recorder(w)
        await w.slash(w.alice, "ofc new", variant="chinese", stake=0, buyin=0, bots=1)
        await w.slash(w.bob, "ofc join", buyin=0)
        await w.slash(w.alice, "ofc start")
        r = await w.fake.slash(w.alice, w.chan, "ofc suggest", timeout=60)
        # not practice (two humans), not fantasyland: refused
        assert "cheating" in _answer(r)
        w.clock.offset += 1000
        w.service.rearm()
        await _showdown(w, 1)
        # (a call is checked as it starts and recorded as it ends: one may still be thinking)
        await w.fake.wait_until(lambda: rec.checked == len(
            [c for c in rec.calls + rec.failed if c["hand"] is not None]), 10,
            "the calls under way")
        given = [c for c in rec.calls + rec.failed if c["hand"] is not None]
        assert {c["fn"] for c in given} >= {"autoplay", "choose_natural"}
        assert rec.checked == len(given)  # each against the live hand
        for c in given:
            hand, seat = c["copy"], c["seat"]
            for o in range(hand.n):
                if o != seat:
                    assert not hand.pending[o] and not hand.boards[o].cards
        assert not rec.leaks, rec.leaks
        no_errors_logged(caplog)
        w.fake.assert_clean()
