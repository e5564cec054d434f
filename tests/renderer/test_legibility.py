"""What a visual review of every image found hard to read or wrong, checked: each docstring
says what it looked like before."""

from __future__ import annotations

from typing import Any

import pytest
from matplotlib.figure import Figure

from engine import Board
from renderer import HandView, LeaderboardView, LeaderRow
from renderer.colours import PANEL_LIGHT
from renderer.fonts import text_mask
from renderer.hand import hand_scene
from renderer.leaderboard import balance_chart, leaderboard_scene
from renderer.model import DEFAULT_THEME
from renderer.scene import Box, Metrics, Scene


@pytest.fixture
def text_boxes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Box]]:
    """Every text the scenes built from now on draw, with the box of its ink."""
    out: list[tuple[str, Box]] = []
    real = Scene.text

    def record(self: Scene, xy: tuple[int, int], text: str, size: int, fill: Any,
               face: str = "regular", anchor: str = "la") -> int:
        if text:
            mask, dx, dy = text_mask(text, face, size, anchor)
            ink = mask.getbbox()
            if ink:
                x, y = xy[0] + dx, xy[1] + dy
                out.append((text, (x + ink[0], y + ink[1], x + ink[2], y + ink[3])))
        return real(self, xy, text, size, fill, face, anchor)

    monkeypatch.setattr(Scene, "text", record)
    return out


def test_leaderboard_long_names_keep_clear_of_the_units_column(
        text_boxes: list[tuple[str, Box]]) -> None:
    """Before: the name column was cut ``m(100)`` left of the units column's right edge, but a
    units value such as ``+99,999`` (21 px bold) is 99 px wide: a long name ends 1 px before the
    value, so ``WWWW…+99,999`` reads as one word (leaderboard.py, ``name_w``)."""
    rows = (LeaderRow(1, "W" * 40, 99_999, 50_000, 10, 1),
            LeaderRow(2, "Maximilian_von_Habsburg", -99_999, -50_000, 10, 1))
    leaderboard_scene(LeaderboardView("Club", "units", "all time", rows))
    m = Metrics(DEFAULT_THEME)
    values = [b for t, b in text_boxes if t.endswith("99,999")]
    for row, value in zip(rows, values, strict=True):
        name = next(b for t, b in text_boxes if t.startswith(row.name[:5]))
        assert value[0] - name[2] >= m(12), (row.name, name, value)


def _chart_axes(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    axes: list[Any] = []
    real = Figure.add_subplot

    def record(self: Figure, *args: Any, **kw: Any) -> Any:
        ax = real(self, *args, **kw)
        axes.append(ax)
        return ax

    monkeypatch.setattr(Figure, "add_subplot", record)
    return axes


def _ink_in_column(im: Any, x: int) -> int:
    px = im.load()
    return sum(1 for y in range(im.height)
               if max(abs(a - b) for a, b in zip(px[x, y], PANEL_LIGHT, strict=True)) > 40)


@pytest.mark.parametrize("low", [-2_000, -150_000, -24_000_000])
def test_stats_chart_keeps_the_minus_sign_of_its_y_labels(low: int) -> None:
    """Before: the chart's axes started at 8 % of its width (``fig.add_axes((0.08, …))``), too
    little for ``−1,200`` or ``−16.0M``: the labels run off the chart's left edge and lose their
    minus sign, so a balance of −1,200 units reads as 1,200 (leaderboard.py, ``balance_chart``)."""
    balances = tuple(low * i // 49 for i in range(50))
    im = balance_chart(balances, 712, 216, DEFAULT_THEME)
    assert all(_ink_in_column(im, x) == 0 for x in range(3))


def test_stats_chart_of_a_flat_balance_has_distinct_y_labels(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: 50 hands that never moved the balance gave y limits of −0.12…0.22; the locator
    puts ticks at −0.1, 0, 0.1, 0.2 and the formatter rounds each to ``0``: the axis reads
    0, 0, 0, 0 (leaderboard.py, ``balance_chart``)."""
    axes = _chart_axes(monkeypatch)
    balance_chart((0,) * 50, 712, 216, DEFAULT_THEME)
    ax = axes[-1]
    lo, hi = ax.get_ylim()
    labels = [t.get_text() for t in ax.get_yticklabels() if lo <= t.get_position()[1] <= hi]
    assert len(labels) == len(set(labels)), labels


def test_private_panel_with_nothing_to_place_has_no_empty_cards_box(
        text_boxes: list[tuple[str, Box]]) -> None:
    """Before: a panel opened while waiting (``hand_view`` gives ``cards=()``) still drew the
    "YOUR CARDS" box one card high with nothing in it (hand.py)."""
    board = Board.parse("Qs Qd / 9s 9d 2c / Ts Js Qh")
    scene = hand_scene(HandView("Alice", (), board, instruction="Waiting for Bob"))
    drawn = [t for t, _ in text_boxes]
    with_cards = hand_scene(HandView("Alice", tuple(board.rows[0][:1]), board,
                                     instruction="Place 1 card"))
    assert "YOUR CARDS" not in drawn
    assert scene.height < with_cards.height - 100


@pytest.mark.parametrize(("n", "rows"), [(13, [5, 5, 3]), (14, [5, 5, 4]), (17, [6, 6, 5])])
def test_a_big_hand_is_laid_out_in_even_rows(n: int, rows: list[int]) -> None:
    """Before: 13 cards were laid out 6/6/1 (a lone card on the last row), 14 as 6/6/2."""
    from engine import DECK
    from renderer.hand import hand_layout

    spots = [s for s in hand_layout(HandView("Alice", tuple(DECK[:n]), Board.parse("/ /")))
             if s.row == "hand"]
    ys = sorted({s.box[1] for s in spots})
    assert [sum(1 for s in spots if s.box[1] == y) for y in ys] == rows


def test_the_showdown_draws_each_complete_row_in_the_order_that_reads_its_hand() -> None:
    """Before: in placement order (``A K A Q Q``, a straight ``7 6 5 8 9``): pairs now
    together, a full house's trips first, a straight from its top card, the wheel 5-4-3-2-A."""
    from engine import Rules, settle
    from renderer import ShowdownView
    from renderer.showdown import showdown_scene

    rules = Rules(variant="ofc")
    boards = [Board.parse("Ah 5s Ad / 8c 6d Ts 9h 7s / 3d Ac 4h 2s 5c"),
              Board.parse("Qh Jd 3c / 9s 9c 7d 7h Kd / 6h Kh 6s Ks 6c")]
    st = settle(boards, rules)
    scene = showdown_scene(ShowdownView(("Al", "Bo"), st, rules))

    def drawn(seat: int, row: str) -> str:
        spots = sorted((s for s in scene.cards if s.seat == seat and s.row == row),
                       key=lambda s: s.box[0])
        return " ".join(str(s.card) for s in spots)

    assert drawn(0, "top") == "Ah Ad 5s"
    assert drawn(0, "middle") == "Ts 9h 8c 7s 6d"
    assert drawn(0, "bottom") == "5c 4h 3d 2s Ac"
    assert drawn(1, "middle") == "9s 9c 7h 7d Kd"
    assert drawn(1, "bottom") == "6s 6h 6c Ks Kh"
