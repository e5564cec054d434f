import pytest

from engine import Board, CardError, Rules, RulesError, row_index

L = "Qh Qd 2s / Kh Kd Ks 4c 3d / 9c Tc Jc Qc Kc"
R = "Ks 8c 3s / Jh Jd 9c 5d 2c / Qs Qc As 7c 4d"
F = "Ah Ad Kc / As Ac Qd 7s 3c / Js Jc 9d 5h 2c"


def test_parse_and_text() -> None:
    b = Board.parse(L)
    assert str(b) == L
    assert Board.parse(L.replace("/", "|")) == b
    assert Board.from_json(b.to_json()) == b
    assert b.is_complete and len(b) == 13


def test_parse_errors() -> None:
    with pytest.raises(ValueError, match="three rows"):
        Board.parse("Ah Kd")
    with pytest.raises(ValueError, match="top row holds 3"):
        Board.parse("Ah Kd Qc Js / 2c / 3c")
    with pytest.raises(CardError, match="twice"):
        Board.parse("Ah Kd Qc / Ah 2c 3c 4c 5c / 6c 7c 8c 9c Tc")


@pytest.mark.parametrize("name,idx", [("top", 0), ("front", 0), ("mid", 1), ("middle", 1),
                                      ("bottom", 2), ("back", 2), ("BOTTOM", 2)])
def test_row_synonyms(name: str, idx: int) -> None:
    assert row_index(name) == idx


def test_worked_example_1_royalties_and_fantasyland() -> None:
    b = Board.parse(L)
    assert b.row_royalties() == (7, 2, 15)
    assert b.royalties() == 24
    assert b.fantasyland_cards(Rules()) == 13
    assert Board.parse(R).royalties() == 0


def test_worked_example_2_foul() -> None:
    f = Board.parse(F)
    assert f.is_foul()
    # the reason RULES.md gives (top AA K above middle AA Q 7 3) fouls on its own: the same
    # top and middle over a bottom that beats the middle
    assert Board.parse("Ah Ad Kc / As Ac Qd 7s 3c / Kh Kd Ks 5h 2h").is_foul()
    assert not Board.parse("Ah Ad Qc / As Ac Kd 7s 3c / Kh Kc Ks 5h 2h").is_foul()
    assert f.royalties() == 0
    assert f.fantasyland_cards() == 0


def test_middle_above_bottom_fouls() -> None:
    assert Board.parse("2c 3d 4h / Ah Ad As Kc Kd / Qh Qd 9s 8c 7d").is_foul()


def test_equal_rows_legal_unless_strict() -> None:
    b = Board.parse("Ah Kd Qc / As Ks Qd 9s 7c / 2c 2d 3h 3s 4c")
    assert not b.is_foul(Rules())
    assert b.is_foul(Rules(strict_top=True))
    assert not Board.parse("Kh Qh Jc / As Ks Qd 9s 7c / 2c 2d 3h 3s 4c").is_foul(
        Rules(strict_top=True)
    )


@pytest.mark.parametrize(
    "top,points",
    [("5h 5d Ac", 0), ("6h 6d 2c", 1), ("7h 7d 2c", 2), ("8h 8d 2c", 3), ("9h 9d 2c", 4),
     ("Th Td 2c", 5), ("Jh Jd 2c", 6), ("Qh Qd 2c", 7), ("Kh Kd 2c", 8), ("Ah Ad 2c", 9),
     ("2h 2d 2c", 10), ("3h 3d 3c", 11), ("9h 9d 9c", 17), ("Ah Ad Ac", 22)],
)
def test_top_royalties(top: str, points: int) -> None:
    board = Board.parse(f"{top} / 4s 4c 4h 4d 3s / 7s 8s 9s Ts Js")  # quads, straight flush
    assert not board.is_foul()
    assert board.row_royalties()[0] == points


@pytest.mark.parametrize(
    "middle,points",
    [("2s 2c 2h 7c 9d", 2), ("5s 6c 7h 8c 9d", 4), ("2s 5s 7s 9s Js", 8), ("3s 3c 3h 4c 4d", 12),
     ("4s 4c 4h 4d 2c", 20), ("5s 6s 7s 8s 9s", 30), ("Ts Js Qs Ks As", 50)],
)
def test_middle_royalties(middle: str, points: int) -> None:
    b = Board.parse(f"2d 3d 6d / {middle} / Ah Ac Ad Kh Kc")
    if b.is_foul():
        b = Board.parse(f"2d 3d 6d / {middle} / Th Jh Qh Kh Ah")
    assert b.row_royalties()[1] == points


@pytest.mark.parametrize(
    "bottom,points",
    [("5s 6c 7h 8c 9d", 2), ("2s 5s 7s 9s Js", 4), ("3s 3c 3h 4c 4d", 6), ("4s 4c 4h 4d 2c", 10),
     ("5s 6s 7s 8s 9s", 15), ("Ts Js Qs Ks As", 25), ("Ah Ad 3c 4c 9h", 0)],
)
def test_bottom_royalties(bottom: str, points: int) -> None:
    b = Board.parse(f"2d 3d 6h / 2h 5h 7d 8d Jd / {bottom}")
    assert not b.is_foul()
    assert b.row_royalties()[2] == points


def test_chinese_has_no_royalties() -> None:
    assert Board.parse(L).royalties(Rules(variant="chinese")) == 0


@pytest.mark.parametrize(
    "top,ofc,prog,flat",
    [("Qh Qd 2c", 13, 14, 14), ("Kh Kd 2c", 13, 15, 14), ("Ah Ad 2c", 13, 16, 14),
     ("2h 2d 2c", 13, 17, 14), ("Jh Jd 2c", 0, 0, 0)],
)
def test_fantasyland_entry(top: str, ofc: int, prog: int, flat: int) -> None:
    b = Board.parse(f"{top} / 3s 3c 3h 4c 4d / 9s 9c 9h 9d 7c")
    assert not b.is_foul()
    assert b.fantasyland_cards(Rules(variant="ofc")) == ofc
    assert b.fantasyland_cards(Rules(variant="pineapple")) == prog
    assert b.fantasyland_cards(Rules(variant="pineapple", progressive=False)) == flat
    assert b.fantasyland_cards(Rules(variant="ofc", fantasyland=False)) == 0
    assert b.fantasyland_cards(Rules(variant="chinese")) == 0


def test_fouled_board_never_enters_or_stays() -> None:
    b = Board.parse("Ah Ad Ac / 2s 2c 3h 4c 5d / 9s 9c 9h 9d 7c")
    assert b.is_foul()
    assert b.fantasyland_cards(Rules(variant="pineapple")) == 0
    assert b.fantasyland_stay_cards(Rules(variant="pineapple")) == 0


@pytest.mark.parametrize(
    "board,ofc,pine,no_fh,prog",
    [
        ("2h 2d 2c / 3s 3c 3h 4c 4d / 9s 9c 9h 9d 7c", 13, 14, 14, 15),  # trips top
        ("Ah Kd 2c / 3s 3c 3h 4c 4d / 9s 9c 9h Ts Tc", 13, 14, 0, 14),  # middle full house
        ("Ah Kd 2c / 3s 3c Jh 4c 4d / 9s 9c 9h 9d 7c", 13, 14, 14, 14),  # bottom quads
        ("Ah Kd 2c / 3s 3c Jh 4c 4d / Ts Js Qs Ks As", 13, 14, 14, 15),  # bottom royal
        ("Qh Qd 2c / 3s 3c Jh 4c 4d / 9s 9c 9h Ts Tc", 0, 0, 0, 0),  # QQ top only: no stay
    ],
)
def test_fantasyland_stay(board: str, ofc: int, pine: int, no_fh: int, prog: int) -> None:
    b = Board.parse(board)
    assert b.fantasyland_stay_cards(Rules(variant="ofc")) == ofc
    assert b.fantasyland_stay_cards(Rules(variant="pineapple")) == pine
    assert b.fantasyland_stay_cards(
        Rules(variant="pineapple", stay_middle_full_house=False)) == no_fh
    assert b.fantasyland_stay_cards(Rules(variant="pineapple", progressive_stay=True)) == prog
    assert b.stays_in_fantasyland(Rules(variant="pineapple")) == (pine > 0)


def test_rules_defaults_and_validation() -> None:
    assert Rules().scoring == "1-6"
    assert Rules(variant="pineapple").scoring == "1-6"
    assert Rules(variant="chinese").scoring == "2-4"
    with pytest.raises(RulesError, match="Unknown variant"):
        Rules(variant="holdem")  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="Unknown scoring"):
        Rules(scoring="1-9")  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="2 to 3 players"):
        Rules(variant="pineapple").check_players(4)
    Rules(variant="ofc").check_players(4)
    with pytest.raises(RulesError, match="natural"):
        Rules(naturals=(("royal", 5),))
    with pytest.raises(RulesError, match="timer"):
        Rules(timer=1)
    # the progressive stay table is an option of progressive pineapple
    with pytest.raises(RulesError, match="progressive pineapple"):
        Rules(variant="ofc", progressive_stay=True)
    with pytest.raises(RulesError, match="progressive pineapple"):
        Rules(variant="pineapple", progressive=False, progressive_stay=True)


def test_changing_the_variant_brings_its_default_scoring() -> None:
    assert Rules().with_options(variant="chinese").scoring == "2-4"
    assert Rules(variant="chinese").with_options(variant="pineapple").scoring == "1-6"
    # a scoring chosen on purpose stays
    assert Rules(scoring="1-3").with_options(variant="chinese").scoring == "1-3"
    assert Rules().with_options(variant="chinese", scoring="1-6").scoring == "1-6"


def test_rules_json_round_trip_and_words() -> None:
    r = Rules(variant="chinese", scoring="1-6", naturals=(("dragon", 26),), shoot_the_moon=True)
    assert Rules.from_json(r.to_json()) == r
    assert any("dragon 26" in line for line in r.describe())
    assert any("QQ 14" in line for line in Rules(variant="pineapple").describe())
    # every natural taken off the table
    assert "No naturals." in Rules(variant="chinese", naturals=()).describe()


def test_the_royalty_line_of_the_rules_text_is_the_engines() -> None:
    """/ofc rules prints the royalty table: every figure in it is what the engine pays."""
    from engine import evaluate, parse_cards
    from engine.board import bottom_royalty, middle_royalty, top_royalty

    line = next(x for x in Rules().describe() if x.startswith("Royalties:"))
    rows = {
        "top": (top_royalty, {"66": "6h 6d 2c", "AA": "Ah Ad 2c", "trips 222": "2h 2d 2c",
                              "AAA": "Ah Ad Ac"}),
        "middle": (middle_royalty, {"trips": "7h 7d 7c 2s 3d", "straight": "5h 6d 7c 8s 9d",
                                    "flush": "2h 5h 7h 9h Jh", "full house": "7h 7d 7c 2s 2d",
                                    "quads": "7h 7d 7c 7s 2d", "straight flush": "5h 6h 7h 8h 9h",
                                    "royal": "Th Jh Qh Kh Ah"}),
    }
    rows["bottom"] = (bottom_royalty, {k: v for k, v in rows["middle"][1].items() if k != "trips"})
    for row, (pays, examples) in rows.items():
        part = line.split(f"{row} ", 1)[1]
        for name, cards in examples.items():
            figure = part.split(f"{name} ", 1)[1].split(maxsplit=1)[0].strip(",;.")
            assert int(figure) == pays(evaluate(parse_cards(cards))), (row, name)
