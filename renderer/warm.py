"""``warm_up()``: build the sprites (every card face at every size, backs, glows) and load the
fonts before the first real render, e.g. from a worker thread when the bot starts.  Without it
the first image of each kind costs about 40-120 ms more while its sprites are drawn."""

from __future__ import annotations

from engine import DECK, Board, Rules, settle

from .hand import render_hand
from .model import DEFAULT_THEME, HandView, SeatView, ShowdownView, TableView, Theme
from .showdown import render_showdown
from .table import render_table


def warm_up(theme: Theme = DEFAULT_THEME) -> None:
    boards = [
        Board(DECK[13 * k: 13 * k + 3], DECK[13 * k + 3: 13 * k + 8], DECK[13 * k + 8: 13 * k + 13])
        for k in range(4)
    ]
    seats = tuple(
        SeatView(f"Seat {k}", b, stack=100, last_placed=b.cards[:1], is_turn=k == 0,
                 time_left=30, is_button=k == 1, fantasyland=k == 2, sitting_out=k == 3)
        for k, b in enumerate(boards)
    )
    # (the title's emoji loads the emoji font and its character map: 16 ms on first use)
    render_table(TableView("warm-up \U0001f525", "ofc", seats, street=1, streets=9), theme=theme)
    render_table(TableView("warm-up", "chinese", (SeatView("a", Board(), hidden=13),
                                                  SeatView("b", Board()))), theme=theme)
    for k in range(0, 52, 5):
        cards = DECK[k: k + 5]
        render_hand(HandView("warm-up", cards, Board(), discards=cards,
                             selected=((cards[0], "discard"),)), theme=theme)
    rules = Rules()
    for n in (2, 3, 4):
        st = settle(boards[:n], rules)
        names = tuple(f"Seat {k}" for k in range(n))
        view = ShowdownView(names, st, rules, units=tuple(st.totals),
                            fantasyland_next=(14,) + (0,) * (n - 1))
        render_showdown(view, theme=theme)
