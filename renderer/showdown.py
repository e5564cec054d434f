"""Image 3, the showdown: every board revealed, one strip per seat with its rows side by side
(so the tops, middles and bottoms of all players line up), each row marked against each
opponent, row royalties, FOUL stamped across a fouled board, scoops, naturals, fantasyland,
totals in points and units, then the settlement of every pair."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

from engine import Board, Card, PairResult, Rules, cards_text, evaluate
from engine.notation import signed, signed_amount

from .colours import (
    FANTASY,
    FOUL,
    GOLD,
    LOSE,
    MUTED,
    PANEL,
    PANEL_LIGHT,
    RGB,
    ROYALTY,
    SEAT_COLOURS,
    TEXT,
    TIE,
    WIN,
    mix,
)
from .common import compact, initials, text_labels
from .fonts import fit_name, fit_text, shown_name, text_width
from .model import DEFAULT_THEME, ROW_NAMES, ShowdownView, Theme
from .scene import CardSpot, Metrics, Scene
from .sprites import stamp

GROUP_SIZES = (3, 5, 5)
ROW_LABELS = ("TOP", "MIDDLE", "BOTTOM")
OUTCOME_GLYPH = {1: "▲", -1: "▼", 0: "="}
OUTCOME_WORD = {1: "won", -1: "lost", 0: "tied"}


@dataclass(frozen=True)
class PairItem:
    """One part of a pair's settlement, from seat ``a``'s side: ``label`` and points to a."""

    label: str
    points: int | None
    text: str
    """The same item for the text equivalent."""


def pair_items(p: PairResult, names: tuple[str, ...], rules: Rules) -> list[PairItem]:
    """Everything the engine's ``PairResult`` says, as labelled items (a's point of view)."""
    a, b = names[p.a], names[p.b]
    items: list[PairItem] = []
    if p.rows is not None:
        glyphs = "".join(OUTCOME_GLYPH[o] for o in p.rows)
        words = "/".join(OUTCOME_WORD[o] for o in p.rows)
        pts = sum(p.row_points)
        per_row = ", ".join(
            f"{name} {signed(x)}" for name, x in zip(ROW_NAMES, p.row_points, strict=True)
        )
        items.append(PairItem(f"rows {glyphs}", pts,
                              f"rows {words} for {a} ({per_row}) {signed(pts)}"))
    if p.scoop and rules.scoop_bonus:
        who = a if p.scoop > 0 else b
        scoop_pts = p.scoop * rules.scoop_bonus
        items.append(PairItem("scoop", scoop_pts, f"scoop by {who} {signed(scoop_pts)}"))
    overall = p.bonus - p.scoop * rules.scoop_bonus
    if overall:
        items.append(PairItem("overall", overall, f"overall {signed(overall)}"))
    ra, rb = p.royalties
    if ra or rb:
        items.append(PairItem(f"royalties {ra}–{rb}", ra - rb,
                              f"royalties {ra}–{rb} {signed(ra - rb)}"))
    na, nb = p.naturals
    if p.natural_points or (na and nb and not p.surrender_points):
        label = " v ".join(x or "—" for x in (na, nb)) if na and nb else (na or nb or "")
        items.append(PairItem(label, p.natural_points,
                              f"natural {label} {signed(p.natural_points)}"))
    if p.moon_points:
        items.append(PairItem("moon", p.moon_points,
                              f"shooting the moon {signed(p.moon_points)}"))
    if p.surrender_points:
        who = b if p.surrender_points > 0 else a
        items.append(PairItem(f"{initial_word(who, names)} surrendered", p.surrender_points,
                              f"{who} surrendered {signed(p.surrender_points)}"))
    fa, fb = p.fouled
    sa, sb = p.surrendered
    if (sa or sb) and not p.surrender_points:  # ofc/pineapple: scored as a foul; say why
        label = ("both surrendered" if sa and sb
                 else f"{initial_word(a if sa else b, names)} surrendered")
        text = ("both surrendered" if sa and sb
                else f"{a if sa else b} surrendered (scored as a foul)")
        items.append(PairItem(label, None, text))
    if fa != fb and not (sa or sb):
        who = a if fa else b
        items.append(PairItem(f"{initial_word(who, names)} fouled", None, f"{who} fouled"))
    elif p.note and p.note not in ("natural", "surrender", "foul") and not (sa and sb):
        items.append(PairItem(p.note, None, p.note))  # (both surrendered: said above)
    return items


def initial_word(name: str, others: Iterable[str] = ()) -> str:
    """A name short enough for a chip: cut by its drawn width (the chips' bold, at scale 1;
    wide characters count as wide), with an ellipsis, told apart from ``others``."""
    return fit_name(name, others, "bold", 15, 100)


def _outcome_colour(o: int) -> RGB:
    return WIN if o > 0 else LOSE if o < 0 else TIE


def _pair_total_text(p: PairResult, names: tuple[str, ...]) -> tuple[str, int]:
    if p.total > 0:
        return names[p.a], p.total
    if p.total < 0:
        return names[p.b], -p.total
    return "", 0


def _natural_cards(view: ShowdownView, i: int) -> tuple[Card, ...]:
    """The cards of seat ``i``'s declared natural (empty when none was given) in the order that
    shows it: three flushes suit by suit (the longest first), six pairs pair by pair (the odd
    card last), the others high to low (a dragon from the ace down)."""
    natural = view.settlement.naturals[i]
    if i >= len(view.natural_cards) or not natural:
        return ()
    cards = view.natural_cards[i]
    if natural == "three flushes":
        suits = Counter(c.suit for c in cards)
        return tuple(sorted(cards, key=lambda c: (-suits[c.suit], -c.suit_index, -c.rank)))
    if natural == "six pairs":
        ranks = Counter(c.rank for c in cards)
        return tuple(sorted(cards, key=lambda c: (ranks[c.rank] == 1, -c.rank, -c.suit_index)))
    return tuple(sorted(cards, reverse=True))


def _display_row(row: tuple[Card, ...]) -> tuple[Card, ...]:
    """A complete row in the order that reads its hand (the showdown only; the table keeps the
    order the cards were placed in): the made cards first, the larger group and then the higher
    rank (a full house's trips, then its pair), the rest high to low; a straight from its top
    card, the wheel as 5-4-3-2-A."""
    counts = Counter(c.rank for c in row)
    ordered = sorted(row, key=lambda c: (-counts[c.rank], -c.rank, -c.suit_index))
    if [c.rank for c in ordered] == [14, 5, 4, 3, 2]:
        ordered = ordered[1:] + ordered[:1]
    return tuple(ordered)


def _scooped(view: ShowdownView, i: int) -> list[int]:
    """The seats that seat ``i`` scooped, where the rules pay a scoop bonus (none in 2-4 or
    1-3: winning the three rows is then just three rows)."""
    if not view.rules.scoop_bonus:
        return []
    st = view.settlement
    return [j for j in range(len(view.names)) if j != i and st.pair(i, j).scoop > 0]


def showdown_scene(view: ShowdownView, *, theme: Theme = DEFAULT_THEME) -> Scene:
    numbers = view.numbers
    if len(numbers) != len(view.names):
        numbers = tuple(range(1, len(view.names) + 1))
    # from the names as given: a name drawn as "Player N" is tagged N
    tags = initials(view.names, numbers)
    view = replace(view, names=tuple(
        shown_name(x, k) for x, k in zip(view.names, numbers, strict=True)))
    st = view.settlement
    n = len(view.names)
    if len(st.totals) != n:
        raise ValueError("names and settlement have different numbers of seats")
    boards = list(st.boards) + [None] * (n - len(st.boards))
    m = Metrics(theme)
    cw, ch, gap, ggap = m(62), m(86), m(5), m(24)
    gw = [k * cw + (k - 1) * gap for k in GROUP_SIZES]
    margin, pad = m(16), m(16)
    inner = sum(gw) + 2 * ggap
    sw = inner + 2 * pad
    width = sw + 2 * margin
    head_h, label_h, mark_h = m(46), m(28), m(38)
    sh = pad + head_h + label_h + ch + mark_h + m(8)
    pairs = [st.pair(a, b) for a in range(n) for b in range(a + 1, n)]
    line_h = m(44)
    chip_x = max((_chip_span(p, view.names, m, sw - 2 * pad)[0] for p in pairs), default=0)
    pair_lines = [_pair_layout(p, view.names, view.rules, m, sw - 2 * pad, chip_x)
                  for p in pairs]
    pairs_h = pad + m(30) + sum(k * line_h for k in pair_lines) + m(8)
    top = m(60)
    height = top + n * (sh + margin) + pairs_h + margin
    scene = Scene(width, height, theme.background, theme)

    title = view.title or "Showdown"
    scene.text((m(18), m(30)), fit_text(title, "bold", m(26), width * 2 // 3), m(26), TEXT,
               "bold", anchor="lm")
    right = f"Hand {view.hand_no:,}" if view.hand_no else ""
    rules = view.rules
    right = " · ".join(x for x in (right, f"{rules.variant} {rules.scoring_method}") if x)
    scene.text((width - m(18), m(30)), right, m(18), MUTED, "bold", anchor="rm")

    felt_top = mix(theme.felt, (255, 255, 255), 0.06)
    felt_bottom = mix(theme.felt, (0, 0, 0), 0.18)
    for i in range(n):
        x, y = margin, top + i * (sh + margin)
        winner = st.totals[i] > 0 and st.totals[i] == max(st.totals)
        scene.panel((x, y, x + sw, y + sh), m(18), felt_top, felt_bottom,
                    GOLD if winner else theme.felt_edge, edge_w=m(3) if winner else 2)
        _strip(scene, m, view, i, boards[i], tags, x + pad, y + pad, cw, ch, gap, ggap, gw,
               head_h, label_h, sw - 2 * pad)

    # the pairs
    py = top + n * (sh + margin)
    scene.panel((margin, py, margin + sw, py + pairs_h), m(16), PANEL_LIGHT, PANEL, None)
    scene.text((margin + pad, py + pad + m(8)), "RESULTS BY PAIR", m(15), MUTED, "bold",
               anchor="lm")
    ly = py + pad + m(30)
    for p, k in zip(pairs, pair_lines, strict=True):
        _pair_line(scene, m, view, p, tags, margin + pad, ly, sw - 2 * pad, line_h,
                   chip_x if k == 1 else -1)
        ly += k * line_h
    return scene


def _seat_disc(scene: Scene, m: Metrics, seat: int, tag: str, cx: int, cy: int,
               d: int) -> None:
    scene.disc((cx, cy), d, SEAT_COLOURS[seat % len(SEAT_COLOURS)])
    size = m(13) if len(tag) > 1 else m(15)
    scene.text((cx, cy), tag, round(size * d / m(26)), (255, 255, 255), "bold", anchor="mm")


def _strip(scene: Scene, m: Metrics, view: ShowdownView, i: int, board: Board | None,
           tags: list[str], x: int, y: int, cw: int, ch: int, gap: int, ggap: int,
           gw: list[int], head_h: int, label_h: int, inner: int) -> None:
    st = view.settlement
    n = len(view.names)
    cy = y + m(18)
    # header, right side: points and units
    right = x + inner
    total = st.totals[i]
    colour = WIN if total > 0 else LOSE if total < 0 else TEXT
    pts_w = scene.text((right, cy), "pts", m(16), MUTED, "bold", anchor="rm")
    right -= pts_w + m(6)
    tw = scene.text((right, cy + m(1)), signed(total), m(30), colour, "bold", anchor="rm")
    right -= tw + m(12)
    if view.units is not None:
        u = view.units[i]
        # units move between humans only: their sign may differ from the points'
        fill = mix(WIN if u > 0 else LOSE, (0, 0, 0), 0.35) if u else PANEL_LIGHT
        box = scene.pill(right, cy - m(14), f"{compact(u, sign=True)} {'unit' if abs(u) == 1 else 'units'}", m(17), fill, TEXT,
                         align="right", height=m(28))
        right = box[0] - m(12)
    # left: seat disc, name, badges
    _seat_disc(scene, m, i, tags[i], x + m(14), cy, m(28))
    nx = x + m(36)
    badges: list[tuple[str, RGB, RGB]] = []
    if st.fouled[i] and not st.surrendered[i]:
        badges.append(("FOUL", FOUL, (255, 255, 255)))
    if st.surrendered[i]:
        badges.append(("SURRENDERED", TIE, (255, 255, 255)))
    natural = st.naturals[i]
    if natural:
        badges.append((f"NATURAL: {natural.upper()}", GOLD, (40, 30, 0)))
    if st.moon[i]:
        badges.append(("SHOT THE MOON", GOLD, (40, 30, 0)))
    scooped = _scooped(view, i)
    if scooped:
        badges.append(("SCOOP " + " ".join(tags[j] for j in scooped), GOLD, (40, 30, 0)))
    fl = view.fantasyland_next[i] if i < len(view.fantasyland_next) else 0
    if fl:
        badges.append((f"FANTASYLAND! {fl}", FANTASY, (255, 255, 255)))
    badge_w = sum(text_width(t, "bold", m(14)) + m(14) + m(6) for t, _, _ in badges)
    name_w = max(m(60), right - nx - badge_w - m(8))
    name = fit_name(view.names[i], view.names, "bold", m(24), name_w)
    bx = nx + scene.text((nx, cy), name, m(24), TEXT, "bold", anchor="lm") + m(10)
    for text, fill, ink in badges:
        box = scene.pill(bx, cy - m(12), text, m(14), fill, ink, height=m(24), pad=m(7))
        bx = box[2] + m(6)

    # rows side by side
    ly = y + head_h + label_h // 2
    cy0 = y + head_h + label_h
    row_roy = st.row_royalties[i] if i < len(st.row_royalties) else (0, 0, 0)
    gx = x
    complete = board is not None and board.is_complete
    # the rows in the wrong order: their hand names in the foul colour, the stamp between
    foul_rows = (board.foul_rows(view.rules) if board is not None and complete
                 and st.fouled[i] and not st.surrendered[i] else None) or ()
    row_x: list[int] = []
    declared = board is None and bool(st.naturals[i])
    revealed = _natural_cards(view, i) if declared else ()
    if declared:  # no rows: a natural is 13 cards, not set in rows
        _natural_line(scene, m, i, revealed, x, ly, cy0, cw, ch, inner)
    for r in range(0 if declared else 3):
        size = GROUP_SIZES[r]
        row = board.rows[r] if board is not None else ()
        row_x.append(gx)
        # label, hand name, royalty
        wrong = r in foul_rows
        lw = scene.text((gx, ly), ROW_LABELS[r], m(15), FOUL_TEXT if wrong else (190, 222, 202),
                        "bold", anchor="lm")
        rx = gx + gw[r]
        if row_roy[r]:
            box = scene.pill(rx, ly - m(11), f"+{row_roy[r]}", m(14), ROYALTY, (40, 30, 0),
                             align="right", height=m(22), pad=m(6))
            rx = box[0] - m(6)
        if len(row) == size:
            desc = _short_description(evaluate(row).describe(), m(15), rx - (gx + lw + m(8)))
            scene.text((gx + lw + m(8), ly), desc, m(15), FOUL_TEXT if wrong else (225, 240, 230),
                       anchor="lm")
        if len(row) == size:
            row = _display_row(row)
        for k in range(size):
            bx0 = gx + k * (cw + gap)
            box = (bx0, cy0, bx0 + cw, cy0 + ch)
            if k < len(row):
                scene.card(CardSpot(box, "face", row[k], i, ROW_NAMES[r]))
            elif board is None:
                scene.card(CardSpot(box, "back", None, i, ROW_NAMES[r]))
            else:
                scene.card(CardSpot(box, "slot", None, i, ROW_NAMES[r]))
        # markers against each opponent
        mx = gx
        my = cy0 + ch + m(8)
        hh = m(28)
        pairs = [(j, st.pair(i, j)) for j in range(n) if j != i]
        marks = [(j, p.rows[r], p.row_points[r]) for j, p in pairs if p.rows is not None]
        full = sum(hh + text_width(f"{OUTCOME_GLYPH[o]}{signed(pts)}", "bold", m(16)) + m(17)
                   for _, o, pts in marks)
        points = full <= gw[r]  # else the glyphs alone (the pair chips give the points)
        for j, o, pts in marks:
            text = OUTCOME_GLYPH[o] if abs(pts) <= 1 or not points else (
                f"{OUTCOME_GLYPH[o]}{signed(pts)}")
            w = hh + text_width(text, "bold", m(16)) + m(12)
            scene.rect((mx, my, mx + w, my + hh), hh // 2, _outcome_colour(o))
            _seat_disc(scene, m, j, tags[j], mx + hh // 2, my + hh // 2, hh - m(6))
            scene.text((mx + hh + (w - hh) // 2 - m(2), my + hh // 2), text, m(16),
                       (255, 255, 255), "bold", anchor="mm")
            mx += w + m(5)
        gx += gw[r] + ggap
    # FOUL / natural / surrender across the cards
    cards_box = (x, cy0, x + inner, cy0 + ch)
    natural = st.naturals[i]
    if natural and board is None:
        scene.veil((x - m(4), cy0 - m(4), x + inner + m(4), cy0 + ch + m(4)), m(10),
                   (0, 0, 0), 40 if revealed else 90)
        # translucent over revealed cards, as FOUL: the cards that make the natural stay readable
        scene.sprite(stamp(natural.upper(), m(44), GOLD, 4.0,
                           opacity=NATURAL_STAMP_OPACITY if revealed else 235),
                     (cards_box[0] + cards_box[2]) // 2, (cards_box[1] + cards_box[3]) // 2)
    elif st.surrendered[i]:
        scene.veil((x - m(4), cy0 - m(4), x + inner + m(4), cy0 + ch + m(4)), m(10),
                   (0, 0, 0), 90)
        scene.sprite(stamp("SURRENDERED", m(40), (0xD0, 0xD3, 0xD8), 6.0),
                     (cards_box[0] + cards_box[2]) // 2, (cards_box[1] + cards_box[3]) // 2)
    elif st.fouled[i] and complete:
        scene.veil((x - m(4), cy0 - m(4), x + inner + m(4), cy0 + ch + m(4)), m(10),
                   (0, 0, 0), 70)
        # over the gap between the rows in the wrong order (the lower pair when all three
        # are), translucent: the cards that explain the foul stay readable under it
        upper = foul_rows[-2] if foul_rows else 1
        gap_x = row_x[upper] + gw[upper] + ggap // 2
        scene.sprite(stamp("FOUL", m(52), FOUL, 7.0, opacity=FOUL_STAMP_OPACITY),
                     gap_x, (cards_box[1] + cards_box[3]) // 2)


FOUL_TEXT = (255, 150, 150)
"""The hand names of the rows that foul a board (light red on the felt)."""
FOUL_STAMP_OPACITY = 150
"""The FOUL stamp's ink: translucent, so the cards under it can be read."""
NATURAL_STAMP_OPACITY = FOUL_STAMP_OPACITY
"""The stamp of a declared natural over its revealed cards (opaque over backs)."""
NATURAL_LABEL = "THE NATURAL'S 13 CARDS"


def _natural_line(scene: Scene, m: Metrics, i: int, cards: tuple[Card, ...], x: int, ly: int,
                  cy0: int, cw: int, ch: int, inner: int) -> None:
    """A declared natural's 13 cards (backs when not given) evenly in one line across the
    strip, under one label instead of the row names: the engine knows a natural's cards, not an
    arrangement in rows, so none is drawn."""
    scene.text((x, ly), NATURAL_LABEL, m(15), (190, 222, 202), "bold", anchor="lm")
    step = (inner - cw) / 12
    for k in range(13):
        bx0 = x + round(k * step)
        box = (bx0, cy0, bx0 + cw, cy0 + ch)
        if k < len(cards):
            scene.card(CardSpot(box, "face", cards[k], i, "natural"))
        else:
            scene.card(CardSpot(box, "back", None, i, "natural"))


def _short_description(desc: str, size: int, width: int) -> str:
    """The hand's name, shortened the way players say it when the full name does not fit."""
    if text_width(desc, "regular", size) > width:
        for prefix in ("full house, ", "two pair, "):
            if desc.startswith(prefix):
                desc = desc[len(prefix):]
    return fit_text(desc, "regular", size, width)


def _pair_layout(p: PairResult, names: tuple[str, ...], rules: Rules, m: Metrics, width: int,
                 chip_x: int) -> int:
    """How many lines the pair takes: its chips go in a column at ``chip_x`` after the names,
    or on a second line when they do not fit there."""
    _, end = _chip_span(p, names, m, width)
    return 1 if _chips_width(pair_items(p, names, rules), m) <= end - chip_x else 2


def _chip_span(p: PairResult, names: tuple[str, ...], m: Metrics, width: int) -> tuple[int, int]:
    """Where the chips may go on the pair's first line: after the names, before the total."""
    d = m(26)
    start = 2 * (d + m(6)) + text_width("  vs  ", "regular", m(16)) + m(20)
    start += sum(text_width(fit_name(names[k], names, "bold", m(18), m(130)), "bold", m(18))
                 for k in (p.a, p.b))
    who, pts = _pair_total_text(p, names)
    if who:
        tot = text_width(f"+{pts}", "bold", m(22)) + m(8) + d
    else:
        tot = text_width("even", "bold", m(20))
    return start, width - tot - m(20)


def _chips_width(items: list[PairItem], m: Metrics) -> int:
    return sum(text_width(_chip_text(it), "bold", m(15)) + m(16) + m(5) for it in items) - m(5)


def _chip_text(it: PairItem) -> str:
    return it.label if it.points is None else f"{it.label} {signed(it.points)}"


def _pair_line(scene: Scene, m: Metrics, view: ShowdownView, p: PairResult, tags: list[str],
               x: int, y: int, width: int, line_h: int, chip_x: int) -> None:
    """One pair's line; ``chip_x`` < 0 puts the chips on a second line."""
    names = view.names
    cy = y + line_h // 2 - m(4)
    d = m(26)
    _seat_disc(scene, m, p.a, tags[p.a], x + d // 2, cy, d)
    nx = x + d + m(6)
    na = fit_name(names[p.a], names, "bold", m(18), m(130))
    nx += scene.text((nx, cy), na, m(18), TEXT, "bold", anchor="lm")
    nx += scene.text((nx, cy), "  vs  ", m(16), MUTED, anchor="lm")
    _seat_disc(scene, m, p.b, tags[p.b], nx + d // 2, cy, d)
    nx += d + m(6)
    nb = fit_name(names[p.b], names, "bold", m(18), m(130))
    scene.text((nx, cy), nb, m(18), TEXT, "bold", anchor="lm")
    # total on the right
    # (the winner by their seat's disc, not their name: two long names alike were cut to
    # the same "Maximilian_…")
    who, pts = _pair_total_text(p, names)
    right = x + width
    if who:
        pw = scene.text((right, cy), f"+{pts}", m(22), WIN, "bold", anchor="rm")
        winner = p.a if p.total > 0 else p.b
        _seat_disc(scene, m, winner, tags[winner], right - pw - m(8) - d // 2, cy, d)
    else:
        scene.text((right, cy), "even", m(20), MUTED, "bold", anchor="rm")
    # chips
    items = pair_items(p, names, view.rules)
    one_line = chip_x >= 0
    cx = x + (chip_x if one_line else d + m(6))
    chip_y = cy if one_line else cy + line_h
    for it in items:
        text = _chip_text(it)
        w = text_width(text, "bold", m(15)) + m(16)
        h = m(28)
        fill = PANEL_LIGHT if it.points is None or it.points == 0 else (
            mix(WIN, PANEL, 0.45) if it.points > 0 else mix(LOSE, PANEL, 0.45))
        if it.points is None:
            fill = mix(FOUL, PANEL, 0.3) if "foul" in it.label else PANEL_LIGHT
        scene.rect((cx, chip_y - h // 2, cx + w, chip_y + h // 2), h // 2, fill)
        scene.text((cx + w // 2, chip_y), text, m(15), TEXT, "bold", anchor="mm")
        cx += w + m(5)


def showdown_layout(view: ShowdownView, *, theme: Theme = DEFAULT_THEME) -> list[CardSpot]:
    return showdown_scene(view, theme=theme).cards


def render_showdown(view: ShowdownView, *, theme: Theme = DEFAULT_THEME) -> bytes:
    """The showdown as PNG bytes."""
    return showdown_scene(view, theme=theme).png()


def describe_showdown(view: ShowdownView) -> str:
    """Everything the image says, as text: boards, hands, royalties, fouls, naturals, totals,
    fantasyland, and every pair's settlement."""
    st = view.settlement
    n = len(view.names)
    view = replace(view, names=text_labels(view.names, view.numbers))
    boards = list(st.boards) + [None] * (n - len(st.boards))
    head = view.title or "Showdown"
    if view.hand_no:
        head += f" — hand {view.hand_no}"
    lines = [head]
    for i, name in enumerate(view.names):
        board = boards[i]
        roy = st.row_royalties[i] if i < len(st.row_royalties) else (0, 0, 0)
        if board is None and _natural_cards(view, i):
            body = f"declared {st.naturals[i]}: {cards_text(_natural_cards(view, i))}"
        elif board is None:
            body = "no board shown"
        else:
            parts = []
            for r, row in enumerate(board.rows):
                shown = _display_row(row) if len(row) == GROUP_SIZES[r] else row
                item = f"{ROW_NAMES[r]}: {cards_text(shown) or '-'}"
                notes = []
                if len(row) == GROUP_SIZES[r]:
                    notes.append(evaluate(row).describe())
                if roy[r]:
                    notes.append(f"+{roy[r]}")
                if notes:
                    item += f" ({', '.join(notes)})"
                parts.append(item)
            body = " | ".join(parts)
            if st.royalties[i]:
                body += f" (royalties {st.royalties[i]})"
        flags = []
        if st.fouled[i] and not st.surrendered[i]:
            reason = board.foul_reason(view.rules) if board is not None else None
            flags.append(f"FOUL: {reason}" if reason else "FOUL")
        if st.surrendered[i]:
            flags.append("surrendered")
        if st.naturals[i]:
            flags.append(f"natural: {st.naturals[i]}")
        if st.moon[i]:
            flags.append("shot the moon")
        scooped = [view.names[j] for j in _scooped(view, i)]
        if scooped:
            flags.append("scooped " + ", ".join(scooped))
        total = f"total {signed_amount(st.totals[i], 'point')}"
        if view.units is not None:
            total += f", {signed_amount(view.units[i], 'unit')}"
        flags.append(total)
        fl = view.fantasyland_next[i] if i < len(view.fantasyland_next) else 0
        if fl:
            flags.append(f"Fantasyland! ({fl} cards)")
        lines.append(f"{name} — {body} — " + " · ".join(flags))
    for a in range(n):
        for b in range(a + 1, n):
            p = st.pair(a, b)
            items = "; ".join(it.text for it in pair_items(p, view.names, view.rules))
            who, pts = _pair_total_text(p, view.names)
            result = f"{who} +{pts}" if who else "even"
            lines.append(f"{view.names[a]} vs {view.names[b]}: {items or 'nothing'} → {result}")
    return "\n".join(lines)
