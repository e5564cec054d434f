import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Board, Rules, settle, units_moved

from .strategies import boards

L = Board.parse("Qh Qd 2s / Kh Kd Ks 4c 3d / 9c Tc Jc Qc Kc")
R = Board.parse("Ks 8c 3s / Jh Jd 9c 5d 2c / Qs Qc As 7c 4d")
F = Board.parse("Ah Ad Kc / As Ac Qd 7s 3c / Js Jc 9d 5h 2c")
F2 = Board.parse("Kh Kd 2c / 3s 3c 4h 5c 6d / Ah Ks Qc Js 9c")  # KK 2 over 33: fouled


def test_worked_example_1() -> None:
    s = settle([L, R], Rules())
    assert s.totals == [30, -30]
    p = s.pair(0, 1)
    assert p.rows == (1, 1, 1) and p.scoop == 1 and p.bonus == 3 and p.royalties == (24, 0)


def test_worked_example_2() -> None:
    assert settle([L, F], Rules()).totals == [30, -30]
    assert F2.is_foul()
    assert settle([F, F2], Rules()).totals == [0, 0]


def test_worked_example_3() -> None:
    s = settle([L, R, F], Rules())
    assert s.totals == [60, -24, -36]
    assert sum(s.totals) == 0
    assert s.pair(1, 2).total == 6 and s.pair(2, 1).total == -6


@pytest.mark.parametrize("method,expected", [("1-6", 30), ("1-4", 28), ("1-3", 27), ("2-4", 28)])
def test_scoring_methods_scoop(method: str, expected: int) -> None:
    assert settle([L, R], Rules(scoring=method)).totals[0] == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("method,foul_total", [("1-6", 6), ("2-4", 4), ("1-4", 4), ("1-3", 3)])
def test_foul_loses_rows_and_scoop(method: str, foul_total: int) -> None:
    # R has no royalties: the foul costs exactly the rows and the scoop
    s = settle([R, F], Rules(scoring=method))  # type: ignore[arg-type]
    assert s.totals == [foul_total, -foul_total]


def test_two_to_one_and_ties() -> None:
    a = Board.parse("2c 3d 5h / 9s 9c 4h 6c 7d / Ts Tc Jh Jc 8d")
    b = Board.parse("2d 3c 5s / 8s 8c 4d 6d 7h / As Ac 2h 3h 4s")
    # top equal (tie), middle a, bottom a (two pair beats pair)
    s = settle([a, b], Rules())
    assert s.pair(0, 1).rows == (0, 1, 1)
    assert s.totals == [2, -2]  # no scoop on a tie
    assert settle([a, b], Rules(scoring="2-4")).totals == [3, -3]  # overall unit
    c = Board.parse("2h 3h 6c / Ks Kc 4s 6s 7s / Ah Ad As 3s 4c")
    s2 = settle([a, c], Rules(scoring="2-4"))
    assert s2.pair(0, 1).rows == (-1, -1, -1) and s2.totals == [-4, 4]


def test_ofc_surrender_scores_as_foul() -> None:
    s = settle([L, None], Rules(), surrendered=[1])
    assert s.totals == [30, -30]
    assert s.pair(0, 1).note == "surrender"
    assert settle([None, None], Rules(), surrendered=[0, 1]).totals == [0, 0]


def test_chinese_surrender_pays_three_and_nothing_more() -> None:
    rules = Rules(variant="chinese")
    s = settle([L, R, None], rules, surrendered=[2])
    assert s.pair(0, 2).total == 3 and s.pair(1, 2).total == 3
    assert s.totals[2] == -6
    # against a natural: surrender still pays 3, the natural is not paid by it
    s = settle([None, None], rules, surrendered=[1], naturals={0: "dragon"})
    assert s.totals == [3, -3]
    assert settle([None, None], rules, surrendered=[0, 1]).totals == [0, 0]
    assert settle([L, None], rules.with_options(chinese_surrender=5), surrendered=[1]).totals == [5, -5]


def test_chinese_bonuses_paid_by_winning_row() -> None:
    rules = Rules(variant="chinese")
    a = Board.parse("7h 7d 7c / 2s 2c 2h 3c 3d / 9s 9c 9h 9d Kc")  # trips top 3, FH mid 2, quads 4
    b = Board.parse("Ah Kd 2d / 5s 6c 8h Jc Qd / As Ac Qs 4c 4d")
    s = settle([a, b], rules)
    assert s.pair(0, 1).row_points == (3, 2, 4)
    assert s.totals == [3 + 2 + 4 + 1, -10]
    assert settle([a, b], rules.with_options(chinese_bonuses=False)).totals == [4, -4]


def test_chinese_rows_won_from_a_fouled_board_pay_their_bonuses() -> None:
    """A fouled board loses every row, and a row won with a bonus hand pays its bonus instead
    of its 1 unit (README: where RULES.md was silent), so a foul can cost more than 4."""
    rules = Rules(variant="chinese")
    clean = Board.parse("2c 3d 4h / 6c 6d 6h 9s 9c / Ks Kh Kd Kc 5s")  # FH middle 2, quads 4
    fouled = Board.parse("Ah Ad Kc / As Ac Qd 7s 3c / Js Jc 9d 5h 2c")
    assert fouled.is_foul() and not clean.is_foul()
    assert settle([clean, fouled], rules).totals == [1 + 2 + 4 + 1, -8]
    assert settle([clean, fouled], rules.with_options(chinese_bonuses=False)).totals == [4, -4]


@pytest.mark.parametrize(("winner", "row", "bonus"), [
    ("2h 3d 4c / 8s 8c 8h 8d Jc / 9s 9c 9h 9d Kc", 1, 8),  # middle quads
    ("2h 3d 4c / 5s 6s 7s 8s 9s / Th Jh Qh Kh Ah", 1, 10),  # middle straight flush
    ("2h 3d 4c / 5h 5d 6c 6d 7h / 8c 9c Tc Jc Qc", 2, 5),  # bottom straight flush
])
def test_every_chinese_bonus(winner: str, row: int, bonus: int) -> None:
    rules = Rules(variant="chinese")
    loser = Board.parse("Ac Kd 5c / 2s 2d 4h 6h 7d / As Ad Ks Qd 4d")
    assert not loser.is_foul() and not Board.parse(winner).is_foul()
    s = settle([Board.parse(winner), loser], rules)
    assert s.pair(0, 1).row_points[row] == bonus
    assert settle([Board.parse(winner), loser], rules.with_options(
        chinese_bonuses=False)).pair(0, 1).row_points[row] == 1


def test_chinese_naturals() -> None:
    rules = Rules(variant="chinese")
    s = settle([None, R, None], rules, naturals={0: "dragon", 2: "six pairs"})
    assert s.pair(0, 1).total == 13
    assert s.pair(0, 2).total == 13  # bigger natural wins its value
    assert s.pair(2, 1).total == 3
    assert s.totals == [26, -16, -10]
    same = settle([None, None], rules, naturals={0: "six pairs", 1: "three flushes"})
    assert same.totals == [0, 0]
    with pytest.raises(ValueError, match="not a natural"):
        settle([None, R], rules, naturals={0: "royal"})


def test_shooting_the_moon() -> None:
    moon = Board.parse("2c 3d 4h / 2s 5c 6h 7c 9d / 3s 5s 8h Tc Jd")
    rules = Rules(shoot_the_moon=True)
    assert not moon.is_foul()
    plain = settle([moon, R], Rules()).totals[0]
    assert settle([moon, R], rules).totals[0] == plain + 20
    assert settle([moon, R], Rules()).moon == [False, False]


def test_units_with_stack_cap() -> None:
    s = settle([L, R, F], Rules())
    assert units_moved(s, 2) == [120, -48, -72]
    # R brought only 10: pays what it has plus its winnings from F to L
    assert units_moved(s, 2, [1000, 10, 1000], button=0) == [82, -10, -72]
    # F capped at 30, owes L 60 and R 12: 30 split 25/5
    capped = units_moved(s, 2, [1000, 1000, 30], button=0)
    assert capped == [60 + 25, -60 + 5, -30]
    assert sum(capped) == 0


def test_capped_loser_whose_debtor_is_capped_splits_by_the_original_claims() -> None:
    # seat 3 owes seats 0 and 1 100 each (brought 50) and is owed 51 by seat 2 (brought 0):
    # seat 2 pays nothing, so seat 3's 50 is split 25/25 whatever the button
    m = [[0, 0, 0, 100], [0, 0, 0, 100], [0, 0, 0, -51], [-100, -100, 51, 0]]
    for button in range(4):
        assert units_moved(m, 1, [1000, 1000, 0, 50], button=button) == [25, 25, 0, -50]


def test_units_remainder_to_earliest_creditor_left_of_button() -> None:
    m = [[0, 0, 5], [0, 0, 5], [-5, -5, 0]]  # seat 2 owes 5 to each of 0 and 1
    assert units_moved(m, 1, [100, 100, 3], button=0) == [1, 2, -3]
    assert units_moved(m, 1, [100, 100, 3], button=1) == [2, 1, -3]


@settings(max_examples=150, deadline=None)
@given(boards(n=4), st.sampled_from(["ofc", "pineapple", "chinese"]),
       st.sampled_from(["1-6", "2-4", "1-4", "1-3"]), st.booleans(), st.data())
def test_settlement_sums_to_zero_and_swaps_negate(bs, variant, scoring, moon, data) -> None:
    n = data.draw(st.integers(2, 4))
    rules = Rules(variant=variant, scoring=scoring, shoot_the_moon=moon)
    s = settle(bs[:n], rules)
    assert sum(s.totals) == 0
    i, j = 0, n - 1
    swapped = list(bs[:n])
    swapped[i], swapped[j] = swapped[j], swapped[i]
    s2 = settle(swapped, rules)
    assert s2.pair(i, j).total == -s.pair(i, j).total
    assert s2.totals[i] == s.totals[j] and s2.totals[j] == s.totals[i]
    stacks = data.draw(st.lists(st.integers(0, 200), min_size=n, max_size=n))
    units = units_moved(s, data.draw(st.integers(1, 5)), stacks, data.draw(st.integers(0, n - 1)))
    assert sum(units) == 0
    assert all(-u <= stack for u, stack in zip(units, stacks, strict=True))
