"""Mutation review of the engine's rules code: tests for the behaviour no test pinned down.

Targets: engine/scoring.py (settle, _pair, shoots_moon, units_moved, PairResult / Settlement
helpers), engine/board.py (royalties and their tables, values_foul, foul_rows / foul_reason,
fantasyland entry and stay, row_index and its synonyms, chinese row bonuses), engine/evaluator.py
(_classify and the value table, row_at_most and its masks, HandValue, describe_value),
engine/naturals.py (every natural, compare_naturals, best_natural), engine/rules.py (Rules
validation, derived values, fantasyland_cards_now, option changes and their constant tables) and
the fantasyland rules of engine/hand.py (next_button, the fantasyland sizes Hand accepts, and
Hand._finish's entry / stay decision).

Tool (kept in /tmp, not in the repository): AST mutations spliced into the source one at a time --
comparison operators swapped (< <= > >=, == !=, in / not in, is / is not), + and - swapped
(also in +=/-=), integer constants c -> c+1 and c-1 (module-level rule tables too), and/or
swapped, `not` removed, True/False swapped, `return X` -> `return None` (and `return not X` in a
function returning bool), each statement of an if-body deleted, min/max swapped.  The tests of
each mutant were chosen by per-test line coverage of tests/engine (test_ai.py and the few tests
over 5 s, the solver's brute-force checks, left out), run with `pytest -x` and a timeout, and the
file restored after each mutant.

Numbers: 1298 mutants generated; 473 run (36%: the rule-deciding functions and tables first, in
random order, then the budget of about 90 minutes ran out -- units_moved, describe_value,
Rules.changed / with_text_options, parse_stay_value, Board.__post_init__ / place, _fits,
PairResult.flipped and most of _classify were not reached); 411 killed by the existing suite;
62 survived, of which 19 are equivalent (a HandValue with a single defining rank read at [-1]
instead of [0]; impossible ranks 1 or 15 added to _TOP_PAIR / the naturals' straight lists; the
low bit of _TOP_RANK_MASK, always zero in a pair's or trips' middle; compare_naturals' defaults for
a missing or unknown natural, which settle never passes; a `continue` whose skipped check cannot
match; >= inside `wins_a != wins_b`; the sort order _fits ignores; `earned <= 1` and `> 1` where a
size is 0 or 13-17; a natural's seat marked fouled in ofc, where naturals cannot be declared) and
43 were gaps, each killed now by a test below but one function's (see below; checked: every test
passes on the code as it is and fails on its mutants).

Gaps covered: settle's list of pairs; foul_rows / foul_reason for each foul shape and a clean
board (only one shape was pinned); the short row names of README; foul_loss under 2-4 (the overall unit);
fantasyland_cards_now's 17-card cap, its 0 for nothing earned and with fantasyland off; the
inclusive bounds of timer / set_timer / away_timer (0 allowed), stay_value (0-200), naturals'
values (a whole number, 0 or more), moon points and surrender (not negative);
naturals.holds_natural; the note of a surrender against a
fouled board; settle's error for a seat without a finished board.  (The mutants of one more
function were gaps too, evaluator.top_ranks_equal_or_below: nothing called it, so it was removed
instead of tested.)

Defects found: none -- every survivor was either equivalent or a missing test; no survivor showed
the code disagreeing with RULES.md, a docstring or README.
"""

from __future__ import annotations

import pytest

from engine import Board, Rules, RulesError, parse_cards, row_index, settle
from engine.naturals import holds_natural

B = Board.parse

# RULES.md worked example 1 (L and R) and a third clean board, for a three-seat table
L = "Qh Qd 2s / Kh Kd Ks 4c 3d / 9c Tc Jc Qc Kc"
R = "Ks 8c 3s / Jh Jd 9c 5d 2c / Qs Qc As 7c 4d"
W = "2h 3h 4d / 5h 6d 8s 9s Js / Ah Ad 6h 7h 8h"

# foul shapes: the top alone above the middle, the middle alone above the bottom, both
TOP_ONLY = "Ah Ad Kc / As Ac Qd 7s 3c / 2h 2d 2s 5h 9c"
MIDDLE_ONLY = "2s 3d 4c / Ah Ad Kc Qs Jd / Kh Kd 7c 6c 5s"
BOTH = "Ah Ad Kc / Ks Kd 7s 5c 3c / Qs Qc 9d 5h 2c"


# -- scoring.settle ---------------------------------------------------------------------------


def test_every_pair_of_players_is_settled_once() -> None:
    """RULES.md: "Every pair of players at the table is settled separately; a player's result
    is the sum over opponents".  Three seats make exactly the pairs (0, 1), (0, 2), (1, 2),
    in that order, and nobody is paired with themself."""
    s = settle([B(L), B(R), B(W)])
    assert [(p.a, p.b) for p in s.pairs] == [(0, 1), (0, 2), (1, 2)]
    assert s.matrix()[0][0] == s.matrix()[1][1] == s.matrix()[2][2] == 0
    assert sum(s.totals) == 0


# -- board.foul_rows / foul_reason --------------------------------------------------------------


def test_foul_rows_names_the_rows_out_of_order() -> None:
    """Board.foul_rows' contract: "(1, 2) when the middle beats the bottom, (0, 1) when the top
    is not below the middle, (0, 1, 2) when both; None when it does not foul" (RULES.md: "a
    finished board is fouled unless bottom >= middle >= top")."""
    assert B(L).foul_rows() is None
    assert B(TOP_ONLY).foul_rows() == (0, 1)
    assert B(MIDDLE_ONLY).foul_rows() == (1, 2)
    assert B(BOTH).foul_rows() == (0, 1, 2)


def test_foul_reason_of_a_clean_board_is_none_and_names_the_rows_otherwise() -> None:
    """Board.foul_reason: "Why a finished board fouls, in words ...; None when it does not"."""
    assert B(L).foul_reason() is None
    assert B(TOP_ONLY).foul_reason() == (
        "the top (pair of aces) beats the middle (pair of aces)")
    assert B(MIDDLE_ONLY).foul_reason() == (
        "the middle (pair of aces) beats the bottom (pair of kings)")
    assert B(BOTH).foul_reason() == (
        "the top (pair of aces) beats the middle (pair of kings), which beats the bottom "
        "(pair of queens)")


def test_strict_top_foul_rows_for_a_top_equal_to_the_middle() -> None:
    """RULES.md: "**(option)** strict top < middle" -- a top `A K Q` equal to the middle
    `A K Q 9 7` on its own ranks fouls only the top and middle rows."""
    board = B("Ah Kd Qc / As Kc Qd 9s 7c / 2h 2d 2s 5h 9c")
    assert board.foul_rows() is None
    assert board.foul_rows(Rules(strict_top=True)) == (0, 1)


# -- board.row_index ------------------------------------------------------------------------


@pytest.mark.parametrize("name,idx", [("t", 0), ("f", 0), ("m", 1), ("bot", 2), ("b", 2)])
def test_short_row_names(name: str, idx: int) -> None:
    """README (`/ofc place`): "Rows: `top`/`front` (`t`, `f`), `middle`/`mid` (`m`),
    `bottom`/`back` (`bot`, `b`)"."""
    assert row_index(name) == idx


# -- rules.Rules --------------------------------------------------------------------------------


@pytest.mark.parametrize("scoring,loss", [("1-6", 6), ("2-4", 4), ("1-4", 4), ("1-3", 3)])
def test_foul_loss_per_scoring_method(scoring: str, loss: int) -> None:
    """RULES.md: "the fouled board loses every row and the scoop (6 points in 1-6, 4 in 2-4)";
    1-4 is +1 for a scoop, 1-3 no bonus."""
    assert Rules(scoring=scoring).foul_loss == loss  # type: ignore[arg-type]
    fouled = settle([B(L), B("Ah Ad Kc / As Ac Qd 7s 3c / Js Jc 9d 5h 2c")],
                    Rules(scoring=scoring))  # type: ignore[arg-type]
    assert fouled.totals[0] == loss + 24  # L's royalties 7 + 2 + 15 on top


def test_fantasyland_size_now_is_capped_at_seventeen() -> None:
    """RULES.md: "`pineapple` is progressive: QQ -> 14 cards, KK -> 15, AA -> 16, trips -> 17"
    (Rules.fantasyland_cards_now: the size of a fantasyland hand earned as ``earned`` cards,
    dealt under these rules; bot/play.py checks a typed --fantasyland size against it)."""
    r = Rules(variant="pineapple")
    assert [r.fantasyland_cards_now(k) for k in (0, 13, 14, 15, 16, 17, 18, 20)] == [
        0, 14, 14, 15, 16, 17, 17, 17]
    plain = Rules(variant="pineapple", progressive=False)
    assert [plain.fantasyland_cards_now(k) for k in (0, 14, 17, 18)] == [0, 14, 14, 14]
    assert [Rules().fantasyland_cards_now(k) for k in (0, 13, 17)] == [0, 13, 13]
    # "Fantasyland (ofc and pineapple; **(option)** on by default)": none when it is off
    assert Rules(variant="pineapple", fantasyland=False).fantasyland_cards_now(15) == 0
    assert Rules(variant="chinese").fantasyland_cards_now(13) == 0


@pytest.mark.parametrize("value", [0, 5, 10, 3600])
def test_away_timer_accepts_zero_and_five_to_3600(value: int) -> None:
    """README: "`away_timer` | 10 s | ...; 0: the whole clock" and Rules' error "away_timer must
    be 0 (off) or between 5 and 3600 seconds"."""
    assert Rules(away_timer=value).away_timer == value


@pytest.mark.parametrize("value", [-1, 1, 3, 4, 3601])
def test_away_timer_refuses_other_values(value: int) -> None:
    """Rules.__post_init__: "away_timer must be 0 (off) or between 5 and 3600 seconds"."""
    with pytest.raises(RulesError, match="away_timer must be 0"):
        Rules(away_timer=value)


@pytest.mark.parametrize("name", ["timer", "set_timer"])
def test_clock_bounds_are_inclusive(name: str) -> None:
    """Rules.__post_init__: "{name} must be between 5 and 3600 seconds" (RULES.md: "Every
    decision has a clock **(option, default 60 s; 120 s for a fantasyland or chinese set)**")."""
    assert getattr(Rules(**{name: 5}), name) == 5
    assert getattr(Rules(**{name: 3600}), name) == 3600
    for bad in (4, 3601):
        with pytest.raises(RulesError, match="between 5 and 3600"):
            Rules(**{name: bad})


@pytest.mark.parametrize("bad", [-1, "3", 3.0])
def test_a_natural_needs_a_whole_value_of_zero_or_more(bad: object) -> None:
    """RULES.md: naturals pay "six pairs 3, three straights 3, three flushes 3, dragon 13 units
    ... **(option: table of naturals)**"; Rules: "The natural '...' needs a whole value of 0 or
    more"."""
    with pytest.raises(RulesError, match="needs a whole value of 0 or more"):
        Rules(variant="chinese", naturals=(("dragon", bad),))  # type: ignore[arg-type]
    assert Rules(variant="chinese", naturals=(("dragon", 0),)).natural_values == {"dragon": 0}


@pytest.mark.parametrize("field", ["shoot_the_moon_points", "chinese_surrender"])
def test_moon_points_and_surrender_cannot_be_negative(field: str) -> None:
    """RULES.md: moon "wins 20 more units", chinese surrender "pays each opponent ... 3 units
    **(option)**"; Rules: "Bonus and surrender values cannot be negative" (0 is allowed)."""
    with pytest.raises(RulesError, match="cannot be negative"):
        Rules(variant="chinese", **{field: -1})
    assert getattr(Rules(variant="chinese", **{field: 0}), field) == 0


def test_stay_value_is_a_whole_number_from_0_to_200() -> None:
    """README: "`stay_value` | default | ...: a whole number 0-200, or `default`"."""
    assert Rules(stay_value=0).stay_value == 0
    assert Rules(stay_value=200).stay_value == 200
    for bad in (-1, 201):
        with pytest.raises(RulesError, match="stay_value must be between 0 and 200"):
            Rules(stay_value=bad)


# -- evaluator / naturals helpers ------------------------------------------------------------


def test_holds_natural() -> None:
    """naturals.holds_natural: whether the 13 cards hold the named natural (RULES.md:
    "Declaring a natural you do not hold is refused")."""
    dragon = parse_cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    assert holds_natural(dragon, "dragon") is True
    assert holds_natural(dragon, "six pairs") is False


def test_a_surrender_against_a_fouled_board_is_settled_as_two_fouls() -> None:
    """RULES.md: "Surrender in ofc/pineapple scores as a foul" and "Both fouled: nothing changes
    hands"; the pair's note (shown at the showdown) says a surrender was one of the two."""
    fouled = "Ah Ad Kc / As Ac Qd 7s 3c / Js Jc 9d 5h 2c"
    s = settle([B(L), B(fouled)], Rules(), surrendered=[0])
    p = s.pair(0, 1)
    assert (p.total, p.rows, p.fouled, p.surrendered) == (0, None, (True, True), (True, False))
    assert p.note == "both fouled or surrendered"
    assert settle([B(fouled), B(fouled.replace("2c", "3d"))]).pair(0, 1).note == "both fouled"



def test_settle_refuses_a_seat_without_a_finished_board() -> None:
    """scoring.settle: "a seat that surrendered or declared a natural may have ``None``" -- any
    other seat needs a finished board: "Seat N has no finished board" (a ValueError), for a
    missing board and for one with empty slots alike."""
    partial = Board(B(R).top, B(R).middle, B(R).bottom[:4])
    for board in (None, partial):
        with pytest.raises(ValueError, match="Seat 1 has no finished board"):
            settle([B(L), board])
    assert settle([B(L), None], surrendered=[1]).totals == [6 + 24, -30]
