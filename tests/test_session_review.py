"""Review of the session's changes (0e3a65f..HEAD): the idle-close warning, the replay of past
hands, the clocks held while Discord's gateway is lost, the showdown text's labels, the
leaderboard by points per hand.  Each ``xfail(strict=True)`` test is a defect found (its
docstring starts "Defect:"); the others check what was found right."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path
from typing import Any

from bot.service import RESUME_GRACE, TableService, _about, _as_typed
from bot.store import PER_HAND_MIN_HANDS, Store
from cogs.presenter import md
from engine import Rules
from engine.hand import Hand
from renderer.fonts import has_ink
from renderer.leaderboard import _per_hand, describe_leaderboard
from renderer.model import LeaderboardView, LeaderRow
from renderer.showdown import text_labels

from .bot.test_service import ALICE, BOB, CH, Clock, G, Recorder, heads_up, make, until
from .bot.test_store import CAROL
from .bot.test_variant_leaderboard import played
from .bot.test_variant_leaderboard import seated as seated_rows
from .timestamps import as_read

HOUR = 3600.0
ROOT = Path(__file__).resolve().parent.parent


def notices(rec: Recorder) -> list[str]:
    return [str(text) for kind, text in rec.events if kind == "notice"]


async def seated(clock: Clock) -> tuple[TableService, Recorder, Store, Any]:
    """Alice's table with Bob seated, not started, play resumed (the idle clock runs)."""
    svc, rec, store = await make(clock=clock)
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", buyin=300)
    await svc.join(G, CH, BOB, "bob")
    await svc.resume()
    return svc, rec, store, svc.table_in_channel(CH)


# ------------------------------------------------------------------ the idle-close warning


async def test_a_warning_from_before_idle_hours_0_does_not_stand_for_a_close_days_later(
) -> None:
    """Was a defect (a warning from long before stood for a close days later), fixed: a look
    that finds the table not closing soon (``idle_hours`` 0 or raised) drops the warning, so the
    close is warned again first.
    Defect: bot/service.py close_idle (the ``warned[0] == since and due <= warned[1] + 60``
    branch) keeps the last warning of a table for as long as nothing happens there, however
    old.  A server manager who turns idle closes off (``idle_hours`` 0) after a table was
    warned, and on again two days later, sees the table closed at the bot's next look, with
    no warning: the one given two days before ("closes in 1 hour") is taken as said, against
    the docstring and README ("no table closes without that warning"; ``idle_hours``
    lowered below a table's idle time "warns it and closes it after the warning's lead")."""
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    clock.offset += 23.5 * HOUR
    assert await svc.close_idle() == []
    assert notices(rec)[-1].startswith("⏳")  # warned: closes in 30 minutes
    await svc.update_settings(G, True, idle_hours=0)
    clock.offset += 48 * HOUR
    assert await svc.close_idle() == [] and t.id in svc.tables  # (never, with 0)
    await svc.update_settings(G, True, idle_hours=24)
    told = len(notices(rec))
    closed = await svc.close_idle()
    # the right behaviour: a new warning first, the close after its lead
    assert closed == [] and t.id in svc.tables
    assert len(notices(rec)) == told + 1 and notices(rec)[-1].startswith("⏳")
    await svc.shutdown()
    await store.close()


async def test_the_warning_pings_the_players_and_the_close_comes_at_the_time_it_said() -> None:
    clock = Clock()
    svc, rec, store, t = await seated(clock)
    clock.offset += 22.9 * HOUR  # (more than an hour before: no warning yet)
    assert await svc.close_idle() == [] and not notices(rec)
    clock.offset += 0.6 * HOUR
    assert await svc.close_idle() == []
    warning = as_read(notices(rec)[-1], clock())
    assert warning.startswith(f"⏳ <@{ALICE}> <@{BOB}>: nothing has happened here for 23 hours,"
                              " so this table closes in 30 minutes")
    assert await svc.close_idle() == [] and len(notices(rec)) == 1  # warned once
    clock.offset += 0.45 * HOUR
    assert await svc.close_idle() == []  # (the time it said is not yet)
    clock.offset += 0.1 * HOUR
    assert await svc.close_idle() == [t]
    assert notices(rec)[-1].startswith("🕸️ Nothing happened here for 24 hours")
    await svc.shutdown()
    await store.close()


def test_about_never_says_more_of_a_time_gone_by() -> None:
    assert _about(2 * HOUR - 1, past=True) == "1 hour"
    assert _about(59, past=True) == "1 minute"
    assert _about(900) == "15 minutes" and _about(3500) == "1 hour"


# --------------------------------------------------------------------- the gateway clocks


async def test_a_clock_far_from_running_out_is_not_renewed_at_the_gateways_return() -> None:
    clock = Clock()
    svc, rec, store, t = await heads_up("review-gw", clock=clock)
    assert t.hand is not None and t.hand.turn is not None
    hs = t.hand.turn
    svc.connection_lost()
    clock.offset += t.deadlines[hs] - clock() - RESUME_GRACE - 5  # 35 s left at the return
    deadline = t.deadlines[hs]
    svc.connection_back()
    assert t.deadlines[hs] == deadline
    await svc.shutdown()
    await store.close()


async def test_the_gateways_return_does_not_cut_a_timeout_short_while_it_is_saved() -> None:
    """Was a defect (the gateway's return cancelled a timer saving a timeout: nobody told), fixed:
    ``_grace_after_outage`` re-arms only a table with no running timer (a running one reads the
    new deadlines).
    Defect: bot/service.py _grace_after_outage calls ``_arm(t)`` without the table's lock
    (``connection_back`` is synchronous), and ``_arm`` cancels the running timer task.  When
    the gateway comes back while the timer is inside its locked section, saving a timeout's
    move (``await self._after_action(t)``), and another seat's clock has less than
    ``RESUME_GRACE`` left (a player away on the 10 s clock), the timer is cancelled in the
    middle of its work: the move stays played in memory, but the timed-out player is never
    told ("⏰ Time ran out ..."), nor sat out from the next hand.  A user meets it after a
    gateway RESUME at the wrong moment: their clock ran out, the bot played for them, and
    nobody said so."""
    clock = Clock()
    svc, rec, store, t = await heads_up("review-race", clock=clock)
    assert t.hand is not None and t.hand.turn is not None
    first = t.hand.turn
    other = 1 - first
    t.away.add(other)  # the other player already timed out once: their clock is 10 s
    saving, release = asyncio.Event(), asyncio.Event()
    real_save = svc._save

    async def held_save(tt: Any, *a: Any, **kw: Any) -> Any:
        if tt is t and not saving.is_set():
            saving.set()
            await release.wait()
        return await real_save(tt, *a, **kw)

    svc._save = held_save  # type: ignore[method-assign]
    clock.offset += t.deadlines[first] - clock() + 1
    svc.rearm()
    await asyncio.wait_for(saving.wait(), 10)  # the timeout's move is being saved
    assert other in t.deadlines and t.deadlines[other] < clock() + RESUME_GRACE
    svc.connection_lost()
    svc.connection_back()
    release.set()
    seat = t.seat_by_no(t.hand_seats[first])
    assert seat is not None
    await until(lambda: any("Time ran out" in n for n in notices(rec)), 3)
    assert any(f"Time ran out for <@{seat.user_id}>" in n for n in notices(rec))
    await svc.shutdown()
    await store.close()


# ------------------------------------------------------------------------------ the replay


def _play(h: Hand) -> None:
    while not h.is_over:
        h.autoplay(h.to_act()[0])


def test_the_replay_never_shows_a_discard_nor_a_fantasyland_set_before_the_end() -> None:
    h = Hand(Rules(variant="pineapple"), ["A", "B", "C"], 0, {2: 15}, seed="review-rounds")
    _play(h)
    rounds = Hand.rounds(h.to_json())
    assert [r.number for r in rounds] == list(range(1, h.streets + 1))
    gone = {str(c) for d in h.discards for c in d}
    secret = {str(c) for c in h.boards[2].cards}
    for r in rounds:
        text = repr(r.view)
        assert not any(f"'{c}'" in text for c in gone)
        if r is not rounds[-1]:
            assert not any(f"'{c}'" in text for c in secret)
    assert Hand.rounds(Hand(Rules(variant="chinese"), ["A", "B"], 0, seed="c").to_json()) == []


# ------------------------------------------------------------------ the showdown's labels


def test_names_that_look_alike_are_told_apart_in_the_showdown_text() -> None:
    """Was a defect ("Sam" and "Sam" with a zero-width space were not told apart), fixed:
    ``text_labels`` compares the names as they look.
    Defect: renderer/showdown.py text_labels tells apart only names that are the same
    string.  "Sam" and "Sam" followed by a zero-width space (or any other character that
    draws nothing) look the same in Discord, but get no "(seat N)": the showdown text reads
    "Sam — ... total +6 points" and "Sam — ... total -6 points", and the pair line "Sam vs
    Sam: ... → Sam +6", so that nobody can tell who won (the commit: "the showdown text tells
    same-named and invisible names apart")."""
    labels = text_labels(("Sam", "Sam\u200b"), (1, 2))

    def seen(label: str) -> str:
        return "".join(ch for ch in label if has_ink(ch) or ch == " ")

    assert seen(labels[0]) != seen(labels[1])


def test_same_and_invisible_names_get_labels() -> None:
    assert text_labels(("Sam", "Sam", "\u200b"), (1, 3, 4)) == (
        "Sam (seat 1)", "Sam (seat 3)", "Player 4")
    assert text_labels(("Ann", "Bob")) == ("Ann", "Bob")


def test_typed_text_and_names_are_shown_as_typed() -> None:
    assert md("<t:0:R> <#1>") == "\\<t:0:R> \\<#1>"
    assert _as_typed("**x** @everyone <@1>") == "\\*\\*x\\*\\* \\@everyone \\<\\@1\\>"


# ------------------------------------------------------------- leaderboard: points per hand


async def test_points_per_hand_ties_share_the_rank_more_hands_first_and_all_shown() -> None:
    """Same points a hand (1.0 over 20 and over 40 hands): the tie is kept whole past the
    limit, more hands first, for all time (kept totals) and a period (results added up)."""
    store = await Store.open(":memory:")
    one = await seated_rows(store, G, CH, "ofc", (ALICE, CAROL))
    two = await seated_rows(store, G, CH + 1, "pineapple", (BOB, CAROL))
    for k in range(PER_HAND_MIN_HANDS):
        await played(store, one, k + 1, "ofc", {ALICE: 1, CAROL: -1}, 100.0 + k)
    for k in range(2 * PER_HAND_MIN_HANDS):
        await played(store, two, k + 1, "pineapple", {BOB: 1, CAROL: -1}, 200.0 + k)
    for since in (None, 0.0):
        board = await store.leaderboard(G, "points_per_hand", since, limit=1)
        assert [(e.user_id, e.points_per_hand, e.hands) for e in board] == [
            (BOB, 1.0, 40), (ALICE, 1.0, 20)]
        full = await store.leaderboard(G, "points_per_hand", since)
        assert [e.user_id for e in full] == [BOB, ALICE, CAROL]
        assert full[-1].points_per_hand == -1.0
    ofc = await store.leaderboard(G, "points_per_hand", variant="ofc")
    assert [(e.user_id, e.hands) for e in ofc] == [(ALICE, 20), (CAROL, 20)]
    await store.close()


def test_points_per_hand_is_shown_with_two_decimals_and_a_real_minus() -> None:
    row = LeaderRow(rank=1, name="a", units=0, points=-45, hands=20, fantasylands=0)
    assert _per_hand(row) == "−2.25"
    assert _per_hand(LeaderRow(rank=1, name="a", units=0, points=0, hands=0,
                               fantasylands=0)) == "0.00"
    view = LeaderboardView(title="T", by="points_per_hand", period="all time", rows=(),
                           min_hands=PER_HAND_MIN_HANDS)
    assert describe_leaderboard(view).endswith("Nobody has played 20 hands yet")


def test_each_setting_constant_keeps_its_own_docstring() -> None:
    """Was a defect (a docstring under the wrong constant), fixed.
    Defect: bot/store/models.py:31-34: ``PER_HAND_MIN_HANDS = 20`` and its docstring were
    inserted between ``MAX_IDLE_HOURS = 720`` and the docstring that describes it, so that
    ``MAX_IDLE_HOURS`` has none and a stray string "``idle_hours`` at most (30 days)" follows
    the per-hand constant's docstring (documentation tools attach it to nothing, or the
    reader to the wrong constant)."""
    tree = ast.parse((ROOT / "bot/store/models.py").read_text(encoding="utf-8"))
    body = tree.body
    for i, node in enumerate(body):
        if isinstance(node, ast.Assign) and any(
                isinstance(x, ast.Name) and x.id == "MAX_IDLE_HOURS" for x in node.targets):
            doc = body[i + 1]
            assert isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant)
            assert "idle_hours" in str(doc.value.value)
            return
    raise AssertionError("no MAX_IDLE_HOURS")
