"""OFC Table's game engine: pure Python, deterministic given a seed.

Public API: ``Card``, ``parse_cards``, ``evaluate``, ``Rules``, ``Board``, ``settle`` and the hand
state machine ``Hand``.  Imports nothing from discord, PIL, aiosqlite or asyncio.
"""

from .actions import Declare, IllegalAction, Place, Surrender
from .board import ROWS, Board, row_index
from .cards import DECK, Card, CardError, cards_pretty, cards_text, parse_card, parse_cards
from .evaluator import HandValue, describe, describe_value, evaluate
from .hand import Hand, Requirement, next_button
from .naturals import best_natural, naturals_in
from .rules import Rules, RulesError
from .scoring import PairResult, Settlement, settle, units_moved

__all__ = [
    "DECK", "ROWS", "Board", "Card", "CardError", "Declare", "Hand", "HandValue", "IllegalAction",
    "Place", "Requirement", "Surrender", "next_button", "PairResult", "Rules",
    "RulesError", "Settlement", "best_natural", "cards_pretty", "cards_text", "describe",
    "describe_value", "evaluate", "naturals_in", "parse_card", "parse_cards", "row_index",
    "settle", "units_moved",
]
