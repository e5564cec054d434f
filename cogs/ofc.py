"""The ``/ofc`` slash commands: thin adapters from Discord to the table service."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.service import (
    NO_BUY_INS,
    NO_HANDS_YET,
    NO_RECAP,
    REASON_LENGTH,
    ChannelMuted,
    ServiceError,
    TableService,
    TableState,
    grant_reason,
)
from bot.store import MAX_IDLE_HOURS, PER_HAND_MIN_HANDS
from engine.notation import plural, signed_amount
from engine.rules import OPTION_ALIASES, OPTION_NAMES
from engine.solver import describe_solution
from renderer import (
    HandView,
    LeaderboardView,
    LeaderRow,
    StatsView,
    describe_leaderboard,
    describe_stats,
    render_hand,
    render_leaderboard,
    render_stats,
)

from .presenter import (
    VARIANT_NAMES,
    Presenter,
    for_message,
    md,
    png,
    render,
    result_summary,
    split_message,
    title_of,
)
from .views import (
    DYNAMIC_ITEMS,
    may_view,
    my_hand_line,
    my_hands_view,
    send_panel,
    send_past_hand,
    send_review,
    surrender_view,
)

if TYPE_CHECKING:
    from bot.app import OFCBot

log = logging.getLogger("ofc.cog")

Variant = Literal["ofc", "pineapple", "chinese"]
Scoring = Literal["1-6", "2-4", "1-4", "1-3"]
Level = Literal["easy", "normal", "strong"]
Natural = Literal["six pairs", "three straights", "three flushes", "dragon"]
HELP_TEXT = """\
**Open Face Chinese Poker** — set 13 cards in three rows: top (3), middle (5), bottom (5); \
each row must not beat the one below it, or the board fouls.
**Start**: `/ofc new` opens a table here (`bots:1` to play the AI alone), others `/ofc join`, \
then `/ofc start`.
**Place cards**: the *Open my panel* button (pick cards, press a row, Confirm), or text: \
`/ofc place move:Ah Kd top 7c bottom` (pineapple: `2s discard`; rows top/middle/bottom, \
front/mid/back). Nothing is final until it is confirmed.
**Fantasyland** (QQ+ on top, not fouled) is dealt to you by DM. `/ofc rules` shows this \
table's options.
**After a hand**: *Review my play* under the showdown (or `/ofc review`) compares your \
decisions with the AI's; `/ofc recap` tells how the table is going; `/ofc suggest cards:` \
solves any fantasyland hand.
"""

PERIOD_WORDS = {"day": "last 24 hours", "week": "last 7 days", "month": "last 30 days",
                "all": "all time"}
LEADERBOARD_ROWS = 20
"""Rows a leaderboard draws at most: the top ten and those tied with the tenth (any more of
that tie are counted under it)."""


def _manage(interaction: discord.Interaction) -> bool:
    perms = getattr(interaction, "permissions", None)
    return bool(perms and (perms.manage_guild or perms.administrator))


def _channel_id(interaction: discord.Interaction) -> int:
    if interaction.channel_id is None:
        raise ServiceError("Use this command in a server channel.")
    return interaction.channel_id


def _guild_id(interaction: discord.Interaction) -> int:
    if interaction.guild_id is None:
        raise ServiceError("OFC tables live in server channels; use this command in a server.")
    return interaction.guild_id


def _name(user: discord.abc.User) -> str:
    return getattr(user, "display_name", None) or user.name


def _units_given(amount: int) -> str:
    """``+5 units``, ``−1 unit``: a grant's amount."""
    return signed_amount(amount, "unit")


def _ranks(values: list[float]) -> list[int]:
    """Ranks of values sorted best first, a tie sharing its rank (1, 1, 3)."""
    ranks: list[int] = []
    for i, v in enumerate(values):
        ranks.append(ranks[-1] if i and v == values[i - 1] else i + 1)
    return ranks


def _no_bot_account(user: discord.User | discord.Member) -> None:
    """Another bot's account (a music bot, say) has no balance, stats or grants here: looking
    one up must not open a wallet for it."""
    if user.bot:
        raise ServiceError(f"{md(_name(user))} is a bot account: only members play here, so it "
                           "has no units or stats.")


def _what_to_allow(interaction: discord.Interaction) -> str:
    """What the bot needs to post in the interaction's channel, in the words of Discord's
    settings: in a thread, Send Messages in Threads (Send Messages does nothing there), and
    a private thread takes the bot as a member."""
    channel = interaction.channel
    if isinstance(channel, discord.Thread):
        if channel.type is discord.ChannelType.private_thread:
            return ("add me to this private thread (mention me in it), and check that I may "
                    "attach files here.")
        return ("check that this thread is not locked and that I have the **Send Messages "
                "in Threads** and **Attach Files** permissions here.")
    return "check that I may send messages and attach files here."


def _may_see(interaction: discord.Interaction, t: TableState) -> bool:
    """Whether ``/ofc tables`` lists table ``t`` to the member asking: its players always;
    others when they may view its channel or thread, a private thread excepted (its members
    are not known here), as is a thread the bot has not cached (an archived one)."""
    return t.seat_of_user(interaction.user.id) is not None or may_view(interaction,
                                                                       t.row.channel_id)


def _table_line(t: TableState) -> str:
    """One open table, for ``/ofc tables``: where, what, who and whether a seat is free."""
    seats = ", ".join(md(s.name) + (" (sitting out)" if s.sitting_out and not s.is_bot else "")
                      for s in sorted(t.seats, key=lambda s: s.seat_no))
    if t.row.status == "closing":
        state = "closing"
    elif t.hand is not None:
        state = f"hand #{t.row.hand_no} being played"
    else:
        state = "between hands" if t.row.hand_no else "not started yet"
    free = t.row.max_seats - len(t.seats)
    if t.row.status == "closing":
        room = ""
    elif t.over_max_stake:
        room = f"; {NO_BUY_INS.removeprefix('it ')}"
    else:
        room = f"; {plural(free, 'seat')} free" if free > 0 else "; full"
    # (the stakes a newcomer would play for: a table is practice only while one human plays)
    stakes = title_of(t.rules.variant, t.row.stake, False)
    if t.row.stake:
        stakes += f", buy-in {t.row.buyin}"
    if t.practice:
        stakes += " (practice while one human plays)"
    return (f"<#{t.row.channel_id}> — {stakes} — "
            f"{len(t.seats)}/{t.row.max_seats} seated: {seats or 'nobody'} — {state}{room}")


@app_commands.guild_only()
class OFC(commands.GroupCog, group_name="ofc", group_description="Open Face Chinese Poker"):
    def __init__(self, bot: OFCBot) -> None:
        self.bot = bot
        assert bot.service is not None
        self.service: TableService = bot.service
        self.presenter = Presenter(bot, bot.settings.edit_coalesce)
        self.service.notifier = self.presenter
        super().__init__()

    async def cog_unload(self) -> None:
        await self.presenter.close()

    @commands.Cog.listener()
    async def on_raw_thread_update(self, payload: discord.RawThreadUpdateEvent) -> None:
        """A thread holding a table is open (again): its table message catches up with what
        could not be shown while the thread was archived or locked (edits are refused there,
        and a thread is reopened by a moderator or by a message, the bot's own included)."""
        meta: Any = payload.data.get("thread_metadata") or {}
        if meta.get("archived") or meta.get("locked"):
            return
        try:
            t = self.service.table_in_channel(payload.thread_id)
        except ServiceError:  # no table in this thread
            return
        await self.presenter.table_changed(t)

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        """A table's channel deleted: the table closes, stacks back to balances; so do the
        tables in its threads (discord.py reports the threads it has in its cache as deleted
        too; an archived thread is not there, so each table whose channel the cache lacks is
        looked up).  One whose channel went while the bot was away closes at its next
        message: after a restart, the one saying play resumes."""
        await self._closed_with(self.service.channel_gone, channel.id)
        for t in list(self.service.tables.values()):
            if t.row.guild_id != channel.guild.id or self.bot.get_channel(t.row.channel_id):
                continue
            try:
                await self.bot.fetch_channel(t.row.channel_id)
            except discord.NotFound:  # an archived thread deleted with its parent
                await self._closed_with(self.service.channel_gone, t.row.channel_id)
            except discord.HTTPException:  # (no access now: its next message tells)
                continue

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self._closed_with(self.service.channel_gone, payload.thread_id)

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot was removed from a server (or left it): its tables close."""
        await self._closed_with(self.service.guild_gone, guild.id)

    @staticmethod
    async def _closed_with(close: Callable[[int], Awaitable[object]], some_id: int) -> None:
        try:
            await close(some_id)
        except Exception:  # the database: the service tries again in the background
            log.exception("closing the tables of %s failed", some_id)

    # ---------------------------------------------------------------- tables
    @app_commands.command(name="new", description="Open a table in this channel (you take a seat)")
    @app_commands.describe(
        variant="ofc (classic), pineapple, or chinese (closed)",
        stake="Units per point", buyin="Units you bring to the table (0 at a stake-0 table)",
        seats="Seats at the table (2-4; pineapple 2-3)", scoring="Scoring method",
        fantasyland="Play with fantasyland", timer="Seconds per decision",
        bots="AI players to seat now (one human with bots: practice)",
        level="Strength of the AI players",
    )
    async def new(
        self, interaction: discord.Interaction, variant: Variant = "ofc",
        stake: app_commands.Range[int, 0, 1_000_000] = 1,
        buyin: app_commands.Range[int, 0, 10_000_000] | None = None,
        seats: app_commands.Range[int, 2, 4] | None = None, scoring: Scoring | None = None,
        fantasyland: bool = True, timer: app_commands.Range[int, 10, 600] | None = None,
        bots: app_commands.Range[int, 0, 3] = 0, level: Level = "normal",
    ) -> None:
        t = await self.service.new_table(
            _guild_id(interaction), _channel_id(interaction), interaction.user.id,
            _name(interaction.user), variant=variant, stake=stake, buyin=buyin, seats=seats,
            scoring=scoring, fantasyland=fantasyland, timer=timer, bots=bots, bot_level=level,
        )
        units = plural(t.row.stake, "unit")
        if t.practice:
            extra = " Practice table: no units move. `/ofc start` deals (others may `/ofc join`)."
        else:
            extra = " Join with `/ofc join`, then `/ofc start`."
        await interaction.response.send_message(
            f"🃏 **{md(_name(interaction.user))}** opened "
            f"{'an' if VARIANT_NAMES[variant][0] in 'AEIOU' else 'a'} **{VARIANT_NAMES[variant]}** table "
            f"({variant}): "
            + (f"{units} per point, buy-in {t.row.buyin}" if t.row.stake else "no units")
            + f", {t.row.max_seats} seats."
            f"{extra}"
        )
        try:  # the table exists now: a refused picture must not read as a failed command
            await self.presenter.post_new_table(t)
        except (discord.HTTPException, ChannelMuted) as e:  # (the host is told what to allow)
            log.warning("could not post the table message of table %s: %s", t.id, e)
            where = "thread" if isinstance(interaction.channel, discord.Thread) else "channel"
            await interaction.followup.send(
                f"The table is open, but I could not post its picture in this {where}: "
                + _what_to_allow(interaction), ephemeral=True,
            )
        except Exception:  # e.g. drawing it failed: the table is open all the same
            log.exception("could not post the table message of table %s", t.id)
            await interaction.followup.send(
                "The table is open, but its picture could not be posted just now; it is "
                "tried again with the next change at the table.", ephemeral=True,
            )

    @app_commands.command(name="join", description="Take a seat; the buy-in moves to your stack")
    @app_commands.describe(buyin="Units to bring (default: the table's buy-in)")
    async def join(
        self, interaction: discord.Interaction,
        buyin: app_commands.Range[int, 0, 10_000_000] | None = None,
    ) -> None:
        seat = await self.service.join(
            _guild_id(interaction), _channel_id(interaction), interaction.user.id,
            _name(interaction.user), buyin,
        )
        brought = f" with {plural(seat.stack, 'unit')}" if seat.stack else ""  # (stake 0)
        await interaction.response.send_message(f"🪑 **{md(seat.name)}** sat down{brought}.")

    @app_commands.command(name="leave", description="Leave after this hand; your stack returns")
    async def leave(self, interaction: discord.Interaction) -> None:
        text = await self.service.leave(_channel_id(interaction), interaction.user.id)
        await interaction.response.send_message(text, ephemeral=True)

    @app_commands.command(name="start", description="Deal the first hand (2+ players seated)")
    async def start(self, interaction: discord.Interaction) -> None:
        text = await self.service.start(_channel_id(interaction), interaction.user.id)
        await interaction.response.send_message(f"🃏 {text}")

    @app_commands.command(name="addbot", description="Table host or manager: seat an AI player")
    async def addbot(self, interaction: discord.Interaction, level: Level = "normal") -> None:
        seat = await self.service.add_bot(_channel_id(interaction), interaction.user.id, level,
                                          _manage(interaction))
        await interaction.response.send_message(f"🤖 **{md(seat.name)}** ({level}) sat down.")

    @app_commands.command(name="removebot",
                          description="Table host or manager: take a bot's seat back")
    @app_commands.describe(bot="Which bot (its name or seat number); not needed with one bot")
    async def removebot(self, interaction: discord.Interaction, bot: str | None = None) -> None:
        text = await self.service.remove_bot(_channel_id(interaction), interaction.user.id, bot,
                                             _manage(interaction))
        await interaction.response.send_message(text, ephemeral=True)

    @removebot.autocomplete("bot")
    async def _bots_here(self, interaction: discord.Interaction,
                         current: str) -> list[app_commands.Choice[str]]:
        try:
            t = self.service.table_in_channel(_channel_id(interaction))
        except ServiceError:
            return []
        typed = current.casefold()
        return [app_commands.Choice(name=f"{b.name} (seat {b.seat_no + 1})",
                                    value=str(b.seat_no + 1))
                for b in t.bots if not b.leaving and typed in b.name.casefold()][:25]

    @app_commands.command(name="close", description="Close the table after the current hand")
    async def close(self, interaction: discord.Interaction) -> None:
        text = await self.service.close(
            _channel_id(interaction), interaction.user.id, _manage(interaction)
        )
        await interaction.response.send_message(text)

    @app_commands.command(name="sitout", description="Sit out from the next hand")
    async def sitout(self, interaction: discord.Interaction) -> None:
        text = await self.service.sit_out(_channel_id(interaction), interaction.user.id, True)
        await interaction.response.send_message(text, ephemeral=True)

    @app_commands.command(name="sitin", description="Be dealt in again")
    async def sitin(self, interaction: discord.Interaction) -> None:
        text = await self.service.sit_out(_channel_id(interaction), interaction.user.id, False)
        await interaction.response.send_message(text, ephemeral=True)

    # ---------------------------------------------------------------- playing
    @app_commands.command(name="hand", description="Open your private placement panel")
    async def hand(self, interaction: discord.Interaction) -> None:
        await send_panel(interaction, channel_id=_channel_id(interaction))

    @app_commands.command(name="place", description="Place cards, e.g. 'Ah Kd top 7c bottom 2s discard'")
    @app_commands.describe(move="Cards then a row: top/middle/bottom (or front/mid/back), discard")
    async def place(
        self, interaction: discord.Interaction, move: app_commands.Range[str, 1, 300]
    ) -> None:
        result = await self.service.place_text(_channel_id(interaction), interaction.user.id, move)
        await interaction.response.send_message(f"✅ {result.text}", ephemeral=True)

    @app_commands.command(name="declare", description="Chinese poker: declare a natural")
    async def declare(self, interaction: discord.Interaction, natural: Natural) -> None:
        text = await self.service.declare(_channel_id(interaction), interaction.user.id, natural)
        await interaction.response.send_message(f"✅ {text}", ephemeral=True)

    @app_commands.command(name="surrender", description="Surrender this hand")
    async def surrender(self, interaction: discord.Interaction) -> None:
        t = self.service.table_in_channel(_channel_id(interaction))
        hand_no = self.service.surrender_check(_channel_id(interaction), interaction.user.id)
        cost = self.service.surrender_terms(_channel_id(interaction), interaction.user.id)
        await interaction.response.send_message(
            f"Surrender hand #{hand_no}? {cost[0].upper()}{cost[1:]}. It cannot be taken back.",
            view=surrender_view(t.id, interaction.user.id, hand_no),
            ephemeral=True,
        )

    @app_commands.command(
        name="suggest",
        description="The AI's move for you (practice, fantasyland), or the best setting of cards")
    @app_commands.describe(
        cards="Any fantasyland hand: 13 cards (ofc) or 14-17 (pineapple), e.g. Qh Qd Ks ...",
        variant="With cards: default the table here's game, else by the number of cards")
    async def suggest(self, interaction: discord.Interaction, cards: str | None = None,
                      variant: Literal["ofc", "pineapple"] | None = None) -> None:
        if cards is not None:
            await self._solve(interaction, cards, variant)
            return
        if variant is not None:
            raise ServiceError("`variant` goes with `cards`: the hand to set, e.g. "
                               "`/ofc suggest cards:Qh Qd Ks ... variant:ofc`.")
        await interaction.response.defer(ephemeral=True, thinking=True)
        text = await self.service.suggest(_channel_id(interaction), interaction.user.id)
        await interaction.followup.send(f"💡 {text}", ephemeral=True)

    async def _solve(self, interaction: discord.Interaction, cards: str,
                     variant: Literal["ofc", "pineapple"] | None) -> None:
        """``/ofc suggest cards:``: the exact solver's best setting of a typed fantasyland
        hand, privately, with a picture of the board."""
        rules, solution = await self.service.solve(_channel_id(interaction),
                                                   interaction.user.id, cards, variant)
        view = HandView(name=_name(interaction.user), cards=(), board=solution.board,
                        instruction=f"Best setting · worth {solution.score:g}",
                        fantasyland=True, discards=solution.discards, variant=rules.variant,
                        rules=rules)
        try:  # (in the deck colours of the table here, if there is one)
            here: TableState | None = self.service.table_in_channel(_channel_id(interaction))
        except ServiceError:
            here = None
        data = await render(render_hand, view, here)
        lines = describe_solution(solution, rules)
        text = (f"🧮 The best setting of {len(solution.board) + len(solution.discards)} cards "
                f"({rules.variant}, exact):\n" + "\n".join(lines[:-1])
                + f"\n`{lines[-1].removeprefix('As a move: ')}`")
        await interaction.response.send_message(text, file=png(data, "solution.png", view),
                                                ephemeral=True)

    @app_commands.command(name="table", description="Post the table image again")
    async def table(self, interaction: discord.Interaction) -> None:
        t = self.service.table_in_channel(_channel_id(interaction))
        text, file = await self.presenter.table_payload(t)
        await interaction.response.send_message(  # (names in its code block ping nobody)
            text, file=file, view=self.presenter.table_components(t),
            allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="tables", description="The server's open tables, where to join")
    async def tables(self, interaction: discord.Interaction) -> None:
        shown = [t for t in self.service.open_tables(_guild_id(interaction))
                 if _may_see(interaction, t)]
        if not shown:
            await interaction.response.send_message(
                "No table is open in this server (that you can see): `/ofc new` opens one in "
                "a channel.", ephemeral=True)
            return
        lines = [f"Open tables ({len(shown)}):", *(_table_line(t) for t in shown)]
        first, *rest = split_message("\n".join(lines))
        await interaction.response.send_message(first, ephemeral=True)
        for more in rest:
            await interaction.followup.send(more, ephemeral=True)

    @app_commands.command(name="rules", description="This table's options, in words")
    async def rules(self, interaction: discord.Interaction) -> None:
        lines = self.service.rules_text(_channel_id(interaction))
        await interaction.response.send_message(
            "\n".join(f"• {line}" for line in lines), ephemeral=True
        )

    @app_commands.command(
        name="options", description="Table host or manager: change this table's rules options"
    )
    @app_commands.describe(
        scoring="Scoring method", fantasyland="Play with fantasyland",
        strict_top="Foul unless the top row is strictly below the middle",
        progressive="Pineapple: QQ 14 cards, KK 15, AA 16, trips 17 (off: 14)",
        progressive_stay="Pineapple: Pokermagnet's progressive stay table (14/15 cards)",
        stay_full_house="Stay in fantasyland with a middle full house or better",
        button_stays="The button stays put when the next hand has a fantasyland",
        stay_value="Points a stay in fantasyland counts for the AI (a number, or default)",
        moon="A clean board with a jack-high bottom wins a bonus",
        moon_points="Points the moon wins from each opponent (× stake)",
        bonuses="Chinese: row bonuses (top trips 3, middle full house 2, ...)",
        surrender="Chinese: points a surrender pays each opponent (× stake)",
        six_pairs="Chinese natural's value (0: off)",
        three_straights="Chinese natural's value (0: off)",
        three_flushes="Chinese natural's value (0: off)",
        dragon="Chinese natural's value (0: off)",
        timer="Seconds per decision", set_timer="Seconds for a fantasyland or chinese set",
        away_timer="Seconds a decision after a timeout, until the player acts (0: off)",
        deck="Card colours in the pictures: four or two",
    )
    async def options(
        self, interaction: discord.Interaction, scoring: Scoring | None = None,
        fantasyland: bool | None = None, strict_top: bool | None = None,
        progressive: bool | None = None, progressive_stay: bool | None = None,
        stay_full_house: bool | None = None, button_stays: bool | None = None,
        stay_value: app_commands.Range[str, 1, 10] | None = None, moon: bool | None = None, moon_points: app_commands.Range[int, 0, 1000] | None = None,
        bonuses: bool | None = None, surrender: app_commands.Range[int, 0, 100] | None = None,
        six_pairs: app_commands.Range[int, 0, 100] | None = None,
        three_straights: app_commands.Range[int, 0, 100] | None = None,
        three_flushes: app_commands.Range[int, 0, 100] | None = None,
        dragon: app_commands.Range[int, 0, 100] | None = None,
        timer: app_commands.Range[int, 10, 600] | None = None,
        set_timer: app_commands.Range[int, 10, 1200] | None = None,
        away_timer: app_commands.Range[int, 0, 600] | None = None,
        deck: Literal["four", "two"] | None = None,
    ) -> None:
        given = {  # the parameters are the short names (engine.rules.OPTION_NAMES)
            "scoring": scoring, "fantasyland": fantasyland, "strict_top": strict_top,
            "progressive": progressive, "progressive_stay": progressive_stay,
            "stay_full_house": stay_full_house, "button_stays": button_stays,
            "stay_value": stay_value, "moon": moon,
            "moon_points": moon_points, "bonuses": bonuses, "surrender": surrender,
            "six_pairs": six_pairs, "three_straights": three_straights,
            "three_flushes": three_flushes, "dragon": dragon, "timer": timer,
            "set_timer": set_timer, "away_timer": away_timer,
        }
        assert set(given) == set(OPTION_NAMES)
        changes = {OPTION_ALIASES.get(name, name): value for name, value in given.items()}
        words, later = await self.service.set_options(
            _channel_id(interaction), interaction.user.id, _manage(interaction), deck=deck,
            **changes,
        )
        if not words:
            await interaction.response.send_message(
                "Those are already this table's options: nothing changed.", ephemeral=True)
            return
        when = "rules from the next hand" if later else "now"
        await interaction.response.send_message(
            f"⚙️ **{md(_name(interaction.user))}** changed the table's options ({when}): "
            + "; ".join(words) + "."
        )

    @app_commands.command(
        name="history",
        description="The last hands here (or yours everywhere, or as a file), or one hand's replay")
    @app_commands.describe(count="How many hands (1-25, default 5)",
                           hand="A hand's number: its showdown again and its replay, privately",
                           mine="Your own last hands at every table of this server",
                           file="All your hands in this server as a CSV file")
    async def history(
        self, interaction: discord.Interaction, count: app_commands.Range[int, 1, 25] = 5,
        hand: app_commands.Range[int, 1, 1_000_000_000] | None = None, mine: bool = False,
        file: bool = False,
    ) -> None:
        if file:
            if hand is not None:
                raise ServiceError("`file` holds all your hands: leave out `hand`.")
            await self._export(interaction)
            return
        if mine:
            if hand is not None:
                raise ServiceError("`hand` is a hand of this channel's table: with `mine`, "
                                   "choose one of your hands from the menu under the list.")
            await self._my_hands(interaction, count)
            return
        if hand is not None:
            await self._past_hand(interaction, hand)
            return
        hands, closed, stake = await self.service.history(_channel_id(interaction), count)
        if not hands:
            await interaction.response.send_message(
                "No hand was played at the last table here (it is closed)." if closed
                else "No hand has finished here yet.", ephemeral=True)
            return
        lines = ["The last table here (closed):"] if closed else []
        hint = "`/ofc history hand:<number>` shows a hand's showdown again" + (
            "." if all(row.rules.get("variant") == "chinese" for row, _ in hands)
            else ", and replays it round by round.")  # (a chinese hand, set at once, has none)
        for row, results in hands:
            when = int(row.finished_at or row.created_at)  # shown in each reader's time zone
            # (a stake-0 table's hands: no "0 u" for each)
            parts = [f"{md(r.name)} {result_summary(r, units=bool(stake))}" for r in results]
            practice = " (practice: no units)" if not any(r.counted for r in results) else ""
            lines.append(f"**#{row.number}** <t:{when}:f>{practice} — " + "; ".join(parts))
        first, *rest = split_message("\n".join([*lines, hint]))  # every hand, line by line
        await interaction.response.send_message(first, ephemeral=True)
        for more in rest:
            await interaction.followup.send(more, ephemeral=True)

    async def _my_hands(self, interaction: discord.Interaction, count: int) -> None:
        """``/ofc history mine``: the member's last hands at every table of the server, one
        line each, and a menu that shows any of them again (showdown and replay)."""
        hands = await self.service.player_hands(_guild_id(interaction), interaction.user.id,
                                                count)
        if not hands:
            await interaction.response.send_message(
                NO_HANDS_YET, ephemeral=True)
            return
        lines = [("Your last hand" if len(hands) == 1 else f"Your last {len(hands)} hands")
                 + " in this server, newest first:"]
        lines += [my_hand_line(h) for h in hands]
        chinese = sum(h.variant == "chinese" for h in hands)  # (set at once: no rounds)
        lines.append("Choose one in the menu to see its showdown again" + (
            "." if chinese == len(hands) else " and replay it." if not chinese
            else " and replay it (an ofc or pineapple hand)."))
        guild = interaction.guild
        places = {h.channel_id: channel.name for h in hands if guild is not None and (
            channel := guild.get_channel_or_thread(h.channel_id)) is not None}
        menu = my_hands_view(hands, places)
        first, *rest = split_message("\n".join(lines))
        if rest:  # (the menu goes under the last part)
            await interaction.response.send_message(first, ephemeral=True)
            for more in rest[:-1]:
                await interaction.followup.send(more, ephemeral=True)
            await interaction.followup.send(rest[-1], ephemeral=True, view=menu)
        else:
            await interaction.response.send_message(first, ephemeral=True, view=menu)

    async def _export(self, interaction: discord.Interaction) -> None:
        """``/ofc history file``: the member's hands in this server as a CSV file, privately."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        text, count, more = await self.service.export_hands(_guild_id(interaction),
                                                            interaction.user.id)
        if not count:
            await interaction.followup.send(NO_HANDS_YET, ephemeral=True)
            return
        what = (f"Your last {count:,} hands" if more else
                "Your hand" if count == 1 else f"Your {count:,} hands")
        await interaction.followup.send(
            f"{what} in this server, newest first, one line each (a spreadsheet opens it): "
            "the table and the hand's number there, when (UTC), a link to the channel, the "
            "game, stake and players, your points (and those `/ofc stats` counts) and units, "
            "practice, foul, surrender, royalties, natural, fantasyland earned and your rows "
            "as set. `/ofc history mine` shows your last hands again.",
            file=discord.File(io.BytesIO(text.encode("utf-8")),
                              filename=f"ofc-hands-{interaction.user.id}.csv"),
            ephemeral=True)

    async def _past_hand(self, interaction: discord.Interaction, number: int) -> None:
        """``/ofc history hand``: a settled hand's showdown, image and text, privately, with
        buttons that replay it round by round."""
        await interaction.response.defer(ephemeral=True, thinking=True)  # a query and an image
        past = await self.service.past_hand(_channel_id(interaction), number)
        where = "the last table here (closed)" if past.closed else "this table"
        await send_past_hand(interaction, past, 0,
                             f"Hand #{number} at {where}, <t:{int(past.finished_at)}:f>:")

    @app_commands.command(name="recap", description="How this table went for each player")
    async def recap(self, interaction: discord.Interaction) -> None:
        text = await self.service.recap(_channel_id(interaction))
        if text in NO_RECAP:  # (nothing to show: said to the one who asked)
            await interaction.response.send_message(text, ephemeral=True)
            return
        first, *rest = split_message(text)  # (every player, in as many messages as it takes)
        none = discord.AllowedMentions.none()  # (in the channel, as the leaderboard; the names
        await interaction.response.send_message(first, allowed_mentions=none)  # ping nobody)
        for more in rest:
            await interaction.followup.send(more, allowed_mentions=none)

    @app_commands.command(
        name="review", description="Your play in a finished hand against the AI's")
    @app_commands.describe(hand="A hand's number here (default: your last hand)")
    async def review(
        self, interaction: discord.Interaction,
        hand: app_commands.Range[int, 1, 1_000_000_000] | None = None,
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)  # the AI thinks
        if hand is None:
            found = await self.service.review_last(_guild_id(interaction), interaction.user.id)
        else:
            found = await self.service.review_here(_channel_id(interaction),
                                                   interaction.user.id, hand)
        await send_review(interaction, found)

    # ---------------------------------------------------------------- money and rankings
    @app_commands.command(name="balance", description="Units in your (or someone's) balance")
    async def balance(
        self, interaction: discord.Interaction, user: discord.User | None = None
    ) -> None:
        who = user or interaction.user
        _no_bot_account(who)
        wallet, in_play = await self.service.balance(_guild_id(interaction), who.id, _name(who))
        extra = f" (+{in_play} at tables)" if in_play else ""
        await interaction.response.send_message(
            f"💰 **{md(_name(who))}** has {plural(wallet, 'unit')}{extra}.", ephemeral=True
        )

    @app_commands.command(name="leaderboard", description="The server's best players")
    @app_commands.describe(by="What to rank by (default: units; points per hand: players "
                              f"with {PER_HAND_MIN_HANDS} hands or more)",
                           period="Which hands count (default: all)",
                           variant="One game's hands only (default: every game's)")
    async def leaderboard(
        self, interaction: discord.Interaction,
        by: Literal["units", "points", "hands", "fantasylands", "points_per_hand"] = "units",
        period: Literal["day", "week", "month", "all"] = "all",
        variant: Literal["ofc", "pineapple", "chinese"] | None = None,
    ) -> None:
        # a query over the server's hands and an image: answered at once, posted when ready
        await interaction.response.defer(thinking=True)
        entries = await self.service.leaderboard(_guild_id(interaction), by, period,
                                                 variant=variant)
        guild = interaction.guild.name if interaction.guild else "this server"
        if variant is not None:
            guild += f" {VARIANT_NAMES[variant]}"
        ranks = _ranks([getattr(e, by) for e in entries])
        # the top ten and whoever ties with the tenth, up to LEADERBOARD_ROWS drawn
        shown = entries[:LEADERBOARD_ROWS]
        view = LeaderboardView(
            title=f"{guild} leaderboard", by=by, period=PERIOD_WORDS[period],
            min_hands=PER_HAND_MIN_HANDS,
            rows=tuple(LeaderRow(rank=rank, name=e.name, units=e.units, points=e.points,
                                 hands=e.hands, fantasylands=e.fantasylands)
                       for rank, e in zip(ranks, shown, strict=False)),
            more_tied=len(entries) - len(shown),  # (counted under the rows, picture and text)
        )
        data = await render(render_leaderboard, view)
        # ("1." starting a line is a list Discord numbers again: two tied firsts read 1, 2)
        text = re.sub(r"(?m)^(\d+)\. ", r"\1\\. ", describe_leaderboard(for_message(view)))
        first, *rest = split_message(text)
        await interaction.followup.send(first, file=png(data, "leaderboard.png", view,
                                                        bool(rest)))
        for more_text in rest:  # (long names with markdown: every row still in the text)
            await interaction.followup.send(more_text)

    @app_commands.command(name="stats", description="Hands, points, units, fouls, fantasylands")
    @app_commands.describe(user="Whose stats (default: yours)",
                           variant="One game's hands only (default: every game's)")
    async def stats(
        self, interaction: discord.Interaction, user: discord.User | None = None,
        variant: Literal["ofc", "pineapple", "chinese"] | None = None,
    ) -> None:
        who = user or interaction.user
        _no_bot_account(who)
        await interaction.response.defer(ephemeral=True, thinking=True)  # a query and an image
        st = await self.service.stats(_guild_id(interaction), who.id, _name(who), variant)
        hands = max(st.hands, 1)
        view = StatsView(
            name=_name(who) + (f" · {VARIANT_NAMES[variant]}" if variant else ""),
            hands=st.hands, points=st.points, units=st.units,
            foul_rate=st.fouls / hands if st.hands else 0.0,
            fantasyland_rate=st.fantasylands / hands if st.hands else 0.0,
            balances=tuple(st.balance_history),
        )
        data = await render(render_stats, view)
        await interaction.followup.send(
            describe_stats(for_message(view))[:1990], file=png(data, "stats.png", view),
            ephemeral=True
        )

    @app_commands.command(name="help", description="How to play, and every command")
    async def help(self, interaction: discord.Interaction) -> None:
        commands_ = sorted(self.walk_app_commands(), key=lambda c: c.name)
        listing = "\n".join(f"`/ofc {c.name}` — {c.description}" for c in commands_)
        admin = self.bot.get_cog("OFCAdmin")
        if admin is not None and _manage(interaction):  # the others do not see that group
            listing += "\n**Server managers**\n" + "\n".join(
                f"`/ofc-admin {c.name}` — {c.description}"
                for c in sorted(admin.walk_app_commands(), key=lambda c: c.name))
        first, *rest = split_message(f"{HELP_TEXT}\n**Commands**\n{listing}")
        await interaction.response.send_message(first, ephemeral=True)
        for more in rest:
            await interaction.followup.send(more, ephemeral=True)


@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)
class OFCAdmin(commands.GroupCog, group_name="ofc-admin",
               group_description="OFC server settings and units (Manage Server)"):
    """The commands for server managers, in a group of their own: Discord hides a top-level
    command from members without its default permissions (it ignores them on subcommands, so in
    ``/ofc`` every member saw these).  The service still refuses non-managers (a server may
    open the group to others in its Integrations settings)."""

    def __init__(self, bot: OFCBot) -> None:
        self.bot = bot
        assert bot.service is not None
        self.service: TableService = bot.service
        super().__init__()

    @app_commands.command(name="grant", description="Give (or take back) units: Manage Server")
    async def grant(
        self, interaction: discord.Interaction, user: discord.User,
        amount: app_commands.Range[int, -10_000_000, 10_000_000],
        reason: app_commands.Range[str, 1, REASON_LENGTH] | None = None,
    ) -> None:
        _no_bot_account(user)
        balance = await self.service.grant(
            _guild_id(interaction), interaction.user.id, user.id, _name(user), amount,
            _manage(interaction), reason or "",
        )
        log.info("grant: %s gave %s units to %s in guild %s", interaction.user.id, amount,
                 user.id, interaction.guild_id)
        await interaction.response.send_message(
            f"💰 {_units_given(amount)} for **{md(_name(user))}** (now {balance})"
            f"{' — ' + md(grant_reason(reason).rstrip('.')) if reason else ''}. Logged for audit."
        )

    @app_commands.command(name="audit", description="The last grants of units: Manage Server")
    async def audit(
        self, interaction: discord.Interaction, count: app_commands.Range[int, 1, 25] = 10,
        user: discord.User | None = None,
    ) -> None:
        entries = await self.service.audit(_guild_id(interaction), _manage(interaction), count,
                                           None if user is None else user.id)
        if not entries:
            whom = "" if user is None else f" to **{md(_name(user))}**"
            await interaction.response.send_message(f"No units were granted{whom} yet.",
                                                    ephemeral=True)
            return
        lines = []
        for e in entries:  # (times in each reader's time zone; mentions shown, never pinged)
            # ("grant" was every reason before grants took one)
            why = f" — {md(e.reason)}" if e.reason and e.reason != "grant" else ""
            lines.append(f"<t:{int(e.created_at)}:f> <@{e.by_user_id}> gave "
                         f"{_units_given(e.amount)} to "
                         f"<@{e.user_id}> (balance after: {e.balance_after}){why}")
        none = discord.AllowedMentions.none()
        first, *rest = split_message("\n".join(lines))
        await interaction.response.send_message(first, ephemeral=True, allowed_mentions=none)
        for more in rest:
            await interaction.followup.send(more, ephemeral=True, allowed_mentions=none)

    @app_commands.command(name="settings", description="Server defaults: Manage Server")
    @app_commands.describe(
        start_balance="Units a new player gets", max_stake="Largest stake (units per point)",
        default_buyin="A new table's buy-in", max_buyin="Largest buy-in",
        default_timer="Seconds per decision at a new table",
        idle_hours="A table closes after this many hours with nothing happening (0: never)")
    async def settings(
        self, interaction: discord.Interaction,
        start_balance: app_commands.Range[int, 0, 10_000_000] | None = None,
        max_stake: app_commands.Range[int, 0, 1_000_000] | None = None,
        default_buyin: app_commands.Range[int, 1, 10_000_000] | None = None,
        max_buyin: app_commands.Range[int, 1, 10_000_000] | None = None,
        default_timer: app_commands.Range[int, 10, 600] | None = None,
        idle_hours: app_commands.Range[int, 0, MAX_IDLE_HOURS] | None = None,
    ) -> None:
        s = await self.service.update_settings(
            _guild_id(interaction), _manage(interaction), start_balance=start_balance,
            max_stake=max_stake, default_buyin=default_buyin, max_buyin=max_buyin,
            default_timer=default_timer, idle_hours=idle_hours,
        )
        idle = (f"a table closes after {plural(s.idle_hours, 'hour')} with nothing happening"
                if s.idle_hours else "idle tables stay open")
        await interaction.response.send_message(
            f"⚙️ Start balance {s.start_balance}, max stake {s.max_stake} per point, default buy-in "
            f"{s.default_buyin}, max buy-in {s.max_buyin}, default timer {s.default_timer} s; "
            f"{idle}.",
            ephemeral=True,
        )

    @app_commands.command(name="sync", description="Bot owner: publish the slash commands again")
    async def sync(self, interaction: discord.Interaction) -> None:
        if not await self.bot.is_owner(interaction.user):
            raise ServiceError("Only the bot's owner can sync the commands.")
        await interaction.response.defer(ephemeral=True, thinking=True)
        synced = await self.bot.tree.sync()
        await interaction.followup.send(f"Synced {len(synced)} command group(s).", ephemeral=True)


async def setup(bot: OFCBot) -> None:
    bot.add_dynamic_items(*DYNAMIC_ITEMS)
    await bot.add_cog(OFC(bot))
    await bot.add_cog(OFCAdmin(bot))
