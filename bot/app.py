"""The Bot class: discord.py client, store, table service, cogs, central error handling."""

from __future__ import annotations

import asyncio
import logging
import re
import sys
import time
import uuid
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from .maintenance import RegularBackups
from .service import SeatedElsewhere, ServiceError, TableService
from .settings import Settings, apply_discord_endpoints
from .store import Store
from .thinker import Thinker

log = logging.getLogger("ofc.bot")

EXTENSIONS = ("cogs.ofc",)
GIL_SWITCH_INTERVAL = 0.001
"""Seconds a thread may hold the GIL while another waits.  While a strong bot thought in a
thread (``OFC_AI_PROCESSES=0``), rendering a showdown took 533 ms instead of 53 with Python's
default 5 ms, and 248 ms with 1 ms (README, "Performance")."""


def intents() -> discord.Intents:
    """Only what is needed: guild and channel events.  No message content, no members."""
    it = discord.Intents.none()
    it.guilds = True
    return it


class OFCBot(commands.Bot):
    def __init__(self, settings: Settings, **kwargs: Any) -> None:
        discord.VoiceClient.warn_nacl = False  # no voice here
        self.main_task: asyncio.Task[Any] | None = None  # (set as it starts: setup_hook)
        discord.VoiceClient.warn_dave = False
        apply_discord_endpoints(settings)
        options: dict[str, Any] = {
            "intents": intents(),
            "help_command": None,
            "allowed_mentions": discord.AllowedMentions(
                everyone=False, roles=False, users=True, replied_user=False
            ),
        }
        options.update(kwargs)
        super().__init__(command_prefix=commands.when_mentioned, **options)
        self.settings = settings
        self.store: Store | None = None
        self.service: TableService | None = None
        self.service_options: dict[str, Any] = {}
        self._backups: asyncio.Task[None] | None = None
        """``OFC_BACKUP_DIR``'s regular backups (``bot.maintenance.RegularBackups``)."""
        self.tree.on_error = self.on_app_command_error  # type: ignore[method-assign]

    async def setup_hook(self) -> None:
        # (discord.py's Client.run runs it in its main task: cancelled, the bot closes in
        # order; SIGTERM does so when Ctrl-C is ignored, ``bot.__main__._as_ctrl_c``)
        self.main_task = asyncio.current_task()
        self.store = await Store.open(self.settings.database)
        options: dict[str, Any] = {"next_hand_delay": self.settings.next_hand_delay,
                                   "thinker": Thinker(self.settings.ai_processes)}
        options.update(self.service_options)
        self.service = TableService(self.store, **options)
        for ext in EXTENSIONS:
            await self.load_extension(ext)
        await self._sync_commands()
        from renderer import warm_up

        # the AI, when it thinks in threads (OFC_AI_PROCESSES=0), holds the GIL mostly in C:
        # handing it over every 1 ms (not 5) keeps the event loop and the images responsive
        sys.setswitchinterval(GIL_SWITCH_INTERVAL)
        await asyncio.to_thread(warm_up)  # card sprites drawn once, off the event loop
        # the AI's workers started (or its caches warmed) before the gateway connects (the
        # first bot moves would spend their budget filling them; done meanwhile, it slowed
        # the first interactions)
        await self._start_thinker()
        # loaded now (a command at one is answered that it resumes in a moment), resumed
        # once connected (``on_connect``): a start that fails to connect posts nothing
        loaded = await self.service.load_tables()
        log.info("loaded %d open table(s)", len(loaded))
        if self.settings.backup_dir:
            backups = RegularBackups(self.settings.database, self.settings.backup_dir,
                                     self.settings.backup_hours, self.settings.backup_keep)
            self._backups = asyncio.create_task(backups.run(), name="regular backups")

    async def _sync_commands(self) -> None:
        """Publish the slash commands: to ``OFC_DEV_GUILD_ID`` at every start (instant there), else
        globally when Discord's copy differs from this version's (a new bot has none: without this
        nobody could even run ``/ofc-admin sync``).  A failure is logged; the bot plays on."""
        if self.settings.dev_guild_id:
            guild = discord.Object(id=self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            try:
                await self.tree.sync(guild=guild)
                log.info("commands synced to guild %s", self.settings.dev_guild_id)
            except discord.HTTPException as e:  # not in that server: play on, say why
                log.error("could not sync the commands to OFC_DEV_GUILD_ID=%s (%s): invite the "
                          "bot to that server or unset OFC_DEV_GUILD_ID",
                          self.settings.dev_guild_id, e)
            return
        try:
            assert self.application_id is not None
            published = await self.http.get_global_commands(self.application_id)
            wanted = [c.to_dict(self.tree) for c in self.tree.get_commands()]
            if commands_match(wanted, list(published)):
                log.info("the commands Discord has are this version's")
                return
            await self.tree.sync()
            log.info("commands published globally (Discord may take up to an hour to show "
                     "changes in every server)")
        except discord.HTTPException as e:
            log.error("could not publish the commands (%s): the bot plays on with the commands "
                      "Discord has; /ofc-admin sync tries again", e)

    async def _start_thinker(self) -> None:
        assert self.service is not None
        thinker = self.service.thinker
        start = time.perf_counter()
        try:
            await thinker.start()
        except Exception:  # no worker process: think in threads (slower images, same moves)
            log.exception("the AI worker processes did not start; the AI thinks in threads")
            thinker.close()
            self.service.thinker = thinker = Thinker(0)
            await thinker.start()
        log.info("AI ready in %.1f s (%s)", time.perf_counter() - start,
                 f"{thinker.processes} worker process(es)" if thinker.processes else "threads")

    async def close(self) -> None:
        # each step logged: a bot that does not stop says where it waits
        log.info("stopping: the tables' timers and tasks")
        if self.service is not None:
            await self.service.shutdown()
        log.info("stopping: the commands")
        for name in list(self.extensions):
            await self.unload_extension(name)
        log.info("stopping: the connection to Discord")
        await super().close()
        if self._backups is not None:
            # (its cancellation stops a backup being checked at once, one being copied after
            # its copy, under its partial name: nothing that looks whole)
            self._backups.cancel()
            await asyncio.wait([self._backups])
            self._backups = None
        if self.store is not None:
            log.info("stopping: the database")
            await self.store.close()
            self.store = None
        log.info("stopped")

    async def on_connect(self) -> None:
        """The gateway's READY: play resumes at the tables loaded at the start (the first
        time only; a new session later finds none waiting), once the tables of the servers
        that removed the bot while it was stopped are closed (READY lists every server the bot
        is in, one that is down as unavailable: a server it does not list has removed the bot;
        closed as if removed now, their hand voided and every stack back, before any clock
        or bot plays there)."""
        if self.service is None:
            return
        present = {g.id for g in self.guilds}
        for guild_id in sorted({t.row.guild_id for t in self.service.tables.values()}
                               - present):
            log.warning("server %s no longer lists the bot: closing its tables", guild_id)
            try:
                await self.service.guild_gone(guild_id)
            except Exception:  # (the service tries again in the background)
                log.exception("closing the tables of server %s failed", guild_id)
        await self.service.resume()

    async def on_disconnect(self) -> None:
        """The gateway is gone (discord.py reconnects): tables wait to close as idle."""
        if self.service is not None:
            self.service.connection_lost()

    async def on_resumed(self) -> None:
        """The gateway session resumed after a disconnect (a new session: ``on_connect``)."""
        if self.service is not None:
            self.service.connection_back()

    async def on_ready(self) -> None:
        log.info("connected as %s (%s) in %d server(s)", self.user, getattr(self.user, "id", "?"),
                 len(self.guilds))

    async def on_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await report_error(interaction, getattr(error, "original", error))


def commands_match(wanted: list[dict[str, Any]], published: list[Any]) -> bool:
    """Whether Discord's commands (``published``, as its API returns them) are ``wanted`` (this
    version's payloads): every field this version sets is the same there (a field it leaves
    empty is empty or missing there; Discord adds ids, versions and defaults), by name."""
    by_name = {(c.get("name"), c.get("type", 1)): c for c in published if isinstance(c, dict)}
    if len(by_name) != len(published) or len(wanted) != len(published):
        return False
    return all(_same(w, by_name.get((w.get("name"), w.get("type", 1)))) for w in wanted)


_OPTION_FIELDS = ("choices", "autocomplete", "min_value", "max_value", "min_length",
                  "max_length", "channel_types", "options")
"""Fields discord.py leaves out when unset: Discord's copy must not have them either (a new
version that drops an option's choices or range publishes again)."""


def _empty(v: Any) -> bool:
    return v is None or v is False or (isinstance(v, str | list | dict) and not v)  # 0 is a value


def _same(want: Any, have: Any) -> bool:
    if isinstance(want, dict):
        if not isinstance(have, dict):
            return False
        # None leaves a field to Discord's default (e.g. integration_types), except the
        # permissions, where it means everyone (Discord returns null for that)
        return all(_same(v, have.get(k)) if not _empty(v) else _empty(have.get(k))
                   for k, v in want.items()
                   if v is not None or k == "default_member_permissions") and all(
            _empty(have.get(k)) for k in _OPTION_FIELDS if k not in want)
    if isinstance(want, list):
        return (isinstance(have, list) and len(want) == len(have)
                and all(_same(a, b) for a, b in zip(want, have, strict=True)))
    if isinstance(want, bool) or isinstance(have, bool):
        return want is have
    if isinstance(want, int | float) and isinstance(have, int | float):
        return float(want) == float(have)
    return str(want) == str(have) if have is not None else False


_LONG_QUOTE = re.compile(r"'([^'\n]{60,})'")


def fit_message(text: str, limit: int = 2000) -> str:
    """An error message within Discord's 2,000 characters (a longer one is refused, and the
    user gets no answer at all): what it quotes of the user's input (an option of 6,000
    characters, a forged menu value) is cut to its start, then the whole if still too long."""
    if len(text) <= limit:
        return text
    text = _LONG_QUOTE.sub(lambda m: f"'{m.group(1)[:40]}…'", text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def report_error(interaction: discord.Interaction, error: BaseException) -> None:
    """The one place errors become messages: a user's mistake says what was wrong; anything
    unexpected is logged with an id that the user sees."""
    if isinstance(error, SeatedElsewhere):  # (only this server's tables are named)
        text = f"⚠️ {error.for_guild(interaction.guild_id)}"
    elif isinstance(error, ServiceError):
        text = f"⚠️ {error}"
    elif isinstance(error, app_commands.MissingPermissions):
        text = "⚠️ You need the Manage Server permission for that."
    elif isinstance(error, app_commands.NoPrivateMessage):
        text = "⚠️ OFC tables live in server channels; use this command in a server."
    elif isinstance(error, app_commands.CheckFailure):
        text = f"⚠️ {error}"
    elif isinstance(error, app_commands.TransformerError):
        text = f"⚠️ {error}"
    else:
        error_id = uuid.uuid4().hex[:8]
        # the command's name or the component's id, never what was sent with it (a select's
        # values or a move's text can be a player's hidden cards: their discard)
        data: dict[str, Any] = dict(interaction.data or {})
        where = getattr(interaction.command, "qualified_name", None) or data.get("custom_id", "?")
        log.error("unexpected error %s in %s (server %s, channel %s)", error_id, where,
                  interaction.guild_id, interaction.channel_id, exc_info=error)
        text = (f"Something went wrong on our side (error id `{error_id}`). "
                "The table is unchanged; please try again.")
    text = fit_message(text)
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException:
        log.warning("could not deliver an error message to %s", interaction.user)
