"""A copy editor's review of what players read, played through the real discord.py client
against the fake Discord as a newcomer would: the channel's history and recap after a hand,
a stake-0 table, a chinese table with a surrender, ``/ofc rules`` and a stack emptied at a
two-player table.

Each test "Was a defect (fixed)" is a wording defect a player saw (written as a strict
xfail, then fixed); its docstring says what they read, why it was wrong and where the text
came from. The others pin what was checked and found right (the reference the defects were
measured against)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import World, make_world
from .fakediscord import FakeMessage
from .test_evening_review import play_out, showdown, surrender

pytestmark = pytest.mark.e2e


# --------------------------------------------------------------------------- helpers
def history_line(text: str, number: int = 1) -> str:
    """The line of hand ``number`` in ``/ofc history`` (or ``/ofc history mine``)."""
    return next(x for x in text.split("\n") if x.startswith(f"**#{number}**"))


def total_lines(showdown_text: str) -> list[str]:
    """The showdown text's per-player lines (each has "total ...")."""
    return [x for x in showdown_text.split("\n") if " total " in x]


async def chinese_surrender_of_one_point(w: World) -> FakeMessage:
    """alice opens a chinese table at 2 units a point whose surrender pays 1 point; bob joins,
    surrenders hand #1 and alice sets hers: alice +1 point (+2 units), bob -1 point (-2
    units), whatever the cards (a surrender pays its value to each opponent who set).
    Returns the showdown."""
    await w.start_bot()
    await w.slash(w.alice, "ofc new", variant="chinese", stake=2, buyin=100)
    r = await w.slash(w.alice, "ofc options", surrender=1)
    assert "surrender" in r.content, r.content
    await w.slash(w.bob, "ofc join")
    await w.slash(w.alice, "ofc start")
    await surrender(w, w.bob)
    await play_out(w, (w.alice,))
    return await showdown(w, 1)


async def both_surrender(w: World, stake: int = 5) -> FakeMessage:
    """alice and bob at an ofc table both surrender hand #1: two fouls, an even hand, 0
    points and 0 units each, whatever the cards. Returns the showdown."""
    await w.start_bot()
    await w.slash(w.alice, "ofc new", variant="ofc", stake=stake, buyin=100)
    await w.slash(w.bob, "ofc join")
    await w.slash(w.alice, "ofc start")
    await surrender(w, w.alice)
    await surrender(w, w.bob)
    return await showdown(w, 1)


# --------------------------------------------------------------------------- defects
async def test_one_point_in_the_history_is_not_pts(tmp_path: Any) -> None:
    """Was a defect (fixed).

    bob surrenders a chinese hand whose surrender pays 1 point. The showdown says "total
    +1 point" / "total −1 point" and the recap "+1 point", but ``/ofc history`` reads
    "alice +1 pts, +2 u; bob -1 pts, -2 u (surrendered)", ``/ofc history mine`` "— +1 pts,
    +2 u" and its menu option "#1 · chinese · +1 pts": the plural abbreviation for a single
    point (the table titles abbreviate the singular: "2 units/pt"). From
    ``result_summary`` (cogs/presenter.py, ``f"{r.points:+d} pts"``) and the option label of
    ``MyHandsSelect`` (cogs/views.py, ``f"... {h.result.points:+d} pts"``)."""
    async with make_world(tmp_path, seed_factory=lambda: "copy-one-point",
                          next_hand_delay=3600) as w:
        sd = await chinese_surrender_of_one_point(w)
        assert "total +1 point," in sd.content and "total −1 point," in sd.content, sd.content
        history = await w.slash(w.carol, "ofc history")
        line = history_line(history.content)
        mine = await w.slash(w.alice, "ofc history", mine=True)
        labels = [o["label"] for s in mine.message.selects() for o in s.get("options", [])]
        said = [text for text in (line, history_line(mine.content), *labels)
                if re.search(r"(?<!\d)[+\-−]?1 pts\b", text)]
        assert said == [], said
        w.fake.assert_clean()


async def test_a_zero_result_in_the_history_has_no_sign(tmp_path: Any) -> None:
    """Was a defect (fixed).

    alice and bob both surrender: an even hand. The showdown says "total 0 points, 0 units"
    and the leaderboard "0 units, 0 points" (``renderer.common.signed``: "``0``" unsigned),
    but ``/ofc history`` reads "alice +0 pts (surrendered)", ``/ofc history mine`` "— +0 pts,
    +0 u (surrendered)" and its menu "#1 · ofc · +0 pts": a sign on a zero, where nothing was
    won. From ``result_summary`` (cogs/presenter.py: ``{r.points:+d}``, ``{r.units:+d}``)
    and ``MyHandsSelect``'s labels (cogs/views.py)."""
    async with make_world(tmp_path, seed_factory=lambda: "copy-even",
                          next_hand_delay=3600) as w:
        sd = await both_surrender(w)
        assert all("total 0 points, 0 units" in x for x in total_lines(sd.content)), sd.content
        history = await w.slash(w.carol, "ofc history")
        mine = await w.slash(w.alice, "ofc history", mine=True)
        labels = [o["label"] for s in mine.message.selects() for o in s.get("options", [])]
        said = [text for text in (history_line(history.content), history_line(mine.content),
                                  *labels) if "+0" in text]
        assert said == [], said
        w.fake.assert_clean()


async def test_a_zero_result_in_the_recap_has_no_sign(tmp_path: Any) -> None:
    """Was a defect (fixed).

    Same even hand. ``/ofc recap`` posts in the channel "🥇 alice +0 points (+0 units) · 1
    hand · best hand +0" while the showdown just above it says "total 0 points, 0 units"; a
    loss there is "-1 point" with a hyphen where the showdown has "−1". From ``recap_lines``
    (bot/service.py: ``f"{p.points:+d} point..."``, ``f"{p.units:+d} unit..."``,
    ``f"best hand {p.best:+d}"``), which does not use ``renderer.common.signed`` as the
    showdown, the stats and the leaderboard do."""
    async with make_world(tmp_path, seed_factory=lambda: "copy-even-recap",
                          next_hand_delay=3600) as w:
        await both_surrender(w)
        recap = await w.slash(w.carol, "ofc recap")
        assert not recap.ephemeral
        players = recap.content.split("\n")[1:]
        assert len(players) == 2, recap.content
        for line in players:
            assert "+0" not in line, line
        w.fake.assert_clean()


async def test_a_stake_0_showdown_speaks_of_points_only(tmp_path: Any) -> None:
    """Was a defect (fixed).

    At a `stake:0` table (README: it "plays for no units (the table's title says "no
    units")"; its title here: "Pineapple · no units") the showdown ends every player's line
    with "total −15 points, 0 units" / "total +15 points, 0 units": units the table never
    plays for (``/ofc history`` and ``/ofc history mine`` were mended to leave out "+0 u" at
    such a table; a practice showdown leaves the units out too). From
    ``describe_showdown`` (renderer/showdown.py, ``total += f", {signed_amount(view.units[i],
    'unit')}"``), given the units by ``showdown_view`` (cogs/presenter.py) whatever the
    stake."""
    async with make_world(tmp_path, seed_factory=lambda: "copy-stake0",
                          next_hand_delay=3600) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=0, buyin=0)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        await surrender(w, w.alice)
        await play_out(w, (w.bob,))
        sd = await showdown(w, 1)
        assert "no units" in sd.content.split("\n")[1], sd.content
        lines = total_lines(sd.content)
        assert len(lines) == 2, sd.content
        for line in lines:
            assert "unit" not in line.split(" total ", 1)[1], line
        w.fake.assert_clean()


async def test_joining_a_stake_0_table_does_not_announce_0_units(tmp_path: Any) -> None:
    """Was a defect (fixed).

    alice opens a `stake:0` table: "🃏 **alice** opened an **Open Face** table (ofc): no
    units, 4 seats." bob joins and the channel reads "🪑 **bob** sat down with 0 units.", as
    said of a player whose stack is empty (the README: at such a table "a player with no
    units left can still play"; units are not what is played for there). From ``join``
    (cogs/ofc.py: ``f"... sat down with {plural(seat.stack, 'unit')}."``, whatever the
    table's stake)."""
    async with make_world(tmp_path, seed_factory=lambda: "copy-stake0-join") as w:
        await w.start_bot()
        r = await w.slash(w.alice, "ofc new", variant="ofc", stake=0, buyin=0)
        assert "no units" in r.content, r.content
        r = await w.slash(w.bob, "ofc join")
        assert not r.ephemeral and "sat down" in r.content, r.content
        assert "0 units" not in r.content, r.content
        w.fake.assert_clean()


async def test_chinese_history_does_not_promise_a_replay(tmp_path: Any) -> None:
    """Was a defect (fixed).

    At a chinese table ``/ofc history`` ends with "`/ofc history hand:<number>` shows a
    hand's showdown again, and replays it round by round." and ``/ofc history mine`` with
    "Choose one in the menu to see its showdown again and replay it." But README (`/ofc
    history`): "a chinese hand, set at once, has no rounds", and indeed the showdown it shows
    again has no *Replay* button (only *Review my play*). From ``history`` (cogs/ofc.py, the
    ``hint``, said whatever the table's game) and ``_my_hands`` (cogs/ofc.py, the last
    line, said even when every hand listed is chinese)."""
    async with make_world(tmp_path, seed_factory=lambda: "copy-chinese-hint",
                          next_hand_delay=3600) as w:
        sd = await chinese_surrender_of_one_point(w)
        assert [b.get("label") for b in sd.buttons()] == ["Review my play"], sd.buttons()
        again = await w.slash(w.carol, "ofc history", hand=1)
        assert not any("Replay" in (b.get("label") or "") for b in again.message.buttons())
        history = await w.slash(w.carol, "ofc history")
        assert "round by round" not in history.content, history.content
        mine = await w.slash(w.alice, "ofc history", mine=True)
        assert "replay" not in mine.content.lower(), mine.content
        w.fake.assert_clean()


async def test_rules_say_the_surrender_and_the_moon_are_points(tmp_path: Any) -> None:
    """Was a defect (fixed).

    ``/ofc rules`` at a chinese table at 10 units a point: "• Stake 10 units per point,
    ..." then "• Surrender pays 3 to each opponent."; at an ofc table with the moon on:
    "• Shooting the moon: a clean board with a jack-high bottom wins 20 more from each
    opponent." 3 and 20 what? README ("Rules and table options"): these house bonuses are
    points, "which RULES.md counts in units", so a player who knows RULES.md reads 3 units
    here, while the surrender button says "You pay 3 points to each opponent (30 units)".
    From ``Rules.describe`` (engine/rules.py: ``f"Surrender pays {self.chinese_surrender} to
    each opponent."`` and ``f"... wins {self.shoot_the_moon_points} more from each
    opponent."``)."""
    async with make_world(tmp_path, seed_factory=lambda: "copy-rules") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", stake=10)
        rules = await w.slash(w.bob, "ofc rules")
        surrender_line = next(x for x in rules.content.split("\n") if "Surrender pays" in x)
        moon_channel = w.fake.add_text_channel(w.guild, "moon")
        w.chan = moon_channel
        await w.slash(w.alice, "ofc new", variant="ofc", stake=10)
        await w.slash(w.alice, "ofc options", moon=True)
        rules = await w.slash(w.bob, "ofc rules")
        moon_line = next(x for x in rules.content.split("\n") if "moon" in x)
        unclear = [line for line, says in ((surrender_line, "3 points"),
                                           (moon_line, "20 more points")) if says not in line]
        assert unclear == [], unclear
        w.fake.assert_clean()


async def test_a_chinese_surrender_is_not_shown_as_discards(tmp_path: Any) -> None:
    """Was a defect (fixed).

    bob surrenders his chinese hand and opens his panel (``/ofc hand``) while alice sets
    hers: "You surrendered this hand; waiting for the others." then "Your discards (only you
    see them): 4d 2h 5d Kd As ..." — all 13 cards he was dealt, which he never discarded
    (chinese has no discards; README: a chinese surrender's "cards never shown"). An ofc
    surrender's panel has no such line. From ``panel_text`` (cogs/presenter.py, "Your
    discards (only you see them)") fed by the engine, which keeps a surrendered chinese hand
    as the seat's discards."""
    async with make_world(tmp_path, seed_factory=lambda: "copy-chinese-panel",
                          next_hand_delay=3600) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", stake=10, buyin=100)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        await surrender(w, w.bob)
        panel = await w.slash(w.bob, "ofc hand")
        assert panel.ephemeral and "You surrendered this hand" in panel.content, panel.content
        assert "discard" not in panel.content.lower(), panel.content
        w.fake.assert_clean()


async def test_an_emptied_stack_is_pinged_once(tmp_path: Any) -> None:
    """Was a defect (fixed).

    bob brings 20 units to a chinese table at 10 a point and surrenders (30 units owed).
    The showdown pings him, as README says ("A player whose stack a hand empties is named
    (pinged) in the showdown"): "💸 @bob: your stack is empty, so you sit the next hands
    out. `/ofc join` buys in again (or `/ofc leave`)." A few seconds later, at the next
    deal, the channel gets "Waiting for at least 2 players who are not sitting out to deal
    the next hand. @bob has no units left at the table: `/ofc join` buys in again (or
    `/ofc leave`)." — a second notification for the same news (and bob is not "sitting
    out"). From ``_next_hand_later`` (bot/service.py: ``notice(t, self._why_waiting(t))``,
    pinging) with ``_broke_note``'s ``<@id>`` mentions."""
    async with make_world(tmp_path, seed_factory=lambda: "copy-broke",
                          next_hand_delay=0.3) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", stake=10, buyin=100)
        await w.slash(w.bob, "ofc join", buyin=20)
        await w.slash(w.alice, "ofc start")
        await surrender(w, w.bob)
        await play_out(w, (w.alice,))
        sd = await showdown(w, 1)
        assert sd.pinged == [w.bob.id], sd.pinged
        waiting = await w.fake.wait_for_message(
            w.chan, lambda m: (m.content or "").startswith("Waiting for"),
            include_existing=True, timeout=10)
        assert w.bob.id not in waiting.pinged, waiting.content
        w.fake.assert_clean()


# --------------------------------------------------------------------------- checked, right
async def test_zero_has_no_sign_in_the_showdown_stats_and_leaderboard(tmp_path: Any) -> None:
    """The reference for the two "+0" findings: after an even hand the showdown says "total
    0 points, 0 units", ``/ofc stats`` "1 hand, 0 units, 0 points" and the leaderboard "0
    units, 0 points" (``renderer.common.signed``)."""
    async with make_world(tmp_path, seed_factory=lambda: "copy-even-ok",
                          next_hand_delay=3600) as w:
        sd = await both_surrender(w)
        assert len(total_lines(sd.content)) == 2
        assert all(x.endswith("total 0 points, 0 units") for x in total_lines(sd.content)), \
            sd.content
        stats = await w.slash(w.alice, "ofc stats")
        assert "1 hand, 0 units, 0 points" in stats.text, stats.text
        board = await w.slash(w.alice, "ofc leaderboard")
        assert "alice — 0 units, 0 points, 1 hand" in board.text, board.text
        w.fake.assert_clean()


async def test_a_surrender_is_answered_with_its_cost_and_named_without_a_ping(
    tmp_path: Any,
) -> None:
    """A chinese surrender's question and answer say points and units ("you pay 3 points to
    each opponent (30 units; never more than your stack of 20 units)"), and a mid-hand
    ``/ofc leave`` names the leaver in the channel without pinging anyone."""
    async with make_world(tmp_path, seed_factory=lambda: "copy-surrender-ok",
                          next_hand_delay=3600) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", stake=10, buyin=100)
        await w.slash(w.bob, "ofc join", buyin=20)
        await w.slash(w.carol, "ofc join")
        await w.slash(w.alice, "ofc start")
        ask = await w.slash(w.bob, "ofc surrender")
        assert ask.ephemeral and ("You pay 3 points to each opponent (30 units; never more "
                                  "than your stack of 20 units)") in ask.content, ask.content
        r = await w.click(w.bob, ask, label="Yes, surrender")
        assert r.content.startswith("🏳️ You surrendered: you pay 3 points"), r.content
        leave = await w.slash(w.carol, "ofc leave")
        assert leave.ephemeral and leave.content.startswith("You will leave after this hand")
        notice = await w.fake.wait_for_message(
            w.chan, lambda m: "will leave the table after this hand" in (m.content or ""),
            include_existing=True)
        assert notice.pinged == [], notice.content
        w.fake.assert_clean()

