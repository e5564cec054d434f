"""An evening on a server, read as three players who have never used the bot (alice, bob,
carol): `/ofc help`, a pineapple table with stakes and a bot, a late joiner, hands played by
the panel and by `/ofc place` with the usual mistakes, a fantasyland, the review, history,
recap, stats, leaderboard and balance, leaving mid-hand, the table closing, and a chinese
table with a short stack (from a review of everything the bot shows them).

The tests that were ``xfail(strict=True)`` are problems a player saw (fixed since);
the passing tests pin what was checked and found right that no other test covers."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from engine.autoplay import choose_placement
from engine.notation import signed

from .conftest import World, make_world, panel_cards, table_of
from .fakediscord import FakeMessage, FakeUser

pytestmark = pytest.mark.e2e

ROWS = ("top", "middle", "bottom")


# --------------------------------------------------------------------------- helpers
def hand_seat(w: World, user: FakeUser) -> int | None:
    t = table_of(w)
    seat = t.seat_of_user(user.id)
    return None if seat is None or t.hand is None else t.hand_seat_of(seat.seat_no)


def humans_to_act(w: World, players: tuple[FakeUser, ...]) -> list[FakeUser]:
    t = table_of(w)
    if t.hand is None:
        return []
    ids = {t.seat_by_no(t.hand_seats[hs]).user_id for hs in t.hand.to_act()}
    return [u for u in players if u.id in ids]


def sensible_move(w: World, user: FakeUser) -> str:
    """The move a careful player would type: the plain autoplay's (no AI search)."""
    t = table_of(w)
    hs = hand_seat(w, user)
    assert hs is not None and t.hand is not None
    req = t.hand.requirement(hs)
    assert req is not None
    placed, discards = choose_placement(t.hand, hs, req, plain=True)
    return " ".join([f"{c} {ROWS[r]}" for c, r in placed] + [f"{c} discard" for c in discards])


async def play_out(w: World, players: tuple[FakeUser, ...]) -> None:
    """``players`` play the hand being played by text to its end (bots play on their own)."""
    number = table_of(w).row.hand_no
    for _ in range(400):
        t = table_of(w)
        if t.hand is None or t.row.hand_no != number:
            return
        acting = humans_to_act(w, players)
        if not acting:
            await asyncio.sleep(0.02)
            continue
        move = sensible_move(w, acting[0])
        r = await w.slash(acting[0], "ofc place", move=move)
        if not r.content.startswith("✅"):  # (a foul it could not avoid: played as asked)
            r = await w.slash(acting[0], "ofc place", move=move + " foul")
        assert r.content.startswith("✅"), r.content
    raise AssertionError("the hand did not end")


async def surrender(w: World, user: FakeUser) -> None:
    ask = await w.slash(user, "ofc surrender")
    r = await w.click(user, ask, label="Yes, surrender")
    assert "You surrendered" in r.content, r.content


async def showdown(w: World, number: int) -> FakeMessage:
    return await w.fake.wait_for_message(
        w.chan, lambda m: f"Showdown — hand #{number}**" in (m.content or ""),
        include_existing=True, timeout=20)


def line_of(text: str, name: str) -> str:
    return next(line for line in text.split("\n") if line.startswith(name + " — "))


def hand_seat_of_bot(w: World) -> int:
    t = table_of(w)
    (bot,) = t.bots
    hs = t.hand_seat_of(bot.seat_no)
    assert hs is not None
    return int(hs)


def table_messages(w: World) -> list[FakeMessage]:
    return [m for m in w.fake.messages(w.chan)
            if m.files and not m.ephemeral and "Showdown" not in (m.content or "")]


async def pineapple_with_a_bot(w: World) -> None:
    """alice opens a pineapple table at 2 units a point with an (easy) bot, bob sits down,
    the first hand is dealt; alice surrenders at once and bob plays it out. The bot is in
    fantasyland (14 cards): the exact solver sets its hand, clean, whatever the timing (its
    street moves are not reproducible), and nobody sees it before the showdown."""
    await w.start_bot()
    await w.slash(w.alice, "ofc new", variant="pineapple", stake=2, bots=1, level="easy")
    await w.slash(w.bob, "ofc join")
    t = table_of(w)
    await w.store.update_table(t.id, extra={**t.row.extra, "fantasyland": {"1": 14}})
    await w.service._refresh(t)
    await w.slash(w.alice, "ofc start")
    assert table_of(w).hand.fantasyland[hand_seat_of_bot(w)] == 14
    await surrender(w, w.alice)
    await play_out(w, (w.bob,))


async def chinese_with_a_short_stack(w: World) -> FakeMessage:
    """A chinese table at 10 units a point: bob brought 20 units, surrenders hand #1 (3
    points to each of two opponents: 60 units he does not have), alice and carol set theirs.
    Returns hand #1's showdown (hand #2 is dealt to alice and carol after it)."""
    await w.start_bot()
    await w.slash(w.alice, "ofc new", variant="chinese", stake=10, buyin=100)
    await w.slash(w.bob, "ofc join", buyin=20)
    await w.slash(w.carol, "ofc join")
    await w.slash(w.alice, "ofc start")
    await surrender(w, w.bob)
    await play_out(w, (w.alice, w.carol))
    return await showdown(w, 1)


# --------------------------------------------------------------------------- problems
async def test_an_emptied_stack_is_not_promised_the_next_hand(tmp_path: Any) -> None:
    """Was a problem (fixed): bob's 20 units went to alice and carol in hand #1 (the showdown pinged him: "your stack
    is empty, so you sit the next hands out. `/ofc join` buys in again"). During hand #2 he
    presses `/ofc hand` and reads "You are not in this hand; you will be dealt in the next
    one." — false: nothing is dealt to him until `/ofc join`. The table message says the same
    ("bob — ... · stack 0 · next hand"). Both come from code that never asks whether the seat
    can pay: ``TableService._not_in_hand`` (bot/service.py) and the status of a seat not in
    the hand in ``presenter.table_view`` (cogs/presenter.py)."""
    async with make_world(tmp_path, seed_factory=lambda: "ev-broke", next_hand_delay=0.2) as w:
        await chinese_with_a_short_stack(w)
        await w.fake.wait_until(lambda: table_of(w).hand is not None
                                and table_of(w).row.hand_no == 2, 10, "hand #2")
        t = table_of(w)
        assert t.seat_of_user(w.bob.id).stack == 0 and hand_seat(w, w.bob) is None
        r = await w.slash(w.bob, "ofc hand")
        assert "`/ofc join`" in r.content, r.content
        assert "dealt in the next one" not in r.content, r.content
        await w.fake.wait_until(lambda: "Hand 2" in (table_messages(w)[-1].content or ""), 5,
                                "the table message of hand #2")
        text = table_messages(w)[-1].content or ""
        bob = next(line for line in text.split("\n") if line.startswith("bob — "))
        assert "next hand" not in bob, bob


async def test_the_showdown_says_which_points_moved_units_at_a_table_with_a_bot(
    tmp_path: Any,
) -> None:
    """Was a problem (fixed): alice surrenders hand #1 at a pineapple table at 2 units a point with a bot and bob.
    The showdown reads "alice — ... surrendered · total −26 points, −12 units": her points
    against the bot are in the total but move no units, so the total times the stake is not
    her units, and nothing in the showdown (text or picture) says why; bob, who also lost
    points, has won units ("total −14 points, +12 units"). `/ofc history` says it: "-26 pts,
    -12 u, -6 vs humans". The showdown's line (renderer/showdown.py ``describe_showdown``,
    the totals) should too, or say that results against a bot move no units."""
    async with make_world(tmp_path, seed_factory=lambda: "ev-bot-units") as w:
        await pineapple_with_a_bot(w)
        sd = await showdown(w, 1)
        text = sd.content or ""
        res = table_of(w).last_result
        i = res.names.index("alice")
        assert not res.settlement.fouled[res.names.index("Ada (bot)")]
        assert res.units[i] != 2 * res.settlement.totals[i], (res.units, res.settlement.totals)
        alice = line_of(text.split("\n", 2)[2], "alice")
        assert "vs humans" in alice or re.search(r"no units|points only", text), text


async def test_the_recap_and_the_stats_do_not_give_two_different_point_totals(
    tmp_path: Any,
) -> None:
    """Was a problem (fixed): The same hand, the same player, two numbers both called "points": the recap
    (bot/service.py ``recap_lines``) sums every result, bots' included; the stats and the
    leaderboard only those against humans (README: bots "count in no leaderboard or stats").
    A player comparing them cannot tell which is right. The recap should say which points it
    counts (e.g. "-6 vs humans", as `/ofc history`)."""
    async with make_world(tmp_path, seed_factory=lambda: "ev-bot-units") as w:
        await pineapple_with_a_bot(w)
        await showdown(w, 1)
        recap = (await w.slash(w.alice, "ofc recap")).content or ""
        stats = (await w.slash(w.alice, "ofc stats")).content or ""
        line = next(x for x in recap.split("\n") if " alice " in x)
        recap_points = int(re.search(r" ([+-]?\d+) points?", line.replace("−", "-"))  # type: ignore[union-attr]
                           .group(1))
        stats_points = int(re.search(r", ([+−-]\d+) points", stats).group(1)  # type: ignore[union-attr]
                           .replace("−", "-"))
        res = table_of(w).last_result
        assert not res.settlement.fouled[res.names.index("Ada (bot)")]  # (it cost her points)
        rest = "\n".join(x for x in recap.split("\n") if "Ada" not in x)
        assert (recap_points == stats_points or "vs humans" in line
                or re.search(r"\bbots?\b", rest)), (recap, stats)


async def test_the_showdown_explains_units_cut_by_a_short_stack(tmp_path: Any) -> None:
    """Was a problem (fixed): bob brought 20 units to a table at 10 units a point and surrenders (3 points to each
    of alice and carol: 60 units). RULES.md's proportional rule splits his 20 between them,
    10 each, and alice loses 4 points (40 units) to carol, so the showdown reads "alice — ...
    total −1 point, −30 units" and "carol — ... total +7 points, +50 units": a player who
    lost one point at 10 units a point has lost 30 units, and the only hint is the ping
    "💸 @bob: your stack is empty". The showdown (cogs/presenter.py ``showdown_lines``, the
    totals of renderer/showdown.py ``describe_showdown``) should say that bob paid all he had
    (20 units) and how it was shared, or the units look wrong."""
    async with make_world(tmp_path, seed_factory=lambda: "ev-broke") as w:
        sd = await chinese_with_a_short_stack(w)
        res = table_of(w).last_result
        pairs = list(zip(res.settlement.totals, res.units, strict=True))
        assert any(u != 10 * p for p, u in pairs), pairs  # the cap did cut someone's units
        text = "\n".join(x for x in (sd.content or "").split("\n") if not x.startswith("💸"))
        assert re.search(r"stack|proportion|all (he|they) had|could (only )?pay", text), text


async def test_the_chinese_showdown_does_not_call_a_point_a_unit(tmp_path: Any) -> None:
    """Was a problem (fixed): On Discord "units" are what a player wins or loses (points × stake): the showdown's
    totals say "−30 units". Its pair line for alice and carol reads "rows lost/lost/lost for
    alice (...) −3; overall unit −1 → carol +4" (renderer/showdown.py ``pair_items``): that
    "unit" is one point (10 units here). `/ofc rules` says it right: "+1 overall for winning
    more rows"."""
    async with make_world(tmp_path, seed_factory=lambda: "ev-broke") as w:
        sd = await chinese_with_a_short_stack(w)
        pairs = [x for x in (sd.content or "").split("\n") if " vs " in x]
        assert any("overall" in x for x in pairs), pairs
        assert not any("unit" in x for x in pairs), pairs


async def test_a_tie_on_the_leaderboard_is_not_renumbered_by_discord(tmp_path: Any) -> None:
    """Was a problem (fixed): After one hand alice and bob have played one hand each: `/ofc leaderboard by:hands`
    draws both at rank 1, but its text is "1. alice — ...\\n1. bob — ..." — a Markdown
    ordered list, which Discord numbers itself from the first item (1., 2.). The recap met
    the same problem and writes its places as "4\\." (bot/service.py ``recap_lines``); the
    leaderboard's text (renderer/leaderboard.py ``describe_leaderboard``) does not."""
    async with make_world(tmp_path, seed_factory=lambda: "ev-tie") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", stake=1)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        await surrender(w, w.alice)
        await surrender(w, w.bob)
        await showdown(w, 1)
        lb = await w.slash(w.carol, "ofc leaderboard", by="hands")
        text = lb.content or ""
        assert not re.search(r"(?m)^\d+\. ", text), text


async def test_the_chinese_review_speaks_of_points_not_units(tmp_path: Any) -> None:
    """Was a problem (fixed): On Discord, "units" are the money (points × stake); the review's numbers are points
    (its summary says so, and they do not change with the stake). Its note for a chinese set
    (engine/review.py ``_judge_chinese``: "a setting is worth the units it is expected to win
    from a typical opponent") calls them units: at this table of 2 units a point a player
    would read the values as half what they are."""
    async with make_world(tmp_path, seed_factory=lambda: "ev-chinese-review") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", stake=2)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        await play_out(w, (w.alice, w.bob))
        await showdown(w, 1)
        r = await w.slash(w.bob, "ofc review")
        text = "\n".join(m.content or "" for m in r.messages)
        assert "points" in text, text
        assert "unit" not in text, text


async def test_one_unit_is_singular(tmp_path: Any) -> None:
    """Was a problem (fixed): Everywhere else the bot writes "1 unit" (``plural``); the join notice (cogs/ofc.py,
    ``OFC.join``) and the leave answer (bot/service.py ``TableService.leave``) format
    ``{n} units`` by hand."""
    async with make_world(tmp_path) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        joined = await w.slash(w.bob, "ofc join", buyin=1)
        left = await w.slash(w.bob, "ofc leave")
        assert "sat down with 1 unit." in joined.content, joined.content
        assert "1 unit returned" in left.content, left.content


async def test_one_point_is_singular_in_the_stats_and_the_leaderboard(tmp_path: Any) -> None:
    """Was a problem (fixed): The recap of the same table says "alice -1 point (-30 units)"; the stats' text
    (renderer ``describe_stats``) and the leaderboard's (renderer/leaderboard.py
    ``describe_leaderboard``: ``f"{signed(r.points)} points"``) always write "points"."""
    async with make_world(tmp_path, seed_factory=lambda: "ev-broke") as w:
        await chinese_with_a_short_stack(w)
        recap = await w.slash(w.alice, "ofc recap")
        assert "alice −1 point (−30 units)" in recap.content, recap.content
        stats = await w.slash(w.alice, "ofc stats")
        board = await w.slash(w.alice, "ofc leaderboard", by="points")
        alice = next(x for x in (board.content or "").split("\n") if " alice — " in x)
        assert "1 points" not in stats.content, stats.content
        assert "1 points" not in alice, alice


async def test_the_channel_history_marks_a_practice_hand(tmp_path: Any) -> None:
    """Was a problem (fixed): alice plays a bot alone at a table of 2 units a point: the hand is practice (no
    units). `/ofc history mine` says "-6 pts (practice)"; `/ofc history` in the channel
    (cogs/ofc.py ``OFC.history``, ``result_summary`` without its ``practice`` word) gives the
    points alone, so the hand reads as one whose units were simply left out."""
    async with make_world(tmp_path, seed_factory=lambda: "ev-practice") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="pineapple", stake=2, bots=1, level="easy")
        await w.slash(w.alice, "ofc start")
        await surrender(w, w.alice)
        await showdown(w, 1)
        mine = await w.slash(w.alice, "ofc history", mine=True)
        assert "(practice)" in mine.content, mine.content
        here = await w.slash(w.alice, "ofc history")
        line = next(x for x in here.content.split("\n") if x.startswith("**#1**"))
        assert "practice" in line, line


async def test_a_miscounted_fantasyland_hand_is_told_both_sizes(tmp_path: Any) -> None:
    """Was a problem (fixed): A player copying an ofc fantasyland hand drops a card: the answer names only
    pineapple's sizes (bot/service.py ``TableService.solve`` picks pineapple for anything
    but 13 cards, then reports that game's size), so it reads as if 13 cards were wrong too."""
    async with make_world(tmp_path) as w:
        await w.start_bot()
        r = await w.slash(w.carol, "ofc suggest", cards="Qh Qd Qs Kh Kd Ks 4c 3d 9c Tc Jc 2c")
        assert r.ephemeral
        assert "13" in r.content, r.content


# --------------------------------------------------------------------------- what works
async def test_a_late_joiner_and_the_mistakes_of_a_first_evening_are_answered_clearly(
    tmp_path: Any,
) -> None:
    """alice plays her bot alone (practice), bob sits down during that hand and is told he
    plays the next one; in hand #2 each typing mistake gets a private answer that names the
    problem and changes nothing, and acting out of turn names whose turn it is."""
    async with make_world(tmp_path, seed_factory=lambda: "ev-mistakes",
                          next_hand_delay=0.2) as w:
        await w.start_bot()
        r = await w.slash(w.alice, "ofc new", variant="pineapple", stake=2, bots=1,
                          level="easy")
        assert "2 units per point" in r.content and "Practice table" in r.content
        await w.slash(w.alice, "ofc start")
        r = await w.slash(w.bob, "ofc join")
        assert not r.ephemeral and "sat down with 200 units" in r.content
        for cmd, opts in (("ofc hand", {}), ("ofc place", {"move": "Ah top"})):
            r = await w.slash(w.bob, cmd, **opts)
            assert r.ephemeral and "dealt in the next one" in r.content, r.content
        await surrender(w, w.alice)
        await showdown(w, 1)
        await w.fake.wait_until(lambda: table_of(w).hand is not None
                                and table_of(w).row.hand_no == 2, 10, "hand #2")
        t = table_of(w)
        assert not t.practice
        (first,) = humans_to_act(w, (w.alice, w.bob))
        other = w.alice if first is w.bob else w.bob
        r = await w.slash(other, "ofc place", move="Ah top")
        assert r.ephemeral and f"It is {first.name}'s turn" in r.content, r.content
        panel = await w.slash(first, "ofc hand")
        cards = panel_cards(panel.content)
        absent = next(c for c in ("As", "Ks", "Qs", "Js", "Ts", "2c") if c not in cards)
        before = t.hand.to_json()
        for move, said in (
            (f"{cards[0]}x top", f"'{cards[0]}x' is not a card"),
            (f"{cards[0]} topp", "'topp' is not a row"),
            (f"{absent} top", f"{absent} is not in your hand: you have {' '.join(cards)}"),
            (" ".join(cards) + " top", "The top row has room for 3 more cards, not 5"),
            (f"{cards[0]} bottom", "You must place 5 of"),
            (f"{cards[0]} bottom {cards[0]} middle", f"{cards[0]} is written twice"),
        ):
            r = await w.slash(first, "ofc place", move=move)
            assert r.ephemeral and r.content.startswith("⚠️") and said in r.content, (
                move, r.content)
        assert table_of(w).hand.to_json() == before  # nothing was played
        w.fake.assert_clean()


async def test_a_fantasyland_by_dm_with_a_foul_warning_stays_private_to_its_player(
    tmp_path: Any,
) -> None:
    """alice's 15-card fantasyland comes by DM: a fouling set from the DM panel is warned
    first and played at the second Confirm; the table shows only "15 cards face down" and
    then "13"; bob (who cannot use `/ofc suggest` at stakes) never sees her cards before the
    showdown nor her discards at all, not in the replay either."""
    async with make_world(tmp_path, seed_factory=lambda: "ev-fl", next_hand_delay=60) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="pineapple", stake=2, bots=1, level="easy")
        await w.slash(w.bob, "ofc join")
        t = table_of(w)
        await w.store.update_table(t.id, extra={"fantasyland": {"0": 15}})
        await w.service._refresh(t)
        await w.slash(w.alice, "ofc start")
        dm = await w.fake.wait_for_message(w.alice, lambda m: "Fantasyland!" in (m.content or ""),
                                           include_existing=True)
        cards = panel_cards(dm.content)
        assert len(cards) == 15 and dm.files

        def hidden() -> bool:  # (the table message may not be posted yet: none is no match)
            msgs = table_messages(w)
            return bool(msgs) and "15 cards face down" in (msgs[-1].content or "")

        await w.fake.wait_until(hidden, 5, "the table shows her 15 cards hidden")
        r = await w.slash(w.bob, "ofc suggest")
        assert "Suggestions are for practice tables and fantasyland hands only" in r.content
        sel = dm.selects()[0]["custom_id"]
        for chunk, row in ((cards[:3], "Top"), (cards[3:8], "Middle"), (cards[8:13], "Bottom"),
                           (cards[13:], "Discard")):
            await w.select(w.alice, dm, sel, chunk)
            await w.click(w.alice, dm, label=row)
        r = await w.click(w.alice, dm, label="Confirm")
        assert "This board fouls" in r.content and "press **Confirm** again" in r.content
        r = await w.click(w.alice, dm, label="Confirm")
        assert "Your hand is set" in r.content, r.content
        discards = set(cards[13:])

        def seen_by_bob() -> str:
            return "\n".join(m.text for m in w.fake.visible_to(w.bob))

        mine = {str(c) for c in t.hand.pending[hand_seat(w, w.bob)]}
        for c in set(cards) - mine:
            assert not re.search(rf"\b{c}\b", seen_by_bob()), c
        await play_out(w, (w.bob,))
        sd = await showdown(w, 1)
        r = await w.click(w.bob, sd, label="Replay")
        while True:
            nxt = [b for b in r.message.buttons()
                   if (b.get("label") or "").endswith("▶") and not b.get("disabled")
                   and (b.get("label") or "") != "▶"]
            if not nxt:
                break
            r = await w.click(w.bob, r, label=nxt[0]["label"])
        assert "the end of the hand" in r.content
        own_discards = {str(c) for c in table_of(w).last_result.settlement.boards[0].cards}
        assert not (discards & own_discards)
        for c in discards:
            assert not re.search(rf"\b{c}\b", seen_by_bob()), f"bob saw alice's discard {c}"
        w.fake.assert_clean()


async def test_leaving_mid_hand_then_the_last_human_gone_closes_with_a_recap(
    tmp_path: Any,
) -> None:
    """bob and alice ask to leave during hand #2 and surrender it: the channel is told
    without a ping, the hand is scored, the table message says closed (no button), the
    closing words carry a recap whose points add up to the hands' in `/ofc history`, and
    every unit is back in the balances."""
    async with make_world(tmp_path, seed_factory=lambda: "ev-leave", next_hand_delay=0.2) as w:
        await pineapple_with_a_bot(w)
        await showdown(w, 1)
        await w.fake.wait_until(lambda: table_of(w).hand is not None
                                and table_of(w).row.hand_no == 2, 10, "hand #2")
        for u in (w.bob, w.alice):
            r = await w.slash(u, "ofc leave")
            assert "You will leave after this hand" in r.content and "/ofc surrender" in r.content
        for u in (w.bob, w.alice):
            await surrender(w, u)
        closed = await w.fake.wait_for_message(
            w.chan, lambda m: "The table is closed" in (m.content or ""), include_existing=True,
            timeout=20)
        assert "📋 **Recap**" in closed.content and closed.pinged == []
        leaves = [m for m in w.fake.messages(w.chan) if "🚪" in (m.content or "")]
        assert leaves and all(m.pinged == [] for m in leaves)
        await w.fake.wait_until(lambda: any(
            "This table is closed" in (m.content or "") for m in table_messages(w)), 5, "marked")
        assert not any("Open my panel" in str(m.components) for m in table_messages(w))
        hist = await w.slash(w.alice, "ofc history")
        assert hist.content.startswith("The last table here (closed):")
        per_hand: dict[str, int] = {}
        for line in hist.content.split("\n"):
            for name, pts in re.findall(r"(alice|bob|Ada \(bot\)) ([+-]?\d+) pts?",
                                        line.replace("−", "-")):
                per_hand[name] = per_hand.get(name, 0) + int(pts)
        recap = closed.content.replace("\\(", "(").replace("\\)", ")")  # (as Discord shows it)
        assert set(per_hand) == {"alice", "bob", "Ada (bot)"}
        for name, pts in per_hand.items():
            assert re.search(re.escape(f"{name} {signed(pts)} point"), recap), (name, pts, recap)
        for u in (w.alice, w.bob):
            assert (await w.store.balance(w.guild.id, u.id)) + (
                await w.store.balance(w.guild.id, w.alice.id if u is w.bob else w.bob.id)
            ) == 2000
        assert await w.store.verify_ledger() == []
