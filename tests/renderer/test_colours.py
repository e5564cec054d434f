"""The decks' colours: which suit is which, readable on the white face, and told apart with every
common colour-vision deficiency."""

from __future__ import annotations

from itertools import combinations

import pytest

from renderer.colours import (
    CARD_FACE,
    CVD_KINDS,
    SUIT_COLOURS_FOUR,
    SUIT_COLOURS_TWO,
    contrast,
    delta_e,
)


def test_four_colour_deck_is_black_red_blue_green() -> None:
    s, h, d, c = (SUIT_COLOURS_FOUR[k] for k in "shdc")
    assert max(s) < 60
    assert h[0] > 2 * max(h[1], h[2])
    assert d[2] > 2 * max(d[0], d[1])
    assert c[1] > max(c[0], c[2])


def test_two_colour_deck() -> None:
    t = SUIT_COLOURS_TWO
    assert t["s"] == t["c"] and t["h"] == t["d"] and t["s"] != t["h"]


@pytest.mark.parametrize("deck", [SUIT_COLOURS_FOUR, SUIT_COLOURS_TWO])
def test_contrast_on_the_face(deck: dict[str, tuple[int, int, int]]) -> None:
    for colour in deck.values():
        assert contrast(colour, CARD_FACE) >= 4.5


@pytest.mark.parametrize("kind", CVD_KINDS)
def test_suits_stay_apart_with_colour_blindness(kind: str) -> None:
    for a, b in combinations("shdc", 2):
        d = delta_e(SUIT_COLOURS_FOUR[a], SUIT_COLOURS_FOUR[b], kind)
        assert d >= 25, (kind, a, b, d)
        # and each stays readable on the face
        assert contrast(SUIT_COLOURS_FOUR[a], CARD_FACE, kind) >= 4.0
