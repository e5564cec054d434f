"""``/ofc suggest cards:`` (``TableService.solve``): the exact solver for any fantasyland hand typed as
text, under the rules of the channel's table or a game's defaults; never for the cards of a
chinese hand being set at a table that is not practice."""

from __future__ import annotations

import pytest

from bot.service import ServiceError
from engine import Rules
from engine.cards import parse_cards
from engine.solver import solve_fantasyland

from .test_service import ALICE, BOB, CH, G, heads_up, make

FIFTEEN = "Qh Qd Qs Kh Kd Ks 4c 3d 9c Tc Jc 2c 8c 7d 6s"


async def test_default_rules_and_the_channels_tables() -> None:
    svc, rec, store = await make()
    rules, sol = await svc.solve(CH, ALICE, FIFTEEN)  # no table here: pineapple's defaults
    assert rules == Rules(variant="pineapple")
    assert sol == solve_fantasyland(parse_cards(FIFTEEN), rules)
    rules, sol = await svc.solve(CH, ALICE, " ".join(FIFTEEN.split()[:13]), "ofc")
    assert rules == Rules(variant="ofc") and len(sol.board) == 13 and not sol.discards
    await svc.new_table(G, CH, ALICE, "alice", variant="pineapple")
    await svc.set_options(CH, ALICE, False, stay_value=40)
    rules, sol = await svc.solve(CH, BOB, FIFTEEN)  # the table's own options
    assert rules.stay_value == 40 and sol.score == sol.royalties + 40
    rules, _ = await svc.solve(CH, BOB, " ".join(FIFTEEN.split()[:13]), "ofc")
    assert rules == Rules(variant="ofc")  # another game than the table's: its defaults
    await store.close()


@pytest.mark.parametrize(("text", "variant", "message"), [
    ("Qh Qd Zz", None, "'Zz' is not a card"),
    ("", None, "Type the cards to set"),
    ("Qh Qd Qs", None, "A fantasyland hand is 13 cards in ofc, 14 to 17 in pineapple; these are 3."),
    (FIFTEEN, "ofc", "An ofc fantasyland hand is 13 cards, not 15."),
    (FIFTEEN + " Qh", None, "Qh"),
    (FIFTEEN, "chinese", "The solver sets fantasyland hands (ofc, pineapple)"),
])
async def test_what_is_wrong_is_said(text: str, variant: str | None, message: str) -> None:
    svc, rec, store = await make()
    with pytest.raises(ServiceError) as e:
        await svc.solve(CH, ALICE, text, variant)  # type: ignore[arg-type]
    assert message in str(e.value), str(e.value)
    await store.close()


async def test_not_the_chinese_hand_being_set_at_a_table_with_stakes() -> None:
    svc, rec, store, t = await heads_up("solve-chinese", variant="chinese")
    assert t.hand is not None
    seat = t.hand_seat_of(t.seat_of_user(ALICE).seat_no)  # type: ignore[union-attr]
    held = " ".join(map(str, t.hand.pending[seat]))  # type: ignore[index]
    with pytest.raises(ServiceError, match=r"^Those are the cards of your hand #1 at "
                                           rf"<#{CH}>, a table that is not practice"):
        await svc.solve(CH + 1, ALICE, held, "ofc")
    # anyone else may solve those cards (they do not hold them), and so may she once it is set
    assert (await svc.solve(CH + 1, BOB, held, "ofc"))[1].board
    await svc.place_text(CH, ALICE, _set_text(held))
    assert (await svc.solve(CH + 1, ALICE, held, "ofc"))[1].board
    await store.close()


def _set_text(held: str) -> str:
    """A whole chinese set of those cards in the /ofc place syntax (any that does not foul)."""
    board = solve_fantasyland(parse_cards(held), Rules(variant="ofc")).board
    return " ".join(f"{' '.join(map(str, row))} {name}"
                    for name, row in zip(("top", "middle", "bottom"), board.rows, strict=True))


async def test_the_hint_names_the_other_game_only_when_the_cards_fit_it() -> None:
    svc, rec, store = await make()
    await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
    with pytest.raises(ServiceError, match=r"An ofc fantasyland hand is 13 cards, not 15 \(the "
                                           r"options of this channel's table; `variant:pineapple`"
                                           r" for the other game\)\.$"):
        await svc.solve(CH, BOB, FIFTEEN)
    await svc.set_options(CH, ALICE, False, fantasyland=False)
    with pytest.raises(ServiceError, match=r"These rules have no fantasyland \(fantasyland is "
                                           r"off\) \(the options of this channel's table\)\.$"):
        await svc.solve(CH, BOB, " ".join(FIFTEEN.split()[:13]))
    await store.close()
