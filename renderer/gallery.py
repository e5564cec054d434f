"""The gallery: one of each image for each variant, written with its text equivalent.

``python -m renderer.gallery docs/images`` (``make gallery``).  The examples here are also the
fixtures of ``bench.render`` and of the renderer's tests.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine import Board, Card, Rules, parse_cards, settle, units_moved

from .hand import describe_hand, render_hand
from .leaderboard import describe_leaderboard, describe_stats, render_leaderboard, render_stats
from .model import (
    DEFAULT_THEME,
    HandView,
    LeaderboardView,
    LeaderRow,
    SeatView,
    ShowdownView,
    StatsView,
    TableView,
    Theme,
)
from .showdown import describe_showdown, render_showdown
from .table import describe_table, render_table


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


# -- tables ---------------------------------------------------------------------------------------
def table_ofc_4() -> TableView:
    """Classic OFC, four players, round 7 of 9: Bob to act, Carol in fantasyland (set, face
    down), Dmitri sitting out."""
    return TableView(
        title="OFC · 1 unit/pt",
        variant="ofc",
        seats=(
            SeatView("Alice", Board.parse("Qh Qd / Kh Kd Ks 4c / 9c Tc Jc Qc Kc"), stack=120,
                     last_placed=cards("Qd"), status="bot (strong)"),
            SeatView("Bob", Board.parse("8c 3h / Jh Jd 9s 6d / Qs 7c 4d 2d"), stack=80,
                     is_turn=True, time_left=42),
            SeatView("Carol", Board(), stack=200, hidden=13, fantasyland=True, status="set"),
            SeatView("Dmitri", Board.parse("2h 2c / As Ad 3s 8h / 5s 6s 7s 8s"), stack=45,
                     is_button=True, sitting_out=True, status="timed out"),
        ),
        street=7, streets=9, hand_no=57,
    )


def table_pineapple_3() -> TableView:
    """Pineapple, three players, round 3 of 5: the cards just placed glow."""
    return TableView(
        title="Pineapple · 2 units/pt",
        variant="pineapple",
        seats=(
            SeatView("Mei \U0001f409", Board.parse("Ah 5c / 9d 9h Tc / 2s 2d 6c Jh"), stack=310,
                     is_button=True),
            SeatView("Oskar", Board.parse("Kd Kc / 5h 6h 7h 4h / Qs Qd 3s"), stack=150,
                     last_placed=cards("Kc Qd"), status="bot (strong)"),
            SeatView("Priya", Board.parse("3c / 8s 8c 4d / Ts Td Th"), stack=95, is_turn=True,
                     time_left=8),
        ),
        street=3, streets=5, hand_no=12,
    )


def table_chinese_4() -> TableView:
    """Classic Chinese poker: sets are face down until everyone has set (as the bot shows it:
    a seat that declared a natural is just "set", its 13 cards face down like any other; a bot
    has no stack and, once set, the same status as anyone)."""
    return TableView(
        title="Chinese poker · 5 units/pt",
        variant="chinese",
        seats=(
            SeatView("王伟", Board(), stack=500, hidden=13, status="set"),
            SeatView("Lena", Board(), stack=260, hidden=13, status="set", is_button=True),
            SeatView("Ravi", Board(), stack=410, is_turn=True, time_left=74),
            SeatView("Sam", Board(), hidden=13, status="set"),
        ),
        street=1, streets=1, hand_no=3, rules=Rules(variant="chinese", scoring="2-4"),
    )


def table_ofc_2_practice() -> TableView:
    """Heads-up practice at the start of a hand (the first five cards placed)."""
    return TableView(
        title="OFC practice",
        variant="ofc",
        seats=(
            SeatView("You", Board.parse("Js / 7d 7s / Ac Kc"), is_button=True,
                     last_placed=cards("Js 7d 7s Ac Kc")),
            SeatView("OFC bot", Board(), is_turn=True, time_left=60, status="bot (strong)"),
        ),
        street=1, streets=9, hand_no=1,
        note="Practice table: no units move",
    )


# -- private hands ---------------------------------------------------------------------------------
def hand_pineapple() -> HandView:
    return HandView(
        name="Priya",
        cards=cards("Ac Kh 7c"),
        board=Board.parse("3c / 8s 8c 4d / Ts Td Th"),
        selected=((Card("Ac"), "top"), (Card("7c"), "discard")),
        instruction="Place 2, discard 1",
        discards=cards("2h 5d"),
        time_left=38,
        variant="pineapple",
    )


def hand_ofc_first() -> HandView:
    return HandView(
        name="You",
        cards=cards("Js 7d 7s Ac Kc"),
        board=Board(),
        selected=((Card("Ac"), "bottom"), (Card("Kc"), "bottom"), (Card("7d"), "middle"),
                  (Card("7s"), "middle")),
        instruction="Place your first 5 cards",
        time_left=57,
    )


def hand_ofc_one() -> HandView:
    return HandView(
        name="Bob",
        cards=cards("Th"),
        board=Board.parse("8c 3h / Jh Jd 9s 6d / Qs 7c 4d 2d"),
        instruction="Place 1 card",
        time_left=42,
    )


def hand_fantasyland_17() -> HandView:
    return HandView(
        name="Carol",
        cards=cards("As Ks Qs Js Ts 9h 9d 9c 5h 5d 4c 3c 2c 8d 7h 6s Kd"),
        board=Board(),
        selected=((Card("9h"), "top"), (Card("9d"), "top"), (Card("9c"), "top"),
                  (Card("2c"), "discard")),
        instruction="Set 13 cards, discard 4",
        fantasyland=True,
        time_left=101,
        variant="pineapple",
    )


def hand_chinese() -> HandView:
    return HandView(
        name="Ravi",
        cards=cards("Qh Jd 3c 7d 7h 5d 5c 2d 9s Th Js Qs Kc"),
        board=Board(),
        selected=((Card("9s"), "bottom"), (Card("Th"), "bottom"), (Card("Js"), "bottom"),
                  (Card("Qs"), "bottom"), (Card("Kc"), "bottom")),
        instruction="Set your 13 cards (or declare a natural)",
        time_left=74,
        variant="chinese",
    )


# -- showdowns ----------------------------------------------------------------------------------
WORKED_L = "Qh Qd 2s / Kh Kd Ks 4c 3d / 9c Tc Jc Qc Kc"
WORKED_R = "Js 8c 3s / 9h 9d 8d 5d 2c / Th Td 7c 6d 4d"
WORKED_F = "As Ac Jh / Ah Ad Ts 7s 3c / 8s 8h 9s 5h 2h"
"""RULES.md's worked example 3 dealt from one deck (its boards share cards: they illustrate
scoring, not a deal): L the same, R and F with other cards of the same effect (R clean with
no royalty and three rows lost to L, F fouled by a top pair of aces over the middle's)."""


def showdown_pineapple_3() -> ShowdownView:
    """RULES.md's worked example 3: L scoops both and goes to fantasyland, F fouls."""
    rules = Rules(variant="pineapple")
    boards = [Board.parse(t) for t in (WORKED_L, WORKED_R, WORKED_F)]
    st = settle(boards, rules)
    nxt = tuple(b.fantasyland_cards(rules) for b in boards)
    return ShowdownView(("Alice", "Bob", "Fiona"), st, rules,
                        units=tuple(units_moved(st, 2)), fantasyland_next=nxt, hand_no=12,
                        title="Pineapple · 2 units/pt")


def showdown_ofc_2() -> ShowdownView:
    """Heads-up OFC: rows split 2-1 with royalties on both sides."""
    rules = Rules(variant="ofc")
    boards = [
        Board.parse("6h 6d Ac / 9s 9d Kh Kc 2s / 4h 7h 9h Jh Ah"),
        Board.parse("Qs Jd 4c / Ts Td Tc 3h 3s / 5c 6c 7c 8c 9c"),
    ]
    st = settle(boards, rules)
    return ShowdownView(("You", "OFC bot"), st, rules, units=None, hand_no=1,
                        title="OFC practice",
                        fantasyland_next=tuple(b.fantasyland_cards(rules) for b in boards))


def showdown_ofc_4() -> ShowdownView:
    """Four players of classic OFC: a foul, scoops, a stack that caps a loss, and a fantasyland
    (KK on top)."""
    rules = Rules(variant="ofc")
    boards = [
        Board.parse("Kh Kd 5c / Qs Qd 8h 8c 2d / 3s 3h 3d 9c 9s"),
        Board.parse("7s 7d 2c / 6h 6s Jc Jd 4c / Ah Ks Qh Jh Th"),
        Board.parse("Ac Qc 4d / 5s 5h 5d 8s 2h / 6c 6d Tc Ts 4s"),
        Board.parse("Kc 9d 2s / 7c 7h Js Td 3c / Ad As 9h 8d 4h"),
    ]
    st = settle(boards, rules)
    return ShowdownView(("Alice", "Bob", "Carol", "Dmitri"), st, rules,
                        units=tuple(units_moved(st, 1, stacks=[120, 80, 200, 20], button=3)),
                        fantasyland_next=tuple(b.fantasyland_cards(rules) for b in boards),
                        hand_no=57, title="OFC · 1 unit/pt")


def showdown_ofc_moon_3() -> ShowdownView:
    """House rules: shooting the moon (a clean board with a jack-high bottom), and a tied row."""
    rules = Rules(variant="ofc", shoot_the_moon=True)
    boards = [
        Board.parse("6h 4d 2s / Td 7h 6c 4h 2d / Jd 9c 7s 5h 3c"),
        Board.parse("Qs Qh 3h / Ks Kd 8h 8c 3d / Ac Ad Ah 7d 7c"),
        Board.parse("Jh Js 4s / Kh Kc 8s 8d 3s / 9s 9d 9h 5c 5d"),
    ]
    st = settle(boards, rules)
    return ShowdownView(("Moon Unit", "Queenie", "Jacques"), st, rules,
                        units=tuple(units_moved(st, 1)),
                        fantasyland_next=tuple(b.fantasyland_cards(rules) for b in boards),
                        hand_no=8, title="OFC · house rules: shooting the moon")


def showdown_chinese_4() -> ShowdownView:
    """Classic Chinese poker: a natural, a surrender, and row bonuses (top trips, middle full
    house, bottom quads)."""
    rules = Rules(variant="chinese")
    boards: list[Board | None] = [
        None,
        Board.parse("8h 8d 8c / Ks Kd 4h 4d 4s / As Ah Ad Ac 2c"),
        Board.parse("Qh Jd 3c / 7d 7h 5d 5c 2d / 9s Th Js Qs Kc"),
        None,
    ]
    st = settle(boards, rules, surrendered=[3], naturals={0: "six pairs"})
    wei = tuple(parse_cards("2s 2h 3s 3h 5s 5h 6s 6h Jh Jc 9h 9d Kh"))  # six pairs, revealed
    return ShowdownView(("王伟", "Lena", "Ravi", "Sam"), st, rules,
                        units=tuple(units_moved(st, 5)), hand_no=3,
                        title="Chinese poker · 2-4 scoring · 5 units/pt",
                        natural_cards=(wei, (), (), ()))


# -- leaderboard and stats -----------------------------------------------------------------------
def leaderboard() -> LeaderboardView:
    data = [
        ("Alice", 412, 206, 340, 21), ("Bob the Builder", 250, 125, 512, 14),
        ("Carol \U0001f338", 96, 48, 120, 9),
        ("\U0001d4d3\U0001d4f6\U0001d4f2\U0001d4fd\U0001d4fb\U0001d4f2", 40, 20, 88, 3),  # fancy
        ("이은지", 0, 0, 12, 0),
        ("Frank_with_a_very_long_username", -35, -18, 64, 2), ("\U0001f3b2 Grace", -120, -60, 230, 8),
        ("Heidi", -688, -344, 401, 5),
    ]
    rows = tuple(LeaderRow(i + 1, *row) for i, row in enumerate(data))
    return LeaderboardView("OFC Club leaderboard", "units", "this week", rows)


def stats() -> StatsView:
    steps = [6, -2, 11, -30, 4, 9, 0, -6, 14, 3, -12, 7, 22, -4, 5, -9, 18, 2, -7, 30, -3, 6,
             -15, 8, 12, -1, 4, 9, -20, 16, 3, 7, -5, 11, 2, -8, 13, 6, -2, 9]
    total = 1000 + 412 - sum(steps)  # (so that the line ends at the start 1000 + 412 won)
    balances = [total]  # before the first of the last hands
    for s in steps:
        total += s
        balances.append(total)
    return StatsView("Alice", hands=340, points=206, units=412, foul_rate=0.06,
                     fantasyland_rate=0.12, balances=tuple(balances))


TWO_COLOUR = Theme(four_colour=False)

Entry = tuple[Callable[[], bytes], Callable[[], str]]


def _entry(render: Callable[..., bytes], describe: Callable[[Any], str], make: Callable[[], Any],
           theme: Theme = DEFAULT_THEME) -> Entry:
    return (lambda: render(make(), theme=theme), lambda: describe(make()))


GALLERY: dict[str, Entry] = {
    "table_ofc_4p": _entry(render_table, describe_table, table_ofc_4),
    "table_pineapple_3p": _entry(render_table, describe_table, table_pineapple_3),
    "table_chinese_4p": _entry(render_table, describe_table, table_chinese_4),
    "table_ofc_2p_practice": _entry(render_table, describe_table, table_ofc_2_practice),
    "hand_pineapple": _entry(render_hand, describe_hand, hand_pineapple),
    "hand_ofc_first5": _entry(render_hand, describe_hand, hand_ofc_first),
    "hand_ofc_1card": _entry(render_hand, describe_hand, hand_ofc_one),
    "hand_fantasyland_17": _entry(render_hand, describe_hand, hand_fantasyland_17),
    "hand_chinese": _entry(render_hand, describe_hand, hand_chinese),
    "showdown_pineapple_3p": _entry(render_showdown, describe_showdown, showdown_pineapple_3),
    "showdown_ofc_2p": _entry(render_showdown, describe_showdown, showdown_ofc_2),
    "showdown_ofc_4p": _entry(render_showdown, describe_showdown, showdown_ofc_4),
    "showdown_chinese_4p": _entry(render_showdown, describe_showdown, showdown_chinese_4),
    "showdown_ofc_moon_3p": _entry(render_showdown, describe_showdown, showdown_ofc_moon_3),
    "leaderboard": _entry(render_leaderboard, describe_leaderboard, leaderboard),
    "stats": _entry(render_stats, describe_stats, stats),
    "table_ofc_4p_two_colour": _entry(render_table, describe_table, table_ofc_4, TWO_COLOUR),
    "hand_pineapple_two_colour": _entry(render_hand, describe_hand, hand_pineapple, TWO_COLOUR),
    "showdown_pineapple_3p_two_colour": _entry(render_showdown, describe_showdown,
                                               showdown_pineapple_3, TWO_COLOUR),
}
"""name -> (PNG bytes, text equivalent)."""


def write(out: Path) -> list[Path]:
    """Write every image, its text equivalent (``.txt``) and an index (``README.md``)."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    index = [
        "# Renderer gallery",
        "",
        "Generated by `make gallery` (`python -m renderer.gallery docs/images`) from the examples",
        "in `renderer/gallery.py`; do not edit by hand.  Each image is followed by its text",
        "equivalent (`describe_*`), which the bot posts with it.",
        "",
    ]
    for name, (render, describe) in GALLERY.items():
        png = out / f"{name}.png"
        data = render()
        png.write_bytes(data)
        text = describe()
        (out / f"{name}.txt").write_text(text + "\n", encoding="utf-8")
        written.append(png)
        index += [f"## {name}", "", f"![{name}]({name}.png)", "",
                  f"{len(data) / 1024:.0f} KB", "", "```text", text, "```", ""]
    (out / "README.md").write_text("\n".join(index), encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0] if args else "docs/images")
    for path in write(out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
