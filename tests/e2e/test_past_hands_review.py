"""A review of ``/ofc history hand:<number>`` (commit 0468509) through the real discord.py client:
the replay is the showdown that was posted (image bytes and text) and shows nothing that stayed
hidden; bad input is a clear private answer that changes nothing; restarts, closed tables,
practice hands, chinese naturals/surrenders, progressive fantasylands, 3-4 players and options
changed after (or during) the hand."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

import pytest

from engine import parse_cards
from engine.cards import Card
from engine.solver import solve_fantasyland

from .conftest import World, fill_move, make_world, panel_cards, resumed_table, table_of
from .fakediscord import ComponentUnavailable, FakeChannel, FakeInteraction, FakeMessage, FakeUser
from .test_fantasyland_review import open_table

pytestmark = pytest.mark.e2e

PREFIX = re.compile(r"^Hand #(\d+) at (this table|the last table here \(closed\)), <t:\d+:f>:\n")


# --------------------------------------------------------------------------- helpers
async def showdown_of(w: World, number: int, timeout: float = 30) -> FakeMessage:
    return await w.fake.wait_for_message(
        w.chan, lambda m: not m.ephemeral and f"Showdown — hand #{number}**" in (m.content or ""),
        timeout=timeout,
        include_existing=True)


def named(text: str, cards: Sequence[str] | set[str]) -> set[str]:
    return {c for c in cards if re.search(rf"(?<![0-9A-Za-z]){c}(?![0-9A-Za-z])", text)}


def channel_count(w: World, chan: FakeChannel | None = None) -> int:
    return len(w.fake.messages(chan or w.chan, include_ephemeral=False))


async def replay(w: World, who: FakeUser, number: int,
                 chan: FakeChannel | None = None) -> FakeInteraction:
    return await w.fake.slash(who, chan or w.chan, "ofc history", options={"hand": number})


def replay_text(r: FakeInteraction) -> str:
    """Every message of the answer, joined, without its heading line."""
    text = "\n".join(m.content or "" for m in r.messages)
    m = PREFIX.match(text)
    assert m, text
    return text[m.end():]


def assert_replays(r: FakeInteraction, live: FakeMessage, number: int) -> None:
    """The answer is private, deferred, fast, headed, and equals the posted showdown."""
    assert r.ok and r.deferred, r
    assert r.latency is not None and r.latency < 1.0, r.latency
    assert all(m.ephemeral for m in r.messages), [m.content for m in r.messages]
    assert r.content is not None and r.content.startswith(f"Hand #{number} at "), r.content
    assert replay_text(r) == live.content, (replay_text(r), live.content)
    assert [d for _, d in r.files] == [d for _, d in live.files]
    assert len(r.files) == 1


def acting_humans(w: World, users: Sequence[FakeUser]) -> list[tuple[FakeUser, int]]:
    t = table_of(w)
    out = []
    if t.hand is None or t.hand.is_over:
        return out
    for u in users:
        seat = t.seat_of_user(u.id)
        hs = t.hand_seat_of(seat.seat_no) if seat is not None else None
        if hs is None or not t.hand.may_act(hs) or t.hand.fantasyland[hs]:
            continue
        out.append((u, hs))
    return out


async def play_hand(w: World, number: int, users: Sequence[FakeUser],
                    secrets: dict[str, set[str]] | None = None) -> None:
    """The humans in ``users`` play hand ``number`` by text (bottom first, fouls allowed) until
    it is over; discarded cards go to ``secrets[name]``."""
    for _ in range(600):
        t = table_of(w)
        if t.hand is None or t.row.hand_no != number or t.hand.is_over:
            return
        acting = acting_humans(w, users)
        if not acting:
            await asyncio.sleep(0.05)
            continue
        for u, hs in acting:
            t = table_of(w)
            if t.hand is None or t.row.hand_no != number or not t.hand.may_act(hs):
                continue
            cards = panel_cards((await w.slash(u, "ofc hand")).content)
            req = t.hand.requirement(hs)
            if secrets is not None and req.discard:
                secrets.setdefault(u.name, set()).update(cards[len(cards) - req.discard:])
            r = await w.slash(u, "ofc place", move=fill_move(t, hs, cards))
            assert r.ephemeral and not r.content.startswith("⚠️"), r.content
    raise AssertionError("the hand did not end")


def set_move(cards: Sequence[str], rules: Any = None) -> tuple[str, list[str]]:
    sol = solve_fantasyland([Card(c) for c in cards], rules)
    top, mid, bot = (list(map(str, r)) for r in sol.board.rows)
    disc = [str(c) for c in sol.discards]
    move = f"{' '.join(top)} top {' '.join(mid)} middle {' '.join(bot)} bottom"
    if disc:
        move += f" {' '.join(disc)} discard"
    return move, disc


async def fl_dm(w: World, user: FakeUser) -> FakeMessage:
    return await w.fake.wait_for_message(
        user, lambda m: "Fantasyland" in (m.content or ""), include_existing=True, timeout=10)


async def hands_snapshot(w: World, table_id: int) -> list[tuple[Any, ...]]:
    return [(row.id, row.number, row.status, row.finished_at, [(x.user_id, x.units)
                                                            for x in results])
            for row, results in await w.store.history(table_id, 25)]


# --------------------------------------------------------------------------- held
async def test_three_players_options_changed_after_a_restart_and_the_listing(
    tmp_path: Any,
) -> None:
    """Three players play hand 1 (ofc); the host then changes rules options (scoring,
    strict top, fantasyland); the bot restarts: the replay is still the posted showdown, the
    listing still lists it (with the hint) and every answer is private and fast."""
    async with make_world(tmp_path, seed_factory=lambda: "pastr-three",
                          next_hand_delay=30) as w:
        t = await open_table(w, w.bob, w.carol)
        await play_hand(w, 1, (w.alice, w.bob, w.carol))
        live = await showdown_of(w, 1)
        assert len(table_of(w).last_result.names) == 3
        r = await replay(w, w.dave, 1)  # a spectator
        assert_replays(r, live, 1)
        for opt in ({"scoring": "2-4"}, {"strict_top": True}, {"fantasyland": False}):
            o = await w.slash(w.alice, "ofc options", **opt)
            assert not o.content.startswith("⚠️"), o.content
        r = await replay(w, w.carol, 1)
        assert_replays(r, live, 1)
        await w.stop_bot()
        await w.start_bot()
        await resumed_table(w)
        r = await replay(w, w.bob, 1)
        assert_replays(r, live, 1)
        lst = await w.slash(w.bob, "ofc history")
        assert lst.ephemeral and "**#1**" in lst.content, lst.content
        assert lst.content.endswith("`/ofc history hand:<number>` shows a hand's showdown "
                                    "again, and replays it round by round.")
        assert table_of(w).id == t.id
        w.fake.assert_clean()


async def test_bad_numbers_other_channels_and_servers_are_private_and_change_nothing(
    tmp_path: Any,
) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "pastr-bad",
                          next_hand_delay=30) as w:
        w.dev_guild = False  # (global commands: usable in the second server too)
        t = await open_table(w)
        await play_hand(w, 1, (w.alice, w.bob))
        live = await showdown_of(w, 1)
        # a second channel with its own table (no hand dealt), another server with none
        other = w.fake.add_text_channel(w.guild, "ofc-2")
        g2 = w.fake.add_guild("Elsewhere")
        far = w.fake.add_text_channel(g2, "poker")
        eve = w.fake.add_user("eve", guild=[w.guild, g2])
        await asyncio.sleep(0.1)
        r = await w.fake.slash(w.carol, other, "ofc new", options={"variant": "ofc", "stake": 1})
        assert not r.content.startswith("⚠️"), r.content
        await asyncio.sleep(0.5)  # (the new table's message is posted after the answer)
        before = await hands_snapshot(w, t.id)
        counts = (channel_count(w), channel_count(w, other))
        # Discord itself refuses what the command declares out of range
        for bad in (0, -3, 1_000_000_001, 10**30):
            with pytest.raises(ComponentUnavailable):
                await replay(w, w.alice, bad)
        r = await replay(w, w.alice, 1_000_000_000)
        assert r.ephemeral and r.content == (
            "⚠️ There is no hand #1000000000 here: this table's hands are #1."), r.content
        assert not r.files
        r = await replay(w, w.alice, 1, other)
        assert r.ephemeral and r.content == "⚠️ No hand has been dealt at this table yet.", r.content
        assert not r.files
        r = await replay(w, eve, 1, far)  # another server: no table there
        assert r.ephemeral and r.content.startswith("⚠️") and not r.files, r.content
        assert "table" in r.content.lower(), r.content
        r = await replay(w, eve, 1)  # eve, in both servers, in the table's channel: shown
        assert_replays(r, live, 1)
        assert await hands_snapshot(w, t.id) == before
        assert (channel_count(w), channel_count(w, other)) == counts, [
            m.content for m in w.fake.messages(other)]
        r = await replay(w, w.bob, 1)
        assert_replays(r, live, 1)
        w.fake.assert_clean()


async def test_a_practice_hand_with_a_bot_and_the_hand_being_played(tmp_path: Any) -> None:
    """alice and a bot: the replay is the posted practice showdown; hand 2, being dealt and
    played, is refused without a card; the bot's hand of hand 2 is not shown."""
    async with make_world(tmp_path, seed_factory=lambda: "pastr-practice", bot_delay=0.0,
                          next_hand_delay=0.05) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="pineapple", stake=1)
        r = await w.slash(w.alice, "ofc addbot")
        assert not r.content.startswith("⚠️"), r.content
        r = await w.slash(w.alice, "ofc start")
        assert "is dealt" in r.content, r.content
        await play_hand(w, 1, (w.alice,))
        live = await showdown_of(w, 1)
        assert "Practice: no units moved." in live.content
        await w.fake.wait_until(lambda: table_of(w).hand is not None
                                and table_of(w).row.hand_no == 2, 10, "hand 2")
        r = await replay(w, w.bob, 1)
        assert_replays(r, live, 1)
        assert "practice" in r.content.lower()
        t = table_of(w)
        dealt = {str(c) for hs in range(t.hand.n) for c in t.hand.pending[hs]}
        r = await replay(w, w.bob, 2)
        assert r.ephemeral and not r.files and r.content == (
            "⚠️ Hand #2 is being played: its cards are shown at its showdown.")
        assert not named(r.content, dealt)
        w.fake.assert_clean()


async def test_a_progressive_fantasyland_hidden_while_played_then_replayed_without_discards(
    tmp_path: Any,
) -> None:
    """bob plays a 16-card progressive fantasyland (pineapple, three players): while it is
    played, hand #1 is refused to everyone (no card named); after the showdown the replay is
    the posted one and names no discard (bob's four, the others' eight)."""
    async with make_world(tmp_path, seed_factory=lambda: "pastr-fl16",
                          next_hand_delay=30) as w:
        t = await open_table(w, w.bob, w.carol, fantasyland={"1": 16}, variant="pineapple")
        assert t.hand.fantasyland[t.hand_seat_of(t.seat_of_user(w.bob.id).seat_no)] == 16
        dm = await fl_dm(w, w.bob)
        cards = panel_cards(dm.content)
        assert len(cards) == 16
        for who in (w.alice, w.carol, w.dave):
            r = await replay(w, who, 1)
            assert r.ephemeral and not r.files and r.content == (
                "⚠️ Hand #1 is being played: its cards are shown at its showdown."), r.content
            assert not named(r.content, cards)
        move, bob_discards = set_move(cards, t.hand.rules)
        assert len(bob_discards) == 3
        r = await w.slash(w.bob, "ofc place", move=move)
        assert r.content.startswith("✅"), r.content
        r = await replay(w, w.carol, 1)  # bob has set: still hidden
        assert "is being played" in r.content and not named(r.content, cards)
        secrets: dict[str, set[str]] = {}
        await play_hand(w, 1, (w.alice, w.carol), secrets)
        live = await showdown_of(w, 1)
        discards = set(bob_discards) | secrets["alice"] | secrets["carol"]
        assert len(discards) == 3 + 8
        assert not named(live.content, discards)
        for who in (w.alice, w.bob, w.dave):
            r = await replay(w, who, 1)
            assert_replays(r, live, 1)
            assert not named(r.content, discards)
        w.fake.assert_clean()


# a 4-player chinese deck, dealt from the left of the button (bob, carol, dave, then alice)
BOB_DRAGON = "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac"
CAROL = "2s 3s 4d 4s 5c 5d 6s 7s 8s 9h Ts Js Qs"
DAVE = "As Ad 4c Kc Kh 2h 3h 6d 9d Jh Qd Qc 6h"
ALICE = "2d 3c 5h 7c 7h 9c Jc Kd Td Th 8c 8d Ah"
DAVE_FOUL = "As Ad 4c top Kc Kh 2h 3h 6d middle 9d Jh Qd Qc 6h bottom foul"
ALICE_SET = "2d 3c 5h top 7c 7h 9c Jc Kd middle Td Th 8c 8d Ah bottom"


def four_deck(_t: Any) -> list[Any]:
    return parse_cards(" ".join((BOB_DRAGON, CAROL, DAVE, ALICE)))


async def four_at_chinese(w: World) -> Any:
    await w.start_bot()
    await w.slash(w.alice, "ofc new", variant="chinese", stake=10)
    for who in (w.bob, w.carol):
        await w.slash(who, "ofc join")
    r = await w.slash(w.dave, "ofc join", buyin=50)
    assert "50 units" in r.content, r.content
    await w.slash(w.alice, "ofc start")
    await w.fake.wait_until(lambda: table_of(w).hand is not None, 5, "the deal")
    return table_of(w)


async def test_chinese_natural_surrender_and_foul_among_four_replayed_after_close_and_restart(
    tmp_path: Any,
) -> None:
    """The posted chinese showdown of four (a declared dragon, a surrender, a foul) is
    replayed from the closed table's channel, before and after a restart, naming none of the
    surrendered player's cards; the dragon's cards are shown as they were."""
    async with make_world(tmp_path, seed_factory=lambda: "pastr-chinese",
                          deck_factory=four_deck, next_hand_delay=0.05) as w:
        await four_at_chinese(w)
        r = await w.slash(w.bob, "ofc declare", natural="dragon")
        assert r.ephemeral and "declared dragon" in r.content, r.content
        ask = await w.slash(w.carol, "ofc surrender")
        r = await w.click(w.carol, ask, label="Yes, surrender")
        r = await w.slash(w.dave, "ofc place", move=DAVE_FOUL)
        assert "Your hand is set" in r.content, r.content
        r = await replay(w, w.dave, 1)
        assert "is being played" in r.content and not r.files
        r = await w.slash(w.alice, "ofc close")
        assert not r.content.startswith("⚠️"), r.content
        r = await w.slash(w.alice, "ofc place", move=ALICE_SET)
        assert "Your hand is set" in r.content, r.content
        live = await showdown_of(w, 1)
        assert "declared dragon" in live.content
        assert not named(live.content, set(CAROL.split()))
        await w.fake.wait_until(lambda: w.chan.id not in w.service._by_channel, 20, "closed")
        for restart in (False, True):
            if restart:
                await w.stop_bot()
                await w.start_bot()
            r = await replay(w, w.carol, 1)
            assert r.content.startswith("Hand #1 at the last table here (closed), "), r.content
            assert not named(replay_text(r), set(CAROL.split()))
            # the showdown itself (the broke notice aside: left out by design, see below)
            posted = live.content.split("\n💸")[0]
            assert replay_text(r) == posted, (replay_text(r), posted)
            assert [d for _, d in r.files] == [d for _, d in live.files]
            assert r.deferred and all(m.ephemeral for m in r.messages)
        w.fake.assert_clean()


async def test_a_second_table_in_the_channel_keeps_its_own_numbers(tmp_path: Any) -> None:
    """Table 1 plays hand 1 and closes; table 2 opens in the same channel and plays its hand
    1: the replay is table 2's (not table 1's), and table 1's showdown is not offered as
    table 2's."""
    async with make_world(tmp_path, seed_factory=lambda: "pastr-two-tables",
                          next_hand_delay=0.05) as w:
        await open_table(w)
        await w.slash(w.alice, "ofc close")
        await play_hand(w, 1, (w.alice, w.bob))
        first = await showdown_of(w, 1)
        await w.fake.wait_until(lambda: w.chan.id not in w.service._by_channel, 20, "closed")
        r = await replay(w, w.bob, 1)
        assert_replays(r, first, 1)
        await open_table(w, w.carol)
        r = await replay(w, w.bob, 1)
        assert "is being played" in r.content and not r.files, r.content
        await play_hand(w, 1, (w.alice, w.carol))
        second = await w.fake.wait_for_message(
            w.chan, lambda m: "Showdown — hand #1**" in (m.content or "") and m.id > first.id
            and not m.ephemeral,
            timeout=30, include_existing=True)
        r = await replay(w, w.bob, 1)
        assert_replays(r, second, 1)
        assert r.content.startswith("Hand #1 at this table, ")
        w.fake.assert_clean()


# --------------------------------------------------------------------------- defects
async def test_the_replay_is_drawn_in_the_deck_colours_chosen_now(tmp_path: Any) -> None:
    """Reported as a defect (the replay's picture differs from the posted one after `/ofc
    options deck:two`), kept by design: the deck colours are how a table's readers want
    their cards drawn (a colour-blind player's choice, say), not part of the hand, so a hand
    shown again follows the table's choice now (README, `/ofc history`); its text is the
    posted one."""
    async with make_world(tmp_path, seed_factory=lambda: "pastr-deck",
                          next_hand_delay=30) as w:
        await open_table(w)
        await play_hand(w, 1, (w.alice, w.bob))
        live = await showdown_of(w, 1)
        assert_replays(await replay(w, w.carol, 1), live, 1)
        r = await w.slash(w.alice, "ofc options", deck="two")
        assert not r.content.startswith("⚠️"), r.content
        r = await replay(w, w.carol, 1)
        assert replay_text(r) == live.content
        assert len(r.files) == 1 and [d for _, d in r.files] != [d for _, d in live.files]


STAY = "2c 2d 2h 3c 3d 3h 4c 5d 4d 4h 4s 5c 5h".split()  # 222 / 333 4 5 / 444 55: stays
STAY_MOVE = "2c 2d 2h top 3c 3d 3h 4c 5d middle 4d 4h 4s 5c 5h bottom"


async def test_fantasyland_turned_off_during_the_hand_the_replay_shows_none_either(
    tmp_path: Any,
) -> None:
    """Was a defect (fixed: the settlement saves the fantasyland sizes it showed with the
    hand's final state, ``fantasyland_shown``): alice, in fantasyland, sets trips on top (she would stay) while the host turns
    fantasyland off during the hand.  The posted showdown says no fantasyland is earned (the
    table's options at the settlement, which also decide the next deal); `/ofc history
    hand:1` rebuilds ``fantasyland_next`` from the hand's own rules and shows alice staying in
    fantasyland ("Fantasyland!" in the text, a fantasyland mark in the picture): the replay
    tells a different, wrong outcome from the one posted (and from what happened next)."""
    async with make_world(tmp_path, seed_factory=lambda: "pastr-fl-off",
                          deck_factory=lambda t: [Card(c) for c in STAY],
                          next_hand_delay=30) as w:
        await open_table(w, fantasyland={"0": 13})
        dm = await fl_dm(w, w.alice)
        assert sorted(panel_cards(dm.content)) == sorted(STAY)
        r = await w.slash(w.alice, "ofc options", fantasyland=False)
        assert not r.content.startswith("⚠️"), r.content
        r = await w.slash(w.alice, "ofc place", move=STAY_MOVE)
        assert r.content.startswith("✅"), r.content
        await play_hand(w, 1, (w.bob,))
        live = await showdown_of(w, 1)
        assert not any(table_of(w).last_result.fantasyland_next)
        r = await replay(w, w.bob, 1)
        assert replay_text(r) == live.content, (replay_text(r), live.content)
        assert [d for _, d in r.files] == [d for _, d in live.files]


async def test_the_replay_of_a_showdown_that_emptied_a_stack_leaves_out_the_broke_notice(
    tmp_path: Any,
) -> None:
    """Reported as a defect (the replay's text lacks the posted "💸 @dave: your stack is
    empty, so you sit the next hands out ..." line), kept by design: that line told dave what
    to do then (buy in again or leave), not what the cards did; shown again later it would be
    stale or false (he may have bought in since).  The rest is the posted text (README)."""
    async with make_world(tmp_path, seed_factory=lambda: "pastr-broke",
                          deck_factory=four_deck, next_hand_delay=30) as w:
        await four_at_chinese(w)
        await w.slash(w.bob, "ofc declare", natural="dragon")
        ask = await w.slash(w.carol, "ofc surrender")
        await w.click(w.carol, ask, label="Yes, surrender")
        await w.slash(w.dave, "ofc place", move=DAVE_FOUL)
        await w.slash(w.alice, "ofc place", move=ALICE_SET)
        live = await showdown_of(w, 1)
        assert "\n💸" in live.content, live.content
        r = await replay(w, w.alice, 1)
        assert replay_text(r) == live.content.split("\n💸")[0], (replay_text(r), live.content)
        assert "💸" not in replay_text(r)


LONG = ("Alexandra_the_Magnificent_Queen", "Bartholomew_Fitzgerald_Longname", "Cornelia_Wilhelmina_Stevenson", "Dmitri_Alexandrovich_Karamazov")


async def test_four_players_with_long_names_every_message_of_the_showdown_again(
    tmp_path: Any,
) -> None:
    """Four players with 30-odd-character names: a showdown long enough to need more than one
    message; the replay (its heading aside) is every posted message's text, in order, each
    private and within Discord's length."""
    async with make_world(tmp_path, names=LONG, seed_factory=lambda: "pastr-four",
                          next_hand_delay=30) as w:
        a, b, c, d = (w.users[n] for n in LONG)
        await w.start_bot()
        r = await w.slash(a, "ofc new", variant="ofc", stake=1)
        for who in (b, c, d):
            r = await w.slash(who, "ofc join")
            assert "sat down" in r.content, r.content
        r = await w.slash(a, "ofc start")
        assert "is dealt" in r.content, r.content
        await play_hand(w, 1, (a, b, c, d))
        live = await showdown_of(w, 1)
        await asyncio.sleep(0.5)
        after = [m for m in w.fake.messages(w.chan, include_ephemeral=False) if m.id > live.id]
        parts = [live]
        for m in after:  # the showdown's continuation: plain text messages right after it
            if m.files or m.components or "```" in (m.content or ""):
                break
            parts.append(m)
        posted = "\n".join(m.content or "" for m in parts)
        assert len(parts) == 2, len(parts)  # (it did need two messages)
        assert len(table_of(w).last_result.names) == 4
        rep = await replay(w, w.users["admin"], 1)
        await asyncio.sleep(0.5)
        assert all(m.ephemeral and len(m.content or "") <= 2000 for m in rep.messages)
        assert replay_text(rep) == posted, (len(parts), len(rep.messages))
        assert [x for _, x in rep.files] == [x for _, x in live.files]
        w.fake.assert_clean()


async def test_a_surrendered_fantasyland_is_replayed_without_its_cards(tmp_path: Any) -> None:
    """bob surrenders the 15-card fantasyland he was dealt (pineapple): the replay is the
    posted showdown and names none of his 15 cards, nor anyone's discards."""
    async with make_world(tmp_path, seed_factory=lambda: "pastr-fl-surrender",
                          next_hand_delay=30) as w:
        await open_table(w, w.bob, w.carol, fantasyland={"1": 15}, variant="pineapple")
        cards = panel_cards((await fl_dm(w, w.bob)).content)
        assert len(cards) == 15
        ask = await w.slash(w.bob, "ofc surrender")
        r = await w.click(w.bob, ask, label="Yes, surrender")
        assert "surrendered" in r.content, r.content
        secrets: dict[str, set[str]] = {}
        await play_hand(w, 1, (w.alice, w.carol), secrets)
        live = await showdown_of(w, 1)
        assert not named(live.content, cards)
        for who in (w.alice, w.carol, w.dave):
            r = await replay(w, who, 1)
            assert_replays(r, live, 1)
            assert not named(r.content, set(cards) | secrets["alice"] | secrets["carol"])
        w.fake.assert_clean()


async def test_a_table_in_a_thread_replays_there_not_in_its_parent(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "pastr-thread",
                          next_hand_delay=30) as w:
        parent = w.chan
        w.chan = w.fake.add_thread(parent, "Friday OFC", owner=w.alice)
        await open_table(w)
        await play_hand(w, 1, (w.alice, w.bob))
        live = await showdown_of(w, 1)
        assert_replays(await replay(w, w.carol, 1), live, 1)
        r = await replay(w, w.carol, 1, parent)
        assert r.ephemeral and r.content.startswith("⚠️") and not r.files, r.content
        w.fake.assert_clean()
