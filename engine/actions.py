"""Actions: frozen records appended to a hand's log (replayable, JSON-serialisable)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .board import ROWS
from .cards import Card, cards_from_json, cards_text, cards_to_json


class IllegalAction(ValueError):
    """An action that is not allowed now; the message is for the player."""


class HandOver(IllegalAction):
    pass


class NotYourTurn(IllegalAction):
    pass


class NotInHand(IllegalAction):
    pass


class RowFull(IllegalAction):
    pass


class WrongCount(IllegalAction):
    pass


class AlreadyDone(IllegalAction):
    pass


class NotAllowed(IllegalAction):
    pass


class NaturalNotHeld(IllegalAction):
    pass


@dataclass(frozen=True)
class Place:
    """Place cards on rows (0 top, 1 middle, 2 bottom) and discard the rest of what was dealt.

    One record per decision: a street in ofc/pineapple, or a whole set (chinese, fantasyland).
    ``auto`` marks a placement made by ``autoplay`` on a timeout."""

    seat: int
    placements: tuple[tuple[Card, int], ...]
    discards: tuple[Card, ...] = ()
    auto: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "place",
            "seat": self.seat,
            "cards": [[str(c), r] for c, r in self.placements],
            "discards": cards_to_json(self.discards),
            "auto": self.auto,
        }

    def describe(self) -> str:
        parts = []
        for r, name in enumerate(ROWS):
            cards = [c for c, row in self.placements if row == r]
            if cards:
                parts.append(f"{cards_text(cards)} {name}")
        return ", ".join(parts)


@dataclass(frozen=True)
class Declare:
    """Chinese poker: declare a natural instead of setting.  ``auto``: declared by ``autoplay``
    on a timeout."""

    seat: int
    natural: str
    auto: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"type": "declare", "seat": self.seat, "natural": self.natural, "auto": self.auto}


@dataclass(frozen=True)
class Surrender:
    seat: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "surrender", "seat": self.seat}


Action = Place | Declare | Surrender


def action_from_json(data: dict[str, Any]) -> Action:
    kind = data.get("type")
    if kind == "place":
        cards = cards_from_json([c for c, _ in data["cards"]])
        rows = [int(r) for _, r in data["cards"]]
        return Place(
            seat=int(data["seat"]),
            placements=tuple(zip(cards, rows, strict=True)),
            discards=tuple(cards_from_json(data.get("discards", []))),
            auto=bool(data.get("auto", False)),
        )
    if kind == "declare":
        return Declare(seat=int(data["seat"]), natural=str(data["natural"]),
                       auto=bool(data.get("auto", False)))
    if kind == "surrender":
        return Surrender(seat=int(data["seat"]))
    raise ValueError(f"Unknown action type {kind!r}")
