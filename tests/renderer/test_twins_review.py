"""A review of every picture against its text twin (and the message text beside it) and against
the game state they show: the table (live, and the replay frames of a past hand), the showdown,
the private panel, the leaderboard and the stats.

States looked at: 2-4 seats, ofc / pineapple / chinese, fantasyland hands face down (14-17
cards) and both players in fantasyland, bots (their clock), practice, surrenders (ofc and
chinese), declared naturals, fouls, scoops, the moon, stake 0, blank and long names, a
pineapple hand's replay.  Pictures are inspected through their scenes (``Scene.cards``, and the
texts each scene draws, recorded by wrapping ``Scene.text``); live states come from the real
``TableService`` (no Discord: ``tests/bot/test_service.make``).

What is right stays as plain passing tests.  Each defect found was an ``xfail(strict=True)``
test, now passing, whose docstring starts with "Was a defect (fixed):" and says what a player
saw, why it was wrong and where it came from.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from bot.service import Draft, PanelState
from cogs.presenter import (
    for_message,
    hand_view,
    panel_text,
    round_view,
    table_status,
    table_view,
)
from engine import Board, Card, Rules, parse_cards, settle, units_moved
from renderer import (
    SeatView,
    ShowdownView,
    StatsView,
    TableView,
    describe_showdown,
    describe_stats,
    describe_table,
)
from renderer.common import clock
from renderer.hand import hand_scene
from renderer.leaderboard import stats_scene
from renderer.scene import Scene
from renderer.showdown import showdown_scene
from renderer.table import table_scene
from tests.bot.test_service import ALICE, BOB, CH, G, make

BLANK = "\u3164"  # Hangul filler: a name that shows nothing (Discord allows it)


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every text the scenes built from now on draw, in order."""
    out: list[str] = []
    real = Scene.text

    def record(self: Scene, xy: tuple[int, int], text: str, *args: Any, **kw: Any) -> int:
        out.append(text)
        return real(self, xy, text, *args, **kw)

    monkeypatch.setattr(Scene, "text", record)
    yield out


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


# =============================================================================== what is right
async def test_fantasyland_set_and_discards_stay_hidden_in_table_and_replay() -> None:
    """Pineapple heads-up, alice in a 14-card fantasyland, bob playing the streets: while the
    hand is played the table's picture draws only backs for alice (no face) and its text names
    none of her cards; every replay frame but the last shows her set face down; no frame, text
    or picture, ever shows a discard of either player."""
    svc, rec, store = await make(seed_factory=lambda: "twins-fl-replay")
    try:
        await svc.new_table(G, CH, ALICE, "alice", variant="pineapple")
        await svc.join(G, CH, BOB, "bob")
        t = svc.table_in_channel(CH)
        await store.update_table(t.id, extra={"fantasyland": {"0": 14},
                                              "fantasyland_owed_by": [0, 1]})
        await svc._refresh(t)
        await svc.start(CH, ALICE)
        hand = t.hand
        assert hand is not None and hand.fantasyland[0] == 14
        alice_cards = set(hand.pending[0])
        view = table_view(t)
        scene = table_scene(view)
        assert {s.kind for s in scene.cards if s.seat == 0} == {"back"}
        text = describe_table(for_message(view))
        assert not any(str(c) in text for c in alice_cards), text
        while not hand.is_over:
            hs = hand.to_act()[0]
            async with t.lock:
                hand.autoplay(hs)
                await svc._after_action(t)
        discards = {c for d in hand.discards for c in d}
        assert discards
        final = set(hand.boards[0].cards)
        past = await svc.past_hand(CH, 1)
        assert len(past.rounds) == 5
        for i in range(len(past.rounds)):
            frame = round_view(past, i)
            scene = table_scene(frame)
            faces = {s.card for s in scene.cards if s.kind == "face"}
            text = describe_table(for_message(frame))
            assert not faces & discards
            assert not any(re.search(rf"\b{c}\b", text) for c in discards), (i, text)
            if i < len(past.rounds) - 1:
                assert {s.kind for s in scene.cards if s.seat == 0} == {"back"}, i
                assert not any(re.search(rf"\b{c}\b", text) for c in final), (i, text)
            else:
                assert {s.card for s in scene.cards if s.seat == 0} == final
    finally:
        await svc.shutdown()
        await store.close()


def test_showdown_marks_agree_in_picture_and_text(drawn: list[str]) -> None:
    """Ofc 3 players (moon on): a foul, a scoop, the moon, a fantasyland and units; and a
    pineapple surrender: each mark the picture stamps, the text says too, with the same
    totals and units."""
    rules = Rules(variant="ofc", shoot_the_moon=True)
    boards = [Board.parse("6h 4d 2s / Td 7h 6c 4h 2d / Jd 9c 7s 5h 3c"),
              Board.parse("Qs Qh 3h / Ks Kd 8h 8c 3d / Ac Ad Ah 7d 7c"),
              Board.parse("Ah Ad Kc / As Ac Qd 7s 3c / Js Jc 9d 5h 2h")]
    st = settle(boards, rules)
    view = ShowdownView(("Moon", "Queenie", "Foul"), st, rules,
                        units=tuple(units_moved(st, 2)),
                        fantasyland_next=tuple(b.fantasyland_cards(rules) for b in boards),
                        hand_no=8, title="Open Face · 2 units/pt")
    showdown_scene(view)
    text = describe_showdown(view)
    lines = text.split("\n")
    assert "SHOT THE MOON" in drawn and "shot the moon" in lines[1]
    assert "FOUL" in drawn and "FOUL" in lines[3]
    assert any(d.startswith("SCOOP") for d in drawn) and "scooped" in lines[2]
    assert "FANTASYLAND! 13" in drawn and "Fantasyland! (13 cards)" in lines[2]
    for i, line in enumerate(lines[1:4]):
        assert f"total {st.totals[i]:+d} point".replace("-", "−") in line
    drawn.clear()
    rules = Rules(variant="pineapple")
    boards2 = [Board.parse("Qh Qd 2s / Kh Kd Ks 4c 3d / 9c Tc Jc Qc Kc"),
               Board.parse("Js / 9h 9d / Th")]
    st2 = settle(boards2, rules, surrendered=[1])
    view2 = ShowdownView(("A", "B"), st2, rules, units=tuple(units_moved(st2, 1)), hand_no=3)
    showdown_scene(view2)
    text2 = describe_showdown(view2)
    assert "SURRENDERED" in drawn and "FOUL" not in drawn
    assert "surrendered" in text2.split("\n")[2] and "FOUL" not in text2


def test_a_blank_name_is_player_n_in_the_showdown_text_as_in_its_picture(
        drawn: list[str]) -> None:
    """The showdown's text names a seat whose name shows nothing ``Player N``, as its picture
    does (README, "Images")."""
    rules = Rules(variant="ofc")
    boards = [Board.parse("Qh Qd 2s / Kh Kd Ks 4c 3d / 9c Tc Jc Qc Kc"),
              Board.parse("Js 8c 3s / 9h 9d 8d 5d 2c / Th Td 7c 6d 4d")]
    view = ShowdownView((BLANK, "Bob"), settle(boards, rules), rules, numbers=(2, 3))
    showdown_scene(view)
    assert "Player 2" in drawn
    assert "Player 2" in describe_showdown(for_message(view))


async def test_a_humans_clock_is_in_the_picture_and_in_the_status_line() -> None:
    """Chinese with a bot: alice's clock is drawn (a timer pill) and her deadline is in the
    status line above the text, for the same moment."""
    svc, rec, store = await make(seed_factory=lambda: "twins-clock", bot_delay=30)
    try:
        await svc.new_table(G, CH, ALICE, "alice", variant="chinese", bots=1)
        t = svc.table_in_channel(CH)
        if t.hand is None:
            await svc.start(CH, ALICE)
        view = table_view(t)
        alice = next(s for s in view.seats if s.name == "alice")
        assert alice.is_turn and alice.time_left is not None
        status = table_status(t)
        assert re.search(r"\*\*alice\*\* \(time runs out <t:\d+:R>\)", status), status
    finally:
        await svc.shutdown()
        await store.close()


# ==================================================================================== defects
async def test_a_bots_clock_is_not_drawn_on_the_table() -> None:
    """Was a defect (fixed): a practice table with a bot (ofc, the bot to act first, or a chinese set while
    the bot thinks): the table picture draws a gold timer pill "0:59" (chinese "1:59") on the
    bot's seat, while the status line above says just "To act: **Ada (bot)**" and the text
    twin "to act" with no clock.  README ("Playing", Timers): "A bot's move has a clock too (a
    safety net against a stuck AI), not shown"; ``table_status`` drops it on purpose ("a bot's
    clock ... is not shown").  The picture tells a player the bot may time out and that they
    wait up to a minute for it.  From ``cogs/presenter.py`` ``table_view``: ``time_left`` is
    set for every seat in ``t.deadlines``, bots included (``_set_deadlines`` arms one for the
    bot), and ``renderer/table.py`` ``_seat`` draws ``timer_pill`` from it."""
    svc, rec, store = await make(seed_factory=lambda: "twins-bot-clock", bot_delay=30)
    try:
        await svc.new_table(G, CH, ALICE, "alice", variant="ofc", bots=1)
        t = svc.table_in_channel(CH)
        if t.hand is None:
            await svc.start(CH, ALICE)
        assert t.hand is not None
        view = table_view(t)
        bot = next(s for s, row in zip(view.seats, t.seats, strict=True) if row.is_bot)
        assert bot.is_turn  # (the bot thinks: bot_delay)
        assert "time runs out" not in table_status(t)  # the status line: no clock for it
        assert bot.time_left is None, (
            f"the picture draws the bot's clock {clock(bot.time_left or 0)}")
    finally:
        await svc.shutdown()
        await store.close()


def test_a_blank_name_is_player_n_in_the_table_text_as_in_its_picture(
        drawn: list[str]) -> None:
    """Was a defect (fixed): a player named with a Hangul filler (U+3164, shows nothing; common in Discord
    for "invisible" names) sits at seat 2: the table picture names the seat "Player 2" (README,
    "Images": "the same in every image"), but the text twin under it starts the line with the
    blank name, "ㅤ — top: - | ... · to act": a screen reader reads no name, so a reader cannot
    tell whose board or turn it is (the showdown's text does say "Player 2": ``text_labels``).
    From ``renderer/table.py`` ``describe_seat`` (``seat.name`` as given) and
    ``cogs/presenter.py`` ``for_message`` (only ``in_code``); ``table_status`` likewise says
    "To act: **ㅤ**"."""
    view = TableView(
        title="Open Face · 1 unit/pt", variant="ofc", hand_no=4, street=2, streets=9,
        seats=(SeatView("Alice", Board.parse("Qh / Kd Ks / 9c Tc"), stack=200, number=1),
               SeatView(BLANK, Board.parse("2h / 5d / Ac Ad"), stack=180, is_turn=True,
                        number=2)),
    )
    table_scene(view)
    assert "Player 2" in drawn
    text = describe_table(for_message(view))
    assert "Player 2" in text, text


def test_the_panel_text_says_the_royalties_its_picture_shows(drawn: list[str]) -> None:
    """Was a defect (fixed): in a player's private panel (ofc, waiting for the others) with QQ set on top,
    the picture puts a gold "+7" badge beside TOP (``live_royalties``), but the message text
    beside it says only "Board — top: Qh Qd 2s (pair of queens) | middle: ... (4/5) | ..."
    with no royalty anywhere: a player reading the text (screen reader, images off) does not
    learn the 7 points the picture gives.  The renderer's own twin ``describe_hand`` says
    "(royalties 7)", but the bot posts ``cogs/presenter.py`` ``panel_text``, built from
    ``Board.describe_rows`` (hand names only)."""
    p = PanelState(
        table_id=1, seat_no=0, hand_no=4, step=6, requirement=None,
        board=Board.parse("Qh Qd 2s / Kh Kd Ks 4c / 9c Tc Jc Qc"), draft=Draft(),
        fantasyland=False, discards=(), waiting_for="Waiting for bob.", name="alice",
    )
    hand_scene(hand_view(p, "ofc", None, Rules(variant="ofc")))
    assert "+7" in drawn  # the picture's royalty badge
    text = panel_text(p, "ofc")
    assert "+7" in text or re.search(r"royalt\w* 7", text), text


async def test_a_hand_of_fantasylands_only_is_not_round_1_of_5() -> None:
    """Was a defect (fixed): pineapple heads-up where both players earned fantasyland (14 and 15 cards):
    everyone sets at once, there are no rounds (``Hand.rounds`` has none: "every hand set at
    once", and the showdown offers no replay), yet the status line says "Hand #1, round 1 of
    5" and the picture and its text "Hand 1 · Round 1 of 5" with five round dots; a chinese
    hand, set at once the same way, says "set your hands" and draws no dots.  Players wait for
    rounds 2-5 that never come.  From ``cogs/presenter.py`` ``table_status`` (``hand.streets >
    1``) and ``table_view`` (``streets=hand.streets``; ``renderer/table.py`` ``_round_text``
    and ``street_dots``): ``Hand.streets`` is the variant's, not this hand's (no regular
    seat)."""
    svc, rec, store = await make(seed_factory=lambda: "twins-all-fl")
    try:
        await svc.new_table(G, CH, ALICE, "alice", variant="pineapple")
        await svc.join(G, CH, BOB, "bob")
        t = svc.table_in_channel(CH)
        await store.update_table(t.id, extra={"fantasyland": {"0": 14, "1": 15},
                                              "fantasyland_owed_by": [0, 1]})
        await svc._refresh(t)
        await svc.start(CH, ALICE)
        assert t.hand is not None and all(t.hand.fantasyland)
        assert not t.hand.regular_seats  # every hand set at once: no rounds
        status = table_status(t)
        text = describe_table(for_message(table_view(t)))
        assert "round 1 of 5" not in status.lower(), status
        assert "round 1 of 5" not in text.lower(), text
    finally:
        await svc.shutdown()
        await store.close()


def test_stats_with_no_hands_give_no_rate_in_text_as_in_picture(drawn: list[str]) -> None:
    """Was a defect (fixed): ``/ofc stats`` for a member with no hands yet (or none of the game asked): the
    picture's FOULS and FANTASYLAND tiles say "—" ("no hands: no rate, not 0%", as its code
    says) and "No hands played yet", but the text beside it says "fouls 0%, fantasyland 0%",
    a rate the picture deliberately does not claim (a reader is told they never foul).  From
    ``renderer/leaderboard.py`` ``describe_stats`` (formats the rates whatever the hands;
    ``stats_scene``'s ``rate`` checks ``view.hands``)."""
    view = StatsView("Alice", hands=0, points=0, units=0, foul_rate=0.0, fantasyland_rate=0.0,
                     balances=())
    stats_scene(view)
    assert "—" in drawn and "0%" not in drawn
    text = describe_stats(for_message(view))
    assert "0%" not in text, text


def test_both_surrendered_is_said_once(drawn: list[str]) -> None:
    """Both players of a pineapple pair surrendered: "both surrendered", in the picture and
    in the text, and no more.  (Was a defect (fixed): the pair's note said it again, "both
    surrendered; both fouled or surrendered", ``renderer/showdown.py`` ``pair_items``.)"""
    rules = Rules(variant="pineapple")
    boards = [Board.parse("Qh / Kh Kd / 9c"), Board.parse("Js / 9h 9d / Th")]
    st = settle(boards, rules, surrendered=[0, 1])
    view = ShowdownView(("A", "B"), st, rules, units=tuple(units_moved(st, 1)), hand_no=3)
    showdown_scene(view)
    assert sum(d.lower() == "both surrendered" for d in drawn) == 1, drawn
    text = describe_showdown(view)
    assert text.count("both surrendered") == 1 and "fouled or" not in text, text
    assert not any("fouled or" in d for d in drawn), drawn


def test_a_blank_name_is_player_n_in_the_leaderboard_text_as_in_its_picture(
        drawn: list[str]) -> None:
    """A player whose name shows nothing is "Player <row>" in the leaderboard's picture and,
    now, in its text (it began the line with the blank name: a screen reader read no name)."""
    from renderer import LeaderboardView, LeaderRow, describe_leaderboard
    from renderer.leaderboard import leaderboard_scene

    view = LeaderboardView("Poker Night", "units", "all time", rows=(
        LeaderRow(1, "Ann", 30, 12, 5, 1), LeaderRow(2, BLANK, 10, 4, 5, 0)))
    leaderboard_scene(view)
    assert "Player 2" in drawn
    assert "2. Player 2 — +10 units" in describe_leaderboard(for_message(view))


def test_the_players_tied_beyond_the_rows_are_counted_in_the_picture_too(
        drawn: list[str]) -> None:
    """More players tied with the twentieth than the picture has rows for: the picture
    counts them under its rows, as the text does.  (Was a defect (fixed): only the text
    said "… and 5 more players tied at rank 1".)"""
    from renderer import LeaderboardView, LeaderRow, describe_leaderboard
    from renderer.leaderboard import leaderboard_scene

    rows = tuple(LeaderRow(1, f"player {k}", 50, 10, 5, 0) for k in range(20))
    view = LeaderboardView("Poker Night", "units", "all time", rows=rows, more_tied=5)
    scene = leaderboard_scene(view)
    assert "… and 5 more players tied at rank 1" in drawn
    assert describe_leaderboard(view).endswith("\n… and 5 more players tied at rank 1")
    drawn.clear()
    plain = leaderboard_scene(LeaderboardView("Poker Night", "units", "all time", rows=rows))
    assert not any("more player" in d for d in drawn) and plain.height < scene.height
