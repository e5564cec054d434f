"""Review: can a player who uses a screen reader, or plays on a phone, play a whole evening here?

The player imagined: Noor plays by ear with a screen reader (NVDA on the desktop app in the
evening, VoiceOver on her phone when she is away from it). She never sees a picture: she hears
its alt text (the attachment's description) and reads the message's text twin, line by line;
a button is its label, a menu option its label and description. She is slower than a sighted
player (a menu of cards takes her a while), and she often types her moves (`/ofc place`)
rather than tapping through the panel. On the phone she cannot afford a wrong tap.

Reviewed through the real bot against the stand-in Discord: the table message and its status
line, turn pings, the private panel (text, menu, buttons, picture and alt text), a fantasyland
hand by DM, typed moves and their errors, a timeout and the short clock after it, the showdown
of four players with long names, its replay's buttons, `/ofc history`, `/ofc recap` and the idle
warning.  The review found 8 defects, all fixed since: a test whose docstring starts "Was a
defect (fixed)" says what she met and what she should meet (and now does); the other tests pin
what already worked for her.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from bot.store import HandResult
from engine.autoplay import choose_placement
from engine.notation import format_move

from .conftest import World, hs_of, make_world, panel_cards, table_of
from .fakediscord import FakeMessage, FakeUser
from .test_alt_text import alt

pytestmark = pytest.mark.e2e

FIXED_CLOCK = re.compile(r"\b\d+:\d\d left\b")
"""A countdown written as text ("0:59 left"): true only at the moment it was written."""

LONG_NAMES = ("Alexandra_of_the_Northern_Isles", "Bartholomew_the_Magnificent_III",
              "Cassandra_Who_Saw_It_All_Coming", "Dominic_the_Dealer_of_Last_Hope")
"""Four players with long display names (32 characters at most, as Discord allows)."""


def user_of(w: World, user_id: int) -> FakeUser:
    return next(u for u in w.users.values() if u.id == user_id)


def acting_user(w: World) -> FakeUser:
    t = table_of(w)
    hs = list(t.hand.to_act())[0]
    return user_of(w, t.seat_by_no(t.hand_seats[hs]).user_id)


async def play_out(w: World) -> None:
    """Every decision of the hand being played typed by its player: the engine's plain safe
    move (deterministic for the table's seed), confirmed even if it fouls."""
    t = table_of(w)
    hand_no = t.row.hand_no
    while True:
        t = table_of(w)
        if t.hand is None or t.row.hand_no != hand_no or t.hand.is_over:
            return
        acting = list(t.hand.to_act())
        if not acting:
            await asyncio.sleep(0.05)
            continue
        hs = acting[0]
        user = user_of(w, t.seat_by_no(t.hand_seats[hs]).user_id)
        placed, discards = choose_placement(t.hand, hs, t.hand.requirement(hs), plain=True)
        r = await w.slash(user, "ofc place", move=format_move(placed, discards) + " foul")
        assert r.content.startswith("✅"), r.content


async def showdown_of(w: World, hand_no: int = 1) -> FakeMessage:
    return await w.fake.wait_for_message(
        w.chan, lambda m: f"Showdown — hand #{hand_no}**" in (m.content or ""),
        include_existing=True, timeout=15)


async def four_long_names_at_showdown(w: World) -> tuple[FakeMessage, list[FakeMessage]]:
    """Four players with long names play hand #1 of an ofc table to its showdown: the
    showdown message and the channel's messages after it (its continuation, if any)."""
    players = [w.users[n] for n in LONG_NAMES]
    await w.start_bot()
    await w.slash(players[0], "ofc new", variant="ofc", seats=4)
    for p in players[1:]:
        await w.slash(p, "ofc join")
    await w.slash(players[0], "ofc start")
    await play_out(w)
    showdown = await showdown_of(w)
    await asyncio.sleep(0.3)
    after = [m for m in w.fake.messages(w.chan, include_ephemeral=False)
             if m.id > showdown.id and not m.attachments]
    return showdown, after


# --------------------------------------------------------------------------- what works
async def test_turn_panel_and_typed_moves_work_without_seeing_a_picture(tmp_path: Any) -> None:
    """Noor's turn, by ear: the table message starts with whose turn it is and when the clock
    runs out (a Discord timestamp, counting down in her own client, never a frozen "0:42");
    the ping says what to do and that it can be typed; her panel's text names her cards, the
    card menu reads each card in words ("ace of clubs"), every button has a word for a label,
    and her picks are said in text.  A typed move that is wrong says exactly what was wrong."""
    async with make_world(tmp_path, seed_factory=lambda: "acc-1") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="pineapple")
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        me = acting_user(w)
        ping = await w.fake.wait_for_message(
            w.chan, lambda m: "your turn" in (m.content or "") and me.id in m.pinged,
            include_existing=True)
        assert re.search(r"\(time runs out <t:\d+:R>\)", ping.content), ping.content
        assert "/ofc place" in ping.content and ping.buttons()[0]["label"] == "Open my panel"
        await w.fake.wait_until(
            lambda: any((m.content or "").startswith("Hand #1, round 1 of 5. To act: ")
                        for m in w.fake.messages(w.chan)), 5, "the table message")
        table = next(m for m in w.fake.messages(w.chan)
                     if (m.content or "").startswith("Hand #1, round 1 of 5. To act: "))
        status = table.content.split("\n", 1)[0]
        assert re.fullmatch(rf"Hand #1, round 1 of 5\. To act: \*\*{me.name}\*\* "
                            r"\(time runs out <t:\d+:R>\)", status), status
        assert not FIXED_CLOCK.search(table.content)

        panel = await w.slash(me, "ofc hand")
        cards = panel_cards(panel.content)
        assert re.search(r"time runs out <t:\d+:R>", panel.content)
        options = panel.message.selects()[0]["options"]
        assert [o["value"] for o in options] == cards
        words = {"2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7", "8": "8", "9": "9",
                 "T": "ten", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
        suits = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
        assert [o["description"] for o in options] == [
            f"{words[c[0]]} of {suits[c[1]]}" for c in cards]
        assert all(re.search(r"[A-Za-z]{3}", b.get("label") or "")
                   for b in panel.message.buttons()), panel.message.buttons()
        picked = await w.select(me, panel, None, cards[:2])
        assert f"Selected: {cards[0]} {cards[1]} — press a row." in picked.content
        bottom = await w.click(me, picked, label="Bottom")
        assert f"Chosen so far: bottom: {cards[0]} {cards[1]}" in bottom.content

        for move, said in (
            ("ace of hearts top", "'ace' is not a card: write a rank (2-9, T or 10, J, Q, K, "
                                  "A) then a suit"),
            (f"{cards[0]} {cards[1]} {cards[2]} {cards[3]} top {cards[4]} bottom",
             "The top row has room for 3 more cards, not 4."),
            (f"{cards[0]} topp", "'topp' is not a row: use top, middle or bottom"),
            (" ".join(cards), f"{' '.join(cards)} have no row: write top, middle, bottom "
                              "after them."),
        ):
            r = await w.slash(me, "ofc place", move=move)
            assert r.ephemeral and said in r.content, (move, r.content)
        w.fake.assert_clean()


async def test_a_long_four_player_showdown_keeps_every_result_in_its_text(
    tmp_path: Any,
) -> None:
    """Four players with 32-character names: the showdown's text is longer than one message,
    and every board and every pair's result is still there, the rest in the next message."""
    async with make_world(tmp_path, names=LONG_NAMES, seed_factory=lambda: "acc-5") as w:
        showdown, after = await four_long_names_at_showdown(w)
        text = "\n".join([showdown.content, *(m.content for m in after)])
        assert after, "the showdown fits one message: the case below is not reached"
        pairs = [ln for ln in text.split("\n") if " vs " in ln and " → " in ln]
        assert len(pairs) == 6, pairs
        assert all(len(m.content) <= 2000 for m in (showdown, *after))


# --------------------------------------------------------------------------- defects
async def test_the_hand_pictures_alt_text_says_a_countdown_that_never_moves(
    tmp_path: Any,
) -> None:
    """Was a defect (fixed).

    Noor opens her panel; later, with seconds to spare, she checks the picture: VoiceOver
    says "Picture of your hand: bob — Place 5 cards (0:59 left)", and it still says 0:59 when
    her clock has all but run out (the fantasyland hand by DM: "(1:59 left)", for good). The
    message's text gives the deadline as a Discord timestamp that counts down, and the table's
    text leaves "0:42 left" out for this very reason (``presenter.for_message``). The alt text
    should give no fixed countdown (or the deadline as it is, not a time left)."""
    async with make_world(tmp_path, seed_factory=lambda: "acc-alt-clock") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        t = table_of(w)
        await w.store.update_table(t.id, extra={"fantasyland": {"0": 13}})
        await w.service._refresh(t)
        await w.slash(w.alice, "ofc start")
        dm = await w.fake.wait_for_message(
            w.alice, lambda m: "Fantasyland" in (m.content or ""), include_existing=True)
        panel = await w.slash(w.bob, "ofc hand")
        assert "Place 5 cards" in alt(panel.message)
        assert not FIXED_CLOCK.search(alt(panel.message)), alt(panel.message)
        assert not FIXED_CLOCK.search(alt(dm)), alt(dm)


async def test_the_replays_disabled_arrow_buttons_have_no_words(tmp_path: Any) -> None:
    """Was a defect (fixed).

    Noor presses *Replay* under a showdown. On round 1 her screen reader lists the buttons
    "black left-pointing triangle, dimmed", "Round 2 ▶", "🏁 Showdown"; on the last round
    "Round 8 …", "black right-pointing triangle, dimmed". A button that is only an arrow says
    nothing of what it is for, or why it is dimmed. It should keep its words, e.g. "◀ Round 1"
    / "Round 9 ▶" dimmed, or "No earlier round" / "Last round"."""
    async with make_world(tmp_path, seed_factory=lambda: "acc-replay") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        await play_out(w)
        showdown = await showdown_of(w)
        first = await w.click(w.bob, showdown, label="Replay")
        assert "round 1 of 9 (replay)" in first.content
        labels = [b.get("label") or "" for b in first.message.buttons()]
        assert "Round 2 ▶" in labels, labels
        assert all(re.search(r"[A-Za-z]", label) for label in labels), labels


async def test_a_fantasyland_earned_is_said_only_by_a_palm_tree(tmp_path: Any) -> None:
    """Was a defect (fixed).

    Alice earned fantasyland in hand #1. Noor asks `/ofc history` and hears "alice plus 7
    pts palm tree; bob minus 7 pts"; `/ofc history mine` for alice ends "palm tree" too, and
    `/ofc recap` says "alice plus 7 points · 1 hand · palm tree 1". Nothing in those messages
    says what the palm tree means (the showdown says "Fantasyland! (13 cards)", the panel
    "🌴 Fantasyland"). The word should be there: "fantasyland", "1 fantasyland"."""
    async with make_world(tmp_path, seed_factory=lambda: "acc-palm") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=0)
        await w.slash(w.bob, "ofc join")
        t = table_of(w)
        hand = await w.store.create_hand(t.id, 1, "s", {"variant": "ofc"}, {})
        await w.store.finish_hand(hand.id, {}, [
            HandResult(user_id=w.alice.id, seat_no=0, name="alice", points=7, units=0,
                       fantasyland=True),
            HandResult(user_id=w.bob.id, seat_no=1, name="bob", points=-7, units=0),
        ], {})
        history = await w.slash(w.carol, "ofc history")
        mine = await w.slash(w.alice, "ofc history", mine=True)
        recap = await w.slash(w.carol, "ofc recap")
        lines = {
            "history": next(ln for ln in history.content.split("\n") if ln.startswith("**#1**")),
            "mine": next(ln for ln in mine.content.split("\n") if ln.startswith("**#1**")),
            "recap": next(ln for ln in recap.content.split("\n") if " alice " in ln),
        }
        assert all("🌴" in line for line in lines.values()), lines  # (it is there, in emoji)
        assert all("fantasyland" in line.lower() for line in lines.values()), lines


async def test_a_long_showdowns_alt_text_says_its_message_has_every_result(
    tmp_path: Any,
) -> None:
    """Was a defect (fixed).

    Four players with long names (the showdown's text takes two messages, as the test
    above shows). The picture's alt text says "The message's text has every board, royalty
    and result.", but its message ends after three of the six pairs' results: Noor, told she
    has it all, does not look for the next message, where the other three are (who beat whom
    for Bartholomew, Cassandra and Dominic). The alt text should say the results go on in the
    next message (or not claim they are all here)."""
    async with make_world(tmp_path, names=LONG_NAMES, seed_factory=lambda: "acc-5") as w:
        showdown, after = await four_long_names_at_showdown(w)
        assert after
        assert alt(showdown).endswith("every board, royalty and result.")
        pairs_here = [ln for ln in showdown.content.split("\n") if " vs " in ln]
        assert len(pairs_here) < 6
        assert "The message's text has every board, royalty and result" not in alt(showdown)


async def test_the_fantasyland_dm_does_not_say_the_set_can_be_typed(tmp_path: Any) -> None:
    """Was a defect (fixed).

    Noor is dealt a fantasyland: 13 cards by DM, to set with the menu (pick 3, Top, pick
    5, Middle, pick 5, Bottom, Confirm: seven menus and buttons, against a 2-minute clock).
    The one command `/ofc place move:Qh Qd 2s top ... bottom` in the table's channel does it
    at once, and every turn ping says "or use `/ofc place`", but a fantasyland player gets no
    turn ping, and the DM says only "Pick cards in the menu, press a row, then Confirm" (and
    `/ofc` commands cannot be used in a DM). The DM should say she may type the whole set with
    `/ofc place` in the table's channel."""
    async with make_world(tmp_path, seed_factory=lambda: "acc-fl-typed") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        t = table_of(w)
        await w.store.update_table(t.id, extra={"fantasyland": {"0": 13}})
        await w.service._refresh(t)
        await w.slash(w.alice, "ofc start")
        dm = await w.fake.wait_for_message(
            w.alice, lambda m: "Fantasyland" in (m.content or ""), include_existing=True)
        await asyncio.sleep(0.3)
        assert not [m for m in w.fake.messages(w.chan)
                    if "your turn" in (m.content or "") and w.alice.id in m.pinged]
        assert "/ofc place" in dm.content, dm.content


async def test_the_short_clock_ping_does_not_say_how_to_get_the_whole_clock(
    tmp_path: Any,
) -> None:
    """Was a defect (fixed).

    Noor's first decision (five cards, 60 s) takes her longer than the clock: the AI plays
    it and the channel says "They play on in this hand (10 s a decision until they act again)
    and sit out from the next hand (`/ofc sitin` to come back)". Her next ping says only
    "your turn — place 2, discard 1 (time runs out in 10 seconds)": she cannot open a panel,
    pick and confirm in 10 s, so the clock plays her whole hand. `/ofc sitin` would give her
    the whole clock at once, but nothing tells her that ("to come back" reads as about the
    next hand). The short clock's ping should say it is short and that `/ofc sitin` gives the
    whole clock back now."""
    async with make_world(tmp_path, seed_factory=lambda: "acc-6") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="pineapple")
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        slow = acting_user(w)
        other = w.alice if slow is w.bob else w.bob
        w.clock.offset += 61
        w.service.rearm()
        await w.fake.wait_for_message(
            w.chan, lambda m: "Time ran out" in (m.content or ""), include_existing=True,
            timeout=10)
        t = table_of(w)
        await w.fake.wait_until(lambda: acting_user(w) is other, 10, "the other's turn")
        placed, discards = choose_placement(t.hand, hs_of(w, other),
                                            t.hand.requirement(hs_of(w, other)), plain=True)
        r = await w.slash(other, "ofc place", move=format_move(placed, discards) + " foul")
        assert r.content.startswith("✅"), r.content
        ping = await w.fake.wait_for_message(
            w.chan, lambda m: "your turn — place 2, discard 1" in (m.content or "")
            and slow.id in m.pinged, include_existing=True, timeout=10)
        left = t.deadlines[hs_of(w, slow)] - w.clock()
        assert left <= 10, left
        assert "/ofc sitin" in ping.content, ping.content


async def test_the_idle_warning_says_its_deadline_as_a_fixed_text(tmp_path: Any) -> None:
    """Was a defect (fixed).

    The table has been quiet a long while; the channel is warned "⏳ ... so this table
    closes in 1 hour ... unless a hand is dealt or someone sits down or in". Noor reads it
    forty minutes later (a screen reader takes the channel's backlog in order) and still
    hears "in 1 hour": she cannot tell whether she has minutes or an hour. Every other
    deadline of the bot is a Discord timestamp (`<t:…:R>`), which says "in 20 minutes" in her
    client when she reads it; this one should be too."""
    async with make_world(tmp_path, seed_factory=lambda: "acc-idle", idle_check=0.05) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        w.clock.offset += 23.2 * 3600
        warning = await w.fake.wait_for_message(
            w.chan, lambda m: (m.content or "").startswith("⏳"), include_existing=True,
            timeout=10)
        assert re.search(r"closes <t:\d+:R>", warning.content), warning.content


async def test_the_panel_text_says_a_row_has_room_its_chosen_cards_fill(tmp_path: Any) -> None:
    """Was a defect (fixed).

    Noor picks three cards and presses Top; the picture shows them in the top row (faint,
    until Confirm). She picks a fourth card: the panel's text says "Board — top: - (0/3) |
    ..." and the Top button is live, so she presses it and is told "The top row is full."
    (in a new message under the panel). The text should count the chosen cards in the room
    left ("top: … (3/3)"), or the Top button should be dimmed when the top has no room."""
    async with make_world(tmp_path, seed_factory=lambda: "acc-1") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="pineapple")
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        me = acting_user(w)
        panel = await w.slash(me, "ofc hand")
        cards = panel_cards(panel.content)
        r = await w.select(me, panel, None, cards[:3])
        r = await w.click(me, r, label="Top")
        assert f"Chosen so far: top: {' '.join(cards[:3])}" in r.content
        r = await w.select(me, r, None, cards[3:4])
        board = next(ln for ln in r.content.split("\n") if ln.startswith("Board — "))
        top_live = not r.message.button("Top").get("disabled")
        full = await w.click(me, r, label="Top") if top_live else None
        assert full is None or "The top row is full" in full.content
        assert not top_live or "top: - (0/3)" not in board, (board, top_live)
        assert f"top: - + chosen {' '.join(cards[:3])} (3/3)" in board and not top_live
