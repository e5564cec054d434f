"""The safe default play used on timeouts (and the move generator of the AI).

Street decisions use the AI (``engine.ai``) at its easy settings with a fixed number of
simulations, seeded from the hand's seed, the length of its log and the seat, so a timeout's move
is reproducible.  A move that completes the board is chosen exactly, a clean board before any
fouled one, so the last decision never fouls when a clean board is possible; a move that leaves
one or two free slots is checked exactly too (``EXACT_SLOTS``): it leaves a clean finish
whenever another move does.  Whole sets
(fantasyland, chinese) use the exact solver (``engine.solver``), else ``greedy_set``.  Only what
the seat may see is used.  Should the AI ever fail, the older scorer here (a few random
completions of the board per move, exact on the last street) takes over.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations, permutations, product
from typing import TYPE_CHECKING

from .board import ROW_SIZES, Board
from .cards import DECK, Card
from .evaluator import evaluate

if TYPE_CHECKING:
    from .hand import Hand, Requirement
    from .rules import Rules

Move = tuple[tuple[tuple[Card, int], ...], tuple[Card, ...]]
FOUL_PENALTY = 6.0


@lru_cache(maxsize=256)
def _row_patterns(kept: int, free: tuple[int, int, int]) -> tuple[tuple[int, ...], ...]:
    """Every way to send ``kept`` cards to rows with ``free`` slots (in ``product`` order)."""
    return tuple(
        rows for rows in product((0, 1, 2), repeat=kept)
        if all(rows.count(r) <= free[r] for r in range(3))
    )


def street_moves(req: Requirement) -> list[Move]:
    """All legal (placements, discards) for a street decision."""
    cards = req.cards
    moves: list[Move] = []
    free = (req.free[0], req.free[1], req.free[2])
    patterns = _row_patterns(len(cards) - req.discard, free)
    for dropped in combinations(cards, req.discard):
        keep = [c for c in cards if c not in dropped]
        for rows in patterns:
            placed = tuple(zip(keep, rows, strict=True))
            moves.append((placed, tuple(dropped)))
    return moves


def board_score(board: Board, rules: Rules | None = None) -> float:
    """Score of a complete board for the seat: royalties, or a penalty for a foul (the rules'
    foul test, strict top included)."""
    if board.is_foul(rules):
        return -FOUL_PENALTY
    return float(board.royalties(rules))


def _fill_randomly(board: Board, unseen: Sequence[Card], rng: random.Random) -> Board:
    rows = [list(r) for r in board.rows]
    need = sum(ROW_SIZES[i] - len(rows[i]) for i in range(3))
    fill = rng.sample(list(unseen), need)
    k = 0
    for i in range(3):
        while len(rows[i]) < ROW_SIZES[i]:
            rows[i].append(fill[k])
            k += 1
    return Board(tuple(rows[0]), tuple(rows[1]), tuple(rows[2]))


def _sorted_fill(board: Board, unseen: Sequence[Card], rng: random.Random) -> Board:
    """Random cards, arranged so the strongest go to the bottom (a less pessimistic rollout)."""
    rows = [list(r) for r in board.rows]
    need = sum(ROW_SIZES[i] - len(rows[i]) for i in range(3))
    fill = sorted(rng.sample(list(unseen), need), reverse=True)
    k = 0
    for i in (2, 1, 0):
        while len(rows[i]) < ROW_SIZES[i]:
            rows[i].append(fill[k])
            k += 1
    return Board(tuple(rows[0]), tuple(rows[1]), tuple(rows[2]))


def score_move(
    board: Board, move: Move, unseen: Sequence[Card], rng: random.Random, samples: int,
    rules: Rules | None = None,
) -> float:
    after = board.place(move[0])
    if after.is_complete:
        return board_score(after, rules) * 1000.0  # exact: dominates estimates
    total = 0.0
    for i in range(samples):
        filler = _fill_randomly if i % 2 else _sorted_fill
        total += board_score(filler(after, unseen, rng), rules)
    return total / samples


AUTOPLAY_SIMULATIONS = 60
"""Sampled futures per timeout decision (about the AI's easy level, but reproducible)."""


def choose_placement(hand: Hand, seat: int, req: Requirement, plain: bool = False) -> Move:
    """The safe default move for ``seat`` (a timeout).  ``plain``: without the AI's search or
    the solver (the bot's fallback when the AI does not answer): the greedy set, or every
    street move scored by a few random completions."""
    if req.is_set:
        if plain:
            return _greedy_move(req.cards)
        return choose_set(list(req.cards), hand, seat)
    if plain:
        return _kept_clean(hand, seat, req, _scored_placement(hand, seat, req))
    rng = random.Random(f"{hand.seed}/{len(hand.log)}/{seat}")
    try:
        from .ai import choose_move

        move = choose_move(hand, seat, "easy", rng=rng, simulations=AUTOPLAY_SIMULATIONS)
    except Exception:  # pragma: no cover - a timeout must always produce a move
        move = _scored_placement(hand, seat, req)
    return _kept_clean(hand, seat, req, move)


EXACT_SLOTS = 2
"""A move that leaves this many free slots or fewer is checked exactly: it must leave some clean
finish when another move does (sampled futures can all foul after two moves alike, and the
tie-break then chose the one after which every finish fouls)."""


def clean_finish_exists(board: Board, unseen: Sequence[Card], rules: Rules | None) -> bool:
    """Some of the ``unseen`` cards fill ``board``'s free slots without a foul."""
    slots = [r for r in range(3) for _ in range(ROW_SIZES[r] - len(board.rows[r]))]
    if not slots:
        return not board.is_foul(rules)
    return any(not board.place(list(zip(combo, slots, strict=True))).is_foul(rules)
               for combo in permutations(unseen, len(slots)))


def _kept_clean(hand: Hand, seat: int, req: Requirement, move: Move) -> Move:
    """``move``, unless it leaves at most ``EXACT_SLOTS`` free slots and no clean finish while
    another move leaves one: then the best of those by sampled finishes (RULES.md: the clock's
    play never fouls when a legal completion exists)."""
    board = hand.boards[seat]
    after = board.place(move[0])
    if not 0 < 13 - len(after) <= EXACT_SLOTS:
        return move
    seen = hand.cards_seen_by(seat)
    unseen = [c for c in DECK if c not in seen]
    if clean_finish_exists(after, unseen, hand.rules):
        return move
    alive = [m for m in street_moves(req)
             if clean_finish_exists(board.place(m[0]), unseen, hand.rules)]
    if not alive:
        return move
    rng = random.Random(f"{hand.seed}/{len(hand.log)}/{seat}/clean")
    return max(alive, key=lambda m: score_move(board, m, unseen, rng, 24, hand.rules))


def _scored_placement(hand: Hand, seat: int, req: Requirement) -> Move:
    """The fallback: every move scored by a few random completions (exact on the last street)."""
    rng = random.Random(f"{hand.seed}/{len(hand.log)}/{seat}")
    seen = hand.cards_seen_by(seat)
    unseen = [c for c in DECK if c not in seen]
    moves = street_moves(req)
    samples = 8 if len(moves) > 60 else 24
    best: Move | None = None
    best_score = float("-inf")
    for move in moves:
        s = score_move(hand.boards[seat], move, unseen, rng, samples, hand.rules)
        if s > best_score:
            best, best_score = move, s
    assert best is not None
    return best


def choose_set(cards: list[Card], hand: Hand, seat: int) -> Move:
    """A whole 13-card setting (plus discards) that never fouls when a clean one exists: the
    solver, else the greedy set (``engine.ai.set_move``)."""
    try:
        from .ai import set_move

        return set_move(cards, hand.rules)[0]
    except Exception:  # pragma: no cover - a timeout must always produce a move
        return _greedy_move(cards)


def _greedy_move(cards: Sequence[Card]) -> Move:
    board, discards = greedy_set(cards)
    return tuple((c, r) for r, row in enumerate(board.rows) for c in row), discards


def greedy_set(cards: Sequence[Card]) -> tuple[Board, tuple[Card, ...]]:
    """Best five for the bottom, best five of the rest for the middle, best three on top."""
    rest = list(cards)
    bottom = max(combinations(rest, 5), key=evaluate)
    rest = [c for c in rest if c not in bottom]
    middle = max(combinations(rest, 5), key=evaluate)
    rest = [c for c in rest if c not in middle]
    top = max(combinations(rest, 3), key=evaluate)
    rest = [c for c in rest if c not in top]
    return Board(tuple(top), tuple(middle), tuple(bottom)), tuple(rest)


def foul_warning(
    board: Board, req: Requirement, placed: Sequence[tuple[Card, int]], rules: Rules
) -> str | None:
    """Why the board that ``placed`` completes fouls, in words, when another legal move would
    not foul (a newcomer's slip worth a warning); None when it does not foul, does not complete
    the board, or every move fouls."""
    done = board.place(placed)
    if not done.is_complete or not done.is_foul(rules):
        return None
    if req.is_set:  # the best five, the best five of the rest, the best three: never fouls
        clean, _ = greedy_set(req.cards)
        if clean.is_foul(rules):
            return None
    elif all(board.place(move[0]).is_foul(rules) for move in street_moves(req)):
        return None
    return done.foul_reason(rules)


FOUL_ANYWAY = ("foul", "anyway")
"""A move ending with one of these words is played even when it fouls (``foul_warning``)."""


def foul_confirmed(text: str) -> tuple[str, bool]:
    """``text`` without a last word that confirms a foul, and whether it had one."""
    words = text.split()
    if words and words[-1].lower().strip(".!") in FOUL_ANYWAY:
        return " ".join(words[:-1]), True
    return text, False
