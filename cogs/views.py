"""Persistent components: the table's "Open my panel" button, the private placement panel and
the surrender question.

Every component is a ``DynamicItem`` whose custom_id carries the table, the seat, the hand and
the seat's step, so panels keep working after a restart (state is read from the service) and
a stale click (a decision already taken) is recognised."""

from __future__ import annotations

import logging
import re
import time
from typing import TYPE_CHECKING, Any

import discord

from bot.service import HandReview, PanelState, PastHand, ServiceError, Stale, TableState
from bot.store import PlayerHand
from engine.notation import signed_amount

from .presenter import (
    carries_button,
    hand_view,
    panel_text,
    past_hand_payload,
    png,
    render,
    result_summary,
    retire_closed,
    review_messages,
    server_name,
)

if TYPE_CHECKING:
    from bot.app import OFCBot

log = logging.getLogger("ofc.views")

SUIT_WORDS = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
RANK_WORDS = {"T": "ten", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}


def _bot(interaction: discord.Interaction) -> OFCBot:
    return interaction.client  # type: ignore[return-value]


async def _guard(interaction: discord.Interaction, coro: Any) -> None:
    from bot.app import report_error

    try:
        await coro
    except Exception as e:  # every component error ends as a message, never a failed click
        await report_error(interaction, e)


class OpenPanelButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"ofc:open:(?P<table>\d+)"
):
    def __init__(self, table_id: int) -> None:
        super().__init__(discord.ui.Button(
            label="Open my panel", style=discord.ButtonStyle.primary, emoji="🃏",
            custom_id=f"ofc:open:{table_id}",
        ))
        self.table_id = table_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any
    ) -> OpenPanelButton:
        return cls(int(match["table"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await _guard(interaction, send_panel(interaction, table_id=self.table_id))
        service = _bot(interaction).service
        if service is not None and self.table_id not in service.tables:
            await _retire_closed(interaction.message, self.table_id)


async def _retire_closed(message: discord.Message | None, table_id: int) -> None:
    """The button of a closed table was pressed on a message that still looked live (a table
    message posted while the table was closing, then the bot stopped before marking it; a turn
    ping): it is retired. Only the message that carries this very button (a forged click on
    another message changes nothing)."""
    if message is not None and carries_button(message, table_id):
        await retire_closed(message)


def open_panel_view(table_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(OpenPanelButton(table_id))
    return view


async def send_panel(
    interaction: discord.Interaction, *, table_id: int | None = None,
    channel_id: int | None = None,
) -> None:
    bot = _bot(interaction)
    service = bot.service
    assert service is not None
    if table_id is not None:
        state = service.panel(table_id, interaction.user.id)
    else:
        assert channel_id is not None
        state = service.panel_in_channel(channel_id, interaction.user.id)
    text, file, view = await panel_payload(
        bot, state, note=_closed_thread_note(interaction) or _muted_note(bot, state),
        dm=interaction.guild_id is None)
    await interaction.response.send_message(text, file=file, view=view, ephemeral=True)


def _muted_note(bot: OFCBot, state: PanelState) -> str:
    """The table's channel refused the bot's last message (a permission taken away): the
    player who opens a panel is told why the table is silent."""
    service = bot.service
    assert service is not None
    if not service.channel_muted(state.table_id):
        return ""
    return ("⚠️ The bot cannot post in this channel now (it needs Send Messages, Attach Files "
            "and Embed Links here: a moderator can allow them), so the table plays on without "
            "its messages. Your moves still count.")


def _closed_thread_note(interaction: discord.Interaction) -> str:
    """In a locked thread the buttons still work but the bot cannot post (its table message,
    turn pings and showdowns stop): the player who opens a panel there is told why."""
    channel = interaction.channel
    if (isinstance(channel, discord.Thread) and channel.locked
            and not interaction.app_permissions.manage_threads):
        return ("⚠️ This thread is locked, so the table cannot post here (its picture, turn "
                "pings, showdowns) until a moderator unlocks it. Your moves still count.")
    return ""


async def panel_payload(
    bot: OFCBot, state: PanelState, note: str = "", dm: bool = False
) -> tuple[str, discord.File, discord.ui.View]:
    t, deadline = _panel_table(bot, state)
    hv = hand_view(state, t.rules.variant, deadline, t.rules)
    data = await render(_render_hand, hv, t)
    text, view = panel_text_and_view(bot, state, note, dm)
    return text, png(data, "hand.png", hv), view


def panel_text_and_view(
    bot: OFCBot, state: PanelState, note: str = "", dm: bool = False
) -> tuple[str, discord.ui.View]:
    """The panel's message text and its components (``panel_payload`` without the image;
    ``dm``: the panel is in a DM, so its text says which table it is)."""
    t, deadline = _panel_table(bot, state)
    variant = t.rules.variant
    channel_id, server = (t.row.channel_id, server_name(bot, t)) if dm else (None, "")
    text = panel_text(state, variant, deadline, t.rules, channel_id, server)
    if note:
        text = f"{note}\n{text}"
    return text[:1990], panel_view(state, variant)


def _panel_table(bot: OFCBot, state: PanelState) -> tuple[TableState, float | None]:
    """The panel's table and the deadline of the panel's seat (None: no clock runs)."""
    assert bot.service is not None
    t = bot.service.table(state.table_id)
    hs = t.hand_seat_of(state.seat_no)
    return t, t.deadlines.get(hs) if hs is not None else None


def _render_hand(view: Any, **kw: Any) -> bytes:
    from renderer import render_hand

    return render_hand(view, **kw)


def _card_label(card: Any) -> tuple[str, str]:
    text = str(card)
    rank = RANK_WORDS.get(text[0], text[0])
    return card.pretty, f"{rank} of {SUIT_WORDS[text[1]]}"


def panel_view(state: PanelState, variant: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    req = state.requirement
    if req is None:
        return view
    base = f"{state.table_id}:{state.seat_no}:{state.hand_no}:{state.step}"
    remaining = state.remaining
    if remaining:
        view.add_item(PanelSelect(base, remaining, state.draft.selected))
    for row, (action, label, style, room) in enumerate((
        ("top", "Top", discord.ButtonStyle.secondary, req.free[0]),
        ("middle", "Middle", discord.ButtonStyle.secondary, req.free[1]),
        ("bottom", "Bottom", discord.ButtonStyle.secondary, req.free[2]),
        ("discard", "Discard", discord.ButtonStyle.danger, req.discard),
    )):
        if action == "discard" and req.discard == 0:
            continue
        # (a row its chosen cards fill is dimmed, the discards too once chosen: pressing it
        # could only say it is full)
        full = room <= sum(1 for _, r in state.draft.assigned if r == row)
        view.add_item(PanelButton(base, action, label, style,
                                  disabled=not state.draft.selected or full))
    view.add_item(PanelButton(base, "undo", "Undo", discord.ButtonStyle.secondary,
                              disabled=not (state.draft.selected or state.draft.assigned)))
    ready = len([c for c, r in state.draft.assigned if r < 3]) == req.place
    view.add_item(PanelButton(base, "confirm", "Confirm", discord.ButtonStyle.success,
                              disabled=not ready))
    return view


class PanelButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"ofc:pb:(?P<t>\d+):(?P<s>\d+):(?P<h>\d+):(?P<k>\d+):(?P<a>[a-z]+)",
):
    def __init__(
        self, base: str, action: str, label: str = "",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary, disabled: bool = False,
    ) -> None:
        super().__init__(discord.ui.Button(
            label=label or action.title(), style=style, disabled=disabled,
            custom_id=f"ofc:pb:{base}:{action}",
        ))
        self.base = base
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any
    ) -> PanelButton:
        base = f"{match['t']}:{match['s']}:{match['h']}:{match['k']}"
        return cls(base, match["a"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await _guard(interaction, panel_click(interaction, self.base, self.action))


class PanelSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"ofc:ps:(?P<t>\d+):(?P<s>\d+):(?P<h>\d+):(?P<k>\d+)",
):
    def __init__(self, base: str, cards: list[Any] | None = None,
                 selected: list[Any] | None = None) -> None:
        options = []
        for card in (cards or [])[:25]:
            label, description = _card_label(card)
            options.append(discord.SelectOption(
                label=label, value=str(card), description=description,
                default=card in (selected or []),
            ))
        if not options:
            options = [discord.SelectOption(label="-", value="-")]
        super().__init__(discord.ui.Select(
            custom_id=f"ofc:ps:{base}", placeholder="Pick the cards to place…",
            min_values=1, max_values=len(options), options=options,
        ))
        self.base = base

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any
    ) -> PanelSelect:
        return cls(f"{match['t']}:{match['s']}:{match['h']}:{match['k']}")

    async def callback(self, interaction: discord.Interaction) -> None:
        data: Any = interaction.data or {}
        values = [str(v) for v in data.get("values", [])]
        await _guard(interaction, panel_click(interaction, self.base, "pick", values))


def _menu_cards(message: discord.Message | None) -> set[str] | None:
    """The cards the panel message's menu offers (those its picture leaves to place)."""
    for row in message.components if message is not None else ():
        for item in getattr(row, "children", ()):
            if str(getattr(item, "custom_id", "")).startswith("ofc:ps:"):
                return {option.value for option in item.options}
    return None


async def panel_click(
    interaction: discord.Interaction, base: str, action: str, values: list[str] | None = None
) -> None:
    bot = _bot(interaction)
    service = bot.service
    assert service is not None
    table_id, seat_no, hand_no, step = (int(x) for x in base.split(":"))
    dm = interaction.guild_id is None  # (a fantasyland hand by DM: its text names the table)
    try:
        state, message = await service.panel_action(
            table_id, interaction.user.id, seat_no, hand_no, step, action, values or ()
        )
    except Stale as e:
        try:
            current = service.panel(table_id, interaction.user.id, seat_no)
        except ServiceError:
            await interaction.response.edit_message(content=f"⚠️ {e}", attachments=[], view=None)
            return
        text, file, view = await panel_payload(bot, current, note=f"⚠️ {e}", dm=dm)
        await interaction.response.edit_message(content=text, attachments=[file], view=view)
        return
    if state is None:
        await interaction.response.edit_message(content=f"✅ {message}", attachments=[],
                                                view=None)
        return
    note = f"✅ {message}" if message else ""
    if action == "pick" and _menu_cards(interaction.message) == {str(c) for c in state.remaining}:
        # a pick changes only the selection, which the text shows and the image does not: the
        # image stays (a quarter of the hand images drawn under load were these), unless the
        # draft changed since it was drawn (another panel of the same player: its menu then
        # offers other cards than the draft leaves)
        text, view = panel_text_and_view(bot, state, note, dm)
        await interaction.response.edit_message(content=text, view=view)
        return
    text, file, view = await panel_payload(bot, state, note=note, dm=dm)
    await interaction.response.edit_message(content=text, attachments=[file], view=view)


class SurrenderButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"ofc:sur:(?P<t>\d+):(?P<u>\d+):(?P<h>\d+):(?P<a>yes|no)",
):
    """``/ofc surrender`` asks first (a surrender cannot be taken back): *Yes, surrender* or
    *Keep playing*.  Persistent like the panel: a click after a restart, or minutes later,
    still gets its answer; the table and hand are in the custom_id, so a question that
    outlived its hand (or its table: a new one in the channel counts its hands from 1 again)
    does nothing and says so."""

    def __init__(self, table_id: int, user_id: int, hand_no: int, answer: str) -> None:
        yes = answer == "yes"
        super().__init__(discord.ui.Button(
            label="Yes, surrender" if yes else "Keep playing",
            style=discord.ButtonStyle.danger if yes else discord.ButtonStyle.secondary,
            emoji="🏳️" if yes else None,
            custom_id=f"ofc:sur:{table_id}:{user_id}:{hand_no}:{answer}",
        ))
        self.table_id, self.user_id, self.hand_no, self.answer = (
            table_id, user_id, hand_no, answer)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any
    ) -> SurrenderButton:
        return cls(int(match["t"]), int(match["u"]), int(match["h"]), match["a"])

    async def callback(self, interaction: discord.Interaction) -> None:
        async def run() -> None:
            if interaction.user.id != self.user_id:
                raise ServiceError("This question was asked to another player.")
            text = "You play on."
            if self.answer == "yes":
                service = _bot(interaction).service
                assert service is not None
                text = "🏳️ " + await service.surrender(
                    interaction.channel_id or 0, self.user_id, self.hand_no, self.table_id)
            await interaction.response.edit_message(content=text, view=None)

        await _guard(interaction, run())


def surrender_view(table_id: int, user_id: int, hand_no: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for answer in ("yes", "no"):
        view.add_item(SurrenderButton(table_id, user_id, hand_no, answer))
    return view


_REPLAY_LABELS = {"f": "⏪ Replay: round 1", "p": "◀ Round {}", "n": "Round {} ▶",
                  "s": "🏁 Showdown"}


class ReplayButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"ofc:rp:(?P<t>\d+):(?P<h>\d+):(?P<f>\d+):(?P<r>[fpns])",
):
    """A past hand's replay (``/ofc history hand``): shows frame ``f`` of hand ``h`` of
    table ``t`` in the message (0: the showdown, 1...: the table after that round).  The
    custom_id holds everything, so the buttons work after a restart and in a channel that has
    another table since."""

    def __init__(self, table_id: int, hand_no: int, frame: int, role: str,
                 disabled: bool = False) -> None:
        # (dimmed at either end, it still says what it is: "◀ No earlier round")
        label = ({"p": "◀ No earlier round", "n": "No later round ▶"}[role] if disabled
                 else _REPLAY_LABELS[role].format(frame))
        super().__init__(discord.ui.Button(
            label=label, style=discord.ButtonStyle.secondary, disabled=disabled,
            custom_id=f"ofc:rp:{table_id}:{hand_no}:{frame}:{role}",
        ))
        self.table_id, self.hand_no, self.frame = table_id, hand_no, frame

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any
    ) -> ReplayButton:
        return cls(int(match["t"]), int(match["h"]), int(match["f"]), match["r"])

    async def callback(self, interaction: discord.Interaction) -> None:
        async def run() -> None:
            past = await past_hand_for(interaction, self.table_id, self.hand_no)
            frame = min(self.frame, len(past.rounds))
            heading = _kept_heading(interaction, past) or _replay_heading(interaction, past)
            texts, file = await past_hand_payload(past, frame, heading)
            await interaction.response.edit_message(
                content=texts[0], attachments=[file], view=replay_view(past, frame))
            for more in texts[1:]:  # (a long showdown: the rest follows, as it did at first)
                await interaction.followup.send(more, ephemeral=True)

        await _guard(interaction, run())


def _kept_heading(interaction: discord.Interaction, past: PastHand) -> str | None:
    """The heading of the message a replay's button edits, kept as it was (``/ofc history
    hand`` said "at this table", the menu of ``/ofc history mine`` the channel)."""
    content = interaction.message.content if interaction.message is not None else ""
    first = re.sub(r" — round \d+ of \d+ \(replay\):$", ":", content.split("\n", 1)[0])
    return first if re.fullmatch(rf"Hand #{past.result.hand_no}[ ,].*:", first) else None


def _replay_heading(interaction: discord.Interaction, past: PastHand) -> str:
    """The line above a past hand shown by a button or a menu: its number, where it was
    played when that is not where the member asks from, and when."""
    return (f"Hand #{past.result.hand_no}{_elsewhere(interaction, past.channel_id)}, "
            f"<t:{int(past.finished_at)}:f>:")


def _elsewhere(interaction: discord.Interaction, channel_id: int) -> str:
    """`` at #channel`` when the hand was played in another channel than the one asking."""
    return "" if interaction.channel_id == channel_id else f" at <#{channel_id}>"


class ReplayFromShowdown(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"ofc:rps:(?P<t>\d+):(?P<h>\d+)",
):
    """*Replay* under a showdown posted in the channel: the hand's first round to whoever
    clicks, privately, with the replay's buttons (the public message stays as it is)."""

    def __init__(self, table_id: int, hand_no: int) -> None:
        super().__init__(discord.ui.Button(
            label="Replay", emoji="⏪", style=discord.ButtonStyle.secondary,
            custom_id=f"ofc:rps:{table_id}:{hand_no}",
        ))
        self.table_id, self.hand_no = table_id, hand_no

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any
    ) -> ReplayFromShowdown:
        return cls(int(match["t"]), int(match["h"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def run() -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            past = await past_hand_for(interaction, self.table_id, self.hand_no)
            await send_past_hand(interaction, past, min(1, len(past.rounds)),
                                 _replay_heading(interaction, past))

        await _guard(interaction, run())


class ReviewButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"ofc:rv:(?P<t>\d+):(?P<h>\d+)",
):
    """*Review my play* under a showdown (posted, or shown again by ``/ofc history hand``):
    the clicking member's own decisions in that hand against the AI's, privately."""

    def __init__(self, table_id: int, hand_no: int) -> None:
        super().__init__(discord.ui.Button(
            label="Review my play", emoji="🧠", style=discord.ButtonStyle.secondary,
            custom_id=f"ofc:rv:{table_id}:{hand_no}",
        ))
        self.table_id, self.hand_no = table_id, hand_no

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any
    ) -> ReviewButton:
        return cls(int(match["t"]), int(match["h"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def run() -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            service = _bot(interaction).service
            assert service is not None
            found = await service.review_at(interaction.guild_id or 0, interaction.user.id,
                                            self.table_id, self.hand_no)
            await send_review(interaction, found)

        await _guard(interaction, run())


def review_heading(interaction: discord.Interaction, found: HandReview) -> str:
    """The line above a review: the hand, where it was played when that is not where the
    member asks from, and when."""
    where = _elsewhere(interaction, found.channel_id)
    return (f"🧠 **Your play in hand #{found.number}**{where}, <t:{int(found.finished_at)}:f> "
            f"({found.review.variant}), against the AI's:")


async def send_review(interaction: discord.Interaction, found: HandReview) -> None:
    """A review as private follow-ups of a deferred interaction."""
    for text in review_messages(found, review_heading(interaction, found)):
        await interaction.followup.send(text, ephemeral=True)


async def past_hand_for(interaction: discord.Interaction, table_id: int,
                        number: int) -> PastHand:
    """Hand ``number`` of table ``table_id`` of this server, for the member asking (a replay's
    button, the menu of ``/ofc history mine``): shown to those who played it, to those asking
    from its channel or thread (a private thread's members too), and to those who may view
    it (not a private thread, whose members are not known here, nor a channel deleted
    since).  Buttons and menus name only such hands, but their values come from the member's
    client."""
    service = _bot(interaction).service
    assert service is not None
    past = await service.past_hand_at(interaction.guild_id or 0, table_id, number)
    if (interaction.user.id in past.players or interaction.channel_id == past.channel_id
            or may_view(interaction, past.channel_id)):
        return past
    raise ServiceError("That hand was played where you cannot see it.")


def may_view(interaction: discord.Interaction, channel_id: int) -> bool:
    """Whether the member asking may view the channel or thread ``channel_id``: never a
    private thread (its members are not known here) nor a channel or thread the bot has not
    cached (deleted, or an archived thread)."""
    guild, user = interaction.guild, interaction.user
    channel = guild.get_channel_or_thread(channel_id) if guild is not None else None
    if channel is None or not isinstance(user, discord.Member):
        return False
    if isinstance(channel, discord.Thread) and (
            channel.type is discord.ChannelType.private_thread):
        return False
    try:
        return bool(channel.permissions_for(user).view_channel)
    except discord.ClientException:  # (a thread whose parent channel is not cached)
        return False


async def send_past_hand(interaction: discord.Interaction, past: PastHand, frame: int,
                         heading: str) -> None:
    """A past hand's showdown (``frame`` 0) or a round of its replay as private follow-ups
    of a deferred interaction, the replay's buttons under the first."""
    texts, file = await past_hand_payload(past, frame, heading)
    view = replay_view(past, frame)
    if view is None:
        await interaction.followup.send(texts[0], file=file, ephemeral=True)
    else:
        await interaction.followup.send(texts[0], file=file, ephemeral=True, view=view)
    for more in texts[1:]:
        await interaction.followup.send(more, ephemeral=True)


def showdown_buttons(table_id: int, hand_no: int, replayable: bool = True) -> discord.ui.View:
    """The buttons under a showdown posted in the channel: its replay (a hand played round
    by round) and the review of the clicking member's play."""
    view = discord.ui.View(timeout=None)
    if replayable:
        view.add_item(ReplayFromShowdown(table_id, hand_no))
    view.add_item(ReviewButton(table_id, hand_no))
    return view


def replay_view(past: PastHand, frame: int) -> discord.ui.View | None:
    """The buttons under a past hand's showdown (``frame`` 0: its replay, for a hand played
    round by round, and the review of the member's play) or round ``frame`` of its replay."""
    n = len(past.rounds)
    t, h = past.table_id, past.result.hand_no
    view = discord.ui.View(timeout=None)
    if frame == 0:
        if n:
            view.add_item(ReplayButton(t, h, 1, "f"))
        view.add_item(ReviewButton(t, h))
        return view
    if not n:
        return None
    view.add_item(ReplayButton(t, h, max(frame - 1, 1), "p", disabled=frame <= 1))
    view.add_item(ReplayButton(t, h, min(frame + 1, n), "n", disabled=frame >= n))
    view.add_item(ReplayButton(t, h, 0, "s"))
    return view


def my_hand_line(h: PlayerHand) -> str:
    """One line of ``/ofc history mine``: the hand, where and when, and how it went for the
    player (the time in each reader's time zone)."""
    return (f"**#{h.number}** in <#{h.channel_id}> · {h.variant} · <t:{int(h.finished_at)}:f>"
            f" — {result_summary(h.result, practice=' (practice)', units=bool(h.stake))}")


class MyHandsSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"ofc:mh"):
    """The menu under ``/ofc history mine``: the chosen hand's showdown again, privately, with
    its replay's buttons (works after a restart: each option names its table and hand)."""

    def __init__(self, hands: list[PlayerHand] | None = None,
                 places: dict[int, str] | None = None) -> None:
        places = places or {}
        options = [discord.SelectOption(
            label=f"#{h.number} · {h.variant} · {signed_amount(h.result.points, 'pt')}",
            value=f"{h.table_id}:{h.number}",
            description=(f"#{places[h.channel_id][:40]} · " if h.channel_id in places else "")
            + time.strftime("%d %b %Y, %H:%M UTC", time.gmtime(h.finished_at)),
        ) for h in (hands or [])][:25]
        super().__init__(discord.ui.Select(
            custom_id="ofc:mh", placeholder="Show one of these hands again…",
            options=options or [discord.SelectOption(label="-", value="-")],
        ))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any
    ) -> MyHandsSelect:
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        data: Any = interaction.data or {}
        values = [str(v) for v in data.get("values", [])]

        async def run() -> None:
            chosen = re.fullmatch(r"([0-9]{1,50}):([0-9]{1,50})", values[0] if values else "")
            if chosen is None:
                raise ServiceError("Choose a hand in the menu.")
            past = await past_hand_for(interaction, int(chosen[1]), int(chosen[2]))
            # the hand comes as a message of its own; then the menu's message is sent again as
            # it is, which clears the choice: the same hand can be chosen again (Discord sends
            # nothing for the choice a menu shows)
            await interaction.response.defer()
            await send_past_hand(interaction, past, 0, f"Hand #{past.result.hand_no} at "
                                 f"<#{past.channel_id}>, <t:{int(past.finished_at)}:f>:")
            if interaction.message is not None:
                await interaction.edit_original_response(view=self.again(interaction.message))

        await _guard(interaction, run())

    @classmethod
    def again(cls, message: discord.Message) -> discord.ui.View:
        """The menu of ``message`` as it is, made of this dynamic item again (a plain copy,
        ``View.from_message``, is a ``Select`` that discord.py keeps for good, and whose
        timeout unregistered every other history menu)."""
        view = discord.ui.View(timeout=None)
        item = cls()
        for copied in discord.ui.View.from_message(message, timeout=None).children:
            if isinstance(copied, discord.ui.Select):
                item.item.options = list(copied.options)
        view.add_item(item)
        return view


def my_hands_view(hands: list[PlayerHand], places: dict[int, str] | None = None,
                  ) -> discord.ui.View:
    """The menu under ``/ofc history mine``; ``places``: channel names by id (each option
    says where, when the bot knows the channel)."""
    view = discord.ui.View(timeout=None)
    view.add_item(MyHandsSelect(hands, places))
    return view


DYNAMIC_ITEMS = (OpenPanelButton, PanelButton, PanelSelect, SurrenderButton, ReplayButton,
                 ReplayFromShowdown, ReviewButton, MyHandsSelect)
