"""A mutation review of what each viewer may see, third part (the first two:
tests/test_mutation_hidden_review.py and tests/test_mutation_hidden2_review.py, whose docstring
lists the 1,463 mutants it did not run). This part runs those, the hidden-information lines
first.

Targets: the second part's (the same functions of bot/service.py, cogs/presenter.py,
cogs/views.py, cogs/ofc.py's ``ephemeral`` flags, engine/review.py and the renderer), its
mutants generated again from today's source by the same throw-away AST tool (in /tmp) and
matched one to one to the second part's by file, function, operator, old and new text and
position (service.py's lines after ``rearm``'s longer docstring shifted by 4): 1,852, of which
370 were run by the second part and 19 skipped as the first part's equivalents.

Operators: the second part's (comparisons swapped, ``and``/``or`` swapped, ``not`` dropped,
True/False swapped, a condition or comprehension filter -> True or False, a statement
deleted, ``return X`` -> ``return None``, ``redacted_for`` -> a full copy, ``view_for`` /
``cards_seen_by`` asked for viewer 0).

Tests were chosen by the second part's per-test coverage (1,998 tests; its lines re-mapped
by the shift), fastest first up to 12 s of their recorded time (a 60 s wall cap), then for a
survivor the second part's and the first part's review files (not in that coverage run) and
its other tests up to 30 s more; a survivor of that, or a mutant no test reached (a default
argument's ``def`` line is never credited to a test), was checked by hand. Order: the two
``ephemeral`` flags of ``/ofc place`` and ``/ofc declare``; then the service, presenter and
views mutants whose text names hidden information (``redacted_for``, ``view_for``,
``cards_seen_by``, discard, fantasyland, pending, hidden, deck, DM, ephemeral, panel, showdown,
private, owner, face down) in a random order (seed 20261129); then the rest of the functions
so named (the panels', the showdown's...), in the same way; the other service, presenter and
views mutants and the renderer's were not reached before the time ran out.

Counts: 1,463 not run before; run 402 (27%): ofc 2, service 242, presenter 121, views 37 (all
215 of the hidden-information text, 185 of the 266 in functions so named). 340 killed by the
tests before this file (9 of them by a test run's timeout: a showdown or review message never
sent, waited for; 3, each a default argument or a line first covered by the second part's
own tests, by tests/test_mutation_hidden2_review.py: ``_place``'s ``auto=False``,
``panel_text_and_view``'s ``dm=False``, a failed first draft save). 55 survived and 7 were
reached by no test; of those 62:

10 equivalent: ``panel_payload``'s ``dm=False`` -> True (every caller passes ``dm``);
``send_past_hand``'s ``view is None`` branch (two: unreachable, as the second part's 1154);
``_settled_showdown``'s ``zip(..., strict=True)`` -> False (one entry per hand seat on both
sides) and its ``return None`` for no settlement deleted (both callers pass a "done" hand,
as the second part's 537); ``_timer``'s ``t.showdown_notes = []`` after a failed save
(``_not_saved`` restores the stored state, from the deal on, notes included); ``_settle``'s
``fantasyland_owed_by`` kept when none was earned (only carried fantasylands are pending
then, of seats not dealt, and ``fantasyland_playable`` counts an earner only in
``owed_by``: nobody is bound either way); ``panel_action``'s ``before = (None, 0)`` deleted
(read only after a confirm, which sets it); ``Presenter.showdown``'s ``return True`` (two:
its only caller, ``_after_showdown``, ignores the answer).

52 gaps, each now killed by a test below (checked: each test passes on the code and fails on
its mutant). About hidden information (21): every message of a review (which names the
player's own discards) private, not only the first (``send_review``'s follow-ups'
``ephemeral``); a fantasyland set that is the hand's last move names its discard once
(``_place``'s set ``hidden = True``); a fantasyland set panel's typed hint "the rest then
`discard`", and none for a chinese set or a street (three); the discard refusals "Nothing is
discarded this round." and "You discard N card(s) this round." (nine: the count check, the
discards already chosen counted, its wording, singular and plural) and a card already
discarded named as such; the fantasyland DM for a seat gone (nothing done, nothing logged)
or with no panel to draw (logged, nothing sent; five); the channel's ``/ofc hand`` panel not
headed as a DM's (``send_panel``'s ``dm``). Outside it (31): a voided hand played to its end
has no showdown in ``/ofc history``; the short clock ends when the player acts
(``t.away.discard``); the panel's waiting lines "It is <name>'s turn." and "You are done for
this hand" (eight), its clock, its how-to line, no "(royalties 0)", no empty "Chosen so far",
an unknown action, **Clear**, **Undo** of a selection and of a draft saved without its
presses, a row pressed with nothing selected (two), "room for 1 more card", the last move's
confirm answering with no panel, the next player pinged after a confirm (two) and nobody at
another click; the table's button mark; a past hand's picture's alt text "The message's text
has ..."; an older final state's fantasyland sizes (the results' flag and its default, the
options given) and a newer one's as shown (four).

Gaps left unpinned: none.

Leaks found: none (no survivor, and nothing read around them, showed a hidden card to anyone
but its owner).

Not run: 1,061 mutants: 337 of the service's, 163 of the presenter's, 43 of the views' (none
of them in text naming hidden information; 81 in functions so named) and all 518 of the
renderer's not run by the second part."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

import pytest

from bot.service import ServiceError
from engine import Hand

from .bot.test_service import ALICE, BOB, heads_up
from .test_mutation_hidden2_review import turn_at, user_of
from .test_mutation_hidden_review import fantasyland_started


# --------------------------------------------------------------------------- the review
async def test_every_message_of_a_long_review_is_private(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """README (review): a player's review is private: it names their own discards (seen by
    them only). ``send_review`` sends every message of it ephemeral, not only the first
    (which replaces the deferred "thinking" answer, private whatever its flag; mutant: the
    follow-ups' ``ephemeral=True`` -> False: a review too long for one message went on in
    the channel). The other player's discards are in none of its messages."""
    from types import SimpleNamespace

    import cogs.views as views
    from cogs.presenter import review_messages

    from .bot.test_service import CH, finish_by_autoplay, until

    svc, rec, store, t = await heads_up("mut-hid3-review", "pineapple")
    try:
        await finish_by_autoplay(svc)
        await until(lambda: t.row.hand_no >= 2)
        found = await svc.review_here(CH, ALICE, 1)
        (row, _), = await store.history(t.id, 1)
        users = [int(u) for u in row.state["users"]]
        discards = Hand.from_json(row.state["engine"]).discards
        mine = {str(c) for c in discards[users.index(ALICE)]}
        theirs = {str(c) for c in discards[users.index(BOB)]}
        assert len(mine) == len(theirs) == 4
    finally:
        await svc.shutdown()
        await store.close()
    monkeypatch.setattr(views, "review_messages",
                        lambda found, heading: review_messages(found, heading, limit=300))
    sent: list[tuple[str, bool]] = []

    async def send(text: str, *, ephemeral: bool = False, **kw: Any) -> None:
        sent.append((text, ephemeral))

    interaction = SimpleNamespace(channel_id=CH, followup=SimpleNamespace(send=send))
    await views.send_review(cast(Any, interaction), found)
    assert len(sent) >= 3 and all(private for _, private in sent), sent
    text = "\n".join(t for t, _ in sent)
    words = set(re.findall(r"\b[2-9TJQKA][cdhs]\b", text))
    assert mine <= words and not theirs & words, (mine, theirs, words)


# --------------------------------------------------------------------------- fantasyland discards
async def test_a_fantasyland_set_that_ends_the_hand_names_its_discard_once() -> None:
    """``TableService._place``: a fantasyland set that is the hand's last move (the street
    player finished first) answers "Your hand is set: ... Discarded X." once, with no second
    "(only you see this)" naming (mutant: the set's ``hidden = True`` deleted: a hand over is
    not hidden any more, and the discard was named twice)."""
    svc, rec, store, t = await fantasyland_started("mut-hid3-fl-set-last", seat=0, cards=14)
    try:
        hand = t.hand
        assert hand is not None
        fl, street = t.hand_seat_of(0), t.hand_seat_of(1)
        while not hand.done[street]:
            move = Hand.from_json(hand.to_json()).autoplay(street, plain=True)
            async with t.lock:
                await svc._place(t, street, move.placements, move.discards)
        assert not hand.done[fl] and not hand.is_over
        move = Hand.from_json(hand.to_json()).autoplay(fl, plain=True)
        assert len(move.discards) == 1
        async with t.lock:
            result, _ = await svc._place(t, fl, move.placements, move.discards)
        assert result.hand_over
        assert result.text.startswith("Your hand is set: ")
        assert result.text.endswith(f". Discarded {move.discards[0]}."), result.text
        assert result.text.count(str(move.discards[0])) == 1, result.text
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_fantasyland_set_panel_says_the_rest_goes_to_the_discard() -> None:
    """The set panel's typed hint (``panel_text``): a 14-card fantasyland hand, which discards
    one card only its owner sees, is told "..., five then `bottom`, the rest then `discard`."
    (mutant: its ``if req.discard`` -> False: no word of the discard); a chinese set of 13
    discards nothing and says no such thing, and a street's panel offers no typed set."""
    from cogs.presenter import panel_text

    svc, rec, store, t = await fantasyland_started("mut-hid3-fl-hint", seat=1, cards=14)
    try:
        p = svc.panel(t.id, BOB)
        assert p.requirement is not None and p.requirement.is_set and p.requirement.discard == 1
        text = panel_text(p, "pineapple")
        assert "five then `bottom`, the rest then `discard`." in text, text
        # the street player's panel is no set: no hint to type one (mutant: ``if req.is_set``
        # -> True in ``panel_text``)
        street = svc.panel(t.id, ALICE)
        assert street.requirement is not None and not street.requirement.is_set
        assert "Quicker" not in panel_text(street, "pineapple")
    finally:
        await svc.shutdown()
        await store.close()
    svc, rec, store, t = await heads_up("mut-hid3-set-hint", "chinese")
    try:
        p = svc.panel(t.id, ALICE)
        assert p.requirement is not None and p.requirement.is_set and not p.requirement.discard
        text = panel_text(p, "chinese")
        assert "five then `bottom`." in text and "`discard`" not in text, text
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_discard_pressed_where_nothing_is_discarded_says_so() -> None:
    """``TableService.panel_action``: a card sent to the discard where the round discards none
    (Open Face) is refused with "Nothing is discarded this round." (mutants: its ``if
    req.discard`` -> True: "You discard 0 cards this round."; the raise deleted: the card
    discarded), and changes no draft; a 15-card fantasyland hand's discard takes two cards."""
    svc, rec, store, t = await heads_up("mut-hid3-no-discard", "ofc")
    try:
        hand, hs, user, seat_no, step = turn_at(svc, t)
        req = hand.requirement(hs)
        assert req.discard == 0
        card = str(req.cards[0])
        await svc.panel_action(t.id, user, seat_no, t.row.hand_no, step, "pick", (card,))
        with pytest.raises(ServiceError, match=r"^Nothing is discarded this round\.$"):
            await svc.panel_action(t.id, user, seat_no, t.row.hand_no, step, "discard", ())
        # (an action no button sends is refused too; mutant: that raise deleted)
        with pytest.raises(ServiceError, match=r"^Unknown panel action 'shuffle'\.$"):
            await svc.panel_action(t.id, user, seat_no, t.row.hand_no, step, "shuffle", ())
        state = svc.panel(t.id, user)
        assert [str(c) for c in state.draft.selected] == [card] and not state.draft.assigned
    finally:
        await svc.shutdown()
        await store.close()
    # a 15-card fantasyland discards two: three cards sent there are refused, in the plural
    # (mutants: ``'s' if req.discard != 1`` -> ``== 1`` or -> False: "You discard 2 card")
    svc, rec, store, t = await fantasyland_started("mut-hid3-fl-discard", seat=0, cards=15)
    try:
        hs = t.hand_seat_of(0)
        req = t.hand.requirement(hs)
        assert req.discard == 2
        step = svc.step_of(t, hs)
        three = tuple(str(c) for c in req.cards[:3])
        await svc.panel_action(t.id, ALICE, 0, t.row.hand_no, step, "pick", three)
        with pytest.raises(ServiceError, match=r"^You discard 2 cards this round\.$"):
            await svc.panel_action(t.id, ALICE, 0, t.row.hand_no, step, "discard", ())
        state, _ = await svc.panel_action(t.id, ALICE, 0, t.row.hand_no, step, "pick", three[:2])
        state, _ = await svc.panel_action(t.id, ALICE, 0, t.row.hand_no, step, "discard", ())
        assert [(str(c), r) for c, r in state.draft.assigned] == [(c, 3) for c in three[:2]]
        # a card already discarded, picked again, is named as discarded (mutant: ``rows[c] ==
        # 3`` -> False: "already on your discard row")
        with pytest.raises(ServiceError, match=rf"^{three[0]} is discarded \(\*\*Undo\*\* "):
            await svc.panel_action(t.id, ALICE, 0, t.row.hand_no, step, "pick", three[:1])
        # a third card, in a press of its own, is one too many (mutant: the cards already
        # discarded not counted: ``r == 3`` -> False)
        await svc.panel_action(t.id, ALICE, 0, t.row.hand_no, step, "pick", (three[2],))
        with pytest.raises(ServiceError, match=r"^You discard 2 cards this round\.$"):
            await svc.panel_action(t.id, ALICE, 0, t.row.hand_no, step, "discard", ())
    finally:
        await svc.shutdown()
        await store.close()
    # a 14-card one discards one card: two are refused in the singular (mutant: ``'s' if
    # req.discard != 1`` -> True: "You discard 1 cards this round.")
    svc, rec, store, t = await fantasyland_started("mut-hid3-fl-discard-1", seat=1, cards=14)
    try:
        hs = t.hand_seat_of(1)
        req = t.hand.requirement(hs)
        assert req.discard == 1
        step = svc.step_of(t, hs)
        two = tuple(str(c) for c in req.cards[:2])
        await svc.panel_action(t.id, BOB, 1, t.row.hand_no, step, "pick", two)
        with pytest.raises(ServiceError, match=r"^You discard 1 card this round\.$"):
            await svc.panel_action(t.id, BOB, 1, t.row.hand_no, step, "discard", ())
    finally:
        await svc.shutdown()
        await store.close()


# --------------------------------------------------------------------------- the fantasyland DM
async def test_a_fantasyland_dm_with_no_panel_to_draw_is_logged_and_not_sent(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``Presenter.fantasyland_dealt``: when the seat's panel cannot be drawn (here: no hand
    is being played), nothing is sent to anyone and the failure is logged as an error, "no
    fantasyland panel for seat 0" (mutant: that ``log.exception`` deleted: silently nothing);
    for a seat gone from the table there is nothing to do and nothing is logged (mutant: its
    ``return`` deleted: an error logged for it)."""
    import logging
    from types import SimpleNamespace

    from cogs.presenter import Presenter

    fetched: list[int] = []

    async def fetch_user(user_id: int) -> Any:
        fetched.append(user_id)
        raise AssertionError("nothing is to be sent")

    bot = SimpleNamespace(service=None, user=None, fetch_user=fetch_user,
                          get_partial_messageable=lambda cid, guild_id: None)
    presenter = Presenter(cast(Any, bot), 0.0)
    svc, rec, store, t = await heads_up("mut-hid3-fl-no-panel", "pineapple", start=False)
    bot.service = svc
    try:
        assert t.hand is None
        with caplog.at_level(logging.ERROR):
            await presenter.fantasyland_dealt(t, 7)  # no seat 7: nothing to do, nor to log
            assert fetched == [] and not caplog.records
            await presenter.fantasyland_dealt(t, 0)
        assert fetched == []
        logged = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert [r.getMessage() for r in logged] == ["no fantasyland panel for seat 0"]
    finally:
        await presenter.close()
        await svc.shutdown()
        await store.close()


# --------------------------------------------------------------------------- the private panel
@pytest.mark.e2e
async def test_a_panel_opened_in_the_channel_does_not_name_the_table(tmp_path: Path) -> None:
    """``send_panel``: ``/ofc hand`` in the table's channel answers privately with "**Your
    panel** — hand #1" alone; the "at <#channel> in **server**" of a DM panel is not there
    (mutant: ``guild_id is None`` -> ``is not None``: every channel panel read as a DM's)."""
    from .e2e.conftest import make_world

    async with make_world(tmp_path, seed_factory=lambda: "mut-hid3-panel-here") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc start")
        panel = await w.slash(w.bob, "ofc hand")
        assert panel.ephemeral and panel.content is not None
        first = panel.content.splitlines()[0]
        assert first == "**Your panel** — hand #1", first


async def test_a_waiting_panel_says_whose_turn_it_is() -> None:
    """``TableService._panel_state``: the panel of a player with nothing to do while the other
    plays says "It is <name>'s turn." (mutants: that line deleted, or the ``elif
    hand.done[hs]`` before it -> True: "You are done for this hand" before they have
    played); the player to act has a requirement, no waiting line, and their clock;
    a set fantasyland hand's panel says it is done."""
    from cogs.presenter import panel_text

    svc, rec, store, t = await heads_up("mut-hid3-waiting", "ofc")
    try:
        hand = t.hand
        assert hand is not None and hand.turn is not None
        turn = hand.turn
        mine = svc.panel(t.id, user_of(t, turn))
        assert mine.requirement is not None and mine.waiting_for == ""
        # (its text tells when its clock runs out; mutant: ``if deadline`` -> False in
        # ``panel_text``)
        deadline = t.deadlines[turn]
        assert f" (time runs out <t:{int(deadline)}:R>): " in panel_text(mine, "ofc", deadline)
        assert "time runs out" not in panel_text(mine, "ofc", None)
        # (an empty board earns nothing: no "(royalties 0)"; mutant: ``if royalties`` -> True)
        assert "royalties" not in panel_text(mine, "ofc", deadline)
        # (and how to play, which the waiting panel has not; mutant: that line deleted)
        how = "Pick cards in the menu, press a row, then **Confirm**. Nothing is final until"
        assert how in panel_text(mine, "ofc", deadline)
        other = svc.panel(t.id, user_of(t, 1 - turn))
        assert other.requirement is None
        assert other.waiting_for == f"It is {hand.names[turn]}'s turn.", other.waiting_for
        assert "Pick cards in the menu" not in panel_text(other, "ofc")
    finally:
        await svc.shutdown()
        await store.close()
    # a fantasyland hand set is done: its panel says so (mutant: that line deleted: "Nothing
    # to do right now.")
    svc, rec, store, t = await fantasyland_started("mut-hid3-waiting-set", seat=0, cards=14)
    try:
        hand = t.hand
        assert hand is not None
        fl = t.hand_seat_of(0)
        move = Hand.from_json(hand.to_json()).autoplay(fl, plain=True)
        async with t.lock:
            await svc._place(t, fl, move.placements, move.discards)
        assert hand.done[fl] and not hand.is_over
        done = svc.panel(t.id, ALICE)
        assert done.waiting_for == "You are done for this hand; waiting for the others."
        assert "You are done for this hand" in panel_text(done, "pineapple")
    finally:
        await svc.shutdown()
        await store.close()


async def test_undo_of_a_draft_saved_without_its_presses_takes_back_one_card() -> None:
    """``panel_action``'s **Undo** of a draft saved before the presses were (an older bot's
    stored draft: cards assigned, no record of the presses) takes back the last card (mutant:
    ``if draft.presses`` -> True: popped from an empty list, the click failed)."""
    import asyncio

    from bot.service import Draft
    from cogs.presenter import panel_text

    svc, rec, store, t = await heads_up("mut-hid3-old-draft", "ofc")
    try:
        hand = t.hand
        assert hand is not None and hand.turn is not None
        hs = hand.turn
        user, seat_no, step = user_of(t, hs), t.hand_seats[hs], svc.step_of(t, hs)
        cards = [str(c) for c in hand.requirement(hs).cards]
        t.drafts[hs] = Draft.from_json({"assigned": [[cards[0], 2], [cards[1], 2]]})
        assert t.drafts[hs].presses == []
        events = len(rec.events)
        # (a row pressed with no card selected is refused; mutant: that check deleted)
        with pytest.raises(ServiceError, match=r"^Pick cards in the menu first, then press a "):
            await svc.panel_action(t.id, user, seat_no, 1, step, "top", ())
        state, _ = await svc.panel_action(t.id, user, seat_no, 1, step, "undo", ())
        assert state is not None
        assert [(str(c), r) for c, r in state.draft.assigned] == [(cards[0], 2)]
        # **Clear** empties the draft (mutant: its ``elif action == "clear"`` -> False: an
        # "Unknown panel action"), and no click but a Confirm pings anyone (mutant: ``if
        # confirmed`` -> True: the player to act told "your turn" at every click)
        # (**Undo** with cards selected drops the selection only; mutant: that ``selected =
        # []`` deleted: the selection stayed)
        await svc.panel_action(t.id, user, seat_no, 1, step, "pick", (cards[2],))
        state, _ = await svc.panel_action(t.id, user, seat_no, 1, step, "undo", ())
        assert state is not None and state.draft.selected == []
        assert [(str(c), r) for c, r in state.draft.assigned] == [(cards[0], 2)]
        await svc.panel_action(t.id, user, seat_no, 1, step, "pick", (cards[2],))
        state, _ = await svc.panel_action(t.id, user, seat_no, 1, step, "clear", ())
        assert state is not None and not state.draft.assigned and not state.draft.selected
        # (nothing chosen: no "Chosen so far" line; mutant: ``if p.draft.assigned`` -> True
        # in ``panel_text``)
        assert "Chosen so far" not in panel_text(state, "ofc")
        # two cards on top leave room for one, in the singular (mutant: ``'s' if free != 1``
        # -> True: "room for 1 more cards")
        for action, values in (("pick", tuple(cards[:2])), ("top", ()),
                               ("pick", tuple(cards[2:4]))):
            state, _ = await svc.panel_action(t.id, user, seat_no, 1, step, action, values)
        assert "Chosen so far: top: " in panel_text(state, "ofc")
        with pytest.raises(ServiceError, match=r"^The top row has room for 1 more card, not 2\.$"):
            await svc.panel_action(t.id, user, seat_no, 1, step, "top", ())
        await asyncio.sleep(0.05)
        assert [kind for kind, _ in rec.events[events:] if kind == "turn"] == []
    finally:
        await svc.shutdown()
        await store.close()


async def test_the_panels_confirm_of_a_hands_last_move_answers_with_no_panel() -> None:
    """``panel_action``: **Confirm** of the move that ends the hand settles it, and the answer
    is the move's text with no panel to redraw (mutant: ``if t.hand is not None`` -> True: a
    panel asked of a hand already gone, which fails); a confirm that passes the turn pings
    the next player."""
    from .bot.test_service import until

    svc, rec, store, t = await heads_up("mut-hid3-last-confirm", "ofc")
    try:
        hand = t.hand
        assert hand is not None and hand.turn is not None
        # a first move confirmed in the panel: the next player is told it is their turn
        # (mutant: the ``_notify_after`` of a confirm deleted: no ping, no table redraw)
        hs = hand.turn
        user, seat_no, step = user_of(t, hs), t.hand_seats[hs], svc.step_of(t, hs)
        cards = [str(c) for c in hand.requirement(hs).cards]
        events = len(rec.events)
        for action, values in (("pick", tuple(cards[:3])), ("top", ()),
                               ("pick", tuple(cards[3:])), ("middle", ())):
            await svc.panel_action(t.id, user, seat_no, 1, step, action, values)
        state, message = await svc.panel_action(t.id, user, seat_no, 1, step, "confirm", ())
        assert message.startswith("Placed ") and hand.turn == 1 - hs

        def pinged() -> list[Any]:
            return [seats for kind, seats in rec.events[events:] if kind == "turn"]

        await until(lambda: bool(pinged()))
        assert pinged() == [[t.hand_seats[1 - hs]]], rec.events[events:]
        while sum(len(b.cards) for b in hand.boards) < 25:
            hs = hand.to_act()[0]
            move = Hand.from_json(hand.to_json()).autoplay(hs, plain=True)
            async with t.lock:
                await svc._place(t, hs, move.placements, move.discards)
        hs = hand.to_act()[0]
        req = hand.requirement(hs)
        assert len(req.cards) == 1
        row = next(r for r in ("top", "middle", "bottom") if req.free[("top", "middle",
                                                                       "bottom").index(r)])
        user, seat_no, step = user_of(t, hs), t.hand_seats[hs], svc.step_of(t, hs)
        for action, values in (("pick", (str(req.cards[0]),)), (row, ())):
            await svc.panel_action(t.id, user, seat_no, 1, step, action, values)
        state, message = await svc.panel_action(t.id, user, seat_no, 1, step, "confirm", ())
        assert state is None and message.startswith("Placed "), message
        assert t.hand is None or t.row.hand_no == 2
    finally:
        await svc.shutdown()
        await store.close()


# --------------------------------------------------------------------------- the table, the clock
async def test_the_table_marks_the_button_of_the_hand_only() -> None:
    """``table_view``: the button is marked at the seat that has it in the hand being played,
    at no other (mutant: ``hs == hand.button`` -> ``!=``: every other seat marked); before a
    deal there is no button."""
    from cogs.presenter import table_view

    svc, rec, store, t = await heads_up("mut-hid3-button", "ofc", start=False)
    try:
        assert [s.is_button for s in table_view(t).seats] == [False, False]
        await svc.start(t.row.channel_id, ALICE)
        hand = t.hand
        assert hand is not None
        marks = [s.is_button for s in table_view(t).seats]
        assert marks == [t.hand_seat_of(n) == hand.button for n in (0, 1)] and sum(marks) == 1
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_player_on_the_short_clock_who_plays_gets_the_whole_clock_back() -> None:
    """README (``away_timer``): after a player's clock ran out, their later decisions get the
    short clock "until they act or ``/ofc sitin``". A move of their own ends it
    (``TableService._place``; mutant: its ``t.away.discard(hs)`` deleted: the short clock
    kept for the rest of the hand)."""
    from .bot.test_service import Clock

    clock = Clock()
    svc, rec, store, t = await heads_up("mut-hid3-away", "ofc", clock=clock)
    try:
        hand = t.hand
        assert hand is not None and hand.turn is not None
        rules = t.rules
        assert 0 < rules.away_timer < rules.timer
        me = hand.turn
        t.away.add(me)  # (as a timeout leaves it)

        async def play(hs: int) -> None:
            move = Hand.from_json(hand.to_json()).autoplay(hs, plain=True)
            async with t.lock:
                await svc._place(t, hs, move.placements, move.discards)

        await play(me)
        assert me not in t.away
        await play(1 - me)
        assert hand.turn == me
        assert t.deadlines[me] - clock() > rules.away_timer + 1, (t.deadlines[me], clock())
    finally:
        await svc.shutdown()
        await store.close()


# --------------------------------------------------------------------------- past hands
async def test_a_hand_played_out_but_voided_shows_no_showdown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``TableService._past_hand``: a hand played to its end whose settlement failed and was
    voided keeps a settled engine state in the store, yet ``/ofc history`` says "Hand #1 was
    voided (no units moved): it has no showdown." (mutant: ``row.status == "done"`` -> True:
    its boards shown as if it had been settled, with no units)."""
    import bot.service as service_module
    from bot.store import StoreError

    from .bot.test_service import CH, finish_by_autoplay, until

    monkeypatch.setattr(service_module, "SETTLE_RETRY", 0.01)
    svc, rec, store, t = await heads_up("mut-hid3-voided", "ofc")
    try:
        async def refused(*args: Any, **kw: Any) -> Any:
            raise StoreError("the settlement is refused")

        monkeypatch.setattr(store, "finish_hand", refused)
        svc.next_hand_delay = 0.05
        await finish_by_autoplay(svc)
        said = "Hand #1 could not be settled and was voided"
        await until(lambda: any(said in str(e) for e in rec.events))
        found = await store.numbered_hand(t.id, 1)
        assert found is not None
        row, results = found
        assert row.status == "aborted" and not results
        assert Hand.from_json(row.state["engine"]).settlement is not None
        with pytest.raises(ServiceError, match=r"^Hand #1 was voided \(no units moved\): it "
                                               r"has no showdown\.$"):
            await svc.past_hand(CH, 1)
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_past_hands_picture_says_where_its_text_is() -> None:
    """``past_hand_payload``: a past hand's showdown (and a replay round) that fits one message
    has the alt text "The message's text has ...", not "... and those after it ..." (mutant:
    ``len(parts) > 1`` -> ``<= 1`` for the showdown: every short one said to go on). A replay
    round never names the fantasyland set before the end, nor a discard."""
    from cogs.presenter import past_hand_payload

    from .cogs.test_replay import past_of, played

    h = played()
    past = past_of(h)
    texts, file = await past_hand_payload(past, 0, "Hand #7 at this table, <t:0:f>:")
    assert len(texts) == 1
    assert (file.description or "").endswith(
        ". The message's text has every board, royalty and result."), file.description
    texts, file = await past_hand_payload(past, 2, "Hand #7, <t:0:f>:")
    assert len(texts) == 1
    assert (file.description or "").endswith(". The message's text has every seat's board.")
    gone = {str(c) for d in h.discards for c in d}
    secret = {str(c) for c in h.boards[2].cards}
    words = set(texts[0].replace("|", " ").replace("`", " ").split())
    assert not words & (gone | secret), words & (gone | secret)


def test_an_old_final_state_shows_the_fantasyland_its_results_say_was_earned() -> None:
    """``_settled_showdown`` for a final state written before ``fantasyland_shown`` was saved:
    a fantasyland the engine says was earned is shown where the seat's result says so, not
    where its result says none was (mutant: the results' flag -> True), and shown for a seat
    with no result row (mutant: its default True -> False), sized by the options it is given;
    a newer state's sizes as shown."""
    import random
    from types import SimpleNamespace

    from bot.service import _settled_showdown
    from engine import Rules, parse_cards

    from .engine.test_hand import play_out

    deck = parse_cards("Ah Ad Ac 2h 2d 2c 2s Kh 3h 4h 5h 6h 7h Qs Js")
    h = Hand(Rules(variant="pineapple"), ["Ann", "Bob"], button=0, fantasyland={1: 15},
             deck=deck)
    h.place(1, [(c, 0) for c in parse_cards("Ah Ad Ac")]
            + [(c, 1) for c in parse_cards("Kh 3h 4h 5h 7h")]
            + [(c, 2) for c in parse_cards("2h 2d 2c 2s 6h")], parse_cards("Qs Js"))
    play_out(h, random.Random(3))
    assert h.fantasyland_next[1] == 14
    row = cast(Any, SimpleNamespace(number=4, state={
        "engine": h.to_json(), "seats": [0, 1], "users": [ALICE, BOB], "practice": False}))

    def result(seat_no: int, user_id: int, fantasyland: bool) -> Any:
        return SimpleNamespace(seat_no=seat_no, user_id=user_id, units=0, is_bot=False,
                               counted=True, fantasyland=fantasyland)

    earned = h.fantasyland_next[0] > 0
    said = _settled_showdown(row, [result(0, ALICE, earned), result(1, BOB, True)])
    assert said is not None and said.fantasyland_next[1] == 14
    gone = _settled_showdown(row, [result(0, ALICE, earned), result(1, BOB, False)])
    assert gone is not None and gone.fantasyland_next[1] == 0
    unknown = _settled_showdown(row, [result(0, ALICE, earned)])
    assert unknown is not None and unknown.fantasyland_next[1] == 14
    # sized as the given options deal it (mutant: ``hand.rules if rules is None else rules``
    # -> always the hand's: 14 cards at a table whose fantasyland is off now)
    off = Rules(variant="pineapple", fantasyland=False)
    today = _settled_showdown(row, [result(0, ALICE, earned), result(1, BOB, True)], off)
    assert today is not None and today.fantasyland_next == (0, 0)
    # a final state that says what its showdown showed is shown so, whatever the options are
    # now (a showdown posted after a restart, fantasyland turned off since; mutant: its ``if
    # "fantasyland_shown" in st`` -> False: sized again by today's options, none)
    row.state["fantasyland_shown"] = [0, 14]
    shown = _settled_showdown(row, [result(0, ALICE, False), result(1, BOB, True)], off)
    assert shown is not None and shown.fantasyland_next == (0, 14)
