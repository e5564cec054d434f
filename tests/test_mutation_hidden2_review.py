"""A mutation review of what each viewer may see, second part (the first:
tests/test_mutation_hidden_review.py, which ran 209 of its 1,092 mutants, favouring the engine's
views). This part favours the bot and cogs layers, then engine/review.py and the renderer.

Targets (whole functions, not only their hidden-information lines): bot/service.py ``_place``,
``panel``, ``panel_action``, ``_panel_state``, ``suggest``, ``_timer``, ``_bot_act``,
``_settled_showdown``, ``_review``, ``_finished_hand``, ``_past_hand``, ``_settle``;
cogs/presenter.py ``table_view``, ``hand_view``, ``panel_text``, ``showdown_view``,
``round_view``, ``past_hand_payload``, ``Presenter.fantasyland_dealt``, ``turn_started``,
``showdown``; cogs/views.py ``send_panel``, ``panel_payload``, ``send_past_hand``,
``send_review``, ``may_view``, ``past_hand_for``, ``panel_text_and_view``; the True/False flags
(``ephemeral``) of cogs/ofc.py's hand, place, declare and suggest; engine/review.py
``decisions``; renderer ``draw_board``, table.py ``_seat``/``fouled``/``describe_seat``,
showdown.py ``_natural_cards``/``_natural_line``/``_strip``/``describe_showdown``.

Operators: as the first part's (a throw-away AST tool in /tmp, one node replaced per mutant):
comparisons swapped, ``and``/``or`` swapped, ``not`` dropped, True/False swapped, a condition
(if, conditional expression, while, comprehension filter) -> True or False, a statement
deleted, ``return X`` -> ``return None``, ``x.redacted_for(s)`` -> a full copy of ``x``,
``view_for``/``cards_seen_by`` asked for viewer 0. Tests were chosen by coverage 7.17 with a
context per test (a pytest hook switching the context at each test's setup, so a line a
background task runs is credited to the test running then) over tests/bot, cogs, e2e (all of
it), renderer, engine/test_review.py and test_hand.py and the top-level reviews (1,998 tests);
a mutant ran its tests fastest first up to 12-20 s of their recorded time (a 60 s wall cap), and
a survivor then ran the rest up to 40-150 s more; a survivor of that was checked by hand.

Counts: 1,852 mutants generated; 19 skipped as the first part's equivalents (``table_view``'s
``now`` and its ``hand is not None`` guard, ``/ofc suggest``'s defer and first follow-up flags,
``_place``'s ``not hand.is_over``, asserts dropped). Order: the bot and cogs targets in a random
order (seed 20261128), then all 46 of ``review.decisions``, then the renderer's. Run: 370 (20%):
service 163, presenter 86, views 12, review 46, renderer 63. 303 killed (6 of them by a
timeout or a crash of the test run, one, ``fantasyland_dealt``'s deadline -> None, by an e2e
test beyond the cap), 62 survived, 5 reached by no test. Of those 67:

25 equivalent: ``_timer``: the clock read again after thinking (a deadline moved meanwhile moves
later than both readings); ``if not todo: continue`` (twice: nothing is played, the loop goes
on); the ``continue``/test for a hand ended or replaced while thinking (three: the per-seat check
-- may act, same step, deadline passed -- skips every seat, and settling cancels the timer);
``if superseded(): return`` after thinking (whatever replaces ``t.timer`` cancels the old task
first); the final ``return`` (the next deadline is None); ``except CancelledError: return`` ->
pass; the check after the sleep, the ``expired`` filter -> True and ``if not played: continue``
(a timer thinks or saves for nothing, no move played: time only). ``_bot_act``: the ``return``
after a failed save (the store's state is back: no ping); ``if not natural and not current()``
(twice: the check under the lock drops the move found). ``_panel_state``: ``if req is None`` ->
True (``waiting_for`` is read only without a requirement); ``elif hand.turn is not None`` ->
True (a seat left waiting waits for someone's turn). ``panel_action``: a nested function's
docstring (the tool's). ``_settle``: ``seat.user_id if seat`` (a hand seat keeps its row until
settled). ``_settled_showdown``: ``settlement is None`` -> False (both callers pass a settled
hand). ``send_past_hand``: ``if view is None`` -> False (every caller passes frame 0 or
min(1, rounds): there is always a view). ``fantasyland_dealt``: ``hs is not None`` -> True
(``deadlines.get(None)`` is None). ``decisions``: ``isinstance(action, Place) and req is not
None`` -> True or ``or`` (the other actions are matched above; a Place has its requirement).
``draw_board``: ``target in ROW_NAMES`` -> True (its caller filters the ghosts).

31 gaps, each now killed by a test below (checked: each test passes on the code and fails on its
mutant(s)). About hidden information: the owner's panel listing its discards, and no empty
discard line before one; a fantasyland set telling its discards once; the table's "set" (13
face down, none named) for a fantasyland set (``table_view``, ``describe_seat``: three
mutants), and "fantasyland" of that seat only; a replay's "set" for a fantasyland hand face down
until the last round, and "surrendered" for a seat whose dealt cards no round names; a refused
fantasyland DM logged, naming no card; a review's surrender being the player's own, judged on
the redacted hand. Outside it: "to act" of the turn's seat only and "surrendered" of the
surrenderer only; the practice note; "leaving", not "buy in to play", and no "+ 0 cards face
down"; the set panel's "in the table's channel"; the panel's DM-only location line, its
"Fantasyland" tag, its clock, its "Selected:" line, "Nothing to undo.", "The top row is full";
another seat's panel refused; a failed draft save leaving no draft; a turn ping for no hand or
no seat not sent, and its "sent" answer; a past hand without a replayable log still shown; an
old real-stakes hand not shown as practice; a run-out deadline of a seat that may not act
dropped (the mutant spun).

11 gaps left unpinned (none about hidden information): ``_bot_act``'s level for a bot seat gone
or stored without a level, and its stale turn after ``bot_delay`` (thinks for nothing, or an
assert in a background task); picture-only: the sitting-out veil, a status drawn in no room,
``draw_board``'s metrics, and ``_strip``'s colours of a total (three), its row royalties, its
"SURRENDERED" stamp and natural badge (the text twins say them).

Not run: 1,463 mutants (79%): 579 of the service's, 284 of the presenter's, 80 of the views',
the ``ephemeral`` flags of ``/ofc place`` and ``/ofc declare`` (not reached by the sample) and
518 of the renderer's 581.

Leaks found: none (no survivor, and nothing read around them, showed a hidden card to anyone
but its owner)."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from cogs.presenter import for_message, panel_text, table_view
from engine import Hand
from renderer import describe_table

from .bot.test_service import (
    ALICE,
    BOB,
    CH,
    Clock,
    G,
    finish_by_autoplay,
    heads_up,
    make,
    until,
)
from .test_mutation_hidden_review import fantasyland_started


def user_of(t: Any, hs: int) -> int:
    """The user playing hand seat ``hs`` at table ``t``."""
    seat = t.seat_by_no(t.hand_seats[hs])
    assert seat is not None
    return int(seat.user_id)


def turn_at(svc: Any, t: Any) -> tuple[Any, int, int, int, int]:
    """The hand being played at ``t`` and its turn: (hand, hand seat, user, table seat, step)
    -- what a panel action names."""
    hand = t.hand
    assert hand is not None and hand.turn is not None
    hs = hand.turn
    return hand, hs, user_of(t, hs), t.hand_seats[hs], svc.step_of(t, hs)


async def _play_until(svc: Any, t: Any, done: Any) -> None:
    """Whoever is to act plays (a plain autoplay move, played as the player's own) until
    ``done()`` holds or the hand ends."""
    while not done() and t.hand is not None and not t.hand.is_over:
        hs = t.hand.to_act()[0]
        move = Hand.from_json(t.hand.to_json()).autoplay(hs, plain=True)
        async with t.lock:
            await svc._place(t, hs, move.placements, move.discards)


# --------------------------------------------------------------------------- the private panel
async def test_the_panel_lists_its_owners_discards_and_no_discard_line_before_one() -> None:
    """Promise: a pineapple discard is seen by its owner only, in the owner's panel ("Your
    discards (only you see them): ..."). Before the seat has discarded, its panel has no such
    line at all (mutant: ``if p.discards`` -> True in ``panel_text``: an empty "Your discards"
    line); once it has, its own panel names the card and the other seat's panel does not."""
    svc, rec, store, t = await heads_up("mut-hid2-panel-discards", "pineapple")
    try:
        hand = t.hand
        assert hand is not None
        first = hand.turn
        assert first is not None
        before = panel_text(svc.panel(t.id, user_of(t, first)), "pineapple")
        assert "Your discards" not in before, before
        await _play_until(svc, t, lambda: bool(hand.discards[first]) and hand.turn != first)
        dropped = hand.discards[first]
        assert len(dropped) == 1 and not hand.is_over
        mine = panel_text(svc.panel(t.id, user_of(t, first)), "pineapple")
        assert f"Your discards (only you see them): {dropped[0]}" in mine, mine
        other = 1 - first
        theirs = panel_text(svc.panel(t.id, user_of(t, other)), "pineapple")
        assert str(dropped[0]) not in theirs, theirs
    finally:
        await svc.shutdown()
        await store.close()


# --------------------------------------------------------------------------- the table view
async def test_nobody_is_to_act_before_the_deal_and_only_the_turns_seat_in_a_hand() -> None:
    """The table's view marks "to act" only the seat whose turn it is: nobody at a table
    waiting for its first deal (mutant: ``is_turn = False`` -> True in ``table_view``: every
    seat, dealt or not, said to act), and "surrendered" only the seat that surrendered."""
    svc, rec, store, t = await heads_up("mut-hid2-to-act", "ofc", start=False)
    try:
        view = table_view(t)
        assert [s.is_turn for s in view.seats] == [False, False]
        assert "to act" not in describe_table(for_message(view))
        await svc.start(t.row.channel_id, ALICE)
        assert t.hand is not None and t.hand.turn is not None
        view = table_view(t)
        turn_seat = t.hand_seats[t.hand.turn]
        assert [s.is_turn for s in view.seats] == [n == turn_seat for n in range(2)]
        assert describe_table(for_message(view)).count("to act") == 1
        # nobody has surrendered: no seat says so (mutant: ``if sv["surrendered"]`` -> True
        # in ``table_view``); the one who does is the only one said to have
        assert "surrendered" not in describe_table(for_message(view))
        quitter = t.hand.turn
        await svc.surrender(t.row.channel_id, user_of(t, quitter))
        view = table_view(t)
        assert [s.status == "surrendered" for s in view.seats] == [
            n == t.hand_seats[quitter] for n in range(2)]
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_practice_table_says_so_in_its_view() -> None:
    """README: a practice table moves no units and counts in no leaderboard, and its table
    message says so (mutant: the ``if t.practice`` note deleted in ``table_view``); a table
    playing for units has no such note."""
    svc, rec, store = await make(seed_factory=lambda: "mut-hid2-practice")
    try:
        await svc.new_table(G, CH, ALICE, "alice", variant="ofc", bots=1)
        t = svc.table_in_channel(CH)
        assert t.practice
        for view in (table_view(t), None):
            if view is None:
                await svc.start(CH, ALICE)
                assert t.hand is not None
                view = table_view(t)
            assert "Practice table: no units move" in view.note, view.note
            assert "Practice table" in describe_table(for_message(view))
    finally:
        await svc.shutdown()
        await store.close()
    svc, rec, store, t = await heads_up("mut-hid2-not-practice", "ofc")
    try:
        assert not t.practice and "Practice" not in table_view(t).note
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_set_panel_points_to_the_tables_channel_in_words_or_by_link_in_a_dm() -> None:
    """A chinese set's panel offers the quicker ``/ofc place``: "in the table's channel" for
    the panel opened there, a link to the channel for one in a DM (mutant: the ``channel_id
    is not None`` test -> True in ``panel_text``: the channel's panel would say "in <#None>")."""
    svc, rec, store, t = await heads_up("mut-hid2-set-panel", "chinese")
    try:
        p = svc.panel(t.id, ALICE)
        assert p.requirement is not None and p.requirement.is_set
        here = panel_text(p, "chinese")
        assert "`/ofc place` in the table's channel: " in here, here
        assert "<#" not in here
        dm = panel_text(p, "chinese", channel_id=CH)
        assert f"`/ofc place` in <#{CH}>: " in dm, dm
    finally:
        await svc.shutdown()
        await store.close()


# --------------------------------------------------------------------------- the fantasyland DM
@pytest.mark.e2e
async def test_a_fantasyland_dm_refused_otherwise_is_logged_without_a_card(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fantasyland DM refused for any reason but closed DMs is logged as an error (mutant: the
    ``log.exception`` in ``Presenter.fantasyland_dealt`` deleted), naming the player but none
    of the hidden hand's cards (README: no log line names a hidden card); the hand stays
    private: the channel is told, without a card."""
    import discord

    from .e2e.conftest import make_world, table_of

    class Gone:
        status, reason = 404, "Not Found"

    async def unknown_user(user_id: int) -> Any:
        raise discord.NotFound(Gone(), {"code": 10013, "message": "Unknown User"})

    async with make_world(tmp_path, seed_factory=lambda: "mut-hid2-dm-log") as w:
        bot = await w.start_bot()
        monkeypatch.setattr(bot, "fetch_user", unknown_user)
        await w.slash(w.alice, "ofc new", variant="pineapple")
        await w.slash(w.bob, "ofc join")
        t = table_of(w)
        await w.store.update_table(t.id, extra={"fantasyland": {"1": 14}})
        await w.service._refresh(t)
        with caplog.at_level(logging.ERROR):
            await w.slash(w.alice, "ofc start")
            note = await w.fake.wait_for_message(
                w.chan, lambda m: "I could not send it by DM" in (m.content or ""),
                include_existing=True)
        hs = t.hand_seat_of(1)
        cards = {str(c) for c in t.hand.pending[hs]} | {c.pretty for c in t.hand.pending[hs]}
        assert len(t.hand.pending[hs]) == 14
        logged = [r for r in caplog.records if r.levelno >= logging.ERROR
                  and "could not DM the fantasyland hand" in r.getMessage()]
        assert len(logged) == 1 and str(w.bob.id) in logged[0].getMessage()
        for r in caplog.records:
            text = r.getMessage() + (caplog.text if r.exc_info else "")
            assert not [c for c in cards if re.search(rf"(?<![0-9A-Za-z]){re.escape(c)}"
                                                      r"(?![0-9a-z])", text)], text
        assert not [c for c in cards if c in note.content]


async def test_a_fantasyland_panel_says_fantasyland_and_a_street_panel_does_not() -> None:
    """A fantasyland hand's panel (the DM's text too) heads "· 🌴 Fantasyland" (mutant: its
    condition -> False in ``panel_text``); the street player's panel has no such tag, and
    holds none of the fantasyland hand's cards."""
    svc, rec, store, t = await fantasyland_started("mut-hid2-fl-panel", seat=0, cards=14)
    try:
        assert t.hand is not None and t.hand.fantasyland[t.hand_seat_of(0)] == 14
        fl = panel_text(svc.panel(t.id, ALICE), "pineapple")
        assert fl.splitlines()[0].endswith(" · 🌴 Fantasyland"), fl
        street = panel_text(svc.panel(t.id, BOB), "pineapple")
        assert "Fantasyland" not in street.splitlines()[0], street
        hidden = t.hand.pending[t.hand_seat_of(0)]
        assert not [c for c in hidden if str(c) in street]
    finally:
        await svc.shutdown()
        await store.close()


# --------------------------------------------------------------------------- past hands
async def test_a_past_hand_whose_log_cannot_be_replayed_still_shows_its_showdown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``TableService._past_hand``: a hand whose log cannot be played again (an error in
    ``Hand.rounds``) still shows its showdown, with no rounds to replay (mutant: the
    ``rounds = ()`` of its fallback deleted: the showdown failed too)."""
    svc, rec, store, t = await heads_up("mut-hid2-past-no-rounds", "ofc")
    try:
        await finish_by_autoplay(svc)
        await until(lambda: t.row.hand_no >= 2)
        good = await svc.past_hand(CH, 1)
        assert good.rounds

        def unreadable(data: Any) -> Any:
            raise ValueError("a log that cannot be played again")

        monkeypatch.setattr(Hand, "rounds", staticmethod(unreadable))
        past = await svc.past_hand(CH, 1)
        assert past.rounds == ()
        assert past.result.hand_no == 1 and past.result.settlement == good.result.settlement
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_real_stakes_hand_saved_before_practice_was_is_not_shown_as_practice() -> None:
    """``_settled_showdown``: a final state written before ``practice`` was saved is practice
    only when its results counted for nobody; a hand played for units shows its units again
    (mutant: that fallback's ``and`` -> ``or``: every such hand shown again as practice, "no
    units moved")."""
    svc, rec, store, t = await heads_up("mut-hid2-old-real", "ofc")
    try:
        assert not t.practice and t.row.stake
        await finish_by_autoplay(svc)
        await until(lambda: t.row.hand_no >= 2)
        live = await svc.past_hand(CH, 1)
        assert not live.result.practice and live.result.units is not None
        (row, _), = await store.history(t.id, 1)
        old = {k: v for k, v in row.state.items() if k != "practice"}
        await store._db.execute("UPDATE hands SET state = ? WHERE id = ?",
                                (json.dumps(old), row.id))
        await store._db.commit()
        past = await svc.past_hand(CH, 1)
        assert not past.result.practice and past.result.units == live.result.units
    finally:
        await svc.shutdown()
        await store.close()


async def test_the_panel_refuses_an_undo_of_nothing_and_a_card_for_a_full_row() -> None:
    """The private panel's refusals (``TableService.panel_action``) and its selection line:
    **Undo** with nothing chosen says "Nothing to undo." (mutant: that raise deleted: the
    click passed silently), and a card pressed to a row already full says the row is full
    (mutant: ``free == 0`` -> False: "has room for 0 more cards, not 1"); neither changes the
    draft."""
    from bot.service import ServiceError

    svc, rec, store, t = await heads_up("mut-hid2-panel-refusals", "ofc")
    try:
        hand, hs, user, seat_no, step = turn_at(svc, t)
        cards = [str(c) for c in hand.requirement(hs).cards]
        assert len(cards) == 5

        async def click(action: str, values: tuple[str, ...] = ()) -> Any:
            return await svc.panel_action(t.id, user, seat_no, t.row.hand_no, step, action,
                                          values)

        with pytest.raises(ServiceError, match=r"^Nothing to undo\.$"):
            await click("undo")
        # the panel's text lists a selection only when there is one (mutant: ``if
        # p.draft.selected`` -> True in ``panel_text``: "Selected:  — press a row.")
        assert "Selected:" not in panel_text(svc.panel(t.id, user), "ofc")
        state, _ = await click("pick", tuple(cards[:3]))
        assert f"Selected: {' '.join(cards[:3])} — press a row." in panel_text(state, "ofc")
        await click("top")
        await click("pick", (cards[3],))
        with pytest.raises(ServiceError, match=r"^The top row is full\.?$"):
            await click("top")
        state, _ = await click("undo")  # the selection goes, the three on top stay
        assert [(str(c), r) for c, r in state.draft.assigned] == [(c, 0) for c in cards[:3]]
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_replay_says_set_only_of_a_fantasyland_hand_still_face_down() -> None:
    """README (replay): "a fantasyland set face down until the last round". In a replay's
    rounds (``round_view``) the fantasyland seat reads "set" while its cards are face down and
    shows them in the last round; the street player, done only at the end, is never "set"
    (mutant: ``sv["done"] and hidden`` -> ``or``: every finished board said "set")."""
    from cogs.presenter import round_view

    svc, rec, store, t = await fantasyland_started("mut-hid2-replay-set", seat=0, cards=14)
    try:
        assert t.hand is not None
        fl = t.hand_seat_of(0)
        await _play_until(svc, t, lambda: False)
        await until(lambda: t.row.hand_no >= 2)
        past = await svc.past_hand(CH, 1)
        assert len(past.rounds) >= 2
        for index in range(len(past.rounds)):
            view = round_view(past, index)
            last = index == len(past.rounds) - 1
            for hs, seat in enumerate(view.seats):
                if hs == fl and not last and seat.hidden:
                    assert seat.status == "set" and not seat.board.cards
                else:
                    assert seat.status == "", (index, hs, seat.status)
        assert any(round_view(past, i).seats[fl].status == "set"
                   for i in range(len(past.rounds) - 1))
        end = round_view(past, len(past.rounds) - 1).seats[fl]
        assert end.hidden == 0 and len(end.board.cards) == 13
    finally:
        await svc.shutdown()
        await store.close()


# --------------------------------------------------------------------------- the presenter
async def test_a_turn_ping_goes_out_only_for_a_hand_and_a_seat_still_there() -> None:
    """``Presenter.turn_started``: the ping of a turn names its player; a ping decided for a
    hand gone since, or for seats no longer at the table (nobody to mention), is not sent
    (mutant: ``if not mentions or t.hand is None`` -> False: "🎯 : your turn" to nobody)."""
    from cogs.presenter import Presenter

    from .cogs.test_presenter import _Messages

    channels: dict[int, Any] = {}
    bot = SimpleNamespace(
        service=None, user=None,
        get_partial_messageable=lambda cid, guild_id: channels.setdefault(cid, _Messages()))
    presenter = Presenter(cast(Any, bot), 0.0)  # (started before the table: no old pings)
    svc, rec, store, t = await heads_up("mut-hid2-ping", "ofc", start=False)
    bot.service = svc

    def sent() -> list[str]:
        return [text for _, text in channels[CH].sent] if CH in channels else []

    try:
        assert await presenter.turn_started(t, [0], None) is False  # no hand (yet)
        assert sent() == []
        await svc.start(CH, ALICE)
        assert t.hand is not None and t.hand.turn is not None
        hs = t.hand.turn
        assert await presenter.turn_started(t, [t.hand_seats[hs]],
                                            t.hand.requirement(hs)) is True
        assert len(sent()) == 1 and sent()[0].startswith(f"🎯 <@{user_of(t, hs)}>: your turn")
        assert await presenter.turn_started(t, [7], None) is False  # no seat 7 here
        assert len(sent()) == 1
    finally:
        await presenter.close()
        await svc.shutdown()
        await store.close()


async def test_a_replay_says_surrendered_and_never_shows_the_surrendered_cards() -> None:
    """README (history): "discards and a surrender's cards stay unseen". A player who
    surrenders before placing reads "surrendered" in every round of the replay
    (``round_view``; mutant: its ``sv["surrendered"]`` -> False) with an empty board, and no
    round's picture or text names a card they were dealt."""
    from cogs.presenter import round_view

    svc, rec, store, t = await heads_up("mut-hid2-replay-surrender", "pineapple")
    try:
        hand = t.hand
        assert hand is not None and hand.turn is not None
        quitter = hand.turn
        dealt = set(hand.pending[quitter])
        assert len(dealt) == 5
        await svc.surrender(CH, user_of(t, quitter))
        await _play_until(svc, t, lambda: False)
        await until(lambda: t.row.hand_no >= 2)
        past = await svc.past_hand(CH, 1)
        assert past.rounds
        for index in range(len(past.rounds)):
            view = round_view(past, index)
            seat = view.seats[quitter]
            assert seat.status == "surrendered" and not seat.board.cards, (index, seat)
            assert view.seats[1 - quitter].status == ""
            text = describe_table(for_message(view))
            assert not [c for c in dealt if str(c) in text or c.pretty in text], text
            assert not dealt & {c for s in view.seats for c in (*s.board.cards, *s.last_placed)}
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_first_panel_click_that_cannot_be_saved_leaves_no_draft_behind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``panel_action``: a click whose draft cannot be saved changes nothing in memory either:
    a player with no draft before has none after (mutant: ``if before_draft is None`` ->
    False: the draft became None and the panel then failed), and their panel works again."""
    import sqlite3

    svc, rec, store, t = await heads_up("mut-hid2-draft-save", "ofc")
    try:
        hand, hs, user, seat_no, step = turn_at(svc, t)
        card = str(hand.requirement(hs).cards[0])
        assert hs not in t.drafts

        async def locked(*args: Any, **kw: Any) -> None:
            raise sqlite3.OperationalError("database is locked")

        monkeypatch.setattr(store, "save_hand_state", locked)
        with pytest.raises(sqlite3.OperationalError):
            await svc.panel_action(t.id, user, seat_no, t.row.hand_no, step, "pick", (card,))
        assert hs not in t.drafts
        monkeypatch.undo()
        assert svc.panel(t.id, user).draft.selected == []
        state, _ = await svc.panel_action(t.id, user, seat_no, t.row.hand_no, step, "pick",
                                          (card,))
        assert state is not None and [str(c) for c in state.draft.selected] == [card]
    finally:
        await svc.shutdown()
        await store.close()


async def test_the_table_shows_a_set_fantasyland_hand_as_set_and_face_down() -> None:
    """README: fantasyland sets stay hidden until the showdown. Once set, the fantasyland
    seat reads "set" on the table with its 13 cards face down and none named (mutant:
    ``elif sv["done"] and hidden`` -> False in ``table_view``: no word that it is set); the
    street player, not done, reads nothing of the kind."""
    svc, rec, store, t = await fantasyland_started("mut-hid2-fl-shown-set", seat=0, cards=14)
    try:
        hand = t.hand
        assert hand is not None
        fl = t.hand_seat_of(0)
        assert fl is not None
        view = table_view(t)
        assert view.seats[0].status == "" and view.seats[0].hidden == 14  # dealt, not set
        move = Hand.from_json(hand.to_json()).autoplay(fl, plain=True)
        async with t.lock:
            await svc._place(t, fl, move.placements, move.discards)
        assert hand.done[fl] and not hand.is_over
        view = table_view(t)
        mine, other = view.seats[0], view.seats[1]
        assert mine.status == "set" and mine.hidden == 13 and not mine.board.cards
        assert other.status == ""
        text = describe_table(for_message(view))
        assert "alice — 13 cards face down" in text and " · set" in text, text
        # (``describe_seat``: "fantasyland" of her seat only; mutant: its test -> True)
        lines = {line.split(" — ")[0]: line for line in text.splitlines() if " — " in line}
        assert " · fantasyland" in lines["alice"] and "fantasyland" not in lines["bob"]
        assert not [c for c in hand.boards[fl].cards if str(c) in text or c.pretty in text]
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_panel_asked_for_another_seat_is_refused_and_ones_own_has_its_clock() -> None:
    """``TableService.panel`` with a seat (a panel's button names it): another player's seat
    is refused, "This panel belongs to another player." (mutant: that check -> False: the
    asker's own panel was drawn instead, under the other seat's button); one's own panel, drawn
    as a picture (``hand_view``), shows the time left on its clock (mutant: ``deadline is
    None`` -> True: never a clock)."""
    import time

    from bot.service import ServiceError
    from cogs.presenter import hand_view

    svc, rec, store, t = await heads_up("mut-hid2-panel-seat", "ofc")
    try:
        with pytest.raises(ServiceError, match="This panel belongs to another player"):
            svc.panel(t.id, ALICE, seat_no=1)
        p = svc.panel(t.id, ALICE, seat_no=0)
        assert p.seat_no == 0
        hv = hand_view(p, "ofc", time.time() + 90.5, t.rules)
        assert hv.time_left is not None and 85 <= hv.time_left <= 90
        assert hand_view(p, "ofc", None, t.rules).time_left is None
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_player_leaving_after_the_hand_reads_leaving_on_the_table() -> None:
    """A player who asks to leave mid-hand keeps playing it, and the table says "leaving" of
    them (mutant: ``status = "leaving"`` deleted in ``table_view``), of them only."""
    svc, rec, store, t = await heads_up("mut-hid2-leaving", "ofc")
    try:
        assert t.hand is not None
        await svc.leave(CH, BOB)
        view = table_view(t)
        assert [s.status for s in view.seats] == ["", "leaving"]
        assert "bob — " in describe_table(for_message(view))
        assert " · leaving" in describe_table(for_message(view)).split("bob — ")[1]
        # (``describe_seat``: no "+ 0 cards face down" where none is; mutant: its
        # ``if seat.hidden`` -> True)
        assert "face down" not in describe_table(for_message(view))
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_panel_in_the_channel_does_not_name_the_table_a_dm_panel_does() -> None:
    """``panel_text_and_view``: the panel opened in the table's channel heads "Your panel —
    hand #1" alone; only a panel in a DM (no channel of its own) says where its table is
    (mutant: ``if dm`` -> True: every panel named its own channel and server)."""
    from cogs.views import panel_text_and_view

    svc, rec, store, t = await heads_up("mut-hid2-panel-where", "ofc")
    bot = SimpleNamespace(service=svc, get_guild=lambda guild_id: None)
    try:
        state = svc.panel(t.id, ALICE)
        here, _ = panel_text_and_view(cast(Any, bot), state)
        assert here.splitlines()[0] == "**Your panel** — hand #1", here
        dm, _ = panel_text_and_view(cast(Any, bot), state, dm=True)
        assert dm.splitlines()[0] == f"**Your panel** — hand #1 at <#{CH}>", dm
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_fantasyland_set_names_its_discard_to_its_owner_once() -> None:
    """Promise: a pineapple discard is seen by its owner only, and told to them once. Setting a
    15-card fantasyland hand answers "Your hand is set: ... Discarded X Y." and nothing more of
    the discards (mutant: the set's ``hidden = True`` -> False in ``TableService._place``: the
    discards named a second time, "(only you see this)"), and the table names neither."""
    svc, rec, store, t = await fantasyland_started("mut-hid2-fl-discard-once", seat=1, cards=15)
    try:
        hand = t.hand
        assert hand is not None
        hs = t.hand_seat_of(1)
        assert hs is not None and hand.fantasyland[hs] == 15
        move = Hand.from_json(hand.to_json()).autoplay(hs, plain=True)
        assert len(move.discards) == 2
        async with t.lock:
            result, _ = await svc._place(t, hs, move.placements, move.discards)
        named = " ".join(str(c) for c in move.discards)
        assert result.text.startswith("Your hand is set: ")
        assert result.text.endswith(f". Discarded {named}."), result.text
        assert result.text.count("Discarded") == 1 and "only you see" not in result.text
        text = describe_table(for_message(table_view(t)))
        assert not [c for c in move.discards if str(c) in text or c.pretty in text]
    finally:
        await svc.shutdown()
        await store.close()


async def test_the_clock_drops_a_run_out_deadline_of_a_seat_that_may_not_act() -> None:
    """``TableService._timer``: a deadline run out for a seat that may not act (not its turn)
    plays nothing and is dropped (mutant: the ``t.deadlines.pop`` of that branch deleted: the
    clock found the same deadline run out again and again, spinning), and the seat to act
    keeps its clock."""
    clock = Clock()
    svc, rec, store, t = await heads_up("mut-hid2-stale-deadline", "ofc", clock=clock)
    try:
        hand = t.hand
        assert hand is not None and hand.turn is not None
        waiting = 1 - hand.turn
        assert not hand.may_act(waiting) and hand.turn in t.deadlines
        t.deadlines[waiting] = clock() - 1
        svc.rearm()
        await until(lambda: waiting not in t.deadlines)
        assert waiting not in t.deadlines
        assert hand.turn in t.deadlines and not hand.boards[waiting].cards
        assert not hand.boards[hand.turn].cards  # nothing was played for anyone
    finally:
        await svc.shutdown()
        await store.close()


# --------------------------------------------------------------------------- the review
def test_a_surrender_in_a_review_is_the_players_own_and_judged_on_what_they_saw() -> None:
    """README (review): moves the clock played are shown, not counted. A surrender is always
    the player's own: its decision is not marked as the clock's (mutant: its ``auto`` False ->
    True in ``review.decisions``), and it is judged on the hand redacted for its seat: not the
    deck's seed, none of the other seat's pending cards or discards."""
    from engine import Rules
    from engine.review import decisions

    h = Hand(Rules(variant="pineapple"), ["Ann", "Bob"], button=1, seed="mut-hid2-review")
    for _ in range(3):  # each seat its first street, then one its second (a discard)
        h.autoplay(h.turn, plain=True)
    me = h.turn
    other = 1 - me
    assert h.discards[other] and h.pending[me]
    h.surrender(me)
    while not h.is_over:
        h.autoplay(h.to_act()[0], plain=True)
    found = decisions(h.to_json(), me)
    gave_up = [d for d in found if d.kind == "surrender"]
    assert len(gave_up) == 1 and gave_up[0].auto is False
    assert [d.auto for d in found if d.kind == "street"] == [True]  # (autoplayed: the clock's)
    before = gave_up[0].before
    assert before.seed != h.seed
    assert before.discards[other] == () and before.pending[other] == ()
