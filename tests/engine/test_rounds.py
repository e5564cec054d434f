"""``Hand.rounds``: a finished hand round by round, as everyone saw it (no discards, a
fantasyland set face down until the showdown), for the street-by-street replay of
``/ofc history hand:``."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Board, Rules
from engine.cards import cards_from_json
from engine.hand import Hand

from .test_hand import play_out


def finished(variant: str, n: int, fl: dict[int, int], seed: int,
             surrender_p: float = 0.0) -> Hand:
    h = Hand(Rules(variant=variant), [f"P{i}" for i in range(n)], seed % n, fl,
             seed=f"rounds-{seed}")
    play_out(h, random.Random(seed), surrender_p)
    return h


def boards(view: dict) -> list[Board]:  # type: ignore[type-arg]
    return [Board.from_json(s["board"]) for s in view["seats"]]


@pytest.mark.parametrize("variant,streets,first,later", [("ofc", 9, 5, 1),
                                                          ("pineapple", 5, 5, 2)])
def test_every_round_adds_its_cards_and_the_last_is_the_end(
        variant: str, streets: int, first: int, later: int) -> None:
    h = finished(variant, 3, {}, 7)
    rounds = Hand.rounds(h.to_json())
    assert [r.number for r in rounds] == list(range(1, streets + 1))
    before = [Board() for _ in range(3)]
    for r in rounds:
        now = boards(r.view)
        for seat in range(3):
            new = set(now[seat].cards) - set(before[seat].cards)
            assert set(before[seat].cards) <= set(now[seat].cards)  # cards never move
            assert len(new) == (first if r.number == 1 else later)
            assert set(cards_from_json(r.view["seats"][seat]["last_placed"])) == new
        before = now
        assert r.auto == ()
    assert before == h.boards  # the last round is the final boards
    assert rounds[-1].view["over"] and rounds[-1].view["settlement"] == \
        h.settlement.to_json()  # type: ignore[union-attr]


def test_discards_are_never_shown() -> None:
    h = finished("pineapple", 2, {}, 3)
    gone = {c for d in h.discards for c in d}
    assert len(gone) == 8
    for r in Hand.rounds(h.to_json()):
        text = repr(r.view)
        assert not any(f"'{c}'" in text for c in gone)


def test_a_fantasyland_set_stays_face_down_until_the_last_round() -> None:
    h = finished("pineapple", 3, {1: 15}, 11)
    rounds = Hand.rounds(h.to_json())
    secret = set(h.boards[1].cards)
    for r in rounds[:-1]:
        seat = r.view["seats"][1]
        assert seat["board"] == Board().to_json() and seat["last_placed"] == []
        assert not any(f"'{c}'" in repr(r.view) for c in secret)
    assert set(boards(rounds[-1].view)[1].cards) == secret
    assert not any(f"'{c}'" in repr(rounds[-1].view) for c in h.discards[1])


def test_the_clocks_moves_are_told_by_round() -> None:
    h = Hand(Rules(variant="ofc"), ["A", "B"], 0, seed="auto")
    rng = random.Random(1)
    while not h.is_over:
        seat = h.to_act()[0]
        if h.street == 3 and seat == 1:
            h.autoplay(seat)  # a timeout
        else:
            moves = h.legal_moves(seat)
            h.place(seat, *rng.choice(moves))
    rounds = Hand.rounds(h.to_json())
    assert [r.auto for r in rounds] == [(), (), (1,), (), (), (), (), (), ()]


def test_a_surrender_leaves_the_board_as_it_was_and_the_rounds_go_on() -> None:
    h = Hand(Rules(variant="pineapple"), ["A", "B", "C"], 0, seed="sur")
    rng = random.Random(2)
    while not h.is_over:
        seat = h.to_act()[0]
        if h.street == 2 and seat == 2 and not h.surrendered[2]:
            h.surrender(seat)
        else:
            h.place(seat, *rng.choice(h.legal_moves(seat)))
    rounds = Hand.rounds(h.to_json())
    assert len(rounds) == 5
    left = boards(rounds[1].view)[2]
    assert len(left) == 5 and all(boards(r.view)[2] == left for r in rounds[1:])
    assert all(r.view["seats"][2]["surrendered"] for r in rounds[1:])
    assert rounds[1].view["seats"][2]["last_placed"] == []


def test_a_chinese_hand_or_one_of_fantasylands_only_has_no_rounds() -> None:
    h = finished("chinese", 2, {}, 5)
    assert Hand.rounds(h.to_json()) == []
    h = finished("pineapple", 2, {0: 14, 1: 15}, 5)  # both set at once
    assert h.is_over and Hand.rounds(h.to_json()) == []


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([("ofc", 2), ("ofc", 3), ("ofc", 4), ("pineapple", 2),
                        ("pineapple", 3)]), st.integers(0, 10_000), st.booleans())
def test_rounds_agree_with_the_hand_whatever_is_played(
        game: tuple[str, int], seed: int, fantasyland: bool) -> None:
    """Whatever is played (surrenders, fantasylands, timeouts): one round at most per
    street, numbered in order, cards only added, the last the final boards; a seat's cards
    are public in a round only if they are at the end of the hand, never a discard."""
    variant, n = game
    fl = {0: 13 if variant == "ofc" else 14} if fantasyland else {}
    h = finished(variant, n, fl, seed, surrender_p=0.03)
    rounds = Hand.rounds(h.to_json())
    numbers = [r.number for r in rounds]
    assert numbers == sorted(set(numbers)) and numbers[-1] <= h.streets
    gone = {c for d in h.discards for c in d}
    before = [set[object]() for _ in range(n)]
    for r in rounds:
        for seat, b in enumerate(boards(r.view)):
            assert before[seat] <= set(b.cards) <= set(h.boards[seat].cards)
            assert not set(b.cards) & gone
            before[seat] = set(b.cards)
    assert boards(rounds[-1].view) == h.boards
