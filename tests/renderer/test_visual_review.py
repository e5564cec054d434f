"""A visual review of every image (tables of every variant and size, fantasyland hands face down
and at showdown, fouls, surrenders, naturals, the moon, practice, sitting out, timers, long and
non-Latin names, huge and negative figures, leaderboards with ties, stats with 0 and 500 hands,
the two-colour deck), kept as checks.  The PNGs looked at were written to /tmp/visual/ (not in
the repository).  Correct behaviour stays as passing tests; each defect found that can be checked
has its test ("Was a defect"); all four are fixed."""

from __future__ import annotations

import io
import itertools
import time
from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image, ImageFont, features

from engine import Board, Card, Rules, parse_cards, settle, units_moved
from renderer import (
    HandView,
    LeaderboardView,
    LeaderRow,
    SeatView,
    ShowdownView,
    StatsView,
    TableView,
    Theme,
)
from renderer import gallery as g
from renderer.fonts import font, text_mask
from renderer.hand import hand_scene
from renderer.leaderboard import leaderboard_scene, stats_scene
from renderer.model import DEFAULT_THEME
from renderer.scene import Box, Metrics, Scene
from renderer.showdown import pair_items, showdown_scene
from renderer.table import table_scene

LONG = "Maximilian_Alexander_von_Habsbur"  # 32 characters, Discord's limit
WIDE = "W" * 32
EMOJI = "🔥Dragon🔥 Slayer"
CJK = "王伟大师兄弟姐妹朋友们你好世界"
ARABIC = "محمد عبد الله"
MARKS = "Zoë Ñúñez Đặng Thị Hồng"
ZALGO = "Z̸̢̛̖͎̈́͊͝a̶̧̛͕̗͊l̷̰̈́g̴̛̳o̷̠͝"
NAMES = (LONG, EMOJI, CJK, ARABIC)

FULL = "Qh Qd 2s / Kh Kd Ks 4c 3d / 9c Tc Jc Qc Kc"
FOUL = "Ah Ad Kc / As Ac Qd 7s 3c / Js Jc 9d 5h 2h"
PART = "8c 3h / Jh Jd 9s 6d / Qs 7c 4d 2d"
BOARDS = ("Kh Kd 5c / Qs Qd 8h 8c 2d / 3s 3h 3d 9c 9s",
          "7s 7d 2c / 6h 6s Jc Jd 4c / Ah Ks Qh Jh Th",
          "Ac Qc 4d / 5s 5h 5d 8s 2h / 6c 6d Tc Ts 4s",
          "Kc 9d 2s / 7c 7h Js Td 3c / Ad As 9h 8d 4h")
M = Metrics(DEFAULT_THEME)


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


# -- what a scene draws ---------------------------------------------------------------------------
Drawn = tuple[str, Box]
"""A text drawn and the box of its ink."""


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> dict[int, list[Drawn]]:
    """Every text each scene built from now on draws (by ``id(scene)``), with its ink's box."""
    out: dict[int, list[Drawn]] = {}
    real = Scene.text

    def record(self: Scene, xy: tuple[int, int], text: str, size: int, fill: Any,
               face: str = "regular", anchor: str = "la") -> int:
        if text:
            mask, dx, dy = text_mask(text, face, size, anchor)
            ink = mask.getbbox()
            if ink:
                x, y = xy[0] + dx, xy[1] + dy
                out.setdefault(id(self), []).append(
                    (text, (x + ink[0], y + ink[1], x + ink[2], y + ink[3])))
        return real(self, xy, text, size, fill, face, anchor)

    monkeypatch.setattr(Scene, "text", record)
    return out


@pytest.fixture
def panels(monkeypatch: pytest.MonkeyPatch) -> dict[int, list[Box]]:
    """Every felt or grey panel each scene built from now on draws."""
    out: dict[int, list[Box]] = {}
    real = Scene.panel

    def record(self: Scene, box: Box, *args: Any, **kw: Any) -> None:
        out.setdefault(id(self), []).append(box)
        real(self, box, *args, **kw)

    monkeypatch.setattr(Scene, "panel", record)
    return out


def _meets(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _inside(a: Box, b: Box) -> bool:
    return a[0] >= b[0] and a[1] >= b[1] and a[2] <= b[2] and a[3] <= b[3]


# -- the states looked at ----------------------------------------------------------------------
def table(variant: str, n: int) -> TableView:
    """Every variant at 2-4 seats: long, emoji, CJK and Arabic names, a stack of −1,234,567 and
    one of 999,999,999, the button, a turn at 9 s, a fouled board and royalties."""
    seats = []
    for i in range(n):
        if variant == "chinese":
            seats.append(SeatView(NAMES[i], Board(), stack=(-1_234_567, 999_999_999)[i > 0],
                                  hidden=0 if i == 1 else 13, is_turn=i == 1,
                                  time_left=5 if i == 1 else None, is_button=i == 0,
                                  status="" if i == 1 else "set", number=i + 1))
        else:
            board = (PART, "Js / 7d 7s / Ac Kc", FULL, FOUL)[i]
            seats.append(SeatView(NAMES[i], Board.parse(board),
                                  stack=(-1_234_567, 999_999_999, 0, 12)[i], is_turn=i == 1,
                                  time_left=9 if i == 1 else None, is_button=i == 0,
                                  last_placed=cards("7s") if i == 1 else (),
                                  status="bot (strong)" if i == 2 else "", number=i + 1))
    return TableView(f"{variant} · 1,000,000 units/pt", variant, tuple(seats),
                     street=1 if variant == "chinese" else 4,
                     streets={"ofc": 9, "pineapple": 5, "chinese": 1}[variant],
                     hand_no=123_456, rules=Rules(variant=variant))  # type: ignore[arg-type]


def table_fantasyland(hidden: int) -> TableView:
    """A pineapple fantasyland hand of ``hidden`` cards, not set yet: all face down."""
    seats = (SeatView("Carol", Board(), stack=200, hidden=hidden, fantasyland=True,
                      status="setting"),
             SeatView("Bob", Board.parse(PART), stack=80, is_turn=True, time_left=42),
             SeatView("Alice", Board.parse("Qh / Kh Kd / 9c Tc"), stack=120, is_button=True))
    return TableView("Pineapple · 2 units/pt", "pineapple", seats, street=3, streets=5,
                     hand_no=12)


def table_extreme() -> TableView:
    """Everything at once: a 32-W name on the button with 9:59 left and a long status, a
    sitting-out fouled fantasyland seat with a stack of 123 billion, Zalgo at 0:00, a bot with
    no stack, a long title and a long practice note."""
    seats = (SeatView(WIDE, Board.parse(FULL), stack=-1_234_567, is_button=True, is_turn=True,
                      time_left=599, status="a very long status line that will not fit " * 2),
             SeatView(LONG, Board.parse(FOUL), stack=123_456_789_012, sitting_out=True,
                      fantasyland=True, status="sitting out"),
             SeatView(ZALGO, Board.parse(PART), stack=5, is_turn=True, time_left=0),
             SeatView(MARKS, Board(), is_turn=True, status="bot (strong)"))
    return TableView("A very long table title " * 4, "ofc", seats, street=9, streets=9,
                     hand_no=99_999_999,
                     note="Practice table: no units move, nothing counts in the leaderboard. " * 3)


def hand_fantasyland(n: int) -> HandView:
    shown = cards("As Ks Qs Js Ts 9h 9d 9c 5h 5d 4c 3c 2c 8d 7h 6s Kd")[:n]
    targets = ["top"] * 3 + ["middle"] * 5 + ["bottom"] * 5 + ["discard"] * 4
    return HandView(LONG, shown, Board(), selected=tuple(zip(shown, targets, strict=False)),
                    instruction=f"Set 13 cards, discard {n - 13}", fantasyland=True, time_left=7,
                    variant="pineapple")


def hand_pineapple_long() -> HandView:
    return HandView(WIDE, cards("Ac Kh 7c"), Board.parse("3c / 8s 8c 4d / Ts Td Th"),
                    selected=((Card("Ac"), "top"), (Card("7c"), "discard")),
                    instruction="Place 2, discard 1 " * 6, discards=cards("2h 5d 6d 7d"),
                    time_left=3, variant="pineapple", fantasyland=True)


def _showdown(names: tuple[str, ...], boards: list[Board | None], rules: Rules,
              unit: int | None = 1, surrendered: tuple[int, ...] = (),
              naturals: dict[int, str] | None = None,
              natural_cards: tuple[tuple[Card, ...], ...] = ()) -> ShowdownView:
    st = settle(boards, rules, surrendered=surrendered, naturals=naturals)
    nxt = tuple(b.fantasyland_cards(rules) if b is not None and b.is_complete else 0
                for b in boards)
    units = None if unit is None else tuple(units_moved(st, unit))
    return ShowdownView(names, st, rules, units=units, fantasyland_next=nxt, hand_no=123_456,
                        title=f"{rules.variant} showdown", natural_cards=natural_cards)


def showdown(variant: str, n: int) -> ShowdownView:
    """Every variant at 2-4 seats, a million units a point: a foul, scoops, fantasyland."""
    return _showdown(NAMES[:n], [Board.parse(b) for b in BOARDS[:n]],
                     Rules(variant=variant), unit=1_000_000)  # type: ignore[arg-type]


def showdown_fantasyland_foul() -> ShowdownView:
    """Pineapple: trips on top (17 cards next), a board fouled in every row, Zalgo."""
    boards = [Board.parse("8h 8d 8c / Ks Kd 4h 4d 4s / As Ah Ad Ac 2c"), Board.parse(FOUL),
              Board.parse("Ah Ad 3c / 9s 9c 7d 7h 2d / Th Js Qs Kc 9d")]
    return _showdown((LONG, WIDE, ZALGO), boards, Rules(variant="pineapple"), unit=1_000_000)


def showdown_chinese_naturals() -> ShowdownView:
    """A dragon shown, three flushes not shown, a surrender, 4 players."""
    boards: list[Board | None] = [None, Board.parse("8h 8d 8c / Ks Kd 4h 4d 4s / 7s 7h 7d 7c 2c"),
                                  None, None]
    dragon = cards("As Kd Qh Jc Ts 9d 8s 7c 6s 5d 4h 3c 2s")
    return _showdown((CJK, LONG, ARABIC, EMOJI), boards, Rules(variant="chinese"),
                     unit=1_000_000, surrendered=(3,),
                     naturals={0: "dragon", 2: "three flushes"},
                     natural_cards=(dragon, (), (), ()))


def showdown_pineapple_surrender() -> ShowdownView:
    """Pineapple: a player who surrendered with 6 cards placed, a foul."""
    boards = [Board.parse(BOARDS[0]), Board.parse("7s / 6h 6s Jc / Ah Ks"),
              Board.parse(BOARDS[2])]
    return _showdown(("Alice", "Quitter", "Carol"), boards, Rules(variant="pineapple"),
                     surrendered=(1,))


def showdown_practice() -> ShowdownView:
    return _showdown(("You", "OFC bot"), [Board.parse(b) for b in BOARDS[:2]], Rules(),
                     unit=None)


LB_NAMES = (LONG, WIDE, EMOJI, CJK, ARABIC, MARKS, ZALGO, "Bob", "Carol", "Dmitri", "Eve",
            "Frank", "Grace", "Heidi", "Ivan")
LB_UNITS = (999_999_999, 1_234_567, 1_234_567, 99_999, 0, 0, -5, -99_999, -1_234_567,
            -999_999_999, -1_000_000_000_000, -1_000_000_000_001, -2 * 10**12, -3 * 10**12,
            -4 * 10**12)


def leaderboard(by: str = "units") -> LeaderboardView:
    """15 rows with ties (two at rank 2), every kind of name, figures from +1.0B to −4.0T."""
    rows = tuple(LeaderRow(1 if k == 0 else 2 if k in (1, 2) else k + 1, name, units,
                           -units // 2, 12_345_678 if k % 2 else 9_999, k)
                 for k, (name, units) in enumerate(zip(LB_NAMES, LB_UNITS, strict=True)))
    return LeaderboardView("OFC Club leaderboard", by, "this week", rows)


def stats_many() -> StatsView:
    balances = [0]
    for k in range(500):
        balances.append(balances[-1] + (k * 7919) % 9001 - 5000)
    return StatsView(WIDE, 1_234_567, -1_234_567, -1_234_567_890, 0.333, 0.0999,
                     tuple(balances))


def stats_zero() -> StatsView:
    return StatsView("Newbie", 0, 0, 0, 0.0, 0.0, ())


SCENES: dict[str, Callable[[], Scene]] = {
    **{f"table_{v}_{n}p": (lambda v=v, n=n: table_scene(table(v, n)))
       for v, most in (("ofc", 4), ("pineapple", 3), ("chinese", 4)) for n in range(2, most + 1)},
    **{f"table_fantasyland_{k}": (lambda k=k: table_scene(table_fantasyland(k)))
       for k in (13, 14, 17)},
    "table_extreme": lambda: table_scene(table_extreme()),
    "table_extreme_two_colour": lambda: table_scene(table_extreme(),
                                                    theme=Theme(four_colour=False)),
    **{f"hand_fantasyland_{k}": (lambda k=k: hand_scene(hand_fantasyland(k)))
       for k in (13, 14, 15, 16, 17)},
    "hand_pineapple_long": lambda: hand_scene(hand_pineapple_long()),
    **{f"showdown_{v}_{n}p": (lambda v=v, n=n: showdown_scene(showdown(v, n)))
       for v, most in (("ofc", 4), ("pineapple", 3), ("chinese", 4)) for n in range(2, most + 1)},
    "showdown_fantasyland_foul": lambda: showdown_scene(showdown_fantasyland_foul()),
    "showdown_chinese_naturals": lambda: showdown_scene(showdown_chinese_naturals()),
    "showdown_pineapple_surrender": lambda: showdown_scene(showdown_pineapple_surrender()),
    "showdown_practice": lambda: showdown_scene(showdown_practice()),
    "showdown_moon": lambda: showdown_scene(g.showdown_ofc_moon_3()),
    **{f"leaderboard_by_{by}": (lambda by=by: leaderboard_scene(leaderboard(by)))
       for by in ("units", "points", "hands")},
    "leaderboard_one": lambda: leaderboard_scene(LeaderboardView(
        "Club", "units", "all time", (LeaderRow(1, "Alice", 412, 206, 340, 21),))),
    "stats_many": lambda: stats_scene(stats_many()),
    "stats_zero": lambda: stats_scene(stats_zero()),
}


# -- sizes and speed ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(SCENES))
def test_every_state_is_a_small_png_made_quickly(name: str) -> None:
    """Measured: at most 280 KB and 1,478 px (a 4-player showdown), 10-200 ms each; Discord
    takes 10 MB.  Bounds with a wide margin for a slow, busy machine."""
    SCENES[name]().png()  # warm the sprite caches
    start = time.perf_counter()
    data = SCENES[name]().png()
    took = time.perf_counter() - start
    im = Image.open(io.BytesIO(data))
    assert im.format == "PNG"
    assert len(data) < 1_000_000, len(data)
    assert im.width <= 1000 and im.height <= 1600, im.size
    assert took < 3.0, took


def test_double_scale_stays_far_under_discords_limit() -> None:
    """Scale 2 (a 4-player showdown of 1936 x 2692) was 605 KB in about a second."""
    data = showdown_scene(g.showdown_ofc_4(), theme=Theme(scale=2.0)).png()
    assert len(data) < 3_000_000


# -- layout ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(SCENES))
def test_nothing_drawn_overlaps_or_leaves_its_panel(
        name: str, drawn: dict[int, list[Drawn]], panels: dict[int, list[Box]]) -> None:
    """Texts never touch one another (4 px apart at least) nor a card; texts and cards stay in
    the image, and never straddle a panel's edge (inside a panel or out of every one); cards
    never overlap."""
    scene = SCENES[name]()
    texts = drawn.get(id(scene), [])
    whole = (0, 0, scene.width, scene.height)
    assert texts
    for text, box in texts:
        assert _inside(box, whole), (text, box)
        for p in panels.get(id(scene), []):
            assert not _meets(box, p) or _inside(box, p), (text, box, p)
        for spot in scene.cards:
            if spot.row not in ("hand", "natural"):  # the tags and stamps go over those
                assert not _meets(box, spot.box), (text, box, spot)
    for (t1, b1), (t2, b2) in itertools.combinations(texts, 2):
        assert not _meets((b1[0] - 4, b1[1], b1[2] + 4, b1[3]), b2), (t1, b1, t2, b2)
    for spot in scene.cards:
        assert _inside(spot.box, whole), spot
        for p in panels.get(id(scene), []):
            assert not _meets(spot.box, p) or _inside(spot.box, p), (spot, p)
    for a, b in itertools.combinations(scene.cards, 2):
        assert not _meets(a.box, b.box), (a, b)


def _names_drawn(texts: list[Drawn]) -> list[str]:
    return [t for t, _ in texts if t.startswith(("WWW", "Maxim"))]


@pytest.mark.parametrize("make", [
    lambda: table_scene(table_extreme()),
    lambda: showdown_scene(showdown_fantasyland_foul()),
    lambda: hand_scene(hand_pineapple_long()),
    lambda: leaderboard_scene(leaderboard()),
    lambda: stats_scene(stats_many()),
], ids=["table", "showdown", "hand", "leaderboard", "stats"])
def test_32_character_names_are_cut_with_an_ellipsis(make: Callable[[], Scene],
                                                      drawn: dict[int, list[Drawn]]) -> None:
    scene = make()
    names = _names_drawn(drawn[id(scene)])
    assert names
    for name in names:
        cut, mark, _ = name.partition("…")  # (a pair's chip adds " fouled" after the cut)
        assert mark and (WIDE.startswith(cut) or LONG.startswith(cut)), name


def test_timers_show_minutes_and_turn_red_at_the_end(drawn: dict[int, list[Drawn]]) -> None:
    scene = table_scene(table_extreme())
    texts = [t for t, _ in drawn[id(scene)]]
    assert "9:59" in texts and "0:00" in texts
    im = scene.paint()
    zero = next(b for t, b in drawn[id(scene)] if t == "0:00")
    # the pill under 0:00 is the urgent red (0xDA, 0x37, 0x3C)
    r, gr, bl = im.getpixel((zero[0] - 3, (zero[1] + zero[3]) // 2))
    assert r > 180 and gr < 90 and bl < 90


# -- hidden cards ----------------------------------------------------------------------------------
@pytest.mark.parametrize("hidden", [13, 14, 15, 16, 17])
def test_a_fantasyland_hand_not_set_is_all_backs_and_counted(
        hidden: int, drawn: dict[int, list[Drawn]]) -> None:
    """13 backs in the places, the rest in a badge beside the bottom row, clear of its cards."""
    scene = table_scene(table_fantasyland(hidden))
    mine = [s for s in scene.cards if s.seat == 0]
    assert [s.kind for s in mine] == ["back"] * 13
    assert all(s.card is None for s in mine)
    badges = [(t, b) for t, b in drawn[id(scene)] if t.endswith(" cards")]
    if hidden == 13:
        assert not badges
        return
    ((text, box),) = badges
    assert text == f"+{hidden - 13} cards"
    first = min(s.box[0] for s in mine if s.row == "bottom")
    assert box[2] + M(6) <= first


def test_chinese_sets_not_revealed_are_backs_on_the_table() -> None:
    scene = table_scene(table("chinese", 4))
    for seat in (0, 2, 3):
        assert [s.kind for s in scene.cards if s.seat == seat] == ["back"] * 13
    assert [s.kind for s in scene.cards if s.seat == 1] == ["slot"] * 13


def test_showdown_hides_what_was_not_shown() -> None:
    """A surrendered chinese seat and a natural declared without its cards: backs only; the
    dragon given: its 13 cards face up, as given."""
    view = showdown_chinese_naturals()
    spots = showdown_scene(view).cards
    for seat in (2, 3):
        assert {s.kind for s in spots if s.seat == seat} == {"back"}
    faces = [s.card for s in spots if s.seat == 0]
    assert sorted(faces) == sorted(view.natural_cards[0])  # type: ignore[type-var]


def test_arabic_names_are_shaped_right_to_left() -> None:
    """Arabic names were drawn joined and right to left: Pillow lays text out with libraqm."""
    assert features.check("raqm")
    assert font("bold", 24).layout_engine == ImageFont.Layout.RAQM


# -- defects (fixed) -----------------------------------------------------------------------------------
@pytest.mark.parametrize("by", ["units", "points", "hands", "fantasylands"])
def test_leaderboard_columns_keep_apart_at_their_widest(
        by: str, drawn: dict[int, list[Drawn]]) -> None:
    """The widest figures each column draws before ``compact`` shortens them (±99,999). Was a
    defect: sorted by fantasylands, 99,999 (bold) ran into the hands figure, 2 px apart."""
    rows = (LeaderRow(1, "Alice", 99_999, -99_999, 99_999, 99_999),
            LeaderRow(2, "Bob", -99_999, 99_999, 99_999, 99_999))
    scene = leaderboard_scene(LeaderboardView("Club", by, "all time", rows))
    texts = drawn[id(scene)]
    for name in ("Alice", "Bob"):
        line = next(b for t, b in texts if t == name)
        cells = sorted((b for t, b in texts
                        if b[1] < line[3] and line[1] < b[3] and t != name and b[0] > line[2]),
                       key=lambda b: b[0])
        assert len(cells) == 4
        for left, right in itertools.pairwise(cells):
            assert right[0] - left[2] >= M(8), (by, left, right)


def test_tied_undrawable_names_stay_apart_on_the_leaderboard(
        drawn: dict[int, list[Drawn]]) -> None:
    """Was a defect: a name the fonts cannot draw becomes 'Player <rank>' on the leaderboard:
    two tied emoji-only names both read 'Player 2' (and 'Player 13' reads as a user's name);
    leaderboard.py leaderboard_scene: shown_name(r.name, r.rank) (fixed). (Emoji are drawn
    since; a name in a script no font has stands in for them.)"""
    rows = (LeaderRow(1, "Alice", 9, 9, 9, 0), LeaderRow(2, "\U00013000", 5, 5, 5, 0),
            LeaderRow(2, "\u3164", 5, 5, 5, 0))
    scene = leaderboard_scene(LeaderboardView("Club", "units", "all time", rows))
    left = min(b[0] for t, b in drawn[id(scene)] if t == "Alice")
    names = [t for t, b in drawn[id(scene)]
             if abs(b[0] - left) <= M(4) and t not in ("Alice", "PLAYER")]
    assert len(names) == 2 and names[0] != names[1], names


def test_one_unit_is_singular(drawn: dict[int, list[Drawn]]) -> None:
    """Was a defect: a stack of 1 reads '1 units' on the table (table.py _seat: ' units' always)
    and a unit won or lost '+1 units' / '−1 units' in the showdown (showdown.py _strip) (fixed)."""
    seats = (SeatView("One", Board.parse(PART), stack=1),)
    scene = table_scene(TableView("OFC", "ofc", seats, street=5, streets=9))
    assert " units" not in [t for t, _ in drawn[id(scene)]]
    boards = [Board.parse("Kh Kd 5c / Qs Qd 8h 8c 2d / 3s 3h 3d 9c 9s"),
              Board.parse("Kc Ks 5d / Qh Qc 8s 8d 2h / 3c 4h 4d 9h 9d")]
    st = settle(boards, Rules(scoring="1-4"))
    view = ShowdownView(("A", "B"), st, Rules(scoring="1-4"), units=(1, -1))
    scene = showdown_scene(view)
    assert not [t for t, _ in drawn[id(scene)] if t.endswith("1 units")]


def test_a_pair_against_a_surrender_says_so() -> None:
    """Was a defect: in ofc/pineapple a surrender is settled as a foul but the pair's chips
    never say so: 'rows ▲▲▲ +3 · scoop +3 · royalties' as if the rows had been played (the
    'surrender' note is dropped, and 'X fouled' is skipped when a side surrendered); showdown.py
    pair_items (fixed)."""
    view = showdown_pineapple_surrender()
    p = view.settlement.pair(0, 1)
    assert any("surrendered" in it.label for it in pair_items(p, view.names, view.rules))


def test_a_pair_against_a_chinese_surrender_says_so() -> None:
    view = showdown_chinese_naturals()
    p = view.settlement.pair(1, 3)
    assert any("surrendered" in it.label for it in pair_items(p, view.names, view.rules))


TWINS = ("Alexander_the_Great_of_Macedonia", "Alexander_the_Small_of_Macedonia")


def test_two_long_names_with_the_same_start_stay_apart(drawn: dict[int, list[Drawn]]) -> None:
    """Was known left: two 32-character names alike for their first 14 characters were cut to
    the same "Alexander_the…" on the table, the showdown (seat names, each pair's names, the
    "fouled" chip) and the leaderboard; fonts.fit_name keeps the start and the part where
    they differ (fixed).  Names that fit, and different names cut differently, are as before."""
    seats = tuple(SeatView(name, Board.parse(board), stack=100, number=k + 1)
                  for k, (name, board) in enumerate(zip(TWINS, (PART, FULL), strict=True)))
    boards = [Board.parse(FULL), Board.parse(FOUL), Board.parse(BOARDS[0])]
    names = (*TWINS, "Bob")
    scenes = {
        "table": table_scene(TableView("OFC", "ofc", seats, street=5, streets=9)),
        "showdown": showdown_scene(_showdown(names, boards, Rules(variant="pineapple"))),
        "leaderboard": leaderboard_scene(LeaderboardView("Club", "units", "all time", (
            LeaderRow(1, TWINS[0], 9, 9, 9, 0), LeaderRow(2, TWINS[1], 5, 5, 5, 0)))),
    }
    for what, scene in scenes.items():
        texts = [t for t, _ in drawn[id(scene)] if t.startswith("A")]
        great = {t for t in texts if "Gre" in t}
        small = {t for t in texts if "Sma" in t}
        assert great and small and not great & small, (what, texts)
        assert great | small == set(texts), (what, texts)  # every name says which
    view = _showdown(names, boards, Rules(variant="pineapple"))
    chips = [it.label for it in pair_items(view.settlement.pair(0, 1), names, view.rules)]
    assert any("Small" in c and c.endswith(" fouled") for c in chips), chips
    assert "Bob" in [t for t, _ in drawn[id(scenes["showdown"])]]
