"""The table service without Discord: in-memory store, recording notifier, movable clock."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import bot.service as service_module
from bot.service import ServiceError, TableService
from bot.store import Store
from bot.thinker import Hung, Thinker
from engine import Card, parse_cards

G, CH = 10, 20
ALICE, BOB, CAROL = 101, 102, 103


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []
        self.pings: list[bool] = []
        """Each notice's ``ping``, in order."""

    async def table_changed(self, t: Any) -> None:
        self.events.append(("table", t.id))

    async def turn_started(self, t: Any, seats: list[int], requirement: Any) -> None:
        self.events.append(("turn", seats))

    async def fantasyland_dealt(self, t: Any, seat_no: int) -> None:
        self.events.append(("fantasyland", seat_no))

    async def showdown(self, t: Any, result: Any) -> None:
        self.events.append(("showdown", result))

    async def notice(self, t: Any, text: str, *, ping: bool = True) -> None:
        self.events.append(("notice", text))
        self.pings.append(ping)


class Clock:
    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


async def make(path: Path | str = ":memory:", **kw: Any) -> tuple[TableService, Recorder, Store]:
    store = await Store.open(path)
    rec = Recorder()
    svc = TableService(store, rec, **{"next_hand_delay": 0.01, **kw})
    return svc, rec, store


async def heads_up(
    seed: str, variant: str = "ofc", start: bool = True, **kw: Any
) -> tuple[TableService, Recorder, Store, Any]:
    """Alice's table with Bob seated (the first hand dealt unless ``start`` is False)."""
    svc, rec, store = await make(seed_factory=lambda: seed, **kw)
    await svc.new_table(G, CH, ALICE, "alice", variant=variant)
    await svc.join(G, CH, BOB, "bob")
    if start:
        await svc.start(CH, ALICE)
    return svc, rec, store, svc.table_in_channel(CH)


async def until(condition: Callable[[], bool], seconds: float = 4.0) -> None:
    """Let the service's background tasks run until ``condition()`` holds or ``seconds`` pass
    (the caller asserts what it needs afterwards)."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        await asyncio.sleep(0.01)


async def finish_by_autoplay(svc: TableService, channel: int = CH) -> None:
    """Autoplay every seat until the hand is over (settled, unless settling failed)."""
    t = svc.table_in_channel(channel)
    while t.hand is not None and not t.hand.is_over:
        hs = t.hand.to_act()[0]
        async with t.lock:
            t.hand.autoplay(hs)
            await svc._after_action(t)


async def test_leave_waits_for_the_fantasyland_it_owes() -> None:
    svc, rec, store = await make(seed_factory=lambda: "svc-fl")
    await svc.new_table(G, CH, ALICE, "alice", variant="pineapple")
    await svc.join(G, CH, BOB, "bob")
    t = svc.table_in_channel(CH)
    # the last hand (alice and bob) earned alice a fantasyland
    await store.update_table(t.id, extra={"fantasyland": {"0": 14}, "fantasyland_owed_by": [0, 1]})
    await svc._refresh(t)
    text = await svc.leave(CH, BOB)
    assert "after the fantasyland hand" in text
    assert t.seat_of_user(BOB).leaving
    await svc.start(CH, ALICE)  # bob still plays the fantasyland hand he helped earn
    assert t.hand is not None and t.hand.n == 2 and t.hand.fantasyland[t.hand_seat_of(0)] == 14
    await svc.shutdown()
    await store.close()


async def test_sitting_out_player_is_not_dealt_and_stack_cap_applies() -> None:
    deck = parse_cards(
        # bob (left of the button) gets trash; alice the nuts; streets alternate bob, alice
        "2c 3d 4h 5s 7c  Ah Ad Ac Kh Kd"
    )
    svc, rec, store = await make(seed_factory=lambda: "svc-cap", deck_factory=lambda t: deck)
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=5, buyin=500)
    await svc.join(G, CH, BOB, "bob", buyin=10)
    await svc.join(G, CH, CAROL, "carol", buyin=100)
    await svc.sit_out(CH, CAROL, True)
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None and t.hand.n == 2  # carol sits out
    await finish_by_autoplay(svc)
    await asyncio.sleep(0.05)
    result = t.last_result
    assert result is not None and result.units is not None
    assert all(-u <= 10 for u, uid in zip(result.units, result.user_ids, strict=True)
               if uid == BOB)
    assert sum(result.units) == 0
    assert await store.stack(t.id, BOB) >= 0
    assert await store.verify_ledger() == []
    await svc.shutdown()
    await store.close()


async def _stopped_while_a_turn_runs(db: Path, clock: Clock, seed: str) -> int:
    """A heads-up ofc hand dealt (10 s clock), the service stopped, then a minute passes (the
    bot was down longer than the clock): the hand seat whose turn it was."""
    svc, rec, store = await make(db, clock=clock, seed_factory=lambda: seed)
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", timer=10)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    first = int(svc.table_in_channel(CH).hand.turn)
    await svc.shutdown()
    await store.close()
    clock.offset += 60
    return first


async def test_a_clock_that_ran_out_while_the_bot_was_down_gets_a_grace(tmp_path: Path) -> None:
    """The bot was down past the player's deadline: nobody could act, so the clock does not
    act at once (it sat the player out for the bot's outage); it gets ``RESUME_GRACE`` from
    the resume (the player is pinged again), then acts as any clock."""
    clock = Clock()
    db = tmp_path / "svc.sqlite3"
    first = await _stopped_while_a_turn_runs(db, clock, "svc-rec")
    svc2, rec2, store2 = await make(db, clock=clock)
    await svc2.recover()
    t2 = svc2.table_in_channel(CH)
    await asyncio.sleep(0.3)
    assert t2.hand is not None and not t2.hand.autoplayed[first]
    assert t2.deadlines[first] >= clock() + service_module.RESUME_GRACE - 1
    await until(lambda: ("turn", [first]) in rec2.events)
    assert ("turn", [first]) in rec2.events  # pinged again
    clock.offset += service_module.RESUME_GRACE + 1
    svc2.rearm()
    await until(lambda: t2.hand is not None and bool(t2.hand.autoplayed[first]) and any(
        "Time ran out" in str(e[1]) for e in rec2.events if e[0] == "notice"))
    assert t2.hand is not None and t2.hand.autoplayed[first] == 1
    assert any("Time ran out" in str(e[1]) for e in rec2.events if e[0] == "notice")
    assert any("play resumes" in str(e[1]) for e in rec2.events if e[0] == "notice")
    await svc2.shutdown()
    await store2.close()


async def test_loaded_tables_wait_for_resume(tmp_path: Path) -> None:
    """Loaded at the start, a table does nothing until the bot is connected (``resume``): a
    start that cannot connect, tried again and again, posted a notice at every table each
    time and played the timeouts of players who could not reach the bot."""
    clock = Clock()
    db = tmp_path / "svc.sqlite3"
    first = await _stopped_while_a_turn_runs(db, clock, "svc-load")  # its deadline passed
    for _attempt in range(3):  # starts that never connect
        svc2, rec2, store2 = await make(db, clock=clock)
        assert len(await svc2.load_tables()) == 1
        await asyncio.sleep(0.2)
        t2 = svc2.tables[next(iter(svc2.tables))]
        assert rec2.events == [] and t2.timer is None and not t2.hand.autoplayed[first]
        with pytest.raises(ServiceError, match="resuming this table"):
            svc2.table_in_channel(CH)
        with pytest.raises(ServiceError, match="resuming this table"):
            await svc2.place_text(CH, ALICE, "Ah top")
        await svc2.shutdown()
        await store2.close()
    svc3, rec3, store3 = await make(db, clock=clock)
    await svc3.load_tables()
    await svc3.resume()
    t3 = svc3.table_in_channel(CH)
    clock.offset += service_module.RESUME_GRACE + 1  # (the grace after a restart)
    svc3.rearm()
    await until(lambda: bool(t3.hand.autoplayed[first]))
    notices = [str(e[1]) for e in rec3.events if e[0] == "notice"]
    assert sum("play resumes" in n for n in notices) == 1
    await svc3.resume()  # a later connection: nothing more
    assert sum("play resumes" in str(e[1]) for e in rec3.events if e[0] == "notice") == 1
    await svc3.shutdown()
    await store3.close()


async def test_errors_leave_everything_unchanged() -> None:
    svc, rec, store = await make(seed_factory=lambda: "svc-err")
    with pytest.raises(ServiceError, match="no table in this channel"):
        await svc.join(G, CH, BOB, "bob")
    await svc.new_table(G, CH, ALICE, "alice", variant="pineapple")
    with pytest.raises(ServiceError, match="2 to 3 players"):
        await svc.new_table(G, CH + 1, BOB, "bob", variant="pineapple", seats=4)
    with pytest.raises(ServiceError, match="At least 2 players"):
        await svc.start(CH, ALICE)
    with pytest.raises(ServiceError, match="stake is at most"):
        await svc.new_table(G, CH + 2, BOB, "bob", stake=10_000)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    before = t.hand.to_json()
    hs = t.hand.turn
    other = ALICE if t.hand_seats[hs] != 0 else BOB
    with pytest.raises(ServiceError, match=r"turn; you are pinged when it is yours\.$"):
        await svc.place_text(CH, other, "Ah top")  # (the engine's message, now a sentence)
    with pytest.raises(ServiceError, match="Only members with Manage Server"):
        await svc.grant(G, BOB, BOB, "bob", 100, manage=False)
    assert t.hand.to_json() == before
    assert isinstance(t.hand.pending[hs][0], Card)
    await svc.shutdown()
    await store.close()


async def test_bot_declares_a_natural_in_chinese() -> None:
    dragon = parse_cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    svc, rec, store = await make(seed_factory=lambda: "svc-bot", deck_factory=lambda t: dragon)
    await svc.new_table(G, CH, ALICE, "alice", variant="chinese", bots=1, bot_level="easy")
    await svc.start(CH, ALICE)  # the bot sits left of the button: it is dealt the dragon
    t = svc.table_in_channel(CH)
    await until(lambda: t.hand is not None and any(t.hand.naturals))
    assert t.hand is not None and t.hand.naturals[t.hand.order[0]] == "dragon"
    assert t.practice
    await svc.shutdown()
    await store.close()


async def test_the_bots_decisions_of_a_settled_hand_are_forgotten() -> None:
    """What keeps a bot from thinking twice about one decision is per hand: a practice table
    that runs for days does not pile them up."""
    svc, rec, store = await make(seed_factory=lambda: "svc-keys")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", bots=1, bot_level="easy")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    await until(lambda: bool(t.bot_keys))
    assert {k[0] for k in t.bot_keys} == {1}
    await finish_by_autoplay(svc)
    await until(lambda: t.row.hand_no == 2 and t.hand is not None, seconds=10.0)
    assert t.row.hand_no == 2 and {k[0] for k in t.bot_keys} <= {2}
    await svc.shutdown()
    await store.close()


class HungThinker(Thinker):
    """An AI that never answers: what ``Thinker`` does when a call hangs in its worker."""

    async def run(self, fn: Any, *args: Any, fallback: Any = None, what: str = "") -> Any:
        if fallback is None:
            raise Hung("never answers")
        return await asyncio.to_thread(fallback)


async def test_an_ai_that_does_not_answer_still_plays_every_move() -> None:
    """Timeouts and bots fall back on a plain move (no search, no solver) when the AI hangs;
    a suggestion says to try again."""
    clock = Clock()
    svc, rec, store = await make(seed_factory=lambda: "svc-hung", clock=clock,
                                 thinker=HungThinker())
    await svc.new_table(G, CH, ALICE, "alice", variant="pineapple", bots=1, timer=10)
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    first = t.hand_row.id
    alice = t.hand_seat_of(0)
    await until(lambda: t.hand is not None and t.hand.may_act(alice))  # after the bot's move
    with pytest.raises(ServiceError, match="did not answer in time"):
        await svc.suggest(CH, ALICE)
    for _ in range(12):  # the bot plays, Alice times out: the hand is played to its end
        if t.hand is None or t.hand_row is None or t.hand_row.id != first:
            break
        clock.offset += 11
        svc.rearm()
        await asyncio.sleep(0.3)
    hand = await store.get_hand(first)
    assert hand is not None and hand.status == "done"
    assert any("Time ran out" in str(e[1]) for e in rec.events if e[0] == "notice")
    await svc.shutdown()
    await store.close()


async def test_a_waiting_table_deals_when_a_player_arrives() -> None:
    svc, rec, store = await make(seed_factory=lambda: "svc-wait")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    await svc.sit_out(CH, BOB, True)
    await finish_by_autoplay(svc)
    t = svc.table_in_channel(CH)
    # the notice is sent once the table is marked waiting (after its lock is released)
    await until(lambda: t.waiting and any(
        "Waiting for at least 2 players" in str(e[1]) for e in rec.events))
    assert t.waiting and t.hand is None
    assert any("Waiting for at least 2 players" in str(e[1]) for e in rec.events)
    await svc.join(G, CH, CAROL, "carol")
    await until(lambda: t.hand is not None)
    assert t.hand is not None and t.row.hand_no == 2 and not t.waiting
    assert "carol" in t.hand.names and "bob" not in t.hand.names
    with pytest.raises(ServiceError, match="already being played"):
        await svc.start(CH, ALICE)
    await svc.shutdown()
    await store.close()


async def test_an_empty_stack_is_told_and_buys_in_again_at_its_seat() -> None:
    svc, rec, store = await make(seed_factory=lambda: "svc-broke")
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=10, buyin=100)
    t = svc.table_in_channel(CH)
    await store.ensure_player(G, BOB, "bob")
    await store.seat_player(t.id, 1, G, BOB, "bob", 0)  # a stack a hand has emptied
    await svc._refresh(t)
    with pytest.raises(ServiceError, match=f"<@{BOB}> has no units left at the table: "
                                           "`/ofc join` buys in again"):
        await svc.start(CH, ALICE)
    assert "your stack is empty, so you are not dealt in" in await svc.sit_out(CH, BOB, False)
    with pytest.raises(ServiceError, match="at most 1000 units"):
        await svc.join(G, CH, BOB, "bob", buyin=5000)
    seat = await svc.join(G, CH, BOB, "bob", buyin=50)  # buys in again, same seat
    assert seat.seat_no == 1 and seat.stack == 50 and t.seat_of_user(BOB).stack == 50
    with pytest.raises(ServiceError, match=r"already seated at this table \(50 units"):
        await svc.join(G, CH, BOB, "bob")
    assert await svc.start(CH, ALICE) == "Hand #1 is dealt."
    assert await store.verify_ledger() == []
    await svc.shutdown()
    await store.close()


async def _bob_loses_his_stack(
    leaving: bool = False,
) -> tuple[TableService, Store, Any]:
    """A hand where bob (10 units at 5 a point) gets trash and alice the nuts, played out;
    with ``leaving`` bob asks to leave during it."""
    deck = parse_cards("2c 3d 4h 5s 7c  Ah Ad Ac Kh Kd")  # bob trash, alice the nuts
    svc, rec, store = await make(seed_factory=lambda: "svc-cap", deck_factory=lambda t: deck)
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=5, buyin=500)
    await svc.join(G, CH, BOB, "bob", buyin=10)
    svc.next_hand_delay = 3600.0
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    if leaving:
        assert "after this hand" in await svc.leave(CH, BOB)
    await finish_by_autoplay(svc)
    await until(lambda: t.last_result is not None)
    return svc, store, t


async def test_the_showdown_names_the_players_it_left_with_an_empty_stack() -> None:
    svc, store, t = await _bob_loses_his_stack()
    result = t.last_result
    assert result is not None
    assert await store.stack(t.id, BOB) == 0  # capped at his 10 units
    assert result.broke == (BOB,)
    assert f"<@{BOB}> has no units left" in svc._why_waiting(t)
    await svc.shutdown()
    await store.close()


async def test_a_player_leaving_is_not_told_to_buy_in_again() -> None:
    svc, store, t = await _bob_loses_his_stack(leaving=True)
    assert t.last_result is not None and t.last_result.broke == ()
    await svc.shutdown()
    await store.close()


async def test_a_surrender_confirmed_late_does_not_surrender_the_next_hand() -> None:
    svc, rec, store, t = await heads_up("svc-late", "chinese")
    asked = svc.surrender_check(CH, ALICE)  # /ofc surrender asks; alice waits
    assert asked == 1
    await finish_by_autoplay(svc)
    await until(lambda: t.row.hand_no == 2 and t.hand is not None)
    with pytest.raises(ServiceError, match="Hand #1 is over: nothing was done"):
        await svc.surrender(CH, ALICE, asked)  # the old prompt's button
    assert t.hand is not None and not any(t.hand.surrendered)
    assert "You surrendered" in await svc.surrender(CH, ALICE, svc.surrender_check(CH, ALICE))
    await svc.shutdown()
    await store.close()


async def test_a_player_with_no_units_can_practise_for_nothing() -> None:
    """A broke player is told how to play anyway: a stake-0 table takes a buy-in of 0 (and
    only it does), and its hands against a bot are dealt and played."""
    svc, rec, store = await make(seed_factory=lambda: "free")
    player = await store.ensure_player(G, ALICE, "alice")
    await store.grant(G, ALICE, -player.balance, ALICE, "test: broke")
    with pytest.raises(ServiceError, match="play for no units with `stake:0 buyin:0`"):
        await svc.new_table(G, CH, ALICE, "alice", variant="ofc", bots=1)
    with pytest.raises(ServiceError, match="0 only at a table with stake 0"):
        await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=1, buyin=0, bots=1)
    t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=0, buyin=0, bots=1)
    await svc.start(CH, ALICE)
    assert t.hand is not None and len(t.hand_seats) == 2
    await finish_by_autoplay(svc)
    await until(lambda: any(kind == "showdown" for kind, _ in rec.events))
    assert any(kind == "showdown" for kind, _ in rec.events)
    assert (await store.player_stats(G, ALICE)).balance == 0
    await svc.shutdown()
    await store.close()


async def test_a_new_hand_is_never_seen_with_the_old_hand_number(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While the table is read back after a deal (an await: others run meanwhile without the
    lock), memory already has the new hand's number with the new hand (it had the old one:
    a showdown-time reader saw hand 1 with the cards of hand 2)."""
    svc, rec, store, _ = await heads_up("svc-number", start=False)
    seen: list[tuple[int, bool]] = []
    refresh = svc._refresh

    async def spy(table: Any) -> None:
        seen.append((table.row.hand_no, table.hand is not None))
        await refresh(table)

    monkeypatch.setattr(svc, "_refresh", spy)
    await svc.start(CH, ALICE)
    assert (1, True) in seen and (0, True) not in seen
    await svc.shutdown()
    await store.close()


async def test_a_table_above_a_lowered_server_maximum_says_why_it_takes_no_seat() -> None:
    """The server's maximum stake (or buy-in) lowered after the table opened: the joiner was
    told "The stake is at most 2 units per point on this server", which they could not act
    on (they chose no stake)."""
    svc, rec, store, t = await heads_up("lowered", start=False)
    await svc.update_settings(G, True, max_buyin=150, default_buyin=100)
    with pytest.raises(ServiceError, match=r"buy-in \(200\) is above .* at most 150"):
        await svc.join(G, CH, CAROL, "carol")
    seat = await svc.join(G, CH, CAROL, "carol", buyin=150)  # the way out it names
    assert seat.stack == 150
    await svc.leave(CH, CAROL)
    await svc.update_settings(G, True, max_stake=0)
    with pytest.raises(ServiceError, match="plays for 1 unit per point, above this server's "
                                           "maximum stake now \\(0\\)"):
        await svc.join(G, CH, CAROL, "carol", buyin=100)
    assert t.seat_of_user(CAROL) is None
    await svc.shutdown()
    await store.close()


async def test_a_table_above_a_lowered_max_stake_takes_no_buy_ins_after_a_restart_too(
    tmp_path: Path,
) -> None:
    """The server's maximum stake lowered below a table's: the table knows it takes no new
    buy-ins (``/ofc tables``, an emptied stack's advice), at once and after a restart; raised
    again, it takes them again."""
    db = tmp_path / "ofc.sqlite3"
    svc, rec, store = await make(db)
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=5, buyin=500)
    t = svc.table_in_channel(CH)
    assert t.takes_buy_ins
    await svc.update_settings(G, True, max_stake=2)
    assert not t.takes_buy_ins and ("table", t.id) in rec.events  # (its message says so)
    await svc.shutdown()
    await store.close()
    svc2, rec2, store2 = await make(db)
    (t2,) = await svc2.load_tables()
    assert t2.over_max_stake and not t2.takes_buy_ins
    await svc2.update_settings(G, True, max_stake=5)
    assert t2.takes_buy_ins
    await svc2.shutdown()
    await store2.close()


async def test_a_stake_0_table_takes_no_buy_in() -> None:
    """A table for no units: opened and joined without a buy-in (the server's default is for
    tables with stakes), a buy-in asked for there is refused, and nobody's balance moves."""
    svc, rec, store = await make()
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", stake=0)
    with pytest.raises(ServiceError, match=r"takes no buy-in: leave `buyin` out \(or 0\)\.$"):
        await svc.join(G, CH, BOB, "bob", buyin=50)
    seat = await svc.join(G, CH, BOB, "bob")
    t = svc.table_in_channel(CH)
    assert seat.stack == 0 and t.seat_of_user(ALICE) is not None
    assert all(s.stack == 0 for s in t.seats)
    assert await store.wallet(G, ALICE) == (1000, 0) and await store.wallet(G, BOB) == (1000, 0)
    with pytest.raises(ServiceError, match="takes no buy-in"):
        await svc.new_table(G, CH + 1, CAROL, "carol", variant="ofc", stake=0, buyin=10)
    await svc.shutdown()
    await store.close()


async def test_a_timeout_plays_the_arrangement_left_in_the_panel() -> None:
    """Every card on a row but Confirm not pressed in time: the timeout plays that, not the
    AI's move; an arrangement that is not a whole move is left to the AI."""
    clock = Clock()
    svc, rec, store, t = await heads_up("draft-timeout", clock=clock)
    assert t.hand is not None
    hs = t.hand.turn
    seat_no = t.hand_seats[hs]
    user = t.seat_by_no(seat_no).user_id
    req = t.hand.requirement(hs)
    assert req is not None and req.place == 5
    cards = [str(c) for c in req.cards]
    step = svc.step_of(t, hs)
    await svc.panel_action(t.id, user, seat_no, 1, step, "pick", cards)
    await svc.panel_action(t.id, user, seat_no, 1, step, "bottom", ())  # all five, bottom
    clock.offset += 100
    svc.rearm()
    await until(lambda: t.hand is not None and len(t.hand.boards[hs]) == 5)
    assert t.hand is not None and [str(c) for c in t.hand.boards[hs].rows[2]] == cards
    assert t.hand.autoplayed[hs] == 1  # a timeout all the same (the short clock follows)
    # the other player's half arrangement (two cards on top) is not a move: the AI plays
    other = t.hand.turn
    req = t.hand.requirement(other)
    assert req is not None and other != hs
    step = svc.step_of(t, other)
    other_no = t.hand_seats[other]
    other_user = t.seat_by_no(other_no).user_id
    await svc.panel_action(t.id, other_user, other_no, 1, step, "pick",
                           [str(c) for c in req.cards[:2]])
    await svc.panel_action(t.id, other_user, other_no, 1, step, "top", ())
    clock.offset += 100
    svc.rearm()
    await until(lambda: t.hand is not None and len(t.hand.boards[other]) == 5)
    assert t.hand is not None and len(t.hand.boards[other]) == 5
    await svc.shutdown()
    await store.close()


async def test_a_timeout_that_ends_the_players_part_promises_no_short_clock() -> None:
    """Chinese: the one set was the player's whole hand, so the notice says only that they sit
    out from the next hand (it promised "10 s a decision"); /ofc sitout by a player whose set
    is done does not say they still play the hand."""
    clock = Clock()
    svc, rec, store = await make(clock=clock, seed_factory=lambda: "chinese-timeout")
    await svc.new_table(G, CH, ALICE, "alice", variant="chinese", timer=10)
    await svc.join(G, CH, BOB, "bob")
    await svc.join(G, CH, CAROL, "carol")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    assert t.hand is not None
    alice = t.hand_seat_of(t.seat_of_user(ALICE).seat_no)
    async with t.lock:  # alice sets her hand herself
        t.hand.autoplay(alice)
        await svc._after_action(t)
    text = await svc.sit_out(CH, ALICE, True)
    assert "still play" not in text
    text = await svc.sit_out(CH, BOB, True)  # bob has his set to make
    assert "You still play the hand being played (or `/ofc surrender`)." in text
    clock.offset += 200  # bob and carol let their clocks run out
    svc.rearm()
    await until(lambda: any("Time ran out" in str(e[1]) for e in rec.events if e[0] == "notice"))
    (notice,) = [str(e[1]) for e in rec.events if e[0] == "notice" and "Time ran out" in str(e[1])]
    assert f"<@{BOB}>" in notice and f"<@{CAROL}>" in notice
    assert "They sit out from the next hand" in notice and " s a decision" not in notice
    await svc.shutdown()
    await store.close()


class SlowNotices(Recorder):
    """A channel where a plain message takes longer to go out than a showdown image."""

    async def notice(self, t: Any, text: str, *, ping: bool = True) -> None:
        await asyncio.sleep(0.2)
        await super().notice(t, text, ping=ping)


async def test_a_timeout_that_ends_the_hand_is_told_before_its_showdown() -> None:
    """Was flaky (tests/e2e/test_chinese_review.py's set clock): the notice of the timeout
    that played the hand's last move and the showdown went out from two tasks, so a slow
    notice came after the showdown it explains.  Now the showdown's task says it first."""
    clock = Clock()
    store = await Store.open(":memory:")
    rec = SlowNotices()
    svc = TableService(store, rec, next_hand_delay=60, clock=clock,
                       seed_factory=lambda: "timeout-order")
    await svc.new_table(G, CH, ALICE, "alice", variant="chinese", timer=10)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    clock.offset += 200  # nobody sets: both clocks run out, the bot sets both hands
    svc.rearm()
    await until(lambda: any(e[0] == "showdown" for e in rec.events))
    kinds = [(e[0], e[0] == "notice" and "Time ran out" in str(e[1])) for e in rec.events
             if e[0] in ("notice", "showdown")]
    assert kinds == [("notice", True), ("showdown", False)], rec.events
    assert t.hand is None and t.last_result is not None
    await svc.shutdown()
    await store.close()


async def test_a_grant_keeps_its_reason_on_one_line_and_the_audit_is_for_managers() -> None:
    svc, rec, store = await make()
    with pytest.raises(ServiceError, match="at most 200"):
        await svc.grant(G, ALICE, BOB, "bob", 5, True, "x" * 201)
    assert await svc.audit(G, True) == []  # nothing granted
    await svc.grant(G, ALICE, BOB, "bob", 5, True, "  first\n\tplace  ")
    (entry,) = await svc.audit(G, True, 1, BOB)
    assert (entry.by_user_id, entry.amount, entry.reason) == (ALICE, 5, "first place")
    with pytest.raises(ServiceError, match="Manage Server"):
        await svc.audit(G, False)
    with pytest.raises(ServiceError, match="1 to 25"):
        await svc.audit(G, True, 26)
    assert await svc.audit(G, True, 5, CAROL) == []
    await svc.shutdown()
    await store.close()


async def test_the_timeout_notice_of_a_player_leaving_after_the_hand_says_so() -> None:
    """Found by the clocks review: a player who asked to leave after the hand and then ran
    out of time was told they "sit out from the next hand (`/ofc sitin` to come back)" (and
    `/ofc sitin` takes the leave back); the notice says they leave after this hand."""
    clock = Clock()
    svc, rec, store, t = await heads_up("leave-timeout", clock=clock)
    assert t.hand is not None and t.hand.turn is not None
    hs = t.hand.turn
    seat = t.seat_by_no(t.hand_seats[hs])
    assert seat is not None
    await svc.leave(CH, seat.user_id)
    clock.offset += t.deadlines[hs] - clock() + 1
    svc.rearm()
    await until(lambda: any("Time ran out" in str(e[1]) for e in rec.events
                            if e[0] == "notice"))
    text = next(str(e[1]) for e in rec.events if e[0] == "notice" and "Time ran out" in e[1])
    assert text == (f"⏰ Time ran out for <@{seat.user_id}>: the AI played that move for them."
                    " They play on in this hand (10 s a decision until they act again) and "
                    "leave the table after it, as asked.")
    await svc.shutdown()
    await store.close()


def test_the_timeout_notice_of_two_players_one_leaving() -> None:
    from types import SimpleNamespace

    from engine import Hand, Rules

    hand = Hand(Rules(variant="chinese"), ["A", "B", "C"], seed="two-out")
    t: Any = SimpleNamespace(hand=hand, rules=hand.rules,
                             hand_seat_of=lambda no: no)
    stay = SimpleNamespace(user_id=1, seat_no=0, leaving=False)
    go = SimpleNamespace(user_id=2, seat_no=1, leaving=True)
    text = TableService._timeout_text(t, [stay, go])  # type: ignore[list-item]
    assert text == ("⏰ Time ran out for <@1>, <@2>: the AI played that move for them. <@1> "
                    "plays on in this hand (10 s a decision until they act again) and sits "
                    "out from the next hand (`/ofc sitin` to come back). <@2> plays on in this "
                    "hand (10 s a decision until they act again) and leaves the table after "
                    "it, as asked.")
    assert TableService._timeout_text(t, [stay]).endswith(  # type: ignore[list-item]
        " They play on in this hand (10 s a decision until they act again) and sit out from "
        "the next hand (`/ofc sitin` to come back).")
    # the move a player left arranged in the panel is theirs, not the AI's (found by the
    # README's audit: it was told as the AI's)
    assert TableService._timeout_text(t, [stay], {1}).startswith(  # type: ignore[list-item]
        "⏰ Time ran out for <@1>: the move left arranged in the panel was played for them. ")
    assert TableService._timeout_text(t, [stay, go], {2}).startswith(  # type: ignore[list-item]
        "⏰ Time ran out for <@1>, <@2>: the move left arranged in the panel was played for "
        "<@2>, the AI's for <@1>. ")


async def test_the_notifier_keeps_nothing_of_a_closed_table() -> None:
    """A channel that refused the bot is remembered (muted, its warning given) while its
    table is open; once the table is closed, its last messages out, nothing of it is kept
    (a long run would otherwise hold every closed table's id)."""
    from types import SimpleNamespace

    from bot.service import ChannelMuted, SafeNotifier

    class Refusing:
        async def notice(self, table: Any, text: str, *, ping: bool = True) -> bool:
            raise ChannelMuted("403 50013: Missing Permissions")

    notifier = SafeNotifier(Refusing())  # type: ignore[arg-type]
    table: Any = SimpleNamespace(id=7, row=SimpleNamespace(channel_id=70, status="open"))
    await notifier.notice(table, "hello")
    assert notifier.muted(table)
    table.row.status = "closed"
    await notifier.notice(table, "The table is closed.")
    assert not notifier.muted(table)
    assert notifier._muted == set() and notifier._told == set()
    notifier._muted.add(8)
    notifier._told.add(8)
    notifier.forget(8)  # (what the service does when it forgets a table)
    assert notifier._muted == set() and notifier._told == set()
