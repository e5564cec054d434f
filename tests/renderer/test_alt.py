"""Alt text (``renderer.alt_text``): what a screen reader says of a picture sent beside its
text twin: which picture it is and its twin's heading, never a card, within Discord's 1,024
characters."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from engine import DECK
from renderer import (
    ALT_LIMIT,
    HandView,
    alt_text,
    describe_hand,
    describe_leaderboard,
    describe_showdown,
    describe_stats,
    describe_table,
)
from renderer import gallery as g

VIEWS: dict[str, tuple[Callable[[], Any], Callable[[Any], str], str]] = {
    "table_ofc_4": (g.table_ofc_4, describe_table, "the table"),
    "table_pineapple_3": (g.table_pineapple_3, describe_table, "the table"),
    "table_chinese_4": (g.table_chinese_4, describe_table, "the table"),
    "table_ofc_2_practice": (g.table_ofc_2_practice, describe_table, "the table"),
    "hand_pineapple": (g.hand_pineapple, describe_hand, "your hand"),
    "hand_ofc_first": (g.hand_ofc_first, describe_hand, "your hand"),
    "hand_fantasyland_17": (g.hand_fantasyland_17, describe_hand, "your hand"),
    "hand_chinese": (g.hand_chinese, describe_hand, "your hand"),
    "showdown_pineapple_3": (g.showdown_pineapple_3, describe_showdown, "the showdown"),
    "showdown_ofc_4": (g.showdown_ofc_4, describe_showdown, "the showdown"),
    "showdown_chinese_4": (g.showdown_chinese_4, describe_showdown, "the showdown"),
    "leaderboard": (g.leaderboard, describe_leaderboard, "the leaderboard"),
    "stats": (g.stats, describe_stats, "the stats"),
}
CARD = re.compile(r"\b(?:" + "|".join(re.escape(str(c)) for c in DECK) + r")\b")


@pytest.mark.parametrize("name", VIEWS)
def test_alt_text_names_the_picture_and_its_twins_heading_and_no_card(name: str) -> None:
    make, describe, what = VIEWS[name]
    view = make()
    alt = alt_text(view)
    # (a hand's time left is not said: the alt text never changes, the clock does)
    shown = replace(view, time_left=None) if isinstance(view, HandView) else view
    heading = describe(shown).split("\n", 1)[0].rstrip(".")
    assert alt.startswith(f"Picture of {what}: {heading}. The message's text has ")
    assert alt.endswith(".") and "\n" not in alt and len(alt) <= ALT_LIMIT
    assert not re.search(r"\d:\d\d left", alt)
    assert not CARD.search(alt) and not re.search("[♣♦♥♠]", alt)  # (the twin beside it names them; a table's hidden ones never)


def test_the_stats_alt_text_mentions_the_chart_only_when_one_is_drawn() -> None:
    assert "balance chart" in alt_text(g.stats())
    assert "balance chart" not in alt_text(replace(g.stats(), balances=(1000,)))


def test_an_endless_name_is_cut_to_discords_limit() -> None:
    view = replace(g.stats(), name="Ω" * 5000)
    alt = alt_text(view)
    assert len(alt) == ALT_LIMIT and "…. The message's text has every figure" in alt
    long_table = replace(g.table_ofc_4(), title="T" * 3000)
    assert len(alt_text(long_table)) == ALT_LIMIT


def test_a_twin_continued_in_more_messages_is_said_so() -> None:
    """A showdown of four long names goes on in a second message: its alt text says the
    text is there too (it said "the message's text has every ... result")."""
    alt = alt_text(g.showdown_ofc_4(), continued=True)
    assert alt.endswith(". The text of this message and those after it has every board, "
                        "royalty and result.")
