"""Hand values for 3-card (top) and 5-card rows.

``evaluate(cards)`` is one addition per card, one mask and one dict lookup (see ``engine.cards``
for the card encoding).  The returned ``HandValue`` is an ``int``: higher is better, and the
order holds across sizes as RULES.md describes -- a 3-card row's value is laid out exactly like a
5-card value with its missing kickers as zero:

    category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5     (ranks 2..14, 0 = none)

where r1.. are the ranks that define the hand, in order (quads/trips/pair ranks first, then
kickers high to low).  So ``KK A`` (top) > ``KK Q 7 3`` (middle) and ``A K Q`` < ``A K Q 9 7``
only in the kicker slots a top row does not have; ``row_at_most(top, middle)`` compares a top
with a middle row on the top's own ranks (RULES.md: they then count as equal).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations, combinations_with_replacement

from ._core import CORE
from .cards import RANK_NAMES, RANK_PLURALS, RANK_SHIFT, SUIT_BITS, Card

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
CATEGORY_NAMES = (
    "high card", "pair", "two pair", "three of a kind", "straight", "flush", "full house",
    "four of a kind", "straight flush",
)
CATEGORY_SHIFT = 20

_FLUSH_BITS = 0
for _s in range(4):
    _FLUSH_BITS |= 1 << (SUIT_BITS * _s + 6)
_RANK_MASK = ((1 << 32) - 1) << RANK_SHIFT
MASK = _RANK_MASK | _FLUSH_BITS


class HandValue(int):
    """A row's value: an int (higher is better) that also knows how to describe itself."""

    __slots__ = ()

    @property
    def category(self) -> int:
        return self >> CATEGORY_SHIFT

    @property
    def category_name(self) -> str:
        return CATEGORY_NAMES[self >> CATEGORY_SHIFT]

    @property
    def ranks(self) -> tuple[int, ...]:
        """Defining ranks, 2..14, in order (no zero padding)."""
        out = []
        for shift in (16, 12, 8, 4, 0):
            r = (self >> shift) & 15
            if r:
                out.append(r)
        return tuple(out)

    @property
    def is_royal(self) -> bool:
        return self.category == STRAIGHT_FLUSH and self.ranks[0] == 14

    def describe(self) -> str:
        return describe_value(self)

    def __repr__(self) -> str:
        return f"HandValue({describe_value(self)!r})"


def _pack(category: int, ranks: Sequence[int]) -> int:
    v = category
    for i in range(5):
        v = (v << 4) | (ranks[i] if i < len(ranks) else 0)
    return v


def _classify(ranks: Sequence[int], flush: bool) -> tuple[int, list[int]]:
    """ranks: 2..14 (3 or 5 of them).  Returns (category, defining ranks in order)."""
    counts = Counter(ranks)
    # order: by count desc then rank desc
    ordered = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = [c for _, c in ordered]
    by = [r for r, _ in ordered]
    if len(ranks) == 3:
        if shape == [3]:
            return TRIPS, by
        if shape == [2, 1]:
            return PAIR, by
        return HIGH_CARD, by
    straight_high = 0
    if shape == [1, 1, 1, 1, 1]:
        hi, lo = by[0], by[-1]
        if hi - lo == 4:
            straight_high = hi
        elif by == [14, 5, 4, 3, 2]:
            straight_high = 5
    if straight_high and flush:
        return STRAIGHT_FLUSH, [straight_high]
    if shape == [4, 1]:
        return QUADS, by
    if shape == [3, 2]:
        return FULL_HOUSE, by
    if flush:
        return FLUSH, by
    if straight_high:
        return STRAIGHT, [straight_high]
    if shape == [3, 1, 1]:
        return TRIPS, by
    if shape == [2, 2, 1]:
        return TWO_PAIR, by
    if shape == [2, 1, 1, 1]:
        return PAIR, by
    return HIGH_CARD, by


_VALUES: dict[int, HandValue] = {}
_INTERN: dict[int, HandValue] = {}


def _intern(v: int) -> HandValue:
    hv = _INTERN.get(v)
    if hv is None:
        hv = _INTERN[v] = HandValue(v)
    return hv


def _rank_key(ranks: Sequence[int]) -> int:
    total: int = sum(5 ** (r - 2) for r in ranks)
    return total << RANK_SHIFT


def _build() -> None:
    for size in (3, 5):
        for combo in combinations_with_replacement(range(2, 15), size):
            if max(Counter(combo).values()) > 4:
                continue
            cat, by = _classify(combo, False)
            _VALUES[_rank_key(combo)] = _intern(_pack(cat, by))
    for combo in combinations(range(2, 15), 5):
        cat, by = _classify(combo, True)
        value = _intern(_pack(cat, by))
        key = _rank_key(combo)
        for s in range(4):
            _VALUES[key | (1 << (SUIT_BITS * s + 6))] = value


_build()


def _evaluate(cards: Sequence[Card]) -> HandValue:
    """Value of 3 or 5 distinct cards (a top row, or a middle/bottom row)."""
    if len(cards) == 5:
        a, b, c, d, e = cards
        try:
            return _VALUES[(a + b + c + d + e) & MASK]
        except KeyError:
            pass
    elif len(cards) == 3:
        a, b, c = cards
        try:
            return _VALUES[(a + b + c) & MASK]
        except KeyError:
            pass
    raise ValueError(f"evaluate needs 3 or 5 distinct cards, got {len(cards)}")


evaluate: Callable[[Sequence[Card]], HandValue] = _evaluate
"""Value of 3 or 5 distinct cards (a top row, or a middle/bottom row).  The compiled core
(``engine._fastai``, when built) does the same lookup in C for a list or tuple of cards and
hands anything else to the Python ``_evaluate``: the same values and errors
(tests/engine/test_evaluator.py), about 1.6x as fast (``python -m bench.engine``)."""
if CORE:  # else (no C compiler, or a core built from older source) the Python lookup
    from . import _fastai

    _fastai.set_evaluator(_VALUES, MASK, _evaluate)
    evaluate = _fastai.evaluate


def value_table() -> dict[int, HandValue]:
    """The lookup table (key = card sum & MASK); used by the solver and benchmarks."""
    return _VALUES


_TOP_RANK_MASK = {HIGH_CARD: ~0xFF, PAIR: ~0xFFF, TRIPS: ~0xFFFF}


def top_compare_mask(top: int) -> int:
    """The mask that keeps as many of a middle row's defining ranks as the top row has."""
    return _TOP_RANK_MASK.get(top >> CATEGORY_SHIFT, ~0xFF)


def row_at_most(top: int, middle: int) -> int:
    """-1 if top < middle, 0 if equal on the top's own ranks, 1 if top > middle (RULES.md)."""
    # a top row defines 3 ranks (high card), 2 (pair + kicker) or 1 (trips): compare the
    # middle on that many of its defining ranks only
    truncated = middle & top_compare_mask(top)
    if top < truncated:
        return -1
    if top == truncated:
        return 0
    return 1


def _rn(r: int) -> str:
    return RANK_NAMES[r - 2]


def _rp(r: int) -> str:
    return RANK_PLURALS[r - 2]


_DESCRIPTIONS: dict[int, str] = {}


def describe_value(value: int) -> str:
    """``pair of kings``, ``queen-high flush``, ``full house, kings full of threes``."""
    text = _DESCRIPTIONS.get(value)
    if text is not None:
        return text
    cat = value >> CATEGORY_SHIFT
    ranks = [r for r in ((value >> s) & 15 for s in (16, 12, 8, 4, 0)) if r]
    if cat == HIGH_CARD:
        text = f"{_rn(ranks[0])}-high"
    elif cat == PAIR:
        text = f"pair of {_rp(ranks[0])}"
    elif cat == TWO_PAIR:
        text = f"two pair, {_rp(ranks[0])} and {_rp(ranks[1])}"
    elif cat == TRIPS:
        text = f"three {_rp(ranks[0])}"
    elif cat == STRAIGHT:
        text = f"{_rn(ranks[0])}-high straight" + (" (wheel)" if ranks[0] == 5 else "")
    elif cat == FLUSH:
        text = f"{_rn(ranks[0])}-high flush"
    elif cat == FULL_HOUSE:
        text = f"full house, {_rp(ranks[0])} full of {_rp(ranks[1])}"
    elif cat == QUADS:
        text = f"four {_rp(ranks[0])}"
    elif ranks[0] == 14:
        text = "royal flush"
    else:
        text = f"{_rn(ranks[0])}-high straight flush"
    _DESCRIPTIONS[value] = text
    return text


def describe(cards: Sequence[Card]) -> str:
    return describe_value(evaluate(cards))
