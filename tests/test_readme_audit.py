"""An audit of README.md against the code as it is now (after 7621bf9), beyond what
tests/test_readme_claims.py pins: today's additions to README (``git diff 766c3bb..HEAD --
README.md``: the alt text, the close notice, the terminal's minus sign and plain stand-ins, the
panel's chosen-cards count and dimmed rows, the replay arrows, the typed-set hint, the
short-clock hint, the idle warning's timestamp, upgrading and migration 010, ``ofc-bot check``
and ``backup`` leaving no ``-wal``/``-shm``, playing at several tables, a server that removed
the bot while it was stopped) and the older claims they sit beside (the commands' options and
ranges, the settings, the make targets, ``ofc-bot`` and its subcommands' flags, the rules
table, the numbers quoted, the messages quoted, the files named).

Read against: cogs/ofc.py's app commands, cogs/presenter.py and cogs/views.py (panel, pings,
replay buttons, table view), bot/service.py (notices, constants, the close and idle paths),
bot/app.py (``on_ready``), bot/play.py (terminal, ``solve``), bot/maintenance.py and
bot/__main__.py (``backup``/``check``/``restore``), bot/settings.py and .env.example,
engine/rules.py, renderer/alt.py, bot/store (migrations 001-010, the six upgrade dumps).

The audit proved five discrepancies, all put right since (four in README, one in the bot:
a timeout that played the move left arranged in the panel was told as the AI's): a test whose
docstring starts "Was a defect (fixed)" quotes what was said, what is true and where.  The
other tests pin the claims verified true that are most likely to drift.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from engine import parse_cards

from .bot.test_service import ALICE, BOB, CH, Clock, G, finish_by_autoplay, make, until

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
C = parse_cards


def flat(text: str) -> str:
    """``text`` with every run of whitespace (README's line breaks) as one space."""
    return " ".join(text.split())


FLAT = flat(README)


def command_cell(command: str) -> str:
    """The "what it does" cell of ``command``'s row in README's command table."""
    for line in README.splitlines():
        if line.startswith(f"| `{command}` |"):
            return line.split("|")[3].strip()
    raise AssertionError(f"README has no row for {command}")


def notices(rec: Any) -> list[str]:
    return [text for kind, text in rec.events if kind == "notice"]


# ============================================================================ discrepancies
# ---------------------------------------------------------------------------- the close notice
# A heads-up ofc deck: the first to act is dealt EARNER's cards (queens on top, a fantasyland
# when set as listed), the other OTHER's; each street as the engine deals it.
EARNER = {"Qh": 0, "Qd": 0, "2c": 0, "Kh": 1, "Kd": 1, "3c": 1, "4d": 1, "7s": 1,
          "Ah": 2, "Ad": 2, "As": 2, "8c": 2, "9d": 2}
OTHER = {"5c": 0, "6d": 0, "8h": 0, "9s": 1, "9c": 1, "Tc": 1, "Jd": 1, "2h": 1,
         "Js": 2, "Jc": 2, "3h": 2, "3s": 2, "5d": 2}
ROW_OF = {**EARNER, **OTHER}


def _earning_deck() -> list[Any]:
    first, second = list(EARNER), list(OTHER)
    order = first[:5] + second[:5]
    for k in range(8):
        order += [first[5 + k], second[5 + k]]
    return list(C(" ".join(order)))


async def test_the_close_notice_says_during_or_after_which_hand() -> None:
    """Was a defect (fixed).

    README, the ``/ofc close`` row (README.md:186): "the channel is told who asked for the
    close, during which hand, and that every stack went back to its owner's balance".

    True: a close asked between hands (a fantasyland owed, so the table deals that one hand
    first) is announced as "The table is closed, as @alice asked **after** hand #1: every
    stack went back to its owner's balance." (``CLOSE_ASKED`` is "after" when no hand is being
    played, bot/service.py:1665; the notice, bot/service.py:3094-3099).  README's clause names
    only the "during" case."""
    cell = command_cell("/ofc close")
    decks = [_earning_deck()]
    svc, rec, store = await make(seed_factory=lambda: "audit-close",
                                 deck_factory=lambda t: decks.pop(0) if decks else None,
                                 next_hand_delay=0.5)
    try:
        t = await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
        await svc.join(G, CH, BOB, "bob")
        await svc.start(CH, ALICE)
        while t.hand is not None and not t.hand.is_over:
            hs = t.hand.to_act()[0]
            req = t.hand.requirement(hs)
            assert req is not None
            async with t.lock:
                t.hand.place(hs, [(c, ROW_OF[str(c)]) for c in req.cards])
                await svc._after_action(t)
        await until(lambda: t.hand is None)
        assert t.row.hand_no == 1 and t.fantasyland_pending  # between hands, one owed
        await svc.close(CH, ALICE, False)
        await until(lambda: t.hand is not None)
        await finish_by_autoplay(svc)
        await until(lambda: t.id not in svc.tables
                    and "Thanks for playing" in (notices(rec) or [""])[-1])
        closing = notices(rec)[-1]
        assert closing.startswith(f"The table is closed, as <@{ALICE}> asked after hand #1: "
                                  "every stack went back to its owner's balance."), closing
    finally:
        await svc.shutdown()
        await store.close()
    clause = re.search(r"who asked for the close, ([^,]*), and that every stack", cell)
    assert clause, cell
    assert "after" in clause.group(1), f"README: {clause.group(1)!r}; the bot: {closing!r}"


# ------------------------------------------------------------------ an emptied stack's status
def test_an_emptied_stack_reads_no_units_left_wherever_no_buy_in_is_taken() -> None:
    """Was a defect (fixed).

    README, Playing > Money (README.md:242-246): "A player whose stack a hand empties is
    named (pinged) in the showdown and is not dealt in (the table shows "buy in to play", or
    "no units left" at a table that is closing)".

    True: the table shows "no units left" wherever the table takes no buy-ins
    (``TableState.takes_buy_ins``: open and not ``over_max_stake``, bot/service.py:497-499;
    cogs/presenter.py:224): also at an open table whose stake is above the server's
    ``max_stake`` lowered since it opened (``/ofc join`` is refused there), not "buy in to
    play"."""
    from bot.service import TableState
    from bot.store.models import SeatRow, TableRow
    from cogs.presenter import table_view
    from engine import Rules

    row = TableRow(id=1, guild_id=G, channel_id=CH, creator_id=ALICE,
                   rules=Rules().to_json(), stake=10, buyin=100, max_seats=2, status="open",
                   message_id=None, button=0, hand_no=3, extra={}, created_at=0.0,
                   updated_at=0.0, closed_at=None)
    seats = [SeatRow(id=n + 1, table_id=1, seat_no=n, guild_id=G, user_id=user, name=name,
                     is_bot=False, bot_level=None, buyin=100, sitting_out=False,
                     leaving=False, joined_at=float(n), left_at=None, stack=stack)
             for n, (user, name, stack) in enumerate(((ALICE, "alice", 0), (BOB, "bob", 150)))]
    over = TableState(row=row, seats=seats, over_max_stake=True)
    assert over.row.status == "open" and not over.takes_buy_ins
    assert table_view(over, now=0.0).seats[0].status == "no units left"
    assert table_view(TableState(row=row, seats=seats), now=0.0).seats[0].status == (
        "buy in to play")
    said = re.search(r'"no units left" at a table that is ([^)]*)\)', FLAT)
    assert said, "README no longer says where 'no units left' shows"
    assert "maximum" in said.group(1) or "buy-in" in said.group(1), said.group(1)


# ------------------------------------------------------------------- the panel's Discard button
def test_readme_says_the_discard_button_dims_when_the_discards_are_chosen() -> None:
    """Was a defect (fixed).

    README, Playing > The private panel (README.md:200-201): "The panel's text counts the
    cards chosen for a row in its room (`top: - + chosen Qh Qd Qs (3/3)`), and a row they
    fill is dimmed."

    True (and not said): the **Discard** button dims too, once the street's discards are
    chosen (cogs/views.py:184-189, ``full`` for row 3 is ``req.discard`` reached; fixed in
    7621bf9).  README's list of the panel's buttons names Discard apart from the rows
    ("Top / Middle / Bottom / Discard"), and so does ``/ofc place`` ("Rows: ...; `discard`")."""
    from bot.service import Draft, PanelState
    from cogs.views import panel_view
    from engine import Board
    from engine.hand import Requirement

    ah, kd, c2 = C("Ah Kd 2c")
    state = PanelState(
        table_id=1, seat_no=0, hand_no=1, step=1,
        requirement=Requirement(0, (ah, kd, c2), 2, 1, (3, 5, 5), False), board=Board(),
        draft=Draft(selected=[ah], assigned=[(c2, 3)], presses=[1]), fantasyland=False,
        discards=(), waiting_for="", name="alice")
    disabled = {}
    for child in panel_view(state, "pineapple").children:
        item: Any = getattr(child, "item", child)
        if item.custom_id.startswith("ofc:pb:"):
            disabled[item.custom_id.rsplit(":", 1)[1]] = bool(item.disabled)
    assert disabled["discard"] is True and disabled["top"] is False
    sentence = re.search(r"The panel's text counts the cards chosen.*?dimmed[^.]*\.", FLAT)
    assert sentence, "README no longer says which buttons dim"
    assert "discard" in sentence.group(0).lower(), sentence.group(0)


# ------------------------------------------------------------- a timeout plays the panel's move
async def test_a_timeout_that_plays_the_panels_move_is_not_told_as_the_ais() -> None:
    """Was a defect (fixed).

    README, Playing > Timers (README.md:214-219): "When it runs out, what you left
    arranged in your panel is played if it is a whole move (every card on a row) that does
    not foul when a clean board is possible; otherwise the AI (easy level) plays for you ...
    and the channel is told".

    True: the player's own arrangement is played (``_drafted_move``, bot/service.py:2675),
    but what the channel is told is "⏰ Time ran out for @X: the AI played that move for
    them." (bot/service.py:2768, ``_timeout_text`` knows nothing of the draft): the channel
    reads that the AI chose a move the player chose.  README describes the behaviour
    correctly; the notice contradicts it (a product fix, not a README one)."""
    from bot.service import Draft

    assert "what you left arranged in your panel is played" in FLAT
    clock = Clock()
    svc, rec, store = await make(seed_factory=lambda: "audit-draft", clock=clock)
    try:
        await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
        await svc.join(G, CH, BOB, "bob")
        await svc.start(CH, ALICE)
        t = svc.table_in_channel(CH)
        assert t.hand is not None and t.hand.turn is not None
        hs = t.hand.turn
        req = t.hand.requirement(hs)
        assert req is not None and req.place == 5 and not req.discard
        mine = [(c, 2) for c in req.cards]  # all five on the bottom: not what the AI plays
        t.drafts[hs] = Draft(assigned=list(mine), presses=[5])
        clock.offset += t.deadlines[hs] - clock() + 1
        svc.rearm()
        await until(lambda: any("Time ran out" in n for n in notices(rec)))
        played = [p for p in t.hand.log if getattr(p, "seat", None) == hs]
        assert sorted(played[0].placements) == sorted(mine)  # the panel's move was played
        told = next(n for n in notices(rec) if "Time ran out" in n)
    finally:
        await svc.shutdown()
        await store.close()
    assert "the AI played" not in told, told


# ------------------------------------------------------------ the terminal's plain stand-ins
def test_the_terminals_stand_in_for_the_middle_dot_is_a_hyphen() -> None:
    """Was a defect (fixed) of the README: it said "a terminal that cannot show a character
    gets a plain stand-in (`Ah` for A♥, `-` for `−` and `·`)", but the board's empty slots,
    drawn "··" where they can be shown, are drawn ".." on such a terminal (``self.dot``,
    bot/play.py); only the other "·" (the title's) become "-" (``PLAIN``).  The README now
    names both."""
    from bot.play import main

    assert "`.` for an empty slot, `-` for `−` and the other `·`" in FLAT
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii", newline="\n")
    assert main(["--no-images", "--seed", "audit"], io.StringIO("quit\n"), out) == 0
    out.flush()
    text = raw.getvalue().decode("ascii")
    assert re.search(r"Hand 1/1 - ofc - street 1/9", text), text  # (the codec's '-')
    top = next(line for line in text.splitlines() if line.strip().startswith("top"))
    assert ".. .. .." in top, top


# ============================================================================ verified claims
def test_the_alt_text_readme_quotes_is_the_tables() -> None:
    """README, Images: the alt text quoted ("Picture of the table: Pineapple · 2 units/pt —
    Hand 12 · Round 3 of 5. The message's text has every seat's board.") is what
    ``renderer.alt_text`` writes for such a table (the title as ``title_of`` makes it), within
    Discord's 1,024 characters."""
    from cogs.presenter import title_of
    from engine import Board
    from renderer import ALT_LIMIT, SeatView, TableView, alt_text

    quoted = re.search(r'"(Picture of the table: [^"]+)"', FLAT)
    assert quoted
    view = TableView(title=title_of("pineapple", 2, False), variant="pineapple",
                     seats=(SeatView("Sam", Board(), hidden=0),), street=3, streets=5,
                     hand_no=12)
    assert alt_text(view) == quoted.group(1)
    assert ALT_LIMIT == 1024 and "Discord's 1,024 characters" in FLAT


def test_the_panel_counts_chosen_cards_as_readme_quotes_and_dims_a_full_row() -> None:
    """README, the private panel: `top: - + chosen Qh Qd Qs (3/3)`, and a row they fill is
    dimmed; a whole set's panel says it can be typed with `/ofc place` in the channel."""
    from bot.service import Draft, PanelState
    from cogs.presenter import _rows_with_choices, panel_text
    from cogs.views import panel_view
    from engine import Board
    from engine.hand import Requirement

    quoted = re.search(r"`(top: - \+ chosen [^`]+)`", README)
    assert quoted
    cards = C("Qh Qd Qs Kh Kd Ks 4c 3d 9c Tc Jc 2c 8c")
    state = PanelState(
        table_id=1, seat_no=0, hand_no=1, step=1,
        requirement=Requirement(0, tuple(cards), 13, 0, (3, 5, 5), True), board=Board(),
        draft=Draft(selected=[cards[3]], assigned=[(c, 0) for c in cards[:3]], presses=[3]),
        fantasyland=True, discards=(), waiting_for="", name="alice")
    assert _rows_with_choices(state)[0] == quoted.group(1)
    text = panel_text(state, "ofc", channel_id=CH, server="Poker Night")
    assert f"at <#{CH}> in **Poker Night**" in text
    assert f"type the whole set with `/ofc place` in <#{CH}>" in text
    items = [getattr(c, "item", c) for c in panel_view(state, "ofc").children]
    dimmed = {i.label: i.disabled for i in items if i.custom_id.startswith("ofc:pb:")}
    assert dimmed["Top"] is True and dimmed["Middle"] is False


def test_the_replay_arrows_say_no_earlier_and_no_later_round() -> None:
    """README: at either end its dimmed arrow says "No earlier round" / "No later round"."""
    from cogs.views import ReplayButton

    assert '"No earlier round" / "No later round"' in FLAT
    first = ReplayButton(1, 1, 1, "p", disabled=True).item
    last = ReplayButton(1, 1, 5, "n", disabled=True).item
    assert "No earlier round" in str(first.label) and first.disabled
    assert "No later round" in str(last.label) and last.disabled


async def test_the_idle_warning_readme_quotes_with_its_timestamp() -> None:
    """README, Idle tables close: "⏳ nothing has happened here for 23 hours, so this table
    closes in 1 hour … unless a hand is dealt or someone sits down or in" (the close's time a
    Discord timestamp), an hour before (a quarter of ``idle_hours`` when shorter), the bot
    looking once a minute, none closing in the first hour after the start."""
    from bot import service
    from bot.store.models import MAX_IDLE_HOURS, ServerSettings

    from .timestamps import as_read

    quoted = re.search(r'"(⏳ [^"]+)"', FLAT)
    assert quoted
    before, after = (part.strip() for part in quoted.group(1).split("…"))
    svc, rec, store = await make()
    try:
        t = await svc.new_table(G, CH, ALICE, "alice")
        await svc._warn_idle(t, 23 * 3600 + 40, 3600)
        (sent,) = notices(rec)
    finally:
        await svc.shutdown()
        await store.close()
    assert re.search(r"closes <t:\d+:R>", sent), sent  # a Discord timestamp
    read = as_read(sent, svc.clock()).replace(f"<@{ALICE}>: ", "")
    assert read.startswith(before) and after in read, read
    assert (service.IDLE_WARNING, service.IDLE_CHECK, service.IDLE_GRACE) == (3600, 60, 3600)
    assert ServerSettings(guild_id=1).idle_hours == 24 and MAX_IDLE_HOURS == 720
    assert "`idle_hours` (0-720, default 24; 0: never)" in FLAT


def test_check_and_backup_leave_no_wal_or_shm_beside_a_stopped_bots_database(
    tmp_path: Path,
) -> None:
    """README, Backups and checks: "Neither `check` nor `backup` leaves anything beside a
    stopped bot's database (SQLite's `-wal` and `-shm`, which a read-only look creates, are
    removed again ...)"."""
    import asyncio

    from bot.__main__ import main
    from bot.store import Store

    assert "Neither `check` nor `backup` leaves anything beside a stopped bot's database" in FLAT
    db = tmp_path / "ofc.sqlite3"

    async def create() -> None:
        store = await Store.open(str(db))
        await store.close()

    asyncio.run(create())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ofc.sqlite3"]
    assert main(["check", "--database", str(db)]) == 0
    assert main(["backup", str(tmp_path / "copy.sqlite3"), "--database", str(db)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.sqlite3", "ofc.sqlite3"]


def test_the_numbers_and_columns_readme_quotes_for_commands() -> None:
    """README's commands: the CSV of ``/ofc history file`` (its columns, in order, the newest
    10,000 hands), the recap's "about 1,500 characters", a grant's reason "up to 200
    characters", ``points_per_hand`` ranking "20 counted hands or more", "at most 20 rows
    drawn" on a leaderboard."""
    from bot import service
    from bot.store.models import PER_HAND_MIN_HANDS
    from cogs.ofc import LEADERBOARD_ROWS

    cell = command_cell("/ofc history")
    listed = re.search(r"one line a hand with (.*?) as set", cell)
    assert listed
    columns = [name for name in re.findall(r"`([a-z_]+)`", listed.group(1))]
    assert tuple(columns) == service.EXPORT_COLUMNS
    assert service.EXPORT_HANDS == 10_000 and "(the newest 10,000)" in cell
    assert service.RECAP_CHARS == 1500 and "about 1,500 characters" in FLAT
    assert service.REASON_LENGTH == 200 and "`reason` (optional, up to 200 characters)" in FLAT
    assert PER_HAND_MIN_HANDS == 20 and "with 20 counted hands or more" in FLAT
    assert LEADERBOARD_ROWS == 20 and "at most 20 rows drawn" in FLAT


def test_upgrading_migration_010_and_the_six_older_databases() -> None:
    """README, Upgrading: "tested on databases made by six earlier commits,
    `tests/bot/test_upgrade_review.py`" and "(migration 010)": the ten migrations, the step
    in Python of the tenth, six dumps; ``ofc-bot check`` calls an older schema "start the bot
    once to migrate it"."""
    from bot.maintenance import _latest_schema
    from bot.store.store import _STEPS

    migrations = sorted(p.name for p in (ROOT / "bot" / "store" / "migrations").glob("*.sql"))
    assert migrations[-1].startswith("010_") and _latest_schema() == 10 and 10 in _STEPS
    dumps = list((ROOT / "tests" / "bot" / "data" / "upgrade").glob("*.sql"))
    assert len(dumps) == 6 and "databases made by six earlier commits" in FLAT
    assert (ROOT / "tests" / "bot" / "test_upgrade_review.py").exists()
    assert "(migration 010)" in FLAT


def test_the_terminal_signs_with_a_real_minus_and_has_plain_stand_ins() -> None:
    """README, the terminal game: "numbers are signed as in Discord (`+3`, `−2`)", "`-` for
    `−`" (the codec's stand-in, ``ofc-plain``), and ``ofc-bot solve`` too."""
    from bot.play import PLAIN, solve_main
    from engine.notation import signed

    assert "numbers are signed as in Discord (`+3`, `−2`)" in FLAT
    assert (signed(3), signed(-2), signed(0)) == ("+3", "−2", "0")
    assert PLAIN["−"] == "-" and "−2".encode("ascii", "ofc-plain") == b"-2"
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii", newline="\n")
    assert solve_main("Qh Qd Qs Kh Kd Ks 4c 3d 9c Tc Jc 2c 8c 7d 6s".split(), out) == 0
    out.flush()
    assert b"top Qs Qh Qd (three queens) - middle" in raw.getvalue()


def test_the_short_clock_ping_and_the_several_tables_answers() -> None:
    """README: "the turn ping of a short clock says so" (that ``/ofc sitin`` gives the whole
    clock back), only where the short clock is shorter than the whole one; "Playing at several
    tables, a command in a channel whose table you do not sit at names the one you do (e.g.
    your thread's), and a move typed at a table where it is not your turn says where your turn
    is"."""
    import inspect

    from bot.service import SeatedElsewhere, TableService
    from cogs.presenter import Presenter

    assert "the turn ping of a short clock says so" in FLAT
    ping = inspect.getsource(Presenter.turn_started)
    assert "`/ofc sitin` gives the whole clock back now" in ping
    assert "0 < t.rules.away_timer < seconds" in ping
    assert "a command in a channel whose table you do not sit at names the one you do" in FLAT
    text = str(SeatedElsewhere([(G, 55)], here=True))
    assert text.startswith("You are not seated at this table: you play at the one in <#55>")
    assert "says where your turn is" in FLAT
    assert " Your turn is at " in inspect.getsource(TableService._turn_elsewhere)
