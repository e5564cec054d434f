"""A review of the fantasyland lifecycle end to end: the hand dealt by DM (or, DMs closed, from
the channel's button, privately), set from the DM panel, ``/ofc place`` or the channel panel
(two at once), the clock running out, sitting out / leaving / closing during it, the fantasyland
owed across a sit-out, a restart and an options change, progressive pineapple discards, staying
for several hands, two players and a bot in fantasyland, ``/ofc suggest`` and the button rule.

Every test checks what it can of: the right cards dealt, nothing hidden in the channel or in
another player's messages, every interaction answered once, units summing to zero and no
exception logged."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from typing import Any

import pytest

from engine.cards import Card
from engine.solver import solve_fantasyland

from .conftest import World, fill_move, hs_of, make_world, panel_cards, resumed_table, table_of
from .fakediscord import FakeMessage, FakeUser

pytestmark = pytest.mark.e2e


# --------------------------------------------------------------------------- helpers
def user_by_id(w: World, uid: int) -> FakeUser | None:
    return next((u for u in w.users.values() if u.id == uid), None)


def regular_acting(w: World) -> list[FakeUser]:
    """The humans whose street it is (not fantasyland sets)."""
    t = table_of(w)
    if t.hand is None:
        return []
    out = []
    for hs in t.hand.to_act():
        if t.hand.fantasyland[hs]:
            continue
        seat = t.seat_by_no(t.hand_seats[hs])
        u = user_by_id(w, seat.user_id) if seat is not None else None
        if u is not None:
            out.append(u)
    return out


def clean_set(cards: Sequence[str], rules: Any = None) -> tuple[list[str], list[str], list[str],
                                                                  list[str]]:
    """The solver's setting: top, middle, bottom, discards (as text)."""
    sol = solve_fantasyland([Card(c) for c in cards], rules)
    top, mid, bot = (list(map(str, r)) for r in sol.board.rows)
    return top, mid, bot, [str(c) for c in sol.discards]


def set_move(cards: Sequence[str], rules: Any = None) -> str:
    top, mid, bot, disc = clean_set(cards, rules)
    move = f"{' '.join(top)} top {' '.join(mid)} middle {' '.join(bot)} bottom"
    if disc:
        move += f" {' '.join(disc)} discard"
    return move


async def play_streets(w: World, until_over: bool = True, max_actions: int = 200) -> int:
    """The regular humans play their streets by text (foul allowed) until no regular human is
    to act (the hand may then wait for fantasyland sets); how many moves."""
    n = 0
    while n < max_actions:
        t = table_of(w)
        if t.hand is None or t.hand.is_over:
            return n
        acting = regular_acting(w)
        if not acting:
            if not until_over:
                return n
            await asyncio.sleep(0.05)
            # bots and fantasyland sets: wait for them
            if all(t.hand.fantasyland[hs] or t.seat_by_no(t.hand_seats[hs]).is_bot
                   for hs in t.hand.to_act()) and any(
                    not t.seat_by_no(t.hand_seats[hs]).is_bot for hs in t.hand.to_act()):
                return n
            continue
        u = acting[0]
        hs = hs_of(w, u)
        cards = panel_cards((await w.slash(u, "ofc hand")).content)
        r = await w.slash(u, "ofc place", move=fill_move(t, hs, cards))
        assert r.content.startswith("✅"), r.content
        n += 1
    return n


def visible(w: World, user: FakeUser, since: int = 0) -> str:
    return "\n".join(m.text for m in w.fake.visible_to(user) if m.id > since)


def assert_unseen(w: World, user: FakeUser, cards: Sequence[str] | set[str],
                  since: int = 0) -> None:
    for m in w.fake.visible_to(user):
        if m.id <= since:
            continue
        for c in cards:
            assert not re.search(rf"\b{c}\b", m.text), f"{user.name} saw {c} in {m.text!r}"


def channel_text(w: World, since: int = 0) -> str:
    return "\n".join(m.text for m in w.fake.messages(w.chan, include_ephemeral=False)
                     if m.id > since)


def mark(w: World) -> int:
    return max((m.id for m in w.fake.messages(include_deleted=True)), default=0)


async def open_table(w: World, *others: FakeUser, fantasyland: dict[str, int] | None = None,
                     start: bool = True, **options: Any) -> Any:
    if w.bot is None:
        await w.start_bot()
    await w.slash(w.alice, "ofc new", **{"variant": "ofc", "stake": 1, **options})
    for who in others or (w.bob,):
        r = await w.slash(who, "ofc join")
        assert "sat down" in r.content, r.content
    t = table_of(w)
    if fantasyland:
        await w.store.update_table(t.id, extra={**t.row.extra, "fantasyland": fantasyland})
        await w.service._refresh(t)
    if start:
        r = await w.slash(w.alice, "ofc start")
        assert "is dealt" in r.content, r.content
    return table_of(w)


async def fl_dm(w: World, user: FakeUser, after: int = 0) -> FakeMessage:
    return await w.fake.wait_for_message(
        user, lambda m: "Fantasyland" in (m.content or "") and m.id > after,
        include_existing=True, timeout=10)


async def wait_showdown(w: World, hand_no: int = 1, timeout: float = 30) -> FakeMessage:
    return await w.fake.wait_for_message(
        w.chan, lambda m: f"Showdown — hand #{hand_no}**" in (m.content or ""),
        include_existing=True, timeout=timeout)


async def sums_to_zero(w: World, table_id: int) -> int:
    hands = await w.store.history(table_id, 25)
    for row, results in hands:
        assert sum(r.units for r in results) == 0, (row.number, results)
    assert await w.store.verify_ledger() == []
    return len(hands)


def no_errors_logged(caplog: Any) -> None:
    errors = [f"{r.name}: {r.getMessage()}" for r in caplog.records
              if r.levelno >= logging.ERROR]
    assert errors == [], errors


async def set_by_panel(w: World, user: FakeUser, panel: Any, top: list[str], mid: list[str],
                       bot: list[str], disc: Sequence[str] = ()) -> Any:
    """Arrange the set on a panel message (a DM or an ephemeral), then press Confirm."""
    rec: Any = panel
    for chunk, row in ((top, "Top"), (mid, "Middle"), (bot, "Bottom"), (list(disc), "Discard")):
        if not chunk:
            continue
        msg = rec if isinstance(rec, FakeMessage) else rec.message
        sel = msg.selects()[0]
        rec = await w.select(user, rec, sel["custom_id"], chunk)
        rec = await w.click(user, rec, label=row)
    return await w.click(user, rec, label="Confirm")


# --------------------------------------------------------------------------- the DM
async def test_ofc_fantasyland_by_dm_set_from_the_dm_panel_hidden_until_showdown(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-dm") as w:
        t = await open_table(w, w.bob, w.carol, fantasyland={"0": 13})
        dm = await fl_dm(w, w.alice)
        assert dm.channel.is_dm and dm.files
        cards = panel_cards(dm.content)
        assert len(cards) == 13 and set(cards) == {str(c) for c in t.hand.pending[0]}
        assert "Set 13" in dm.content or "set 13" in dm.content.lower(), dm.content
        assert "time runs out" in dm.content
        assert f"<#{w.chan.id}>" in dm.content
        # nobody else got a DM or sees the cards
        assert not w.fake.dms(w.bob) and not w.fake.dms(w.carol)
        assert_unseen(w, w.bob, cards)
        assert_unseen(w, w.carol, cards)
        # the others play meanwhile; alice sets from the DM
        await play_streets(w, until_over=False, max_actions=2)
        top, mid, bot, _ = clean_set(cards)
        done = await set_by_panel(w, w.alice, dm, top, mid, bot)
        assert done.content.startswith("✅") and "Your hand is set" in done.content
        assert not done.message.buttons() and not done.message.selects()
        assert t.hand.done[0] and t.hand.boards[0].is_complete
        await asyncio.sleep(0.3)
        for other in (w.bob, w.carol):
            assert_unseen(w, other, cards)
        # the table message says she is set, without the cards
        assert "alice" in channel_text(w)
        await play_streets(w)
        show = await wait_showdown(w)
        for c in cards:
            assert re.search(rf"\b{c}\b", show.content), c
        assert await sums_to_zero(w, t.id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_dm_panel_confirm_and_channel_place_at_once_set_once(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-race") as w:
        t = await open_table(w, fantasyland={"1": 13})
        dm = await fl_dm(w, w.bob)
        cards = panel_cards(dm.content)
        top, mid, bot, _ = clean_set(cards)
        rec: Any = dm
        for chunk, row in ((top, "Top"), (mid, "Middle"), (bot, "Bottom")):
            msg = rec if isinstance(rec, FakeMessage) else rec.message
            rec = await w.select(w.bob, rec, msg.selects()[0]["custom_id"], chunk)
            rec = await w.click(w.bob, rec, label=row)
        confirm = rec.message.button("Confirm")["custom_id"]
        # the same set from the DM panel, the channel panel and /ofc place, all at once
        chan_panel = await w.slash(w.bob, "ofc hand")
        assert chan_panel.ephemeral and sorted(panel_cards(chan_panel.content)) == sorted(cards)
        recs = [await w.fake.click(w.bob, rec.message, confirm, wait=False),
                await w.fake.slash(w.bob, w.chan, "ofc place", wait=False,
                                   options={"move": set_move(cards)})]
        for r in recs:
            await w.fake.wait_answered(r)
            assert r.ok
        answers = [(r.callback_data or {}).get("content") or "" for r in recs]
        assert len([a for a in answers if a.startswith("✅")]) == 1, answers
        assert len([a for a in t.hand.log if a.seat == 1]) == 1
        # the channel panel is now stale: it says so and shows no card of another player
        assert "Chosen so far" in chan_panel.content  # (the DM's draft: the same panel)
        r = await w.click(w.bob, chan_panel, label="Undo")
        assert "already done" in r.content, r.content
        assert_unseen(w, w.alice, cards)
        await play_streets(w)
        await wait_showdown(w)
        assert await sums_to_zero(w, t.id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_closed_dms_fallback_the_channel_is_told_without_cards_and_the_panel_sets(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-closed") as w:
        w.bob.dms_open = False
        m0 = mark(w)
        t = await open_table(w, w.bob, w.carol, fantasyland={"1": 14}, variant="pineapple")
        note = await w.fake.wait_for_message(
            w.chan, lambda m: "DMs are closed" in (m.content or ""), include_existing=True)
        assert not note.ephemeral and f"<@{w.bob.id}>" in note.content
        cards = [str(c) for c in t.hand.pending[hs_of(w, w.bob)]]
        assert len(cards) == 14
        for c in cards:
            assert not re.search(rf"\b{c}\b", channel_text(w, m0)), c
        # another player pressing the notice's button gets their own panel, not bob's
        r = await w.click(w.carol, note, label="Open my panel")
        assert r.ephemeral and not r.message.is_visible_to(w.bob)
        assert_unseen(w, w.carol, cards)
        panel = await w.click(w.bob, note, label="Open my panel")
        assert panel.ephemeral and sorted(panel_cards(panel.content)) == sorted(cards)
        top, mid, bot, disc = clean_set(cards, t.hand.rules)
        done = await set_by_panel(w, w.bob, panel, top, mid, bot, disc)
        assert done.content.startswith("✅"), done.content
        await play_streets(w)
        await wait_showdown(w)
        await asyncio.sleep(0.3)
        for other in (w.alice, w.carol):
            assert_unseen(w, other, disc)
        assert await sums_to_zero(w, t.id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean(allow_api_errors={50007})


# --------------------------------------------------------------------------- the clock
async def test_fantasyland_clock_runs_out_the_solver_sets_clean_and_the_player_sits_out(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-timeout") as w:
        t = await open_table(w, w.bob, w.carol, fantasyland={"0": 17}, variant="pineapple")
        dm = await fl_dm(w, w.alice)
        cards = panel_cards(dm.content)
        assert len(cards) == 17
        assert t.rules.set_timer == 120 and 119 <= t.deadlines[0] - w.clock() <= 121
        m0 = mark(w)
        # the regular players' clock is 60 s: they play; then hers runs out at 120 s
        await play_streets(w, until_over=False, max_actions=2)
        w.clock.offset += 121
        w.service.rearm()
        await w.fake.wait_until(lambda: t.hand is None or t.hand.done[0], 20, "alice set")
        notice = await w.fake.wait_for_message(
            w.chan, lambda m: "Time ran out" in (m.content or ""), include_existing=True)
        assert f"<@{w.alice.id}>" in notice.content
        if t.hand is not None:
            board = t.hand.boards[0]
            discards = [str(c) for c in t.hand.discards[0]]
            assert board.is_complete and not board.is_foul(t.hand.rules)
            assert len(discards) == 4
        seat = t.seat_of_user(w.alice.id)
        assert seat.sitting_out
        # the DM panel now says the bot played it (no other player's card in it)
        r = await w.click(w.alice, dm, label="Undo") if any(
            b.get("label") == "Undo" and not b.get("disabled") for b in dm.buttons()) else None
        if r is not None:
            assert "time ran out" in r.content.lower() or "done" in r.content.lower(), r.content
        for other in (w.bob, w.carol):
            assert_unseen(w, other, cards, since=m0)
        await play_streets(w)
        await wait_showdown(w)
        (row, results), = await w.store.history(t.id, 1)
        discards = row.state["engine"]["state"]["discards"][0]
        assert len(discards) == 4
        for other in (w.bob, w.carol):
            assert_unseen(w, other, discards)
        assert not next(r for r in results if r.user_id == w.alice.id).fouled
        assert await sums_to_zero(w, t.id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- sit out / in
async def test_a_fantasyland_owed_waits_across_sitout_and_is_dealt_at_sitin(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-sitout",
                          next_hand_delay=0.3) as w:
        t = await open_table(w, w.bob, w.carol, fantasyland={"0": 13}, start=False)
        r = await w.slash(w.alice, "ofc sitout")
        assert "Your fantasyland (13 cards) waits for you" in r.content, r.content
        r = await w.slash(w.bob, "ofc start")
        assert "is dealt" in r.content
        t = table_of(w)
        assert t.hand_seat_of(0) is None and not any(t.hand.fantasyland)
        assert t.fantasyland_pending == {0: 13}
        assert not [m for m in w.fake.dms(w.alice) if "Fantasyland" in (m.content or "")]
        button1 = t.row.button
        await play_streets(w)
        await wait_showdown(w, 1)
        assert table_of(w).fantasyland_pending.get(0) == 13
        r = await w.slash(w.alice, "ofc sitin")
        assert "your next hand is your fantasyland (13 cards)" in r.content, r.content
        await w.fake.wait_until(lambda: table_of(w).hand is not None
                                and table_of(w).row.hand_no == 2, 10, "hand 2")
        t = table_of(w)
        hs = t.hand_seat_of(0)
        assert hs is not None and t.hand.fantasyland[hs] == 13
        dm = await fl_dm(w, w.alice)
        assert len(panel_cards(dm.content)) == 13
        assert t.fantasyland_pending == {}
        # the button: hand 2 has a player in fantasyland, so it stays where it was
        assert t.row.button == button1, (button1, t.row.button)
        r = await w.slash(w.alice, "ofc place", move=set_move(panel_cards(dm.content)))
        assert r.content.startswith("✅"), r.content
        await play_streets(w)
        await wait_showdown(w, 2)
        assert await sums_to_zero(w, t.id) == 2
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- restart
async def test_a_restart_during_the_fantasyland_resends_it_and_the_old_dm_panel_works(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-restart") as w:
        t = await open_table(w, fantasyland={"0": 13})
        dm = await fl_dm(w, w.alice)
        cards = panel_cards(dm.content)
        top, mid, bot, _ = clean_set(cards)
        rec = await w.select(w.alice, dm, dm.selects()[0]["custom_id"], top)
        rec = await w.click(w.alice, rec, label="Top")  # a draft, saved
        table_id = t.id
        await w.stop_bot()
        await w.start_bot()
        await w.fake.wait_for_message(
            w.chan, lambda m: "The bot restarted" in (m.content or ""), include_existing=True)
        again = await fl_dm(w, w.alice, after=dm.id)
        assert sorted(panel_cards(again.content)) == sorted(cards)
        assert "Chosen so far" in again.content  # the draft survived
        # the old DM panel still works after the restart
        rec = await w.select(w.alice, dm, dm.selects()[0]["custom_id"], mid)
        assert "Selected" in rec.content, rec.content
        rec = await w.click(w.alice, rec, label="Middle")
        rec = await w.select(w.alice, rec, rec.message.selects()[0]["custom_id"], bot)
        rec = await w.click(w.alice, rec, label="Bottom")
        done = await w.click(w.alice, rec, label="Confirm")
        assert done.content.startswith("✅"), done.content
        # the re-sent DM is stale now, and says so
        r = await w.click(w.alice, again, label="Undo")
        assert "already done" in r.content, r.content
        assert_unseen(w, w.bob, cards)
        await play_streets(w)
        await wait_showdown(w)
        assert await sums_to_zero(w, table_id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- options
async def test_fantasyland_turned_off_mid_hand_the_dealt_one_is_played_nothing_owed_after(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-off",
                          next_hand_delay=0.3) as w:
        t = await open_table(w, w.bob, w.carol, fantasyland={"0": 13, "2": 13}, start=False)
        await w.slash(w.carol, "ofc sitout")  # her fantasyland is carried
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        dm = await fl_dm(w, w.alice)
        r = await w.slash(w.alice, "ofc options", fantasyland=False)
        assert not r.ephemeral, r.content
        assert t.fantasyland_pending == {}  # carol's is gone
        # alice still sets the 13 cards dealt to her
        cards = panel_cards(dm.content)
        r = await w.slash(w.alice, "ofc place", move=set_move(cards))
        assert r.content.startswith("✅"), r.content
        await play_streets(w)
        show = await wait_showdown(w, 1)
        assert not any(t.last_result.fantasyland_next) and "Fantasyland!" not in show.content
        await w.slash(w.carol, "ofc sitin")
        await w.fake.wait_until(lambda: table_of(w).hand is not None
                                and table_of(w).row.hand_no == 2, 10, "hand 2")
        assert not any(table_of(w).hand.fantasyland)
        assert await sums_to_zero(w, t.id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- discards
async def test_progressive_17_discards_never_in_channel_history_or_stats(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-17") as w:
        t = await open_table(w, w.bob, w.carol, fantasyland={"1": 17}, variant="pineapple")
        dm = await fl_dm(w, w.bob)
        cards = panel_cards(dm.content)
        assert len(cards) == 17
        r = await w.slash(w.bob, "ofc place", move=set_move(cards, t.hand.rules))
        assert r.ephemeral and r.content.startswith("✅"), r.content
        await play_streets(w)
        show = await wait_showdown(w)
        (row, _), = await w.store.history(t.id, 1)
        users = row.state["users"]
        discards = {users[i]: d for i, d in enumerate(row.state["engine"]["state"]["discards"])}
        assert len(discards[w.bob.id]) == 4
        for c in discards[w.bob.id]:
            assert not re.search(rf"\b{c}\b", show.content), c
        for who in (w.alice, w.bob, w.carol):
            await w.slash(who, "ofc history")
            await w.slash(who, "ofc stats")
            await w.slash(who, "ofc table")
        await asyncio.sleep(0.3)
        for who in (w.alice, w.bob, w.carol):
            others = [c for u, d in discards.items() if u != who.id for c in d]
            assert_unseen(w, who, others)
        # nor in a public message at all (anyone's)
        allc = [c for d in discards.values() for c in d]
        for c in allc:
            assert not re.search(rf"\b{c}\b", channel_text(w)), c
        assert await sums_to_zero(w, t.id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_a_fantasyland_surrendered_never_shows_its_cards(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-surrender") as w:
        t = await open_table(w, w.bob, w.carol, fantasyland={"1": 15}, variant="pineapple")
        dm = await fl_dm(w, w.bob)
        cards = panel_cards(dm.content)
        ask = await w.slash(w.bob, "ofc surrender")
        r = await w.click(w.bob, ask, label="Yes, surrender")
        assert "surrendered" in r.content, r.content
        await play_streets(w)
        await wait_showdown(w)
        for who in (w.alice, w.carol):
            await w.slash(who, "ofc history")
        await asyncio.sleep(0.3)
        for who in (w.alice, w.carol):
            assert_unseen(w, who, cards)
        assert await sums_to_zero(w, t.id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- suggest
async def test_suggest_is_private_for_a_fantasyland_and_refused_for_a_real_stakes_street(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-suggest") as w:
        t = await open_table(w, w.bob, w.carol, fantasyland={"0": 13})
        dm = await fl_dm(w, w.alice)
        cards = panel_cards(dm.content)
        r = await w.fake.slash(w.alice, w.chan, "ofc suggest", timeout=60)
        assert r.ephemeral and "suggested" in r.content, r.content
        for other in (w.bob, w.carol):
            assert not r.message.is_visible_to(other)
        mover = regular_acting(w)[0]
        r = await w.slash(mover, "ofc suggest")
        assert r.ephemeral and "cheating" in r.content, r.content
        assert_unseen(w, w.bob, cards)
        assert_unseen(w, w.carol, cards)
        r = await w.slash(w.alice, "ofc place", move=set_move(cards))
        assert r.content.startswith("✅")
        r = await w.slash(w.alice, "ofc suggest")
        assert r.ephemeral and r.content.startswith("⚠️"), r.content
        await play_streets(w)
        await wait_showdown(w)
        assert await sums_to_zero(w, t.id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- leave / close
async def test_the_host_in_fantasyland_closes_the_table_mid_hand(tmp_path: Any, caplog: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-close",
                          next_hand_delay=0.1) as w:
        t = await open_table(w, fantasyland={"0": 13})
        start = {u.name: await w.store.balance(w.guild.id, u.id) + t.seat_of_user(u.id).stack
                 for u in (w.alice, w.bob)}
        dm = await fl_dm(w, w.alice)
        r = await w.slash(w.alice, "ofc close")
        assert "close after this hand" in r.content, r.content
        cards = panel_cards(dm.content)
        r = await w.slash(w.alice, "ofc place", move=set_move(cards))
        assert r.content.startswith("✅"), r.content
        await play_streets(w)
        await wait_showdown(w)
        await w.fake.wait_until(lambda: w.chan.id not in w.service._by_channel, 10, "closed")
        end = {u.name: await w.store.balance(w.guild.id, u.id) for u in (w.alice, w.bob)}
        assert sum(end.values()) == sum(start.values())
        assert await sums_to_zero(w, t.id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_the_fantasyland_player_leaves_during_it_and_is_gone_after(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-leave",
                          next_hand_delay=0.1) as w:
        t = await open_table(w, w.bob, w.carol, fantasyland={"1": 13})
        dm = await fl_dm(w, w.bob)
        r = await w.slash(w.bob, "ofc leave")
        assert "leave after this hand" in r.content, r.content
        cards = panel_cards(dm.content)
        r = await w.slash(w.bob, "ofc place", move=set_move(cards))
        assert r.content.startswith("✅"), r.content
        await play_streets(w)
        await wait_showdown(w)
        await w.fake.wait_until(lambda: table_of(w).seat_of_user(w.bob.id) is None, 10,
                                "bob gone")
        await w.fake.wait_until(lambda: table_of(w).hand is not None, 10, "hand 2")
        assert not any(table_of(w).hand.fantasyland)
        assert table_of(w).fantasyland_pending == {}
        assert await sums_to_zero(w, t.id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- stay, button
STAY = "2c 2d 2h 3c 3d 3h 4c 5d 4d 4h 4s 5c 5h".split()  # 222 / 333 4 5 / 444 55: stays
STAY_MOVE = "2c 2d 2h top 3c 3d 3h 4c 5d middle 4d 4h 4s 5c 5h bottom"


def stay_deck(t: Any) -> list[Card]:
    return [Card(c) for c in STAY]


async def test_staying_in_fantasyland_for_several_hands_keeps_the_button(
    tmp_path: Any, caplog: Any
) -> None:
    seeds = iter(f"flr-stay-{i}" for i in range(10))
    async with make_world(tmp_path, seed_factory=lambda: next(seeds), deck_factory=stay_deck,
                          next_hand_delay=0.1) as w:
        t = await open_table(w, fantasyland={"0": 13})
        buttons = []
        last = 0
        for n in (1, 2, 3):
            await w.fake.wait_until(lambda n=n: table_of(w).hand is not None
                                    and table_of(w).row.hand_no == n, 10, f"hand {n}")
            t = table_of(w)
            assert t.hand.fantasyland == (13, 0), (n, t.hand.fantasyland)
            buttons.append(t.hand_seats[t.hand.button])
            dm = await fl_dm(w, w.alice, after=last)
            last = dm.id
            assert sorted(panel_cards(dm.content)) == sorted(STAY)
            r = await w.slash(w.alice, "ofc place", move=STAY_MOVE)
            assert r.content.startswith("✅"), r.content
            await play_streets(w)
            show = await wait_showdown(w, n)
            assert t.last_result.fantasyland_next[0] == 13
            assert "alice" in show.content
        assert buttons == [buttons[0]] * 3, buttons
        assert await sums_to_zero(w, t.id) == 3
        no_errors_logged(caplog)
        w.fake.assert_clean()


def qq_deck(t: Any) -> list[Card] | None:
    """Hand 1 (2 players, ofc, alice on the button acts second): bob's 5 then alternating
    streets; bob ends with QQ on top and a clean board -> fantasyland."""
    if t.row.hand_no != 0:
        return None
    bob = "Qc Qd 2s Ah Ad".split()  # street 1 (5 cards): QQ 2 top-ish, AA ...
    alice1 = "3c 4d 6h 8s Tc".split()
    rest_bob = "9c Kc Kd Ks 7c 7d 7h 8d".split()
    rest_alice = "3d 4h 6s 8c Td 9h 5c Jh".split()
    order = bob + alice1
    for b, a in zip(rest_bob, rest_alice, strict=True):
        order += [b, a]
    return [Card(c) for c in order]


async def test_a_fantasyland_earned_holds_the_others_and_keeps_the_button(
    tmp_path: Any, caplog: Any
) -> None:
    """bob earns fantasyland (QQ on top) in hand 1; alice asks to leave during it: she plays
    the fantasyland hand first; the button stays for it."""
    seeds = iter(f"flr-earn-{i}" for i in range(10))
    async with make_world(tmp_path, seed_factory=lambda: next(seeds), deck_factory=qq_deck,
                          next_hand_delay=0.2) as w:
        t = await open_table(w)
        assert t.hand_seats[t.hand.button] == 0  # alice has the button: bob acts first
        # bob: Qc Qd 2s / Ah Ad 9c 7c 7d / Kc Kd Ks 7h 8d: clean, QQ on top
        moves_bob = ["Qc Qd 2s top Ah Ad middle", "9c middle", "Kc bottom", "Kd bottom",
                     "Ks bottom", "7c middle", "7d middle", "7h bottom", "8d bottom"]
        r = await w.slash(w.alice, "ofc leave")
        assert "after this hand" in r.content
        bi = 0
        while t.hand is not None and not t.hand.is_over:
            (u,) = regular_acting(w)
            hs = hs_of(w, u)
            cards = panel_cards((await w.slash(u, "ofc hand")).content)
            if u is w.bob:
                r = await w.slash(u, "ofc place", move=moves_bob[bi] + " foul")
                bi += 1
            else:
                r = await w.slash(u, "ofc place", move=fill_move(t, hs, cards))
            assert r.content.startswith("✅"), (u.name, r.content)
        show = await wait_showdown(w, 1)
        assert t.last_result.fantasyland_next[1] == 13, (t.last_result.fantasyland_next,
                                                          show.content)
        await w.fake.wait_until(lambda: table_of(w).hand is not None
                                and table_of(w).row.hand_no == 2, 10, "hand 2")
        t = table_of(w)
        assert t.seat_of_user(w.alice.id) is not None  # held for the fantasyland hand
        assert t.hand.fantasyland == (0, 13)
        assert t.hand_seats[t.hand.button] == 0  # the button stayed with alice
        dm = await fl_dm(w, w.bob)
        r = await w.slash(w.bob, "ofc place", move=set_move(panel_cards(dm.content)))
        assert r.content.startswith("✅"), r.content
        await play_streets(w)
        await wait_showdown(w, 2)
        await w.fake.wait_until(lambda: table_of(w).seat_of_user(w.alice.id) is None
                                if w.chan.id in w.service._by_channel else True, 10,
                                "alice gone")
        assert await sums_to_zero(w, t.id) == 2
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- several in FL
async def test_two_players_and_a_bot_in_fantasyland_the_bots_set_hidden_until_showdown(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-three", bot_delay=0.0) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=1, seats=4)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.carol, "ofc join")
        r = await w.slash(w.alice, "ofc addbot", level="easy")
        assert "sat down" in r.content
        t = table_of(w)
        await w.store.update_table(t.id, extra={**t.row.extra,
                                                "fantasyland": {"0": 13, "1": 13, "3": 13}})
        await w.service._refresh(t)
        m0 = mark(w)
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        assert t.hand.fantasyland == (13, 13, 0, 13)
        dma, dmb = await fl_dm(w, w.alice), await fl_dm(w, w.bob)
        ca, cb = panel_cards(dma.content), panel_cards(dmb.content)
        assert not set(ca) & set(cb)
        await w.fake.wait_until(lambda: t.hand.done[3], 20, "the bot set")
        bot_cards = [str(c) for c in t.hand.boards[3].cards]
        assert len(bot_cards) == 13
        r = await w.slash(w.alice, "ofc place", move=set_move(ca))
        assert r.content.startswith("✅")
        await play_streets(w, until_over=False, max_actions=3)
        await w.slash(w.carol, "ofc table")
        await asyncio.sleep(0.3)
        for who in (w.alice, w.bob, w.carol):
            assert_unseen(w, who, bot_cards, since=m0)
        assert_unseen(w, w.bob, ca, since=m0)
        assert_unseen(w, w.carol, ca + cb, since=m0)
        assert_unseen(w, w.alice, cb, since=m0)
        r = await w.slash(w.bob, "ofc place", move=set_move(cb))
        assert r.content.startswith("✅")
        await play_streets(w)
        show = await wait_showdown(w)
        for c in bot_cards + ca + cb:
            assert re.search(rf"\b{c}\b", show.content), c
        assert await sums_to_zero(w, t.id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- more lifecycle
async def test_a_restart_between_the_earning_hand_and_the_fantasyland_deals_it_by_dm(
    tmp_path: Any, caplog: Any
) -> None:
    seeds = iter(f"flr-rs-{i}" for i in range(10))
    async with make_world(tmp_path, seed_factory=lambda: next(seeds), deck_factory=qq_deck) as w:
        t = await open_table(w)
        moves_bob = iter(["Qc Qd 2s top Ah Ad middle", "9c middle", "Kc bottom", "Kd bottom",
                          "Ks bottom", "7c middle", "7d middle", "7h bottom", "8d bottom"])
        while t.hand is not None and not t.hand.is_over:
            (u,) = regular_acting(w)
            hs = hs_of(w, u)
            cards = panel_cards((await w.slash(u, "ofc hand")).content)
            move = next(moves_bob) + " foul" if u is w.bob else fill_move(t, hs, cards)
            r = await w.slash(u, "ofc place", move=move)
            assert r.content.startswith("✅"), (u.name, r.content)
        await wait_showdown(w, 1)
        await w.fake.wait_until(lambda: not any("showdown" in k for k in t.row.extra), 5,
                                "the showdown noted as posted")
        await asyncio.sleep(0.3)
        table_id = t.id
        m1 = mark(w)
        await w.stop_bot()  # (the next deal waits 30 s: the bot stops before it)
        w.service_options["next_hand_delay"] = 0.1
        await w.start_bot()
        t = await resumed_table(w)
        await w.fake.wait_until(lambda: t.hand is not None, 10, "hand 2")
        assert t.row.hand_no == 2 and t.hand.fantasyland == (0, 13)
        assert t.hand_seats[t.hand.button] == 0  # the button stayed
        dm = await fl_dm(w, w.bob)
        cards = panel_cards(dm.content)
        assert_unseen(w, w.alice, cards, since=m1)
        r = await w.slash(w.bob, "ofc place", move=set_move(cards))
        assert r.content.startswith("✅"), r.content
        await play_streets(w)
        await wait_showdown(w, 2)
        assert await sums_to_zero(w, table_id) == 2
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_closed_dms_after_a_restart_the_channel_is_told_again_and_the_button_works(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-closed-rs") as w:
        w.alice.dms_open = False
        t = await open_table(w, fantasyland={"0": 13})
        first = await w.fake.wait_for_message(
            w.chan, lambda m: "DMs are closed" in (m.content or ""), include_existing=True)
        cards = [str(c) for c in t.hand.pending[0]]
        table_id = t.id
        await w.stop_bot()
        await w.start_bot()
        again = await w.fake.wait_for_message(
            w.chan, lambda m: "DMs are closed" in (m.content or "") and m.id > first.id,
            include_existing=True, timeout=10)
        for note in (first, again):  # the old notice's button still works too
            panel = await w.click(w.alice, note, label="Open my panel")
            assert panel.ephemeral and sorted(panel_cards(panel.content)) == sorted(cards)
        top, mid, bot, _ = clean_set(cards)
        done = await set_by_panel(w, w.alice, panel, top, mid, bot)
        assert done.content.startswith("✅"), done.content
        assert_unseen(w, w.bob, cards)
        await play_streets(w)
        await wait_showdown(w)
        assert await sums_to_zero(w, table_id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean(allow_api_errors={50007})


async def test_progressive_turned_off_before_the_deal_deals_14(tmp_path: Any, caplog: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-prog") as w:
        t = await open_table(w, w.bob, fantasyland={"1": 16}, start=False, variant="pineapple")
        r = await w.slash(w.alice, "ofc options", progressive=False)
        assert not r.ephemeral
        assert table_of(w).fantasyland_pending == {1: 14}
        r = await w.slash(w.alice, "ofc start")
        t = table_of(w)
        assert t.hand.fantasyland == (0, 14)
        dm = await fl_dm(w, w.bob)
        assert len(panel_cards(dm.content)) == 14
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_leaving_forfeits_a_carried_fantasyland_and_the_seat_does_not_pass_it_on(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-forfeit",
                          next_hand_delay=0.2) as w:
        t = await open_table(w, w.bob, w.carol, fantasyland={"0": 13}, start=False)
        await w.slash(w.alice, "ofc sitout")
        await w.slash(w.bob, "ofc start")
        r = await w.slash(w.alice, "ofc leave")  # not in the hand: leaves now
        assert "You left the table" in r.content, r.content
        assert table_of(w).fantasyland_pending == {}
        r = await w.slash(w.dave, "ofc join")  # takes seat 0
        assert table_of(w).seat_of_user(w.dave.id).seat_no == 0
        r = await w.slash(w.alice, "ofc join")
        await play_streets(w)
        await wait_showdown(w, 1)
        await w.fake.wait_until(lambda: table_of(w).hand is not None
                                and table_of(w).row.hand_no == 2, 10, "hand 2")
        assert not any(table_of(w).hand.fantasyland)
        assert not [m for m in w.fake.dms(w.dave) if "Fantasyland" in (m.content or "")]
        assert await sums_to_zero(w, t.id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_everyone_in_fantasyland_one_sets_by_dm_the_others_clock_runs_out(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-all",
                          next_hand_delay=0.2) as w:
        t = await open_table(w, w.bob, w.carol, fantasyland={"0": 14, "1": 16, "2": 17},
                             variant="pineapple")
        assert t.hand.fantasyland == (14, 16, 17)
        assert sum(len(p) for p in t.hand.pending) == 47
        dms = {u.name: await fl_dm(w, u) for u in (w.alice, w.bob, w.carol)}
        cards = {n: panel_cards(d.content) for n, d in dms.items()}
        assert [len(cards[n]) for n in ("alice", "bob", "carol")] == [14, 16, 17]
        # nobody is pinged for a street: no regular player
        assert not [m for m in w.fake.messages(w.chan) if "your turn" in (m.content or "")]
        top, mid, bot, disc = clean_set(cards["bob"], t.hand.rules)
        done = await set_by_panel(w, w.bob, dms["bob"], top, mid, bot, disc)
        assert done.content.startswith("✅"), done.content
        for who in (w.alice, w.bob, w.carol):
            for owner, cs in cards.items():
                if owner != who.name:
                    assert_unseen(w, who, cs)
        w.clock.offset += 121
        w.service.rearm()
        show = await wait_showdown(w)
        (row, results), = await w.store.history(t.id, 1)
        assert not any(r.fouled for r in results)
        discards = row.state["engine"]["state"]["discards"]
        assert sorted(len(d) for d in discards) == [1, 3, 4]
        for d in discards:
            for c in d:
                assert not re.search(rf"\b{c}\b", channel_text(w)), c
        assert await sums_to_zero(w, t.id) == 1
        # alice and carol sit out now (their clocks ran out): no regular hand with bob alone;
        # only a fantasyland someone stayed in is dealt, to the players of the hand that
        # earned it even when they sit out (they may not skip it: seeds/004)
        await asyncio.sleep(0.5)
        nxt = table_of(w).hand
        assert nxt is None or any(nxt.fantasyland), nxt
        assert show.content.count("— FOUL") == 0
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_button_moves_with_fantasyland_owed_when_button_stays_is_off(
    tmp_path: Any, caplog: Any
) -> None:
    seeds = iter(f"flr-bs-{i}" for i in range(10))
    async with make_world(tmp_path, seed_factory=lambda: next(seeds), deck_factory=stay_deck,
                          next_hand_delay=0.1) as w:
        t = await open_table(w, fantasyland={"0": 13}, start=False)
        r = await w.slash(w.alice, "ofc options", button_stays=False)
        assert not r.ephemeral, r.content
        await w.slash(w.alice, "ofc start")
        buttons = []
        for n in (1, 2):
            await w.fake.wait_until(lambda n=n: table_of(w).hand is not None
                                    and table_of(w).row.hand_no == n, 10, f"hand {n}")
            t = table_of(w)
            buttons.append(t.hand_seats[t.hand.button])
            r = await w.slash(w.alice, "ofc place", move=STAY_MOVE)
            assert r.content.startswith("✅"), r.content
            await play_streets(w)
            await wait_showdown(w, n)
        assert buttons[0] != buttons[1], buttons
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_sitting_out_during_a_staying_fantasyland_carries_it_past_the_next_hand(
    tmp_path: Any, caplog: Any
) -> None:
    seeds = iter(f"flr-so-{i}" for i in range(10))

    def deck(t: Any) -> list[Card] | None:
        return stay_deck(t) if t.row.hand_no in (0, 2) else None

    async with make_world(tmp_path, seed_factory=lambda: next(seeds), deck_factory=deck,
                          next_hand_delay=0.2) as w:
        t = await open_table(w, w.bob, w.carol, fantasyland={"0": 13})
        dm = await fl_dm(w, w.alice)
        r = await w.slash(w.alice, "ofc sitout")
        assert "still play the hand" in r.content, r.content
        r = await w.slash(w.alice, "ofc place", move=STAY_MOVE)
        assert r.content.startswith("✅"), r.content
        await play_streets(w)
        await wait_showdown(w, 1)
        await w.fake.wait_until(lambda: table_of(w).hand is not None
                                and table_of(w).row.hand_no == 2, 10, "hand 2")
        t = table_of(w)
        assert t.hand_seat_of(0) is None and not any(t.hand.fantasyland)
        assert t.fantasyland_pending == {0: 13}
        # the old DM panel says hand 1 is over, and shows nothing of hand 2
        r = await w.click(w.alice, dm, label="Undo") if any(
            b.get("label") == "Undo" and not b.get("disabled") for b in dm.buttons()) else None
        r = await w.slash(w.alice, "ofc sitin")
        assert "your next hand is your fantasyland (13 cards)" in r.content, r.content
        await play_streets(w)
        await wait_showdown(w, 2)
        await w.fake.wait_until(lambda: table_of(w).hand is not None
                                and table_of(w).row.hand_no == 3, 10, "hand 3")
        t = table_of(w)
        assert t.hand.fantasyland[t.hand_seat_of(0)] == 13
        dm3 = await fl_dm(w, w.alice, after=dm.id)
        assert sorted(panel_cards(dm3.content)) == sorted(STAY)
        assert await sums_to_zero(w, t.id) == 2
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_the_dm_panel_of_a_player_who_left_the_table(tmp_path: Any, caplog: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-gone",
                          next_hand_delay=0.1) as w:
        t = await open_table(w, w.bob, w.carol, fantasyland={"1": 13})
        dm = await fl_dm(w, w.bob)
        ask = await w.slash(w.bob, "ofc surrender")
        await w.click(w.bob, ask, label="Yes, surrender")
        r = await w.slash(w.bob, "ofc leave")
        await play_streets(w)
        await wait_showdown(w)
        await w.fake.wait_until(lambda: table_of(w).seat_of_user(w.bob.id) is None, 10, "gone")
        r = await w.select(w.bob, dm, dm.selects()[0]["custom_id"], panel_cards(dm.content)[:1])
        assert "not seated" in r.content, r.content
        assert not r.message.buttons()
        assert await sums_to_zero(w, t.id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_the_fantasyland_player_leaving_first_frees_the_held_leaver_at_once(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-free") as w:
        t = await open_table(w, w.bob, w.carol, start=False)
        await w.store.update_table(t.id, extra={**t.row.extra, "fantasyland": {"1": 13},
                                                "fantasyland_owed_by": [0, 1, 2]})
        await w.service._refresh(t)
        r = await w.slash(w.alice, "ofc leave")
        assert "after the fantasyland hand you helped earn" in r.content, r.content
        assert table_of(w).seat_of_user(w.alice.id) is not None
        r = await w.slash(w.bob, "ofc leave")
        assert "You left the table" in r.content, r.content
        await w.fake.wait_until(lambda: table_of(w).seat_of_user(w.alice.id) is None, 5,
                                "alice released")
        await w.fake.wait_for_message(
            w.chan, lambda m: "left the table, as asked" in (m.content or ""),
            include_existing=True)
        for u in (w.alice, w.bob):
            assert await w.store.balance(w.guild.id, u.id) == 1000
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def play_qq_hand(w: World, t: Any) -> None:
    """Hand 1 with ``qq_deck``: bob ends with QQ on top, clean (fantasyland), alice fouls."""
    moves_bob = iter(["Qc Qd 2s top Ah Ad middle", "9c middle", "Kc bottom", "Kd bottom",
                      "Ks bottom", "7c middle", "7d middle", "7h bottom", "8d bottom"])
    while t.hand is not None and not t.hand.is_over:
        (u,) = regular_acting(w)
        hs = hs_of(w, u)
        cards = panel_cards((await w.slash(u, "ofc hand")).content)
        move = next(moves_bob) + " foul" if u is w.bob else fill_move(t, hs, cards)
        r = await w.slash(u, "ofc place", move=move)
        assert r.content.startswith("✅"), (u.name, r.content)
    await wait_showdown(w, 1)
    assert t.last_result.fantasyland_next == (0, 13)


async def test_sitting_out_first_does_not_let_a_player_leave_before_the_fantasyland_hand(
    tmp_path: Any, caplog: Any
) -> None:
    """RULES.md: "A player who has finished a hand that sends someone to fantasyland may not
    leave before that fantasyland hand is played" (README: they leave after it).  Heads-up, bob
    earns fantasyland; alice, between hands, types `/ofc sitout` then `/ofc leave`: she is
    cashed out at once, and bob's fantasyland is never played (nobody is left to play it)."""
    seeds = iter(f"flr-dodge-{i}" for i in range(10))
    async with make_world(tmp_path, seed_factory=lambda: next(seeds), deck_factory=qq_deck) as w:
        t = await open_table(w)
        await play_qq_hand(w, t)
        assert t.hand is None and t.fantasyland_pending == {1: 13}
        await asyncio.sleep(0.5)  # (the showdown's messages sent)
        r = await w.slash(w.alice, "ofc leave")  # held: she leaves after bob's fantasyland
        assert "after the fantasyland hand" in r.content, r.content
        r = await w.slash(w.alice, "ofc sitout")
        r = await w.slash(w.alice, "ofc leave")
        await asyncio.sleep(0.3)
        # (whatever she is told) she is still seated until bob's fantasyland is played
        assert table_of(w).seat_of_user(w.alice.id) is not None, r.content
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_the_host_closing_between_hands_does_not_skip_a_fantasyland_owed(
    tmp_path: Any, caplog: Any
) -> None:
    """The same rule from the host's side: alice (host) loses hand 1 and bob earns
    fantasyland; before the next deal alice types `/ofc close`: the table closes at once and
    everyone is cashed out, so she leaves before bob's fantasyland hand (a hand being played
    is finished first; the fantasyland hand, "an extension of the previous hand", is not)."""
    seeds = iter(f"flr-closeowed-{i}" for i in range(10))
    async with make_world(tmp_path, seed_factory=lambda: next(seeds), deck_factory=qq_deck,
                          next_hand_delay=1.0) as w:
        t = await open_table(w)
        await play_qq_hand(w, t)
        await asyncio.sleep(0.5)  # (the showdown's messages sent)
        r = await w.slash(w.alice, "ofc close")
        await asyncio.sleep(0.5)
        assert w.chan.id in w.service._by_channel, r.content  # not closed before it
        assert "after the fantasyland hand" in r.content, r.content
        await w.fake.wait_until(lambda: table_of(w).hand is not None, 10, "the fantasyland hand")
        t = table_of(w)
        assert t.hand.fantasyland == (0, 13)
        # then it closes: every clock runs out (timeouts play the hand), the table closes
        for _ in range(40):
            if w.chan.id not in w.service._by_channel:
                break
            w.clock.offset += 200
            w.service.rearm()
            await asyncio.sleep(0.25)
        assert w.chan.id not in w.service._by_channel, "closed after the fantasyland hand"
        assert await sums_to_zero(w, t.id) == 2
        assert await w.store.verify_ledger() == []
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_a_whole_clean_draft_left_in_the_dm_is_what_the_timeout_plays(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-draft") as w:
        t = await open_table(w, fantasyland={"0": 16}, variant="pineapple")
        dm = await fl_dm(w, w.alice)
        cards = panel_cards(dm.content)
        top, mid, bot, disc = clean_set(cards, t.hand.rules)
        rec: Any = dm
        for chunk, row in ((top, "Top"), (mid, "Middle"), (bot, "Bottom")):
            msg = rec if isinstance(rec, FakeMessage) else rec.message
            rec = await w.select(w.alice, rec, msg.selects()[0]["custom_id"], chunk)
            rec = await w.click(w.alice, rec, label=row)
        # no Confirm; the clock runs out
        w.clock.offset += 121
        w.service.rearm()
        await w.fake.wait_until(lambda: t.hand is None or t.hand.done[0], 10, "alice set")
        assert t.hand is not None
        rows = [sorted(map(str, r)) for r in t.hand.boards[0].rows]
        assert rows == [sorted(top), sorted(mid), sorted(bot)]
        assert sorted(map(str, t.hand.discards[0])) == sorted(disc)
        await play_streets(w)
        await wait_showdown(w)
        assert await sums_to_zero(w, t.id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()


async def test_two_fantasyland_dm_confirms_and_the_last_street_in_one_instant(
    tmp_path: Any, caplog: Any
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "flr-3race") as w:
        t = await open_table(w, w.bob, w.carol, fantasyland={"0": 13, "1": 13})
        dms = {u.name: await fl_dm(w, u) for u in (w.alice, w.bob)}
        confirms = {}
        for u in (w.alice, w.bob):
            cs = panel_cards(dms[u.name].content)
            top, mid, bot, _ = clean_set(cs)
            rec: Any = dms[u.name]
            for chunk, row in ((top, "Top"), (mid, "Middle"), (bot, "Bottom")):
                msg = rec if isinstance(rec, FakeMessage) else rec.message
                rec = await w.select(u, rec, msg.selects()[0]["custom_id"], chunk)
                rec = await w.click(u, rec, label=row)
            confirms[u.name] = rec.message
        while len(t.hand.boards[2]) < 12:
            await play_streets(w, until_over=False, max_actions=1)
        cards = panel_cards((await w.slash(w.carol, "ofc hand")).content)
        recs = [await w.fake.click(w.alice, confirms["alice"], label="Confirm", wait=False),
                await w.fake.click(w.bob, confirms["bob"], label="Confirm", wait=False),
                await w.fake.slash(w.carol, w.chan, "ofc place", wait=False,
                                   options={"move": fill_move(t, 2, cards)})]
        for r in recs:
            await w.fake.wait_answered(r)
            assert r.ok
        answers = [(r.callback_data or {}).get("content") or "" for r in recs]
        assert all(a.startswith("✅") for a in answers), answers
        await wait_showdown(w)
        await asyncio.sleep(0.5)
        shows = [m for m in w.fake.messages(w.chan) if "Showdown — hand #1" in (m.content or "")]
        assert len(shows) == 1
        assert await sums_to_zero(w, t.id) == 1
        no_errors_logged(caplog)
        w.fake.assert_clean()
