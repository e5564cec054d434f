"""A review of permissions and abuse resistance: who may change a table or the server's
units and settings, what a player may do with someone else's (or an old) panel, question or
table, and what a curious player can read back (history, stats) of others' hidden cards.

Every refusal must be a private (ephemeral) message that says why, change nothing (units,
table, hand) and log no unexpected error."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import pytest

from .conftest import World, make_world, panel_cards, table_of
from .fakediscord import CT_BUTTON, CT_STRING_SELECT, IT_COMPONENT, FakeMessage, FakeUser

pytestmark = pytest.mark.e2e


# --------------------------------------------------------------------------- helpers
def user_acting(w: World) -> FakeUser:
    t = table_of(w)
    (hs,) = [h for h in t.hand.to_act() if not t.hand.fantasyland[h]]
    uid = t.seat_by_no(t.hand_seats[hs]).user_id
    return next(u for u in w.users.values() if u.id == uid)


def texts(rec: Any) -> str:
    return "\n".join([rec.content or "", *(m.content or "" for m in rec.followups)])


async def forge(w: World, user: FakeUser, source: FakeMessage, custom_id: str,
                values: list[str] | None = None) -> Any:
    """A component interaction as a modified client could send it (see test_adversarial)."""
    data: dict[str, Any] = {"custom_id": custom_id,
                            "component_type": CT_BUTTON if values is None else CT_STRING_SELECT}
    if values is not None:
        data["values"] = values
    rec = w.fake._new_interaction(IT_COMPONENT, user, source.channel, data, source=source)
    return await w.fake._dispatch_interaction(rec, wait=True, timeout=10)


async def units(w: World, *users: FakeUser) -> dict[str, tuple[int, int]]:
    """Each user's (balance, units at tables) in the world's server."""
    out = {}
    for u in users:
        out[u.name] = await w.store.wallet(w.guild.id, u.id)
    return out


def refused(rec: Any, *words: str) -> None:
    text = texts(rec)
    assert rec.ephemeral and text.startswith("⚠️"), text
    for word in words:
        assert word in text, (word, text)


def no_errors(records: list[logging.LogRecord]) -> None:
    bad = [r for r in records if r.name.startswith(("ofc", "discord"))]
    assert not bad, [r.getMessage() for r in bad]


async def surrender(w: World, who: FakeUser) -> Any:
    ask = await w.slash(who, "ofc surrender")
    return await w.click(who, ask, label="Yes, surrender")


# --------------------------------------------------------------------------- host rights
async def test_the_host_who_left_has_no_rights_and_the_new_host_has(tmp_path: Any,
                                                                    errors: Any) -> None:
    async with make_world(tmp_path) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", seats=4)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.carol, "ofc join")
        r = await w.slash(w.alice, "ofc leave")
        assert "You left the table" in r.content
        t = table_of(w)
        assert t.host_id == w.bob.id
        await w.slash(w.alice, "ofc join")  # back, as a plain player
        rules = t.row.rules
        for who in (w.alice, w.carol, w.dave):  # the old host, a player, a member not seated
            for command, options in (("ofc options", {"timer": 600}), ("ofc close", {}),
                                     ("ofc addbot", {"level": "easy"}),
                                     ("ofc removebot", {})):
                r = await w.slash(who, command, **options)
                refused(r, "host")
        assert t.row.rules == rules and t.row.status == "open" and not t.bots
        r = await w.slash(w.bob, "ofc addbot", level="easy")
        assert "sat down" in r.content and len(t.bots) == 1
        w.fake.assert_clean()
        no_errors(errors)


async def test_a_manager_not_seated_may_run_the_table_as_the_readme_says(tmp_path: Any) -> None:
    async with make_world(tmp_path) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", seats=3)
        await w.slash(w.bob, "ofc join")
        r = await w.slash(w.admin, "ofc options", timer=30)
        assert not r.ephemeral and "changed the table's options" in r.content
        r = await w.slash(w.admin, "ofc addbot", level="easy")
        assert "sat down" in r.content
        r = await w.slash(w.admin, "ofc removebot")
        assert "left the table" in r.content
        # but not play: starting is for the seated
        r = await w.slash(w.admin, "ofc start")
        refused(r, "not seated")
        r = await w.slash(w.admin, "ofc close")
        assert "closed" in r.content
        w.fake.assert_clean()


# --------------------------------------------------------------------------- units, settings
async def test_grants_and_settings_out_of_bounds_change_nothing(tmp_path: Any,
                                                                errors: Any) -> None:
    async with make_world(tmp_path) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=5, buyin=500)
        await w.slash(w.bob, "ofc balance")  # known to the server: the start balance
        before = await units(w, w.alice, w.bob)
        settings = await w.store.get_settings(w.guild.id)
        r = await w.slash(w.admin, "ofc-admin grant", user=w.bob, amount=-1001)
        refused(r, "cannot remove")
        r = await w.slash(w.admin, "ofc-admin grant", user=w.alice, amount=-501)  # 500 at the table
        refused(r, "cannot remove")
        r = await w.slash(w.admin, "ofc-admin grant", user=w.bob, amount=0)
        refused(r)
        r = await w.slash(w.admin, "ofc-admin settings", default_buyin=settings.max_buyin + 1)
        refused(r, "cannot be above")
        r = await w.slash(w.admin, "ofc-admin settings", max_buyin=settings.default_buyin - 1)
        refused(r, "cannot be above")
        assert await w.store.get_settings(w.guild.id) == settings
        assert await units(w, w.alice, w.bob) == before
        assert await w.store.audit_log(w.guild.id) == []
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean()
        no_errors(errors)


async def test_buyins_and_stakes_out_of_bounds_move_nothing(tmp_path: Any, errors: Any) -> None:
    async with make_world(tmp_path) as w:
        await w.start_bot()
        await w.slash(w.admin, "ofc-admin settings", max_stake=10, max_buyin=800)
        for u in (w.alice, w.bob, w.carol):
            await w.slash(u, "ofc balance")
        start = await units(w, w.alice, w.bob, w.carol)
        for options, why in (({"stake": 11}, "at most 10"), ({"buyin": 801}, "at most 800"),
                             ({"stake": 1, "buyin": 0}, "at least 1"),):
            r = await w.slash(w.alice, "ofc new", variant="ofc", **options)
            refused(r, why)
        assert w.chan.id not in w.service._by_channel
        await w.slash(w.alice, "ofc new", variant="ofc", stake=10, buyin=800)
        for who, buyin, why in ((w.bob, 801, "at most 800"), (w.bob, 0, "at least 1"),
                                (w.carol, 800, None)):
            r = await w.slash(who, "ofc join", buyin=buyin)
            if why:
                refused(r, why)
        r = await w.slash(w.carol, "ofc join", buyin=1)
        refused(r, "already seated")
        # the maximum stake is lowered under the open table: no new buy-in there
        await w.slash(w.admin, "ofc-admin settings", max_stake=5)
        r = await w.slash(w.bob, "ofc join", buyin=10)
        refused(r, "maximum stake")
        # and a member whose balance is short
        await w.slash(w.admin, "ofc-admin settings", max_stake=10)
        await w.slash(w.admin, "ofc-admin grant", user=w.bob, amount=-900)
        r = await w.slash(w.bob, "ofc join", buyin=101)
        refused(r, "You have 100 units")
        now = await units(w, w.alice, w.bob, w.carol)
        assert now["alice"] == (start["alice"][0] - 800, 800)
        assert now["carol"] == (start["carol"][0] - 800, 800)
        assert now["bob"] == (100, 0)
        assert len(table_of(w).seats) == 2
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean()
        no_errors(errors)


# --------------------------------------------------------------------------- questions, panels
async def test_a_surrender_question_of_an_earlier_hand_or_table_does_nothing(
        tmp_path: Any, errors: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "perm-sur", next_hand_delay=0.01) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        old = await w.slash(w.alice, "ofc surrender")  # asked, not answered
        await surrender(w, w.bob)
        ask = await w.slash(w.alice, "ofc surrender")
        await w.click(w.alice, ask, label="Yes, surrender")
        await w.fake.wait_until(lambda: table_of(w).row.hand_no == 2
                                and table_of(w).hand is not None, 10, "hand 2")
        before = (await units(w, w.alice, w.bob), t.hand.to_json())
        r = await w.click(w.alice, old, label="Yes, surrender")
        refused(r, "Hand #1 is over")
        assert not any(t.hand.surrendered)
        # the table closes; a new one in the channel counts from hand #1 again
        old2 = await w.slash(w.alice, "ofc surrender")
        await w.slash(w.alice, "ofc close")
        await surrender(w, w.alice)
        await surrender(w, w.bob)
        await w.fake.wait_until(lambda: w.chan.id not in w.service._by_channel, 15, "closed")
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        t2 = table_of(w)
        for _ in range(2):  # hand #2 of the new table, as the old question's
            for u in (w.alice, w.bob):
                await surrender(w, u)
            await w.fake.wait_until(lambda: t2.hand is not None and t2.row.hand_no >= 2, 10,
                                    "next hand")
            if t2.row.hand_no == 2:
                break
        assert t2.row.hand_no == 2
        r = await w.click(w.alice, old2, label="Yes, surrender")
        refused(r, "closed")
        assert not any(t2.hand.surrendered)
        assert before[0] != {}  # (units were read while hand #2 of the first table played)
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean()
        no_errors(errors)



async def test_the_host_who_left_during_a_hand_loses_the_rights_after_it(
        tmp_path: Any, errors: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "perm-hostmid",
                          next_hand_delay=0.01) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", seats=4)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.carol, "ofc join")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        r = await w.slash(w.alice, "ofc leave")
        assert "after this hand" in r.content
        for u in (w.alice, w.bob, w.carol):
            await surrender(w, u)
        await w.fake.wait_until(lambda: t.seat_of_user(w.alice.id) is None, 10, "alice gone")
        assert t.host_id == w.bob.id
        rules, status = t.row.rules, t.row.status
        for command, options in (("ofc options", {"timer": 600}), ("ofc close", {}),
                                 ("ofc addbot", {"level": "easy"})):
            r = await w.slash(w.alice, command, **options)
            refused(r, "Only the table's host", f"<@{w.bob.id}>")
        assert (t.row.rules, t.row.status, t.bots) == (rules, status, [])
        # a manager who does not own the bot cannot republish the commands
        r = await w.slash(w.admin, "ofc-admin sync")
        refused(r, "owner")
        w.fake.assert_clean()
        no_errors(errors)


# --------------------------------------------------------------------------- defects
async def test_removebot_with_a_long_name_gets_a_refusal(tmp_path: Any, errors: Any) -> None:
    """Defect: `/ofc removebot bot:` has no length limit (Discord allows 6,000 characters in
    a string option) and the refusal quotes it whole ("No bot '<what was typed>' here"), so
    the answer is over Discord's 2,000 characters: Discord refuses it, the user sees "The
    application did not respond" and the log gets "could not deliver an error message"."""
    async with make_world(tmp_path) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", seats=3, bots=1)
        t = table_of(w)
        r = await w.fake.slash(w.alice, w.chan, "ofc removebot", bot="x" * 3000, wait=False)
        await asyncio.sleep(1.0)
        assert r.callback_type is not None, "the host got no answer at all"
        await w.fake.wait_answered(r)
        refused(r, "No bot")
        assert len(t.bots) == 1
        w.fake.assert_clean()
        no_errors(errors)


async def test_a_forged_long_select_value_gets_a_refusal(tmp_path: Any, errors: Any) -> None:
    """Defect (a modified client only: Discord's own client sends the menu's values): the
    panel's refusal of a value that is not a card quotes it whole ("'<value>' is not a card"),
    so a long one leaves the click unanswered, as in the test above.  Shorter forgeries (every
    card of the deck, 100 values, one card 100 times) are refused with a reason."""
    async with make_world(tmp_path, seed_factory=lambda: "perm-sel") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="pineapple")
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        mover = user_acting(w)
        panel = await w.slash(mover, "ofc hand")
        cards = panel_cards(panel.content)
        sel = panel.message.selects()[0]["custom_id"]
        before = t.hand.to_json()
        deck = [f"{r}{s}" for r in "23456789TJQKA" for s in "cdhs"]
        for values, why in ((deck, "not in your hand"), ([str(i) for i in range(100)],
                            "is not a card"), ([cards[0]] * 100, "twice")):
            rec = await forge(w, mover, panel.message, sel, values)
            assert "⚠️" in texts(rec) and why in texts(rec), texts(rec)
        assert t.hand.to_json() == before
        data = {"custom_id": sel, "component_type": CT_STRING_SELECT, "values": ["Z" * 3000]}
        rec = w.fake._new_interaction(IT_COMPONENT, mover, panel.message.channel, data,
                                      source=panel.message)
        await w.fake._dispatch_interaction(rec, wait=False, timeout=10)
        await asyncio.sleep(1.0)
        assert rec.callback_type is not None, "the click got no answer at all"
        assert t.hand.to_json() == before
        w.fake.assert_clean()
        no_errors(errors)


# --------------------------------------------------------------------------- what others see
def outside_code(text: str) -> str:
    """What Discord parses for mentions: not inside code."""
    return re.sub(r"```.*?```|`[^`]*`", "", text, flags=re.S)


async def test_names_with_mentions_and_markdown_ping_nobody(tmp_path: Any, errors: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "perm-names", next_hand_delay=0.01) as w:
        evil = f"<@{w.admin.id}> @everyone **x** ||y|| <@&{w.guild.id}>"
        eve = w.fake.add_user("eve", guild=w.guild, global_name=evil)
        w.users["eve"] = eve
        await w.start_bot()
        await w.slash(eve, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        await w.slash(eve, "ofc options", timer=30)
        await w.slash(eve, "ofc start")
        await surrender(w, eve)
        await surrender(w, w.bob)
        await w.fake.wait_for_message(w.chan, lambda m: "Showdown" in (m.content or ""),
                                      include_existing=True, timeout=10)
        await w.slash(eve, "ofc leaderboard")
        await w.slash(w.admin, "ofc-admin grant", user=eve, amount=5)
        await w.slash(eve, "ofc leave")
        await asyncio.sleep(0.3)
        public = [m for m in w.fake.messages(w.chan) if not m.ephemeral and m.author.id != eve.id]
        assert len(public) >= 6
        for m in public:
            body = outside_code(m.content or "")
            assert f"<@{w.admin.id}>" not in body, body
            assert "@everyone" not in body and f"<@&{w.guild.id}>" not in body, body
            assert "**x**" not in body, body
        w.fake.assert_clean()
        no_errors(errors)


async def test_commands_in_another_server_neither_reach_nor_name_this_table(
        tmp_path: Any, errors: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "perm-x") as w:
        g2 = w.fake.add_guild("Other")
        c2 = w.fake.add_text_channel(g2, "elsewhere")
        w.fake.add_member(g2, w.alice)
        w.fake.add_member(g2, w.bob, manage_guild=True)
        w.dev_guild = False  # the commands are global: in both servers
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        before = (t.hand.to_json(), t.row.rules, t.row.status)
        for who, cmd in ((w.alice, "ofc hand"), (w.alice, "ofc leave"),
                         (w.alice, "ofc surrender"), (w.alice, "ofc suggest"),
                         (w.alice, "ofc table"), (w.alice, "ofc history"),
                         (w.bob, "ofc close"), (w.bob, "ofc options"), (w.bob, "ofc addbot")):
            options = {"timer": 30} if cmd == "ofc options" else {}
            r = await w.fake.slash(who, c2, cmd, options=options)
            refused(r, "no table in this channel")
            assert str(w.chan.id) not in texts(r)
        assert (t.hand.to_json(), t.row.rules, t.row.status) == before
        assert not t.hand.surrendered[0]
        w.fake.assert_clean()
        no_errors(errors)


@pytest.mark.parametrize("variant,cards", [("ofc", 13), ("pineapple", 15)])
async def test_a_surrendered_fantasyland_stays_hidden_in_history_stats_and_table(
        tmp_path: Any, errors: Any, variant: str, cards: int) -> None:
    async with make_world(tmp_path, seed_factory=lambda: f"perm-fls-{variant}",
                          next_hand_delay=30) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant=variant)
        await w.slash(w.bob, "ofc join")
        t = table_of(w)
        await w.store.update_table(t.id, extra={"fantasyland": {"0": cards}})
        await w.service._refresh(t)
        await w.slash(w.alice, "ofc start")
        mark = max(m.id for m in w.fake.messages())
        dm = await w.fake.wait_for_message(w.alice, lambda m: "Fantasyland" in (m.content or ""),
                                           include_existing=True)
        secret = set(panel_cards(dm.content))
        assert len(secret) == cards
        await surrender(w, w.alice)
        await surrender(w, w.bob)
        await w.fake.wait_for_message(w.chan, lambda m: "Showdown" in (m.content or ""),
                                      include_existing=True, timeout=10)
        await w.slash(w.bob, "ofc history")
        await w.slash(w.bob, "ofc stats", user=w.alice)
        await w.slash(w.bob, "ofc table")
        await asyncio.sleep(0.3)
        seen = "\n".join(m.text for m in w.fake.visible_to(w.bob) if m.id > mark)
        leaked = {c for c in secret if re.search(rf"\b{c}\b", seen)}
        assert not leaked, leaked
        w.fake.assert_clean()
        no_errors(errors)


async def test_custom_ids_not_on_the_clicked_message_do_nothing(tmp_path: Any,
                                                                errors: Any) -> None:
    """A modified client sending a custom_id its message does not carry (another table, seat,
    hand, player, a huge number): discord.py drops it, so nothing is done."""
    async with make_world(tmp_path, seed_factory=lambda: "perm-cid") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        t = table_of(w)
        panel = await w.slash(w.bob, "ofc hand")
        before = (t.hand.to_json(), dict(t.drafts))
        recs = []
        for cid in (f"ofc:sur:{t.id}:{w.bob.id}:1:yes", f"ofc:sur:{t.id}:{w.alice.id}:1:yes",
                    f"ofc:pb:{t.id}:0:1:0:confirm", f"ofc:pb:{10**40}:0:1:0:top",
                    f"ofc:open:{t.id + 1}"):
            data = {"custom_id": cid, "component_type": CT_BUTTON}
            rec = w.fake._new_interaction(IT_COMPONENT, w.bob, panel.message.channel, data,
                                          source=panel.message)
            recs.append(await w.fake._dispatch_interaction(rec, wait=False, timeout=10))
        await asyncio.sleep(1.0)
        assert all(r.callback_type is None for r in recs)
        assert (t.hand.to_json(), dict(t.drafts)) == before and not any(t.hand.surrendered)
        no_errors(errors)

