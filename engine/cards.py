"""Cards: a ``Card`` is an ``int`` whose value is built for fast hand evaluation.

Encoding (see ``engine.evaluator``): ``5**rank_index << 28`` plus ``13 << (7 * suit_index)``.
The rank part is a base-5 digit per rank, so a sum of cards counts each rank; the suit part is a
7-bit counter per suit that reaches bit 6 only when five cards share the suit (a flush).  Plain
integer order is rank first, then suit (c < d < h < s).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
_SYMBOL_TO_SUIT = {
    "♣": "c", "♧": "c", "♦": "d", "♢": "d", "♥": "h", "♡": "h", "♠": "s", "♤": "s",
    "❤": "h",  # the red heart emoji (U+2764), what phone keyboards offer for hearts
}
RANK_NAMES = (
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "jack", "queen", "king", "ace",
)
RANK_PLURALS = (
    "twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens",
    "jacks", "queens", "kings", "aces",
)
SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}

RANK_SHIFT = 28
SUIT_BITS = 7
SUIT_STEP = 13


class CardError(ValueError):
    """A card could not be understood (or is not available); ``token`` names the culprit."""

    def __init__(self, message: str, token: str = "") -> None:
        super().__init__(message)
        self.token = token


def _encode(rank_index: int, suit_index: int) -> int:
    rank_part: int = 5**rank_index
    return (rank_part << RANK_SHIFT) + (SUIT_STEP << (SUIT_BITS * suit_index))


class Card(int):
    """One of the 52 cards.  ``Card("Ah")``, ``Card(51)`` (index = rank*4 + suit) or ``Card.parse``.

    Instances are interned: there is exactly one object per card.
    """

    __slots__ = ()

    def __new__(cls, spec: str | int) -> Card:  # noqa: D102 - documented on the class
        if isinstance(spec, str):
            return parse_card(spec)
        if isinstance(spec, int) and not isinstance(spec, Card) and 0 <= spec < 52:
            return DECK[spec]
        if isinstance(spec, Card):
            return spec
        raise CardError(f"{spec!r} is not a card index (0-51) or card text", str(spec))

    @classmethod
    def parse(cls, text: str) -> Card:
        return parse_card(text)

    @property
    def index(self) -> int:
        """0..51, rank-major: ``rank_index * 4 + suit_index``."""
        return _INDEX[self]

    @property
    def rank_index(self) -> int:
        """0 for a deuce … 12 for an ace."""
        return _INDEX[self] >> 2

    @property
    def rank(self) -> int:
        """2..14 (ace high)."""
        return (_INDEX[self] >> 2) + 2

    @property
    def rank_char(self) -> str:
        return RANKS[_INDEX[self] >> 2]

    @property
    def suit(self) -> str:
        """``c``, ``d``, ``h`` or ``s``."""
        return SUITS[_INDEX[self] & 3]

    @property
    def suit_index(self) -> int:
        return _INDEX[self] & 3

    @property
    def pretty(self) -> str:
        """``A♥``: rank and suit symbol."""
        return _PRETTY[self]

    def __str__(self) -> str:
        return _TEXT[self]

    def __repr__(self) -> str:
        return f"Card('{_TEXT[self]}')"

    def __format__(self, spec: str) -> str:
        return format(_TEXT[self], spec)

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return (Card, (_INDEX[self],))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self


_INDEX: dict[int, int] = {}
_TEXT: dict[int, str] = {}
_PRETTY: dict[int, str] = {}


def _build_deck() -> tuple[Card, ...]:
    cards = []
    for i in range(52):
        card = int.__new__(Card, _encode(i >> 2, i & 3))
        _INDEX[card] = i
        _TEXT[card] = RANKS[i >> 2] + SUITS[i & 3]
        _PRETTY[card] = RANKS[i >> 2] + SUIT_SYMBOLS[SUITS[i & 3]]
        cards.append(card)
    return tuple(cards)


DECK: tuple[Card, ...] = _build_deck()
"""All 52 cards in index order (2c 2d 2h 2s 3c … As)."""

_BY_TEXT = {_TEXT[c]: c for c in DECK}
_TOKEN = re.compile(r"(10|[2-9tjqkaTJQKA])([cdhsCDHS♣♧♦♢♥♡♠♤❤])")
"""Explicit cases, not IGNORECASE: that would also match lookalikes such as the Kelvin sign."""
_INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_SPLIT = re.compile(r"[\s,;]+")
"""Between cards: white space, commas and semicolons."""
_INVISIBLE_RUN = re.compile(f"[{_INVISIBLE}]+")
"""The invisible characters text picks up when copied (a byte-order mark from a file saved by
Notepad, a zero-width space from a web page or a chat, a soft hyphen): shown nowhere, so they
must not make a good card "not a card". Inside a card ("A\u2060h") they are dropped; between
cards or words they separate them (see ``split_tokens``)."""


def _token_to_card(token: str) -> Card | None:
    m = _TOKEN.fullmatch(token)
    if m is None:
        return None
    rank = m.group(1).upper()
    if rank == "10":
        rank = "T"
    suit = m.group(2)
    suit = _SYMBOL_TO_SUIT.get(suit, suit.lower())
    return _BY_TEXT.get(rank + suit)


_VARIATION_SELECTORS = str.maketrans("", "", "\ufe0e\ufe0f")
"""Emoji keyboards send ``♥`` as ``♥`` + U+FE0F; the selectors carry no meaning here."""
_IGNORED = str.maketrans("", "", "\ufe0e\ufe0f" + _INVISIBLE)
"""In one card: the selectors and the invisible characters (see ``_INVISIBLE_RUN``)."""


def parse_card(text: str) -> Card:
    """One card: ``Ah``, ``ah``, ``AH``, ``10h``, ``Th``, ``A♥`` (also the emoji ``A♥️``)."""
    token = text.translate(_IGNORED).strip()
    card = _token_to_card(token)
    if card is None:
        raise CardError(_bad_token_message(token), token)
    return card


def _bad_token_message(token: str) -> str:
    if not token:
        return "Expected a card like Ah, Td or 10h, got nothing"
    return (
        f"'{token}' is not a card: write a rank (2-9, T or 10, J, Q, K, A) "
        f"then a suit (c, d, h, s or ♣♦♥♠), like Ah or 10d"
    )


def split_tokens(text: str) -> list[str]:
    """The words of ``text``. A word with invisible characters in it is one word without them
    when that is a card, cards written together ("A\\u200bh", "Ah\\u200bKd") or no card in any
    piece ("to\\u200bp"); otherwise they separate it ("Ah\\u200btop")."""
    out: list[str] = []
    for chunk in _SPLIT.split(text.translate(_VARIATION_SELECTORS).strip()):
        if _INVISIBLE_RUN.search(chunk) is None:
            out.append(chunk)
            continue
        joined = _INVISIBLE_RUN.sub("", chunk)
        parts = _INVISIBLE_RUN.split(chunk)
        if _is_cards(joined) or not any(_is_cards(p) for p in parts):
            out.append(joined)  # a card, or a word that is no card either way: named whole
        else:
            out.extend(parts)
    return [t for t in out if t]


def _is_cards(token: str) -> bool:
    try:
        _glued(token)
    except CardError:
        return False
    return True


def parse_cards(text: str | Iterable[str | Card]) -> list[Card]:
    """Cards from text (``"Ah Kd 10c"``, ``"AhKd"``, commas allowed) or an iterable of cards/text.

    Raises ``CardError`` naming the first bad token, or the first card given twice.
    """
    tokens: list[str | Card] = []
    tokens.extend(split_tokens(text) if isinstance(text, str) else text)
    out: list[Card] = []
    seen: set[Card] = set()
    for tok in tokens:
        if isinstance(tok, Card):
            found = [tok]
        else:
            card = _token_to_card(tok)
            if card is not None:
                found = [card]
            else:
                found = _glued(tok)
        for card in found:
            if card in seen:
                raise CardError(f"{card} is listed twice", str(card))
            seen.add(card)
            out.append(card)
    return out


def _glued(token: str) -> list[Card]:
    """``AhKd`` (cards written without spaces); raises CardError naming the token."""
    pos = 0
    found: list[Card] = []
    while pos < len(token):
        m = _TOKEN.match(token, pos)
        if m is None:
            raise CardError(_bad_token_message(token), token)
        card = _token_to_card(m.group(0))
        assert card is not None
        found.append(card)
        pos = m.end()
    if not found:
        raise CardError(_bad_token_message(token), token)
    return found


def cards_text(cards: Iterable[Card]) -> str:
    """``"Ah Kd 2c"``."""
    return " ".join(_TEXT[c] for c in cards)


def cards_pretty(cards: Iterable[Card]) -> str:
    return " ".join(_PRETTY[c] for c in cards)


def sort_cards(cards: Iterable[Card], *, descending: bool = True) -> list[Card]:
    """Cards by rank then suit (int order is rank-major)."""
    return sorted(cards, reverse=descending)


def card_from_index(i: int) -> Card:
    return DECK[i]


def cards_from_json(items: Sequence[str]) -> list[Card]:
    try:
        return [_BY_TEXT[t] for t in items]
    except (KeyError, TypeError):  # (a saved hand edited by hand, or from another program)
        bad = next(t for t in items if not isinstance(t, str) or t not in _BY_TEXT)
        raise CardError(f"{bad!r} is not a card", str(bad)) from None


def card_of(value: object) -> Card | None:
    """The card ``value`` is (a ``Card``, or the plain int a card equals), else None."""
    if isinstance(value, Card):
        return value
    if type(value) is int and value in _INDEX:
        return DECK[_INDEX[value]]
    return None


def cards_to_json(cards: Iterable[Card]) -> list[str]:
    return [_TEXT[c] for c in cards]
