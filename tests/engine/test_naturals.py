import pytest

from engine import Rules, best_natural, naturals_in, parse_cards
from engine.naturals import compare_naturals


@pytest.mark.parametrize(
    "cards,expected",
    [
        ("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac", ["three straights", "dragon"]),
        ("2c 2d 4h 4s 6c 6d 8h 8s Tc Td Qh Qs Ac", ["six pairs"]),
        ("2c 2d 2h 2s 6c 6d 8h 8s Tc Td Qh Qs Ac", ["six pairs"]),  # quads count as two pairs
        # top A23, middle 4-8, bottom 9-K
        ("Ac 2d 3h 4s 5c 6d 7h 8s 9c Td Jh Qs Kc", ["three straights", "dragon"]),
        ("2c 3c 4c 5c 6d 2d 3d 4d 5d 6c Qh Kh Ad", ["three straights"]),  # QKA top
        ("2c 5c 9c 2d 4d 6d 8d Td 3h 7h 9h Jh Kh", ["three flushes"]),
        ("2c 3c 5c 7c 9c Jc Kc Ac 2d 4d 6d 8d Td", ["three flushes"]),  # 8 clubs, 5 diamonds
        ("2c 5d 9c 2d 4d 6d 8h Td 3h 7h 9h Jh Kh", []),
    ],
)
def test_detection(cards: str, expected: list[str]) -> None:
    assert naturals_in(parse_cards(cards)) == expected


def test_not_thirteen_cards_has_none() -> None:
    assert naturals_in(parse_cards("2c 3d 4h")) == []


def test_best_natural_uses_the_table_of_values() -> None:
    cards = parse_cards("Ac 2d 3h 4s 5c 6d 7h 8s 9c Td Jh Qs Kc")
    assert best_natural(cards, Rules(variant="chinese")) == ("dragon", 13)
    custom = Rules(variant="chinese", naturals=(("three straights", 20), ("dragon", 13)))
    assert best_natural(cards, custom) == ("three straights", 20)
    assert best_natural(parse_cards("2c 5d 9c 2d 4d 6d 8h Td 3h 7h 9h Jh Kh"),
                        Rules(variant="chinese")) is None


def test_compare_naturals() -> None:
    r = Rules(variant="chinese")
    assert compare_naturals("dragon", None, r) == 13
    assert compare_naturals(None, "six pairs", r) == -3
    assert compare_naturals("dragon", "six pairs", r) == 13
    assert compare_naturals("six pairs", "dragon", r) == -13
    assert compare_naturals("six pairs", "three flushes", r) == 0
    assert compare_naturals(None, None, r) == 0
