"""Adversarial, property-based review of the engine's contract (``engine.hand`` and friends).

Covered (hypothesis drives random hands of every variant under random table options: scoring
method, strict top, fantasyland on/off, progressive, progressive stay, stay with a middle full
house, shooting the moon and its points, chinese bonuses, surrender value, table of naturals;
2-4 seats, any button, seats dealt into fantasyland at every size the rules allow, stacked
decks that hold naturals):

* every step is either a legal action (a street move, a whole set with discards, a declared
  natural, a surrender, a plain timeout) or one of a catalogue of refused ones, interleaved:
  wrong seat, out-of-range seat, a seat that is done or surrendered, wrong street (the first
  street's count later), cards not held (another seat's, the deck's), cards already placed,
  a card used twice, too many / too few cards, a full row, a row that is no row, a discard in
  ofc, no discard in pineapple, a natural in ofc / pineapple, a natural not held or not on the
  table, surrendering twice, anything after the hand is over;
* after a refused action: it raised the engine's ``IllegalAction`` (no other exception), its
  ``can_*`` said no, ``verify`` raised too, and the full serialisation, log, settlement and
  views are exactly as before; the message names the bad card / row / player;
* after every step: ``Hand.replay`` of the log and ``Hand.from_json`` of the state equal the
  hand, and a copy loaded before the step that was given the same action is equal after it
  (a loaded state continues identically); every card is in one place only; the seed deals the
  same hand again;
* redaction: ``cards_seen_by`` equals an independent statement of what a seat may see;
  ``redacted_for(seat)`` and ``view_for(seat)`` contain no card outside it (others' pending
  cards, discards, hidden sets, declared naturals before the showdown), the redacted copy's
  log holds no hidden card, its seed is not the hand's and its undealt cards are not the deck's;
* showdown: totals sum to zero and equal an independent settlement written from RULES.md
  (own evaluator, foul rule with the top's own ranks, royalties, scoring methods, chinese
  bonuses, naturals, surrender, moon); ``fantasyland_next`` equals an independent reading of
  RULES.md's entry / stay / progressive tables; board-level (``Board``, ``settle``) the same
  over boards built to hit every category;
* ``naturals_in`` against a brute-force search over every split of the 13 cards;
* ``units_moved``: sums to zero, nobody loses more than their stack, winners never get more
  than they won, proportional shares with the remainder left of the button;
* fantasyland through whole hands: a seat plays a scripted clean board with QQ/KK/AA/trips
  (or JJ, or no pair) on top, or sets a scripted board in fantasyland at every size, under
  random options: entry, stay and progressive sizes as RULES.md;
* timeouts: ``autoplay`` never fouls on a decision that completes the board when a clean
  completion exists (strict top included), a timed-out chinese or fantasyland set never fouls
  when a clean set exists, every timeout is logged ``auto``, replays, and is the same move on
  a copy loaded just before it (deterministic given the seed and the log).

The defects found (11, all fixed since) are the tests at the end whose docstrings start "Was a
defect (fixed)", each a minimal deterministic case:
a seat that is not a number, or a malformed placement (a row by name, None, a bare card),
escapes as TypeError / ValueError instead of ``IllegalAction`` (and ``can_*`` raises); a
fractional row is truncated; a card given as a plain int is logged unnormalised and the
saved hand no longer loads or replays; the "no such row" refusal names neither row nor
card; ``verify``/``apply`` of a non-action raise AttributeError; a fantasyland seat that is
not at the table raises IndexError (or, for -1, silently seats another); a saved hand with an
unknown card raises KeyError; ``from_json`` loads a state its log does not reach (or an
out-of-range turn that then raises IndexError); ``Rules`` takes "off" for on and a number as
text escapes as TypeError; and the clock (the AI's and the plain timeout) can lock in a
certain foul one or two cards early while another move keeps a clean board possible.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine import DECK, Board, Card, Rules, RulesError, parse_cards, settle, units_moved
from engine.actions import (
    AlreadyDone,
    Declare,
    HandOver,
    IllegalAction,
    NaturalNotHeld,
    NotAllowed,
    NotInHand,
    NotYourTurn,
    Place,
    RowFull,
    Surrender,
    WrongCount,
    action_from_json,
)
from engine.hand import Hand
from engine.naturals import naturals_in
from engine.rules import NATURAL_NAMES

from .strategies import boards

C = parse_cards


def slow(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# =================================================================================================
# An independent reading of RULES.md (no engine code below this line until the next banner)
# =================================================================================================
HC, PR, TP, TR, ST, FL, FH, QU, SF = range(9)


def rank(card: Card) -> int:
    return "23456789TJQKA".index(str(card)[0]) + 2


def suit(card: Card) -> str:
    return str(card)[1]


def ref_eval(cards: Sequence[Card]) -> tuple[int, tuple[int, ...]]:
    """(category, defining ranks in order) of a 3- or 5-card row, from first principles."""
    ranks = [rank(c) for c in cards]
    counts = Counter(ranks)
    groups = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    if len(cards) == 3:
        cat = {(3,): TR, (2, 1): PR}.get(tuple(shape), HC)
        return cat, tuple(groups)
    flush = len({suit(c) for c in cards}) == 1
    distinct = sorted(set(ranks))
    high = 0
    if len(distinct) == 5 and distinct[4] - distinct[0] == 4:
        high = distinct[4]
    if distinct == [2, 3, 4, 5, 14]:
        high = 5
    if high and flush:
        return SF, (high,)
    if shape == [4, 1]:
        return QU, tuple(groups)
    if shape == [3, 2]:
        return FH, tuple(groups)
    if flush:
        return FL, tuple(sorted(ranks, reverse=True))
    if high:
        return ST, (high,)
    if shape == [3, 1, 1]:
        return TR, tuple(groups)
    if shape == [2, 2, 1]:
        return TP, tuple(groups)
    if shape == [2, 1, 1, 1]:
        return PR, tuple(groups)
    return HC, tuple(sorted(ranks, reverse=True))


def ref_top_vs_middle(top: Sequence[Card], middle: Sequence[Card]) -> int:
    """-1/0/+1: the top against the middle on the top's own ranks (RULES.md)."""
    tc, tr = ref_eval(top)
    mc, mr = ref_eval(middle)
    a, b = (tc, tr), (mc, mr[: len(tr)])
    return (a > b) - (a < b)


def ref_foul(rows: Sequence[Sequence[Card]], rules: Rules) -> bool:
    top, middle, bottom = rows
    if ref_eval(middle) > ref_eval(bottom):
        return True
    t = ref_top_vs_middle(top, middle)
    return t >= 0 if rules.strict_top else t > 0


def ref_royalties(rows: Sequence[Sequence[Card]], rules: Rules) -> int:
    if rules.variant == "chinese" or ref_foul(rows, rules):
        return 0
    (tc, tr), (mc, mr), (bc, br) = (ref_eval(r) for r in rows)
    top = {TR: 10 + tr[0] - 2, PR: max(0, tr[0] - 5)}.get(tc, 0)
    middle = {TR: 2, ST: 4, FL: 8, FH: 12, QU: 20, SF: 50 if mr[0] == 14 else 30}.get(mc, 0)
    bottom = {ST: 2, FL: 4, FH: 6, QU: 10, SF: 25 if br[0] == 14 else 15}.get(bc, 0)
    return top + middle + bottom


def ref_fantasyland_next(rows: Sequence[Sequence[Card]], rules: Rules, in_fl: bool) -> int:
    """Cards of the next fantasyland hand a finished, set board earns (RULES.md)."""
    if rules.variant == "chinese" or not rules.fantasyland or ref_foul(rows, rules):
        return 0
    (tc, tr), (mc, mr), (bc, br) = (ref_eval(r) for r in rows)
    if not in_fl:  # entry: QQ or better on top
        if not (tc == TR or (tc == PR and tr[0] >= 12)):
            return 0
        if rules.variant == "ofc":
            return 13
        if not rules.progressive:
            return 14
        return 17 if tc == TR else {12: 14, 13: 15, 14: 16}[tr[0]]
    trips_top = tc == TR
    mid_fh = mc >= FH and rules.stay_middle_full_house
    bot_quads = bc >= QU
    if not (trips_top or mid_fh or bot_quads):
        return 0
    if rules.variant == "ofc":
        return 13
    if not rules.progressive_stay:
        return 14
    sizes = [14]
    if trips_top or (mc == SF and mr[0] == 14) or (bc == SF and br[0] == 14):
        sizes.append(15)
    return max(sizes)


def ref_moon(rows: Sequence[Sequence[Card]], rules: Rules) -> bool:
    if not rules.shoot_the_moon or ref_foul(rows, rules):
        return False
    cat, ranks = ref_eval(rows[2])
    return cat == HC and ranks[0] <= 11


CHINESE_BONUS = ({TR: 3}, {FH: 2, QU: 8, SF: 10}, {QU: 4, SF: 5})


def ref_settle(
    boards: Sequence[Sequence[Sequence[Card]] | None], rules: Rules,
    surrendered: Sequence[bool], naturals: Sequence[str | None],
) -> list[int]:
    """Points per seat (RULES.md; README's choices where RULES.md leaves room)."""
    n = len(boards)
    chinese = rules.variant == "chinese"
    values = dict(rules.naturals)
    fouled = [surrendered[i] and not chinese if (surrendered[i] or naturals[i])
              else ref_foul(boards[i], rules) for i in range(n)]  # type: ignore[arg-type]
    roy = [0 if (surrendered[i] or naturals[i] or fouled[i])
           else ref_royalties(boards[i], rules) for i in range(n)]  # type: ignore[arg-type]
    moon = [not (surrendered[i] or naturals[i]) and ref_moon(boards[i], rules)  # type: ignore
            for i in range(n)]
    scoop = {"1-6": 3, "2-4": 0, "1-4": 1, "1-3": 0}[rules.scoring_method]
    overall = 1 if rules.scoring_method == "2-4" else 0
    totals = [0] * n
    for a, b in itertools.combinations(range(n), 2):
        pts = 0
        if chinese and (surrendered[a] or surrendered[b]):
            if surrendered[a] != surrendered[b]:
                pts = -rules.chinese_surrender if surrendered[a] else rules.chinese_surrender
        elif naturals[a] or naturals[b]:
            va = values.get(naturals[a], 0) if naturals[a] else 0
            vb = values.get(naturals[b], 0) if naturals[b] else 0
            pts = va if va > vb else -vb if vb > va else 0
        elif not (fouled[a] and fouled[b]):
            if fouled[a] or fouled[b]:
                outcome = [-1 if fouled[a] else 1] * 3
            else:
                outcome = []
                for r in range(3):
                    x = ref_eval(boards[a][r])  # type: ignore[index]
                    y = ref_eval(boards[b][r])  # type: ignore[index]
                    outcome.append((x > y) - (x < y))
            for r, o in enumerate(outcome):
                if o == 0:
                    continue
                winner = a if o > 0 else b
                unit = 1
                if chinese and rules.chinese_bonuses:
                    unit = CHINESE_BONUS[r].get(ref_eval(boards[winner][r])[0], 1)  # type: ignore
                pts += o * unit
            won, lost = outcome.count(1), outcome.count(-1)
            pts += scoop * ((won == 3) - (lost == 3)) + overall * ((won > lost) - (won < lost))
            pts += roy[a] - roy[b]
        if not (chinese and (surrendered[a] or surrendered[b])) and not (
            naturals[a] or naturals[b]
        ):
            pts += rules.shoot_the_moon_points * (moon[a] - moon[b])
        totals[a] += pts
        totals[b] -= pts
    return totals


def _straight3(ranks: Sequence[int]) -> bool:
    s = sorted(ranks)
    return s in ([2, 3, 14],) or (len(set(s)) == 3 and s[2] - s[0] == 2)


def ref_naturals(cards: Sequence[Card]) -> set[str]:
    """Brute force over every split into 3 + 5 + 5 (and the counting rules of README)."""
    ranks = Counter(rank(c) for c in cards)
    found = set()
    if sum(v // 2 for v in ranks.values()) >= 6:
        found.add("six pairs")
    if len(ranks) == 13:
        found.add("dragon")
    straights = flushes = False
    for top in itertools.combinations(range(13), 3):
        rest = [i for i in range(13) if i not in top]
        t = [cards[i] for i in top]
        t_straight = _straight3([rank(c) for c in t])
        t_flush = len({suit(c) for c in t}) == 1
        if not (t_straight or t_flush):
            continue
        for mid in itertools.combinations(rest, 5):
            m = [cards[i] for i in mid]
            b = [cards[i] for i in rest if i not in mid]
            if t_straight and not straights:
                straights = all(ref_eval(x)[0] in (ST, SF) for x in (m, b))
            if t_flush and not flushes:
                flushes = all(ref_eval(x)[0] in (FL, SF) for x in (m, b))
    if straights:
        found.add("three straights")
    if flushes:
        found.add("three flushes")
    return found


# =================================================================================================
# Strategies
# =================================================================================================
@st.composite
def rules_st(draw: st.DrawFn, variant: str | None = None) -> Rules:
    v = variant or draw(st.sampled_from(["ofc", "pineapple", "chinese"]))
    kw: dict[str, Any] = {
        "variant": v,
        "scoring": draw(st.sampled_from(["1-6", "2-4", "1-4", "1-3"])),
        "strict_top": draw(st.booleans()),
        "shoot_the_moon": draw(st.booleans()),
        "shoot_the_moon_points": draw(st.sampled_from([0, 1, 20, 37])),
    }
    if v == "chinese":
        kw["chinese_bonuses"] = draw(st.booleans())
        kw["chinese_surrender"] = draw(st.sampled_from([0, 3, 5]))
        table = []
        for name in NATURAL_NAMES:
            value = draw(st.sampled_from([0, 3, 3, 7, 13]))
            if value:
                table.append((name, value))
        kw["naturals"] = tuple(table)
    else:
        kw["fantasyland"] = draw(st.booleans())
        kw["stay_middle_full_house"] = draw(st.booleans())
        kw["button_stays_for_fantasyland"] = draw(st.booleans())
        if v == "pineapple":
            kw["progressive"] = draw(st.booleans())
            kw["progressive_stay"] = kw["progressive"] and draw(st.booleans())
    return Rules(**kw)


def _natural_hand(kind: str, rng: random.Random) -> list[Card]:
    """13 cards that hold ``kind`` (a natural)."""
    deck = list(DECK)
    rng.shuffle(deck)
    if kind == "dragon":
        return [next(c for c in deck if rank(c) == r) for r in range(2, 15)]
    if kind == "six pairs":
        ranks = rng.sample(range(2, 15), 7)
        out = []
        for r in ranks[:6]:
            out += [c for c in deck if rank(c) == r][:2]
        return out + [next(c for c in deck if rank(c) == ranks[6])]
    if kind == "three flushes":
        suits = rng.sample("cdhs", 3)
        out = []
        for s, k in zip(suits, (3, 5, 5), strict=True):
            out += [c for c in deck if suit(c) == s][:k]
        return out
    # three straights
    while True:
        lows = [rng.randint(1, 12), rng.randint(1, 10), rng.randint(1, 10)]  # 1: ace low
        sizes = (3, 5, 5)
        want: Counter[int] = Counter()
        for lo, k in zip(lows, sizes, strict=True):
            for r in range(lo, lo + k):
                want[14 if r == 1 else r] += 1
        if max(want.values()) <= 4:
            out = []
            for r, k in want.items():
                out += [c for c in deck if rank(c) == r][:k]
            if len(out) == 13:
                return out


@st.composite
def hands_st(draw: st.DrawFn, variant: str | None = None) -> Hand:
    rules = draw(rules_st(variant))
    n = draw(st.integers(2, rules.max_players))
    button = draw(st.integers(0, n - 1))
    seed = draw(st.integers(0, 10**9))
    fl: dict[int, int] = {}
    if rules.has_fantasyland and draw(st.integers(0, 2)) == 0:
        sizes = [13] if rules.variant == "ofc" else [14, 15, 16, 17] if rules.progressive else [14]
        for seat in range(n):
            if draw(st.booleans()):
                fl[seat] = draw(st.sampled_from(sizes))
    deck = None
    if rules.variant == "chinese" and draw(st.integers(0, 2)) == 0:
        rng = random.Random(seed)
        kind = draw(st.sampled_from(list(NATURAL_NAMES)))
        deck = _natural_hand(kind, rng)
    return Hand(rules, [f"P{i}" for i in range(n)], button, fl, seed=seed, deck=deck)


# =================================================================================================
# Checks
# =================================================================================================
def snapshot(h: Hand) -> tuple[Any, ...]:
    return (
        json.dumps(h.to_json(), sort_keys=True),
        list(h.log),
        None if h.settlement is None else json.dumps(h.settlement.to_json(), sort_keys=True),
        h.fantasyland_next,
        json.dumps([h.view_for(s) for s in [None, *range(h.n)]], sort_keys=True, default=str),
    )


def held_cards(h: Hand) -> list[Card]:
    out: list[Card] = []
    for s in range(h.n):
        out += [*h.boards[s].cards, *h.pending[s], *h.discards[s], *h.natural_cards[s]]
    return out


def ref_seen(h: Hand, viewer: int | None) -> set[Card]:
    """What RULES.md lets ``viewer`` see: own cards; other boards unless set face down
    (fantasyland / chinese) before the showdown; a declared natural's cards at the showdown."""
    seen: set[Card] = set()
    for s in range(h.n):
        own = s == viewer
        face_down = not h.is_over and (h.rules.variant == "chinese" or bool(h.fantasyland[s]))
        if own or not face_down:
            seen.update(h.boards[s].cards)
        if own:
            seen.update(h.pending[s], h.discards[s], h.natural_cards[s])
        elif h.is_over:
            seen.update(h.natural_cards[s])
    return seen


def _cards_in(obj: Any) -> set[Card]:
    """Every card text anywhere in a JSON-like structure."""
    text = json.dumps(obj, default=str)
    return {c for c in DECK if f'"{c}"' in text}


def check_invariants(h: Hand) -> None:
    data = h.to_json()
    assert Hand.from_json(data) == h
    assert Hand.from_json(json.loads(json.dumps(data))) == h
    assert Hand.replay(json.loads(json.dumps(data))) == h
    cards = held_cards(h)
    assert len(cards) == len(set(cards)) == h._next
    assert set(cards) == set(h._deck[: h._next])
    for viewer in [None, *range(h.n)]:
        seen = h.cards_seen_by(viewer)
        assert seen == ref_seen(h, viewer), viewer
        view = h.view_for(viewer)
        assert _cards_in(view) <= seen
        for entry in view["seats"]:
            if entry["seat"] != viewer and not h.is_over:
                assert entry["natural"] is None and "discards" not in entry
        if viewer is not None and not h.is_over:
            r = h.redacted_for(viewer)
            rj = r.to_json()
            deck = rj.pop("deck")
            assert _cards_in(rj) <= seen, viewer
            assert rj["seed"] != h.seed
            assert set(deck[r._next:]) == {str(c) for c in DECK} - {str(c) for c in seen}
            undealt = [str(c) for c in h._deck[h._next:]]
            if len(undealt) >= 12:
                assert deck[-len(undealt):] != undealt
            for other in range(h.n):
                if other != viewer:
                    assert r.naturals[other] is None and r.natural_cards[other] == ()
                    assert r.pending[other] == () and r.discards[other] == ()
            assert r.requirement(viewer) == h.requirement(viewer)
    if h.is_over:
        check_showdown(h)


def check_showdown(h: Hand) -> None:
    s = h.settlement
    assert s is not None and sum(s.totals) == 0
    rows = [h.boards[i].rows if h.boards[i].is_complete else None for i in range(h.n)]
    expect = ref_settle(rows, h.rules, h.surrendered, h.naturals)
    assert s.totals == expect, (s.totals, expect, [str(b) for b in h.boards])
    nxt = []
    for i in range(h.n):
        if h.surrendered[i] or h.naturals[i] or rows[i] is None:
            nxt.append(0)
        else:
            nxt.append(ref_fantasyland_next(rows[i], h.rules, bool(h.fantasyland[i])))
    assert list(h.fantasyland_next) == nxt, ([str(b) for b in h.boards], h.fantasyland)


# -- the actions -------------------------------------------------------------------------------
Attempt = tuple[str, int, Any, Any]
"""("place", seat, placements, discards) / ("declare", seat, natural, None) /
("surrender", seat, None, None) / ("autoplay", seat, None, None)."""


def _can(h: Hand, a: Attempt) -> bool:
    kind, seat, x, y = a
    if kind == "place":
        return h.can_place(seat, x, y)
    if kind == "declare":
        return h.can_declare(seat, x)
    if kind == "surrender":
        return h.can_surrender(seat)
    try:
        h._verify_actor(seat)
    except IllegalAction:
        return False
    return True


def _verify(h: Hand, a: Attempt) -> None:
    kind, seat, x, y = a
    if kind == "place":
        h.verify_place(seat, x, y)
        h.verify(Place(seat, tuple(x), tuple(y)))
    elif kind == "declare":
        h.verify_declare(seat, x)
        h.verify(Declare(seat, x))
    elif kind == "surrender":
        h.verify_surrender(seat)
        h.verify(Surrender(seat))
    else:
        h._verify_actor(seat)


def _do(h: Hand, a: Attempt) -> Any:
    kind, seat, x, y = a
    if kind == "place":
        return h.place(seat, x, y)
    if kind == "declare":
        return h.declare(seat, x)
    if kind == "surrender":
        return h.surrender(seat)
    return h.autoplay(seat, plain=True)


def legal_attempts(h: Hand, rng: random.Random) -> list[Attempt]:
    out: list[Attempt] = []
    for seat in h.to_act():
        req = h.requirement(seat)
        assert req is not None
        if req.is_set:
            cards = list(req.cards)
            rng.shuffle(cards)
            rows = [0] * 3 + [1] * 5 + [2] * 5
            out.append(("place", seat, list(zip(cards[:13], rows, strict=True)), cards[13:]))
            for name in naturals_in(req.cards):  # (in chinese only: a fantasyland set
                # of ofc or pineapple may hold one too, and declaring it is refused there)
                if name in h.rules.natural_values and h.rules.variant == "chinese":
                    out.append(("declare", seat, name, None))
        else:
            moves = h.legal_moves(seat)
            placed, dropped = rng.choice(moves)
            out.append(("place", seat, list(placed), list(dropped)))
        out.append(("autoplay", seat, None, None))
    if rng.random() < 0.1:
        seats = [s for s in range(h.n) if h.can_surrender(s)]
        if seats:
            out.append(("surrender", rng.choice(seats), None, None))
    return out


def illegal_attempts(h: Hand, rng: random.Random) -> list[tuple[Attempt, type[IllegalAction]]]:
    """Actions that must be refused now, with the refusal expected."""
    out: list[tuple[Attempt, type[IllegalAction]]] = []
    n = h.n
    any_card = rng.choice(DECK)
    if h.is_over:
        for seat in range(n):
            out += [(("place", seat, [(any_card, 0)], []), HandOver),
                    (("surrender", seat, None, None), HandOver),
                    (("autoplay", seat, None, None), HandOver)]
            if h.rules.variant == "chinese":
                out.append((("declare", seat, "dragon", None), HandOver))
        return out
    for seat in (-1, n, n + 5):
        out += [(("place", seat, [], []), NotAllowed), (("surrender", seat, None, None),
                                                         NotAllowed)]
    for seat in range(n):
        if h.surrendered[seat]:
            out += [(("surrender", seat, None, None), AlreadyDone),
                    (("place", seat, [], []), AlreadyDone)]
        elif h.done[seat]:
            out += [(("surrender", seat, None, None), AlreadyDone),
                    (("place", seat, [], []), AlreadyDone),
                    (("autoplay", seat, None, None), AlreadyDone)]
        elif not h.may_act(seat):
            out.append((("place", seat, [], []), NotYourTurn))
            out.append((("autoplay", seat, None, None), NotYourTurn))
        if h.rules.variant != "chinese":
            out.append((("declare", seat, "dragon", None), NotAllowed))
    for seat in h.to_act():
        req = h.requirement(seat)
        assert req is not None
        if req.is_set:
            cards = list(req.cards)
            rows = [0] * 3 + [1] * 5 + [2] * 5
            good = list(zip(cards[:13], rows, strict=True))
            drop = cards[13:]
        else:
            placed, dropped = rng.choice(h.legal_moves(seat))
            good, drop = list(placed), list(dropped)
        board = h.boards[seat]
        mine = set(req.cards) | set(board.cards)
        foreign = [c for c in DECK if c not in mine]
        if h.rules.variant == "chinese":
            held = naturals_in(req.cards)
            for name in NATURAL_NAMES:
                if name not in held:
                    out.append((("declare", seat, name, None),
                                NaturalNotHeld if name in h.rules.natural_values else NotAllowed))
            out.append((("declare", seat, "royal natural", None), NotAllowed))
        k = rng.randrange(len(good))
        c0, r0 = good[k]
        # a card not held (another seat's pending card or board card or the deck's)
        others = [c for s in range(n) if s != seat
                  for c in (*h.pending[s], *h.boards[s].cards, *h.discards[s])]
        for bad in {rng.choice(foreign), *(rng.sample(others, 1) if others else [])}:
            out.append((("place", seat, [*good[:k], (bad, r0), *good[k + 1:]], drop), NotInHand))
        if board.cards:  # a card already placed
            out.append((("place", seat, [*good[:k], (rng.choice(board.cards), r0),
                                         *good[k + 1:]], drop), NotInHand))
        # a card used twice
        if len(good) > 1:
            out.append((("place", seat, [*good[:k], (good[k - 1][0], r0), *good[k + 1:]], drop),
                        WrongCount))
        # too few / too many
        out.append((("place", seat, good[:-1], drop), WrongCount))
        if drop:
            out.append((("place", seat, [*good, (drop[0], 2)], drop[1:]), WrongCount))
            out.append((("place", seat, good, []), WrongCount))  # keeps what must go
        else:
            # a discard where there is none (ofc, a first street, an ofc fantasyland)
            out.append((("place", seat, good[:-1], [good[-1][0]]), WrongCount))
        # a row that is no row
        for row in (3, -1, 7):
            out.append((("place", seat, [*good[:k], (c0, row), *good[k + 1:]], drop), NotAllowed))
        # a full row: every kept card on a row without the room
        for row in range(3):
            if req.free[row] < len(good):
                out.append((("place", seat, [(c, row) for c, _ in good], drop), RowFull))
        # the wrong street: the first street's count on a later street, and vice versa
        if not req.is_set and h.street > 1:
            out.append((("place", seat, [*good, *((c, 2) for c in foreign[:4])], drop),
                        NotInHand))
    return out


def check_refused(h: Hand, attempt: Attempt, expected: type[IllegalAction]) -> None:
    before = snapshot(h)
    assert not _can(h, attempt), attempt
    with pytest.raises(IllegalAction) as verified:
        _verify(h, attempt)
    with pytest.raises(IllegalAction) as done:
        _do(h, attempt)
    assert isinstance(done.value, expected), (attempt, done.value)
    assert type(verified.value) is type(done.value)
    assert snapshot(h) == before, attempt
    _check_message(attempt, done.value)


def _check_message(attempt: Attempt, err: IllegalAction) -> None:
    msg = str(err)
    assert msg.strip(), attempt
    if isinstance(err, NotInHand):
        kind, seat, placed, drop = attempt
        named = [str(c) for c, _ in placed] + [str(c) for c in drop]
        assert any(c in msg for c in named), msg
    if isinstance(err, RowFull):
        assert any(r in msg for r in ("top", "middle", "bottom")), msg


def run_hand(h: Hand, data: st.DataObject, steps: int = 80, illegal_every: int = 1) -> None:
    rng = random.Random(data.draw(st.integers(0, 2**32), label="rng"))
    check_invariants(h)
    for step in range(steps):
        if step % illegal_every == 0:
            bad = illegal_attempts(h, rng)
            for attempt, expected in rng.sample(bad, min(4, len(bad))):
                check_refused(h, attempt, expected)
        if h.is_over:
            break
        options = legal_attempts(h, rng)
        attempt = options[data.draw(st.integers(0, len(options) - 1), label="legal")]
        loaded = Hand.from_json(h.to_json())
        assert _can(h, attempt), attempt
        _verify(h, attempt)
        action = _do(h, attempt)
        assert h.log[-1] == action
        loaded.apply(action_from_json(json.loads(json.dumps(action.to_json()))))
        assert loaded == h
        check_invariants(h)
    assert h.is_over
    assert h.settlement is not None
    event(f"{h.rules.variant} {h.n} seats, fantasyland seats {sum(map(bool, h.fantasyland))}")
    event(f"clean boards {sum(1 for f in h.settlement.fouled if not f)}")
    for what, flag in (("surrender", any(h.surrendered)), ("natural", any(h.naturals)),
                       ("fantasyland next", any(h.fantasyland_next)),
                       ("moon", any(h.settlement.moon))):
        if flag:
            event(what)


# =================================================================================================
# Properties that hold
# =================================================================================================
@slow(100)
@given(hands_st(), st.data())
def test_random_hands_refusals_change_nothing_and_every_step_persists(h: Hand,
                                                                      data: st.DataObject) -> None:
    """Random legal and refused actions interleaved, every variant and option; the
    invariants of the module docstring after every step, the settlement and fantasyland
    flags against RULES.md at the end."""
    run_hand(h, data)


@slow(30)
@given(hands_st("chinese"), st.data())
def test_chinese_hands_with_naturals(h: Hand, data: st.DataObject) -> None:
    run_hand(h, data)


@slow(10)
@given(st.integers(0, 10**6), st.sampled_from(["ofc", "pineapple", "chinese"]))
def test_the_seed_deals_the_same_hand(seed: int, variant: str) -> None:
    rules = Rules(variant=variant)
    a = Hand(rules, ["a", "b", "c"], 1, seed=seed)
    b = Hand(rules, ["a", "b", "c"], 1, seed=str(seed))
    assert a == b and a._deck == b._deck


# -- boards and settlement against the reference --------------------------------------------------
_MADE = ["random", "pair", "two pair", "trips", "straight", "flush", "full house", "quads",
         "straight flush", "royal"]


def _made_row(kind: str, size: int, free: list[Card], rng: random.Random) -> list[Card] | None:
    by_rank: dict[int, list[Card]] = {}
    for c in free:
        by_rank.setdefault(rank(c), []).append(c)
    ranks = list(by_rank)
    rng.shuffle(ranks)

    def group(k: int, exclude: Sequence[int] = ()) -> list[Card] | None:
        for r in ranks:
            if r not in exclude and len(by_rank[r]) >= k:
                return rng.sample(by_rank[r], k)
        return None

    if kind == "random" or (size == 3 and kind not in ("pair", "trips")):
        return rng.sample(free, size)
    if kind in ("pair", "trips", "quads"):
        k = {"pair": 2, "trips": 3, "quads": 4}[kind]
        g = group(k)
        if g is None:
            return None
        rest = [c for c in free if rank(c) != rank(g[0])]
        return g + rng.sample(rest, size - k) if len(rest) >= size - k else None
    if kind == "two pair":
        a = group(2)
        b = a and group(2, [rank(a[0])])
        if not (a and b):
            return None
        rest = [c for c in free if rank(c) not in (rank(a[0]), rank(b[0]))]
        return a + b + rng.sample(rest, 1) if rest else None
    if kind == "full house":
        a = group(3)
        b = a and group(2, [rank(a[0])])
        return a + b if a and b else None
    if kind == "flush":
        s = rng.choice("cdhs")
        pool = [c for c in free if suit(c) == s]
        return rng.sample(pool, 5) if len(pool) >= 5 else None
    lo = 10 if kind == "royal" else rng.randint(1, 10)
    s = rng.choice("cdhs")
    out = []
    for r in range(lo, lo + 5):
        r = 14 if r == 1 else r
        pool = [c for c in free if rank(c) == r and (kind == "straight" or suit(c) == s)]
        if not pool:
            return None
        out.append(rng.choice(pool))
    return out


def _boards(rng: random.Random, n: int) -> list[Board]:
    free = list(DECK)
    out = []
    for _ in range(n):
        rows = []
        for size in (3, 5, 5):
            row = None
            for _ in range(5):
                row = row or _made_row(rng.choice(_MADE), size, free, rng)
            row = row or rng.sample(free, size)
            free = [c for c in free if c not in row]
            rows.append(row)
        if rng.random() < 0.7 and ref_eval(rows[1]) > ref_eval(rows[2]):
            rows[1], rows[2] = rows[2], rows[1]
        if rng.random() < 0.5 and rng.random() < 0.5:
            top = rows[0]
            rows[0] = sorted(top, key=rank)
        out.append(Board(tuple(rows[0]), tuple(rows[1]), tuple(rows[2])))
    return out


@slow(400)
@given(rules_st(), st.integers(0, 2**32), st.booleans())
def test_boards_foul_royalties_fantasyland_moon_match_rules_md(rules: Rules, seed: int,
                                                               in_fl: bool) -> None:
    (board,) = _boards(random.Random(seed), 1)
    rows = board.rows
    assert board.is_foul(rules) == ref_foul(rows, rules), str(board)
    assert board.royalties(rules) == ref_royalties(rows, rules), str(board)
    got = board.fantasyland_stay_cards(rules) if in_fl else board.fantasyland_cards(rules)
    assert got == ref_fantasyland_next(rows, rules, in_fl), str(board)


@slow(300)
@given(rules_st(), st.integers(0, 2**32), st.integers(2, 4), st.data())
def test_settle_sums_to_zero_and_matches_rules_md(rules: Rules, seed: int, n: int,
                                                  data: st.DataObject) -> None:
    rng = random.Random(seed)
    boards = _boards(rng, n)
    surrendered = [data.draw(st.integers(0, 5)) == 0 for _ in range(n)]
    naturals: list[str | None] = [None] * n
    if rules.variant == "chinese" and rules.naturals:
        for i in range(n):
            if not surrendered[i] and data.draw(st.integers(0, 3)) == 0:
                naturals[i] = data.draw(st.sampled_from([x for x, _ in rules.naturals]))
    s = settle(boards, rules, [i for i in range(n) if surrendered[i]],
               {i: x for i, x in enumerate(naturals) if x})
    assert sum(s.totals) == 0
    assert s.totals == ref_settle([b.rows for b in boards], rules, surrendered, naturals), (
        [str(b) for b in boards])
    m = s.matrix()
    assert all(m[i][j] == -m[j][i] for i in range(n) for j in range(n))


@slow(150)
@given(rules_st(), boards(n=4), st.integers(2, 4))
def test_shuffled_boards_settle_as_rules_md(rules: Rules, dealt: list[Board], n: int) -> None:
    """The shared strategy's boards (a shuffled deck cut into boards: mostly fouls)."""
    s = settle(dealt[:n], rules)
    assert sum(s.totals) == 0
    assert s.totals == ref_settle([b.rows for b in dealt[:n]], rules, [False] * n, [None] * n)
    for b in dealt[:n]:
        assert b.fantasyland_cards(rules) == ref_fantasyland_next(b.rows, rules, False)
        assert b.fantasyland_stay_cards(rules) == ref_fantasyland_next(b.rows, rules, True)


def test_worked_examples_of_rules_md() -> None:
    rules = Rules()
    L = Board.parse("Qh Qd 2s / Kh Kd Ks 4c 3d / 9c Tc Jc Qc Kc")
    R = Board.parse("Ks 8c 3s / Jh Jd 9c 5d 2c / Qs Qc As 7c 4d")
    F = Board.parse("Ah Ad Kc / As Ac Qd 7s 3c / Js Jc 9d 5h 2c")
    assert ref_royalties(L.rows, rules) == L.royalties(rules) == 24
    assert ref_settle([L.rows, R.rows], rules, [False] * 2, [None] * 2) == [30, -30]
    assert ref_foul(F.rows, rules) and F.is_foul(rules)
    assert ref_settle([L.rows, R.rows, F.rows], rules, [False] * 3, [None] * 3) == [60, -24, -36]
    assert settle([L, R, F], rules).totals == [60, -24, -36]
    assert ref_fantasyland_next(L.rows, rules, False) == L.fantasyland_cards(rules) == 13


@slow(40)
@given(st.integers(0, 2**32), st.sampled_from(["dragon", "six pairs", "three flushes",
                                               "three straights", "near"]))
def test_naturals_match_a_brute_force_search(seed: int, kind: str) -> None:
    rng = random.Random(seed)
    if kind == "near":  # a natural with one card swapped: often none
        cards = _natural_hand(rng.choice(list(NATURAL_NAMES)), rng)
        cards[rng.randrange(13)] = rng.choice([c for c in DECK if c not in cards])
    else:
        cards = _natural_hand(kind, rng)
        assert kind in ref_naturals(cards)
    assert set(naturals_in(cards)) == ref_naturals(cards), [str(c) for c in cards]


@slow(400)
@given(st.integers(2, 4), st.data())
def test_units_moved_sums_to_zero_and_caps_every_loss(n: int, data: st.DataObject) -> None:
    m = [[0] * n for _ in range(n)]
    for i, j in itertools.combinations(range(n), 2):
        m[i][j] = data.draw(st.integers(-60, 60))
        m[j][i] = -m[i][j]
    stacks = [data.draw(st.integers(0, 80)) for _ in range(n)]
    unit = data.draw(st.integers(1, 5))
    button = data.draw(st.integers(0, n - 1))
    got = units_moved(m, unit, stacks, button)
    owed = [sum(r) * unit for r in m]
    assert sum(got) == 0
    assert all(got[i] >= -stacks[i] for i in range(n))
    assert all(got[i] <= owed[i] for i in range(n) if owed[i] >= 0)
    if all(owed[i] >= -stacks[i] for i in range(n)):
        assert got == owed
    assert units_moved(m, unit) == owed


def test_units_moved_shares_in_proportion_remainder_left_of_the_button() -> None:
    assert units_moved([[0, -30, -10], [30, 0, 0], [10, 0, 0]], 1, [20, 99, 99], 0) == [-20, 15, 5]
    assert units_moved([[0, -10, -10], [10, 0, 0], [10, 0, 0]], 1, [5, 99, 99], 0) == [-5, 3, 2]
    assert units_moved([[0, -10, -10], [10, 0, 0], [10, 0, 0]], 1, [5, 99, 99], 1) == [-5, 2, 3]


# -- timeouts ----------------------------------------------------------------------------------
def _to_last_decision(h: Hand, seat: int, rng: random.Random) -> bool:
    """Random legal play until ``seat`` faces the decision that completes its board."""
    while not h.is_over:
        req = h.requirement(seat)
        if req is not None and not req.is_set and sum(req.free) == req.place:
            return True
        actor = rng.choice(h.to_act())
        r = h.requirement(actor)
        assert r is not None
        if r.is_set:
            h.autoplay(actor, plain=True)
        else:
            placed, dropped = rng.choice(h.legal_moves(actor))
            h.place(actor, placed, dropped)
    return False


@slow(25)
@given(st.sampled_from(["ofc", "pineapple"]), st.booleans(), st.booleans(),
       st.integers(0, 10**6))
def test_a_timeout_never_fouls_the_last_decision_when_a_clean_one_exists(
    variant: str, strict: bool, plain: bool, seed: int
) -> None:
    rules = Rules(variant=variant, strict_top=strict)
    h = Hand(rules, ["a", "b"], 1, seed=seed)
    rng = random.Random(seed)
    seat = rng.randrange(2)
    if not _to_last_decision(h, seat, rng):
        return
    clean = [m for m in h.legal_moves(seat)
             if not h.boards[seat].place(m[0]).is_foul(rules)]
    twin = Hand.from_json(h.to_json())
    move = h.autoplay(seat, plain=plain)
    assert isinstance(move, Place) and move.auto
    assert twin.autoplay(seat, plain=plain) == move  # deterministic given the seed and log
    if clean:
        assert not h.boards[seat].is_foul(rules), (str(h.boards[seat]), move)


@slow(12)
@given(rules_st(), st.integers(0, 10**6))
def test_a_timed_out_set_never_fouls_when_a_clean_set_exists(rules: Rules, seed: int) -> None:
    """A chinese set or a fantasyland set (any size the rules deal) by the clock: a clean
    setting exists for every 13+ cards without strict top (the greedy set), and with strict
    top nearly always; the clock's must be clean whenever the greedy one is."""
    from engine.autoplay import greedy_set

    fl = {} if rules.variant == "chinese" else {0: 13 if rules.variant == "ofc" else
                                                 (17 if rules.progressive else 14)}
    if fl and not rules.has_fantasyland:
        rules = rules.with_options(fantasyland=True)
    h = Hand(rules, ["a", "b"], 1, fl, seed=seed)
    req = h.requirement(0)
    assert req is not None and req.is_set
    twin = Hand.from_json(h.to_json())
    move = h.autoplay(0)
    assert twin.autoplay(0) == move
    if isinstance(move, Place):
        clean_exists = not greedy_set(req.cards)[0].is_foul(rules)
        if clean_exists:
            assert not h.boards[0].is_foul(rules), str(h.boards[0])


@slow(6)
@given(hands_st(), st.integers(0, 2**32))
def test_timeouts_are_logged_replay_and_continue_identically_after_a_load(h: Hand,
                                                                          seed: int) -> None:
    """Every decision by the clock (the AI at the easy level, the solver for sets), some
    seats surrendering: each timeout is the same on a copy loaded just before it, is logged
    as ``auto`` and replays; the showdown as RULES.md."""
    rng = random.Random(seed)
    while not h.is_over:
        seat = rng.choice(h.to_act())
        if rng.random() < 0.05:
            h.surrender(seat)
            continue
        loaded = Hand.from_json(json.loads(json.dumps(h.to_json())))
        move = h.autoplay(seat)
        assert move.auto and h.log[-1] == move
        assert loaded.autoplay(seat) == move
        assert loaded == h
    assert Hand.replay(h.to_json()) == h
    check_showdown(h)


@given(st.integers(0, 3), st.integers(2, 4), st.lists(st.integers(0, 17), min_size=2,
                                                       max_size=4), st.booleans())
def test_the_button_moves_clockwise_unless_a_fantasyland_is_coming(
    button: int, players: int, fl: list[int], stays: bool
) -> None:
    from engine.hand import next_button

    rules = Rules(button_stays_for_fantasyland=stays)
    button %= players
    expect = button if stays and any(fl) else (button + 1) % players
    assert next_button(button, players, fl, rules) == expect


# -- fantasyland through whole hands --------------------------------------------------------------
_ENTRY_TOPS = ["Qh Qd 2c", "Kh Kd 2c", "Ah Ad 2c", "2h 2d 2s", "Jh Jd 2c", "Ah Ad As", "Ah Kd 2c"]
_MIDDLE, _BOTTOM = C("3c 4d 5h 6c 7d"), C("4s 8s 9s Ts Qs")


def _scripted_hand(rules: Rules, rows: Sequence[Sequence[Card]]) -> Hand:
    """Two seats, button 0: seat 1 acts first and is dealt exactly the cards of ``rows`` (and
    fillers to discard), which it plays to those rows; seat 0 plays randomly."""
    spec_first, deal = 5, (1 if rules.variant == "ofc" else 3)
    keep = 1 if rules.variant == "ofc" else 2
    order = [c for row in rows for c in row]
    rest = [c for c in DECK if c not in order]
    deck = order[:spec_first] + rest[:spec_first]
    r = spec_first
    later = order[spec_first:]
    for k in range(len(later) // keep):
        deck += later[keep * k: keep * k + keep] + rest[r: r + deal - keep]
        r += deal - keep
        deck += rest[r: r + deal]
        r += deal
    h = Hand(rules, ["a", "b"], 0, seed=7, deck=deck)
    where = {c: i for i, row in enumerate(rows) for c in row}
    rng = random.Random(3)
    while not h.is_over:
        seat = h.to_act()[0]
        req = h.requirement(seat)
        assert req is not None
        if seat == 1:
            kept = [c for c in req.cards if c in where]
            h.place(1, [(c, where[c]) for c in kept], [c for c in req.cards if c not in where])
        else:
            h.place(seat, *rng.choice(h.legal_moves(seat)))
    assert h.boards[1].rows == tuple(tuple(x) for x in rows)
    return h


@slow(40)
@given(st.sampled_from(["ofc", "pineapple"]).flatmap(rules_st), st.sampled_from(_ENTRY_TOPS))
def test_fantasyland_entry_through_a_whole_hand(rules: Rules, top: str) -> None:
    """Seat 1 plays a clean board with ``top`` on top; its
    ``fantasyland_next`` follows RULES.md's entry table under the table's options."""
    h = _scripted_hand(rules, [C(top), _MIDDLE, _BOTTOM])
    check_showdown(h)
    expect = ref_fantasyland_next(h.boards[1].rows, rules, False)
    assert h.fantasyland_next[1] == expect
    progressive = {"Qh Qd 2c": 14, "Kh Kd 2c": 15, "Ah Ad 2c": 16, "2h 2d 2s": 17,
                   "Ah Ad As": 17}
    if not rules.has_fantasyland or top not in progressive:
        assert expect == 0
    else:
        assert expect == (13 if rules.variant == "ofc" else
                          progressive[top] if rules.progressive else 14)


_STAY_BOARDS = [
    "2h 2d 2s / 3c 4d 5h 6c 7d / 4s 8s 9s Ts Qs",        # trips on top
    "Qh Qd 2c / 3c 3d 3h 4c 4d / 5s 5h 5d 5c 9s",        # middle full house, bottom quads
    "Qh Qd 2c / 3c 3d 3h 4c 4d / 6s 7s 8s 9s Ts",        # middle full house only
    "Qh Qd 2c / Kc Kh 4d 6h 7c / 5s 5h 5d 5c 9s",        # bottom quads only
    "Qh Qd 2c / 3c 4d 5h 6c 7d / Ts Js Qs Ks As",        # bottom royal
    "Kh Kd 2c / 3c 4d 5h 6c 7d / 4s 8s 9s Ts Qs",        # QQ+ top only: leaves
    "2h 2d 2s / Tc Jc Qc Kc Ac / Ts Js Qs Ks As",        # middle and bottom royals
    "Ah Ad Ac / 3c 4d 5h 6c 7d / 4s 8s 9s Ts Qs",        # AAA top (trips)
    "Ah Ad 3c / 2c 2d 2h 4c 4d / 6s 7s 8s 9s Ts",        # middle full house, bottom SF
    "Ah Ad As / 2c 2d 3h 4c 5d / 6s 7s 8s 9s Ts",        # fouled: AAA over two pair
]


@slow(60)
@given(st.sampled_from(["ofc", "pineapple"]).flatmap(rules_st), st.sampled_from(_STAY_BOARDS),
       st.data())
def test_fantasyland_stay_through_a_whole_hand(rules: Rules, text: str,
                                               data: st.DataObject) -> None:
    """Seat 1 sits in fantasyland (every size its rules deal), sets ``text`` and discards the
    rest; ``fantasyland_next`` follows RULES.md's stay table (and the settlement RULES.md)."""
    if not rules.has_fantasyland:
        rules = rules.with_options(fantasyland=True)
    sizes = [13] if rules.variant == "ofc" else [14, 15, 16, 17] if rules.progressive else [14]
    size = data.draw(st.sampled_from(sizes))
    board = Board.parse(text)
    cards = list(board.cards)
    fillers = [c for c in DECK if c not in cards][: size - 13]
    h = Hand(rules, ["a", "b"], 0, {1: size}, seed=5, deck=cards + fillers)
    assert set(h.pending[1]) == set(cards + fillers)
    placed = [(c, r) for r, row in enumerate(board.rows) for c in row]
    rng = random.Random(1)
    while not h.is_over:
        seat = h.to_act()[0] if 1 not in h.to_act() else 1
        if seat == 1:
            h.place(1, placed, fillers)
        else:
            h.place(seat, *rng.choice(h.legal_moves(seat)))
    check_showdown(h)
    assert h.fantasyland_next[1] == ref_fantasyland_next(board.rows, rules, True)


# =================================================================================================
# Defects (each proven by a minimal deterministic case; all fixed)
# =================================================================================================
def _first_street(seed: int = 1) -> tuple[Hand, list[tuple[Card, int]]]:
    """Classic ofc, two seats, seat 0 to act with 5 cards; a legal first move for it."""
    h = Hand(Rules(), ["Ann", "Bob"], button=1, seed=seed)
    c = h.pending[0]
    return h, [(c[0], 0), (c[1], 1), (c[2], 1), (c[3], 2), (c[4], 2)]


@pytest.mark.parametrize("seat", ["0", 0.0, None], ids=["str", "float", "None"])
def test_defect_a_seat_that_is_not_a_seat_number_is_not_an_illegal_action(seat: Any) -> None:
    """Was a defect (fixed).

    ``place("0", …)``, ``surrender(0.0)``, ``can_place(None, …)``: a TypeError ('<=' not
    supported between int and str; list indices must be integers, not float) escapes from
    ``_verify_actor`` / ``verify_surrender`` (and ``can_*`` raises instead of saying no).
    Should: an ``IllegalAction`` (NotAllowed) naming the seat, state unchanged, can_* False."""
    h, good = _first_street()
    before = snapshot(h)
    assert h.can_place(seat, good) is False
    assert h.can_surrender(seat) is False
    with pytest.raises(IllegalAction):
        h.place(seat, good)
    with pytest.raises(IllegalAction):
        h.surrender(seat)
    assert snapshot(h) == before


@pytest.mark.parametrize("case", ["row name", "row None", "fractional row", "bare card",
                                  "three-tuple", "None placements"])
def test_defect_a_malformed_placement_is_not_an_illegal_action(case: str) -> None:
    """Was a defect (fixed).

    ``verify_place`` builds ``(c, int(r)) for c, r in placements`` before checking
    anything: a row given by name (``"top"``) raises a bare ValueError (invalid literal for
    int()), a row of None or placements of None a TypeError, a bare card instead of a
    (card, row) pair a TypeError (cannot unpack), a 3-tuple a ValueError (too many values to
    unpack) -- none of them the engine's ``IllegalAction`` that the bot turns into a message,
    and ``can_place`` raises instead of returning False.  A row of ``1.9`` is silently
    truncated to the middle row (and ``"2"`` read as the bottom).  Should: every one refused
    with an ``IllegalAction`` that names the bad row / entry, state unchanged."""
    h, good = _first_street()
    card = good[0][0]
    placements: Any = {
        "row name": [(card, "top"), *good[1:]],
        "row None": [(card, None), *good[1:]],
        "fractional row": [(card, 1.9), *good[1:]],
        "bare card": [card, *good[1:]],
        "three-tuple": [(card, 0, 1), *good[1:]],
        "None placements": None,
    }[case]
    before = snapshot(h)
    assert h.can_place(0, placements) is False
    with pytest.raises(IllegalAction):
        h.place(0, placements)
    assert snapshot(h) == before


def test_defect_a_card_given_as_a_plain_int_corrupts_the_log() -> None:
    """Was a defect (fixed).

    ``int(card)`` equals the ``Card`` and hashes the same, so ``verify_place`` accepts it and
    returns it "normalised" as the plain int; ``Place.to_json`` writes ``str(838861012992)``
    and both ``Hand.replay`` and ``Hand.from_json`` of the saved hand raise KeyError
    ('838861012992').  Should: placements normalised to ``Card`` (or the int refused), so the
    log replays to the same state."""
    h, good = _first_street()
    card, row = good[0]
    action = h.place(0, [(int(card), row), *good[1:]])
    assert all(type(c) is Card for c, _ in action.placements)
    data = json.loads(json.dumps(h.to_json()))
    assert Hand.replay(data) == h
    assert Hand.from_json(data) == h


def test_defect_the_refusal_of_a_row_that_is_no_row_names_neither_row_nor_card() -> None:
    """Was a defect (fixed).

    Placing ``7h`` on row 3 is refused with just "Rows are top, middle and bottom".
    Should: name what was wrong, e.g. "7h: 3 is not a row; rows are top, middle and bottom"."""
    h, good = _first_street()
    card = good[0][0]
    with pytest.raises(NotAllowed) as err:
        h.place(0, [(card, 3), *good[1:]])
    assert "3" in str(err.value) or str(card) in str(err.value)


@pytest.mark.parametrize("thing", [None, {"type": "surrender", "seat": 0}, "Ah top"],
                         ids=["None", "json dict", "text"])
def test_defect_verify_and_apply_of_something_that_is_not_an_action(thing: Any) -> None:
    """Was a defect (fixed).

    ``Hand.verify(x)`` / ``Hand.apply(x)`` treat anything that is not a Place or Declare as a
    Surrender and read ``x.seat``: an AttributeError escapes (for the action's JSON, a likely
    slip, too).  Should: an ``IllegalAction`` (or at least a TypeError saying what an action is),
    state unchanged."""
    h, _ = _first_street()
    before = snapshot(h)
    with pytest.raises(IllegalAction):
        h.verify(thing)
    with pytest.raises(IllegalAction):
        h.apply(thing)
    assert snapshot(h) == before


@pytest.mark.parametrize("fl", [{2: 13}, {-1: 13}, [0, 0, 13]], ids=["seat 2", "seat -1",
                                                                     "list too long"])
def test_defect_fantasyland_of_a_seat_not_at_the_table(fl: Any) -> None:
    """Was a defect (fixed).

    Two seats, fantasyland for seat 2 (or a 3-long list): ``fl[seat] = int(cards)`` raises a
    bare IndexError; for seat -1 it silently deals seat 1 a fantasyland hand.  Should: a
    ValueError naming the seat that is not at the table."""
    with pytest.raises(ValueError, match="[Ss]eat"):
        Hand(Rules(), ["Ann", "Bob"], 0, fl, seed=1)


@pytest.mark.parametrize("where", ["log", "state"])
def test_defect_a_saved_hand_with_an_unknown_card_raises_key_error(where: str) -> None:
    """Was a defect (fixed).

    ``cards_from_json`` is ``[_BY_TEXT[t] for t in items]``: a saved hand (or one action) with
    a card text that is not a card ("Zz") makes ``Hand.replay`` / ``action_from_json`` /
    ``Hand.from_json`` raise KeyError('Zz').  Should: the engine's ``CardError`` (a ValueError
    naming the token), as ``from_json`` does for a state that does not match its seed."""
    h, good = _first_street()
    h.place(0, good)
    data = json.loads(json.dumps(h.to_json()))
    if where == "log":
        data["log"][0]["cards"][0][0] = "Zz"
        call: Callable[[], Any] = lambda: Hand.replay(data)  # noqa: E731
    else:
        data["state"]["boards"][0][0][0] = "Zz"
        call = lambda: Hand.from_json(data)  # noqa: E731
    with pytest.raises(ValueError, match="Zz"):
        call()


@pytest.mark.parametrize("tamper", ["empty log", "turn out of range"])
def test_defect_from_json_accepts_a_state_its_log_does_not_reach(tamper: str) -> None:
    """Was a defect (fixed).

    After one move, the saved state with its log emptied loads (``Hand.from_json``) as a
    hand whose ``replay`` is a different hand; a state whose turn is seat 5 of two loads and
    then ``to_act()`` is [5] and ``requirement(5)`` raises IndexError.  Should: ``from_json``
    refuses both (ValueError, like a state that does not match its seed)."""
    h, good = _first_street()
    h.place(0, good)
    data = json.loads(json.dumps(h.to_json()))
    if tamper == "empty log":
        data["log"] = []
    else:
        data["state"]["turn"] = 5
    with pytest.raises(ValueError):
        Hand.from_json(data)


@pytest.mark.parametrize("option", [{"strict_top": "off"}, {"fantasyland": "false"},
                                    {"chinese_surrender": "3", "variant": "chinese"},
                                    {"shoot_the_moon_points": "20"}],
                         ids=["strict_top off", "fantasyland false", "surrender '3'",
                              "moon points '20'"])
def test_defect_rules_accept_options_of_the_wrong_type(option: dict[str, Any]) -> None:
    """Was a defect (fixed).

    ``Rules.from_json({"strict_top": "off"})`` (or ``Rules(fantasyland="false")``) is
    accepted and the truthy string turns the option ON; a number given as text raises a bare
    TypeError ('<' not supported between 'str' and 'int') from ``Rules.__post_init__`` (and
    through ``Rules.changed`` a RulesError whose message is that Python text, naming no
    option).  Should: a ``RulesError`` naming the option and the value."""
    data = {"variant": "ofc", **option}
    with pytest.raises(RulesError, match=next(k for k in option if k != "variant")):
        Rules.from_json(data)


# -- timeouts that lock in a foul one decision early -------------------------------------------
def _clean_completion_exists(h: Hand, seat: int, board: Board) -> bool:
    """Some cards the seat has not seen complete ``board`` without a foul (street by street
    in ofc: one card per remaining slot)."""
    unseen = [c for c in DECK if c not in h.cards_seen_by(seat)]
    free = board.free_slots
    slots = [r for r in range(3) for _ in range(free[r])]
    for combo in itertools.permutations(unseen, len(slots)):
        if not board.place(list(zip(combo, slots, strict=True))).is_foul(h.rules):
            return True
    return False


def _late_position(rules: Rules, seed: int, mine: str, rows: Sequence[int], last: str,
                   opponent: str) -> Hand:
    """Classic ofc, two seats, button 0: seat 1 is dealt ``mine`` one card at a time after
    its first five and plays them to ``rows``; seat 0 plays ``opponent``; returns the hand
    with ``last`` pending for seat 1."""
    cards = C(mine)
    where = dict(zip(cards, rows, strict=True))
    theirs = C(opponent)
    tail = [*cards[5:], C(last)[0]]
    deck = cards[:5] + theirs[:5]
    for k in range(8):
        deck += tail[k: k + 1] + theirs[5 + k: 6 + k]
    h = Hand(rules, ["Ann", "Bob"], 0, seed=seed, deck=deck)
    h.place(1, [(c, where[c]) for c in cards[:5]])
    h.place(0, list(zip(theirs[:5], [2, 2, 1, 1, 0], strict=True)))
    their_rows = iter([1, 2, 0, 1, 2, 1, 2, 2])
    while h.pending[1] != tuple(C(last)):
        c = h.pending[1][0]
        h.place(1, [(c, where[c])])
        h.place(0, [(h.pending[0][0], next(their_rows))])
    return h


def test_defect_a_timeout_locks_in_a_foul_that_another_move_keeps_avoidable() -> None:
    """Was a defect (fixed).

    Classic ofc, seat 1 at ``3d Qs 6c / Th 4c Tc Ts / 7h 2c 7d`` is dealt 6h (two cards
    to come).  The timeout (``autoplay``, the AI at the easy level, seed 0) puts 6h on the
    bottom: ``7h 2c 7d 6h`` plus one card can never beat the middle's three tens, a certain
    foul.  6h in the middle keeps a clean finish possible (a 7 and a 2, or two 2s, to the
    bottom make a full house).  RULES.md: the clock's play is "never a foul when a legal
    completion exists"; only the decision that completes the board is exact
    (``engine/ai.py`` ``analyse``: sampled foul rates tie at 100 %).  Should: never choose a
    move after which every completion fouls when some move leaves a clean one."""
    h = _late_position(Rules(), 0, "3d Qs 6c Th 4c Tc Ts 7h 2c 7d", [0, 0, 0, 1, 1, 1, 1, 2, 2, 2],
                       "6h", "Ah Kh 2d 3s 4d 5c 8d 9h Jd Js Kd 9d 8s")
    board = h.boards[1]
    assert str(board) == "3d Qs 6c / Th 4c Tc Ts / 7h 2c 7d"
    assert any(_clean_completion_exists(h, 1, board.place(m[0])) for m in h.legal_moves(1))
    h.autoplay(1)
    assert _clean_completion_exists(h, 1, h.boards[1]), str(h.boards[1])


def test_defect_a_plain_timeout_locks_in_a_foul_that_another_move_keeps_avoidable() -> None:
    """Was a defect (fixed).

    Classic ofc with strict top, seat 1 at ``9h 7h 7d / 8s Jd 5s 2s / 9c Jh 6c 2h`` is dealt
    Js (one card to come).  The plain timeout (``autoplay(plain=True)``, the host's fallback,
    seed 2) puts Js in the middle: JJ in the middle over a jack-high bottom that only the
    one jack left could pair -- and the seat has seen it on the other board -- a certain
    foul.  Js on the bottom (JJ) leaves the middle to pair a 7, 8 or 9 (above the top's 77 9,
    below the bottom's JJ), about 7 % of the cards.  ``engine/autoplay.py``
    ``_scored_placement`` ranks moves by 24 random completions, so a rare clean finish scores
    like a certain foul.  Should: as above."""
    h = _late_position(Rules(strict_top=True), 2, "9h 7h 7d 8s Jd 5s 2s 9c Jh 6c 2h",
                       [0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2], "Js",
                       "Ah Kh 2d 3s 4d 5c 8d Jc Qd Qs Kd 9d Td")
    board = h.boards[1]
    assert str(board) == "9h 7h 7d / 8s Jd 5s 2s / 9c Jh 6c 2h"
    assert any(_clean_completion_exists(h, 1, board.place(m[0])) for m in h.legal_moves(1))
    h.autoplay(1, plain=True)
    assert _clean_completion_exists(h, 1, h.boards[1]), str(h.boards[1])
