"""The loopback Discord stand-in works with the real discord.py client.

A minimal discord.py bot is defined here (not the OFC bot) and driven through
every feature of the stand-in: ephemeral replies, deferred replies with files,
views (buttons and selects, UPDATE_MESSAGE and DEFERRED_UPDATE_MESSAGE), DMs to
open and closed inboxes, 429 handling, modals, autocomplete, permission-gated
commands, the 3-second acknowledgement deadline, gateway resume, and the
loopback-only guard, and threads (public, private, forum posts; archived and locked).
"""

from __future__ import annotations

import asyncio
import gc
import io
import logging
import threading
import time
import warnings
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request
from discord import app_commands

from .fakediscord import (
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_EVERYONE_PERMISSIONS,
    ComponentUnavailable,
    FakeDiscord,
    InteractionFailed,
    Perm,
    is_loopback,
    snowflake_time_ms,
)

pytestmark = pytest.mark.e2e

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDRfake-board"
FRUITS = ["apple", "apricot", "banana", "cherry"]


# --------------------------------------------------------------------------------------
# a minimal discord.py bot
# --------------------------------------------------------------------------------------


class CounterView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=60)
        self.count = 0

    @discord.ui.button(label="Add", style=discord.ButtonStyle.primary, custom_id="mini:add")
    async def add(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        self.count += 1
        await interaction.response.edit_message(content=f"count {self.count}", view=self)

    @discord.ui.button(label="Done", style=discord.ButtonStyle.secondary, custom_id="mini:done")
    async def done(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await interaction.response.defer()  # DEFERRED_UPDATE_MESSAGE
        await asyncio.sleep(0.02)
        self.stop()
        await interaction.edit_original_response(content=f"final {self.count}", view=None)

    @discord.ui.select(
        custom_id="mini:colour",
        placeholder="Colour",
        options=[
            discord.SelectOption(label="Red", value="red"),
            discord.SelectOption(label="Blue", value="blue"),
        ],
    )
    async def colour(self, interaction: discord.Interaction, select: discord.ui.Select) -> None:
        await interaction.response.send_message(f"picked {select.values[0]}", ephemeral=True)


class AskModal(discord.ui.Modal, title="A question"):
    answer: discord.ui.TextInput = discord.ui.TextInput(
        label="Your answer", custom_id="mini:answer", max_length=50
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"you said {self.answer.value}", ephemeral=True)


class MiniBot(discord.Client):
    def __init__(self, guild_id: int | None, *, sync: bool = True) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.05)
        self.tree = app_commands.CommandTree(self)
        self.scope = discord.Object(guild_id) if guild_id else None
        self.sync_commands = sync
        self.callback_errors: list[int] = []
        self.tree.add_command(self._group(), guild=self.scope)
        self.tree.add_command(self._admin(), guild=self.scope)

    async def setup_hook(self) -> None:
        if self.sync_commands:
            await self.tree.sync(guild=self.scope)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        pass  # discord.py sleeps 5 s before every re-IDENTIFY by default

    def _admin(self) -> app_commands.Command:
        @app_commands.command(name="miniadmin", description="managers only")
        @app_commands.default_permissions(manage_guild=True)
        async def miniadmin(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("admin ok", ephemeral=True)

        return miniadmin

    def _group(self) -> app_commands.Group:
        bot = self
        grp = app_commands.Group(name="mini", description="mini test commands")

        @grp.command(name="hello", description="ephemeral hello")
        async def hello(
            interaction: discord.Interaction, name: str = "world", times: int = 1
        ) -> None:
            await interaction.response.send_message(
                " ".join([f"hello {name}"] * times), ephemeral=True
            )

        @grp.command(name="render", description="deferred reply with a file")
        async def render(interaction: discord.Interaction) -> None:
            await interaction.response.defer(thinking=True)
            await asyncio.sleep(0.05)
            await interaction.followup.send(
                "your board", file=discord.File(io.BytesIO(PNG), "board.png")
            )
            await interaction.followup.send("only you see this", ephemeral=True)

        @grp.command(name="card", description="a file and an embed right in the callback")
        async def card(interaction: discord.Interaction) -> None:
            embed = discord.Embed(title="Hand", description="A♠ K♠")
            embed.add_field(name="Royalties", value="+2")
            await interaction.response.send_message(
                embed=embed, file=discord.File(io.BytesIO(PNG), "hand.png"), ephemeral=True
            )

        @grp.command(name="counter", description="a view")
        async def counter(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("count 0", view=CounterView())

        @grp.command(name="poke", description="DM someone")
        async def poke(interaction: discord.Interaction, who: discord.Member) -> None:
            try:
                await who.send(f"{interaction.user.display_name} poked you")
            except discord.Forbidden as exc:
                if exc.code != 50007:
                    raise
                await interaction.response.send_message(
                    f"could not DM {who.display_name}", ephemeral=True
                )
                return
            await interaction.response.send_message(f"poked {who.display_name}", ephemeral=True)

        @grp.command(name="announce", description="post to the channel")
        async def announce(interaction: discord.Interaction, text: str) -> None:
            assert interaction.channel is not None
            await interaction.channel.send(f"announcement: {text}")  # type: ignore[union-attr]
            await interaction.response.send_message("announced", ephemeral=True)

        @grp.command(name="slow", description="answers after a delay")
        async def slow(interaction: discord.Interaction, delay: float) -> None:
            await asyncio.sleep(delay)
            try:
                await interaction.response.send_message("finally")
            except discord.NotFound as exc:
                bot.callback_errors.append(exc.code)

        @grp.command(name="latefollow", description="defers, follows up after a delay")
        async def latefollow(interaction: discord.Interaction, delay: float) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            await asyncio.sleep(delay)
            try:
                await interaction.followup.send("eventually")
            except discord.HTTPException as exc:
                bot.callback_errors.append(exc.code)

        @grp.command(name="ask", description="opens a modal")
        async def ask(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(AskModal())

        @grp.command(name="fruit", description="autocomplete")
        async def fruit(interaction: discord.Interaction, name: str) -> None:
            await interaction.response.send_message(f"fruit {name}", ephemeral=True)

        @fruit.autocomplete("name")
        async def fruit_name(
            interaction: discord.Interaction, current: str
        ) -> list[app_commands.Choice[str]]:
            return [app_commands.Choice(name=f, value=f) for f in FRUITS if f.startswith(current)]

        return grp


# --------------------------------------------------------------------------------------
# fixtures / helpers
# --------------------------------------------------------------------------------------


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as f:
        yield f


# --------------------------------------------------------------------------------------
# tests
# --------------------------------------------------------------------------------------


async def test_full_feature_tour(fake: FakeDiscord, caplog: pytest.LogCaptureFixture) -> None:
    guild = fake.add_guild("Test Guild")
    chan = fake.add_text_channel(guild, "ofc")
    alice = fake.add_user("alice", guild=guild)
    bob = fake.add_user("bob", guild=guild, dms_open=False)
    carol = fake.add_user("carol", guild=guild, manage_guild=True)
    caplog.set_level(logging.WARNING)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bot = MiniBot(guild.id)
        async with fake.run_client(bot):
            assert bot.user is not None and bot.user.id == fake.bot.id
            assert bot.get_guild(guild.id) is not None
            # the tree was synced as guild commands
            assert set(fake.commands[guild.id]) == {"mini", "miniadmin"}
            assert fake.requests_to("GET", r"^/oauth2/applications/@me$")

            # --- ephemeral reply; options typed from the registered command
            rec = await fake.slash(alice, chan, "mini hello", name="Ann", times=2)
            assert rec.content == "hello Ann hello Ann"
            assert rec.ephemeral and rec.callback_type == 4
            assert rec.message in fake.visible_to(alice)
            assert rec.message not in fake.visible_to(bob)
            assert rec.latency is not None and 0 <= rec.latency < 3
            assert rec.data["options"][0]["options"] == [
                {"name": "name", "type": 3, "value": "Ann"},
                {"name": "times", "type": 4, "value": 2},
            ]
            # interaction ids carry a realistic timestamp (discord.py computes expiry from it)
            assert abs(snowflake_time_ms(rec.id) / 1000 - time.time()) < 60

            # --- options are validated like the Discord client does
            with pytest.raises(ComponentUnavailable):
                await fake.slash(alice, chan, "mini hello", nme="typo")
            with pytest.raises(ComponentUnavailable):
                await fake.slash(alice, chan, "mini hello", times="two")

            # --- file + embed directly in the callback (multipart on /callback)
            rec = await fake.slash(alice, chan, "mini card")
            assert rec.files == [("hand.png", PNG)] and rec.ephemeral
            assert rec.embeds[0]["title"] == "Hand" and "Royalties: +2" in rec.text

            # --- deferred ("thinking") reply completed by follow-ups with a file,
            #     the first follow-up being rate limited once
            webhook_429 = fake.inject_429("POST", r"^/webhooks/\d+/[^/]+$", times=1)
            rec = await fake.slash(alice, chan, "mini render")
            assert webhook_429.hits == 1
            assert rec.callback_type == 5
            assert rec.content == "your board" and not rec.ephemeral
            assert rec.files == [("board.png", PNG)]
            assert not rec.message.loading
            await fake.wait_followups(rec, 2)
            secret = rec.followups[1]
            assert (
                secret.ephemeral
                and secret.visible_to is alice
                and secret.content == "only you see this"
            )
            assert secret not in fake.visible_to(carol)
            # attachments are served back by the stand-in
            async with aiohttp.ClientSession() as http:
                async with http.get(rec.message.attachments[0].url) as resp:
                    assert resp.status == 200 and await resp.read() == PNG

            # --- a view: button -> UPDATE_MESSAGE, select -> new ephemeral, deferred update + edit
            rec = await fake.slash(alice, chan, "mini counter")
            msg = rec.message
            assert msg.content == "count 0" and msg.find_button("Add") == "mini:add"
            click = await fake.click(alice, msg, label="Add")
            assert click.callback_type == 7 and click.message is msg
            assert msg.content == "count 1"
            click = await fake.click(bob, msg, "mini:add")
            assert msg.content == "count 2" and len(msg.revisions) == 2
            pick = await fake.select(bob, msg, "mini:colour", ["blue"])
            assert (
                pick.content == "picked blue" and pick.ephemeral and pick.message.visible_to is bob
            )
            with pytest.raises(ComponentUnavailable):
                await fake.select(bob, msg, "mini:colour", ["green"])
            done = await fake.click(alice, msg, label="Done")
            assert done.callback_type == 6 and msg.content == "final 2" and msg.components == []
            with pytest.raises(ComponentUnavailable):
                await fake.click(alice, msg, label="Add")  # the buttons are gone

            # --- DMs: open inbox gets the DM, closed inbox -> 50007 -> ephemeral fallback
            rec = await fake.slash(alice, chan, "mini poke", who=carol)
            assert rec.content == "poked carol"
            assert [m.content for m in fake.dms(carol)] == ["alice poked you"]
            assert fake.dms(carol)[0] in fake.visible_to(carol)
            assert rec.data["resolved"]["users"][str(carol.id)]["username"] == "carol"
            rec = await fake.slash(alice, chan, "mini poke", who=bob)
            assert rec.content == "could not DM bob" and rec.ephemeral
            assert fake.dms(bob) == []
            assert (
                "POST",
                f"/channels/{fake.dm_channel(bob).id}/messages",
                403,
                50007,
            ) in fake.api_errors

            # --- a 429 on the channel post: discord.py waits retry_after and retries
            rule = fake.inject_429("POST", rf"^/channels/{chan.id}/messages$", times=1)
            rec = await fake.slash(alice, chan, "mini announce", text="tonight")
            assert rule.hits == 1 and rule.remaining == 0
            assert rec.content == "announced"
            posted = fake.last_message(chan)
            assert posted is not None and posted.content == "announcement: tonight"
            assert [
                r.status for r in fake.requests_to("POST", rf"^/channels/{chan.id}/messages$")
            ] == [429, 200]

            # --- modal: open, then submit
            rec = await fake.slash(alice, chan, "mini ask")
            assert rec.callback_type == 9 and rec.modal["title"] == "A question"
            sub = await fake.submit_modal(alice, rec, {"mini:answer": "forty-two"})
            assert sub.content == "you said forty-two" and sub.ephemeral

            # --- autocomplete
            choices = await fake.autocomplete(alice, chan, "mini fruit", focused="name", name="ap")
            assert [c["value"] for c in choices] == ["apple", "apricot"]

            # --- default_member_permissions hides the command from non-managers
            with pytest.raises(ComponentUnavailable):
                await fake.slash(alice, chan, "miniadmin")
            rec = await fake.slash(carol, chan, "miniadmin")
            assert rec.content == "admin ok"

            # --- a second callback for the same interaction -> 40060
            async with aiohttp.ClientSession() as http:
                url = f"{fake.api_base}/interactions/{rec.id}/{rec.token}/callback"
                async with http.post(url, json={"type": 4, "data": {"content": "again"}}) as resp:
                    assert resp.status == 400
                    assert resp.headers["Content-Type"] == "application/json"
                    assert (await resp.json())["code"] == 40060

            # --- the message the bot posts by itself can be awaited
            waiter = asyncio.create_task(
                fake.wait_for_message(chan, lambda m: "later" in m.content)
            )
            await asyncio.sleep(0)
            await bot.get_channel(chan.id).send("later!")  # type: ignore[union-attr]
            assert (await waiter).content == "later!"

            # --- a user message reaches the bot (content blanked: no message_content intent)
            said = await fake.say(alice, chan, "hi bot")
            await fake.wait_until(
                lambda b=bot: any(m.id == said.id for m in b.cached_messages), 2.0, "cached"
            )
            assert next(m for m in bot.cached_messages if m.id == said.id).content == ""

            assert len(fake.latencies) >= 10
            stats = fake.latency_stats()
            assert stats["p50"] <= stats["p99"] < 3

        # clean shutdown: no unclosed sessions, no heartbeat thread left behind
        del bot
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)], [
        str(w.message) for w in caught
    ]
    assert not [r for r in caplog.records if "Unclosed" in r.getMessage()]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert not [
        t for t in threading.enumerate() if t.name.startswith("keep-alive-handler") and t.is_alive()
    ]
    assert fake.unhandled == []
    fake.assert_clean(allow_api_errors={50007, 40060})
    assert fake.identify_count == 1 and fake.heartbeats >= 1
    # discord.py asked for zlib-stream and got binary zlib frames
    assert fake.gateway_connects[0][1]["compress"] == "zlib-stream"
    assert fake.compressed_connections == 1


async def test_late_acknowledgement_gets_10062() -> None:
    async with FakeDiscord(ack_deadline=0.2, ack_grace=0.6) as fake:
        guild = fake.add_guild()
        chan = fake.add_text_channel(guild, "ofc")
        alice = fake.add_user("alice", guild=guild)
        bot = MiniBot(guild.id)
        async with fake.run_client(bot):
            with pytest.raises(InteractionFailed) as info:
                await fake.slash(alice, chan, "mini slow", delay=0.4)
            rec = info.value.record
            assert [e.code for e in rec.errors] == [10062]
            assert rec.latency is not None and rec.latency > 0.2
            assert not rec.ok and rec.message is None
            await fake.wait_until(lambda: bot.callback_errors == [10062], 2.0, "bot saw 10062")
            # a prompt answer still works
            rec = await fake.slash(alice, chan, "mini slow", delay=0.0)
            assert rec.ok and rec.content == "finally"
        assert fake.unhandled == []
        fake.assert_clean(allow_api_errors={10062})


async def test_followup_token_expiry_and_unfinished_defer() -> None:
    async with FakeDiscord(followup_ttl=0.4) as fake:
        guild = fake.add_guild()
        chan = fake.add_text_channel(guild, "ofc")
        alice = fake.add_user("alice", guild=guild)
        bot = MiniBot(guild.id)
        async with fake.run_client(bot):
            rec = await fake.slash(alice, chan, "mini latefollow", delay=0.05)
            assert rec.content == "eventually" and rec.ephemeral  # the defer decided ephemerality
            with pytest.raises(InteractionFailed, match="no follow-up"):
                await fake.slash(alice, chan, "mini latefollow", delay=0.6, timeout=0.3)
            await fake.wait_until(lambda: bot.callback_errors == [50027], 2.0, "bot saw 50027")
            stuck = list(fake.interactions.values())[-1]
            assert stuck.message is not None and stuck.message.loading  # "thinking..." forever
        fake.assert_clean(allow_api_errors={50027})


async def test_never_answered_fails_fast() -> None:
    async with FakeDiscord(ack_deadline=0.1, ack_grace=0.1) as fake:
        guild = fake.add_guild()
        chan = fake.add_text_channel(guild, "ofc")
        alice = fake.add_user("alice", guild=guild)
        bot = MiniBot(guild.id)
        async with fake.run_client(bot):
            with pytest.raises(InteractionFailed, match="not acknowledged"):
                await fake.slash(alice, chan, "mini slow", delay=0.5)
            await fake.wait_until(lambda: bot.callback_errors == [10062], 2.0, "bot saw 10062")


async def test_gateway_reconnect_resume_and_reidentify(fake: FakeDiscord) -> None:
    guild = fake.add_guild()
    chan = fake.add_text_channel(guild, "ofc")
    alice = fake.add_user("alice", guild=guild)
    bot = MiniBot(guild.id)
    async with fake.run_client(bot):
        await fake.reconnect()  # op 7 -> client resumes on resume_gateway_url
        assert fake.resume_count == 1
        assert fake.gateway_connects[-1][0] == "/gateway/resume"
        assert (await fake.slash(alice, chan, "mini hello")).content == "hello world"

        await fake.drop_connection()  # abrupt close -> resume again
        assert fake.resume_count == 2
        assert (await fake.slash(alice, chan, "mini hello")).content == "hello world"

        await fake.invalidate_session()  # op 9 -> fresh IDENTIFY
        assert fake.identify_count == 2
        await asyncio.wait_for(bot.wait_until_ready(), 5)
        assert (await fake.slash(alice, chan, "mini hello")).content == "hello world"

        # channels added while connected arrive via CHANNEL_CREATE
        late = fake.add_text_channel(guild, "late")
        await fake.wait_until(
            lambda: bot.get_channel(late.id) is not None, 2.0, "CHANNEL_CREATE seen"
        )
    assert fake.unhandled == []
    fake.assert_clean()


async def test_threads_and_forum_posts(fake: FakeDiscord) -> None:
    """Threads as Discord has them: synced at GUILD_CREATE and by THREAD_CREATE/UPDATE,
    interactions and messages carrying the thread's id, the parent's permissions with
    Send Messages in Threads, archived threads unarchived by a message, locked ones
    refusing the bot (50083), private ones hidden from non-members."""
    guild = fake.add_guild()
    chan = fake.add_text_channel(guild, "games")
    forum = fake.add_forum_channel(guild, "tables")
    alice = fake.add_user("alice", guild=guild)
    thread = fake.add_thread(chan, "poker night", owner=alice)
    hidden = fake.add_thread(chan, "secret", owner=alice, private=True)
    bot = MiniBot(guild.id)
    auth = {"Authorization": f"Bot {fake.token}"}
    async with fake.run_client(bot), aiohttp.ClientSession() as http:

        async def post(where: int, text: str) -> tuple[int, dict]:
            url = f"{fake.api_base}/channels/{where}/messages"
            async with http.post(url, json={"content": text}, headers=auth) as resp:
                return resp.status, await resp.json()

        async def edit(where: int, mid: int, text: str) -> tuple[int, dict]:
            url = f"{fake.api_base}/channels/{where}/messages/{mid}"
            async with http.patch(url, json={"content": text}, headers=auth) as resp:
                return resp.status, await resp.json()

        g = bot.get_guild(guild.id)
        assert g is not None
        synced = g.get_thread(thread.id)  # GUILD_CREATE's threads
        assert synced is not None and synced.parent_id == chan.id and not synced.archived
        assert g.get_thread(hidden.id) is None  # the bot is not a member of the private one
        assert thread.id not in {c.id for c in g.channels}
        # a forum post made while connected: THREAD_CREATE; its starter message shares its id
        post_thread = fake.add_forum_post(forum, "table one", owner=alice)
        await fake.wait_until(lambda: g.get_thread(post_thread.id) is not None, 2.0, "post")
        thr = g.get_thread(post_thread.id)
        assert thr is not None and isinstance(thr.parent, discord.ForumChannel)
        assert [m.id for m in fake.messages(post_thread)] == [post_thread.id]

        # an interaction from the thread: channel_id is the thread, the bot's messages land there
        rec = await fake.slash(alice, thread, "mini announce", text="hi")
        assert rec.payload["channel_id"] == str(thread.id)
        assert rec.payload["channel"]["type"] == 11
        assert rec.payload["channel"]["parent_id"] == str(chan.id)
        assert fake.last_message(thread).content == "announcement: hi"
        assert fake.last_message(chan) is None
        rec = await fake.slash(alice, post_thread, "mini announce", text="in the post")
        assert fake.last_message(post_thread).content == "announcement: in the post"
        counter = await fake.slash(alice, thread, "mini counter")

        # archived: no commands, no edits; a message (the bot's or a user's) unarchives it
        await fake.archive_thread(thread)
        await fake.wait_until(lambda: g.get_thread(thread.id) is None, 2.0, "archived")
        with pytest.raises(ComponentUnavailable):
            await fake.slash(alice, thread, "mini hello")
        with pytest.raises(ComponentUnavailable):
            await fake.click(alice, counter, label="Add")
        status, body = await edit(thread.id, counter.message.id, "x")
        assert (status, body["code"]) == (403, 50083)
        status, body = await post(thread.id, "wake up")
        assert status == 200 and body["channel_id"] == str(thread.id)
        assert not thread.archived
        await fake.wait_until(lambda: g.get_thread(thread.id) is not None, 2.0, "unarchived")
        await fake.archive_thread(thread)
        await fake.say(alice, thread, "anyone?")
        assert not thread.archived

        # locked: the bot may neither post nor edit (50083), even after a moderator reopens it
        await fake.archive_thread(thread, locked=True)
        status, body = await post(thread.id, "hello?")
        assert (status, body["code"]) == (403, 50083) and thread.archived
        with pytest.raises(ComponentUnavailable):
            await fake.say(alice, thread, "let me in")
        await fake.unarchive_thread(thread, unlock=False)
        assert thread.locked and not thread.archived
        with pytest.raises(ComponentUnavailable):  # the message box is closed
            await fake.slash(alice, thread, "mini hello")
        with pytest.raises(InteractionFailed):  # a button works, but its public edit does not
            await fake.click(alice, counter, label="Add")
        status, body = await post(thread.id, "hello?")
        assert (status, body["code"]) == (403, 50083)
        await fake.unarchive_thread(thread)
        assert (await post(thread.id, "back"))[0] == 200

        # the bot may not unarchive a locked thread without Manage Threads
        await fake.archive_thread(thread, locked=True)
        url = f"{fake.api_base}/channels/{thread.id}"
        async with http.patch(url, json={"archived": False}, headers=auth) as resp:
            assert resp.status == 403
        await fake.unarchive_thread(thread)

        # private thread: hidden from the bot until it is a member
        status, body = await post(hidden.id, "psst")
        assert (status, body["code"]) == (403, 50001)
        with pytest.raises(ComponentUnavailable):
            await fake.slash(fake.add_user("eve", guild=guild), hidden, "mini hello")

        # Send Messages in Threads, not Send Messages, lets the bot post in a thread
        everyone = guild.everyone
        bot_role = guild.role(fake.bot.name)
        assert bot_role is not None
        everyone.permissions &= ~Perm.SEND_MESSAGES_IN_THREADS
        bot_role.permissions &= ~Perm.SEND_MESSAGES_IN_THREADS
        status, body = await post(thread.id, "in the thread")
        assert (status, body["code"]) == (403, 50013)
        assert (await post(chan.id, "in the channel"))[0] == 200
        rec = await fake.slash(alice, thread, "mini hello")  # an answer needs no permission
        assert rec.content == "hello world"
        assert not int(rec.payload["app_permissions"]) & Perm.SEND_MESSAGES_IN_THREADS
        everyone.permissions = DEFAULT_EVERYONE_PERMISSIONS & ~Perm.SEND_MESSAGES
        bot_role.permissions = DEFAULT_BOT_PERMISSIONS & ~Perm.SEND_MESSAGES
        assert (await post(thread.id, "in the thread"))[0] == 200
        assert (await post(chan.id, "in the channel"))[1]["code"] == 50013
    fake.assert_clean(allow_api_errors={50083, 50013, 50001})


async def test_unsynced_commands_inferred_from_python_types() -> None:
    # also exercises plain-text gateway frames and responses without rate-limit headers
    async with FakeDiscord(
        require_registered_commands=False, compress_gateway=False, ratelimit_headers=False
    ) as fake:
        guild = fake.add_guild()
        chan = fake.add_text_channel(guild, "ofc")
        alice = fake.add_user("alice", guild=guild)
        bot = MiniBot(None, sync=False)  # global commands, never synced
        async with fake.run_client(bot):
            assert fake.commands == {}
            rec = await fake.slash(alice, chan, "mini hello", name="Zed", times=1)
            assert rec.content == "hello Zed"
            assert "guild_id" not in rec.data  # global command
        assert fake.compressed_connections == 0
        fake.assert_clean()


async def test_strict_mode_rejects_unregistered_commands(fake: FakeDiscord) -> None:
    guild = fake.add_guild()
    chan = fake.add_text_channel(guild, "ofc")
    alice = fake.add_user("alice", guild=guild)
    fake._ready_evt.set()  # no client needed: the check happens before dispatch
    with pytest.raises(ComponentUnavailable, match="not registered"):
        await fake.slash(alice, chan, "nope")


async def test_rest_basics_without_client(fake: FakeDiscord) -> None:
    guild = fake.add_guild()
    chan = fake.add_text_channel(guild, "ofc")
    auth = {"Authorization": f"Bot {fake.token}"}
    async with aiohttp.ClientSession() as http:
        # unknown routes: 404 JSON, recorded
        async with http.get(f"{fake.api_base}/nonsense/route", headers=auth) as resp:
            assert resp.status == 404
            assert resp.headers["Content-Type"] == "application/json"
            assert await resp.json() == {"code": 0, "message": "404: Not Found"}
        assert fake.unhandled == ["GET /nonsense/route"]
        # wrong token
        async with http.get(
            f"{fake.api_base}/users/@me", headers={"Authorization": "Bot nope"}
        ) as resp:
            assert resp.status == 401
        # rate limit headers on normal responses, exact content type
        async with http.get(f"{fake.api_base}/channels/{chan.id}", headers=auth) as resp:
            assert resp.status == 200
            assert resp.headers["Content-Type"] == "application/json"
            assert resp.headers["X-RateLimit-Remaining"] == "49"
            assert (await resp.json())["name"] == "ofc"
        # validation like Discord: empty message, too long content
        url = f"{fake.api_base}/channels/{chan.id}/messages"
        async with http.post(url, json={"content": ""}, headers=auth) as resp:
            assert (await resp.json())["code"] == 50006
        async with http.post(url, json={"content": "x" * 2001}, headers=auth) as resp:
            assert (await resp.json())["code"] == 50035
        # multipart with payload_json + files[n]
        form = aiohttp.FormData(quote_fields=False)
        form.add_field(
            "payload_json", '{"content":"pic","attachments":[{"id":0,"filename":"a.png"}]}'
        )
        form.add_field("files[0]", PNG, filename="a.png", content_type="application/octet-stream")
        async with http.post(url, data=form, headers=auth) as resp:
            body = await resp.json()
            assert resp.status == 200 and body["attachments"][0]["filename"] == "a.png"
    assert fake.last_message(chan).files == [("a.png", PNG)]


def test_is_loopback() -> None:
    for ok in ("127.0.0.1", "127.5.6.7", "::1", "::ffff:127.0.0.1"):
        assert is_loopback(ok), ok
    for bad in (
        None,
        "",
        "10.0.0.5",
        "192.168.1.2",
        "8.8.8.8",
        "::ffff:10.0.0.1",
        "2001:db8::1",
        "localhost",
        "junk",
    ):
        assert not is_loopback(bad), bad


async def test_non_loopback_peer_is_refused(fake: FakeDiscord) -> None:
    class Transport:
        def __init__(self, peer: tuple[str, int]) -> None:
            self.peer = peer

        def get_extra_info(self, name: str, default: object = None) -> object:
            return self.peer if name == "peername" else default

        def is_closing(self) -> bool:
            return False

    async def handler(request: web.Request) -> web.StreamResponse:
        return web.Response(text="ok")

    req = make_mocked_request("GET", "/api/v10/users/@me", transport=Transport(("10.1.2.3", 5555)))
    resp = await fake._guard(req, handler)
    assert resp.status == 403 and resp.keep_alive is False
    assert fake.refused == ["10.1.2.3"]

    req = make_mocked_request("GET", "/api/v10/users/@me", transport=Transport(("127.0.0.1", 5555)))
    resp = await fake._guard(req, handler)
    assert resp.status == 200
    # and the server itself only listens on loopback
    assert fake.base_url.startswith("http://127.0.0.1:")


async def test_command_definitions_validated_like_discord(fake: FakeDiscord) -> None:
    """A bulk overwrite Discord would refuse (50035, the path of the fault) is refused here
    too, so a command the bot could not publish fails the tests, not the first start."""

    def sub(name: str, *options: dict[str, Any]) -> dict[str, Any]:
        return {"type": 1, "name": name, "description": "d", "options": list(options)}

    def text(name: str, **extra: Any) -> dict[str, Any]:
        return {"type": 3, "name": name, "description": "d", **extra}

    cases: list[tuple[list[dict[str, Any]], str]] = [
        ([{"name": "ok", "description": "d", "options": [sub("s", text("a"))]}], ""),
        ([{"name": "Bad", "description": "d"}], "0.name"),
        ([{"name": "c", "description": "d", "options": [text(f"o{k}") for k in range(26)]}],
         "0.options"),
        ([{"name": "c", "description": "d",
           "options": [text("a"), text("b", required=True)]}], "0.options.1"),
        ([{"name": "c", "description": "d", "options": [sub("s"), text("a")]}], "0.options"),
        ([{"name": "c", "description": "d",
           "options": [{"type": 2, "name": "g", "description": "d", "options": [text("a")]}]}],
         "0.options.0.options.0.type"),
        ([{"name": "c", "description": "d",
           "options": [sub("s", text("a", choices=[{"name": "x" * 101, "value": "x"}]))]}],
         "0.options.0.options.0.choices.0.name"),
        ([{"name": "c", "description": "d",
           "options": [sub("s", text("a", choices=[{"name": "x", "value": "x"}] * 26))]}],
         "0.options.0.options.0.choices"),
        ([{"name": "c", "description": "d",
           "options": [sub("s", text("a"), text("a"))]}], "0.options.0.options.1.name"),
        ([{"name": "c", "description": "d",
           "options": [sub(f"s{k}", *(text(f"o{j}", description="y" * 100) for j in range(4)))
                       for k in range(10)]}], "0"),
    ]
    auth = {"Authorization": f"Bot {fake.token}"}
    url = f"{fake.api_base}/applications/{fake.application_id}/commands"
    async with aiohttp.ClientSession() as http:
        for payload, path in cases:
            async with http.put(url, json=payload, headers=auth) as resp:
                body = await resp.json()
            if not path:
                assert resp.status == 200 and body[0]["name"] == "ok"
                continue
            assert resp.status == 400 and body["code"] == 50035, (path, body)
            assert path in body["errors"], (path, body)
    assert set(fake.commands[None]) == {"ok"}  # every refused overwrite left the last one
