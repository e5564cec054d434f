"""A table's recap (``/ofc recap``, and posted when the table closes): how its settled hands
went for each player, from the stored results."""

from __future__ import annotations

import re
from typing import Any

from bot.service import recap_lines
from bot.store import RecapRow, TableRecap

from .test_service import ALICE, BOB, CH, G, finish_by_autoplay, heads_up, make, until


def notices(rec: Any) -> list[str]:
    return [text for kind, text in rec.events if kind == "notice"]


async def hands_played(seed: str, n: int, **kw: Any) -> tuple[Any, Any, Any, Any]:
    svc, rec, store, t = await heads_up(seed, **kw)
    for k in range(1, n + 1):
        await until(lambda k=k: t.hand is not None and t.row.hand_no == k)  # type: ignore[misc]
        await finish_by_autoplay(svc)
    await until(lambda: t.hand is not None and t.row.hand_no == n + 1)
    return svc, rec, store, t


async def test_the_recap_adds_up_every_settled_hand_of_the_table() -> None:
    svc, rec, store, t = await hands_played("recap-sums", 3, variant="pineapple")
    recap = await store.table_recap(t.id)
    assert recap is not None and recap.hands == 3  # (hand #4 is being played: not counted)
    hands = await store.history(t.id, 10)
    assert len(hands) == 3
    for row in recap.players:
        mine = [r for _, results in hands for r in results if r.user_id == row.user_id]
        assert row.hands == 3 and row.points == sum(r.points for r in mine)
        assert row.units == sum(r.units for r in mine)
        assert row.fouls == sum(r.fouled for r in mine)
        assert row.fantasylands == sum(r.fantasyland for r in mine)
        assert row.best == max(r.points for r in mine)
    assert sum(p.points for p in recap.players) == 0 and sum(p.units for p in recap.players) == 0
    assert [p.points for p in recap.players] == sorted((p.points for p in recap.players),
                                                       reverse=True)
    assert {p.user_id for p in recap.players} == {ALICE, BOB}
    assert recap.started <= recap.ended
    text = await svc.recap(CH)
    assert text.startswith("📋 **This table so far** — pineapple, 1 unit per point · 3 hands, ")
    await store.close()


async def test_none_before_the_first_hand_and_the_last_table_after_it_closed() -> None:
    svc, rec, store, t = await heads_up("recap-none", start=False)
    assert await store.table_recap(t.id) is None
    assert await svc.recap(CH) == "No hand has finished at this table yet."
    await svc.start(CH, ALICE)
    await finish_by_autoplay(svc)
    await until(lambda: t.row.hand_no == 2)
    await svc.close(CH, ALICE, False)  # after the hand being played
    await finish_by_autoplay(svc)
    # (the table is forgotten under its lock; its closing notice, with the recap read from
    # the database, is posted just after: wait for that)
    await until(lambda: t.id not in svc.tables
                and "Thanks for playing" in (notices(rec) or [""])[-1])
    closing = notices(rec)[-1]
    assert closing.startswith(f"The table is closed, as <@{ALICE}> asked during hand #2: every "
                              "stack went back to its owner's balance. Thanks for playing!\n"
                              "📋 **Recap** — ofc, ")
    assert "2 hands" in closing
    assert await svc.recap(CH) == closing.split("\n", 1)[1]  # the channel's last table
    await svc.new_table(G, CH, BOB, "bob", variant="ofc")
    assert await svc.recap(CH) == "No hand has finished at this table yet."
    await store.close()


async def test_every_way_a_table_closes_says_how_it_went() -> None:
    # /ofc close between hands: the answer holds the recap
    svc, rec, store, t = await heads_up("recap-close", next_hand_delay=30)
    await finish_by_autoplay(svc)
    await until(lambda: t.hand is None and t.row.hand_no == 1)
    text = await svc.close(CH, ALICE, False)
    assert text.startswith("The table is closed; every stack went back to its owner's "
                           "balance.\n📋 **Recap** — ofc, 1 unit per point · 1 hand, ")
    await store.close()
    # everyone leaves
    svc, rec, store, t = await heads_up("recap-leave", next_hand_delay=30)
    await finish_by_autoplay(svc)
    await until(lambda: t.hand is None and t.row.hand_no == 1)
    await svc.leave(CH, BOB)
    await svc.leave(CH, ALICE)
    assert "Nobody is left: the table is closed" in notices(rec)[-1]
    assert "\n📋 **Recap** — ofc" in notices(rec)[-1]
    await store.close()


def test_the_lines_medals_ties_units_and_names_as_typed() -> None:
    svc_row = _row(stake=2)
    recap = TableRecap(hands=12, started=1_700_000_000.0, ended=1_700_003_600.0, players=(
        RecapRow(1, "Sam *the* <@5>", False, 12, 30, 60, 1, 2, 24, counted=12),
        RecapRow(2, "Ada (bot)", True, 12, 30, 0, 0, 0, 12, counted=12),
        RecapRow(3, "Kim", False, 12, -1, -2, 3, 0, 6, counted=12),
        RecapRow(4, "Lee", False, 5, -59, -58, 0, 0, 2, counted=5),
    ))
    lines = recap_lines(svc_row, recap, closed=True)
    assert lines[0] == ("📋 **Recap** — ofc, 2 units per point · 12 hands, <t:1700000000:f> to "
                        "<t:1700003600:t>")
    assert lines[1] == ("🥇 Sam \\*the\\* \\<\\@5\\> +30 points (+60 units) · 12 hands · "
                        "🌴 2 fantasylands · 1 foul · best hand +24")
    assert lines[2] == "🥇 Ada \\(bot\\) +30 points · 12 hands · best hand +12"  # (tied: shared)
    assert lines[3] == "🥉 Kim −1 point (−2 units) · 12 hands · 3 fouls · best hand +6"
    assert lines[4].startswith("4\\. Lee −59 points (−58 units) · 5 hands")  # ("4." would be a
    # list Discord numbers itself)
    assert not re.search(r"(?<!\\)<@", "\n".join(lines))  # (no mention left live)
    free = recap_lines(_row(stake=0), recap, closed=False)
    assert free[0].startswith("📋 **This table so far** — ofc, no units · ")
    assert "units)" not in "\n".join(free)
    practice = TableRecap(hands=3, started=1_700_000_000.0, ended=1_700_000_030.0, players=(
        RecapRow(1, "Sam", False, 3, 8, 0, 0, 0, 6), RecapRow(2, "Ada (bot)", True, 3, -8, 0,
                                                             0, 0, 2)))
    lines = recap_lines(_row(stake=2), practice, closed=True)
    assert lines[0] == "📋 **Recap** — ofc, practice, no units · 3 hands, <t:1700000030:f>"
    assert "unit" not in "\n".join(lines[1:])


def test_a_long_recap_counts_the_players_that_do_not_fit() -> None:
    players = tuple(RecapRow(k, f"player number {k:02d} " + "x" * 16, False, 3, 30 - k, 0, 0, 0,
                             5, counted=3) for k in range(30))
    recap = TableRecap(hands=40, started=1_700_000_000.0, ended=1_700_090_000.0, players=players)
    lines = recap_lines(_row(stake=1), recap, closed=True, limit=1500)
    assert len("\n".join(lines)) <= 1500
    assert lines[0].endswith("<t:1700000000:f> to <t:1700090000:f>")  # (over a day: its date)
    shown = len(lines) - 2
    assert lines[-1] == (f"… and {30 - shown} more players (`/ofc recap` lists them all)")
    assert len(recap_lines(_row(stake=1), recap, closed=True)) == 31  # (no limit: all)


def _row(stake: int) -> Any:
    from bot.store import TableRow

    return TableRow(id=1, guild_id=G, channel_id=CH, creator_id=ALICE,
                    rules={"variant": "ofc"}, stake=stake, buyin=100, max_seats=4,
                    status="open", button=0, hand_no=12, message_id=None, extra={},
                    created_at=0.0, updated_at=0.0, closed_at=None)


async def test_a_store_that_fails_does_not_stop_the_close(monkeypatch: Any) -> None:
    svc, rec, store, t = await heads_up("recap-fails", next_hand_delay=30)
    await finish_by_autoplay(svc)
    await until(lambda: t.hand is None and t.row.hand_no == 1)

    async def broken(table_id: int) -> Any:
        raise OSError("disk gone")

    monkeypatch.setattr(store, "table_recap", broken)
    text = await svc.close(CH, ALICE, False)
    assert text == "The table is closed; every stack went back to its owner's balance."
    assert t.id not in svc.tables
    await store.close()


async def test_make_is_quiet_without_hands() -> None:
    svc, rec, store = await make()
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    assert await svc.close(CH, ALICE, False) == (
        "The table is closed; every stack went back to its owner's balance.")
    await store.close()
