"""A past hand's replay as pictures (``round_view``, ``past_hand_payload``): each round's
table as everyone saw it, a fantasyland set face down until the end, the clock's moves told,
the discards never named."""

from __future__ import annotations

import random

from bot.service import PastHand, ShowdownResult
from cogs.presenter import past_hand_payload, round_view
from engine import Rules
from engine.hand import Hand
from renderer import describe_table


def played(variant: str = "pineapple") -> Hand:
    """Mei, Oskar and Priya (in a 15-card fantasyland) play a hand; the clock plays Mei's
    third round."""
    h = Hand(Rules(variant=variant), ["Mei", "Oskar", "Priya"], 1, {2: 15}, seed="replay")
    rng = random.Random(3)
    while not h.is_over:
        seat = h.to_act()[0]
        if h.fantasyland[seat] or (h.street == 3 and seat == 0):
            h.autoplay(seat)
        else:
            h.place(seat, *rng.choice(h.legal_moves(seat)))
    return h


def past_of(h: Hand) -> PastHand:
    r = ShowdownResult(
        hand_no=7, names=h.names, user_ids=(1, 2, 3), settlement=h.settlement,
        units=(0, 0, 0), fantasyland_next=(0, 0, 0), practice=False, rules=h.rules,
        natural_cards=(), seat_nos=(0, 2, 3), notes=())
    return PastHand(result=r, stake=2, four_colour=True, finished_at=0, closed=False,
                    table_id=1, rounds=tuple(Hand.rounds(h.to_json())))


def test_each_round_as_everyone_saw_it() -> None:
    h = played()
    past = past_of(h)
    secret = {str(c) for c in h.boards[2].cards}
    gone = {str(c) for d in h.discards for c in d}
    assert len(past.rounds) == 5
    for i in range(5):
        view = round_view(past, i)
        text = describe_table(view)
        assert (view.street, view.streets, view.hand_no) == (i + 1, 5, 7)
        assert [s.number for s in view.seats] == [1, 3, 4]  # the seats' numbers at the table
        assert [s.is_button for s in view.seats] == [False, True, False]
        words = set(text.replace("|", " ").split())
        assert not words & gone
        if i < 4:
            assert not words & secret and view.seats[2].hidden == 13
            fl_auto = 2 in past.rounds[i].auto  # (the clock played her set in that round)
            assert view.seats[2].status == (
                "timed out: the clock played the set" if fl_auto else "set")
            assert view.note.endswith(f"after round {i + 1}.")
        else:
            assert secret <= words and view.note.endswith("the end of the hand.")
        assert (view.seats[0].status == "timed out: the clock played") == (i == 2)
    assert sum(2 in r.auto for r in past.rounds) == 1  # her set: once, by the clock


async def test_the_payload_of_the_showdown_and_of_a_round() -> None:
    past = past_of(played())
    texts, file = await past_hand_payload(past, 0, "Hand #7 at this table, <t:0:f>:")
    assert texts[0].startswith("Hand #7 at this table, <t:0:f>:\n🃏 **Showdown — hand #7**")
    assert file.filename == "showdown-hand-7.png"
    texts, file = await past_hand_payload(past, 2, "Hand #7, <t:0:f>:")
    assert texts[0].startswith("Hand #7, <t:0:f> — round 2 of 5 (replay):\n```\n")
    assert texts[0].endswith("```") and file.filename == "hand-7-round-2.png"
    assert file.fp.read().startswith(b"\x89PNG")
