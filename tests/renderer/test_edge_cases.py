"""What the images draw for the cases a review found wrong: invisible and "Zalgo" names, a board
fouled only by strict top, units against points, a declared natural, seat tags, face-down cards
beyond the places, big figures, and the gallery's chinese table."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Board, Rules, parse_cards, settle
from renderer import (
    HandView,
    LeaderboardView,
    LeaderRow,
    SeatView,
    ShowdownView,
    TableView,
    describe_hand,
    describe_showdown,
    describe_table,
)
from renderer import gallery as g
from renderer.colours import LOSE, WIN, mix
from renderer.common import initials
from renderer.fonts import (
    MAX_MARKS,
    drawable,
    fit_name,
    fit_text,
    font,
    shown_name,
    text_mask,
    text_width,
)
from renderer.hand import hand_scene
from renderer.leaderboard import leaderboard_scene, stats_scene
from renderer.model import StatsView
from renderer.scene import Box, Scene
from renderer.showdown import FOUL_STAMP_OPACITY, showdown_scene
from renderer.table import table_scene

INVISIBLE = ("\u3164", "\u2800\u2800", "\u200b", "   ", "\u200b\u3164 \u2800\ufe0f")
"""Names Discord users pick to look nameless: Hangul filler, braille blanks, zero-width space,
spaces, a mix with a variation selector."""
ZALGO = "Z" + "\u0334\u0322\u031b\u0317\u033a\u031e\u0317\u030b\u033f\u0352\u0306" * 3 + "algo"


@dataclass
class Drawn:
    """A text drawn by a scene: where, what, how."""

    xy: tuple[int, int]
    text: str
    size: int
    face: str
    anchor: str


@dataclass
class Pill:
    text: str
    fill: tuple[int, int, int]
    box: Box


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[Drawn]:
    """Every text the scenes built from now on draw (pills' texts too), in order."""
    texts: list[Drawn] = []
    real = Scene.text

    def record(self: Scene, xy: tuple[int, int], text: str, size: int, fill: Any,
               face: str = "regular", anchor: str = "la") -> int:
        texts.append(Drawn(xy, text, size, face, anchor))
        return real(self, xy, text, size, fill, face, anchor)

    monkeypatch.setattr(Scene, "text", record)
    return texts


@pytest.fixture
def pills(monkeypatch: pytest.MonkeyPatch) -> list[Pill]:
    """Every pill (badge) the scenes built from now on draw, with its box."""
    out: list[Pill] = []
    real = Scene.pill

    def record(self: Scene, x: int, y: int, text: str, size: int, fill: Any, colour: Any,
               *args: Any, **kw: Any) -> Box:
        box = real(self, x, y, text, size, fill, colour, *args, **kw)
        out.append(Pill(text, fill, box))
        return box

    monkeypatch.setattr(Scene, "pill", record)
    return out


def texts(drawn: list[Drawn]) -> list[str]:
    return [d.text for d in drawn]


# -- 1. invisible names ---------------------------------------------------------------------------
def test_invisible_names_become_player_numbers(drawn: list[Drawn]) -> None:
    """A name with nothing visible is a missing name: ``Player N`` in every image, a number in
    its seat disc (never a blank "letter"); a blank in front of a real name is dropped."""
    for name in INVISIBLE:
        assert drawable(name, "bold") in ("?", name) and shown_name(name, 7) == "Player 7", name
    assert drawable("\u3164Bob", "bold") == "Bob" and shown_name("\u3164Bob", 1) == "\u3164Bob"
    assert initials(["\u3164", "\u2800", "\u3164Bob"], [4, 2, 3]) == ["4", "2", "B"]
    names = (*INVISIBLE[:3], "Dana")
    table_scene(TableView("t", "ofc", tuple(SeatView(n, Board(), number=k + 1)
                                            for k, n in enumerate(names))))
    assert {"Player 1", "Player 2", "Player 3", "Dana"} <= set(texts(drawn))
    drawn.clear()
    leaderboard_scene(LeaderboardView("t", "units", "all time", tuple(
        LeaderRow(k + 1, n, 0, 0, 1, 0) for k, n in enumerate(names))))
    assert {"Player 1", "Player 2", "Player 3", "Dana"} <= set(texts(drawn))
    drawn.clear()
    stats_scene(StatsView("\u3164", 0, 0, 0, 0.0, 0.0, ()))
    assert "Player" in texts(drawn)  # (one player's stats: no number to tell apart by)
    drawn.clear()
    rules = Rules(variant="ofc")
    st = settle([Board.parse("2h 3d 4c / 5s 5d 7h 8d 9s / Ts Th Tc Kc Ah"),
                 Board.parse("Qh Jd 3c / 9s 9c 7d 7h 2d / 6h 6s 6c Kd Kh")], rules)
    showdown_scene(ShowdownView(("\u3164", "\u2800"), st, rules, numbers=(2, 5)))
    shown = texts(drawn)
    assert {"Player 2", "Player 5"} <= set(shown)
    assert "\u3164" not in shown and "\u2800" not in shown  # nor as a seat disc's tag
    assert {"2", "5"} <= set(shown)


# -- 2. strict top -------------------------------------------------------------------------------
STRICT = Rules(variant="ofc", strict_top=True)
STRICT_FOUL = Board.parse("Ah Kd Qc / As Kc Qd 9h 7s / 2h 5h 8h Jh Th")
"""Fouled only by strict top (the top is not below the middle); a flush bottom (+4) else."""


def test_a_board_fouled_by_strict_top_shows_no_royalties(drawn: list[Drawn]) -> None:
    assert STRICT_FOUL.is_foul(STRICT) and not STRICT_FOUL.is_foul()
    seats = (SeatView("Sam", STRICT_FOUL), SeatView("Other", Board()))
    loose = TableView("t", "ofc", seats)
    assert "(royalties 4)" in describe_table(loose)  # the same board without strict top
    strict = TableView("t", "ofc", seats, rules=STRICT)
    assert "royalties" not in describe_table(strict)
    drawn.clear()
    table_scene(strict)
    assert "+4" not in texts(drawn)
    hand = HandView("Sam", (), STRICT_FOUL, rules=STRICT)
    assert "royalties" not in describe_hand(hand)
    drawn.clear()
    hand_scene(hand)
    assert "+4" not in texts(drawn)


def test_a_finished_fouled_board_is_marked_before_the_showdown(drawn: list[Drawn]) -> None:
    """Every card of a finished board is face up, so whether it fouls is public: the table says
    so at once (it only lost its royalty badges until the showdown)."""
    seats = (SeatView("Sam", STRICT_FOUL), SeatView("Other", Board()))
    for view, marked in ((TableView("t", "ofc", seats), False),
                         (TableView("t", "ofc", seats, rules=STRICT), True),
                         (TableView("t", "chinese", seats, rules=STRICT), False)):
        drawn.clear()
        table_scene(view)
        assert ("FOULED" in texts(drawn)) is marked
        assert ("Sam — " in describe_table(view)
                and ("· fouled" in describe_table(view)) is marked)


# -- 3. and 9. the units pill ---------------------------------------------------------------------
def _heads_up(units: tuple[int, int]) -> ShowdownView:
    rules = Rules(variant="ofc")
    st = settle([Board.parse("2h 3d 4c / 5s 5d 7h 8d 9s / Ts Th Tc Kc Ah"),
                 Board.parse("Qh Jd 3c / 9s 9c 7d 7h 2d / 6h 6s 6c Kd Kh")], rules)
    return ShowdownView(("Ann", "Bob"), st, rules, units=units)


def test_the_units_pill_has_the_colour_of_the_units(pills: list[Pill]) -> None:
    """Units move between humans only: −5 points may come with +5 units (a bot at the table)."""
    view = _heads_up((5, -5))
    assert view.settlement.totals[0] < 0 < view.settlement.totals[1]
    showdown_scene(view)
    fills = {p.text: p.fill for p in pills if p.text.endswith(" units")}
    assert fills == {"+5 units": mix(WIN, (0, 0, 0), 0.35),
                     "−5 units": mix(LOSE, (0, 0, 0), 0.35)}


def test_big_units_are_compact_in_the_showdown(pills: list[Pill]) -> None:
    showdown_scene(_heads_up((12_345_678, -12_345_678)))
    assert {p.text for p in pills if p.text.endswith(" units")} == {"+12.3M units",
                                                                     "−12.3M units"}


def test_big_stacks_are_compact_and_stop_before_the_badges(drawn: list[Drawn],
                                                            pills: list[Pill]) -> None:
    """The stack line: ``12.3M``, and neither it nor the status runs under the FANTASYLAND
    and SITTING OUT badges, whatever the figure."""
    from renderer.fonts import text_width

    for stack in (12_345_678, -(10**15) + 1, 10**18):
        drawn.clear()
        pills.clear()
        seat = SeatView("Bob", Board(), stack=stack, fantasyland=True, sitting_out=True,
                        status="leaving after a very long status line indeed")
        table_scene(TableView("t", "pineapple", (seat, SeatView("Ann", Board()))))
        if stack == 12_345_678:
            assert "12.3M" in texts(drawn) and "12345678" not in texts(drawn)
        badges = [p.box for p in pills if p.text in ("FANTASYLAND", "SITTING OUT")]
        assert len(badges) == 2
        left = min(b[0] for b in badges)
        line = [d for d in drawn if d.anchor == "lm" and d.xy[1] == (badges[0][1] + badges[0][3])
                // 2 and d.xy[0] < left]
        assert line  # the stack is drawn
        for d in line:
            assert d.xy[0] + text_width(d.text, d.face, d.size) <= left


# -- 4. a declared natural ------------------------------------------------------------------------
def _three_straights() -> ShowdownView:
    rules = Rules(variant="chinese")
    # A23 / 45678 / 56789, but nothing records that: the engine knows the 13 cards only (and
    # cut high to low 3/5/5 they read "A 9 8 / 8 7 7 6 6 / 5 5 4 3 2": no straight at all)
    cards = tuple(parse_cards("Ah 2d 3c 4s 5h 6d 7c 8s 5c 6s 7h 8d 9c"))
    other = Board.parse("2h 3h 4h / 5d 9h 9d Th Td / Jh Jd Qh Qs Kd")
    st = settle([None, other], rules, naturals={0: "three straights"})
    return ShowdownView(("Wei", "Lena"), st, rules, natural_cards=(cards, ()))


def test_a_natural_is_shown_without_row_names(drawn: list[Drawn],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A natural is 13 cards, not three rows (the engine does not know an arrangement): no
    TOP/MIDDLE/BOTTOM over them, one even line, under a translucent stamp like FOUL's."""
    import renderer.showdown as sd

    stamps: list[tuple[str, int]] = []
    real = sd.stamp

    def record(text: str, size: int, colour: Any, angle: float, opacity: int = 235) -> Any:
        stamps.append((text, opacity))
        return real(text, size, colour, angle, opacity)

    monkeypatch.setattr(sd, "stamp", record)
    view = _three_straights()
    scene = showdown_scene(view)
    shown = texts(drawn)
    assert shown.count("TOP") == shown.count("MIDDLE") == shown.count("BOTTOM") == 1  # Lena's
    natural = [s for s in scene.cards if s.seat == 0]
    assert len(natural) == 13 and all(s.kind == "face" and s.row == "natural" for s in natural)
    assert len({s.box[1] for s in natural}) == 1  # one line
    steps = {b.box[0] - a.box[0] for a, b in zip(natural, natural[1:], strict=False)}
    assert max(steps) - min(steps) <= 1  # evenly spaced: no 3/5/5 groups
    assert stamps == [("THREE STRAIGHTS", FOUL_STAMP_OPACITY)]
    assert "declared three straights: " in describe_showdown(view)


def test_six_pairs_show_their_pairs_side_by_side() -> None:
    view = g.showdown_chinese_4()
    cards = [s.card for s in showdown_scene(view).cards if s.seat == 0]
    ranks = [c.rank for c in cards if c is not None]
    assert ranks == [11, 11, 9, 9, 6, 6, 5, 5, 3, 3, 2, 2, 13]  # the pairs, then the odd king


def test_chinese_2_4_has_no_scoop_badge(drawn: list[Drawn]) -> None:
    """2-4 scoring pays no scoop bonus (``Rules.scoop_bonus`` 0): winning the three rows is no
    badge there; in 1-6 it is."""
    rules = Rules(variant="chinese", scoring="2-4")
    boards = [Board.parse("8h 8d 8c / Ks Kd 4h 4d 4s / As Ah Ad Ac 2c"),
              Board.parse("Qh Jd 3c / 9s 9c 7d 7h 2d / Th Js Qs Kc Kh")]
    st = settle(boards, rules)
    assert st.pair(0, 1).scoop == 1 and rules.scoop_bonus == 0
    view = ShowdownView(("Ann", "Bob"), st, rules)
    showdown_scene(view)
    assert not any(t.startswith("SCOOP") for t in texts(drawn))
    assert "scooped" not in describe_showdown(view)
    drawn.clear()
    showdown_scene(g.showdown_pineapple_3())
    assert any(t.startswith("SCOOP") for t in texts(drawn))


# -- 5. Zalgo ------------------------------------------------------------------------------------
def test_stacked_marks_stay_on_their_line() -> None:
    """A name with dozens of combining marks a letter is drawn with a few at most, and its ink
    never leaves the line (ascent and descent, a fifth of the size more)."""
    kept = drawable(ZALGO, "bold")
    run = 0
    for ch in kept:
        run = run + 1 if unicodedata.combining(ch) else 0
        assert run <= MAX_MARKS
    assert kept.replace("\u0334", "").startswith("Z") and kept.endswith("algo")
    assert drawable("Nguyễn", "bold") == "Nguyễn"
    assert drawable("Nguye\u0302\u0303n", "bold") == "Nguye\u0302\u0303n"  # two: kept
    heavy = "Z" + "\u0336\u0322\u0317\u030b\u033f" * 40
    size = 24
    ascent, descent = font("bold", size).getmetrics()
    for text in (ZALGO, heavy, heavy + " 日本"):
        for anchor, baseline in (("ls", 0), ("lm", (ascent - descent) / 2), ("la", ascent)):
            mask, _, top = text_mask(text, "bold", size, anchor)
            assert top >= baseline - ascent - size * 0.2 - 1
            assert top + mask.height <= baseline + descent + size * 0.2 + 1


# -- 6. seat tags ---------------------------------------------------------------------------------
def test_seat_tags_fall_back_to_the_seat_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hand of table seats 2-4: "Player 3" is tagged 3 (not its place in the hand), and so is
    a name whose first two letters are not unique."""
    import renderer.showdown as sd

    assert initials(["Maximiliano", "Máximo", "Maxine", "Maxwell"], [5, 6, 7, 8]) == [
        "5", "Má", "7", "8"]
    assert initials(["3po", "Bo"], [1, 3]) == ["P", "B"]  # digits are not tags
    # a letter keeps its marks; two of them where the first tells nothing apart
    assert initials(["राहुल", "रामा", "🎲", "🎲🎲"], [1, 2, 3, 4]) == ["राहु", "रामा", "3", "4"]
    tags: list[str] = []
    real = sd._seat_disc

    def record(scene: Scene, m: Any, seat: int, tag: str, *args: Any) -> None:
        tags.append(tag)
        real(scene, m, seat, tag, *args)

    monkeypatch.setattr(sd, "_seat_disc", record)
    rules = Rules(variant="ofc")
    st = settle([Board.parse("2h 3d 4c / 5s 5d 7h 8d 9s / Ts Th Tc Kc Ah"),
                 Board.parse("Qh Jd 3c / 9s 9c 7d 7h 2d / 6h 6s 6c Kd Kh"),
                 Board.parse("Qc Jc 4d / 8s 8c 7c 6c 2s / As Ks Qs 3s 2c")], rules)
    showdown_scene(ShowdownView(("Al", "🔥🔥", "💯", ), st, rules, numbers=(2, 3, 4)))
    assert set(tags) == {"A", "🔥", "💯"}  # a name of emoji only: its first emoji
    tags.clear()
    showdown_scene(ShowdownView(("🔥a", "🔥🔥", "\u3164"), st, rules, numbers=(2, 3, 4)))
    assert set(tags) == {"A", "🔥", "4"}  # (the first emoji only where it tells them apart)


# -- 7. face-down cards beyond the places ---------------------------------------------------------
def test_more_backs_than_places_are_counted_in_a_badge_beside_the_cards(
        pills: list[Pill]) -> None:
    view = TableView("t", "pineapple", (SeatView("A", Board(), hidden=17, fantasyland=True),
                                        SeatView("B", Board())))
    scene = table_scene(view)
    badge = [p for p in pills if p.text == "+4 cards"]  # (not "+4": read as a royalty)
    assert len(badge) == 1 and badge[0].fill == scene.theme.back_colour
    box = badge[0].box
    bottom = [s.box for s in scene.cards if s.seat == 0 and s.row == "bottom"]
    assert box[2] <= min(b[0] for b in bottom)  # left of the row, over no card
    assert bottom[0][1] <= box[1] and box[3] <= bottom[0][3]
    assert all(not (box[0] < c.box[2] and c.box[0] < box[2] and box[1] < c.box[3]
                    and c.box[1] < box[3]) for c in scene.cards)


# -- 8. the private panel's header ----------------------------------------------------------------
def test_the_private_panel_names_an_undrawable_name_as_the_other_images(
        drawn: list[Drawn]) -> None:
    hand_scene(HandView("\U00013000\U00013001", tuple(parse_cards("Ah Kd 7c")), Board(),
                        number=3))
    assert "Player 3" in texts(drawn) and "?" not in texts(drawn)
    drawn.clear()
    hand_scene(HandView("\u3164", (), Board()))
    assert "You" in texts(drawn)


# -- 10. and nits: what the table says ------------------------------------------------------------
def test_the_gallery_chinese_table_shows_what_the_bot_shows() -> None:
    """Before the showdown nobody's natural is shown (the bot says "set"), and bot levels are
    the bot's (easy, normal, strong)."""
    view = g.table_chinese_4()
    for seat in view.seats:
        assert "declared" not in seat.status
        assert "bot (" not in seat.status or any(
            f"bot ({level})" in seat.status for level in ("easy", "normal", "strong"))
        if seat.hidden:
            assert seat.status == "set"


def test_sitting_out_is_said_once(drawn: list[Drawn]) -> None:
    seat = SeatView("Zed", Board(), stack=50, sitting_out=True, status="sitting out")
    view = TableView("t", "ofc", (seat, SeatView("Al", Board())))
    table_scene(view)
    said = [t for t in texts(drawn) if "sitting out" in t.lower()]
    assert said == ["SITTING OUT"]
    assert describe_table(view).lower().count("sitting out") == 1


_NAME_PART = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 _.-", max_size=16)


@settings(max_examples=300, deadline=None)
@given(_NAME_PART, _NAME_PART, _NAME_PART, st.sampled_from([60, 100, 130, 180]))
def test_names_cut_alike_are_told_apart(start: str, end_a: str, end_b: str, width: int) -> None:
    """Two different names with the same start (a 32-character name is Discord's limit): each
    fits its width, and when the plain cut makes them the same text, fit_name makes them
    differ when neither is the other's start ("Alexander the Great II" and "Alexander the
    Great" are told apart by what follows: checked below, not for every width)."""
    a, b = (start + end_a)[:32], (start + end_b)[:32]
    fa, fb = fit_name(a, (a, b), "bold", 15, width), fit_name(b, (a, b), "bold", 15, width)
    assert text_width(fa, "bold", 15) <= max(width, text_width(fit_text(a, "bold", 15, width),
                                                               "bold", 15))
    if a == b or fit_text(a, "bold", 15, width) != fit_text(b, "bold", 15, width):
        assert (fa, fb) == (fit_text(a, "bold", 15, width), fit_text(b, "bold", 15, width))
    elif not a.strip().startswith(b.strip()) and not b.strip().startswith(a.strip()):
        assert fa != fb, (a, b, fa, fb)


def test_a_name_and_the_same_name_longer_are_told_apart() -> None:
    names = ("Alexander the Great", "Alexander the Great II")
    assert [fit_name(n, names, "bold", 15, 100) for n in names] == ["Alex…Great", "Al…Great II"]


def test_two_names_told_apart_in_a_narrow_box() -> None:
    """Found by the property above in a clean clone: at 60 px "00000v00" and "0000C os" were
    both "0000…": the head and the differing end measured apart fit, side by side they were a
    pixel too wide, and no shorter end was tried."""
    a, b = "00000v00", "0000C os"
    fa, fb = (fit_name(n, (a, b), "bold", 15, 60) for n in (a, b))
    assert fa != fb and "…" in fa and "…" in fb, (fa, fb)
    assert max(text_width(fa, "bold", 15), text_width(fb, "bold", 15)) <= 60
