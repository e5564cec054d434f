"""A review of table options and the table's lifecycle across options changes, end to end:
``/ofc options`` during a hand (the hand keeps its rules, the next deal takes the new ones,
several changes: the last wins, a restart in between keeps them), what ``/ofc rules`` says
against what the settlement pays (scoring methods, the moon), the fantasyland owed when
fantasyland options change, extreme values (clocks at their bounds, seats and bots, stakes
and buy-ins against the server's settings changed while a table is open) and a table left to
its bots.

The three defects it found are fixed; their tests say which ("Was a defect")."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine import Rules, parse_cards
from engine.autoplay import greedy_set

from .conftest import World, make_world, table_of
from .fakediscord import FakeUser
from .test_permissions_review import no_errors  # (the errors fixture: conftest.py)

pytestmark = pytest.mark.e2e

ROWS = ("top", "middle", "bottom")


# --------------------------------------------------------------------------- helpers
def refused(rec: Any, *words: str) -> None:
    text = rec.content or ""
    assert rec.ephemeral and text.startswith("⚠️"), text
    for word in words:
        assert word in text, (word, text)


def user_of(w: World, user_id: int) -> FakeUser | None:
    return next((u for u in w.users.values() if u.id == user_id), None)


# Two boards for a stacked two-player ofc deck.  STRONG: JJ 2 / KKK 4 3 / club flush (clean,
# royalties 6 + 2 + 4 = 12, beats MOON on every row, no fantasyland).  MOON: a clean board
# whose bottom is jack-high (it shoots the moon when the moon is on).
STRONG = {"top": "Jh Js 2c", "middle": "Kh Kd Ks 4h 3h", "bottom": "Ac Kc Qc Tc 8c"}
MOON = {"top": "9h 7d 5s", "middle": "Td 8s 6h 4c 2d", "bottom": "Jd 9s 7h 5c 3d"}
ROW_OF = {str(c): row for board in (STRONG, MOON) for row, cards in board.items()
          for c in parse_cards(cards)}


def _board_cards(board: dict[str, str]) -> list[str]:
    return [str(c) for row in ROWS for c in parse_cards(board[row])]


def stacked_deck() -> list[Any]:
    """The seat first to act gets STRONG, the other MOON: 5 cards each, then one at a time."""
    first, second = _board_cards(STRONG), _board_cards(MOON)
    order = first[:5] + second[:5] + [c for pair in zip(first[5:], second[5:], strict=True)
                                      for c in pair]
    return parse_cards(" ".join(order))


async def play_planned_hand(w: World, rows: dict[str, str] | None = None) -> None:
    """Every human to act places each card on its row in ``rows`` (default ROW_OF), by
    ``/ofc place``, until the hand being played is over."""
    rows = ROW_OF if rows is None else rows
    number = table_of(w).row.hand_no
    for _ in range(200):
        t = table_of(w)
        if t.hand is None or t.row.hand_no != number or t.hand.is_over:
            return
        acting = t.hand.to_act()
        if not acting:
            await asyncio.sleep(0.02)
            continue
        hs = acting[0]
        seat = t.seat_by_no(t.hand_seats[hs])
        user = user_of(w, seat.user_id)
        assert user is not None
        req = t.hand.requirement(hs)
        move = " ".join(f"{c} {rows[str(c)]}" for c in req.cards)
        r = await w.slash(user, "ofc place", move=move)
        assert r.ephemeral and r.content.startswith("✅"), r.content
    raise AssertionError("the hand did not end")


def strong_holder(w: World, result: Any) -> tuple[int, int]:
    """(hand seat holding STRONG, the other) in a settled result."""
    boards = result.settlement.boards
    strong = next(i for i, b in enumerate(boards) if "Ac" in {str(c) for c in b.rows[2]})
    return strong, 1 - strong


async def wait_result(w: World, hand_no: int) -> Any:
    t = table_of(w)
    await w.fake.wait_until(
        lambda: t.last_result is not None and t.last_result.hand_no == hand_no, 15,
        f"hand #{hand_no} settled")
    return t.last_result


# --------------------------------------------------------------------------- options mid-hand
async def test_options_during_a_hand_wait_for_the_next_one_through_a_restart_and_pay_as_said(
    tmp_path: Any, errors: Any,  # noqa: F811  (the fixture)
) -> None:
    """Hand 1 is played at 1-6 without the moon while the host changes scoring, the moon and
    its points (twice: the last wins) and the bot restarts; /ofc rules says what is played and
    what waits; hand 1 pays 1-6, hand 2 is dealt and paid at 1-3 with a 7-point moon."""
    deck = stacked_deck()
    async with make_world(tmp_path, seed_factory=lambda: "optrev-1",
                          deck_factory=lambda t: deck, next_hand_delay=0.3) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=2)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        r = await w.slash(w.alice, "ofc options", scoring="1-3", moon=True, moon_points=30)
        assert not r.ephemeral and "(rules from the next hand)" in r.content, r.content
        r = await w.slash(w.alice, "ofc options", moon_points=7, strict_top=True)
        assert "moon points: 30 → 7" in r.content
        r = await w.slash(w.alice, "ofc options", strict_top=False)  # taken back
        assert "strict top: on → off" in r.content
        pending = ("From the next hand: scoring: 1-6 → 1-3; shooting the moon: off → on; "
                   "moon points: 20 → 7.")
        r = await w.slash(w.bob, "ofc rules")
        assert "Scoring 1-6: 1 point per row, +3 for a scoop." in r.content
        assert "Shooting the moon" not in r.content.split("From the next hand")[0]
        assert pending in r.content, r.content
        assert t.hand is not None and t.hand.rules == Rules()
        # a restart in the middle of the hand keeps both: the hand's rules and the pending ones
        await w.stop_bot()
        await w.start_bot()
        await w.fake.wait_for_message(
            w.chan, lambda m: "play resumes" in (m.content or ""), include_existing=True)
        t = table_of(w)
        assert t.hand is not None and t.hand.rules == Rules()
        r = await w.slash(w.bob, "ofc rules")
        assert pending in r.content and "Scoring 1-6" in r.content, r.content
        await play_planned_hand(w)
        res = await wait_result(w, 1)
        s, m = strong_holder(w, res)
        # 1-6, no moon: 3 rows + 3 scoop + 12 royalties
        assert res.settlement.totals[s] == 18 and res.settlement.totals[m] == -18
        assert res.units is not None and res.units[s] == 36
        assert not any(res.settlement.moon)
        # hand 2 under the new rules (the same stacked deck, the other player first)
        await w.fake.wait_until(lambda: t.hand is not None and t.row.hand_no == 2, 15,
                                "hand 2 dealt")
        expected = Rules(scoring="1-3", shoot_the_moon=True, shoot_the_moon_points=7)
        assert t.hand.rules == expected
        r = await w.slash(w.bob, "ofc rules")
        assert "Scoring 1-3: 1 point per row." in r.content
        assert "wins 7 more points from each opponent" in r.content
        assert "From the next hand" not in r.content
        await play_planned_hand(w)
        res2 = await wait_result(w, 2)
        s2, m2 = strong_holder(w, res2)
        assert res2.seat_nos[s2] != res.seat_nos[s]  # the button moved: the other got it
        # 1-3 with a 7-point moon: 3 rows + 12 royalties - 7
        assert res2.settlement.moon[m2] and not res2.settlement.moon[s2]
        assert res2.settlement.totals[s2] == 8 and res2.units is not None
        assert res2.units[s2] == 16 and res2.units[m2] == -16
        show = await w.fake.wait_for_message(
            w.chan, lambda msg: "Showdown — hand #2" in (msg.content or ""), timeout=15,
            include_existing=True)
        assert "moon" in show.content.lower()
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean()
    no_errors(errors)


@pytest.mark.parametrize(("scoring", "strong_points"), [
    ("2-4", 3 + 1 + 12), ("1-4", 3 + 1 + 12), ("1-3", 3 + 12), ("1-6", 3 + 3 + 12),
])
async def test_each_scoring_method_pays_what_the_rules_say(
    tmp_path: Any, scoring: str, strong_points: int,
) -> None:
    """``/ofc new scoring:...``: /ofc rules names the bonus, and a scoop is paid by it."""
    deck = stacked_deck()
    async with make_world(tmp_path, seed_factory=lambda: "optrev-2",
                          deck_factory=lambda t: deck) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", scoring=scoring)
        await w.slash(w.bob, "ofc join")
        r = await w.slash(w.alice, "ofc rules")
        words = {"2-4": "+1 overall for winning more rows", "1-4": "+1 for a scoop",
                 "1-6": "+3 for a scoop", "1-3": "1 point per row."}[scoring]
        assert f"Scoring {scoring}: " in r.content and words in r.content, r.content
        await w.slash(w.alice, "ofc start")
        await play_planned_hand(w)
        res = await wait_result(w, 1)
        s, m = strong_holder(w, res)
        assert res.settlement.totals[s] == strong_points
        assert res.settlement.totals[m] == -strong_points


# --------------------------------------------------------------------------- fantasyland owed
async def _pineapple_owed(w: World, cards: int) -> Any:
    """A pineapple table where alice (seat 0) is owed a fantasyland of ``cards`` cards that she
    and bob earned in the last hand (as a settlement leaves it)."""
    await w.start_bot()
    await w.slash(w.alice, "ofc new", variant="pineapple")
    await w.slash(w.bob, "ofc join")
    t = table_of(w)
    await w.store.update_table(t.id, extra={**t.row.extra, "fantasyland": {"0": cards},
                                            "fantasyland_owed_by": [0, 1]})
    await w.service._refresh(t)
    return t


async def test_progressive_off_then_back_on_between_hands_is_no_change(tmp_path: Any) -> None:
    """Control: progressive off alone deals the owed AA fantasyland 14 cards (README)."""
    async with make_world(tmp_path, seed_factory=lambda: "optrev-3") as w:
        t = await _pineapple_owed(w, 16)
        r = await w.slash(w.alice, "ofc options", progressive=False)
        assert "progressive: on → off" in r.content
        r = await w.slash(w.alice, "ofc rules")
        assert "Fantasyland with QQ+ on top: 14 cards." in r.content
        await w.slash(w.alice, "ofc start")
        assert t.hand is not None and t.hand.fantasyland[t.hand_seat_of(0)] == 14


async def test_an_owed_fantasyland_keeps_its_size_when_progressive_is_turned_off_and_on_again(
    tmp_path: Any,
) -> None:
    """Was a defect: /ofc options progressive:false then progressive:true between hands (the
    rules back as they were, /ofc rules saying 'AA 16' and nothing pending) still deals the
    fantasyland owed for AA with 14 cards: set_options rewrites the owed size at each change
    (fixed)."""
    async with make_world(tmp_path, seed_factory=lambda: "optrev-4") as w:
        t = await _pineapple_owed(w, 16)
        await w.slash(w.alice, "ofc options", progressive=False)
        r = await w.slash(w.alice, "ofc options", progressive=True)
        assert "progressive: off → on" in r.content
        r = await w.slash(w.alice, "ofc rules")
        assert "progressive: QQ 14 cards, KK 15, AA 16, trips 17." in r.content
        assert "From the next hand" not in r.content
        await w.slash(w.alice, "ofc start")
        assert t.hand is not None and t.hand.fantasyland[t.hand_seat_of(0)] == 16


async def test_fantasyland_off_between_hands_frees_the_table_and_on_again_does_not_restore(
    tmp_path: Any,
) -> None:
    """README: turning fantasyland off frees everyone from a fantasyland owed (bob may leave at
    once); turning it back on deals no fantasyland for it."""
    async with make_world(tmp_path, seed_factory=lambda: "optrev-5") as w:
        t = await _pineapple_owed(w, 15)
        await w.slash(w.carol, "ofc join")
        assert t.owes_fantasyland(1)
        r = await w.slash(w.alice, "ofc options", fantasyland=False)
        assert "fantasyland: on → off" in r.content
        assert t.fantasyland_pending == {} and not t.owes_fantasyland(1)
        r = await w.slash(w.alice, "ofc options", fantasyland=True)
        r = await w.slash(w.bob, "ofc leave")
        assert "You left the table" in r.content
        await w.slash(w.alice, "ofc start")
        assert t.hand is not None and not any(t.hand.fantasyland)


# --------------------------------------------------------------------------- clocks
async def test_clock_options_apply_from_the_next_deal_and_at_their_bounds(tmp_path: Any) -> None:
    """``/ofc new timer:600`` (its maximum) gives a 1200 s set clock; a clock changed during a
    hand leaves that hand's deadline alone and times the next hand; away_timer's slash range
    allows values the rules refuse, with a clear message."""
    deck = stacked_deck()
    async with make_world(tmp_path, seed_factory=lambda: "optrev-6",
                          deck_factory=lambda t: deck, next_hand_delay=0.2) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", timer=600)
        await w.slash(w.bob, "ofc join")
        t = table_of(w)
        assert (t.table_rules.timer, t.table_rules.set_timer) == (600, 1200)
        await w.slash(w.alice, "ofc start")
        (hs,) = t.hand.to_act()
        first = t.deadlines[hs] - w.clock()
        assert 590 < first <= 600
        r = await w.slash(w.alice, "ofc options", timer=10, away_timer=600)
        assert "clock: 600 s → 10 s" in r.content and "(rules from the next hand)" in r.content
        assert t.deadlines[hs] - w.clock() > 580  # this decision keeps its clock
        r = await w.slash(w.alice, "ofc options", away_timer=3)
        refused(r, "away_timer")
        r = await w.slash(w.alice, "ofc rules")
        assert "Clock: 600 s per decision, 1200 s for a full set" in r.content
        assert "clock: 600 s → 10 s" in r.content  # pending
        await play_planned_hand(w)
        await wait_result(w, 1)
        await w.fake.wait_until(lambda: t.hand is not None and t.row.hand_no == 2, 15,
                                "hand 2 dealt")
        assert (t.hand.rules.timer, t.hand.rules.set_timer, t.hand.rules.away_timer) == (
            10, 1200, 600)
        (hs,) = t.hand.to_act()
        assert 0 < t.deadlines[hs] - w.clock() <= 10
        # the away clock is never longer than the clock itself
        t.away.add(hs)
        del t.deadlines[hs]
        w.service._set_deadlines(t)
        assert t.deadlines[hs] - w.clock() <= 10


async def test_a_set_clock_below_the_street_clock(tmp_path: Any) -> None:
    """``set_timer`` may be set below ``timer`` (nothing forbids it): a fantasyland or chinese
    set then gets less time than a single card; /ofc rules says so plainly."""
    async with make_world(tmp_path, seed_factory=lambda: "optrev-7") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", timer=600)
        await w.slash(w.bob, "ofc join")
        r = await w.slash(w.alice, "ofc options", set_timer=10)
        assert "clock for a full set: 1200 s → 10 s" in r.content
        r = await w.slash(w.alice, "ofc rules")
        assert "Clock: 600 s per decision, 10 s for a full set." in r.content
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        assert all(0 < d - w.clock() <= 10 for d in t.deadlines.values())


# --------------------------------------------------------------------------- seats and bots
async def test_seats_and_bots_at_their_bounds_for_each_variant(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "optrev-8") as w:
        await w.start_bot()
        r = await w.slash(w.alice, "ofc new", variant="pineapple", seats=4)
        refused(r, "pineapple is played by 2 to 3 players, not 4")
        r = await w.slash(w.alice, "ofc new", variant="pineapple", bots=3)
        refused(r, "at most 2 bots")
        r = await w.slash(w.alice, "ofc new", variant="chinese", seats=3, bots=3)
        refused(r, "at most 2 bots")
        assert w.chan.id not in w.service._by_channel
        # a full table of bots: practice, nobody else fits
        r = await w.slash(w.alice, "ofc new", variant="ofc", bots=3, level="easy")
        assert not r.ephemeral and "4 seats" in r.content and "Practice table" in r.content
        t = table_of(w)
        assert len(t.bots) == 3 and t.practice
        r = await w.slash(w.bob, "ofc join")
        assert r.ephemeral and "full" in r.content.lower()
        r = await w.slash(w.alice, "ofc addbot")
        assert r.ephemeral and "full" in r.content.lower()
        # a second table in the same channel is refused; after the close it opens
        r = await w.slash(w.bob, "ofc new", variant="chinese")
        refused(r, "already has a table")
        r = await w.slash(w.alice, "ofc close")
        assert "closed" in r.content
        r = await w.slash(w.bob, "ofc new", variant="pineapple", seats=2, bots=1)
        assert not r.ephemeral and "2 seats" in r.content
        t = table_of(w)
        assert t.row.max_seats == 2 and len(t.bots) == 1 and t.row.creator_id == w.bob.id


async def test_too_many_bots_for_two_seats_reads_well(tmp_path: Any) -> None:
    """Was a defect: '/ofc new seats:2 bots:2' answers 'room for at most 1 bots' (plural after
    1) (fixed)."""
    async with make_world(tmp_path) as w:
        await w.start_bot()
        r = await w.slash(w.alice, "ofc new", variant="ofc", seats=2, bots=2)
        refused(r, "at most 1 bot.")


async def test_a_table_left_to_its_bots_closes_after_the_hand(tmp_path: Any) -> None:
    """The only human leaves during a hand against bots: the hand is finished (here by her
    surrender), then the table closes, her stack back in her balance."""
    async with make_world(tmp_path, seed_factory=lambda: "optrev-9", next_hand_delay=0.2) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc balance")
        start = await w.store.wallet(w.guild.id, w.alice.id)
        assert start == (1000, 0)
        await w.slash(w.alice, "ofc new", variant="ofc", seats=3, bots=2, level="easy")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        r = await w.slash(w.alice, "ofc leave")
        assert "You will leave after this hand" in r.content
        ask = await w.slash(w.alice, "ofc surrender")
        await w.click(w.alice, ask, label="Yes, surrender")
        await w.fake.wait_for_message(
            w.chan, lambda m: "The table is closed" in (m.content or ""), timeout=30,
            include_existing=True)
        assert t.id not in w.service.tables and t.row.status == "closed"
        assert await w.store.wallet(w.guild.id, w.alice.id) == start  # practice: no units moved
        r = await w.slash(w.alice, "ofc rules")
        refused(r)
        r = await w.slash(w.alice, "ofc new", variant="ofc")  # the channel is free again
        assert not r.ephemeral, r.content


# --------------------------------------------------------------------------- server settings
async def test_server_settings_changed_while_a_table_is_open(tmp_path: Any) -> None:
    """The open table keeps its own buy-in and clock; a lowered maximum buy-in refuses the
    table's default buy-in with a hint and takes a smaller one; new tables take the new
    defaults."""
    async with make_world(tmp_path, seed_factory=lambda: "optrev-10") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", buyin=900)
        t = table_of(w)
        r = await w.slash(w.admin, "ofc-admin settings", default_buyin=100, max_buyin=500,
                          default_timer=600)
        assert "default timer 600 s" in r.content
        assert t.row.buyin == 900 and t.table_rules.timer == 60
        r = await w.slash(w.bob, "ofc join")
        refused(r, "above this server's maximum now (500)", "at most 500")
        r = await w.slash(w.bob, "ofc join", buyin=500)
        assert "sat down with 500 units" in r.content
        r = await w.slash(w.alice, "ofc options", timer=30)
        assert "clock: 60 s → 30 s" in r.content
        # a new table in another channel takes the server's new defaults
        other = w.fake.add_text_channel(w.guild, "ofc-2")
        r = await w.fake.slash(w.carol, other, "ofc new", options={"variant": "pineapple"})
        assert "buy-in 100" in r.content
        t2 = w.service.table_in_channel(other.id)
        assert (t2.table_rules.timer, t2.table_rules.set_timer) == (600, 1200)
        # stake bounds against max_stake
        await w.slash(w.admin, "ofc-admin settings", max_stake=0)
        third = w.fake.add_text_channel(w.guild, "ofc-3")
        r = await w.fake.slash(w.dave, third, "ofc new", options={"variant": "ofc"})
        refused(r, "at most 0 units per point")
        r = await w.fake.slash(w.dave, third, "ofc new",
                               options={"variant": "ofc", "stake": 0, "buyin": 0})
        assert not r.ephemeral and "(ofc): no units, " in r.content, r.content
        assert await w.store.verify_ledger() == []


# --------------------------------------------------------------------------- chinese
async def test_chinese_options_changed_during_a_hand_wait_for_the_next_one(tmp_path: Any) -> None:
    """surrender, bonuses and a natural changed (and taken off) during a chinese hand: the
    surrender question and the settlement of that hand use its own rules (3 points), the next
    hand the new ones (10 points, dragon off, no bonuses)."""
    async with make_world(tmp_path, seed_factory=lambda: "optrev-11", next_hand_delay=0.2) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", stake=2)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        r = await w.slash(w.alice, "ofc options", surrender=10, bonuses=False, dragon=0)
        assert "(rules from the next hand)" in r.content, r.content
        r = await w.slash(w.bob, "ofc rules")
        assert "Surrender pays 3 points to each opponent." in r.content
        assert ("From the next hand: row bonuses: on → off; surrender pays: 3 → 10; natural "
                "dragon: 13 → off.") in r.content, r.content
        ask = await w.slash(w.bob, "ofc surrender")
        assert "pay 3" in ask.content and "6 units" in ask.content, ask.content
        await w.click(w.bob, ask, label="Yes, surrender")
        # alice sets her hand (a surrender of hers too would pay nothing)
        req = t.hand.requirement(t.hand_seat_of(t.seat_of_user(w.alice.id).seat_no))
        board, _ = greedy_set(req.cards)
        move = " ".join(f"{' '.join(map(str, row))} {name}" for row, name in
                        zip((board.top, board.middle, board.bottom), ROWS, strict=True))
        r = await w.slash(w.alice, "ofc place", move=move + " foul")
        assert r.content.startswith("✅"), r.content
        res = await wait_result(w, 1)
        bob_hs = res.user_ids.index(w.bob.id)
        assert res.settlement.totals[bob_hs] == -3 and res.units[bob_hs] == -6
        await w.fake.wait_until(lambda: t.hand is not None and t.row.hand_no == 2, 15,
                                "hand 2 dealt")
        assert t.hand.rules.chinese_surrender == 10 and not t.hand.rules.chinese_bonuses
        assert "dragon" not in t.hand.rules.natural_values
        ask = await w.slash(w.bob, "ofc surrender")
        assert "pay 10" in ask.content and "20 units" in ask.content, ask.content
        r = await w.slash(w.bob, "ofc declare", natural="dragon")
        refused(r)
        assert await w.store.verify_ledger() == []


# --------------------------------------------------------------------------- bots only
async def test_bots_never_play_alone_and_the_last_human_leaving_closes(tmp_path: Any) -> None:
    """alice, bob and a bot: bob leaves and alice sits out between hands: the table waits (the
    bot never plays alone); alice leaving then closes it, every stack back."""
    async with make_world(tmp_path, seed_factory=lambda: "optrev-12") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="pineapple", bots=1, level="easy")
        await w.slash(w.bob, "ofc join")
        t = table_of(w)
        r = await w.slash(w.bob, "ofc leave")
        assert "You left the table" in r.content
        assert t.practice  # one human against a bot now
        await w.slash(w.alice, "ofc sitout")
        r = await w.slash(w.alice, "ofc start")
        refused(r, "At least 2 players")
        await w.slash(w.alice, "ofc sitin")
        r = await w.slash(w.admin, "ofc options", timer=10)  # a manager, not seated
        assert "clock: 60 s → 10 s" in r.content and "(now)" in r.content
        r = await w.slash(w.alice, "ofc leave")
        assert "Nobody is left, so the table is closed" in r.content
        assert t.id not in w.service.tables
        for u in (w.alice, w.bob):
            assert await w.store.wallet(w.guild.id, u.id) == (1000, 0)
        assert await w.store.verify_ledger() == []


# --------------------------------------------------------------------------- button, close
@pytest.mark.parametrize("button_stays", [True, False])
async def test_button_stays_changed_during_the_hand_that_earns_a_fantasyland(
    tmp_path: Any, button_stays: bool,
) -> None:
    """The first to act (bob) makes QQ on top in hand 1 while the host sets button_stays: the
    fantasyland hand 2 keeps alice's button only when it is on."""
    qq = {**STRONG, "top": "Qh Qd 2c"}
    first, second = _board_cards(qq), _board_cards(MOON)
    deck = parse_cards(" ".join(first[:5] + second[:5] + [
        c for pair in zip(first[5:], second[5:], strict=True) for c in pair]))
    rows = {str(c): row for board in (qq, MOON) for row, cards in board.items()
            for c in parse_cards(cards)}
    async with make_world(tmp_path, seed_factory=lambda: "optrev-13",
                          deck_factory=lambda t: deck, next_hand_delay=0.2) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        assert t.hand_seats[t.hand.button] == 0  # alice has the button
        if not button_stays:
            r = await w.slash(w.alice, "ofc options", button_stays=False)
            assert "(rules from the next hand)" in r.content
        await play_planned_hand(w, rows)
        res = await wait_result(w, 1)
        bob_hs = res.user_ids.index(w.bob.id)
        assert res.fantasyland_next[bob_hs] == 13
        await w.fake.wait_until(lambda: t.hand is not None and t.row.hand_no == 2, 15,
                                "hand 2 dealt")
        assert t.hand.fantasyland[t.hand_seat_of(1)] == 13
        assert t.hand_seats[t.hand.button] == (0 if button_stays else 1)


async def test_close_after_fantasyland_was_turned_off_mid_hand_says_after_this_hand(
    tmp_path: Any,
) -> None:
    """Was a defect: /ofc close during a hand after fantasyland was turned off for the next hand
    still says the table may wait for a fantasyland hand (it reads the hand's rules; the
    fantasyland earned is decided by the table's new ones, so none can be) (fixed)."""
    async with make_world(tmp_path, seed_factory=lambda: "optrev-14") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        await w.slash(w.alice, "ofc options", fantasyland=False)
        r = await w.slash(w.alice, "ofc close")
        assert "The table will close after this hand." in r.content
        assert "fantasyland" not in r.content, r.content
