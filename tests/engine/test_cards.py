import copy
import pickle

import pytest

from engine import DECK, Card, CardError, parse_card, parse_cards
from engine.cards import cards_pretty, cards_text, split_tokens


@pytest.mark.parametrize(
    "text", ["Ah", "ah", "AH", "aH", "A♥", "a♡", "A♥\ufe0f", "A\u2665\ufe0e", "A\u2764\ufe0f"]
)
def test_ace_of_hearts_forms(text: str) -> None:
    assert parse_card(text) == Card("Ah")
    assert str(parse_card(text)) == "Ah"


@pytest.mark.parametrize("text", ["Th", "th", "10h", "10H", "T♥"])
def test_ten_forms(text: str) -> None:
    assert parse_card(text) is Card("Th")


# the Kelvin sign and the long s fold to k and s without IGNORECASE's help: refused, named
@pytest.mark.parametrize(
    "bad", ["1h", "Ax", "11c", "Ahh", "h", "A", "", "Zz", "0s", "\u212ah", "A\u017f"]
)
def test_bad_tokens_are_named(bad: str) -> None:
    with pytest.raises(CardError) as err:
        parse_cards(f"Kd {bad} 2c") if bad else parse_card(bad)
    if bad:
        assert bad in str(err.value)
        assert err.value.token == bad


def test_parse_many_forms_and_separators() -> None:
    cards = parse_cards("Ah, kd 10c  2♠\tAsKs")
    assert [str(c) for c in cards] == ["Ah", "Kd", "Tc", "2s", "As", "Ks"]


def test_duplicate_rejected() -> None:
    with pytest.raises(CardError, match="Ah is listed twice"):
        parse_cards("Ah Kd ah")


def test_card_properties() -> None:
    c = Card("Qd")
    assert (c.rank, c.suit, c.rank_char, c.pretty) == (12, "d", "Q", "Q♦")
    assert Card(c.index) is c
    assert repr(c) == "Card('Qd')"
    assert f"{c:>3}" == " Qd"


def test_deck_is_52_distinct_and_ordered_by_rank() -> None:
    assert len(set(DECK)) == 52
    assert sorted(DECK) == list(DECK)
    assert Card("2c") < Card("2s") < Card("3c") < Card("As")


def test_pickle_and_copy_keep_identity() -> None:
    c = Card("7s")
    assert pickle.loads(pickle.dumps(c)) is c
    assert copy.deepcopy(c) is c


def test_text_helpers() -> None:
    cards = parse_cards("Ah Td")
    assert cards_text(cards) == "Ah Td"
    assert cards_pretty(cards) == "A♥ T♦"


def test_card_constructor_errors() -> None:
    with pytest.raises(CardError):
        Card(52)
    with pytest.raises(CardError):
        Card("Xx")


def test_emoji_suits_from_a_phone_keyboard() -> None:
    # emoji keyboards add U+FE0F after the suit symbol
    assert parse_cards("K\u2660\ufe0f 10\u2666\ufe0f, Q\u2663\ufe0f") == parse_cards("Ks Td Qc")


@pytest.mark.parametrize("junk", ["\ufeff", "\u200b", "\u200c", "\u200d", "\u2060", "\u00ad"])
def test_invisible_characters_copied_with_the_text_are_ignored(junk: str) -> None:
    """A byte-order mark (a file saved by Notepad), a zero-width space (a web page, a chat): the
    player sees "Kc", so "Kc" must not be "not a card"; between cards they separate them."""
    assert parse_cards(f"{junk}Kc 2h{junk}9c{junk}") == parse_cards("Kc 2h 9c")
    assert parse_card(f"{junk}Ah{junk}") == parse_card("Ah")
    with pytest.raises(CardError, match="'Zz' is not a card"):
        parse_cards(f"{junk}Zz")


@pytest.mark.parametrize("junk", ["\ufeff", "\u200b", "\u2060", "\u00ad"])
def test_an_invisible_character_inside_a_card_is_dropped(junk: str) -> None:
    """On the screen "A\u2060h" reads "Ah": one card, not "A" and "h"; cards written together
    stay cards, and a card glued to a row word is split from it."""
    assert parse_cards(f"A{junk}h 1{junk}0d") == parse_cards("Ah Td")
    assert parse_cards(f"Ah{junk}Kd") == parse_cards("Ah Kd")
    assert split_tokens(f"Ah{junk}top") == ["Ah", "top"]
    assert split_tokens(f"K{junk}{junk}s, 2{junk}c") == ["Ks", "2c"]
    assert split_tokens(f"to{junk}p") == ["top"]
    with pytest.raises(CardError, match="'Zz' is not a card"):
        parse_cards(f"Z{junk}z")
