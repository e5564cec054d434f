"""Review of the change e557304..HEAD: the AI's redacted copy of the hand, fantasyland kept as
earned, closing a table whose channel is gone after a database error, migration 004, the
leaderboard's tie rule.  Correct behaviour is kept as regression tests; the three defects it
found are fixed ("Was a defect")."""

from __future__ import annotations

import asyncio
import pickle
import random
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

import bot.service as service_module
from bot.store import HandResult, Store
from engine import DECK, Rules
from engine.ai import choose_move
from engine.hand import Hand

from .test_service import ALICE, BOB, CH, G, make, until

# --------------------------------------------------------------------------- engine: the copy


def _random_hands(variant: str, seeds: range, declare: bool = True):  # type: ignore[no-untyped-def]
    """Every intermediate state of random hands of ``variant`` (chinese seats may declare a
    natural: ``autoplay`` declares one worth declaring)."""
    for seed in seeds:
        rng = random.Random(seed)
        rules = Rules(variant=variant)
        n = rng.randint(2, rules.max_players)
        fl = {}
        if variant != "chinese" and rng.random() < 0.6:
            fl = {rng.randrange(n): 13 if variant == "ofc" else rng.randint(14, 17)}
        h = Hand(rules, [f"P{i}" for i in range(n)], seed % n, fl, seed=seed)
        while not h.is_over:
            yield h, rng
            seat = rng.choice(h.to_act())
            if rng.random() < 0.05:
                h.surrender(seat)
            elif variant == "chinese" or h.fantasyland[seat]:
                h.autoplay(seat, plain=not declare)
            else:
                h.place(seat, *rng.choice(h.legal_moves(seat)))


@pytest.mark.parametrize("variant", ["ofc", "pineapple", "chinese"])
def test_the_copy_of_every_acting_seat_pickles_reloads_and_gives_a_legal_move(
    variant: str,
) -> None:
    """What a worker process gets (the copy pickled), what the fallback does with it
    (``_plain_autoplay``: ``Hand.from_json(copy.to_json())``), and the move found on it (several
    seats at once: each on its own copy, applied one after the other on the hand)."""
    checked = 0
    for h, _rng in _random_hands(variant, range(25), declare=False):
        acting = h.to_act()
        copies = {s: h.redacted_for(s) for s in acting}
        moves = {}
        for s, r in copies.items():
            assert pickle.loads(pickle.dumps(r)) == r
            again = Hand.from_json(r.to_json())
            assert again == r
            moves[s] = again.autoplay(s, plain=True)
        real = Hand.from_json(h.to_json())
        for s in acting:  # a timeout of every acting seat at once
            if real.is_over:
                break
            real.apply(moves[s])
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("variant", ["ofc", "pineapple"])
def test_the_ai_decides_the_same_on_the_copy_given_the_same_rng(variant: str) -> None:
    """The AI reads only what the seat may see: on the copy, with the same rng, it makes the very
    decision it made on the whole hand (as strong as before)."""
    compared = 0
    for h, rng in _random_hands(variant, range(30)):
        hs = h.turn
        if hs is None or rng.random() > 0.2 or len(h.legal_moves(hs)) < 2:
            continue
        a = choose_move(h, hs, "easy", rng=random.Random(7), simulations=24)
        b = choose_move(h.redacted_for(hs), hs, "easy", rng=random.Random(7), simulations=24)
        assert a == b
        compared += 1
    assert compared >= 10


def test_a_fantasyland_seat_copy_hides_the_regular_seats_pending_and_keeps_its_own() -> None:
    """A pineapple fantasyland seat: its own 16 cards are its requirement on the copy; the seat
    to act's street is gone from it."""
    h = Hand(Rules(variant="pineapple"), ["A", "B", "C"], 0, {1: 16}, seed="rev-fl")
    r = h.redacted_for(1)
    assert r.requirement(1) == h.requirement(1) and len(r.pending[1]) == 16
    assert h.turn is not None and h.turn != 1
    assert r.pending[h.turn] == () and h.pending[h.turn] != ()
    assert not (set(h.pending[h.turn]) & r.cards_seen_by(1))


def _declared_natural_hand() -> tuple[Hand, int]:
    for h, _rng in _random_hands("chinese", range(200)):
        for s in range(h.n):
            if h.naturals[s] and not h.is_over:
                return h, s
    raise AssertionError("no natural declared in 200 random chinese hands")


def test_the_copy_for_a_seat_that_declared_a_natural_is_a_consistent_hand() -> None:
    """Was a defect: Hand.redacted_for(seat) for a seat that declared a natural:
    cards_seen_by(seat) leaves out the seat's own natural_cards before the end, so the copy
    deals them again as 'unseen' (a card twice) and Hand.from_json(copy.to_json()) raises 'does
    not match its seed' (fixed)."""
    h, s = _declared_natural_hand()
    r = h.redacted_for(s)
    undealt = set(r._deck[r._next:])
    assert not (undealt & set(r.natural_cards[s])), "its own natural cards are 'unseen'"
    assert Hand.from_json(r.to_json()) == r


def test_a_copy_of_a_finished_hand_is_refused() -> None:
    h = Hand(Rules(variant="chinese"), ["A", "B"], 0, seed="rev-over")
    for s in (0, 1):
        if not h.is_over:
            h.autoplay(s, plain=True)
    assert h.is_over
    with pytest.raises(ValueError, match="over"):
        h.redacted_for(0)


def test_the_copy_does_not_give_the_deck_order() -> None:
    h = Hand(Rules(variant="ofc"), ["A", "B"], 0, seed="rev-deck")
    hs = h.turn
    assert hs is not None
    r = h.redacted_for(hs)
    assert r.seed != h.seed and str(h.seed) not in str(r.to_json())
    assert set(r._deck[r._next:]) == set(DECK) - h.cards_seen_by(hs)


# --------------------------------------------------------------------------- fantasyland kept


async def _owed_pineapple(cards: int) -> tuple[Any, Any, Store, Any]:
    svc, rec, store = await make(seed_factory=lambda: "rev-owed")
    await svc.new_table(G, CH, ALICE, "alice", variant="pineapple")
    await svc.join(G, CH, BOB, "bob")
    t = svc.table_in_channel(CH)
    await store.update_table(t.id, extra={**t.row.extra, "fantasyland": {"0": cards},
                                          "fantasyland_owed_by": [0, 1]})
    await svc._refresh(t)
    return svc, rec, store, t


async def test_an_owed_fantasyland_is_stored_as_earned_and_dealt_as_the_options_say() -> None:
    svc, rec, store, t = await _owed_pineapple(16)
    try:
        await svc.set_options(CH, ALICE, False, progressive=False)
        assert t.fantasyland_earned == {0: 16} and t.fantasyland_pending == {0: 14}
        await svc.set_options(CH, ALICE, False, progressive=True)
        assert t.fantasyland_pending == {0: 16}
        await svc.start(CH, ALICE)
        assert t.hand is not None and t.hand.fantasyland[t.hand_seat_of(0)] == 16
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_voided_fantasyland_hand_gives_back_the_fantasyland_as_earned() -> None:
    """Was a defect: TableService._void_hand gives a dealt fantasyland back resized by the
    options at the void (fantasyland_cards_now), not as earned: progressive turned off during
    the hand and on again after the void deals AA's fantasyland 14 cards, not 16 (fixed)."""
    svc, rec, store, t = await _owed_pineapple(16)
    try:
        await svc.start(CH, ALICE)
        assert t.hand is not None and t.hand.fantasyland[t.hand_seat_of(0)] == 16
        await svc.set_options(CH, ALICE, False, progressive=False)  # for the next hand
        async with t.lock:
            await svc._void_hand(t)  # (the settlement failed SETTLE_ATTEMPTS times)
        assert t.fantasyland_earned == {0: 16}
    finally:
        await svc.shutdown()
        await store.close()


# --------------------------------------------------------------------------- channel gone


def _closes_recorded(monkeypatch: pytest.MonkeyPatch, store: Store, fail: int | None) -> list[float]:
    """Closing a table fails ``fail`` times (None: always); the times of every try."""
    tries: list[float] = []
    real = store.update_table

    async def update_table(*args: Any, **kw: Any) -> Any:
        if kw.get("status") == "closed":
            tries.append(time.monotonic())
            if fail is None or len(tries) <= fail:
                raise sqlite3.OperationalError("disk I/O error")
        return await real(*args, **kw)

    monkeypatch.setattr(store, "update_table", update_table)
    return tries


async def test_a_gone_tables_close_is_tried_again_after_the_backoff_not_twice_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Was a defect: the close of a table whose channel is gone was retried after twice the
    backoff (_retry_close_gone slept ``delay``, then _close_gone slept it again), so the cap
    was twice SAVE_RETRY_MAX. The waits asked for are recorded (not timed)."""
    monkeypatch.setattr(service_module, "SAVE_RETRY", 0.4)
    monkeypatch.setattr(service_module, "SAVE_RETRY_MAX", 0.8)
    real_sleep = asyncio.sleep
    waits: list[float] = []

    async def sleep(delay: float, *args: Any, **kw: Any) -> Any:
        if delay >= 0.3:  # (the backoff's; the rest of the loop sleeps as asked)
            waits.append(delay)
            delay = 0.001
        return await real_sleep(delay, *args, **kw)

    monkeypatch.setattr(service_module.asyncio, "sleep", sleep)
    svc, rec, store = await make(seed_factory=lambda: "rev-gone")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    tries = _closes_recorded(monkeypatch, store, fail=None)
    seen: list[list[float]] = []
    real_update = store.update_table

    async def update_table(*args: Any, **kw: Any) -> Any:
        seen.append(list(waits))  # the waits before each try
        return await real_update(*args, **kw)

    monkeypatch.setattr(store, "update_table", update_table)
    try:
        with pytest.raises(sqlite3.OperationalError):
            await svc.channel_gone(CH)
        await until(lambda: len(tries) >= 4, 3.0)
        assert seen[:4] == [[], [0.4], [0.4, 0.8], [0.4, 0.8, 0.8]], seen
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_gone_table_is_closed_once_however_many_report_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three reports at once, the first close failing: the table closes (once), the stacks go
    back, no retry is left behind."""
    monkeypatch.setattr(service_module, "SAVE_RETRY", 0.02)
    svc, rec, store = await make(seed_factory=lambda: "rev-gone2")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=2, buyin=150)
    await svc.join(G, CH, BOB, "bob", buyin=250)
    t = svc.table_in_channel(CH)
    tries = _closes_recorded(monkeypatch, store, fail=1)
    try:
        results = await asyncio.gather(*(svc.channel_gone(CH) for _ in range(3)),
                                       return_exceptions=True)
        await until(lambda: t.id not in svc.tables and not svc._gone_retries, 2.0)
        assert t.id not in svc.tables and not svc._gone_retries
        assert sum(r is True for r in results) <= 1
        assert len(tries) == 2  # one failure, one close
        row = await store.get_table(t.id)
        assert row is not None and row.status == "closed"
        assert await store.wallet(G, ALICE) == (1000, 0)
        assert await store.wallet(G, BOB) == (1000, 0)
        await asyncio.sleep(0.2)
        assert len(tries) == 2  # nothing tries to close it again
    finally:
        await svc.shutdown()
        await store.close()


# --------------------------------------------------------------------------- store


async def test_migration_004_upgrades_a_database_of_the_previous_version(tmp_path: Path) -> None:
    """A database at schema 3 (the previous version: results_by_user, no results_by_player),
    with results in it, opens and migrates; stats and the leaderboard read it."""
    db = tmp_path / "old.db"
    store = await Store.open(db)
    table = await store.create_table(G, CH, ALICE, {"variant": "ofc"}, 1, 100, 4, 1.0)
    await store.seat_player(table.id, 0, G, ALICE, "alice", 100, 1.0)
    await store.seat_player(table.id, 1, G, BOB, "bob", 100, 1.0)
    hand = await store.create_hand(table.id, 1, "s", {}, {}, 2.0)
    await store.finish_hand(hand.id, {}, [
        HandResult(user_id=ALICE, seat_no=0, name="alice", points=3, units=3),
        HandResult(user_id=BOB, seat_no=1, name="bob", points=-3, units=-3),
    ], {ALICE: 3, BOB: -3}, 3.0)
    await store.close()
    con = sqlite3.connect(db)  # back to the previous version's schema
    con.executescript("DROP INDEX results_by_player;"
                      "CREATE INDEX results_by_user ON results (guild_id, user_id);"
                      "DROP TRIGGER results_to_standings; DROP TRIGGER standings_no_delete;"
                      "DROP TABLE standings; DROP TRIGGER results_to_variant_standings;"
                      "DROP TRIGGER variant_standings_no_delete; DROP TABLE variant_standings;"
                      "ALTER TABLE servers DROP COLUMN idle_hours;"
                      "PRAGMA user_version = 3;")
    con.close()
    store = await Store.open(db)
    try:
        assert await store.schema_version() >= 4
        async with store._db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'results'"
        ) as cur:
            names = {row[0] for row in await cur.fetchall()}
        assert "results_by_player" in names and "results_by_user" not in names
        board = await store.leaderboard(G, "units")
        assert [(e.user_id, e.units) for e in board] == [(ALICE, 3), (BOB, -3)]
        stats = await store.player_stats(G, ALICE)
        assert stats.hands == 1
    finally:
        await store.close()


async def test_a_tie_at_the_tenth_place_is_returned_whole_and_a_zero_limit_is_empty(
    tmp_path: Path,
) -> None:
    store = await Store.open(tmp_path / "tie.db")
    try:
        table = await store.create_table(G, CH, ALICE, {"variant": "ofc"}, 0, 0, 4, 1.0)
        users = list(range(1000, 1030))
        db = store._db
        await db.execute("BEGIN")
        for k in range(0, len(users), 2):  # 15 hands, two players each: everyone 1 hand
            cur = await db.execute(
                "INSERT INTO hands (table_id, number, seed, status, created_at, updated_at,"
                " finished_at, ledger_seq) VALUES (?, ?, 's', 'done', 2, 2, 2, 0)",
                (table.id, k + 1))
            for seat, (uid, pts) in enumerate(((users[k], 1), (users[k + 1], -1))):
                await db.execute(
                    "INSERT INTO results (hand_id, seat_no, user_id, guild_id, name, points,"
                    " units, finished_at) VALUES (?, ?, ?, ?, 'x', ?, 0, 2)",
                    (cur.lastrowid, seat, uid, G, pts))
        await db.commit()
        everyone = await store.leaderboard(G, "hands", None, 10)
        assert len(everyone) == 30  # all tied with the tenth
        assert await store.leaderboard(G, "hands", None, 0) == []
        points = await store.leaderboard(G, "points", None, 10)
        assert len(points) == 15  # fifteen at +1, the tenth among them
    finally:
        await store.close()


# --------------------------------------------------------------------------- cards


@pytest.mark.parametrize(("text", "words"), [
    ("A\u2060h top", ["Ah", "top"]),
    ("Ah\u200btop", ["Ah", "top"]),
    ("Ah\u200bKd", ["AhKd"]),
    ("to\u200bp", ["top"]),
    ("1\u200b0h", ["10h"]),
    ("\ufeffAh Kd", ["Ah", "Kd"]),
    ("Ah\u200b\u200b", ["Ah"]),
])
def test_invisible_characters_inside_and_between_cards(text: str, words: list[str]) -> None:
    from engine.cards import split_tokens

    assert split_tokens(text) == words
