"""What first-time players experience: a manager opens a table, friends who have never played
OFC join, start, place cards by panel and by text, make the usual mistakes, leave (from a
review of it: a docstring starting "Was:" says what the user saw before)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from .conftest import World, make_world, panel_cards, table_of
from .fakediscord import FakeUser

pytestmark = pytest.mark.e2e


def whose_turn(w: World) -> FakeUser:
    """The human whose decision the hand waits for (one at a time in these tables)."""
    t = table_of(w)
    uid = t.seat_by_no(t.hand_seats[t.hand.turn]).user_id
    return next(u for u in w.users.values() if u.id == uid)


def table_messages(w: World) -> list[Any]:
    """Every table message posted (a new one follows each showdown), oldest first."""
    return [m for m in w.fake.messages(w.chan)
            if m.files and not m.ephemeral and "Showdown" not in (m.content or "")]


async def two_at_table(w: World, variant: str = "ofc", start: bool = True,
                       others: tuple[Any, ...] = ()) -> None:
    """Alice's table with Bob (and ``others``) seated, the first hand dealt if ``start``."""
    await w.start_bot()
    await w.slash(w.alice, "ofc new", variant=variant)
    for who in (w.bob, *others):
        await w.slash(who, "ofc join")
    if start:
        await w.slash(w.alice, "ofc start")


# --------------------------------------------------------------------------- defects
async def test_table_message_says_waiting_for_players_not_for_the_next_deal(
    tmp_path: Any,
) -> None:
    """Was: alice asked to leave during hand #1; after it bob sits alone. The table message
    (its text and its picture's note) says "Between hands. ... bob ... Waiting for the next
    deal.",
    as if a hand were coming, while nothing can be dealt until someone joins (the separate
    notice says so). It should say what the table waits for: a second player (`/ofc join`,
    or `/ofc addbot`), as `/ofc start` and the notice do."""
    async with make_world(tmp_path, seed_factory=lambda: "nc-waiting", next_hand_delay=0.2) as w:
        await two_at_table(w)
        await w.slash(w.alice, "ofc leave")  # in the hand: after it
        for u in (w.alice, w.bob):
            ask = await w.slash(u, "ofc surrender")
            await w.click(u, ask, label="Yes, surrender")
        await w.fake.wait_for_message(
            w.chan, lambda m: "Waiting for at least 2 players" in (m.content or ""),
            include_existing=True, timeout=10)
        await w.fake.wait_until(
            lambda: "alice" not in (table_messages(w)[-1].content or ""), 5,
            "the newest table message, alice gone")
        msg = table_messages(w)[-1]
        text = msg.content or ""
        assert table_of(w).waiting and len(table_of(w).seats) == 1
        assert "Waiting for the next deal" not in text, text
        assert "/ofc join" in text, text


async def test_the_last_hands_table_message_does_not_stay_live_above_the_showdown(
    tmp_path: Any,
) -> None:
    """Was: after each showdown the bot posts a new table message under it and leaves the
    old one as it was: "Between hands. ... Hand 1 ... Waiting for the next deal." with an
    *Open my panel* button. After two hands and `/ofc close` the channel holds three table
    pictures; only the newest says "🔒 This table is closed", the two older ones still look
    live (button; "Waiting for the next deal" / "This table is closing"). The old table message should be
    deleted, or edited to say the table continues below (and lose its button), when the new
    one is posted."""
    async with make_world(tmp_path, seed_factory=lambda: "nc-stale-table",
                          next_hand_delay=0.2) as w:
        await two_at_table(w)
        for u in (w.bob, w.alice):
            ask = await w.slash(u, "ofc surrender")
            await w.click(u, ask, label="Yes, surrender")
        await w.fake.wait_until(
            lambda: table_of(w).hand is not None and table_of(w).row.hand_no == 2, 10, "hand 2")
        r = await w.slash(w.alice, "ofc close")
        assert "close after this hand" in r.content
        for u in (w.alice, w.bob):
            ask = await w.slash(u, "ofc surrender")
            await w.click(u, ask, label="Yes, surrender")
        await w.fake.wait_until(
            lambda: any("This table is closed" in (m.content or "") for m in table_messages(w)),
            10, "a table message marked closed")
        await asyncio.sleep(0.3)
        live = [m for m in table_messages(w) if not m.deleted
                and ("Open my panel" in str(m.components)
                     or "Waiting for the next deal" in (m.content or ""))]
        assert live == [], [(m.content or "")[:120] for m in live]


async def test_a_command_in_the_wrong_channel_points_to_the_players_table(tmp_path: Any) -> None:
    """Was: bob is pinged in #ofc and types `/ofc place` (or `/ofc hand`, `/ofc leave`) in
    #general. He reads "⚠️ There is no table in this channel. Open one with `/ofc new`." —
    and `/ofc new` there does open him a second table (a second buy-in) while his turn runs
    out in #ofc. It should say where his table is: "There is no table in this channel. You
    are seated at the table in <#ofc>: use the command there." (a player seated nowhere
    can still be told to open one)."""
    async with make_world(tmp_path, seed_factory=lambda: "nc-channel") as w:
        await two_at_table(w)
        general = w.fake.add_text_channel(w.guild, "general")
        assert whose_turn(w) is w.bob
        for cmd, opts in (("ofc place", {"move": "Ah top"}), ("ofc hand", {}),
                          ("ofc leave", {})):
            r = await w.fake.slash(w.bob, general, cmd, options=opts)
            assert r.ephemeral
            assert f"<#{w.chan.id}>" in r.content, (cmd, r.content)
            assert "Open one with `/ofc new`" not in r.content, (cmd, r.content)


async def test_sitin_during_the_hand_does_not_say_next_hand(tmp_path: Any) -> None:
    """Was: bob, in hand #1 and with his turn running, tries `/ofc sitin` (he never sat
    out). He reads "Welcome back: you will be dealt in from the next hand." — which says he
    is not in this hand, while the hand waits for his move. It should not say "welcome back"
    to someone who never left, and should say he plays the hand being played (e.g. "You are
    not sitting out: you play this hand; it is your turn."). The same answer after a
    timeout also hides that he is in the hand now, with his whole clock back."""
    async with make_world(tmp_path, seed_factory=lambda: "nc-sitin") as w:
        await two_at_table(w)
        assert whose_turn(w) is w.bob
        r = await w.slash(w.bob, "ofc sitin")
        assert r.ephemeral
        assert "dealt in from the next hand" not in r.content, r.content
        assert "Welcome back" not in r.content, r.content


async def test_commands_before_the_first_deal_say_to_start(tmp_path: Any) -> None:
    """Was: alice and bob are seated, nobody has pressed `/ofc start` yet. bob tries
    `/ofc place`, `/ofc surrender`, `/ofc suggest`: each answers "⚠️ No hand is being played
    right now." — no next step, while `/ofc hand` at the same moment answers "The game has not
    started yet: `/ofc start` deals the first hand once everyone has joined." They should say
    the same (and between hands, like `/ofc hand`, why nothing is dealt)."""
    async with make_world(tmp_path, seed_factory=lambda: "nc-prestart") as w:
        await two_at_table(w, start=False)
        hand = await w.slash(w.bob, "ofc hand")
        assert "`/ofc start`" in hand.content
        for cmd, opts in (("ofc place", {"move": "Ah top"}), ("ofc surrender", {}),
                          ("ofc suggest", {})):
            r = await w.fake.slash(w.bob, w.chan, cmd, options=opts)
            assert r.ephemeral
            assert "`/ofc start`" in r.content, (cmd, r.content)


async def test_the_host_leaving_says_who_hosts_now(tmp_path: Any) -> None:
    """Was: alice opened the table (its host: only she may `/ofc close`, `/ofc options`,
    `/ofc addbot`) and leaves between hands; bob and carol stay. The channel reads
    "🚪 @alice left the table." and nothing else: nobody learns that bob hosts now (he finds
    out only if someone tries a host command). The notice now adds who
    hosts the table."""
    async with make_world(tmp_path, seed_factory=lambda: "nc-host") as w:
        await two_at_table(w, start=False, others=(w.carol,))
        r = await w.slash(w.alice, "ofc leave")
        assert "You left the table" in r.content
        notice = await w.fake.wait_for_message(
            w.chan, lambda m: "left the table" in (m.content or "") and not m.ephemeral,
            include_existing=True)
        assert table_of(w).host_id == w.bob.id  # the rights did pass on
        assert f"<@{w.bob.id}> hosts the table now" in notice.content, notice.content


async def test_rules_say_unit_or_units(tmp_path: Any) -> None:
    """Was: `/ofc rules` starts "Stake 1 unit(s) per point"; everywhere else the
    bot writes "1 unit per point" / "2 units per point" (engine.notation.plural)."""
    async with make_world(tmp_path) as w:
        await two_at_table(w, start=False)
        r = await w.slash(w.bob, "ofc rules")
        assert "unit(s)" not in r.content, r.content
        assert "Stake 1 unit per point" in r.content


async def test_fantasyland_mistake_lists_the_cards_as_the_panel_shows_them(
    tmp_path: Any,
) -> None:
    """Was: a fantasyland player sees 13 cards sorted in the panel ("Ks Kd Qc Jd
    ..."); a `/ofc place` mistake lists them in deal order ("You must place 13 of Td 5d Jd
    Qc Ks ..."), so the player has to hunt for each card twice. The messages should list the
    cards in the panel's order (the requirement's ``shown``)."""
    async with make_world(tmp_path, seed_factory=lambda: "newcomer-3") as w:
        await two_at_table(w, start=False)
        t = table_of(w)
        await w.store.update_table(t.id, extra={"fantasyland": {"1": 13}})
        await w.service._refresh(t)
        await w.slash(w.alice, "ofc start")
        panel = await w.slash(w.bob, "ofc hand")
        shown = panel_cards(panel.content)
        assert len(shown) == 13
        r = await w.slash(w.bob, "ofc place", move=f"{' '.join(shown[:5])} bottom")
        assert "You must place 13 of" in r.content
        assert f"You must place 13 of {' '.join(shown)}:" in r.content, (shown, r.content)


# --------------------------------------------------------------------------- walkthroughs
async def test_first_time_pineapple_player_mistakes_by_text_and_panel(tmp_path: Any) -> None:
    """Three newcomers at pineapple, second round (place 2, discard 1): every usual mistake
    by text names the card or row and what to do; by the panel, a row press that overflows
    is answered and changes nothing; Confirm with the discard forgotten plays the leftover
    card as the discard and says so privately."""
    async with make_world(tmp_path, seed_factory=lambda: "newcomer-2") as w:
        await two_at_table(w, "pineapple", start=False, others=(w.carol,))
        r = await w.slash(w.dave, "ofc join")
        assert r.ephemeral and "The table is full (3 seats)" in r.content
        await w.slash(w.alice, "ofc start")
        # first round: 5 cards each, by text (bottom 3, middle 2)
        for _ in range(3):
            mover = whose_turn(w)
            cs = panel_cards((await w.slash(mover, "ofc hand")).content)
            waiting = next(u for u in (w.alice, w.bob, w.carol) if u is not mover)
            r = await w.slash(waiting, "ofc place", move=f"{cs[0]} top")
            assert f"It is {mover.name}'s turn" in r.content
            r = await w.slash(mover, "ofc place",
                              move=f"{' '.join(cs[:3])} bottom {' '.join(cs[3:])} middle")
            assert r.content.startswith("✅"), r.content
        mover = whose_turn(w)
        panel = await w.slash(mover, "ofc hand")
        assert "Place 2, discard 1" in panel.content
        a, b, c = panel_cards(panel.content)
        t = table_of(w)
        before = t.hand.to_json()
        mistakes = [
            (f"{a} top {b} middle {c} bottom", f"end with the card to drop, e.g. `{c} discard`"),
            (f"{a} top", f"({b} {c} not placed)"),
            (f"{a} {b} {c} discard", "You must place 2 and discard 1"),
            (f"{a} {b} {c} bottom", "The bottom row has room for 2 more cards (3 already there), not 3"),
            (f"{a} tpo {b} middle {c} discard", "'tpo' is not a row"),
        ]
        for move, expected in mistakes:
            r = await w.slash(mover, "ofc place", move=move)
            assert r.ephemeral and r.content.startswith("⚠️"), move
            assert expected in r.content, (move, r.content)
        assert t.hand.to_json() == before
        # the panel: three cards on a bottom row with room for two
        rec = await w.select(mover, panel, panel.message.selects()[0]["custom_id"], [a, b, c])
        over = await w.click(mover, rec, label="Bottom")
        assert over.ephemeral and "The bottom row has room for 2 more cards, not 3" in over.content
        assert over.message is not panel.message  # a message of its own: the panel stays
        rec = await w.select(mover, panel, panel.message.selects()[0]["custom_id"], [a, b])
        rec = await w.click(mover, rec, label="Top")
        assert f"top: {a} {b}" in rec.content
        done = await w.click(mover, rec, label="Confirm")  # the discard forgotten
        assert f"Discarded {c} (only you see this)" in done.content
        assert f"Your discards (only you see them): {c}" in done.content
        w.fake.assert_clean()
