"""A loopback stand-in for Discord's REST API and gateway, for end-to-end tests.

The real ``discord.py`` client (2.x) is pointed at this server by patching
``discord.http.Route.BASE`` (REST, interaction callbacks, follow-up webhooks) and
``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` (the websocket); see
:meth:`FakeDiscord.install`.  The server only binds ``127.0.0.1`` on a random port
and refuses any peer that is not loopback.

Test-side usage (inside ``tests/e2e`` import it relatively: ``from .fakediscord
import FakeDiscord``)::

    async with FakeDiscord() as fake:                 # start() + install()
        guild = fake.add_guild("Test Guild")
        chan = fake.add_text_channel(guild, "ofc")
        alice = fake.add_user("alice", guild=guild)
        async with fake.run_client(bot):              # client.start() as a task, wait ready
            rec = await fake.slash(alice, chan, "ofc new", variant="ofc")
            assert rec.ephemeral and "Table" in rec.content
            rec2 = await fake.click(alice, rec.message, label="Join")
            later = await fake.wait_for_message(chan, lambda m: "Showdown" in m.text)
        fake.assert_clean()

Everything the bot did is recorded: messages (with components, embeds and
attachment bytes), who can see them (ephemeral messages are visible only to the
interaction's user), interaction acknowledgement latencies, every request, and
any request the stand-in did not understand (``fake.unhandled``).

Threads and forum posts (``add_thread``, ``add_forum_channel``/``add_forum_post``, ``delete_channel``,
``archive_thread``, ``unarchive_thread``, ``lock_thread``) are modelled after Discord's
Threads topic (discord-api-docs, docs/topics/threads.md) and what discord.py 2.x reads:

* a thread is a channel of type 11 (public) or 12 (private) with ``parent_id`` (a text
  channel, type 0, or a forum, type 15), ``owner_id``, ``message_count``/``member_count``
  and ``thread_metadata`` {archived, auto_archive_duration, archive_timestamp, locked,
  create_timestamp (and invitable, private)}; a public thread started from a message, and
  a forum post (its starter message by the owner), share that message's id;
* GUILD_CREATE's ``threads`` lists the active threads the bot can see (archived ones are
  not synced); THREAD_CREATE (``newly_created``) and THREAD_UPDATE are dispatched with the
  GUILDS intent; ``GET /guilds/{id}/channels`` lists no thread; ``GET /channels/{thread}``,
  ``PATCH /channels/{thread}`` (archived/locked/name, with Discord's permission rules) and
  ``GET /guilds/{id}/threads/active`` work;
* messages in a thread carry the thread's id as ``channel_id``, and so do interactions
  from it, whose ``channel`` is the thread object (with ``permissions``);
* permissions in a thread are the parent's (no overwrites are modelled anywhere); posting
  needs SEND_MESSAGES_IN_THREADS ("SEND_MESSAGES has no effect in threads"), not
  SEND_MESSAGES; a private thread is seen only by its members (the bot only if added) and
  Manage Threads, others get 403 50001 Missing Access;
* archived threads: users cannot use commands or components there (``slash``/``click``
  raise ComponentUnavailable); a user's message (``say``) unarchives one that is not
  locked; so does a message the bot posts (REST, or a public interaction response or
  follow-up), with a THREAD_UPDATE; edits (and reactions) in an archived thread are refused
  with 50083 "Thread is archived", deletes are allowed unless it is also locked;
* locked threads: without Manage Threads nobody may post or edit there, nor use commands
  (the message box is closed; buttons on its messages still work); the bot's posts, edits,
  public interaction responses and follow-ups get 50083 (as in discord-api-docs#6884 and
  #7707, with HTTP status 403 as #7707 shows; ephemeral responses are not refused).

Not modelled: thread members beyond a private thread's list (THREAD_MEMBERS_UPDATE,
joining), THREAD_LIST_SYNC, auto-archiving on a timer (a test archives with
``archive_thread``), creating threads through the API, per-channel permission overwrites,
and whether an interaction response may unarchive a thread (treated as a message).

Notes for bots under test:

* build the client with ``guild_ready_timeout=0.05`` (or so): discord.py waits that
  long after the last GUILD_CREATE before ``on_ready``;
* discord.py sleeps 5 s in ``Client.before_identify_hook`` before every
  *re*-IDENTIFY (not the first one); override it if a test invalidates sessions;
* the bot must sync its command tree (bulk overwrite) before ``slash()`` can
  invoke a command, unless ``FakeDiscord(require_registered_commands=False)``; the
  overwrite is refused (400, 50035) where Discord would refuse it: names, descriptions,
  25 options or choices, required before optional options, subcommand nesting, 4,000
  characters a command (``_check_chat_command``).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import hashlib
import ipaddress
import json
import logging
import re
import secrets
import socket
import time
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

__all__ = [
    "ALL_PERMISSIONS",
    "DEFAULT_BOT_PERMISSIONS",
    "DEFAULT_EVERYONE_PERMISSIONS",
    "ApiError",
    "ComponentUnavailable",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeInteraction",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "InteractionFailed",
    "Perm",
    "RateLimitRule",
    "RequestRecord",
    "is_loopback",
    "snowflake_time_ms",
]

log = logging.getLogger("fakediscord")

DISCORD_EPOCH_MS = 1420070400000
API_PREFIX = "/api/v10"
GATEWAY_PATH = "/gateway"
RESUME_GATEWAY_PATH = "/gateway/resume"
ATTACHMENT_PATH = "/attachments"


class Perm:
    """Permission bits (a subset)."""

    CREATE_INSTANT_INVITE = 1 << 0
    KICK_MEMBERS = 1 << 1
    BAN_MEMBERS = 1 << 2
    ADMINISTRATOR = 1 << 3
    MANAGE_CHANNELS = 1 << 4
    MANAGE_GUILD = 1 << 5
    ADD_REACTIONS = 1 << 6
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    MENTION_EVERYONE = 1 << 17
    USE_EXTERNAL_EMOJIS = 1 << 18
    CHANGE_NICKNAME = 1 << 26
    MANAGE_ROLES = 1 << 28
    USE_APPLICATION_COMMANDS = 1 << 31
    MANAGE_THREADS = 1 << 34
    CREATE_PUBLIC_THREADS = 1 << 35
    CREATE_PRIVATE_THREADS = 1 << 36
    SEND_MESSAGES_IN_THREADS = 1 << 38


ALL_PERMISSIONS = (1 << 51) - 1
DEFAULT_EVERYONE_PERMISSIONS = (
    Perm.CREATE_INSTANT_INVITE
    | Perm.ADD_REACTIONS
    | Perm.VIEW_CHANNEL
    | Perm.SEND_MESSAGES
    | Perm.EMBED_LINKS
    | Perm.ATTACH_FILES
    | Perm.READ_MESSAGE_HISTORY
    | Perm.MENTION_EVERYONE
    | Perm.USE_EXTERNAL_EMOJIS
    | Perm.CHANGE_NICKNAME
    | Perm.USE_APPLICATION_COMMANDS
    | Perm.SEND_MESSAGES_IN_THREADS
)
DEFAULT_BOT_PERMISSIONS = DEFAULT_EVERYONE_PERMISSIONS | Perm.MANAGE_MESSAGES

# Gateway intents we look at when deciding which events to send.
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15

# Message flags
FLAG_SUPPRESS_EMBEDS = 1 << 2
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_SUPPRESS_NOTIFICATIONS = 1 << 12
FLAG_COMPONENTS_V2 = 1 << 15

# Interaction types
IT_PING, IT_COMMAND, IT_COMPONENT, IT_AUTOCOMPLETE, IT_MODAL_SUBMIT = 1, 2, 3, 4, 5
# Interaction callback types
CB_PONG = 1
CB_MESSAGE = 4
CB_DEFERRED_MESSAGE = 5
CB_DEFERRED_UPDATE = 6
CB_UPDATE = 7
CB_AUTOCOMPLETE = 8
CB_MODAL = 9
_ALLOWED_CALLBACKS = {
    IT_PING: {CB_PONG},
    IT_COMMAND: {CB_MESSAGE, CB_DEFERRED_MESSAGE, CB_MODAL},
    IT_COMPONENT: {CB_MESSAGE, CB_DEFERRED_MESSAGE, CB_DEFERRED_UPDATE, CB_UPDATE, CB_MODAL},
    IT_AUTOCOMPLETE: {CB_AUTOCOMPLETE},
    IT_MODAL_SUBMIT: {CB_MESSAGE, CB_DEFERRED_MESSAGE, CB_DEFERRED_UPDATE, CB_UPDATE},
}

# Component types
CT_ACTION_ROW, CT_BUTTON, CT_STRING_SELECT, CT_TEXT_INPUT = 1, 2, 3, 4
CT_USER_SELECT, CT_ROLE_SELECT, CT_MENTIONABLE_SELECT, CT_CHANNEL_SELECT = 5, 6, 7, 8
CT_LABEL = 18
SELECT_TYPES = {
    CT_STRING_SELECT,
    CT_USER_SELECT,
    CT_ROLE_SELECT,
    CT_MENTIONABLE_SELECT,
    CT_CHANNEL_SELECT,
}

# Application command option types
OPT_SUB_COMMAND, OPT_SUB_COMMAND_GROUP, OPT_STRING, OPT_INTEGER, OPT_BOOLEAN = 1, 2, 3, 4, 5
OPT_USER, OPT_CHANNEL, OPT_ROLE, OPT_MENTIONABLE, OPT_NUMBER, OPT_ATTACHMENT = 6, 7, 8, 9, 10, 11

_MENTION_RE = re.compile(r"<@!?(\d+)>")
THREAD_ARCHIVED = (403, 50083, "Thread is archived")
"""Discord's answer to a post or an edit in a locked thread without Manage Threads (and an
edit in an archived one).  The status is 403 as in discord-api-docs#7707 ("403 Forbidden
(error code: 50083): Thread is archived"); #6884 shows the same code for a thread locked
while it stays open."""


# --------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------


def is_loopback(remote: str | None) -> bool:
    """True if ``remote`` (as in ``aiohttp.web.Request.remote``) is a loopback address."""
    if not remote:
        return False
    try:
        ip = ipaddress.ip_address(remote.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def snowflake_time_ms(snowflake: int) -> int:
    """Unix time in ms encoded in a snowflake."""
    return (int(snowflake) >> 22) + DISCORD_EPOCH_MS


def _iso(ms: int) -> str:
    return _dt.datetime.fromtimestamp(ms / 1000, tz=_dt.UTC).isoformat()


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _walk_components(components: Iterable[dict[str, Any]] | None) -> Iterator[dict[str, Any]]:
    """Every component, depth first (action rows, containers, sections, labels...)."""
    for comp in components or ():
        yield comp
        if comp.get("components"):
            yield from _walk_components(comp["components"])
        if comp.get("component"):
            yield from _walk_components([comp["component"]])
        if comp.get("accessory"):
            yield from _walk_components([comp["accessory"]])


def _percentile(values: list[float], pct: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = (len(ordered) - 1) * pct / 100.0
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


class ApiError(Exception):
    """Raised by route handlers; becomes a Discord-style JSON error response."""

    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None):
        super().__init__(f"{status} (code {code}): {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        return body


def _invalid_form(path: str, message: str) -> ApiError:
    return ApiError(
        400,
        50035,
        "Invalid Form Body",
        {path: {"_errors": [{"code": "BASE_TYPE_INVALID", "message": message}]}},
    )


# Discord's limits on a CHAT_INPUT command (discord-api-docs, Application Commands: naming,
# the option structure, choices, and "Limits"): what a bulk overwrite refuses with 50035.
_NAME = re.compile(r"[-_'\w]{1,32}")
_SUBCOMMANDS = (1, 2)
_COMMAND_CHARS = 4000


def _check_name(path: str, name: Any) -> int:
    if not isinstance(name, str) or not _NAME.fullmatch(name) or name != name.lower():
        raise _invalid_form(f"{path}.name", f"invalid name {name!r}")
    return len(name)


def _check_description(path: str, text: Any) -> int:
    if not isinstance(text, str) or not 1 <= len(text) <= 100:
        raise _invalid_form(f"{path}.description", "Must be between 1 and 100 in length.")
    return len(text)


def _check_options(path: str, options: Any, parent: int) -> int:
    """Check the options under a command (``parent`` 0), a group (2) or a subcommand (1);
    return their characters (names, descriptions, choice names and string values)."""
    if not isinstance(options, list):
        raise _invalid_form(path, "expected an array of options")
    if len(options) > 25:
        raise _invalid_form(path, "Must be 25 or fewer in length.")
    chars = 0
    names: set[str] = set()
    optional_seen = False
    kinds = [o.get("type") if isinstance(o, dict) else None for o in options]
    nested = [k in _SUBCOMMANDS for k in kinds]
    if any(nested) and not all(nested):
        raise _invalid_form(path, "Sub-command and sub-command group option types are mutually "
                                  "exclusive to all other types")
    for j, opt in enumerate(options):
        at = f"{path}.{j}"
        if not isinstance(opt, dict):
            raise _invalid_form(at, "expected an object")
        kind = opt.get("type")
        if not isinstance(kind, int) or not 1 <= kind <= 11:
            raise _invalid_form(f"{at}.type", f"invalid option type {kind!r}")
        if (parent == 2 and kind != 1) or (parent == 1 and kind in _SUBCOMMANDS):
            raise _invalid_form(f"{at}.type", "a subcommand group holds subcommands only, "
                                              "a subcommand holds no subcommand")
        chars += _check_name(at, opt.get("name"))
        chars += _check_description(at, opt.get("description"))
        if opt["name"] in names:
            raise _invalid_form(f"{at}.name", "Option names must be unique")
        names.add(opt["name"])
        if kind in _SUBCOMMANDS:
            chars += _check_options(f"{at}.options", opt.get("options") or [], kind)
            continue
        if opt.get("required"):
            if optional_seen:
                raise _invalid_form(at, "Required options must be placed before non-required "
                                        "options")
        else:
            optional_seen = True
        choices = opt.get("choices") or []
        if choices and kind not in (3, 4, 10):
            raise _invalid_form(f"{at}.choices", "only string, integer and number options have "
                                                 "choices")
        if len(choices) > 25:
            raise _invalid_form(f"{at}.choices", "Must be 25 or fewer in length.")
        if choices and opt.get("autocomplete"):
            raise _invalid_form(f"{at}.autocomplete", "Autocomplete cannot be set on an option "
                                                      "with choices")
        for k, choice in enumerate(choices):
            cname = choice.get("name") if isinstance(choice, dict) else None
            if not isinstance(cname, str) or not 1 <= len(cname) <= 100:
                raise _invalid_form(f"{at}.choices.{k}.name", "Must be between 1 and 100 in "
                                                              "length.")
            chars += len(cname)
            value = choice.get("value")
            if kind == 3:
                if not isinstance(value, str) or not 1 <= len(value) <= 100:
                    raise _invalid_form(f"{at}.choices.{k}.value", "Must be between 1 and 100 "
                                                                   "in length.")
                chars += len(value)
            elif isinstance(value, bool) or not isinstance(value, (int, float)) or (
                kind == 4 and not isinstance(value, int)
            ):
                raise _invalid_form(f"{at}.choices.{k}.value", f"invalid value {value!r}")
        if ("min_value" in opt or "max_value" in opt) and kind not in (4, 10):
            raise _invalid_form(at, "min_value and max_value are for integer and number options")
        if ("min_length" in opt or "max_length" in opt) and kind != 3:
            raise _invalid_form(at, "min_length and max_length are for string options")
        low, high = opt.get("min_value"), opt.get("max_value")
        if low is not None and high is not None and low > high:
            raise _invalid_form(f"{at}.min_value", "min_value is above max_value")
        if not 0 <= opt.get("min_length", 0) <= 6000 or not 1 <= opt.get("max_length", 1) <= 6000:
            raise _invalid_form(at, "min_length must be 0-6000 and max_length 1-6000")
    return chars


def _check_chat_command(path: str, cmd: dict[str, Any]) -> None:
    """Refuse a slash command Discord would refuse: names (lowercase, 1-32 word characters,
    ``-`` or ``'``), descriptions (1-100), at most 25 options, required options before optional
    ones, subcommands not mixed with other options, groups holding subcommands only, at most
    25 choices of 1-100 characters, and at most 4,000 characters in all the names,
    descriptions and choice names and values of the command."""
    chars = _check_name(path, cmd.get("name"))
    chars += _check_description(path, cmd.get("description"))
    chars += _check_options(f"{path}.options", cmd.get("options") or [], 0)
    if chars > _COMMAND_CHARS:
        raise _invalid_form(path, f"Command exceeds maximum size ({_COMMAND_CHARS})")


class InteractionFailed(AssertionError):
    """The interaction was not answered the way a user would expect (Discord shows
    "This interaction failed", or the bot deferred and never followed up)."""

    def __init__(self, record: FakeInteraction, reason: str):
        super().__init__(f"interaction {record.describe()} failed: {reason}")
        self.record = record
        self.reason = reason


class ComponentUnavailable(AssertionError):
    """A test tried to use a component a real user could not use (missing, disabled,
    not visible to them, invalid select values...)."""


# --------------------------------------------------------------------------------------
# state records
# --------------------------------------------------------------------------------------


@dataclass(eq=False)
class FakeUser:
    id: int
    name: str
    global_name: str | None = None
    bot: bool = False
    dms_open: bool = True
    locale: str = "en-US"

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    @property
    def display_name(self) -> str:
        return self.global_name or self.name

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "username": self.name,
            "global_name": self.global_name,
            "discriminator": "0",
            "avatar": None,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
        }
        if self.bot:
            data["bot"] = True
        return data

    def __repr__(self) -> str:
        return f"<FakeUser {self.name} id={self.id}>"


@dataclass(eq=False)
class FakeRole:
    id: int
    guild_id: int
    name: str
    permissions: int = 0
    position: int = 0
    managed: bool = False
    color: int = 0

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": self.color,
            "colors": {
                "primary_color": self.color,
                "secondary_color": None,
                "tertiary_color": None,
            },
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": False,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeMember:
    user: FakeUser
    guild_id: int
    role_ids: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = ""

    def to_json(self, *, with_user: bool = True, permissions: int | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "roles": [str(r) for r in self.role_ids],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.to_json()
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data


CH_TEXT, CH_DM, CH_PUBLIC_THREAD, CH_PRIVATE_THREAD, CH_FORUM = 0, 1, 11, 12, 15
THREAD_TYPES = {10, CH_PUBLIC_THREAD, CH_PRIVATE_THREAD}


@dataclass(eq=False)
class FakeChannel:
    id: int
    type: int  # 0 guild text, 1 DM, 11 public thread, 12 private thread, 15 forum
    name: str | None = None
    guild_id: int | None = None
    position: int = 0
    topic: str | None = None
    recipient: FakeUser | None = None
    # threads only (see FakeDiscord.add_thread)
    parent_id: int | None = None
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440
    archive_ms: int = 0
    thread_members: set[int] = field(default_factory=set)
    message_count: int = 0
    last_message_id: int | None = None

    @property
    def is_dm(self) -> bool:
        return self.type == CH_DM

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def is_private_thread(self) -> bool:
        return self.type == CH_PRIVATE_THREAD

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def to_json(self) -> dict[str, Any]:
        if self.is_dm:
            return {
                "id": str(self.id),
                "type": 1,
                "last_message_id": None,
                "flags": 0,
                "recipients": [self.recipient.to_json()] if self.recipient else [],
            }
        if self.is_thread:
            meta: dict[str, Any] = {
                "archived": self.archived,
                "auto_archive_duration": self.auto_archive_duration,
                "archive_timestamp": _iso(self.archive_ms or snowflake_time_ms(self.id)),
                "locked": self.locked,
                "create_timestamp": _iso(snowflake_time_ms(self.id)),
            }
            if self.is_private_thread:
                meta["invitable"] = True
            return {
                "id": str(self.id),
                "type": self.type,
                "guild_id": str(self.guild_id),
                "name": self.name,
                "parent_id": str(self.parent_id),
                "owner_id": str(self.owner_id),
                "last_message_id": str(self.last_message_id) if self.last_message_id else None,
                "rate_limit_per_user": 0,
                "flags": 0,
                "message_count": self.message_count,
                "total_message_sent": self.message_count,
                "member_count": min(len(self.thread_members), 50),
                "thread_metadata": meta,
            }
        return {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [],
            "parent_id": None,
            "topic": self.topic,
            "nsfw": False,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
        }

    def __repr__(self) -> str:
        kind = " thread" if self.is_thread else ""
        state = " archived" if self.archived else ""
        state += " locked" if self.locked else ""
        return f"<FakeChannel{kind} #{self.name or 'dm'} id={self.id}{state}>"


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str
    owner_id: int
    roles: dict[int, FakeRole] = field(default_factory=dict)
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    threads: dict[int, FakeChannel] = field(default_factory=dict)  # active and archived
    members: dict[int, FakeMember] = field(default_factory=dict)
    created_ms: int = 0

    @property
    def everyone(self) -> FakeRole:
        return self.roles[self.id]

    def role(self, name: str) -> FakeRole | None:
        return next((r for r in self.roles.values() if r.name == name), None)

    def channel(self, name: str) -> FakeChannel | None:
        return next((c for c in self.channels.values() if c.name == name), None)

    def __repr__(self) -> str:
        return f"<FakeGuild {self.name} id={self.id}>"


@dataclass(eq=False)
class FakeAttachment:
    id: int
    filename: str
    data: bytes
    content_type: str | None = None
    description: str | None = None
    url: str = ""

    @property
    def size(self) -> int:
        return len(self.data)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
        }
        if self.description is not None:
            out["description"] = self.description
        return out


@dataclass(eq=False)
class FakeMessage:
    """A message as stored by the stand-in.  Mutable: edits update it in place
    (previous states are kept in ``revisions``)."""

    id: int
    channel: FakeChannel
    author: FakeUser
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    flags: int = 0
    visible_to: FakeUser | None = None  # set for ephemeral messages
    interaction: FakeInteraction | None = None  # the interaction whose response this is
    type: int = 0
    webhook_id: int | None = None
    message_reference: dict[str, Any] | None = None
    edited_ms: int | None = None
    deleted: bool = False
    revisions: list[dict[str, Any]] = field(default_factory=list)
    reactions: dict[str, set[int]] = field(default_factory=dict)
    allowed_mentions: dict[str, Any] | None = None  # as sent when it was created

    # -- convenience for assertions ------------------------------------------------
    @property
    def guild_id(self) -> int | None:
        return self.channel.guild_id

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        """A deferred ("Bot is thinking...") response that was never completed."""
        return bool(self.flags & FLAG_LOADING)

    @property
    def created_ms(self) -> int:
        return snowflake_time_ms(self.id)

    @property
    def pinged(self) -> list[int]:
        """The users this message notifies: those it mentions whom its ``allowed_mentions``
        (none sent: every one) let be pinged."""
        ids = [int(x) for x in dict.fromkeys(_MENTION_RE.findall(self.content))]
        allowed = self.allowed_mentions
        if allowed is None or "users" in (allowed.get("parse") or []):
            return ids
        users = {int(u) for u in allowed.get("users") or []}
        return [i for i in ids if i in users]

    @property
    def files(self) -> list[tuple[str, bytes]]:
        return [(a.filename, a.data) for a in self.attachments]

    @property
    def text(self) -> str:
        """Content plus every embed's author/title/description/fields/footer text and
        every text display component, newline-joined: handy for ``in`` assertions."""
        parts = [self.content] if self.content else []
        for e in self.embeds:
            for key in ("title", "description"):
                if e.get(key):
                    parts.append(str(e[key]))
            if (e.get("author") or {}).get("name"):
                parts.append(e["author"]["name"])
            for f in e.get("fields") or ():
                parts.append(f"{f.get('name', '')}: {f.get('value', '')}")
            if (e.get("footer") or {}).get("text"):
                parts.append(e["footer"]["text"])
        for c in _walk_components(self.components):
            if c.get("type") == 10 and c.get("content"):  # text display (components v2)
                parts.append(c["content"])
        return "\n".join(parts)

    def all_components(self) -> list[dict[str, Any]]:
        return list(_walk_components(self.components))

    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in _walk_components(self.components) if c.get("type") == CT_BUTTON]

    def selects(self) -> list[dict[str, Any]]:
        return [c for c in _walk_components(self.components) if c.get("type") in SELECT_TYPES]

    def button(
        self, label: str | None = None, *, custom_id: str | None = None, emoji: str | None = None
    ) -> dict[str, Any]:
        """The button JSON matching label / custom_id / emoji name; raises LookupError."""
        for b in self.buttons():
            if label is not None and b.get("label") != label:
                continue
            if custom_id is not None and b.get("custom_id") != custom_id:
                continue
            if emoji is not None and (b.get("emoji") or {}).get("name") != emoji:
                continue
            return b
        have = [(b.get("label"), b.get("custom_id")) for b in self.buttons()]
        raise LookupError(
            f"no button label={label!r} custom_id={custom_id!r} emoji={emoji!r} in {have}"
        )

    def find_button(self, label: str | None = None, *, emoji: str | None = None) -> str:
        """custom_id of the button with this label (or emoji name)."""
        return str(self.button(label, emoji=emoji).get("custom_id"))

    def select_menu(
        self, custom_id: str | None = None, *, placeholder: str | None = None
    ) -> dict[str, Any]:
        for s in self.selects():
            if custom_id is not None and s.get("custom_id") != custom_id:
                continue
            if placeholder is not None and s.get("placeholder") != placeholder:
                continue
            return s
        raise LookupError(f"no select custom_id={custom_id!r} placeholder={placeholder!r}")

    def component(self, custom_id: str) -> dict[str, Any] | None:
        return next(
            (c for c in _walk_components(self.components) if c.get("custom_id") == custom_id), None
        )

    def is_visible_to(self, user: FakeUser) -> bool:
        if self.deleted:
            return False
        if self.visible_to is not None and self.visible_to is not user:
            return False
        if self.channel.is_dm:
            return self.channel.recipient is user
        return True

    def snapshot(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "embeds": json.loads(_dumps(self.embeds)),
            "components": json.loads(_dumps(self.components)),
            "attachments": [a.filename for a in self.attachments],
            "flags": self.flags,
        }

    def __repr__(self) -> str:
        eph = " ephemeral" if self.ephemeral else ""
        return f"<FakeMessage id={self.id} in={self.channel!r}{eph} content={self.content[:60]!r}>"


@dataclass(eq=False)
class FakeInteraction:
    """One interaction dispatched to the bot, and everything the bot did with it."""

    id: int
    token: str
    type: int
    user: FakeUser
    channel: FakeChannel
    guild: FakeGuild | None
    data: dict[str, Any]
    payload: dict[str, Any] = field(default_factory=dict)
    source_message: FakeMessage | None = None  # component / modal-from-component
    command: str | None = None
    dispatched_at: float | None = None
    ack_at: float | None = None
    first_callback_at: float | None = None
    callback_type: int | None = None
    callback_data: dict[str, Any] | None = None
    response_message: FakeMessage | None = None
    followups: list[FakeMessage] = field(default_factory=list)
    modal: dict[str, Any] | None = None
    choices: list[dict[str, Any]] | None = None
    errors: list[ApiError] = field(default_factory=list)
    failure: str | None = None
    _acked: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    _answered: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    # -- timing ----------------------------------------------------------------------
    @property
    def latency(self) -> float | None:
        """Seconds from dispatch to the first callback request (accepted or not)."""
        if self.dispatched_at is None or self.first_callback_at is None:
            return None
        return self.first_callback_at - self.dispatched_at

    @property
    def ok(self) -> bool:
        return self.failure is None and self.callback_type is not None

    @property
    def deferred(self) -> bool:
        return self.callback_type in (CB_DEFERRED_MESSAGE, CB_DEFERRED_UPDATE)

    # -- what the user sees --------------------------------------------------------------
    @property
    def message(self) -> FakeMessage | None:
        """The message the response created or updated (for a deferred response, the
        message after the first follow-up/edit); the first follow-up if nothing else."""
        if self.response_message is not None:
            return self.response_message
        return self.followups[0] if self.followups else None

    @property
    def messages(self) -> list[FakeMessage]:
        out = [self.response_message] if self.response_message is not None else []
        return out + [m for m in self.followups if m is not self.response_message]

    @property
    def content(self) -> str | None:
        m = self.message
        return m.content if m is not None else None

    @property
    def text(self) -> str:
        m = self.message
        return m.text if m is not None else ""

    @property
    def ephemeral(self) -> bool:
        m = self.message
        return bool(m is not None and m.ephemeral)

    @property
    def embeds(self) -> list[dict[str, Any]]:
        m = self.message
        return m.embeds if m is not None else []

    @property
    def components(self) -> list[dict[str, Any]]:
        m = self.message
        return m.components if m is not None else []

    @property
    def files(self) -> list[tuple[str, bytes]]:
        m = self.message
        return m.files if m is not None else []

    def describe(self) -> str:
        what = self.command or self.data.get("custom_id") or self.data.get("name") or "?"
        return f"#{self.id} type={self.type} {what!r} by {self.user.name}"

    def __repr__(self) -> str:
        return (
            f"<FakeInteraction {self.describe()} callback={self.callback_type} "
            f"failure={self.failure!r} latency={self.latency}>"
        )


@dataclass
class RequestRecord:
    method: str
    path: str  # relative to /api/v10 for API routes
    query: dict[str, str]
    status: int = 0
    payload: Any = None
    files: list[str] = field(default_factory=list)
    at: float = 0.0
    route: str | None = None


@dataclass
class RateLimitRule:
    method: str
    pattern: re.Pattern[str]
    remaining: int
    retry_after: float = 0.05
    is_global: bool = False
    scope: str = "user"
    hits: int = 0

    def matches(self, method: str, path: str) -> bool:
        return (
            self.remaining > 0 and self.method in ("*", method) and bool(self.pattern.search(path))
        )


@dataclass
class _Req:
    request: web.Request
    method: str
    path: str
    query: dict[str, str]
    payload: Any
    files: list[tuple[str, bytes, str | None]]


@dataclass(eq=False)
class _Conn:
    ws: web.WebSocketResponse
    path: str
    query: dict[str, str]
    compressor: Any = None
    identified: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


_Handler = Callable[..., Awaitable[tuple[int, Any]]]


# --------------------------------------------------------------------------------------
# the stand-in
# --------------------------------------------------------------------------------------


_installed: FakeDiscord | None = None


class FakeDiscord:
    """Loopback Discord: REST + gateway + a driver API for tests.

    Parameters
    ----------
    token: the bot token the client must log in with.
    ack_deadline: seconds the bot has to answer an interaction (Discord: 3).
    followup_ttl: lifetime of interaction tokens for follow-ups/edits (Discord: 15 min).
    ack_grace: how long past the deadline the driver keeps waiting for a (late,
        rejected) callback before declaring the interaction failed.
    require_registered_commands: if True, ``slash()`` only invokes commands the bot
        registered (bulk overwrite), like a real Discord client.  If False, unknown
        commands are built from the Python types of the options.
    ratelimit_headers: send the usual X-RateLimit-* headers on normal responses.
    compress_gateway: honour ``compress=zlib-stream`` (binary frames); otherwise
        plain text frames are sent.
    emit_message_events: dispatch MESSAGE_CREATE/UPDATE/DELETE to the bot (subject
        to its intents), as Discord does.
    """

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        bot_name: str = "OFC Table",
        ack_deadline: float = 3.0,
        followup_ttl: float = 15 * 60.0,
        ack_grace: float = 1.0,
        heartbeat_interval_ms: int = 41250,
        attachment_size_limit: int = 10 * 1024 * 1024,
        require_registered_commands: bool = True,
        ratelimit_headers: bool = True,
        compress_gateway: bool = True,
        emit_message_events: bool = True,
    ) -> None:
        self.token = token
        self.ack_deadline = ack_deadline
        self.followup_ttl = followup_ttl
        self.ack_grace = ack_grace
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.attachment_size_limit = attachment_size_limit
        self.require_registered_commands = require_registered_commands
        self.ratelimit_headers = ratelimit_headers
        self.compress_gateway = compress_gateway
        self.emit_message_events = emit_message_events

        self._last_snowflake = 0
        self.users: dict[int, FakeUser] = {}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self._messages: dict[int, FakeMessage] = {}
        self._attachments: dict[int, FakeAttachment] = {}
        self.interactions: dict[int, FakeInteraction] = {}
        self._by_token: dict[str, FakeInteraction] = {}
        self._dm_by_user: dict[int, FakeChannel] = {}
        # registered application commands: scope (None = global, else guild id) -> name -> json
        self.commands: dict[int | None, dict[str, dict[str, Any]]] = {}
        self._command_ids: dict[tuple[int | None, str, int], int] = {}

        self.application_id = self._snowflake()
        self.bot = FakeUser(self.application_id, bot_name, None, bot=True)
        self.users[self.bot.id] = self.bot
        self.owner = self._new_user("owner", dms_open=True)

        # records
        self.requests: list[RequestRecord] = []
        self.unhandled: list[str] = []
        self.api_errors: list[tuple[str, str, int, int]] = []  # method, path, status, code
        self.internal_errors: list[str] = []
        self.refused: list[str | None] = []
        self.latencies: list[float] = []
        self.rate_limit_rules: list[RateLimitRule] = []
        self.gateway_connects: list[tuple[str, dict[str, str]]] = []  # (path, query)
        self.compressed_connections = 0  # connections served with zlib-stream binary frames
        self.identify_count = 0
        self.resume_count = 0
        self.heartbeats = 0
        self.intents: int | None = None
        self.presence: dict[str, Any] | None = None

        # gateway session
        self._conn: _Conn | None = None
        self._session_id: str | None = None
        self._seq = 0
        self._backlog: list[dict[str, Any]] = []
        self._send_lock = asyncio.Lock()
        self._ready_evt = asyncio.Event()
        self._conns: set[_Conn] = set()

        # change notification: (kind, message) with kind "create" / "edit" / "delete"
        self._cond = asyncio.Condition()
        self._changelog: list[tuple[str, FakeMessage]] = []
        self._bg: set[asyncio.Task[Any]] = set()

        self._runner: web.AppRunner | None = None
        self._sock: socket.socket | None = None
        self.port: int | None = None
        self._saved: tuple[str, Any] | None = None
        self._routes: list[tuple[str, re.Pattern[str], str, _Handler, bool]] = []
        self._setup_routes()

    # ------------------------------------------------------------------ lifecycle
    @property
    def base_url(self) -> str:
        if self.port is None:
            raise RuntimeError("FakeDiscord not started")
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return self.base_url + API_PREFIX

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}{GATEWAY_PATH}"

    @property
    def resume_gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}{RESUME_GATEWAY_PATH}"

    async def start(self) -> None:
        app = web.Application(middlewares=[self._guard], client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self._sock = sock
        self.port = sock.getsockname()[1]
        site = web.SockSite(self._runner, sock)
        await site.start()

    async def stop(self) -> None:
        self.uninstall()
        for conn in list(self._conns):
            with contextlib.suppress(Exception):
                await conn.ws.close(code=1001, message=b"server shutting down")
        self._ready_evt.clear()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def install(self) -> None:
        """Point discord.py (REST, webhooks and gateway) at this stand-in."""
        global _installed
        import yarl
        from discord.gateway import DiscordWebSocket
        from discord.http import Route

        if _installed is not None and _installed is not self:
            raise RuntimeError("another FakeDiscord is installed")
        if self._saved is None:
            self._saved = (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY)
        Route.BASE = self.api_base
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        _installed = self

    def uninstall(self) -> None:
        global _installed
        if self._saved is None:
            return
        from discord.gateway import DiscordWebSocket
        from discord.http import Route

        Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = self._saved
        self._saved = None
        if _installed is self:
            _installed = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        self.install()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @contextlib.asynccontextmanager
    async def run_client(
        self, client: Any, *, token: str | None = None, ready_timeout: float = 30.0
    ) -> AsyncIterator[Any]:
        """Run ``client.start(token)`` as a task; wait until the stand-in sent
        READY/GUILD_CREATE and the client dispatched ``on_ready``; close it on exit
        (re-raising anything the client task died with).  (``ready_timeout``: the bot warms
        its AI and card images before it connects, ~5 s on a free core: 10 s was too little
        for the first test of a run on a machine at a third of a core.)"""
        self._ready_evt.clear()
        task = asyncio.create_task(client.start(token or self.token), name="fakediscord-client")

        async def _wait(aw: Awaitable[Any], what: str) -> None:
            waiter = asyncio.ensure_future(aw)
            done, _ = await asyncio.wait(
                {waiter, task}, timeout=ready_timeout, return_when=asyncio.FIRST_COMPLETED
            )
            if waiter not in done:
                waiter.cancel()
                if task in done:
                    task.result()  # raises the client's exception
                    raise RuntimeError(f"client stopped before {what}")
                raise TimeoutError(f"client not {what} within {ready_timeout}s")
            waiter.result()

        try:
            await _wait(self.wait_ready(timeout=None), "identified")
            await _wait(client.wait_until_ready(), "ready")
        except BaseException:
            await client.close()
            with contextlib.suppress(BaseException):
                await task
            raise
        body_failed = False
        try:
            yield client
        except BaseException:
            body_failed = True
            raise
        finally:
            await client.close()
            try:
                await asyncio.wait_for(task, timeout=5.0)
            except Exception:
                if not body_failed:
                    raise

    # ------------------------------------------------------------------ ids
    def _snowflake(self) -> int:
        now = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        value = max(now, self._last_snowflake + 1)
        self._last_snowflake = value
        return value

    # ------------------------------------------------------------------ world building
    def _new_user(
        self, name: str, *, dms_open: bool = True, bot: bool = False, global_name: str | None = None
    ) -> FakeUser:
        user = FakeUser(self._snowflake(), name, global_name, bot=bot, dms_open=dms_open)
        self.users[user.id] = user
        return user

    def add_guild(
        self,
        name: str = "Test Guild",
        *,
        owner: FakeUser | None = None,
        everyone_permissions: int = DEFAULT_EVERYONE_PERMISSIONS,
        bot_permissions: int = DEFAULT_BOT_PERMISSIONS,
    ) -> FakeGuild:
        """A guild the bot is in (with an @everyone role and a managed bot role).
        Sent in GUILD_CREATE at IDENTIFY (or immediately if already connected)."""
        gid = self._snowflake()
        owner = owner or self.owner
        guild = FakeGuild(gid, name, owner.id, created_ms=snowflake_time_ms(gid))
        guild.roles[gid] = FakeRole(gid, gid, "@everyone", everyone_permissions, 0)
        bot_role = FakeRole(self._snowflake(), gid, self.bot.name, bot_permissions, 1, managed=True)
        guild.roles[bot_role.id] = bot_role
        self.guilds[gid] = guild
        self._add_member(guild, self.bot, [bot_role.id])
        self._add_member(guild, owner, [])
        if self._session_id is not None:
            self._spawn(self._emit("GUILD_CREATE", self._guild_create_json(guild)))
        return guild

    def add_role(self, guild: FakeGuild, name: str, permissions: int = 0) -> FakeRole:
        role = FakeRole(self._snowflake(), guild.id, name, permissions, len(guild.roles))
        guild.roles[role.id] = role
        if self._session_id is not None and self._has_intent(INTENT_GUILDS):
            self._spawn(
                self._emit("GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": role.to_json()})
            )
        return role

    def add_text_channel(
        self, guild: FakeGuild, name: str, *, topic: str | None = None
    ) -> FakeChannel:
        chan = FakeChannel(self._snowflake(), 0, name, guild.id, len(guild.channels), topic)
        guild.channels[chan.id] = chan
        self.channels[chan.id] = chan
        if self._session_id is not None and self._has_intent(INTENT_GUILDS):
            self._spawn(self._emit("CHANNEL_CREATE", chan.to_json()))
        return chan

    def add_forum_channel(self, guild: FakeGuild, name: str) -> FakeChannel:
        """A forum channel (type 15): it holds posts (threads), not messages."""
        chan = FakeChannel(self._snowflake(), CH_FORUM, name, guild.id, len(guild.channels))
        guild.channels[chan.id] = chan
        self.channels[chan.id] = chan
        if self._session_id is not None and self._has_intent(INTENT_GUILDS):
            self._spawn(self._emit("CHANNEL_CREATE", chan.to_json()))
        return chan

    def add_thread(
        self,
        parent: FakeChannel,
        name: str,
        *,
        owner: FakeUser | None = None,
        private: bool = False,
        members: Iterable[FakeUser] = (),
        message: FakeMessage | None = None,
    ) -> FakeChannel:
        """A thread under text channel ``parent`` started by ``owner`` (a public one from
        ``message`` shares its id, as on Discord), or a post of forum ``parent`` (its
        starter message, by ``owner``, shares the thread's id).  Private threads (type 12)
        are seen by their ``members`` (the owner is one) and by Manage Threads only; the bot
        is a member only if listed.  THREAD_CREATE (``newly_created``) goes to the bot."""
        if parent.is_thread or parent.is_dm or parent.guild_id is None:
            raise ValueError("a thread needs a guild text or forum channel as its parent")
        if private and parent.type != CH_TEXT:
            raise ValueError("private threads live in text channels")
        guild = self.guilds[parent.guild_id]
        owner = owner or self.owner
        tid = message.id if message is not None else self._snowflake()
        thread = FakeChannel(
            tid, CH_PRIVATE_THREAD if private else CH_PUBLIC_THREAD, name, guild.id,
            parent_id=parent.id, owner_id=owner.id, archive_ms=int(time.time() * 1000),
        )
        thread.thread_members = {owner.id, *(u.id for u in members)}
        guild.threads[tid] = thread
        self.channels[tid] = thread
        if parent.type == CH_FORUM:  # a forum post opens with its starter message
            starter = FakeMessage(tid, thread, owner, name)
            self._messages[starter.id] = starter
            thread.message_count = 1
            thread.last_message_id = starter.id
            parent.last_message_id = tid
        if self._session_id is not None and self._bot_sees(thread):
            data = {**thread.to_json(), "newly_created": True}
            self._spawn(self._emit("THREAD_CREATE", data))
        return thread

    def add_forum_post(
        self, forum: FakeChannel, name: str, *, owner: FakeUser | None = None
    ) -> FakeChannel:
        """A post in a forum channel: a public thread whose starter message is its title."""
        if forum.type != CH_FORUM:
            raise ValueError(f"{forum!r} is not a forum channel")
        return self.add_thread(forum, name, owner=owner)

    async def archive_thread(
        self, thread: FakeChannel, *, locked: bool | None = None, timeout: float = 5.0
    ) -> None:
        """A moderator (or the inactivity timer) archives ``thread`` ("Close"), and locks
        it if ``locked``.  THREAD_UPDATE is sent (the client applies it when it reads it:
        ``wait_until`` its cache if a test depends on that)."""
        self._require_thread(thread)
        thread.archived = True
        if locked is not None:
            thread.locked = locked
        thread.archive_ms = int(time.time() * 1000)
        await self._thread_updated(thread, timeout)

    async def unarchive_thread(
        self, thread: FakeChannel, *, unlock: bool = True, timeout: float = 5.0
    ) -> None:
        """A moderator reopens ``thread`` (and unlocks it unless ``unlock=False``)."""
        self._require_thread(thread)
        thread.archived = False
        if unlock:
            thread.locked = False
        thread.archive_ms = int(time.time() * 1000)
        await self._thread_updated(thread, timeout)

    async def lock_thread(
        self, thread: FakeChannel, locked: bool = True, *, timeout: float = 5.0
    ) -> None:
        """A moderator locks (or unlocks) ``thread`` and leaves it open: only Manage Threads
        may post or edit there."""
        self._require_thread(thread)
        thread.locked = locked
        await self._thread_updated(thread, timeout)

    async def delete_channel(
        self, chan: FakeChannel, *, dispatch: bool = True, timeout: float = 5.0
    ) -> None:
        """A moderator deletes ``chan`` (a channel, with its threads, or a thread): REST calls
        to it get 404 10003 Unknown Channel from then on.  CHANNEL_DELETE (THREAD_DELETE for a
        thread: id, guild_id, parent_id, type) goes to the bot if it saw the channel, unless
        ``dispatch=False`` (deleted while the bot was away)."""
        guild = self._guild_of(chan)
        if guild is None:
            raise ValueError(f"{chan!r} is not a server channel")
        seen = self._session_id is not None and self._bot_sees(chan)
        gone = [chan, *(th for th in guild.threads.values() if th.parent_id == chan.id)]
        for c in gone:
            self.channels.pop(c.id, None)
            guild.channels.pop(c.id, None)
            guild.threads.pop(c.id, None)
        if dispatch and seen:
            if chan.is_thread:
                data = {"id": str(chan.id), "guild_id": str(guild.id),
                        "parent_id": str(chan.parent_id), "type": chan.type}
                await asyncio.wait_for(self._emit("THREAD_DELETE", data), timeout)
            else:
                await asyncio.wait_for(self._emit("CHANNEL_DELETE", chan.to_json()), timeout)
        await self._bump()

    @staticmethod
    def _require_thread(thread: FakeChannel) -> None:
        if not thread.is_thread:
            raise ValueError(f"{thread!r} is not a thread")

    async def _thread_updated(self, thread: FakeChannel, timeout: float = 5.0) -> None:
        """THREAD_UPDATE to the bot, waiting (at most ``timeout``) until it was sent."""
        if self._session_id is not None and self._bot_sees(thread):
            await asyncio.wait_for(self._emit("THREAD_UPDATE", thread.to_json()), timeout)
        await self._bump()

    def _bot_sees(self, chan: FakeChannel) -> bool:
        guild = self._guild_of(chan)
        return (
            guild is not None
            and self._has_intent(INTENT_GUILDS)
            and bool(self.channel_permissions(chan, self.bot) & Perm.VIEW_CHANNEL)
        )

    def add_user(
        self,
        name: str,
        *,
        guild: FakeGuild | Iterable[FakeGuild] | None = None,
        manage_guild: bool = False,
        administrator: bool = False,
        roles: Iterable[FakeRole] = (),
        dms_open: bool = True,
        bot: bool = False,
        global_name: str | None = None,
    ) -> FakeUser:
        """A user, optionally a member of ``guild`` (one or several).  ``manage_guild``
        / ``administrator`` give them a role with that permission."""
        user = self._new_user(name, dms_open=dms_open, bot=bot, global_name=global_name)
        guilds = [guild] if isinstance(guild, FakeGuild) else list(guild or ())
        for g in guilds:
            self.add_member(
                g, user, manage_guild=manage_guild, administrator=administrator, roles=roles
            )
        return user

    def add_member(
        self,
        guild: FakeGuild,
        user: FakeUser,
        *,
        manage_guild: bool = False,
        administrator: bool = False,
        roles: Iterable[FakeRole] = (),
    ) -> FakeMember:
        role_ids = [r.id for r in roles if r.guild_id == guild.id]
        if manage_guild:
            role = guild.role("Server Managers") or self.add_role(
                guild, "Server Managers", Perm.MANAGE_GUILD
            )
            role_ids.append(role.id)
        if administrator:
            role = guild.role("Admins") or self.add_role(guild, "Admins", Perm.ADMINISTRATOR)
            role_ids.append(role.id)
        member = self._add_member(guild, user, role_ids)
        if self._session_id is not None and self._has_intent(INTENT_GUILD_MEMBERS):
            self._spawn(
                self._emit("GUILD_MEMBER_ADD", {**member.to_json(), "guild_id": str(guild.id)})
            )
        return member

    def _add_member(self, guild: FakeGuild, user: FakeUser, role_ids: list[int]) -> FakeMember:
        member = FakeMember(user, guild.id, role_ids, joined_at=_iso(int(time.time() * 1000)))
        guild.members[user.id] = member
        return member

    def member(self, guild: FakeGuild, user: FakeUser) -> FakeMember | None:
        return guild.members.get(user.id)

    def permissions(self, guild: FakeGuild, user: FakeUser) -> int:
        """Guild-level permissions of ``user`` (no channel overwrites are modelled)."""
        if user.id == guild.owner_id:
            return ALL_PERMISSIONS
        member = guild.members.get(user.id)
        if member is None:
            return 0
        perms = guild.everyone.permissions
        for rid in member.role_ids:
            role = guild.roles.get(rid)
            if role is not None:
                perms |= role.permissions
        if perms & Perm.ADMINISTRATOR:
            return ALL_PERMISSIONS
        return perms

    def channel_permissions(self, channel: FakeChannel, user: FakeUser) -> int:
        """``user``'s permissions in ``channel`` (no overwrites are modelled).  A thread has
        its parent's; a private thread is seen only by its members and by Manage Threads."""
        guild = self._guild_of(channel)
        if guild is None:
            return 0
        perms = self.permissions(guild, user)
        if (
            channel.is_private_thread
            and user.id not in channel.thread_members
            and not perms & Perm.MANAGE_THREADS
        ):
            perms &= ~Perm.VIEW_CHANNEL
        if not perms & Perm.VIEW_CHANNEL:
            return 0
        return perms

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        chan = self._dm_by_user.get(user.id)
        if chan is None:
            chan = FakeChannel(self._snowflake(), 1, None, None, 0, None, recipient=user)
            self._dm_by_user[user.id] = chan
            self.channels[chan.id] = chan
        return chan

    # ------------------------------------------------------------------ queries
    def message(self, message_id: int) -> FakeMessage | None:
        return self._messages.get(int(message_id))

    def messages(
        self,
        channel: FakeChannel | None = None,
        *,
        include_ephemeral: bool = True,
        include_deleted: bool = False,
    ) -> list[FakeMessage]:
        """Messages (oldest first) in ``channel`` (all channels if None)."""
        out = []
        for m in self._messages.values():
            if channel is not None and m.channel is not channel:
                continue
            if m.deleted and not include_deleted:
                continue
            if m.ephemeral and not include_ephemeral:
                continue
            out.append(m)
        return out

    def last_message(
        self, channel: FakeChannel, *, include_ephemeral: bool = False
    ) -> FakeMessage | None:
        msgs = self.messages(channel, include_ephemeral=include_ephemeral)
        return msgs[-1] if msgs else None

    def uploads(self) -> list[FakeAttachment]:
        """Every file uploaded (by the bot: users upload none here), oldest first."""
        return list(self._attachments.values())

    def dms(self, user: FakeUser) -> list[FakeMessage]:
        """Messages in the bot's DM channel with ``user``."""
        chan = self._dm_by_user.get(user.id)
        return self.messages(chan) if chan is not None else []

    def visible_to(self, user: FakeUser, channel: FakeChannel | None = None) -> list[FakeMessage]:
        """Everything ``user`` could see: messages in channels of guilds they are in
        (ephemerals only if meant for them) and their DMs."""
        out = []
        for m in self._messages.values():
            if channel is not None and m.channel is not channel:
                continue
            if not m.is_visible_to(user):
                continue
            if not m.channel.is_dm:
                guild = self.guilds.get(m.channel.guild_id or 0)
                if guild is None or user.id not in guild.members:
                    continue
            out.append(m)
        return out

    def latency_stats(self) -> dict[str, float]:
        lat = self.latencies
        return {
            "count": float(len(lat)),
            "p50": _percentile(lat, 50),
            "p90": _percentile(lat, 90),
            "p99": _percentile(lat, 99),
            "max": max(lat) if lat else 0.0,
        }

    def requests_to(self, method: str, path_regex: str) -> list[RequestRecord]:
        pat = re.compile(path_regex)
        return [r for r in self.requests if r.method == method.upper() and pat.search(r.path)]

    def assert_clean(self, *, allow_api_errors: Iterable[int] = ()) -> None:
        """Fail if the bot made requests the stand-in does not know, if a handler
        crashed, or if the bot got API errors (other than the allowed codes)."""
        allowed = set(allow_api_errors)
        problems = []
        if self.unhandled:
            problems.append(f"unhandled: {self.unhandled}")
        if self.internal_errors:
            problems.append(f"internal errors: {self.internal_errors}")
        bad = [e for e in self.api_errors if e[3] not in allowed]
        if bad:
            problems.append(f"api errors: {bad}")
        if problems:
            raise AssertionError("; ".join(problems))

    # ------------------------------------------------------------------ waiting
    async def _bump(self, message: FakeMessage | None = None, kind: str = "edit") -> None:
        async with self._cond:
            if message is not None:
                self._changelog.append((kind, message))
            self._cond.notify_all()

    async def wait_until(
        self, predicate: Callable[[], bool], timeout: float = 5.0, what: str = "condition"
    ) -> None:
        """Wait until ``predicate()`` is true.  Re-checked after every change the bot
        makes through the stand-in, and every 50 ms (for state outside the stand-in)."""
        deadline = time.monotonic() + timeout
        async with self._cond:
            while not predicate():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"{what} not met within {timeout}s")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._cond.wait(), min(remaining, 0.05))

    async def wait_for_message(
        self,
        where: FakeChannel | FakeUser | None = None,
        predicate: Callable[[FakeMessage], bool] | None = None,
        *,
        timeout: float = 5.0,
        include_existing: bool = False,
        edits: bool = True,
    ) -> FakeMessage:
        """Wait for a message the bot creates (or edits, if ``edits``) from now on in
        ``where`` (a channel; a user means their DM channel; None: anywhere) that
        satisfies ``predicate``.  ``include_existing`` also considers current messages."""
        start = len(self._changelog)
        found: list[FakeMessage] = []

        def matches(m: FakeMessage) -> bool:
            if m.deleted:
                return False
            if isinstance(where, FakeChannel) and m.channel is not where:
                return False
            if isinstance(where, FakeUser) and not (
                m.channel.is_dm and m.channel.recipient is where
            ):
                return False
            return predicate is None or bool(predicate(m))

        if include_existing:
            for m in self._messages.values():
                if matches(m):
                    return m

        def check() -> bool:
            for kind, m in self._changelog[start:]:
                if kind == "delete" or (kind == "edit" and not edits):
                    continue
                if matches(m):
                    found.append(m)
                    return True
            return False

        try:
            await self.wait_until(check, timeout, "message")
        except TimeoutError:
            recent = self.messages(where if isinstance(where, FakeChannel) else None)[-5:]
            raise TimeoutError(
                f"no matching message in {where!r} within {timeout}s; last: {recent}"
            ) from None
        return found[0]

    async def wait_ready(self, timeout: float | None = 10.0) -> None:
        """Wait until the bot has identified (READY + GUILD_CREATE sent) or resumed."""
        if timeout is None:
            await self._ready_evt.wait()
        else:
            await asyncio.wait_for(self._ready_evt.wait(), timeout)

    # ------------------------------------------------------------------ faults
    def inject_429(
        self,
        method: str,
        path_regex: str,
        times: int = 1,
        *,
        retry_after: float = 0.05,
        is_global: bool = False,
        scope: str = "user",
    ) -> RateLimitRule:
        """Answer the next ``times`` requests whose method matches (``"*"``: any) and
        whose path (relative to /api/v10, e.g. ``/channels/123/messages``) matches
        ``re.search(path_regex)`` with a 429."""
        rule = RateLimitRule(
            method.upper(), re.compile(path_regex), times, retry_after, is_global, scope
        )
        self.rate_limit_rules.append(rule)
        return rule

    async def reconnect(self, *, timeout: float = 10.0) -> None:
        """Send op 7 RECONNECT; the client reconnects to resume_gateway_url and RESUMEs."""
        await self._server_op(7, None, timeout)

    async def invalidate_session(self, *, timeout: float = 10.0) -> None:
        """Send op 9 (not resumable); the client re-IDENTIFYs."""
        self._session_id = None
        await self._server_op(9, False, timeout)

    async def drop_connection(self, code: int = 4000, *, timeout: float = 10.0) -> None:
        """Close the websocket abruptly (server side); the client reconnects and RESUMEs."""
        conn = self._conn
        if conn is None:
            raise RuntimeError("bot not connected")
        self._ready_evt.clear()
        await conn.ws.close(code=code)
        await self.wait_ready(timeout)

    async def _server_op(self, op: int, d: Any, timeout: float) -> None:
        conn = self._conn
        if conn is None:
            raise RuntimeError("bot not connected")
        self._ready_evt.clear()
        await self._send(conn, {"op": op, "d": d})
        await self.wait_ready(timeout)

    # ------------------------------------------------------------------ interactions: driver
    async def slash(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        *,
        options: dict[str, Any] | None = None,
        timeout: float = 10.0,
        wait: bool = True,
        **kw_options: Any,
    ) -> FakeInteraction:
        """Invoke ``/command`` (e.g. ``"ofc new"`` for a subcommand, ``"ofc admin
        reset"`` for a group) as ``user`` in ``channel``.  Option values: str, int,
        float, bool, FakeUser (resolved as user/member), FakeChannel, FakeRole,
        ``(filename, bytes)`` for attachments.  Use ``options={...}`` for option
        names that clash with this method's keywords.

        With ``wait`` (default) returns once the interaction is answered: callback
        received, and for a deferred response, the first follow-up / edit of the
        original.  Raises InteractionFailed if not acknowledged in time (or the bot
        deferred and never followed up within ``timeout``)."""
        opts = {**(options or {}), **kw_options}
        data = self._build_command_data(user, channel, command, opts)
        rec = self._new_interaction(IT_COMMAND, user, channel, data, command=command)
        return await self._dispatch_interaction(rec, wait=wait, timeout=timeout)

    async def autocomplete(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        focused: str,
        *,
        options: dict[str, Any] | None = None,
        timeout: float = 10.0,
        **kw_options: Any,
    ) -> list[dict[str, Any]]:
        """Type into option ``focused`` (its partial value is in the options) and
        return the choices the bot offered."""
        opts = {**(options or {}), **kw_options}
        opts.setdefault(focused, "")
        data = self._build_command_data(user, channel, command, opts, focused=focused)
        rec = self._new_interaction(IT_AUTOCOMPLETE, user, channel, data, command=command)
        await self._dispatch_interaction(rec, wait=True, timeout=timeout)
        return rec.choices or []

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage | FakeInteraction,
        custom_id: str | None = None,
        *,
        label: str | None = None,
        emoji: str | None = None,
        timeout: float = 10.0,
        wait: bool = True,
    ) -> FakeInteraction:
        """Press a button on ``message`` (by custom_id, label or emoji name).  An
        interaction record stands for the message it answered with."""
        message = self._as_message(message)
        self._check_can_use(user, message)
        try:
            button = message.button(label, custom_id=custom_id, emoji=emoji)
        except LookupError as exc:
            raise ComponentUnavailable(str(exc)) from None
        if button.get("disabled"):
            raise ComponentUnavailable(f"button {button.get('label')!r} is disabled")
        if "custom_id" not in button:
            raise ComponentUnavailable(f"button {button.get('label')!r} is a link/premium button")
        data = {"custom_id": button["custom_id"], "component_type": CT_BUTTON}
        if "id" in button:
            data["id"] = button["id"]
        rec = self._new_interaction(IT_COMPONENT, user, message.channel, data, source=message)
        return await self._dispatch_interaction(rec, wait=wait, timeout=timeout)

    async def select(
        self,
        user: FakeUser,
        message: FakeMessage | FakeInteraction,
        custom_id: str | None,
        values: Iterable[Any],
        *,
        placeholder: str | None = None,
        timeout: float = 10.0,
        wait: bool = True,
    ) -> FakeInteraction:
        """Choose ``values`` in a select menu on ``message`` (string select: option
        values; user/role/channel selects: FakeUser/FakeRole/FakeChannel)."""
        message = self._as_message(message)
        self._check_can_use(user, message)
        try:
            menu = message.select_menu(custom_id, placeholder=placeholder)
        except LookupError as exc:
            raise ComponentUnavailable(str(exc)) from None
        if menu.get("disabled"):
            raise ComponentUnavailable(f"select {menu.get('custom_id')!r} is disabled")
        values = list(values)
        lo, hi = menu.get("min_values", 1), menu.get("max_values", 1)
        if not lo <= len(values) <= hi:
            raise ComponentUnavailable(f"select needs {lo}..{hi} values, got {len(values)}")
        ctype = menu["type"]
        data: dict[str, Any] = {"custom_id": menu["custom_id"], "component_type": ctype}
        if "id" in menu:
            data["id"] = menu["id"]
        if ctype == CT_STRING_SELECT:
            allowed = [o["value"] for o in menu.get("options", [])]
            for v in values:
                if v not in allowed:
                    raise ComponentUnavailable(
                        f"{v!r} is not an option of {menu['custom_id']!r}: {allowed}"
                    )
            data["values"] = [str(v) for v in values]
        else:
            resolved: dict[str, dict[str, Any]] = {}
            guild = self._guild_of(message.channel)
            data["values"] = [str(self._resolve_value(v, guild, resolved)) for v in values]
            data["resolved"] = resolved
        rec = self._new_interaction(IT_COMPONENT, user, message.channel, data, source=message)
        return await self._dispatch_interaction(rec, wait=wait, timeout=timeout)

    async def submit_modal(
        self,
        user: FakeUser,
        opened_by: FakeInteraction,
        values: dict[str, Any],
        *,
        timeout: float = 10.0,
        wait: bool = True,
    ) -> FakeInteraction:
        """Submit the modal the bot opened in answer to ``opened_by``; ``values`` maps
        text-input custom_id -> text (select custom_id -> list of values)."""
        modal = opened_by.modal
        if modal is None:
            raise ComponentUnavailable(f"{opened_by.describe()} did not open a modal")
        remaining = dict(values)

        def submit(comp: dict[str, Any]) -> dict[str, Any]:
            ctype = comp.get("type")
            if ctype == CT_ACTION_ROW:
                return {"type": 1, "components": [submit(c) for c in comp.get("components", [])]}
            if ctype == CT_LABEL:
                out = {"type": CT_LABEL, "component": submit(comp["component"])}
                if "id" in comp:
                    out["id"] = comp["id"]
                return out
            out = {"type": ctype}
            if "id" in comp:
                out["id"] = comp["id"]
            cid = comp.get("custom_id")
            if cid is not None:
                out["custom_id"] = cid
                if ctype == CT_TEXT_INPUT:
                    value = str(remaining.pop(cid, comp.get("value") or ""))
                    if comp.get("required", True) and not value:
                        raise ComponentUnavailable(f"text input {cid!r} is required")
                    if len(value) > comp.get("max_length", 4000):
                        raise ComponentUnavailable(f"text input {cid!r} longer than max_length")
                    out["value"] = value
                elif ctype in SELECT_TYPES:
                    out["values"] = [str(v) for v in remaining.pop(cid, [])]
            return out

        submitted = [submit(c) for c in modal.get("components", [])]
        if remaining:
            raise ComponentUnavailable(f"modal has no inputs {sorted(remaining)}")
        data = {"custom_id": modal["custom_id"], "components": submitted}
        rec = self._new_interaction(
            IT_MODAL_SUBMIT, user, opened_by.channel, data, source=opened_by.source_message
        )
        return await self._dispatch_interaction(rec, wait=wait, timeout=timeout)

    async def say(self, user: FakeUser, channel: FakeChannel, content: str) -> FakeMessage:
        """``user`` posts a plain message (MESSAGE_CREATE, subject to intents).  In an
        archived thread that is not locked the message unarchives it first (THREAD_UPDATE);
        a locked thread takes messages only from Manage Threads."""
        if channel.is_thread:
            perms = self.channel_permissions(channel, user)
            if not perms & Perm.SEND_MESSAGES_IN_THREADS:
                raise ComponentUnavailable(f"{user!r} may not send messages in {channel!r}")
            if channel.locked and not perms & Perm.MANAGE_THREADS:
                raise ComponentUnavailable(f"{channel!r} is locked")
            if channel.archived:
                channel.archived = False
                channel.archive_ms = int(time.time() * 1000)
                await self._thread_updated(channel)
        msg = FakeMessage(self._snowflake(), channel, user, content)
        self._messages[msg.id] = msg
        self._count_message(msg)
        await self._message_event("MESSAGE_CREATE", msg)
        await self._bump(msg, "create")
        return msg

    async def wait_answered(self, rec: FakeInteraction, timeout: float = 10.0) -> FakeInteraction:
        """For interactions dispatched with ``wait=False``."""
        await self._await_answer(rec, timeout)
        return rec

    async def wait_followups(
        self, rec: FakeInteraction, count: int = 1, timeout: float = 10.0
    ) -> list[FakeMessage]:
        await self.wait_until(lambda: len(rec.followups) >= count, timeout, f"{count} follow-ups")
        return rec.followups

    # ------------------------------------------------------------------ interactions: internals
    @staticmethod
    def _as_message(message: FakeMessage | FakeInteraction) -> FakeMessage:
        if isinstance(message, FakeInteraction):
            if message.message is None:
                raise ComponentUnavailable(f"{message.describe()} produced no message")
            return message.message
        return message

    def _check_can_use(self, user: FakeUser, message: FakeMessage) -> None:
        if message.deleted:
            raise ComponentUnavailable(f"{message!r} was deleted")
        if not message.is_visible_to(user):
            raise ComponentUnavailable(f"{message!r} is not visible to {user!r}")

    def _guild_of(self, channel: FakeChannel) -> FakeGuild | None:
        return self.guilds.get(channel.guild_id) if channel.guild_id else None

    def _new_interaction(
        self,
        itype: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        *,
        source: FakeMessage | None = None,
        command: str | None = None,
    ) -> FakeInteraction:
        guild = self._guild_of(channel)
        if guild is not None and user.id not in guild.members:
            raise ComponentUnavailable(f"{user!r} is not a member of {guild!r}")
        if channel.is_dm and channel.recipient is not user:
            raise ComponentUnavailable(f"{user!r} cannot use {channel!r}")
        if channel.is_thread:
            self._check_thread_use(user, channel, itype)
        rec = FakeInteraction(
            id=self._snowflake(),
            token="aW50ZXJhY3Rpb246" + secrets.token_urlsafe(48),
            type=itype,
            user=user,
            channel=channel,
            guild=guild,
            data=data,
            source_message=source,
            command=command,
        )
        payload: dict[str, Any] = {
            "id": str(rec.id),
            "application_id": str(self.application_id),
            "type": itype,
            "data": data,
            "token": rec.token,
            "version": 1,
            "locale": user.locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": self.attachment_size_limit,
            "channel_id": str(channel.id),
            "channel": self._interaction_channel_json(channel, user),
        }
        if guild is not None:
            payload["guild_id"] = str(guild.id)
            payload["guild"] = {"id": str(guild.id), "locale": "en-US", "features": []}
            payload["guild_locale"] = "en-US"
            payload["member"] = guild.members[user.id].to_json(
                permissions=self.channel_permissions(channel, user)
            )
            payload["app_permissions"] = str(self.channel_permissions(channel, self.bot))
            payload["authorizing_integration_owners"] = {"0": str(guild.id)}
            payload["context"] = 0
        else:
            payload["user"] = user.to_json()
            payload["app_permissions"] = str(DEFAULT_BOT_PERMISSIONS)
            payload["authorizing_integration_owners"] = {"0": "0"}
            payload["context"] = 1
        if source is not None:
            payload["message"] = self._message_json(source)
        rec.payload = payload
        return rec

    def _interaction_channel_json(self, channel: FakeChannel, user: FakeUser) -> dict[str, Any]:
        data = channel.to_json()
        guild = self._guild_of(channel)
        if guild is not None:
            data["permissions"] = str(self.channel_permissions(channel, user))
        return data

    def _check_thread_use(self, user: FakeUser, thread: FakeChannel, itype: int) -> None:
        """What a Discord client lets a user do in a thread: nothing in an archived one
        ("Users cannot edit messages, add reactions, use application commands, or join
        archived threads": sending a message, ``say()``, unarchives it first); no commands
        in a locked one without Manage Threads (its message box is closed; buttons on its
        messages still work); nothing in a private one they cannot see."""
        perms = self.channel_permissions(thread, user)
        if not perms & Perm.VIEW_CHANNEL:
            raise ComponentUnavailable(f"{user!r} cannot see {thread!r}")
        if thread.archived:
            raise ComponentUnavailable(
                f"{thread!r} is archived: a user must send a message there (say) to "
                "unarchive it first, or a moderator unarchive it"
            )
        if (
            thread.locked
            and itype in (IT_COMMAND, IT_AUTOCOMPLETE)
            and not perms & Perm.MANAGE_THREADS
        ):
            raise ComponentUnavailable(f"{thread!r} is locked: {user!r} cannot use commands")

    async def _dispatch_interaction(
        self, rec: FakeInteraction, *, wait: bool, timeout: float
    ) -> FakeInteraction:
        await self.wait_ready(timeout)
        self.interactions[rec.id] = rec
        self._by_token[rec.token] = rec
        rec.dispatched_at = time.monotonic()
        await self._emit("INTERACTION_CREATE", rec.payload)
        if wait:
            await self._await_answer(rec, timeout)
        return rec

    async def _await_answer(self, rec: FakeInteraction, timeout: float) -> None:
        start = time.monotonic()
        ack_wait = min(timeout, self.ack_deadline + self.ack_grace)
        if rec.dispatched_at is not None:
            ack_wait = max(0.0, ack_wait - (start - rec.dispatched_at))
        try:
            await asyncio.wait_for(rec._acked.wait(), ack_wait)
        except TimeoutError:
            if rec.failure is None:
                rec.failure = f"not acknowledged within {self.ack_deadline}s"
            raise InteractionFailed(rec, rec.failure) from None
        if rec.failure is not None:
            raise InteractionFailed(rec, rec.failure)
        remaining = max(0.0, timeout - (time.monotonic() - start))
        try:
            await asyncio.wait_for(rec._answered.wait(), remaining)
        except TimeoutError:
            raise InteractionFailed(
                rec,
                f"deferred (callback type {rec.callback_type}) but no follow-up/edit within {timeout}s",
            ) from None

    # ------------------------------------------------------------------ command data
    def _lookup_command(
        self, guild: FakeGuild | None, name: str
    ) -> tuple[dict[str, Any] | None, int | None]:
        if guild is not None and name in self.commands.get(guild.id, {}):
            return self.commands[guild.id][name], guild.id
        if name in self.commands.get(None, {}):
            return self.commands[None][name], None
        return None, None

    def _build_command_data(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        options: dict[str, Any],
        *,
        focused: str | None = None,
    ) -> dict[str, Any]:
        parts = command.strip().lstrip("/").split()
        if not parts:
            raise ValueError("empty command")
        guild = self._guild_of(channel)
        spec, scope = self._lookup_command(guild, parts[0])
        resolved: dict[str, dict[str, Any]] = {}

        if spec is None:
            if self.require_registered_commands:
                known = sorted(
                    n
                    for s in ((guild.id if guild else None), None)
                    for n in self.commands.get(s, {})
                )
                raise ComponentUnavailable(f"/{parts[0]} is not registered (registered: {known})")
            data: dict[str, Any] = {"id": str(self._snowflake()), "name": parts[0], "type": 1}
            cursor = data
            for i, part in enumerate(parts[1:], start=1):
                kind = OPT_SUB_COMMAND if i == len(parts) - 1 else OPT_SUB_COMMAND_GROUP
                node: dict[str, Any] = {"type": kind, "name": part, "options": []}
                cursor.setdefault("options", []).append(node)
                cursor = node
            built = [
                self._infer_option(k, v, guild, resolved, k == focused) for k, v in options.items()
            ]
            if built or len(parts) > 1:
                cursor["options"] = built
            if resolved:
                data["resolved"] = resolved
            return data

        # permission / context checks a real client enforces by hiding the command
        if guild is not None:
            required = spec.get("default_member_permissions")
            if required not in (None, "", "0"):
                perms = self.permissions(guild, user)
                if perms & int(required) != int(required):
                    raise ComponentUnavailable(
                        f"{user!r} lacks permissions {required} for /{parts[0]}"
                    )
            elif required == "0" and self.permissions(guild, user) != ALL_PERMISSIONS:
                raise ComponentUnavailable(f"/{parts[0]} is disabled for non-admins")
        else:
            contexts = spec.get("contexts")
            if spec.get("dm_permission") is False or (contexts is not None and 1 not in contexts):
                raise ComponentUnavailable(f"/{parts[0]} is not available in DMs")

        data = {"id": str(spec["id"]), "name": spec["name"], "type": spec.get("type", 1)}
        if scope is not None:
            data["guild_id"] = str(scope)
        cursor = data
        node_spec = spec
        for part in parts[1:]:
            sub = next(
                (
                    o
                    for o in node_spec.get("options", [])
                    if o.get("name") == part
                    and o.get("type") in (OPT_SUB_COMMAND, OPT_SUB_COMMAND_GROUP)
                ),
                None,
            )
            if sub is None:
                raise ComponentUnavailable(f"/{command}: no subcommand {part!r}")
            node = {"type": sub["type"], "name": part, "options": []}
            cursor.setdefault("options", []).append(node)
            cursor = node
            node_spec = sub
        leaf_specs = node_spec.get("options", [])
        if any(o.get("type") in (OPT_SUB_COMMAND, OPT_SUB_COMMAND_GROUP) for o in leaf_specs):
            subs = [o["name"] for o in leaf_specs]
            raise ComponentUnavailable(f"/{command} is a group; pick one of {subs}")
        by_name = {o["name"]: o for o in leaf_specs}
        built = []
        for name, value in options.items():
            opt_spec = by_name.get(name)
            if opt_spec is None:
                raise ComponentUnavailable(
                    f"/{command} has no option {name!r} (has {sorted(by_name)})"
                )
            built.append(self._convert_option(opt_spec, value, guild, resolved, name == focused))
        if focused is None:
            missing = [
                o["name"] for o in leaf_specs if o.get("required") and o["name"] not in options
            ]
            if missing:
                raise ComponentUnavailable(f"/{command}: missing required options {missing}")
        if built or cursor is not data:
            cursor["options"] = built
        if resolved:
            data["resolved"] = resolved
        return data

    def _convert_option(
        self,
        spec: dict[str, Any],
        value: Any,
        guild: FakeGuild | None,
        resolved: dict[str, dict[str, Any]],
        focused: bool,
    ) -> dict[str, Any]:
        otype = spec["type"]
        name = spec["name"]
        out: dict[str, Any] = {"name": name, "type": otype}
        if focused:  # partial input, sent as typed
            out["value"] = str(value)
            out["focused"] = True
            return out
        if otype == OPT_STRING:
            if not isinstance(value, str):
                raise ComponentUnavailable(f"option {name!r} wants a string, got {value!r}")
            if len(value) < spec.get("min_length", 0) or len(value) > spec.get("max_length", 6000):
                raise ComponentUnavailable(f"option {name!r}: length out of range")
        elif otype == OPT_INTEGER:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ComponentUnavailable(f"option {name!r} wants an integer, got {value!r}")
        elif otype == OPT_NUMBER:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ComponentUnavailable(f"option {name!r} wants a number, got {value!r}")
            value = float(value)
        elif otype == OPT_BOOLEAN:
            if not isinstance(value, bool):
                raise ComponentUnavailable(f"option {name!r} wants a bool, got {value!r}")
        elif otype in (OPT_USER, OPT_CHANNEL, OPT_ROLE, OPT_MENTIONABLE, OPT_ATTACHMENT):
            value = str(self._resolve_value(value, guild, resolved))
        if otype in (OPT_INTEGER, OPT_NUMBER):
            if "min_value" in spec and value < spec["min_value"]:
                raise ComponentUnavailable(f"option {name!r}: {value} < min {spec['min_value']}")
            if "max_value" in spec and value > spec["max_value"]:
                raise ComponentUnavailable(f"option {name!r}: {value} > max {spec['max_value']}")
        if spec.get("choices"):
            allowed = [c["value"] for c in spec["choices"]]
            if value not in allowed:
                raise ComponentUnavailable(
                    f"option {name!r}: {value!r} not among choices {allowed}"
                )
        out["value"] = value
        return out

    def _infer_option(
        self,
        name: str,
        value: Any,
        guild: FakeGuild | None,
        resolved: dict[str, dict[str, Any]],
        focused: bool,
    ) -> dict[str, Any]:
        if focused:
            return {"name": name, "type": OPT_STRING, "value": str(value), "focused": True}
        if isinstance(value, bool):
            otype = OPT_BOOLEAN
        elif isinstance(value, int):
            otype = OPT_INTEGER
        elif isinstance(value, float):
            otype = OPT_NUMBER
        elif isinstance(value, str):
            otype = OPT_STRING
        elif isinstance(value, FakeUser):
            otype = OPT_USER
        elif isinstance(value, FakeChannel):
            otype = OPT_CHANNEL
        elif isinstance(value, FakeRole):
            otype = OPT_ROLE
        elif isinstance(value, tuple):
            otype = OPT_ATTACHMENT
        else:
            raise ComponentUnavailable(f"cannot infer option type of {name}={value!r}")
        return self._convert_option({"name": name, "type": otype}, value, guild, resolved, False)

    def _resolve_value(
        self, value: Any, guild: FakeGuild | None, resolved: dict[str, dict[str, Any]]
    ) -> int:
        if isinstance(value, FakeUser):
            resolved.setdefault("users", {})[str(value.id)] = value.to_json()
            if guild is not None and value.id in guild.members:
                member = guild.members[value.id]
                resolved.setdefault("members", {})[str(value.id)] = member.to_json(
                    with_user=False, permissions=self.permissions(guild, value)
                )
            return value.id
        if isinstance(value, FakeRole):
            resolved.setdefault("roles", {})[str(value.id)] = value.to_json()
            return value.id
        if isinstance(value, FakeChannel):
            data = value.to_json()
            data["permissions"] = str(ALL_PERMISSIONS)
            resolved.setdefault("channels", {})[str(value.id)] = data
            return value.id
        if isinstance(value, tuple) and len(value) == 2:
            filename, blob = value
            att = self._new_attachment(0, str(filename), bytes(blob), None, None)
            resolved.setdefault("attachments", {})[str(att.id)] = att.to_json()
            return att.id
        raise ComponentUnavailable(f"cannot resolve {value!r}")

    # ------------------------------------------------------------------ gateway
    def _has_intent(self, bit: int) -> bool:
        return self.intents is not None and bool(self.intents & bit)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run a gateway emission from synchronous driver code."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            coro.close()
            return
        task: asyncio.Task[None] = loop.create_task(coro)
        self._bg.add(task)
        task.add_done_callback(self._bg.discard)

    async def _send(self, conn: _Conn, payload: dict[str, Any]) -> None:
        text = _dumps(payload)
        # one lock per connection: zlib-stream frames must hit the wire in compression order
        async with conn.lock:
            if conn.ws.closed:
                return
            try:
                if conn.compressor is not None:
                    blob = conn.compressor.compress(text.encode()) + conn.compressor.flush(
                        zlib.Z_SYNC_FLUSH
                    )
                    await conn.ws.send_bytes(blob)
                else:
                    await conn.ws.send_str(text)
            except (ConnectionError, RuntimeError) as exc:
                log.debug("gateway send failed: %s", exc)

    async def _emit(self, event: str, data: dict[str, Any]) -> None:
        """Dispatch (op 0) an event in the current session; kept for RESUME replay."""
        if self._session_id is None:
            return
        async with self._send_lock:
            self._seq += 1
            payload = {"op": 0, "t": event, "s": self._seq, "d": data}
            self._backlog.append(payload)
            if len(self._backlog) > 5000:
                del self._backlog[:1000]
            conn = self._conn
            if conn is not None and conn.identified:
                await self._send(conn, payload)

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(autoping=True, max_msg_size=16 * 1024 * 1024)
        await ws.prepare(request)
        query = dict(request.query)
        compressor = None
        if self.compress_gateway and query.get("compress") == "zlib-stream":
            compressor = zlib.compressobj()
            self.compressed_connections += 1
        conn = _Conn(ws, request.path, query, compressor)
        self.gateway_connects.append((request.path, query))
        self._conns.add(conn)
        old = self._conn
        self._conn = conn
        self._ready_evt.clear()
        if old is not None and not old.ws.closed:
            await old.ws.close(code=4000)
        try:
            await self._send(
                conn, {"op": 10, "d": {"heartbeat_interval": self.heartbeat_interval_ms}}
            )
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    await self._gateway_op(conn, json.loads(msg.data))
                elif msg.type == WSMsgType.BINARY:
                    await self._gateway_op(conn, json.loads(zlib.decompress(msg.data)))
                elif msg.type == WSMsgType.ERROR:
                    break
        finally:
            self._conns.discard(conn)
            if self._conn is conn:
                self._conn = None
                self._ready_evt.clear()
        return ws

    async def _gateway_op(self, conn: _Conn, msg: dict[str, Any]) -> None:
        op = msg.get("op")
        d: Any = msg.get("d")
        if op == 1:
            self.heartbeats += 1
            await self._send(conn, {"op": 11})
        elif op == 2:
            d = d or {}
            if d.get("token") != self.token:
                await conn.ws.close(code=4004, message=b"Authentication failed.")
                return
            self.identify_count += 1
            self.intents = d.get("intents")
            self.presence = d.get("presence")
            await self._identify(conn, d.get("shard"))
        elif op == 6:
            d = d or {}
            if d.get("token") != self.token:
                await conn.ws.close(code=4004, message=b"Authentication failed.")
                return
            if self._session_id is None or d.get("session_id") != self._session_id:
                await self._send(conn, {"op": 9, "d": False})
                return
            self.resume_count += 1
            seq = d.get("seq") or 0
            async with self._send_lock:
                conn.identified = True
                for payload in self._backlog:
                    if payload["s"] > seq:
                        await self._send(conn, payload)
            await self._emit("RESUMED", {})
            self._ready_evt.set()
        elif op == 3:
            self.presence = d
        elif op == 8:
            await self._member_chunk(d or {})
        elif op == 4:
            pass  # voice state update: nothing to do
        else:
            self.unhandled.append(f"gateway op {op}")

    async def _identify(self, conn: _Conn, shard: list[int] | None = None) -> None:
        async with self._send_lock:
            self._session_id = secrets.token_hex(16)
            self._seq = 0
            self._backlog = []
            conn.identified = True
        ready = {
            "v": 10,
            "user": {**self.bot.to_json(), "verified": True, "mfa_enabled": False, "email": None},
            "guilds": [{"id": str(g), "unavailable": True} for g in self.guilds],
            "session_id": self._session_id,
            "session_type": "normal",
            "resume_gateway_url": self.resume_gateway_url,
            "application": {"id": str(self.application_id), "flags": self._app_flags()},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": ["us-east"],
            "user_settings": {},
        }
        if shard is not None:  # AutoShardedClient identifies with [shard_id, shard_count]
            ready["shard"] = shard
        await self._emit("READY", ready)
        for guild in list(self.guilds.values()):
            await self._emit("GUILD_CREATE", self._guild_create_json(guild))
        self._ready_evt.set()

    async def _member_chunk(self, d: dict[str, Any]) -> None:
        guild = self.guilds.get(int(d.get("guild_id", 0)))
        if guild is None:
            return
        members = list(guild.members.values())
        if d.get("user_ids"):
            wanted = {int(u) for u in d["user_ids"]}
            members = [m for m in members if m.user.id in wanted]
        elif d.get("query"):
            members = [
                m for m in members if m.user.name.lower().startswith(str(d["query"]).lower())
            ]
        if d.get("limit"):
            members = members[: int(d["limit"])]
        chunk: dict[str, Any] = {
            "guild_id": str(guild.id),
            "members": [m.to_json() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
        }
        if d.get("nonce"):
            chunk["nonce"] = d["nonce"]
        await self._emit("GUILD_MEMBERS_CHUNK", chunk)

    @staticmethod
    def _app_flags() -> int:
        # GATEWAY_PRESENCE_LIMITED | GATEWAY_GUILD_MEMBERS_LIMITED | GATEWAY_MESSAGE_CONTENT_LIMITED
        return (1 << 13) | (1 << 15) | (1 << 19)

    def _guild_create_json(self, guild: FakeGuild) -> dict[str, Any]:
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(guild.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "application_id": None,
            "max_members": 500000,
            "max_video_channel_users": 25,
            "premium_progress_bar_enabled": False,
            "features": [],
            "roles": [r.to_json() for r in guild.roles.values()],
            "emojis": [],
            "stickers": [],
            "channels": [c.to_json() for c in guild.channels.values()],
            # like Discord: the active threads the bot can see (archived ones are not synced)
            "threads": [
                t.to_json()
                for t in guild.threads.values()
                if not t.archived and self.channel_permissions(t, self.bot) & Perm.VIEW_CHANNEL
            ],
            # like Discord: the full member list only with the GUILD_MEMBERS intent
            "members": [
                m.to_json()
                for m in guild.members.values()
                if self._has_intent(INTENT_GUILD_MEMBERS) or m.user is self.bot
            ],
            "member_count": len(guild.members),
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "joined_at": _iso(guild.created_ms),
            "large": False,
            "unavailable": False,
            "lazy": True,
        }

    # ------------------------------------------------------------------ HTTP plumbing
    @web.middleware
    async def _guard(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if not is_loopback(request.remote):
            self.refused.append(request.remote)
            resp = web.Response(
                status=403,
                body=b'{"message":"loopback connections only","code":0}',
                headers={"Content-Type": "application/json", "Connection": "close"},
            )
            resp.force_close()
            return resp
        return await handler(request)

    def _route(self, method: str, pattern: str, handler: _Handler, *, auth: bool = True) -> None:
        regex = re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", pattern) + "$")
        self._routes.append((method, regex, pattern, handler, auth))

    def _setup_routes(self) -> None:
        r = self._route
        r("GET", "/gateway", self._h_gateway_info, auth=False)
        r("GET", "/gateway/bot", self._h_gateway_info)
        r("GET", "/users/@me", self._h_me)
        r("GET", "/oauth2/applications/@me", self._h_app_info)
        r("GET", "/applications/@me", self._h_app_info)
        r("POST", "/users/@me/channels", self._h_create_dm)
        r("GET", "/users/{user_id}", self._h_get_user)
        r("GET", "/channels/{channel_id}", self._h_get_channel)
        r("PATCH", "/channels/{channel_id}", self._h_edit_channel)
        r("GET", "/guilds/{guild_id}/threads/active", self._h_active_threads)
        r("GET", "/channels/{channel_id}/messages", self._h_list_messages)
        r("POST", "/channels/{channel_id}/messages", self._h_create_message)
        r("POST", "/channels/{channel_id}/typing", self._h_typing)
        r("GET", "/channels/{channel_id}/messages/{message_id}", self._h_get_message)
        r("PATCH", "/channels/{channel_id}/messages/{message_id}", self._h_edit_message)
        r("DELETE", "/channels/{channel_id}/messages/{message_id}", self._h_delete_message)
        r(
            "PUT",
            "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
            self._h_add_reaction,
        )
        r(
            "DELETE",
            "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
            self._h_remove_reaction,
        )
        r("GET", "/guilds/{guild_id}", self._h_get_guild)
        r("GET", "/guilds/{guild_id}/channels", self._h_guild_channels)
        r("GET", "/guilds/{guild_id}/roles", self._h_guild_roles)
        r("GET", "/guilds/{guild_id}/members", self._h_list_members)
        r("GET", "/guilds/{guild_id}/members/{user_id}", self._h_get_member)
        r("GET", "/applications/{app_id}/commands", self._h_get_commands)
        r("PUT", "/applications/{app_id}/commands", self._h_put_commands)
        r("GET", "/applications/{app_id}/guilds/{guild_id}/commands", self._h_get_commands)
        r("PUT", "/applications/{app_id}/guilds/{guild_id}/commands", self._h_put_commands)
        r("POST", "/interactions/{interaction_id}/{token}/callback", self._h_callback, auth=False)
        r("POST", "/webhooks/{app_id}/{token}", self._h_followup, auth=False)
        r(
            "GET",
            "/webhooks/{app_id}/{token}/messages/{message_id}",
            self._h_webhook_get,
            auth=False,
        )
        r(
            "PATCH",
            "/webhooks/{app_id}/{token}/messages/{message_id}",
            self._h_webhook_edit,
            auth=False,
        )
        r(
            "DELETE",
            "/webhooks/{app_id}/{token}/messages/{message_id}",
            self._h_webhook_delete,
            auth=False,
        )

    def _json_response(
        self, status: int, body: Any, headers: dict[str, str] | None = None
    ) -> web.Response:
        hdrs = {"Content-Type": "application/json"}  # exactly this: discord.py compares the string
        hdrs.update(headers or {})
        return web.Response(status=status, body=_dumps(body).encode(), headers=hdrs)

    def _ratelimit_headers(self, method: str, pattern: str) -> dict[str, str]:
        if not self.ratelimit_headers:
            return {}
        bucket = hashlib.md5(f"{method} {pattern}".encode()).hexdigest()
        return {
            "X-RateLimit-Bucket": bucket,
            "X-RateLimit-Limit": "50",
            "X-RateLimit-Remaining": "49",
            "X-RateLimit-Reset": f"{time.time() + 1.0:.3f}",
            "X-RateLimit-Reset-After": "1.000",
        }

    async def _read_body(
        self, request: web.Request
    ) -> tuple[Any, list[tuple[str, bytes, str | None]]]:
        files: list[tuple[str, bytes, str | None]] = []
        payload: Any = None
        if request.content_type.startswith("multipart/"):
            reader = await request.multipart()
            indexed: dict[int, tuple[str, bytes, str | None]] = {}
            while True:
                part = await reader.next()
                if part is None:
                    break
                name = getattr(part, "name", None) or ""
                blob = bytes(await part.read())  # type: ignore[union-attr]
                if name == "payload_json":
                    payload = json.loads(blob.decode())
                elif name.startswith("files[") and name.endswith("]"):
                    indexed[int(name[6:-1])] = (
                        getattr(part, "filename", None) or f"file{len(indexed)}",
                        blob,
                        part.headers.get("Content-Type"),
                    )
                else:
                    self.unhandled.append(
                        f"multipart field {name!r} in {request.method} {request.path}"
                    )
            files = [indexed[i] for i in sorted(indexed)]
        elif request.can_read_body:
            raw = await request.read()
            if raw:
                payload = json.loads(raw.decode())
        return payload, files

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        if (
            path in (GATEWAY_PATH, RESUME_GATEWAY_PATH)
            and request.headers.get("Upgrade", "").lower() == "websocket"
        ):
            return await self._gateway(request)
        if path.startswith(ATTACHMENT_PATH + "/"):
            return self._serve_attachment(path)
        method = request.method.upper()
        if not path.startswith(API_PREFIX + "/"):
            self.unhandled.append(f"{method} {path}")
            return self._json_response(404, {"message": "404: Not Found", "code": 0})
        api_path = path[len(API_PREFIX) :]
        record = RequestRecord(method, api_path, dict(request.query), at=time.monotonic())
        self.requests.append(record)
        try:
            payload, files = await self._read_body(request)
        except Exception as exc:  # malformed body
            record.status = 400
            self.internal_errors.append(f"{method} {api_path}: bad body: {exc!r}")
            return self._json_response(400, {"message": f"bad body: {exc}", "code": 50109})
        record.payload = payload
        record.files = [f[0] for f in files]

        for rule in self.rate_limit_rules:
            if rule.matches(method, api_path):
                rule.remaining -= 1
                rule.hits += 1
                record.status = 429
                headers = {
                    "Via": "1.1 google",
                    "X-RateLimit-Scope": rule.scope,
                    "Retry-After": str(max(1, int(rule.retry_after + 0.999))),
                }
                if rule.is_global:
                    headers["X-RateLimit-Global"] = "true"
                body = {
                    "message": "You are being rate limited.",
                    "retry_after": rule.retry_after,
                    "global": rule.is_global,
                }
                return self._json_response(429, body, headers)

        for rmethod, regex, pattern, handler, auth in self._routes:
            if rmethod != method:
                continue
            m = regex.match(api_path)
            if m is None:
                continue
            record.route = pattern
            try:
                if auth and request.headers.get("Authorization") != f"Bot {self.token}":
                    raise ApiError(401, 0, "401: Unauthorized")
                status, body = await handler(
                    _Req(request, method, api_path, dict(request.query), payload, files),
                    **m.groupdict(),
                )
            except ApiError as err:
                record.status = err.status
                self.api_errors.append((method, api_path, err.status, err.code))
                return self._json_response(err.status, err.body())
            except Exception as exc:
                log.exception("fakediscord handler crashed on %s %s", method, api_path)
                record.status = 400
                self.internal_errors.append(f"{method} {api_path}: {exc!r}")
                # not a 5xx: discord.py retries those with multi-second sleeps
                return self._json_response(
                    400, {"message": f"fakediscord internal error: {exc!r}", "code": 0}
                )
            record.status = status
            if status == 204:
                return web.Response(status=204, headers=self._ratelimit_headers(method, pattern))
            return self._json_response(status, body, self._ratelimit_headers(method, pattern))

        self.unhandled.append(f"{method} {api_path}")
        record.status = 404
        return self._json_response(404, {"message": "404: Not Found", "code": 0})

    def _serve_attachment(self, path: str) -> web.Response:
        parts = path.split("/")
        try:
            att = self._attachments[int(parts[3])]
        except (IndexError, ValueError, KeyError):
            return web.Response(status=404)
        return web.Response(
            body=att.data, content_type=att.content_type or "application/octet-stream"
        )

    # ------------------------------------------------------------------ message building
    def _new_attachment(
        self,
        channel_id: int,
        filename: str,
        data: bytes,
        content_type: str | None,
        description: str | None,
    ) -> FakeAttachment:
        if len(data) > self.attachment_size_limit:
            raise ApiError(413, 40005, "Request entity too large")
        if description is not None and len(description) > 1024:  # (the alt text's limit)
            raise _invalid_form("attachments.description", "Must be 1024 or fewer in length.")
        att = FakeAttachment(self._snowflake(), filename, data, content_type, description)
        att.url = f"{self.base_url}{ATTACHMENT_PATH}/{channel_id}/{att.id}/{filename}"
        if content_type in (None, "application/octet-stream"):
            lower = filename.lower()
            if lower.endswith(".png"):
                att.content_type = "image/png"
            elif lower.endswith((".jpg", ".jpeg")):
                att.content_type = "image/jpeg"
            elif lower.endswith(".gif"):
                att.content_type = "image/gif"
            elif lower.endswith(".txt"):
                att.content_type = "text/plain; charset=utf-8"
        self._attachments[att.id] = att
        return att

    def _attachments_for(
        self,
        channel: FakeChannel,
        payload: dict[str, Any],
        files: list[tuple[str, bytes, str | None]],
        existing: list[FakeAttachment],
    ) -> list[FakeAttachment]:
        if len(files) > 10:
            raise _invalid_form("files", "Must be 10 or fewer in length.")
        specs = payload.get("attachments")
        new_by_index: dict[int, FakeAttachment] = {}
        out: list[FakeAttachment] = []
        if specs is None:
            out = list(existing)
            for fn, blob, ctype in files:
                out.append(self._new_attachment(channel.id, fn, blob, ctype, None))
            return out
        existing_by_id = {a.id: a for a in existing}
        for spec in specs:
            sid = int(spec.get("id", -1))
            if sid in existing_by_id:
                out.append(existing_by_id[sid])
            elif 0 <= sid < len(files):
                fn, blob, ctype = files[sid]
                att = self._new_attachment(
                    channel.id, spec.get("filename") or fn, blob, ctype, spec.get("description")
                )
                new_by_index[sid] = att
                out.append(att)
            else:
                raise _invalid_form("attachments", f"unknown attachment id {sid}")
        for i, (fn, blob, ctype) in enumerate(files):  # files not referenced: still uploaded
            if i not in new_by_index:
                out.append(self._new_attachment(channel.id, fn, blob, ctype, None))
        return out

    def _validate_message(
        self, msg_fields: dict[str, Any], *, creating: bool, has_files: bool
    ) -> None:
        content = msg_fields.get("content")
        if content is not None and len(str(content)) > 2000:
            raise _invalid_form("content", "Must be 2000 or fewer in length.")
        embeds = msg_fields.get("embeds") or []
        if len(embeds) > 10:
            raise _invalid_form("embeds", "Must be 10 or fewer in length.")
        total = 0
        for i, e in enumerate(embeds):
            limits = {"title": 256, "description": 4096}
            for key, lim in limits.items():
                if e.get(key) and len(str(e[key])) > lim:
                    raise _invalid_form(f"embeds.{i}.{key}", f"Must be {lim} or fewer in length.")
                total += len(str(e.get(key) or ""))
            fields = e.get("fields") or []
            if len(fields) > 25:
                raise _invalid_form(f"embeds.{i}.fields", "Must be 25 or fewer in length.")
            for j, f in enumerate(fields):
                if not f.get("name") or len(str(f["name"])) > 256:
                    raise _invalid_form(
                        f"embeds.{i}.fields.{j}.name", "Must be between 1 and 256 in length."
                    )
                if not f.get("value") or len(str(f["value"])) > 1024:
                    raise _invalid_form(
                        f"embeds.{i}.fields.{j}.value", "Must be between 1 and 1024 in length."
                    )
                total += len(str(f["name"])) + len(str(f["value"]))
            total += len(str((e.get("footer") or {}).get("text") or ""))
            total += len(str((e.get("author") or {}).get("name") or ""))
        if total > 6000:
            raise _invalid_form("embeds", "Embed size exceeds maximum size of 6000")
        components = msg_fields.get("components") or []
        v2 = bool((msg_fields.get("flags") or 0) & FLAG_COMPONENTS_V2)
        if not v2 and len(components) > 5:
            raise _invalid_form("components", "Must be 5 or fewer in length.")
        seen: set[str] = set()
        for i, row in enumerate(components):
            if not v2 and row.get("type") != CT_ACTION_ROW:
                raise _invalid_form(f"components.{i}", "top level components must be action rows")
            children = row.get("components") or []
            if row.get("type") == CT_ACTION_ROW:
                if not 1 <= len(children) <= 5:
                    raise _invalid_form(
                        f"components.{i}.components", "Must be between 1 and 5 in length."
                    )
                if any(c.get("type") in SELECT_TYPES for c in children) and len(children) != 1:
                    raise _invalid_form(
                        f"components.{i}.components", "A select must be alone in its row."
                    )
        for c in _walk_components(components):
            cid = c.get("custom_id")
            if cid is not None:
                if not 1 <= len(cid) <= 100:
                    raise _invalid_form(
                        "components.custom_id", "Must be between 1 and 100 in length."
                    )
                if cid in seen:
                    raise _invalid_form(
                        "components.custom_id", f"Component custom id {cid!r} is duplicated"
                    )
                seen.add(cid)
            if c.get("type") == CT_BUTTON and c.get("label") and len(c["label"]) > 80:
                raise _invalid_form("components.label", "Must be 80 or fewer in length.")
            if c.get("type") == CT_STRING_SELECT:
                opts = c.get("options") or []
                if not 1 <= len(opts) <= 25:
                    raise _invalid_form("components.options", "Must be between 1 and 25 in length.")
                for o in opts:
                    if len(str(o.get("label", ""))) > 100 or len(str(o.get("value", ""))) > 100:
                        raise _invalid_form("components.options", "Must be 100 or fewer in length.")
                if c.get("max_values", 1) > len(opts):
                    raise _invalid_form(
                        "components.max_values", "max_values exceeds the number of options"
                    )
            if c.get("placeholder") and len(c["placeholder"]) > 150:
                raise _invalid_form("components.placeholder", "Must be 150 or fewer in length.")
        if creating and not (
            content
            or embeds
            or components
            or has_files
            or msg_fields.get("poll")
            or msg_fields.get("sticker_ids")
        ):
            raise ApiError(400, 50006, "Cannot send an empty message")

    def _create_message(
        self,
        channel: FakeChannel,
        payload: dict[str, Any],
        files: list[tuple[str, bytes, str | None]],
        *,
        author: FakeUser | None = None,
        interaction: FakeInteraction | None = None,
        ephemeral: bool = False,
        extra_flags: int = 0,
        allow_empty: bool = False,
    ) -> FakeMessage:
        payload = payload or {}
        self._validate_message(payload, creating=not allow_empty, has_files=bool(files))
        flags = int(payload.get("flags") or 0) & (
            FLAG_SUPPRESS_EMBEDS | FLAG_SUPPRESS_NOTIFICATIONS | FLAG_COMPONENTS_V2
        )
        flags |= extra_flags
        if ephemeral:
            flags |= FLAG_EPHEMERAL
        msg = FakeMessage(
            id=self._snowflake(),
            channel=channel,
            author=author or self.bot,
            content=str(payload.get("content") or ""),
            embeds=list(payload.get("embeds") or []),
            components=list(payload.get("components") or []),
            flags=flags,
            visible_to=interaction.user if (ephemeral and interaction is not None) else None,
            interaction=interaction,
            message_reference=payload.get("message_reference"),
            allowed_mentions=payload.get("allowed_mentions"),
        )
        if interaction is not None:
            msg.webhook_id = self.application_id
            msg.type = 20 if interaction.type == IT_COMMAND else 0
        msg.attachments = self._attachments_for(channel, payload, files, [])
        self._messages[msg.id] = msg
        self._count_message(msg)
        return msg

    def _edit_message(
        self, msg: FakeMessage, payload: dict[str, Any], files: list[tuple[str, bytes, str | None]]
    ) -> None:
        payload = payload or {}
        self._validate_message(payload, creating=False, has_files=bool(files))
        msg.revisions.append(msg.snapshot())
        if "content" in payload:
            msg.content = str(payload["content"] or "")
        if "embeds" in payload:
            msg.embeds = list(payload["embeds"] or [])
        if "components" in payload:
            msg.components = list(payload["components"] or [])
        if "flags" in payload and payload["flags"] is not None:
            keep = msg.flags & (FLAG_EPHEMERAL | FLAG_COMPONENTS_V2)
            msg.flags = keep | (int(payload["flags"]) & (FLAG_SUPPRESS_EMBEDS | FLAG_COMPONENTS_V2))
        if "attachments" in payload or files:
            msg.attachments = self._attachments_for(msg.channel, payload, files, msg.attachments)
        msg.flags &= ~FLAG_LOADING
        msg.edited_ms = int(time.time() * 1000)

    def _message_json(self, msg: FakeMessage) -> dict[str, Any]:
        mentions = []
        for uid in dict.fromkeys(_MENTION_RE.findall(msg.content)):
            user = self.users.get(int(uid))
            if user is not None:
                mentions.append(user.to_json())
        data: dict[str, Any] = {
            "id": str(msg.id),
            "channel_id": str(msg.channel.id),
            "type": msg.type,
            "content": msg.content,
            "author": msg.author.to_json(),
            "attachments": [a.to_json() for a in msg.attachments],
            "embeds": msg.embeds,
            "components": msg.components,
            "mentions": mentions,
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": False,
            "timestamp": _iso(msg.created_ms),
            "edited_timestamp": _iso(msg.edited_ms) if msg.edited_ms else None,
            "flags": msg.flags,
        }
        if msg.reactions:
            data["reactions"] = [
                {
                    "emoji": {"id": None, "name": name},
                    "count": len(users),
                    "count_details": {"burst": 0, "normal": len(users)},
                    "me": self.bot.id in users,
                    "me_burst": False,
                    "burst_colors": [],
                }
                for name, users in msg.reactions.items()
                if users
            ]
        if msg.webhook_id is not None:
            data["webhook_id"] = str(msg.webhook_id)
            data["application_id"] = str(self.application_id)
        if msg.message_reference is not None:
            data["message_reference"] = msg.message_reference
        it = msg.interaction
        if it is not None:
            meta: dict[str, Any] = {
                "id": str(it.id),
                "type": it.type,
                "user": it.user.to_json(),
                "authorizing_integration_owners": it.payload.get(
                    "authorizing_integration_owners", {}
                ),
            }
            if it.response_message is not None and it.response_message is not msg:
                meta["original_response_message_id"] = str(it.response_message.id)
            if it.source_message is not None:
                meta["interacted_message_id"] = str(it.source_message.id)
            data["interaction_metadata"] = meta
        return data

    async def _message_event(self, event: str, msg: FakeMessage) -> None:
        if not self.emit_message_events or msg.ephemeral:
            return
        if msg.channel.is_dm:
            if not self._has_intent(INTENT_DIRECT_MESSAGES):
                return
        elif not self._has_intent(INTENT_GUILD_MESSAGES):
            return
        if event == "MESSAGE_DELETE":
            data: dict[str, Any] = {"id": str(msg.id), "channel_id": str(msg.channel.id)}
            if msg.guild_id:
                data["guild_id"] = str(msg.guild_id)
            await self._emit(event, data)
            return
        data = self._message_json(msg)
        guild = self._guild_of(msg.channel)
        if guild is not None:
            data["guild_id"] = str(guild.id)
            member = guild.members.get(msg.author.id)
            if member is not None:
                data["member"] = member.to_json(with_user=False)
        mentioned = str(self.bot.id) in _MENTION_RE.findall(msg.content)
        if (
            msg.author is not self.bot
            and not msg.channel.is_dm
            and not mentioned
            and not self._has_intent(INTENT_MESSAGE_CONTENT)
        ):
            data.update(content="", embeds=[], attachments=[], components=[])
        await self._emit(event, data)

    async def _created(self, msg: FakeMessage) -> None:
        await self._message_event("MESSAGE_CREATE", msg)
        await self._bump(msg, "create")

    async def _edited(self, msg: FakeMessage) -> None:
        await self._message_event("MESSAGE_UPDATE", msg)
        await self._bump(msg)

    async def _deleted(self, msg: FakeMessage) -> None:
        msg.deleted = True
        await self._message_event("MESSAGE_DELETE", msg)
        await self._bump(msg, "delete")

    # ------------------------------------------------------------------ REST handlers
    def _channel(self, channel_id: str) -> FakeChannel:
        chan = self.channels.get(int(channel_id)) if channel_id.isdigit() else None
        if chan is None:
            raise ApiError(404, 10003, "Unknown Channel")
        return chan

    def _channel_message(self, channel_id: str, message_id: str) -> FakeMessage:
        chan = self._channel(channel_id)
        msg = self._messages.get(int(message_id)) if message_id.isdigit() else None
        if msg is None or msg.channel is not chan or msg.deleted or msg.ephemeral:
            raise ApiError(404, 10008, "Unknown Message")
        return msg

    def _guild(self, guild_id: str) -> FakeGuild:
        guild = self.guilds.get(int(guild_id)) if guild_id.isdigit() else None
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild

    def _check_send(self, chan: FakeChannel, files: list[Any]) -> None:
        if chan.is_dm:
            if chan.recipient is None or not chan.recipient.dms_open or chan.recipient.bot:
                raise ApiError(403, 50007, "Cannot send messages to this user")
            return
        if chan.type == CH_FORUM:  # a forum holds posts (threads), not messages
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        perms = self.channel_permissions(chan, self.bot)
        if not perms & Perm.VIEW_CHANNEL:
            raise ApiError(403, 50001, "Missing Access")
        # "The SEND_MESSAGES permission has no effect in threads" (Discord's Threads topic)
        need = Perm.SEND_MESSAGES_IN_THREADS if chan.is_thread else Perm.SEND_MESSAGES
        if not perms & need:
            raise ApiError(403, 50013, "Missing Permissions")
        if files and not perms & Perm.ATTACH_FILES:
            raise ApiError(403, 50013, "Missing Permissions")

    async def _before_bot_post(self, chan: FakeChannel) -> None:
        """A message the bot posts in a thread (a REST message, or a public interaction
        response or follow-up): refused in a locked thread without Manage Threads (50083);
        an archived thread that is not locked is unarchived by it (THREAD_UPDATE)."""
        if not chan.is_thread:
            return
        if chan.locked and not self.channel_permissions(chan, self.bot) & Perm.MANAGE_THREADS:
            raise ApiError(*THREAD_ARCHIVED)
        if chan.archived:
            chan.archived = False
            chan.archive_ms = int(time.time() * 1000)
            await self._thread_updated(chan)

    def _before_bot_edit(self, msg: FakeMessage) -> None:
        """No edits of public messages in an archived thread, nor (without Manage Threads)
        in a locked one: 50083.  Ephemeral messages are not the thread's."""
        chan = msg.channel
        if not chan.is_thread or msg.ephemeral:
            return
        manage = self.channel_permissions(chan, self.bot) & Perm.MANAGE_THREADS
        if chan.archived or (chan.locked and not manage):
            raise ApiError(*THREAD_ARCHIVED)

    def _count_message(self, msg: FakeMessage) -> None:
        if not msg.ephemeral:
            msg.channel.message_count += 1
            msg.channel.last_message_id = msg.id

    async def _h_gateway_info(self, req: _Req) -> tuple[int, Any]:
        body: dict[str, Any] = {"url": self.gateway_url}
        if req.path.endswith("/bot"):
            body.update(
                shards=1,
                session_start_limit={
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            )
        return 200, body

    async def _h_me(self, req: _Req) -> tuple[int, Any]:
        return 200, {
            **self.bot.to_json(),
            "verified": True,
            "mfa_enabled": False,
            "locale": "en-US",
            "email": None,
        }

    async def _h_app_info(self, req: _Req) -> tuple[int, Any]:
        return 200, {
            "id": str(self.application_id),
            "name": self.bot.name,
            "icon": None,
            "description": "",
            "summary": "",
            "type": None,
            "hook": True,
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": hashlib.sha256(str(self.application_id).encode()).hexdigest(),
            "flags": self._app_flags(),
            "owner": self.owner.to_json(),
            "team": None,
            "bot": self.bot.to_json(),
            "redirect_uris": [],
            "interactions_endpoint_url": None,
            "approximate_guild_count": len(self.guilds),
            "integration_types_config": {"0": {}},
        }

    async def _h_get_user(self, req: _Req, user_id: str) -> tuple[int, Any]:
        user = self.users.get(int(user_id)) if user_id.isdigit() else None
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return 200, user.to_json()

    async def _h_create_dm(self, req: _Req) -> tuple[int, Any]:
        rid = str((req.payload or {}).get("recipient_id", ""))
        user = self.users.get(int(rid)) if rid.isdigit() else None
        if user is None:
            raise _invalid_form("recipient_id", "Value is not snowflake.")
        return 200, self.dm_channel(user).to_json()

    async def _h_get_channel(self, req: _Req, channel_id: str) -> tuple[int, Any]:
        return 200, self._channel(channel_id).to_json()

    async def _h_edit_channel(self, req: _Req, channel_id: str) -> tuple[int, Any]:
        """Modify a thread (Discord's rules: unarchiving needs Manage Threads when it is
        locked; archiving, renaming or locking needs Manage Threads or being its creator;
        ``locked`` always Manage Threads) or a channel's name and topic (Manage Channels)."""
        chan = self._channel(channel_id)
        body = req.payload or {}
        perms = self.channel_permissions(chan, self.bot)
        if not chan.is_thread:
            if chan.is_dm or not perms & Perm.MANAGE_CHANNELS:
                raise ApiError(403, 50013, "Missing Permissions")
            chan.name = body.get("name", chan.name)
            chan.topic = body.get("topic", chan.topic)
            return 200, chan.to_json()
        manage = bool(perms & Perm.MANAGE_THREADS)
        creator = chan.owner_id == self.bot.id
        if "locked" in body and bool(body["locked"]) != chan.locked and not manage:
            raise ApiError(403, 50013, "Missing Permissions")
        if body.get("archived") is False and chan.locked and not (manage or creator):
            raise ApiError(403, 50013, "Missing Permissions")
        if (body.get("archived") is True or "name" in body) and not (manage or creator):
            raise ApiError(403, 50013, "Missing Permissions")
        if chan.archived and body.get("archived") is not False and not manage:
            raise ApiError(*THREAD_ARCHIVED)
        if "name" in body:
            chan.name = str(body["name"])
        if "locked" in body:
            chan.locked = bool(body["locked"])
        if "auto_archive_duration" in body:
            chan.auto_archive_duration = int(body["auto_archive_duration"])
        if "archived" in body and bool(body["archived"]) != chan.archived:
            chan.archived = bool(body["archived"])
            chan.archive_ms = int(time.time() * 1000)
        await self._thread_updated(chan)
        return 200, chan.to_json()

    async def _h_active_threads(self, req: _Req, guild_id: str) -> tuple[int, Any]:
        guild = self._guild(guild_id)
        threads = [
            t.to_json()
            for t in guild.threads.values()
            if not t.archived and self.channel_permissions(t, self.bot) & Perm.VIEW_CHANNEL
        ]
        return 200, {"threads": threads, "members": []}

    async def _h_list_messages(self, req: _Req, channel_id: str) -> tuple[int, Any]:
        chan = self._channel(channel_id)
        msgs = self.messages(chan, include_ephemeral=False)
        if "before" in req.query:
            msgs = [m for m in msgs if m.id < int(req.query["before"])]
        if "after" in req.query:
            msgs = [m for m in msgs if m.id > int(req.query["after"])]
        limit = int(req.query.get("limit", 50))
        if "after" in req.query:
            msgs = msgs[:limit]
        else:
            msgs = msgs[-limit:]
        return 200, [self._message_json(m) for m in reversed(msgs)]

    async def _h_create_message(self, req: _Req, channel_id: str) -> tuple[int, Any]:
        chan = self._channel(channel_id)
        self._check_send(chan, req.files)
        self._validate_message(req.payload or {}, creating=True, has_files=bool(req.files))
        await self._before_bot_post(chan)
        msg = self._create_message(chan, req.payload or {}, req.files)
        await self._created(msg)
        return 200, self._message_json(msg)

    async def _h_typing(self, req: _Req, channel_id: str) -> tuple[int, Any]:
        self._channel(channel_id)
        return 204, None

    async def _h_get_message(self, req: _Req, channel_id: str, message_id: str) -> tuple[int, Any]:
        return 200, self._message_json(self._channel_message(channel_id, message_id))

    async def _h_edit_message(self, req: _Req, channel_id: str, message_id: str) -> tuple[int, Any]:
        msg = self._channel_message(channel_id, message_id)
        if msg.author is not self.bot:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        self._before_bot_edit(msg)
        self._edit_message(msg, req.payload or {}, req.files)
        await self._edited(msg)
        return 200, self._message_json(msg)

    async def _h_delete_message(
        self, req: _Req, channel_id: str, message_id: str
    ) -> tuple[int, Any]:
        msg = self._channel_message(channel_id, message_id)
        chan = msg.channel
        if (
            chan.is_thread
            and chan.archived
            and chan.locked
            and not self.channel_permissions(chan, self.bot) & Perm.MANAGE_THREADS
        ):  # deleting is allowed in an archived thread, in a locked one only while active
            raise ApiError(*THREAD_ARCHIVED)
        await self._deleted(msg)
        return 204, None

    async def _h_add_reaction(
        self, req: _Req, channel_id: str, message_id: str, emoji: str
    ) -> tuple[int, Any]:
        msg = self._channel_message(channel_id, message_id)
        self._before_bot_edit(msg)  # no reactions in archived (or locked) threads
        msg.reactions.setdefault(emoji, set()).add(self.bot.id)
        await self._bump(msg)
        return 204, None

    async def _h_remove_reaction(
        self, req: _Req, channel_id: str, message_id: str, emoji: str
    ) -> tuple[int, Any]:
        msg = self._channel_message(channel_id, message_id)
        msg.reactions.get(emoji, set()).discard(self.bot.id)
        await self._bump(msg)
        return 204, None

    async def _h_get_guild(self, req: _Req, guild_id: str) -> tuple[int, Any]:
        data = self._guild_create_json(self._guild(guild_id))
        for key in (
            "channels",
            "members",
            "threads",
            "presences",
            "voice_states",
            "joined_at",
            "large",
            "unavailable",
        ):
            data.pop(key, None)
        return 200, data

    async def _h_guild_channels(self, req: _Req, guild_id: str) -> tuple[int, Any]:
        return 200, [c.to_json() for c in self._guild(guild_id).channels.values()]

    async def _h_guild_roles(self, req: _Req, guild_id: str) -> tuple[int, Any]:
        return 200, [r.to_json() for r in self._guild(guild_id).roles.values()]

    async def _h_list_members(self, req: _Req, guild_id: str) -> tuple[int, Any]:
        guild = self._guild(guild_id)
        after = int(req.query.get("after", 0))
        limit = int(req.query.get("limit", 1))
        members = sorted(
            (m for m in guild.members.values() if m.user.id > after), key=lambda m: m.user.id
        )
        return 200, [m.to_json() for m in members[:limit]]

    async def _h_get_member(self, req: _Req, guild_id: str, user_id: str) -> tuple[int, Any]:
        guild = self._guild(guild_id)
        member = guild.members.get(int(user_id)) if user_id.isdigit() else None
        if member is None:
            raise ApiError(404, 10007, "Unknown Member")
        return 200, member.to_json()

    def _check_app(self, app_id: str) -> None:
        if app_id != str(self.application_id):
            raise ApiError(403, 50001, "Missing Access")

    async def _h_get_commands(
        self, req: _Req, app_id: str, guild_id: str | None = None
    ) -> tuple[int, Any]:
        self._check_app(app_id)
        scope = int(self._guild(guild_id).id) if guild_id else None
        return 200, list(self.commands.get(scope, {}).values())

    async def _h_put_commands(
        self, req: _Req, app_id: str, guild_id: str | None = None
    ) -> tuple[int, Any]:
        self._check_app(app_id)
        scope = int(self._guild(guild_id).id) if guild_id else None
        if not isinstance(req.payload, list):
            raise _invalid_form("_root", "expected an array of commands")
        if len(req.payload) > 100:
            raise _invalid_form("_root", "Must be 100 or fewer in length.")
        stored: dict[str, dict[str, Any]] = {}
        for i, cmd in enumerate(req.payload):
            name = cmd.get("name", "")
            ctype = cmd.get("type", 1)
            if ctype == 1:
                _check_chat_command(str(i), cmd)
            key = (scope, name, ctype)
            cid = self._command_ids.get(key) or self._snowflake()
            self._command_ids[key] = cid
            out = {
                "default_member_permissions": None,
                "type": 1,
                "nsfw": False,
                "options": [],
                **cmd,
                "id": str(cid),
                "application_id": str(self.application_id),
                "version": str(self._snowflake()),
            }
            if scope is not None:
                out["guild_id"] = str(scope)
            if name in stored and stored[name]["type"] == out["type"]:
                raise _invalid_form(f"{i}.name", "Application command names must be unique")
            stored[name] = out
        self.commands[scope] = stored
        return 200, list(stored.values())

    # -- interactions ---------------------------------------------------------------
    async def _h_callback(self, req: _Req, interaction_id: str, token: str) -> tuple[int, Any]:
        now = time.monotonic()
        rec = self.interactions.get(int(interaction_id)) if interaction_id.isdigit() else None
        if rec is None or rec.token != token:
            raise ApiError(404, 10062, "Unknown interaction")
        if rec.first_callback_at is None:
            rec.first_callback_at = now
            if rec.dispatched_at is not None:
                self.latencies.append(now - rec.dispatched_at)
        if rec.callback_type is not None:
            err = ApiError(400, 40060, "Interaction has already been acknowledged.")
            rec.errors.append(err)
            raise err
        if rec.dispatched_at is None or now - rec.dispatched_at > self.ack_deadline:
            err = ApiError(404, 10062, "Unknown interaction")
            rec.errors.append(err)
            if rec.failure is None:
                late = now - (rec.dispatched_at or now)
                rec.failure = (
                    f"acknowledged after {late:.3f}s (deadline {self.ack_deadline}s): 10062"
                )
            rec._acked.set()
            rec._answered.set()
            await self._bump()
            raise err
        body = req.payload or {}
        ctype = body.get("type")
        data = body.get("data") or {}
        if ctype not in _ALLOWED_CALLBACKS.get(rec.type, set()):
            err = _invalid_form(
                "type", f"callback type {ctype} is not valid for interaction type {rec.type}"
            )
            rec.errors.append(err)
            raise err

        try:
            if rec.channel.is_thread:
                ephemeral = bool(int(data.get("flags") or 0) & FLAG_EPHEMERAL)
                if ctype in (CB_MESSAGE, CB_DEFERRED_MESSAGE) and not ephemeral:
                    await self._before_bot_post(rec.channel)
                elif ctype == CB_UPDATE and rec.source_message is not None:
                    self._before_bot_edit(rec.source_message)
            msg = self._apply_callback(rec, ctype, data, req.files)
        except ApiError as err:
            rec.errors.append(err)
            raise
        rec.callback_type = ctype
        rec.callback_data = data
        rec.ack_at = now
        rec.response_message = msg
        rec._acked.set()
        if ctype not in (CB_DEFERRED_MESSAGE, CB_DEFERRED_UPDATE):
            rec._answered.set()
        if msg is not None and ctype in (CB_MESSAGE, CB_DEFERRED_MESSAGE):
            await self._created(msg)
        elif msg is not None and ctype == CB_UPDATE:
            await self._edited(msg)
        else:
            await self._bump()

        if req.query.get("with_response") not in ("1", "true", "True"):
            return 204, None
        inter: dict[str, Any] = {"id": str(rec.id), "type": rec.type}
        resource: dict[str, Any] = {"type": ctype}
        if msg is not None:
            inter.update(
                response_message_id=str(msg.id),
                response_message_loading=ctype == CB_DEFERRED_MESSAGE,
                response_message_ephemeral=msg.ephemeral,
            )
            if ctype != CB_DEFERRED_UPDATE:
                resource["message"] = self._message_json(msg)
        return 200, {"interaction": inter, "resource": resource}

    def _apply_callback(
        self,
        rec: FakeInteraction,
        ctype: int,
        data: dict[str, Any],
        files: list[tuple[str, bytes, str | None]],
    ) -> FakeMessage | None:
        msg: FakeMessage | None = None
        if ctype == CB_MESSAGE:
            msg = self._create_message(
                rec.channel,
                data,
                files,
                interaction=rec,
                ephemeral=bool(int(data.get("flags") or 0) & FLAG_EPHEMERAL),
            )
        elif ctype == CB_DEFERRED_MESSAGE:
            ephemeral = bool(int(data.get("flags") or 0) & FLAG_EPHEMERAL)
            msg = self._create_message(
                rec.channel,
                {},
                [],
                interaction=rec,
                ephemeral=ephemeral,
                extra_flags=FLAG_LOADING,
                allow_empty=True,
            )
        elif ctype in (CB_DEFERRED_UPDATE, CB_UPDATE):
            msg = rec.source_message
            if msg is None:
                err = _invalid_form("type", "no message to update")
                raise err
            if ctype == CB_UPDATE:
                self._edit_message(msg, data, files)
        elif ctype == CB_MODAL:
            if not data.get("custom_id") or not data.get("title") or not data.get("components"):
                raise _invalid_form("data", "a modal needs custom_id, title and components")
            if len(data["title"]) > 45:
                raise _invalid_form("data.title", "Must be 45 or fewer in length.")
            rec.modal = data
        elif ctype == CB_AUTOCOMPLETE:
            choices = data.get("choices") or []
            if len(choices) > 25:
                raise _invalid_form("data.choices", "Must be 25 or fewer in length.")
            rec.choices = choices

        return msg

    def _webhook_interaction(self, app_id: str, token: str) -> FakeInteraction:
        rec = self._by_token.get(token)
        if app_id != str(self.application_id) or rec is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        if rec.callback_type is None:  # follow-ups need an acknowledged interaction
            raise ApiError(404, 10015, "Unknown Webhook")
        if (
            rec.dispatched_at is not None
            and time.monotonic() - rec.dispatched_at > self.followup_ttl
        ):
            raise ApiError(401, 50027, "Invalid Webhook Token")
        return rec

    def _webhook_message(self, rec: FakeInteraction, message_id: str) -> FakeMessage:
        if message_id == "@original":
            msg = rec.response_message
        else:
            mid = int(message_id) if message_id.isdigit() else -1
            candidates = rec.messages + (
                [rec.source_message] if rec.source_message is not None else []
            )
            msg = next((m for m in candidates if m.id == mid), None)
        if msg is None or msg.deleted:
            raise ApiError(404, 10008, "Unknown Message")
        return msg

    async def _h_followup(self, req: _Req, app_id: str, token: str) -> tuple[int, Any]:
        rec = self._webhook_interaction(app_id, token)
        payload = req.payload or {}
        original = rec.response_message
        if rec.callback_type == CB_DEFERRED_MESSAGE and original is not None and original.loading:
            # the first follow-up after a "thinking" defer replaces the loading message
            self._validate_message(payload, creating=True, has_files=bool(req.files))
            if not original.ephemeral:  # (a thread locked meanwhile refuses it: 50083)
                await self._before_bot_post(original.channel)
            self._edit_message(original, payload, req.files)
            msg = original
            await self._edited(msg)
        else:
            ephemeral = bool(int(payload.get("flags") or 0) & FLAG_EPHEMERAL)
            if not ephemeral:
                await self._before_bot_post(rec.channel)
            msg = self._create_message(
                rec.channel, payload, req.files, interaction=rec, ephemeral=ephemeral
            )
            await self._created(msg)
        rec.followups.append(msg)
        rec._answered.set()
        await self._bump()
        if req.query.get("wait") in ("1", "true", "True"):
            return 200, self._message_json(msg)
        return 204, None

    async def _h_webhook_get(
        self, req: _Req, app_id: str, token: str, message_id: str
    ) -> tuple[int, Any]:
        rec = self._webhook_interaction(app_id, token)
        return 200, self._message_json(self._webhook_message(rec, message_id))

    async def _h_webhook_edit(
        self, req: _Req, app_id: str, token: str, message_id: str
    ) -> tuple[int, Any]:
        rec = self._webhook_interaction(app_id, token)
        msg = self._webhook_message(rec, message_id)
        self._before_bot_edit(msg)
        self._edit_message(msg, req.payload or {}, req.files)
        if message_id == "@original" or msg is rec.response_message:
            rec._answered.set()
        await self._edited(msg)
        return 200, self._message_json(msg)

    async def _h_webhook_delete(
        self, req: _Req, app_id: str, token: str, message_id: str
    ) -> tuple[int, Any]:
        rec = self._webhook_interaction(app_id, token)
        msg = self._webhook_message(rec, message_id)
        if message_id == "@original" or msg is rec.response_message:
            rec._answered.set()
        await self._deleted(msg)
        return 204, None
