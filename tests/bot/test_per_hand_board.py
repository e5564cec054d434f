"""``/ofc leaderboard by:points_per_hand``: players with ``PER_HAND_MIN_HANDS`` counted hands or
more, ranked by their points a hand (ties: more hands first), for all time, a period and one
game, the kept totals and the results added up agreeing; the picture's points column shows
the points a hand, its text says both."""

from __future__ import annotations

import pytest

from bot.service import ServiceError
from bot.store import PER_HAND_MIN_HANDS, Store
from renderer import LeaderboardView, LeaderRow, describe_leaderboard, render_leaderboard

from .test_service import make
from .test_store import ALICE, BOB, CAROL, CH, G
from .test_variant_leaderboard import DAY, played, seated

DAVE = CAROL + 1


async def test_ranked_by_points_a_hand_of_those_with_enough_hands() -> None:
    assert PER_HAND_MIN_HANDS == 20
    store = await Store.open(":memory:")
    pine = await seated(store, G, CH, "pineapple", (ALICE, BOB, CAROL, DAVE))
    n = 0
    # alice +2 a hand over 20 hands against dave; carol +2 a hand over 30 against bob
    for k in range(20):
        n += 1
        await played(store, pine, n, "pineapple", {ALICE: 2, DAVE: -2}, DAY + k)
    for k in range(30):
        n += 1
        await played(store, pine, n, "pineapple", {CAROL: 2, BOB: -2}, DAY + 100 + k)
    # dave: -2 over 20 hands; bob: -2 over 30; carol +2 over 30 (ties alice on +2: more hands)
    board = await store.leaderboard(G, "points_per_hand")
    assert [(e.user_id, e.points_per_hand, e.hands) for e in board] == [
        (CAROL, 2.0, 30), (ALICE, 2.0, 20), (BOB, -2.0, 30), (DAVE, -2.0, 20)]
    # one more hand, alice +22 (dave -22): 62 points in 21 hands, ahead of carol
    n += 1
    await played(store, pine, n, "pineapple", {ALICE: 22, DAVE: -22}, 5 * DAY)
    board = await store.leaderboard(G, "points_per_hand", limit=2)
    assert [(e.user_id, e.points_per_hand) for e in board] == [(ALICE, 2.95), (CAROL, 2.0)]
    # a period holds one hand of each: nobody has enough hands there
    assert await store.leaderboard(G, "points_per_hand", 4 * DAY) == []
    # the kept totals and the results added up agree; one game's too
    for variant in (None, "pineapple"):
        assert await store.leaderboard(G, "points_per_hand", variant=variant) == \
            await store.leaderboard(G, "points_per_hand", 0.0, variant=variant)
    assert await store.leaderboard(G, "points_per_hand", variant="ofc") == []
    assert await store.verify_ledger() == []
    await store.close()


async def test_the_service_takes_it_and_names_it_when_refused() -> None:
    svc, rec, store = await make()
    assert await svc.leaderboard(G, "points_per_hand", "all") == []
    with pytest.raises(ServiceError, match="points per hand"):
        await svc.leaderboard(G, "skill", "all")
    await svc.shutdown()
    await store.close()


def test_the_picture_and_text_show_points_a_hand() -> None:
    rows = (LeaderRow(rank=1, name="Carol", units=60, points=60, hands=30, fantasylands=4),
            LeaderRow(rank=2, name="Bob", units=-45, points=-45, hands=20, fantasylands=0))
    view = LeaderboardView(title="Poker Night leaderboard", by="points_per_hand",
                           period="all time", rows=rows, min_hands=20)
    text = describe_leaderboard(view)
    assert text.splitlines() == [
        "Poker Night leaderboard — top players, all time, by points per hand (20+ hands)",
        "1. Carol — +60 units, +2.00 points a hand (+60 points), 30 hands, 4 fantasylands",
        "2. Bob — −45 units, −2.25 points a hand (−45 points), 20 hands, 0 fantasylands"]
    assert render_leaderboard(view).startswith(b"\x89PNG")
    empty = LeaderboardView(title="t", by="points_per_hand", period="all time", rows=(),
                            min_hands=20)
    assert describe_leaderboard(empty).endswith("Nobody has played 20 hands yet")
    assert render_leaderboard(empty).startswith(b"\x89PNG")


async def test_players_shown_alike_share_the_rank_and_are_not_cut() -> None:
    """Points a hand are shown to two decimals: 7 in 21 hands (0.333...) and 14 in 43
    (0.3256...) both read +0.33, so the board that shows one shows both, at one rank."""
    store = await Store.open(":memory:")
    table = await seated(store, G, CH, "pineapple", (ALICE, BOB, CAROL, DAVE))
    moves = [(ALICE, DAVE, 1)] * 14 + [(ALICE, DAVE, -1)] * 7 + [(BOB, CAROL, 1)] * 27 + \
        [(BOB, CAROL, 2)] + [(BOB, CAROL, -1)] * 15
    for n, (a, b, won) in enumerate(moves, start=1):
        await played(store, table, n, "pineapple", {a: won, b: -won}, DAY + n)
    board = await store.leaderboard(G, "points_per_hand", limit=1)
    assert [(e.user_id, e.points, e.hands, e.points_per_hand) for e in board] == [
        (ALICE, 7, 21, 0.33), (BOB, 14, 43, 0.33)]
    await store.close()
