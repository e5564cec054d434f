"""Mutation review of persistence and recovery, second part: what the first review
(test_mutation_persist_review.py) did not reach.  The promise: a restarted bot resumes every
table and hand as it was; a hand saved and loaded back is the same hand; a saved state that
cannot be read back is refused (the service voids it), never loaded half-read.

Targets: engine ``Hand.header_json``, ``to_json``, ``_new_from_header``, ``from_json`` and
what they call (``Board.to_json``/``from_json``, ``Place``/``Declare``/``Surrender.to_json``,
``action_from_json``, ``cards_to_json``, ``cards_from_json``); bot/service.py ``_deal``,
``_refresh``, ``_refresh_after_write``, ``_seat_written``, ``_update_seat`` and the service
functions that call ``store.update_table``/``_update_seat`` (sit_out, close, set_options,
_close_now, close_marked, _sit_out_after_timeout, _showdown_posted, set_message_id,
remove_bot, leave: sampled last); bot/store/store.py ``update_table``, ``update_seat``;
and integer constants c+1 / c-1 in every target the first review listed.

Operators (an AST tool kept in /tmp, not in the repository; each mutant applied alone, the
file restored by ``git checkout`` after it): comparisons swapped (``<``/``<=``, ``>``/``>=``,
``==``/``!=``, ``in``/``not in``, ``is``/``is not``), ``and``/``or`` swapped, ``not``
removed, ``True``/``False`` swapped, integer constants +1 and -1, one statement deleted
(assignment, call, ``if``, ``for``, ``with``, ``try``, ``raise``), ``return X`` ->
``return None``, a string key dropped from a dict literal (what is saved), a keyword argument
dropped from a call (a field not written).  Tests per mutant by coverage contexts (tests/engine
hand/board/contract/review/rounds tests and tests/bot store/service/robustness/persist/
change/upgrade/options/units2/session/idle tests, run once under ``coverage`` with
test_function contexts; the engine's hypothesis tests added when a line is reached only
from them), fastest first, about 25 s of them per mutant, ``pytest -x``, one core.

Counts: 591 generated; 255 run (43 %; the engine's serialisation first, then the rest
interleaved until the time ran out): every mutant of the engine's hand serialisation (131
non-integer, with its integer ones), of ``_refresh``, ``_refresh_after_write``,
``_seat_written`` and ``_update_seat``; 21 of 53 of ``_deal``; 39 of 51 of the store's
``update_table``; 46 of 50 integer (c±1) mutants; none of the store's ``update_seat`` (27)
nor of the other service functions above (261).
Killed by the existing suite: 214 (two of them, ``_grace_after_outage``'s ``ping[0]``
index ±1, reached by no selected test, were run by hand against tests/bot/test_gateway_clocks.py
and killed).  Not killed: 41.  Equivalent: 14.  Gaps: 17, all now killed by this file (7
tests, 11 cases; each checked to pass on the code as it is and to fail on its mutants).  Left: 10.
Defects found: none (no hand or table loaded differently from how it was saved, in what was
run and read).

Equivalent survivors, in short: ``zip(..., strict=True)`` weakened or dropped in
``action_from_json`` (cards and rows come from the same list); ``Hand.to_json``'s
``"version"`` dropped or changed ±1 (three mutants: nothing reads it); ``from_json``'s
``settlement = None`` and ``fantasyland_next = (0,) * n`` deleted (``__init__`` already set
both so, and a hand is never over at its deal); ``_update_seat`` returning None (every caller
ignores the row); ``_state_json``'s ``0`` for the user of a hand seat left empty, ±1 (no user
has id 1 or -1: still nobody); ``_deal``'s ``fl = {... if cards}`` deleted
(``fantasyland_pending`` already drops zeros and ``fantasyland_cards_now`` keeps a non-zero
size non-zero); ``_deal``'s ``t.drafts = {}``, ``t.deadlines = {}``, ``t.away = set()``
deleted (``_clear_hand`` empties them at every settled or voided hand, and a table loaded
between hands starts with them empty).

Survivors left unpinned: ``resume``'s ``t.waiting = t.row.hand_no > 0`` with 0 -> 1 and
0 -> -1 (a closing or human-less table between hands: whether it counts as waiting matters
only to a join or start racing its closing; not worked out in the time); ``remove_bot``'s
integer constants (8 mutants), reached only by tests/e2e (not in the selection, not run).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import bot.service as service_module
from engine import Card, CardError, Hand, Place, Rules
from engine.actions import Declare, action_from_json
from engine.cards import cards_from_json

from .test_service import ALICE, BOB, CH, G, make


def _first_move() -> tuple[Hand, list[tuple[Card, int]]]:
    """Classic ofc, two seats, seat 0 to act with 5 cards; a legal first move for it."""
    h = Hand(Rules(), ["Ann", "Bob"], button=1, seed=1)
    c = h.pending[0]
    return h, [(c[0], 0), (c[1], 1), (c[2], 1), (c[3], 2), (c[4], 2)]


# -- engine: actions and cards as saved --------------------------------------------------------
def test_a_saved_move_without_the_auto_flag_loads_as_played_by_its_player() -> None:
    """Promise: a hand saved and loaded back is the same hand, its log included.  A move saved
    without ``auto`` (a log written before the flag existed) was the player's own: it loads
    with ``auto`` False, for a placement and for a declared natural alike (who timed out is
    what the log's ``auto`` says, and the recap counts it)."""
    place = action_from_json({"type": "place", "seat": 1, "cards": [["Ah", 0]], "discards": []})
    assert isinstance(place, Place) and place.auto is False
    declare = action_from_json({"type": "declare", "seat": 0, "natural": "dragon"})
    assert isinstance(declare, Declare) and declare.auto is False
    assert action_from_json({"type": "place", "seat": 1, "cards": [["Ah", 0]],
                             "auto": True}).auto is True


def test_an_action_of_an_unknown_kind_is_refused_and_so_is_a_hand_logging_one() -> None:
    """Promise: a saved hand that cannot be read back is refused (ValueError), never loaded
    half-read.  An action of a kind the engine does not know ("fold") is a ValueError naming
    it, and a saved hand whose log holds one is refused with a ValueError too (the service
    voids such a hand), not loaded with a hole in its log."""
    with pytest.raises(ValueError, match="'fold'"):
        action_from_json({"type": "fold", "seat": 0})
    h, good = _first_move()
    h.place(0, good)
    data = json.loads(json.dumps(h.to_json()))
    data["log"][0]["type"] = "fold"
    with pytest.raises(ValueError, match="'fold'"):
        Hand.from_json(data)


def test_a_saved_card_that_is_not_a_card_is_named_even_after_good_ones() -> None:
    """Promise: a saved hand whose cards cannot be read is refused with a CardError naming the
    culprit.  The culprit is the first item that is not a card, not the first item of the
    list: with good cards before it, the error still names it (text and ``token``)."""
    with pytest.raises(CardError, match="'Zz' is not a card") as err:
        cards_from_json(["As", "Kd", "Zz", "Qh"])
    assert err.value.token == "Zz"
    with pytest.raises(CardError, match="7 is not a card") as err2:
        cards_from_json(["As", 7])  # type: ignore[list-item]
    assert err2.value.token == "7"


# -- service: loading tables at a restart ------------------------------------------------------
async def test_loading_a_table_is_tried_load_attempts_times_and_no_more(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """Promise: a restarted bot resumes every table (a database error may pass: the load is
    tried again).  A table whose load fails LOAD_ATTEMPTS - 1 times is still loaded; one
    whose load always fails is tried exactly LOAD_ATTEMPTS times (numbered 1 to N in the
    log), then left out without keeping the bot's start down."""
    monkeypatch.setattr(service_module, "LOAD_RETRY", 0.0)
    db = tmp_path / "attempts.sqlite3"
    svc, _rec, store = await make(db, seed_factory=lambda: "mut2-load")
    await svc.new_table(G, CH, ALICE, "alice")
    await svc.join(G, CH, BOB, "bob")
    await svc.shutdown()
    await store.close()

    for fails, loaded in ((service_module.LOAD_ATTEMPTS - 1, 1),
                          (service_module.LOAD_ATTEMPTS, 0)):
        caplog.clear()
        svc2, _rec2, store2 = await make(db, seed_factory=lambda: "mut2-load")
        real = svc2._load_table
        calls: list[int] = []

        async def flaky(row: Any, unreadable: dict[int, int], real: Any = real,
                        calls: list[int] = calls, fails: int = fails) -> Any:
            calls.append(row.id)
            if len(calls) <= fails:
                raise sqlite3.OperationalError("database is locked")
            return await real(row, unreadable)

        monkeypatch.setattr(svc2, "_load_table", flaky)
        assert len(await svc2.load_tables()) == loaded
        assert len(calls) == min(fails + 1, service_module.LOAD_ATTEMPTS)
        said = [r.getMessage() for r in caplog.records if "loading table" in r.getMessage()]
        n = service_module.LOAD_ATTEMPTS
        assert said == [f"loading table {calls[0]} failed (attempt {k} of {n})"
                        for k in range(1, fails + 1)]
        await svc2.shutdown()
        await store2.close()


# -- engine: what Hand.from_json refuses -------------------------------------------------------
@pytest.mark.parametrize(("where", "value", "match"), [
    ("turn", 2, "does not match its seats"), ("turn", -1, "does not match its seats"),
    ("seat", 2, "names seat 2"), ("seat", -1, "names seat -1"), ("row", 3, "names row 3"),
])
def test_a_saved_hand_naming_a_seat_or_row_just_past_the_edge_is_refused(
    where: str, value: int, match: str,
) -> None:
    """Promise: a saved hand that does not match its seats is refused (ValueError: the
    service voids it) rather than loaded as a hand that breaks later.  At the exact edges:
    two seats, a turn of 2 or -1, a logged move by seat 2 or -1 (Python would read -1 as
    the last seat), a card logged to row 3; the hand as saved (turn 1, rows 0 to 2) loads."""
    h, good = _first_move()
    h.place(0, good)
    data = json.loads(json.dumps(h.to_json()))
    assert Hand.from_json(data) == h and data["state"]["turn"] == 1
    if where == "turn":
        data["state"]["turn"] = value
    elif where == "seat":
        data["log"][0]["seat"] = value
    else:
        data["log"][0]["cards"][-1][1] = value
    with pytest.raises(ValueError, match=match):
        Hand.from_json(data)


def test_a_hand_loaded_back_mid_hand_and_at_its_end_has_every_attribute_of_the_saved_one() -> None:
    """Promise: a hand saved and loaded back is the same hand.  Not only what ``to_json``
    holds (what ``==`` compares) but every attribute: mid-hand (after one move: no settlement,
    no fantasyland earned yet, the same deck, order, turn and log) and once over (the same
    settlement and next fantasylands)."""
    h, good = _first_move()
    h.place(0, good)
    for _ in range(2):
        loaded = Hand.from_json(json.loads(json.dumps(h.to_json())))
        assert vars(loaded).keys() == vars(h).keys()
        for name, value in vars(h).items():
            assert getattr(loaded, name) == value, name
        while not h.is_over:
            h.autoplay(h.to_act()[0], plain=True)
    assert h.settlement is not None


# -- service: what a deal writes ---------------------------------------------------------------
async def test_a_deal_with_a_fantasyland_puts_the_button_back_where_it_was_and_saves_that(
    tmp_path: Path,
) -> None:
    """Promise (RULES.md option "button stays for fantasyland", on by default): the button
    stays where it was for the last hand when this one has a player in fantasyland.  The
    table saved after a hand that earned bob a fantasyland (the button moved on to seat 1,
    ``button_before`` 0): the deal puts it back on seat 0, writes that, and spends the
    fantasyland and ``button_before`` in the same write."""
    db = tmp_path / "button.sqlite3"
    svc, _rec, store = await make(db, seed_factory=lambda: "mut2-button")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    t = svc.table_in_channel(CH)
    assert t.table_rules.button_stays_for_fantasyland
    await store.update_table(t.id, button=1, extra={
        **t.row.extra, "fantasyland": {"1": 13}, "fantasyland_owed_by": [0, 1],
        "button_before": 0})
    await svc._refresh(t)
    await svc.start(CH, ALICE)
    assert t.hand is not None and t.hand_seats == [0, 1]
    assert t.hand.fantasyland == (0, 13) and t.hand.button == 0
    row = await store.get_table(t.id)
    assert row is not None and row.button == 0 and t.row.button == 0
    assert row.extra.get("button_before") is None and row.extra.get("fantasyland") == {}
    await svc.shutdown()
    await store.close()
