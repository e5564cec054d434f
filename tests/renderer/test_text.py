"""The text equivalents list every card that is drawn face up and never a face-down one, and say
everything the settlement says."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import DECK, Board, Card, Rules, settle, units_moved
from renderer import (
    SeatView,
    ShowdownView,
    TableView,
    describe_hand,
    describe_leaderboard,
    describe_showdown,
    describe_stats,
    describe_table,
)
from renderer import gallery as g
from renderer.showdown import pair_items

CARD = re.compile(r"\b[2-9TJQKA][cdhs]\b")


def cards_in(text: str) -> list[str]:
    return CARD.findall(text)


def test_example_line_from_the_issue() -> None:
    seat = SeatView("Alice", Board.parse("Qh Qd 2s / Kh Kd Ks 4c 3d / 9c Tc Jc Qc Kc"))
    text = describe_table(TableView("t", "ofc", (seat, SeatView("Bob", Board()))))
    assert ("Alice — top: Qh Qd 2s | middle: Kh Kd Ks 4c 3d | bottom: 9c Tc Jc Qc Kc "
            "(royalties 24)") in text


@pytest.mark.parametrize("make", [g.table_ofc_4, g.table_pineapple_3, g.table_chinese_4,
                                  g.table_ofc_2_practice])
def test_table_text_lists_every_visible_card(make: Callable[[], Any]) -> None:
    view = make()
    text = describe_table(view)
    visible = [str(c) for seat in view.seats for c in seat.board.cards]
    assert sorted(cards_in(text)) == sorted(visible + [
        str(c) for seat in view.seats for c in seat.last_placed if c in seat.board.cards])
    for seat in view.seats:
        assert seat.name in text
        if seat.hidden:
            assert f"{seat.hidden} cards face down" in text
        if seat.is_turn and seat.time_left is not None:
            assert f"{seat.time_left // 60}:{seat.time_left % 60:02d} left" in text
    assert len(text.splitlines()) == len(view.seats) + 1 + bool(view.note)


def test_hidden_cards_never_appear_in_text() -> None:
    view = TableView("t", "chinese", (
        SeatView("A", Board(), hidden=13, status="set"),
        SeatView("B", Board.parse("Ah / Kd / 2c"), hidden=2),
    ))
    text = describe_table(view)
    assert cards_in(text) == ["Ah", "Kd", "2c"]
    assert "13 cards face down" in text and "2 cards face down" in text


@pytest.mark.parametrize("make", [g.hand_pineapple, g.hand_ofc_first, g.hand_ofc_one,
                                  g.hand_fantasyland_17, g.hand_chinese])
def test_hand_text_lists_every_card(make: Callable[[], Any]) -> None:
    view = make()
    text = describe_hand(view)
    want = [str(c) for c in (*view.cards, *view.board.cards, *view.discards)]
    assert sorted(cards_in(text)) == sorted(want)
    for card, target in view.selected:
        assert f"{card}→{target}" in text
    if view.instruction:
        assert view.instruction in text


@pytest.mark.parametrize("make", [g.showdown_pineapple_3, g.showdown_ofc_2, g.showdown_ofc_4,
                                  g.showdown_chinese_4])
def test_showdown_text_says_everything(make: Callable[[], Any]) -> None:
    view = make()
    text = describe_showdown(view)
    s = view.settlement
    boards = [b for b in s.boards if b is not None]
    shown = [str(c) for b in boards for c in b.cards]
    shown += [str(c) for i, cards in enumerate(view.natural_cards) if s.naturals[i] for c in cards]
    assert sorted(cards_in(text)) == sorted(shown)
    lines = text.splitlines()
    n = len(view.names)
    assert len(lines) == 1 + n + n * (n - 1) // 2
    for i, name in enumerate(view.names):
        line = lines[1 + i]
        assert line.startswith(f"{name} — ")
        total = s.totals[i]
        word = "point" if abs(total) == 1 else "points"  # (one point, one unit: singular)
        assert (f"total {'+' if total > 0 else '−' if total < 0 else ''}{abs(total)} {word}"
                in line)
        if view.units is not None:
            u = view.units[i]
            word = "unit" if abs(u) == 1 else "units"
            assert f"{'+' if u > 0 else '−' if u < 0 else ''}{abs(u)} {word}" in line
        assert ("FOUL" in line) == (s.fouled[i] and not s.surrendered[i])
        assert ("surrendered" in line) == s.surrendered[i]
        if s.naturals[i]:
            assert f"natural: {s.naturals[i]}" in line
        if s.royalties[i]:
            assert f"royalties {s.royalties[i]}" in line
        fl = view.fantasyland_next[i] if i < len(view.fantasyland_next) else 0
        assert ("Fantasyland!" in line) == bool(fl)


def test_worked_example_text() -> None:
    text = describe_showdown(g.showdown_pineapple_3())
    assert "Alice vs Bob: " in text and "→ Alice +30" in text
    assert "Alice vs Fiona: " in text and "Fiona fouled" in text
    assert "total +60 points" in text and "total −24 points" in text
    assert "total −36 points" in text
    assert "scoop by Alice +3" in text and "royalties 24–0 +24" in text
    assert "Fantasyland! (14 cards)" in text  # QQ in progressive pineapple


def _random_hand(seed: int, n: int, variant: str) -> ShowdownView:
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    boards: list[Board | None] = []
    for k in range(n):
        cards = deck[13 * k: 13 * k + 13]
        boards.append(Board(tuple(cards[:3]), tuple(cards[3:8]), tuple(cards[8:])))
    rules = Rules(variant=variant, shoot_the_moon=rng.random() < 0.5)  # type: ignore[arg-type]
    surrendered: list[int] = []
    naturals: dict[int, str] = {}
    if variant == "chinese" and rng.random() < 0.5:
        seat = rng.randrange(n)
        if rng.random() < 0.5:
            surrendered.append(seat)
        else:
            naturals[seat] = rng.choice(["six pairs", "dragon"])
        boards[seat] = None
    s = settle(boards, rules, surrendered=surrendered, naturals=naturals)
    names = tuple(f"P{k}" for k in range(n))
    return ShowdownView(names, s, rules, units=tuple(units_moved(s, 2)))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**9), n=st.integers(2, 4),
       variant=st.sampled_from(["ofc", "pineapple", "chinese"]))
def test_pair_items_add_up_to_the_total(seed: int, n: int, variant: str) -> None:
    """The chips and text shown for a pair are the whole of its settlement: they sum to it."""
    if variant == "pineapple" and n > 3:
        n = 3
    view = _random_hand(seed, n, variant)
    for p in view.settlement.pairs:
        items = pair_items(p, view.names, view.rules)
        assert sum(it.points or 0 for it in items) == p.total, (p, items)
    text = describe_showdown(view)
    assert len(text.splitlines()) == 1 + n + n * (n - 1) // 2


def test_leaderboard_and_stats_text() -> None:
    view = g.leaderboard()
    text = describe_leaderboard(view)
    for row in view.rows:
        assert f"{row.rank}. {row.name} — " in text
        assert f"{row.hands} hands, {row.fantasylands} fantasylands" in text
    stats = g.stats()
    text = describe_stats(stats)
    assert f"{stats.hands} hands" in text and "fouls 6%" in text
    assert f"Balance over the last {len(stats.balances) - 1} hands" in text


def test_card_type() -> None:
    assert str(Card("Th")) == "Th"  # the text uses the engine's own notation


def test_a_foul_says_why_in_the_text() -> None:
    from engine import Board, Rules, settle
    from renderer import ShowdownView, describe_showdown

    rules = Rules()
    fouled = Board.parse("Ah Ad Kc / As Ac Qd 7s 3c / Js Jc 9d 5h 2c")
    clean = Board.parse("2h 3d 4c / 5s 5h 6d 7h 8h / 9c 9h Tc Td Ks")
    text = describe_showdown(ShowdownView(("F", "C"), settle([fouled, clean], rules), rules))
    assert ("FOUL: the top (pair of aces) beats the middle (pair of aces), which beats the "
            "bottom (pair of jacks)") in text
    assert Board.parse("Ah Ad Kc / As Kd Qd 7s 3c / Js Jc Jd 5h 2c").foul_reason() == (
        "the top (pair of aces) beats the middle (ace-high)")
    assert clean.foul_reason() is None
    assert fouled.foul_rows() == (0, 1, 2)  # AAK over AAQ73 over JJ: both pairs wrong
    lower = Board.parse("Kh 8d 4s / As Ac Qd 7s 3c / Js Jc 9d 5h 2c")
    assert lower.foul_rows() == (1, 2)
    assert lower.foul_reason() == "the middle (pair of aces) beats the bottom (pair of jacks)"
    assert Board.parse("Ah Ad Kc / As Kd Qd 7s 3c / Js Jc Jd 5h 2c").foul_rows() == (0, 1)
    assert clean.foul_rows() is None
