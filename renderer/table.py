"""Image 1, the table: every seat's board, name, stack, button, turn and clock, last cards placed,
face-down backs, and the round."""

from __future__ import annotations

from dataclasses import replace

from engine import Rules

from .boardview import BoardMetrics, draw_board, live_royalties
from .colours import FANTASY, LOSE, MUTED, RGB, TEXT, mix
from .common import (
    board_text,
    chip,
    clock,
    compact,
    dealer_button,
    footer,
    street_dots,
    text_labels,
    timer_pill,
)
from .fonts import fit_name, fit_text, shown_name, text_width
from .model import DEFAULT_THEME, SeatView, TableView, Theme
from .scene import CardSpot, Metrics, Scene

MAX_SEATS = 4


def _round_text(view: TableView) -> str:
    parts = []
    if view.hand_no:
        parts.append(f"Hand {view.hand_no:,}")
    if view.street and view.streets > 1:
        parts.append(f"Round {view.street} of {view.streets}")
    elif view.street and view.streets == 1:
        pass  # chinese: a single round, nothing to count
    elif view.street:
        parts.append(f"Round {view.street}")
    elif view.streets:
        parts.append("Between hands")
    return " · ".join(parts)


def table_scene(view: TableView, *, theme: Theme = DEFAULT_THEME) -> Scene:
    view = replace(view, seats=tuple(replace(s, name=shown_name(s.name, s.number or k + 1))
                                     for k, s in enumerate(view.seats)))
    m = Metrics(theme)
    bm = BoardMetrics.make(m)
    n = len(view.seats)
    if not 1 <= n <= MAX_SEATS:
        raise ValueError(f"A table has 1 to {MAX_SEATS} seats, not {n}")
    cols = 1 if n == 1 else 2
    grid_rows = (n + cols - 1) // cols
    margin, pad = m(16), m(16)
    head_h = m(64)
    pw = pad + bm.width + pad
    ph = pad + head_h + bm.height + pad
    width = margin + cols * (pw + margin)
    top = m(62)
    foot = m(40) if view.note else m(6)
    height = top + grid_rows * (ph + margin) + foot
    scene = Scene(width, height, theme.background, theme)

    # header: title on the left; hand, round and one dot per round on the right
    round_text = _round_text(view)
    dots = view.streets if 1 < view.streets <= 13 and view.street else 0
    right = width - m(18)
    if dots:
        street_dots(scene, m, right, m(30), view.street, view.streets, theme)
        right -= dots * m(16) + m(8)
    if round_text:
        right -= scene.text((right, m(30)), round_text, m(19), MUTED, "bold", anchor="rm")
    title_size = m(26)
    title = fit_text(view.title, "bold", title_size, right - m(18) - m(24))
    scene.text((m(18), m(30)), title, title_size, TEXT, "bold", anchor="lm")

    for i, seat in enumerate(view.seats):
        r, c = divmod(i, cols)
        x = margin + c * (pw + margin)
        if r == grid_rows - 1 and n % cols and cols == 2:
            x = (width - pw) // 2  # a lone last seat is centred
        y = top + r * (ph + margin)
        _seat(scene, m, bm, view, i, seat, x, y, pw, ph, theme)

    if view.note:
        footer(scene, m, view.note, height - m(26))
    return scene


def _seat(scene: Scene, m: Metrics, bm: BoardMetrics, view: TableView, i: int, seat: SeatView,
          x: int, y: int, pw: int, ph: int, theme: Theme) -> None:
    pad = m(16)
    radius = m(18)
    felt_top = mix(theme.felt, (255, 255, 255), 0.06)
    felt_bottom = mix(theme.felt, (0, 0, 0), 0.18)
    if seat.is_turn:
        scene.panel((x, y, x + pw, y + ph), radius, felt_top, felt_bottom, theme.accent,
                    edge_w=m(3))
    else:
        scene.panel((x, y, x + pw, y + ph), radius, felt_top, felt_bottom, theme.felt_edge)
    # line 1: name, dealer button, clock
    cy = y + pad + m(14)
    right = x + pw - pad
    if seat.is_turn and seat.time_left is not None:
        box = timer_pill(scene, m, right, cy - m(15), seat.time_left, theme)
        right = box[0] - m(8)
    elif seat.is_turn:
        box = scene.pill(right, cy - m(14), "TO ACT", m(15), theme.accent, (35, 28, 5),
                         align="right", height=m(28))
        right = box[0] - m(8)
    name_size = m(24)
    button_w = m(34) if seat.is_button else 0
    name = fit_name(seat.name, [s.name for s in view.seats], "bold", name_size,
                    right - (x + pad) - button_w)
    nw = scene.text((x + pad, cy), name, name_size, TEXT, "bold", anchor="lm")
    if seat.is_button:
        dealer_button(scene, m, x + pad + nw + m(8), cy)
    # line 2: stack, status; badges on the right
    cy2 = cy + m(30)
    right = x + pw - pad
    if seat.sitting_out:
        box = scene.pill(right, cy2 - m(12), "SITTING OUT", m(14), (0x4E, 0x50, 0x58), TEXT,
                         align="right", height=m(24))
        right = box[0] - m(6)
    if seat.fantasyland:
        box = scene.pill(right, cy2 - m(12), "FANTASYLAND", m(14), FANTASY, (255, 255, 255),
                         align="right", height=m(24))
        right = box[0] - m(6)
    if fouled(seat, view.variant, view.rules):
        box = scene.pill(right, cy2 - m(12), "FOULED", m(14), mix(LOSE, (0, 0, 0), 0.25),
                         (255, 255, 255), align="right", height=m(24))
        right = box[0] - m(6)
    tx = x + pad
    right -= m(4)
    line_colour: RGB = (200, 226, 210)
    if seat.stack is not None:
        tx += chip(scene, m, tx, cy2) + m(6)
        # compact (``123K``), and cut to the room left of the badges: never under them
        stack = compact(seat.stack)
        word = " unit" if seat.stack == 1 else " units"
        wide = text_width(stack, "bold", m(18)) + text_width(word, "regular", m(16))
        units = word if wide <= right - tx else ""
        stack = fit_text(stack, "bold", m(18), right - tx)
        tx += scene.text((tx, cy2), stack, m(18), TEXT, "bold", anchor="lm")
        if units:
            tx += scene.text((tx, cy2), units, m(16), line_colour, anchor="lm")
    status = _status(seat)
    if status and right - tx >= m(40):
        sep = "  ·  " if seat.stack is not None else ""
        status = fit_text(sep + status, "regular", m(16), right - tx)
        scene.text((tx, cy2), status, m(16), line_colour, anchor="lm")
    # the board
    bx, by = x + pad, y + pad + m(64)
    draw_board(scene, bm, bx, by, seat.board, seat=i, hidden=seat.hidden,
               highlight=frozenset(seat.last_placed),
               royalties=live_royalties(seat.board, view.variant, view.rules), m=m)
    if seat.sitting_out:
        scene.veil((x, y, x + pw, y + ph), m(18), theme.background, 110)


def fouled(seat: SeatView, variant: str, rules: Rules | None) -> bool:
    """Whether the seat's board is finished and fouls (public: every card of it is face up),
    shown before the showdown settles it."""
    return (variant != "chinese" and not seat.hidden and seat.board.is_complete
            and seat.board.is_foul(rules))


def _status(seat: SeatView) -> str:
    """The seat's status line, without what a badge already says (``sitting out``)."""
    if seat.sitting_out and seat.status.strip().lower() == "sitting out":
        return ""
    return seat.status


def table_layout(view: TableView, *, theme: Theme = DEFAULT_THEME) -> list[CardSpot]:
    """Every card spot of the table image with its box (what tests sample)."""
    return table_scene(view, theme=theme).cards


def render_table(view: TableView, *, theme: Theme = DEFAULT_THEME) -> bytes:
    """The table as PNG bytes."""
    return table_scene(view, theme=theme).png()


def describe_table(view: TableView) -> str:
    """The table as text (face-down cards are counted, never named)."""
    head = view.title
    rt = _round_text(view)
    if rt:
        head += f" — {rt.lower() if not view.hand_no else rt}"
    lines = [head]
    # (a name that shows nothing is "Player N", as in the picture and the showdown's text)
    labels = text_labels(tuple(s.name for s in view.seats),
                         tuple(s.number or k for k, s in enumerate(view.seats, start=1)))
    for seat, label in zip(view.seats, labels, strict=True):
        lines.append(describe_seat(replace(seat, name=label), view.variant, view.rules))
    if view.note:
        lines.append(view.note)
    return "\n".join(lines)


def describe_seat(seat: SeatView, variant: str, rules: Rules | None = None) -> str:
    text = f"{seat.name} — "
    if len(seat.board) or not seat.hidden:
        text += board_text(seat.board, live_royalties(seat.board, variant, rules))
        if seat.hidden:
            text += f" + {seat.hidden} cards face down"
    else:
        text += f"{seat.hidden} cards face down"
    extras = []
    if seat.is_button:
        extras.append("button")
    if seat.stack is not None:
        extras.append(f"stack {seat.stack}")
    if seat.fantasyland:
        extras.append("fantasyland")
    if fouled(seat, variant, rules):
        extras.append("fouled")
    if seat.sitting_out:
        extras.append("sitting out")
    if seat.is_turn:
        extras.append("to act" + (f", {clock(seat.time_left)} left"
                                  if seat.time_left is not None else ""))
    if seat.last_placed:
        shown = [c for c in seat.last_placed if c in seat.board.cards]
        if shown:
            extras.append("just placed " + " ".join(str(c) for c in shown))
    if _status(seat):
        extras.append(_status(seat))
    if extras:
        text += " · " + " · ".join(extras)
    return text


__all__ = ["describe_table", "render_table", "table_layout", "table_scene"]
