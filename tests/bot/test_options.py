"""/ofc options: every "(option)" point of RULES.md can be changed by the table's creator or a
server manager; changes made during a hand wait for the next one."""

from __future__ import annotations

from typing import Any

import pytest

from bot.service import ServiceError
from bot.store import Store
from engine import Rules, RulesError, evaluate, parse_cards
from engine.autoplay import greedy_set
from engine.board import ROW_SIZES

from .test_service import (
    ALICE,
    BOB,
    CAROL,
    CH,
    Clock,
    G,
    finish_by_autoplay,
    heads_up,
    make,
    until,
)


async def test_only_the_creator_or_a_manager_changes_options() -> None:
    svc, rec, store = await make(seed_factory=lambda: "opt1")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    with pytest.raises(ServiceError, match="host .* or a server manager"):
        await svc.set_options(CH, BOB, False, strict_top=True)
    words, later = await svc.set_options(CH, BOB, True, strict_top=True)  # a manager
    assert words == ["strict top: off → on"] and not later
    with pytest.raises(ServiceError, match="at least one option"):
        await svc.set_options(CH, ALICE, False, strict_top=None)
    assert await svc.set_options(CH, ALICE, False, strict_top=True) == ([], False)
    await svc.shutdown()
    await store.close()


async def test_the_host_passes_to_the_player_seated_longest_when_it_leaves(
    tmp_path: object,
) -> None:
    """The creator who left kept the rights to change the options and close the table from
    outside, and nobody seated had them: they pass on, saved with the leave."""
    db = f"{tmp_path}/h.sqlite3"
    svc, rec, store = await make(db, seed_factory=lambda: "host")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.join(G, CH, CAROL, "carol")
    t = svc.table_in_channel(CH)
    assert t.host_id == ALICE
    with pytest.raises(ServiceError, match=f"host \\(<@{ALICE}>\\)"):
        await svc.close(CH, BOB, False)
    await svc.leave(CH, ALICE)  # between hands: she goes at once
    assert t.host_id == BOB
    with pytest.raises(ServiceError, match=f"host \\(<@{BOB}>\\) or a server manager"):
        await svc.set_options(CH, ALICE, False, timer=10)
    assert await svc.set_options(CH, BOB, False, timer=90) == (["clock: 60 s → 90 s"], False)
    await svc.shutdown()
    svc, rec, store2 = await make(db, seed_factory=lambda: "host")  # saved: a restart keeps it
    await svc.recover()
    t = svc.table_in_channel(CH)
    assert t.host_id == BOB
    # a host who leaves during a hand hands over when the hand ends and they go
    await svc.start(CH, BOB)
    await svc.leave(CH, BOB)
    assert t.host_id == BOB  # still seated until the hand ends
    await finish_by_autoplay(svc)
    await until(lambda: t.seat_of_user(BOB) is None)
    assert t.host_id == CAROL
    assert await svc.close(CH, CAROL, False)
    await svc.shutdown()
    await store.close()
    await store2.close()


async def test_options_between_hands_apply_to_the_next_deal_and_survive_a_restart(
    tmp_path: object,
) -> None:
    db = f"{tmp_path}/o.sqlite3"
    svc, rec, store = await make(db, seed_factory=lambda: "opt2")
    await svc.new_table(G, CH, ALICE, "alice", variant="pineapple")
    await svc.join(G, CH, BOB, "bob")
    words, later = await svc.set_options(
        CH, ALICE, False, scoring="1-4", shoot_the_moon=True, shoot_the_moon_points=10,
        progressive=False, stay_middle_full_house=False, button_stays_for_fantasyland=False,
        timer=90,
    )
    assert not later and words == [
        "scoring: 1-6 → 1-4", "progressive: on → off", "stay with a middle full house: on → off",
        "button stays for fantasyland: on → off", "shooting the moon: off → on",
        "moon points: 20 → 10", "clock: 60 s → 90 s",  # the set clock (120 s) is still longer
    ]
    await svc.shutdown()
    await store.close()
    svc, rec, store = await make(db, seed_factory=lambda: "opt2")
    await svc.recover()
    t = svc.table_in_channel(CH)
    expected = Rules(variant="pineapple", scoring="1-4", shoot_the_moon=True,
                     shoot_the_moon_points=10, progressive=False, stay_middle_full_house=False,
                     button_stays_for_fantasyland=False, timer=90)
    assert t.table_rules == expected
    await svc.start(CH, ALICE)
    assert t.hand is not None and t.hand.rules == expected
    assert any("Shooting the moon" in line for line in svc.rules_text(CH))
    await svc.shutdown()
    await store.close()


async def test_options_changed_during_a_hand_wait_for_the_next_one() -> None:
    svc, rec, store = await make(seed_factory=lambda: "opt3")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None
    words, later = await svc.set_options(CH, ALICE, False, strict_top=True, timer=30)
    assert later and words == ["strict top: off → on", "clock: 60 s → 30 s"]
    assert not t.hand.rules.strict_top and not t.rules.strict_top  # this hand keeps its rules
    assert t.table_rules.strict_top and t.table_rules.set_timer == 120
    assert svc.rules_text(CH)[-1] == "From the next hand: strict top: off → on; clock: 60 s → 30 s."
    await finish_by_autoplay(svc)
    await until(lambda: t.row.hand_no == 2 and t.hand is not None)  # dealt on its own
    assert t.hand is not None and t.hand.rules.strict_top and t.hand.rules.timer == 30
    assert not any("From the next hand" in line for line in svc.rules_text(CH))
    await svc.shutdown()
    await store.close()


@pytest.mark.parametrize(("variant", "option", "message"), [
    ("ofc", {"chinese_surrender": 5}, "“surrender pays” is an option of chinese poker"),
    ("pineapple", {"dragon": 20}, "“dragon” is an option of chinese poker"),
    ("chinese", {"fantasyland": False}, "fantasyland option; chinese poker has no"),
    ("chinese", {"progressive": False}, "fantasyland option"),
    ("ofc", {"progressive_stay": True}, "option of pineapple; this table plays ofc"),
    ("pineapple", {"progressive": False, "progressive_stay": True}, "progressive stay table"),
])
async def test_options_that_do_not_apply_are_refused_and_change_nothing(
    variant: str, option: dict[str, object], message: str,
) -> None:
    svc, rec, store = await make(seed_factory=lambda: "opt4")
    await svc.new_table(G, CH, ALICE, "alice", variant=variant)
    t = svc.table_in_channel(CH)
    before = t.row.rules
    with pytest.raises(ServiceError, match=message):
        await svc.set_options(CH, ALICE, False, **option)
    assert t.row.rules == before
    await svc.shutdown()
    await store.close()


async def test_chinese_naturals_bonuses_and_surrender() -> None:
    svc, rec, store = await make(seed_factory=lambda: "opt5")
    await svc.new_table(G, CH, ALICE, "alice", variant="chinese")
    words, _ = await svc.set_options(CH, ALICE, False, **{
        "dragon": 26, "six pairs": 0, "chinese_bonuses": False, "chinese_surrender": 2})
    assert words == ["row bonuses: on → off", "surrender pays: 3 → 2",
                     "natural six pairs: 3 → off", "natural dragon: 13 → 26"]
    rules = svc.table_in_channel(CH).table_rules
    assert rules.natural_values == {"three straights": 3, "three flushes": 3, "dragon": 26}
    assert not rules.chinese_bonuses and rules.chinese_surrender == 2
    await svc.shutdown()
    await store.close()


async def _alice_owed_fantasyland(seed: str, cards: int) -> tuple[Any, Store, Any]:
    """A pineapple table where alice (seat 0) is owed a fantasyland of ``cards`` cards that
    she and bob earned in the last hand."""
    svc, rec, store = await make(seed_factory=lambda: seed)
    await svc.new_table(G, CH, ALICE, "alice", variant="pineapple")
    await svc.join(G, CH, BOB, "bob")
    t = svc.table_in_channel(CH)
    await store.update_table(t.id, extra={"fantasyland": {"0": cards}, "fantasyland_owed_by": [0, 1]})
    await svc._refresh(t)
    return svc, store, t


async def test_fantasyland_off_frees_the_owed_hand_and_progressive_off_deals_fourteen() -> None:
    svc, store, t = await _alice_owed_fantasyland("opt6", 16)
    await svc.set_options(CH, ALICE, False, progressive=False)
    await svc.start(CH, ALICE)  # earned as AA (16 cards), dealt under the new rules: 14
    assert t.hand is not None and t.hand.fantasyland[t.hand_seat_of(0)] == 14
    await svc.shutdown()
    await store.close()

    svc, store, t = await _alice_owed_fantasyland("opt7", 15)
    assert t.owes_fantasyland(1)
    await svc.set_options(CH, CAROL, True, fantasyland=False)
    assert t.fantasyland_pending == {} and not t.owes_fantasyland(1)
    assert "You left the table" in await svc.leave(CH, BOB)  # not held for it any more
    await svc.shutdown()
    await store.close()


def test_fantasyland_cards_under_changed_rules() -> None:
    pine = Rules(variant="pineapple")
    assert [pine.fantasyland_cards_now(k) for k in (0, 14, 15, 16, 17)] == [0, 14, 15, 16, 17]
    flat = Rules(variant="pineapple", progressive=False)
    assert [flat.fantasyland_cards_now(k) for k in (14, 17)] == [14, 14]
    assert Rules(variant="ofc").fantasyland_cards_now(15) == 13
    assert Rules(variant="ofc", fantasyland=False).fantasyland_cards_now(13) == 0
    assert Rules(variant="chinese").fantasyland_cards_now(14) == 0


# ofc, 2 players: bob (left of the button) is dealt first: bob 5, alice 5, then 1 card each
BOB13 = parse_cards("2c 3d 4h 5s 7c 8d 9h Ts 2d 3h 4s 6c 8h")
ALICE13 = parse_cards("Qs Qh 2h Kc Kd 3c 4d 5h Ac Ad Ah 6s 7s")
ALICE_PLAN = dict(zip(ALICE13, [0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2], strict=True))
QQ_DECK = BOB13[:5] + ALICE13[:5] + [c for pair in zip(BOB13[5:], ALICE13[5:], strict=True)
                                     for c in pair]


async def _play_out(svc: Any, t: Any) -> None:
    """Alice sets QQ 2 / KK 345 / AAA 67 (clean, fantasyland); bob fills bottom up."""
    while t.hand is not None and not t.hand.is_over:
        hs = t.hand.to_act()[0]
        req = t.hand.requirement(hs)
        board = t.hand.boards[hs]
        room = [ROW_SIZES[i] - len(board.rows[i]) for i in range(3)]
        placed = []
        for c in req.cards:
            r = ALICE_PLAN.get(c)
            if r is None:
                r = next(i for i in (2, 1, 0) if room[i] > 0)
            room[r] -= 1
            placed.append((c, r))
        async with t.lock:
            t.hand.place(hs, placed)
            await svc._after_action(t)


async def test_fantasyland_turned_off_during_the_hand_that_earns_one() -> None:
    svc, rec, store, t = await heads_up("opt8", deck_factory=lambda t: QQ_DECK,
                                        next_hand_delay=3600.0)
    words, later = await svc.set_options(CH, ALICE, False, fantasyland=False)
    assert later
    await _play_out(svc, t)
    await until(lambda: t.last_result is not None)
    assert t.last_result is not None and t.last_result.fantasyland_next == (0, 0)
    assert t.fantasyland_pending == {}
    assert "You left the table" in await svc.leave(CH, BOB)  # not held for it
    results = (await store.history(t.id, 1))[0][1]
    assert not any(r.fantasyland for r in results)  # not counted as an entry either
    await svc.shutdown()
    await store.close()


async def test_progressive_turned_off_changes_the_fantasyland_owed_and_its_messages() -> None:
    svc, store, t = await _alice_owed_fantasyland("opt9", 16)
    await svc.set_options(CH, ALICE, False, progressive=False)
    assert "(14 cards) waits for you" in await svc.sit_out(CH, ALICE, True)
    assert "your fantasyland (14 cards)" in await svc.sit_out(CH, ALICE, False)
    await svc.start(CH, ALICE)
    assert t.hand is not None and t.hand.fantasyland[t.hand_seat_of(0)] == 14
    await svc.shutdown()
    await store.close()


async def test_a_deck_change_during_a_hand_shows_at_once() -> None:
    svc, rec, store, t = await heads_up("opt10")
    assert await svc.set_options(CH, ALICE, False, deck="two") == (
        ["deck: four colours → two colours"], False)
    assert not t.four_colour
    await svc.shutdown()
    await store.close()


def test_text_options_refuse_digits_that_are_not_ascii() -> None:
    for text in ("dragon=²", "timer=٣٠", "moon_points=1.5"):
        with pytest.raises(RulesError, match="needs a whole number"):
            Rules(variant="chinese").with_text_options([text])
    # names in any case, as the values
    assert Rules().with_text_options(["STRICT_TOP=ON", " Moon = on"]) == Rules().with_options(
        strict_top=True, shoot_the_moon=True)


async def test_a_set_that_fouls_is_played_only_when_confirmed() -> None:
    svc, rec, store, t = await heads_up("opt11", "chinese")
    assert t.hand is not None
    hs = t.hand_seat_of(0)
    req = t.hand.requirement(hs)
    assert req is not None
    clean, _ = greedy_set(req.cards)  # its bottom beats its middle: swapped, a foul
    assert evaluate(clean.bottom) > evaluate(clean.middle)
    move = (f"{' '.join(map(str, clean.top))} top {' '.join(map(str, clean.bottom))} middle "
            f"{' '.join(map(str, clean.middle))} bottom")
    with pytest.raises(ServiceError, match="This board fouls: the .* beats the bottom .* add `foul` at the"):
        await svc.place_text(CH, ALICE, move)
    assert t.hand.log == [] or all(a.seat != hs for a in t.hand.log)
    assert "Your hand is set" in (await svc.place_text(CH, ALICE, move + " foul")).text
    await svc.shutdown()
    await store.close()


async def test_the_stay_value_option_prices_staying_for_the_solver(tmp_path: object) -> None:
    """The issue's "value of staying in fantasyland (a rules option)": ``stay_value`` is set by
    /ofc options (a number or default), shown in /ofc rules, kept over a restart, refused at a
    chinese table, and it is what the solver counts for a stay."""
    db = f"{tmp_path}/s.sqlite3"
    svc, rec, store = await make(db, seed_factory=lambda: "stay1")
    await svc.new_table(G, CH, ALICE, "alice", variant="pineapple")
    words, _ = await svc.set_options(CH, ALICE, False, stay_value="30")
    assert words == ["value of staying in fantasyland: default → 30"]
    assert any("count 30 points for staying" in line for line in svc.rules_text(CH))
    with pytest.raises(ServiceError, match="whole number of points from 0 to 200"):
        await svc.set_options(CH, ALICE, False, stay_value="lots")
    await svc.shutdown()
    await store.close()
    svc, rec, store = await make(db, seed_factory=lambda: "stay1")
    await svc.recover()
    assert svc.table_in_channel(CH).table_rules.stay_value == 30
    words, _ = await svc.set_options(CH, ALICE, False, stay_value="default")
    assert words == ["value of staying in fantasyland: 30 → default"]
    assert svc.table_in_channel(CH).table_rules.stay_value is None
    await svc.shutdown()
    await store.close()
    svc, rec, store = await make(seed_factory=lambda: "stay2")
    await svc.new_table(G, CH, ALICE, "alice", variant="chinese")
    with pytest.raises(ServiceError, match="fantasyland option"):
        await svc.set_options(CH, ALICE, False, stay_value="5")
    await svc.shutdown()
    await store.close()


def test_stay_value_text_option_and_solver() -> None:
    from engine.rules import parse_stay_value
    from engine.solver import DEFAULT_STAY_VALUE, solve_fantasyland, stay_bonus

    rules = Rules(variant="pineapple")
    assert rules.with_text_options(["stay_value=12"]).stay_value == 12
    assert rules.with_options(stay_value=12).with_text_options(["stay_value=auto"]) == rules
    assert parse_stay_value(" Default ") is None and parse_stay_value("0") == 0
    for bad in ("-1", "201", "1.5", "²"):
        with pytest.raises(RulesError, match="stay_value"):
            rules.with_text_options([f"stay_value={bad}"])
    with pytest.raises(RulesError, match="between 0 and 200"):
        Rules(variant="pineapple", stay_value=-3)
    assert Rules.from_json(rules.with_options(stay_value=7).to_json()).stay_value == 7
    old = rules.to_json()
    del old["stay_value"]  # a table saved before the option existed
    assert Rules.from_json(old) == rules
    assert stay_bonus(14, rules) == DEFAULT_STAY_VALUE[14]
    assert stay_bonus(14, rules.with_options(stay_value=40)) == 40.0
    assert stay_bonus(14, rules.with_options(stay_value=40), stay_value=3.0) == 3.0
    assert stay_bonus(0, rules.with_options(stay_value=40)) == 0.0
    # the solver follows the option: the same as passing the number, and it can change the set
    import random

    rng = random.Random(5)
    from engine import DECK

    changed = 0
    for _ in range(30):
        cards = rng.sample(list(DECK), 14)
        free = solve_fantasyland(cards, rules.with_options(stay_value=0))
        assert free == solve_fantasyland(cards, rules, stay_value=0.0)
        keen = solve_fantasyland(cards, rules.with_options(stay_value=200))
        assert keen == solve_fantasyland(cards, rules, stay_value=200.0)
        changed += keen.board != free.board
    assert changed > 0


async def test_the_away_clock_is_an_option() -> None:
    """``away_timer``: the clock of a player whose clock ran out, for their later decisions in
    that hand (default 10 s, never more than the clock; 0 gives the whole clock)."""
    assert Rules().away_timer == 10
    for bad in (3, -1, 4000):
        with pytest.raises(RulesError, match="away_timer must be 0"):
            Rules(away_timer=bad)
    assert Rules(variant="pineapple").with_text_options(["away_timer=0"]).away_timer == 0
    assert "10 s for each of their later decisions" in " ".join(Rules(variant="ofc").describe())
    assert "later decisions" not in " ".join(Rules(variant="chinese").describe())
    assert "later decisions" not in " ".join(Rules(away_timer=0).describe())
    clock = Clock()
    svc, rec, store = await make(clock=clock, seed_factory=lambda: "away-option")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", timer=30)
    await svc.join(G, CH, BOB, "bob")
    words, later = await svc.set_options(CH, ALICE, False, away_timer=0)
    assert words == ["clock after a timeout: 10 s → 0 s"] and not later
    with pytest.raises(ServiceError, match="away_timer must be 0"):
        await svc.set_options(CH, ALICE, False, away_timer=2)
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None
    first = t.hand.to_act()[0]
    clock.offset += 31  # the first player's clock runs out ...
    svc.rearm()
    await until(lambda: t.hand is not None and first in t.away and t.hand.to_act() != [first])
    other = t.hand.to_act()[0]
    async with t.lock:
        t.hand.autoplay(other)
        await svc._after_action(t)
    # ... and with the option off their next decision has the whole clock
    assert t.hand.to_act() == [first] and t.deadlines[first] - clock() > 25
    def ran_out() -> list[str]:
        return [str(e[1]) for e in rec.events if e[0] == "notice" and "Time ran out" in str(e[1])]

    await until(lambda: bool(ran_out()))  # (the notice is posted after the timeout's move)
    notice = ran_out()[0]
    assert " s a decision" not in notice and "They play on in this hand and sit out" in notice
    await svc.shutdown()
    await store.close()
