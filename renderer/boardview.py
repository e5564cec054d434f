"""The board drawn as the classic pyramid: TOP (3, centred) over MIDDLE (5) over BOTTOM (5),
with the row names (and royalties) in a column on the left.  Shared by the table and the
private hand."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from engine import Board, Card, Rules, evaluate
from engine.board import bottom_royalty, middle_royalty, top_royalty

from .colours import RGB, ROYALTY
from .model import ROW_NAMES
from .scene import CardSpot, Metrics, Scene

ROW_SIZES = (3, 5, 5)
LABELS = ("TOP", "MIDDLE", "BOTTOM")


@dataclass(frozen=True)
class BoardMetrics:
    card_w: int
    card_h: int
    gap: int
    row_gap: int
    label_w: int
    label_size: int

    @classmethod
    def make(cls, m: Metrics, card_w: float = 62, card_h: float = 86) -> BoardMetrics:
        return cls(m(card_w), m(card_h), m(6), m(10), m(94), m(16))

    @property
    def width(self) -> int:
        return self.label_w + 5 * self.card_w + 4 * self.gap

    @property
    def height(self) -> int:
        return 3 * self.card_h + 2 * self.row_gap


def live_royalties(board: Board, variant: str,
                   rules: Rules | None = None) -> tuple[int, int, int]:
    """Royalties of the rows that are complete (a complete board fouled under ``rules``, e.g.
    by ``strict_top``, earns none)."""
    if variant == "chinese":
        return (0, 0, 0)
    if board.is_complete and board.is_foul(rules):
        return (0, 0, 0)
    fns = (top_royalty, middle_royalty, bottom_royalty)
    out = [
        fn(evaluate(row)) if len(row) == size else 0
        for row, size, fn in zip(board.rows, ROW_SIZES, fns, strict=True)
    ]
    return (out[0], out[1], out[2])


def draw_board(
    scene: Scene,
    bm: BoardMetrics,
    x: int,
    y: int,
    board: Board,
    *,
    seat: int = -1,
    hidden: int = 0,
    highlight: Collection[Card] = (),
    ghosts: Sequence[tuple[Card, str]] = (),
    royalties: tuple[int, int, int] = (0, 0, 0),
    label_colour: RGB = (190, 222, 202),
    m: Metrics | None = None,
) -> None:
    """Draw ``board`` at (x, y).  ``ghosts`` are cards chosen for a row but not placed yet;
    ``hidden`` face-down backs fill the free places top to bottom."""
    cw, ch, g = bm.card_w, bm.card_h, bm.gap
    sc = m or Metrics(scene.theme)
    ghost_rows: list[list[tuple[Card, str]]] = [[], [], []]
    for card, target in ghosts:
        if target in ROW_NAMES:
            ghost_rows[ROW_NAMES.index(target)].append((card, target))
    backs_left = hidden
    rows: list[list[CardSpot]] = []
    for i, (row, size) in enumerate(zip(board.rows, ROW_SIZES, strict=True)):
        slots: list[CardSpot] = []
        for card in row:
            slots.append(CardSpot((0, 0, 0, 0), "face", card, seat, ROW_NAMES[i],
                                  highlight=card in highlight))
        for card, target in ghost_rows[i][: size - len(slots)]:
            slots.append(CardSpot((0, 0, 0, 0), "ghost", card, seat, ROW_NAMES[i], tag=target))
        while len(slots) < size and backs_left > 0:
            slots.append(CardSpot((0, 0, 0, 0), "back", None, seat, ROW_NAMES[i]))
            backs_left -= 1
        while len(slots) < size:
            slots.append(CardSpot((0, 0, 0, 0), "slot", None, seat, ROW_NAMES[i]))
        rows.append(slots)
    for i, slots in enumerate(rows):
        ry = y + i * (ch + bm.row_gap)
        # label, royalty badge and (last row) the count of backs with no place left
        extra = backs_left if i == len(rows) - 1 else 0
        badges: list[tuple[str, RGB, RGB]] = []
        if royalties[i]:
            badges.append((f"+{royalties[i]}", ROYALTY, (40, 30, 0)))
        if extra:
            # more face-down cards than places (a fantasyland hand not set yet): a badge in
            # the back colour beside the row, not over the last card
            badges.append((f"+{extra} cards", scene.theme.back_colour, (255, 255, 255)))
        ly = ry + ch // 2 - (sc(12) if badges else 0)
        scene.text((x, ly), LABELS[i], bm.label_size, label_colour, "bold", anchor="lm")
        bx = x
        for text, fill, ink in badges:
            box = scene.pill(bx, ly + sc(12), text, sc(15), fill, ink, height=sc(22))
            bx = box[2] + sc(4)
        cx = x + bm.label_w + (cw + g if len(slots) == 3 else 0)
        for k, spot in enumerate(slots):
            bx = cx + k * (cw + g)
            scene.card(CardSpot((bx, ry, bx + cw, ry + ch), spot.kind, spot.card, spot.seat,
                                spot.row, spot.highlight, spot.tag))
