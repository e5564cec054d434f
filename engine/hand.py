"""The hand state machine for every variant (ofc, pineapple, chinese) and fantasyland.

Variants are data (``VariantSpec``): how many cards the first and later streets deal, how many of
them are kept, and whether everyone sets at once.  Every action has ``verify_*`` (raises an
``IllegalAction`` with a message for the player and changes nothing), ``can_*`` and the doing
method; each applied action is a frozen record appended to ``log``.  ``to_json``/``from_json``
round-trip the state, and ``Hand.replay`` rebuilds it from the seed and the log.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .actions import (
    Action,
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
from .board import ROW_SIZES, ROWS, Board
from .cards import DECK, Card, card_of, cards_from_json, cards_text, cards_to_json
from .naturals import naturals_in
from .rules import Rules
from .scoring import Settlement, settle


@dataclass(frozen=True)
class VariantSpec:
    name: str
    first_deal: int
    """Cards dealt on the first street (13 in chinese: the whole hand)."""
    street_deal: int
    """Cards dealt on each later street."""
    street_keep: int
    """Cards placed from each later street (the rest are discarded face down)."""
    simultaneous: bool
    """Everyone sets at once, hidden until all have set (chinese)."""

    @property
    def streets(self) -> int:
        if self.street_keep == 0:
            return 1
        return 1 + (13 - self.first_deal) // self.street_keep


SPECS: dict[str, VariantSpec] = {
    "ofc": VariantSpec("ofc", first_deal=5, street_deal=1, street_keep=1, simultaneous=False),
    "pineapple": VariantSpec(
        "pineapple", first_deal=5, street_deal=3, street_keep=2, simultaneous=False
    ),
    "chinese": VariantSpec("chinese", first_deal=13, street_deal=0, street_keep=0, simultaneous=True),
}


@dataclass(frozen=True)
class Requirement:
    """What a seat must do now."""

    seat: int
    cards: tuple[Card, ...]
    place: int
    discard: int
    free: tuple[int, int, int]
    is_set: bool
    """A whole 13-card set (fantasyland, chinese)."""

    @property
    def shown(self) -> tuple[Card, ...]:
        """The cards in the order to show them: a whole set high to low (pairs and trips side
        by side; 13-17 cards in deal order hide them), a street as dealt."""
        return tuple(sorted(self.cards, reverse=True)) if self.is_set else self.cards

    def describe(self) -> str:
        if self.is_set and self.discard:
            return f"Set your 13 cards and discard {self.discard}"
        if self.is_set:
            return "Set 13 cards: top 3, middle 5, bottom 5"
        if self.discard:
            return f"Place {self.place}, discard {self.discard}"
        return f"Place {self.place} card" + ("s" if self.place != 1 else "")


def next_button(button: int, players: int, fantasyland_next: Sequence[int], rules: Rules) -> int:
    """Where the button goes for the coming hand (RULES.md)."""
    if rules.button_stays_for_fantasyland and any(fantasyland_next):
        return button % players
    return (button + 1) % players


class Hand:
    """One hand at a table.  Seats are 0..n-1 clockwise; ``names`` are for messages."""

    def __init__(
        self,
        rules: Rules,
        names: Sequence[str],
        button: int = 0,
        fantasyland: Mapping[int, int] | Sequence[int] | None = None,
        seed: str | int | None = None,
        deck: Sequence[Card] | None = None,
    ) -> None:
        """``deck`` stacks the deck (tests, puzzles): the cards are dealt in that order."""
        n = len(names)
        rules.check_players(n)
        if not 0 <= button < n:
            raise ValueError(f"The button must be a seat from 0 to {n - 1}")
        self.rules = rules
        self.spec = SPECS[rules.variant]
        self.names: tuple[str, ...] = tuple(names)
        self.button = button
        fl = [0] * n
        if fantasyland is not None:
            items = (
                fantasyland.items() if isinstance(fantasyland, Mapping) else enumerate(fantasyland)
            )
            for seat, cards in items:
                if type(seat) is not int or not 0 <= seat < n:
                    raise ValueError(f"Fantasyland for seat {seat!r}, not at this table of {n}")
                fl[seat] = int(cards)
        for seat, cards in enumerate(fl):
            if cards and not rules.has_fantasyland:
                raise ValueError(f"Seat {seat}: this table plays no fantasyland")
            if cards and not 13 <= cards <= 17:
                raise ValueError(f"Seat {seat}: a fantasyland hand is 13 to 17 cards, not {cards}")
            if cards > 13 and rules.variant == "ofc":
                raise ValueError("Classic ofc deals 13 fantasyland cards")
            if cards and rules.variant == "pineapple" and (
                cards < 14 or (cards > 14 and not rules.progressive)
            ):
                allowed = "14 to 17" if rules.progressive else "14"
                raise ValueError(f"This pineapple deals {allowed} fantasyland cards, not {cards}")
        self.fantasyland: tuple[int, ...] = tuple(fl)
        self.seed = str(seed) if seed is not None else secrets.token_hex(16)
        self.stacked = deck is not None
        if deck is not None:
            order = list(deck)
            order += [c for c in DECK if c not in set(order)]
            if len(order) != 52 or len(set(order)) != 52:
                raise ValueError("A stacked deck lists each card at most once")
        else:
            order = list(DECK)
            random.Random(self.seed).shuffle(order)
        self._deck = order
        self._next = 0
        self.boards: list[Board] = [Board() for _ in range(n)]
        self.pending: list[tuple[Card, ...]] = [() for _ in range(n)]
        self.discards: list[tuple[Card, ...]] = [() for _ in range(n)]
        self.last_placed: list[tuple[Card, ...]] = [() for _ in range(n)]
        self.done = [False] * n
        self.surrendered = [False] * n
        self.naturals: list[str | None] = [None] * n
        self.natural_cards: list[tuple[Card, ...]] = [() for _ in range(n)]
        self.autoplayed = [0] * n
        self.street = 1
        self.turn: int | None = None
        self.log: list[Action] = []
        self.settlement: Settlement | None = None
        self.fantasyland_next: tuple[int, ...] = (0,) * n
        seat_order = [(button + 1 + k) % n for k in range(n)]
        self.order: tuple[int, ...] = tuple(seat_order)
        # simultaneous hands are dealt at once, in order from the left of the button
        for seat in seat_order:
            if fl[seat]:
                self.pending[seat] = self._draw(fl[seat])
        if self.spec.simultaneous:
            for seat in seat_order:
                self.pending[seat] = self._draw(self.spec.first_deal)
        else:
            self._start_turn(self._first_regular(0))
        self._check_over()

    # -- dealing and turns -------------------------------------------------------------------
    def _draw(self, k: int) -> tuple[Card, ...]:
        cards = tuple(self._deck[self._next : self._next + k])
        if len(cards) != k:
            raise RuntimeError("The deck ran out")  # impossible with the player limits
        self._next += k
        return cards

    @property
    def regular_seats(self) -> tuple[int, ...]:
        """Seats that play street by street, in acting order."""
        if self.spec.simultaneous:
            return ()
        return tuple(s for s in self.order if not self.fantasyland[s])

    def _first_regular(self, start: int) -> int | None:
        seats = self.regular_seats
        for k in range(start, len(seats)):
            if not self.done[seats[k]]:
                return seats[k]
        return None

    def _start_turn(self, seat: int | None) -> None:
        self.turn = seat
        if seat is not None:
            k = self.spec.first_deal if self.street == 1 else self.spec.street_deal
            self.pending[seat] = self._draw(k)

    def _advance(self) -> None:
        """Move the turn to the next regular seat, street by street."""
        seats = self.regular_seats
        if self.turn is None:
            return
        pos = seats.index(self.turn) + 1
        while True:
            nxt = self._first_regular(pos)
            if nxt is not None:
                self.turn = None
                self._start_turn(nxt)
                return
            # end of street
            if all(self.done[s] for s in seats) or self.street >= self.spec.streets:
                self.turn = None
                return
            self.street += 1
            pos = 0
            if self._first_regular(0) is None:
                self.turn = None
                return

    def _check_over(self) -> None:
        if all(self.done) and self.settlement is None:
            self._finish()

    def _finish(self) -> None:
        boards: list[Board | None] = []
        for seat in range(self.n):
            board = self.boards[seat]
            if self.naturals[seat] or self.surrendered[seat]:
                # an open-face board stays as it was left (face up, public); a chinese set or a
                # natural shows only when complete
                shown = board.is_complete or (self.surrendered[seat]
                                              and self.rules.variant != "chinese")
                boards.append(board if shown else None)
            else:
                boards.append(board)
        naturals = {s: nat for s, nat in enumerate(self.naturals) if nat}
        surrendered = [s for s in range(self.n) if self.surrendered[s]]
        self.settlement = settle(boards, self.rules, surrendered, naturals)
        nxt = []
        for seat in range(self.n):
            b = self.boards[seat]
            if self.surrendered[seat] or self.naturals[seat] or not b.is_complete:
                nxt.append(0)
            elif self.fantasyland[seat]:
                nxt.append(b.fantasyland_stay_cards(self.rules))
            else:
                nxt.append(b.fantasyland_cards(self.rules))
        self.fantasyland_next = tuple(nxt)

    # -- queries -------------------------------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def is_over(self) -> bool:
        return self.settlement is not None

    @property
    def streets(self) -> int:
        return self.spec.streets

    def to_act(self) -> list[int]:
        """Seats that may act now (several at once: fantasyland and chinese sets)."""
        if self.is_over:
            return []
        seats = [s for s in self.order if not self.done[s] and self._simultaneous(s)]
        if self.turn is not None and self.turn not in seats:
            seats.append(self.turn)
        return seats

    def _simultaneous(self, seat: int) -> bool:
        return self.spec.simultaneous or bool(self.fantasyland[seat])

    def may_act(self, seat: int) -> bool:
        return seat in self.to_act()

    def requirement(self, seat: int) -> Requirement | None:
        if not self.may_act(seat):
            return None
        cards = self.pending[seat]
        is_set = self._simultaneous(seat)
        if is_set:
            place = 13
        elif self.street == 1:
            place = self.spec.first_deal
        else:
            place = self.spec.street_keep
        return Requirement(
            seat=seat, cards=cards, place=place, discard=len(cards) - place,
            free=self.boards[seat].free_slots, is_set=is_set,
        )

    def hidden(self, seat: int) -> bool:
        """Is this seat's board hidden from the others right now?"""
        return not self.is_over and self._simultaneous(seat)

    def cards_seen_by(self, viewer: int | None) -> set[Card]:
        """Every card ``viewer`` (None: a spectator) may see now."""
        seen: set[Card] = set()
        for seat in range(self.n):
            if seat == viewer or not self.hidden(seat):
                seen.update(self.boards[seat].cards)
            if seat == viewer:
                seen.update(self.pending[seat])
                seen.update(self.discards[seat])
            if (self.is_over or seat == viewer) and self.naturals[seat]:
                seen.update(self.natural_cards[seat])  # (the declarer holds them)
        return seen

    def redacted_for(self, seat: int) -> Hand:
        """A copy of the hand holding only what ``seat`` may see (``cards_seen_by``), for
        whatever decides for that seat (the AI, a timeout's move, a suggestion): the others'
        pending cards and discards, their hidden sets (with what they last placed there) and
        declared naturals are gone (their log entries keep the seat and nothing hidden; such a
        seat counts as still setting, so the copy never settles on its blank board), and
        the cards the seat has not seen are dealt again from a seed that is a hash of the
        deck's, so the copy gives neither the deck nor another seat's hidden cards. It plays
        on as a hand (``requirement``, ``legal_moves``, ``autoplay`` for ``seat``)."""
        if self.is_over:
            raise ValueError("The hand is over: everything is seen")
        copy = Hand.from_json(self.to_json())
        hidden = [s != seat and self.hidden(s) for s in range(self.n)]
        for other in range(self.n):
            if other == seat:
                continue
            copy.pending[other] = ()
            copy.discards[other] = ()
            copy.natural_cards[other] = ()
            copy.naturals[other] = None
            if hidden[other]:
                copy.boards[other] = Board()
                copy.last_placed[other] = ()
                # still setting, as far as the copy knows: it never settles on the blank board
                copy.done[other] = copy.surrendered[other]
        copy.log = [_redacted(a, seat, hidden) for a in self.log]
        seen = self.cards_seen_by(seat)
        copy.seed = hashlib.sha256(f"seen by {seat}/{self.seed}".encode()).hexdigest()[:32]
        unseen = [c for c in DECK if c not in seen]
        random.Random(copy.seed).shuffle(unseen)
        copy._deck = sorted(seen) + unseen
        copy._next = len(seen)
        copy.stacked = True
        return copy

    def view_for(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (None: a spectator): never the deck, never another seat's
        pending cards or discards, never a hidden (fantasyland / chinese) set before showdown."""
        seats = []
        for s in range(self.n):
            own = s == seat
            hidden = self.hidden(s) and not own
            entry: dict[str, Any] = {
                "seat": s,
                "name": self.names[s],
                "board": Board().to_json() if hidden else self.boards[s].to_json(),
                # a declared natural's cards count too: it looks like any other set hand
                "hidden_cards": (len(self.boards[s]) + len(self.pending[s])
                                 + (0 if self.is_over else len(self.natural_cards[s])))
                if hidden else 0,
                "fantasyland": self.fantasyland[s],
                "done": self.done[s],
                "surrendered": self.surrendered[s],
                "natural": self.naturals[s] if (own or self.is_over) else None,
                "last_placed": [] if hidden else cards_to_json(self.last_placed[s]),
                "pending_count": len(self.pending[s]),
            }
            if own:
                entry["pending"] = cards_to_json(self.pending[s])
                entry["discards"] = cards_to_json(self.discards[s])
            if self.is_over and self.naturals[s]:
                entry["natural_cards"] = cards_to_json(self.natural_cards[s])
            seats.append(entry)
        view: dict[str, Any] = {
            "variant": self.rules.variant,
            "button": self.button,
            "street": self.street,
            "streets": self.streets,
            "turn": self.turn,
            "to_act": self.to_act(),
            "over": self.is_over,
            "seats": seats,
        }
        if self.is_over and self.settlement is not None:
            view["settlement"] = self.settlement.to_json()
            view["fantasyland_next"] = list(self.fantasyland_next)
        return view

    # -- verify / can / do: place ---------------------------------------------------------------
    def _seat_here(self, seat: object) -> None:
        """A seat of this hand (a number 0..n-1), else NotAllowed."""
        if type(seat) is not int or not 0 <= seat < self.n:
            raise NotAllowed("You are not playing in this hand")

    def _verify_actor(self, seat: int) -> None:
        if self.is_over:
            raise HandOver("This hand is over")
        self._seat_here(seat)
        if self.surrendered[seat]:
            raise AlreadyDone("You surrendered this hand")
        if self.done[seat]:
            raise AlreadyDone("You have finished this hand; wait for the others")
        if not self.may_act(seat):
            who = self.names[self.turn] if self.turn is not None else "nobody"
            raise NotYourTurn(f"It is {who}'s turn; you are pinged when it is yours")

    def verify_place(
        self,
        seat: int,
        placements: Iterable[tuple[Card, int]],
        discards: Iterable[Card] = (),
    ) -> tuple[tuple[tuple[Card, int], ...], tuple[Card, ...]]:
        """Check a placement; returns it normalised.  Raises IllegalAction, changes nothing."""
        self._verify_actor(seat)
        req = self.requirement(seat)
        assert req is not None
        placed = _placements(placements)
        dropped = _cards(discards, "discard")
        pending = set(req.cards)
        seen: set[Card] = set()
        for card in [c for c, _ in placed] + list(dropped):
            if card in seen:
                raise WrongCount(f"{card} is used twice")
            seen.add(card)
            if card not in pending:
                if card in self.boards[seat].cards:
                    raise NotInHand(f"{card} is already on your board")
                raise NotInHand(f"{card} is not in your hand")
        for c, r in placed:
            if r not in (0, 1, 2):
                raise NotAllowed(f"{c}: {r} is not a row; rows are top, middle and bottom")
        if len(placed) != req.place or len(dropped) != req.discard:
            raise WrongCount(self._count_message(req, len(placed), len(dropped)))
        for r, name in enumerate(ROWS):
            k = sum(1 for _, row in placed if row == r)
            free = req.free[r]
            if k > free:
                if free == 0:
                    raise RowFull(f"The {name} row is full")
                raise RowFull(
                    f"The {name} row has room for {free} more card{'s' if free != 1 else ''}, "
                    f"not {k}"
                )
        return placed, dropped

    @staticmethod
    def _count_message(req: Requirement, placed: int, dropped: int) -> str:
        need = f"place {req.place}" + (f" and discard {req.discard}" if req.discard else "")
        got = f"you placed {placed}" + (f" and discarded {dropped}" if dropped or req.discard else "")
        return f"You must {need} of {cards_text(req.cards)}: {got}"

    def can_place(
        self, seat: int, placements: Iterable[tuple[Card, int]], discards: Iterable[Card] = ()
    ) -> bool:
        try:
            self.verify_place(seat, placements, discards)
        except IllegalAction:
            return False
        return True

    def place(
        self,
        seat: int,
        placements: Iterable[tuple[Card, int]],
        discards: Iterable[Card] = (),
        *,
        auto: bool = False,
    ) -> Place:
        placed, dropped = self.verify_place(seat, placements, discards)
        action = Place(seat=seat, placements=placed, discards=dropped, auto=auto)
        self._do_place(action)
        return action

    def _do_place(self, action: Place) -> None:
        seat = action.seat
        self.boards[seat] = self.boards[seat].place(action.placements)
        self.discards[seat] = self.discards[seat] + action.discards
        self.pending[seat] = ()
        self.last_placed[seat] = tuple(c for c, _ in action.placements)
        if action.auto:
            self.autoplayed[seat] += 1
        self.log.append(action)
        if self.boards[seat].is_complete:
            self.done[seat] = True
        if seat == self.turn:
            self._advance()
        self._check_over()

    # -- declare a natural (chinese) ------------------------------------------------------------
    def verify_declare(self, seat: int, natural: str) -> None:
        if not self.spec.simultaneous:
            raise NotAllowed("Naturals are declared in chinese poker only")
        self._verify_actor(seat)
        values = self.rules.natural_values
        if natural not in values:
            raise NotAllowed(
                f"'{natural}' is not a natural at this table: {', '.join(values) or 'none'}"
            )
        if natural not in naturals_in(self.pending[seat]):
            held = "a dragon" if natural == "dragon" else natural
            raise NaturalNotHeld(f"You do not hold {held}; set your hand as usual")

    def can_declare(self, seat: int, natural: str) -> bool:
        try:
            self.verify_declare(seat, natural)
        except IllegalAction:
            return False
        return True

    def declare(self, seat: int, natural: str, auto: bool = False) -> Declare:
        self.verify_declare(seat, natural)
        action = Declare(seat=seat, natural=natural, auto=auto)
        self._do_declare(action)
        return action

    def _do_declare(self, action: Declare) -> None:
        seat = action.seat
        if action.auto:
            self.autoplayed[seat] += 1
        self.naturals[seat] = action.natural
        self.natural_cards[seat] = self.pending[seat]
        self.pending[seat] = ()
        self.done[seat] = True
        self.log.append(action)
        self._check_over()

    # -- surrender ------------------------------------------------------------------------------
    def verify_surrender(self, seat: int) -> None:
        if self.is_over:
            raise HandOver("This hand is over")
        self._seat_here(seat)
        if self.surrendered[seat]:
            raise AlreadyDone("You already surrendered this hand")
        if self.done[seat]:
            raise AlreadyDone("Your board is finished; it is too late to surrender")

    def can_surrender(self, seat: int) -> bool:
        try:
            self.verify_surrender(seat)
        except IllegalAction:
            return False
        return True

    def surrender(self, seat: int) -> Surrender:
        self.verify_surrender(seat)
        action = Surrender(seat=seat)
        self._do_surrender(action)
        return action

    def _do_surrender(self, action: Surrender) -> None:
        seat = action.seat
        self.surrendered[seat] = True
        self.done[seat] = True
        self.discards[seat] = self.discards[seat] + self.pending[seat]
        self.pending[seat] = ()
        self.log.append(action)
        if seat == self.turn:
            self._advance()
        self._check_over()

    # -- generic --------------------------------------------------------------------------------
    def verify(self, action: Action) -> None:
        if isinstance(action, Place):
            self.verify_place(action.seat, action.placements, action.discards)
        elif isinstance(action, Declare):
            self.verify_declare(action.seat, action.natural)
        elif isinstance(action, Surrender):
            self.verify_surrender(action.seat)
        else:
            raise NotAllowed(f"{action!r} is not an action (a Place, Declare or Surrender)")

    def apply(self, action: Action) -> Action:
        """Verify and do a recorded action (used by replay)."""
        if not isinstance(action, Place | Declare | Surrender):
            raise NotAllowed(f"{action!r} is not an action (a Place, Declare or Surrender)")
        if isinstance(action, Place):
            return self.place(action.seat, action.placements, action.discards, auto=action.auto)
        if isinstance(action, Declare):
            return self.declare(action.seat, action.natural, auto=action.auto)
        return self.surrender(action.seat)

    def autoplay(self, seat: int, plain: bool = False) -> Place | Declare:
        """Act for ``seat`` (a timeout): the AI's play at the easy level, never a foul when a
        legal completion exists; in chinese a natural worth declaring is declared.  ``plain``:
        a simpler move found without the AI's search or the solver (no natural declared): the
        fallback of a host whose AI does not answer."""
        from .ai import choose_natural
        from .autoplay import choose_placement

        self._verify_actor(seat)
        req = self.requirement(seat)
        assert req is not None
        natural = None if plain else choose_natural(self, seat)
        if natural:
            return self.declare(seat, natural, auto=True)
        placed, dropped = choose_placement(self, seat, req, plain)
        return self.place(seat, placed, dropped, auto=True)

    def legal_moves(self, seat: int) -> list[tuple[tuple[tuple[Card, int], ...], tuple[Card, ...]]]:
        """Every legal street decision (not for whole sets, which are too many to list)."""
        from .autoplay import street_moves

        req = self.requirement(seat)
        if req is None or req.is_set:
            return []
        return street_moves(req)

    # -- persistence ----------------------------------------------------------------------------
    def header_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_json(),
            "names": list(self.names),
            "button": self.button,
            "fantasyland": list(self.fantasyland),
            "seed": self.seed,
            "deck": cards_to_json(self._deck) if self.stacked else None,
        }

    def to_json(self) -> dict[str, Any]:
        data = self.header_json()
        data.update(
            {
                "version": 1,
                "log": [a.to_json() for a in self.log],
                "state": {
                    "next": self._next,
                    "street": self.street,
                    "turn": self.turn,
                    "boards": [b.to_json() for b in self.boards],
                    "pending": [cards_to_json(p) for p in self.pending],
                    "discards": [cards_to_json(d) for d in self.discards],
                    "last_placed": [cards_to_json(p) for p in self.last_placed],
                    "done": list(self.done),
                    "surrendered": list(self.surrendered),
                    "naturals": list(self.naturals),
                    "natural_cards": [cards_to_json(c) for c in self.natural_cards],
                    "autoplayed": list(self.autoplayed),
                },
            }
        )
        return data

    @classmethod
    def _new_from_header(cls, data: Mapping[str, Any]) -> Hand:
        return cls(
            Rules.from_json(data["rules"]),
            list(data["names"]),
            int(data["button"]),
            [int(x) for x in data["fantasyland"]],
            str(data["seed"]),
            deck=cards_from_json(data["deck"]) if data.get("deck") else None,
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Hand:
        """Load a saved state (without replaying), then check it against the seed's deal."""
        hand = cls._new_from_header(data)
        st = data["state"]
        hand._next = int(st["next"])
        hand.street = int(st["street"])
        hand.turn = None if st["turn"] is None else int(st["turn"])
        hand.boards = [Board.from_json(b) for b in st["boards"]]
        hand.pending = [tuple(cards_from_json(p)) for p in st["pending"]]
        hand.discards = [tuple(cards_from_json(d)) for d in st["discards"]]
        hand.last_placed = [tuple(cards_from_json(p)) for p in st["last_placed"]]
        hand.done = [bool(x) for x in st["done"]]
        hand.surrendered = [bool(x) for x in st["surrendered"]]
        hand.naturals = [None if x is None else str(x) for x in st["naturals"]]
        hand.natural_cards = [tuple(cards_from_json(c)) for c in st["natural_cards"]]
        hand.autoplayed = [int(x) for x in st["autoplayed"]]
        hand.log = [action_from_json(a) for a in data["log"]]
        hand.settlement = None
        hand.fantasyland_next = (0,) * hand.n
        n = hand.n
        if hand.turn is not None and not 0 <= hand.turn < n or any(len(x) != n for x in (
                hand.boards, hand.pending, hand.discards, hand.last_placed, hand.done,
                hand.surrendered, hand.naturals, hand.natural_cards, hand.autoplayed)):
            raise ValueError("The saved hand does not match its seats")
        logged: list[list[set[Card]]] = [[set(), set(), set()] for _ in range(n)]
        for action in hand.log:
            if not 0 <= action.seat < n:
                raise ValueError(f"The saved hand's log names seat {action.seat}")
            if isinstance(action, Place):
                for card, row in action.placements:
                    if row not in (0, 1, 2):
                        raise ValueError(f"The saved hand's log names row {row}")
                    logged[action.seat][row].add(card)
        if any([set(row) for row in hand.boards[seat].rows] != logged[seat]
               for seat in range(n)):  # (a state its log does not reach)
            raise ValueError("The saved hand's boards are not its log's")
        dealt = set(hand._deck[: hand._next])
        held: set[Card] = set()
        for seat in range(hand.n):
            held.update(hand.boards[seat].cards, hand.pending[seat], hand.discards[seat])
            held.update(hand.natural_cards[seat])
        if held != dealt:
            raise ValueError("The saved hand does not match its seed")
        hand._check_over()
        return hand

    @classmethod
    def replay(cls, data: Mapping[str, Any]) -> Hand:
        """Rebuild a hand from its header (rules, seats, button, seed) and action log."""
        hand = cls._new_from_header(data)
        for item in data["log"]:
            hand.apply(action_from_json(item))
        return hand

    @classmethod
    def rounds(cls, data: Mapping[str, Any]) -> list[Round]:
        """A finished street-by-street hand (ofc, pineapple) round by round, as everyone
        saw it: after each round the spectator's view (``view_for(None)``: no discards, a
        fantasyland set face down until the showdown), its cards highlighted those placed in
        that round.  The last round's view is the hand's end (every set shown).  Rebuilt from
        the header and log (``replay``); a chinese hand, or one where everyone played a
        fantasyland (every hand set at once), has none."""
        hand = cls._new_from_header(data)
        if hand.spec.simultaneous or not hand.regular_seats:
            return []  # (every hand set at once: nothing to show round by round)
        rounds: list[Round] = []
        street = hand.street
        placed: dict[int, list[Card]] = {}
        auto: set[int] = set()
        for item in data["log"]:
            action = hand.apply(action_from_json(item))
            if isinstance(action, Place):
                placed.setdefault(action.seat, []).extend(c for c, _ in action.placements)
            if getattr(action, "auto", False):
                auto.add(action.seat)
            if hand.street != street or hand.is_over:
                view = hand.view_for(None)
                for entry in view["seats"]:
                    hidden = entry["hidden_cards"] > 0
                    entry["last_placed"] = [] if hidden else cards_to_json(
                        placed.get(entry["seat"], ()))
                rounds.append(Round(street, view, tuple(sorted(auto))))
                street, placed, auto = hand.street, {}, set()
        return rounds

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hand):
            return NotImplemented
        return self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<Hand {self.rules.variant} seats={list(self.names)} street={self.street}/"
            f"{self.streets} turn={self.turn} over={self.is_over}>"
        )


@dataclass(frozen=True)
class Round:
    """One round of a finished hand (``Hand.rounds``)."""

    number: int
    """From 1."""
    view: dict[str, Any]
    """What everyone saw at its end (``Hand.view_for(None)``); each seat's ``last_placed``:
    the cards it placed in this round."""
    auto: tuple[int, ...] = ()
    """Seats whose move in this round the clock played (a timeout)."""


def _card(item: object) -> Card:
    """``item`` as a card, else NotInHand naming it."""
    card = card_of(item)
    if card is None:
        raise NotInHand(f"{item!r} is not a card")
    return card


def _cards(items: Iterable[object], what: str) -> tuple[Card, ...]:
    """``items`` as cards (NotAllowed when it is no list, NotInHand naming what is no card)."""
    try:
        given = tuple(items)
    except TypeError:
        raise NotAllowed(f"The {what} must be a list of cards") from None
    return tuple(_card(item) for item in given)


def _placements(placements: Iterable[object]) -> tuple[tuple[Card, int], ...]:
    """``placements`` as (card, row) pairs, else NotAllowed naming the entry that is not one
    (a row is a number 0-2: top, middle, bottom)."""
    try:
        given = tuple(placements)
    except TypeError:
        raise NotAllowed("A placement must be a list of (card, row) pairs") from None
    out = []
    for entry in given:
        if not isinstance(entry, tuple | list) or len(entry) != 2:
            raise NotAllowed(f"{entry!r} is not a (card, row) pair")
        card, row = _card(entry[0]), entry[1]
        if type(row) is not int:
            raise NotAllowed(f"{card}: {row!r} is not a row; rows are top, middle and bottom")
        out.append((card, row))
    return tuple(out)


def _redacted(action: Action, seat: int, hidden: Sequence[bool]) -> Action:
    """``action`` as ``seat`` may know it (see ``Hand.redacted_for``)."""
    if action.seat == seat or isinstance(action, Surrender):
        return action
    if isinstance(action, Declare) or hidden[action.seat]:
        return Place(seat=action.seat, placements=(), auto=action.auto)
    return Place(seat=action.seat, placements=action.placements, auto=action.auto)


__all__ = [
    "Hand", "Requirement", "SPECS", "VariantSpec", "next_button", "ROW_SIZES",
]
