"""Every card of the input is drawn where the layout says, backs stand for hidden cards, and the
images have the sizes the layout gives."""

from __future__ import annotations

import io
import itertools
from collections import Counter
from collections.abc import Callable, Collection
from typing import Any

import pytest
from PIL import Image

from engine import DECK, Board, Card
from renderer import (
    CardSpot,
    HandView,
    SeatView,
    TableView,
    Theme,
    describe_hand,
    hand_layout,
    hand_scene,
    render_hand,
    render_showdown,
    render_table,
    showdown_layout,
    showdown_scene,
    sprites,
    table_layout,
    table_scene,
)
from renderer import gallery as g
from renderer.colours import CARD_FACE, suit_colours

FOUR = Theme()
TWO = Theme(four_colour=False)


def decode(png: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(png))
    im.load()
    return im.convert("RGB")


def interior(box: tuple[int, int, int, int], w: int) -> tuple[int, int, int, int]:
    r = sprites.card_radius(w) + 1
    x0, y0, x1, y1 = box
    return (x0 + r, y0 + r, x1 - r, y1 - r)


def expected(spot: CardSpot, theme: Theme) -> Image.Image:
    """The pixels the card's box must show inside its rounded corners."""
    x0, y0, x1, y1 = spot.box
    w, h = x1 - x0, y1 - y0
    if spot.kind == "face":
        assert spot.card is not None
        sp = sprites.card_face(spot.card.index, w, h, theme.four_colour)
    else:
        sp = sprites.card_back(w, h, theme.back_colour)
    ix0, iy0, ix1, iy1 = interior((0, 0, w, h), w)
    return sp.rgb.crop((ix0 - sp.dx, iy0 - sp.dy, ix1 - sp.dx, iy1 - sp.dy))


def assert_drawn(im: Image.Image, spots: list[CardSpot], theme: Theme,
                 skip: Collection[tuple[int, int, int, int]] = ()) -> int:
    """Each face/back spot shows exactly its sprite; returns how many were checked."""
    checked = 0
    for spot in spots:
        if spot.kind not in ("face", "back") or spot.box in skip:
            continue
        w = spot.box[2] - spot.box[0]
        got = im.crop(interior(spot.box, w))
        assert got.tobytes() == expected(spot, theme).tobytes(), spot
        checked += 1
    return checked


def suit_pixels(im: Image.Image, box: tuple[int, int, int, int], colour: tuple[int, int, int]
                ) -> float:
    """Share of the box's pixels within a small distance of ``colour``."""
    crop = im.crop(box)
    near = 0
    data = crop.get_flattened_data() if hasattr(crop, "get_flattened_data") else crop.getdata()
    for px in data:
        if sum(abs(a - b) for a, b in zip(px, colour, strict=True)) < 40:
            near += 1
    return near / (crop.width * crop.height)


# -- table ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [g.table_ofc_4, g.table_pineapple_3, g.table_ofc_2_practice,
                                  g.table_chinese_4])
def test_table_cards_are_where_the_layout_says(make: Callable[[], Any]) -> None:
    view = make()
    scene = table_scene(view)
    im = decode(render_table(view))
    assert im.size == (scene.width, scene.height)
    spots = table_layout(view)
    # every visible card once, as a face, in its own seat and row
    faces = [s for s in spots if s.kind == "face"]
    want = [(i, row, c) for i, seat in enumerate(view.seats)
            for row, cards in zip(("top", "middle", "bottom"), seat.board.rows, strict=True)
            for c in cards]
    assert sorted((s.seat, s.row, s.card) for s in faces) == sorted(want)
    # backs: exactly the hidden cards; slots fill the rest of each 13-place board
    for i, seat in enumerate(view.seats):
        mine = [s for s in spots if s.seat == i]
        assert len(mine) == 13
        assert sum(s.kind == "back" for s in mine) == min(seat.hidden, 13 - len(seat.board))
        assert {s.card for s in mine if s.highlight} == set(seat.last_placed)
    # sitting-out seats are veiled: check the others pixel for pixel
    veiled = {s.box for s in spots if view.seats[s.seat].sitting_out}
    assert assert_drawn(im, spots, FOUR, veiled) > 0


def test_table_boxes_do_not_overlap_and_fit() -> None:
    view = g.table_ofc_4()
    scene = table_scene(view)
    boxes = [s.box for s in scene.cards]
    for b in boxes:
        assert 0 <= b[0] < b[2] <= scene.width and 0 <= b[1] < b[3] <= scene.height
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)


def test_top_row_is_centred_over_the_others() -> None:
    spots = table_layout(g.table_chinese_4())
    seat0 = [s for s in spots if s.seat == 0]
    top = [s.box for s in seat0 if s.row == "top"]
    mid = [s.box for s in seat0 if s.row == "middle"]
    assert top[0][0] == mid[1][0] and top[2][0] == mid[3][0]
    assert max(b[3] for b in top) < min(b[1] for b in mid)


def test_suit_colours_are_the_decks() -> None:
    board = Board.parse("Ah Kd / Qs Jc / 2h")
    view = TableView("t", "ofc", (SeatView("A", board), SeatView("B", Board())))
    for theme in (FOUR, TWO):
        im = decode(render_table(view, theme=theme))
        colours = suit_colours(theme.four_colour)
        for spot in table_layout(view, theme=theme):
            if spot.kind != "face":
                continue
            assert spot.card is not None
            share = suit_pixels(im, spot.box, colours[spot.card.suit])
            assert share > 0.08, (spot.card, share)
            # and none of any other deck colour that differs
            for suit, colour in colours.items():
                if colour != colours[spot.card.suit]:
                    assert suit_pixels(im, spot.box, colour) < 0.01, (spot.card, suit)
            # the face is white where nothing is drawn
            assert suit_pixels(im, spot.box, CARD_FACE) > 0.4


def test_hidden_cards_are_backs_and_faces_are_not() -> None:
    view = TableView("t", "chinese", (
        SeatView("A", Board(), hidden=13), SeatView("B", Board(), hidden=13),
    ), street=1, streets=1)
    spots = table_layout(view)
    assert Counter(s.kind for s in spots) == {"back": 26}
    im = decode(render_table(view))
    assert assert_drawn(im, spots, FOUR) == 26


def test_more_hidden_cards_than_places_are_counted() -> None:
    view = TableView("t", "pineapple", (SeatView("A", Board(), hidden=17, fantasyland=True),
                                        SeatView("B", Board())))
    spots = table_layout(view)
    assert sum(s.kind == "back" for s in spots) == 13


def test_seat_counts() -> None:
    seat = SeatView("A", Board())
    widths = set()
    for n in (2, 3, 4):
        scene = table_scene(TableView("t", "ofc", (seat,) * n))
        widths.add(scene.width)
        assert len(scene.cards) == 13 * n
    assert len(widths) == 1  # the same width for 2-4 players: the preview scale never changes
    with pytest.raises(ValueError):
        table_scene(TableView("t", "ofc", (seat,) * 5))


# -- private hand --------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [g.hand_pineapple, g.hand_ofc_first, g.hand_ofc_one,
                                  g.hand_fantasyland_17, g.hand_chinese])
def test_hand_cards_are_where_the_layout_says(make: Callable[[], Any]) -> None:
    view = make()
    scene = hand_scene(view)
    im = decode(render_hand(view))
    assert im.size == (scene.width, scene.height)
    spots = hand_layout(view)
    hand = [s for s in spots if s.row == "hand"]
    assert [s.card for s in hand] == list(view.cards)
    chosen = dict(view.selected)
    assert {s.card: s.tag for s in hand if s.tag} == chosen
    board = [s for s in spots if s.row in ("top", "middle", "bottom")]
    assert len(board) == 13
    assert sorted(s.card for s in board if s.kind == "face") == sorted(view.board.cards)
    ghosts = {s.card: s.row for s in board if s.kind == "ghost"}
    assert ghosts == {c: t for c, t in chosen.items() if t != "discard"}
    assert [s.card for s in spots if s.row == "discard"] == list(view.discards)
    # discarded choices are veiled; the rest must match pixel for pixel
    veiled = {s.box for s in hand if s.tag == "discard"}
    assert assert_drawn(im, spots, FOUR, veiled) == len(view.cards) - len(veiled) + len(
        view.board) + len(view.discards)


@pytest.mark.parametrize("n", [1, 3, 5, 13, 14, 15, 16, 17])
def test_hand_sizes(n: int) -> None:
    view = HandView("A", tuple(DECK[:n]), Board())
    spots = hand_layout(view)
    hand = [s.box for s in spots if s.row == "hand"]
    assert len(hand) == n
    scene = hand_scene(view)
    assert all(b[2] <= scene.width for b in hand)
    assert scene.width < 520  # narrow: shown near full size on a phone


@pytest.mark.parametrize(("variant", "n"), [("pineapple", 4), ("chinese", 13)])
def test_every_discard_is_inside_the_picture(variant: str, n: int) -> None:
    """A player's own discards lie inside the picture and do not overlap, in as many lines as
    they take: a chinese hand surrendered is kept as 13 "discards" (it was drawn in one line,
    the cards after the eighth off the picture), named as surrendered cards there."""
    view = HandView("A", (), Board(), discards=tuple(DECK[:n]), variant=variant)
    scene = hand_scene(view)
    boxes = [s.box for s in scene.cards if s.row == "discard"]
    assert len(boxes) == n
    assert all(0 <= b[0] and b[2] <= scene.width - 14 and b[3] <= scene.height for b in boxes)
    assert not any(a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
                   for a, b in itertools.combinations(boxes, 2))
    said = describe_hand(view)
    assert ("Your surrendered cards: " if variant == "chinese" else "Your discards: ") in said


def test_bad_selection_is_refused() -> None:
    with pytest.raises(ValueError):
        hand_scene(HandView("A", (Card("Ah"),), Board(), selected=((Card("Ah"), "left"),)))


# -- showdown --------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [g.showdown_pineapple_3, g.showdown_ofc_2, g.showdown_ofc_4,
                                  g.showdown_chinese_4])
def test_showdown_cards_are_where_the_layout_says(make: Callable[[], Any]) -> None:
    view = make()
    scene = showdown_scene(view)
    im = decode(render_showdown(view))
    assert im.size == (scene.width, scene.height)
    spots = showdown_layout(view)
    st = view.settlement
    for i, board in enumerate(st.boards):
        mine = [s for s in spots if s.seat == i]
        assert len(mine) == 13
        revealed = view.natural_cards[i] if i < len(view.natural_cards) else ()
        if board is None and revealed:  # a declared natural is shown face up
            assert sorted(s.card for s in mine) == sorted(revealed)
        elif board is None:
            assert all(s.kind == "back" for s in mine)
        else:  # (each complete row in the order that reads its hand: test_legibility)
            assert sorted(s.card for s in mine) == sorted(board.cards)
    # the rows of every seat line up in columns (a declared natural has no rows: one line)
    for r in ("top", "middle", "bottom"):
        xs = {tuple(s.box[0] for s in spots if s.seat == i and s.row == r)
              for i in range(len(view.names)) if not st.naturals[i] or st.boards[i] is not None}
        assert len(xs) == 1
    stamped = {s.box for s in spots if st.fouled[s.seat] or st.surrendered[s.seat]
               or st.naturals[s.seat]}
    assert assert_drawn(im, spots, FOUR, stamped) > 0


def test_foul_is_stamped() -> None:
    """The fouled seat's cards are covered (a stamp and a veil), the others are not."""
    view = g.showdown_pineapple_3()
    im = decode(render_showdown(view))
    spots = showdown_layout(view)
    fouled = [s for s in spots if s.seat == 2]
    clean = [s for s in spots if s.seat != 2]
    assert assert_drawn(im, clean, FOUR) == 26
    for spot in fouled:  # every fouled card is veiled
        with pytest.raises(AssertionError):
            assert_drawn(im, [spot], FOUR)
    # the stamp sits between the rows in the wrong order (Fiona's top beats her middle, which
    # beats her bottom: between the lower pair),
    # not over the middle of the middle row
    middle = [s.box for s in fouled if s.row == "middle"]
    bottom = [s.box for s in fouled if s.row == "bottom"]
    gap = ((middle[-1][2] + bottom[0][0]) // 2 - 4, middle[0][1] + 20,
           (middle[-1][2] + bottom[0][0]) // 2 + 4, middle[0][3] - 20)
    centre = (middle[2][0] + 10, middle[0][1] + 30, middle[2][2] - 10, middle[0][3] - 30)
    def red(box: tuple[int, int, int, int]) -> float:  # share of stamp-red pixels
        crop = im.crop(box)
        data = list(crop.get_flattened_data() if hasattr(crop, "get_flattened_data")
                    else crop.getdata())
        return sum(1 for r, gr, b in data if r > gr + 50 and r > b + 50) / len(data)

    assert red(gap) > 0.08
    assert red(centre) < 0.01
