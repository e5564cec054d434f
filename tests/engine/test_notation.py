"""The move syntax shared by ``/ofc place`` and the terminal game."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import DECK, Board, CardError, Hand, IllegalAction, Rules, parse_cards
from engine.actions import NotInHand, RowFull, WrongCount
from engine.autoplay import street_moves
from engine.hand import Requirement
from engine.notation import DISCARD, NotationError, format_move, parse_move, row_word, sentence

C = parse_cards


def req(cards: str, place: int, discard: int = 0, free: tuple[int, int, int] = (3, 5, 5),
        is_set: bool = False) -> Requirement:
    return Requirement(seat=0, cards=tuple(C(cards)), place=place, discard=discard, free=free,
                       is_set=is_set)


def rows_of(placed: tuple[tuple[object, int], ...]) -> dict[str, int]:
    return {str(c): r for c, r in placed}


# -- what it accepts ------------------------------------------------------------------------------


def test_first_street_and_pineapple_discard() -> None:
    placed, dropped = parse_move("Ah Kd top 7c bottom 2s 3s middle", req("Ah Kd 7c 2s 3s", 5))
    assert rows_of(placed) == {"Ah": 0, "Kd": 0, "7c": 2, "2s": 1, "3s": 1}
    assert dropped == ()
    placed, dropped = parse_move("Ah top 7c bottom 2s discard", req("Ah 7c 2s", 2, 1))
    assert rows_of(placed) == {"Ah": 0, "7c": 2} and dropped == tuple(C("2s"))


def test_a_whole_set() -> None:
    text = "Qh Qd 2s top Kh Kd Ks 4c 3d middle 9c Tc Jc Qc Kc bottom"
    r = req("Qh Qd 2s Kh Kd Ks 4c 3d 9c Tc Jc Qc Kc", 13, is_set=True)
    placed, dropped = parse_move(text, r)
    board = Board().place(placed)
    assert board == Board.parse("Qh Qd 2s / Kh Kd Ks 4c 3d / 9c Tc Jc Qc Kc")
    assert dropped == ()
    # fantasyland with discards: the cards left without a row are the discards
    r = req("Qh Qd 2s Kh Kd Ks 4c 3d 9c Tc Jc Qc Kc 5h 6h", 13, 2, is_set=True)
    placed, dropped = parse_move(text + " 5h 6h", r)
    assert len(placed) == 13 and set(dropped) == set(C("5h 6h"))


@pytest.mark.parametrize("text", [
    "ah kd t 7c b 2s d",
    "AH KD FRONT 7C BACK 2S DISCARD",
    "Ah,Kd top; 7c bottom, 2s discard",
    "A♥ K♦ top 7♣ back 2♠ d",
    "AhKd top 7c bottom 2s discard",
    "top: Ah Kd bottom: 7c discard: 2s",
    "top Ah Kd bottom 7c discard 2s",
    "Ah Kd top 7c bottom 2s",           # the one card left over is the discard
    "Ah Kd top 7c bottom",              # the unmentioned card is the discard
    "7c b Kd Ah front",
])
def test_forgiving_spellings(text: str) -> None:
    placed, dropped = parse_move(text, req("Ah Kd 7c 2s", 3, 1))
    assert rows_of(placed) == {"Ah": 0, "Kd": 0, "7c": 2}
    assert dropped == tuple(C("2s"))


def test_ten_written_as_10_and_mid_synonyms() -> None:
    placed, _ = parse_move("10h mid 9c m", req("Th 9c", 2, free=(0, 5, 0)))
    assert rows_of(placed) == {"Th": 1, "9c": 1}


def test_one_card_needs_only_the_row() -> None:
    placed, dropped = parse_move("top", req("Qs", 1))
    assert placed == ((C("Qs")[0], 0),) and dropped == ()
    placed, _ = parse_move("Qs middle", req("Qs", 1))
    assert placed == ((C("Qs")[0], 1),)


def test_row_word() -> None:
    assert row_word("Front") == 0 and row_word("mid:") == 1 and row_word("back") == 2
    assert row_word("d") == DISCARD and row_word("Ah") is None
    assert row_word("bottom.") == 2 and row_word("top!") == 0  # end of a sentence


# -- what it refuses, and how it says so ------------------------------------------------------------


def test_misspelt_row() -> None:
    with pytest.raises(NotationError, match="'middel' is not a row: use top, middle or bottom"):
        parse_move("Ah Kd middel", req("Ah Kd", 2))
    assert issubclass(NotationError, IllegalAction)


def test_bad_card_token_is_named() -> None:
    with pytest.raises(CardError, match="'Zx' is not a card") as info:
        parse_move("Zx top", req("Ah", 1))
    assert info.value.token == "Zx"
    with pytest.raises(CardError, match="'1h' is not a card"):
        parse_move("Ah 1h top", req("Ah Kd", 2))
    # a mistyped card of letters only is a card, not a row: its letters are all card letters
    for typo in ("Akd", "Ahh", "AhKx", "kdd"):
        with pytest.raises(CardError, match=f"'{typo}' is not a card"):
            parse_move(f"{typo} top Kd bottom", req("Ah Kd", 2))
    with pytest.raises(NotationError, match="'tpo' is not a row"):
        parse_move("Ah tpo Kd bottom", req("Ah Kd", 2))


def test_card_not_in_hand_or_already_placed() -> None:
    with pytest.raises(NotInHand, match="Kd is not in your hand"):
        parse_move("Ah Kd top", req("Ah 7c", 2))
    board = Board.parse("Kd / / ")
    with pytest.raises(NotInHand, match="Kd is already on your board"):
        parse_move("Kd top", req("Ah", 1, free=board.free_slots), board)


def test_card_written_twice() -> None:
    with pytest.raises(WrongCount, match="Ah is written twice"):
        parse_move("Ah top Ah bottom", req("Ah Kd", 2))


def test_full_rows() -> None:
    board = Board.parse("Ah Ad 2c / / ")
    with pytest.raises(RowFull, match="The top row is full"):
        parse_move("7c top", req("7c", 1, free=board.free_slots), board)
    board = Board.parse("Ah Ad / / ")
    with pytest.raises(RowFull, match=r"The top row has room for 1 more card \(2 already "
                                      r"there\), not 2"):
        parse_move("7c 8c top", req("7c 8c 9c", 2, 1, free=board.free_slots), board)
    with pytest.raises(RowFull, match="The top row has room for 3 more cards, not 4"):
        parse_move("Ah Kd 7c 2s top 3s bottom", req("Ah Kd 7c 2s 3s", 5))


def test_counts() -> None:
    with pytest.raises(WrongCount, match=r"You must place 5 of .*: you placed 4 \(3s not placed\)"):
        parse_move("Ah Kd top 7c 2s bottom", req("Ah Kd 7c 2s 3s", 5))
    with pytest.raises(WrongCount, match="place 2 and discard 1 .* you placed 1 and discarded 2"):
        parse_move("Ah top Kd 7c discard", req("Ah Kd 7c", 2, 1))
    with pytest.raises(WrongCount, match="Nothing is discarded now: place 7c on a row"):
        parse_move("Ah top 7c discard", req("Ah 7c", 2))


def test_cards_without_a_row() -> None:
    with pytest.raises(NotationError, match="7c 2s have no row: write top, middle, bottom"):
        parse_move("Ah Kd top 7c 2s", req("Ah Kd 7c 2s 3s", 5))
    with pytest.raises(NotationError, match="2s has no row"):
        parse_move("Ah top 2s", req("Ah 2s", 2))


def test_row_without_cards_and_empty_text() -> None:
    with pytest.raises(NotationError, match="'top' has no cards before it"):
        parse_move("Ah bottom top", req("Ah Kd", 2))
    with pytest.raises(NotationError, match="'bottom' has no cards after it"):
        parse_move("top Ah bottom", req("Ah Kd", 2))
    with pytest.raises(NotationError, match="Write the cards, then their row"):
        parse_move("  ", req("Ah Kd", 2))


def test_errors_come_from_a_real_hand_requirement() -> None:
    hand = Hand(Rules(variant="pineapple"), ["A", "B"], seed=1)
    seat = hand.to_act()[0]
    r = hand.requirement(seat)
    assert r is not None
    cards = list(r.cards)
    text = f"{cards[0]} {cards[1]} top {cards[2]} {cards[3]} middle {cards[4]} bottom"
    hand.place(seat, *parse_move(text, r, hand.boards[seat]))
    assert hand.boards[seat].top == tuple(cards[:2])


# -- format_move round trip -------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([(5, 0), (2, 1), (1, 0)]))
def test_every_move_round_trips(seed: int, shape: tuple[int, int]) -> None:
    rng = random.Random(seed)
    place, discard = shape
    cards = rng.sample(DECK, 13 + place + discard)
    board_cards, pending = cards[:13], cards[13:]
    filled = 0 if place == 5 else rng.randint(1, 11 - place + 1)
    board = Board()
    rows = [0] * 3 + [1] * 5 + [2] * 5
    rng.shuffle(rows)
    board = board.place(zip(board_cards[:filled], rows[:filled], strict=True))
    r = Requirement(seat=0, cards=tuple(pending), place=place, discard=discard,
                    free=board.free_slots, is_set=False)
    for move in street_moves(r):
        placed, dropped = parse_move(format_move(*move), r, board)
        assert set(placed) == set(move[0]) and set(dropped) == set(move[1])


def test_a_forgotten_discard_is_shown_how_to_write() -> None:
    req = Requirement(0, tuple(parse_cards("8d 8h 3d")), 2, 1, (3, 5, 5), False)
    with pytest.raises(WrongCount, match=r"you placed 3 and discarded 0; end with the card to "
                                         r"drop, e.g. `3d discard`"):
        parse_move("8d 8h 3d bottom", req)


@pytest.mark.parametrize(("text", "said"), [
    ("It is bob's turn; you are pinged when it is yours", "It is bob's turn; you are pinged when it is yours."),
    ("The top row is full", "The top row is full."),
    ("You hold 3 units (at most 5)", "You hold 3 units (at most 5)."),
    ("Type 'foul'", "Type 'foul'."),
    ("Already a sentence.", "Already a sentence."),
    ("Really?", "Really?"), ("Choose one of: ", "Choose one of:"), ("Off to fantasyland 🌴", "Off to fantasyland 🌴"),
    ("", ""),
])
def test_a_message_ends_as_a_sentence(text: str, said: str) -> None:
    """Engine messages have no full stop; the bot and the terminal game add it (``sentence``),
    once."""
    assert sentence(text) == said
    assert sentence(said) == said
