"""A review of classic (closed) Chinese poker in the bot, end to end, as 2-4 players play it in
Discord: the set panel, whole sets by text, fouls, naturals, surrenders, the set clock, stakes
and stack caps, history/stats/leaderboard, hidden sets, bots and restarts."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import pytest

from engine import parse_cards

from .conftest import World, hs_of, make_world, panel_cards, table_of
from .fakediscord import FakeUser

pytestmark = pytest.mark.e2e

# a 4-player deck, dealt from the left of the button (bob, carol, dave, then alice)
BOB_DRAGON = "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac"
CAROL = "2s 3s 4d 4s 5c 5d 6s 7s 8s 9h Ts Js Qs"
DAVE = "As Ad 4c Kc Kh 2h 3h 6d 9d Jh Qd Qc 6h"
ALICE = "2d 3c 5h 7c 7h 9c Jc Kd Td Th 8c 8d Ah"
# dave's set fouls (top AA beats middle KK); alice's is clean and earns no bonus
DAVE_FOUL = "As Ad 4c top Kc Kh 2h 3h 6d middle 9d Jh Qd Qc 6h bottom"
ALICE_SET = "2d 3c 5h top 7c 7h 9c Jc Kd middle Td Th 8c 8d Ah bottom"


def dealt(w: World, user: FakeUser) -> set[str]:
    t = table_of(w)
    return {str(c) for c in t.hand.pending[hs_of(w, user)]}


async def wait_showdown(w: World, hand_no: int = 1, timeout: float = 20) -> Any:
    return await w.fake.wait_for_message(
        w.chan, lambda m: f"Showdown — hand #{hand_no}" in (m.content or ""), timeout=timeout,
        include_existing=True)


async def surrender(w: World, user: FakeUser) -> Any:
    ask = await w.slash(user, "ofc surrender")
    assert ask.ephemeral and "cannot be taken back" in ask.content
    return await w.click(user, ask, label="Yes, surrender")


def visible(w: World, user: FakeUser, since: int = 0) -> str:
    return "\n".join(m.text for m in w.fake.visible_to(user) if m.id > since)


def assert_unseen(w: World, user: FakeUser, cards: set[str], since: int = 0,
                  until: int | None = None) -> None:
    text = "\n".join(m.text for m in w.fake.visible_to(user)
                     if m.id > since and (until is None or m.id < until))
    for c in cards:
        assert not re.search(rf"\b{c}\b", text), f"{user.name} saw {c}"


def last_id(w: World) -> int:
    return max((m.id for m in w.fake.messages()), default=0)


def whole_set(cards: list[str]) -> str:
    """A legal-ish set: the first 5 bottom, the next 5 middle, the last 3 top (may foul)."""
    return (" ".join(cards[:5]) + " bottom " + " ".join(cards[5:10]) + " middle "
            + " ".join(cards[10:]) + " top")


async def four_at_chinese(w: World, deck: str | None = None, stake: int = 10,
                          dave_buyin: int | None = None, **options: Any) -> Any:
    await w.start_bot()
    await w.slash(w.alice, "ofc new", variant="chinese", stake=stake, **options)
    await w.slash(w.bob, "ofc join")
    await w.slash(w.carol, "ofc join")
    if dave_buyin is None:
        await w.slash(w.dave, "ofc join")
    else:
        r = await w.slash(w.dave, "ofc join", buyin=dave_buyin)
        assert f"{dave_buyin} units" in r.content, r.content
    await w.slash(w.alice, "ofc start")
    await w.fake.wait_until(lambda: table_of(w).hand is not None, 5, "the deal")
    return table_of(w)


def four_deck(_t: Any) -> list[Any]:
    return parse_cards(" ".join((BOB_DRAGON, CAROL, DAVE, ALICE)))


# --------------------------------------------------------------------------- 4 players
async def test_natural_surrender_foul_and_set_among_four_with_a_short_stack(
    tmp_path: Any, caplog: Any
) -> None:
    """bob declares a dragon, carol surrenders, dave's set fouls (he asked for `foul`), alice
    sets a plain hand; stake 10; dave brought only 50 units.  Points: bob +29 (13 + 3 + 13),
    carol -9, dave -14 (-13 + 3 - 4), alice -6.  Units: dave's 140 are capped at his 50 plus
    the 30 he won from carol; bob and alice share the 80 in proportion (130:40 -> 61:18, the
    remainder unit to bob, the first creditor left of the button)."""
    caplog.set_level(logging.WARNING)
    async with make_world(tmp_path, seed_factory=lambda: "cr-four",
                          deck_factory=four_deck) as w:
        t = await four_at_chinese(w, dave_buyin=50)
        assert dealt(w, w.bob) == set(BOB_DRAGON.split())
        assert dealt(w, w.alice) == set(ALICE.split())
        mark = last_id(w)
        secrets = {u.name: dealt(w, u) for u in (w.alice, w.bob, w.carol, w.dave)}
        # bob declares; the answer is private and names no card
        r = await w.slash(w.bob, "ofc declare", natural="dragon")
        assert r.ephemeral and "declared dragon" in r.content
        # carol surrenders: it says what it costs
        r = await surrender(w, w.carol)
        assert "pay 3" in r.content
        # dave's fouling set is refused until he says `foul`
        r = await w.slash(w.dave, "ofc place", move=DAVE_FOUL)
        assert r.ephemeral and "foul" in r.content.lower() and "set" not in r.content.split()[0]
        assert table_of(w).hand.may_act(hs_of(w, w.dave))
        r = await w.slash(w.dave, "ofc place", move=DAVE_FOUL + " foul")
        assert r.ephemeral and "Your hand is set" in r.content
        await asyncio.sleep(0.3)
        before_show = last_id(w)
        for who in (w.alice, w.bob, w.carol, w.dave):
            for owner, cards in secrets.items():
                if owner != who.name:
                    assert_unseen(w, who, cards, since=mark)
        r = await w.slash(w.alice, "ofc place", move=ALICE_SET)
        assert r.ephemeral and "Your hand is set" in r.content
        show = await wait_showdown(w)
        assert show.id > before_show and show.files
        text = show.content
        # carol's cards are never shown to anyone else, at the showdown either
        for who in (w.alice, w.bob, w.dave):
            assert_unseen(w, who, secrets["carol"], since=mark)
        assert "declared dragon" in text
        res = t.last_result
        points = dict(zip(res.names, res.settlement.totals, strict=True))
        assert points == {"bob": 29, "carol": -9, "dave": -14, "alice": -6}, points
        units = dict(zip(res.names, res.units, strict=True))
        assert sum(units.values()) == 0
        assert units == {"bob": 222, "carol": -90, "dave": -50, "alice": -82}, units
        # the text says what moved
        assert re.search(r"dave — .*total [−-]14 points, [−-]50 units", text), text
        assert re.search(r"bob — .*total \+29 points, \+222 units", text), text
        assert await w.store.stack(t.id, w.dave.id) == 0
        # history, stats and the leaderboard after the hand
        r = await w.slash(w.alice, "ofc history")
        assert r.ephemeral
        assert "bob +29 pts, +222 u (dragon)" in r.content, r.content
        assert "carol −9 pts, −90 u (surrendered)" in r.content, r.content
        assert "dave −14 pts, −50 u (foul)" in r.content, r.content
        r = await w.slash(w.carol, "ofc stats")
        assert "fouls 0%" in r.content, r.content  # a surrender is no foul
        r = await w.slash(w.dave, "ofc stats")
        assert "fouls 100%" in r.content, r.content
        r = await w.slash(w.alice, "ofc leaderboard")
        board = "\n".join([r.content or "", *(m.content or "" for m in r.followups)])
        assert board.index("bob") < board.index("alice"), board
        assert await w.store.verify_ledger() == []
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        w.fake.assert_clean()


# --------------------------------------------------------------------------- 2 players
DRAGON_A = "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac"
DRAGON_B = "2d 3h 4s 5c 6d 7h 8s 9c Td Jh Qs Kc Ad"


def two_dragons(_t: Any) -> list[Any]:
    return parse_cards(DRAGON_A + " " + DRAGON_B)


async def two_at_chinese(w: World, stake: int = 1, **options: Any) -> Any:
    await w.start_bot()
    await w.slash(w.alice, "ofc new", variant="chinese", stake=stake, **options)
    await w.slash(w.bob, "ofc join")
    await w.slash(w.alice, "ofc start")
    await w.fake.wait_until(lambda: table_of(w).hand is not None, 5, "the deal")
    return table_of(w)


async def test_set_panel_selects_rows_undo_confirm_and_foul_asked_once(
    tmp_path: Any, caplog: Any
) -> None:
    caplog.set_level(logging.WARNING)
    async with make_world(tmp_path, seed_factory=lambda: "cr-panel") as w:
        t = await two_at_chinese(w)
        mark = last_id(w)
        rec = await w.slash(w.bob, "ofc hand")
        assert rec.ephemeral
        cards = panel_cards(rec.content)
        assert len(cards) == 13 and set(cards) == dealt(w, w.bob)
        assert rec.message.button("Confirm").get("disabled")
        from engine.hand import Hand
        copy = Hand.from_json(t.hand.to_json())  # the bot's own set, found on a copy
        move = copy.autoplay(hs_of(w, w.bob))
        rows: dict[int, list[str]] = {0: [], 1: [], 2: []}
        for c, r in move.placements:
            rows[r].append(str(c))
        for row, label in ((2, "Bottom"), (1, "Middle")):
            sel = rec.message.selects()[0]["custom_id"]
            rec = await w.select(w.bob, rec, sel, rows[row])
            rec = await w.click(w.bob, rec, label=label)
        # Undo takes the middle back as a whole; the menu offers those cards again
        rec = await w.click(w.bob, rec, label="Undo")
        offered = {o["value"] for o in rec.message.selects()[0]["options"]}
        assert offered == set(rows[1]) | set(rows[0])
        # a row takes no more than it holds
        sel = rec.message.selects()[0]["custom_id"]
        rec = await w.select(w.bob, rec, sel, rows[1] + rows[0][:1])
        err = await w.click(w.bob, rec, label="Middle")
        assert err.ephemeral and "room for 5 more cards, not 6" in err.content, err.content
        rec = await w.click(w.bob, rec, label="Undo")  # (drops the selection)
        sel = rec.message.selects()[0]["custom_id"]
        rec = await w.select(w.bob, rec, sel, rows[1])
        rec = await w.click(w.bob, rec, label="Middle")
        sel = rec.message.selects()[0]["custom_id"]
        rec = await w.select(w.bob, rec, sel, rows[0])
        rec = await w.click(w.bob, rec, label="Top")
        assert not rec.message.button("Confirm").get("disabled")
        rec = await w.click(w.bob, rec, label="Confirm")
        assert "✅" in rec.content and not rec.message.components
        assert t.hand.done[hs_of(w, w.bob)]
        # alice arranges a fouling set in her panel: asked once, played at the second Confirm
        rec = await w.slash(w.alice, "ofc hand")
        mine = panel_cards(rec.content)
        from engine import Card
        ranked = sorted(mine, key=lambda c: Card(c).rank, reverse=True)
        top, middle, bottom = ranked[:3], ranked[3:8], ranked[8:]  # high cards on top
        for chunk, label in ((top, "Top"), (middle, "Middle"), (bottom, "Bottom")):
            sel = rec.message.selects()[0]["custom_id"]
            rec = await w.select(w.alice, rec, sel, chunk)
            rec = await w.click(w.alice, rec, label=label)
        panel_msg = rec
        rec = await w.click(w.alice, panel_msg, label="Confirm")
        assert "This board fouls" in rec.content and "press **Confirm** again" in rec.content
        rec = await w.click(w.alice, panel_msg, label="Confirm")
        show = await wait_showdown(w)
        # nothing of either set was in the channel before the showdown
        for who in (w.alice, w.bob):
            other = w.bob if who is w.alice else w.alice
            cards_ = set(mine) if other is w.alice else set(cards)
            assert_unseen(w, who, cards_, since=mark, until=show.id)
        res = t.last_result
        assert res.settlement.fouled == [True, False] or res.settlement.fouled == [False, True]
        assert sum(res.units) == 0
        assert await w.store.verify_ledger() == []
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        w.fake.assert_clean()


async def test_natural_values_changed_during_a_hand_apply_from_the_next(tmp_path: Any) -> None:
    """dragon=0 during hand 1: hand 1 still plays its dragon; in hand 2 the dragon is not a
    natural any more and declaring it is refused, at no cost."""
    async with make_world(tmp_path, seed_factory=lambda: "cr-opts", deck_factory=two_dragons,
                          next_hand_delay=0.2) as w:
        t = await two_at_chinese(w, stake=2)
        r = await w.slash(w.alice, "ofc options", dragon=0, six_pairs=5)
        assert not r.ephemeral and "natural dragon: 13 → off" in r.content, r.content
        first = next(u for u in (w.alice, w.bob) if dealt(w, u) == set(DRAGON_A.split()))
        second = w.bob if first is w.alice else w.alice
        r = await w.slash(first, "ofc declare", natural="dragon")
        assert r.ephemeral and "declared dragon" in r.content, r.content
        r = await w.slash(second, "ofc place", move=whole_set(panel_cards(
            (await w.slash(second, "ofc hand")).content)) + " foul")
        await wait_showdown(w)
        res = t.last_result
        pts = dict(zip(res.names, res.settlement.totals, strict=True))
        assert pts[first.name] == 13, pts
        await w.fake.wait_until(lambda: table_of(w).hand is not None
                                and table_of(w).row.hand_no == 2, 10, "hand 2")
        holder = next(u for u in (w.alice, w.bob) if len({c[0] for c in dealt(w, u)}) == 13)
        r = await w.slash(holder, "ofc declare", natural="dragon")
        assert r.ephemeral and "not a natural at this table" in r.content, r.content
        assert table_of(w).hand.may_act(hs_of(w, holder))
        r = await w.slash(w.alice, "ofc rules")
        assert "dragon" not in r.content and "six pairs 5" in r.content, r.content
        w.fake.assert_clean()


async def test_the_set_clock_declares_a_natural_worth_more(tmp_path: Any, caplog: Any) -> None:
    """The set clock is 120 s; when it runs out, a held dragon is declared for the player (it
    is worth more than any set), the other player's hand is set by the bot, the players sit
    out, and nothing of the sets shows before the showdown."""
    caplog.set_level(logging.WARNING)

    def deck(_t: Any) -> list[Any]:
        return parse_cards(DRAGON_A)  # the first dealt (left of the button) holds a dragon

    async with make_world(tmp_path, seed_factory=lambda: "cr-clock", deck_factory=deck) as w:
        t = await two_at_chinese(w, stake=1)
        holder = next(u for u in (w.alice, w.bob) if dealt(w, u) == set(DRAGON_A.split()))
        hs = hs_of(w, holder)
        deadline = t.deadlines[hs]
        assert 115 <= deadline - w.clock() <= 121, deadline - w.clock()
        rec = await w.slash(holder, "ofc hand")
        assert "time runs out" in rec.content
        w.clock.offset += 60
        w.service.rearm()
        await asyncio.sleep(0.3)
        assert t.hand is not None and not t.hand.done[hs]  # not yet
        w.clock.offset += 61
        w.service.rearm()
        show = await wait_showdown(w)
        note = next(m for m in w.fake.messages(w.chan) if "Time ran out" in (m.content or ""))
        assert note.id < show.id
        for c in DRAGON_A.split():
            assert not re.search(rf"\b{c}\b", note.content)
        res = t.last_result
        assert res.settlement.naturals[hs] == "dragon"
        assert res.settlement.totals[hs] == 13
        # (sat out by the clock's task just after the move it played: the showdown it ended
        # is posted by another, so under load it can come first)
        await w.fake.wait_until(lambda: all(s.sitting_out for s in t.seats), 10, "sat out")
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        w.fake.assert_clean()


BIG = "2c 2d 2h 9s 9h 9d 9c 3s Tc Jc Qc Kc Ac"
BIG_SET = "2c 2d 2h top 9s 9h 9d 9c 3s middle Tc Jc Qc Kc Ac bottom"
SMALL = "4c 5d 7h 3c 3d 8s 6h 4s Kd Kh 8d 6d 5s"
SMALL_SET = "4c 5d 7h top 3c 3d 8s 6h 4s middle Kd Kh 8d 6d 5s bottom"


async def test_bonuses_and_scoring_options_between_hands(tmp_path: Any, caplog: Any) -> None:
    """Top trips, middle quads and a bottom royal win 3 + 8 + 5 in bonuses: 17 with the overall
    unit (2-4), 19 after `scoring=1-6` (a scoop +3), 4 after `bonuses=false scoring=2-4`; each
    change made during a hand applies from the next; units are points x stake."""
    caplog.set_level(logging.WARNING)

    def deck(_t: Any) -> list[Any]:
        return parse_cards(BIG + " " + SMALL)

    async with make_world(tmp_path, seed_factory=lambda: "cr-bonus", deck_factory=deck,
                          next_hand_delay=0.2) as w:
        t = await two_at_chinese(w, stake=3)
        expected = {1: 17, 2: 19, 3: 4}
        changes = {1: {"scoring": "1-6"}, 2: {"bonuses": False, "scoring": "2-4"}}
        for hand_no in (1, 2, 3):
            await w.fake.wait_until(lambda n=hand_no: table_of(w).hand is not None
                                    and table_of(w).row.hand_no == n, 10, "the deal")
            if hand_no in changes:
                r = await w.slash(w.alice, "ofc options", **changes[hand_no])
                assert "from the next hand" in r.content, r.content
            big = next(u for u in (w.alice, w.bob) if dealt(w, u) == set(BIG.split()))
            small = w.bob if big is w.alice else w.alice
            bal = {u.name: await w.store.stack(t.id, u.id) for u in (w.alice, w.bob)}
            r = await w.slash(small, "ofc place", move=SMALL_SET)
            assert "Your hand is set" in r.content, r.content
            r = await w.slash(big, "ofc place", move=BIG_SET)
            assert "Your hand is set" in r.content, r.content
            show = await wait_showdown(w, hand_no)
            res = t.last_result
            pts = dict(zip(res.names, res.settlement.totals, strict=True))
            assert pts == {big.name: expected[hand_no], small.name: -expected[hand_no]}, (
                hand_no, pts, show.content)
            assert await w.store.stack(t.id, big.id) == bal[big.name] + 3 * expected[hand_no]
            assert await w.store.stack(t.id, small.id) == bal[small.name] - 3 * expected[hand_no]
        r = await w.slash(w.bob, "ofc history")
        assert r.content.count("pts") == 6 and "#3" in r.content and "#1" in r.content
        assert await w.store.verify_ledger() == []
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        w.fake.assert_clean()




async def test_restart_mid_set_keeps_drafts_a_natural_and_the_surrender_question(
    tmp_path: Any, caplog: Any
) -> None:
    """The bot stops while the sets are made: bob declared, dave set, alice has half a set
    in her panel, carol was asked about surrendering.  After the restart alice's draft is
    there, the clock keeps its deadline, carol's question still works, and the hand ends as
    it would have (the 4-player test's result)."""
    caplog.set_level(logging.WARNING)
    async with make_world(tmp_path, seed_factory=lambda: "cr-restart",
                          deck_factory=four_deck) as w:
        t = await four_at_chinese(w, stake=10, dave_buyin=50)
        mark = last_id(w)
        secrets = {u.name: dealt(w, u) for u in (w.alice, w.bob, w.carol, w.dave)}
        await w.slash(w.bob, "ofc declare", natural="dragon")
        ask = await w.slash(w.carol, "ofc surrender")
        await w.slash(w.dave, "ofc place", move=DAVE_FOUL + " foul")
        rec = await w.slash(w.alice, "ofc hand")
        bottom = "Td Th 8c 8d Ah".split()
        rec = await w.select(w.alice, rec, rec.message.selects()[0]["custom_id"], bottom)
        rec = await w.click(w.alice, rec, label="Bottom")
        deadline = t.deadlines[hs_of(w, w.alice)]
        await w.stop_bot()
        w.clock.offset += 50
        await w.start_bot()
        await w.fake.wait_for_message(w.chan, lambda m: "play resumes" in (m.content or ""),
                                      include_existing=True)
        t = table_of(w)
        assert abs(t.deadlines[hs_of(w, w.alice)] - deadline) < 1
        assert t.hand.naturals[hs_of(w, w.bob)] == "dragon"
        panel = await w.slash(w.alice, "ofc hand")
        assert "Chosen so far: bottom: " + " ".join(bottom) in panel.content, panel.content
        r = await w.click(w.carol, ask, label="Yes, surrender")
        assert "You surrendered" in r.content
        # the old panel (from before the restart) still works
        rec = await w.select(w.alice, rec, rec.message.selects()[0]["custom_id"],
                             "7c 7h 9c Jc Kd".split())
        rec = await w.click(w.alice, rec, label="Middle")
        rec = await w.select(w.alice, rec, rec.message.selects()[0]["custom_id"],
                             "2d 3c 5h".split())
        rec = await w.click(w.alice, rec, label="Top")
        rec = await w.click(w.alice, rec, label="Confirm")
        show = await wait_showdown(w)
        res = t.last_result
        assert dict(zip(res.names, res.units, strict=True)) == {
            "bob": 222, "carol": -90, "dave": -50, "alice": -82}
        for who in (w.alice, w.bob, w.dave):
            assert_unseen(w, who, secrets["carol"], since=mark)
        for who in (w.alice, w.bob, w.carol, w.dave):
            for owner, cards in secrets.items():
                if owner != who.name:
                    assert_unseen(w, who, cards, since=mark, until=show.id)
        assert await w.store.verify_ledger() == []
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        w.fake.assert_clean()


async def test_bots_at_a_chinese_table_hide_their_sets_and_move_no_units(
    tmp_path: Any, caplog: Any
) -> None:
    caplog.set_level(logging.WARNING)
    async with make_world(tmp_path, seed_factory=lambda: "cr-bots") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", stake=5)
        await w.slash(w.bob, "ofc join")
        r = await w.slash(w.alice, "ofc addbot")
        assert "sat down" in r.content
        await w.slash(w.alice, "ofc addbot")
        await w.slash(w.alice, "ofc start")
        await w.fake.wait_until(lambda: table_of(w).hand is not None, 5, "the deal")
        t = table_of(w)
        mark = last_id(w)
        bots = [i for i, n in enumerate(t.hand.names) if "(bot)" in n]
        await w.fake.wait_until(lambda: all(t.hand.done[i] for i in bots), 20, "the bots set")
        bot_cards = set()
        for i in bots:
            bot_cards |= {str(c) for c in t.hand.boards[i].cards}
            bot_cards |= {str(c) for c in t.hand.natural_cards[i]}
        assert len(bot_cards) == 26
        await w.slash(w.alice, "ofc table")
        await asyncio.sleep(0.3)
        for who in (w.alice, w.bob):
            assert_unseen(w, who, bot_cards, since=mark)
        for who in (w.alice, w.bob):
            cards = panel_cards((await w.slash(who, "ofc hand")).content)
            r = await w.slash(who, "ofc place", move=whole_set(cards) + " foul")
            assert "Your hand is set" in r.content, r.content
        show = await wait_showdown(w)
        res = t.last_result
        units = dict(zip(res.names, res.units, strict=True))
        pair = res.settlement.pair(hs_of(w, w.alice), hs_of(w, w.bob)).total
        assert units["alice"] == 5 * pair and units["bob"] == -5 * pair, (units, show.content)
        assert all(units[n] == 0 for n in res.names if "(bot)" in n)
        assert await w.store.verify_ledger() == []
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        w.fake.assert_clean()


async def test_a_natural_taken_off_mid_hand_survives_a_restart(tmp_path: Any, caplog: Any) -> None:
    """The dragon is declared, then the host takes it off (from the next hand), then the bot
    restarts before the other player sets: the hand still pays the dragon."""
    caplog.set_level(logging.WARNING)
    async with make_world(tmp_path, seed_factory=lambda: "cr-opt-restart",
                          deck_factory=lambda t: parse_cards(DRAGON_A)) as w:
        await two_at_chinese(w, stake=2)
        holder = next(u for u in (w.alice, w.bob) if dealt(w, u) == set(DRAGON_A.split()))
        other = w.bob if holder is w.alice else w.alice
        await w.slash(holder, "ofc declare", natural="dragon")
        r = await w.slash(w.alice, "ofc options", dragon=0)
        assert "from the next hand" in r.content, r.content
        await w.stop_bot()
        await w.start_bot()
        await w.fake.wait_for_message(w.chan, lambda m: "play resumes" in (m.content or ""),
                                      include_existing=True)
        cards = panel_cards((await w.slash(other, "ofc hand")).content)
        await w.slash(other, "ofc place", move=whole_set(cards) + " foul")
        await wait_showdown(w)
        t = table_of(w)
        res = t.last_result
        assert dict(zip(res.names, res.units, strict=True)) == {holder.name: 26, other.name: -26}
        r = await w.slash(w.alice, "ofc rules")
        assert "dragon" not in r.content
        assert await w.store.verify_ledger() == []
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        w.fake.assert_clean()


# --------------------------------------------------------------------------- defects
async def test_surrender_question_states_what_it_costs_in_units(tmp_path: Any) -> None:
    """At a 10 units/pt table the surrender costs 30 units per opponent, but the question
    (and the answer) say "you pay 3 to each opponent" - 3 of what?  The table's title counts
    in units, so a player reads 3 units and pays ten times that."""
    async with make_world(tmp_path, seed_factory=lambda: "cr-sur-units") as w:
        await two_at_chinese(w, stake=10)
        ask = await w.slash(w.bob, "ofc surrender")
        assert "30 units" in ask.content or "3 points" in ask.content, ask.content
        r = await w.click(w.bob, ask, label="Yes, surrender")
        assert "30 units" in r.content or "3 points" in r.content, r.content


async def test_last_surrender_is_not_told_it_pays_when_nobody_is_paid(tmp_path: Any) -> None:
    """Heads-up, alice surrenders, then bob is asked about surrendering too: he is told "you
    pay 3 to each opponent" although a surrender then pays nothing (both surrendered: even)
    - and what he gives up is the 3 alice would pay him."""
    async with make_world(tmp_path, seed_factory=lambda: "cr-sur-both") as w:
        t = await two_at_chinese(w, stake=1)
        await surrender(w, w.alice)
        ask = await w.slash(w.bob, "ofc surrender")
        r = await w.click(w.bob, ask, label="Yes, surrender")
        await wait_showdown(w)
        assert t.last_result.settlement.totals == [0, 0]
        for text in (ask.content, r.content):
            assert "nobody is paid" in text and "you pay" not in text, text


async def test_panel_does_not_invite_declaring_at_a_table_without_naturals(
    tmp_path: Any
) -> None:
    """Every natural set to 0 (`/ofc rules`: "No naturals."), yet the set panel still says
    "Holding a natural? Declare it with `/ofc declare`", and any declare is then refused."""
    async with make_world(tmp_path, seed_factory=lambda: "cr-no-naturals",
                          deck_factory=two_dragons) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese")
        r = await w.slash(w.alice, "ofc options", six_pairs=0, three_straights=0,
                          three_flushes=0, dragon=0)
        assert "natural dragon: 13 → off" in r.content
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        await w.fake.wait_until(lambda: table_of(w).hand is not None, 5, "the deal")
        r = await w.slash(w.alice, "ofc rules")
        assert "No naturals." in r.content
        panel = await w.slash(w.bob, "ofc hand")
        r = await w.slash(w.bob, "ofc declare", natural="dragon")
        assert "not a natural at this table" in r.content
        assert "/ofc declare" not in panel.content, panel.content


async def test_panel_after_declaring_says_what_was_declared(tmp_path: Any) -> None:
    """After `/ofc declare`, `/ofc hand` (and the table's *Open my panel*) shows an empty board
    "top: - (0/3) | middle: - (0/5) | bottom: - (0/5)" and "You are done for this hand": the
    player is never reminded that they declared (nor which natural) until the showdown."""
    async with make_world(tmp_path, seed_factory=lambda: "cr-declared",
                          deck_factory=two_dragons) as w:
        await two_at_chinese(w)
        holder = next(u for u in (w.alice, w.bob) if dealt(w, u) == set(DRAGON_A.split()))
        r = await w.slash(holder, "ofc declare", natural="dragon")
        assert "declared dragon" in r.content
        panel = await w.slash(holder, "ofc hand")
        assert "dragon" in panel.content, panel.content
