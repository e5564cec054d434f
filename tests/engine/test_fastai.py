"""The compiled rollouts (engine._fastai) compute exactly what the Python rollouts compute."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from engine import DECK, Hand, Requirement, Rules, ai
from engine.ai import (
    _VALUES,
    DEFAULT_CONFIG,
    MASK,
    _after,
    _Context,
    _model,
    _opponents,
    analyse,
)
from engine.autoplay import street_moves

fastai = pytest.importorskip("engine._fastai")

RULE_SETS = [
    Rules(variant="pineapple"),
    Rules(variant="ofc"),
    Rules(variant="pineapple", strict_top=True),
    Rules(variant="ofc", scoring="2-4", shoot_the_moon=True),
    Rules(variant="pineapple", fantasyland=False, scoring="1-3"),
    Rules(variant="pineapple", progressive=False),
]


def test_the_compiled_core_is_built() -> None:
    """``make`` builds it (setup.py); without it the AI is the same, only much slower."""
    assert ai.COMPILED


def street_decisions(hand: Hand) -> Iterator[tuple[int, Requirement]]:
    """The seat to act and what it must do, until the hand is over (whole sets autoplayed);
    the caller places a move before asking for the next."""
    while not hand.is_over:
        seat = hand.to_act()[0]
        req = hand.requirement(seat)
        assert req is not None
        if req.is_set:
            hand.autoplay(seat)
            continue
        yield seat, req


def positions(rules: Rules, n: int, seed: int) -> Iterator[tuple[Hand, int]]:
    """Every street decision of a hand played at random."""
    rng = random.Random(seed)
    hand = Hand(rules, [f"P{i}" for i in range(n)], seed=f"fast/{seed}")
    for seat, req in street_decisions(hand):
        yield Hand.from_json(hand.to_json()), seat
        hand.place(seat, *rng.choice(street_moves(req)))


def decision(hand: Hand, seat: int) -> tuple[_Context, list[int], bool]:
    model = _model(hand.rules, DEFAULT_CONFIG)
    ctx = _Context(model, _opponents(hand, seat, model))
    seen = hand.cards_seen_by(seat)
    return ctx, [c for c in DECK if c not in seen], hand.spec.street_deal != hand.spec.street_keep


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: "/".join(r.describe())[:60])
def test_rollouts_and_final_scores_are_identical(rules: Rules) -> None:
    checked = 0
    for n in (2, 3):
        for seed in range(2):
            for hand, seat in positions(rules, n, seed):
                ctx, unseen, pineapple = decision(hand, seat)
                fast = ctx.fast()
                req = hand.requirement(seat)
                assert req is not None
                rng = random.Random(seed)
                board = hand.boards[seat]
                for move in street_moves(req)[::7][:5]:
                    a = _after(board, move)
                    free = sum(a[3:])
                    if free == 0:
                        values = [_VALUES[s & MASK] for s in a[:3]]
                        assert fast.final(*values) == ctx.final(*values)
                        continue
                    need = free // 2 * 3 if pineapple else free
                    roll = ctx.rollout_pineapple if pineapple else ctx.rollout_single
                    for _ in range(4):
                        future = rng.sample(unseen, need)
                        assert fast.rollout(a, future, pineapple) == roll(*a, future)
                        checked += 1
                    assert ctx.model.core().q(*a[:3]) == ctx.model.q(*a[:3])
    assert checked > 100


def test_simulate_plays_the_sampled_futures() -> None:
    hand = Hand(Rules(variant="pineapple"), ["A", "B", "C"], seed="fast/simulate")
    seat = hand.to_act()[0]
    ctx, unseen, _ = decision(hand, seat)
    req = hand.requirement(seat)
    assert req is not None
    afters = [_after(hand.boards[seat], m) for m in street_moves(req)[:5]]
    need = 12
    futures = fastai.sample(unseen, need, 6, 1234)
    assert len(futures) == 6
    for f in futures:
        assert len(set(f)) == need and set(f) <= set(unseen)
    assert futures == fastai.sample(unseen, need, 6, 1234)
    assert futures != fastai.sample(unseen, need, 6, 1235)
    done, values, fouls, roys, fls = ctx.fast().simulate(afters, unseen, need, 6, 1234, True)
    assert done == 6
    for k, a in enumerate(afters):
        expected = [ctx.rollout_pineapple(*a, f) for f in futures]
        assert values[k] == [e[0] for e in expected]
        assert fouls[k] == sum(e[1] for e in expected)
        assert roys[k] == sum(e[2] for e in expected)
        assert fls[k] == sum(1 for e in expected if e[3])


def opening(seed: str, moves: int) -> tuple[Hand, int, _Context, list[int], list[Any]]:
    """The first pineapple decision of a seeded hand: (hand, seat, its context, the unseen
    cards, the afters of its first ``moves`` moves)."""
    hand = Hand(Rules(variant="pineapple"), ["A", "B"], seed=seed)
    seat = hand.to_act()[0]
    ctx, unseen, _ = decision(hand, seat)
    req = hand.requirement(seat)
    assert req is not None
    return hand, seat, ctx, unseen, [_after(hand.boards[seat], m) for m in street_moves(req)[:moves]]


def test_simulate_stops_within_its_budget() -> None:
    _, _, ctx, unseen, afters = opening("fast/budget", 24)
    done, values, *_ = ctx.fast().simulate(afters, unseen, 12, 10**7, 1, True, 0.05, 2)
    assert 2 <= done < 10**7 and all(len(v) == done for v in values)


def test_bad_input_is_refused_not_crashed() -> None:
    hand = Hand(Rules(variant="pineapple"), ["A", "B"], seed="fast/bad")
    seat = hand.to_act()[0]
    ctx, unseen, _ = decision(hand, seat)
    fast = ctx.fast()
    with pytest.raises(ValueError):
        fast.rollout((0, 0, 0, 3, 5, 5), unseen[:3], True)  # a future too short
    with pytest.raises(ValueError):
        fast.simulate([(0, 0, 0, 3, 5, 5)], unseen[:5], 12, 1, 1, True)
    with pytest.raises(TypeError):
        fast.rollout("nonsense", unseen, True)


def test_an_error_in_the_model_reaches_the_caller() -> None:
    def broken(r: int, s: int) -> int:
        raise RuntimeError("row lookup failed")

    core = fastai.Core(row_id=broken, row_info=broken, strict=False, loss=6.0, stages=[],
                       tables=[[1], [1], [1]])
    with pytest.raises(RuntimeError, match="row lookup failed"):
        core.q(0, 0, 0)


def test_threads_sharing_a_model_get_the_same_answers() -> None:
    hands = [Hand(Rules(variant="pineapple"), ["A", "B"], seed=f"fast/thread/{k}")
             for k in range(4)]
    ai._MODELS.clear()  # cold caches: the threads register rows concurrently
    results: dict[int, list[ai.Candidate]] = {}

    def work(k: int) -> None:
        hand = hands[k]
        results[k] = analyse(hand, hand.to_act()[0], "normal", rng=random.Random(k),
                             simulations=64)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, hand in enumerate(hands):
        again = analyse(hand, hand.to_act()[0], "normal", rng=random.Random(k), simulations=64)
        assert results[k] == again


def test_both_paths_choose_legal_moves_and_agree_on_finishing_moves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for compiled in (True, False):
        monkeypatch.setattr(ai, "COMPILED", compiled)
        for variant in ("ofc", "pineapple"):
            hand = Hand(Rules(variant=variant), ["A", "B"], seed=f"fast/paths/{variant}")
            while not hand.is_over:
                seat = hand.to_act()[0]
                move = ai.choose_move(hand, seat, rng=random.Random(1), simulations=16)
                hand.verify_place(seat, *move)
                hand.place(seat, *move)
            assert hand.settlement is not None


def test_lookahead_is_the_mean_best_score_of_the_last_street() -> None:
    """With two free slots left, ``lookahead`` over every possible last street is the exact
    expected score of finishing well (checked by brute force in Python)."""
    from itertools import combinations

    hand = Hand(Rules(variant="pineapple"), ["A", "B"], seed="fast/lookahead")
    while True:
        seat = hand.to_act()[0]
        req = hand.requirement(seat)
        assert req is not None
        if seat == 0 and sum(hand.boards[0].free_slots) == 4:
            break
        hand.place(seat, *street_moves(req)[0])
    ctx, unseen, _ = decision(hand, 0)
    afters = [_after(hand.boards[0], m) for m in street_moves(req)[:3]]
    got = ctx.fast().lookahead(afters, unseen, 0, 0, True)
    for a, value in zip(afters, got, strict=True):
        rows = [0] * a[3] + [1] * a[4] + [2] * a[5]
        total = 0.0
        count = 0
        for street in combinations(unseen, 3):
            best = None
            for c, d in combinations(street, 2):
                for x, y in ((c, d), (d, c)):
                    s = list(a[:3])
                    s[rows[0]] += x
                    s[rows[1]] += y
                    v = ctx.final(*(_VALUES[t & MASK] for t in s))[0]
                    best = v if best is None else max(best, v)
            assert best is not None
            total += best
            count += 1
        assert value == pytest.approx(total / count, abs=1e-9)


def test_the_lookahead_policy_is_reproducible_and_changes_choices() -> None:
    hand, seat, ctx, unseen, afters = opening("fast/la-policy", 6)
    greedy = ctx.fast().simulate(afters, unseen, 12, 40, 7, True)
    runs = []
    for _ in range(2):
        fresh, _, _ = decision(hand, seat)
        fast = fresh.fast()
        fast.set_lookahead(8, 8, 4)
        runs.append(fast.simulate(afters, unseen, 12, 40, 7, True))
    assert runs[0] == runs[1]
    assert runs[0][1] != greedy[1]  # the street before the last is chosen differently somewhere
    with pytest.raises(ValueError):
        ctx.fast().set_lookahead(100, 8, 4)


# -- live rows: fills from the cards the seat has not seen ---------------------------------------


def live(unseen: list[int], samples: int = 4000) -> Any:
    from dataclasses import replace

    model = _model(Rules(variant="pineapple"), replace(DEFAULT_CONFIG, row_samples=samples))
    return _Context(model, []).fast(unseen, 11)


def share(dist: tuple[int, ...], test: Callable[[int], bool]) -> float:
    return sum(1 for v in dist if test(v)) / len(dist)


def test_live_rows_count_dead_cards() -> None:
    from engine import parse_cards

    row = parse_cards("As Ks 7s 2s")
    everything = [c for c in DECK if c not in row]
    fast = live(everything)
    _, mean_all, dist, feats = fast.row(1, sum(row))
    assert share(dist, lambda v: v >> 20 == 5) == pytest.approx(9 / 48, abs=0.02)
    dead = parse_cards("Qs Js Ts 9s")
    fast = live([c for c in everything if c not in dead])
    _, mean_dead, dist, feats_dead = fast.row(1, sum(row))
    assert share(dist, lambda v: v >> 20 == 5) == pytest.approx(5 / 44, abs=0.02)
    assert mean_dead < mean_all  # fewer outs, less worth
    model = _model(Rules(variant="pineapple"), DEFAULT_CONFIG)
    assert feats == feats_dead == tuple(model.row(1, sum(row)).feats)  # same features


def test_live_rows_never_refill_a_card_the_rollout_dealt_to_the_row() -> None:
    from engine import parse_cards

    unseen = [c for c in DECK if c not in parse_cards("Ac Ad")]  # As and Ah unseen
    fast = live(unseen)
    ace = sum(parse_cards("As"))
    # As on top was dealt by a rollout (the decision's row was empty): only Ah can pair it
    _, _, dist, _ = fast.row(0, ace, 0)
    aces = share(dist, lambda v: v >> 20 >= 1 and (v >> 16) & 15 == 14)
    assert aces == pytest.approx(1 - 47 / 49, abs=0.015)  # two fills from 49 cards, one ace


def test_live_search_plays_legal_moves_and_is_reproducible() -> None:
    from dataclasses import replace

    config = replace(DEFAULT_CONFIG, live_rows=True)
    hand = Hand(Rules(variant="pineapple"), ["A", "B"], seed="fast/live")
    for seat, _ in street_decisions(hand):
        runs = [analyse(hand, seat, "normal", rng=random.Random(2), simulations=40,
                        config=config) for _ in range(2)]
        assert runs[0] == runs[1]
        hand.place(seat, *runs[0][0].move)
    assert hand.settlement is not None


def _first_street_greedy(fast: Any, cards: tuple[int, ...]) -> tuple[int, ...]:
    """The after-state of the best placement of the first five cards by the value (the first
    best in the order of the placement codes)."""
    best, chosen = -1e18, None
    for code in range(243):
        s, f = [0, 0, 0], [3, 5, 5]
        c = code
        for k in range(5):
            s[c % 3] += cards[k]
            f[c % 3] -= 1
            c //= 3
        if f[0] < 0:
            continue
        v = fast.q(*s)
        if chosen is None or v > best:
            best, chosen = v, (*s, *f)
    assert chosen is not None
    return chosen


def test_selfplay_is_the_first_street_then_the_rollout_policy() -> None:
    """``Ctx.selfplay`` (bench.policy's measure) plays each dealt hand as the policy does: the
    best first street by the value, then the rollout on the rest of the cards."""
    model = _model(Rules(variant="pineapple"), DEFAULT_CONFIG)
    fast = _Context(model, [ai._Opponent(0.5, (None, None, None), (0, 0, 0), model.tables)]).fast()
    played = fast.selfplay(list(DECK), 40, 7)
    assert len(played) == 40
    assert fast.selfplay(list(DECK), 40, 7) == played  # seeded
    assert fast.selfplay(list(DECK), 40, 8) != played
    for value, fouled, royalties, fl_cards, cards in played:
        assert len(set(cards)) == 17 and set(cards) <= set(DECK)
        after = _first_street_greedy(fast, cards)
        assert fast.rollout(after, list(cards[5:]), True) == (value, fouled, royalties, fl_cards)
    assert any(r[1] for r in fast.selfplay(list(DECK), 400, 1))  # some fouls
    assert any(r[3] for r in fast.selfplay(list(DECK), 400, 1))  # and fantasylands


def test_selfplay_with_the_lookahead_plays_other_hands_and_refuses_bad_input() -> None:
    model = _model(Rules(variant="pineapple"), DEFAULT_CONFIG)
    greedy = _Context(model, []).fast()
    looking = _Context(model, []).fast()
    looking.set_lookahead(8, 8, 4, 3)
    a, b = greedy.selfplay(list(DECK), 200, 5), looking.selfplay(list(DECK), 200, 5)
    assert [r[4] for r in a] == [r[4] for r in b]  # the same deals
    assert [r[:4] for r in a] != [r[:4] for r in b]  # other choices
    assert greedy.selfplay(list(DECK), 0, 5) == []
    with pytest.raises(ValueError):
        greedy.selfplay(list(DECK)[:16], 1, 5)
    with pytest.raises(ValueError):
        greedy.selfplay(list(DECK), -1, 5)
    with pytest.raises(TypeError):
        greedy.selfplay("not cards", 1, 5)
