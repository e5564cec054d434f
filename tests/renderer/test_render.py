"""Images are valid PNGs, deterministic, thread-safe, small enough, and scale with the theme."""

from __future__ import annotations

import io
import random
import zlib
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from engine import DECK, Board
from renderer import (
    LeaderboardView,
    LeaderRow,
    SeatView,
    StatsView,
    TableView,
    Theme,
    describe_table,
    leaderboard_scene,
    render_hand,
    render_leaderboard,
    render_showdown,
    render_stats,
    render_table,
    stats_scene,
    table_scene,
    warm_up,
)
from renderer import gallery as g
from renderer.fonts import font
from renderer.scene import encode

MAX_BYTES = 300 * 1024


def decode(png: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(png))
    im.load()
    return im


@pytest.fixture(scope="module")
def gallery_pngs() -> dict[str, bytes]:
    return {name: render() for name, (render, _) in g.GALLERY.items()}


def test_every_gallery_image_is_a_small_valid_png(gallery_pngs: dict[str, bytes]) -> None:
    for name, png in gallery_pngs.items():
        assert png[:8] == b"\x89PNG\r\n\x1a\n", name
        im = decode(png)
        assert im.mode == "RGB", name
        assert len(png) <= MAX_BYTES, (name, len(png))
        assert 300 <= im.width <= 1000, (name, im.size)
        assert im.height <= 1600, (name, im.size)


def test_encoder_is_lossless_and_has_no_metadata() -> None:
    im = table_scene(g.table_ofc_4()).paint()
    png = encode(im)
    assert decode(png).tobytes() == im.tobytes()
    chunks = []
    pos = 8
    while pos < len(png):
        length = int.from_bytes(png[pos:pos + 4], "big")
        kind = png[pos + 4:pos + 8]
        data = png[pos + 8:pos + 8 + length]
        crc = int.from_bytes(png[pos + 8 + length:pos + 12 + length], "big")
        assert crc == zlib.crc32(kind + data)
        chunks.append(kind)
        pos += 12 + length
    assert chunks == [b"IHDR", b"IDAT", b"IEND"]


def test_same_input_same_bytes(gallery_pngs: dict[str, bytes]) -> None:
    for name, (render, _) in g.GALLERY.items():
        assert render() == gallery_pngs[name], name


def test_threads_give_the_same_bytes(gallery_pngs: dict[str, bytes]) -> None:
    names = [n for n in g.GALLERY] * 3
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda n: (n, g.GALLERY[n][0]()), names))
    for name, png in results:
        assert png == gallery_pngs[name], name


def test_two_colour_deck_differs_from_four_colour(gallery_pngs: dict[str, bytes]) -> None:
    assert gallery_pngs["table_ofc_4p"] != gallery_pngs["table_ofc_4p_two_colour"]


def test_scale() -> None:
    view = g.table_ofc_4()
    big = table_scene(view)
    small = table_scene(view, theme=Theme(scale=0.5))
    assert abs(small.width - big.width / 2) <= 4 and abs(small.height - big.height / 2) <= 6
    decode(small.png())


def test_phone_preview_keeps_cards_large() -> None:
    """At Discord's ~400 px phone preview a table card stays over 24 px wide."""
    scene = table_scene(g.table_ofc_4())
    card_w = scene.cards[0].box[2] - scene.cards[0].box[0]
    assert card_w * 400 / scene.width > 24


def test_suit_symbols_are_real_glyphs() -> None:
    f = font("regular", 40)
    notdef = f.getmask("\uffff").getbbox()
    for sym in "♠♥♦♣":
        mask = f.getmask(sym)
        assert mask.getbbox() is not None and mask.getbbox() != notdef


def test_leaderboard_and_stats() -> None:
    view = g.leaderboard()
    scene = leaderboard_scene(view)
    assert decode(render_leaderboard(view)).size == (scene.width, scene.height)
    empty = LeaderboardView("Nobody yet", "points", "all time", ())
    decode(render_leaderboard(empty))
    stats = g.stats()
    assert decode(render_stats(stats)).size == (stats_scene(stats).width,
                                                stats_scene(stats).height)
    for balances in ((), (5,), (-3, -8, 2)):
        decode(render_stats(StatsView("B", 1, 0, 0, 0.0, 0.0, balances)))


def test_long_names_and_partial_boards_render() -> None:
    seats = tuple(SeatView("W" * 60, Board.parse("Ah / / "), stack=10**9, is_turn=True,
                           time_left=5, status="x" * 200, fantasyland=True, is_button=True)
                  for _ in range(4))
    view = TableView("T" * 200, "ofc", seats, street=9, streets=9, hand_no=10**6, note="n" * 300)
    decode(table_scene(view).png())


@pytest.mark.parametrize("scale", [0.6, 1.5])
def test_every_image_renders_at_other_scales(scale: float) -> None:
    theme = Theme(scale=scale)
    for make, render in ((g.table_ofc_4, render_table), (g.hand_fantasyland_17, render_hand),
                         (g.showdown_chinese_4, render_showdown),
                         (g.leaderboard, render_leaderboard)):
        im = decode(render(make(), theme=theme))  # type: ignore[operator]
        assert im.width > 100


def test_warm_up() -> None:
    warm_up()
    warm_up(Theme(four_colour=False))


NAMES = ["", "A", "Bob", "Ünïcødé ♠ name", "W" * 40, "名前", "x y z " * 8]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_any_table_renders_and_lays_out(seed: int) -> None:
    """Random partial boards, hidden cards and flags: the layout always has 13 places a seat,
    every visible card once, and the picture is the layout's size."""
    rng = random.Random(seed)
    n = rng.randint(1, 4)
    deck = list(DECK)
    rng.shuffle(deck)
    seats = []
    pos = 0
    for k in range(n):
        rows = []
        for size in (3, 5, 5):
            take = rng.randint(0, size)
            rows.append(tuple(deck[pos:pos + take]))
            pos += take
        board = Board(*rows)
        seats.append(SeatView(
            name=rng.choice(NAMES), board=board, hidden=rng.randint(0, 17 - len(board)),
            stack=rng.choice([None, 0, -5, 10**9]), is_button=k == 0,
            is_turn=rng.random() < 0.5, time_left=rng.choice([None, -5, 0, 9, 3600]),
            last_placed=tuple(c for c in board.cards if rng.random() < 0.3),
            fantasyland=rng.random() < 0.3, sitting_out=rng.random() < 0.3,
            status=rng.choice(["", "set", "declared dragon", "s" * 80])))
    view = TableView(rng.choice(NAMES), rng.choice(["ofc", "pineapple", "chinese"]),
                     tuple(seats), street=rng.randint(0, 9), streets=rng.randint(0, 9),
                     hand_no=rng.randint(0, 10**6), note=rng.choice(["", "n" * 200]))
    scene = table_scene(view)
    assert len(scene.cards) == 13 * n
    faces = sorted(s.card for s in scene.cards if s.kind == "face")
    assert faces == sorted(c for seat in seats for c in seat.board.cards)
    assert decode(scene.png()).size == (scene.width, scene.height)
    text = describe_table(view)
    for seat in seats:
        for c in seat.board.cards:
            assert str(c) in text


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the scenes built from now on draw, in order."""
    from renderer.scene import Scene

    texts: list[str] = []
    real = Scene.text

    def record(self: Scene, xy: tuple[int, int], text: str, *args: Any, **kw: Any) -> int:
        texts.append(text)
        return real(self, xy, text, *args, **kw)

    monkeypatch.setattr(Scene, "text", record)
    return texts


HIEROGLYPHS = "\U00013000\U00013001"
"""A name in a script none of the fonts has (Egyptian hieroglyphs)."""


def test_names_the_fonts_cannot_draw_become_player_numbers(drawn: list[str]) -> None:
    """Names of characters no font has (their joiners draw nothing) would be blank or the
    same '?' for everyone; Chinese, Japanese and Korean names and emoji (a joined family too)
    are drawn as typed."""
    from renderer.fonts import drawable

    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert drawable(HIEROGLYPHS + "\u200d" + HIEROGLYPHS, "bold") == "?"
    assert drawable(family, "bold") == family
    names = ("日本語", HIEROGLYPHS, "Bob🔥", family)
    table_scene(TableView("t", "ofc", tuple(SeatView(n, Board()) for n in names)))
    assert {"日本語", "Player 2", "Bob🔥", family} <= set(drawn)
    drawn.clear()
    leaderboard_scene(LeaderboardView("t", "units", "all time", tuple(
        LeaderRow(k + 1, n, 0, 0, 1, 0) for k, n in enumerate(names))))
    assert {"日本語", "Player 2", "Bob🔥", family} <= set(drawn)


def test_a_player_number_is_the_seat_number_in_table_and_showdown(drawn: list[str]) -> None:
    """Seats 3 and 1 of a table: the same "Player N" for the same person in both pictures
    (the showdown lists seats in hand order, the table in seat order)."""
    from engine import Rules, settle
    from renderer import ShowdownView
    from renderer.showdown import showdown_scene

    table_scene(TableView("t", "ofc", (SeatView(HIEROGLYPHS, Board(), number=1),
                                       SeatView("\u3164", Board(), number=3))))
    assert {"Player 1", "Player 3"} <= set(drawn) and "Player 2" not in drawn
    drawn.clear()
    rules = Rules(variant="chinese")
    st = settle([Board.parse("8h 8d 8c / Ks Kd 4h 4d 4s / As Ah Ad Ac 2c"),
                 Board.parse("Qh Jd 3c / 9s 9c 7d 7h 2d / Th Js Qs Kc Kh")], rules)
    showdown_scene(ShowdownView(("\u3164", HIEROGLYPHS), st, rules, numbers=(3, 1)))
    assert {"Player 1", "Player 3"} <= set(drawn) and "Player 2" not in drawn


def test_cjk_names_are_drawn_with_the_fallback_font_on_the_names_baseline() -> None:
    """Hangul, kana and hanzi come from Noto Sans CJK, run by run beside DejaVu's Latin: ink
    where each run is, the whole advance as wide as its runs, and the mask placed by the same
    anchor rules as a DejaVu-only text (so mixed and Latin names line up)."""
    from renderer.fonts import CJK, cjk_path, drawable, font, runs, text_mask, text_width

    assert cjk_path() is not None  # mplfonts is a dependency
    name = "김민수 日本語 Bob"
    assert drawable(name, "bold") == name
    assert runs(name, "bold") == (("김민수 日本語 ", CJK), ("Bob", "bold"))  # spaces join
    widths = [font(key, 32).getlength(run) for run, key in runs(name, "bold")]
    assert text_width(name, "bold", 32) == round(sum(widths))
    assert text_width("日本語", "bold", 32) > 2 * 32  # three full-width glyphs, not dropped
    for anchor in ("lm", "ls", "mm", "rd", "rm"):
        mask, left, top = text_mask(name, "bold", 32, anchor)
        latin, l2, t2 = text_mask("Bob", "bold", 32, anchor)
        ink = mask.getbbox()
        assert ink is not None and mask.width >= text_width(name, "bold", 32)
        # the same baseline: "Bob" ends the name, so its ink is where Latin's is
        pen = -{"l": 0, "m": sum(widths) / 2, "r": sum(widths)}[anchor[0]] - left
        bob = mask.crop((round(pen + widths[0]), 0, mask.width, mask.height)).getbbox()
        assert bob is not None and abs((top + bob[3]) - (t2 + latin.getbbox()[3])) <= 1
        assert abs((top + bob[1]) - (t2 + latin.getbbox()[1])) <= 1
        if anchor[0] == "l":
            assert left == l2 == 0
    # every run has ink: the CJK part (left of "Bob") is not blank
    mask, _, _ = text_mask("日本語", "regular", 32, "lm")
    assert mask.getbbox() is not None and mask.width >= 3 * 28


def test_big_numbers_are_compact_in_the_images() -> None:
    """Stakes go to 1,000,000 a point: leaderboard cells and stats tiles must still fit."""
    from renderer.common import compact
    from renderer.fonts import text_width
    from renderer.leaderboard import _fmt

    assert [compact(n) for n in (0, 99_999, 100_000, 999_999, -10_987_639, 10**9)] == [
        "0", "99,999", "100K", "1.0M", "−11.0M", "1.0B"]
    assert compact(12, sign=True) == "+12" and compact(-12, sign=True) == "−12"
    for n in (-999_999, 10**7, -(10**11) + 1, 99_999_999_999):
        cell = _fmt("units", n)
        assert len(cell) <= 7 and text_width(cell, "bold", 21) < 100  # the columns' spacing
    stats = StatsView("Big", 10**6, -(10**8), 999_999, 0.1, 0.2, (5, -900_000, 10**7))
    decode(render_stats(stats))
    board = LeaderboardView("t", "units", "all time", tuple(
        LeaderRow(k + 1, "W" * 32, -(10**7) * k, 10**6, 10**5, 10**4) for k in range(25)))
    decode(render_leaderboard(board))


def test_row_markers_too_wide_for_their_row_drop_the_points(drawn: list[str]) -> None:
    """Chinese, 4 players, trips on top (+3 against each): three '▲+3' do not fit under a top
    row, so they show the outcome only (the pair chips give the points); the middle's fit."""
    from engine import Rules, settle
    from renderer import ShowdownView
    from renderer.showdown import showdown_scene

    rules = Rules(variant="chinese")
    boards = [Board.parse(b) for b in (
        "8h 8d 8c / Ks Kd 4h 4d 4s / As Ah Ad Ac 2c", "Qh Jd 3c / 9s 9c 7d 7h 2d / Th Js Qs Kc Kh",
        "Qd Jh 5c / Ts Tc 6d 6h 3d / 9h 9d 5s 5d 3s", "Qc Jc 4c / 8s 7c 6c 5h 2s / Tc Td Th 3h 2h")]
    st = settle(boards, rules)
    assert [st.pair(0, j).row_points[0] for j in (1, 2, 3)] == [3, 3, 3]
    showdown_scene(ShowdownView(("T", "B", "C", "D"), st, rules, title="c"))
    assert "▲+3" not in drawn and "▲+2" in drawn


def _shown_cards(o: object, out: list[str], seen: set[int]) -> None:
    """Every card a view holds, once per place it is drawn (a card that is picked or was just
    placed, ``selected`` / ``last_placed``, is drawn where it lies)."""
    import dataclasses

    from engine import Card

    if isinstance(o, Card):
        out.append(str(o))
    elif isinstance(o, str | bytes | int | float) or o is None or id(o) in seen:
        return
    elif isinstance(o, dict):
        seen.add(id(o))
        for v in o.values():
            _shown_cards(v, out, seen)
    elif isinstance(o, list | tuple | set | frozenset):
        seen.add(id(o))
        for v in o:
            _shown_cards(v, out, seen)
    elif dataclasses.is_dataclass(o):
        seen.add(id(o))
        for f in dataclasses.fields(o):
            if f.name not in ("selected", "last_placed"):
                _shown_cards(getattr(o, f.name), out, seen)
    else:
        seen.add(id(o))
        for name in (*getattr(o, "__dict__", {}), *getattr(type(o), "__slots__", ())):
            if name not in ("selected", "last_placed") and hasattr(o, name):
                _shown_cards(getattr(o, name), out, seen)


VIEW_MAKERS = sorted(
    name for name, f in vars(g).items()
    if callable(f) and getattr(f, "__module__", None) == g.__name__ and not name.startswith("_")
    and f.__annotations__.get("return") in ("TableView", "HandView", "ShowdownView"))


def test_every_picture_of_the_gallery_is_checked_for_cards_shown_twice() -> None:
    assert len(VIEW_MAKERS) >= 14


@pytest.mark.parametrize("name", VIEW_MAKERS)
def test_no_picture_of_the_gallery_shows_a_card_twice(name: str) -> None:
    """The README's pictures are deals from one deck (the pineapple showdown was RULES.md's
    worked example 3, whose boards share seven cards: Ks on two boards, As on two...; the
    chinese showdown had Ad in two hands)."""
    cards: list[str] = []
    _shown_cards(getattr(g, name)(), cards, set())
    twice = sorted({c for c in cards if cards.count(c) > 1})
    assert twice == [], f"{name} shows {twice} twice"
