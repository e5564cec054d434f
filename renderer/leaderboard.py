"""Image 4: the server leaderboard, and a player's stats with a chart of their balance.

The chart is drawn by matplotlib (Agg, the object-oriented ``Figure`` API, never pyplot), with a
lock around it: matplotlib does not promise thread safety, and /ofc stats is rare enough that
serialising the chart costs nothing.
"""

from __future__ import annotations

import threading
from dataclasses import replace

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator
from PIL import Image

from engine.notation import plural, signed_amount

from .colours import (
    BLUE,
    DIM,
    FANTASY,
    LOSE,
    MUTED,
    PANEL,
    PANEL_LIGHT,
    RGB,
    TEXT,
    WIN,
    mix,
)
from .common import compact
from .fonts import can_draw, fit_name, fit_text, shown_name, text_width
from .model import DEFAULT_THEME, LeaderboardView, LeaderRow, StatsView, Theme
from .scene import Metrics, Scene

COLUMNS = ("units", "points", "hands", "fantasylands")
HEADINGS = {"units": "UNITS", "points": "POINTS", "hands": "HANDS", "fantasylands": "FL"}
PER_HAND = "points_per_hand"
"""Ranked by points per hand: the points column shows them (``PTS/HAND``)."""
MEDALS: dict[int, RGB] = {1: (0xF0, 0xB2, 0x32), 2: (0xB9, 0xC0, 0xCA), 3: (0xC8, 0x7F, 0x4A)}
_MPL_LOCK = threading.Lock()


def _value_colour(column: str, value: int) -> RGB:
    if column in ("units", "points"):
        return WIN if value > 0 else LOSE if value < 0 else TEXT
    return TEXT


def _fmt(column: str, value: int) -> str:
    """A cell of the image: compact, so that millions fit their column."""
    return compact(value, sign=column in ("units", "points"))


def leaderboard_scene(view: LeaderboardView, *, theme: Theme = DEFAULT_THEME) -> Scene:
    # a name the fonts cannot draw is "Player <row>": the rank repeats with a tie
    view = replace(view, rows=tuple(replace(r, name=shown_name(r.name, k + 1))
                                    for k, r in enumerate(view.rows)))
    m = Metrics(theme)
    margin, pad = m(16), m(18)
    width = m(760)
    row_h = m(48)
    rows = view.rows
    body_h = max(1, len(rows)) * row_h
    top = m(84)
    panel_h = m(44) + body_h + m(10)
    more_h = m(34) if view.more_tied and rows else 0
    height = top + panel_h + more_h + margin
    scene = Scene(width, height, theme.background, theme)
    scene.text((m(18), m(30)), fit_text(view.title, "bold", m(28), width - m(36)), m(28), TEXT,
               "bold", anchor="lm")
    per_hand = view.by == PER_HAND
    by = "points" if per_hand else view.by if view.by in COLUMNS else "units"
    sub = f"Top players · {view.period} · by " + (
        f"points per hand ({view.min_hands}+ hands)" if per_hand else by)
    scene.text((m(18), m(62)), fit_text(sub, "bold", m(18), width - m(36)), m(18), MUTED,
               "bold", anchor="lm")
    x0, y0, x1 = margin, top, width - margin
    scene.panel((x0, y0, x1, y0 + panel_h), m(16), PANEL_LIGHT, PANEL, None)
    # columns: right edges of the number columns
    col_right = {
        "units": x1 - m(340), "points": x1 - m(225), "hands": x1 - m(115),
        "fantasylands": x1 - pad,
    }
    hy = y0 + m(24)
    scene.text((x0 + pad, hy), "#", m(15), DIM, "bold", anchor="lm")
    scene.text((x0 + pad + m(56), hy), "PLAYER", m(15), DIM, "bold", anchor="lm")
    for col in COLUMNS:
        colour = theme.accent if col == by else DIM
        heading = "PTS/HAND" if per_hand and col == "points" else HEADINGS[col]
        scene.text((col_right[col], hy), heading + (" ▼" if col == by else ""), m(15),
                   colour, "bold", anchor="rm")
    scene.line((x0 + pad, y0 + m(42), x1 - pad, y0 + m(42)), (0x4E, 0x50, 0x58), m(2))
    if not rows:
        scene.text(((x0 + x1) // 2, y0 + m(44) + row_h // 2), _empty(view), m(18),
                   MUTED, anchor="mm")
    # the names end clear of the widest units value drawn (+99,999 is about m(100) wide)
    widest = max((text_width(_fmt("units", row.units), "bold" if by == "units" else "regular",
                             m(21 if by == "units" else 18)) for row in rows), default=0)
    name_w = col_right["units"] - widest - m(16) - (x0 + pad + m(56))
    for k, row in enumerate(rows):
        ry = y0 + m(44) + k * row_h
        cy = ry + row_h // 2
        if k % 2 == 1:
            scene.rect((x0 + m(6), ry, x1 - m(6), ry + row_h), m(8),
                       mix(PANEL_LIGHT, PANEL, 0.5))
        medal = MEDALS.get(row.rank)
        rx = x0 + pad + m(16)
        if medal:
            scene.disc((rx, cy), m(32), medal)
            scene.text((rx, cy), str(row.rank), m(17), (30, 26, 20), "bold", anchor="mm")
        else:
            scene.text((rx, cy), str(row.rank), m(18), MUTED, "bold", anchor="mm")
        name = fit_name(row.name, [r.name for r in rows], "bold", m(21), name_w)
        scene.text((x0 + pad + m(56), cy), name, m(21), TEXT, "bold", anchor="lm")
        for col in COLUMNS:
            value = getattr(row, col)
            strong = col == by
            colour = _value_colour(col, value) if strong or col in ("units", "points") else MUTED
            if not strong:
                colour = mix(colour, PANEL, 0.25)
            text = _fmt(col, value)
            if per_hand and col == "points":
                text = _per_hand(row)
            scene.text((col_right[col], cy), text, m(21 if strong else 18), colour,
                       "bold" if strong else "regular", anchor="rm")
    if more_h:  # (the text says it too)
        scene.text((x0 + pad, y0 + panel_h + more_h // 2 + m(2)),
                   fit_text(_more_tied(view), "bold", m(17), width - 2 * (x0 + pad)), m(17),
                   MUTED, "bold", anchor="lm")
    return scene


def _more_tied(view: LeaderboardView) -> str:
    return (f"… and {plural(view.more_tied, 'more player')} tied at rank "
            f"{view.rows[-1].rank}")


def render_leaderboard(view: LeaderboardView, *, theme: Theme = DEFAULT_THEME) -> bytes:
    return leaderboard_scene(view, theme=theme).png()


def _per_hand(row: LeaderRow) -> str:
    """Points a hand, two decimals, a real minus sign (``+2.00``, ``−2.25``, ``0.00``)."""
    value = round(row.points / row.hands, 2) if row.hands else 0.0
    return f"+{value:.2f}" if value > 0 else f"−{-value:.2f}" if value < 0 else "0.00"


def _empty(view: LeaderboardView) -> str:
    if view.by == PER_HAND:
        return f"Nobody has played {view.min_hands} hands yet"
    return "No hands played yet"


def describe_leaderboard(view: LeaderboardView) -> str:
    per_hand = view.by == PER_HAND
    by = f"points per hand ({view.min_hands}+ hands)" if per_hand else view.by
    lines = [f"{view.title} — top players, {view.period}, by {by}"]
    if not view.rows:
        lines.append(_empty(view))
    for k, r in enumerate(view.rows, start=1):
        points = (f"{_per_hand(r)} points a hand ({signed_amount(r.points, 'point')})"
                  if per_hand else signed_amount(r.points, "point"))
        lines.append(  # (a name that shows nothing: "Player <row>", as in the picture)
            f"{r.rank}. {shown_name(r.name, k)} — {signed_amount(r.units, 'unit')}, {points}, "
            f"{plural(r.hands, 'hand')}, {plural(r.fantasylands, 'fantasyland')}"
        )
    if view.more_tied and view.rows:
        lines.append(_more_tied(view))
    return "\n".join(lines)


# -- stats ----------------------------------------------------------------------------------------
def _hex(c: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*c)


def balance_chart(balances: tuple[int, ...], width: int, height: int, theme: Theme) -> Image.Image:
    """The balance line over the last hands (``StatsView.balances``: before the first of them,
    then after each), as an RGB image of exactly width x height.  The axes leave room for
    their labels whatever their width (a fixed margin cut the minus sign of -1,200 off)."""
    dpi = 100
    bg = _hex(PANEL_LIGHT)
    with _MPL_LOCK:
        fig = Figure(figsize=(width / dpi, height / dpi), dpi=dpi, facecolor=bg,
                     layout="constrained")
        canvas = FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        ax.set_facecolor(bg)
        xs = list(range(len(balances)))  # 0: before the first hand shown
        ys = list(balances)
        fs = 11 * theme.scale
        ax.axhline(0, color=_hex(DIM), linewidth=1 * theme.scale, zorder=1)
        ax.fill_between(xs, ys, 0, where=[y >= 0 for y in ys], interpolate=True,
                        color=_hex(WIN), alpha=0.25, linewidth=0, zorder=2)
        ax.fill_between(xs, ys, 0, where=[y <= 0 for y in ys], interpolate=True,
                        color=_hex(LOSE), alpha=0.25, linewidth=0, zorder=2)
        ax.plot(xs, ys, color=_hex(BLUE if not theme.accent else theme.accent),
                linewidth=2.4 * theme.scale, zorder=3, solid_joinstyle="round")
        last = ys[-1]
        ax.plot([xs[-1]], [last], marker="o", markersize=7 * theme.scale,
                color=_hex(theme.accent), zorder=4)
        ax.annotate(compact(last), (xs[-1], last),
                    xytext=(-8 * theme.scale, 8 * theme.scale),
                    textcoords="offset points", ha="right", color=_hex(TEXT),
                    fontsize=fs * 1.15, fontweight="bold")
        ax.set_xlim(-0.3, max(1, len(xs) - 1) + 0.3)
        lo, hi = min(min(ys), 0), max(max(ys), 0)
        span = max(4, hi - lo)  # (whole ticks: a flat zero line read "0, 0, 0, 0")
        ax.set_ylim(lo - span * 0.12, lo + span * 1.22)
        ax.grid(axis="y", color=_hex(mix(PANEL_LIGHT, TEXT, 0.12)), linewidth=0.8 * theme.scale)
        ax.set_axisbelow(True)
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
        ax.spines["bottom"].set_color(_hex(DIM))
        ax.tick_params(colors=_hex(MUTED), labelsize=fs, length=0, pad=4 * theme.scale)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=8))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=5))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: compact(round(v), above=10_000)))
        canvas.draw()  # type: ignore[no-untyped-call]
        rgba = bytes(canvas.buffer_rgba())  # type: ignore[no-untyped-call]
        w, h = canvas.get_width_height()
    return Image.frombuffer("RGBA", (w, h), rgba, "raw", "RGBA", 0, 1).convert("RGB")


def stats_scene(view: StatsView, *, theme: Theme = DEFAULT_THEME) -> Scene:
    # (one player's stats: no seat or row to number them by)
    view = replace(view, name=view.name if can_draw(view.name) else "Player")
    m = Metrics(theme)
    margin = m(16)
    width = m(760)
    tiles_y = m(64)
    tile_h = m(84)
    chart_y = tiles_y + tile_h + margin
    chart_h = m(260)
    height = chart_y + chart_h + margin
    scene = Scene(width, height, theme.background, theme)
    label_w = text_width("OFC stats", "bold", m(18))
    scene.text((m(18), m(32)), fit_text(view.name, "bold", m(28), width - m(54) - label_w),
               m(28), TEXT, "bold", anchor="lm")
    scene.text((width - m(18), m(32)), "OFC stats", m(18), MUTED, "bold", anchor="rm")

    def rate(r: float) -> str:  # (no hands: no rate, not 0%)
        return f"{r * 100:.0f}%" if view.hands else "—"

    tiles = [
        ("HANDS", compact(view.hands), TEXT),
        ("UNITS", compact(view.units, sign=True), _value_colour("units", view.units)),
        ("POINTS", compact(view.points, sign=True), _value_colour("points", view.points)),
        ("FOULS", rate(view.foul_rate), LOSE if view.foul_rate > 0.2 else TEXT),
        ("FANTASYLAND", rate(view.fantasyland_rate), FANTASY),
    ]
    gap = m(10)
    tw = (width - 2 * margin - gap * (len(tiles) - 1)) // len(tiles)
    for k, (label, value, colour) in enumerate(tiles):
        x = margin + k * (tw + gap)
        scene.panel((x, tiles_y, x + tw, tiles_y + tile_h), m(12), PANEL_LIGHT, PANEL, None)
        scene.text((x + tw // 2, tiles_y + m(24)), label, m(13), DIM, "bold", anchor="mm")
        size = m(26)
        while size > m(14) and text_width(value, "bold", size) > tw - m(12):
            size -= m(2)
        scene.text((x + tw // 2, tiles_y + m(56)), value, size, colour, "bold", anchor="mm")
    x0, x1 = margin, width - margin
    scene.panel((x0, chart_y, x1, chart_y + chart_h), m(14), PANEL_LIGHT, PANEL_LIGHT, None)
    count = max(0, len(view.balances) - 1)  # hands
    title = (f"BALANCE OVER THE LAST {count} HAND{'S' if count != 1 else ''}" if count
             else "BALANCE")
    scene.text((x0 + m(16), chart_y + m(22)), title, m(14), DIM, "bold", anchor="lm")
    if len(view.balances) > 1:
        cw, ch = x1 - x0 - m(16), chart_h - m(44)
        chart = balance_chart(view.balances, cw, ch, theme)
        scene.image(chart, x0 + m(8), chart_y + m(38))
    else:
        scene.text(((x0 + x1) // 2, chart_y + chart_h // 2), "No hands played yet", m(18),
                   MUTED, anchor="mm")
    return scene


def render_stats(view: StatsView, *, theme: Theme = DEFAULT_THEME) -> bytes:
    return stats_scene(view, theme=theme).png()


def describe_stats(view: StatsView) -> str:
    text = (
        f"{view.name} — {plural(view.hands, 'hand')}, {signed_amount(view.units, 'unit')}, "
        f"{signed_amount(view.points, 'point')}"
    )
    if view.hands:  # (no hands: no rate, as the picture's "—", not 0%)
        text += (f", fouls {view.foul_rate * 100:.0f}%, "
                 f"fantasyland {view.fantasyland_rate * 100:.0f}%")
    if len(view.balances) > 1:
        b = view.balances
        text += (
            f"\nBalance over the last {plural(len(b) - 1, 'hand')}: from {b[0]} to {b[-1]} "
            f"(low {min(b)}, high {max(b)})"
        )
    return text
