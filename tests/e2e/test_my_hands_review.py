"""A review of ``/ofc history mine:true`` (commit 130bdbc) through the real discord.py client:
the list (order, count, lines split over Discord's 2,000 characters, the tags of every variant,
practice, a voided hand, other members, other servers, bots), the menu under it (at most 25
options within Discord's limits, the showdown again with its replay, hidden cards kept hidden)
and what a forged menu value gets (a modified client: Discord's own sends the menu's values).

Confirmed defects are ``xfail(strict=True)`` tests whose docstring starts with "Defect:"."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from bot.store import HandResult
from engine.notation import signed, signed_amount

from .conftest import World, fill_move, make_world, panel_cards
from .fakediscord import (
    CB_DEFERRED_UPDATE,
    CT_STRING_SELECT,
    IT_COMPONENT,
    FakeChannel,
    FakeInteraction,
    FakeUser,
    Perm,
)
from .test_my_hands import play_hand, showdown_in
from .test_past_hands_review import (
    ALICE_SET,
    BOB_DRAGON,
    CAROL,
    DAVE_FOUL,
    four_at_chinese,
    four_deck,
    named,
)

pytestmark = pytest.mark.e2e

LINE = re.compile(r"^\*\*#(\d+)\*\* in <#(\d+)> · (ofc|pineapple|chinese) · <t:(\d+):f> — (.*)$")


# --------------------------------------------------------------------------- helpers
async def mine(w: World, who: FakeUser, chan: FakeChannel | None = None,
               **options: Any) -> tuple[FakeInteraction, list[str]]:
    """``/ofc history mine:true`` and every message of its answer (follow-ups included)."""
    r = await w.fake.slash(who, chan or w.chan, "ofc history", options={"mine": True, **options})
    await asyncio.sleep(0.3)  # (a long list's follow-ups)
    return r, [m.content or "" for m in r.messages]


def hand_lines(texts: list[str]) -> list[str]:
    return [x for t in texts for x in t.split("\n") if x.startswith("**#")]


async def forge(w: World, user: FakeUser, source: Any, values: list[str]) -> FakeInteraction:
    """A choice in the ``ofc:mh`` menu as a modified client could send it (any values)."""
    data = {"custom_id": "ofc:mh", "component_type": CT_STRING_SELECT, "values": values}
    rec = w.fake._new_interaction(IT_COMPONENT, user, source.channel, data, source=source)
    return await w.fake._dispatch_interaction(rec, wait=True, timeout=10)


def sent(rec: FakeInteraction) -> list[Any]:
    """The messages an answer sent: a hand chosen in the menu comes as a follow-up (the menu's
    own message is sent again, unchanged, to clear the choice); a refusal is the answer."""
    return rec.followups if rec.callback_type == CB_DEFERRED_UPDATE else rec.messages


def said(rec: FakeInteraction) -> str:
    return "\n".join(m.content or "" for m in sent(rec))


def refused(rec: FakeInteraction, words: str = "") -> None:
    text = said(rec)
    assert rec.ok and rec.ephemeral and text.startswith("⚠️"), text
    assert not rec.files, text
    assert words in text, (words, text)


async def seed_table(w: World, guild_id: int, channel_id: int, variant: str,
                     players: tuple[int, int], hands: list[tuple[float, int, dict[str, Any]]],
                     ) -> int:
    """A table (closed afterwards) whose hands were settled straight in the store: for each
    ``(finished_at, points of the first player, result fields of both)`` a hand, numbered
    from 1; the first player wins ``points`` units, the second loses them."""
    store = w.store
    for uid in players:
        await store.ensure_player(guild_id, uid, f"p{uid}")
    table = await store.create_table(guild_id, channel_id, players[0], {"variant": variant},
                                     1, 500, 4, 10.0)
    for seat, uid in enumerate(players):
        await store.seat_player(table.id, seat, guild_id, uid, f"p{uid}", 500, 11.0)
    for number, (when, points, kw) in enumerate(hands, start=1):
        hand = await store.create_hand(table.id, number, "s", {"variant": variant}, {}, when)
        a, b = players
        results = [HandResult(user_id=a, seat_no=0, name=f"p{a}", points=points, units=points,
                              **kw),
                   HandResult(user_id=b, seat_no=1, name=f"p{b}", points=-points,
                              units=-points)]
        await store.finish_hand(hand.id, {}, results, {a: points, b: -points} if points else {},
                                when)
    await store.update_table(table.id, hand_no=len(hands))
    await store.update_table(table.id, status="closed")  # (cashes every seat out)
    return table.id


# --------------------------------------------------------------------------- the list
async def test_25_long_lines_split_with_the_menu_under_the_last_part(
    tmp_path: Any, errors: Any,
) -> None:
    """A hand played now and 30 older hands of alice at three closed tables (one in a thread,
    one in a channel deleted since, hands of two tables finished at the same times), 4 in
    another server: count 25 lists the newest 25 of this server (ties: the hand settled last
    first) in messages within 2,000 characters, the menu (25 options within Discord's limits,
    one a hand) under the last one only, and it still shows the hand after a restart; the
    default is 5; another member and another server see none of them."""
    async with make_world(tmp_path, seed_factory=lambda: "mhr-25", next_hand_delay=60) as w:
        await w.start_bot()
        played = w.fake.add_text_channel(w.guild, "ofc-live")
        await w.fake.wait_until(lambda: w.bot.get_channel(played.id) is not None, 5, "channel")
        real = await play_hand(w, played, "ofc")
        live = await showdown_in(w, played)
        a, d = w.alice.id, w.dave.id
        thread = w.fake.add_thread(w.chan, "Friday OFC", owner=w.alice)
        gone = 4_000_000_000_000_000_000  # (a channel deleted since: a snowflake only)
        base = 1_760_000_000.0
        long_tags = {"surrendered": True, "natural": "dragon", "fantasyland": True,
                     "ranked_points": -100}
        pine = await seed_table(w, w.guild.id, w.chan.id, "pineapple", (a, d), [
            (base + 60 * i, (-123 if i % 2 else 123), long_tags) for i in range(12)])
        chinese = await seed_table(w, w.guild.id, thread.id, "chinese", (a, d), [
            (base + 60 * i, (-45 if i % 2 else 45), {"fouled": True}) for i in range(12)])
        ofc = await seed_table(w, w.guild.id, gone, "ofc", (a, d), [
            (base + 10_000 + i, 0, {"counted": False}) for i in range(6)])
        await seed_table(w, w.guild.id + 1, gone + 1, "ofc", (a, d), [
            (base + 20_000 + i, 7, {}) for i in range(4)])  # another server

        r, texts = await mine(w, w.alice, count=25)
        assert r.ephemeral and len(r.messages) == 2 and all(m.ephemeral for m in r.messages)
        assert all(len(t) <= 2000 for t in texts), [len(t) for t in texts]
        assert texts[0].split("\n")[0] == "Your last 25 hands in this server, newest first:"
        assert texts[-1].endswith("Choose one in the menu to see its showdown again and "
                                  "replay it (an ofc or pineapple hand).")  # (chinese: none)
        assert not r.messages[0].selects()
        lines = hand_lines(texts)
        assert len(lines) == 25
        parsed = [LINE.match(x) for x in lines]
        assert all(parsed), lines
        got = [(int(m[2]), int(m[1])) for m in parsed if m]
        # newest first: the hand played now, the ofc table's six, then the two tables' hands
        # 12..1 (same times: the chinese hand, settled after the pineapple one, first)
        expected = [(played.id, 1)] + [(gone, n) for n in range(6, 0, -1)]
        for n in range(12, 0, -1):
            expected += [(thread.id, n), (w.chan.id, n)]
        assert got == expected[:25], got
        assert parsed[1] is not None and int(parsed[1][4]) == int(base) + 10_005
        assert lines[1].endswith(" — 0 pts (practice)"), lines[1]
        assert lines[7].endswith(" — −45 pts, −45 u (foul)"), lines[7]
        assert lines[8].endswith(" — −123 pts, −123 u, −100 vs humans (surrendered) (dragon) "
                                 "🌴 fantasyland"), lines[8]
        assert lines[10].endswith(" — +123 pts, +123 u, −100 vs humans (surrendered) (dragon) "
                                  "🌴 fantasyland"), lines[10]

        menu = r.messages[-1].select_menu("ofc:mh")
        options = menu["options"]
        assert len(options) == 25 and menu.get("max_values", 1) == 1
        assert all(len(o["label"]) <= 100 and len(o.get("description", "")) <= 100
                   for o in options)
        by_channel = {played.id: real.id, gone: ofc, thread.id: chinese, w.chan.id: pine}
        assert [o["value"] for o in options] == [f"{by_channel[c]}:{n}" for c, n in got]
        assert options[8]["label"] == "#12 · pineapple · −123 pts", options[8]
        assert options[8]["description"] == "#ofc · 09 Oct 2025, 09:04 UTC", options[8]

        r2, texts = await mine(w, w.alice)
        assert len(r2.messages) == 1 and texts[0].startswith("Your last 5 hands")
        assert hand_lines(texts) == lines[:5]
        assert len(r2.message.select_menu("ofc:mh")["options"]) == 5
        r2, texts = await mine(w, w.dave, count=25)  # the other side of the same hands
        assert [int(m[2]) for m in map(LINE.match, hand_lines(texts)) if m][:6] == [gone] * 6
        assert hand_lines(texts)[7].endswith(" — +123 pts, +123 u"), hand_lines(texts)[7]
        r2, texts = await mine(w, w.bob, count=25)
        assert [int(m[2]) for m in map(LINE.match, hand_lines(texts)) if m] == [played.id]
        r2, texts = await mine(w, w.carol, count=25)
        assert texts == ["You have not finished a hand in this server yet."]

        # the menu under the last part (a follow-up) still answers after a restart
        await w.stop_bot()
        await w.start_bot()
        shown = await w.select(w.alice, r.messages[-1], "ofc:mh", [f"{real.id}:1"])
        assert re.match(rf"Hand #1 at <#{played.id}>, <t:\d+:f>:\n", said(shown)), said(shown)
        assert said(shown).endswith(live.content or "?")
        w.fake.assert_clean()
        assert not errors


# --------------------------------------------------------------------------- forged values
async def test_forged_menu_values_get_a_private_reason_and_show_nothing(
    tmp_path: Any, errors: Any,
) -> None:
    """Every value the menu never offers (garbage, another server's table, a table of none,
    hand 0, a hand not dealt, hand #2 being played, no value, several values) is a private
    refusal that names no card; a forged choice of the hand itself still shows it."""
    async with make_world(tmp_path, seed_factory=lambda: "mhr-forged",
                          next_hand_delay=0.05) as w:
        await w.start_bot()
        t = await play_hand(w, w.chan, "pineapple")
        live = await showdown_in(w, w.chan)
        await w.fake.wait_until(lambda: t.hand is not None and t.row.hand_no == 2, 10, "hand 2")
        dealt = {str(c) for hs in range(t.hand.n) for c in t.hand.pending[hs]}
        assert dealt
        far = await seed_table(w, w.guild.id + 1, 777, "ofc", (w.alice.id, w.bob.id),
                               [(1_700_000_000.0, 3, {})])
        r, _ = await mine(w, w.alice)
        src = r.message
        for values in (["a:b"], [""], ["1:"], [":1"], ["-1:1"], [f"{t.id}:-1"], ["1:2:3"],
                       [f" {t.id}:1"], [f"{t.id}:1.0"], []):
            refused(await forge(w, w.alice, src, values), "Choose a hand in the menu.")
        refused(await forge(w, w.alice, src, [f"{far}:1"]), "That table's record is gone.")
        refused(await forge(w, w.alice, src, ["0:1"]), "That table's record is gone.")
        refused(await forge(w, w.alice, src, [f"{t.id}:0"]), "Hands are numbered from 1.")
        refused(await forge(w, w.alice, src, [f"{t.id}:{'9' * 40}"]), "There is no hand #")
        rec = await forge(w, w.alice, src, [f"{t.id}:2"])
        refused(rec, "Hand #2 is being played")
        assert not named(said(rec), dealt)
        rec = await forge(w, w.alice, src, [f"{t.id}:1", f"{t.id}:2"])  # the first only
        assert re.match(rf"Hand #1 at <#{w.chan.id}>, <t:\d+:f>:\n", said(rec)), said(rec)
        assert said(rec).endswith(live.content or "?")
        w.fake.assert_clean()
        assert not errors, [e.getMessage() for e in errors]


async def test_a_forged_huge_or_odd_digit_table_id_gets_a_clear_refusal(
    tmp_path: Any, errors: Any,
) -> None:
    """Was a defect: ``MyHandsSelect.callback`` (cogs/views.py) checked the value with
    ``str.isdigit()`` only, then ``int()`` and ``past_hand_at``: a table id over SQLite's
    64 bits ("99999999999999999999:1") makes ``Store.get_table`` raise OverflowError, and a
    digit ``int()`` cannot read ("²:1", isdigit() is True) raises ValueError: the member gets
    "Something went wrong on our side (error id ...)" and the log an unexpected error, not a
    refusal such as "Choose a hand in the menu." or "That table's record is gone.". Fixed:
    the value must be ASCII digits, and ``past_hand_at`` refuses a table id SQLite cannot
    hold as a record that is gone."""
    async with make_world(tmp_path, seed_factory=lambda: "mhr-huge") as w:
        await w.start_bot()
        await seed_table(w, w.guild.id, w.chan.id, "ofc", (w.alice.id, w.bob.id),
                         [(1_700_000_000.0, 3, {})])
        r, _ = await mine(w, w.alice)
        answers = {}
        for value in ("9" * 20 + ":1", "²:1"):
            rec = await forge(w, w.alice, r.message, [value])
            assert rec.ok and rec.ephemeral and not rec.files
            answers[value] = said(rec)
        assert all(a.startswith("⚠️") for a in answers.values()), answers
        assert not errors, [e.getMessage() for e in errors]


async def test_a_forged_value_does_not_show_a_private_threads_hand_to_a_non_member(
    tmp_path: Any, errors: Any,
) -> None:
    """Was a defect: the menu is "your own hands", but ``MyHandsSelect.callback`` (cogs/views.py)
    passed any "table:hand" to ``TableService.past_hand_at`` (bot/service.py), which checks
    only that the table is of this server: carol, who cannot see the private thread where
    alice and bob played, forges their table's hand in her menu and gets its showdown (names,
    every card, units). ``/ofc tables`` keeps that table from her (``_may_see``); the menu
    should refuse a hand the member did not play. Fixed: ``views.past_hand_for`` shows a hand
    to those who played it (``PastHand.players``) and to those who may view its channel (not a
    private thread), for the menu and the replay buttons alike (a button's custom_id must be
    one of its message's: discord.py ignores another, so those cannot be forged so)."""
    async with make_world(tmp_path, seed_factory=lambda: "mhr-private",
                          next_hand_delay=60) as w:
        await w.start_bot()
        secret = w.fake.add_thread(w.chan, "Secret OFC", owner=w.alice, private=True,
                                   members=[w.bob, w.fake.bot])
        await asyncio.sleep(0.2)  # (THREAD_CREATE reaches the bot's cache)
        t = await play_hand(w, secret, "ofc")
        live = await showdown_in(w, secret)
        assert not w.fake.channel_permissions(secret, w.carol) & Perm.VIEW_CHANNEL
        r, texts = await mine(w, w.alice, secret)  # alice's own: listed, shown
        assert hand_lines(texts)[0].startswith(f"**#1** in <#{secret.id}> · ofc · ")
        shown = await w.select(w.alice, r.message, "ofc:mh", [f"{t.id}:1"])
        assert said(shown).endswith(live.content or "?")
        await seed_table(w, w.guild.id, w.chan.id, "ofc", (w.carol.id, w.dave.id),
                         [(1_700_000_000.0, 3, {})])  # (carol's own hand: her menu)
        r, texts = await mine(w, w.carol)
        assert len(hand_lines(texts)) == 1 and not hand_lines(texts)[0].count(str(secret.id))
        rec = await forge(w, w.carol, r.message, [f"{t.id}:1"])
        assert rec.ok and rec.ephemeral
        assert "Showdown — hand #1" not in said(rec) and not rec.files, said(rec)
        refused(rec, "That hand was played where you cannot see it.")
        assert not errors


# --------------------------------------------------------------------------- variants
def totals_posted(showdown: str, name: str) -> tuple[int, int | None]:
    """A player's points and units as the posted showdown says them."""
    m = re.search(rf"^{name} — .*total ([+−-]\d+) points?(?:, ([+−-]\d+) units?)?",
                  showdown, re.M)  # ("total −1 point": one point is not "points")
    assert m, (name, showdown)

    def num(x: str) -> int:
        return int(x.replace("−", "-"))

    return num(m[1]), (num(m[2]) if m[2] else None)


async def test_chinese_dragon_surrender_and_foul_each_players_line_and_menu(
    tmp_path: Any, errors: Any,
) -> None:
    """Four at chinese (bob declares a dragon, carol surrenders, dave fouls): each member's
    own line says their points and units as the showdown posted them, with "(dragon)",
    "(surrendered)", "(foul)"; carol's menu shows the posted showdown (none of her cards, the
    dragon's shown), no replay buttons (a chinese hand); the plain ``/ofc history`` line is
    as before; ``mine`` with ``hand`` is refused."""
    async with make_world(tmp_path, seed_factory=lambda: "mhr-chinese",
                          deck_factory=four_deck, next_hand_delay=30) as w:
        t = await four_at_chinese(w)
        r = await w.slash(w.bob, "ofc declare", natural="dragon")
        assert "declared dragon" in r.content, r.content
        ask = await w.slash(w.carol, "ofc surrender")
        await w.click(w.carol, ask, label="Yes, surrender")
        await w.slash(w.dave, "ofc place", move=DAVE_FOUL)
        r, texts = await mine(w, w.bob)  # the hand is being played: nothing listed yet
        assert texts == ["You have not finished a hand in this server yet."]
        await w.slash(w.alice, "ofc place", move=ALICE_SET)
        live = await showdown_in(w, w.chan)
        posted = live.content or ""
        for who, tag in ((w.alice, ""), (w.bob, " (dragon)"), (w.carol, " (surrendered)"),
                         (w.dave, " (foul)")):
            points, units = totals_posted(posted, who.name)
            assert units is not None
            r, texts = await mine(w, who)
            assert r.ephemeral and texts[0].startswith("Your last hand in this server")
            (line,) = hand_lines(texts)
            m = LINE.match(line)
            assert m and m[1] == "1" and m[2] == str(w.chan.id) and m[3] == "chinese", line
            assert m[5] == f"{signed_amount(points, 'pt')}, {signed(units)} u{tag}", (
                who.name, line)
        r, _ = await mine(w, w.carol)
        shown = await w.select(w.carol, r.message, "ofc:mh", [f"{t.id}:1"])
        text = said(shown)
        # (the note to a player whose stack the hand emptied is left out, by design)
        assert shown.ephemeral and text.endswith(posted.split("\n💸")[0]), text
        assert not named(text, set(CAROL.split())), named(text, set(CAROL.split()))
        assert named(text, set(BOB_DRAGON.split())) == set(BOB_DRAGON.split())
        assert [b["label"] for b in sent(shown)[0].buttons()] == ["Review my play"]
        # the plain list: every seat, as the lines of /ofc history said before the feature
        r = await w.slash(w.dave, "ofc history")
        for who, tag in ((w.bob, " (dragon)"), (w.carol, " (surrendered)"),
                         (w.dave, " (foul)"), (w.alice, "")):
            points, units = totals_posted(posted, who.name)
            assert (f"{who.name} {signed_amount(points, 'pt')}, {signed(units)} u{tag}"
                    in r.content), r.content
        assert r.content.startswith("**#1** <t:"), r.content
        r = await w.slash(w.bob, "ofc history", mine=True, hand=1)
        assert r.ephemeral and r.content.startswith("⚠️ `hand` is a hand of this channel's "
                                                    "table") and not r.files
        w.fake.assert_clean()
        assert not errors


async def play_alone(w: World, chan: FakeChannel, number: int) -> None:
    """alice plays hand ``number`` of the table in ``chan`` (her moves by text) to its end."""
    t = w.service.table_in_channel(chan.id)
    for _ in range(400):
        if t.hand is None or t.row.hand_no != number or t.hand.is_over:
            return
        hs = t.hand_seat_of(t.seat_of_user(w.alice.id).seat_no)
        if hs is None or not t.hand.may_act(hs):
            await asyncio.sleep(0.05)
            continue
        cards = panel_cards((await w.fake.slash(w.alice, chan, "ofc hand")).content)
        r = await w.fake.slash(w.alice, chan, "ofc place", options={"move": fill_move(t, hs,
                                                                                      cards)})
        assert r.content.startswith("✅"), r.content
    raise AssertionError("the hand did not end")


async def test_practice_with_a_bot_a_voided_hand_a_deleted_channel_and_a_restart(
    tmp_path: Any, errors: Any,
) -> None:
    """alice and a bot (pineapple, practice): her line says "(practice)", the bot's results
    (stored) are in no member's list; the menu shows the practice showdown and its replay
    round by round; the channel deleted during hand #2 voids it: not listed, refused from a
    forged value; hand #1 is still listed (its channel a mention of the deleted one) and
    shown from a menu posted before a restart."""
    async with make_world(tmp_path, seed_factory=lambda: "mhr-practice", bot_delay=0.0,
                          next_hand_delay=0.05) as w:
        await w.start_bot()
        other = w.fake.add_text_channel(w.guild, "lobby")
        await w.slash(w.alice, "ofc new", variant="pineapple", stake=1)
        await w.slash(w.alice, "ofc addbot")
        r = await w.slash(w.alice, "ofc start")
        assert "is dealt" in r.content, r.content
        t = w.service.table_in_channel(w.chan.id)
        await play_alone(w, w.chan, 1)
        live = await showdown_in(w, w.chan)
        assert "Practice: no units moved." in (live.content or "")
        await w.fake.wait_until(lambda: t.hand is not None and t.row.hand_no == 2, 10, "hand 2")
        (bot_seat,) = [s for s in t.seats if s.is_bot]
        assert [h.number for h in await w.store.player_hands(w.guild.id, bot_seat.user_id,
                                                             5)] == [1]
        r, texts = await mine(w, w.alice, count=25)
        (line,) = hand_lines(texts)
        m = LINE.match(line)
        assert m and m[3] == "pineapple" and re.search(r" pts? \(practice\)$", m[5]), line
        points, _ = totals_posted(live.content or "", "alice")
        assert m[5] == f"{signed_amount(points, 'pt')} (practice)", line
        for who in (w.bob, w.carol):
            assert (await mine(w, who))[1] == ["You have not finished a hand in this server yet."]

        shown = await w.select(w.alice, r.message, "ofc:mh", [f"{t.id}:1"])
        assert said(shown).endswith(live.content or "?")
        assert "Practice: no units moved." in said(shown)
        step = await w.click(w.alice, sent(shown)[0], label="⏪ Replay: round 1")
        assert re.match(rf"Hand #1 at <#{w.chan.id}>, <t:\d+:f> — round 1 of \d \(replay\):", step.content or ""), \
            step.content
        back = await w.click(w.alice, step, label="🏁 Showdown")
        assert (back.content or "").endswith(live.content or "?")

        await w.fake.delete_channel(w.chan)
        await w.fake.wait_until(lambda: t.id not in w.service.tables, 10, "closed")
        assert [h.number for h in await w.store.player_hands(w.guild.id, w.alice.id, 25)] == [1]
        r, texts = await mine(w, w.alice, other, count=25)
        assert hand_lines(texts) == [line], texts  # (the deleted channel: its mention still)
        await w.stop_bot()
        await w.start_bot()
        refused(await forge(w, w.alice, r.message, [f"{t.id}:2"]), "Hand #2 was voided")
        shown = await w.select(w.alice, r.message, "ofc:mh", [f"{t.id}:1"])
        assert re.match(rf"Hand #1 at <#{w.chan.id}>, <t:\d+:f>:\n", said(shown)), said(shown)
        assert said(shown).endswith(live.content or "?")
        w.fake.assert_clean(allow_api_errors={10003})
        assert not errors, [e.getMessage() for e in errors]


async def test_with_a_bot_each_human_line_matches_the_plain_history(
    tmp_path: Any, errors: Any,
) -> None:
    """alice, bob and a bot (ofc, counted): each human's own line says what the plain
    ``/ofc history`` says of their seat (points, units, points against humans); the bot's
    result, stored, is nobody's line; the menu offers the one hand."""
    async with make_world(tmp_path, seed_factory=lambda: "mhr-bot", bot_delay=0.0,
                          next_hand_delay=60) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=2, seats=3)
        await w.slash(w.alice, "ofc addbot")
        t = await play_hand(w, w.chan, "ofc", stake=2)
        await showdown_in(w, w.chan)
        plain = (await w.slash(w.carol, "ofc history")).content or ""
        (row,) = [x for x in plain.split("\n") if x.startswith("**#1** ")]
        parts = dict(p.split(" ", 1) for p in row.split(" — ", 1)[1].split("; "))
        assert len(parts) == 3 and "vs humans" in parts["alice"] + parts["bob"], parts
        for who in (w.alice, w.bob):
            r, texts = await mine(w, who)
            (line,) = hand_lines(texts)
            m = LINE.match(line)
            assert m and m[5] == parts[who.name], (line, parts)
            assert [o["value"] for o in r.message.select_menu("ofc:mh")["options"]] == [
                f"{t.id}:1"]
        (bot_seat,) = [s for s in t.seats if s.is_bot]
        assert len(await w.store.player_hands(w.guild.id, bot_seat.user_id, 5)) == 1
        w.fake.assert_clean()
        assert not errors
