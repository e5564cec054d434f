"""A settled hand's showdown again (``TableService.past_hand``, ``/ofc history hand``): the
showdown as it was posted, rebuilt from the stored final state and results; nothing of a hand
still being played, a clear word for every hand that has no showdown."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from bot.service import NO_TABLE_HERE, ServiceError, ShowdownResult

from .test_service import ALICE, BOB, CH, G, finish_by_autoplay, heads_up, make, until

SHOWN = ("hand_no", "names", "user_ids", "settlement", "units", "fantasyland_next", "practice",
         "rules", "natural_cards", "seat_nos")


def posted(rec: Any) -> list[ShowdownResult]:
    return [r for kind, r in rec.events if kind == "showdown"]


def same_showdown(a: ShowdownResult, b: ShowdownResult) -> bool:
    return all(getattr(a, f) == getattr(b, f) for f in SHOWN)


async def practice_hand_played(seed: str) -> tuple[Any, Any, Any, Any, ShowdownResult]:
    """Alice's practice table (ofc, a bot), its first hand played: the service, recorder,
    store, table and the showdown posted."""
    svc, rec, store = await make(seed_factory=lambda: seed)
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc", bots=1)
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    await until(lambda: t.hand is not None)
    await finish_by_autoplay(svc)
    await until(lambda: bool(posted(rec)))
    live, = posted(rec)
    return svc, rec, store, t, live


@pytest.mark.parametrize("variant", ["ofc", "pineapple", "chinese"])
async def test_a_settled_hand_shows_the_showdown_that_was_posted(variant: str) -> None:
    svc, rec, store, t = await heads_up(f"past-{variant}", variant=variant)
    await finish_by_autoplay(svc)
    await until(lambda: t.hand is not None and t.row.hand_no == 2)
    live, = posted(rec)
    past = await svc.past_hand(CH, 1)
    assert same_showdown(past.result, live), (past.result, live)
    assert not past.closed and past.four_colour and past.stake == t.row.stake
    assert past.result.units is not None and sum(past.result.units) == 0
    (row, _),  = [h for h in await store.history(t.id, 5) if h[0].number == 1]
    assert past.finished_at == row.finished_at
    await store.close()


async def test_a_hand_being_played_is_not_shown() -> None:
    svc, rec, store, t = await heads_up("past-playing")
    with pytest.raises(ServiceError, match=r"Hand #1 is being played: its cards are shown at"
                                           r" its showdown\."):
        await svc.past_hand(CH, 1)
    await store.close()


async def test_hands_that_do_not_exist_are_named_with_the_ones_that_do() -> None:
    svc, rec, store, t = await heads_up("past-range", start=False)
    with pytest.raises(ServiceError, match=r"^No hand has been dealt at this table yet\.$"):
        await svc.past_hand(CH, 1)
    await svc.start(CH, ALICE)
    with pytest.raises(ServiceError, match=r"^There is no hand #7 here: this table's hands are"
                                           r" #1\.$"):
        await svc.past_hand(CH, 7)
    await finish_by_autoplay(svc)
    await until(lambda: t.row.hand_no == 2)
    with pytest.raises(ServiceError, match=r"hands are #1 to #2\.$"):
        await svc.past_hand(CH, 3)
    with pytest.raises(ServiceError, match=r"^Hands are numbered from 1\.$"):
        await svc.past_hand(CH, 0)
    with pytest.raises(ServiceError, match=r"^" + NO_TABLE_HERE.replace(".", r"\.")):
        await svc.past_hand(CH + 1, 1)
    await store.close()


async def test_the_last_table_of_a_channel_after_it_closed_and_its_voided_hand() -> None:
    """A channel deleted mid-hand closes its table and voids that hand: the channel's record
    still shows the settled hand (of the last table, closed) and says the voided one has no
    showdown; a new table in the channel has its own hands."""
    svc, rec, store, t = await heads_up("past-closed")
    await finish_by_autoplay(svc)
    await until(lambda: t.hand is not None and t.row.hand_no == 2)
    live, = posted(rec)
    assert await svc.channel_gone(CH)
    past = await svc.past_hand(CH, 1)
    assert past.closed and same_showdown(past.result, live)
    with pytest.raises(ServiceError, match=r"^Hand #2 was voided \(no units moved\): it has no"
                                           r" showdown\.$"):
        await svc.past_hand(CH, 2)
    await svc.new_table(G, CH, BOB, "bob", variant="ofc")
    with pytest.raises(ServiceError, match="No hand has been dealt at this table yet"):
        await svc.past_hand(CH, 1)
    await store.close()


async def test_a_practice_hand_moved_no_units_and_says_so() -> None:
    svc, rec, store, t, live = await practice_hand_played("past-practice")
    past = await svc.past_hand(CH, 1)
    assert past.result.practice and past.result.units is None
    assert same_showdown(past.result, live)
    await store.close()


async def test_a_stored_state_that_cannot_be_read_is_a_clear_answer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    svc, rec, store, t = await heads_up("past-garbled")
    await finish_by_autoplay(svc)
    await until(lambda: t.row.hand_no == 2)
    await store._db.execute("UPDATE hands SET state = '{\"engine\": 5}' WHERE number = 1")
    await store._db.commit()
    with caplog.at_level(logging.ERROR):
        with pytest.raises(ServiceError, match=r"^Hand #1's cards could not be read back\.$"):
            await svc.past_hand(CH, 1)
    assert "final state cannot be read back" in caplog.text
    assert t.hand is not None and t.row.hand_no == 2  # the table plays on
    await store.close()


async def test_the_deck_colours_are_the_tables() -> None:
    svc, rec, store, t = await heads_up("past-deck")
    await store.update_table(t.id, extra={**t.row.extra, "deck": "two"})
    await svc._refresh(t)
    await finish_by_autoplay(svc)
    await until(lambda: t.row.hand_no == 2)
    assert not (await svc.past_hand(CH, 1)).four_colour
    await store.close()


async def test_a_number_beyond_any_hand_is_no_hand() -> None:
    """Found by a review: a number SQLite cannot hold (above 2**63 - 1) raised OverflowError
    (the command caps it at 10**9, but the service is not the command's alone)."""
    svc, rec, store, t = await heads_up("past-huge")
    with pytest.raises(ServiceError, match=r"There is no hand #1180591620717411303424 here"):
        await svc.past_hand(CH, 2**70)
    await store.close()


async def test_a_hand_saved_before_the_shown_fantasylands_and_practice_were() -> None:
    """A final state written by an older bot has no ``fantasyland_shown`` (the sizes come from
    the hand's rules, none where its results say none was earned) and may have no
    ``practice`` (a hand that counted for nobody was practice)."""
    svc, rec, store, t, live = await practice_hand_played("past-old")
    (row, _), = await store.history(t.id, 1)
    old = {k: v for k, v in row.state.items() if k not in ("fantasyland_shown", "practice")}
    assert set(row.state) - set(old) == {"fantasyland_shown", "practice"}
    await store._db.execute("UPDATE hands SET state = ? WHERE id = ?",
                            (json.dumps(old), row.id))
    await store._db.commit()
    past = await svc.past_hand(CH, 1)
    assert same_showdown(past.result, live) and past.result.practice
    await store.close()


async def test_only_a_hand_played_round_by_round_offers_its_replay() -> None:
    """The posted showdown (and the one shown again) of an ofc or pineapple hand offers its
    replay; a chinese hand, or a hand where everyone played a fantasyland (set at once),
    has no rounds and offers none."""
    for variant, replayable in (("pineapple", True), ("chinese", False)):
        svc, rec, store, t = await heads_up(f"replayable-{variant}", variant=variant)
        await finish_by_autoplay(svc)
        await until(lambda rec=rec: bool(posted(rec)))  # type: ignore[misc]
        assert posted(rec)[0].replayable is replayable
        past = await svc.past_hand(CH, 1)
        assert past.result.replayable is replayable and bool(past.rounds) is replayable
        await svc.shutdown()
        await store.close()
    svc, rec, store = await make(seed_factory=lambda: "replayable-fl")
    await svc.new_table(G, CH, ALICE, "alice", variant="pineapple")
    await svc.join(G, CH, BOB, "bob")
    t = svc.table_in_channel(CH)
    await store.update_table(t.id, extra={"fantasyland": {"0": 14, "1": 14},
                                          "fantasyland_owed_by": [0, 1]})
    await svc._refresh(t)
    await svc.start(CH, ALICE)
    assert t.hand is not None and all(t.hand.fantasyland)
    await finish_by_autoplay(svc)
    await until(lambda: bool(posted(rec)))
    assert posted(rec)[0].replayable is False
    past = await svc.past_hand(CH, 1)
    assert past.rounds == () and not past.result.replayable
    await svc.shutdown()
    await store.close()
