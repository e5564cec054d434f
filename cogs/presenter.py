"""Turns service state into renderer views, and implements the service's Notifier on Discord."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import logging
import re
import time
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord

from bot.service import (
    CLOSE_AFTER,
    CLOSE_UNMARKED,
    NO_BUY_INS,
    ChannelGone,
    ChannelMuted,
    HandReview,
    PanelState,
    PastHand,
    ShowdownResult,
    TableService,
    TableState,
)
from bot.stopping import stop_tasks
from bot.store import HandResult
from engine import Board, Hand, Rules
from engine.board import ROW_SIZES, ROWS
from engine.cards import cards_from_json, cards_text
from engine.hand import Requirement
from engine.notation import signed, signed_amount
from engine.review import describe_review
from renderer import (
    HandView,
    LeaderboardView,
    SeatView,
    ShowdownView,
    StatsView,
    TableView,
    Theme,
    alt_text,
    describe_showdown,
    describe_table,
    render_hand,
    render_showdown,
    render_table,
)
from renderer.alt import Picture
from renderer.boardview import live_royalties
from renderer.common import text_labels

if TYPE_CHECKING:
    from bot.app import OFCBot

log = logging.getLogger("ofc.presenter")
CLOSE_WAIT = 5.0
"""Seconds ``Presenter.close`` waits for the table-message edits under way to stop."""
CLOSED_TABLE = "🔒 This table is closed. `/ofc new` opens another."
"""What a closed table's message says (its picture stays, its button goes)."""
PING_SWEEP = 50
"""Messages of the channel looked through for a table's old turn pings after a restart."""
MARKED_KEPT = 4096
"""Closed table messages remembered as marked (a late edit of one marks it again: harmless)."""


def _lock(locks: weakref.WeakValueDictionary[int, asyncio.Lock], table_id: int) -> asyncio.Lock:
    """The table's lock in ``locks``: the one held or awaited now, else a new one (a lock
    nobody holds or awaits is dropped from ``locks``: nothing is kept per table)."""
    lock = locks.get(table_id)
    if lock is None:
        locks[table_id] = lock = asyncio.Lock()
    return lock


async def retire_closed(message: discord.Message) -> None:
    """A message of a closed table that still looks live: a table message says it is closed
    (its picture stays, its button goes), a turn ping is deleted."""
    try:
        if message.attachments:
            await message.edit(content=CLOSED_TABLE, view=None)
        else:
            await message.delete()
    except discord.HTTPException:
        log.debug("could not retire message %s of a closed table", message.id)


def carries_button(message: discord.Message, table_id: int) -> bool:
    """``message`` has table ``table_id``'s "Open my panel" button."""
    button = f"ofc:open:{table_id}"
    return any(getattr(item, "custom_id", None) == button
               for row in message.components for item in getattr(row, "children", ()))


# What discord.py's escape_markdown escapes, but each bracket on its own: its masked-link
# pattern (``\[.+\]\(.+\)``) is greedy and escapes only the first "[" of what it spans, so
# "[a](b) **bold** [c](d)" kept the bold between two links live.
_MARKDOWN = re.compile(r"[_\\~|*`\[\]<]|^>(?:>>)?\s|^#{1,3}|^\s*-", re.MULTILINE)


def md(text: str) -> str:
    """A player's text in a message, shown as typed: no markdown (``*``, ``_``, ``||``, ``#``,
    masked links), no mentions (``@everyone``, ``<@id>``) and nothing Discord draws from
    ``<...>`` (a timestamp ``<t:0:R>``, a channel ``<#id>``, a custom emoji)."""
    return _MARKDOWN.sub(lambda m: "\\" + m.group(0), discord.utils.escape_mentions(text))


def split_message(text: str, limit: int = 1990) -> list[str]:
    """``text`` in messages of at most ``limit`` characters, cut between lines (a line longer
    than that alone is cut)."""
    out: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > limit:
            if current:
                out.append(current)
                current = ""
            out.append(line[:limit])
            line = line[limit:]
        if current and len(current) + 1 + len(line) > limit:
            out.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    out.append(current)
    return out


def review_messages(found: HandReview, heading: str, limit: int = 1990) -> list[str]:
    """A hand's review (``TableService.review_at``) in messages: ``heading``, its summary,
    each decision in a code block (one per message when they do not fit in one), then what
    the values mean."""
    text = describe_review(found.review)
    messages = [f"{heading}\n{text.summary}"]
    decisions: list[list[str]] = []  # (a decision: its unindented line and those under it)
    for line in text.decisions:
        if not decisions or not line.startswith(" "):
            decisions.append([])
        decisions[-1].append(line)
    fence = len("\n```\n") + len("\n```")
    block: list[str] = []
    for lines in decisions:
        if block and len(messages[-1]) + fence + len("\n".join(block + lines)) > limit:
            messages[-1] += "\n```\n" + "\n".join(block) + "\n```"
            messages.append("")
            block = []
        block += lines
    if block:
        messages[-1] += "\n```\n" + "\n".join(block) + "\n```"
    for note in text.notes:
        line = f"-# {note}"
        if len(messages[-1]) + len(line) + 1 > limit:
            messages.append(line)
        else:
            messages[-1] += "\n" + line
    return [m.strip("\n") for m in messages]


def in_code(text: str) -> str:
    """A player's text inside a code block: only a fence could break it."""
    return text.replace("`", "ˋ")


def for_message(view: Any) -> Any:
    """The view with its player names made safe for its text twin in a message (the images
    keep the names as typed).  A table's text goes in a code block; the others are markdown.
    The table's text has no "0:42 left": the message is not edited each second, so it would go
    stale (its status line says when time runs out with a timestamp every client counts down)."""
    if isinstance(view, TableView):
        return replace(view, seats=tuple(replace(s, name=in_code(s.name), time_left=None)
                                         for s in view.seats))
    if isinstance(view, ShowdownView):
        return replace(view, names=tuple(md(n) for n in view.names), title=md(view.title))
    if isinstance(view, LeaderboardView):
        return replace(view, title=md(view.title),
                       rows=tuple(replace(r, name=md(r.name)) for r in view.rows))
    assert isinstance(view, StatsView)
    return replace(view, name=md(view.name))


VARIANT_NAMES = {"ofc": "Open Face", "pineapple": "Pineapple", "chinese": "Chinese poker"}
ROW_LABELS = ("top", "middle", "bottom", "discard")


def table_title(t: TableState, practice: bool | None = None) -> str:
    """``practice``: of the hand shown (a showdown's, when the seats have changed since)."""
    return title_of(t.rules.variant, t.row.stake, t.practice if practice is None else practice)


def title_of(variant: str, stake: int, practice: bool) -> str:
    name = VARIANT_NAMES.get(variant, variant)
    if practice:
        return f"{name} · practice"
    if not stake:
        return f"{name} · no units"
    return f"{name} · {stake} unit{'s' if stake != 1 else ''}/pt"


def deal_failed(t: TableState) -> str:
    """The table's note while its next deal fails on the database (a closing table's start is
    refused: it deals its last hand on its own)."""
    text = "The next hand could not be dealt (a database error): trying again"
    return text + ("." if t.row.status == "closing" else "; /ofc start deals it now.")


def table_view(t: TableState, now: float | None = None) -> TableView:
    now = time.time() if now is None else now
    hand = t.hand
    view = hand.view_for(None) if hand is not None else None
    seats = []
    for seat in t.seats:
        hs = t.hand_seat_of(seat.seat_no) if hand is not None else None
        status = f"bot ({seat.bot_level})" if seat.is_bot else ""
        if seat.leaving:
            status = "leaving"
        elif TableService.is_broke(t, seat) and not seat.sitting_out:
            # (not dealt in until `/ofc join` again; a closing table takes no buy-in)
            status = "buy in to play" if t.takes_buy_ins else "no units left"
        board = Board()
        hidden = 0
        last: tuple[Any, ...] = ()
        fantasy = False
        is_turn = False
        time_left = None
        if hand is not None and view is not None and hs is not None:
            sv = view["seats"][hs]
            board = Board.from_json(sv["board"])
            hidden = sv["hidden_cards"]
            last = tuple(cards_from_json(sv["last_placed"]))
            fantasy = bool(sv["fantasyland"])
            if sv["surrendered"]:
                status = "surrendered"
            elif sv["done"] and hidden:
                status = "set"
            is_turn = hs in hand.to_act()
            if is_turn and hs in t.deadlines and not seat.is_bot:  # (a bot's clock, a safety
                time_left = max(0, int(t.deadlines[hs] - now))  # net, is not shown)
        elif hand is not None and hs is None:
            status = "sitting out" if seat.sitting_out else (status or "next hand")
        seats.append(SeatView(
            name=seat.name, board=board,  # (a stake-0 table's stacks are no units: not shown)
            stack=None if seat.is_bot or not t.row.stake else seat.stack,
            hidden=hidden, is_button=hand is not None and hs == hand.button,
            is_turn=is_turn, time_left=time_left, last_placed=last, fantasyland=fantasy,
            sitting_out=seat.sitting_out, status=status, number=seat.seat_no + 1,
        ))
    notes = []
    if t.row.status == "closing":
        notes.append(("This table closes after this hand (or the fantasyland hand it earns)."
                      if t.row.extra.get(CLOSE_AFTER) == t.row.hand_no and t.table_rules.has_fantasyland
                      else "This table closes after this hand.") if hand is not None
                     else "This table is closing.")
    if t.practice:
        notes.append("Practice table: no units move, nothing counts in the leaderboard.")
    if not notes and hand is None:
        notes.append(deal_failed(t) if t.deal_failed
                     else "Waiting for players: /ofc join (or /ofc addbot)." if t.waiting
                     else "Waiting for the next deal." if t.row.hand_no
                     else "Use /ofc join, then /ofc start.")
    note = " ".join(notes)
    return TableView(
        title=table_title(t), variant=t.rules.variant, seats=tuple(seats),
        street=hand.street if hand is not None else 0,
        streets=_rounds(hand) if hand is not None else 0, hand_no=t.row.hand_no, note=note,
        rules=t.rules,
    )


def hand_view(p: PanelState, variant: str, deadline: float | None = None,
              rules: Rules | None = None) -> HandView:
    """The private panel's view; ``rules``: the table's (a board fouled by ``strict_top`` then
    shows no royalties)."""
    req = p.requirement
    selected = tuple((c, ROW_LABELS[r]) for c, r in p.draft.assigned)
    return HandView(
        name=p.name, cards=req.shown if req else (), board=p.board, selected=selected,
        instruction=req.describe() if req else p.waiting_for, fantasyland=p.fantasyland,
        discards=p.discards,
        time_left=None if deadline is None else max(0, int(deadline - time.time())),
        variant=variant, rules=rules, number=p.seat_no + 1,
    )


def _rows_with_choices(p: PanelState) -> list[str]:
    """The panel's board, row by row, with the cards chosen for a row before Confirm counted in
    its room (``top: - + chosen Qh Qd Qs (3/3)``), as its picture draws them there."""
    out = p.board.describe_rows()
    for r, (name, row, size) in enumerate(zip(ROWS, p.board.rows, ROW_SIZES, strict=True)):
        chosen = [c for c, to in p.draft.assigned if to == r]
        if chosen:
            out[r] = (f"{name}: {cards_text(row) or '-'} + chosen {cards_text(chosen)} "
                      f"({len(row) + len(chosen)}/{size})")
    return out


def server_name(bot: OFCBot, t: TableState) -> str:
    """The name of table ``t``'s server ("" when the bot does not know it)."""
    guild = bot.get_guild(t.row.guild_id)
    return guild.name if guild is not None else ""


def panel_text(p: PanelState, variant: str, deadline: float | None = None,
               rules: Rules | None = None, channel_id: int | None = None,
               server: str = "") -> str:
    """The panel's text.  ``channel_id`` (and ``server``): the table's place, for a panel in a
    DM, which has no channel of its own to tell: every redraw says which table it is (``at
    #ofc in Poker Night``: two servers may both have an #ofc)."""
    req = p.requirement
    where = (f" at <#{channel_id}>" + (f" in **{md(server)}**" if server else "")
             if channel_id is not None else "")
    lines = [f"**Your panel** — hand #{p.hand_no}{where}"
             + (" · 🌴 Fantasyland" if p.fantasyland else "")]
    if req is None:
        lines.append(p.waiting_for or "Nothing to do right now.")
    else:
        clock = f" (time runs out <t:{int(deadline)}:R>)" if deadline else ""
        lines.append(f"{req.describe()}{clock}: {' '.join(str(c) for c in req.shown)}")
        if p.draft.assigned:
            parts = []
            for r, label in enumerate(ROW_LABELS):
                cards = [str(c) for c, row in p.draft.assigned if row == r]
                if cards:
                    parts.append(f"{label}: {' '.join(cards)}")
            lines.append("Chosen so far: " + " | ".join(parts))
        if p.draft.selected:
            lines.append("Selected: " + " ".join(str(c) for c in p.draft.selected)
                         + " — press a row.")
        lines.append("Pick cards in the menu, press a row, then **Confirm**. "
                     "Nothing is final until Confirm.")
        if req.is_set:  # (seven menus and buttons against the clock; a DM takes no commands)
            lines.append("Quicker: type the whole set with `/ofc place` in "
                         + (f"<#{channel_id}>" if channel_id is not None
                            else "the table's channel") + ": "
                         "three of your cards then `top`, five then `middle`, five then `bottom`"
                         + (", the rest then `discard`." if req.discard else "."))
        if variant == "chinese" and req.is_set and not p.fantasyland and p.can_declare:
            lines.append("Holding a natural (`/ofc rules` lists this table's)? Declare it with "
                         "`/ofc declare` instead of setting.")
    royalties = sum(live_royalties(p.board, variant, rules))  # (as the picture's badges)
    lines.append("Board — " + " | ".join(_rows_with_choices(p))
                 + (f" (royalties {royalties})" if royalties else ""))
    if p.discards:  # (chinese has none: a surrendered hand is kept as its discards)
        lines.append(("Your surrendered cards (only you see them): " if variant == "chinese"
                      else "Your discards (only you see them): ")
                     + " ".join(str(c) for c in p.discards))
    return "\n".join(lines)


def showdown_view(r: ShowdownResult, title: str, stake: int) -> ShowdownView:
    """The showdown's picture and text; its units only at a table that plays for them (a
    stake-0 table's title says "no units": not "0 units" for each)."""
    return ShowdownView(
        names=r.names, settlement=r.settlement, rules=r.rules,
        units=r.units if stake else None,
        fantasyland_next=r.fantasyland_next, hand_no=r.hand_no, title=title,
        natural_cards=r.natural_cards, numbers=tuple(n + 1 for n in r.seat_nos),
    )


def round_view(past: PastHand, index: int) -> TableView:
    """Round ``index`` (from 0) of a past hand's replay as a table picture: the boards as
    everyone saw them at its end, the cards placed in it highlighted."""
    r = past.result
    rnd = past.rounds[index]
    view = rnd.view
    seats = []
    for hs, sv in enumerate(view["seats"]):
        hidden = int(sv["hidden_cards"])
        status = ("surrendered" if sv["surrendered"]
                  else "timed out: the clock played" + (
                      " the set" if hidden or sv["fantasyland"] else "")  # (one move: its set)
                  if hs in rnd.auto else "set" if sv["done"] and hidden else "")
        seats.append(SeatView(
            name=r.names[hs], board=Board.from_json(sv["board"]), hidden=hidden,
            is_button=hs == view["button"], last_placed=tuple(cards_from_json(
                sv["last_placed"])), fantasyland=bool(sv["fantasyland"]), status=status,
            number=r.seat_nos[hs] + 1 if hs < len(r.seat_nos) else 0,
        ))
    last = index == len(past.rounds) - 1
    return TableView(
        title=title_of(r.rules.variant, past.stake, r.practice), variant=r.rules.variant,
        seats=tuple(seats), street=rnd.number, streets=int(view["streets"]),
        hand_no=r.hand_no, rules=r.rules,
        note=f"Replay of hand #{r.hand_no}: " + (
            "the end of the hand." if last else f"after round {rnd.number}."))


async def past_hand_payload(past: PastHand, frame: int, heading: str) -> tuple[
        list[str], discord.File]:
    """A past hand's message: its showdown (``frame`` 0) or round ``frame`` of its replay
    (from 1), as text in messages of at most 2000 characters and the picture."""
    r = past.result
    if frame == 0:
        view = showdown_view(r, title_of(r.rules.variant, past.stake, r.practice), past.stake)
        data = await render(render_showdown, view, four_colour=past.four_colour)
        lines = [heading, *showdown_lines(r, view, past.stake)]
        parts = split_message("\n".join(lines))
        return parts, png(data, f"showdown-hand-{r.hand_no}.png", view, len(parts) > 1)
    table = round_view(past, frame - 1)
    data = await render(render_table, table, four_colour=past.four_colour)
    text = (f"{heading.rstrip(':')} — round {table.street} of {table.streets} (replay):\n"
            f"```\n{describe_table(for_message(table))}\n```")
    parts = split_message(text)
    return parts, png(data, f"hand-{r.hand_no}-round-{table.street}.png", table, len(parts) > 1)


def showdown_lines(r: ShowdownResult, view: ShowdownView, stake: int) -> list[str]:
    """A showdown's text: its heading, every result, whether units moved, and why a player's
    units are not their points times the stake (``units_notes``)."""
    lines = [f"🃏 **Showdown — hand #{r.hand_no}**", describe_showdown(for_message(view))]
    if r.practice:
        lines.append("Practice: no units moved.")
    return lines + units_notes(r, stake)


def units_notes(r: ShowdownResult, stake: int) -> list[str]:
    """Where units are not the points times ``stake``: the points against bots (which move
    none), and a stack too short to pay what its player lost (RULES.md's proportional rule:
    what it held went to the winners in proportion to what each was owed)."""
    if r.units is None or not stake:
        return []
    n = len(r.names)
    bots = [i for i in range(n) if i < len(r.bots) and r.bots[i]]
    humans = [i for i in range(n) if i not in bots]
    m = r.settlement.matrix()
    out = []
    if bots and any(m[i][j] for i in humans for j in bots):
        out.append(f"🤖 Points against {_names(r, bots)} move no units: a player's units "
                   "follow their points against humans.")
    owed = {i: stake * sum(m[i][j] for j in humans) for i in humans}
    if any(r.units[i] != owed[i] for i in humans):
        emptied = set(r.broke)  # (a payer's stack that the hand emptied, a winner's too)
        short = [i for i in humans if r.units[i] != owed[i] and (
            r.user_ids[i] in emptied or owed[i] < 0 < r.units[i] - owed[i])]
        who = (f"{_names(r, short)} could not pay all they owed, so all they had" if short
               else "a stack could not pay all it owed, so all it had")
        out.append(f"⚖️ Units are not points × {stake} here: {who} went to those owed, in "
                   "proportion to what each was owed.")
    return out


def _names(r: ShowdownResult, seats: list[int]) -> str:
    return ", ".join(f"**{md(r.names[i])}**" for i in seats)


def png(data: bytes, name: str, view: Picture, continued: bool = False) -> discord.File:
    """A picture of ``view`` as an attachment, with its alt text (what a screen reader says of
    it: ``renderer.alt_text``; ``continued``: its text twin goes on in the next message)."""
    return discord.File(io.BytesIO(data), filename=name,
                        description=alt_text(view, continued))


async def render(
    fn: Any, view: Any, t: TableState | None = None, *, four_colour: bool = True
) -> bytes:
    """Images are drawn off the event loop (in the deck colours of table ``t``, if given)."""
    if not (four_colour if t is None else t.four_colour):
        return await asyncio.to_thread(functools.partial(fn, view, theme=TWO_COLOUR))
    return await asyncio.to_thread(fn, view)


TWO_COLOUR = Theme(four_colour=False)


def _rounds(hand: Hand) -> int:
    """The rounds of ``hand`` the table shows: its variant's streets, or 1 when every hand is
    set at once (chinese, or a hand where everyone plays a fantasyland)."""
    return hand.streets if hand.regular_seats else 1


def table_status(t: TableState) -> str:
    hand = t.hand
    if hand is None:
        if t.deal_failed:
            return deal_failed(t)
        if t.waiting:  # too few players to deal (the channel was told why)
            return "Waiting for players: `/ofc join` (or `/ofc addbot`) to deal the next hand."
        return "Between hands." if t.row.hand_no else "Waiting to start: `/ofc join`, `/ofc start`."
    acting = []
    # (a name that shows nothing is "Player N", as in the picture)
    labels = text_labels(tuple(t.name_of(hs) for hs in range(len(t.hand_seats))),
                         tuple(no + 1 for no in t.hand_seats))
    for hs in hand.to_act():
        seat = t.seat_by_no(t.hand_seats[hs]) if hs < len(t.hand_seats) else None
        # a bot's clock (a safety net for a stuck AI) is not shown: a bot is never timed out
        deadline = None if seat is not None and seat.is_bot else t.deadlines.get(hs)
        # a Discord timestamp counts down in every client (the message is not edited each second)
        clock = f" (time runs out <t:{int(deadline)}:R>)" if deadline else ""
        acting.append(f"**{md(labels[hs])}**{clock}")
    rounds = _rounds(hand)
    street = f"round {hand.street} of {rounds}" if rounds > 1 else "set your hands"
    return f"Hand #{t.row.hand_no}, {street}. To act: {', '.join(acting) or '—'}"


QUIET = discord.AllowedMentions.none()
"""The table message's: its names (as typed, in a code block) never ping anyone."""

UNKNOWN_CHANNEL = 10003
"""Discord's error code for a channel that does not exist (deleted)."""


@contextlib.contextmanager
def table_channel(t: TableState) -> Iterator[None]:
    """Around a send to the table's channel: that channel deleted (404 Unknown Channel)
    becomes ``ChannelGone``, which closes the table (``SafeNotifier``); one that refuses the
    bot (403: a locked or archived thread, a permission taken away) ``ChannelMuted``, which is
    logged once, not at every message."""
    try:
        yield
    except discord.NotFound as e:
        if e.code == UNKNOWN_CHANNEL:
            raise ChannelGone(t.row.channel_id) from e
        raise
    except discord.Forbidden as e:
        raise ChannelMuted(f"{e.status} {e.code}: {e.text}") from e


def result_summary(r: HandResult, practice: str = "", units: bool = True) -> str:
    """A seat's result in a line of ``/ofc history``: its points, its units (``practice``
    instead when the hand did not count; none when ``units`` is false: a hand that moved no
    units, e.g. at a stake-0 table, is not "+0 u" for everyone), its points against humans
    when they differ, and a surrender, foul, natural or fantasyland earned."""
    counted = (f", {signed(r.units)} u" if units else "") if r.counted else practice
    if r.counted and r.ranked_points is not None and r.ranked_points != r.points:
        counted += f", {signed(r.ranked_points)} vs humans"
    tag = " (surrendered)" if r.surrendered else " (foul)" if r.fouled else ""
    tag += f" ({r.natural})" if r.natural else ""
    tag += " 🌴 fantasyland" if r.fantasyland else ""
    return f"{signed_amount(r.points, 'pt')}{counted}{tag}"


class Presenter:
    """The service's Notifier: posts and edits messages in the table's channel, sends DMs."""

    def __init__(self, bot: OFCBot, coalesce: float = 0.4) -> None:
        self.bot = bot
        self.coalesce = coalesce
        # What is kept per table goes when its closed table message is marked (``_forget``):
        # a bot running for months sees thousands of tables.  The locks live while an edit or
        # a ping holds or awaits them (``_lock``).
        self._pending_edits: dict[int, asyncio.Task[None]] = {}
        self._message_ids: dict[int, int] = {}
        self._edit_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary())
        self._dirty: set[int] = set()
        self._last_ping: dict[int, discord.Message] = {}  # table id -> its turn ping
        self._closed_marked: OrderedDict[int, None] = OrderedDict()
        """The closed table messages marked, the last ``MARKED_KEPT`` (marked once)."""
        self._swept: set[int] = set()  # tables whose pings from before a restart are gone
        service = getattr(bot, "service", None)  # (its clock writes a table's created_at)
        self._started: float = service.clock() if service is not None else time.time()
        self._ping_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary())
        """Per table: dropping the old ping and storing the new one is one step (two pings
        in flight would otherwise leave one behind for good)."""

    async def _drop_last_ping(self, t: TableState) -> None:
        """The previous turn ping goes when a new one comes (or the hand ends): one ping in the
        channel, not one per street burying the table message."""
        old = self._last_ping.pop(t.id, None)
        if old is not None:
            try:
                await old.delete()
            except discord.HTTPException:
                log.debug("could not delete the turn ping of table %s", t.id)

    async def _drop_pings_from_before(self, t: TableState) -> None:
        """Memory knows no ping of this table yet (first one since the bot started): the
        bot's earlier turn pings for it among the channel's last messages go, so a restart
        does not leave one behind (needs Read Message History; without it they stay)."""
        if t.id in self._swept or t.id in self._last_ping or t.row.created_at >= self._started:
            return  # (a table opened since the start has no ping from before it)
        self._swept.add(t.id)
        try:
            async for m in self._carrying_button(t):
                if (m.content or "").startswith("🎯"):
                    with contextlib.suppress(discord.HTTPException):
                        await m.delete()
        except discord.HTTPException:
            log.debug("could not look for the old turn pings of table %s", t.id)

    async def _carrying_button(self, t: TableState) -> AsyncIterator[discord.Message]:
        """The bot's messages among the channel's last ``PING_SWEEP`` that carry the table's
        "Open my panel" button."""
        me = self.bot.user
        async for m in self.channel(t).history(limit=PING_SWEEP):
            if me is not None and m.author.id == me.id and carries_button(m, t.id):
                yield m

    def channel(self, t: TableState) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(t.row.channel_id, guild_id=t.row.guild_id)

    def table_components(self, t: TableState) -> discord.ui.View:
        from .views import open_panel_view

        return open_panel_view(t.id)

    async def table_payload(self, t: TableState) -> tuple[str, discord.File]:
        """The table message: its status line, text and picture, all of one moment (taken
        before the picture is drawn: play goes on meanwhile, and a status read after it
        named a later round than the text and picture under it)."""
        view = table_view(t)
        text = f"{table_status(t)}\n```\n{describe_table(for_message(view))}\n```"
        name = f"table-{t.id}-{t.row.hand_no}.png"
        data = await render(render_table, view, t)
        return text[:1990], png(data, name, view)

    async def table_changed(self, t: TableState) -> None:
        """Coalesce: changes within the window become one edit; a change that arrives while
        an edit is being sent gets an edit of its own after it."""
        self._dirty.add(t.id)
        task = self._pending_edits.get(t.id)
        if task is None or task.done():
            self._pending_edits[t.id] = asyncio.ensure_future(self._edit_later(t))

    async def _edit_later(self, t: TableState) -> None:
        lock = _lock(self._edit_locks, t.id)
        while t.id in self._dirty:
            await asyncio.sleep(self.coalesce)
            self._dirty.discard(t.id)
            async with lock:
                try:
                    await self.post_table(t, edit=True)
                except ChannelGone:  # (a task of its own: the service is told here)
                    self.bot.service.channel_lost(t)  # type: ignore[union-attr]
                    return
                except ChannelMuted as e:  # (the notices through the service say it once)
                    log.debug("table %s: its message cannot be edited now (%s)", t.id, e)
                except Exception:
                    log.exception("could not update the table message of table %s", t.id)

    async def close(self) -> None:
        """Stop the table-message edits under way (at most ``CLOSE_WAIT`` seconds: an edit
        that ignores its cancellation must not keep the bot from exiting)."""
        await stop_tasks(lambda: list(self._pending_edits.values()), CLOSE_WAIT,
                         "table message edit(s)", log)

    async def post_new_table(self, t: TableState) -> discord.Message | None:
        """The first table message of a table just opened, under the table message's edit
        lock: a join meanwhile (its edit) then either waits and edits this one, or posted the
        first itself and this edits it (never two live table messages)."""
        async with _lock(self._edit_locks, t.id):
            return await self.post_table(t, edit=True)

    async def post_table(self, t: TableState, *, edit: bool = True) -> discord.Message | None:
        if self._closed(t):
            await self._mark_closed(t)
            return None
        text, file = await self.table_payload(t)
        channel = self.channel(t)
        message_id = self._message_ids.get(t.id) or t.row.message_id  # memory is the newest
        old = None if edit else message_id
        if edit and message_id:
            try:
                msg = channel.get_partial_message(message_id)
                with table_channel(t):
                    return await msg.edit(content=text, attachments=[file],
                                          allowed_mentions=QUIET, view=self.table_components(t))
            except discord.NotFound:
                pass
        with table_channel(t):
            msg = await channel.send(text, file=file, view=self.table_components(t),
                                     allowed_mentions=QUIET)
        if self._closed(t):  # closed while the picture was drawn and sent
            await self._mark_closed(t, msg.id)
            return msg
        self._message_ids[t.id] = msg.id
        try:
            await self.bot.service.set_message_id(t, msg.id)  # type: ignore[union-attr]
        except Exception:  # posted all the same: memory keeps it (after a restart the id
            # saved before, if any, is the one edited)
            log.exception("could not save the table message id of table %s", t.id)
        if old and old != msg.id:
            await self._retire(t, old)
        return msg

    async def _retire(self, t: TableState, message_id: int) -> None:
        """The table message a new one replaces (after a showdown) is deleted: left above, it
        looked live (its button, "Waiting for the next deal").  When it cannot be deleted it
        says where the table went and loses its button."""
        message = self.channel(t).get_partial_message(message_id)
        try:
            await message.delete()
        except discord.NotFound:
            pass
        except discord.HTTPException:
            try:
                await message.edit(content="The table continues below. ⬇️", attachments=[],
                                   view=None)
            except discord.HTTPException:
                log.debug("could not retire an old message of table %s", t.id)

    def _closed(self, t: TableState) -> bool:
        return t.row.status == "closed" or t.id not in self.bot.service.tables  # type: ignore[union-attr]

    async def _mark_closed(self, t: TableState, message_id: int | None = None) -> None:
        """The table message of a closed table says so and loses its button (once; a message
        sent while the table was closing is marked too)."""
        message_id = message_id or self._message_ids.pop(t.id, None) or t.row.message_id
        if message_id in self._closed_marked:
            await self._forget(t)  # (an edit that was waiting when the message was marked)
            return
        if message_id:
            self._remember_marked(message_id)
            try:
                await self.channel(t).get_partial_message(message_id).edit(
                    content=CLOSED_TABLE, view=None)
            except (discord.NotFound, discord.Forbidden):
                pass  # gone, or never to be edited: nothing to come back for
            except discord.HTTPException:  # (Discord failing) marked after the next start
                log.debug("could not mark the message of table %s closed", t.id)
                await self._forget(t)
                return
        if t.row.status == "closed" and CLOSE_UNMARKED in t.row.extra:
            if t.row.created_at < self._started:
                await self._sweep_closed(t)
            await self.bot.service.close_marked(t)  # type: ignore[union-attr]
        await self._forget(t)

    def _remember_marked(self, message_id: int) -> None:
        self._closed_marked[message_id] = None
        while len(self._closed_marked) > MARKED_KEPT:
            self._closed_marked.popitem(last=False)

    async def table_gone(self, t: TableState) -> None:
        """The table closed because its channel is gone: nothing to mark or delete there."""
        self._last_ping.pop(t.id, None)
        await self._forget(t)

    async def _forget(self, t: TableState) -> None:
        """A closed table's message is marked (or its channel is gone): what was kept of the
        table goes (its turn ping too, left by a table closed during a hand)."""
        async with _lock(self._ping_locks, t.id):
            await self._drop_last_ping(t)
        self._dirty.discard(t.id)
        self._swept.discard(t.id)
        self._message_ids.pop(t.id, None)
        task = self._pending_edits.get(t.id)
        if task is not None and (task.done() or task is asyncio.current_task()):
            del self._pending_edits[t.id]

    async def _sweep_closed(self, t: TableState) -> None:
        """A table closed just before the bot stopped may have a table message whose id was
        never saved (posted under the showdown as the table closed): the channel's last
        messages carrying its button are marked too, its turn pings deleted."""
        try:
            async for m in self._carrying_button(t):
                if m.id in self._closed_marked:
                    continue
                self._remember_marked(m.id)
                await retire_closed(m)
        except discord.HTTPException:
            log.debug("could not look for the live-looking messages of table %s", t.id)

    async def turn_started(
        self, t: TableState, seats: list[int], requirement: Requirement | None
    ) -> bool:
        """The ping says what ``requirement`` (decided when the turn moved) asks, not what the
        table asks when the message is sent.  Whether it was sent."""
        from .views import open_panel_view

        mentions = []
        for seat_no in seats:
            seat = t.seat_by_no(seat_no)
            if seat is not None:
                mentions.append(f"<@{seat.user_id}>")
        if not mentions or t.hand is None:
            return False
        what = requirement.describe().lower() if requirement else "your move"
        seconds = t.rules.set_timer if requirement and requirement.is_set else t.rules.timer
        hs = t.hand_seat_of(seats[0])
        deadline = t.deadlines.get(hs) if hs is not None else None
        # a Discord timestamp counts down live in every client
        clock = f"time runs out <t:{int(deadline)}:R>" if deadline else f"{seconds} s"
        short = 0 < t.rules.away_timer < seconds and any(  # (a clock ran out for them this
            (h := t.hand_seat_of(seat_no)) is not None and h in t.away for seat_no in seats)
        # hand, and the short clock is shorter than the whole one)
        more = (" A short clock after a timeout: `/ofc sitin` gives the whole clock back now."
                if short else "")
        async with _lock(self._ping_locks, t.id):
            await self._drop_pings_from_before(t)
            await self._drop_last_ping(t)
            with table_channel(t):
                self._last_ping[t.id] = await self.channel(t).send(
                    f"🎯 {', '.join(mentions)}: your turn — {what} ({clock}). "
                    "Press **Open my panel** or use `/ofc place`." + more,
                    view=open_panel_view(t.id),
                )
        return True

    async def fantasyland_dealt(self, t: TableState, seat_no: int) -> None:
        from .views import open_panel_view, panel_view

        seat = t.seat_by_no(seat_no)
        if seat is None:
            return
        service = self.bot.service
        assert service is not None
        try:
            p = service.panel(t.id, seat.user_id, seat_no)
        except Exception:
            log.exception("no fantasyland panel for seat %s", seat_no)
            return
        hs = t.hand_seat_of(seat_no)
        deadline = t.deadlines.get(hs) if hs is not None else None
        hv = hand_view(p, t.rules.variant, deadline, t.rules)
        data = await render(render_hand, hv, t)
        text = ("🌴 **Fantasyland!** Your private hand (only you see it).\n"
                + panel_text(p, t.rules.variant, deadline, t.rules, t.row.channel_id,
                             server_name(self.bot, t)))
        try:
            user = await self.bot.fetch_user(seat.user_id)
            await user.send(text[:1990], file=png(data, "fantasyland.png", hv),
                            view=panel_view(p, t.rules.variant))
        except discord.HTTPException as e:  # DMs closed (403), or any other refusal
            if not isinstance(e, discord.Forbidden):
                log.exception("could not DM the fantasyland hand of %s", seat.user_id)
            why = "your DMs are closed" if isinstance(e, discord.Forbidden) else (
                "I could not send it by DM")
            with table_channel(t):  # (a locked thread: muted, said once)
                await self.channel(t).send(
                    f"🌴 <@{seat.user_id}>, your fantasyland hand is ready, but {why}, "
                    "so it stays private here: press **Open my panel** (only you will see it).",
                    view=open_panel_view(t.id),
                )

    async def showdown(self, t: TableState, r: ShowdownResult) -> bool:
        async with _lock(self._ping_locks, t.id):
            await self._drop_last_ping(t)
        view = showdown_view(r, table_title(t, r.practice), t.row.stake)
        data = await render(render_showdown, view, t)
        lines = showdown_lines(r, view, t.row.stake)
        if r.broke:
            who = ", ".join(f"<@{u}>" for u in r.broke)
            if t.takes_buy_ins:
                lines.append(f"💸 {who}: your stack is empty, so you sit the next hands out. "
                             "`/ofc join` buys in again (or `/ofc leave`).")
            elif t.row.status != "open":  # (no next hand: it closes)
                lines.append(f"💸 {who}: your stack is empty.")
            else:
                lines.append(f"💸 {who}: your stack is empty ({NO_BUY_INS}); `/ofc leave` "
                             "gives your seat back.")
        first, *rest = split_message("\n".join(lines))
        channel = self.channel(t)
        from .views import showdown_buttons  # (views draw with this module)

        file = png(data, f"showdown-{t.id}-{r.hand_no}.png", view, bool(rest))
        with table_channel(t):
            # (every hand set at once: no rounds to replay, but a review)
            await channel.send(first, file=file,
                               view=showdown_buttons(t.id, r.hand_no, r.replayable))
            for more in rest:  # 4 players with long names: every pair's result still shown
                await channel.send(more)
        # (after an edit under way: one that read the old message's id would find it deleted
        # and post a table message of its own)
        async with _lock(self._edit_locks, t.id):
            await self.post_table(t, edit=False)
        return True

    async def notice(self, t: TableState, text: str, *, ping: bool = True) -> bool:
        try:
            with table_channel(t):
                if ping:
                    await self.channel(t).send(text)
                else:
                    await self.channel(t).send(
                        text, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as e:  # (no traceback: status and code say it)
            log.error("could not post a notice to table %s: %s %s", t.id, e.status, e.code)
            return False
        return True
