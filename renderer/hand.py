"""Image 2, the private hand: the cards to place now (1, 3, 5 or 13-17 in fantasyland) with the
ones chosen in the panel marked, above the player's own board (chosen cards shown in place,
faint), and the player's earlier discards."""

from __future__ import annotations

from engine import Card

from .boardview import BoardMetrics, draw_board, live_royalties
from .colours import FANTASY, MUTED, TARGET_COLOURS, TEXT, mix
from .common import board_text, cards_list, clock, timer_pill
from .fonts import can_draw, fit_text, shown_name
from .model import DEFAULT_THEME, ROW_NAMES, SELECT_TARGETS, HandView, Theme
from .scene import CardSpot, Metrics, Scene
from .sprites import card_glow, card_radius

TAG_TEXT = {"top": "TOP", "middle": "MIDDLE", "bottom": "BOTTOM", "discard": "DISCARD"}
SHORT_TAG_TEXT = {"top": "TOP", "middle": "MID", "bottom": "BOT", "discard": "✕"}


def _check(view: HandView) -> dict[Card, str]:
    chosen: dict[Card, str] = {}
    for card, target in view.selected:
        if target not in SELECT_TARGETS:
            raise ValueError(f"'{target}' is not a row or 'discard'")
        chosen[card] = target
    return chosen


def _shown(view: HandView) -> str:
    """The name in the header, as the other images show it (``Player N`` for a name with
    nothing the fonts can draw; ``You`` when the seat's number is not given)."""
    if view.number:
        return shown_name(view.name, view.number)
    return view.name if can_draw(view.name) else "You"


def hand_scene(view: HandView, *, theme: Theme = DEFAULT_THEME) -> Scene:
    m = Metrics(theme)
    bm = BoardMetrics.make(m)
    chosen = _check(view)
    margin, pad = m(14), m(16)
    inner_w = bm.width
    width = 2 * margin + 2 * pad + inner_w
    n = len(view.cards)
    if n <= 5:
        cw, ch, gap = m(78), m(108), m(8)
        per_row = max(1, n)
    else:  # as many rows as needed, evenly filled (13 cards: 5/5/3, not 6/6/1)
        cw, ch, gap = bm.card_w, bm.card_h, bm.gap
        most = (inner_w + gap) // (cw + gap)
        per_row = -(-n // -(-n // most))
    card_rows = max(1, (n + per_row - 1) // per_row)
    tag_h = m(24) if chosen else 0
    row_h = ch + (m(6) + tag_h if chosen else 0)
    cards_h = card_rows * row_h + (card_rows - 1) * m(10)
    head_h = m(78) if view.instruction else m(52)
    # nothing to place (waiting for the others): no empty "your cards" panel
    p1_h = pad + m(26) + cards_h + pad if n else -margin
    small_w, small_h = m(40), m(56)
    # the discards beside the row labels, in as many lines as they take (a chinese hand
    # surrendered is 13 cards: they are kept as its discards)
    disc_per = max(1, (inner_w - bm.label_w + m(5)) // (small_w + m(5)))
    disc_lines = -(-len(view.discards) // disc_per)
    disc_h = (m(26) + disc_lines * (small_h + m(5)) - m(1)) if view.discards else 0
    p2_h = pad + m(26) + bm.height + disc_h + pad
    height = head_h + p1_h + margin + p2_h + margin
    scene = Scene(width, height, theme.background, theme)
    felt_top = mix(theme.felt, (255, 255, 255), 0.06)
    felt_bottom = mix(theme.felt, (0, 0, 0), 0.18)
    label_colour = (190, 222, 202)

    # header
    right = width - m(18)
    if view.time_left is not None:
        box = timer_pill(scene, m, right, m(14), view.time_left, theme)
        right = box[0] - m(8)
    if view.fantasyland:
        box = scene.pill(right, m(16), "FANTASYLAND", m(14), FANTASY, (255, 255, 255),
                         align="right", height=m(26))
        right = box[0] - m(8)
    name = fit_text(_shown(view), "bold", m(26), right - m(18))
    scene.text((m(18), m(29)), name, m(26), TEXT, "bold", anchor="lm")
    if view.instruction:
        scene.text((m(18), m(60)), fit_text(view.instruction, "bold", m(19), width - m(36)),
                   m(19), theme.accent, "bold", anchor="lm")

    # panel 1: the cards to place
    x0, y0 = margin, head_h
    if n:
        scene.panel((x0, y0, width - margin, y0 + p1_h), m(18), felt_top, felt_bottom,
                    theme.felt_edge)
        title = "Your fantasyland hand" if view.fantasyland else "Your cards"
        if n > 5:
            title += f" ({n})"
        scene.text((x0 + pad, y0 + pad + m(9)), title.upper(), m(15), label_colour, "bold",
                   anchor="lm")
    top = y0 + pad + m(26)
    for k, card in enumerate(view.cards):
        r, c = divmod(k, per_row)
        in_row = min(per_row, n - r * per_row)
        row_w = in_row * cw + (in_row - 1) * gap
        cx = x0 + pad + (inner_w - row_w) // 2 + c * (cw + gap)
        cy = top + r * (row_h + m(10))
        target = chosen.get(card, "")
        if target:
            scene.sprite(card_glow(cw, ch, TARGET_COLOURS[target]), cx, cy)
        scene.card(CardSpot((cx, cy, cx + cw, cy + ch), "face", card, -1, "hand", tag=target))
        if target == "discard":
            scene.veil((cx, cy, cx + cw, cy + ch), card_radius(cw), (20, 20, 24), 140)
            scene.text((cx + cw // 2, cy + ch // 2), "✕", m(40), (240, 240, 240), "bold",
                       anchor="mm")
        if target:
            tag = (SHORT_TAG_TEXT if cw < m(70) else TAG_TEXT)[target]
            scene.pill(cx + cw // 2, cy + ch + m(6), tag, m(14),
                       TARGET_COLOURS[target], (255, 255, 255), align="centre",
                       height=tag_h, pad=m(6))

    # panel 2: the board, chosen cards shown faint in their rows
    y1 = y0 + p1_h + margin
    scene.panel((x0, y1, width - margin, y1 + p2_h), m(18), felt_top, felt_bottom,
                theme.felt_edge)
    scene.text((x0 + pad, y1 + pad + m(9)), "YOUR BOARD", m(15), label_colour, "bold",
               anchor="lm")
    ghosts = tuple((c, t) for c, t in view.selected if t in ROW_NAMES and c in view.cards)
    by = y1 + pad + m(26)
    draw_board(scene, bm, x0 + pad, by, view.board, ghosts=ghosts,
               royalties=live_royalties(view.board, view.variant, view.rules), m=m)
    if view.discards:
        dy = by + bm.height + m(12)
        label = "YOUR SURRENDERED CARDS" if view.variant == "chinese" else "YOUR DISCARDS"
        scene.text((x0 + pad, dy + m(8)), label, m(13), MUTED, "bold", anchor="lm")
        for k, card in enumerate(view.discards):
            line, at = divmod(k, disc_per)
            dx = x0 + pad + bm.label_w + at * (small_w + m(5))
            cy = dy + m(22) + line * (small_h + m(5))
            scene.card(CardSpot((dx, cy, dx + small_w, cy + small_h), "face", card, -1,
                                "discard"))
    return scene


def hand_layout(view: HandView, *, theme: Theme = DEFAULT_THEME) -> list[CardSpot]:
    return hand_scene(view, theme=theme).cards


def render_hand(view: HandView, *, theme: Theme = DEFAULT_THEME) -> bytes:
    """The private hand as PNG bytes."""
    return hand_scene(view, theme=theme).png()


def describe_hand(view: HandView) -> str:
    chosen = _check(view)
    head = view.name
    if view.fantasyland:
        head += " (fantasyland)"
    if view.instruction:
        head += f" — {view.instruction}"
    if view.time_left is not None:
        head += f" ({clock(view.time_left)} left)"
    cards = " ".join(
        f"{c}→{chosen[c]}" if c in chosen else str(c) for c in view.cards
    ) or "-"
    lines = [head, f"Your cards: {cards}"]
    lines.append("Your board: " + board_text(
        view.board, live_royalties(view.board, view.variant, view.rules)))
    if view.discards:
        said = "Your surrendered cards" if view.variant == "chinese" else "Your discards"
        lines.append(f"{said}: {cards_list(view.discards)}")
    return "\n".join(lines)
