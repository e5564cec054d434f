"""Classic Chinese poker naturals: six pairs, three straights, three flushes, dragon."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from .cards import Card
from .rules import NATURAL_NAMES, Rules

SIX_PAIRS, THREE_STRAIGHTS, THREE_FLUSHES, DRAGON = NATURAL_NAMES

# rank multisets (ranks 2..14) of 5- and 3-card straights; the ace plays low in A-2-3(-4-5)
_STRAIGHTS5 = [tuple(range(lo, lo + 5)) for lo in range(2, 11)] + [(14, 2, 3, 4, 5)]
_STRAIGHTS3 = [tuple(range(lo, lo + 3)) for lo in range(2, 13)] + [(14, 2, 3)]


def _six_pairs(ranks: Counter[int]) -> bool:
    return sum(c // 2 for c in ranks.values()) >= 6


def _dragon(ranks: Counter[int]) -> bool:
    return len(ranks) == 13


def _three_straights(ranks: Counter[int]) -> bool:
    for i, a in enumerate(_STRAIGHTS5):
        for b in _STRAIGHTS5[i:]:
            rest = ranks - Counter(a) - Counter(b)
            if sum(rest.values()) != 3:
                continue
            if any(Counter(t) == rest for t in _STRAIGHTS3):
                return True
    return False


def _three_flushes(suits: Counter[str]) -> bool:
    counts = list(suits.values())
    # split the suits' counts into groups of exactly 3, 5 and 5 cards, each single-suited
    for sizes in ((3, 5, 5),):
        if _fits(sorted(counts, reverse=True), list(sizes)):
            return True
    return False


def _fits(counts: list[int], sizes: list[int]) -> bool:
    """Can each suit's count be split into some of the group sizes (each group one suit)?"""
    if not counts:
        return not sizes
    first, rest = counts[0], counts[1:]
    for k in range(1, len(sizes) + 1):
        for chosen in combinations(range(len(sizes)), k):
            if sum(sizes[i] for i in chosen) == first:
                remaining = [s for i, s in enumerate(sizes) if i not in chosen]
                if _fits(rest, remaining):
                    return True
    return False


def naturals_in(cards: Sequence[Card]) -> list[str]:
    """Every natural these 13 cards hold, in RULES.md order."""
    if len(cards) != 13:
        return []
    ranks = Counter(c.rank for c in cards)
    suits = Counter(c.suit for c in cards)
    found = []
    if _six_pairs(ranks):
        found.append(SIX_PAIRS)
    if _three_straights(ranks):
        found.append(THREE_STRAIGHTS)
    if _three_flushes(suits):
        found.append(THREE_FLUSHES)
    if _dragon(ranks):
        found.append(DRAGON)
    return found


def holds_natural(cards: Sequence[Card], name: str) -> bool:
    return name in naturals_in(cards)


def best_natural(cards: Sequence[Card], rules: Rules) -> tuple[str, int] | None:
    """The held natural worth most under these rules (name, value), or None."""
    values = rules.natural_values
    held = [(values[n], n) for n in naturals_in(cards) if n in values]
    if not held:
        return None
    value, name = max(held)
    return name, value


def compare_naturals(a: str | None, b: str | None, rules: Rules) -> int:
    """Points to A when A declared natural ``a`` and B declared ``b`` (None: no natural)."""
    values = rules.natural_values
    va = values.get(a, 0) if a else 0
    vb = values.get(b, 0) if b else 0
    if a and b:
        if va > vb:
            return va
        if vb > va:
            return -vb
        return 0
    if a:
        return va
    if b:
        return -vb
    return 0
