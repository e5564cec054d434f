"""Mutation review of the engine's rules code, second part: what the first part
(tests/engine/test_mutation_review.py) did not reach, each gap pinned by a test below.

Targets: the first part's -- engine/scoring.py (settle, _pair, shoots_moon, units_moved,
PairResult.flipped / royalty_points, Settlement.pair / matrix), engine/board.py (row_index, the
royalty functions and tables, values_foul, fantasyland entry and stay, chinese_row_bonus,
Board.__post_init__ / is_complete / free / free_slots / place / values / is_foul / foul_rows /
foul_reason / row_royalties / royalties / fantasyland_cards / fantasyland_stay_cards, ROW_SIZES,
ROW_SYNONYMS), engine/evaluator.py (HandValue.category / ranks / is_royal, _pack, _classify,
_rank_key, _build, _evaluate, top_compare_mask, row_at_most, describe_value, _TOP_RANK_MASK,
CATEGORY_SHIFT), engine/naturals.py (every function, _STRAIGHTS5 / _STRAIGHTS3),
engine/rules.py (_whole_number, parse_stay_value, _default_scoring, Rules.__post_init__, its
derived values, check_players, fantasyland_cards_now, with_text_options, changed, naturals_with,
with_options, from_json, MAX_PLAYERS, SCOOP_BONUS, OVERALL_BONUS, DEFAULT_NATURALS,
MAX_STAY_VALUE) and engine/hand.py (next_button, the fantasyland sizes Hand.__init__ accepts,
Hand._finish's entry / stay decision).

Operators (the first part's, a throw-away AST tool in /tmp, one node per mutant spliced into
the source): comparisons swapped (< <= > >=, == !=, in / not in, is / is not), + and - swapped
(also in +=/-=), integer constants c -> c+1 and c-1 (module-level tables too), and/or swapped,
`not` removed, True/False swapped, `return X` -> `return None` (and `return not X` in a function
returning bool), each statement of an if-body deleted, min/max swapped.

Tests: chosen per mutant by per-test line coverage of tests/engine (coverage.py, one context
per test; test_ai.py, the solver's brute-force checks, the `slow` marks and one test over 15 s
under coverage, about 5 s without, left out); for the code run at import (_classify, _build,
_pack, _rank_key) and for describe_value (its answers are cached, so coverage sees only the
first test to ask) the fast tests of test_evaluator, test_board, test_scoring, test_naturals,
test_rules_audit and test_mutation_review; `pytest -x -q -p no:cacheprovider` with a 150 s cap;
the file restored after each mutant (`git diff --quiet` at the end).  Order: first the
functions the first part did not reach (describe_value, Rules.changed, with_text_options,
parse_stay_value, Board.__post_init__, Board.place, _fits, PairResult.flipped, _classify), then
the rest of the targets in random order (seed 20261128), units_moved last; the mutants the
first part ran (matched by function, operator, text and source line) were skipped, its
equivalents with them.

Numbers: 1247 mutants of the current source (the first part's 1298 were of an older one:
units_moved was rewritten since and top_ranks_equal_or_below removed); 472 of them are the
ones the first part ran, skipped; the other 775 all run here (774 the first part did not reach,
1 new in the rewritten units_moved): 674 killed by the existing suite, 101 not (67 survived
their covering tests, 34 had none): 34 equivalent, 5 selection artefacts (DEFAULT_NATURALS,
read in the class body only, so no line of a test covers it: test_rules_audit kills all of
them when run), 62 gaps, each killed now by a test below.

Equivalent (34): describe_value's `return text` for a cached text deleted (the text is
computed again, the same); its shifts of the third to fifth ranks (8, 4, 0 +-1: only the first
two ranks are read) and `ranks[0]` read as `ranks[-1]` for a straight or straight flush (one
defining rank); _classify's 3-card `return HIGH_CARD, by` deleted (falls through to the same
return: three ranks match no 5-card shape and a top is never a flush); _build's bound on equal
ranks (`max` -> `min`, `> 4` -> `> 5`, its `continue` deleted: impossible five-of-a-kind keys
added, whose base-5 keys collide with no 3- or 5-card key) and rank 15 in its ranges (an
impossible rank; the same for T-J-Q-K-15 added to _STRAIGHTS5 and 5-5 added to _TOP_PAIR at
5 - 5 = 0 points, the default); top_compare_mask's default mask +-1 (a top is only high card,
pair or trips); _TOP_RANK_MASK's trips mask as ~0x10000 (a trips top never meets a middle
with the same defining rank, six cards of a rank; checked on every value); values_foul's
`top > middle` as `>=` (no 3-card value equals a 5-card one: checked on every value); in _pair
`outcome > 0` as `>= 0` / `> -1` (0 was skipped by the `continue` above, the outcome is +-1) and
`zip(strict=False)` (three rows each), and settle's first `fouled = [True] * n` (each seat's is
set in the loop); `zip(strict=False)` in Board.__post_init__ (three names, three sizes);
compare_naturals' defaults for a missing natural (4, as in the first part); `return None` for
`return False` in _fits / _three_straights / _three_flushes (read only by `if`); _fits'
`range(0, ...)` (a sum of 0 is no suit's count) and `len(sizes) + 2` (no larger
combinations).

Gaps pinned (each test below passes on the code as it is and fails on every mutant listed
with it; checked by applying each mutant in a copy of the tree): parse_stay_value as a whole
(8: `default`/`auto` in any case, 0 and 200 taken, 201 and words refused -- nothing in
tests/engine called it); Rules.changed (7: an option of another variant refused, `timer`
raising the set clock unless that is given, `stay_value` as written); with_text_options and
_whole_number (8: a text that is not an option named, a whole number needed, up to 18
digits); a natural listed twice (1); PairResult.flipped (9: every field of a pair seen from
its b -- only its total was checked -- and the rows and row points of a split pair);
PairResult.royalty_points (6: nothing read it); the notes "natural" and "both surrendered"
(2); HandValue.ranks past the first rank (7); Board.free (2); Board.__post_init__ (6: rows given
as lists or iterators, the card on the board twice named); Board.values' refusal of a partial
board (1); row_index's error (1); foul_rows for a middle equal to the bottom (1); three
straights with a 2-3-4 top or two T-J-Q-K-A straights (2: either straight taken off the lists
went unseen); Hand's fantasyland of 12 cards in ofc (1; its other sizes are pinned with it).
Of the 62, tests outside tests/engine (not used to choose the tests; tests/bot/test_options.py,
tests/bot/test_play.py and tests/test_readme_claims.py run on each afterwards) already killed 21:
all of parse_stay_value's, Rules.changed's and with_text_options' and one each of
_whole_number and royalty_points -- pinned here too, where the engine's own tests are; the
other 41 no test of those files kills.

Left unpinned: none.  Not run: none of the targets' mutants (the first part ran 472 of them,
and one of the removed function; this part the other 775); tests outside tests/engine were not
run on the mutants except to count the gaps they already close (above).

Defects found: none -- no survivor showed the code disagreeing with RULES.md, README or a
docstring.  (Board.free(i) was called nowhere in the product; it was pinned below with
free_slots, which is, and has since been removed.  Hand's refusal of a fantasyland at a table that plays none said "a
fantasyland hand is 13 to 17 cards, not 13": right to refuse, but its words were only about the
size; it now says "this table plays no fantasyland".)
"""

from __future__ import annotations

import dataclasses

import pytest

from engine import (
    Board,
    CardError,
    Hand,
    Rules,
    RulesError,
    evaluate,
    parse_cards,
    row_index,
    settle,
)
from engine.naturals import naturals_in
from engine.rules import parse_stay_value
from tests.engine.test_rules_audit import MOON
from tests.engine.test_scoring import F, L, R

# -- rules.parse_stay_value ----------------------------------------------------------------------


@pytest.mark.parametrize("text,value", [
    ("default", None), (" Default ", None), ("AUTO", None), ("0", 0), ("12", 12), ("200", 200),
    (" 7 ", 7),
])
def test_parse_stay_value_reads_a_number_from_0_to_200_or_default(text: str,
                                                                  value: int | None) -> None:
    """parse_stay_value: "a whole number of points, or ``default`` (``auto``) for the expected
    value of a fantasyland hand (None)"; README: "`stay_value` ... a whole number 0-200, or
    `default`"."""
    assert parse_stay_value(text) == value


@pytest.mark.parametrize("text", ["201", "-1", "1.5", "lots", "", "defaults"])
def test_parse_stay_value_refuses_anything_else(text: str) -> None:
    """parse_stay_value's error: "stay_value is a whole number of points from 0 to 200, or
    default ..."."""
    with pytest.raises(RulesError, match="stay_value is a whole number of points from 0 to 200"):
        parse_stay_value(text)


# -- rules.Rules.changed -------------------------------------------------------------------------


@pytest.mark.parametrize("variant,option,words", [
    ("ofc", "chinese_surrender", "is an option of chinese poker"),
    ("pineapple", "chinese_bonuses", "is an option of chinese poker"),
    ("ofc", "dragon", "is an option of chinese poker"),
    ("chinese", "fantasyland", "is a fantasyland option"),
    ("chinese", "stay_value", "is a fantasyland option"),
    ("ofc", "progressive", "is an option of pineapple"),
    ("ofc", "progressive_stay", "is an option of pineapple"),
])
def test_an_option_of_another_variant_is_refused(variant: str, option: str, words: str) -> None:
    """Rules.changed: "A ``RulesError`` names an option that does not apply to this variant";
    README (`/ofc options`): "An option of another variant is refused (e.g. `surrender` at an
    ofc table)"."""
    value = {"chinese_surrender": 5, "chinese_bonuses": False, "dragon": 20, "fantasyland": False,
             "stay_value": 5, "progressive": False, "progressive_stay": False}[option]
    with pytest.raises(RulesError, match=words):
        Rules(variant=variant).changed({option: value})  # type: ignore[arg-type]


def test_the_options_of_the_variant_are_changed() -> None:
    """The same options are taken where they apply (the refusals above are by variant only)."""
    assert Rules(variant="chinese").changed({"chinese_surrender": 5}).chinese_surrender == 5
    assert Rules().changed({"fantasyland": False}).fantasyland is False
    assert Rules(variant="pineapple").changed({"progressive": False}).progressive is False


def test_a_longer_clock_raises_the_set_clock_with_it() -> None:
    """Rules.changed: "A longer clock raises the set clock with it unless that is given too";
    README: "`/ofc options`' `timer` raises the set clock to it when it is longer"."""
    assert Rules().changed({"timer": 150}).set_timer == 150
    assert Rules().changed({"timer": 90}).set_timer == 120
    assert Rules().changed({"timer": 150, "set_timer": 130}).set_timer == 130
    assert Rules().changed({"set_timer": 300}).timer == 60


def test_changed_reads_stay_value_as_written() -> None:
    """Rules.changed: ``stay_value`` "as written: a number or default" (``/ofc options``)."""
    r = Rules(variant="pineapple")
    assert r.changed({"stay_value": "12"}).stay_value == 12
    assert r.changed({"stay_value": 12}).changed({"stay_value": "default"}).stay_value is None


# -- rules.Rules.with_text_options ---------------------------------------------------------------


@pytest.mark.parametrize("text", ["strict_top", "variant=chinese", "extra=1", "naturals=1",
                                  "bogus=on", "=on"])
def test_a_text_that_is_not_an_option_is_named(text: str) -> None:
    """Rules.with_text_options: "a ``RulesError`` naming the text that is wrong": "'...' is not
    an option: write name=value with a name from ..." (variant is not an option to change)."""
    with pytest.raises(RulesError, match=f"'{text}' is not an option: write name=value"):
        Rules().with_text_options([text])


@pytest.mark.parametrize("variant,text", [("chinese", "dragon=lots"), ("chinese", "surrender=x"),
                                          ("ofc", "timer=fast"), ("ofc", "moon_points=-2")])
def test_a_whole_number_option_needs_a_whole_number(variant: str, text: str) -> None:
    """Rules.with_text_options: "'...': NAME needs a whole number (at most 18 digits)"."""
    with pytest.raises(RulesError, match="needs a whole number"):
        Rules(variant=variant).with_text_options([text])  # type: ignore[arg-type]


# -- scoring.PairResult.flipped (Settlement.pair asked the other way round) ----------------------

# a top won, a middle lost and a bottom tied (A-high straights): rows (1, -1, 0)
SPLIT_A = Board.parse("Ah Ad 2c / 3h 3d 4s 4c 7c / Ts Jd Qh Ks As")
SPLIT_B = Board.parse("Kh Kc 2d / 8h 8d 8s 5c 6c / Tc Jc Qd Kd Ac")

_FLIP_CASES = [
    # (boards, rules, surrendered, naturals): rows and royalties, a foul, a moon, a chinese
    # surrender and a natural -- every field of a pair holds something in one of them
    ([L, R], Rules(), (), None),
    ([SPLIT_A, SPLIT_B], Rules(), (), None),
    ([L, F], Rules(), (), None),
    ([MOON, R], Rules(shoot_the_moon=True), (), None),
    ([L, R], Rules(variant="chinese"), (0,), None),
    ([None, R], Rules(variant="chinese"), (), {0: "dragon"}),
    ([L, R], Rules(), (1,), None),
]


@pytest.mark.parametrize("boards,rules,surrendered,naturals", _FLIP_CASES)
def test_a_pair_seen_from_b_is_the_pair_settled_with_the_seats_swapped(
        boards: list[Board | None], rules: Rules, surrendered: tuple[int, ...],
        naturals: dict[int, str] | None) -> None:
    """PairResult.flipped: "The same result seen from b" (Settlement.pair(b, a)): every field
    of settling the same two boards with the seats swapped, the seat numbers aside -- RULES.md:
    "Every pair of players at the table is settled separately"."""
    s = settle(boards, rules, surrendered, naturals)
    swap = {0: 1, 1: 0}
    swapped = settle(boards[::-1], rules, [swap[x] for x in surrendered],
                     None if naturals is None else {swap[k]: v for k, v in naturals.items()})
    assert s.pair(1, 0) == dataclasses.replace(swapped.pair(0, 1), a=1, b=0)
    assert s.pair(1, 0).flipped() == s.pair(0, 1)


def test_the_split_boards_split() -> None:
    """(The boards above: A wins the top, B the middle, the bottom ties.)"""
    p = settle([SPLIT_A, SPLIT_B]).pair(0, 1)
    assert (p.rows, p.row_points, p.scoop) == ((1, -1, 0), (1, -1, 0), 0)
    assert p.royalties == (9 + 2, 8 + 2 + 2)


@pytest.mark.parametrize("boards,rules,surrendered,naturals,note", [
    ([L, R], Rules(), (), None, ""),
    ([L, F], Rules(), (), None, "foul"),
    ([L, R], Rules(), (1,), None, "surrender"),
    ([F, F], Rules(), (), None, "both fouled"),
    ([L, R], Rules(variant="chinese"), (0,), None, "surrender"),
    ([L, R], Rules(variant="chinese"), (0, 1), None, "both surrendered"),
    ([None, R], Rules(variant="chinese"), (), {0: "dragon"}, "natural"),
    ([None, None], Rules(variant="chinese"), (), {0: "dragon", 1: "six pairs"}, "natural"),
])
def test_the_note_of_a_pair_says_what_decided_it(
        boards: list[Board | None], rules: Rules, surrendered: tuple[int, ...],
        naturals: dict[int, str] | None, note: str) -> None:
    """PairResult.note, shown beside a pair's result (``ofc-bot play``: "(natural)"; the
    showdown picture leaves out "natural", "surrender" and "foul", said otherwise there):
    what settled the pair when its rows were not simply compared."""
    assert settle(boards, rules, surrendered, naturals).pair(0, 1).note == note


# -- evaluator.HandValue.ranks -------------------------------------------------------------------


@pytest.mark.parametrize("cards,ranks", [
    ("Kh Kd 7c 5s 3d", (13, 7, 5, 3)),      # a pair and its three kickers
    ("Ah Jd 9c 4s 2d", (14, 11, 9, 4, 2)),  # five high cards
    ("Jc Jd 4h 4s 2c", (11, 4, 2)),         # two pair and a kicker
    ("Qh Qd 5c", (12, 5)),                  # a top pair and its kicker
    ("Ah 2d 3c 4s 5h", (5,)),               # the wheel: five-high
])
def test_hand_value_ranks_are_the_defining_ranks_in_order(cards: str,
                                                          ranks: tuple[int, ...]) -> None:
    """HandValue.ranks: "Defining ranks, 2..14, in order (no zero padding)"; RULES.md: "the
    ranks that define the hand in order (trips or pair rank first, then kickers high to
    low)"."""
    assert evaluate(parse_cards(cards)).ranks == ranks


# -- board.Board.free_slots ----------------------------------------------------------------------


@pytest.mark.parametrize("text,free", [
    ("/ /", (3, 5, 5)), ("Ah / Kd Kc / 2s 3s 4s 5s", (2, 3, 1)), (str(L), (0, 0, 0)),
])
def test_free_slots_count_the_cards_each_row_still_takes(text: str,
                                                         free: tuple[int, int, int]) -> None:
    """RULES.md: "top (3 cards), middle (5), bottom (5)": a partial board's free slots, row by
    row."""
    board = Board.parse(text)
    assert board.free_slots == free


def test_royalty_points_are_the_difference_of_the_royalties() -> None:
    """RULES.md: "Between two players the royalties are paid as the difference"
    (PairResult.royalty_points, shown by ``ofc-bot play`` as "royalties +N")."""
    s = settle([L, R], Rules())
    assert s.pair(0, 1).royalty_points == 24 and s.pair(1, 0).royalty_points == -24
    split = settle([SPLIT_A, SPLIT_B]).pair(0, 1)
    assert split.royalty_points == (9 + 2) - (8 + 2 + 2)


# -- rules: whole numbers and the table of naturals ----------------------------------------------


def test_a_whole_number_option_takes_up_to_18_digits() -> None:
    """rules._whole_number (what with_text_options reads a number with): "ASCII digits, at most
    18: more is no option's value"; the error says "(at most 18 digits)"."""
    eighteen = "9" * 18
    assert Rules().with_text_options([f"moon_points={eighteen}"]).shoot_the_moon_points == int(
        eighteen)
    with pytest.raises(RulesError, match=r"needs a whole number \(at most 18 digits\)"):
        Rules().with_text_options(["moon_points=1" + "0" * 18])


def test_a_natural_listed_twice_is_refused() -> None:
    """Rules.__post_init__: "A natural is listed twice" (RULES.md: "a table of naturals": one
    value per natural)."""
    with pytest.raises(RulesError, match="A natural is listed twice"):
        Rules(variant="chinese", naturals=(("dragon", 13), ("dragon", 20)))


# -- board.Board.__post_init__ / place ----------------------------------------------------------


def test_a_board_given_other_sequences_holds_tuples() -> None:
    """Board.__post_init__ turns rows given as lists (or any iterable) into tuples: the frozen
    board is the same board, equal and hashable, whatever its rows were given as."""
    top, middle, bottom = L.rows
    for board in (Board(list(top), list(middle), list(bottom)),
                  Board(iter(top), (c for c in middle), bottom)):  # type: ignore[arg-type]
        assert board.rows == L.rows and isinstance(board.top, tuple)
        assert board == L and hash(board) == hash(L)
        assert board.royalties() == 24


def test_a_card_on_the_board_twice_is_named() -> None:
    """RULES.md: "A card that is not in front of the player, or is already placed, is rejected
    the same way" (with a message that names the bad token): Board refuses a card twice and
    names that card, not the first card of the board."""
    for text in ("Ah Kd Qc / 2s 3s 4s 5s Kd / 6c 7c 8c 9c Tc", "Ah Kd Qc / 2s 9c / 3s 9c"):
        dup = "Kd" if "Kd Qc / 2s 3s 4s" in text else "9c"
        with pytest.raises(CardError, match=f"{dup} is on the board twice") as info:
            Board.parse(text)
        assert info.value.token == dup
    with pytest.raises(CardError, match="Kd is on the board twice"):
        Board.parse("Ah Kd / 2s / 3s").place([(parse_cards("Kd")[0], 2)])


def test_the_rules_of_a_partial_board_are_refused_by_name() -> None:
    """Board.values (what the foul and royalty checks read): "The board is not complete" --
    RULES.md: "a *finished* board is fouled unless ..."."""
    partial = Board.parse("Ah Ad Kc / As Ac Qd 7s 3c / Js Jc 9d 5h")
    for check in (partial.values, partial.is_foul, partial.foul_rows):
        with pytest.raises(ValueError, match="The board is not complete"):
            check()


# -- board.row_index ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["side", "", "tops", "3"])
def test_a_name_that_is_not_a_row_is_refused_by_name(name: str) -> None:
    """row_index: "'...' is not a row: use top, middle or bottom" (a ValueError the commands
    show)."""
    with pytest.raises(ValueError, match=f"'{name}' is not a row: use top, middle or bottom"):
        row_index(name)


# -- board.Board.foul_rows -----------------------------------------------------------------------


def test_a_middle_equal_to_the_bottom_is_not_named_as_out_of_order() -> None:
    """RULES.md: "fouled unless bottom >= middle >= top. Equality is legal": a top above the
    middle fouls the board, and Board.foul_rows names only the top and middle when the middle
    merely equals the bottom ("(1, 2) when the middle beats the bottom")."""
    board = Board.parse("Ah Ad Kc / Qs Qc 9d 5h 2c / Qh Qd 9c 5s 2d")
    assert board.foul_rows() == (0, 1)
    assert board.foul_reason() == "the top (pair of aces) beats the middle (pair of queens)"


# -- naturals ------------------------------------------------------------------------------------


def test_three_straights_with_the_lowest_top_straight() -> None:
    """RULES.md: "Three straights / three flushes mean the top three cards also form a
    straight": here the only split is 2-3-4 on top over two 2-to-6 straights."""
    cards = parse_cards("2c 3d 4h 2d 3c 4s 5c 6c 2h 3h 4d 5s 6s")
    assert naturals_in(cards) == ["three straights"]


def test_three_straights_with_two_broadway_straights() -> None:
    """The same with the highest 5-card straight, T-J-Q-K-A, twice (the only split of these
    13 cards: 2-3-4 on top)."""
    cards = parse_cards("Tc Jd Qh Ks Ac Td Jc Qs Kh Ad 2c 3d 4h")
    assert naturals_in(cards) == ["three straights"]


# -- hand.Hand: the fantasyland sizes a hand accepts ---------------------------------------------

_PROGRESSIVE = Rules(variant="pineapple")
_PLAIN = Rules(variant="pineapple", progressive=False)


@pytest.mark.parametrize("rules,cards", [
    (Rules(), 13), (_PROGRESSIVE, 14), (_PROGRESSIVE, 15), (_PROGRESSIVE, 16), (_PROGRESSIVE, 17),
    (_PLAIN, 14),
])
def test_a_hand_deals_the_fantasyland_sizes_of_its_rules(rules: Rules, cards: int) -> None:
    """RULES.md: "`ofc`: the fantasyland hand is dealt 13 cards at once"; "`pineapple` is
    progressive ...: QQ -> 14 cards, KK -> 15, AA -> 16, trips -> 17; with progressive off, 14
    cards"."""
    h = Hand(rules, ["Ann", "Bob"], fantasyland={1: cards}, seed=1)
    assert h.fantasyland == (0, cards)
    assert len(h.pending[1]) == cards


@pytest.mark.parametrize("rules,cards,error", [
    (Rules(), 12, "a fantasyland hand is 13 to 17 cards, not 12"),
    (Rules(), 14, "Classic ofc deals 13 fantasyland cards"),
    (Rules(), 18, "a fantasyland hand is 13 to 17 cards, not 18"),
    (_PROGRESSIVE, 13, "This pineapple deals 14 to 17 fantasyland cards, not 13"),
    (_PROGRESSIVE, 18, "a fantasyland hand is 13 to 17 cards, not 18"),
    (_PLAIN, 15, "This pineapple deals 14 fantasyland cards, not 15"),
    (_PLAIN, 13, "This pineapple deals 14 fantasyland cards, not 13"),
    # no fantasyland at all
    (Rules(fantasyland=False), 13, "Seat 0: this table plays no fantasyland"),
    (Rules(variant="chinese"), 13, "Seat 0: this table plays no fantasyland"),
])
def test_a_hand_refuses_other_fantasyland_sizes(rules: Rules, cards: int, error: str) -> None:
    """Hand: "Seat N: a fantasyland hand is 13 to 17 cards, not K" ("Seat N: this table plays
    no fantasyland" where it plays none), "Classic ofc deals 13 fantasyland cards", "This pineapple
    deals 14 to 17 (14) fantasyland cards, not K"."""
    with pytest.raises(ValueError, match=error):
        Hand(rules, ["Ann", "Bob"], fantasyland={0: cards}, seed=1)


@pytest.mark.parametrize("seat", [2, -1, "0"])
def test_a_fantasyland_for_a_seat_not_at_the_table_is_refused(seat: object) -> None:
    """Hand: "Fantasyland for seat S, not at this table of N"."""
    with pytest.raises(ValueError, match="not at this table of 2"):
        Hand(Rules(), ["Ann", "Bob"], fantasyland={seat: 13}, seed=1)  # type: ignore[dict-item]


def test_a_fantasyland_list_gives_each_seat_its_size() -> None:
    """Hand(fantasyland=...): a mapping seat -> cards or a list in seat order, 0 for none."""
    h = Hand(_PROGRESSIVE, ["Ann", "Bob", "Cat"], fantasyland=[0, 16, 14], seed=1)
    assert h.fantasyland == (0, 16, 14)
    assert [len(p) for p in h.pending] == [5, 16, 14]  # seat 0 plays: its first 5 cards
