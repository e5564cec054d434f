"""The AI player: legal moves, hidden information, obvious choices, determinism, strength."""

from __future__ import annotations

import random
import statistics

import pytest

from engine import DECK, Board, Card, Hand, Rules, ai, parse_cards
from engine.ai import (
    LEVELS,
    analyse,
    choose_move,
    choose_natural,
    describe_move,
    set_move,
    static_value,
    suggest,
)
from engine.autoplay import street_moves
from engine.notation import parse_move, signed_points

C = parse_cards
SIMS = 24


def ai_act(hand: Hand, seat: int, sims: int = SIMS) -> None:
    rng = random.Random(f"t/{hand.seed}/{len(hand.log)}/{seat}")
    placed, dropped = choose_move(hand, seat, "easy", rng=rng, simulations=sims)
    hand.verify_place(seat, placed, dropped)  # legal (raises otherwise)
    hand.place(seat, placed, dropped)


def random_act(hand: Hand, seat: int) -> None:
    rng = random.Random(f"r/{hand.seed}/{len(hand.log)}/{seat}")
    req = hand.requirement(seat)
    assert req is not None
    if req.is_set:
        hand.autoplay(seat)
        return
    hand.place(seat, *rng.choice(street_moves(req)))


def stacked_ofc(first: str, second: str, rest0: str, rest1: str) -> list[Card]:
    """Deck for a 2-player ofc hand with the button on seat 1: seat 0 gets ``first`` then
    ``rest0`` one card a street, seat 1 ``second`` then ``rest1``."""
    a, b = C(rest0), C(rest1)
    order = C(first) + C(second)
    for x, y in zip(a, b, strict=False):
        order += [x, y]
    return order


def play_script(hand: Hand, seat0_moves: list[str]) -> None:
    """Play seat 0's scripted moves; seat 1 fills bottom, middle, then top."""
    moves = iter(seat0_moves)
    while True:
        seat = hand.to_act()[0]
        req = hand.requirement(seat)
        assert req is not None
        if seat == 0:
            text = next(moves, None)
            if text is None:
                return
            hand.place(0, *parse_move(text, req, hand.boards[0]))
        else:
            free = list(hand.boards[1].free_slots)
            placed = []
            for card in req.cards:
                r = 2 if free[2] else 1 if free[1] else 0
                free[r] -= 1
                placed.append((card, r))
            hand.place(1, placed)


# -- legality --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "variant,n,fl",
    [("ofc", 2, {}), ("ofc", 3, {1: 13}), ("pineapple", 2, {}), ("pineapple", 3, {2: 15}),
     ("chinese", 2, {})],
)
def test_ai_plays_only_legal_moves_to_showdown(variant: str, n: int, fl: dict[int, int]) -> None:
    for seed in range(2):
        hand = Hand(Rules(variant=variant), [f"P{i}" for i in range(n)], button=seed % n,
                    fantasyland=fl, seed=f"legal/{variant}/{seed}")
        while not hand.is_over:
            ai_act(hand, hand.to_act()[0], sims=8)
        assert hand.settlement is not None and sum(hand.settlement.totals) == 0
        for seat in range(n):
            assert hand.boards[seat].is_complete


def test_sets_use_the_solver_and_never_foul() -> None:
    for seed in range(4):
        cards = random.Random(seed).sample(DECK, 17)
        move, score, _ = set_move(cards, Rules(variant="pineapple"))
        board = Board().place(move[0])
        assert len(board) == 13 and len(move[1]) == 4 and not board.is_foul()
        assert score >= board.royalties(Rules(variant="pineapple"))
        move, _, _ = set_move(cards[:13], Rules(variant="chinese"))
        assert not Board().place(move[0]).is_foul()


def test_declares_a_natural_worth_declaring() -> None:
    dragon = C("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    hand = Hand(Rules(variant="chinese"), ["A", "B"], button=1, deck=dragon)
    assert choose_natural(hand, 0) == "dragon"
    hand2 = Hand(Rules(variant="chinese"), ["A", "B"], seed=3)
    assert choose_natural(hand2, 0) is None


# -- hidden information -----------------------------------------------------------------------------


def _hide_differently(hand: Hand, seat: int, rng: random.Random) -> Hand:
    """A copy of ``hand`` where every card ``seat`` cannot see is shuffled among the places it
    could be: the deck's undealt part, other seats' pending cards and discards, hidden sets."""
    other = Hand.from_json(hand.to_json())
    seen = hand.cards_seen_by(seat)
    slots: list[tuple[str, int, int]] = []  # where the hidden cards sit
    cards: list[Card] = []
    for i in range(other._next, 52):
        slots.append(("deck", 0, i))
        cards.append(other._deck[i])
    for s in range(other.n):
        if s == seat:
            continue
        for i, c in enumerate(other.pending[s]):
            slots.append(("pending", s, i))
            cards.append(c)
        for i, c in enumerate(other.discards[s]):
            slots.append(("discards", s, i))
            cards.append(c)
        if other.hidden(s):
            for i, c in enumerate(other.boards[s].cards):
                slots.append(("board", s, i))
                cards.append(c)
    assert not set(cards) & seen
    shuffled = list(cards)
    while shuffled == cards:
        rng.shuffle(shuffled)
    pending = [list(p) for p in other.pending]
    discards = [list(d) for d in other.discards]
    boards = [list(b.cards) for b in other.boards]
    for (kind, s, i), card in zip(slots, shuffled, strict=True):
        if kind == "deck":
            other._deck[i] = card
        elif kind == "pending":
            pending[s][i] = card
        elif kind == "discards":
            discards[s][i] = card
        else:
            boards[s][i] = card
    other.pending = [tuple(p) for p in pending]
    other.discards = [tuple(d) for d in discards]
    for s in range(other.n):
        if other.hidden(s) and s != seat:
            b = boards[s]
            other.boards[s] = Board(tuple(b[:3]), tuple(b[3:8]), tuple(b[8:13]))
    assert other.cards_seen_by(seat) == seen
    return other


def test_decision_uses_only_what_the_seat_sees() -> None:
    rules = Rules(variant="pineapple")
    checked = 0
    for seed in range(3):
        hand = Hand(rules, ["A", "B", "C"], button=0, fantasyland={2: 15}, seed=f"hid/{seed}")
        hand.autoplay(2)  # the fantasyland set: face down
        rng = random.Random(seed)
        while not hand.is_over:
            seat = hand.to_act()[0]
            req = hand.requirement(seat)
            assert req is not None
            if hand.street in (2, 4) and len(hand.boards[seat]) < 11:
                twin = _hide_differently(hand, seat, rng)
                assert twin.discards != hand.discards or twin.pending != hand.pending
                assert twin.boards[2] != hand.boards[2]
                a = choose_move(hand, seat, "easy", rng=random.Random(7), simulations=16)
                b = choose_move(twin, seat, "easy", rng=random.Random(7), simulations=16)
                assert a == b
                sa = suggest(hand, seat, "easy", rng=random.Random(7), simulations=16)
                sb = suggest(twin, seat, "easy", rng=random.Random(7), simulations=16)
                assert sa == sb
                checked += 1
            ai_act(hand, seat, sims=6)
    assert checked >= 6


# -- obvious choices ---------------------------------------------------------------------------------


def test_avoids_a_certain_foul() -> None:
    # seat 0: top Kh Kd, middle Ac Ad 7c 4s 2h (aces), bottom 9s 9h 3c 3d; then Kc arrives:
    # on top it makes three kings over a pair of aces in the middle: a certain foul.
    deck = stacked_ofc("Kh Kd Ac Ad 9s", "2c 2d 5c 5d 6c",
                       "7c 4s 2h 9h 3c 3d Kc Qs", "6d 6h 7d 8c 8d Tc Td Js")
    hand = Hand(Rules(), ["A", "B"], button=1, deck=deck)
    play_script(hand, ["Kh Kd top Ac Ad middle 9s bottom", "7c middle", "4s middle",
                       "2h middle", "9h bottom", "3c bottom", "3d bottom"])
    assert hand.requirement(0) is not None
    assert hand.requirement(0).cards == (Card("Kc"),)  # type: ignore[union-attr]
    for seed in range(3):
        placed, _ = choose_move(hand, 0, "easy", rng=random.Random(seed), simulations=40)
        assert placed == ((Card("Kc"), 2),)
    found = analyse(hand, 0, "easy", rng=random.Random(0), simulations=40)
    top = next(c for c in found if c.move[0][0][1] == 0)
    assert top.foul_rate == 1.0
    assert "Kc bottom" in suggest(hand, 0, "easy", rng=random.Random(0), simulations=40).explanation


def test_prefers_a_clear_royalty() -> None:
    # bottom holds four hearts; Kh makes a flush there (4 royalties), anywhere else it does not.
    deck = stacked_ofc("3c 4d Qs Qd 2h", "2c 9d 5c 5d 6c",
                       "7c 6s 3s 5h 8h Jh Kh Ts", "6d 6h 7d 8c 8d Tc Td Js")
    hand = Hand(Rules(), ["A", "B"], button=1, deck=deck)
    play_script(hand, ["3c 4d top Qs Qd middle 2h bottom", "7c middle", "6s middle",
                       "3s middle", "5h bottom", "8h bottom", "Jh bottom"])
    assert hand.requirement(0).cards == (Card("Kh"),)  # type: ignore[union-attr]
    for seed in range(3):
        placed, _ = choose_move(hand, 0, "easy", rng=random.Random(seed), simulations=40)
        assert placed == ((Card("Kh"), 2),)


def test_last_street_is_exact_and_clean() -> None:
    # pineapple, last street: 3 cards for the last 2 slots; only one way avoids the foul
    rules = Rules(variant="pineapple")
    for seed in range(20):
        hand = Hand(rules, ["A", "B"], seed=f"last/{seed}")
        rng = random.Random(seed)
        while not hand.is_over:
            seat = hand.to_act()[0]
            if len(hand.boards[seat]) == 11:
                req = hand.requirement(seat)
                assert req is not None
                clean = [m for m in street_moves(req)
                         if not hand.boards[seat].place(m[0]).is_foul()]
                ai_act(hand, seat)
                if clean:
                    assert not hand.boards[seat].is_foul()
            else:
                req = hand.requirement(seat)
                assert req is not None
                hand.place(seat, *rng.choice(street_moves(req)))


# -- determinism, budget, strength ------------------------------------------------------------------


def test_deterministic_with_a_seed_and_fixed_simulations() -> None:
    for variant in ("ofc", "pineapple"):
        hand = Hand(Rules(variant=variant), ["A", "B"], seed=f"det/{variant}")
        seat = hand.to_act()[0]
        runs = [analyse(hand, seat, "normal", rng=random.Random(42), simulations=30)
                for _ in range(2)]
        assert runs[0] == runs[1]
        assert choose_move(hand, seat, rng=random.Random(42), simulations=30) == runs[0][0].move
        s1 = suggest(hand, seat, rng=random.Random(42), simulations=30)
        s2 = suggest(hand, seat, rng=random.Random(42), simulations=30)
        assert s1 == s2 and s1.explanation and (s1.placements, s1.discards) == runs[0][0].move
        # autoplay (the timeout default) is reproducible too
        twin = Hand.from_json(hand.to_json())
        assert hand.autoplay(seat) == twin.autoplay(seat)


def test_the_search_stops_at_its_budget() -> None:
    """Without counting seconds (a timed unit test failed on a busy machine: a cold first
    easy decision took 0.74 s; the time per decision is `make bench-ai`'s): a budget already
    spent stops the search after its minimum of 4 futures per move; a budget of a day lets
    it play the futures asked for (the field halved after 32)."""
    assert LEVELS == {"easy": 0.05, "normal": 0.3, "strong": 1.0}
    hand = Hand(Rules(variant="pineapple"), ["A", "B"], seed="budget")
    seat = hand.to_act()[0]
    spent = analyse(hand, seat, "normal", rng=random.Random(1), budget=1e-9)
    assert len(spent) == 14 and {c.simulations for c in spent} == {4}
    whole = analyse(hand, seat, "normal", rng=random.Random(1), budget=86_400.0,
                    simulations=40)
    assert max(c.simulations for c in whole) == 40
    assert {c.simulations for c in whole} <= {32, 40}
    for level, budget in (("easy", None), ("normal", 1e-9)):
        move = choose_move(hand, seat, level, budget=budget)
        assert move in street_moves(hand.requirement(seat))


@pytest.mark.parametrize(("level", "field"), [("normal", 14), ("strong", 24)])
def test_the_field_is_first_halved_after_32_simulations_each(level: str, field: int) -> None:
    first = ai._FIRST_HALVING
    assert first == 32
    hand = Hand(Rules(variant="pineapple"), ["A", "B"], seed="halving")
    seat = hand.to_act()[0]
    before = analyse(hand, seat, level, rng=random.Random(3), simulations=first - 1)
    assert len(before) == field and {c.simulations for c in before} == {first - 1}
    after = analyse(hand, seat, level, rng=random.Random(3), simulations=first + 8)
    assert len(after) == field
    survivors = [c for c in after if c.simulations == first + 8]
    assert 1 <= len(survivors) <= field // 2
    assert all(c.simulations == first for c in after if c.simulations != first + 8)
    # the leader after the first futures (the same futures for every move) survives
    lead = analyse(hand, seat, level, rng=random.Random(3), simulations=first)
    assert max(lead, key=lambda c: c.value).move in {c.move for c in survivors}
    # a config sets its own
    mine = analyse(hand, seat, level, rng=random.Random(3), simulations=first + 8,
                   config=ai.AIConfig(first_halving=2 * first))
    assert {c.simulations for c in mine} == {first + 8}


def test_street_bias_corrects_the_candidates_of_its_stage_only() -> None:
    hand = Hand(Rules(variant="pineapple"), ["A", "B"], seed="x/3")
    seat = hand.to_act()[0]
    req = hand.requirement(seat)
    assert req is not None and Card("Ac") in req.cards
    lone_ace = ai._ROW_AT[0] + 2
    assert ai.ROW_FEATURES[0][2] == "top: a lone A"
    plain = analyse(hand, seat, "normal", rng=random.Random(1), simulations=40)
    assert all(r != 0 for _, r in plain[0].move[0])  # the ace is not put on top
    bias = ai.AIConfig(street_bias=((8, lone_ace, 30.0),))
    biased = analyse(hand, seat, "normal", rng=random.Random(1), simulations=40, config=bias)
    assert (Card("Ac"), 0) in biased[0].move[0]
    # the correction is in the value and the ranking, by the feature of the candidate's board
    model = ai._model(hand.rules, bias)
    static = {c.move: c.static for c in plain}
    for c in biased:
        a = ai._after(hand.boards[seat], c.move)
        extra = 30.0 * model.features(a[0], a[1], a[2])[1][lone_ace]
        if c.move in static:
            assert c.static == pytest.approx(static[c.move] + extra)
    # another stage's entry changes nothing
    other = ai.AIConfig(street_bias=((6, lone_ace, 30.0),))
    assert analyse(hand, seat, "normal", rng=random.Random(1), simulations=40,
                   config=other) == plain


def test_static_value_sees_a_foul_coming() -> None:
    rules = Rules()
    good = Board.parse("2c 3d / Kh Kd / Ah Ad")
    bad = Board.parse("Ah Ad / Kh Kd / 2c 3d")
    assert static_value(good, rules) > static_value(bad, rules)


def test_describe_move_round_trips_through_the_notation() -> None:
    hand = Hand(Rules(variant="pineapple"), ["A", "B"], seed="describe")
    seat = hand.to_act()[0]
    hand.place(seat, *choose_move(hand, seat, rng=random.Random(1), simulations=10))
    seat = hand.to_act()[0]
    hand.place(seat, *choose_move(hand, seat, rng=random.Random(1), simulations=10))
    seat = hand.to_act()[0]
    move = choose_move(hand, seat, rng=random.Random(1), simulations=10)
    req = hand.requirement(seat)
    assert req is not None
    placed, dropped = parse_move(describe_move(move), req, hand.boards[seat])
    # the same move (the text lists the rows top to bottom, so the order may differ)
    assert sorted(placed) == sorted(move[0]) and sorted(dropped) == sorted(move[1])


def test_beats_a_random_player() -> None:
    rules = Rules(variant="pineapple")
    points = []
    for deal in range(15):
        for ai_seat in (0, 1):
            hand = Hand(rules, ["A", "B"], button=1, seed=f"strength/{deal}")
            while not hand.is_over:
                seat = hand.to_act()[0]
                if seat == ai_seat:
                    ai_act(hand, seat, sims=16)
                else:
                    random_act(hand, seat)
            assert hand.settlement is not None
            points.append(hand.settlement.totals[ai_seat])
    assert statistics.fmean(points) > 3.0


# -- move generation and the hindsight rollout -------------------------------------------------------


def test_street_moves_are_every_legal_move_once() -> None:
    from itertools import combinations, product

    for variant, seed in (("pineapple", "moves/p"), ("ofc", "moves/o")):
        hand = Hand(Rules(variant=variant), ["A", "B"], seed=seed)
        for _ in range(3):
            seat = hand.to_act()[0]
            req = hand.requirement(seat)
            assert req is not None
            expected = set()
            for dropped in combinations(req.cards, req.discard):
                keep = [c for c in req.cards if c not in dropped]
                for rows in product((0, 1, 2), repeat=len(keep)):
                    if all(rows.count(r) <= req.free[r] for r in range(3)):
                        expected.add((tuple(zip(keep, rows, strict=True)), dropped))
            moves = street_moves(req)
            assert len(moves) == len(set(moves)) and set(moves) == expected
            hand.place(seat, *moves[0])


@pytest.mark.parametrize("strict", [False, True])
def test_static_foul_chance_uses_the_board_foul_rule(strict: bool) -> None:
    """The rollout policy's top-over-middle chance counts exactly the sampled pairs that the
    foul rule (``values_foul``, strict top included) calls fouls."""
    from engine.ai import DEFAULT_CONFIG, _model
    from engine.board import values_foul

    model = _model(Rules(strict_top=strict), DEFAULT_CONFIG)
    for top_text, middle_text in (("Qh", "Qd 7c"), ("Ks Kd", "Kc 9h 9d"), ("", ""),
                                  ("5c 5d", "5h 5s"), ("Ah", "Ad Kc Kd")):
        top = model.row(0, sum(C(top_text)))
        middle = model.row(1, sum(C(middle_text)))
        brute = sum(
            values_foul(x, y, 1 << 30, strict) for x in top.dist for y in middle.dist
        ) / (len(top.dist) * len(middle.dist))
        assert model.p_top_over_middle(top, middle) == pytest.approx(brute)


def test_timeout_fallback_scores_fouls_by_the_rules_strict_top() -> None:
    from engine.autoplay import FOUL_PENALTY, board_score

    equal = Board.parse("Kh Kd 5c / Ks Kc 5d 3h 2s / Ah Ad As 7c 8d")  # equal on KK5
    assert board_score(equal, Rules()) > 0
    assert board_score(equal, Rules(strict_top=True)) == -FOUL_PENALTY


# -- the learned board value ------------------------------------------------------------------


def test_learned_value_is_the_fitted_dot_product_and_only_for_the_fitted_rules() -> None:
    from dataclasses import replace

    from engine.ai import (
        BASE_COUNT,
        DEFAULT_CONFIG,
        FEATURE_COUNT,
        AIConfig,
        _model,
        quadratic_features,
    )

    n = FEATURE_COUNT
    rng = random.Random(5)
    weights = {stage: tuple(rng.uniform(-2, 2) for _ in range(n)) for stage in (4, 6, 8)}
    config = replace(DEFAULT_CONFIG, value_weights=tuple(sorted(weights.items())))
    rules = Rules(variant="pineapple")
    learned, plain = _model(rules, config), _model(rules, replace(config, learned=False))
    deck = list(DECK)
    checked = 0
    for _ in range(300):
        rng.shuffle(deck)
        sizes = [rng.randint(0, 3), rng.randint(0, 5), rng.randint(0, 5)]
        cards = iter(deck)
        s = [sum(next(cards) for _ in range(k)) for k in sizes]
        stage, x = learned.features(*s)
        assert stage == 13 - sum(sizes) and len(x) == BASE_COUNT
        q = plain.q(*s)
        assert x[1] == pytest.approx(q)  # feature 1 is the static value itself
        if stage in weights:
            full = quadratic_features(x)
            assert learned.q(*s) == pytest.approx(sum(w * v for w, v in zip(weights[stage], full, strict=True)))
            checked += 1
        else:
            assert learned.q(*s) == pytest.approx(q)
    assert checked > 20
    # built-in weights only for the rules they were fitted on (timers aside), never when off
    from engine.ai_values import VALUE_WEIGHTS

    for variant in VALUE_WEIGHTS:
        assert all(len(w) == FEATURE_COUNT for w in VALUE_WEIGHTS[variant].values())
        base = Rules(variant=variant)
        assert _model(base, DEFAULT_CONFIG).learned is VALUE_WEIGHTS[variant]
        assert _model(replace(base, timer=30), DEFAULT_CONFIG).learned is VALUE_WEIGHTS[variant]
        assert _model(replace(base, fantasyland=False), DEFAULT_CONFIG).learned is None
        assert _model(replace(base, strict_top=True), DEFAULT_CONFIG).learned is None
        assert _model(base, AIConfig(learned=False)).learned is None


def test_row_features_of_the_learned_value() -> None:
    from engine.ai import ROW_FEATURES, _row_features, _straight_draw
    from engine.evaluator import CATEGORY_SHIFT, PAIR, TRIPS

    def counts(ranks: str) -> list[int]:
        out = [0] * 13
        for r in ranks:
            out["23456789TJQKA".index(r)] += 1
        return out

    # a straight draw: distinct ranks inside one five-rank window (the ace plays low too)
    assert [_straight_draw(counts(r)) for r in ("A234", "A23", "9TJQ", "TJQK", "JQKA", "2", "")] \
        == [4, 3, 4, 4, 4, 1, 0]
    assert [_straight_draw(counts(r)) for r in ("259", "A6", "22", "239")] \
        == [0, 0, 0, 0]

    def top(ranks: str) -> dict[str, float]:
        c = counts(ranks)
        lb = 0 if max(c, default=0) < 2 else PAIR << CATEGORY_SHIFT  # a pair made
        return dict(zip(ROW_FEATURES[0], _row_features(0, c, False, lb), strict=True))

    assert top("Q7")["top: a lone Q, free slots"] == 1.0 and top("Q7")["top: free slots"] == 1.0
    assert top("K")["top: a lone K"] == 1.0 and top("K")["top: free slots squared"] == 4.0
    assert top("QK")["top: a lone K"] == 1.0 and top("QK")["top: a lone Q, free slots"] == 0.0
    assert top("99")["top: 99"] == 1.0 and top("99")["top: a pair made"] == 1.0
    assert top("AA2")["top: AA"] == 1.0 and top("AA2")["top: a lone A"] == 0.0
    pairs = [f"top: {r}{r}" for r in "6789TJQKA"]
    assert top("555")["top: trips"] == 1.0 and sum(top("555")[p] for p in pairs) == 0.0
    assert sum(top("JJ")[p] for p in pairs) == 1.0 and sum(top("44")[p] for p in pairs) == 0.0
    assert top("A")["top: highest rank (0-1)"] == 1.0

    middle = dict(zip(ROW_FEATURES[1], _row_features(1, counts("9TJ"), True, 0), strict=True))
    assert middle["straight draw: its cards"] == 3.0 and middle["flush draw: its cards"] == 3.0
    assert middle["free slots"] == 2.0 and middle["free slots squared"] == 4.0
    assert middle["most cards of one rank"] == 1.0
    trips = dict(zip(ROW_FEATURES[1], _row_features(2, counts("999"), False, TRIPS << CATEGORY_SHIFT),
                     strict=True))
    assert trips["trips or better made"] == 1.0 and trips["straight draw: its cards"] == 0.0
    assert trips["most cards of one rank"] == 3.0


def test_a_suggested_set_is_written_as_a_move_the_game_reads() -> None:
    """/ofc suggest and the terminal's hint for a whole set: the text pasted back into
    /ofc place is the suggested move (it was 'Set a / b / c', which the game refused)."""
    from engine import Hand, Rules
    from engine.notation import parse_move

    for rules, fl in ((Rules(variant="chinese"), None), (Rules(variant="pineapple"), {0: 16})):
        hand = Hand(rules, ["a", "b"], 1, fl, seed="set-text")
        req = hand.requirement(0)
        assert req is not None and req.is_set
        tip = suggest(hand, 0, "easy")
        text = tip.explanation.split("Otherwise: ", 1)[-1]  # after a natural, if one is held
        text = text.split(" (", 1)[0].rstrip(".")
        placed, dropped = parse_move(text, req)
        assert sorted(placed) == sorted(tip.placements) and set(dropped) == set(tip.discards)


def test_warm_up_fills_the_caches_once_per_variant(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot warms the AI at start: a seeded self-play fills the model's row caches; a
    variant already warmed is not played again."""
    monkeypatch.setattr(ai, "_WARMED", set())
    monkeypatch.setattr(ai, "_MODELS", {})
    assert ai.warm_up(("ofc",), hands=1) > 0
    model = ai._model(Rules(variant="ofc"), ai.DEFAULT_CONFIG)
    assert len(model._abstract) > 50 and any(model.rows)
    assert ai._WARMED == {"ofc"}

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("warmed twice")

    monkeypatch.setattr(ai, "choose_move", refuse)
    ai.warm_up(("ofc",), hands=1)


def test_tables_differing_only_in_clocks_share_the_warmed_model() -> None:
    """The AI's model (and the caches the warm-up fills) is shared by rules that differ only
    in what the AI does not read: the clocks and where the button goes."""
    plain = Rules(variant="pineapple")
    timed = plain.with_options(timer=45, set_timer=120, away_timer=0,
                               button_stays_for_fantasyland=False)
    assert timed != plain
    assert ai._model(timed, ai.DEFAULT_CONFIG) is ai._model(plain, ai.DEFAULT_CONFIG)
    assert ai._model(timed, ai.DEFAULT_CONFIG).learned is not None  # still the learned value
    assert ai._model(plain.with_options(stay_value=50), ai.DEFAULT_CONFIG) is ai._model(
        plain, ai.DEFAULT_CONFIG)  # the solver's option, not the street AI's
    strict = plain.with_options(strict_top=True)
    assert ai._model(strict, ai.DEFAULT_CONFIG) is not ai._model(plain, ai.DEFAULT_CONFIG)


def test_suggestions_say_what_their_value_is_made_of() -> None:
    """The value of a suggested last card counts the fantasyland it earns at what one is
    expected to bring: the text says how much of the figure that is (it read as points won);
    a chinese set's suggestion gives its value against a typical opponent."""
    # pineapple, button on seat 1: seat 0 draws first each street (5, then 3 a street)
    mine = ["Qh Qd Ac Ad 9s", "7c 9h 2d", "4s 3c 2c", "2h 3d 4c", "Kc 5s 6h"]
    theirs = ["Tc Td 8c 8d 6c", "5c 5d 7d", "Js Jh 6d", "Ks 7s 7h", "4h 4d 5h"]
    deck = [c for a, b in zip(mine, theirs, strict=True) for c in C(a) + C(b)]
    hand = Hand(Rules(variant="pineapple"), ["A", "B"], button=1, deck=deck)
    script = iter(["Qh Qd top Ac Ad middle 9s bottom", "7c middle 9h bottom 2d discard",
                   "4s middle 3c bottom 2c discard", "2h middle 3d bottom 4c discard"])
    while hand.to_act() != [0] or len(hand.boards[0]) < 11:
        seat = hand.to_act()[0]
        req = hand.requirement(seat)
        assert req is not None
        hand.place(seat, *(parse_move(next(script), req, hand.boards[0]) if seat == 0
                           else street_moves(req)[0]))
    tip = suggest(hand, 0, "easy", rng=random.Random(0), simulations=40)
    fl = ai.DEFAULT_CONFIG.fantasyland_value(14)  # queens on top: 14 cards
    assert "into fantasyland" in tip.explanation
    assert f"of which {fl:.1f} is what the fantasyland of 14 cards is expected to bring" in (
        tip.explanation)
    chinese = Hand(Rules(variant="chinese"), ["a", "b"], 1, seed="set-text")
    tip = suggest(chinese, 0, "easy")
    assert "best setting" in tip.explanation and "against a typical opponent" in tip.explanation
    assert f"about {signed_points(tip.value)} points" in tip.explanation
