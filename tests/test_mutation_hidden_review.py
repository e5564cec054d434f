"""A mutation review of the code that decides what each viewer may see (README: "hidden
information stays hidden": a fantasyland hand, a pineapple discard, the others' pending
cards, a chinese set or a declared natural until the showdown, the deck; the AI thinks only on
what its seat may see).

Targets: engine/hand.py ``Hand.hidden``, ``cards_seen_by``, ``redacted_for``, ``view_for``,
``rounds``, ``_redacted`` and the boards ``_finish`` shows; engine/review.py ``decisions``;
renderer ``draw_board`` (backs), table.py ``_seat``/``fouled``/``describe_seat``,
showdown.py ``_natural_cards``/``_natural_line``/``_strip``/``describe_showdown`` (their
face, back and board parts); cogs/presenter.py ``table_view``, ``hand_view``, ``panel_text``,
``showdown_view``, ``round_view``, ``past_hand_payload``, ``Presenter.fantasyland_dealt``,
``turn_started``, ``showdown``; cogs/views.py ``send_panel``, ``panel_payload``,
``send_past_hand``, ``send_review``, ``may_view``; the ``ephemeral`` flags of cogs/ofc.py's
hand, place, declare and suggest; bot/service.py ``_place``, ``panel``, ``panel_action`` (its
owner check), ``_panel_state``, ``suggest``, ``_timer`` and ``_bot_act`` (their redacted
copies), ``_settled_showdown``, ``_review``, ``_finished_hand``, ``_past_hand``, ``_settle``.

Operators (a throw-away AST tool in /tmp, one node replaced per mutant): comparisons swapped
(``==``/``!=``, ``<``/``>=`` and the like, ``in``/``not in``, ``is``/``is not``),
``and``/``or`` swapped, ``not`` dropped, True/False swapped, a condition (if, conditional
expression, comprehension filter) replaced by True or by False, a statement deleted,
``return X`` -> ``return None``, and two of its own: ``x.redacted_for(s)`` -> a full copy of
``x``, ``view_for``/``cards_seen_by`` asked for viewer 0. The tests of each mutant were chosen
by coverage (a dynamic context per test function over tests/engine, renderer, cogs, bot and the
e2e hidden, fantasyland, chinese, replay and review reviews; a line run only from a background
task, where coverage names no test, got the e2e hidden, fantasyland and chinese tests), the
fastest first, up to 25-60 s of them per mutant; the survivors then ran every selected test.

Counts: 1,092 mutants generated in the targets' hidden-information lines; 209 run (19%, a
sample favouring those that could show a hidden card: every redaction bypass and viewer swap,
the engine's views first); 158 killed by the existing suite, 46 survived, 5 reached by no
selected test. Of those 51: 14 equivalent (``_finish``'s natural-or-surrender test -> True:
every other board is complete; ghosts already filtered by the caller; ``_place``'s ``hidden``
is true only for a set, which sets it anyway; ``table_view``'s ``now`` is passed by nobody and
its ``hand is not None`` guard is checked again below; ``is_over`` is ``settlement is not
None``; a seat's Place always has its requirement; Metrics of the same theme; two asserts
dropped; a slash command's defer ``thinking`` flag; the first follow-up after a thinking defer
keeps the defer's ephemerality; None for False where only truth counts; a dealt-in seat always
has a hand seat). 20 are gaps outside hidden information (status words, stacks, the
sitting-out veil, the broke line, a natural's card order and label, the alt text's
"continued", DM wording and logging, the owner's own waiting text) and 3 were unreached
(``may_view`` twice, in its refusing direction, and a past hand sent without buttons), not
pursued here. 14 are gaps about hidden information, each now killed by a test below (checked:
each passes on the code and fails on its mutant): the redacted copy handed to a suggestion, a
timeout and a timeout's second thought; a set's and a street's discard told to their owner
only, and a chinese set told no discard; a seat's own view holding its pending cards; the
copy's own shuffle of the unseen cards; the public board and last cards of the table view; a
declared natural in everyone's view only once the hand is over.

Leaks found: none (no survivor, and nothing read around them, showed a hidden card to anyone
but its owner)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.service import ServiceError
from bot.thinker import Hung, Thinker
from engine import DECK, Board, Hand, Rules, parse_cards
from engine.actions import Place

from .bot.test_service import ALICE, BOB, CH, Clock, G, heads_up, make, until


# --------------------------------------------------------------------------- helpers
class SpyThinker(Thinker):
    """Records the hand every AI call is handed (a bound method's hand, else the first hand
    among the arguments) with the real hand at that instant; answers with the fallback (a plain
    move on what it was given), or says it hung (a suggestion: told to try again)."""

    def __init__(self, refuse_first_timeout: bool = False) -> None:
        super().__init__(processes=0)
        self.real: Any = None
        self.given: list[tuple[str, Hand, Hand]] = []
        self.refuse = refuse_first_timeout

    async def run(self, fn: Any, *args: Any, fallback: Any = None, what: str = "") -> Any:
        hand = getattr(fn, "__self__", None)
        if not isinstance(hand, Hand):
            hand = next((a for a in args if isinstance(a, Hand)), None)
        if hand is not None and self.real is not None and self.real.hand is not None:
            self.given.append((what, hand, Hand.from_json(self.real.hand.to_json())))
        if fallback is None:
            raise Hung("the spy never answers")
        if self.refuse and what.startswith("a timeout at") and hand is not None:
            self.refuse = False  # a move the hand refuses: the service thinks again
            return Place(seat=args[0], placements=())
        return await asyncio.to_thread(fallback)


def assert_redacted(given: Hand, real: Hand, seat: int) -> None:
    """``given`` holds nothing ``seat`` may not see of ``real``: not its seed (the deck), not
    the deck's order, no other seat's pending cards or discards."""
    assert given is not real
    assert given.seed != real.seed, "the AI was handed the deck's seed"
    assert list(given._deck[given._next:]) != list(real._deck[real._next:]), "the deck order"
    assert given.cards_seen_by(seat) == real.cards_seen_by(seat)
    for other in range(real.n):
        if other != seat:
            assert given.pending[other] == () and given.discards[other] == ()


# --------------------------------------------------------------------------- the AI's inputs
async def test_a_suggestion_thinks_on_the_hand_redacted_for_the_asking_seat() -> None:
    """Promise: the AI thinks only on what its seat may see (README "AI": /ofc suggest thinks on
    ``Hand.redacted_for(seat)``). The hand ``suggest`` hands the AI is not the table's own: not
    its seed, not its deck order (mutant: ``t.hand.redacted_for(hs)`` -> a full copy in
    ``TableService.suggest``)."""
    spy = SpyThinker()
    svc, rec, store = await make(seed_factory=lambda: "mut-hid-suggest", thinker=spy)
    try:
        await svc.new_table(G, CH, ALICE, "alice", variant="pineapple", bots=1)
        t = svc.table_in_channel(CH)
        spy.real = t
        await svc.start(CH, ALICE)
        hs = t.hand_seat_of(0)
        assert t.practice and hs is not None
        await until(lambda: t.hand is not None and t.hand.may_act(hs))
        assert t.hand is not None and t.hand.may_act(hs)
        with pytest.raises(ServiceError, match="did not answer"):
            await svc.suggest(CH, ALICE)
        found = [(g, r) for what, g, r in spy.given if "suggestion" in what]
        assert len(found) == 1
        given, real = found[0]
        assert_redacted(given, real, hs)
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_timeouts_move_is_found_on_the_hand_redacted_for_its_seat() -> None:
    """Promise: the AI thinks only on what its seat may see (a timeout's move, README "AI").
    A street's clock runs out: the hand the AI is handed for that seat is redacted (mutant:
    ``t.hand.redacted_for(hs)`` -> a full copy in ``TableService._timer``)."""
    spy = SpyThinker()
    clock = Clock()
    svc, rec, store, t = await heads_up("mut-hid-timeout", "pineapple", clock=clock,
                                        thinker=spy)
    try:
        spy.real = t
        assert t.hand is not None and t.hand.turn is not None
        hs = t.hand.turn
        clock.offset += 1000
        svc.rearm()
        await until(lambda: any("timeout" in what for what, _, _ in spy.given))
        found = [(g, r) for what, g, r in spy.given if "timeout" in what]
        assert found
        given, real = found[0]
        assert_redacted(given, real, hs)
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_timeouts_second_thought_is_on_the_hand_redacted_for_its_seat() -> None:
    """Promise: the AI thinks only on what its seat may see. When the hand refuses a timeout's
    move, the service thinks again: on a fresh redacted copy too (mutant: the second
    ``t.hand.redacted_for(hs)`` in ``TableService._timer`` -> a full copy; no test reached
    that branch)."""
    spy = SpyThinker(refuse_first_timeout=True)
    clock = Clock()
    svc, rec, store, t = await heads_up("mut-hid-timeout-again", "pineapple", clock=clock,
                                        thinker=spy)
    try:
        spy.real = t
        assert t.hand is not None and t.hand.turn is not None
        hs = t.hand.turn
        clock.offset += 1000
        svc.rearm()
        await until(lambda: any(w.startswith("a timeout, again") for w, _, _ in spy.given))
        found = [(g, r) for what, g, r in spy.given if what.startswith("a timeout, again")]
        assert found, [w for w, _, _ in spy.given]
        given, real = found[0]
        assert_redacted(given, real, hs)
        await until(lambda: t.hand is not None and len(t.hand.boards[hs]) == 5)
        assert t.hand is not None and len(t.hand.boards[hs]) == 5  # the second thought played
    finally:
        await svc.shutdown()
        await store.close()


# --------------------------------------------------------------------------- what the owner is told
async def fantasyland_started(seed: str, seat: int, cards: int) -> tuple[Any, Any, Any, Any]:
    """A heads-up pineapple table (alice seat 0, bob seat 1) whose first hand deals seat
    ``seat`` a fantasyland of ``cards`` cards, started: (service, recorder, store, table)."""
    svc, rec, store = await make(seed_factory=lambda: seed)
    await svc.new_table(G, CH, ALICE, "alice", variant="pineapple")
    await svc.join(G, CH, BOB, "bob")
    t = svc.table_in_channel(CH)
    await store.update_table(t.id, extra={"fantasyland": {str(seat): cards},
                                          "fantasyland_owed_by": [0, 1]})
    await svc._refresh(t)
    await svc.start(CH, ALICE)
    return svc, rec, store, t


async def test_a_fantasyland_set_tells_its_owner_the_discards_and_the_table_none() -> None:
    """Promise: a pineapple discard is seen by its owner only. Setting a 14-card fantasyland
    hand, the owner's answer names the card discarded (mutant: ``if action.discards`` ->
    False in ``TableService._place``), and the table's picture and text never do."""
    from cogs.presenter import for_message, table_view
    from renderer import describe_table

    svc, rec, store, t = await fantasyland_started("mut-hid-fl-set", seat=0, cards=14)
    try:
        hand = t.hand
        assert hand is not None
        hs = t.hand_seat_of(0)
        assert hs is not None and hand.fantasyland[hs] == 14
        move = Hand.from_json(hand.to_json()).autoplay(hs, plain=True)
        assert len(move.discards) == 1
        async with t.lock:
            result, _ = await svc._place(t, hs, move.placements, move.discards)
        assert "Your hand is set" in result.text
        assert f"Discarded {move.discards[0]}." in result.text, result.text
        text = describe_table(for_message(table_view(t)))
        assert str(move.discards[0]) not in text and move.discards[0].pretty not in text
        view = table_view(t)
        assert all(move.discards[0] not in s.board.cards for s in view.seats)
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_street_discard_is_told_to_its_owner_only() -> None:
    """Promise: a pineapple discard is seen by its owner only. A street move with a discard
    answers its player "Discarded X (only you see this)." (mutant: the ``hidden = ...`` line
    of ``TableService._place`` deleted: the answer then fails), and the table's text and
    picture never name it."""
    from cogs.presenter import for_message, table_view
    from renderer import describe_table

    svc, rec, store, t = await heads_up("mut-hid-street-discard", "pineapple")
    try:
        hand = t.hand
        assert hand is not None
        while hand.street < 2:  # the first street places 5, no discard
            hs = hand.turn
            async with t.lock:
                hand.autoplay(hs, plain=True)
                await svc._after_action(t)
        hs = hand.turn
        assert hs is not None
        move = Hand.from_json(hand.to_json()).autoplay(hs, plain=True)
        assert len(move.discards) == 1
        async with t.lock:
            result, _ = await svc._place(t, hs, move.placements, move.discards)
        dropped = move.discards[0]
        assert result.text.endswith(f"Discarded {dropped} (only you see this)."), result.text
        view = table_view(t)
        text = describe_table(for_message(view))
        assert str(dropped) not in text and dropped.pretty not in text
        assert all(dropped not in s.board.cards and dropped not in s.last_placed
                   for s in view.seats)
        # the cards placed are public: on the board, highlighted and named as just placed
        # (mutants in ``table_view``: the ``board = ...`` or ``last = ...`` line deleted; in
        # ``view_for``: last_placed always [])
        placed = tuple(c for c, _ in move.placements)
        assert set(placed) <= set(view.seats[t.hand_seats[hs]].board.cards)
        assert view.seats[t.hand_seats[hs]].last_placed == placed
        assert "just placed " + " ".join(str(c) for c in placed) in text, text
    finally:
        await svc.shutdown()
        await store.close()


# --------------------------------------------------------------------------- the engine's views
def _pineapple_with_a_fantasyland() -> tuple[Hand, int, int]:
    """Pineapple heads-up: seat 0 in a 14-card fantasyland (set at once), seat 1 playing the
    streets; seat 1 has played two streets (one discard) and holds its third street's cards,
    seat 0 has set its hand (hidden until the showdown). Returns (hand, fl seat, street seat)."""
    h = Hand(Rules(variant="pineapple"), ["Fay", "Reg"], button=0, fantasyland={0: 14},
             seed="mut-hid-views")
    h.autoplay(0, plain=True)
    for _ in range(2):
        h.autoplay(1, plain=True)
    assert h.done[0] and not h.is_over and h.discards[0] and h.discards[1]
    assert len(h.pending[1]) == 3 and h.hidden(0) and not h.hidden(1)
    return h, 0, 1


def test_a_seats_own_view_holds_its_pending_cards_and_discards_and_no_one_elses() -> None:
    """Promise: others' pending cards and discards are seen by their owner only
    (``Hand.view_for``). The street player's own view lists its pending cards and its discard
    (mutant: the ``entry['pending'] = ...`` line deleted); the fantasyland owner's view shows
    its own set face up; neither view, nor the spectator's, names the other's pending cards,
    discards or hidden set."""
    h, fl, st = _pineapple_with_a_fantasyland()
    mine = h.view_for(st)["seats"][st]
    assert mine["pending"] == [str(c) for c in h.pending[st]]
    assert mine["discards"] == [str(c) for c in h.discards[st]]
    own_fl = h.view_for(fl)["seats"][fl]
    assert sorted(Board.from_json(own_fl["board"]).cards) == sorted(h.boards[fl].cards)
    assert own_fl["hidden_cards"] == 0 and own_fl["discards"] == [str(c) for c in h.discards[fl]]
    for viewer, other in ((st, fl), (fl, st), (None, fl), (None, st)):
        entry = h.view_for(viewer)["seats"][other]
        assert "pending" not in entry and "discards" not in entry
        text = str(entry)
        for c in (*h.pending[other], *h.discards[other]):
            assert str(c) not in text, (viewer, other, c)
    for viewer in (st, None):
        entry = h.view_for(viewer)["seats"][fl]
        assert Board.from_json(entry["board"]).cards == () and entry["last_placed"] == []
        assert entry["hidden_cards"] == 13
        assert not set(h.boards[fl].cards) & h.cards_seen_by(viewer)
    assert set(h.boards[fl].cards) <= h.cards_seen_by(fl)


def test_the_copy_deals_its_unseen_cards_in_an_order_of_its_own_seed() -> None:
    """Promise: the AI's copy gives neither the deck nor a hidden card (``Hand.redacted_for``:
    "the cards the seat has not seen are dealt again from a seed that is a hash of the
    deck's"). The copy's unseen cards are exactly those the street seat has not seen, in a
    shuffled order (not the deck's, not the canonical one: mutant, the shuffle deleted) that
    the same hand gives again; the fantasyland set hidden from it is among them."""
    h, fl, st = _pineapple_with_a_fantasyland()
    r = h.redacted_for(st)
    unseen = list(r._deck[r._next:])
    assert set(unseen) == set(DECK) - h.cards_seen_by(st)
    assert set(h.boards[fl].cards) <= set(unseen) and set(h.discards[fl]) <= set(unseen)
    assert unseen != [c for c in DECK if c in set(unseen)]  # shuffled
    assert unseen != [c for c in h._deck if c in set(unseen)]  # not as the deck has them
    assert list(h.redacted_for(st)._deck) == list(r._deck)  # the same seed, the same order


async def test_a_chinese_set_answers_its_owner_without_a_discard_line() -> None:
    """A chinese set has nothing to discard: its owner's answer says the hand is set and has no
    "Discarded" (mutant: ``if action.discards`` -> True in ``TableService._place``: it would say
    "Discarded ." with no card)."""
    svc, rec, store, t = await heads_up("mut-hid-chinese-set", "chinese")
    try:
        hand = t.hand
        assert hand is not None
        hs = hand.to_act()[0]
        move = Hand.from_json(hand.to_json()).autoplay(hs, plain=True)
        assert isinstance(move, Place) and not move.discards
        async with t.lock:
            result, _ = await svc._place(t, hs, move.placements, move.discards)
        assert result.text.startswith("Your hand is set:") and "Discarded" not in result.text
    finally:
        await svc.shutdown()
        await store.close()


def test_a_declared_natural_is_its_declarers_until_the_showdown_then_everyones() -> None:
    """Promise: a chinese set (a declared natural too) stays hidden until the showdown. Before
    it, another seat's view and ``cards_seen_by`` hold neither the natural nor a card of it
    (its seat looks like any set hand: 13 face down); the declarer's own view names it; once
    the hand is over everyone's view has the natural's 13 cards (mutant: ``if self.is_over and
    self.naturals[s]`` -> False in ``Hand.view_for``)."""
    dragon = parse_cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    h = Hand(Rules(variant="chinese"), ["Ann", "Bob"], button=1, deck=dragon)
    h.declare(0, "dragon")
    for viewer in (1, None):
        entry = h.view_for(viewer)["seats"][0]
        assert entry["natural"] is None and "natural_cards" not in entry
        assert entry["hidden_cards"] == 13 and Board.from_json(entry["board"]).cards == ()
        assert not set(dragon) & h.cards_seen_by(viewer)
    assert h.view_for(0)["seats"][0]["natural"] == "dragon"
    assert set(dragon) <= h.cards_seen_by(0)
    h.autoplay(1, plain=True)
    assert h.is_over
    for viewer in (0, 1, None):
        entry = h.view_for(viewer)["seats"][0]
        assert entry["natural"] == "dragon"
        assert sorted(entry["natural_cards"]) == sorted(str(c) for c in dragon)
        assert set(dragon) <= h.cards_seen_by(viewer)
