"""Exact fantasyland solver (ofc / pineapple) and the classic Chinese poker setter.

``solve_fantasyland(cards, rules, stay_value=None) -> Solution``: for 13-17 distinct cards, the
setting of 13 of them (the rest discarded) with the most royalties plus stay bonus, never fouled,
ties broken deterministically.  It is exact: tests/engine/test_solver.py checks it card for card
against a plain enumeration of every setting.  ``best_chinese_setting``,
``chinese_setting_value`` and ``natural_worth_declaring`` serve classic Chinese poker with the
same machinery.  Pure Python, no state but caches, same answer for the same cards in any order.

Technique: branch and bound over the rows, strongest bottom first.

* A subset's value is one integer sum away: each card is packed with a position bit above the
  evaluator's key (``card + (1 << 64 + i)``), so the sum of five packed cards gives both the
  lookup key (``sum & MASK``) and the subset.  All 5-card subsets (2,002 at 14 cards, 6,188 at 17)
  and 3-card subsets are valued once per solve and sorted as ``value << n | mask``, best first.
* Bottoms are taken in that order; middles from the same list, starting at the bottom's value
  (so middle <= bottom holds by construction) and disjoint from it; the top is then the best
  3-subset of what is left that does not foul (13 cards: the 3 left; more: memoized per
  remaining set).  With the masks ordered by card, the first top found is also the one that
  discards the lowest cards.
* Every royalty and the stay condition only grow with a row's value, so a bottom of value v bounds
  the whole board: royalty(v) as bottom + royalty(v) as middle + the best top at most v (and at
  most the hand's best top) + the stay bonus if a stay is still possible.  That bound only falls
  as the bottoms weaken: the search stops at the first bottom below the best score found.  Per
  bottom, the best top among the cards it leaves tightens the bound (skip); per middle the same
  bound with the middle's value falls as the middles weaken (stop).  Exact ties go through the
  tie-break: more stay cards, stronger bottom, middle, top, lowest discards, highest bottom and
  middle cards.
* Middles disjoint from the bottom are found by scanning the sorted list (about 6% of it at 14
  cards).  A hand that makes the search scan more than 20,000 overlapping entries (many equal
  straights and a low optimum) switches to per-card bitsets of the list, whose complement's set
  bits are walked with ``str.find``.

Measured (pineapple rules, default stay values, 300 random hands per size, 2 shared cores),
median / worst per solve:

* plain enumeration of every setting (the tests' brute force): 13 cards 50 ms, 14 cards 0.3 s,
  15 cards 1.9 s (17 cards would take minutes);
* branch and bound, scanning only: 13 cards 1.03 / 10 ms, 14 cards 1.50 / 12 ms, 17 cards
  5.1 / 23 ms, but 274 ms on one Broadway-heavy 14-card hand whose best score is 6 (455,000
  overlapping entries scanned);
* bitsets always: 1.45 / 2.30 / 8.1 ms (building them costs 1.2 ms at 14 cards, 4 ms at 17);
* bitsets once the scanning gets long (chosen): 1.07 / 1.52 / 5.2 ms and 16 ms on that hand.

So the targets (14 cards <= 6.7 ms, 17 cards <= 0.67 s) hold with room to spare, and numpy or
numba would not earn their weight: the work is a few thousand dict lookups and integer operations
in data-dependent loops, which vectorizes badly.  Grouping equivalent cards was not needed.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from .board import (
    Board,
    bottom_royalty,
    chinese_row_bonus,
    middle_royalty,
    top_royalty,
    values_foul,
)
from .cards import RANK_SHIFT, Card
from .evaluator import (
    CATEGORY_SHIFT,
    FULL_HOUSE,
    HIGH_CARD,
    MASK,
    QUADS,
    STRAIGHT_FLUSH,
    TRIPS,
    HandValue,
    describe_value,
    row_at_most,
    value_table,
)
from .naturals import best_natural
from .notation import format_move
from .rules import Rules

__all__ = [
    "DEFAULT_STAY_VALUE",
    "Solution",
    "best_chinese_setting",
    "check_fantasyland_cards",
    "chinese_setting_value",
    "describe_solution",
    "moon_worth",
    "natural_worth_declaring",
    "solve_fantasyland",
    "stay_bonus",
]

DEFAULT_STAY_VALUE: Mapping[int, float] = {13: 10.0, 14: 14.5, 15: 21.2}
"""Points that staying in fantasyland is worth, by the size of the next fantasyland hand: 13 cards
(ofc), 14 (pineapple), 15 (progressive stay: trips on top or a royal).

Each is the expected value of a fantasyland hand of that size counted in royalties: V(n) = mean
royalties of the solved hand + sum over k of P(it stays with k cards) * V(k), the geometric chain
of stays.  The solver's choices depend on V, so V is a fixed point, found by re-solving fixed
random deals until no choice changes (3 rounds from 0).  ``python -m bench.solver`` (seeded;
standard errors by bootstrap over the deals) measured:

* 13 cards, ofc rules, 4,000 deals: mean royalties 9.15 (sd 4.8), stays 8.9%: V = 10.04 +- 0.11;
* 14 cards, pineapple rules, 4,000 deals: royalties 12.29 (sd 5.5), stays 15.4%: V = 14.52 +- 0.19;
* 15 cards, pineapple with progressive stay (a 14/15 chain, 2,000 deals each): royalties 16.18
  (sd 6.5), stays 28.4%: V = 21.22 +- 0.35 (that chain's 14 = 14.67 +- 0.25 agrees with the above).

Rounded to 0.1, within one standard error.  What this leaves out: a fantasyland hand also tends to
win rows against opponents who play theirs blind, and the ordinary hand it replaces would have had
royalties and a chance of fantasyland of its own.  A table that prices staying differently sets
the ``stay_value`` option (``Rules.stay_value``, ``/ofc options stay_value``: one number of points
for every stay); a caller may pass ``stay_value`` (one number, or a mapping by hand size)."""


@dataclass(frozen=True)
class Solution:
    """The best fantasyland setting: ``board`` (13 cards), ``discards`` (the cards not kept)."""

    board: Board
    discards: tuple[Card, ...]
    royalties: int
    stays: bool
    stay_cards: int
    """Cards of the next fantasyland hand this setting earns (0: it does not stay)."""
    score: float
    """``royalties`` plus the stay bonus (the value of staying in fantasyland); for a setting
    that shoots the moon, the moon's points."""
    moon: bool = False
    """The setting shoots the moon (a table with that option, when the moon's points beat the
    best royalties and stay: see ``solve_fantasyland``)."""


# -- value tables (built once) ---------------------------------------------------------------

_VALUES = value_table()
_PACK_SHIFT = 64  # card-position bits live above every bit of MASK
assert MASK < 1 << _PACK_SHIFT

_ROYAL = (STRAIGHT_FLUSH << CATEGORY_SHIFT) | (14 << 16)
_TRIPS_MIN = TRIPS << CATEGORY_SHIFT
_TRIPS_MAX = (TRIPS + 1) << CATEGORY_SHIFT
_FULL_HOUSE_MIN = FULL_HOUSE << CATEGORY_SHIFT
_QUADS_MIN = QUADS << CATEGORY_SHIFT


def _card_count(key: int) -> int:
    ranks, count = key >> RANK_SHIFT, 0
    while ranks:
        ranks, digit = divmod(ranks, 5)
        count += digit
    return count


def _build_tables() -> tuple[
    dict[int, int], dict[int, int], dict[int, int], dict[int, int], list[int]
]:
    tops: set[HandValue] = set()
    fives: set[HandValue] = set()
    for key, value in _VALUES.items():
        (tops if _card_count(key) == 3 else fives).add(value)
    rt = {int(v): top_royalty(v) for v in tops}
    rm = {int(v): middle_royalty(v) for v in fives}
    rb = {int(v): bottom_royalty(v) for v in fives}
    top_values = sorted(rt)
    best = 0
    prefix = []
    for v in top_values:
        best = max(best, rt[v])
        prefix.append(best)
    # best top royalty of a top row that is at most v (the non-strict foul check)
    cap = {v: prefix[bisect_right(top_values, v) - 1] for v in rm}
    return rt, rm, rb, cap, top_values


_RT, _RM, _RB, _RT_CAP, _TOP_VALUES = _build_tables()


def _packed(cards: Sequence[Card]) -> list[int]:
    """Each card plus a position bit above the evaluator's key: a sum gives key and set."""
    return [int(c) + (1 << (_PACK_SHIFT + i)) for i, c in enumerate(cards)]


def _subsets(packed: list[int], k: int, n: int) -> list[int]:
    """Every k-subset as ``value << n | position mask``, best first."""
    vals = _VALUES
    out = [
        (vals[s & MASK] << n) | (s >> _PACK_SHIFT) for s in map(sum, combinations(packed, k))
    ]
    out.sort(reverse=True)
    return out


def stay_bonus(
    stay_cards: int, rules: Rules, stay_value: float | Mapping[int, float] | None = None
) -> float:
    """The value given to staying in fantasyland with a next hand of ``stay_cards`` cards.

    ``stay_value``: a number for every stay, or a mapping from the next hand's card count to
    its value; None for the table's option (``Rules.stay_value``) or, when that is not set,
    ``DEFAULT_STAY_VALUE``."""
    if stay_cards <= 0:
        return 0.0
    if stay_value is None and rules.stay_value is not None:
        stay_value = float(rules.stay_value)
    table = DEFAULT_STAY_VALUE if stay_value is None else stay_value
    if isinstance(table, Mapping):
        if not table:
            return 0.0
        # a size the table lacks: the nearest size it has (the smaller one on a tie)
        near = min(table, key=lambda k: (abs(k - stay_cards), k))
        return float(table[near])
    return float(table)


def _stay_cards(vt: int, vm: int, vb: int, rules: Rules) -> int:
    """``Board.fantasyland_stay_cards`` on row values (the board is not fouled)."""
    if not rules.has_fantasyland:
        return 0
    top_trips = _TRIPS_MIN <= vt < _TRIPS_MAX
    if not (
        top_trips or (rules.stay_middle_full_house and vm >= _FULL_HOUSE_MIN) or vb >= _QUADS_MIN
    ):
        return 0
    if not rules.progressive_stay:
        return 13 if rules.variant == "ofc" else 14
    return 15 if top_trips or vm == _ROYAL or vb == _ROYAL else 14


# -- the fantasyland search ------------------------------------------------------------------


def solve_fantasyland(
    cards: Sequence[Card],
    rules: Rules | None = None,
    stay_value: float | Mapping[int, float] | None = None,
) -> Solution:
    """The setting of 13 of ``cards`` (13-17 distinct cards) with the most royalties plus stay
    bonus, never fouled.  Ties: more stay cards, then the stronger bottom, middle, top, then the
    lowest discards, then the highest bottom and middle cards.

    With the moon option (``Rules.shoot_the_moon``) a setting that shoots the moon (its bottom
    jack-high or lower, so no row better than high card: no royalties, no stay) is worth the
    moon's points from each opponent less the rows and scoop it loses (``moon_worth``): when
    that is more than the best score above, the answer is such a setting (``_moon_setting``;
    any one, they are worth the same)."""
    rules = rules or Rules()
    cs = sorted(Card(c) for c in cards)
    n = len(cs)
    if not 13 <= n <= 17:
        raise ValueError(f"A fantasyland hand has 13 to 17 cards, not {n}")
    if len(set(cs)) != n:
        raise ValueError("The cards are not distinct")
    bonus = {k: stay_bonus(k, rules, stay_value) for k in (0, 13, 14, 15)}
    if not all(v >= 0 for v in bonus.values()):  # also refuses NaN
        raise ValueError("A stay value must be a number >= 0")
    found = _search(cs, rules, bonus)
    if found is None:  # no clean setting: cannot happen with the non-strict foul check
        best = _fallback(cs, rules, bonus)
    else:
        best = _solution(cs, *found, rules, bonus)
    worth = moon_worth(rules)
    if rules.shoot_the_moon and worth > best.score:
        moon = _moon_setting(cs, rules)
        if moon is not None:
            t, m, b = moon
            full = (1 << n) - 1
            return Solution(Board(_rows(cs, t), _rows(cs, m), _rows(cs, b)),
                            _rows(cs, full ^ t ^ m ^ b), 0, False, 0, worth, moon=True)
    return best


def moon_worth(rules: Rules) -> float:
    """What a fantasyland set that shoots the moon is worth against one opponent, on the
    solver's scale (royalties, which ignores rows): the moon's points less every row and the
    scoop (or overall unit), which such a board (no row better than high card, the bottom
    jack-high or lower) loses to a clean board, where a board of royalties wins rows about
    as often as it loses them.  Against an opponent who fouls the moon board loses nothing,
    but fouls are the exception: a pineapple bot at a moon table lost about 10 points a hand
    setting the moon for its points alone (tests/test_session30_review.py)."""
    return float(rules.shoot_the_moon_points - rules.foul_loss)


def _moon_setting(cs: list[Card], rules: Rules) -> tuple[int, int, int] | None:
    """A setting of ``cs`` that shoots the moon and does not foul, as (top, middle, bottom)
    masks, or None when there is none.  Exhaustive: every high-card 5-card subset whose best
    card is a jack or lower is a bottom (best first), every such subset no better and
    disjoint from it a middle, and for each the weakest top left (a high-card 3-card subset)
    is tried; the first that does not foul is the answer (every moon setting is worth the
    same).  A top that fouls under a middle makes every stronger top foul too, so each middle
    tries one top.  A hand with a setting finds one among its first bottoms; one without has
    few high-card subsets (its cards pair or run together), so the search stays short."""
    n = len(cs)
    fv, fm, tv, tmk, _, _ = _subset_tables(cs, n)
    jack = 11 << 16  # (the best rank of a high-card value, on the evaluator's scale)
    low = [(v, m) for v, m in zip(fv, fm, strict=True)
           if v >> CATEGORY_SHIFT == HIGH_CARD and v & (15 << 16) <= jack]
    tops = sorted((v, m) for v, m in zip(tv, tmk, strict=True)
                  if v >> CATEGORY_SHIFT == HIGH_CARD)
    for i, (vb, b) in enumerate(low):
        for vm, m in low[i:]:
            if m & b:
                continue
            used = b | m
            for vt, t in tops:
                if t & used:
                    continue
                if not values_foul(vt, vm, vb, rules.strict_top):
                    return t, m, b
                break
    return None


def check_fantasyland_cards(cards: Sequence[Card], rules: Rules) -> None:
    """Refuse (``ValueError``, a sentence for the player) cards that are not a fantasyland
    hand of ``rules``: 13 cards in ofc, 14 to 17 in pineapple (14 when not progressive), each
    card once."""
    n = len(cards)
    if not n:
        raise ValueError("No cards: type the hand, 13 cards for ofc, 14 to 17 for pineapple")
    if len(set(cards)) != n:
        twice = next(c for c in cards if list(cards).count(c) > 1)
        raise ValueError(f"{twice} is there twice: a hand holds each card once")
    if not rules.has_fantasyland:
        raise ValueError("These rules have no fantasyland (fantasyland is off)")
    if rules.fantasyland_cards_now(n) != n:
        sizes = ("13 cards" if rules.variant == "ofc" else
                 "14 to 17 cards" if rules.progressive else "14 cards")
        article = "An" if rules.variant == "ofc" else "A"
        raise ValueError(f"{article} {rules.variant} fantasyland hand is {sizes}, not {n}")


def describe_solution(solution: Solution, rules: Rules) -> tuple[str, ...]:
    """The solver's setting in words: each row with what it makes, the discards, the
    royalties and the stay, what it is worth, and the move in the ``/ofc place`` syntax."""
    board = solution.board
    rows = " · ".join(f"{name} {' '.join(map(str, row))} ({describe_value(v)})"
                      for name, row, v in zip(("top", "middle", "bottom"), board.rows,
                                              board.values(), strict=True))
    lines = [rows]
    if solution.discards:
        lines.append("discard " + " ".join(map(str, solution.discards)))
    top, middle, bottom = board.row_royalties(rules)
    worth = f"Royalties {solution.royalties} (top {top}, middle {middle}, bottom {bottom})"
    if solution.moon:
        points = rules.shoot_the_moon_points
        worth = (f"Shoots the moon (a jack-high bottom): {points} points from each opponent, "
                 f"counted {solution.score:g} for the rows and scoop such a board loses: more "
                 "than the best royalties and stay")
    elif solution.stays:
        bonus = solution.score - solution.royalties
        worth += (f"; stays in fantasyland ({solution.stay_cards} cards next, counted "
                  f"+{bonus:g}): worth {solution.score:g}")
    else:
        worth += "; does not stay in fantasyland"
    lines.append(worth + ".")
    placed = [(c, r) for r, row in enumerate(board.rows) for c in row]
    lines.append("As a move: " + format_move(placed, solution.discards))
    return tuple(lines)


def _rows(cs: list[Card], mask: int) -> tuple[Card, ...]:
    return tuple(sorted((c for i, c in enumerate(cs) if mask >> i & 1), reverse=True))


def _solution(
    cs: list[Card], t: int, m: int, b: int, rules: Rules, bonus: Mapping[int, float]
) -> Solution:
    full = (1 << len(cs)) - 1
    board = Board(_rows(cs, t), _rows(cs, m), _rows(cs, b))
    return _finish(board, _rows(cs, full ^ t ^ m ^ b), rules, bonus)


def _finish(
    board: Board, discards: tuple[Card, ...], rules: Rules, bonus: Mapping[int, float]
) -> Solution:
    royalties = board.royalties(rules)
    stay = board.fantasyland_stay_cards(rules)
    return Solution(
        board=board,
        discards=discards,
        royalties=royalties,
        stays=stay > 0,
        stay_cards=stay,
        score=royalties + bonus[stay],
    )


def _fallback(cs: list[Card], rules: Rules, bonus: Mapping[int, float]) -> Solution:
    """Every setting fouls (only conceivable with the strict top option): all score 0, so the
    greedy board is as good as any."""
    board = _greedy_board(cs)
    discards = tuple(sorted(set(cs) - set(board.cards), reverse=True))
    return _finish(board, discards, rules, bonus)


def _subset_tables(
    cs: list[Card], n: int
) -> tuple[list[int], list[int], list[int], list[int], dict[int, int], list[int]]:
    """Every 5-card subset's value and card mask (best first), every 3-card subset's value
    and mask, top value by mask, and for each 5-card subset the first index of its value."""
    full = (1 << n) - 1
    packed = _packed(cs)
    fives = _subsets(packed, 5, n)
    threes = _subsets(packed, 3, n)
    fv = [x >> n for x in fives]
    fm = [x & full for x in fives]
    tv = [x >> n for x in threes]
    tmk = [x & full for x in threes]
    group = [0] * len(fives)
    for j in range(1, len(fives)):
        group[j] = group[j - 1] if fv[j] == fv[j - 1] else j
    return fv, fm, tv, tmk, dict(zip(tmk, tv, strict=True)), group


def _search(
    cs: list[Card], rules: Rules, bonus: Mapping[int, float]
) -> tuple[int, int, int] | None:
    n = len(cs)
    full = (1 << n) - 1
    fv, fm, tv, tmk, t_of, group = _subset_tables(cs, n)
    n5 = len(fv)
    strict = rules.strict_top
    rb_of, rm_of, rt_of, rt_cap = _RB, _RM, _RT, _RT_CAP
    has_fl = rules.has_fantasyland
    max_bonus = max(bonus.values()) if has_fl else 0.0
    max_stay = 0
    if has_fl:
        max_stay = 15 if rules.progressive_stay else 13 if rules.variant == "ofc" else 14
    smfh = rules.stay_middle_full_house
    rt_all = rt_of[tv[0]]
    tops_memo: dict[int, list[int]] = {}
    bits = [1 << i for i in range(n)]

    best_score = -1.0
    best_key: tuple[int, int, int, int, int, int, int] = (0, 0, 0, 0, 0, 0, 0)
    best: tuple[int, int, int] | None = None
    scanned = 0
    contains: list[int] | None = None
    all_bits = (1 << n5) - 1

    for j in range(n5):
        vb = fv[j]
        b = fm[j]
        rb = rb_of[vb]
        # a bound that only falls as the bottoms get weaker: stop the whole search
        tcap = min(rt_cap[vb], rt_all)
        can_stay = vb >= _QUADS_MIN or (smfh and vb >= _FULL_HOUSE_MIN) or tcap >= 10
        g = rb + rm_of[vb] + tcap + (max_bonus if can_stay else 0.0)
        if g < best_score:
            break
        if g == best_score and vb < best_key[1] and (max_stay if can_stay else 0) <= best_key[0]:
            break
        # the best top left once the bottom is out
        rt0 = 0
        for i, t in enumerate(tmk):
            if not t & b:
                rt0 = rt_of[tv[i]]
                break
        if rt0 < tcap:
            tcap = rt0
            can_stay = vb >= _QUADS_MIN or (smfh and vb >= _FULL_HOUSE_MIN) or tcap >= 10
            g = rb + rm_of[vb] + tcap + (max_bonus if can_stay else 0.0)
            if g < best_score or (
                g == best_score and ((max_stay if can_stay else 0), vb) < best_key[:2]
            ):
                continue
        bot_stay = vb >= _QUADS_MIN
        if contains is None:
            candidates: Iterable[int] = range(group[j], n5)
        else:
            union = 0
            for i in range(n):
                if b & bits[i]:
                    union |= contains[i]
            candidates = _set_bits(format(all_bits & ~union, f"0{n5}b"), group[j])
        for k in candidates:
            m = fm[k]
            if m & b:
                scanned += 1
                continue
            vm = fv[k]
            tc = rt_cap[vm]
            if tc > rt0:
                tc = rt0
            can_stay = bot_stay or (smfh and vm >= _FULL_HOUSE_MIN) or tc >= 10
            ub = rb + rm_of[vm] + tc + (max_bonus if can_stay else 0.0)
            if ub < best_score:
                break
            if ub == best_score and ((max_stay if can_stay else 0, vb, vm) < best_key[:3]):
                break
            u = b | m
            r = full ^ u
            if n == 13:
                t = r
                vt = t_of[t]
                if (row_at_most(vt, vm) >= 0) if strict else vt > vm:
                    continue
            else:
                tops = tops_memo.get(r)
                if tops is None:
                    tops = tops_memo[r] = _tops_of(r, t_of, n)
                for x in tops:
                    vt = x >> n
                    if not ((row_at_most(vt, vm) >= 0) if strict else vt > vm):
                        t = x & full
                        break
                else:
                    continue
            stay = _stay_cards(vt, vm, vb, rules) if has_fl else 0
            score = rb + rm_of[vm] + rt_of[vt] + bonus[stay]
            if score < best_score:
                continue
            key = (stay, vb, vm, vt, -(r ^ t), b, m)
            if score > best_score or key > best_key:
                best_score = score
                best_key = key
                best = (t, m, b)
        if contains is None and scanned > _SCAN_LIMIT:
            contains = _contains(fm, n)
    return best


_SCAN_LIMIT = 20000


def _set_bits(s: str, start: int) -> Iterator[int]:
    k = s.find("1", start)
    while k >= 0:
        yield k
        k = s.find("1", k + 1)


def _contains(fm: list[int], n: int) -> list[int]:
    """Per card position: a bitset of the (sorted) subsets holding it, subset 0 the top bit."""
    cols = list(zip(*(format(m, f"0{n}b") for m in fm), strict=True))
    return [int("".join(cols[n - 1 - i]), 2) for i in range(n)]


def _tops_of(r: int, t_of: Mapping[int, int], n: int) -> list[int]:
    pos = [1 << i for i in range(n) if r >> i & 1]
    out = [(t_of[a | b | c] << n) | a | b | c for a, b, c in combinations(pos, 3)]
    out.sort(reverse=True)
    return out


# -- classic Chinese poker --------------------------------------------------------------------

_CHINESE_QUANTILES: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] = (
    (
        0x64300, 0x95300, 0xa7600, 0xb7200, 0xb9800, 0xc3200, 0xc8400, 0xca400, 0xcb300, 0xcb900,
        0xd5400, 0xd8600, 0xd9800, 0xda800, 0xdb500, 0xdb900, 0xdc200, 0xdc700, 0xdc900, 0xdcb00,
        0xe4200, 0xe6500, 0xe8400, 0xe9600, 0xea600, 0xea800, 0xeb300, 0xeb700, 0xeb900, 0xeba00,
        0xec500, 0xec800, 0xec900, 0xeca00, 0xed200, 0xed500, 0xed700, 0xed800, 0xed900, 0xeda00,
        0xedb00, 0xedb00, 0xedc00, 0xedc00, 0x123000, 0x12a000, 0x135000, 0x13c000, 0x146000,
        0x14a000, 0x153000, 0x15a000, 0x15c000, 0x164000, 0x169000, 0x16b000, 0x172000, 0x178000,
        0x17a000, 0x17c000, 0x17e000, 0x184000, 0x189000, 0x18b000, 0x18c000, 0x193000, 0x197000,
        0x19a000, 0x19c000, 0x19d000, 0x1a3000, 0x1a7000, 0x1a8000, 0x1ab000, 0x1ac000, 0x1ae000,
        0x1b4000, 0x1b8000, 0x1b9000, 0x1ba000, 0x1bc000, 0x1be000, 0x1c6000, 0x1c9000, 0x1ca000,
        0x1cb000, 0x1cd000, 0x1ce000, 0x1d5000, 0x1d8000, 0x1d9000, 0x1da000, 0x1dc000, 0x1de000,
        0x1e5000, 0x1e8000, 0x1eb000, 0x1ec000, 0x1ed000, 0x350000,
    ),
    (
        0xe7632, 0x129530, 0x147620, 0x159740, 0x169820, 0x178430, 0x17c840, 0x189320, 0x18c750,
        0x197620, 0x19c420, 0x1a6520, 0x1a8730, 0x1ac540, 0x1b6430, 0x1b8750, 0x1ba750, 0x1bd820,
        0x1c6420, 0x1c8640, 0x1ca320, 0x1cb830, 0x1cd740, 0x1ce640, 0x1d6320, 0x1d9320, 0x1da520,
        0x1db820, 0x1dc750, 0x1de320, 0x1de730, 0x1e4320, 0x1e7630, 0x1e9630, 0x1ea860, 0x1eb820,
        0x1ec640, 0x1ecb30, 0x1ed720, 0x1ed930, 0x1edc20, 0x242500, 0x252400, 0x254200, 0x263400,
        0x265200, 0x273400, 0x275200, 0x282300, 0x284300, 0x287200, 0x293200, 0x296400, 0x298500,
        0x2a4300, 0x2a7900, 0x2b2300, 0x2b5200, 0x2b8500, 0x2c2600, 0x2c5900, 0x2c9800, 0x2d3a00,
        0x2d7a00, 0x2e2300, 0x2e5a00, 0x2ed300, 0x32b300, 0x339600, 0x34b200, 0x363200, 0x376200,
        0x387300, 0x39b600, 0x3b6400, 0x3c8700, 0x450000, 0x450000, 0x460000, 0x460000, 0x470000,
        0x470000, 0x480000, 0x480000, 0x490000, 0x4a0000, 0x4a0000, 0x4b0000, 0x4c0000, 0x4d0000,
        0x4e0000, 0x587632, 0x5b8764, 0x5c9753, 0x5cba65, 0x5db862, 0x5e9653, 0x5ed532, 0x642000,
        0x6a2000,
    ),
    (
        0x1a4320, 0x1dca80, 0x242700, 0x253400, 0x264b00, 0x276300, 0x284500, 0x292800, 0x296500,
        0x2a3c00, 0x2b2e00, 0x2b7900, 0x2c5700, 0x2d6500, 0x32a300, 0x3ce700, 0x450000, 0x460000,
        0x460000, 0x470000, 0x470000, 0x480000, 0x480000, 0x480000, 0x490000, 0x490000, 0x4a0000,
        0x4a0000, 0x4b0000, 0x4b0000, 0x4c0000, 0x4c0000, 0x4d0000, 0x4d0000, 0x4e0000, 0x4e0000,
        0x4e0000, 0x598632, 0x5a9742, 0x5b8732, 0x5ba742, 0x5c7652, 0x5c9872, 0x5ca983, 0x5cb853,
        0x5d6543, 0x5d9762, 0x5da875, 0x5db752, 0x5dba52, 0x5dc854, 0x5dca72, 0x5dcba8, 0x5e9542,
        0x5ea752, 0x5ea975, 0x5eb874, 0x5eba72, 0x5ec853, 0x5eca62, 0x5ecb85, 0x5ed764, 0x5eda32,
        0x5edb54, 0x5edc63, 0x5edca9, 0x626000, 0x634000, 0x637000, 0x643000, 0x647000, 0x653000,
        0x658000, 0x663000, 0x667000, 0x673000, 0x679000, 0x683000, 0x687000, 0x692000, 0x696000,
        0x69c000, 0x6a3000, 0x6a9000, 0x6b3000, 0x6b6000, 0x6be000, 0x6c5000, 0x6c9000, 0x6d3000,
        0x6d6000, 0x6da000, 0x6e2000, 0x6e5000, 0x6ea000, 0x75a000, 0x78c000, 0x7c6000, 0x870000,
        0x8c0000,
    ),
)
"""Where an opponent's top, middle and bottom row values fall in classic Chinese poker: for each
row, the value at quantile (i + 0.5) / 100, i = 0..99.  Regenerate with ``python -m bench.solver
--chinese-table``: fictitious play over 4,000 seeded random deals under the default chinese rules
(2-4 scoring, bonuses on): round 0 sets them greedily (best five on the bottom, best five of the
rest in the middle), each later round with ``best_chinese_setting`` against the pooled settings of
the rounds before; after 8 rounds 1.4% of the settings still change a row's category."""


class _RowModel:
    """One row's opposition: the sorted sample of an opponent's row values (quantiles)."""

    def __init__(self, row: int, quantiles: Sequence[int], bonuses: bool) -> None:
        self.q = sorted(quantiles)
        k = len(self.q)
        self.k = k
        self.row = row
        self.bonuses = bonuses
        weights = [self.bonus(v) for v in self.q]
        tail = [0.0] * (k + 1)
        for i in range(k - 1, -1, -1):
            tail[i] = tail[i + 1] + weights[i] / k
        self.tail = tail
        self.cache: dict[int, tuple[float, float, float]] = {}

    def bonus(self, value: int) -> int:
        return chinese_row_bonus(self.row, HandValue(value)) if self.bonuses else 1

    def stats(self, value: int) -> tuple[float, float, float]:
        """(P(win), P(lose), expected units of the row) for a row of this value."""
        s = self.cache.get(value)
        if s is None:
            lo = bisect_left(self.q, value)
            hi = bisect_right(self.q, value)
            win = lo / self.k
            s = (win, (self.k - hi) / self.k, win * self.bonus(value) - self.tail[hi])
            self.cache[value] = s
        return s


class _ChineseModel:
    def __init__(
        self,
        quantiles: Sequence[Sequence[int]],
        rules: Rules,
    ) -> None:
        bonuses = rules.chinese_bonuses
        self.rows = tuple(_RowModel(r, quantiles[r], bonuses) for r in range(3))
        self.scoop = rules.scoop_bonus
        self.overall = rules.overall_bonus

    def value(self, vt: int, vm: int, vb: int) -> float:
        """Expected units against one opponent (rows independent; ties count as ties)."""
        a1, b1, e1 = self.rows[0].stats(vt)
        a2, b2, e2 = self.rows[1].stats(vm)
        a3, b3, e3 = self.rows[2].stats(vb)
        ev = e1 + e2 + e3
        if self.scoop:
            ev += self.scoop * (a1 * a2 * a3 - b1 * b2 * b3)
        if self.overall:
            t1, t2, t3 = 1 - a1 - b1, 1 - a2 - b2, 1 - a3 - b3
            # rows won minus rows lost over the first two rows: +2 .. -2
            p2, n2 = a1 * a2, b1 * b2
            p1, n1 = a1 * t2 + t1 * a2, b1 * t2 + t1 * b2
            z = a1 * b2 + t1 * t2 + b1 * a2
            more = p2 + p1 * (a3 + t3) + z * a3
            fewer = n2 + n1 * (b3 + t3) + z * b3
            ev += self.overall * (more - fewer)
        return ev

    def fouled(self) -> float:
        """A fouled board loses every row and the scoop (opponent bonuses averaged in)."""
        lose = sum(r.tail[0] for r in self.rows)
        return -(lose + self.scoop + self.overall)


_MODELS: dict[tuple[bool, int, int], _ChineseModel] = {}


def _model(rules: Rules) -> _ChineseModel:
    key = (rules.chinese_bonuses, rules.scoop_bonus, rules.overall_bonus)
    model = _MODELS.get(key)
    if model is None:
        model = _MODELS[key] = _ChineseModel(_CHINESE_QUANTILES, rules)
    return model


def _top_cap(value: int) -> int:
    """The best 3-card value that is at most ``value`` (a top row under a row of that value)."""
    i = bisect_right(_TOP_VALUES, value)
    return _TOP_VALUES[i - 1] if i else _TOP_VALUES[0]


def chinese_setting_value(board: Board, rules: Rules | None = None) -> float:
    """Estimated units this finished board wins from one typical opponent (a fouled board loses
    everything)."""
    rules = rules or Rules(variant="chinese")
    model = _model(rules)
    if board.is_foul(rules):
        return model.fouled()
    vt, vm, vb = board.values()
    return model.value(vt, vm, vb)


def best_chinese_setting(cards: Sequence[Card], rules: Rules | None = None) -> Board:
    """The setting of 13 cards with the highest ``chinese_setting_value``, never fouled.

    The objective is the expected units against one typical opponent: each row is won with the
    probability that an opponent's row is lower (``_CHINESE_QUANTILES``) and then pays its
    chinese bonus (when the table plays them), and is lost with the probability that it is
    higher, paying the opponent's bonus, averaged over that table; plus the scoop or overall
    bonus of the scoring method with the rows taken as independent.  It only grows with each
    row's value, so the fantasyland search's bounds carry over (exact; the tests check it
    against every setting).  Ties: the stronger bottom, middle, top, then the highest bottom and
    middle cards."""
    rules = rules or Rules(variant="chinese")
    return _chinese_best(cards, rules, _model(rules))[0]


def _chinese_best(
    cards: Sequence[Card], rules: Rules, model: _ChineseModel
) -> tuple[Board, float]:
    cs = sorted(Card(c) for c in cards)
    if len(cs) != 13 or len(set(cs)) != 13:
        raise ValueError("A chinese hand is 13 distinct cards")
    found = _chinese_search(cs, rules, model)
    if found is None:
        board = _greedy_board(cs)
        return board, model.fouled()
    t, m, b, score = found
    return Board(_rows(cs, t), _rows(cs, m), _rows(cs, b)), score


def _chinese_search(
    cs: list[Card], rules: Rules, model: _ChineseModel
) -> tuple[int, int, int, float] | None:
    n = 13
    full = (1 << n) - 1
    fv, fm, tv, tmk, t_of, group = _subset_tables(cs, n)
    n5 = len(fv)
    strict = rules.strict_top
    value = model.value
    best_score = float("-inf")
    best_key = (0, 0, 0, 0, 0)
    best: tuple[int, int, int, float] | None = None
    for j in range(n5):
        vb = fv[j]
        b = fm[j]
        g = value(min(tv[0], _top_cap(vb)), vb, vb)
        if g < best_score or (g == best_score and vb < best_key[0]):
            break
        vt0 = 0
        for i, t in enumerate(tmk):
            if not t & b:
                vt0 = tv[i]
                break
        for k in range(group[j], n5):
            m = fm[k]
            if m & b:
                continue
            vm = fv[k]
            ub = value(min(vt0, _top_cap(vm)), vm, vb)
            if ub < best_score or (ub == best_score and (vb, vm) < best_key[:2]):
                break
            t = full ^ b ^ m
            vt = t_of[t]
            if (row_at_most(vt, vm) >= 0) if strict else vt > vm:
                continue
            score = value(vt, vm, vb)
            if score < best_score:
                continue
            key = (vb, vm, vt, b, m)
            if score > best_score or key > best_key:
                best_score, best_key, best = score, key, (t, m, b, score)
    return best


def _greedy_board(cs: Sequence[Card]) -> Board:
    """Best five on the bottom, best five of the rest in the middle, the rest on top."""
    vals = _VALUES
    rest = sorted(cs, reverse=True)
    bottom = max(combinations(rest, 5), key=lambda c: vals[sum(c) & MASK])
    rest = [c for c in rest if c not in bottom]
    middle = max(combinations(rest, 5), key=lambda c: vals[sum(c) & MASK])
    rest = [c for c in rest if c not in middle]
    top = max(combinations(rest, 3), key=lambda c: vals[sum(c) & MASK])
    return Board(tuple(top), tuple(middle), tuple(bottom))


def natural_worth_declaring(
    cards: Sequence[Card], rules: Rules | None = None
) -> tuple[str, int] | None:
    """The natural to declare instead of setting these 13 cards, or None.

    Rule: declare the best natural held (``engine.naturals.best_natural``) when its value is at
    least the setting's estimate, ``chinese_setting_value(best_chinese_setting(cards))``, the
    expected units of the best setting against one typical opponent; ties declare (no variance).
    Per opponent that is the whole comparison: a declared natural is paid its value by everyone
    not holding a bigger one, and against someone who does, setting would pay their natural all
    the same (and an equal natural pays nothing instead).  A natural of 3 is nearly always
    worth declaring but not always: on 30,000 seeded random deals (2-4 scoring) the setting's
    estimate reached 3 for 16 of 143 six-pairs hands (quads and trips make bonus rows), 6 of 82
    three-straights and 4 of 266 three-flushes hands (straight flushes); the dragon (13) always
    declares (its settings averaged -0.2).  A natural the table values at 0 is never declared."""
    rules = rules or Rules(variant="chinese")
    natural = best_natural(cards, rules)
    if natural is None or natural[1] <= 0:
        return None
    _, setting = _chinese_best(cards, rules, _model(rules))
    return natural if natural[1] >= setting else None
