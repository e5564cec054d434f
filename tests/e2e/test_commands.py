"""Publishing the slash commands, and the server managers' group that members do not see."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from .conftest import make_world
from .fakediscord import ComponentUnavailable


async def test_a_new_bot_publishes_its_commands_globally_once(tmp_path: Any) -> None:
    # no OFC_DEV_GUILD_ID: a new application has no commands, and /ofc-admin sync could not
    # even be run; the bot publishes them at its first start, and not again while unchanged
    async with make_world(tmp_path) as w:
        w.dev_guild = False
        await w.start_bot()
        puts = w.fake.requests_to("PUT", r"/applications/\d+/commands$")
        assert len(puts) == 1
        published = w.fake.commands[None]
        assert set(published) == {"ofc", "ofc-admin"}
        assert published["ofc"]["default_member_permissions"] is None
        assert int(published["ofc-admin"]["default_member_permissions"]) == 32  # Manage Server
        assert not w.fake.commands.get(w.guild.id)  # nothing per guild: no duplicates
        r = await w.slash(w.alice, "ofc new", variant="ofc")
        assert "table" in r.content.lower()
        await w.stop_bot()
        await w.start_bot()  # the same version: Discord's copy is kept
        assert len(w.fake.requests_to("PUT", r"/applications/\d+/commands$")) == 1
        await w.stop_bot()
        # another version (here: a description Discord has that this one changed) publishes again
        w.fake.commands[None]["ofc"]["description"] = "an older description"
        await w.start_bot()
        assert len(w.fake.requests_to("PUT", r"/applications/\d+/commands$")) == 2
        assert w.fake.commands[None]["ofc"]["description"] == "Open Face Chinese Poker"
        w.fake.assert_clean()


async def test_server_commands_are_for_managers_only(tmp_path: Any) -> None:
    async with make_world(tmp_path) as w:
        await w.start_bot()
        for command, options in (("ofc-admin grant", {"user": w.bob, "amount": 50}),
                                 ("ofc-admin settings", {"max_stake": 5}),
                                 ("ofc-admin sync", {})):
            with pytest.raises(ComponentUnavailable, match="lacks permissions"):
                await w.slash(w.bob, command, **options)
        r = await w.slash(w.admin, "ofc-admin grant", user=w.bob, amount=50)
        assert "+50 units for **bob** (now 1050)" in r.content
        assert await w.store.balance(w.guild.id, w.bob.id) == 1050
        r = await w.slash(w.admin, "ofc-admin settings", max_stake=5)
        assert r.ephemeral and "max stake 5 per point" in r.content
        r = await w.slash(w.admin, "ofc-admin sync")
        assert r.ephemeral and "Only the bot's owner" in r.content
        # /ofc help shows the managers' group to managers only
        for user in (w.bob, w.admin):
            r = await w.slash(user, "ofc help")
            await asyncio.sleep(0.2)  # (what does not fit one message follows)
            assert r.ephemeral and all(m.ephemeral for m in r.followups)
        member, manager = ("\n".join(m.content or "" for m in w.fake.visible_to(u) if m.ephemeral)
                           for u in (w.bob, w.admin))
        assert "`/ofc new` —" in member and "/ofc-admin" not in member
        assert "`/ofc grant`" not in member + manager
        assert "`/ofc-admin grant` —" in manager and "`/ofc-admin settings` —" in manager
        w.fake.assert_clean()


async def test_grants_take_a_reason_and_managers_read_them_in_the_audit_log(
    tmp_path: Any,
) -> None:
    """/ofc-admin grant keeps who gave how many units to whom, the balance after and why;
    /ofc-admin audit shows the last ones to a manager, privately, newest first, for one
    member if asked; members cannot read it."""
    async with make_world(tmp_path) as w:
        await w.start_bot()
        r = await w.slash(w.admin, "ofc-admin audit")
        assert r.ephemeral and r.content == "No units were granted yet."
        r = await w.slash(w.admin, "ofc-admin grant", user=w.bob, amount=50,
                          reason="won the  **weekly**\ntournament")
        assert not r.ephemeral and r.content.endswith(
            "(now 1050) — won the \\*\\*weekly\\*\\* tournament. Logged for audit.")
        await w.slash(w.admin, "ofc-admin grant", user=w.carol, amount=-1)
        await w.slash(w.admin, "ofc-admin grant", user=w.bob, amount=7)
        r = await w.slash(w.admin, "ofc-admin audit")
        assert r.ephemeral
        lines = r.content.split("\n")
        assert len(lines) == 3
        assert lines[0].endswith(f"<@{w.admin.id}> gave +7 units to <@{w.bob.id}>"
                                 " (balance after: 1057)")
        assert lines[1].endswith(f"<@{w.admin.id}> gave −1 unit to <@{w.carol.id}>"
                                 " (balance after: 999)")
        assert lines[2].endswith("(balance after: 1050) — won the \\*\\*weekly\\*\\* tournament")
        assert all(line.startswith("<t:") for line in lines)
        r = await w.slash(w.admin, "ofc-admin audit", count=1, user=w.carol)
        assert r.content.split("\n") == [lines[1]]
        r = await w.slash(w.admin, "ofc-admin audit", user=w.dave)
        assert r.content == "No units were granted to **dave** yet."
        with pytest.raises(ComponentUnavailable, match="lacks permissions"):
            await w.slash(w.bob, "ofc-admin audit")
        entries = await w.service.audit(w.guild.id, True, 25)
        assert [(e.user_id, e.amount, e.reason) for e in entries] == [
            (w.bob.id, 7, ""), (w.carol.id, -1, ""), (w.bob.id, 50, "won the **weekly** tournament")]
        w.fake.assert_clean()
