"""The hand state machine: turns, errors, hidden information, persistence, every variant."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import DECK, Board, Card, Rules, parse_cards
from engine.actions import (
    AlreadyDone,
    Declare,
    HandOver,
    IllegalAction,
    NaturalNotHeld,
    NotAllowed,
    NotInHand,
    NotYourTurn,
    Place,
    RowFull,
    WrongCount,
)
from engine.hand import Hand, next_button

C = parse_cards


def stacked(text: str) -> list[Card]:
    return C(text)


def test_same_seed_same_deal_and_different_seed_differs() -> None:
    a = Hand(Rules(), ["A", "B"], seed="s1")
    b = Hand(Rules(), ["A", "B"], seed="s1")
    c = Hand(Rules(), ["A", "B"], seed="s2")
    assert a.pending == b.pending
    assert a.pending != c.pending
    assert len(Hand(Rules(), ["A", "B"]).seed) == 32  # secrets by default


def test_play_starts_left_of_button_one_at_a_time() -> None:
    h = Hand(Rules(), ["Ann", "Bob", "Cat"], button=1, seed=1)
    assert h.turn == 2 and h.to_act() == [2]
    assert len(h.pending[2]) == 5 and h.pending[0] == () and h.pending[1] == ()
    with pytest.raises(NotYourTurn, match="It is Cat's turn"):
        h.place(0, [])
    cards = h.pending[2]
    h.place(2, [(cards[0], 0), (cards[1], 0), (cards[2], 1), (cards[3], 1), (cards[4], 2)])
    assert h.turn == 0 and len(h.pending[0]) == 5
    assert h.last_placed[2] == cards


def _place_first(h: Hand, seat: int) -> None:
    cards = h.pending[seat]
    h.place(seat, [(cards[0], 0), (cards[1], 1), (cards[2], 1), (cards[3], 2), (cards[4], 2)])


def test_errors_name_the_problem_and_change_nothing() -> None:
    h = Hand(Rules(), ["Ann", "Bob"], button=1, seed=3)
    before = h.to_json()
    cards = h.pending[0]
    other = next(c for c in h._deck if c not in cards)
    with pytest.raises(NotInHand, match=f"{other} is not in your hand"):
        h.place(0, [(other, 0)] + [(c, 1) for c in cards[1:]])
    with pytest.raises(RowFull, match="The top row has room for 3 more cards, not 4"):
        h.place(0, [(c, 0) for c in cards[:4]] + [(cards[4], 1)])
    with pytest.raises(WrongCount, match="You must place 5"):
        h.place(0, [(cards[0], 0)])
    with pytest.raises(WrongCount, match="used twice"):
        h.place(0, [(cards[0], 0), (cards[0], 1)])
    with pytest.raises(NotAllowed):
        h.place(7, [])
    assert h.to_json() == before
    assert not h.can_place(0, [(cards[0], 0)])
    _place_first(h, 0)
    _place_first(h, 1)
    # street 2: one card; top has 2 free
    card = h.pending[0][0]
    h.place(0, [(card, 0)])
    h.place(1, [(h.pending[1][0], 2)])
    card = h.pending[0][0]
    h.place(0, [(card, 0)])
    h.place(1, [(h.pending[1][0], 2)])
    with pytest.raises(RowFull, match="The top row is full"):
        h.place(0, [(h.pending[0][0], 0)])
    with pytest.raises(NotInHand, match="already on your board"):
        h.place(0, [(card, 1)])


def _random_move(h: Hand, seat: int, rng: random.Random) -> None:
    moves = h.legal_moves(seat)
    if moves:
        placed, dropped = rng.choice(moves)
        h.place(seat, placed, dropped)
    else:
        h.autoplay(seat)


def play_out(h: Hand, rng: random.Random, surrender_p: float = 0.0) -> None:
    while not h.is_over:
        seat = rng.choice(h.to_act())
        if rng.random() < surrender_p:
            h.surrender(seat)
        elif h.rules.variant == "chinese" or h.fantasyland[seat]:
            h.autoplay(seat)
        else:
            _random_move(h, seat, rng)


@pytest.mark.parametrize(
    "variant,n,fl",
    [("ofc", 2, {}), ("ofc", 3, {}), ("ofc", 4, {1: 13}), ("pineapple", 2, {}),
     ("pineapple", 3, {0: 17}), ("pineapple", 3, {0: 17, 1: 16, 2: 15}), ("chinese", 4, {}),
     ("chinese", 2, {})],
)
def test_full_hand_runs_to_showdown(variant: str, n: int, fl: dict[int, int]) -> None:
    h = Hand(Rules(variant=variant), [f"P{i}" for i in range(n)], 0, fl, seed=f"{variant}{n}")
    play_out(h, random.Random(5))
    assert h.is_over and h.settlement is not None
    assert sum(h.settlement.totals) == 0
    for seat in range(n):
        if h.naturals[seat]:  # a timeout declares a natural worth declaring
            assert len(h.natural_cards[seat]) == 13 and not h.boards[seat].cards
            continue
        assert h.boards[seat].is_complete
        expect = 13 + (h.fantasyland[seat] - 13 if h.fantasyland[seat] else
                       {"ofc": 0, "pineapple": 4, "chinese": 0}[variant])
        assert len(h.boards[seat]) + len(h.discards[seat]) == expect
    with pytest.raises(HandOver):
        h.surrender(0)


def test_streets_per_variant() -> None:
    assert Hand(Rules(variant="ofc"), ["a", "b"]).streets == 9
    assert Hand(Rules(variant="pineapple"), ["a", "b"]).streets == 5
    assert Hand(Rules(variant="chinese"), ["a", "b"]).streets == 1


def test_pineapple_discards_hidden_from_others() -> None:
    h = Hand(Rules(variant="pineapple"), ["Ann", "Bob"], button=1, seed=9)
    _place_first(h, 0)
    _place_first(h, 1)
    cards = h.pending[0]
    assert len(cards) == 3
    h.place(0, [(cards[0], 1), (cards[1], 2)], [cards[2]])
    assert h.discards[0] == (cards[2],)
    assert str(cards[2]) not in repr(h.view_for(1))
    assert str(cards[2]) in repr(h.view_for(0)["seats"][0]["discards"])
    play_out(h, random.Random(1))
    assert str(cards[2]) not in repr(h.view_for(1))  # never shown, even after showdown


def test_pineapple_must_discard_exactly_one() -> None:
    h = Hand(Rules(variant="pineapple"), ["Ann", "Bob"], button=1, seed=9)
    _place_first(h, 0)
    _place_first(h, 1)
    cards = h.pending[0]
    with pytest.raises(WrongCount, match="place 2 and discard 1"):
        h.place(0, [(cards[0], 1), (cards[1], 2), (cards[2], 2)])


def test_fantasyland_is_simultaneous_and_hidden_until_showdown() -> None:
    h = Hand(Rules(variant="pineapple"), ["Ann", "Bob", "Cat"], button=2, fantasyland={1: 15},
             seed=4)
    assert len(h.pending[1]) == 15
    assert set(h.to_act()) == {0, 1}  # Ann's street and Bob's fantasyland at once
    req = h.requirement(1)
    assert req is not None and req.is_set and req.place == 13 and req.discard == 2
    assert "Set your 13 cards and discard 2" == req.describe()
    h.autoplay(1)
    assert h.done[1]
    secret = set(h.boards[1].cards) | set(h.discards[1])
    for viewer in (0, 2, None):
        view = repr(h.view_for(viewer))
        assert not any(f"'{c}'" in view for c in secret)
        assert h.view_for(viewer)["seats"][1]["hidden_cards"] == 13
    assert any(f"'{c}'" in repr(h.view_for(1)) for c in h.boards[1].cards)
    play_out(h, random.Random(2))
    assert all(f"'{c}'" in repr(h.view_for(0)) for c in h.boards[1].cards)


def test_fantasyland_stay_and_next_button() -> None:
    rules = Rules(variant="pineapple")
    deck = C("Ah Ad Ac 2h 2d 2c 2s Kh 3h 4h 5h 6h 7h Qs Js")  # seat 1 (left of button) FL 15
    h = Hand(rules, ["Ann", "Bob"], button=0, fantasyland={1: 15}, deck=deck)
    assert set(h.pending[1]) == set(deck)
    h.place(1, [(c, 0) for c in C("Ah Ad Ac")] + [(c, 1) for c in C("Kh 3h 4h 5h 7h")]
            + [(c, 2) for c in C("2h 2d 2c 2s 6h")], C("Qs Js"))
    play_out(h, random.Random(3))
    assert h.fantasyland_next[1] == 14  # stays: trips on top (and quads bottom)
    assert next_button(0, 2, h.fantasyland_next, rules) == 0
    assert next_button(0, 2, (0, 0), rules) == 1
    assert next_button(0, 2, (0, 14), rules.with_options(button_stays_for_fantasyland=False)) == 1


def test_chinese_natural_declare_and_refusal() -> None:
    rules = Rules(variant="chinese")
    dragon = C("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    h = Hand(rules, ["Ann", "Bob"], button=1, deck=dragon)  # Ann (seat 0) is dealt first
    before = h.to_json()
    with pytest.raises(NaturalNotHeld, match="You do not hold six pairs"):
        h.declare(0, "six pairs")
    with pytest.raises(NaturalNotHeld):
        h.declare(1, "dragon")
    assert h.to_json() == before
    with pytest.raises(NotAllowed, match="not a natural"):
        h.declare(0, "royal")
    h.declare(0, "dragon")
    assert h.view_for(1)["seats"][0]["natural"] is None  # hidden until showdown
    for viewer in (1, None):  # a declared natural looks like any set hand: 13 cards face down
        seat = h.view_for(viewer)["seats"][0]
        assert seat["hidden_cards"] == 13 and seat["done"] and seat["board"] == Board().to_json()
    h.autoplay(1)
    assert h.is_over and h.settlement is not None
    assert h.settlement.totals == [13, -13]
    assert h.view_for(1)["seats"][0]["natural"] == "dragon"
    with pytest.raises(NotAllowed, match="chinese poker only"):
        Hand(Rules(), ["a", "b"]).declare(0, "dragon")


def test_chinese_timeout_declares_a_natural_worth_declaring() -> None:
    """autoplay (a timeout) plays as the AI does: a dragon is declared, not set; the
    declaration is marked automatic, counts as a timeout and survives a replay."""
    rules = Rules(variant="chinese")
    dragon = C("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    h = Hand(rules, ["Ann", "Bob"], button=1, deck=dragon)
    action = h.autoplay(0)
    assert action == Declare(seat=0, natural="dragon", auto=True)
    assert h.naturals[0] == "dragon" and h.autoplayed[0] == 1
    h.autoplay(1)  # Bob holds no natural: his hand is set
    assert h.naturals[1] is None and h.autoplayed[1] == 1
    assert h.settlement is not None and h.settlement.totals == [13, -13]
    again = Hand.from_json(h.to_json())
    assert again.log == h.log and again.autoplayed == [1, 1]


def test_chinese_surrender_and_sets_hidden() -> None:
    h = Hand(Rules(variant="chinese"), ["Ann", "Bob", "Cat"], button=0, seed=11)
    assert set(h.to_act()) == {0, 1, 2}
    h.autoplay(1)
    assert h.view_for(0)["seats"][1]["hidden_cards"] == 13
    h.surrender(2)
    with pytest.raises(AlreadyDone):
        h.surrender(2)
    h.autoplay(0)
    assert h.is_over and h.settlement is not None
    assert h.settlement.totals[2] == -6
    assert h.settlement.boards[2] is None  # a chinese surrender shows no cards


def test_an_open_face_surrender_shows_the_board_as_it_was_left() -> None:
    """The cards a player placed before surrendering were face up: the showdown keeps them
    (it showed 13 backs, cards never dealt); the discards and pending cards stay hidden."""
    h = Hand(Rules(variant="pineapple"), ["Ann", "Bob"], button=1, seed=21)
    _place_first(h, 0)
    left = h.boards[0]
    h.autoplay(1)
    h.surrender(0)
    play_out(h, random.Random(5))
    assert h.settlement is not None and h.settlement.surrendered[0]
    assert h.settlement.boards[0] == left and len(left) == 5


def test_ofc_surrender_mid_hand_skips_seat() -> None:
    h = Hand(Rules(), ["Ann", "Bob", "Cat"], button=2, seed=12)
    _place_first(h, 0)
    h.surrender(1)  # Bob surrenders on his own turn
    assert h.turn == 2
    play_out(h, random.Random(4))
    assert h.settlement is not None and h.settlement.surrendered == [False, True, False]
    s = h.settlement
    assert s.fouled[1]
    expected = 0 if s.fouled[0] else 6 + s.royalties[0]
    assert s.pair(0, 1).total == expected


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_autoplay_final_decision_avoids_foul(seed: int) -> None:
    """Play pineapple randomly to the last street (3 cards for 2 slots); autoplay must not foul
    when any of the legal placements is clean."""
    rng = random.Random(seed)
    h = Hand(Rules(variant="pineapple"), ["A", "B"], seed=seed)
    while not h.is_over:
        seat = h.to_act()[0]
        if len(h.boards[seat]) == 11:
            moves = h.legal_moves(seat)
            clean = [m for m in moves if not h.boards[seat].place(m[0]).is_foul()]
            h.autoplay(seat)
            if clean:
                assert not h.boards[seat].is_foul()
        else:
            _random_move(h, seat, rng)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["ofc", "pineapple", "chinese"]), st.integers(0, 10**6))
def test_plain_autoplay_plays_whole_hands_without_the_ai(variant: str, seed: int) -> None:
    """The host's fallback when its AI does not answer: legal moves without the search or the
    solver (no natural declared), a set never fouled, the last street clean when it can be."""
    fantasyland = {0: 14 if variant == "pineapple" else 13} if variant != "chinese" else {}
    h = Hand(Rules(variant=variant), ["A", "B"], fantasyland=fantasyland, seed=seed)
    while not h.is_over:
        seat = h.to_act()[0]
        req = h.requirement(seat)
        clean = req is not None and not req.is_set and len(h.boards[seat]) + req.place == 13 and any(
            not h.boards[seat].place(m[0]).is_foul() for m in h.legal_moves(seat))
        action = h.autoplay(seat, plain=True)
        assert not hasattr(action, "natural")
        if (req is not None and req.is_set) or clean:
            assert not h.boards[seat].is_foul()


def test_autoplay_set_never_fouls() -> None:
    for seed in range(8):
        h = Hand(Rules(variant="chinese"), ["A", "B"], seed=seed)
        h.autoplay(0)
        assert not h.boards[0].is_foul()
        h2 = Hand(Rules(variant="pineapple"), ["A", "B"], fantasyland={0: 17}, seed=seed)
        h2.autoplay(0)
        assert not h2.boards[0].is_foul()


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["ofc", "pineapple", "chinese"]), st.integers(2, 4), st.integers(0, 10**9),
       st.integers(0, 3), st.floats(0, 0.08))
def test_random_hands_persist_replay_and_hide(variant, n, seed, button, surrender_p) -> None:
    rules = Rules(variant=variant)
    n = min(n, rules.max_players)
    rng = random.Random(seed)
    fl = {}
    if variant != "chinese" and rng.random() < 0.5:
        fl = {rng.randrange(n): 13 if variant == "ofc" else rng.randint(14, 17 - (n == 3) * 0)}
        if variant == "pineapple" and n == 3:
            fl = {k: min(v, 17) for k, v in fl.items()}
    h = Hand(rules, [f"P{i}" for i in range(n)], button % n, fl, seed=seed)
    while True:
        data = h.to_json()
        assert Hand.from_json(data) == h
        assert Hand.replay(data) == h
        for viewer in list(range(n)) + [None]:
            view = repr(h.view_for(viewer))
            seen = h.cards_seen_by(viewer)
            for card in h._deck:
                if f"'{card}'" in view:
                    assert card in seen, (viewer, card)
            for other in range(n):
                if other != viewer:
                    for card in h.pending[other] + h.discards[other]:
                        assert f"'{card}'" not in view or card in h.boards[other].cards
        if h.is_over:
            break
        seat = rng.choice(h.to_act())
        if rng.random() < surrender_p:
            h.surrender(seat)
        elif variant == "chinese" or h.fantasyland[seat]:
            h.autoplay(seat)
        else:
            _random_move(h, seat, rng)
    assert h.settlement is not None and sum(h.settlement.totals) == 0


def test_from_json_rejects_tampering() -> None:
    h = Hand(Rules(), ["A", "B"], seed=5)
    data = h.to_json()
    data["state"]["pending"][h.turn] = ["As", "Ks", "Qs", "Js", "Ts"]
    with pytest.raises(ValueError, match="does not match"):
        Hand.from_json(data)


def test_illegal_action_is_value_error() -> None:
    assert issubclass(IllegalAction, ValueError)


@pytest.mark.parametrize(
    ("rules", "cards"),
    [
        (Rules(variant="pineapple"), 13),
        (Rules(variant="pineapple", progressive=False), 15),
        (Rules(variant="ofc"), 14),
        (Rules(variant="pineapple"), 18),
        (Rules(variant="chinese"), 13),
    ],
)
def test_fantasyland_sizes_the_rules_cannot_deal_are_refused(rules: Rules, cards: int) -> None:
    with pytest.raises(ValueError, match="fantasyland"):
        Hand(rules, ["Ann", "Bob"], fantasyland=[cards, 0], seed="sizes")


def test_a_whole_set_is_shown_high_to_low_and_a_street_as_dealt() -> None:
    from engine import Hand, Rules

    hand = Hand(Rules(variant="chinese"), ["a", "b"], 1, seed="shown")
    req = hand.requirement(0)
    assert req is not None and req.is_set
    assert list(req.shown) == sorted(req.cards, reverse=True) and set(req.shown) == set(req.cards)
    street = Hand(Rules(variant="pineapple"), ["a", "b"], 1, seed="shown").requirement(0)
    assert street is not None and street.shown == street.cards


def test_a_foul_that_could_be_avoided_is_explained() -> None:
    from engine import Board, Rules, parse_cards
    from engine.autoplay import foul_confirmed, foul_warning
    from engine.hand import Requirement

    cards = parse_cards("Ah Ad Kc As Ac Qd 7s 3c Js Jc 9d 5h 2c")
    req = Requirement(0, tuple(cards), 13, 0, (3, 5, 5), True)
    rows = [0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2]  # worked example 2: AA K over AA Q 7 3
    placed = list(zip(cards, rows, strict=True))
    assert foul_warning(Board(), req, placed, Rules(variant="chinese")) == (
        "the top (pair of aces) beats the middle (pair of aces), which beats the bottom "
        "(pair of jacks)")
    clean = list(zip(cards, [2, 2, 0, 2, 2, 1, 1, 0, 1, 1, 1, 0, 2], strict=True))
    assert foul_warning(Board(), req, clean, Rules(variant="chinese")) is None
    # the last card of classic ofc where every row fouls: nothing to warn about
    board = Board.parse("Ah Ad / Ks Kd 2c 3c 4c / 5s 6h 8d 9c Jh")  # AA on top above KK
    last = Requirement(0, tuple(parse_cards("Ac")), 1, 0, (1, 0, 0), False)
    assert foul_warning(board, last, [(parse_cards("Ac")[0], 0)], Rules()) is None
    assert foul_confirmed("Ah top foul") == ("Ah top", True)
    assert foul_confirmed("Ah top Anyway.") == ("Ah top", True)
    assert foul_confirmed("Ah top") == ("Ah top", False)


# -- what is handed to whatever decides for a seat ----------------------------------------------
def _cards_held(h: Hand) -> set[Card]:
    out: set[Card] = set()
    for s in range(h.n):
        out.update(h.boards[s].cards, h.pending[s], h.discards[s], h.natural_cards[s])
    for action in h.log:
        out.update(c for c, _ in getattr(action, "placements", ()))
        out.update(getattr(action, "discards", ()))
    return out


def _check_redacted(h: Hand, seat: int) -> None:
    r = h.redacted_for(seat)
    seen = h.cards_seen_by(seat)
    assert r.cards_seen_by(seat) == seen
    assert _cards_held(r) <= seen  # nothing hidden from the seat, in any field or the log
    assert r.requirement(seat) == h.requirement(seat)
    assert r.legal_moves(seat) == h.legal_moves(seat)
    assert r.seed != h.seed
    undealt = list(h._deck[h._next:])
    if len(undealt) >= 10:  # (a few last cards may come in the same order by chance)
        assert list(r._deck[r._next:])[-len(undealt):] != undealt
    assert set(r._deck[r._next:]) == set(DECK) - seen
    assert len(r.log) == len(h.log) and Hand.from_json(r.to_json()) == r
    for other in range(h.n):
        if other != seat:
            assert r.pending[other] == r.discards[other] == r.natural_cards[other] == ()
            assert r.naturals[other] is None
            if not h.hidden(other):
                assert r.boards[other] == h.boards[other]
    if seat in h.to_act():  # a move found on the copy is a move of the hand
        move = r.autoplay(seat, plain=True)
        real = Hand.from_json(h.to_json())
        real.apply(move)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["ofc", "pineapple", "chinese"]), st.integers(2, 4),
       st.integers(0, 10**9), st.floats(0, 0.08))
def test_the_copy_for_a_seat_holds_only_what_it_may_see(variant, n, seed, surrender_p) -> None:
    """``Hand.redacted_for``: what the AI, a timeout's move or a suggestion is given. No card
    the seat has not seen anywhere in it (the others' pending cards and discards, hidden sets,
    the log's discards), the unseen cards in another order than the deck's, and the seat's own
    decision the same as on the hand; a move found on it is legal on the hand."""
    rules = Rules(variant=variant)
    n = min(n, rules.max_players)
    rng = random.Random(seed)
    fl = {}
    if variant != "chinese" and rng.random() < 0.6:
        fl = {rng.randrange(n): 13 if variant == "ofc" else rng.randint(14, 17)}
    h = Hand(rules, [f"P{i}" for i in range(n)], seed % n, fl, seed=seed)
    while not h.is_over:
        for seat in range(n):
            _check_redacted(h, seat)
        seat = rng.choice(h.to_act())
        if rng.random() < surrender_p:
            h.surrender(seat)
        elif variant == "chinese" or h.fantasyland[seat]:
            h.autoplay(seat, plain=True)
        else:
            _random_move(h, seat, rng)
    with pytest.raises(ValueError, match="over"):
        h.redacted_for(0)


def test_the_copy_for_a_seat_hides_a_declared_natural_and_never_settles() -> None:
    """A chinese opponent declared a dragon: the copy knows only that the seat is not to act
    on its behalf (no natural, no cards, its log entry a bare placement); the seat's own set on
    the copy does not settle the hand against a blank board."""
    rules = Rules(variant="chinese")
    dragon = C("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    h = Hand(rules, ["Ann", "Bob"], button=1, deck=dragon)  # Ann (seat 0) holds the dragon
    h.declare(0, "dragon")
    r = h.redacted_for(1)
    assert r.naturals == [None, None] and r.natural_cards[0] == () and not r.done[0]
    assert r.log == [Place(seat=0, placements=())]
    _check_redacted(h, 1)
    r.autoplay(1)
    assert not r.is_over and r.done[1]
