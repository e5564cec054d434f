"""A player's board: top (3), middle (5) and bottom (5) rows; fouls, royalties, fantasyland."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .cards import Card, CardError, cards_from_json, cards_text, cards_to_json, parse_cards
from .evaluator import (
    CATEGORY_SHIFT,
    FULL_HOUSE,
    PAIR,
    QUADS,
    STRAIGHT_FLUSH,
    TRIPS,
    HandValue,
    evaluate,
    row_at_most,
)
from .rules import Rules

ROWS: tuple[str, ...] = ("top", "middle", "bottom")
ROW_SIZES: tuple[int, ...] = (3, 5, 5)
ROW_SYNONYMS = {
    "top": 0, "front": 0, "t": 0, "f": 0,
    "middle": 1, "mid": 1, "m": 1,
    "bottom": 2, "back": 2, "bot": 2, "b": 2,
}

# royalties
_TOP_PAIR = {r: r - 5 for r in range(6, 15)}  # 66 = 1 ... AA = 9
_MIDDLE = {TRIPS: 2, 4: 4, 5: 8, FULL_HOUSE: 12, QUADS: 20, STRAIGHT_FLUSH: 30}
_BOTTOM = {4: 2, 5: 4, FULL_HOUSE: 6, QUADS: 10, STRAIGHT_FLUSH: 15}
_ROYAL_MIDDLE, _ROYAL_BOTTOM = 50, 25
# chinese bonuses (paid by the row that wins, instead of its 1 unit)
_CHINESE_BONUS = (
    {TRIPS: 3},
    {FULL_HOUSE: 2, QUADS: 8, STRAIGHT_FLUSH: 10},
    {QUADS: 4, STRAIGHT_FLUSH: 5},
)


def row_index(name: str) -> int:
    """``top``/``front``, ``middle``/``mid``, ``bottom``/``back`` -> 0/1/2."""
    key = name.strip().lower()
    if key not in ROW_SYNONYMS:
        raise ValueError(f"'{name}' is not a row: use top, middle or bottom")
    return ROW_SYNONYMS[key]


def top_royalty(value: HandValue) -> int:
    cat = value.category
    if cat == TRIPS:
        return 10 + value.ranks[0] - 2
    if cat == PAIR:
        return _TOP_PAIR.get(value.ranks[0], 0)
    return 0


def middle_royalty(value: HandValue) -> int:
    if value.is_royal:
        return _ROYAL_MIDDLE
    return _MIDDLE.get(value.category, 0)


def bottom_royalty(value: HandValue) -> int:
    if value.is_royal:
        return _ROYAL_BOTTOM
    return _BOTTOM.get(value.category, 0)


def values_foul(top: int, middle: int, bottom: int, strict: bool = False) -> bool:
    """The foul rule on row values: fouled unless bottom >= middle >= top (with ``strict``,
    the top must be strictly below the middle on the top's own ranks)."""
    if middle > bottom:
        return True
    if strict:
        return row_at_most(top, middle) >= 0
    return top > middle


def fantasyland_cards_for_top(top: int, rules: Rules) -> int:
    """Cards of the fantasyland hand a clean board with this top row earns (0: none)."""
    if not rules.has_fantasyland:
        return 0
    category, first = top >> CATEGORY_SHIFT, (top >> 16) & 15
    if category == TRIPS:
        level = 4
    elif category == PAIR and first >= 12:
        level = first - 11  # QQ 1, KK 2, AA 3
    else:
        return 0
    if rules.variant == "ofc":
        return 13
    if not rules.progressive:
        return 14
    return 13 + level


def chinese_row_bonus(row: int, value: HandValue) -> int:
    """Units a winning row pays in classic Chinese poker (1 when it has no bonus)."""
    return _CHINESE_BONUS[row].get(value.category, 1)


@dataclass(frozen=True)
class Board:
    """Three rows of cards.  Rows may be partial while a hand is being played."""

    top: tuple[Card, ...] = ()
    middle: tuple[Card, ...] = ()
    bottom: tuple[Card, ...] = ()

    def __post_init__(self) -> None:
        for name, size in zip(ROWS, ROW_SIZES, strict=True):
            row = getattr(self, name)
            if not isinstance(row, tuple):
                object.__setattr__(self, name, tuple(row))
                row = getattr(self, name)
            if len(row) > size:
                raise ValueError(f"The {name} row holds {size} cards, not {len(row)}")
        all_cards = self.cards
        if len(set(all_cards)) != len(all_cards):
            dup = next(c for c in all_cards if all_cards.count(c) > 1)
            raise CardError(f"{dup} is on the board twice", str(dup))

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> Board:
        """``"Qh Qd 2s / Kh Kd Ks 4c 3d / 9c Tc Jc Qc Kc"`` (``|`` also separates rows)."""
        parts = text.replace("|", "/").split("/")
        if len(parts) != 3:
            raise ValueError("A board is three rows separated by '/': top / middle / bottom")
        rows = [tuple(parse_cards(p)) for p in parts]
        return cls(rows[0], rows[1], rows[2])

    @classmethod
    def from_rows(cls, rows: Sequence[Iterable[Card]]) -> Board:
        r = [tuple(x) for x in rows]
        return cls(r[0], r[1], r[2])

    # -- access --------------------------------------------------------------------------------
    @property
    def rows(self) -> tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]:
        return (self.top, self.middle, self.bottom)

    def row(self, i: int) -> tuple[Card, ...]:
        return self.rows[i]

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.top + self.middle + self.bottom

    def __len__(self) -> int:
        return len(self.top) + len(self.middle) + len(self.bottom)

    @property
    def is_complete(self) -> bool:
        return len(self.top) == 3 and len(self.middle) == 5 and len(self.bottom) == 5

    @property
    def free_slots(self) -> tuple[int, int, int]:
        return (3 - len(self.top), 5 - len(self.middle), 5 - len(self.bottom))

    def place(self, placements: Iterable[tuple[Card, int]]) -> Board:
        """A new board with cards added to rows (row index 0/1/2)."""
        rows = [list(self.top), list(self.middle), list(self.bottom)]
        for card, r in placements:
            rows[r].append(card)
        return Board(tuple(rows[0]), tuple(rows[1]), tuple(rows[2]))

    def values(self) -> tuple[HandValue, HandValue, HandValue]:
        if not self.is_complete:
            raise ValueError("The board is not complete")
        return (evaluate(self.top), evaluate(self.middle), evaluate(self.bottom))

    # -- rules ------------------------------------------------------------------------------------
    def is_foul(self, rules: Rules | None = None) -> bool:
        """A finished board is fouled unless bottom >= middle >= top."""
        t, m, b = self.values()
        return values_foul(t, m, b, rules is not None and rules.strict_top)

    def foul_rows(self, rules: Rules | None = None) -> tuple[int, ...] | None:
        """The rows (indices, top first) in the wrong order on a finished board: (1, 2) when
        the middle beats the bottom, (0, 1) when the top is not below the middle, (0, 1, 2)
        when both; None when it does not foul."""
        if not self.is_foul(rules):
            return None
        top, middle, bottom = self.values()
        strict = rules is not None and rules.strict_top
        upper = values_foul(top, middle, middle, strict)  # the top against the middle alone
        lower = middle > bottom
        return (0, 1, 2) if upper and lower else (1, 2) if lower else (0, 1)

    def foul_reason(self, rules: Rules | None = None) -> str | None:
        """Why a finished board fouls, in words (``the middle (pair of aces) beats the bottom
        (pair of jacks)``); None when it does not."""
        rows = self.foul_rows(rules)
        if rows is None:
            return None
        top, middle, bottom = self.values()
        verb = "is not below" if rules is not None and rules.strict_top else "beats"
        if rows == (1, 2):
            return f"the middle ({middle.describe()}) beats the bottom ({bottom.describe()})"
        if rows == (0, 1):
            return f"the top ({top.describe()}) {verb} the middle ({middle.describe()})"
        return (f"the top ({top.describe()}) {verb} the middle ({middle.describe()}), which "
                f"beats the bottom ({bottom.describe()})")

    def row_royalties(self, rules: Rules | None = None) -> tuple[int, int, int]:
        """Royalties per row (all 0 for a fouled board or in chinese)."""
        rules = rules or Rules()
        if not rules.has_royalties or self.is_foul(rules):
            return (0, 0, 0)
        t, m, b = self.values()
        return (top_royalty(t), middle_royalty(m), bottom_royalty(b))

    def royalties(self, rules: Rules | None = None) -> int:
        return sum(self.row_royalties(rules))

    def fantasyland_cards(self, rules: Rules | None = None) -> int:
        """How many cards a fantasyland hand earned by this board deals (0 for none)."""
        rules = rules or Rules()
        if not rules.has_fantasyland or self.is_foul(rules):
            return 0
        return fantasyland_cards_for_top(evaluate(self.top), rules)

    def stays_in_fantasyland(self, rules: Rules | None = None) -> bool:
        return self.fantasyland_stay_cards(rules) > 0

    def fantasyland_stay_cards(self, rules: Rules | None = None) -> int:
        """For a board set in fantasyland: cards of the next fantasyland hand (0: it ends)."""
        rules = rules or Rules()
        if not rules.has_fantasyland or self.is_foul(rules):
            return 0
        t, m, b = self.values()
        top_trips = t.category == TRIPS
        mid_fh = m.category >= FULL_HOUSE and rules.stay_middle_full_house
        bot_quads = b.category >= QUADS
        if not (top_trips or mid_fh or bot_quads):
            return 0
        base = 13 if rules.variant == "ofc" else 14
        if not rules.progressive_stay:
            return base
        if top_trips or m.is_royal or b.is_royal:
            return 15
        return 14

    # -- text -----------------------------------------------------------------------------------
    def __str__(self) -> str:
        return " / ".join(cards_text(r) for r in self.rows)

    def to_json(self) -> list[list[str]]:
        return [cards_to_json(r) for r in self.rows]

    @classmethod
    def from_json(cls, data: Sequence[Sequence[str]]) -> Board:
        return cls.from_rows([cards_from_json(r) for r in data])

    def describe_rows(self) -> list[str]:
        out = []
        for name, row, size in zip(ROWS, self.rows, ROW_SIZES, strict=True):
            if len(row) == size:
                out.append(f"{name}: {cards_text(row)} ({evaluate(row).describe()})")
            else:
                out.append(f"{name}: {cards_text(row) or '-'} ({len(row)}/{size})")
        return out


def board_json(board: Board | None) -> Any:
    return None if board is None else board.to_json()
