"""What players read and when: answers in time under a rate limit, nobody pinged for their own
leave, long answers split instead of cut (found by a review of the Discord-facing behaviour)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from tests.e2e.conftest import World, make_world, panel_cards


async def open_table(w: World, *others: Any, **options: Any) -> None:
    """The bot started, alice's table (ofc unless ``options`` say otherwise) with ``others``
    seated (bob when none), its first hand dealt."""
    await w.start_bot()
    await w.slash(w.alice, "ofc new", **{"variant": "ofc", **options})
    for who in others or (w.bob,):
        await w.slash(who, "ofc join")
    await w.slash(w.alice, "ofc start")


async def test_leave_answers_in_time_under_a_rate_limit(tmp_path: Any) -> None:
    """The public "left the table" notice waits at most NOTIFY_WAIT, as every command's
    messages do: a channel answering 429 (retry after 3.5 s) cost the 3-second answer."""
    async with make_world(tmp_path) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join", buyin=100)
        w.fake.inject_429("POST", r"/channels/\d+/messages", times=1, retry_after=3.5)
        r = await w.slash(w.bob, "ofc leave")
        assert r.latency < 2.0, r.latency
        assert "You left the table" in r.content
        assert await w.store.balance(w.guild.id, w.bob.id) == 1000
        # the notice still goes out once the channel takes messages again
        await w.fake.wait_for_message(w.chan, lambda m: "left the table" in (m.content or ""),
                                      include_existing=True)


async def test_leave_notices_name_but_do_not_ping_the_leaver(tmp_path: Any) -> None:
    async with make_world(tmp_path) as w:
        await open_table(w, w.bob, w.carol)
        await w.slash(w.carol, "ofc leave")  # in the hand: leaves after it
        await w.slash(w.bob, "ofc leave")
        await asyncio.sleep(0.3)
        posts = [r.payload for r in w.fake.requests
                 if r.method == "POST" and r.path.endswith("/messages") and r.payload
                 and "leave" in (r.payload.get("content") or "")]
        assert len(posts) == 2, posts
        for p in posts:
            assert "🚪 <@" in p["content"]  # named as a mention ...
            assert p.get("allowed_mentions", {}).get("parse") == []  # ... that pings nobody
            assert not p["allowed_mentions"].get("users")


async def test_history_lists_every_hand_asked_for(tmp_path: Any) -> None:
    """25 hands of long names do not fit one message: the rest come as follow-ups, cut
    between hands (it was cut at 1,990 characters, mid-line, with no word of it)."""
    async with make_world(tmp_path, seed_factory=lambda: "hist", next_hand_delay=0.01) as w:
        await open_table(w, stake=1)
        svc = w.service
        for n in range(1, 26):
            await w.fake.wait_until(
                lambda n=n: (t := svc.table_in_channel(w.chan.id)).hand is not None
                and t.row.hand_no == n, 10, f"hand {n}")
            await svc.surrender(w.chan.id, w.bob.id)
            await svc.surrender(w.chan.id, w.alice.id)
        await w.fake.wait_until(
            lambda: svc.table_in_channel(w.chan.id).row.hand_no == 26, 10, "hand 26")
        r = await w.slash(w.alice, "ofc history", count=25)
        messages = [r.content, *(m.content for m in await w.fake.wait_followups(r, 1))]
        *lines, hint = "\n".join(messages).split("\n")
        assert hint == ("`/ofc history hand:<number>` shows a hand's showdown again, and "
                        "replays it round by round.")
        assert [int(re.match(r"\*\*#(\d+)\*\*", ln).group(1)) for ln in lines] == \
            list(range(25, 0, -1))  # newest first, every one, whole lines
        assert all(len(m) <= 2000 for m in messages)
        # a time every reader sees in their own zone; a surrender is not also called a foul
        assert re.search(r"<t:\d+:f>", lines[0]) and "(surrendered)" in lines[0]
        assert "(foul)" not in "\n".join(lines)
        assert all(f.ephemeral for f in r.followups)


async def test_a_player_who_walked_away_gets_a_short_clock(tmp_path: Any) -> None:
    """After a clock ran out once, the same player's later decisions in that hand get
    the ``away_timer`` option's clock, 10 s (the others waited the whole clock at every street:
    in ofc up to 8 minutes);
    acting again gives the whole clock back.  The short clock survives a restart."""
    from engine import Rules

    AWAY_TIMER = Rules().away_timer
    async with make_world(tmp_path, seed_factory=lambda: "leaver-clock") as w:
        await open_table(w, timer=60)
        svc = w.service
        t = svc.table_in_channel(w.chan.id)
        r = await w.slash(w.bob, "ofc leave")
        assert "`/ofc surrender`" in r.content  # the way to end the wait at once
        bob = t.hand_seat_of(t.seat_of_user(w.bob.id).seat_no)
        alice = 1 - bob
        assert t.hand is not None and t.hand.to_act() == [bob]
        w.clock.offset += 61  # bob walked away: his clock runs out once
        svc.rearm()
        notice = await w.fake.wait_for_message(
            w.chan, lambda m: "Time ran out" in (m.content or ""), timeout=10,
            include_existing=True)
        assert f"{AWAY_TIMER:.0f} s a decision" in (notice.content or "")

        async def play_street(who: Any) -> None:  # 5 cards to the bottom, then the middle
            cards = panel_cards((await w.slash(who, "ofc hand")).content)
            row = "bottom" if len(cards) == 5 else "middle"
            r = await w.slash(who, "ofc place", move=f"{' '.join(cards)} {row}")
            assert r.content.startswith("✅"), r.content

        await play_street(w.alice)
        await w.fake.wait_until(lambda: t.hand is not None and t.hand.to_act() == [bob], 5,
                                "bob's turn")
        assert t.deadlines[bob] - w.clock() <= AWAY_TIMER
        # a restart keeps it (it is saved with the hand)
        await w.stop_bot()
        await w.start_bot()
        await w.fake.wait_for_message(
            w.chan, lambda m: "play resumes" in (m.content or ""), include_existing=True)
        t = w.service.table_in_channel(w.chan.id)
        assert bob in t.away and t.deadlines[bob] - w.clock() <= AWAY_TIMER
        # his short clock runs out too: played, but not announced (nor pinged) again
        w.clock.offset += AWAY_TIMER + 1
        w.service.rearm()
        await w.fake.wait_until(lambda: t.hand is not None and t.hand.to_act() == [alice], 5,
                                "bob played by the bot")
        await asyncio.sleep(0.2)
        assert len([m for m in w.fake.messages(w.chan) if "Time ran out" in (m.content or "")]) == 1
        await play_street(w.alice)
        await w.fake.wait_until(lambda: t.hand is not None and t.hand.to_act() == [bob], 5,
                                "bob's turn")
        assert t.deadlines[bob] - w.clock() <= AWAY_TIMER
        # bob comes back: /ofc sitin gives the whole clock to the decision in front of him
        await w.slash(w.bob, "ofc sitin")
        assert t.deadlines[bob] - w.clock() > 50 and bob not in t.away
        await play_street(w.bob)
        await play_street(w.alice)
        await w.fake.wait_until(lambda: t.hand is not None and t.hand.to_act() == [bob], 5,
                                "bob's turn")
        assert t.deadlines[bob] - w.clock() > 50 and alice not in t.away


async def test_a_card_another_panel_placed_is_named_and_the_panel_refreshed(
    tmp_path: Any,
) -> None:
    """Two panels of one player (``/ofc hand`` twice, or the DM and the channel): picking in
    the older one a card the newer one put on a row said "<card> is not in your hand"."""
    async with make_world(tmp_path, seed_factory=lambda: "stale-sel") as w:
        await open_table(w)
        first = await w.slash(w.bob, "ofc hand")
        second = await w.slash(w.bob, "ofc hand")
        cards = panel_cards(second.content)
        rec = await w.select(w.bob, second, second.message.selects()[0]["custom_id"], cards[:2])
        rec = await w.click(w.bob, rec, label="Top")
        old = first.message.selects()[0]
        assert cards[0] in [o["value"] for o in old["options"]]  # the older panel offers it
        stale = await w.select(w.bob, first, old["custom_id"], [cards[0]])
        texts = [stale.content or "", *(m.content or "" for m in stale.followups)]
        print(texts)
        assert any(f"{cards[0]} is already on your top row" in x for x in texts), texts
        assert not any("not in your hand" in x for x in texts)
        now = first.message.selects()[0]  # refreshed: what is left to place
        assert cards[0] not in [o["value"] for o in now["options"]]


async def test_a_panel_clicked_after_the_clock_ran_out_says_so(tmp_path: Any) -> None:
    """It said "That was already done" to a player who had done nothing."""
    async with make_world(tmp_path, seed_factory=lambda: "stale-timeout") as w:
        await open_table(w, timer=10)
        panel = await w.slash(w.bob, "ofc hand")
        cards = panel_cards(panel.content)
        w.clock.offset += 11
        w.service.rearm()
        await w.fake.wait_for_message(
            w.chan, lambda m: "Time ran out" in (m.content or ""), timeout=10,
            include_existing=True)
        rec = await w.select(w.bob, panel, panel.message.selects()[0]["custom_id"], cards[:1])
        assert "Your time ran out, so the clock played for you" in rec.content
        assert "already done" not in rec.content


async def test_join_new_and_close_at_a_closing_table_agree(tmp_path: Any) -> None:
    """While a table closes after its hand, /ofc join said "open a new one with /ofc new" and
    /ofc new said "/ofc join to sit down"; a second /ofc close announced it again."""
    async with make_world(tmp_path, seed_factory=lambda: "closing") as w:
        await open_table(w)
        assert "close after this hand" in (await w.slash(w.alice, "ofc close")).content
        for r in (await w.slash(w.carol, "ofc join"),
                  await w.slash(w.carol, "ofc new", variant="ofc")):
            assert r.ephemeral and "This table is closing: no new seats" in r.content
            assert "`/ofc new` opens another" in r.content and "/ofc join" not in r.content
        again = await w.slash(w.alice, "ofc close")
        assert again.ephemeral and "already closes" in again.content
        notices = [m for m in w.fake.messages(w.chan)
                   if "will close after this hand" in (m.content or "")]
        assert len(notices) == 1


async def test_join_while_leaving_points_to_sitin(tmp_path: Any) -> None:
    """It answered "already seated", hiding that the player still leaves after the hand."""
    async with make_world(tmp_path, seed_factory=lambda: "join-leaving") as w:
        await open_table(w)
        await w.slash(w.bob, "ofc leave")
        r = await w.slash(w.bob, "ofc join")
        assert "leave after this hand" in r.content and "`/ofc sitin` keeps your seat" in r.content
        await w.slash(w.bob, "ofc sitin")
        assert not w.service.table_in_channel(w.chan.id).seat_of_user(w.bob.id).leaving


async def test_a_restart_leaves_one_turn_ping(tmp_path: Any) -> None:
    """The ping to delete was known in memory only: every restart left one more behind."""
    def pings() -> list[Any]:
        return [m for m in w.fake.messages(w.chan) if "your turn" in (m.content or "")]

    async with make_world(tmp_path, seed_factory=lambda: "ping-restart") as w:
        await open_table(w)
        await w.fake.wait_until(lambda: len(pings()) == 1, 5, "the first ping")
        for _ in range(2):
            await w.stop_bot()
            await w.start_bot()
            await w.fake.wait_for_message(w.chan, lambda m: "play resumes" in (m.content or ""),
                                          include_existing=True)
            await w.fake.wait_until(lambda: len(pings()) == 1, 5, "one ping after a restart")
        first = w.service.table_in_channel(w.chan.id).hand.to_act()[0]
        who = w.bob if w.service.table_in_channel(w.chan.id).hand_seats[first] == 1 else w.alice
        p = await w.slash(who, "ofc hand")
        await w.slash(who, "ofc place", move=" ".join(panel_cards(p.content)) + " bottom")
        await asyncio.sleep(0.3)
        assert len(pings()) == 1


async def test_sitting_out_during_a_hand_says_it_is_still_played(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "sitout") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        r = await w.slash(w.bob, "ofc sitout")  # between hands: nothing to play
        assert "still play" not in r.content
        await w.slash(w.bob, "ofc sitin")
        await w.slash(w.alice, "ofc start")
        r = await w.slash(w.bob, "ofc sitout")
        assert "You still play the hand being played (or `/ofc surrender`)." in r.content


async def test_history_of_the_last_table_after_it_closed(tmp_path: Any) -> None:
    """A closed table's record outlives it: /ofc history in its channel shows its hands, said
    to be of the last table (closed); a channel that never had a table still says so."""
    async with make_world(tmp_path, seed_factory=lambda: "hist-closed",
                          next_hand_delay=0.01) as w:
        await open_table(w, stake=1)
        svc = w.service
        t = svc.table_in_channel(w.chan.id)
        await w.fake.wait_until(lambda: t.hand is not None, 10, "hand 1")
        await w.slash(w.alice, "ofc close")
        await svc.surrender(w.chan.id, w.bob.id)
        await svc.surrender(w.chan.id, w.alice.id)
        await w.fake.wait_until(lambda: t.id not in svc.tables, 10, "closed")
        r = await w.slash(w.bob, "ofc history")
        assert r.ephemeral and r.content.startswith("The last table here (closed):")
        assert re.search(r"\*\*#1\*\* <t:\d+:f>", r.content) and "(surrendered)" in r.content
        other = w.fake.add_text_channel(w.guild, "elsewhere")
        r = await w.fake.slash(w.bob, other, "ofc history")
        assert r.ephemeral and "#1" not in r.content and "no table" in r.content.lower()
        await w.slash(w.alice, "ofc new", variant="ofc")  # a new table: its own history
        r = await w.slash(w.alice, "ofc history")
        assert r.content == "No hand has finished here yet."
        w.fake.assert_clean()
