"""The text syntax of a move (``/ofc place`` and the terminal game).

    Ah Kd top 7c bottom 2s discard
    Qh Qd 2s top Kh Kd Ks 4c 3d middle 9c Tc Jc Qc Kc bottom

A row word applies to the cards written before it (since the previous row word).  Rows are
``top``/``front``/``t``, ``middle``/``mid``/``m``, ``bottom``/``back``/``b``; ``discard``/``d``
discards.  The other order works too when the text starts with a row word
(``top Ah Kd bottom 7c discard 2s``).  Cards are written as everywhere else (``Ah``, ``10h``,
``A♥``, ``AhKd``); commas, semicolons and a colon, full stop or ``!`` after a row word are
ignored.  Cards left without a row, or cards of the hand not mentioned at all, are discarded
when they are exactly the cards still to discard.  With a single card to place, the row word alone is enough.

``parse_move`` checks everything it can see (cards in hand, room in each row, the counts) and
raises ``CardError`` or an ``IllegalAction`` subclass whose message names the bad token or row.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .actions import IllegalAction, NotInHand, RowFull, WrongCount
from .board import ROW_SIZES, ROW_SYNONYMS, ROWS, Board
from .cards import Card, CardError, cards_text, parse_cards, split_tokens

if TYPE_CHECKING:
    from .hand import Requirement

__all__ = [
    "DISCARD",
    "DISCARD_WORDS",
    "NotationError",
    "format_move",
    "parse_move",
    "plural",
    "row_word",
]

DISCARD = 3
"""The pseudo-row of discarded cards."""
DISCARD_WORDS = ("discard", "d", "burn", "muck")
_WORDS: dict[str, int] = dict(ROW_SYNONYMS)
_WORDS.update({w: DISCARD for w in DISCARD_WORDS})

Placements = tuple[tuple[Card, int], ...]


class NotationError(IllegalAction):
    """Text that is not a move; ``token`` is the culprit (may be empty)."""

    def __init__(self, message: str, token: str = "") -> None:
        super().__init__(message)
        self.token = token


def row_word(token: str) -> int | None:
    """0/1/2 for a row word, ``DISCARD`` (3) for a discard word, None otherwise."""
    return _WORDS.get(token.strip().rstrip(":.!").lower())


def plural(n: int, word: str) -> str:
    """``1 hand``, ``3 hands``."""
    return f"{n} {word}" + ("" if n == 1 else "s")


def signed(n: int) -> str:
    """``+3``, ``−2`` (a real minus sign), ``0``."""
    if n > 0:
        return f"+{n}"
    if n < 0:
        return f"−{-n}"
    return "0"


def signed_points(x: float) -> str:
    """``+1.3``, ``−0.4`` (a real minus sign): an expected value in points, to a tenth."""
    return f"{x:+.1f}".replace("-", "−")


def signed_amount(n: int, word: str) -> str:
    """``+3 units``, ``−1 unit``: ``signed`` and ``word``, singular for one."""
    return f"{signed(n)} {word if abs(n) == 1 else word + 's'}"


_SENTENCE_END = frozenset(".!?…:")


def sentence(text: str) -> str:
    """``text`` ending as a sentence: a full stop added after a word, a number, a quote or a
    bracket (the engine's messages have none: ``It is bob's turn``), nothing after ``.!?…:``,
    an emoji or a code block."""
    text = text.rstrip()
    last = text[-1:]
    if last and last not in _SENTENCE_END and (last.isalnum() or last in ")]'\"”’*_"):
        return text + "."
    return text


_CARD_LETTERS = frozenset("akqjtshdc")


def _looks_like_word(token: str) -> bool:
    """A mistyped row word (``tpo``, ``midle``), not a mistyped card (``Akd``, ``Ahh``,
    ``AhKx``): letters only, at least three, one that no card is written with, and not
    starting with a card."""
    if len(token) < 3 or not token.isalpha() or set(token.lower()) <= _CARD_LETTERS:
        return False
    try:
        parse_cards(token[:2])
    except CardError:
        return True
    return False


def _cards_of(token: str) -> list[Card]:
    try:
        return parse_cards(token)
    except CardError as exc:
        if _looks_like_word(token):
            raise NotationError(
                f"'{token}' is not a row: use top, middle or bottom (or discard)", token
            ) from exc
        raise


def _tokenise(text: str) -> list[tuple[str, int | None, list[Card]]]:
    """Tokens as (text, row or None, cards)."""
    out: list[tuple[str, int | None, list[Card]]] = []
    for raw in split_tokens(text.replace(":", " : ")):
        if raw == ":":
            continue
        row = row_word(raw)
        if row is not None:
            out.append((raw, row, []))
        else:
            out.append((raw, None, _cards_of(raw)))
    return out


def parse_move(
    text: str, requirement: Requirement, board: Board | None = None
) -> tuple[Placements, tuple[Card, ...]]:
    """Parse ``text`` into (placements, discards) for ``requirement`` (the cards to place now)
    on ``board`` (the player's board; by default the empty board).

    Raises ``CardError`` (a token that is not a card) or an ``IllegalAction`` subclass:
    ``NotationError`` (not a row, nothing written, cards with no row), ``NotInHand`` (a card
    that is not among the cards to place), ``RowFull``, ``WrongCount``."""
    board = board if board is not None else Board()
    tokens = _tokenise(text)
    if not tokens:
        raise NotationError(_usage(requirement), "")
    pending = tuple(requirement.cards)
    # -- group the cards by row -----------------------------------------------------------
    assigned: list[tuple[Card, int, str]] = []
    loose: list[tuple[Card, str]] = []
    prefix = tokens[0][1] is not None and any(t[1] is None for t in tokens)
    if prefix:
        current = 0
        for i, (raw, row, cards) in enumerate(tokens):
            if row is not None:
                if i + 1 == len(tokens) or tokens[i + 1][1] is not None:
                    raise NotationError(
                        f"'{raw}' has no cards after it: write the row, then its cards "
                        f"(like {_row_name(row)} Ah Kd)", raw,
                    )
                current = row
                continue
            assigned.extend((c, current, raw) for c in cards)
    else:
        batch: list[tuple[Card, str]] = []
        for raw, row, cards in tokens:
            if row is None:
                batch.extend((c, raw) for c in cards)
                continue
            if not batch:
                if len(tokens) == 1 and requirement.place == 1 and len(pending) == 1 \
                        and row != DISCARD:
                    assigned.append((pending[0], row, raw))
                    continue
                raise NotationError(
                    f"'{raw}' has no cards before it: write the cards, then the row "
                    f"(like Ah Kd {_row_name(row)})", raw,
                )
            assigned.extend((c, row, t) for c, t in batch)
            batch = []
        loose = batch
    # -- every card must be one of the cards to place -----------------------------------------
    seen: set[Card] = set()
    for card in [c for c, _, _ in assigned] + [c for c, _ in loose]:
        if card in seen:
            raise WrongCount(f"{card} is written twice")
        seen.add(card)
        if card not in pending:
            if card in board.cards:
                raise NotInHand(f"{card} is already on your board")
            raise NotInHand(f"{card} is not in your hand: you have "
                            f"{cards_text(requirement.shown)}")  # (as the panel shows them)
    placed = [(c, r) for c, r, _ in assigned if r != DISCARD]
    dropped = [c for c, r, _ in assigned if r == DISCARD]
    # -- cards left without a row ------------------------------------------------------------------
    if loose:
        if len(dropped) + len(loose) == requirement.discard and len(placed) == requirement.place:
            dropped.extend(c for c, _ in loose)
        else:
            names = cards_text(c for c, _ in loose)
            raise NotationError(
                f"{names} {'has' if len(loose) == 1 else 'have'} no row: write top, middle, "
                f"bottom{' or discard' if requirement.discard else ''} after "
                f"{'it' if len(loose) == 1 else 'them'}",
                loose[0][1],
            )
    unmentioned = [c for c in requirement.shown if c not in seen]
    if unmentioned and len(placed) == requirement.place \
            and len(dropped) + len(unmentioned) == requirement.discard:
        dropped.extend(unmentioned)
        unmentioned = []
    # -- room in each row -------------------------------------------------------------------------
    free = board.free_slots
    for r, name in enumerate(ROWS):
        k = sum(1 for _, row in placed if row == r)
        if k > free[r]:
            if free[r] == 0:
                raise RowFull(f"The {name} row is full")
            have = ROW_SIZES[r] - free[r]
            detail = f" ({have} already there)" if have else ""
            raise RowFull(
                f"The {name} row has room for {plural(free[r], 'more card')}{detail}, not {k}"
            )
    # -- the counts ------------------------------------------------------------------------------
    if dropped and not requirement.discard:
        raise WrongCount(f"Nothing is discarded now: place {cards_text(dropped)} on a row")
    if len(placed) != requirement.place or len(dropped) != requirement.discard:
        raise WrongCount(_count_message(requirement, placed, dropped, unmentioned))
    return tuple(placed), tuple(dropped)


def _row_name(row: int) -> str:
    return "discard" if row == DISCARD else ROWS[row]


def _count_message(
    req: Requirement, placed: Sequence[tuple[Card, int]], dropped: Sequence[Card],
    unmentioned: Sequence[Card],
) -> str:
    need = f"place {req.place}" + (f" and discard {req.discard}" if req.discard else "")
    got = f"you placed {len(placed)}" + (
        f" and discarded {len(dropped)}" if dropped or req.discard else ""
    )
    msg = f"You must {need} of {cards_text(req.shown)}: {got}"
    if unmentioned:
        msg += f" ({cards_text(unmentioned)} not placed)"
    if req.discard and len(placed) > req.place and not dropped:  # the discard forgotten
        msg += f"; end with the card to drop, e.g. `{placed[-1][0]} discard`"
    return msg


def _usage(req: Requirement) -> str:
    example = "Ah Kd top 7c bottom" + (" 2s discard" if req.discard else "")
    return (
        f"Write the cards, then their row: like `{example}`. "
        f"Your cards: {cards_text(req.cards)}"
    )


def format_move(placements: Iterable[tuple[Card, int]], discards: Iterable[Card] = ()) -> str:
    """The move in this syntax: ``Ah Kd top, 7c bottom, 2s discard`` (parse_move reads it)."""
    placed = list(placements)
    parts = []
    for r, name in enumerate(ROWS):
        cards = [c for c, row in placed if row == r]
        if cards:
            parts.append(f"{cards_text(cards)} {name}")
    dropped = list(discards)
    if dropped:
        parts.append(f"{cards_text(dropped)} discard")
    return ", ".join(parts)
