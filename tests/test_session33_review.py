"""Review of today's changes (766c3bb..a81a534): alt text on every picture, the close notice
naming who asked (CLOSE_BY), the terminal's real minus sign and its codec error handler, the
accessibility fixes (panel room and dimmed rows, replay arrows, fantasyland words, the typed-set
hint, the short-clock hint in turn pings, the idle warning as a Discord timestamp), the engine's
input validation (``_seat_here``, ``_cards``, ``_placements``, ``from_json``'s checks, Rules'
option types), the timeout's exact clean-finish check (``_kept_clean``) and the upgrades from
older versions (migration 010 and its Python step, ``TableService._from_older_versions``).

Covered, as a player, an operator and a maintainer meet them: the service driven without Discord
(tests/bot/test_service.py's harness) for the close notice, the upgrade fill-in and the turn
ping (the real ``Presenter`` against a recording channel); the panel's buttons as
``cogs.views.panel_view`` builds them; the terminal's output through ASCII and cp1252 streams
(Windows' redirected output), stdout and stderr; the engine on random whole hands of every
variant (surrenders, timeouts, fantasylands of 13-17 cards, naturals) saved, loaded, redacted
and replayed; the timeout's worst case (every move dead, pineapple street 4, the opponent's
fantasyland hidden: the most cards unseen); migration 010 on a database made by this service
and put back as a database from before migration 003 would be (results without
``ranked_points``, standings counting points won from a bot), with a hand whose state cannot
be read, interrupted, run twice, and ``ofc-bot check`` after it.

The review found six defects, all fixed since: a test whose docstring starts "Was a defect
(fixed)" says what happened, what should, and where.
The plain tests pin what was verified to hold: no saved hand of any variant (nor a redacted
copy, nor a finished one replayed) is refused by the new ``from_json`` checks, and the bot's
and AI's moves (lists from JSON, plain-int cards, the compiled core's moves) pass the new
validation; the timeout's exact check costs about 0.1 s at worst; migration 010 corrects,
skips what it cannot read, rolls back whole and runs once; the fill-in of older tables keeps
their idle time and leaves current tables unwritten; the panel dims exactly the full rows;
alt text stays plain and within 1,024 characters; solve's output survives ASCII and cp1252.
"""

from __future__ import annotations

import asyncio
import io
import json
import random
import sqlite3
import sys
import time
import types
from pathlib import Path
from typing import Any

import pytest

import bot.store.store as store_module
from bot import maintenance
from bot.play import _plain_where_needed, main, solve_main
from bot.service import CLOSE_AFTER, Draft, PanelState, TableService
from bot.store import Store
from engine import Board, Hand, Rules, parse_cards
from engine.actions import IllegalAction
from engine.autoplay import _kept_clean, choose_placement, greedy_set, street_moves
from engine.hand import Requirement
from engine.naturals import naturals_in
from engine.rules import RulesError
from renderer import ALT_LIMIT, HandView, LeaderboardView, StatsView, alt_text

from .bot.test_service import (
    ALICE,
    BOB,
    CAROL,
    CH,
    Clock,
    G,
    Recorder,
    finish_by_autoplay,
    make,
    until,
)

C = parse_cards


def notices(rec: Recorder) -> list[str]:
    return [text for kind, text in rec.events if kind == "notice"]


# --------------------------------------------------------------------------- the close notice
# A heads-up ofc deck: the first to act is dealt EARNER's cards (queens on top: a fantasyland
# when set as listed), the other OTHER's; each street as the engine deals it.
EARNER = {"Qh": 0, "Qd": 0, "2c": 0, "Kh": 1, "Kd": 1, "3c": 1, "4d": 1, "7s": 1,
          "Ah": 2, "Ad": 2, "As": 2, "8c": 2, "9d": 2}
OTHER = {"5c": 0, "6d": 0, "8h": 0, "9s": 1, "9c": 1, "Tc": 1, "Jd": 1, "2h": 1,
         "Js": 2, "Jc": 2, "3h": 2, "3s": 2, "5d": 2}
ROWS = {**EARNER, **OTHER}


def earning_deck() -> list[Any]:
    first, second = list(EARNER), list(OTHER)
    order = first[:5] + second[:5]
    for k in range(8):
        order += [first[5 + k], second[5 + k]]
    return list(C(" ".join(order)))


async def test_a_close_asked_between_hands_is_said_to_be_asked_during_the_last_hand() -> None:
    """Was a defect (fixed).

    Hand #1 sends bob to fantasyland.  While the table waits for the fantasyland hand (the
    pause between hands), alice, the host, uses ``/ofc close``: "The table will close after
    the fantasyland hand that is owed".  Hand #2 (the fantasyland) is played, and the channel
    is told "The table is closed, as @alice asked during hand #1: ..." -- but hand #1 was over
    when she asked (its showdown already posted); nobody asked anything during it.  The notice
    is built from ``CLOSE_AFTER`` (bot/service.py:3092), which ``close()`` sets to the last
    hand's number when no hand is being played (bot/service.py:1661).  Should: say when she
    really asked ("after hand #1", or "before hand #2"), never "during hand #1"."""
    decks = [earning_deck()]
    svc, rec, store = await make(seed_factory=lambda: "s33-close",
                                 deck_factory=lambda t: decks.pop(0) if decks else None,
                                 next_hand_delay=0.5)
    try:
        t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
        await svc.join(G, CH, BOB, "bob")
        await svc.start(CH, ALICE)
        while t.hand is not None and not t.hand.is_over:
            hs = t.hand.to_act()[0]
            req = t.hand.requirement(hs)
            assert req is not None
            async with t.lock:
                t.hand.place(hs, [(c, ROWS[str(c)]) for c in req.cards])
                await svc._after_action(t)
        await until(lambda: t.hand is None)
        assert t.row.hand_no == 1 and t.fantasyland_pending  # (between hands, one owed)
        said = await svc.close(CH, ALICE, False)
        assert said.startswith("The table will close after the fantasyland hand that is owed")
        await until(lambda: t.hand is not None)
        assert t.row.hand_no == 2 and any(t.hand.fantasyland)
        await finish_by_autoplay(svc)
        await until(lambda: t.id not in svc.tables
                    and "Thanks for playing" in (notices(rec) or [""])[-1])
        closing = notices(rec)[-1]
        assert closing.startswith(f"The table is closed, as <@{ALICE}> asked"), closing
        assert "during hand #1" not in closing, closing
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_close_asked_during_a_hand_names_who_asked_and_that_hand() -> None:
    """What holds: a close asked during hand #1 is announced, when the table closes after it
    (and the fantasyland it may earn), as asked by the asker during hand #1, pinging nobody."""
    svc, rec, store = await make(seed_factory=lambda: "s33-close-during")
    try:
        t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
        await svc.join(G, CH, BOB, "bob")
        await svc.start(CH, ALICE)
        await svc.close(CH, ALICE, False)
        while t.id in svc.tables:
            await until(lambda: t.hand is not None or t.id not in svc.tables)
            if t.hand is not None:
                await finish_by_autoplay(svc)
        await until(lambda: "Thanks for playing" in (notices(rec) or [""])[-1])
        assert notices(rec)[-1].startswith(
            f"The table is closed, as <@{ALICE}> asked during hand #1: every stack went back")
        assert rec.pings[-1] is False
    finally:
        await svc.shutdown()
        await store.close()


# --------------------------------------------------------------------------- the turn ping
class _Channel:
    """A channel that records what is sent to it (``Presenter.channel``'s stand-in)."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send(self, content: str | None = None, **kw: Any) -> Any:
        self.sent.append(content or "")
        return types.SimpleNamespace(id=len(self.sent))


async def test_the_short_clock_hint_when_the_short_clock_is_the_whole_clock() -> None:
    """Was a defect (fixed).

    A table with a 10 s clock (``/ofc new timer:10``; ``away_timer`` is 10 by default).
    Bob's clock runs out once; his next decision gets min(10, 10) = 10 s, the whole clock
    (bot/service.py ``_set_deadlines``).  His turn ping says "A short clock after a timeout:
    `/ofc sitin` gives the whole clock back now." -- but his clock is not short, and
    ``/ofc sitin`` gives him nothing (the same 10 s).  The same with any ``away_timer`` at or
    above the clock (e.g. ``away_timer:60`` at a 30 s table).  ``short`` is
    ``t.rules.away_timer and <a timeout this hand>`` (cogs/presenter.py:770), never compared
    with the clock.  Should: the hint only when the decision's clock is really shorter than
    the whole one (``away_timer`` below ``timer``, or ``set_timer`` for a set)."""
    from cogs.presenter import Presenter

    svc, rec, store = await make(seed_factory=lambda: "s33-ping")
    try:
        t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc", timer=10)
        await svc.join(G, CH, BOB, "bob")
        await svc.start(CH, ALICE)
        assert t.hand is not None and (t.rules.timer, t.rules.away_timer) == (10, 10)
        hs = t.hand.to_act()[0]
        async with t.lock:  # (his clock ran out this hand: what the timeout leaves)
            t.away.add(hs)
            t.deadlines.pop(hs, None)
            svc._set_deadlines(t)
        assert t.deadlines[hs] - svc.clock() == pytest.approx(10, abs=0.5)  # the whole clock
        channel = _Channel()
        bot = types.SimpleNamespace(service=None,
                                    get_partial_messageable=lambda *a, **kw: channel)
        presenter = Presenter(bot)  # type: ignore[arg-type]
        presenter._swept.add(t.id)  # (no ping from before a restart to look for)
        await presenter.turn_started(t, [t.hand_seats[hs]], t.hand.requirement(hs))
        (ping,) = channel.sent
        assert "your turn" in ping
        assert "/ofc sitin" not in ping and "short clock" not in ping, ping
    finally:
        await svc.shutdown()
        await store.close()


# --------------------------------------------------------------------------- the panel
def _street_panel(assigned: list[tuple[Any, int]], selected: list[Any]) -> PanelState:
    """A pineapple street 2 panel: Ah Kd 2c dealt (place 2, discard 1) on a 5-card board."""
    board = Board.from_rows([C("Qh Qd"), C("5c 6c"), C("9s")])
    cards = tuple(C("Ah Kd 2c"))
    req = Requirement(seat=0, cards=cards, place=2, discard=1, free=board.free_slots,
                      is_set=False)
    return PanelState(table_id=1, seat_no=0, hand_no=1, step=2, requirement=req, board=board,
                      draft=Draft(selected=list(selected), assigned=list(assigned),
                                  presses=[1] * len(assigned)),
                      fantasyland=False, discards=(), waiting_for="", name="alice")


def _buttons(state: PanelState) -> dict[str, bool]:
    """The panel's buttons: action -> disabled."""
    from cogs.views import panel_view

    out = {}
    for child in panel_view(state, "pineapple").children:
        item: Any = getattr(child, "item", child)
        if item.custom_id.startswith("ofc:pb:"):
            out[item.custom_id.rsplit(":", 1)[1]] = bool(item.disabled)
    return out


async def test_the_discard_button_stays_live_when_its_room_is_full() -> None:
    """Was a defect (fixed).

    Pineapple, street 2: Ah Kd 2c, place two and discard one.  Alice discards 2c (Discard),
    then picks Ah in the menu.  The rows are live (they have room), and so is **Discard**,
    though the one discard is made: pressing it can only answer "You discard 1 card this
    round." (bot/service.py ``panel_action``) -- the very press the row dimming of this change
    spares a player (a tap lost on the phone, a screen reader's "Discard, button" that leads
    nowhere).  ``full`` is computed for rows only (``row < 3``, cogs/views.py:185).  Should:
    Discard dimmed once the chosen discards reach the street's (``req.discard``), as a full
    row is; live again after Undo."""
    ah, _, c2 = C("Ah Kd 2c")
    buttons = _buttons(_street_panel([(c2, 3)], [ah]))
    assert buttons["top"] is False and buttons["bottom"] is False  # (room left there)
    assert buttons["discard"] is True, buttons


async def test_the_panel_dims_exactly_the_rows_its_chosen_cards_fill() -> None:
    """What holds: a row is dimmed when its chosen cards fill the room the board leaves it
    (top: one slot, Ah chosen there), the others stay live while a card is picked; after an
    Undo (nothing chosen) the top is live again."""
    ah, kd, _ = C("Ah Kd 2c")
    full_top = _buttons(_street_panel([(ah, 0)], [kd]))
    assert full_top["top"] is True and full_top["middle"] is False
    assert full_top["bottom"] is False
    undone = _buttons(_street_panel([], [kd]))
    assert not any(undone[row] for row in ("top", "middle", "bottom", "discard"))


# --------------------------------------------------------------------------- the terminal
@pytest.mark.parametrize("encoding", ["ascii", "cp1252"])
def test_the_terminal_reviews_check_mark_and_plus_minus_become_question_marks(
    encoding: str,
) -> None:
    """Was a defect (fixed).

    ``ofc-bot play --review`` (or ``review``) on a terminal that cannot show ✓ (ASCII, or
    Windows' cp1252 when the output is redirected) prints "  AI   the same ?" (engine/review.py
    line 423: it reads as a question) and, on an ASCII one, "(2.0 better, ? 0.3)" for
    "± 0.3" (engine/review.py:434) and "(? one standard error)".  The codec handler of this
    change gives its stand-ins only for ``PLAIN`` (bot/play.py:561), which lacks ✓ and ±,
    and '?' for the rest.  README: "a terminal that cannot show a character gets a plain
    stand-in".  Should: stand-ins that keep the meaning ("+/-" for ±, "ok" or "v" for ✓)."""
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding=encoding, newline="")
    _plain_where_needed(out)
    for line in ("  AI   the same ✓", "  AI    +10.3  Kh top  (2.0 better, ± 0.3)"):
        out.write(line + "\n")
    out.flush()
    assert "?" not in raw.getvalue().decode(encoding), raw.getvalue()


def test_the_terminals_errors_on_an_ascii_stderr_get_escapes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Was a defect (fixed).

    ``ofc-bot play --option surrender=3`` (an option of chinese at an ofc game) on an
    ASCII terminal writes, on stderr (Python's own errors='backslashreplace'):
    ``ofc-bot play: --option \\u201csurrender pays\\u201d is an option of chinese poker``; the
    same from ``ofc-bot solve ... --option dragon=3``.  The codec handler of this change is
    put on stdout only (``_plain_where_needed(stdout)``, bot/play.py ``_main`` and
    ``solve_main``), while ``refuse`` (bot/play.py:693) and solve's error (bot/play.py:780)
    print to stderr, whose curly quotes have stand-ins in ``PLAIN``.  Should: the error
    reads ``"surrender pays"`` there too."""
    raw = io.BytesIO()
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(
        raw, encoding="ascii", errors="backslashreplace", write_through=True))
    out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    assert main(["--option", "surrender=3", "--no-images"], io.StringIO(""), out) == 2
    assert solve_main([*"Qh Qd Qs Kh Kd Ks 4c 3d 9c Tc Jc 2c 8c".split(),
                       "--option", "dragon=3"], out) == 2
    said = raw.getvalue().decode("ascii")
    assert said.count("is an option of chinese poker") == 2, said
    assert "\\u" not in said, said


def test_solve_on_a_cp1252_or_ascii_output_writes_plain_stand_ins() -> None:
    """What holds: ``ofc-bot solve`` on a cp1252 (Windows, redirected) or ASCII output
    finishes (no UnicodeEncodeError) and writes '-' for the separators it cannot show."""
    cards = "Qh Qd Qs Kh Kd Ks 4c 3d 9c Tc Jc 2c 8c 7d".split()
    for encoding in ("ascii", "cp1252"):
        raw = io.BytesIO()
        out = io.TextIOWrapper(raw, encoding=encoding, newline="")
        assert solve_main(cards, out) == 0
        out.flush()
        text = raw.getvalue().decode(encoding)
        assert "top Qs Qh Qd (three queens)" in text and "?" not in text, text


# --------------------------------------------------------------------------- engine contract
@pytest.mark.parametrize("load", ["from_json", "constructor"])
def test_rules_accept_a_bool_as_a_points_option(load: str) -> None:
    """Was a defect (fixed).

    This change refuses a points option that is not a whole number
    (``shoot_the_moon_points`` and ``chinese_surrender``: ``type(value) is not int``), so
    ``{"shoot_the_moon_points": true}`` in a saved table's rules is a RulesError.  But
    ``{"stay_value": true}`` loads, and the solver (bots, timeouts, ``/ofc suggest``) counts
    staying in fantasyland as 1 point (``/ofc rules`` says "stay value: True"): the check of
    ``stay_value`` is ``isinstance(..., int)`` (engine/rules.py:195), which a bool passes.
    Should: a RulesError naming stay_value, as for the other points options."""
    with pytest.raises(RulesError, match="stay_value"):
        if load == "from_json":
            Rules.from_json({"variant": "pineapple", "stay_value": True})
        else:
            Rules(variant="pineapple", stay_value=True)


def _play_random_hand(rng: random.Random, check: Any) -> None:
    variant = rng.choice(["ofc", "pineapple", "chinese"])
    n = rng.randint(2, 3 if variant == "pineapple" else 4)
    fl = [0] * n
    if variant != "chinese":
        for i in range(n):
            if rng.random() < 0.3:
                fl[i] = 13 if variant == "ofc" else rng.randint(14, 17)
    rules = Rules(variant=variant)  # type: ignore[arg-type]
    h = Hand(rules, [f"p{i}" for i in range(n)], rng.randrange(n), fl, seed=str(rng.random()))
    check(h)
    while not h.is_over:
        s = rng.choice(h.to_act())
        req = h.requirement(s)
        assert req is not None
        x = rng.random()
        natural = [k for k in naturals_in(req.cards) if k in rules.natural_values]
        if x < 0.04:
            try:
                h.surrender(s)
            except IllegalAction:  # (a finished board: too late)
                h.autoplay(s, plain=True)
        elif x < 0.15:
            h.autoplay(s, plain=True)  # a timeout (logged auto)
        elif variant == "chinese" and natural:
            h.declare(s, natural[0])
        elif req.is_set:
            board, dropped = greedy_set(req.cards)
            h.place(s, [(c, r) for r, row in enumerate(board.rows) for c in row], dropped)
        else:
            placed, dropped = rng.choice(street_moves(req))
            # as the bot and its JSON pass them: lists for pairs, plain ints for some cards
            h.place(s, [[int(c) if rng.random() < 0.2 else c, r] for c, r in placed],
                    list(dropped))
        check(h)


def test_every_saved_hand_loads_and_its_redacted_copies_too() -> None:
    """What holds: random whole hands of every variant (2-4 seats, surrenders, timeouts,
    fantasylands of 13-17 cards, chinese naturals when dealt; moves given as lists and some
    cards as plain ints) saved through JSON load with ``from_json`` at every step (its
    boards are its log's), as does every seat's ``redacted_for`` copy (what the AI and a
    timeout's fallback load), and a finished one replays to the same hand."""
    def check(h: Hand) -> None:
        data = json.loads(json.dumps(h.to_json()))
        assert Hand.from_json(data) == h
        if h.is_over:
            assert Hand.replay(data) == h
        else:
            for seat in range(h.n):
                copy = h.redacted_for(seat)
                assert Hand.from_json(json.loads(json.dumps(copy.to_json()))) == copy

    rng = random.Random(33)
    deadline = time.monotonic() + 4.0
    played = 0
    while time.monotonic() < deadline or played < 40:
        _play_random_hand(rng, check)
        played += 1


def test_the_timeouts_exact_check_is_quick_when_every_move_is_dead() -> None:
    """What holds: the worst case of ``_kept_clean`` -- pineapple street 4 where every move
    leaves a certain foul (three aces on top, a middle of 2c 7d 9h that can never beat them)
    with the opponent's 14-card fantasyland hidden (38 cards unseen: every move's 38 x 37
    finishes scanned) -- takes well under a second (about 0.1 s here), the timeout's move
    (AI and plain) included: far inside the bot's 30 s watchdog, and nothing a player waits
    on beyond the clock itself."""
    deck = C("Kc Kd 5c 6c Tc Qc Qd 2d Jc Jd 3d 4c 8c 9c "  # the fantasyland (seat 1)
             "As Ad Ah 2c 7d 9h 3c 4d 8d Js 5d 4h 5s 6d")
    h = Hand(Rules(variant="pineapple"), ["a", "b"], 1, [0, 14], seed="s33", deck=deck)
    h.place(0, list(zip(C("As Ad Ah 2c 7d"), [0, 0, 0, 1, 1], strict=True)))
    h.place(0, list(zip(C("9h 3c"), [1, 2], strict=True)), C("4d"))
    h.place(0, list(zip(C("8d Js"), [2, 2], strict=True)), C("5d"))
    req = h.requirement(0)
    assert req is not None and req.free == (0, 2, 2)
    assert 52 - len(h.cards_seen_by(0)) == 38
    started = time.perf_counter()
    _kept_clean(h, 0, req, street_moves(req)[0])
    choose_placement(h, 0, req, plain=True)
    choose_placement(h, 0, req)
    assert time.perf_counter() - started < 3.0


# --------------------------------------------------------------------------- alt text
def test_alt_text_keeps_names_as_typed_and_within_discords_limit() -> None:
    """What holds: a picture's alt text is plain text (a name full of markdown, or written
    right to left, stays as typed), at most 1,024 characters whatever the heading's length,
    and never has a card of the hand in it."""
    hand = HandView(name="**_~~ب ש~~_**", cards=tuple(C("Ah Kd 2c")), board=Board(),
                    instruction="Place 2, discard 1", variant="pineapple")
    text = alt_text(hand)
    assert text.startswith("Picture of your hand: **_~~ب ש~~_** — Place 2, discard 1. ")
    assert "Ah" not in text and "Kd" not in text
    board = LeaderboardView(title="A" * 3000, period="all time", by="points", rows=())
    long = alt_text(board, continued=True)
    assert len(long) == ALT_LIMIT and long.endswith("those after it has every row.")
    stats = alt_text(StatsView(name="x" * 2000, hands=0, units=0, points=0, foul_rate=0.0,
                               fantasyland_rate=0.0, balances=()))
    assert len(stats) <= ALT_LIMIT


# --------------------------------------------------------------------------- upgrades
def _as_before_migration_003(path: Path, unreadable: int | None) -> None:
    """The database as a bot from before migration 003 left it: its results' points against
    humans NULL, the standings counting every point (those won from bots too); ``unreadable``:
    a hand whose state cannot be read."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("BEGIN")
        db.execute("DROP TRIGGER results_no_update")
        for user_id, guild_id, points, ranked in db.execute(
                "SELECT user_id, guild_id, points, ranked_points FROM results"
                " WHERE ranked_points IS NOT NULL").fetchall():
            for table in ("standings", "variant_standings"):
                db.execute(f"UPDATE {table} SET points = points + ? WHERE guild_id = ?"
                           " AND user_id = ?", (points - ranked, guild_id, user_id))
        db.execute("UPDATE results SET ranked_points = NULL")
        db.execute("CREATE TRIGGER results_no_update BEFORE UPDATE ON results BEGIN"
                   " SELECT RAISE(ABORT, 'hand results are append-only'); END")
        if unreadable is not None:
            db.execute("UPDATE hands SET state = '{not json' WHERE id = ?", (unreadable,))
        db.execute("PRAGMA user_version = 9")
        db.execute("COMMIT")
    finally:
        db.close()


def _books(path: Path) -> tuple[list[Any], list[Any], int]:
    db = sqlite3.connect(path)
    try:
        return (db.execute("SELECT hand_id, seat_no, ranked_points FROM results"
                           " ORDER BY 1, 2").fetchall(),
                db.execute("SELECT guild_id, user_id, points FROM standings"
                           " ORDER BY 1, 2").fetchall(),
                int(db.execute("PRAGMA user_version").fetchone()[0]))
    finally:
        db.close()


async def test_migration_010_on_results_from_before_003_interrupted_and_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What holds: two humans and a bot play two pineapple hands; the database is put back as
    a bot from before migration 003 left it (hand 2's state unreadable).  Migration 010
    interrupted in its Python step (an error after the step's writes) leaves the database as
    it was (schema 9, results and standings untouched, the append-only trigger there); run
    for good it gives hand 1 its points against humans as the current bot writes them and
    corrects the standings by the difference, leaves hand 2 as it was (all its points count,
    a warning), and ``ofc-bot check`` finds nothing wrong; run again (schema set back to 9)
    it changes nothing."""
    path = tmp_path / "ofc.sqlite3"
    svc, rec, store = await make(path, seed_factory=lambda: "s33-mig")
    t = await svc.new_table(G, CH, ALICE, "alice", variant="pineapple", bots=1,
                            bot_level="easy")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    for k in (1, 2):
        await until(lambda k=k: t.hand is not None and t.row.hand_no == k)  # type: ignore[misc]
        await finish_by_autoplay(svc)
    await until(lambda: t.hand is not None and t.row.hand_no == 3)
    await svc.shutdown()
    await store.close()
    results, standings, _ = _books(path)
    assert [r for r in results if r[0] == 1 and r[2] is not None]  # (ranked, as written now)
    _as_before_migration_003(path, unreadable=2)
    old_results, old_standings, version = _books(path)
    assert version == 9 and old_standings != standings

    real = store_module._STEPS[10]

    async def broken(s: Store) -> None:
        await real(s)
        raise RuntimeError("power cut")

    monkeypatch.setitem(store_module._STEPS, 10, broken)
    with pytest.raises(RuntimeError):
        await Store.open(path)
    assert _books(path) == (old_results, old_standings, 9)
    db = sqlite3.connect(path)
    assert db.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger'"
                      " AND name = 'results_no_update'").fetchone() == (1,)
    db.close()

    monkeypatch.setitem(store_module._STEPS, 10, real)
    migrated = await Store.open(path)
    assert await migrated.verify_ledger() == []
    await migrated.close()
    after = _books(path)
    assert after[2] == 10
    assert [r for r in after[0] if r[0] == 1] == [r for r in results if r[0] == 1]
    assert all(r[2] is None for r in after[0] if r[0] == 2)  # (unreadable: as it was)
    assert after[1] != old_standings  # (corrected: verify_ledger checks them with results)
    contents, problems = await asyncio.to_thread(maintenance.check, path)
    assert problems == [] and contents is not None and contents.schema == 10

    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA user_version = 9")
    db.close()
    again = await Store.open(path)
    await again.close()
    assert _books(path) == after


async def test_the_upgrade_fill_in_keeps_idle_time_and_leaves_current_tables_alone(
    tmp_path: Path,
) -> None:
    """What holds: a table whose creator left under an older bot (no ``host`` in its extra)
    is hosted, after the start, by the human seated longest, its idle time (``updated_at``,
    ``idle_since``) unchanged; a current table (its creator seated, no host written) and a
    closing table that has its ``close_after`` are not written at all."""
    path = tmp_path / "ofc.sqlite3"
    clock = Clock()
    svc, rec, store = await make(path, clock=clock, seed_factory=lambda: "s33-older",
                                 next_hand_delay=3600.0)
    left = await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.join(G, CH, CAROL, "carol")
    await svc.leave(CH, ALICE)
    assert left.host_id == BOB
    older = {k: v for k, v in left.row.extra.items() if k != "host"}
    await store.update_table(left.id, extra=older, now=left.row.updated_at)
    current = await svc.new_table(G, CH + 1, CAROL + 1, "dave", variant="ofc")
    await svc.join(G, CH + 1, CAROL + 2, "erin")
    closing = await svc.new_table(G, CH + 2, CAROL + 3, "fay", variant="ofc")
    await svc.join(G, CH + 2, CAROL + 4, "gus")
    await svc.start(CH + 2, CAROL + 3)
    await svc.close(CH + 2, CAROL + 3, False)
    await svc.shutdown()
    before = {row.id: row for row in await store.open_tables()}
    idle_before = left.idle_since()
    await store.close()

    clock.offset += 3600
    store2 = await Store.open(path)
    svc2 = TableService(store2, Recorder(), clock=clock, next_hand_delay=3600.0)
    try:
        await svc2.load_tables()
        t = svc2.tables[left.id]
        assert t.host_id == BOB
        assert t.row.updated_at == before[left.id].updated_at
        assert t.idle_since() <= idle_before < clock() - 3000  # (not made "now")
        for other in (current, closing):
            assert svc2.tables[other.id].row == before[other.id]
        assert CLOSE_AFTER in svc2.tables[closing.id].row.extra
    finally:
        await svc2.shutdown()
        await store2.close()
