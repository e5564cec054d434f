"""End-to-end scenarios: the real bot process (discord.py, store, service, cogs, renderer) driven
through the loopback Discord stand-in, as players would."""

from __future__ import annotations

import asyncio
import re
import sys
from typing import Any

import pytest

from bot.app import GIL_SWITCH_INTERVAL
from engine import Card, parse_cards

from .conftest import World, make_world, panel_cards, resumed_table, table_of
from .fakediscord import ComponentUnavailable, FakeMessage, FakeUser, Perm

pytestmark = pytest.mark.e2e

ROW = ("top", "middle", "bottom")


def hand_seat(w: World, user: FakeUser) -> int | None:
    t = table_of(w)
    seat = t.seat_of_user(user.id)
    return None if seat is None else t.hand_seat_of(seat.seat_no)


def to_act(w: World) -> list[FakeUser]:
    t = table_of(w)
    if t.hand is None:
        return []
    out = []
    for hs in t.hand.to_act():
        seat = t.seat_by_no(t.hand_seats[hs])
        user = next((u for u in w.users.values() if u.id == seat.user_id), None)
        if user is not None:  # bots act on their own
            out.append(user)
    return out


def plan(cards: list[str], filled: list[int], discard: int) -> str:
    """Bottom first, then middle, then top; the last ``discard`` cards are discarded."""
    keep, drop = cards[: len(cards) - discard], cards[len(cards) - discard :]
    parts = []
    for c in keep:
        r = 2 if filled[2] < 5 else (1 if filled[1] < 5 else 0)
        filled[r] += 1
        parts.append(f"{c} {ROW[r]}")
    parts += [f"{c} discard" for c in drop]
    return " ".join(parts)


async def act_by_text(w: World, user: FakeUser, filled: list[int], discard: int = 0) -> str:
    panel = await w.slash(user, "ofc hand")
    assert panel.ephemeral
    cards = panel_cards(panel.content)
    d = discard if len(cards) == 3 else max(0, len(cards) - 13)
    move = plan(cards, filled, d)
    r = await w.slash(user, "ofc place", move=move)
    assert r.ephemeral and r.content.startswith("✅"), r.content
    return move


async def play_regular_hand(w: World, players: list[FakeUser], discard: int = 0,
                            until: int | None = None) -> int:
    """Every regular seat plays by text until the hand ends (or ``until`` actions)."""
    filled: dict[int, list[int]] = w.__dict__.setdefault("filled", {})
    for u in players:
        filled.setdefault(u.id, [0, 0, 0])
    actions = 0
    number = table_of(w).row.hand_no
    # stop at this hand's showdown (the next hand may be dealt before the last answer arrives)
    while table_of(w).hand is not None and table_of(w).row.hand_no == number:
        acting = [u for u in to_act(w) if u in players]
        if not acting:
            await asyncio.sleep(0.02)
            continue
        await act_by_text(w, acting[0], filled[acting[0].id], discard)
        actions += 1
        if until is not None and actions >= until:
            break
    return actions


async def wait_showdown(w: World, hand_no: int = 1) -> Any:
    return await w.fake.wait_for_message(
        w.chan, lambda m: f"Showdown — hand #{hand_no}" in (m.content or ""), timeout=15,
        include_existing=True,
    )


def t_hand_of(w: World) -> Any:
    return table_of(w).hand


async def three_at_ofc(w: World) -> None:
    """The bot up, alice opens an ofc table, bob and carol join, the first hand is dealt."""
    await w.start_bot()
    await w.slash(w.alice, "ofc new", variant="ofc")
    await w.slash(w.bob, "ofc join")
    await w.slash(w.carol, "ofc join")
    await w.slash(w.alice, "ofc start")


async def surrender(w: World, user: FakeUser) -> Any:
    """/ofc surrender asks first; the answer to "Yes, surrender"."""
    ask = await w.slash(user, "ofc surrender")
    assert ask.ephemeral and "Surrender hand #" in ask.content
    assert "cannot be taken back" in ask.content
    return await w.click(user, ask, label="Yes, surrender")


def visible_text(w: World, user: FakeUser) -> str:
    return "\n".join(m.text for m in w.fake.visible_to(user))


# --------------------------------------------------------------------------- scenarios
async def test_two_player_ofc_hand_to_showdown_units_and_leaderboard(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "e2e-ofc-1") as w:
        await w.start_bot()
        r = await w.slash(w.alice, "ofc new", variant="ofc", stake=2, buyin=300)
        assert not r.ephemeral and "opened an **Open Face** table (ofc)" in r.content
        table_msg = await w.fake.wait_for_message(
            w.chan, lambda m: bool(m.files) and "Open my panel" in str(m.components),
            include_existing=True)
        assert table_msg.files[0][1][:8] == b"\x89PNG\r\n\x1a\n"
        r = await w.slash(w.bob, "ofc join")
        assert "sat down with 300 units" in r.content
        r = await w.slash(w.alice, "ofc rules")
        assert "Stake 2 units per point" in r.content and r.ephemeral
        r = await w.slash(w.alice, "ofc start")
        assert "Hand #1 is dealt" in r.content
        turn = await w.fake.wait_for_message(
            w.chan, lambda m: "your turn" in (m.content or ""), include_existing=True)
        assert f"<@{w.bob.id}>" in turn.content  # left of the button (alice) acts first
        assert "time runs out <t:" in turn.content  # a live countdown in the client

        # bob's first street through the private panel: select, rows, confirm
        panel = await w.click(w.bob, turn, label="Open my panel")
        assert panel.ephemeral and panel.files
        assert "(time runs out <t:" in panel.content  # the image's clock cannot tick; this does
        cards = panel_cards(panel.content)
        sel = panel.message.selects()[0]["custom_id"]
        rec = await w.select(w.bob, panel, sel, cards[:2])
        assert "Selected: " + " ".join(cards[:2]) in rec.content
        # a pick changes only the text: the image stays, nothing is drawn or uploaded again
        assert "attachments" not in (rec.callback_data or {}) and len(rec.files) == 1
        rec = await w.click(w.bob, rec, label="Top")
        assert "attachments" in (rec.callback_data or {})  # a row filled: a new image
        assert len(rec.files) == 1
        assert "top: " + " ".join(cards[:2]) in rec.content
        sel = rec.message.selects()[0]["custom_id"]
        rec = await w.select(w.bob, rec, sel, cards[2:])
        rec = await w.click(w.bob, rec, label="Bottom")
        rec = await w.click(w.bob, rec, label="Undo")  # take the bottom cards back
        sel = rec.message.selects()[0]["custom_id"]
        rec = await w.select(w.bob, rec, sel, cards[2:])
        rec = await w.click(w.bob, rec, label="Bottom")
        rec = await w.click(w.bob, rec, label="Confirm")
        assert "✅ Placed" in rec.content
        t = table_of(w)
        assert [str(c) for c in t.hand.boards[hand_seat(w, w.bob)].top] == cards[:2]

        filled = {w.alice.id: [0, 0, 0], w.bob.id: [0, 0, 3]}
        filled[w.bob.id] = [2, 0, 3]
        while table_of(w).hand is not None:
            for u in to_act(w):
                await act_by_text(w, u, filled[u.id])
        await wait_showdown(w)
        pings = [m for m in w.fake.messages(w.chan, include_deleted=True)
                 if "your turn" in (m.content or "")]
        assert len(pings) > 9 and all(m.deleted for m in pings)  # one at a time, gone at the end
        result = table_of(w).last_result
        totals = result.settlement.totals
        assert sum(totals) == 0
        units = dict(zip(result.user_ids, result.units, strict=True))
        assert units[w.alice.id] == 2 * totals[result.user_ids.index(w.alice.id)]
        assert await w.store.stack(t.id, w.alice.id) == 300 + units[w.alice.id]
        assert await w.store.stack(t.id, w.bob.id) == 300 + units[w.bob.id]
        assert await w.store.balance(w.guild.id, w.alice.id) == 700
        assert await w.store.verify_ledger() == []

        lb = await w.slash(w.alice, "ofc leaderboard", by="units")
        assert lb.files and not lb.ephemeral
        winner, loser = (w.alice, w.bob) if units[w.alice.id] >= units[w.bob.id] else (w.bob,
                                                                                        w.alice)
        if units[w.alice.id] != units[w.bob.id]:
            assert lb.content.index(winner.name) < lb.content.index(loser.name)
        lb = await w.slash(w.alice, "ofc leaderboard", by="hands")  # a tie shares its rank
        # ("1\." : "1." starting a line is a list Discord would number 1, 2)
        assert "1\\. alice — " in lb.content and "1\\. bob — " in lb.content, lb.content
        hist = await w.slash(w.bob, "ofc history")
        assert "#1" in hist.content and "pts" in hist.content
        st = await w.slash(w.bob, "ofc stats")
        assert st.files and "bob — 1 hand," in st.content
        bal = await w.slash(w.bob, "ofc balance")
        assert "700 units" in bal.content
        tbl = await w.slash(w.alice, "ofc table")
        assert tbl.files
        w.fake.assert_clean()


async def test_pineapple_progressive_fantasyland_by_dm_and_fallback(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "e2e-pine") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="pineapple", stake=1)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.carol, "ofc join")
        t = table_of(w)
        await w.store.update_table(t.id, extra={"fantasyland": {"2": 15}})  # carol earned KK
        await w.service._refresh(t)
        await w.slash(w.alice, "ofc start")
        dm = await w.fake.wait_for_message(w.carol, lambda m: "Fantasyland" in (m.content or ""),
                                           include_existing=True)
        assert dm.files and dm.channel.is_dm
        cards = panel_cards(dm.content)
        assert len(cards) == 15
        # the others play their streets while carol thinks
        players = [w.alice, w.bob]
        acted = await play_regular_hand(w, players, discard=1, until=4)
        assert acted == 4
        rec: Any = dm
        for chunk, row in ((cards[:3], "Top"), (cards[3:8], "Middle"), (cards[8:13], "Bottom")):
            msg = rec if isinstance(rec, FakeMessage) else rec.message
            sel = msg.selects()[0]
            rec = await w.select(w.carol, rec, sel["custom_id"], chunk)
            rec = await w.click(w.carol, rec, label=row)
        panel_msg = rec
        rec = await w.click(w.carol, panel_msg, label="Confirm")  # high cards on top: a foul
        assert rec.ephemeral and "This board fouls: the " in rec.content
        assert "beats the bottom" in rec.content
        assert "press **Confirm** again" in rec.content
        rec = await w.click(w.carol, panel_msg, label="Confirm")  # played, as asked
        assert "set" in rec.content.lower()
        secret = set(cards)
        # nobody else sees carol's fantasyland cards or anyone's discards before the showdown
        for other in (w.alice, w.bob):
            _assert_hidden(w, other, secret - _own_cards(w, other))
        await play_regular_hand(w, players, discard=1)
        await wait_showdown(w)
        t = table_of(w)
        discards = await _discards_by_user(w)
        assert len(discards[w.carol.id]) == 2 and len(discards[w.alice.id]) == 4
        for other in (w.alice, w.bob):
            text = visible_text(w, other)
            for owner, cards_ in discards.items():
                if owner == other.id:
                    continue
                for c in cards_:
                    assert not re.search(rf"\b{c}\b", text), f"{other.name} saw discard {c}"
        hs = t.last_result.names.index("carol")
        assert t.last_result.settlement.boards[hs] is not None

        # second table: carol's DMs are closed -> she is told in the channel, sees it privately
        w.carol.dms_open = False
        await w.slash(w.alice, "ofc close")
        await w.fake.wait_until(lambda: w.chan.id not in w.service._by_channel, 15, "close")
        await w.slash(w.alice, "ofc new", variant="pineapple", stake=1)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.carol, "ofc join")
        t = table_of(w)
        await w.store.update_table(t.id, extra={"fantasyland": {"2": 17}})
        await w.service._refresh(t)
        mark = max(m.id for m in w.fake.messages())
        await w.slash(w.alice, "ofc start")
        note = await w.fake.wait_for_message(
            w.chan, lambda m: "DMs are closed" in (m.content or ""), include_existing=True)
        assert f"<@{w.carol.id}>" in note.content
        panel = await w.click(w.carol, note, label="Open my panel")
        assert panel.ephemeral and len(panel_cards(panel.content)) == 17
        secret = set(panel_cards(panel.content))
        for other in (w.alice, w.bob):
            assert not panel.message.is_visible_to(other)
            _assert_hidden(w, other, secret - _own_cards(w, other), since=mark)
        w.fake.assert_clean(allow_api_errors={50007})


def _assert_hidden(w: World, user: FakeUser, cards: set[str], since: int = 0) -> None:
    for m in w.fake.visible_to(user):
        if m.id <= since:
            continue
        for c in cards:
            assert not re.search(rf"\b{c}\b", m.text), f"{user.name} saw {c} in {m.text!r}"


def _own_cards(w: World, user: FakeUser) -> set[str]:
    t = table_of(w)
    hs = hand_seat(w, user)
    if t.hand is None or hs is None:
        return set()
    h = t.hand
    return {str(c) for c in h.boards[hs].cards + h.pending[hs] + h.discards[hs]}


async def _discards_by_user(w: World) -> dict[int, set[str]]:
    """Every seat's discards of the last finished hand, from the stored final state."""
    t = table_of(w)
    (row, _results), = await w.store.history(t.id, 1)
    state = row.state
    discards = state["engine"]["state"]["discards"]
    return {uid: set(discards[i]) for i, uid in enumerate(state["users"])}


async def test_chinese_natural_and_surrender(tmp_path: Any) -> None:
    dragon = parse_cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    async with make_world(tmp_path, seed_factory=lambda: "e2e-chinese",
                          deck_factory=lambda t: dragon) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", stake=1)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.carol, "ofc join")
        await w.slash(w.alice, "ofc start")
        # bob (left of the button) holds the dragon; a false claim costs nothing
        r = await w.slash(w.carol, "ofc declare", natural="dragon")
        assert r.ephemeral and "You do not hold a dragon" in r.content
        r = await w.slash(w.bob, "ofc declare", natural="dragon")
        assert r.ephemeral and "declared dragon" in r.content
        r = await surrender(w, w.alice)
        assert "pay 3" in r.content
        ask = await w.slash(w.carol, "ofc surrender")
        r = await w.click(w.carol, ask, label="Keep playing")
        assert r.content == "You play on." and not t_hand_of(w).surrendered[hand_seat(w, w.carol)]
        panel = await w.slash(w.carol, "ofc hand")
        assert "`/ofc declare`" in panel.content  # the panel says how to declare a natural
        cards = panel_cards(panel.content)
        move = (" ".join(cards[:3]) + " top " + " ".join(cards[3:8]) + " middle "
                + " ".join(cards[8:]) + " bottom")
        r = await w.slash(w.carol, "ofc place", move=move)
        assert "Your hand is set" in r.content
        show = await wait_showdown(w)
        assert "bob — declared dragon: Ac Ks Qh Jd Tc 9s 8h 7d 6c 5s 4h 3d 2c" in show.content
        res = table_of(w).last_result
        points = dict(zip(res.names, res.settlement.totals, strict=True))
        assert points == {"bob": 16, "alice": -6, "carol": -10}
        t = table_of(w)
        assert await w.store.stack(t.id, w.bob.id) == 216
        assert await w.store.stack(t.id, w.alice.id) == 194
        w.fake.assert_clean()


async def test_timeout_autoplays_and_sits_out(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "e2e-timeout") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", timer=10)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        assert to_act(w) == [w.bob]
        w.clock.offset += 11
        w.service.rearm()
        note = await w.fake.wait_for_message(
            w.chan, lambda m: f"Time ran out for <@{w.bob.id}>" in (m.content or ""), timeout=10,
            include_existing=True)
        assert "sit out" in note.content
        hs = hand_seat(w, w.bob)
        assert len(t.hand.boards[hs]) == 5 and t.hand.autoplayed[hs] == 1
        assert t.seat_of_user(w.bob.id).sitting_out
        # the hand always finishes: alice plays, bob's clock keeps running out
        filled = [0, 0, 0]
        while table_of(w).hand is not None:
            acting = to_act(w)
            if acting == [w.alice]:
                await act_by_text(w, w.alice, filled)
            elif acting:
                w.clock.offset += 11
                w.service.rearm()
                await asyncio.sleep(0.05)
            else:
                await asyncio.sleep(0.02)
        await wait_showdown(w)
        assert w.service.table_in_channel(w.chan.id).hand is None
        r = await w.slash(w.bob, "ofc sitin")
        assert "Welcome back" in r.content
        w.fake.assert_clean()


async def _scripted_hand(w: World, stop_after: int | None) -> int:
    """2-player ofc played by text; returns the number of actions done."""
    filled = {w.alice.id: [0, 0, 0], w.bob.id: [0, 0, 0]}
    if hasattr(w, "_filled"):
        filled = w._filled  # type: ignore[attr-defined]
    w._filled = filled  # type: ignore[attr-defined]
    done = 0
    while table_of(w).hand is not None:
        u = to_act(w)[0]
        await act_by_text(w, u, filled[u.id])
        done += 1
        if stop_after is not None and done >= stop_after:
            break
    return done


async def test_restart_mid_hand_gives_the_same_result(tmp_path: Any) -> None:
    results = []
    for restart in (False, True):
        (tmp_path / f"r{restart}").mkdir()
        async with make_world(tmp_path / f"r{restart}", seed_factory=lambda: "e2e-restart") as w:
            await w.start_bot()
            await w.slash(w.alice, "ofc new", variant="ofc", stake=3)
            await w.slash(w.bob, "ofc join")
            await w.slash(w.alice, "ofc start")
            await _scripted_hand(w, stop_after=7 if restart else None)
            if restart:
                user = to_act(w)[0]
                panel = await w.slash(user, "ofc hand")
                await w.stop_bot()  # the process dies mid-hand
                await w.start_bot()
                await w.fake.wait_for_message(
                    w.chan, lambda m: "play resumes" in (m.content or ""), include_existing=True)
                # the panel opened before the restart still works (persistent dynamic items)
                card = panel_cards(panel.content)[0]
                sel = panel.message.selects()[0]["custom_id"]
                rec = await w.select(user, panel, sel, [card])
                assert f"Selected: {card}" in rec.content
                await _scripted_hand(w, stop_after=None)
            await wait_showdown(w)
            res = table_of(w).last_result
            results.append((res.settlement.totals, [str(b) for b in res.settlement.boards],
                            res.units))
            assert await w.store.verify_ledger() == []
    assert results[0] == results[1]


async def test_the_surrender_question_is_answered_after_a_restart_and_once(
    tmp_path: Any,
) -> None:
    """The question's buttons are persistent (they carry channel, player and hand): after a
    restart "Yes, surrender" still surrenders (it used to fail: nothing listened any more, as
    after the old prompt's 120 s); clicked twice at once, the hand is surrendered once and the
    other click is told why; a question left unanswered does nothing at the channel's next
    table (whose hands count from 1 again)."""
    async with make_world(tmp_path, seed_factory=lambda: "e2e-surrender") as w:
        await three_at_ofc(w)
        ask = await w.slash(w.bob, "ofc surrender")
        old = await w.slash(w.carol, "ofc surrender")
        await w.stop_bot()
        await w.start_bot()
        await w.fake.wait_for_message(
            w.chan, lambda m: "play resumes" in (m.content or ""), include_existing=True)
        assert not t_hand_of(w).surrendered[hand_seat(w, w.bob)]
        yes = ask.message.button("Yes, surrender")["custom_id"]
        first, second = await asyncio.gather(
            w.fake.click(w.bob, ask, custom_id=yes), w.fake.click(w.bob, ask, custom_id=yes))
        texts = [(x.callback_data or {}).get("content") or "" for x in (first, second)]
        assert sum("You surrendered" in x for x in texts) == 1, texts
        assert sum("already surrendered" in x for x in texts) == 1, texts
        assert t_hand_of(w).surrendered[hand_seat(w, w.bob)]
        # carol's first question stays unanswered: it must not reach a later table's hand #1
        assert "scores as a foul" in (await surrender(w, w.carol)).content
        await surrender(w, w.alice)
        await wait_showdown(w)
        await w.slash(w.alice, "ofc close")  # between hands: at once
        assert w.chan.id not in w.service._by_channel
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        await w.slash(w.carol, "ofc join")
        await w.slash(w.alice, "ofc start")
        r = await w.click(w.carol, old, label="Yes, surrender")
        assert "That table is closed" in r.content and "nothing was done" in r.content
        assert not t_hand_of(w).surrendered[hand_seat(w, w.carol)]
        assert await w.store.verify_ledger() == []


async def test_double_click_applies_once(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "e2e-double") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        panel = await w.slash(w.bob, "ofc hand")
        cards = panel_cards(panel.content)
        sel = panel.message.selects()[0]["custom_id"]
        rec = await w.select(w.bob, panel, sel, cards)
        rec = await w.click(w.bob, rec, label="Bottom")
        confirm = rec.message.button("Confirm")["custom_id"]
        first, second = await asyncio.gather(
            w.fake.click(w.bob, rec, custom_id=confirm),
            w.fake.click(w.bob, rec, custom_id=confirm),
        )
        # each click's own answer (both edit the same panel message)
        texts = [(x.callback_data or {}).get("content") or "" for x in (first, second)]
        assert sum("✅ Placed" in x for x in texts) == 1
        assert sum("already done" in x for x in texts) == 1
        t = table_of(w)
        assert sum(1 for a in t.hand.log if a.seat == hand_seat(w, w.bob)) == 1
        # two identical commands at once: applied once, the other is told why not
        panel = await w.slash(w.alice, "ofc hand")
        move = plan(panel_cards(panel.content), [0, 0, 0], 0)
        a, b = await asyncio.gather(
            w.fake.slash(w.alice, w.chan, "ofc place", options={"move": move}),
            w.fake.slash(w.alice, w.chan, "ofc place", options={"move": move}),
        )
        contents = [a.content, b.content]
        assert sum(c.startswith("✅") for c in contents) == 1
        assert any("It is bob's turn" in c for c in contents)
        w.fake.assert_clean()


async def test_bad_input_is_explained_and_changes_nothing(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "e2e-bad") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        before = t.hand.to_json()
        await w.slash(w.dave, "ofc balance")  # dave is known to the server (start balance)
        balances = [await w.store.balance(w.guild.id, u.id) for u in (w.alice, w.bob, w.dave)]
        panel = await w.slash(w.bob, "ofc hand")
        cards = panel_cards(panel.content)
        other = next(str(c) for c in t.hand._deck if str(c) not in cards)
        cases = [
            (w.bob, f"Zz top {' '.join(cards[1:])} bottom", "'Zz' is not a card"),
            (w.bob, f"{other} top {' '.join(cards[1:])} bottom", f"{other} is not in your hand"),
            (w.alice, f"{' '.join(cards)} bottom", "It is bob's turn"),
            (w.bob, f"{' '.join(cards[:4])} top {cards[4]} bottom",
             "The top row has room for 3 more cards, not 4"),
            (w.bob, f"{cards[0]} middel", "'middel' is not a row"),
            (w.dave, f"{' '.join(cards)} bottom", "You are not seated at this table"),
        ]
        for user, move, expected in cases:
            r = await w.slash(user, "ofc place", move=move)
            assert r.ephemeral, move
            assert expected in r.content, (move, r.content)
        assert t.hand.to_json() == before
        r = await w.slash(w.admin, "ofc-admin settings", max_buyin=5000)
        assert "max buy-in 5000" in r.content
        r = await w.slash(w.dave, "ofc join", buyin=2000)
        assert r.ephemeral and "You have 1000 units; the buy-in is 2000" in r.content
        with pytest.raises(ComponentUnavailable):  # hidden from members: no Manage Server
            await w.slash(w.dave, "ofc-admin grant", user=w.dave, amount=50)
        r = await w.slash(w.bob, "ofc new", variant="ofc")
        assert r.ephemeral and "already has a table" in r.content
        r = await w.slash(w.carol, "ofc declare", natural="dragon")
        assert r.ephemeral and "not seated" in r.content
        r = await w.slash(w.bob, "ofc suggest")
        assert r.ephemeral and "would be cheating" in r.content
        after = [await w.store.balance(w.guild.id, u.id) for u in (w.alice, w.bob, w.dave)]
        assert after == balances
        assert t.hand.to_json() == before
        w.fake.assert_clean()


async def test_practice_table_with_bots_moves_no_units(tmp_path: Any) -> None:
    # the AI thinks in a worker process, as in production (OFC_AI_PROCESSES=1): the bot's
    # moves and the suggestion below come from it
    async with make_world(tmp_path, seed_factory=lambda: "e2e-bots", ai_processes=1) as w:
        await w.start_bot()
        thinker = w.service.thinker
        assert thinker.processes == 1 and thinker._pool is not None
        assert sys.getswitchinterval() == GIL_SWITCH_INTERVAL  # images keep pace with bots
        r = await w.slash(w.alice, "ofc new", variant="pineapple", bots=1, level="easy")
        assert "Practice table" in r.content
        await w.slash(w.alice, "ofc start")
        await w.fake.wait_until(lambda: to_act(w) == [w.alice], 10, "alice's turn")
        tip = await w.slash(w.alice, "ofc suggest")
        assert tip.ephemeral and "suggested" in tip.content and "expected" in tip.content
        filled = [0, 0, 0]
        while table_of(w).hand is not None:
            if to_act(w) == [w.alice]:
                await act_by_text(w, w.alice, filled, discard=1)
            else:
                await asyncio.sleep(0.02)
        await wait_showdown(w)
        t = table_of(w)
        assert t.last_result.practice and t.last_result.units is None
        assert await w.store.stack(t.id, w.alice.id) == 200
        lb = await w.slash(w.alice, "ofc leaderboard")
        assert "alice" not in lb.content
        r = await w.slash(w.alice, "ofc leave")  # between hands: only the bot stays
        assert "Nobody is left, so the table is closed." in r.content
        await w.fake.wait_for_message(
            w.chan, lambda m: "Nobody is left: the table is closed" in (m.content or ""),
            include_existing=True)
        w.fake.assert_clean()


def test_card_helper() -> None:
    assert str(Card("Ah")) == "Ah"


async def test_leave_close_and_cash_out(tmp_path: Any) -> None:
    async with make_world(tmp_path) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", buyin=250)
        await w.slash(w.bob, "ofc join", buyin=100)
        assert await w.store.balance(w.guild.id, w.bob.id) == 900
        r = await w.slash(w.bob, "ofc leave")
        assert "100 units returned" in r.content
        await w.fake.wait_for_message(
            w.chan, lambda m: m.content == f"🚪 <@{w.bob.id}> left the table.",
            include_existing=True)  # the others are told
        assert await w.store.balance(w.guild.id, w.bob.id) == 1000
        r = await w.slash(w.bob, "ofc close")
        assert r.ephemeral and "Only the table's host" in r.content
        table_msg = next(m for m in w.fake.messages(w.chan) if m.files)
        r = await w.slash(w.alice, "ofc close")
        assert "closed" in r.content
        await w.fake.wait_until(lambda: "This table is closed" in (table_msg.content or ""), 5,
                                "the table message marked closed")
        assert "Open my panel" not in str(table_msg.components)
        assert await w.store.balance(w.guild.id, w.alice.id) == 1000
        r = await w.slash(w.alice, "ofc table")
        assert r.ephemeral and "no table in this channel" in r.content
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean()


async def test_a_close_the_bot_died_before_showing_is_shown_after_the_restart(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The close committed (stacks paid back), then the bot stopped before it edited the table
    message: that message kept its button and looked live for good.  The close notes in the
    same transaction that the message is unmarked; the next start marks it, once."""
    from bot.service import CLOSE_UNMARKED
    from cogs.presenter import Presenter

    async with make_world(tmp_path) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        table_msg = await w.fake.wait_for_message(
            w.chan, lambda m: bool(m.files) and "Open my panel" in str(m.components),
            include_existing=True)
        table_id = w.service.table_in_channel(w.chan.id).id

        async def died_first(self: Any, t: Any, message_id: int | None = None) -> None:
            return None  # (the process is gone before the edit)

        monkeypatch.setattr(Presenter, "_mark_closed", died_first)
        await w.slash(w.alice, "ofc close")
        await asyncio.sleep(0.3)
        assert "Open my panel" in str(table_msg.components)  # looks live
        assert CLOSE_UNMARKED in (await w.store.get_table(table_id)).extra
        await w.stop_bot()
        monkeypatch.undo()
        await w.start_bot()
        await w.fake.wait_until(lambda: "This table is closed" in (table_msg.content or ""), 5,
                                "the table message marked closed after the restart")
        assert "Open my panel" not in str(table_msg.components)
        for _ in range(50):  # (the marker goes just after the edit)
            row = await w.store.get_table(table_id)
            if CLOSE_UNMARKED not in row.extra:
                break
            await asyncio.sleep(0.05)
        assert CLOSE_UNMARKED not in row.extra
        edited = table_msg.edited_ms
        await w.stop_bot()
        await w.start_bot()  # nothing left to mark: the message is not edited again
        await asyncio.sleep(0.3)
        assert table_msg.edited_ms == edited
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean()


async def _live_looking(w: World, table_id: int) -> tuple[Any, Any]:
    """A table message and a turn ping of table ``table_id`` as the bot posts them, whose ids the
    bot never kept (as when it stopped in the instant after sending them)."""
    from cogs.presenter import png
    from cogs.views import open_panel_view
    from renderer.gallery import table_ofc_2_practice

    assert w.bot is not None
    channel = w.bot.get_partial_messageable(w.chan.id, guild_id=w.guild.id)
    table = await channel.send("a table message",
                               file=png(b"\x89PNG", "t.png", table_ofc_2_practice()),
                               view=open_panel_view(table_id))
    ping = await channel.send("🎯 your turn", view=open_panel_view(table_id))
    return w.fake._messages[table.id], w.fake._messages[ping.id]


async def test_a_close_the_bot_died_before_showing_marks_every_message_of_the_table(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A table closed as its new table message went out (under a showdown), then the bot
    stopped: that message's id was never saved, so marking the saved one left it live. After
    the restart the channel's last messages carrying the table's button are marked too (a
    table message says closed, a turn ping goes); other tables' messages are left alone."""
    from cogs.presenter import Presenter

    async with make_world(tmp_path) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        table_msg = await w.fake.wait_for_message(
            w.chan, lambda m: bool(m.files) and "Open my panel" in str(m.components),
            include_existing=True)
        table_id = w.service.table_in_channel(w.chan.id).id
        unsaved, ping = await _live_looking(w, table_id)
        other, other_ping = await _live_looking(w, table_id + 1)

        async def died_first(self: Any, t: Any, message_id: int | None = None) -> None:
            return None

        monkeypatch.setattr(Presenter, "_mark_closed", died_first)
        await w.slash(w.alice, "ofc close")
        await asyncio.sleep(0.3)
        await w.stop_bot()
        monkeypatch.undo()
        await w.start_bot()
        await w.fake.wait_until(lambda: "This table is closed" in (unsaved.content or "")
                                and ping.deleted, 5, "every message of the table retired")
        assert "Open my panel" not in str(unsaved.components)
        assert "This table is closed" in (table_msg.content or "")
        assert unsaved.files  # (the last picture stays)
        assert not other.deleted and not other_ping.deleted
        assert other.content == "a table message" and "Open my panel" in str(other.components)
        w.fake.assert_clean()


async def test_the_button_of_a_closed_table_retires_the_message_it_was_pressed_on(
    tmp_path: Any,
) -> None:
    """A message that still looks live after its table closed (beyond the channel's last
    messages looked through after a restart): pressing its button answers that the table is
    closed and retires the message (a table message says closed, a ping goes)."""
    async with make_world(tmp_path) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        table_id = w.service.table_in_channel(w.chan.id).id
        unsaved, ping = await _live_looking(w, table_id)
        await w.slash(w.alice, "ofc close")
        await w.fake.wait_until(lambda: table_id not in w.service.tables, 5, "closed")
        rec = await w.click(w.bob, unsaved, label="Open my panel")
        assert rec.ephemeral and "closed" in rec.content
        await w.fake.wait_until(lambda: "This table is closed" in (unsaved.content or ""), 5,
                                "the table message retired")
        assert "Open my panel" not in str(unsaved.components) and unsaved.files
        await w.click(w.bob, ping, label="Open my panel")
        await w.fake.wait_until(lambda: ping.deleted, 5, "the ping retired")
        w.fake.assert_clean()


async def test_next_hand_follows_and_button_moves(tmp_path: Any) -> None:
    seeds = iter(["e2e-next-1", "e2e-next-2", "e2e-next-3"])
    async with make_world(tmp_path, seed_factory=lambda: next(seeds),
                          next_hand_delay=0.2) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", fantasyland=False)
        await w.slash(w.bob, "ofc join")
        w.fake.inject_429("POST", r"/channels/\d+/messages", times=1)
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        assert t.hand.names[t.hand.button] == "alice"
        await play_regular_hand(w, [w.alice, w.bob])
        await wait_showdown(w, 1)
        # (the finished hand may still be held when the showdown is posted: wait for hand 2)
        await w.fake.wait_until(
            lambda: table_of(w).hand is not None and table_of(w).row.hand_no == 2, 10,
            "the next deal")
        t = table_of(w)
        assert t.row.hand_no == 2
        assert t.hand.names[t.hand.button] == "bob"  # the button moved clockwise
        assert to_act(w) == [w.alice]
        w.fake.assert_clean()


async def test_a_table_opened_without_permission_to_post_its_picture(tmp_path: Any) -> None:
    """The table exists even when the channel refuses its picture: the creator is told what
    to fix, not that the command failed."""
    async with make_world(tmp_path) as w:
        await w.start_bot()
        for role in w.guild.roles.values():
            role.permissions &= ~Perm.ATTACH_FILES
        r = await w.slash(w.alice, "ofc new", variant="ofc")
        assert "opened an **Open Face** table (ofc)" in r.content
        (note,) = await w.fake.wait_followups(r)
        assert note.ephemeral and "could not post its picture" in note.content
        assert "unchanged" not in note.content
        r = await w.slash(w.bob, "ofc join")
        assert "sat down" in r.content  # the table is there
        assert await w.store.verify_ledger() == []


async def test_a_fantasyland_dm_that_fails_otherwise_falls_back_to_the_channel(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not only closed DMs (403): any refusal of the DM still gets the player their hand."""
    import discord

    class Gone:
        status, reason = 404, "Not Found"

    async def unknown_user(user_id: int) -> Any:
        raise discord.NotFound(Gone(), {"code": 10013, "message": "Unknown User"})

    async with make_world(tmp_path) as w:
        bot = await w.start_bot()
        monkeypatch.setattr(bot, "fetch_user", unknown_user)
        await w.slash(w.alice, "ofc new", variant="pineapple")
        await w.slash(w.bob, "ofc join")
        t = table_of(w)
        await w.store.update_table(t.id, extra={"fantasyland": {"1": 14}})
        await w.service._refresh(t)
        await w.slash(w.alice, "ofc start")
        note = await w.fake.wait_for_message(
            w.chan, lambda m: "I could not send it by DM" in (m.content or ""),
            include_existing=True)
        assert f"<@{w.bob.id}>" in note.content
        panel = await w.click(w.bob, note, label="Open my panel")
        assert panel.ephemeral and len(panel_cards(panel.content)) == 14


async def test_table_options_by_the_creator(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "e2e-options") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", stake=1)
        await w.slash(w.bob, "ofc join")
        r = await w.slash(w.bob, "ofc options", surrender=5)
        assert r.ephemeral and "or a server manager" in r.content
        r = await w.slash(w.alice, "ofc options", progressive=False)
        assert r.ephemeral and "fantasyland option" in r.content
        r = await w.slash(w.alice, "ofc options", stay_value="20")
        assert r.ephemeral and "fantasyland option" in r.content
        r = await w.slash(w.alice, "ofc options", surrender=5, dragon=20, strict_top=True)
        assert not r.ephemeral and "changed the table's options (now)" in r.content
        assert "surrender pays: 3 → 5" in r.content and "natural dragon: 13 → 20" in r.content
        r = await w.slash(w.alice, "ofc rules")
        assert "Surrender pays 5 points to each opponent." in r.content and "dragon 20" in r.content
        table = await w.fake.wait_for_message(w.chan, lambda m: bool(m.files),
                                              include_existing=True)
        # a waiting table draws no card face, so its picture is the same in either deck: the
        # change is kept and its table message drawn again (once the options' edit is in)
        presenter = w.bot.get_cog("OFC").presenter  # type: ignore[union-attr]
        t = table_of(w)

        def drawing() -> bool:
            task = presenter._pending_edits.get(t.id)
            return t.id in presenter._dirty or (task is not None and not task.done())

        await w.fake.wait_until(lambda: not drawing(), 5, "the options' edit")
        edits = len(table.revisions)
        r = await w.slash(w.alice, "ofc options", deck="two")
        assert "deck: four colours → two colours" in r.content and not t.four_colour
        await w.fake.wait_until(lambda: len(table.revisions) > edits, 5, "the table drawn again")
        r = await w.slash(w.alice, "ofc rules")
        assert "two-colour deck" in r.content
        await w.slash(w.alice, "ofc start")
        r = await surrender(w, w.bob)
        assert "pay 5" in r.content
        w.fake.assert_clean()


async def test_a_player_whose_stack_runs_out_is_told_and_buys_in_again(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "e2e-broke", next_hand_delay=0.2) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=5, buyin=100)
        await w.slash(w.bob, "ofc join", buyin=10)
        await w.slash(w.alice, "ofc start")
        r = await surrender(w, w.bob)  # a foul: 6 points, 30 units > his 10
        assert "scores as a foul" in r.content
        await play_regular_hand(w, [w.alice])
        show = await wait_showdown(w)
        assert f"💸 <@{w.bob.id}>: your stack is empty" in show.content
        notice = await w.fake.wait_for_message(
            w.chan, lambda m: "has no units left at the table" in (m.content or ""),
            include_existing=True)
        assert f"<@{w.bob.id}>" in notice.content
        r = await w.slash(w.bob, "ofc sitin")
        assert "your stack is empty" in r.content
        r = await w.slash(w.bob, "ofc join", buyin=20)
        assert "sat down with 20 units" in r.content
        await w.fake.wait_for_message(
            w.chan, lambda m: "Hand #2" in (m.content or "") or "hand #2" in (m.content or ""),
            include_existing=True, timeout=10)
        assert table_of(w).row.hand_no == 2
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean()


async def test_help_lists_every_command(tmp_path: Any) -> None:
    async with make_world(tmp_path) as w:
        await w.start_bot()
        r = await w.slash(w.alice, "ofc help")
        assert r.ephemeral and "Open Face Chinese Poker" in r.content

        def texts() -> list[str]:
            return [m.content or "" for m in w.fake.visible_to(w.alice) if m.ephemeral]

        # (a help longer than a message follows in more: the last command is in the last)
        await w.fake.wait_until(lambda: "`/ofc tables` —" in "\n".join(texts()), 5, "the rest")
        every = "\n".join(texts())
        for name in ("new", "join", "place", "options", "help", "leaderboard", "suggest"):
            assert f"`/ofc {name}` —" in every
        assert all(len(t) <= 2000 for t in texts())
        w.fake.assert_clean()


async def test_two_turn_pings_in_flight_leave_one(tmp_path: Any, monkeypatch: Any) -> None:
    """A slow channel (the send outlives the command's 1 s wait): two quick moves still leave
    exactly one ping, the newest."""
    import discord

    real = discord.PartialMessageable.send

    async def slow(self: Any, content: Any = None, **kw: Any) -> Any:
        if content and "your turn" in content:
            await asyncio.sleep(1.5)
        return await real(self, content, **kw)

    monkeypatch.setattr(discord.PartialMessageable, "send", slow)
    async with make_world(tmp_path, seed_factory=lambda: "ping-race") as w:
        await three_at_ofc(w)
        await asyncio.sleep(2)
        filled: dict[int, list[int]] = {}
        for _ in range(2):  # two quick moves in a row
            u = to_act(w)[0]
            await act_by_text(w, u, filled.setdefault(u.id, [0, 0, 0]))
        await w.fake.wait_until(lambda: len([
            m for m in w.fake.messages(w.chan, include_deleted=True)
            if "your turn" in (m.content or "")]) >= 3, 10, "three pings sent")
        await asyncio.sleep(0.5)
        pings = [m for m in w.fake.messages(w.chan) if "your turn" in (m.content or "")]
        assert len(pings) == 1 and f"<@{to_act(w)[0].id}>" in pings[0].content


async def test_the_panel_of_a_player_who_left_says_so(tmp_path: Any) -> None:
    """Their own panel from before they left: not "another player's", and its buttons go."""
    async with make_world(tmp_path, seed_factory=lambda: "e2e-left", next_hand_delay=0.01) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        await w.slash(w.carol, "ofc join")
        await w.slash(w.alice, "ofc start")
        panel = await w.slash(w.bob, "ofc hand")
        menu = panel.message.selects()[0]
        await w.slash(w.bob, "ofc leave")  # after this hand
        for user in (w.alice, w.bob, w.carol):
            await surrender(w, user)
        await w.fake.wait_until(lambda: table_of(w).row.hand_no == 2
                                and table_of(w).hand is not None, 10, "hand 2")
        assert table_of(w).seat_of_user(w.bob.id) is None
        rec = await w.select(w.bob, panel, menu["custom_id"], [menu["options"][0]["value"]])
        text = rec.message.content or ""
        assert "belongs to another player" not in text and "not seated" in text, text
        assert not rec.message.components
        w.fake.assert_clean()


async def test_a_pick_redraws_a_panel_whose_picture_another_panel_made_old(
    tmp_path: Any,
) -> None:
    """Two panels of one player: cards put on a row from one leave the other's picture old,
    so a pick there draws it again (a pick alone keeps the picture: it shows no selection)."""
    async with make_world(tmp_path, seed_factory=lambda: "e2e-two-panels") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        mover = next(u for u in (w.alice, w.bob) if u in to_act(w))
        first = await w.slash(mover, "ofc hand")
        second = await w.slash(mover, "ofc hand")
        cards = panel_cards(second.content)
        old = first.message.files[0][1]
        rec = await w.select(mover, first, first.message.selects()[0]["custom_id"], cards[:1])
        assert rec.message.files[0][1] == old  # a pick alone: the same picture
        rec = await w.select(mover, second, second.message.selects()[0]["custom_id"], cards[:2])
        await w.click(mover, rec, label="Top")  # the draft: two cards on top
        rec = await w.select(mover, first, first.message.selects()[0]["custom_id"], cards[2:3])
        assert f"top: {cards[0]} {cards[1]}" in rec.content
        assert rec.message.files[0][1] != old  # drawn again, with them
        w.fake.assert_clean()


async def test_the_bot_backs_up_its_database_on_its_own(tmp_path: Any) -> None:
    """``OFC_BACKUP_DIR``: the first backup as the bot starts (none there yet), in a thread
    while it plays; stopped with the bot; none at the next start while the newest is fresh.
    A backup made while a hand was being played restores it (``ofc-bot restore``): the
    restarted bot resumes that hand."""
    from bot.maintenance import regular_backups, restore

    folder = tmp_path / "backups"
    folder.mkdir()
    async with make_world(tmp_path) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=3)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        await w.stop_bot()
        w.settings = {"backup_dir": str(folder), "backup_hours": 24.0, "backup_keep": 2}
        await w.start_bot()  # the first backup: hand 1 being played
        for _ in range(250):
            if regular_backups(folder):
                break
            await asyncio.sleep(0.02)
        ((_when, first),) = regular_backups(folder)
        await _scripted_hand(w, stop_after=None)
        await wait_showdown(w)
        assert table_of(w).last_result is not None
        await w.stop_bot()
        await w.start_bot()  # the newest backup is fresh: none made
        await asyncio.sleep(0.3)
        assert [p for _w, p in regular_backups(folder)] == [first]
        await w.stop_bot()
        restore(first, w.db)  # back to the moment of that backup
        await w.start_bot()
        t = await resumed_table(w)
        assert t.row.hand_no == 1 and t.hand is not None and not t.hand.is_over
        assert t.last_result is None and await w.store.verify_ledger() == []
        del w._filled  # type: ignore[attr-defined]  # (its boards are empty again)
        await _scripted_hand(w, stop_after=None)  # and it plays on from there
        await wait_showdown(w)
