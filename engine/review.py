"""A finished hand's review: every decision of one seat measured against the AI's own choice
(street by street) or the solver's (whole sets), from what that seat could see then.

``decisions(data, seat)`` plays the hand's log again (``Hand.replay`` of its header, then its
actions one by one) and keeps, before each action of ``seat``, what that seat could see:
``Hand.redacted_for(seat)``, so a review never uses a card the player could not know then (the
others' later cards, their discards, a hidden set, the deck).  ``judge`` measures one decision;
the bot sends each to its AI worker on its own, so other tables' bots are never held up by a
whole hand's review.  ``review`` judges every decision (the terminal game, tests).

How a decision is measured
--------------------------
* A street decision (ofc, pineapple): the AI's search at the strong level's width (the best
  ``REVIEW_CANDIDATES`` moves by the board value, and the player's move) on
  ``REVIEW_SIMULATIONS`` futures, with no time limit, then its last ``FINALISTS`` moves and
  the player's played again on futures of their own, none dropped (the halving of the
  search's field judges on few futures and can drop the best): the best of those is the AI's
  move.  The player's move and the AI's are then played out on ``COMPARE_SIMULATIONS`` new
  futures (``engine.ai.compare_moves``): the values are the points each move was expected to
  bring from that moment (rows against what the seat could see of the others, royalties, a
  fantasyland at what it is expected to bring; a foul at what it loses, not with the AI's
  risk aversion, though the rollouts play as the AI's), and the difference has a standard
  error.  A move that finishes the board is scored exactly.  The futures are seeded from the
  redacted hand and the decision's number: a review gives the same answer every time,
  whatever the machine's load.
* A fantasyland set: the exact solver (``solve_fantasyland``); a setting is worth its royalties
  plus what staying in fantasyland is worth (the table's ``stay_value``, else
  ``solver.DEFAULT_STAY_VALUE``) from each opponent; a fouled one loses every row and the
  scoop to each opponent.
* A chinese set: ``solver.chinese_setting_value`` (the points the setting is expected to win
  from a typical opponent) against the best setting, or the natural worth declaring
  (``natural_worth_declaring``); a declared natural is worth its value; from each opponent.
* A surrender is told, not valued.

A difference within ``max(NOISE, 2 standard errors)`` counts as "about as good": it is not
counted as a loss (the summary's total is of the clear losses only, and of the player's own
decisions: a move the clock played is shown, not counted).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .actions import Declare, Place, Surrender, action_from_json
from .ai import analyse, compare_moves, same_move
from .autoplay import Move, street_moves
from .board import Board
from .cards import Card, cards_text
from .hand import Hand
from .notation import format_move, plural, signed_points
from .scoring import shoots_moon
from .solver import (
    best_chinese_setting,
    chinese_setting_value,
    moon_worth,
    natural_worth_declaring,
    solve_fantasyland,
    stay_bonus,
)

__all__ = [
    "COMPARE_SIMULATIONS",
    "REVIEW_CANDIDATES",
    "REVIEW_SIMULATIONS",
    "Decision",
    "Review",
    "ReviewText",
    "Verdict",
    "decisions",
    "describe_review",
    "judge",
    "review",
]

REVIEW_CANDIDATES = 24
"""Moves (best by the board value) the search that picks the AI's move examines: the strong
level's."""
REVIEW_SIMULATIONS = 1024
"""Futures that search plays at most (it drops clearly worse moves on the way)."""
COMPARE_SIMULATIONS = 2000
"""Futures the player's move and the AI's are both played out on."""
FINALISTS = 4
"""The search's best moves played again (with the player's) on ``COMPARE_SIMULATIONS / 2``
futures of their own, none dropped, to pick the AI's move."""
NOISE = 0.1
"""Points below which a difference counts as "about as good", whatever its standard error."""


@dataclass(frozen=True)
class Decision:
    """One decision of ``seat`` in a finished hand, as the seat saw it."""

    number: int
    """From 1, in the order the seat made them."""
    street: int
    """The hand's round when it was made (a fantasyland or chinese set: the round it came in)."""
    kind: str
    """``street``, ``set`` (a fantasyland or chinese set), ``declare`` or ``surrender``."""
    cards: tuple[Card, ...]
    """What the seat held to decide with (none for a surrender between its turns)."""
    move: Move | None
    """The placements and discards played (a street or a set)."""
    natural: str | None
    auto: bool
    """The clock played it (a timeout)."""
    before: Hand
    """What the seat could see just before it (``Hand.redacted_for``)."""
    seat: int


@dataclass(frozen=True)
class Verdict:
    """What a decision was worth against the AI's (or the solver's) choice."""

    number: int
    street: int
    kind: str
    cards: tuple[Card, ...]
    played: str
    """The decision in the ``/ofc place`` syntax (or "declare six pairs", "surrender")."""
    best: str | None
    """The AI's or solver's choice, the same way (None: not valued, a surrender)."""
    same: bool
    """The player chose what the AI chose (the same cards on the same rows and discards)."""
    played_value: float | None
    best_value: float | None
    error: float
    """Standard error of the difference (0: exact)."""
    auto: bool
    note: str = ""
    """What the values mean for this kind of decision, or why there is none."""
    played_move: Move | None = None
    best_move: Move | None = None
    only_move: bool = False
    fantasyland: int = 0
    """The cards of the seat's fantasyland hand (0: a regular hand)."""

    @property
    def difference(self) -> float:
        """How much more the AI's choice was worth (may be below 0: noise, or a set whose
        value the solver does not see, e.g. rows against the others)."""
        if self.played_value is None or self.best_value is None or self.same:
            return 0.0
        return self.best_value - self.played_value

    @property
    def loss(self) -> float:
        """The difference when it is clearly more than noise, else 0."""
        d = self.difference
        return d if d > max(NOISE, 2.0 * self.error) else 0.0

    @property
    def better(self) -> bool:
        """The player's move was clearly worth more than the AI's (beyond the noise)."""
        return -self.difference > max(NOISE, 2.0 * self.error)


@dataclass(frozen=True)
class Review:
    seat: int
    variant: str
    verdicts: tuple[Verdict, ...]

    @property
    def total_loss(self) -> float:
        """The clear losses of the player's own decisions (not of moves the clock played)."""
        return sum(v.loss for v in self.verdicts if not v.auto)


def decisions(data: Mapping[str, Any], seat: int) -> list[Decision]:
    """Every decision of ``seat`` in the hand saved as ``data`` (``Hand.to_json``: its header
    and log), each with what the seat could see just before it."""
    hand = Hand.replay({**data, "log": []})
    if not 0 <= seat < hand.n:
        raise ValueError(f"The hand has no seat {seat}")
    out: list[Decision] = []
    for item in data["log"]:
        action = action_from_json(item)
        if action.seat == seat and not hand.is_over:
            req = hand.requirement(seat)
            before = hand.redacted_for(seat)
            cards = req.cards if req is not None else ()
            number = len(out) + 1
            if isinstance(action, Surrender):
                out.append(Decision(number, hand.street, "surrender", cards, None, None, False,
                                    before, seat))
            elif isinstance(action, Declare):
                out.append(Decision(number, hand.street, "declare", cards, None, action.natural,
                                    action.auto, before, seat))
            elif isinstance(action, Place) and req is not None:
                kind = "set" if req.is_set else "street"
                out.append(Decision(number, hand.street, kind, cards,
                                    (action.placements, action.discards), None, action.auto,
                                    before, seat))
        hand.apply(action)
    return out


def _rng(decision: Decision, what: str) -> random.Random:
    # (the redacted hand's seed is a hash of the deck's: it gives no card away)
    return random.Random(f"review/{decision.before.seed}/{decision.number}/{what}")


def judge(decision: Decision, search: int = REVIEW_SIMULATIONS,
          compare: int = COMPARE_SIMULATIONS) -> Verdict:
    """One decision against the AI's or the solver's choice (see the module's doc);
    ``search`` and ``compare``: the futures of a street decision's search and comparison."""
    if decision.kind == "surrender":
        return Verdict(decision.number, decision.street, decision.kind, decision.cards,
                       "surrender", None, False, None, None, 0.0, False,
                       "a surrender is scored as a foul" if decision.before.rules.variant
                       != "chinese" else "a surrender pays the table's surrender value",
                       fantasyland=decision.before.fantasyland[decision.seat])
    if decision.kind == "street":
        return _judge_street(decision, search, compare)
    if decision.before.rules.variant == "chinese":
        return _judge_chinese(decision)
    return _judge_fantasyland(decision)


def _judge_street(d: Decision, search: int, compare: int) -> Verdict:
    hand, seat = d.before, d.seat
    req = hand.requirement(seat)
    assert req is not None and d.move is not None
    played = d.move
    text = format_move(*played)
    moves = street_moves(req)
    if len(moves) == 1:
        return Verdict(d.number, d.street, d.kind, d.cards, text, text, True, None, None, 0.0,
                       d.auto, "the only legal move", played, played, only_move=True)
    found = analyse(hand, seat, "strong", _rng(d, "search"), simulations=search,
                    candidates=REVIEW_CANDIDATES, include=[played], points=True)
    # the search's last few (and the player's move) again on futures of their own, none
    # dropped: the halving of its field judges on few futures and can drop the best
    finalists = [c.move for c in found[:FINALISTS]]
    if not any(same_move(m, played) for m in finalists):
        finalists.append(played)
    if len(finalists) > 1 and not found[0].exact:
        again, _ = compare_moves(hand, seat, finalists, compare // 2, _rng(d, "final"))
        best = max(again, key=lambda c: c.value).move
    else:
        best = found[0].move
    same = same_move(best, played)
    compared, errors = compare_moves(hand, seat, [best] if same else [best, played],
                                     compare, _rng(d, "compare"))
    mine = compared[0 if same else 1]
    note = ""
    if compared[0].exact:
        note = "finishes the board: scored exactly"
        if mine.foul_rate and not compared[0].foul_rate:
            note = "finishes the board: yours fouls, the AI's does not"
    return Verdict(d.number, d.street, d.kind, d.cards, text, format_move(*best), same,
                   mine.value, compared[0].value, errors[-1], d.auto, note, played, best)


def _opponents(hand: Hand) -> int:
    """The seat's opponents: a set's royalties (or a foul's loss) count against each."""
    return max(1, hand.n - 1)


def _fantasyland_worth(board: Board, hand: Hand) -> tuple[float, str]:
    rules = hand.rules
    if board.is_foul(rules):
        return -float(rules.foul_loss), "fouled"
    royalties = board.royalties(rules)
    stay = board.fantasyland_stay_cards(rules)
    if rules.shoot_the_moon and shoots_moon(board):
        worth = moon_worth(rules)  # (the solver's scale: its rows and scoop lost)
        return float(royalties) + worth, (f"shoots the moon (+{rules.shoot_the_moon_points}, "
                                          f"counted {worth:+g} for the rows it loses)")
    words = f"royalties {royalties}"
    if stay:
        bonus = stay_bonus(stay, rules)
        words += f", stays in fantasyland (+{bonus:g})"
        return royalties + bonus, words
    return float(royalties), words


def _judge_fantasyland(d: Decision) -> Verdict:
    hand = d.before
    assert d.move is not None
    played = d.move
    solution = solve_fantasyland(list(d.cards), hand.rules)
    best: Move = (tuple((c, r) for r, row in enumerate(solution.board.rows) for c in row),
                  tuple(solution.discards))
    mine, mine_words = _fantasyland_worth(Board().place(played[0]), hand)
    _, best_words = _fantasyland_worth(solution.board, hand)
    same = same_move(best, played)
    k = _opponents(hand)
    each = f" (each from {k} opponents)" if k > 1 else ""
    return Verdict(d.number, d.street, d.kind, d.cards, format_move(*played),
                   format_move(*best), same, mine * k, float(solution.score) * k, 0.0, d.auto,
                   f"yours: {mine_words}; the solver's: {best_words}{each}", played, best,
                   fantasyland=len(d.cards))


def _judge_chinese(d: Decision) -> Verdict:
    hand = d.before
    rules = hand.rules
    cards = list(d.cards)
    natural = natural_worth_declaring(cards, rules)
    setting = best_chinese_setting(cards, rules)
    setting_value = chinese_setting_value(setting, rules)
    best_move: Move | None = None
    if natural is not None:
        best_text, best_value = f"declare {natural[0]}", float(natural[1])
    else:
        best_move = (tuple((c, r) for r, row in enumerate(setting.rows) for c in row), ())
        best_text, best_value = format_move(*best_move), setting_value
    k = _opponents(hand)
    note = ("a setting is worth the points it is expected to win from a typical opponent, a "
            "natural its value" + (f", from each of {k} opponents" if k > 1 else ""))
    if d.kind == "declare":
        assert d.natural is not None
        value = float(rules.natural_values.get(d.natural, 0))
        same = natural is not None and natural[0] == d.natural
        return Verdict(d.number, d.street, d.kind, d.cards, f"declare {d.natural}", best_text,
                       same, value * k, best_value * k, 0.0, d.auto, note)
    assert d.move is not None
    board = Board().place(d.move[0])
    value = chinese_setting_value(board, rules)
    same = best_move is not None and same_move(best_move, d.move)
    if board.is_foul(rules):
        note = "your setting fouls: it loses every row; " + note
    return Verdict(d.number, d.street, d.kind, d.cards, format_move(*d.move), best_text, same,
                   value * k, best_value * k, 0.0, d.auto, note, d.move, best_move)


def review(data: Mapping[str, Any], seat: int, search: int = REVIEW_SIMULATIONS,
           compare: int = COMPARE_SIMULATIONS) -> Review:
    """Every decision of ``seat`` in the finished hand ``data`` judged, in one go."""
    hand = Hand.replay(data)
    if not hand.is_over:
        raise ValueError("The hand is not over: its cards are still hidden")
    return Review(seat, hand.rules.variant,
                  tuple(judge(d, search, compare) for d in decisions(data, seat)))


def _label(v: Verdict, variant: str) -> str:
    if variant == "chinese":
        return "Set"
    if v.fantasyland:
        return f"Fantasyland ({v.fantasyland} cards)"
    return f"Round {v.street}"



@dataclass(frozen=True)
class ReviewText:
    """A review in words (``describe_review``)."""

    summary: str
    decisions: tuple[str, ...]
    """Each decision in lines meant for a monospace font (values in one column)."""
    notes: tuple[str, ...]
    """What the values mean."""


def describe_review(review: Review, simulations: int = COMPARE_SIMULATIONS) -> ReviewText:
    """The review in plain text: a summary, each decision, what the values mean."""
    vs = review.verdicts
    if not vs:
        return ReviewText("You made no decision in this hand.", (), ())
    valued = [v for v in vs if v.played_value is not None and not v.only_move]
    mine = [v for v in valued if not v.auto]  # (a move the clock played is not counted)
    clock = len(valued) - len(mine)
    differ = [v for v in mine if not v.same]
    lost = sorted((v for v in differ if v.loss), key=lambda v: -v.loss)
    better = sorted((v for v in differ if v.better), key=lambda v: v.difference)
    even = len(differ) - len(lost) - len(better)
    variant = review.variant

    def listed(found: list[Verdict], amount: Any) -> str:
        shown = ", ".join(f"{_label(v, variant).lower()}: {amount(v):.1f}" for v in found[:3])
        return shown + (", ..." if len(found) > 3 else "")

    if not mine:
        head = ("The clock played every decision you had to make." if clock else
                "Nothing to judge: " + ("you surrendered." if vs[-1].kind == "surrender" else
                                        "every move you made was the only legal one."))
    elif not differ:
        head = (f"All {plural(len(mine), 'decision')} you made match the AI's choice."
                if len(mine) > 1 else "Your decision matches the AI's choice.")
    else:
        one = len(mine) == 1
        if one:
            head = "Your decision differs from the AI's: "
        elif len(differ) == len(mine):
            head = f"All {len(mine)} of your decisions differ from the AI's: "
        else:
            head = f"{len(differ)} of your {len(mine)} decisions differ from the AI's: "
        parts = []
        if lost:
            who = "it" if one else str(len(lost))
            parts.append(f"{who} cost{'s' if one or len(lost) == 1 else ''} about "
                         f"{review.total_loss:.1f} points ({listed(lost, lambda v: v.loss)})")
        if even:
            parts.append(f"{'it is' if one else even} about as good")
        if better:
            who = "it is" if one else f"{len(better)} {'is' if len(better) == 1 else 'are'}"
            parts.append(f"{who} better than the AI's "
                         f"({listed(better, lambda v: -v.difference)})")
        head += "; ".join(parts) + "."
    if clock and mine:
        head += f" The clock played {plural(clock, 'other')} (not counted)."
    lines: list[str] = []
    for v in vs:
        label = _label(v, review.variant)
        dealt = f" · {cards_text(v.cards)}" if v.cards and v.kind != "surrender" else ""
        auto = " · the clock played it" if v.auto else ""
        lines.append(f"{label}{dealt}{auto}")
        if v.played_value is None or v.best is None:
            lines.append(f"  you  {v.played}" + (f" ({v.note})" if v.note else ""))
            continue
        if v.only_move:
            lines.append(f"  you  {v.played} (the only legal move)")
            continue
        lines.append(f"  you  {signed_points(v.played_value):>6}  {v.played}")
        if v.same:
            lines.append("  AI   the same ✓")
        else:
            assert v.best_value is not None
            d = v.difference
            if v.loss:
                verdict = f"{d:.1f} better"
            elif d < -max(NOISE, 2.0 * v.error):
                verdict = f"yours {-d:.1f} better"
            else:
                verdict = "about as good"
            if v.error:
                verdict += f", ± {v.error:.1f}"
            lines.append(f"  AI   {signed_points(v.best_value):>6}  {v.best}  ({verdict})")
        if v.note and (v.kind != "street" or v.note.startswith("finishes")):
            lines.append(f"       {v.note}")
    notes = []
    if any(v.kind == "street" and not v.only_move for v in vs):
        notes.append(
            "Values: the points a move was expected to bring from then on (rows against what "
            "you could see of the others, royalties, a fantasyland at what it is expected to "
            f"bring), over {simulations:,} simulated finishes (± one standard error); a move "
            "that finishes the board is scored exactly.")
    if any(v.kind in ("set", "declare") for v in vs):
        notes.append("A fantasyland set is judged by the exact solver (royalties and staying)."
                     if review.variant != "chinese" else
                     "A set is judged by the solver against a typical opponent.")
    return ReviewText(head, tuple(lines), tuple(notes))
