"""An adversarial review: what a malicious or curious player in the server could try.

Hidden information (a fantasyland hand and its setting, pineapple discards, a chinese set
before everyone has set, the deck, another player's panel, draft and suggestion) must reach
nobody but its owner before the showdown (discards: never); nobody acts for someone else,
twice or out of turn; units move only at a settlement that sums to zero; nobody changes a
table they do not host.  Forged interactions (a custom_id or select values the client never
offered) are sent through the loopback Discord's own interaction path, as a modified client
could."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from .conftest import World, hs_of, make_world, panel_cards, table_of
from .fakediscord import CT_BUTTON, CT_STRING_SELECT, IT_COMPONENT, FakeMessage, FakeUser

pytestmark = pytest.mark.e2e


def user_acting(w: World) -> FakeUser:
    t = table_of(w)
    (hs,) = [h for h in t.hand.to_act() if not t.hand.fantasyland[h]]
    uid = t.seat_by_no(t.hand_seats[hs]).user_id
    return next(u for u in w.users.values() if u.id == uid)


async def forge(w: World, user: FakeUser, source: FakeMessage, custom_id: str,
                values: list[str] | None = None) -> Any:
    """A component interaction as a modified client could send it: any custom_id (and select
    values) from a message the user can see."""
    data: dict[str, Any] = {"custom_id": custom_id,
                            "component_type": CT_BUTTON if values is None else CT_STRING_SELECT}
    if values is not None:
        data["values"] = values
    rec = w.fake._new_interaction(IT_COMPONENT, user, source.channel, data, source=source)
    return await w.fake._dispatch_interaction(rec, wait=True, timeout=10)


def texts(rec: Any) -> str:
    return "\n".join([rec.content or "", *(m.content or "" for m in rec.followups)])


def visible(w: World, user: FakeUser, since: int = 0) -> str:
    return "\n".join(m.text for m in w.fake.visible_to(user) if m.id > since)


def assert_unseen(w: World, user: FakeUser, cards: set[str], since: int = 0) -> None:
    text = visible(w, user, since)
    for c in cards:
        assert not re.search(rf"\b{c}\b", text), f"{user.name} saw {c}"


async def table_message(w: World) -> FakeMessage:
    return await w.fake.wait_for_message(
        w.chan, lambda m: bool(m.files) and "Open my panel" in str(m.components),
        include_existing=True)


async def open_table(w: World, *others: FakeUser, fantasyland: dict[str, int] | None = None,
                     **options: Any) -> Any:
    await w.start_bot()
    await w.slash(w.alice, "ofc new", **{"variant": "ofc", **options})
    for who in others or (w.bob,):
        await w.slash(who, "ofc join")
    t = table_of(w)
    if fantasyland:
        await w.store.update_table(t.id, extra={"fantasyland": fantasyland})
        await w.service._refresh(t)
    await w.slash(w.alice, "ofc start")
    return table_of(w)


# --------------------------------------------------------------------------- forged clicks
async def test_another_player_clicking_a_copy_of_a_panel_does_nothing(tmp_path: Any) -> None:
    """Worst case: another player gets hold of a player's panel message (discord.py drops a
    custom_id that is not on the message clicked) and presses everything on it."""
    async with make_world(tmp_path, seed_factory=lambda: "adv-forge") as w:
        t = await open_table(w, w.bob, w.carol)
        mover = user_acting(w)
        other = next(u for u in (w.alice, w.bob, w.carol) if u is not mover)
        panel = await w.slash(mover, "ofc hand")
        cards = panel_cards(panel.content)
        sel = panel.message.selects()[0]["custom_id"]
        panel = await w.select(mover, panel, sel, cards[:1])
        msg = panel.message
        before = (t.hand.to_json(), {k: d.to_json() for k, d in t.drafts.items()})
        shown = msg.text
        base = sel.removeprefix("ofc:ps:")
        for cid, values in ((sel, cards[1:3]), (f"ofc:pb:{base}:bottom", None),
                            (f"ofc:pb:{base}:undo", None), (f"ofc:pb:{base}:confirm", None)):
            rec = await forge(w, other, msg, cid, values)
            assert rec.ephemeral and "belongs to another player" in rec.content, rec.content
            assert not any(c in rec.content for c in cards)
        assert (t.hand.to_json(), {k: d.to_json() for k, d in t.drafts.items()}) == before
        assert msg.text == shown  # the owner's panel was not edited either
        # the surrender question of another player
        ask = await w.slash(mover, "ofc surrender")
        for label in ("Yes, surrender", "Keep playing"):
            cid = ask.message.button(label)["custom_id"]
            rec = await forge(w, other, ask.message, cid)
            assert rec.ephemeral and "asked to another player" in rec.content
        assert not any(t.hand.surrendered) and "Surrender hand" in ask.message.text
        w.fake.assert_clean()


async def test_select_values_never_offered_are_refused(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "adv-values") as w:
        t = await open_table(w, variant="pineapple")
        mover = user_acting(w)
        panel = await w.slash(mover, "ofc hand")
        cards = panel_cards(panel.content)
        sel = panel.message.selects()[0]["custom_id"]
        hs = hs_of(w, mover)
        unseen = next(c for c in ("As", "Kd", "2c", "7h", "Qs") if c not in cards)
        for values, why in (([unseen], f"{unseen} is not in your hand"), (["Zz"], "Zz"),
                            (["-"], ""), ([cards[0], cards[0]], "twice")):
            rec = await forge(w, mover, panel.message, sel, values)
            assert "⚠️" in texts(rec) and why in texts(rec), (values, texts(rec))
        assert t.drafts.get(hs) is None or not t.drafts[hs].selected
        w.fake.assert_clean()


async def test_old_panels_and_closed_tables(tmp_path: Any) -> None:
    """A panel of an earlier hand (its seat and step numbers come back in the next hand), the
    table message's button and a panel of a table closed since (a new one in the channel
    counts its hands from 1 again)."""
    async with make_world(tmp_path, seed_factory=lambda: "adv-old", next_hand_delay=0.01) as w:
        t = await open_table(w)
        mover = user_acting(w)
        old = await w.slash(mover, "ofc hand")
        cards = panel_cards(old.content)
        sel = old.message.selects()[0]["custom_id"]
        public = await table_message(w)

        async def both_surrender() -> None:
            for u in (w.alice, w.bob):
                ask = await w.slash(u, "ofc surrender")
                await w.click(u, ask, label="Yes, surrender")

        await both_surrender()
        await w.fake.wait_until(lambda: table_of(w).row.hand_no == 2
                                and table_of(w).hand is not None, 10, "hand 2")
        # the table message of hand 1 is replaced by the one under the showdown (left above
        # it, it looked live), so its button is sent as a modified client could
        await w.fake.wait_until(lambda: public.deleted, 5, "the old table message deleted")
        button = str(public.components[0]["components"][0]["custom_id"])
        rec = await w.select(mover, old, sel, cards[:1])
        assert "Hand #1 is over" in rec.content and "hand #2" in rec.content
        assert not t.drafts  # nothing of hand 1's panel reached hand 2
        mover = user_acting(w)
        old = await w.slash(mover, "ofc hand")
        cards = panel_cards(old.content)
        sel = old.message.selects()[0]["custom_id"]
        # the closed table's last table message (posted under the showdown) keeps its button
        # until the coalesced edit marks it closed: held off here, so it can still be pressed
        # below (once marked it has no button, and discord.py drops a custom_id that is not on
        # the message clicked: the click would go unanswered)
        w.service.notifier.inner.coalesce = 60.0  # (the Presenter)
        await w.slash(w.alice, "ofc close")
        await both_surrender()
        await w.fake.wait_until(lambda: w.chan.id not in w.service._by_channel, 15, "closed")
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        rec = await w.select(mover, old, sel, cards[:1])
        assert "That table is closed" in texts(rec)
        live = next(m for m in w.fake.messages(w.chan) if button in str(m.components))
        rec = await forge(w, w.carol, live, button)
        assert rec.ephemeral and "closed" in rec.content
        assert table_of(w).drafts == {} and table_of(w).hand.log == []
        w.fake.assert_clean()


# --------------------------------------------------------------------------- hidden cards
def secret_cards(w: World, owner: FakeUser) -> set[str]:
    """What only ``owner`` may know now: their pending cards, discards and (when hidden)
    their board."""
    t = table_of(w)
    hs = hs_of(w, owner)
    h = t.hand
    out = {str(c) for c in (*h.pending[hs], *h.discards[hs], *h.natural_cards[hs])}
    if h.hidden(hs):
        out |= {str(c) for c in h.boards[hs].cards}
    return out


def public_cards(w: World, viewer: FakeUser) -> set[str]:
    """Cards ``viewer`` may see in the hand being played."""
    t = table_of(w)
    seat = t.seat_of_user(viewer.id)
    hs = t.hand_seat_of(seat.seat_no) if seat is not None else None
    return {str(c) for c in t.hand.cards_seen_by(hs)}


async def every_look(w: World, who: FakeUser) -> None:
    """Everything a curious player can ask for during a hand."""
    await w.slash(who, "ofc table")
    await w.slash(who, "ofc suggest")
    await w.slash(who, "ofc history")
    await w.slash(who, "ofc stats")
    await w.slash(who, "ofc leaderboard")
    await w.slash(who, "ofc rules")
    await w.slash(who, "ofc balance")


async def test_chinese_sets_stay_hidden_until_everyone_has_set(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "adv-chinese") as w:
        t = await open_table(w, w.bob, w.carol, variant="chinese", timer=30)
        mark = max(m.id for m in w.fake.messages())
        cards = panel_cards((await w.slash(w.bob, "ofc hand")).content)
        r = await w.slash(w.bob, "ofc place", move=" ".join(cards[:5]) + " bottom "
                          + " ".join(cards[5:10]) + " middle " + " ".join(cards[10:])
                          + " top foul")
        assert r.ephemeral and "Your hand is set" in r.content
        r = await w.slash(w.alice, "ofc surrender")
        await w.click(w.alice, r, label="Yes, surrender")
        secrets = {u.name: secret_cards(w, u) for u in (w.alice, w.bob, w.carol)}
        for who in (w.alice, w.carol):
            await every_look(w, who)
        await asyncio.sleep(0.3)  # (the table message's edits)
        for who in (w.alice, w.bob, w.carol):
            for owner, cards_ in secrets.items():
                if owner != who.name:
                    assert_unseen(w, who, cards_ - public_cards(w, who), since=mark)
        # carol's clock runs out: the bot sets for her; then the showdown shows bob's and
        # carol's sets, never alice's surrendered cards
        w.clock.offset += 121  # (a set's clock)
        w.service.rearm()
        show = await w.fake.wait_for_message(
            w.chan, lambda m: "Showdown — hand #1" in (m.content or ""), timeout=15,
            include_existing=True)
        for c in secrets["bob"] | secrets["carol"]:
            assert re.search(rf"\b{c}\b", show.content), c
        for who in (w.bob, w.carol):
            assert_unseen(w, who, secrets["alice"], since=mark)
        assert t.last_result.settlement.boards[hs_of_result(t, "alice")] is None
        w.fake.assert_clean()


def hs_of_result(t: Any, name: str) -> int:
    return int(t.last_result.names.index(name))


async def test_pineapple_surrender_and_timeout_discards_are_never_shown(tmp_path: Any) -> None:
    """A surrender puts the cards in front of the player among their discards; a timeout
    discards for them: neither is shown to anyone else, at the showdown either."""
    async with make_world(tmp_path, seed_factory=lambda: "adv-pine-sur") as w:
        t = await open_table(w, w.bob, w.carol, variant="pineapple", timer=30,
                             fantasyland={"0": 15})  # alice sets 13 of 15 while they play
        mark = max(m.id for m in w.fake.messages())
        dm = await w.fake.wait_for_message(w.alice, lambda m: "Fantasyland" in (m.content or ""),
                                           include_existing=True)
        assert len(panel_cards(dm.content)) == 15
        first = user_acting(w)
        cards = panel_cards((await w.slash(first, "ofc hand")).content)
        await w.slash(first, "ofc place", move=" ".join(cards) + " bottom")
        second = user_acting(w)
        r = await w.slash(second, "ofc surrender")  # 5 cards in front of them, none placed
        await w.click(second, r, label="Yes, surrender")
        secrets = {u.name: secret_cards(w, u) for u in (w.alice, w.bob, w.carol)}
        assert len(secrets[second.name]) == 5 and len(secrets["alice"]) == 15
        for who in (w.bob, w.carol):
            await every_look(w, who)
        r = await w.fake.slash(w.alice, w.chan, "ofc suggest", timeout=60)  # her fantasyland
        assert r.ephemeral and "suggested" in r.content
        await asyncio.sleep(0.3)
        for who in (w.alice, w.bob, w.carol):
            for owner, cards_ in secrets.items():
                if owner != who.name:
                    assert_unseen(w, who, cards_ - public_cards(w, who), since=mark)
        # the clocks of alice's fantasyland and of the last player run out, street after
        # street: the bot plays and discards for them
        while table_of(w).hand is not None:
            w.clock.offset += 121
            w.service.rearm()
            await asyncio.sleep(0.1)
        await w.fake.wait_for_message(
            w.chan, lambda m: "Showdown — hand #1" in (m.content or ""), timeout=15,
            include_existing=True)
        (row, _), = await w.store.history(t.id, 1)
        discards = row.state["engine"]["state"]["discards"]
        users = row.state["users"]
        assert sorted(len(d) for d in discards) == [2, 4, 5]
        for who in (w.alice, w.bob, w.carol):
            others = {c for i, d in enumerate(discards) if users[i] != who.id for c in d}
            assert_unseen(w, who, others, since=mark)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- races
async def test_double_confirm_and_place_racing_a_panel_confirm_play_once(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "adv-race") as w:
        t = await open_table(w)
        mover = user_acting(w)
        hs = hs_of(w, mover)
        panel = await w.slash(mover, "ofc hand")
        cards = panel_cards(panel.content)
        rec = await w.select(mover, panel, panel.message.selects()[0]["custom_id"], cards)
        rec = await w.click(mover, rec, label="Bottom")
        msg = rec.message
        confirm = msg.button("Confirm")["custom_id"]
        # two clicks of Confirm and a /ofc place of the same cards, all at once
        recs = [await w.fake.click(mover, msg, confirm, wait=False) for _ in range(2)]
        recs.append(await w.fake.slash(mover, w.chan, "ofc place", wait=False,
                                       options={"move": " ".join(cards) + " middle"}))
        for r in recs:
            await w.fake.wait_answered(r)
        played = [a for a in t.hand.log if a.seat == hs]
        assert len(played) == 1
        answers = [(r.callback_data or {}).get("content") or "" for r in recs]
        assert len([a for a in answers if a.startswith("✅")]) == 1, answers
        w.fake.assert_clean()


async def test_a_move_racing_the_timeout_is_played_once(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "adv-timeout-race") as w:
        t = await open_table(w, timer=10)
        mover = user_acting(w)
        hs = hs_of(w, mover)
        cards = panel_cards((await w.slash(mover, "ofc hand")).content)
        w.clock.offset += 11
        w.service.rearm()  # the timeout and the move, in the same instant
        r = await w.slash(mover, "ofc place", move=" ".join(cards) + " bottom")
        await w.fake.wait_until(lambda: len([a for a in t.hand.log if a.seat == hs]) >= 1, 5,
                                "played")
        await asyncio.sleep(0.5)
        played = [a for a in t.hand.log if a.seat == hs]
        assert len(played) == 1 and len(t.hand.boards[hs]) == 5
        assert r.content.startswith("✅") != played[0].auto, (r.content, played)
        w.fake.assert_clean()


# --------------------------------------------------------------------------- who may
async def test_managers_commands_opened_to_members_still_refuse_them(tmp_path: Any) -> None:
    """A server may open /ofc-admin to everyone in its Integrations settings: the bot still
    refuses units and settings changes to members without Manage Server."""
    async with make_world(tmp_path) as w:
        await w.start_bot()
        w.fake.commands[w.guild.id]["ofc-admin"]["default_member_permissions"] = None
        before = await w.store.get_settings(w.guild.id)
        balances = [await w.store.balance(w.guild.id, u.id) for u in (w.bob, w.carol)]
        for command, options in (("ofc-admin grant", {"user": w.bob, "amount": 500}),
                                 ("ofc-admin grant", {"user": w.carol, "amount": -500}),
                                 ("ofc-admin settings", {"start_balance": 10**6}),
                                 ("ofc-admin sync", {})):
            r = await w.slash(w.bob, command, **options)
            assert r.ephemeral and r.content.startswith("⚠️"), (command, r.content)
        assert await w.store.get_settings(w.guild.id) == before
        assert [await w.store.balance(w.guild.id, u.id) for u in (w.bob, w.carol)] == balances
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean()


async def test_only_the_host_changes_the_table(tmp_path: Any) -> None:
    """A seated player who does not host the table cannot change its options, close it or
    fill its seats with bots (or take them back)."""
    async with make_world(tmp_path) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", seats=4)
        await w.slash(w.bob, "ofc join")
        t = table_of(w)
        rules = t.row.rules
        for command, options in (("ofc options", {"timer": 600}), ("ofc close", {}),
                                 ("ofc addbot", {"level": "easy"}), ("ofc removebot", {})):
            r = await w.slash(w.bob, command, **options)
            assert r.ephemeral and "host" in r.content, (command, r.content)
        assert t.row.rules == rules and t.row.status == "open" and not t.bots
        r = await w.slash(w.carol, "ofc join")
        assert "sat down" in r.content
        r = await w.slash(w.alice, "ofc addbot", level="easy")  # the host may
        assert "sat down" in r.content
        r = await w.slash(w.admin, "ofc join")
        r = await w.slash(w.admin, "ofc options", timer=30)  # and a server manager
        assert not r.ephemeral
        w.fake.assert_clean()


async def test_leaving_and_rejoining_mid_hand_changes_nothing_in_it(tmp_path: Any) -> None:
    """A player in the hand who leaves and comes back keeps their seat and hand; one who
    was not dealt in and sits down again (maybe in a seat freed meanwhile) gets nothing of
    the hand being played; no units move outside a settlement."""
    async with make_world(tmp_path, seed_factory=lambda: "adv-rejoin") as w:
        t = await open_table(w, w.bob)
        r = await w.slash(w.carol, "ofc join")  # mid-hand: dealt in from the next one
        assert "sat down" in r.content
        users = (w.alice, w.bob, w.carol)

        async def units() -> int:
            total = 0
            for u in users:
                total += await w.store.balance(w.guild.id, u.id)
                seat = t.seat_of_user(u.id)
                total += seat.stack if seat is not None else 0
            return total

        start = await units()
        before = t.hand.to_json()
        r = await w.slash(w.bob, "ofc leave")
        assert "after this hand" in r.content
        r = await w.slash(w.bob, "ofc join")
        assert r.ephemeral and "`/ofc sitin` keeps your seat" in r.content
        await w.slash(w.bob, "ofc sitin")
        for _ in range(2):
            r = await w.slash(w.carol, "ofc leave")
            assert "You left the table" in r.content
            r = await w.slash(w.carol, "ofc join")
            assert "sat down" in r.content
        for command, options in (("ofc hand", {}), ("ofc suggest", {}),
                                 ("ofc place", {"move": "As top"}), ("ofc surrender", {}),
                                 ("ofc declare", {"natural": "dragon"})):
            r = await w.slash(w.carol, command, **options)
            assert r.ephemeral and "not in this hand" in texts(r), (command, texts(r))
        assert t.hand.to_json() == before and await units() == start
        mover = user_acting(w)
        cards = panel_cards((await w.slash(mover, "ofc hand")).content)
        r = await w.slash(mover, "ofc place", move=" ".join(cards) + " bottom")
        assert r.content.startswith("✅")
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean()
