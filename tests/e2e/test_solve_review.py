"""Review of ``/ofc suggest cards:`` and ``ofc-bot solve`` (commit 4a9813f): the exact fantasyland solver
for any typed hand, privately, under the options of the channel's table (else the game's
defaults), with a picture and the setting as a move to paste into ``/ofc place``; refused for
the cards of a chinese hand being set at a table that is not practice.

What works stays as passing tests; each defect found is a strict xfail whose docstring starts
with "Defect:"."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from bot.__main__ import main as ofc_bot
from bot.service import ServiceError
from cogs.ofc import OFC
from cogs.presenter import TWO_COLOUR
from engine import DECK, Board, Hand, Rules, parse_cards
from engine.evaluator import HIGH_CARD
from engine.notation import parse_move
from engine.scoring import settle
from engine.solver import check_fantasyland_cards, describe_solution, solve_fantasyland
from renderer import HandView, render_hand

from ..bot.test_service import ALICE, BOB, CH, G, heads_up, make
from .conftest import World, hs_of, make_world, panel_cards, table_of
from .test_chinese_review import dealt, two_at_chinese
from .test_fantasyland_review import fl_dm, open_table

pytestmark = pytest.mark.e2e

FIFTEEN = "Qh Qd Qs Kh Kd Ks 4c 3d 9c Tc Jc 2c 8c 7d 6s"
"""The feature's own example: trips on top, a pineapple hand of 15 cards."""
FULL_HOUSE_STAY = "9c 8c 3d 3h 4d Js Ac 4c Qs Qc 4s Qd 5c 8d"
"""14 cards whose best setting changes when a middle full house no longer stays."""
PROGRESSIVE_STAY = "Th Kh 6c 5d 5s 6h 5c 7h 7c 5h 4d 6s 4h 8c"
"""14 cards whose best setting changes under Pokermagnet's progressive stay table."""
MOON = "Jc 9d 7h 5s 3c Jd 8c 6h 4s 2d Th 9s 8h"
"""13 cards (ofc) that can shoot the moon: bottom Jc 9d 7h 5s 3c, middle Jd 8c 6h 4s 2d, top
Th 9s 8h is clean (jack-high bottom, 0 royalties); the solver's choice earns 8 royalties and
no moon."""


def move_of(content: str) -> str:
    """The move of a ``/ofc suggest cards:`` answer: its last line, in backticks."""
    last = content.split("\n")[-1]
    assert last.startswith("`") and last.endswith("`"), content
    return last.strip("`")


def text_of(cards: list[str] | set[str]) -> str:
    return " ".join(sorted(cards))


# --------------------------------------------------------------------------- parsing
SPELLINGS = [
    FIFTEEN.replace(" ", ","),
    FIFTEEN.replace(" ", ", "),
    FIFTEEN.replace(" ", ";"),
    FIFTEEN.replace(" ", ""),  # written together
    FIFTEEN.lower(),
    FIFTEEN.upper(),
    FIFTEEN.replace("Tc", "10c"),
    FIFTEEN.replace("h", "\u2665\ufe0f").replace("s", "\u2660"),  # emoji suits (♥️ ♠)
    FIFTEEN.replace("h", "\u2764\ufe0f").replace("c", "\u2667"),  # the red heart emoji, ♧
    "\ufeff" + FIFTEEN.replace(" ", "\u200b"),  # a byte-order mark, zero-width spaces
    FIFTEEN.replace(" ", "\u00a0"),  # no-break spaces
    FIFTEEN.replace(" ", "\u3000"),  # ideographic spaces
    "Q\u2060h " + FIFTEEN[3:],  # an invisible joiner inside a card
    " ".join(reversed(FIFTEEN.split())),  # another order
]


async def test_every_spelling_of_the_hand_is_the_same_hand() -> None:
    svc, _, store = await make()
    try:
        _, want = await svc.solve(CH, ALICE, FIFTEEN)
        for text in SPELLINGS:
            _, got = await svc.solve(CH, ALICE, text)
            assert got == want, repr(text)
    finally:
        await store.close()


@pytest.mark.parametrize(("text", "variant", "message"), [
    ("\u200b", None, "Type the cards to set"),  # nothing but an invisible character
    ("   ", None, "Type the cards to set"),
    (FIFTEEN.replace("Tc", "Tc 10c"), None, "Tc is listed twice."),  # the same card twice
    (FIFTEEN + " qh", None, "Qh is listed twice."),
    (FIFTEEN + " Ah Ad As", None,
     "A fantasyland hand is 13 cards in ofc, 14 to 17 in pineapple; these are 18."),
    (" ".join(map(str, DECK)), None,
     "A fantasyland hand is 13 cards in ofc, 14 to 17 in pineapple; these are 52."),
    (FIFTEEN, "ofc", "An ofc fantasyland hand is 13 cards, not 15."),
    (" ".join(FIFTEEN.split()[:13]), "pineapple", "14 to 17 cards, not 13."),
    ("\uff31h " + FIFTEEN[3:], None, "'\uff31h' is not a card"),  # a full-width Q
    (FIFTEEN.replace(" ", "/"), None, "is not a card"),
])
async def test_what_is_wrong_with_the_cards_is_said(text: str, variant: Any,
                                                     message: str) -> None:
    svc, _, store = await make()
    try:
        with pytest.raises(ServiceError) as e:
            await svc.solve(CH, ALICE, text, variant)
        assert message in str(e.value), str(e.value)
    finally:
        await store.close()


# --------------------------------------------------------------------------- the table's options
async def test_the_channel_tables_options_change_the_answer_as_the_rules_say() -> None:
    """stay_full_house, progressive_stay, progressive, stay_value, strict_top and fantasyland
    of the channel's table are the rules solved under (between hands: the table's)."""
    svc, _, store = await make()
    try:
        await svc.new_table(G, CH, ALICE, "alice", variant="pineapple")
        fh = parse_cards(FULL_HOUSE_STAY)
        default = solve_fantasyland(fh, Rules(variant="pineapple"))
        await svc.set_options(CH, ALICE, False, stay_middle_full_house=False)
        rules, sol = await svc.solve(CH, BOB, FULL_HOUSE_STAY)
        assert not rules.stay_middle_full_house
        assert sol == solve_fantasyland(fh, rules) and sol.board != default.board
        await svc.set_options(CH, ALICE, False, stay_middle_full_house=True,
                              progressive_stay=True)
        ps = parse_cards(PROGRESSIVE_STAY)
        rules, sol = await svc.solve(CH, BOB, PROGRESSIVE_STAY)
        assert rules.progressive_stay and sol == solve_fantasyland(ps, rules)
        assert sol.board != solve_fantasyland(ps, Rules(variant="pineapple")).board
        await svc.set_options(CH, ALICE, False, progressive_stay=False, progressive=False)
        with pytest.raises(ServiceError, match=r"A pineapple fantasyland hand is 14 cards, "
                                               r"not 15 \(the options of this channel's "
                                               r"table\)\.$"):  # (ofc takes 13: no hint)
            await svc.solve(CH, BOB, FIFTEEN)
        rules, sol = await svc.solve(CH, BOB, " ".join(FIFTEEN.split()[:14]))
        assert not rules.progressive and len(sol.discards) == 1
        await svc.set_options(CH, ALICE, False, progressive=True, stay_value=0)
        rules, sol = await svc.solve(CH, BOB, FIFTEEN)
        assert sol.stays and sol.score == sol.royalties  # a stay counted 0
        lines = describe_solution(sol, rules)
        assert f"counted +0): worth {sol.royalties}." in lines[2]
        await svc.set_options(CH, ALICE, False, fantasyland=False)
        with pytest.raises(ServiceError, match="fantasyland is off"):
            await svc.solve(CH, BOB, FIFTEEN)
        # another game than the table's: that game's defaults
        rules, _ = await svc.solve(CH, BOB, " ".join(FIFTEEN.split()[:13]), "ofc")
        assert rules == Rules(variant="ofc")
    finally:
        await store.close()


async def test_strict_top_of_an_ofc_table_is_solved_under() -> None:
    svc, _, store = await make()
    try:
        await svc.new_table(G, CH, ALICE, "alice", variant="ofc")
        await svc.set_options(CH, ALICE, False, strict_top=True)
        rng = random.Random(7)
        for _ in range(20):
            cards = rng.sample(DECK, 13)
            rules, sol = await svc.solve(CH, BOB, " ".join(map(str, cards)))
            assert rules.strict_top and rules.variant == "ofc"
            assert sol == solve_fantasyland(cards, rules) and not sol.board.is_foul(rules)
    finally:
        await store.close()


async def test_options_changed_during_a_hand_count_from_the_next_one_as_the_hand_plays() -> None:
    """During a hand the table plays the hand's rules (the changes wait, as ``/ofc rules``
    says): a fantasyland of this hand is solved as it is played, even when the host has just
    turned fantasyland off."""
    svc, _, store, t = await heads_up("solve-midhand", variant="pineapple")
    try:
        assert t.hand is not None
        await svc.set_options(CH, ALICE, False, stay_value=40)
        await svc.set_options(CH, ALICE, False, fantasyland=False)
        assert t.table_rules.stay_value == 40 and not t.table_rules.fantasyland
        rules, sol = await svc.solve(CH, BOB, FIFTEEN)
        assert rules == t.hand.rules and rules.stay_value is None and rules.fantasyland
        assert sol.score == sol.royalties + 14.5
    finally:
        await store.close()


# --------------------------------------------------------------------------- the move
@pytest.mark.parametrize(("variant", "n", "options"), [
    ("ofc", 13, {}), ("ofc", 13, {"strict_top": True}),
    ("pineapple", 14, {}), ("pineapple", 15, {"progressive_stay": True}),
    ("pineapple", 16, {"strict_top": True}), ("pineapple", 17, {}),
    ("pineapple", 17, {"stay_middle_full_house": False, "stay_value": 0}),
])
def test_the_move_reads_back_as_the_same_setting(variant: str, n: int,
                                                 options: dict[str, Any]) -> None:
    """``As a move:`` is read by ``parse_move`` (what ``/ofc place`` uses) as the same rows and
    discards, for every hand size, and fits ``/ofc place``'s 300 characters."""
    rules = Rules(variant=variant, **options)  # type: ignore[arg-type]
    rng = random.Random(f"{variant}-{n}-{sorted(options)}")
    for _ in range(25):
        cards = rng.sample(DECK, n)
        sol = solve_fantasyland(cards, rules)
        line = describe_solution(sol, rules)[-1]
        assert line.startswith("As a move: ")
        move = line.removeprefix("As a move: ")
        assert len(move) <= 300
        hand = Hand(rules, ["A", "B"], 1, {0: n}, deck=list(cards))
        placed, dropped = parse_move(move, hand.requirement(0), hand.boards[0])
        hand.place(0, placed, dropped)
        assert hand.boards[0] == sol.board, move
        assert sorted(dropped) == sorted(sol.discards)


async def test_a_fantasyland_at_stakes_is_solved_privately_and_the_move_pastes(
        tmp_path: Any) -> None:
    """A pineapple fantasyland of 16 cards at a table that is not practice (allowed, as ``/ofc
    suggest`` is): the answer only she sees, its move pasted into ``/ofc place`` sets exactly
    the solver's board with its three discards."""
    async with make_world(tmp_path, seed_factory=lambda: "solve-fl") as w:
        t = await open_table(w, w.bob, variant="pineapple", fantasyland={"0": 16})
        dm = await fl_dm(w, w.alice)
        cards = panel_cards(dm.content)
        assert len(cards) == 16
        r = await w.slash(w.alice, "ofc suggest", cards=" ".join(reversed(cards)))
        assert r.ephemeral and r.content.startswith(
            "🧮 The best setting of 16 cards (pineapple, exact):"), r.content
        assert not r.message.is_visible_to(w.bob)
        sol = solve_fantasyland(parse_cards(" ".join(cards)), t.hand.rules)
        move = move_of(r.content)
        assert move.endswith(" discard") and len(sol.discards) == 3
        placed = await w.slash(w.alice, "ofc place", move=move)
        assert placed.content.startswith("✅"), placed.content
        hs = hs_of(w, w.alice)
        assert t.hand.boards[hs] == sol.board
        w.fake.assert_clean()


# --------------------------------------------------------------------------- anti-cheating
async def test_a_chinese_hand_at_stakes_is_refused_however_typed_and_wherever(
        tmp_path: Any) -> None:
    """Her own chinese hand at a table that is not practice: refused in another order, with emoji
    suits, as part of a bigger pineapple hand, from another channel; bob (who does not hold
    them) may solve them; nothing of either answer is seen by the other."""
    async with make_world(tmp_path, seed_factory=lambda: "solve-chinese") as w:
        await two_at_chinese(w)
        held = sorted(dealt(w, w.alice))
        others = [str(c) for c in DECK if str(c) not in held]
        spellings = [
            ({"cards": " ".join(reversed(held)), "variant": "ofc"}),
            ({"cards": ",".join(held).replace("h", "\u2665\ufe0f"), "variant": "ofc"}),
            ({"cards": text_of(held) + " " + others[0], "variant": "pineapple"}),
            ({"cards": text_of(held) + " " + " ".join(others[:4])}),  # 17: pineapple
        ]
        for options in spellings:
            r = await w.slash(w.alice, "ofc suggest", **options)
            assert r.ephemeral and re.match(
                r"⚠️ Those are the cards of your hand #1 at <#\d+>, a table that is not practice",
                r.content), (options, r.content)
            assert not r.files and not r.message.is_visible_to(w.bob)
        other = w.fake.add_text_channel(w.guild, "elsewhere")
        r = await w.fake.slash(w.alice, other, "ofc suggest",
                               options={"cards": text_of(held), "variant": "ofc"})
        assert r.ephemeral and f"<#{w.chan.id}>, a table that is not practice" in r.content, r.content
        # bob does not hold them: he may solve them (he learns nothing he did not type)
        r = await w.slash(w.bob, "ofc suggest", cards=text_of(held), variant="ofc")
        assert r.ephemeral and r.content.startswith("🧮"), r.content
        assert not r.message.is_visible_to(w.alice)
        shown = set(re.findall(r"\b[2-9TJQKA][cdhs]\b", r.content))
        assert shown == set(held)
        w.fake.assert_clean()


async def test_a_chinese_practice_hand_is_solved_and_the_move_sets_it(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "solve-practice") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", bots=1)
        await w.slash(w.alice, "ofc start")
        await w.fake.wait_until(lambda: table_of(w).hand is not None, 5, "the deal")
        hand, hs = table_of(w).hand, hs_of(w, w.alice)  # (the hand ends with her set)
        held = sorted(dealt(w, w.alice))
        r = await w.slash(w.alice, "ofc suggest", cards=text_of(held), variant="ofc")
        assert r.ephemeral and r.content.startswith("🧮 The best setting of 13 cards (ofc"), (
            r.content)
        placed = await w.slash(w.alice, "ofc place", move=move_of(r.content))
        assert placed.content.startswith("✅"), placed.content
        sol = solve_fantasyland(parse_cards(text_of(held)), Rules(variant="ofc"))
        assert hand.boards[hs] == sol.board
        w.fake.assert_clean()


# --------------------------------------------------------------------------- the picture
def _view(w: World, who: Any, cards: str, rules: Rules) -> HandView:
    sol = solve_fantasyland(parse_cards(cards), rules)
    return HandView(name=who.display_name, cards=(), board=sol.board,
                    instruction=f"Best setting · worth {sol.score:g}", fantasyland=True,
                    discards=sol.discards, variant=rules.variant, rules=rules)


async def test_the_picture_is_the_board_said_in_the_tables_deck_colours(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "solve-picture") as w:
        await w.start_bot()
        r = await w.slash(w.carol, "ofc suggest", cards=FIFTEEN)
        rules = Rules(variant="pineapple")
        assert r.files == [("solution.png", render_hand(_view(w, w.carol, FIFTEEN, rules)))]
        assert "worth 40.5." in r.content
        await w.slash(w.alice, "ofc new", variant="ofc")
        await w.slash(w.alice, "ofc options", deck="two", stay_value="20")
        thirteen = " ".join(FIFTEEN.split()[:13])
        r = await w.slash(w.carol, "ofc suggest", cards=thirteen)
        rules = table_of(w).rules
        assert rules.stay_value == 20 and "counted +20)" in r.content, r.content
        assert r.files == [("solution.png", render_hand(_view(w, w.carol, thirteen, rules),
                                                        theme=TWO_COLOUR))]
        w.fake.assert_clean()


async def test_a_long_fancy_name_is_drawn_and_the_answer_stays_short(tmp_path: Any) -> None:
    async with make_world(tmp_path, seed_factory=lambda: "solve-name") as w:
        long = w.fake.add_user("x" * 32, guild=w.guild, global_name="𝔏𝔬𝔫𝔤 " * 6 + "﷽" * 2)
        await w.start_bot()
        r = await w.slash(long, "ofc suggest", cards=FIFTEEN + " 5h 4h")
        assert r.ephemeral and r.files and r.files[0][1].startswith(b"\x89PNG")
        assert len(r.content) < 2000 and "𝔏" not in r.content
        w.fake.assert_clean()


async def test_a_long_mistake_is_answered_within_discords_limits(tmp_path: Any) -> None:
    """The longest ``cards`` Discord sends (6,000 characters): the mistake is said, quoting
    only the start of the bad token, in one message under 2,000 characters."""
    async with make_world(tmp_path, seed_factory=lambda: "solve-long") as w:
        await w.start_bot()
        for text in ("Qh" + "x" * 5998, "Ah " * 2000, " ".join(["Qh"] * 3000)):
            r = await w.slash(w.carol, "ofc suggest", cards=text[:6000])
            assert r.ephemeral and r.content.startswith("⚠️ ") and len(r.content) < 2000, (
                r.content[:100])
            assert not r.files
        w.fake.assert_clean()


# --------------------------------------------------------------------------- the CLI
def test_the_cli_says_each_mistake_with_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    cases = [
        ([], "the following arguments are required: cards"),
        (["--variant", "chinese", "Qh"], "invalid choice: 'chinese'"),
        (["--option", "variant=ofc", "Qh"], "'variant=ofc' is not an option"),
        (["--option", "deck=two", "Qh"], "'deck=two' is not an option"),
        (["--option", "surrender=5", "Qh"], "is an option of chinese poker"),
        (["--variant", "ofc", "--option", "progressive=off", "Qh"], "is an option of pineapple"),
        (["--option", "stay_value=201", *FIFTEEN.split()], "stay_value is a whole number"),
        (["--option", "progressive=off", *FIFTEEN.split()],
         "A pineapple fantasyland hand is 14 cards, not 15"),
        (["--option", "fantasyland=off", *FIFTEEN.split()], "fantasyland is off"),
        ([*FIFTEEN.split(), "Ah", "Ad", "As"], "14 to 17 cards, not 18"),
        (["Qh", "qh"], "Qh is listed twice"),
        (["Qh/Qd"], "'Qh/Qd' is not a card"),
    ]
    for argv, error in cases:
        assert ofc_bot(["solve", *argv]) == 2, argv
        captured = capsys.readouterr()
        assert captured.out == "" and error in captured.err, (argv, captured.err)
    assert ofc_bot(["solve", "--help"]) == 0
    assert "--option NAME=VALUE" in capsys.readouterr().out


def test_the_cli_solves_under_the_options_given(capsys: pytest.CaptureFixture[str]) -> None:
    thirteen = FIFTEEN.split()[:13]
    assert ofc_bot(["solve", "--variant", "ofc", "--option", "STRICT_TOP=on", *thirteen]) == 0
    out = capsys.readouterr().out.split("\n")
    assert out[0] == "The best setting of 13 cards (ofc, exact):"
    assert len(out) == 5 and out[-1] == "" and "discard" not in "\n".join(out)
    assert "(13 cards next, counted +10)" in out[2]
    assert ofc_bot(["solve", "--option", "stay_full_house=off", *FULL_HOUSE_STAY.split()]) == 0
    rules = Rules(variant="pineapple", stay_middle_full_house=False)
    sol = solve_fantasyland(parse_cards(FULL_HOUSE_STAY), rules)
    assert capsys.readouterr().out.split("\n")[1:-1] == [
        "  " + line for line in describe_solution(sol, rules)]
    assert ofc_bot(["solve", "--option", "progressive_stay=on", *PROGRESSIVE_STAY.split()]) == 0
    rules = Rules(variant="pineapple", progressive_stay=True)
    sol = solve_fantasyland(parse_cards(PROGRESSIVE_STAY), rules)
    assert capsys.readouterr().out.split("\n")[1:-1] == [
        "  " + line for line in describe_solution(sol, rules)]


# --------------------------------------------------------------------------- /ofc options
def test_the_shortened_option_descriptions_still_say_what_each_option_does() -> None:
    """Compared with README's table of options: each description keeps what the option does
    (the numbers, the rows, the unit)."""
    said = {p.name: p.description for p in OFC.options.parameters}
    musts = {
        "strict_top": ("top", "strictly", "middle"),
        "progressive": ("QQ 14", "KK 15", "AA 16", "trips 17", "off: 14"),
        "progressive_stay": ("Pokermagnet", "14/15"),
        "stay_full_house": ("middle full house",),
        "button_stays": ("button",),
        "stay_value": ("stay in fantasyland", "default"),
        "moon": ("jack-high bottom",),
        "moon_points": ("each opponent", "stake"),
        "surrender": ("Chinese", "each opponent", "stake"),
        "six_pairs": ("Chinese natural", "0: off"), "dragon": ("Chinese natural", "0: off"),
        "set_timer": ("fantasyland", "chinese"),
        "away_timer": ("timeout", "0: off"),
        "deck": ("four", "two"),
    }
    for name, words in musts.items():
        for word in words:
            assert word in said[name], (name, said[name])
    assert all(0 < len(d) <= 100 for d in said.values())


def test_the_moon_hand_premise() -> None:
    """(For the moon test below.) The moon board of ``MOON`` is clean and shoots the moon:
    against the same opponent it wins 10 points more than the best setting without the moon
    (8 royalties), at a table with ``moon`` on; the solver now finds a moon board there."""
    rules = Rules(variant="ofc", shoot_the_moon=True)
    sol = solve_fantasyland(parse_cards(MOON), Rules(variant="ofc"))
    assert sol.royalties == 8 and sol.board.values()[2].category != HIGH_CARD
    with_moon = solve_fantasyland(parse_cards(MOON), rules)  # (20 points, counted 14: the
    assert with_moon.moon and with_moon.score == 14  # rows and scoop the moon board loses)
    assert not with_moon.board.is_foul(rules)
    moon = Board(parse_cards("Th 9s 8h"), parse_cards("Jd 8c 6h 4s 2d"),
                 parse_cards("Jc 9d 7h 5s 3c"))
    assert not moon.is_foul(rules) and moon.royalties(rules) == 0
    opponent = Board(parse_cards("2h 3h 4h"), parse_cards("Ac Ad 5c 6c 7c"),
                     parse_cards("Kc Kd Ks Qc Qd"))
    solved, mooned = (settle([b, opponent], rules) for b in (sol.board, moon))
    assert mooned.moon[0] and not solved.moon[0]
    assert mooned.totals[0] - solved.totals[0] == 10


# --------------------------------------------------------------------------- defects
def test_cli_with_no_card_in_its_words_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """No card typed: a line on stderr, status 2.  (Was a defect: ``ofc-bot solve ""`` (or
    ``ofc-bot solve ,``, ``--variant ofc " "``) printed a Python traceback (``ValueError: A fantasyland hand has 13 to 17 cards, not 0``) and exits
    with status 1.  Cause: engine/solver.py ``check_fantasyland_cards`` lets an empty hand
    through (``Rules.fantasyland_cards_now(0)`` is 0, equal to the 0 cards), and
    bot/play.py ``solve_main`` calls ``solve_fantasyland`` outside its ``try``.  Should: a
    line ``ofc-bot solve: ...`` naming the sizes (13 in ofc, 14-17 in pineapple) on stderr,
    status 2, as for any other mistake (the Discord command is saved only by its own
    ``if not cards`` check).)"""
    for argv in ([""], [","], ["--variant", "ofc", " "]):
        assert ofc_bot(["solve", *argv]) == 2, argv
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.startswith("ofc-bot solve: "), captured.err
    with pytest.raises(ValueError):
        check_fantasyland_cards([], Rules(variant="pineapple"))


async def test_a_chinese_hand_typed_at_a_chinese_table_without_variant(tmp_path: Any) -> None:
    """13 cards at a chinese practice table, no ``variant``: solved as ofc.  (Was a defect: at
    a chinese table (here a practice one, where solving is allowed), the
    player types the 13 cards of her hand into ``/ofc suggest cards:`` without ``variant`` and is told
    "A pineapple fantasyland hand is 14 to 17 cards, not 13." — a game nobody plays there,
    with no hint that ``variant:ofc`` would solve it.  Cause: bot/service.py
    ``TableService.solve`` falls back to pineapple's defaults when the channel's table plays
    chinese (the option says "Default: the game of the table here"; README: "without
    `variant`: the game of this channel's table").  Should: a 13-card hand at a chinese table
    solved as ofc (the same 13 cards in three rows; the anti-cheating check still refuses a
    hand at stakes), or at least a message that says to add ``variant:ofc``.  Fixed: without
    ``variant`` and no ofc or pineapple table here, 13 cards are ofc, 14-17 pineapple.)"""
    async with make_world(tmp_path, seed_factory=lambda: "solve-chinese-default") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", bots=1)
        await w.slash(w.alice, "ofc start")
        await w.fake.wait_until(lambda: table_of(w).hand is not None, 5, "the deal")
        r = await w.slash(w.alice, "ofc suggest", cards=text_of(dealt(w, w.alice)))
        assert r.content.startswith("🧮 The best setting of 13 cards (ofc, exact):"), r.content


async def test_at_a_moon_table_the_best_setting_counts_the_moon(tmp_path: Any) -> None:
    """At a moon table the best setting shoots the moon when that is worth more.  (Was a
    defect: at an ofc table with ``moon`` on (a clean board with a jack-high bottom wins
    20 points from each opponent), ``/ofc suggest cards:`` of 13 cards that can shoot the moon answers
    a setting of 8 royalties as "the best setting" under the table's options, without a word
    of the moon; pasted, it gives up the 20 points the moon board (bottom Jc 9d 7h 5s 3c,
    middle Jd 8c 6h 4s 2d, top Th 9s 8h) wins from each opponent.  Cause: engine/solver.py
    ``solve_fantasyland`` maximizes royalties plus the stay value only (no
    ``shoot_the_moon`` term; the same holds for the bots' and the clock's fantasyland sets,
    ``engine.ai.set_move``).  Should: count the moon at a table that plays it (the moon board
    is best here), or at least say in the answer that the moon is not counted.  Fixed:
    ``solve_fantasyland`` counts the moon (``_moon_setting``), and so do the bots' sets.)"""
    async with make_world(tmp_path, seed_factory=lambda: "solve-moon") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc")
        r = await w.slash(w.alice, "ofc options", moon=True)
        assert "moon" in r.content.lower(), r.content
        r = await w.slash(w.carol, "ofc suggest", cards=MOON)
        assert r.content.startswith("🧮"), r.content
        moon_board = re.search(r"· bottom [^(]*\((jack|ten|nine|eight|seven)-high\)", r.content)
        assert moon_board and "Shoots the moon (a jack-high bottom): 20 points from each " \
            "opponent" in r.content, r.content


SUIT_SWAP = str.maketrans("cdhs", "dcsh")
"""Clubs <-> diamonds, hearts <-> spades: a hand with the same values in every row."""


def test_a_hand_with_its_suits_swapped_solves_to_the_same_value() -> None:
    """(For the defect below.) Swapping suits changes no row's value: the solver's setting of
    the swapped hand, swapped back, is worth exactly as much as her own hand's best."""
    rules = Rules(variant="ofc")
    rng = random.Random("suits")
    for _ in range(50):
        cards = [str(c) for c in rng.sample(DECK, 13)]
        mine = solve_fantasyland(parse_cards(" ".join(cards)), rules)
        swapped = solve_fantasyland(parse_cards(" ".join(cards).translate(SUIT_SWAP)), rules)
        back = Board(*(parse_cards(" ".join(map(str, row)).translate(SUIT_SWAP))
                       for row in swapped.board.rows))
        assert swapped.score == mine.score
        assert not back.is_foul(rules) and back.royalties(rules) == mine.royalties


async def test_her_chinese_hand_at_stakes_with_suits_swapped_is_refused(tmp_path: Any) -> None:
    """Her chinese hand at stakes, suits swapped or a card changed: refused too.  (Was a
    defect: at a chinese table with stakes, the player setting her hand types it into
    ``/ofc suggest cards: variant:ofc`` with clubs and diamonds, hearts and spades swapped (or with
    one card, e.g. her deuce, changed to another suit) and gets its best setting — swapped
    back, her own hand's best, to the point.  Cause: bot/service.py ``TableService.solve``
    refuses only when the hand's cards are a subset of the typed ones (``set(req.cards) <=
    set(cards)``).  Should: refuse a hand that is hers up to the suits (the same ranks with
    the suits relabelled) or differs from it by a card or so, as it refuses hers.  (Another
    member may still solve her cards by design; this is about the player herself.  Fixed:
    ``TableService._not_your_chinese_hand`` compares ranks, a card or two aside.)"""
    async with make_world(tmp_path, seed_factory=lambda: "solve-chinese-suits") as w:
        await two_at_chinese(w)
        held = sorted(dealt(w, w.alice))
        swapped = text_of(held).translate(SUIT_SWAP)
        mine = parse_cards(text_of(held))
        lowest = min(mine)  # her lowest card, changed to another suit (or any other card)
        other = next((c for c in DECK if c.rank == lowest.rank and c not in mine),
                     next(c for c in DECK if c not in mine))
        one_changed = " ".join(str(c) for c in [*mine, other] if c != lowest)
        for text in (swapped, one_changed):
            r = await w.slash(w.alice, "ofc suggest", cards=text, variant="ofc")
            assert r.ephemeral and "a table that is not practice" in r.content, (text, r.content)
