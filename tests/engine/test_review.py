"""``engine.review``: a finished hand's decisions of one seat against the AI's and the
solver's choices, judged from what that seat could see then."""

from __future__ import annotations

import dataclasses
import pickle
import random
from collections.abc import Callable
from typing import Any

import pytest

from engine import Hand, Rules
from engine.autoplay import Move, street_moves
from engine.cards import Card, parse_card
from engine.review import (
    NOISE,
    Decision,
    Review,
    decisions,
    describe_review,
    judge,
    review,
)
from engine.solver import solve_fantasyland, stay_bonus

from .test_fastai import street_decisions

SEARCH, COMPARE = 96, 200  # (small: the defaults are for the bot)

Policy = Callable[[Hand, int, list[Move]], Move]


def random_policy(rng: random.Random) -> Policy:
    return lambda hand, seat, moves: rng.choice(moves)


def play(hand: Hand, policy: Policy, others: Policy | None = None) -> Hand:
    """Seat 0 by ``policy``, the others at random (sets: the timeout's set)."""
    others = others or random_policy(random.Random(99))
    for seat, req in street_decisions(hand):
        hand.place(seat, *(policy if seat == 0 else others)(hand, seat, street_moves(req)))
    return hand


def cards(text: str) -> list[Card]:
    return [parse_card(t) for t in text.split()]


def test_each_decision_is_what_the_seat_saw_then() -> None:
    hand = play(Hand(Rules(variant="pineapple"), ["A", "B"], 1, seed="rv-seen"),
                random_policy(random.Random(1)))
    found = decisions(hand.to_json(), 0)
    assert [d.number for d in found] == [1, 2, 3, 4, 5]
    assert [d.street for d in found] == [1, 2, 3, 4, 5]
    assert [len(d.cards) for d in found] == [5, 3, 3, 3, 3]
    assert all(d.kind == "street" and d.move is not None and not d.auto for d in found)
    # the same states again, from the log: each decision's copy holds what seat 0 could see
    again = Hand.replay({**hand.to_json(), "log": []})
    k = 0
    for action in hand.log:
        if action.seat == 0:
            d = found[k]
            assert d.before.cards_seen_by(0) == again.cards_seen_by(0)
            assert d.before.boards[0] == again.boards[0] and d.before.pending[0] == d.cards
            assert d.before.pending[1] == () and d.before.discards[1] == ()
            assert d.before.seed != hand.seed
            unseen_real = again._deck[again._next:]
            assert d.before._deck[d.before._next:] != unseen_real  # the deck is not given
            assert set(d.cards) == set(again.pending[0])
            k += 1
        again.apply(action)
    assert k == 5


def test_the_ais_own_move_is_judged_the_same_and_a_worse_one_costs() -> None:
    hand = play(Hand(Rules(variant="pineapple"), ["A", "B"], 1, seed="rv-same"),
                random_policy(random.Random(2)))
    first = decisions(hand.to_json(), 0)[0]
    verdict = judge(first, SEARCH, COMPARE)
    assert verdict.best_move is not None and verdict.played_value is not None
    again = judge(dataclasses.replace(first, move=verdict.best_move), SEARCH, COMPARE)
    assert again.same and again.loss == 0 and again.difference == 0
    assert again.played_value == again.best_value and again.error == 0
    assert judge(first, SEARCH, COMPARE) == verdict  # seeded: the same every time
    # a first street that puts the highest card on the bottom and the pair apart is worse
    worst = min(street_moves(first.before.requirement(0)),  # type: ignore[arg-type]
                key=lambda m: sum(1 for c, r in m[0] if r == 0))
    bad = judge(dataclasses.replace(first, move=worst), SEARCH, COMPARE)
    assert bad.best == verdict.best and bad.played_value is not None
    assert bad.error > 0 and bad.difference == pytest.approx(
        bad.best_value - bad.played_value)  # type: ignore[operator]


def last_street_foul(seed: str) -> tuple[Hand, Move] | None:
    """A pineapple hand played at random whose seat 0 fouls on the last street when a clean
    finish was there: the hand, and seat 0's last move."""
    rng = random.Random(seed)
    chosen: list[Move] = []

    def policy(hand: Hand, seat: int, moves: list[Move]) -> Move:
        if sum(hand.boards[0].free_slots) > 2:
            return rng.choice(moves)
        fouls = [m for m in moves if hand.boards[0].place(m[0]).is_foul(hand.rules)]
        clean = [m for m in moves if m not in fouls]
        pick = fouls[0] if fouls and clean else moves[0]
        chosen.append(pick if fouls and clean else ((), ()))
        return pick

    hand = play(Hand(Rules(variant="pineapple"), ["A", "B"], 1, seed=seed), policy)
    return (hand, chosen[0]) if chosen and chosen[0][0] else None


def test_a_last_street_that_fouls_when_it_need_not_is_scored_exactly() -> None:
    found = next(f for k in range(200) if (f := last_street_foul(f"rv-foul-{k}")))
    hand, move = found
    last = judge(decisions(hand.to_json(), 0)[-1], SEARCH, COMPARE)
    assert last.kind == "street" and last.error == 0 and not last.same
    assert last.note == "finishes the board: yours fouls, the AI's does not"
    assert last.loss == last.difference > 0  # (in points: tests/e2e/test_review_review.py)
    assert last.played_value is not None and last.played_value < 0
    text = describe_review(review(hand.to_json(), 0, SEARCH, COMPARE))
    assert "Round 5 · " in "\n".join(text.decisions)
    assert "finishes the board: yours fouls, the AI's does not" in [
        line.strip() for line in text.decisions]
    assert f"round 5: {last.loss:.1f}" in text.summary


def test_a_fantasyland_set_is_judged_by_the_solver() -> None:
    rules = Rules(variant="pineapple")
    hand = Hand(rules, ["A", "B"], 1, {0: 15}, seed="rv-fl")
    dealt = list(hand.pending[0])
    solution = solve_fantasyland(dealt, rules)
    # the first 13 cards in dealing order, 3 / 5 / 5: rarely the best, often fouled
    rows = [0] * 3 + [1] * 5 + [2] * 5
    hand.place(0, list(zip(dealt[:13], rows, strict=True)), dealt[13:])
    play(hand, random_policy(random.Random(3)))
    [d] = decisions(hand.to_json(), 0)
    assert d.kind == "set" and len(d.cards) == 15
    v = judge(d)
    assert v.best_value == solution.score and v.error == 0
    board = hand.boards[0]
    if board.is_foul(rules):
        assert v.played_value == -6.0 and v.note.startswith("yours: fouled")
    else:
        stay = board.fantasyland_stay_cards(rules)
        assert v.played_value == board.royalties(rules) + stay_bonus(stay, rules)
    # the solver's own setting is the same
    assert v.best_move is not None
    assert judge(dataclasses.replace(d, move=v.best_move)).same
    text = describe_review(Review(0, "pineapple", (v,)))
    assert text.decisions[0] == "Fantasyland (15 cards) · " + " ".join(
        str(c) for c in d.cards)
    assert "judged by the exact solver" in text.notes[-1]


def chinese_hand(first13: str) -> Hand:
    rest = [c for c in Hand(Rules(variant="chinese"), ["A", "B"], 0, seed="x")._deck
            if c not in cards(first13)]
    # the seat left of the button (seat 0 with the button on 1) is dealt first
    return Hand(Rules(variant="chinese"), ["A", "B"], 1, deck=cards(first13) + rest)


SIX_PAIRS = "2c 2d 5c 5d 7h 7s 9c 9d Jh Js Kc Kd As"


def test_chinese_a_natural_held_but_set_costs_what_it_was_worth() -> None:
    hand = chinese_hand(SIX_PAIRS)
    assert set(hand.pending[0]) == set(cards(SIX_PAIRS))
    rows = {"As": 0, "Kd": 0, "Kc": 0, "Js": 1, "Jh": 1, "9d": 1, "9c": 1, "7s": 1}
    move = [(c, rows.get(str(c), 2)) for c in cards(SIX_PAIRS)]
    hand.place(0, move)
    hand.autoplay(1)
    [d] = decisions(hand.to_json(), 0)
    v = judge(d)
    assert v.best == "declare six pairs" and v.best_value == 3.0 and not v.same
    assert v.played_value is not None and v.played_value < 3.0 and v.loss == 3.0 - v.played_value

    hand = chinese_hand(SIX_PAIRS)
    hand.declare(0, "six pairs")
    hand.autoplay(1)
    [d] = decisions(hand.to_json(), 0)
    v = judge(d)
    assert d.kind == "declare" and v.same and v.played == "declare six pairs" and v.loss == 0


def test_a_surrender_is_told_not_valued() -> None:
    hand = Hand(Rules(variant="pineapple"), ["A", "B"], 1, seed="rv-surrender")
    hand.place(0, *street_moves(hand.requirement(0))[0])  # type: ignore[arg-type]
    hand.surrender(0)
    play(hand, random_policy(random.Random(4)))
    found = decisions(hand.to_json(), 0)
    assert [d.kind for d in found] == ["street", "surrender"]
    v = judge(found[1])
    assert v.played == "surrender" and v.played_value is None and v.loss == 0
    assert v.note == "a surrender is scored as a foul"
    text = describe_review(review(hand.to_json(), 0, SEARCH, COMPARE))
    assert "  you  surrender (a surrender is scored as a foul)" in text.decisions


def test_a_move_the_clock_played_says_so() -> None:
    hand = Hand(Rules(variant="ofc"), ["A", "B"], 1, seed="rv-clock")
    hand.autoplay(0)
    play(hand, random_policy(random.Random(5)))
    found = decisions(hand.to_json(), 0)
    assert len(found) == 9 and found[0].auto and not any(d.auto for d in found[1:])
    r = review(hand.to_json(), 0, SEARCH, COMPARE)
    assert r.verdicts[0].auto
    assert describe_review(r).decisions[0].endswith(" · the clock played it")
    # the last streets of classic ofc often leave one legal row
    only = [v for v in r.verdicts if v.only_move]
    assert all(v.same and v.loss == 0 and v.played_value is None for v in only)


def test_a_review_travels_to_a_worker_process_and_back() -> None:
    hand = play(Hand(Rules(variant="pineapple"), ["A", "B"], 1, seed="rv-pickle"),
                random_policy(random.Random(6)))
    d = decisions(hand.to_json(), 0)[2]
    copy: Decision = pickle.loads(pickle.dumps(d))
    assert judge(copy, SEARCH, COMPARE) == pickle.loads(pickle.dumps(judge(d, SEARCH, COMPARE)))


def test_only_a_finished_hand_and_a_seat_of_it() -> None:
    hand = Hand(Rules(variant="pineapple"), ["A", "B"], 1, seed="rv-open")
    with pytest.raises(ValueError, match="not over"):
        review(hand.to_json(), 0)
    with pytest.raises(ValueError, match="no seat 2"):
        decisions(hand.to_json(), 2)


def test_the_summary_counts_the_clear_losses_only() -> None:
    hand = play(Hand(Rules(variant="pineapple"), ["A", "B"], 1, seed="rv-summary"),
                random_policy(random.Random(7)))
    r = review(hand.to_json(), 0, SEARCH, COMPARE)
    clear = [v for v in r.verdicts if v.loss]
    assert r.total_loss == pytest.approx(sum(v.loss for v in clear))
    for v in r.verdicts:
        assert v.loss == 0 or v.loss > max(NOISE, 2 * v.error)
    text = describe_review(r)
    valued = [v for v in r.verdicts if v.played_value is not None and not v.only_move]
    differ = [v for v in valued if not v.same]
    assert text.summary.startswith(
        f"All {len(valued)} of your decisions differ" if len(differ) == len(valued) else
        f"{len(differ)} of your {len(valued)} decisions differ")
    if clear:
        assert f"about {r.total_loss:.1f} points" in text.summary
    assert sum(line.startswith("Round ") for line in text.decisions) == 5
    assert text.notes[0].startswith("Values: the points a move was expected to bring")


@pytest.mark.parametrize("variant", ["pineapple", "ofc"])
def test_a_fouled_finish_is_found_by_its_value_and_counted_in_points(variant: str) -> None:
    """``compare_moves`` (and ``analyse(points=True)``) count a finish that fouls at what it
    loses, recognising it by its value (``_Context.foul_value``): exactly as many of a
    candidate's rollouts have that value as it fouled."""
    import engine.ai as ai
    from engine.ai import compare_moves

    seen: list[tuple[int, int]] = []
    compiled = ai._compiled_batch

    def spying(ctx: Any, *args: Any) -> Any:
        batch = compiled(ctx, *args)

        def counted(afters: Any, rounds: int, budget: Any, least: int) -> Any:
            out = batch(afters, rounds, budget, least)
            for values, fouls in zip(out[1], out[2], strict=True):
                seen.append((sum(v == ctx.foul_value for v in values), fouls))
            return out

        return counted

    hand = Hand(Rules(variant=variant), ["A", "B", "C"] if variant == "ofc" else ["A", "B"], 1,
                seed=f"rv-points-{variant}")
    rng = random.Random(3)
    for _ in range(4):
        seat = hand.to_act()[0]
        hand.place(seat, *rng.choice(street_moves(hand.requirement(seat))))  # type: ignore[arg-type]
    seat = hand.to_act()[0]
    moves = street_moves(hand.requirement(seat))[:3]  # type: ignore[arg-type]
    ai._compiled_batch = spying  # type: ignore[assignment]
    try:
        found, errors = compare_moves(hand, seat, moves, 400, random.Random(4))
    finally:
        ai._compiled_batch = compiled  # type: ignore[assignment]
    assert len(seen) == 3 and all(a == b for a, b in seen) and any(b for _, b in seen), seen
    assert errors[0] == 0 and all(e > 0 for e in errors[1:])
    assert [c.move for c in found] == moves


def test_a_fantasyland_seat_that_surrenders_is_told_under_its_fantasyland() -> None:
    hand = Hand(Rules(variant="pineapple"), ["A", "B"], 1, {0: 15}, seed="rv-fl-surrender")
    hand.surrender(0)
    play(hand, random_policy(random.Random(8)))
    r = review(hand.to_json(), 0, SEARCH, COMPARE)
    assert [v.kind for v in r.verdicts] == ["surrender"]
    assert describe_review(r).decisions[0].startswith("Fantasyland (15 cards)")
