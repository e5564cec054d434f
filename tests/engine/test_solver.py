"""engine.solver: the fantasyland solver is exact (checked against every setting), the chinese
setter maximises its objective, and the natural rule behaves."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import combinations

import pytest

from engine import DECK, Board, Card, Hand, Rules, evaluate, parse_cards
from engine.board import bottom_royalty, middle_royalty, top_royalty
from engine.evaluator import FULL_HOUSE, QUADS, TRIPS, HandValue, row_at_most
from engine.naturals import best_natural
from engine.solver import (
    DEFAULT_STAY_VALUE,
    Solution,
    _fallback,
    _model,
    best_chinese_setting,
    check_fantasyland_cards,
    chinese_setting_value,
    describe_solution,
    moon_worth,
    natural_worth_declaring,
    solve_fantasyland,
    stay_bonus,
)

RULE_SETS = [
    Rules(variant="pineapple"),
    Rules(variant="ofc"),
    Rules(variant="pineapple", strict_top=True),
    Rules(variant="pineapple", progressive_stay=True),
    Rules(variant="ofc", strict_top=True),
    Rules(variant="pineapple", stay_middle_full_house=False),
    Rules(variant="pineapple", fantasyland=False),
]

# -- the oracle: RULES.md written out plainly -----------------------------------------------------


def fouled(vt: HandValue, vm: HandValue, vb: HandValue, rules: Rules) -> bool:
    """A finished board is fouled unless bottom >= middle >= top (strictly above the top with
    the strict option, comparing the top's own ranks)."""
    if vm > vb:
        return True
    if rules.strict_top:
        return row_at_most(vt, vm) >= 0
    return vt > vm


def stay_cards(vt: HandValue, vm: HandValue, vb: HandValue, rules: Rules) -> int:
    """Trips on top, a full house or better in the middle (option), quads or better on the
    bottom; 13 cards in ofc and 14 in pineapple, or Pokermagnet's progressive table."""
    if not rules.fantasyland or rules.variant == "chinese":
        return 0
    trips = vt.category == TRIPS
    middle = rules.stay_middle_full_house and vm.category >= FULL_HOUSE
    if not (trips or middle or vb.category >= QUADS):
        return 0
    if not rules.progressive_stay:
        return 13 if rules.variant == "ofc" else 14
    return 15 if trips or vm.is_royal or vb.is_royal else 14


def brute_force(
    cards: Sequence[Card], rules: Rules, stay_value: float | None = None
) -> tuple[Board, tuple[Card, ...], float]:
    """Every bottom, every middle of the rest, every top of what is left (the other cards are
    discarded): the best key wins.  Key: score, stay cards, bottom, middle, top value, then the
    lowest discards, the highest bottom and middle cards."""
    cards = sorted(cards, reverse=True)
    value = {c: evaluate(c) for k in (3, 5) for c in combinations(cards, k)}
    royalty_top = {c: top_royalty(v) for c, v in value.items() if len(c) == 3}
    royalty_middle = {c: middle_royalty(v) for c, v in value.items() if len(c) == 5}
    royalty_bottom = {c: bottom_royalty(v) for c, v in value.items() if len(c) == 5}
    bonus = {k: stay_bonus(k, rules, stay_value) for k in (0, 13, 14, 15)}
    best: tuple | None = None  # type: ignore[type-arg]
    for bottom in combinations(cards, 5):
        vb = value[bottom]
        rest = [c for c in cards if c not in bottom]
        for middle in combinations(rest, 5):
            vm = value[middle]
            if vm > vb:
                continue
            left = [c for c in rest if c not in middle]
            for top in combinations(left, 3):
                vt = value[top]
                if fouled(vt, vm, vb, rules):
                    continue
                stay = stay_cards(vt, vm, vb, rules)
                royalties = royalty_top[top] + royalty_middle[middle] + royalty_bottom[bottom]
                score = royalties + bonus[stay]
                if best is not None and score < best[0][0]:
                    continue
                discards = tuple(c for c in left if c not in top)
                key = (score, stay, vb, vm, vt, [-c for c in discards], bottom, middle)
                if best is None or key > best[0]:
                    best = (key, Board(top, middle, bottom), discards)
    assert best is not None
    return best[1], best[2], best[0][0]


def deal(rng: random.Random, n: int, deck: str = "full") -> list[Card]:
    """Random cards; the narrow decks make quads, full houses, flushes and straight flushes and
    piles of equal values (ties) common."""
    cards: Sequence[Card] = DECK
    if deck == "high":  # 6 ranks: trips, quads, full houses, broadway straights
        cards = [c for c in DECK if c.rank >= 9]
    elif deck == "suited":  # 2 suits: flushes and straight flushes
        cards = [c for c in DECK if c.suit in "hs"]
    elif deck == "mixed":
        cards = [c for c in DECK if c.suit in "dhs" and (c.rank >= 9 or c.rank <= 5)]
    return rng.sample(list(cards), n)


def check_exact(cards: list[Card], rules: Rules, stay_value: float | None) -> Solution:
    sol = solve_fantasyland(cards, rules, stay_value)
    board, discards, score = brute_force(cards, rules, stay_value)
    assert (sol.board, sol.discards, sol.score) == (board, discards, score), (
        f"{' '.join(map(str, cards))} {rules} stay_value={stay_value}: "
        f"solver {sol.board} ({sol.score}), brute force {board} ({score})"
    )
    return sol


def check_consistent(cards: list[Card], rules: Rules, sol: Solution) -> None:
    assert sol.board.is_complete
    assert sorted(sol.board.cards + sol.discards) == sorted(cards)
    assert len(sol.discards) == len(cards) - 13
    assert not sol.board.is_foul(rules)
    assert sol.royalties == sol.board.royalties(rules)
    assert sol.stay_cards == sol.board.fantasyland_stay_cards(rules)
    assert sol.stays == (sol.stay_cards > 0)
    for row in sol.board.rows:
        assert list(row) == sorted(row, reverse=True)
    assert list(sol.discards) == sorted(sol.discards, reverse=True)


# -- the oracle agrees with Board -----------------------------------------------------------------


def test_oracle_matches_board() -> None:
    rng = random.Random(1)
    for i in range(3000):
        cards = deal(rng, 13, ("full", "high", "suited", "mixed")[i % 4])
        board = Board(tuple(cards[:3]), tuple(cards[3:8]), tuple(cards[8:]))
        vt, vm, vb = board.values()
        for rules in RULE_SETS:
            assert fouled(vt, vm, vb, rules) == board.is_foul(rules)
            if not board.is_foul(rules):
                assert stay_cards(vt, vm, vb, rules) == board.fantasyland_stay_cards(rules)
                assert top_royalty(vt) + middle_royalty(vm) + bottom_royalty(vb) == (
                    board.royalties(rules)
                )


# -- exactness ------------------------------------------------------------------------------------

EXACT_CASES = [
    # (cards, deals, stay values taken in turn); rules and decks are taken in turn too
    (13, 84, (None, 0.0, 25.0, 3.5)),
    (14, 64, (None, 0.0, 30.0)),
    (15, 21, (None, 6.0, 40.0)),  # every rule set three times (progressive stay among them)
]
"""About 3 minutes of brute force in all (a 15-card deal takes ~6 s): enough deals that every
rule set, deck shape and stay value meets at 14 and 15 cards."""


@pytest.mark.parametrize(("n", "count", "stay_values"), EXACT_CASES)
def test_exact_against_brute_force(n: int, count: int, stay_values: tuple[float | None]) -> None:
    rng = random.Random(1000 + n)
    decks = ("full", "high", "suited", "mixed")
    for i in range(count):
        cards = deal(rng, n, decks[i % 4])
        rules = RULE_SETS[i % len(RULE_SETS)]
        stay_value = stay_values[i % len(stay_values)]
        sol = check_exact(cards, rules, stay_value)
        check_consistent(cards, rules, sol)


def test_exact_on_hard_hand() -> None:
    """Many equal Broadway straights and a low optimum: the search switches to bitsets."""
    cards = parse_cards("Ah Ks Td Qd Ts Qh Jd 4d 2c 7c Kd 9h 6h Qc")
    for rules in (Rules(variant="pineapple"), Rules(variant="pineapple", strict_top=True)):
        check_exact(cards, rules, None)


@pytest.mark.parametrize("n", [16, 17])
def test_large_hands_consistent(n: int) -> None:
    """No brute force at 16-17 cards; instead: the setting is legal and consistent, it is exact
    on its own 13 cards, and it is at least as good as the best setting of any 15 of the cards
    (each of which the brute force checks above at size 15)."""
    rng = random.Random(n)
    rules = Rules(variant="pineapple")
    for i in range(6):
        cards = deal(rng, n, ("full", "high", "suited")[i % 3])
        sol = solve_fantasyland(cards, rules)
        check_consistent(cards, rules, sol)
        kept = list(sol.board.cards)
        assert check_exact(kept, rules, None).score == sol.score
        for _ in range(3):
            subset = rng.sample(cards, 15)
            assert solve_fantasyland(subset, rules).score <= sol.score


# -- behaviour ------------------------------------------------------------------------------------


def test_stay_value_changes_the_choice() -> None:
    # 21 royalties without staying (KK top, flush, full house), or quads on the bottom: 18 and stay
    cards = parse_cards("5h Ks Qc 7h 4s 7c Jh Kh 5c 5d Qs 3h 4c 5s")
    rules = Rules(variant="pineapple")
    greedy = solve_fantasyland(cards, rules, stay_value=0.0)
    assert (greedy.royalties, greedy.stays, greedy.score) == (21, False, 21.0)
    assert str(greedy.board) == "Ks Qs Qc / Kh Jh 7h 5h 3h / 5s 5d 5c 4s 4c"
    assert greedy.discards == tuple(parse_cards("7c"))
    staying = solve_fantasyland(cards, rules)  # the default stay value (14.5) is worth 3 points
    assert (staying.royalties, staying.stays, staying.stay_cards) == (18, True, 14)
    assert staying.score == 18 + DEFAULT_STAY_VALUE[14]
    assert staying.board.bottom == tuple(parse_cards("Qs 5s 5h 5d 5c"))
    assert solve_fantasyland(cards, rules, stay_value=3.0).stays  # a tie: staying wins it
    assert not solve_fantasyland(cards, rules, stay_value=2.5).stays
    no_stays = Rules(variant="pineapple", fantasyland=False)
    assert solve_fantasyland(cards, no_stays, stay_value=100.0).board == greedy.board


def test_worked_example_board_is_found() -> None:
    # RULES.md example 1's board L (24 royalties, QQ on top) is reachable; the solver can do better
    cards = parse_cards("Qh Qd 2s Kh Kd Ks 4c 3d 9c Tc Jc Qc Kc")
    sol = solve_fantasyland(cards, Rules(variant="ofc"), stay_value=0.0)
    assert sol.royalties >= 24
    check_exact(cards, Rules(variant="ofc"), 0.0)


def test_default_stay_values() -> None:
    rules = Rules(variant="pineapple")
    assert stay_bonus(0, rules) == 0.0
    assert stay_bonus(14, rules) == DEFAULT_STAY_VALUE[14]
    assert stay_bonus(13, Rules()) == DEFAULT_STAY_VALUE[13]
    assert stay_bonus(15, rules, 7.5) == 7.5
    assert stay_bonus(15, rules, {14: 3.0}) == 3.0
    assert stay_bonus(13, rules, {14: 3.0, 15: 9.0}) == 3.0
    assert DEFAULT_STAY_VALUE[13] < DEFAULT_STAY_VALUE[14] < DEFAULT_STAY_VALUE[15]
    rng = random.Random(3)
    for _ in range(20):
        cards = deal(rng, 14)
        assert solve_fantasyland(cards, rules) == solve_fantasyland(
            cards, rules, dict(DEFAULT_STAY_VALUE)
        )


def test_deterministic_whatever_the_order() -> None:
    rng = random.Random(4)
    rules = Rules(variant="pineapple")
    for i in range(10):
        cards = deal(rng, 13 + i % 5, ("full", "high", "suited")[i % 3])
        first = solve_fantasyland(cards, rules)
        for _ in range(3):
            shuffled = cards[:]
            rng.shuffle(shuffled)
            assert solve_fantasyland(shuffled, rules) == first


@pytest.mark.parametrize(
    ("cards", "stay_value"),
    [
        (DECK[:12], None),
        (DECK[:18], None),
        (list(DECK[:12]) + [DECK[0]], None),
        (DECK[:13], -1.0),
        (DECK[:13], float("nan")),
    ],
)
def test_bad_input(cards: Sequence[Card], stay_value: float | None) -> None:
    with pytest.raises(ValueError):
        solve_fantasyland(cards, Rules(), stay_value)


def test_fallback_returns_a_board() -> None:
    cards = sorted(DECK[:15])
    bonus: Mapping[int, float] = {0: 0.0, 13: 1.0, 14: 1.0, 15: 1.0}
    sol = _fallback(cards, Rules(variant="pineapple"), bonus)
    assert sorted(sol.board.cards + sol.discards) == cards
    assert sol.board.is_complete and len(sol.discards) == 2
    assert sol.score == sol.royalties + bonus[sol.stay_cards]


# -- chinese --------------------------------------------------------------------------------------


def settings_of_13(cards: Sequence[Card], rules: Rules) -> Iterator[
        tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...], HandValue, HandValue,
              HandValue]]:
    """Every setting of 13 cards that does not foul: (top, middle, bottom) and their values,
    the highest cards first."""
    cards = sorted(cards, reverse=True)
    for bottom in combinations(cards, 5):
        vb = evaluate(bottom)
        rest = [c for c in cards if c not in bottom]
        for middle in combinations(rest, 5):
            vm = evaluate(middle)
            if vm > vb:
                continue
            top = tuple(c for c in rest if c not in middle)
            vt = evaluate(top)
            if not fouled(vt, vm, vb, rules):
                yield top, middle, bottom, vt, vm, vb


def chinese_brute_force(cards: Sequence[Card], rules: Rules) -> tuple[Board, float]:
    """Every legal setting scored by the model; ties: bottom, middle, top values, then the
    highest bottom and middle cards."""
    value: Callable[[int, int, int], float] = _model(rules).value
    best: tuple | None = None  # type: ignore[type-arg]
    for top, middle, bottom, vt, vm, vb in settings_of_13(cards, rules):
        key = (value(vt, vm, vb), vb, vm, vt, bottom, middle)
        if best is None or key > best[0]:
            best = (key, Board(top, middle, bottom))
    assert best is not None
    return best[1], best[0][0]


CHINESE_RULES = [
    Rules(variant="chinese"),
    Rules(variant="chinese", scoring="1-6"),
    Rules(variant="chinese", chinese_bonuses=False, strict_top=True),
    Rules(variant="chinese", scoring="1-3"),
]


def test_chinese_setting_is_the_best() -> None:
    rng = random.Random(13)
    for i in range(8):
        cards = deal(rng, 13, ("full", "high", "suited", "mixed")[i % 4])
        rules = CHINESE_RULES[i % len(CHINESE_RULES)]
        board = best_chinese_setting(cards, rules)
        expected, score = chinese_brute_force(cards, rules)
        assert board == expected, f"{' '.join(map(str, cards))}: {board} vs {expected}"
        assert not board.is_foul(rules)
        assert chinese_setting_value(board, rules) == score


def test_chinese_objective_is_sane() -> None:
    rules = Rules(variant="chinese")
    strong = Board.parse("As Ad Ah / Kc Kd Ks Qc Qd / 7h 8h 9h Th Jh")
    weak = Board.parse("2c 3d 4h / 5c 6d 8h 9s Js / Tc Qd Kh As 7d")
    fouled_board = Board.parse("As Ad Kc / Ac Ah Qd 7s 3c / Js Jc 9d 5h 2c")
    assert chinese_setting_value(strong, rules) > 5 > 0 > chinese_setting_value(weak, rules)
    # a hopeless board loses every row just as a fouled one does
    assert chinese_setting_value(fouled_board, rules) <= chinese_setting_value(weak, rules)
    # settings average about zero against the table they were built from
    rng = random.Random(9)
    values = [chinese_setting_value(best_chinese_setting(deal(rng, 13), rules), rules)
              for _ in range(150)]
    assert -0.5 < sum(values) / len(values) < 0.6


def test_naturals() -> None:
    rules = Rules(variant="chinese")
    dragon = parse_cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    assert natural_worth_declaring(dragon, rules) == ("dragon", 13)
    weak_pairs = parse_cards("2c 2d 3h 3s 4c 4d 6h 6s 8c 8d 9h 9s Kc")
    assert best_natural(weak_pairs, rules) == ("six pairs", 3)
    assert natural_worth_declaring(weak_pairs, rules) == ("six pairs", 3)
    # six pairs holding two sets of quads: quads on the bottom and a full house in the middle
    # earn bonuses worth more than 3 against typical hands
    quads = parse_cards("Ac Ad Ah As Kc Kd Kh Ks 2c 2d 3h 3s 4c")
    assert best_natural(quads, rules) == ("six pairs", 3)
    assert chinese_setting_value(best_chinese_setting(quads, rules), rules) > 3
    assert natural_worth_declaring(quads, rules) is None
    nothing = parse_cards("2c 2d 5h 7s 8c 9d Th Qs Kc Kd Ah As 3c")
    assert best_natural(nothing, rules) is None
    assert natural_worth_declaring(nothing, rules) is None
    free = Rules(variant="chinese", naturals=(("six pairs", 0), ("dragon", 13)))
    assert natural_worth_declaring(weak_pairs, free) is None


# -- a fantasyland hand typed by a player (/ofc suggest cards:, ofc-bot solve) ---------------------------
def test_check_fantasyland_cards_names_what_is_wrong() -> None:
    cards = parse_cards("Qh Qd Qs Kh Kd Ks 4c 3d 9c Tc Jc 2c 8c 7d 6s 5h 4h")
    check_fantasyland_cards(cards[:13], Rules(variant="ofc"))
    for n in (14, 15, 16, 17):
        check_fantasyland_cards(cards[:n], Rules(variant="pineapple"))
    bad = [
        (cards[:14], Rules(variant="ofc"), "An ofc fantasyland hand is 13 cards, not 14"),
        (cards[:13], Rules(variant="pineapple"),
         "A pineapple fantasyland hand is 14 to 17 cards, not 13"),
        (cards[:15], Rules(variant="pineapple", progressive=False),
         "A pineapple fantasyland hand is 14 cards, not 15"),
        (cards[:13] + cards[:1], Rules(variant="pineapple"),
         "Qh is there twice: a hand holds each card once"),
        (cards[:14], Rules(variant="pineapple", fantasyland=False),
         "These rules have no fantasyland (fantasyland is off)"),
    ]
    for hand, rules, message in bad:
        with pytest.raises(ValueError) as e:
            check_fantasyland_cards(hand, rules)
        assert str(e.value) == message


def test_describe_solution_says_rows_discards_royalties_stay_and_the_move() -> None:
    from engine.notation import parse_move

    rules = Rules(variant="pineapple")
    cards = parse_cards("Qh Qd Qs Kh Kd Ks 4c 3d 9c Tc Jc 2c 8c 7d 6s")
    sol = solve_fantasyland(cards, rules)
    lines = describe_solution(sol, rules)
    assert lines == (
        "top Qs Qh Qd (three queens) · middle Ks Kh Kd 7d 6s (three kings) · bottom Jc Tc 9c "
        "8c 4c (jack-high flush)",
        "discard 3d 2c",
        "Royalties 26 (top 20, middle 2, bottom 4); stays in fantasyland (14 cards next, "
        "counted +14.5): worth 40.5.",
        "As a move: Qs Qh Qd top, Ks Kh Kd 7d 6s middle, Jc Tc 9c 8c 4c bottom, 3d 2c discard",
    )
    # the move reads back as the same setting (it can be pasted into /ofc place)
    hand = Hand(rules, ["A", "B"], 1, {0: 15}, deck=cards)
    placed, dropped = parse_move(lines[-1].removeprefix("As a move: "), hand.requirement(0),
                                 hand.boards[0])
    hand.place(0, placed, dropped)
    assert hand.boards[0] == sol.board
    ofc = Rules(variant="ofc")
    plain = solve_fantasyland(parse_cards("2c 3d 4h 5s 7c 8d 9h Js Qc Kd Ah 6c Td"), ofc)
    assert not plain.stays and "does not stay in fantasyland." in describe_solution(plain, ofc)[1]


def moon_brute_force(cards: Sequence[Card], rules: Rules) -> float:
    """The best score of every setting of 13 cards, a setting that shoots the moon counted at
    ``moon_worth`` (the moon's points less the rows and scoop it loses; it has no royalties
    and cannot stay)."""
    best = -1.0
    for top, middle, bottom, _, _, vb in settings_of_13(cards, rules):
        board = Board(top, middle, bottom)
        score = board.royalties(rules) + stay_bonus(board.fantasyland_stay_cards(rules), rules)
        if vb.category == 0 and vb.ranks[0] <= 11:  # (high card, jack-high or less)
            score = max(score, moon_worth(rules))
        best = max(best, score)
    return best


@pytest.mark.slow
@pytest.mark.parametrize("points", [20, 5])
def test_with_the_moon_the_solver_is_still_exact(points: int) -> None:
    """With the moon option a setting that shoots the moon is worth the moon's points less
    the rows and scoop it loses (14 of the default 20 in 1-6 scoring; 5 points are never
    worth it): the solver's score is the brute force's on hands rich in low cards (13 cards,
    ofc; the moon is found whenever it beats the royalties), and its moon setting does shoot
    the moon."""
    rules = Rules(variant="ofc", shoot_the_moon=True, shoot_the_moon_points=points)
    low = [c for c in DECK if str(c)[0] in "23456789TJ"]
    rng = random.Random(f"moon/{points}")
    moons = 0
    for _ in range(12):
        cards = rng.sample(low, 10) + rng.sample([c for c in DECK if c not in low], 3) \
            if rng.random() < 0.5 else rng.sample(low, 13)
        sol = solve_fantasyland(cards, rules)
        assert sol.score == moon_brute_force(cards, rules), cards
        assert not sol.board.is_foul(rules)
        if sol.moon:
            moons += 1
            bottom = sol.board.values()[2]
            assert bottom.category == 0 and bottom.ranks[0] <= 11 and sol.royalties == 0
    assert bool(moons) == (points == 20)  # (the moon was the best somewhere, at 20)
    # (this hand's best royalties are 6: the moon's 20, counted 14, beat them; its 5 do not)
    cards = parse_cards("2c 3d 4h 6s 8c 9d Th Js 2d 3h 5c 7d 9s")
    assert solve_fantasyland(cards, rules).moon == (points == 20)
    assert not solve_fantasyland(cards, Rules(variant="ofc")).moon
