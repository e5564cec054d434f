"""``/ofc history mine:true``: a member's own last hands at every table of the server (open or
closed, any channel), newest first, privately, with a menu that shows any of them again
(showdown and replay), through the real discord.py client."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from engine.notation import signed, signed_amount

from .conftest import World, fill_move, make_world, panel_cards
from .fakediscord import FakeChannel, FakeMessage

pytestmark = pytest.mark.e2e


async def play_hand(w: World, chan: FakeChannel, variant: str, stake: int = 1) -> Any:
    """Alice opens a ``variant`` table in ``chan``, Bob joins, and they play hand #1 to its
    showdown; the table."""
    await w.fake.slash(w.alice, chan, "ofc new", options={"variant": variant, "stake": stake})
    await w.fake.slash(w.bob, chan, "ofc join")
    await w.fake.slash(w.alice, chan, "ofc start")
    t = w.service.table_in_channel(chan.id)
    await w.fake.wait_until(lambda: t.hand is not None, 5, "the deal")
    while t.hand is not None and t.row.hand_no == 1:
        acted = False
        for who in (w.alice, w.bob):
            seat = t.seat_of_user(who.id)
            hs = t.hand_seat_of(seat.seat_no) if seat is not None else None
            if t.hand is None or t.row.hand_no != 1 or hs is None or not t.hand.may_act(hs):
                continue
            cards = panel_cards((await w.fake.slash(who, chan, "ofc hand")).content)
            r = await w.fake.slash(who, chan, "ofc place", options={
                "move": fill_move(t, hs, cards)})
            assert r.content.startswith("✅"), r.content
            acted = True
        if not acted:
            await asyncio.sleep(0.05)
    return t


async def showdown_in(w: World, chan: FakeChannel) -> FakeMessage:
    return await w.fake.wait_for_message(
        chan, lambda m: "Showdown — hand #1**" in (m.content or ""), timeout=30,
        include_existing=True)


async def test_my_hands_list_every_table_and_show_any_of_them_again(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "my-hands",
                          next_hand_delay=60) as w:
        await w.start_bot()
        r = await w.slash(w.alice, "ofc history", mine=True)
        assert r.ephemeral and r.content == "You have not finished a hand in this server yet."

        first = await play_hand(w, w.chan, "pineapple")
        live_first = await showdown_in(w, w.chan)
        other = w.fake.add_text_channel(w.guild, "ofc-2")
        await w.fake.wait_until(lambda: w.bot.get_channel(other.id) is not None, 5, "channel")
        second = await play_hand(w, other, "ofc", stake=2)
        await showdown_in(w, other)

        r = await w.slash(w.alice, "ofc history", mine=True)
        assert r.ephemeral
        lines = r.content.split("\n")
        assert lines[0] == "Your last 2 hands in this server, newest first:"
        assert lines[1].startswith(f"**#1** in <#{other.id}> · ofc · <t:")
        assert lines[2].startswith(f"**#1** in <#{w.chan.id}> · pineapple · <t:")
        assert lines[-1] == "Choose one in the menu to see its showdown again and replay it."
        stored = await w.store.player_hands(w.guild.id, w.alice.id, 5)
        for line, hand in zip(lines[1:3], stored, strict=True):
            res = hand.result
            assert f" — {signed_amount(res.points, 'pt')}, {signed(res.units)} u" in line, line
        menu = r.message.select_menu("ofc:mh")
        assert [o["value"] for o in menu["options"]] == [f"{second.id}:1", f"{first.id}:1"]
        assert [o["label"] for o in menu["options"]] == [
            f"#1 · ofc · {signed_amount(stored[0].result.points, 'pt')}",
            f"#1 · pineapple · {signed_amount(stored[1].result.points, 'pt')}"]
        # each option says where (the channel's name) and when (UTC: a menu has no timestamps)
        assert [o["description"].split(" · ")[0] for o in menu["options"]] == ["#ofc-2", "#ofc"]
        assert all(re.fullmatch(r"#[\w-]+ · \d\d \w{3} \d{4}, \d\d:\d\d UTC", o["description"])
                   for o in menu["options"])

        # the pineapple hand again: its posted showdown, with the replay's button
        choice = await w.select(w.alice, r.message, "ofc:mh", [f"{first.id}:1"])
        # the menu's message is sent again unchanged (Discord then clears the choice, so the
        # same hand can be chosen again), and the hand follows privately
        assert choice.deferred and choice.message is r.message
        await w.fake.wait_until(lambda: r.message.edited_ms is not None, 5, "the menu again")
        assert r.message.select_menu("ofc:mh")["options"] == menu["options"]
        [shown] = choice.followups
        assert shown.ephemeral
        assert re.match(rf"Hand #1 at <#{w.chan.id}>, <t:\d+:f>:\n", shown.content)
        assert shown.content.endswith(live_first.content)
        assert [data for _, data in shown.files] == [data for _, data in live_first.files]
        assert [b["label"] for b in shown.buttons()] == ["⏪ Replay: round 1", "Review my play"]
        again = await w.select(w.alice, r.message, "ofc:mh", [f"{first.id}:1"])
        assert again.followups[0].content == shown.content
        # replayed round by round and back to its showdown, it still says where it was played
        step = await w.click(w.alice, shown, label="⏪ Replay: round 1")
        heading = rf"Hand #1 at <#{w.chan.id}>, <t:\d+:f>"
        assert re.match(heading + r" — round 1 of 5 \(replay\):\n", step.content or ""), \
            step.content
        step = await w.click(w.alice, step.message, label="Round 2 ▶")
        assert re.match(heading + r" — round 2 of 5 \(replay\):\n", step.content or "")
        step = await w.click(w.alice, step.message, label="🏁 Showdown")
        assert step.content == shown.content

        # count, and a member with other hands: their own only
        r = await w.slash(w.bob, "ofc history", mine=True, count=1)
        assert r.content.split("\n")[0] == "Your last hand in this server, newest first:"
        assert len([x for x in r.content.split("\n") if x.startswith("**#")]) == 1
        r = await w.slash(w.carol, "ofc history", mine=True)
        assert r.content == "You have not finished a hand in this server yet."
        r = await w.slash(w.alice, "ofc history", mine=True, hand=1)
        assert r.ephemeral and r.content.startswith("⚠️ `hand` is a hand of this channel's table")

        # the menu still works after a restart (each option names its table and hand)
        menu_message = (await w.slash(w.alice, "ofc history", mine=True)).message
        await w.stop_bot()
        await w.start_bot()
        choice = await w.select(w.alice, menu_message, "ofc:mh", [f"{second.id}:1"])
        shown = choice.followups[0]
        assert re.match(rf"Hand #1 at <#{other.id}>, <t:\d+:f>:\n", shown.content), \
            shown.content
        w.fake.assert_clean()


async def test_a_closed_tables_hand_and_a_practice_hand_are_listed(tmp_path: Any) -> None:
    """A hand of a table closed since is still listed and shown; a practice hand (one human
    against a bot) says so instead of units."""
    async with make_world(tmp_path, seed_factory=lambda: "my-hands-closed",
                          next_hand_delay=60) as w:
        await w.start_bot()
        t = await play_hand(w, w.chan, "pineapple")
        await showdown_in(w, w.chan)
        await w.slash(w.alice, "ofc close")
        await w.fake.wait_until(lambda: t.id not in w.service.tables, 20, "closed")
        r = await w.slash(w.bob, "ofc history", mine=True)
        assert r.content.split("\n")[1].startswith(f"**#1** in <#{w.chan.id}> · pineapple")
        shown = await w.select(w.bob, r.message, "ofc:mh", [f"{t.id}:1"])
        assert "Showdown — hand #1**" in shown.followups[0].content

        stored = await w.store.player_hands(w.guild.id, w.bob.id, 5)
        assert len(stored) == 1 and stored[0].result.counted
        from bot.store import HandResult, PlayerHand
        from cogs.views import my_hand_line

        practice = PlayerHand(table_id=t.id, channel_id=w.chan.id, number=3, variant="ofc", stake=1,
                              finished_at=0.0, result=HandResult(
                                  user_id=w.bob.id, seat_no=0, name="bob", points=7, units=0,
                                  fouled=False, fantasyland=True, counted=False))
        assert my_hand_line(practice) == (
            f"**#3** in <#{w.chan.id}> · ofc · <t:0:f> — +7 pts (practice) 🌴 fantasyland")
        w.fake.assert_clean()


async def test_a_private_threads_spectator_replays_a_hand_from_the_thread(tmp_path: Any) -> None:
    """Carol, a member of the private thread where alice and bob played, asks for hand #1 there
    and replays it: the bot cannot tell a private thread's members, but she asks from the
    thread itself (``views.past_hand_for``; one not in the thread is refused: the review's
    forged-menu test)."""
    async with make_world(tmp_path, seed_factory=lambda: "my-hands-thread",
                          next_hand_delay=60) as w:
        await w.start_bot()
        secret = w.fake.add_thread(w.chan, "Secret OFC", owner=w.alice, private=True,
                                   members=[w.bob, w.carol, w.fake.bot])
        await asyncio.sleep(0.2)  # (THREAD_CREATE reaches the bot's cache)
        await play_hand(w, secret, "pineapple")
        await showdown_in(w, secret)
        r = await w.fake.slash(w.carol, secret, "ofc history", options={"hand": 1})
        assert r.ephemeral and r.content.startswith("Hand #1 at this table"), r.content
        click = await w.click(w.carol, r.message, label="⏪ Replay: round 1")
        assert click.message is not None
        assert click.message.content.startswith("Hand #1 at this table, <t:"), click.message.content
        assert "round 1 of" in click.message.content
        w.fake.assert_clean()



async def test_history_file_is_your_hands_as_csv_and_only_yours(tmp_path: Any) -> None:
    """``/ofc history file:true``: a CSV file, privately, one line a hand (here two tables,
    a pineapple hand with stakes and a chinese one), with the player's own rows as set and
    nothing of the other player's cards; someone without hands is told so."""
    import csv
    import io

    async with make_world(tmp_path, seed_factory=lambda: "export",
                          next_hand_delay=60) as w:
        await w.start_bot()
        second = w.fake.add_text_channel(w.guild, "chinese")
        pine = await play_hand(w, w.chan, "pineapple", stake=2)
        await showdown_in(w, w.chan)
        china = await play_hand(w, second, "chinese", stake=0)
        await showdown_in(w, second)
        r = await w.slash(w.alice, "ofc history", file=True)
        await w.fake.wait_followups(r, 1)
        sent = r.followups[0]
        assert sent.ephemeral and "Your 2 hands in this server, newest first" in sent.content
        ((name, data),) = sent.files
        assert name == f"ofc-hands-{w.alice.id}.csv"
        lines = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
        assert [(int(x["table"]), int(x["hand"]), x["game"]) for x in lines] == [
            (china.id, 1, "chinese"), (pine.id, 1, "pineapple")]
        for line, t in zip(lines, (china, pine), strict=True):
            res = t.last_result
            mine = res.user_ids.index(w.alice.id)
            theirs = res.user_ids.index(w.bob.id)
            board = res.settlement.boards[mine]
            assert (line["top"], line["middle"], line["bottom"]) == tuple(
                " ".join(str(c) for c in row) for row in (board.top, board.middle, board.bottom))
            shown = " ".join((line["top"], line["middle"], line["bottom"])).split()
            assert not set(shown) & {str(c) for c in res.settlement.boards[theirs].cards}
            assert int(line["points"]) == res.settlement.totals[mine]
            assert line["finished_utc"].endswith("Z") and line["players"] == "2"
        assert lines[1]["stake"] == "2" and lines[1]["practice"] == "0"
        assert int(lines[1]["units"]) == 2 * int(lines[1]["points"])
        r = await w.slash(w.carol, "ofc history", file=True)
        await w.fake.wait_followups(r, 1)
        assert "You have not finished a hand in this server yet." in r.followups[0].content
        r = await w.slash(w.alice, "ofc history", file=True, hand=1)
        assert r.ephemeral and "leave out `hand`" in r.content
