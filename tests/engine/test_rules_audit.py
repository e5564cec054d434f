"""An independent audit of the engine against RULES.md (../shared/RULES.md).

Each test quotes the RULES.md line it checks.  Focus: non-default options and their
combinations, 3-4 player settlements, fantasyland in whole hands, the worked examples.
"""

from __future__ import annotations

import itertools

import pytest

from engine import (
    Board,
    Card,
    CardError,
    Rules,
    RulesError,
    evaluate,
    naturals_in,
    next_button,
    parse_card,
    parse_cards,
    row_index,
    settle,
    units_moved,
)
from engine.hand import SPECS, Hand

B = Board.parse
C = parse_cards

# RULES.md worked examples
L = B("Qh Qd 2s / Kh Kd Ks 4c 3d / 9c Tc Jc Qc Kc")
R = B("Ks 8c 3s / Jh Jd 9c 5d 2c / Qs Qc As 7c 4d")
F = B("Ah Ad Kc / As Ac Qd 7s 3c / Js Jc 9d 5h 2c")
F2 = B("Kh Kd 2c / 3s 3c 4h 5c 6d / Ah Ks Qc Js 9c")  # KK 2 over a pair of threes: fouled
# a clean board with royalties 66 (1) + middle trips (2) + bottom flush (4) = 7
M = B("6h 6d 2c / 8s 8c 8h 4d 5d / 9c Tc Jc Qc Ac")
# a clean board with a jack-high bottom (shooting the moon)
MOON = B("2c 3d 4h / 2s 5c 6h 7c 9d / 3s 5s 8h Tc Jd")

SCORINGS = ("1-6", "2-4", "1-4", "1-3")
SCOOP_TOTAL = {"1-6": 6, "2-4": 4, "1-4": 4, "1-3": 3}


# -- helpers: play whole hands with a stacked deck ------------------------------------------------


def deck_for(rules: Rules, n: int, button: int, boards: dict[int, Board],
             discards: dict[int, str] | None = None, fl: dict[int, int] | None = None,
             cards: dict[int, str] | None = None) -> list[Card]:
    """The deck in the order ``Hand`` draws it so that seat s is dealt the cards of
    ``boards[s]`` (plus ``discards[s]``); seats not in ``boards`` are dealt nothing (they
    surrender before their first turn).  ``cards``: a chinese seat's 13 cards as dealt."""
    spec = SPECS[rules.variant]
    order = [(button + 1 + k) % n for k in range(n)]
    fl = fl or {}
    disc = {s: C(t) for s, t in (discards or {}).items()}
    deck: list[Card] = []
    for s in order:
        if fl.get(s):
            deck += list(boards[s].cards) + disc.get(s, [])
    if spec.simultaneous:
        for s in order:
            if cards and s in cards:
                deck += C(cards[s])
            elif s in boards:
                deck += list(boards[s].cards)
        return deck
    regular = [s for s in order if not fl.get(s) and s in boards]
    for s in regular:
        deck += list(boards[s].cards[:5])
    for st in range(1, spec.streets):
        for s in regular:
            keep = list(boards[s].cards[5 + (st - 1) * spec.street_keep: 5 + st * spec.street_keep])
            drop = disc.get(s, [])[st - 1: st] if spec.street_deal > spec.street_keep else []
            deck += keep + drop
    return deck


def play_to(h: Hand, boards: dict[int, Board]) -> None:
    """Play every seat to the board it was stacked for (cards not on it are discarded)."""
    guard = 0
    while not h.is_over:
        guard += 1
        assert guard < 200
        seat = h.to_act()[0]
        req = h.requirement(seat)
        assert req is not None
        rowof = {c: r for r, row in enumerate(boards[seat].rows) for c in row}
        placed = [(c, rowof[c]) for c in req.cards if c in rowof]
        dropped = [c for c in req.cards if c not in rowof]
        h.place(seat, placed, dropped)


# ================================================================================================
# Worked examples
# ================================================================================================


def test_worked_example_1_royalties_rows_points_and_fantasyland() -> None:
    # "L = `Qh Qd 2s / Kh Kd Ks 4c 3d / 9c Tc Jc Qc Kc` has royalties 7 + 2 + 15 = 24."
    assert L.row_royalties(Rules()) == (7, 2, 15)
    assert L.royalties(Rules(variant="pineapple")) == 24
    # "R = ... has none and loses all three rows: L +30, R −30 (1-6)."
    assert R.royalties(Rules()) == 0 and not R.is_foul()
    s = settle([L, R], Rules(scoring="1-6"))
    assert s.pair(0, 1).rows == (1, 1, 1)
    assert s.totals == [30, -30]
    # "L also enters fantasyland (QQ on top)."
    assert L.fantasyland_cards(Rules()) == 13
    assert L.fantasyland_cards(Rules(variant="pineapple")) == 14


def test_worked_example_2_foul_and_both_fouled() -> None:
    # "F = ... is fouled (top `AA K` beats middle `AA Q 7 3`)."
    assert F.is_foul() and 0 in (F.foul_rows() or ())
    top, middle, _ = F.values()
    assert top > middle
    assert F.royalties() == 0  # "A fouled board earns none." (AA on top would be 9)
    # "L vs F: L +30, F −30."
    assert settle([L, F], Rules()).totals == [30, -30]
    assert settle([F, L], Rules()).totals == [-30, 30]
    # "F vs another fouled board: 0."
    assert F2.is_foul()
    assert settle([F, F2], Rules()).totals == [0, 0]


@pytest.mark.parametrize("perm", list(itertools.permutations(range(3))))
def test_worked_example_3_in_every_seat_order(perm: tuple[int, ...]) -> None:
    # "Three players L, R, F at one table: L +60, R −24, F −36."
    boards = [L, R, F]
    expect = [60, -24, -36]
    s = settle([boards[i] for i in perm], Rules())
    assert s.totals == [expect[i] for i in perm]


def test_worked_example_3_breakdown_and_pineapple() -> None:
    # "Every pair of players at the table is settled separately; ... the table always sums to zero."
    for variant in ("ofc", "pineapple"):
        s = settle([L, R, F], Rules(variant=variant))
        assert s.pair(0, 1).total == 30 and s.pair(0, 2).total == 30 and s.pair(1, 2).total == 6
        assert s.totals == [60, -24, -36]


# ================================================================================================
# Cards, rows, comparisons, fouls
# ================================================================================================


@pytest.mark.parametrize("text", ["Ah", "ah", "AH", "A♥", "aH"])
def test_card_text_is_forgiving(text: str) -> None:
    # "`Ah`, `ah`, `AH`, `10h`, `Th`, `A♥` mean what a player would expect"
    assert parse_card(text) == parse_card("Ah")


def test_ten_written_two_ways() -> None:
    # "(`Th` and `10h` are the same card)"
    assert parse_card("10h") == parse_card("Th") == parse_card("th")


@pytest.mark.parametrize("bad", ["1h", "Ax", "11h", "Zz", "A"])
def test_bad_card_token_is_named(bad: str) -> None:
    # "Anything else is rejected with a message that names the bad token."
    with pytest.raises(CardError) as e:
        parse_cards(f"Kd {bad} 2c")
    assert bad in str(e.value) or bad.lower() in str(e.value).lower()


@pytest.mark.parametrize("name,idx", [("top", 0), ("front", 0), ("middle", 1), ("mid", 1),
                                      ("bottom", 2), ("back", 2)])
def test_row_synonyms(name: str, idx: int) -> None:
    # "Row names `top/front`, `middle/mid`, `bottom/back` are synonyms."
    assert row_index(name) == idx


def test_five_card_categories_order_and_wheel() -> None:
    # "straight flush (royal = A-high straight flush), quads, full house, flush, straight
    #  (wheel is the lowest), trips, two pair, pair, high card. Suits never break ties."
    ladder = ["2c 3d 4h 5s 7c", "2c 2d 4h 5s 7c", "2c 2d 4h 4s 7c", "2c 2d 2h 5s 7c",
              "Ac 2d 3h 4s 5c", "2c 3d 4h 5s 6c", "2c 3c 4c 5c 7c", "2c 2d 2h 7s 7c",
              "2c 2d 2h 2s 7c", "Ac 2c 3c 4c 5c", "9c Tc Jc Qc Kc", "Tc Jc Qc Kc Ac"]
    values = [evaluate(C(x)) for x in ladder]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert evaluate(C("Th Jh Qh Kh Ah")).is_royal
    assert evaluate(C("Ac Kd 9h 7s 3c")) == evaluate(C("Ad Kh 9s 7c 3d"))


def test_top_row_knows_only_trips_pair_high_card() -> None:
    # "The 3-card top row knows only trips > pair > high card. Three to a straight or flush means nothing."
    assert evaluate(C("Qh Kh Ah")) == evaluate(C("Qc Kd Ah"))
    assert evaluate(C("2h 3h 4h")) < evaluate(C("2c 2d 3s"))
    assert evaluate(C("Ac Ad Kc")) < evaluate(C("2c 2d 2s"))


@pytest.mark.parametrize("top,middle,fouled", [
    # "top `KK A` vs middle `KK Q 7 3` → top is higher (foul)"
    ("Kh Kd Ac", "Ks Kc Qd 7s 3c", True),
    # "top `QQ 7` vs middle `QQ 9 8 2` → middle is higher"
    ("Qh Qd 7c", "Qs Qc 9d 8s 2c", False),
    # "top `KK 2` vs middle `KK 5 4 3` → middle is higher"
    ("Kh Kd 2c", "Ks Kc 5d 4s 3c", False),
    # "top `A K Q` vs middle `A K Q 9 7` → equal, so legal."
    ("Ah Kd Qc", "As Kc Qd 9s 7c", False),
])
def test_cross_size_examples_on_whole_boards(top: str, middle: str, fouled: bool) -> None:
    board = B(f"{top} / {middle} / 2h 2d 2s 6h 6d")  # a full house bottom above every middle
    assert board.is_foul(Rules()) is fouled


@pytest.mark.parametrize("top,middle,plain,strict", [
    ("Ah Kd Qc", "As Kc Qd 9s 7c", False, True),   # equal on the top's ranks
    ("Qh Qd 7c", "Qs Qc 7d 5s 2c", False, True),   # QQ 7 = QQ 7 5 2 on the top's ranks
    ("Qh Qd 7c", "Qs Qc 9d 8s 2c", False, False),  # middle strictly higher
    ("Kh Kd Ac", "Ks Kc Qd 7s 3c", True, True),    # top higher
    ("9h 9d 9c", "Ts Tc Td 4s 3c", False, False),  # trips below trips
    ("Ah Kd Qc", "As Kc Jd 9s 7c", True, True),    # A K Q over A K J
    ("Ah Kd Qc", "3s 3c 4d 5s 7c", False, False),  # high card below a pair
])
def test_strict_top_option(top: str, middle: str, plain: bool, strict: bool) -> None:
    # "**Foul (misset):** a finished board is fouled unless bottom ≥ middle ≥ top. Equality is
    #  legal. **(option)** strict top < middle; default off."
    board = B(f"{top} / {middle} / 2h 2d 2s 6h 6d")
    assert board.is_foul() is plain
    assert board.is_foul(Rules()) is plain
    assert board.is_foul(Rules(strict_top=True)) is strict
    for variant in ("pineapple", "chinese"):
        assert board.is_foul(Rules(variant=variant, strict_top=True)) is strict


def test_strict_top_does_not_touch_middle_vs_bottom_equality() -> None:
    # strict applies only to "top < middle": "bottom ≥ middle" stays non-strict
    board = B("2c 3d 4h / As Kc Qd 9s 7c / Ah Kd Qc 9h 7d")  # middle = bottom exactly
    assert not board.is_foul(Rules(strict_top=True))
    assert not board.is_foul()


def test_strict_top_foul_costs_royalties_and_fantasyland() -> None:
    # "A fouled board earns none." / "A fouled board never enters or stays."
    board = B("Qh Qd 7c / Qs Qc 7d 5s 2c / 2h 2d 2s 6h 6d")
    assert board.royalties(Rules()) == 7 + 6 and board.fantasyland_cards(Rules()) == 13
    strict = Rules(strict_top=True)
    assert board.royalties(strict) == 0
    assert board.fantasyland_cards(strict) == 0
    assert board.fantasyland_cards(Rules(variant="pineapple", strict_top=True)) == 0
    assert settle([board, R], strict).pair(0, 1).fouled == (True, False)
    assert settle([board, R], strict).totals == [-6, 6]


# ================================================================================================
# Royalties
# ================================================================================================


@pytest.mark.parametrize("rank,pts", list(zip("6789TJQKA", range(1, 10), strict=True)))
def test_top_pair_royalties(rank: str, pts: int) -> None:
    # "| 66 | 1 | ... | AA | 9 |"
    top = B(f"{rank}h {rank}d 2c / 3s 3c 3h 4c 4d / 5s 5c 5h 5d 7c")
    assert not top.is_foul() and top.row_royalties()[0] == pts


@pytest.mark.parametrize("rank,pts", list(zip("23456789TJQKA", range(10, 23), strict=True)))
def test_top_trips_royalties_one_more_per_rank(rank: str, pts: int) -> None:
    # "| 222 … AAA | 10 … 22 (one more per rank) |"
    top = evaluate(C(f"{rank}h {rank}d {rank}c"))
    from engine.board import top_royalty
    assert top_royalty(top) == pts


def test_top_pairs_below_sixes_pay_nothing() -> None:
    from engine.board import top_royalty
    for rank in "2345":
        assert top_royalty(evaluate(C(f"{rank}h {rank}d Ac"))) == 0
    assert top_royalty(evaluate(C("Ah Kd Qc"))) == 0


@pytest.mark.parametrize("row,pts", [
    ("7h 7d 7c 2s 3d", (2, 0)), ("5h 6d 7c 8s 9d", (4, 2)), ("Ah 2d 3c 4s 5d", (4, 2)),
    ("2h 5h 7h 9h Jh", (8, 4)), ("7h 7d 7c 2s 2d", (12, 6)), ("7h 7d 7c 7s 2d", (20, 10)),
    ("5h 6h 7h 8h 9h", (30, 15)), ("Ah 2h 3h 4h 5h", (30, 15)), ("Th Jh Qh Kh Ah", (50, 25)),
    ("7h 7d 2c 2s 3d", (0, 0)), ("7h 7d 2c 4s 3d", (0, 0)),
])
def test_middle_and_bottom_royalties(row: str, pts: tuple[int, int]) -> None:
    # "middle: trips 2, straight 4, flush 8, full house 12, quads 20, straight flush 30,
    #  royal flush 50 | bottom: straight 2, flush 4, full house 6, quads 10, straight flush 15,
    #  royal flush 25" (bottom trips: nothing)
    from engine.board import bottom_royalty, middle_royalty
    v = evaluate(C(row))
    assert (middle_royalty(v), bottom_royalty(v)) == pts


def test_royalties_earned_even_when_rows_lose() -> None:
    # "A board that is not fouled earns its royalties whether its rows win or lose."
    loser = B("6h 6d 2c / 7s 7c 4h 5c 3h / 8s 9s Ts Js Qs")  # 66 (1) + bottom SF (15) = 16
    assert loser.row_royalties() == (1, 0, 15)
    winner = B("Ah Ad 2h / Kh Kd Ks Qh Qd / 2d 3d 4d 5d 6d")  # AA 9, middle FH 12, bottom SF 15
    s = settle([winner, loser], Rules())
    # rows: top AA > 66, middle FH > pair, bottom 6-high SF < Q-high SF
    assert s.pair(0, 1).rows == (1, 1, -1)
    # "Between two players the royalties are paid as the difference."
    assert s.pair(0, 1).royalties == (36, 16)
    assert s.totals == [1 + 36 - 16, -(1 + 36 - 16)]


def test_chinese_has_no_royalties_in_any_scoring() -> None:
    # "## Royalties (ofc and pineapple)"
    for scoring in SCORINGS:
        rules = Rules(variant="chinese", scoring=scoring, chinese_bonuses=False)  # type: ignore[arg-type]
        s = settle([L, R], rules)
        assert s.royalties == [0, 0]
        assert s.totals[0] == 3 + {"1-6": 3, "2-4": 1, "1-4": 1, "1-3": 0}[scoring]


# ================================================================================================
# Scoring methods, fouls, ties, 3-4 players
# ================================================================================================

A2 = B("2c 3d 5h / 9s 9c 4h 6c 7d / Ts Tc Jh Jc 8d")
B2 = B("2d 3c 5s / 8s 8c 4d 6d 7h / As Ac 2h 3h 4s")  # A2: top tie, middle and bottom won


@pytest.mark.parametrize("method,expected", [("1-6", 2), ("2-4", 3), ("1-4", 2), ("1-3", 2)])
def test_two_rows_to_none_with_a_tie(method: str, expected: int) -> None:
    # "Rows: +1 for each row won, −1 for each row lost, 0 for an exact tie." / "`2-4`: +1
    #  "overall" unit to whoever won more rows" / no scoop with a tied row
    s = settle([A2, B2], Rules(scoring=method))  # type: ignore[arg-type]
    assert s.pair(0, 1).rows == (0, 1, 1)
    assert s.totals == [expected, -expected]


@pytest.mark.parametrize("method,expected", [("1-6", 1), ("2-4", 2), ("1-4", 1), ("1-3", 1)])
def test_two_to_one(method: str, expected: int) -> None:
    a = B("2c 3d 5h / 9s 9c 4h 6c 7d / Ts Tc Jh Jc 8d")
    b = B("Ad 3c 5s / 8s 8c 4d 6d 7h / As Ac 2h 3h 4s")  # b wins the top only
    s = settle([a, b], Rules(scoring=method))  # type: ignore[arg-type]
    assert s.pair(0, 1).rows == (-1, 1, 1)
    assert s.totals == [expected, -expected]


@pytest.mark.parametrize("method,expected", [("1-6", 1), ("2-4", 2), ("1-4", 1), ("1-3", 1)])
def test_one_row_won_two_tied(method: str, expected: int) -> None:
    # 2-4: whoever won more rows (1 against 0) gets the overall unit
    a = B("2c 3d 5h / 9s 9c 4h 6c 7d / Ts Tc Jh Jc 8d")
    b = B("2d 3c 5s / 9h 9d 4d 6d 7h / Th Td Js Jd 7c")  # a's bottom kicker 8 beats 7
    s = settle([a, b], Rules(scoring=method))  # type: ignore[arg-type]
    assert s.pair(0, 1).rows == (0, 0, 1)
    assert s.totals == [expected, -expected]


@pytest.mark.parametrize("method", SCORINGS)
def test_all_rows_tied_is_zero(method: str) -> None:
    a = B("2c 3d 5h / 9s 9c 4h 6c 7d / Ts Tc Jh Jc 8d")
    b = B("2d 3c 5s / 9h 9d 4d 6d 7h / Th Td Js Jd 8c")
    s = settle([a, b], Rules(scoring=method))  # type: ignore[arg-type]
    assert s.pair(0, 1).rows == (0, 0, 0) and s.totals == [0, 0]


@pytest.mark.parametrize("method", SCORINGS)
def test_scoop_each_method(method: str) -> None:
    # "`1-6`: +3 more for winning all three rows ... `2-4`: +1 overall ... `1-4`: +1 more for a
    #  scoop. `1-3`: no bonus."
    s = settle([L, R], Rules(scoring=method))  # type: ignore[arg-type]
    assert s.totals[0] == SCOOP_TOTAL[method] + 24


@pytest.mark.parametrize("method", SCORINGS)
@pytest.mark.parametrize("variant", ["ofc", "pineapple"])
def test_foul_loses_every_row_and_the_scoop_and_pays_royalties(method: str, variant: str) -> None:
    # "One board fouled, the other not: the fouled board loses every row and the scoop (6 points
    #  in 1-6, 4 in 2-4) and pays the other's royalties."
    rules = Rules(variant=variant, scoring=method)  # type: ignore[arg-type]
    assert settle([M, F], rules).totals == [SCOOP_TOTAL[method] + 7, -(SCOOP_TOTAL[method] + 7)]
    assert settle([F, M], rules).totals == [-(SCOOP_TOTAL[method] + 7), SCOOP_TOTAL[method] + 7]
    # even when the clean board's rows are weaker than the fouled board's
    assert settle([R, F], rules).pair(0, 1).rows == (1, 1, 1)


@pytest.mark.parametrize("method", SCORINGS)
@pytest.mark.parametrize("variant", ["ofc", "pineapple", "chinese"])
def test_both_fouled_nothing_changes_hands(method: str, variant: str) -> None:
    # "Both fouled: nothing changes hands." (royalties of fouled boards included, moon too)
    rules = Rules(variant=variant, scoring=method, shoot_the_moon=True)  # type: ignore[arg-type]
    fouled_royal = B("Ah Ad Ac / Kh Kd Ks 2c 3d / 3s 4s 5s 6s 7s")  # AAA over KKK: fouled
    assert fouled_royal.is_foul()
    assert settle([fouled_royal, F], rules).totals == [0, 0]
    assert settle([F, F2, fouled_royal], rules).totals == [0, 0, 0]


def test_four_players_ofc_mixed_clean_fouled_surrendered() -> None:
    # Every pair settled separately; fouled vs surrendered (scores as a foul) = both fouled.
    rules = Rules()
    s = settle([L, M, F, None], rules, surrendered=[3])
    assert s.pair(0, 1).total == 6 + 24 - 7      # L scoops M, royalties 24 - 7
    assert s.pair(0, 2).total == 30
    assert s.pair(0, 3).total == 30
    assert s.pair(1, 2).total == 13 and s.pair(1, 3).total == 13
    assert s.pair(2, 3).total == 0
    assert s.totals == [83, 3, -43, -43]


def test_four_players_2_4_mixed() -> None:
    s = settle([L, M, F, None], Rules(scoring="2-4"), surrendered=[3])
    assert s.totals == [21 + 28 + 28, -21 + 11 + 11, -28 - 11, -28 - 11]


def test_four_players_chinese_mixed_with_bonuses_and_surrender() -> None:
    # chinese: no royalties; bonuses "paid only by the row that wins"; "Surrender in chinese:
    #  pays each opponent that did not surrender 3 units"
    s = settle([L, M, F, None], Rules(variant="chinese"), surrendered=[3])
    assert s.pair(0, 1).total == 1 + 1 + 5 + 1  # bottom straight flush 5, overall 1
    assert s.pair(0, 3).total == 3 and s.pair(1, 3).total == 3 and s.pair(2, 3).total == 3
    assert s.pair(1, 2).total == 4
    assert sum(s.totals) == 0
    assert s.totals[3] == -9


def test_four_players_every_seat_order_sums_to_zero_and_is_consistent() -> None:
    boards = [L, M, F, R]
    base = settle(boards, Rules())
    for perm in itertools.permutations(range(4)):
        s = settle([boards[i] for i in perm], Rules())
        assert sum(s.totals) == 0
        assert s.totals == [base.totals[i] for i in perm]


# ================================================================================================
# Surrender
# ================================================================================================


@pytest.mark.parametrize("method", SCORINGS)
@pytest.mark.parametrize("variant", ["ofc", "pineapple"])
def test_open_face_surrender_scores_as_a_foul(method: str, variant: str) -> None:
    # "Surrender in ofc/pineapple scores as a foul."
    rules = Rules(variant=variant, scoring=method)  # type: ignore[arg-type]
    s = settle([M, None, F], rules, surrendered=[1])
    assert s.pair(0, 1).total == SCOOP_TOTAL[method] + 7   # pays the clean board's royalties
    assert s.pair(2, 1).total == 0                          # against a fouled board: nothing
    assert s.royalties[1] == 0
    # a surrendered partial board, even one that would be clean with royalties, earns nothing
    partial = Board(top=tuple(C("Ah Ad")))
    assert settle([partial, R], rules, surrendered=[0]).totals == [-SCOOP_TOTAL[method],
                                                                   SCOOP_TOTAL[method]]


@pytest.mark.parametrize("value", [0, 1, 3, 7])
def test_chinese_surrender_option_value(value: int) -> None:
    # "Surrender in chinese: pays each opponent that did not surrender 3 units **(option)** and
    #  nothing more; no royalties or naturals are paid to or by it."
    rules = Rules(variant="chinese", chinese_surrender=value)
    s = settle([L, F, None, None], rules, surrendered=[2, 3])
    assert s.pair(0, 2).total == value and s.pair(1, 2).total == value  # even to a fouled board
    assert s.pair(2, 3).total == 0
    assert s.totals[2] == s.totals[3] == -2 * value


def test_chinese_surrender_against_a_natural_and_a_moon() -> None:
    # "no royalties or naturals are paid to or by it" ... "and nothing more"
    rules = Rules(variant="chinese", shoot_the_moon=True)
    s = settle([None, MOON, None], rules, surrendered=[2], naturals={0: "dragon"})
    assert s.pair(0, 2).total == 3
    assert s.pair(1, 2).total == 3  # no moon bonus from a surrendered player


def test_chinese_surrender_ignores_the_scoring_method() -> None:
    for method in SCORINGS:
        rules = Rules(variant="chinese", scoring=method)  # type: ignore[arg-type]
        assert settle([L, None], rules, surrendered=[1]).totals == [3, -3]


# ================================================================================================
# Shooting the moon
# ================================================================================================


def test_moon_off_by_default() -> None:
    # "House rule "shooting the moon" **(option, default off)**"
    assert Rules().shoot_the_moon is False
    assert settle([MOON, R], Rules()).totals == [-6, 6]


def test_moon_wins_20_from_each_opponent() -> None:
    # "a board that is not fouled whose bottom row is jack-high (no pair or better) wins 20 more
    #  units from each opponent."
    rules = Rules(shoot_the_moon=True)
    assert not MOON.is_foul()
    assert settle([MOON, R], rules).totals == [-6 + 20, 6 - 20]
    assert settle([MOON, F], rules).totals == [6 + 20, -26]  # from a fouled opponent too
    s = settle([MOON, R, F], rules)
    assert s.totals[0] == 14 + 26
    assert sum(s.totals) == 0


def test_moon_against_surrendered_open_face_board() -> None:
    rules = Rules(variant="pineapple", shoot_the_moon=True)
    assert settle([MOON, None], rules, surrendered=[1]).totals == [26, -26]


def test_moon_points_option() -> None:
    rules = Rules(shoot_the_moon=True, shoot_the_moon_points=35)
    assert settle([MOON, R], rules).totals == [-6 + 35, 6 - 35]


def test_moon_needs_clean_board_and_no_pair_jack_or_lower() -> None:
    rules = Rules(shoot_the_moon=True)
    queen = B("2c 3d 4h / 2s 5c 6h 7c 9d / 3s 5s 8h Tc Qd")
    assert not queen.is_foul()
    assert settle([queen, R], rules).moon == [False, False]
    fouled = B("2c 3d 4h / 2s 2h 6h 7c 9d / 3s 5s 8h Tc Jd")
    assert fouled.is_foul()
    assert settle([fouled, R], rules).moon == [False, False]
    assert settle([MOON, R], rules).moon == [True, False]


def test_moon_in_chinese_and_with_every_scoring() -> None:
    for method in SCORINGS:
        rules = Rules(variant="chinese", scoring=method, shoot_the_moon=True)  # type: ignore[arg-type]
        plain = settle([MOON, R], rules.with_options(shoot_the_moon=False)).totals[0]
        assert settle([MOON, R], rules).totals[0] == plain + 20


# ================================================================================================
# Chinese bonuses and naturals
# ================================================================================================


def test_chinese_bonuses_only_for_the_winning_row() -> None:
    # "Bonuses **(option, default on)**, paid only by the row that wins, instead of its 1 unit"
    rules = Rules(variant="chinese")
    a = B("7h 7d 7c / 2s 2c 2h 3c 3d / 9s 9c 9h 9d Kc")  # trips top, FH middle, quads bottom
    b = B("8h 8d 8c / 4s 4c 4h 5c 5d / Ts Tc Th Td Ks")  # same shapes, each one higher
    s = settle([a, b], rules)
    assert s.pair(1, 0).row_points == (3, 2, 4)  # the winner's bonuses, none for the loser
    assert s.totals == [-(3 + 2 + 4 + 1), 3 + 2 + 4 + 1]


@pytest.mark.parametrize("method,bonus", [("1-6", 3), ("2-4", 1), ("1-4", 1), ("1-3", 0)])
def test_chinese_bonuses_with_every_scoring_method(method: str, bonus: int) -> None:
    rules = Rules(variant="chinese", scoring=method)  # type: ignore[arg-type]
    s = settle([L, R], rules)  # L wins top 1, middle trips 1, bottom straight flush 5
    assert s.pair(0, 1).row_points == (1, 1, 5)
    assert s.totals[0] == 7 + bonus


def test_chinese_bonus_top_trips_middle_quads_sf() -> None:
    rules = Rules(variant="chinese")
    a = B("Ah Ad Ac / 8s 8c 8h 8d Jc / 2h 3h 4h 5h 6h")
    # top trips 3; middle quads 8; bottom straight flush 5
    b = B("Kh Kd 2c / 7s 7c 7h 3d 3c / 9s 9c 9h Qd Qs")
    assert not a.is_foul() and not b.is_foul()
    s = settle([a, b], rules)
    assert s.pair(0, 1).row_points == (3, 8, 5)


def test_natural_beats_fouled_and_clean_boards_for_its_value_only() -> None:
    # "A declared natural beats every ordinary hand"
    rules = Rules(variant="chinese")
    strong = B("Ah Ad Ac / 8s 8c 8h 8d Jc / 2h 3h 4h 5h 6h")
    s = settle([None, F, strong], rules, naturals={0: "six pairs"})
    assert s.pair(0, 1).total == 3
    assert s.pair(0, 2).total == 3
    assert s.pair(2, 1).total == 3 + 8 + 5 + 1  # the ordinary pair still settles


def test_natural_table_option() -> None:
    # "dragon (13 different ranks) 13 units from each opponent **(option: table of naturals)**"
    rules = Rules(variant="chinese").changed({"dragon": 20, "six pairs": 0})
    assert rules.natural_values == {"three straights": 3, "three flushes": 3, "dragon": 20}
    s = settle([None, R, None], rules, naturals={0: "dragon", 2: "three flushes"})
    assert s.totals == [40, -3 - 20 + 0, -20 + 3]
    with pytest.raises(ValueError):
        settle([None, R], rules, naturals={0: "six pairs"})


def test_naturals_between_each_other_bigger_wins_ties_pay_nothing() -> None:
    # "between two naturals the bigger wins its value (ties in value pay nothing)"
    rules = Rules(variant="chinese").changed({"three flushes": 5})
    s = settle([None, None, None, None], rules,
               naturals={0: "dragon", 1: "three flushes", 2: "six pairs", 3: "three straights"})
    assert s.pair(0, 1).total == 13 and s.pair(1, 2).total == 5 and s.pair(2, 3).total == 0
    assert s.totals == [39, -13 + 5 + 5, -13 - 5, -13 - 5]


@pytest.mark.parametrize("cards,has", [
    # "Three straights / three flushes mean the top three cards also form a straight / flush."
    ("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd 2h 2s Kc", False),  # two straights + junk top
    ("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac", True),   # top Q K A
    ("Ac 2d 3h 4s 5c 6d 7h 8s 9c Td Jh Qs Kc", True),   # top A 2 3
    ("Kc Ad 2h 3s 4c 5d 6h 7s 3c 4d 5h 6s 7c", False),  # K A 2 wraps: not a straight
])
def test_three_straights_definition(cards: str, has: bool) -> None:
    from engine import naturals_in
    assert ("three straights" in naturals_in(C(cards))) is has


@pytest.mark.parametrize("cards,has", [
    ("2c 5c 9c Jc Kc 2d 4d 6d 8d Td 3h 7h 9h", True),
    ("2c 5c 9c Jc Kc 2d 4d 6d 8d Td 3h 7h 9s", False),  # top not one suit
    ("2c 5c 9c Jc Kc 3c 4d 6d 8d Td 3h 7h 9h", False),  # 6 clubs 4 diamonds 3 hearts
])
def test_three_flushes_definition(cards: str, has: bool) -> None:
    from engine import naturals_in
    assert ("three flushes" in naturals_in(C(cards))) is has


def test_chinese_hand_natural_foul_and_clean_three_players() -> None:
    rules = Rules(variant="chinese")
    dragon = "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac"
    fouled = B("Ah Ad Kc / As Qd Qs 7s 3c / Js Jc 9d 5h 2d")
    clean = B("Kd Kh 2h / 8c 8d 8s 3h 2s / Td Th Ts 6d 6h")
    assert fouled.is_foul() and not clean.is_foul()
    deck = deck_for(rules, 3, 2, {1: fouled, 2: clean}, cards={0: dragon})
    h = Hand(rules, ["A", "Bo", "Cy"], button=2, deck=deck)
    assert set(h.pending[0]) == set(C(dragon))
    h.declare(0, "dragon")
    play_to(h, {1: fouled, 2: clean})
    assert h.settlement is not None
    assert h.settlement.totals == [26, -13 - 4, -13 + 4]


# ================================================================================================
# Fantasyland: entry, progressive sizes, stay, through whole hands
# ================================================================================================

# seat 0's boards (clean, each with a different top) and seat 1's board, all disjoint
BOT = "3s 3c 3h 4c 4d / 9s 9c 9h 9d 7c"
TOPS = {"QQ": "Qh Qd 2c", "KK": "Kh Kd 2c", "AA": "Ah Ad 2c", "trips": "2h 2d 2c",
        "JJ": "Jh Jd 2c"}
OTHER = B("Js Jc 5d / 6s 6c 8h 8s Ts / Tc Td Th 5c 5h")  # JJ 6 + bottom FH 6 = 12


def _pineapple_hand(rules: Rules, top: str) -> Hand:
    a = B(f"{TOPS[top]} / {BOT}")
    boards = {0: a, 1: OTHER}
    deck = deck_for(rules, 2, 1, boards, {0: "7h 7d 7s 8c", 1: "8d 6h 6d 4h"})
    h = Hand(rules, ["A", "B"], button=1, deck=deck)
    play_to(h, boards)
    return h


@pytest.mark.parametrize("top,cards", [("QQ", 14), ("KK", 15), ("AA", 16), ("trips", 17),
                                       ("JJ", 0)])
def test_progressive_pineapple_entry_through_a_hand(top: str, cards: int) -> None:
    # "`pineapple` is progressive **(option, default on)**: QQ → 14 cards, KK → 15, AA → 16,
    #  trips → 17"
    h = _pineapple_hand(Rules(variant="pineapple"), top)
    assert h.fantasyland_next == (cards, 0)
    assert len(h.discards[0]) == 4 and len(h.discards[1]) == 4


@pytest.mark.parametrize("top", ["QQ", "KK", "AA", "trips"])
def test_plain_pineapple_entry_is_14(top: str) -> None:
    # "with progressive off, 14 cards."
    h = _pineapple_hand(Rules(variant="pineapple", progressive=False), top)
    assert h.fantasyland_next == (14, 0)


@pytest.mark.parametrize("top", ["QQ", "KK", "AA", "trips"])
def test_fantasyland_off_no_entry(top: str) -> None:
    # "## Fantasyland (ofc and pineapple; **(option)** on by default)"
    h = _pineapple_hand(Rules(variant="pineapple", fantasyland=False), top)
    assert h.fantasyland_next == (0, 0)
    assert B(f"{TOPS[top]} / {BOT}").fantasyland_cards(Rules(fantasyland=False)) == 0


@pytest.mark.parametrize("top", ["QQ", "KK", "AA", "trips"])
def test_ofc_entry_is_13_through_a_hand(top: str) -> None:
    # "`ofc`: the fantasyland hand is dealt 13 cards at once."
    rules = Rules()
    a = B(f"{TOPS[top]} / {BOT}")
    boards = {0: a, 1: OTHER}
    h = Hand(rules, ["A", "B"], button=1, deck=deck_for(rules, 2, 1, boards))
    play_to(h, boards)
    assert h.fantasyland_next == (13, 0)
    nxt = Hand(rules, ["A", "B"], button=next_button(1, 2, h.fantasyland_next, rules),
               fantasyland=h.fantasyland_next, seed=1)
    req = nxt.requirement(0)
    assert req is not None and req.is_set and len(req.cards) == 13 and req.discard == 0


def test_progressive_sizes_deal_and_discard_the_rest() -> None:
    # "The player keeps 13 and discards the rest face down."
    for top, cards in (("QQ", 14), ("KK", 15), ("AA", 16), ("trips", 17)):
        h = _pineapple_hand(Rules(variant="pineapple"), top)
        nxt = Hand(h.rules, ["A", "B"], button=1, fantasyland=h.fantasyland_next, seed=3)
        req = nxt.requirement(0)
        assert req is not None and len(req.cards) == cards and req.place == 13
        assert req.discard == cards - 13
        assert nxt.hidden(0) and 0 in nxt.to_act() and 1 in nxt.to_act()


def test_entry_score_of_the_entry_hand() -> None:
    h = _pineapple_hand(Rules(variant="pineapple"), "KK")
    # A: top KK 8, middle FH 12, bottom quads 10 = 30; B: 12; A scoops: 6 + 30 - 12
    assert h.settlement is not None and h.settlement.totals == [24, -24]


# a board set in fantasyland and the stay it earns: (ofc, pineapple, no middle FH, progressive stay)
STAYS = [
    ("2h 2d 2c / 3s 3c 3h 4c 4d / 9s 9c 9h 9d 7c", 13, 14, 14, 15),   # trips top
    ("Ah Kd 2c / 3s 3c 3h 4c 4d / 9s 9c 9h Ts Tc", 13, 14, 0, 14),    # middle FH only
    ("Ah Kd 2c / 3s 3c 3h 3d 4d / 9s 9c 9h 9d Tc", 13, 14, 14, 14),   # middle quads
    ("Ah Kd 2c / 3s 3c Jh 4c 4d / 9s 9c 9h 9d 7c", 13, 14, 14, 14),   # bottom quads
    ("Ah Kd 2c / 3s 4s 5s 6s 7s / 8h 9h Th Jh Qh", 13, 14, 14, 14),   # middle SF
    ("Ah Kd 2c / 3s 3c Jh 4c 4d / Ts Js Qs Ks As", 13, 14, 14, 15),   # bottom royal
    ("Ad Qd 2c / Th Jh Qh Kh Ah / Ts Js Qs Ks As", 13, 14, 14, 15),   # middle royal
    ("Ah Ad 2c / 3s 3c 3h 4c 5d / 9s 9c 9h Td Tc", 0, 0, 0, 0),       # AA top, no stay
    ("Ah Kd 2c / 3s 4c 5h 6c 7d / 8s 8c 8h Td Tc", 0, 0, 0, 0),       # bottom FH only
]


@pytest.mark.parametrize("board,ofc,pine,no_fh,prog", STAYS)
def test_stay_rules_and_options(board: str, ofc: int, pine: int, no_fh: int, prog: int) -> None:
    # "Staying ("re-fantasyland"), from a board set in fantasyland that is not fouled: trips on
    #  top, or a full house or better in the middle, or quads or better on the bottom."
    # "**(option)** pineapple rooms that drop the middle full house. The stay hand is dealt 13
    #  cards in ofc and 14 in pineapple; **(option)** Pokermagnet's progressive stay table:
    #  trips on top → 15, middle full house or better → 14, bottom quads or better → 14, a royal
    #  flush in middle or bottom → 15 (the largest that applies)."
    b = B(board)
    assert not b.is_foul()
    assert b.fantasyland_stay_cards(Rules(variant="ofc")) == ofc
    assert b.fantasyland_stay_cards(Rules(variant="pineapple")) == pine
    assert b.fantasyland_stay_cards(Rules(variant="pineapple", progressive=False)) == pine
    assert b.fantasyland_stay_cards(Rules(variant="pineapple", stay_middle_full_house=False)) == no_fh
    assert b.fantasyland_stay_cards(Rules(variant="pineapple", progressive_stay=True)) == prog
    assert b.fantasyland_stay_cards(Rules(variant="pineapple", fantasyland=False)) == 0


def test_stay_with_progressive_stay_and_no_middle_fh_combined() -> None:
    rules = Rules(variant="pineapple", progressive_stay=True, stay_middle_full_house=False)
    assert B(STAYS[0][0]).fantasyland_stay_cards(rules) == 15
    assert B(STAYS[1][0]).fantasyland_stay_cards(rules) == 0
    assert B(STAYS[3][0]).fantasyland_stay_cards(rules) == 14
    assert B(STAYS[5][0]).fantasyland_stay_cards(rules) == 15


def test_fouled_fantasyland_board_never_stays_under_any_option() -> None:
    # "A fouled board never enters or stays."
    b = B("2h 2d 2c / 3s 3c 4h 5c 6d / 9s 9c 9h 9d 7c")  # trips top over a pair: fouled
    assert b.is_foul()
    for rules in (Rules(), Rules(variant="pineapple"), Rules(variant="pineapple", progressive_stay=True),
                  Rules(variant="pineapple", progressive=False)):
        assert b.fantasyland_stay_cards(rules) == 0 and b.fantasyland_cards(rules) == 0


@pytest.mark.parametrize("fl_cards,prog_stay,expected", [(14, False, 14), (16, False, 14),
                                                         (17, True, 15), (15, True, 15)])
def test_fantasyland_hand_stays_through_a_hand(fl_cards: int, prog_stay: bool, expected: int) -> None:
    rules = Rules(variant="pineapple", progressive_stay=prog_stay)
    fl_board = B("2h 2d 2c / 3s 3c 3h 4c 4d / 9s 9c 9h 9d 7c")  # trips top: stays
    extra = ["7h", "7d", "7s", "8c"][: fl_cards - 13]
    boards = {0: fl_board, 1: OTHER}
    deck = deck_for(rules, 2, 1, boards, {0: " ".join(extra), 1: "8d 6h 6d 4h"}, fl={0: fl_cards})
    h = Hand(rules, ["A", "B"], button=1, fantasyland={0: fl_cards}, deck=deck)
    assert len(h.pending[0]) == fl_cards
    play_to(h, boards)
    assert h.fantasyland_next == (expected, 0)
    # "it stays when the coming hand has a player in fantasyland" (option, default)
    assert next_button(1, 2, h.fantasyland_next, rules) == 1
    assert next_button(1, 2, h.fantasyland_next,
                       rules.with_options(button_stays_for_fantasyland=False)) == 0


def test_fantasyland_qq_on_top_does_not_re_enter() -> None:
    # staying needs trips top / middle FH+ / bottom quads+; QQ on top in fantasyland is not enough
    rules = Rules(variant="pineapple")
    fl_board = B("Qh Qd 2c / 3s 3c Jh 4c 4d / 9s 9c 9h Ks 7c")
    boards = {0: fl_board, 1: OTHER}
    deck = deck_for(rules, 2, 1, boards, {0: "7h", 1: "8d 6h 6d 4h"}, fl={0: 14})
    h = Hand(rules, ["A", "B"], button=1, fantasyland={0: 14}, deck=deck)
    play_to(h, boards)
    assert h.fantasyland_next == (0, 0)
    assert next_button(1, 2, h.fantasyland_next, rules) == 0


def test_surrender_in_fantasyland_three_players() -> None:
    # "Surrender in ofc/pineapple scores as a foul." with a fantasyland player at the table
    rules = Rules(variant="pineapple")
    fl_board = B("2h 2d 2c / 3s 3c 3h 4c 4d / 9s 9c 9h 9d 7c")  # royalties 10 + 12 + 10 = 32
    boards = {0: fl_board, 1: OTHER}
    deck = deck_for(rules, 3, 2, boards, {0: "7h 7d 7s", 1: "8d 6h 6d 4h"}, fl={0: 16})
    h = Hand(rules, ["A", "B", "C"], button=2, fantasyland={0: 16}, deck=deck)
    h.surrender(2)
    play_to(h, boards)
    s = h.settlement
    assert s is not None
    assert s.pair(0, 1).total == 6 + 32 - 12
    assert s.pair(0, 2).total == 6 + 32
    assert s.pair(1, 2).total == 6 + 12
    assert s.totals == [64, -8, -56]
    assert h.fantasyland_next == (14, 0, 0)


def test_fantasyland_player_surrenders() -> None:
    # a surrendered fantasyland board scores as a foul and does not stay
    rules = Rules(variant="pineapple")
    boards = {1: OTHER}
    deck = deck_for(rules, 2, 1, boards, {1: "8d 6h 6d 4h"})
    h = Hand(rules, ["A", "B"], button=1, fantasyland={0: 17},
             deck=C("Ah Ad Ac Kh Kd Kc Qh Qd Qc 2h 2d 2c 2s 3h 3d 3c 3s") + deck)
    h.surrender(0)
    play_to(h, boards)
    assert h.settlement is not None
    assert h.settlement.totals == [-(6 + 12), 6 + 12]
    assert h.fantasyland_next == (0, 0)


def test_ofc_four_players_with_fantasyland_deals_the_whole_deck() -> None:
    h = Hand(Rules(), ["A", "B", "C", "D"], button=0, fantasyland={2: 13}, seed=5)
    assert len(h.pending[2]) == 13
    # "Other players play their hand as normal at the same time."
    assert set(h.to_act()) == {1, 2}


def test_pineapple_three_players_all_in_progressive_fantasyland() -> None:
    h = Hand(Rules(variant="pineapple"), ["A", "B", "C"], fantasyland={0: 17, 1: 17, 2: 17}, seed=1)
    assert [len(p) for p in h.pending] == [17, 17, 17]


# ================================================================================================
# Players, order, button, options
# ================================================================================================


@pytest.mark.parametrize("variant,lo,hi", [("ofc", 2, 4), ("pineapple", 2, 3), ("chinese", 2, 4)])
def test_player_counts(variant: str, lo: int, hi: int) -> None:
    # "| `ofc` ... | 2-4 |", "| `pineapple` | 2-3 |", "| `chinese` ... | 2-4 |"
    rules = Rules(variant=variant)  # type: ignore[arg-type]
    for n in range(1, 6):
        if lo <= n <= hi:
            Hand(rules, [f"p{i}" for i in range(n)], seed=1)
        else:
            with pytest.raises(RulesError):
                Hand(rules, [f"p{i}" for i in range(n)], seed=1)


@pytest.mark.parametrize("variant", ["ofc", "pineapple"])
@pytest.mark.parametrize("button", [0, 1, 2])
def test_play_starts_left_of_button_clockwise(variant: str, button: int) -> None:
    # "Play starts left of the dealer button and goes clockwise."
    h = Hand(Rules(variant=variant), ["a", "b", "c"], button=button, seed=2)  # type: ignore[arg-type]
    assert h.order == tuple((button + 1 + k) % 3 for k in range(3))
    assert h.turn == (button + 1) % 3


@pytest.mark.parametrize("variant,first,streets,deal,keep", [
    ("ofc", 5, 9, 1, 1), ("pineapple", 5, 5, 3, 2), ("chinese", 13, 1, 0, 0)])
def test_deal_structure(variant: str, first: int, streets: int, deal: int, keep: int) -> None:
    # "5 cards, then 8 rounds of 1 card" / "5 cards, then 4 rounds of 3: place 2, discard 1" /
    # "13 cards at once, all players set at the same time"
    h = Hand(Rules(variant=variant), ["a", "b"], button=1, seed=7)  # type: ignore[arg-type]
    assert h.streets == streets
    assert len(h.pending[0]) == first


def test_button_moves_clockwise() -> None:
    # "The button moves one seat clockwise after each hand"
    for rules in (Rules(), Rules(variant="pineapple"), Rules(variant="chinese")):
        assert next_button(2, 3, (0, 0, 0), rules) == 0
        assert next_button(0, 4, (0, 0, 0, 0), rules) == 1
    off = Rules(button_stays_for_fantasyland=False)
    assert next_button(1, 3, (13, 0, 0), off) == 2
    assert next_button(1, 3, (13, 0, 0), Rules()) == 1


def test_option_defaults() -> None:
    r = Rules()
    assert r.scoring == "1-6" and not r.strict_top and r.fantasyland
    assert Rules(variant="pineapple").progressive
    assert r.button_stays_for_fantasyland and not r.shoot_the_moon
    assert r.shoot_the_moon_points == 20
    c = Rules(variant="chinese")
    assert c.scoring == "2-4" and c.chinese_bonuses and c.chinese_surrender == 3
    assert c.natural_values == {"six pairs": 3, "three straights": 3, "three flushes": 3,
                                "dragon": 13}
    # "Every decision has a clock **(option, default 60 s; 120 s for a fantasyland or chinese set)**"
    assert r.timer == 60 and r.set_timer == 120


def test_text_options_every_listed_option() -> None:
    r = Rules(variant="pineapple").with_text_options(
        ["scoring=2-4", "strict_top=on", "progressive=off", "stay_full_house=off",
         "button_stays=off", "moon=on", "moon_points=25", "fantasyland=on"])
    assert (r.scoring, r.strict_top, r.progressive, r.stay_middle_full_house,
            r.button_stays_for_fantasyland, r.shoot_the_moon, r.shoot_the_moon_points) == (
        "2-4", True, False, False, False, True, 25)
    c = Rules(variant="chinese").with_text_options(["bonuses=off", "surrender=5", "dragon=26",
                                                    "six_pairs=0"])
    assert not c.chinese_bonuses and c.chinese_surrender == 5
    assert c.natural_values == {"three straights": 3, "three flushes": 3, "dragon": 26}


def test_chinese_has_no_fantasyland_whatever_the_option() -> None:
    # "## Fantasyland (ofc and pineapple ...)"
    assert L.fantasyland_cards(Rules(variant="chinese")) == 0
    assert B(STAYS[0][0]).fantasyland_stay_cards(Rules(variant="chinese")) == 0


# ================================================================================================
# Stakes
# ================================================================================================


def test_units_are_points_times_unit_value() -> None:
    # "Stakes: points × the table's unit value = units moved between server balances."
    s = settle([L, R, F], Rules())
    assert units_moved(s, 5) == [300, -120, -180]


def test_stack_cap_proportional_shares_and_remainder() -> None:
    # "when their losses exceed it, each opponent they owe is paid a share in proportion to what
    #  it is owed (whole units, the remainder to the earliest creditor left of the button)."
    m = [[0, 0, 7], [0, 0, 3], [-7, -3, 0]]
    # 5 split 7:3 = 3.5 / 1.5 -> 3 + 1, remainder 1 to the earliest creditor left of the button
    assert units_moved(m, 1, [100, 100, 5], button=2) == [4, 1, -5]   # order 0, 1, 2
    assert units_moved(m, 1, [100, 100, 5], button=0) == [3, 2, -5]   # order 1, 2, 0
    assert units_moved(m, 1, [100, 100, 10], button=0) == [7, 3, -10]
    assert units_moved(m, 1, [100, 100, 0], button=0) == [0, 0, 0]


def test_stack_cap_never_exceeded_four_players() -> None:
    s = settle([L, M, F, None], Rules(), surrendered=[3])
    for stacks in ([1000] * 4, [10, 10, 10, 10], [0, 0, 0, 0], [5, 1000, 7, 1000]):
        for button in range(4):
            u = units_moved(s, 3, stacks, button)
            assert sum(u) == 0
            assert all(-x <= st for x, st in zip(u, stacks, strict=True))


# ================================================================================================
# Timeouts under non-default options, hidden discards
# ================================================================================================


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("rules,fl", [
    (Rules(variant="pineapple", strict_top=True), 17),
    (Rules(variant="pineapple", strict_top=True, progressive=False), 14),
    (Rules(variant="ofc", strict_top=True), 13),
    (Rules(variant="pineapple", progressive_stay=True, stay_middle_full_house=False), 16),
])
def test_timeout_fantasyland_set_never_fouls_under_options(rules: Rules, fl: int, seed: int) -> None:
    # "When it runs out the cards are placed for the player by a safe default (the bot's own
    #  play, never a foul when a legal completion exists)" -- with the table's foul rule
    h = Hand(rules, ["A", "B"], fantasyland={0: fl}, seed=seed)
    h.autoplay(0)
    assert h.boards[0].is_complete and len(h.discards[0]) == fl - 13
    assert not h.boards[0].is_foul(rules)


@pytest.mark.parametrize("seed", range(6))
def test_timeout_chinese_set_never_fouls_with_strict_top(seed: int) -> None:
    rules = Rules(variant="chinese", strict_top=True, naturals=())
    h = Hand(rules, ["A", "B", "C", "D"], seed=seed)
    for seat in range(4):
        h.autoplay(seat)
        assert not h.boards[seat].is_foul(rules)


@pytest.mark.parametrize("seed", range(12))
def test_timeout_last_street_avoids_a_strict_top_foul(seed: int) -> None:
    import random

    rules = Rules(variant="pineapple", strict_top=True)
    rng = random.Random(seed)
    h = Hand(rules, ["A", "B"], seed=seed)
    while not h.is_over:
        seat = h.to_act()[0]
        moves = h.legal_moves(seat)
        if len(h.boards[seat]) == 11:
            clean = [m for m in moves if not h.boards[seat].place(m[0]).is_foul(rules)]
            h.autoplay(seat)
            if clean:
                assert not h.boards[seat].is_foul(rules)
        else:
            placed, dropped = rng.choice(moves)
            h.place(seat, placed, dropped)


def test_fantasyland_discards_never_shown_after_showdown() -> None:
    # "The player keeps 13 and discards the rest face down." / "discards are face down, never
    #  shown to others"
    h = Hand(Rules(variant="pineapple"), ["A", "B"], button=1, fantasyland={0: 17}, seed=8)
    h.autoplay(0)
    while not h.is_over:
        h.autoplay(h.to_act()[0])
    secret = h.discards[0]
    assert len(secret) == 4
    assert not set(secret) & h.cards_seen_by(1)
    assert not set(secret) & h.cards_seen_by(None)
    view = repr(h.view_for(1))
    assert not any(f"'{c}'" in view for c in secret)


def test_declare_a_natural_taken_off_the_table_is_refused() -> None:
    # "(option: table of naturals)" -- a natural the table does not pay cannot be declared
    from engine.actions import IllegalAction
    rules = Rules(variant="chinese").changed({"dragon": 0})
    dragon = C("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    h = Hand(rules, ["A", "B"], button=1, deck=dragon)
    with pytest.raises(IllegalAction):
        h.declare(0, "dragon")
    h.declare(0, "three straights")  # still held, still on the table
    h.autoplay(1)
    assert h.settlement is not None and h.settlement.totals == [3, -3]


# ================================================================================================
# A reference implementation of RULES.md, compared with the engine on random boards and every
# combination of options
# ================================================================================================

from collections import Counter  # noqa: E402

from engine import DECK  # noqa: E402
from engine.autoplay import greedy_set  # noqa: E402

_RANK = {r: i + 2 for i, r in enumerate("23456789TJQKA")}


def ref_value(cards) -> tuple[int, tuple[int, ...]]:
    """(category, defining ranks): 0 high card, 1 pair, 2 two pair, 3 trips, 4 straight,
    5 flush, 6 full house, 7 quads, 8 straight flush (RULES.md "Hands and rows")."""
    ranks = [_RANK[str(c)[0]] for c in cards]
    suits = {str(c)[1] for c in cards}
    groups = sorted(Counter(ranks).items(), key=lambda kv: (-kv[1], -kv[0]))
    shape = [n for _, n in groups]
    by = tuple(r for r, _ in groups)
    if len(cards) == 3:
        return (3 if shape == [3] else 1 if shape == [2, 1] else 0), by
    flush = len(suits) == 1
    straight = 0
    if shape == [1] * 5:
        if by[0] - by[4] == 4:
            straight = by[0]
        elif by == (14, 5, 4, 3, 2):
            straight = 5
    if straight and flush:
        return 8, (straight,)
    if shape == [4, 1]:
        return 7, by
    if shape == [3, 2]:
        return 6, by
    if flush:
        return 5, by
    if straight:
        return 4, (straight,)
    return {(3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1}.get(tuple(shape), 0), by


def ref_cmp(x, y) -> int:
    """Compare two rows; a 3-card row against a 5-card row on the 3-card row's own ranks."""
    if x[0] != y[0]:
        return 1 if x[0] > y[0] else -1
    n = min(len(x[1]), len(y[1]))
    a, b = x[1][:n], y[1][:n]
    return (a > b) - (a < b)


def ref_foul(board: Board, strict: bool) -> bool:
    t, m, b = (ref_value(r) for r in board.rows)
    if ref_cmp(m, b) > 0:
        return True
    c = ref_cmp(t, m)
    return c >= 0 if strict else c > 0


def ref_royalties(board: Board) -> int:
    t, m, b = (ref_value(r) for r in board.rows)
    top = 10 + t[1][0] - 2 if t[0] == 3 else (t[1][0] - 5 if t[0] == 1 and t[1][0] >= 6 else 0)
    mid = {3: 2, 4: 4, 5: 8, 6: 12, 7: 20}.get(m[0], 0)
    if m[0] == 8:
        mid = 50 if m[1][0] == 14 else 30
    bot = {4: 2, 5: 4, 6: 6, 7: 10}.get(b[0], 0)
    if b[0] == 8:
        bot = 25 if b[1][0] == 14 else 15
    return top + mid + bot


def ref_chinese_unit(row: int, v) -> int:
    if row == 0:
        return 3 if v[0] == 3 else 1
    if row == 1:
        return {6: 2, 7: 8, 8: 10}.get(v[0], 1)
    return {7: 4, 8: 5}.get(v[0], 1)


def ref_entry(board: Board, rules: Rules) -> int:
    if not rules.fantasyland or rules.variant == "chinese" or ref_foul(board, rules.strict_top):
        return 0
    t = ref_value(board.top)
    if t[0] == 3:
        level = 4
    elif t[0] == 1 and t[1][0] >= 12:
        level = t[1][0] - 11
    else:
        return 0
    if rules.variant == "ofc":
        return 13
    return 13 + level if rules.progressive else 14


def ref_stay(board: Board, rules: Rules) -> int:
    if not rules.fantasyland or rules.variant == "chinese" or ref_foul(board, rules.strict_top):
        return 0
    t, m, b = (ref_value(r) for r in board.rows)
    trips, fh, quads = t[0] == 3, m[0] >= 6 and rules.stay_middle_full_house, b[0] >= 7
    if not (trips or fh or quads):
        return 0
    if rules.variant == "ofc":
        return 13
    if not rules.progressive_stay:
        return 14
    royal = (m[0] == 8 and m[1][0] == 14) or (b[0] == 8 and b[1][0] == 14)
    return 15 if trips or royal else 14


def ref_settle(boards, rules: Rules, surr: set[int], nat: dict[int, str]) -> list[list[int]]:
    n = len(boards)
    chinese = rules.variant == "chinese"
    fouled, roy, moon = [False] * n, [0] * n, [False] * n
    for i, bd in enumerate(boards):
        if i in surr:
            fouled[i] = not chinese
        elif i not in nat:
            fouled[i] = ref_foul(bd, rules.strict_top)
            roy[i] = 0 if fouled[i] or chinese else ref_royalties(bd)
            b = ref_value(bd.bottom)
            moon[i] = rules.shoot_the_moon and not fouled[i] and b[0] == 0 and b[1][0] <= 11
    m = [[0] * n for _ in range(n)]
    values = rules.natural_values
    for a in range(n):
        for b in range(n):
            if a == b:
                continue
            pts = 0
            if chinese and (a in surr or b in surr):
                if not (a in surr and b in surr):
                    pts = rules.chinese_surrender * (1 if b in surr else -1)
            elif a in nat or b in nat:
                va, vb = values.get(nat.get(a, ""), 0), values.get(nat.get(b, ""), 0)
                if a in nat and b in nat:
                    pts = va if va > vb else -vb if vb > va else 0
                else:
                    pts = va - vb
            elif fouled[a] and fouled[b]:
                pts = 0
            else:
                if fouled[a] or fouled[b]:
                    outcome = [-1 if fouled[a] else 1] * 3
                else:
                    outcome = [ref_cmp(ref_value(x), ref_value(y))
                               for x, y in zip(boards[a].rows, boards[b].rows, strict=True)]
                for r, o in enumerate(outcome):
                    if o:
                        w = a if o > 0 else b
                        unit = (ref_chinese_unit(r, ref_value(boards[w].rows[r]))
                                if chinese and rules.chinese_bonuses else 1)
                        pts += o * unit
                won, lost = outcome.count(1), outcome.count(-1)
                if rules.scoring == "1-6":
                    pts += 3 * (won == 3) - 3 * (lost == 3)
                elif rules.scoring == "1-4":
                    pts += (won == 3) - (lost == 3)
                elif rules.scoring == "2-4":
                    pts += (won > lost) - (lost > won)
                pts += roy[a] - roy[b]
            if not (chinese and (a in surr or b in surr)) and not (a in nat or b in nat):
                pts += rules.shoot_the_moon_points * (moon[a] - moon[b])
            m[a][b] = pts
    return m


def _random_rules(rng) -> Rules:
    variant = rng.choice(["ofc", "pineapple", "chinese"])
    kw: dict = dict(variant=variant, scoring=rng.choice(SCORINGS), strict_top=rng.random() < 0.4,
                    shoot_the_moon=rng.random() < 0.4,
                    shoot_the_moon_points=rng.choice([20, 0, 7]))
    if variant == "chinese":
        kw.update(chinese_bonuses=rng.random() < 0.6, chinese_surrender=rng.choice([3, 0, 5]),
                  naturals=tuple((nm, rng.choice([3, 5, 13])) for nm in
                                 ("six pairs", "three straights", "three flushes", "dragon")
                                 if rng.random() < 0.8))
    else:
        kw.update(fantasyland=rng.random() < 0.8, stay_middle_full_house=rng.random() < 0.6)
        if variant == "pineapple":
            kw["progressive"] = rng.random() < 0.6
            kw["progressive_stay"] = kw["progressive"] and rng.random() < 0.5
    return Rules(**kw)


def _crafted_board(rng) -> Board:
    """A board built to hit the rare cases: QQ+ or trips on top, a jack-high bottom."""
    deck = list(DECK)
    rng.shuffle(deck)
    if rng.random() < 0.3:  # a moon attempt: 13 cards of ranks 2..J, no pair in any row
        low = [c for c in deck if str(c)[0] in "23456789TJ"]
        for _ in range(200):
            rng.shuffle(low)
            b = Board(tuple(low[:3]), tuple(low[3:8]), tuple(low[8:13]))
            rows = sorted(b.rows[1:], key=lambda r: ref_value(r))
            b = Board(b.top, rows[0], rows[1])
            if all(ref_value(r)[0] == 0 for r in b.rows):
                return b
    rank = rng.choice("QKA23456789TJ")
    same = [c for c in deck if str(c)[0] == rank]
    top = same[:3] if rng.random() < 0.35 else same[:2] + [
        next(c for c in deck if str(c)[0] != rank)]
    rest = [c for c in deck if c not in top][:10 + rng.choice([0, 2, 4])]
    bottom = max(itertools.combinations(rest, 5), key=evaluate)
    rest2 = [c for c in rest if c not in bottom]
    middle = max(itertools.combinations(rest2, 5), key=evaluate) if rng.random() < 0.7 \
        else tuple(rest2[:5])
    return Board(tuple(top), tuple(middle), tuple(bottom))


def _random_boards(rng, n: int) -> list[Board]:
    deck = list(DECK)
    rng.shuffle(deck)
    out = []
    for i in range(n):
        if rng.random() < 0.3:
            out.append(_crafted_board(rng))
            continue
        cards = deck[13 * i: 13 * (i + 1)]
        if rng.random() < 0.6:
            out.append(greedy_set(cards)[0] if rng.random() < 0.5 else
                       Board(tuple(cards[:3]), tuple(sorted(cards[3:8])), tuple(cards[8:])))
        else:
            out.append(Board(tuple(cards[:3]), tuple(cards[3:8]), tuple(cards[8:])))
        if rng.random() < 0.5:  # swap top with a weaker/stronger greedy top for variety
            b = out[-1]
            top = sorted(b.top + b.middle, reverse=True)
            if rng.random() < 0.5:
                out[-1] = Board(tuple(top[:3]), tuple(top[3:]), b.bottom)
    return out


@pytest.mark.parametrize("chunk", range(8))
def test_engine_matches_reference_on_random_tables(chunk: int) -> None:
    import random

    rng = random.Random(1000 + chunk)
    for _ in range(700):
        rules = _random_rules(rng)
        n = rng.randint(2, rules.max_players)
        boards = _random_boards(rng, n)
        surr = {i for i in range(n) if rng.random() < 0.12}
        nat: dict[int, str] = {}
        if rules.variant == "chinese" and rules.naturals:
            for i in range(n):
                if i not in surr and rng.random() < 0.15:
                    nat[i] = rng.choice([nm for nm, _ in rules.naturals])
        s = settle(boards, rules, surrendered=sorted(surr), naturals=nat)
        ref = ref_settle(boards, rules, surr, nat)
        ctx = (rules, [str(b) for b in boards], surr, nat)
        assert s.matrix() == ref, ctx
        assert s.totals == [sum(r) for r in ref], ctx
        for b in boards:
            assert b.is_foul(rules) == ref_foul(b, rules.strict_top), (rules, str(b))
            if rules.variant != "chinese":
                assert b.royalties(rules) == (0 if ref_foul(b, rules.strict_top)
                                              else ref_royalties(b)), (rules, str(b))
            assert b.fantasyland_cards(rules) == ref_entry(b, rules), (rules, str(b))
            assert b.fantasyland_stay_cards(rules) == ref_stay(b, rules), (rules, str(b))


@pytest.mark.parametrize("chunk", range(4))
def test_stack_cap_matches_reference_with_one_short_stack(chunk: int) -> None:
    # "A player can never lose more than the stack they brought to the table: when their losses
    #  exceed it, each opponent they owe is paid a share in proportion to what it is owed (whole
    #  units, the remainder to the earliest creditor left of the button)."
    import random

    rng = random.Random(77 + chunk)
    for _ in range(500):
        n = rng.randint(2, 4)
        m = [[0] * n for _ in range(n)]
        for a in range(n):
            for b in range(a + 1, n):
                m[a][b] = rng.randint(-40, 40)
                m[b][a] = -m[a][b]
        unit = rng.randint(1, 3)
        loser = rng.randrange(n)
        net = sum(m[loser]) * unit
        if net >= 0:
            continue
        stack = rng.randint(0, -net - 1)
        stacks = [10**6] * n
        stacks[loser] = stack
        button = rng.randrange(n)
        got = units_moved(m, unit, stacks, button)
        # reference: the loser pays its stack plus what it wins, split over its creditors
        receipts = sum(m[loser][c] * unit for c in range(n) if m[loser][c] > 0)
        owed = {c: -m[loser][c] * unit for c in range(n) if m[loser][c] < 0}
        payable = stack + receipts
        total = sum(owed.values())
        shares = {c: owed[c] * payable // total for c in owed}
        rest = payable - sum(shares.values())
        for k in range(1, n + 1):
            c = (button + k) % n
            if c in owed and rest:
                extra = min(rest, owed[c] - shares[c])
                shares[c] += extra
                rest -= extra
        expect = [0] * n
        for a in range(n):
            for b in range(n):
                if a == loser or b == loser:
                    continue
                expect[a] += m[a][b] * unit
        for c in range(n):
            if c == loser:
                continue
            if c in owed:
                expect[c] += shares[c]
            else:
                expect[c] -= m[loser][c] * unit
        expect[loser] = -sum(expect[c] for c in range(n) if c != loser)
        assert got == expect, (m, unit, stacks, button)
        assert got[loser] == -stack


@pytest.mark.parametrize("chunk", range(4))
def test_whole_hands_with_random_options_match_the_reference(chunk: int) -> None:
    """Whole hands (fantasyland seats, surrenders, naturals) under random options: the hand's
    settlement and next fantasyland sizes are those of the reference."""
    import random

    rng = random.Random(500 + chunk)
    for it in range(60):
        rules = _random_rules(rng)
        n = rng.randint(2, rules.max_players)
        fl: dict[int, int] = {}
        if rules.has_fantasyland:
            for s in range(n):
                if rng.random() < 0.3:
                    if rules.variant == "ofc":
                        fl[s] = 13
                    elif rules.progressive:
                        fl[s] = rng.choice([14, 15, 16, 17])
                    else:
                        fl[s] = 14
        h = Hand(rules, [f"p{i}" for i in range(n)], button=rng.randrange(n), fantasyland=fl,
                 seed=f"{chunk}/{it}")
        surr: set[int] = set()
        while not h.is_over:
            seat = rng.choice(h.to_act())
            if rng.random() < 0.03:
                h.surrender(seat)
                surr.add(seat)
                continue
            req = h.requirement(seat)
            assert req is not None
            if req.is_set:
                h.autoplay(seat, plain=rng.random() < 0.5)
            else:
                placed, dropped = rng.choice(h.legal_moves(seat))
                h.place(seat, placed, dropped)
        s = h.settlement
        assert s is not None
        nat = {i: x for i, x in enumerate(h.naturals) if x}
        boards = [h.boards[i] for i in range(n)]
        assert s.matrix() == ref_settle(boards, rules, surr, nat), (rules, fl, surr, nat)
        for i in range(n):
            if i in surr or i in nat:
                assert h.fantasyland_next[i] == 0
            elif fl.get(i):
                assert h.fantasyland_next[i] == ref_stay(boards[i], rules)
            else:
                assert h.fantasyland_next[i] == ref_entry(boards[i], rules)
            if i not in surr and i not in nat:
                dealt = fl.get(i) or (13 if rules.variant in ("ofc", "chinese") else 17)
                assert len(h.boards[i]) + len(h.discards[i]) == dealt


def _ref_three(cards, kind: str) -> bool:
    """Brute force: can the 13 cards be set top 3 / middle 5 / bottom 5 with every row a
    straight (kind 's'; A low in A-2-3(-4-5)) or every row one suit (kind 'f')?"""
    def ok(row) -> bool:
        if kind == "f":
            return len({str(c)[1] for c in row}) == 1
        ranks = sorted(_RANK[str(c)[0]] for c in row)
        if len(set(ranks)) != len(ranks):
            return False
        if ranks[-1] - ranks[0] == len(ranks) - 1:
            return True
        return ranks[-1] == 14 and ranks[:-1] == list(range(2, len(ranks) + 1))
    for top in itertools.combinations(cards, 3):
        if not ok(top):
            continue
        rest = [c for c in cards if c not in top]
        for mid in itertools.combinations(rest, 5):
            if ok(mid) and ok([c for c in rest if c not in mid]):
                return True
    return False


@pytest.mark.parametrize("chunk", range(3))
def test_three_straights_and_three_flushes_match_brute_force(chunk: int) -> None:
    # "Three straights / three flushes mean the top three cards also form a straight / flush."
    import random

    from engine import naturals_in
    rng = random.Random(900 + chunk)
    for _ in range(40):
        if rng.random() < 0.5:  # biased to hit three flushes: few suits
            suits = rng.sample("cdhs", rng.choice([2, 3]))
            pool = [c for c in DECK if str(c)[1] in suits]
        else:  # biased to hit three straights: runs of ranks
            lo = rng.randint(0, 5)
            ranks = "A23456789TJQKA"[lo: lo + rng.randint(6, 9)]
            pool = [c for c in DECK if str(c)[0] in ranks]
        if len(pool) < 13:
            continue
        cards = rng.sample(pool, 13)
        found = naturals_in(cards)
        assert ("three straights" in found) == _ref_three(cards, "s"), [str(c) for c in cards]
        assert ("three flushes" in found) == _ref_three(cards, "f"), [str(c) for c in cards]
        assert ("dragon" in found) == (len({str(c)[0] for c in cards}) == 13)


# ================================================================================================
# Text input of moves
# ================================================================================================


def _ofc_first_street() -> Hand:
    deck = C("Ah Th 2c 3d 4s")
    return Hand(Rules(), ["A", "B"], button=1, deck=deck)


@pytest.mark.parametrize("text", [
    "Ah 10h top 2c 3d mid 4s bottom",
    "ah th front 2C 3D middle 4S back",
    "A♥ 10♥ top 2c 3d m 4s b",
    "top Ah Th middle 2c 3d bottom 4s",
])
def test_move_text_is_forgiving(text: str) -> None:
    # "Text input is forgiving and exact" / "Row names `top/front`, `middle/mid`, `bottom/back`
    #  are synonyms."
    from engine.notation import parse_move
    h = _ofc_first_street()
    req = h.requirement(0)
    assert req is not None
    placed, dropped = parse_move(text, req, h.boards[0])
    assert sorted(placed) == sorted([(Card("Ah"), 0), (Card("Th"), 0), (Card("2c"), 1),
                                     (Card("3d"), 1), (Card("4s"), 2)])
    assert dropped == ()


@pytest.mark.parametrize("text,token", [
    ("Ah Th top 2c 3d mid 4x bottom", "4x"),
    ("Ah Th top 2c 3d mid 5s bottom", "5s"),   # not in front of the player
])
def test_move_text_names_the_bad_token(text: str, token: str) -> None:
    # "Anything else is rejected with a message that names the bad token. A card that is not in
    #  front of the player, or is already placed, is rejected the same way."
    from engine.actions import IllegalAction
    from engine.notation import parse_move
    h = _ofc_first_street()
    req = h.requirement(0)
    assert req is not None
    with pytest.raises((CardError, IllegalAction)) as e:
        parse_move(text, req, h.boards[0])
    assert token.lower() in str(e.value).lower()


def test_move_text_card_already_placed_is_named() -> None:
    from engine.actions import IllegalAction
    from engine.notation import parse_move
    h = _ofc_first_street()
    h.place(0, [(Card("Ah"), 0), (Card("Th"), 0), (Card("2c"), 1), (Card("3d"), 1),
                (Card("4s"), 2)])
    h.autoplay(1)
    req = h.requirement(0)
    assert req is not None
    with pytest.raises(IllegalAction) as e:
        parse_move("Ah bottom", req, h.boards[0])
    assert "Ah" in str(e.value)


# ================================================================================================
# Where RULES.md left room (README "Rules and table options" says what the engine chose)
# ================================================================================================


def test_where_the_rules_left_room() -> None:
    # two moons cancel: each wins 20 from the other
    other_moon = B("2d 3c 4d / 2h 5d 6c 7d 9h / 3h 5h 8c Td Jc")
    assert not other_moon.is_foul()
    moon = Rules(shoot_the_moon=True)
    assert settle([MOON, other_moon], moon).totals == settle([MOON, other_moon], Rules()).totals
    # "jack-high" is jack-high or lower: a ten-high bottom shoots the moon too
    ten_high = B("2d 3c 4d / 2h 5d 6c 7d 9h / 3h 5h 8c Td 4s")
    assert not ten_high.is_foul()
    assert settle([ten_high, R], moon).totals[0] == settle([ten_high, R], Rules()).totals[0] + 20
    # the middle full house option applies in ofc too
    fh = B("Ah Kd 2c / 3s 3c 3h 4c 4d / 9s 9c 9h 9d Tc")
    fh_only = B("Ah Kd 2c / 3s 3c 3h 4c 4d / 9s 9c 9h Ts Tc")
    assert fh_only.fantasyland_stay_cards(Rules(variant="ofc")) == 13
    assert fh_only.fantasyland_stay_cards(Rules(variant="ofc", stay_middle_full_house=False)) == 0
    assert fh.fantasyland_stay_cards(Rules(variant="ofc", stay_middle_full_house=False)) == 13
    # progressive_stay needs progressive pineapple
    for bad in ({"variant": "ofc", "progressive_stay": True},
                {"variant": "pineapple", "progressive": False, "progressive_stay": True}):
        with pytest.raises(RulesError):
            Rules(**bad)  # type: ignore[arg-type]
    # six pairs: trips count as one pair (five pairs and trips make six pairs)
    assert "six pairs" in naturals_in(C("2c 2d 2h 4s 4c 6d 6h 8s 8c Td Tc Qs Qd"))
    assert "six pairs" not in naturals_in(C("2c 2d 2h 4s 4c 6d 6h 8s 8c Td Tc Qs Ad"))
    # a stack caps its owner's net loss: what it wins from another seat counts
    m = [[0, 0, 10], [0, 0, -4], [-10, 4, 0]]  # seat 2 owes 10 to seat 0, wins 4 from seat 1
    assert units_moved(m, 1, [100, 100, 3], button=0) == [7, -4, -3]
