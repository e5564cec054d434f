"""The evaluator against an independent peer (eval7, treys) and RULES.md's 3-card order."""

from collections import Counter
from itertools import combinations

import pytest

from engine import DECK, Board, Rules, evaluate, parse_cards
from engine.evaluator import row_at_most

RANKS = "23456789TJQKA"
SUITS = "cdhs"


def test_every_five_card_hand_matches_eval7_order() -> None:
    eval7 = pytest.importorskip("eval7")
    peer_cards = [eval7.Card(str(c)) for c in DECK]
    peer = eval7.evaluate
    ours_to_peer: dict[int, int] = {}
    count = 0
    for idx in combinations(range(52), 5):
        ours = evaluate([DECK[i] for i in idx])
        theirs = peer([peer_cards[i] for i in idx])
        prev = ours_to_peer.setdefault(ours, theirs)
        assert prev == theirs, (idx, ours, theirs)
        count += 1
    assert count == 2_598_960
    assert len(ours_to_peer) == 7462
    ordered = [ours_to_peer[v] for v in sorted(ours_to_peer)]
    assert ordered == sorted(ordered)
    assert len(set(ordered)) == 7462


def test_sample_matches_treys() -> None:
    treys = pytest.importorskip("treys")
    import random

    rng = random.Random(7)
    ev = treys.Evaluator()
    hands = [rng.sample(DECK, 5) for _ in range(20_000)]
    pairs = sorted(
        (evaluate(h), ev.evaluate([treys.Card.new(str(c)) for c in h], [])) for h in hands
    )
    for (v1, t1), (v2, t2) in zip(pairs, pairs[1:], strict=False):
        if v1 == v2:
            assert t1 == t2
        else:
            assert t1 > t2  # treys: smaller is better


def _rules_key(ranks: list[int]) -> tuple[int, ...]:
    """RULES.md: the top row knows only trips > pair > high card; then ranks in order."""
    counts = Counter(ranks)
    ordered = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    cat = {3: 2, 2: 1, 1: 0}[ordered[0][1]]
    return (cat, *[r for r, _ in ordered])


def test_all_three_card_hands_follow_rules() -> None:
    rows = []
    for combo in combinations(DECK, 3):
        rows.append((_rules_key([c.rank for c in combo]), evaluate(combo)))
    assert len(rows) == 22_100
    rows.sort()
    for (k1, v1), (k2, v2) in zip(rows, rows[1:], strict=False):
        assert (k1 < k2) == (v1 < v2)
        assert (k1 == k2) == (v1 == v2)


def test_three_card_straights_and_flushes_mean_nothing() -> None:
    assert evaluate(parse_cards("Ah Kh Qh")) == evaluate(parse_cards("As Kd Qc"))
    assert evaluate(parse_cards("4h 3h 2h")) < evaluate(parse_cards("5c 3d 2s"))


@pytest.mark.parametrize(
    ("top", "middle", "expected"),
    [
        ("Kh Kd Ac", "Ks Kc Qd 7s 3c", 1),  # KK A beats KK Q 7 3: foul
        ("Qh Qd 7c", "Qs Qc 9d 8s 2c", -1),
        ("Kh Kd 2c", "Ks Kc 5d 4s 3c", -1),
        ("Ah Kd Qc", "As Ks Qd 9s 7c", 0),  # equal on the top's own ranks: legal
        ("Kh Kd Ac", "Ks Kc As 7s 3c", 0),  # KK A vs KK A 7 3: equal (fouls if strict)
        ("Kh Kd Qc", "Ks Kc As 7s 3c", -1),
        ("7h 7d 7c", "7s Ac Ad Ks 3c", 1),  # trips beat a pair whatever the kickers
    ],
)
def test_cross_size_examples(top: str, middle: str, expected: int) -> None:
    t, m = evaluate(parse_cards(top)), evaluate(parse_cards(middle))
    assert row_at_most(t, m) == expected
    assert (t > m) == (expected > 0)
    used = set(parse_cards(top + " " + middle))
    rank = next(r for r in "AKQJT98765432" if not any(c.rank_char == r for c in used))
    quads = parse_cards(" ".join(rank + s for s in "cdhs"))
    kicker = next(c for c in DECK if c not in used and c not in quads)
    bottom = [*quads, kicker]  # quads: the bottom never decides these fouls
    board = Board(tuple(parse_cards(top)), tuple(parse_cards(middle)), tuple(bottom))
    assert board.is_foul(Rules(strict_top=True)) == (expected >= 0)
    assert board.is_foul(Rules()) == (expected > 0)


@pytest.mark.parametrize(
    ("cards", "text"),
    [
        ("Kh Kd Ac", "pair of kings"),
        ("Qh 9h 7h 4h 2h", "queen-high flush"),
        ("Kh Kd Ks 3c 3d", "full house, kings full of threes"),
        ("Ah 2d 3c 4s 5h", "five-high straight (wheel)"),
        ("Ah Kh Qh Jh Th", "royal flush"),
        ("9c Tc Jc Qc Kc", "king-high straight flush"),
        ("7c 7d 7h", "three sevens"),
        ("Ac 9d 7h 4s 2c", "ace-high"),
        ("Jc Jd 4h 4s 2c", "two pair, jacks and fours"),
        ("5c 5d 5h 5s 2c", "four fives"),
    ],
)
def test_descriptions(cards: str, text: str) -> None:
    assert evaluate(parse_cards(cards)).describe() == text


def test_wheel_is_lowest_straight_and_suits_never_break_ties() -> None:
    wheel = evaluate(parse_cards("Ah 2d 3c 4s 5h"))
    six = evaluate(parse_cards("2h 3d 4c 5s 6h"))
    trips = evaluate(parse_cards("Ah Ad Ac Ks Qh"))
    assert trips < wheel < six
    assert evaluate(parse_cards("Ah Kd 9c 5s 3h")) == evaluate(parse_cards("As Kc 9d 5h 3s"))


def test_wrong_sizes_rejected() -> None:
    for n in (0, 1, 2, 4, 6):
        with pytest.raises(ValueError):
            evaluate(list(DECK[:n]))


def test_the_compiled_evaluate_is_the_python_one() -> None:
    """``engine.evaluate`` is the compiled lookup when the core is built: every 3- and 5-card
    row gives the very object the Python lookup gives, and odd input the same error."""
    import random

    from engine import evaluator

    if evaluator.evaluate is evaluator._evaluate:
        pytest.skip("the compiled core is not built")
    rng = random.Random(7)
    for _ in range(20000):
        cards = rng.sample(DECK, rng.choice((3, 5)))
        assert evaluate(cards) is evaluator._evaluate(cards)
        assert evaluate(tuple(cards)) is evaluator._evaluate(cards)
    for bad in ([], parse_cards("Ah Kd"), parse_cards("Ah Kd Qc Js"), [1.5, 2, 3],
                ["Ah", "Kd", "Qc"], [2**70, 1, 1], [-1, 0, 0], DECK[:6]):
        with pytest.raises((ValueError, TypeError)) as compiled:
            evaluate(bad)
        with pytest.raises((ValueError, TypeError)) as plain:
            evaluator._evaluate(bad)
        assert (type(compiled.value), str(compiled.value)) == (type(plain.value),
                                                               str(plain.value))
    gen = (c for c in parse_cards("Ah Kh Qh Jh Th"))  # not a list or tuple: the Python path
    with pytest.raises(TypeError):
        evaluate(gen)  # type: ignore[arg-type]
