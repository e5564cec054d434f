"""The engine's AI player: ofc and pineapple street decisions, whole sets through the solver.

Only what the seat may see is used: its own board, pending cards and discards, the boards of the
other seats that are face up, public facts (who is in fantasyland, who surrendered) and
``hand.cards_seen_by(seat)``; every other card (the deck, other seats' pending cards and
discards, hidden fantasyland or chinese sets) is "unseen" and equally likely to be anywhere.

Technique (street decisions)
----------------------------
*Monte Carlo with common random numbers.*  Each round samples the seat's future cards from the
unseen cards once; every candidate move is then played out on that same future by a fast rollout
policy, and the finished board is scored exactly.  Comparing candidates on the same futures
removes most of the sampling noise from their differences.

*Rollout policy.*  A greedy one-step policy on a static board value ``Q``: every row's content is
abstracted (its ranks, and whether it can still be a flush) and given the distribution of the
values it reaches when its free slots are filled at random (sampled once per abstract row and
cached, deterministic).  ``Q = (1 - p) * (sum of the rows' mean worth) - p * foul_cost`` where
``p`` bounds the chance of a foul (top above middle, middle above bottom) under those
distributions.  A row's worth is its royalty, its expected row points against a typical opponent
row (quantile tables measured in self-play) and, for the top, the fantasyland value.  The street
that completes the board is chosen exactly.  In pineapple (``AIConfig.lookahead_*``) the street
before the last is chosen by a lookahead: the best 8 moves by the value, each judged by the exact
score of the best finish of 8 sampled last streets (the same for every move).

*Learned value.*  Random fills misjudge what a player who routes cards can make (fouls are far
rarer, fantasyland draws and the bottom row worth more), so for the rules it was fitted on the
policy uses a learned value instead of ``Q``: per stage (free slots left), a linear function of
``Q``, its parts (each row's worth, the foul chances), row features (a lone Q/K/A or the pair
made on top, flush and straight draws, made hands, free slots; ``BOARD_FEATURES``,
``ROW_FEATURES``) and products of them (``QUADRATIC_TERMS``: within a row, a foul chance times
a row's features, two rows' worths), fitted by ``python -m bench.fit_value`` on the Monte Carlo
values of *every* examined candidate move (not only the chosen one: no selection bias), on the
differences within a decision, in rounds of policy improvement.  What depends on one row is
memoised per row state, so it costs about what ``Q`` costs.  Weights in ``engine.ai_values``;
``AIConfig(learned=False)`` turns it off.

*Exact finish.*  A finished board is scored against every opponent: its royalties, fantasyland,
and the row points and scoop against what is visible of that opponent (a complete row exactly, a
partial row as "at least its made hand" through the quantile tables), weighed by the chance that
the opponent fouls (known when their board is done).  A foul scores the loss of every row and the
scoop.  When the move finishes the board, every move is scored exactly and a clean board always
beats a fouled one.

*Search.*  Candidate moves are ranked by the value; the best few (by level) enter the
simulation, which drops a candidate when its paired difference with the leader is clearly
negative and halves the field at checkpoints (after 32 simulations each, then 64, 128, ...).  It
stops when one candidate is left, at the time budget (``LEVELS``), after ``_MAX_ROUNDS`` futures
or after a fixed number of ``simulations`` (reproducible with a seeded ``rng``).

*Compiled core.*  ``engine/_fastai.c`` (built by ``setup.py``; optional) is the twin of the
rollouts, the value and the sampling loop in C: the same results as the Python rollouts on the
same futures (``tests/engine/test_fastai.py``), about 6-35x faster (``python -m bench.rollouts``).
The lookahead policy exists only there; without the compiled core (no C compiler) the AI plays
the greedy policy in Python.

Whole sets (fantasyland, chinese) use ``engine.solver`` and fall back to
``engine.autoplay.greedy_set``.
"""

from __future__ import annotations

import math
import random
import threading
import time
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ._core import CORE
from .ai_values import VALUE_WEIGHTS
from .autoplay import Move, greedy_set, street_moves
from .board import (
    ROWS,
    Board,
    bottom_royalty,
    fantasyland_cards_for_top,
    middle_royalty,
    top_royalty,
    values_foul,
)
from .cards import DECK, RANK_SHIFT, Card
from .evaluator import (
    CATEGORY_SHIFT,
    HIGH_CARD,
    MASK,
    PAIR,
    QUADS,
    TRIPS,
    TWO_PAIR,
    HandValue,
    describe_value,
    top_compare_mask,
    value_table,
)
from .notation import signed_points
from .rules import Rules, Variant

if CORE:  # the compiled twin of the rollouts (setup.py builds it; optional)
    from . import _fastai
else:  # pragma: no cover - the Python rollouts do the same, slower
    _fastai = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from .hand import Hand, Requirement

__all__ = [
    "LEVELS",
    "AIConfig",
    "Candidate",
    "Suggestion",
    "analyse",
    "choose_move",
    "compare_moves",
    "same_move",
    "choose_natural",
    "describe_move",
    "set_move",
    "static_value",
    "suggest",
    "warm_up",
]

LEVELS: dict[str, float] = {"easy": 0.05, "normal": 0.3, "strong": 1.0}
"""Seconds per street decision."""

_CANDIDATES = {"easy": 8, "normal": 14, "strong": 24}
"""How many moves (best by the static value) enter the simulation."""


@dataclass(frozen=True)
class AIConfig:
    """Tuning knobs (the defaults are what the benchmark measured)."""

    fantasyland_values: tuple[tuple[int, float], ...] = (
        (13, 7.0), (14, 10.3), (15, 16.2), (16, 23.1), (17, 29.9),
    )
    """Points a fantasyland of that many cards is worth, per opponent: what the solver's
    setting of a random 14-17 card hand earns (royalties plus ``solver.DEFAULT_STAY_VALUE`` for
    a stay; 1,500 deals each: 14.3, 20.2, 27.1, 33.9, se 0.3) less about 4 for the ordinary
    hand it replaces.  Measured with ``python -m bench.ai --session 4`` (fantasyland hands
    counted; pineapple vs random, 100 simulations, 200 paired deals): +0.47 +- 0.19 points/hand
    over the older 8/10/12/14 (through 10/13/16/19: +0.27 +- 0.13, then +0.20 +- 0.14); the
    full values (no deduction) foul more and gain nothing.  ofc's 13 stays at 7 (9 measured
    -0.06 +- 0.07 in ofc, 150 deals)."""
    opponent_foul_power: float = 2.0
    """An unfinished opponent's foul chance: the static estimate for their board to this power
    (calibrated on AI and random players' boards)."""
    row_samples: int = 40
    """Random fills per abstract row (the rollout policy's row distributions)."""
    equity_weight: float = 1.0
    """Static value: weight of a row's expected points against a typical row."""
    foul_extra: float = 20.0
    """Risk aversion: points a foul costs beyond the rows and scoop, per opponent that may not
    foul (it stands for what a foul also loses: fantasyland chances, the royalties the rows
    were worth).  The better the learned value, the harder the rollouts chase fantasyland and
    royalties, so pineapple needs more: with the first learned value, at 100 simulations,
    self-play fouls 14.0% with 3, 13.2% with 5, 11.8% with 7, 9.2% with 10 (400 boards each,
    ``python -m bench.ai --level normal --variant pineapple --match self --hands 100 --sims 100
    --config foul_extra=10``); with the value with products, strong self-play fouls 15.0% with
    10, 13.1% with 15, 11.2% with 20 (160 boards each, ``python -m bench.ai --level strong
    --variant pineapple --match self --hands 40 --config foul_extra=20``)."""
    ofc_foul_extra: float = 5.0
    """``foul_extra`` in classic ofc (every card must be placed, so a foul is harder to avoid
    late).  Against the default AI with 3 (400 paired deals, 100 simulations): 4 -0.07 +- 0.05,
    5 -0.10 +- 0.08 points/hand (not significant); against random +0.01 +- 0.06; self-play
    fouls 10.1% -> 8.0% (``python -m bench.ai --level normal --variant ofc --match self
    --hands 200 --sims 100``, 800 boards)."""

    learned: bool = True
    """Rollouts and the ranking of candidates use the learned board value (``engine.ai_values``,
    fitted by ``python -m bench.fit_value``) where the rules are the ones it was fitted on (the
    variant's defaults; timers aside); else, and with ``False``, the static value ``Q``."""
    lookahead_draws: int = 8
    """The compiled rollouts' policy in pineapple: at streets that start with at most
    ``lookahead_free`` free slots, the best ``lookahead_moves`` moves by the value are judged
    by what the policy makes of the next street, averaged over this many sampled streets (the
    same for every move; 0: greedy on the value, as the Python rollouts).  With the defaults the
    street before the last is chosen on the exact scores of 8 sampled last streets.  Paired on
    the same deals (strong, sessions of 8, 40 deals, seeds 1000+, against random): +0.88 +- 0.39
    points/hand over the greedy policy (16 draws: +0.37 +- 0.28; also at the street before:
    +0.22 +- 0.35; every move judged: +0.27 +- 0.30; 4 draws of the best 6 at every street:
    +0.56 +- 0.33)."""
    lookahead_moves: int = 8
    lookahead_free: int = 4
    live_rows: bool = False
    """The compiled search's rows are live: their random fills come from the cards the seat
    has not seen (dead cards count), computed per decision in C; else the model's rows (fills
    from the whole deck, as the Python rollouts)."""
    ofc_lookahead_draws: int = 0
    """``lookahead_draws`` in classic ofc (one card a street, every row judged).  16 draws at
    every street measured -0.03 +- 0.19 points/hand against random (100 deals): off."""
    first_halving: int = 0
    """Futures every candidate gets before the field is first halved (then at twice as many,
    and so on); 0: ``_FIRST_HALVING``."""
    street_bias: tuple[tuple[int, int, float], ...] = ()
    """Corrections of the search's values for what the AI's own later decisions make of a
    board beyond what its rollout policy makes: ``(free slots after the move, base feature
    index, points)``; a candidate whose board has that many free slots gets the points times
    that feature of its board (``Model.features``), in its ranking and its simulated value.
    Fitted on the first street (strong play against the rollout policy on the same cards) and
    played, it measured no better (README, "Tried and not kept"): off."""
    value_weights: tuple[tuple[int, tuple[float, ...]], ...] | None = None
    """Learned-value weights per stage (free slots) to use instead of the built-in ones (the
    fitting script passes each iteration's weights this way)."""

    def fantasyland_value(self, cards: int) -> float:
        if cards <= 0:
            return 0.0
        table = dict(self.fantasyland_values)
        return table.get(cards, table[max(table)] if cards > max(table) else table[min(table)])


DEFAULT_CONFIG = AIConfig()

# -- tables --------------------------------------------------------------------------------------

_VALUES = value_table()
_SUIT_PART = (1 << RANK_SHIFT) - 1
_FULL = (3, 5, 5)

if _fastai is not None:
    _fastai.load_values(_VALUES, MASK)

COMPILED = _fastai is not None
"""Whether the search runs its rollouts in C (``engine._fastai``).  The compiled rollouts
compute exactly what the Python ones compute (tests/engine/test_fastai.py), only faster;
setting this to False (tests do) runs the Python rollouts."""

# Final row values (top, middle, bottom) of boards that did not foul, measured in AI self-play:
# 48 quantiles each, ascending.  A row's expected points against a typical opponent row is
# P(it beats one) - P(it loses to one).
ROW_QUANTILES: dict[str, tuple[tuple[int, ...], ...]] = {
    "ofc": (
        (0x63200, 0x76400, 0x86200, 0x93200, 0x95400, 0x96500, 0x97600, 0x98300, 0x98600,
         0xa5300, 0xa6500, 0xa7300, 0xa7400, 0xa8300, 0xa8500, 0xa9200, 0xa9600, 0xb3200,
         0xb5400, 0xb7300, 0xb7500, 0xb8200, 0xb8500, 0xb8700, 0xb9500, 0xba300, 0xba800,
         0xc5200, 0xc6400, 0xc7400, 0xc8600, 0xc9700, 0xca400, 0xca900, 0xcb500, 0xd3200,
         0xd6300, 0xd7400, 0xd9200, 0xda600, 0xdba00, 0xe5200, 0xe8300, 0xea200, 0xec800,
         0x132000, 0x16a000, 0x1b3000),
        (0xa8743, 0xb9752, 0xc6532, 0xc8765, 0xca742, 0xcb543, 0xcb975, 0xd7642, 0xd9762,
         0xda843, 0xdb752, 0xdb962, 0xdba92, 0xdc862, 0xdca64, 0xdcb98, 0xe8743, 0xea732,
         0xea972, 0xeb873, 0xec642, 0xec932, 0xeca74, 0xed652, 0xeda76, 0xedba8, 0x12c530,
         0x12ea70, 0x13b620, 0x13ca90, 0x14c720, 0x15a860, 0x15ec70, 0x16cb20, 0x179650,
         0x17e650, 0x18ca50, 0x18eca0, 0x19c730, 0x1ab940, 0x1b7650, 0x1bc320, 0x1c9720,
         0x1d8540, 0x1dc930, 0x1eba80, 0x292c00, 0x2e8600),
        (0xda854, 0xe9872, 0xeba63, 0xecba9, 0xeda92, 0xedcb3, 0x13b840, 0x14c930, 0x15da20,
         0x16c740, 0x179420, 0x186430, 0x198760, 0x19eb80, 0x1adb40, 0x1ba950, 0x1bed70,
         0x1cdb50, 0x1d8530, 0x1de640, 0x1e7640, 0x1ea860, 0x1eba70, 0x1ed860, 0x252400,
         0x273900, 0x286500, 0x295e00, 0x2a3200, 0x2b4900, 0x2c2300, 0x2ca500, 0x2d3600,
         0x2db300, 0x2e9a00, 0x32b900, 0x34c800, 0x37d200, 0x3ae800, 0x3d6400, 0x3e9700,
         0x4e0000, 0x5edc96, 0x63c000, 0x674000, 0x69a000, 0x6d9000, 0x74b000),
    ),
    "pineapple": (
        (0x65400, 0x85300, 0x87600, 0x96400, 0x97400, 0x98600, 0xa5300, 0xa7200, 0xa8500,
         0xa9400, 0xb4200, 0xb6300, 0xb7500, 0xb8600, 0xb9500, 0xb9800, 0xba800, 0xc5300,
         0xc7300, 0xc8400, 0xc9300, 0xc9700, 0xca300, 0xca800, 0xcb400, 0xcb700, 0xcba00,
         0xd6400, 0xd8700, 0xd9800, 0xdb400, 0xdb800, 0xdc500, 0xdc800, 0xdcb00, 0xe7300,
         0xe9200, 0xeb200, 0xec500, 0xeca00, 0xeda00, 0x12b000, 0x158000, 0x173000, 0x18b000,
         0x1a6000, 0x1c5000, 0x1d7000),
        (0xb9853, 0xcb542, 0xd9543, 0xdb532, 0xdc732, 0xdca64, 0xe7654, 0xea853, 0xeb974,
         0xec975, 0xecb75, 0xed942, 0xedb32, 0xedc94, 0x12d740, 0x12ec50, 0x13dba0, 0x149630,
         0x14d950, 0x14eb30, 0x15a760, 0x15d320, 0x16b540, 0x16db80, 0x16ed20, 0x17c540,
         0x17e830, 0x18c420, 0x18e730, 0x19c420, 0x19e750, 0x1ad980, 0x1b8620, 0x1bdc20,
         0x1c9870, 0x1cd920, 0x1d8540, 0x1dc650, 0x1de970, 0x1ea740, 0x1ed850, 0x263400,
         0x286900, 0x2b3600, 0x2d2300, 0x2e3a00, 0x358400, 0x3d9500),
        (0xe9432, 0xeda84, 0x12db60, 0x14ea30, 0x15ec80, 0x17ea90, 0x19a730, 0x1ad830, 0x1bd960,
         0x1cb730, 0x1d8650, 0x1de730, 0x1ea640, 0x1ec860, 0x252700, 0x273800, 0x283700,
         0x295700, 0x2a6400, 0x2b5e00, 0x2ba600, 0x2c6e00, 0x2d2400, 0x2d5200, 0x2db700,
         0x2e3a00, 0x2e7400, 0x2eab00, 0x329300, 0x33e700, 0x36a400, 0x397600, 0x3aed00,
         0x3d8500, 0x4d0000, 0x5e7654, 0x5eda98, 0x638000, 0x64e000, 0x66a000, 0x67a000,
         0x68a000, 0x6a3000, 0x6b6000, 0x6ce000, 0x6e3000, 0x6ea000, 0x794000),
    ),
}


def _rank_counts(rank_key: int) -> list[int]:
    out = []
    for _ in range(13):
        rank_key, d = divmod(rank_key, 5)
        out.append(d)
    return out


def _made_value(counts: Sequence[int]) -> int:
    """A lower bound (on the evaluator's scale) for any row that contains these ranks."""
    quads = [r for r in range(12, -1, -1) if counts[r] >= 4]
    trips = [r for r in range(12, -1, -1) if counts[r] == 3]
    pairs = [r for r in range(12, -1, -1) if counts[r] == 2]
    singles = [r for r in range(12, -1, -1) if counts[r] == 1]
    if quads:
        return QUADS << CATEGORY_SHIFT | (quads[0] + 2) << 16
    if trips:
        return TRIPS << CATEGORY_SHIFT | (trips[0] + 2) << 16
    if len(pairs) >= 2:
        return TWO_PAIR << CATEGORY_SHIFT | (pairs[0] + 2) << 16 | (pairs[1] + 2) << 12
    if pairs:
        return PAIR << CATEGORY_SHIFT | (pairs[0] + 2) << 16
    if singles:
        return HIGH_CARD << CATEGORY_SHIFT | (singles[0] + 2) << 16
    return 0


_DIST: dict[tuple[int, int, bool, int], tuple[int, ...]] = {}


def _distribution(size: int, rank_key: int, flush: bool, samples: int) -> tuple[int, ...]:
    """Sorted values a row of ``size`` reaches when its free slots get random cards: a fixed
    sample (seeded by the row), so every cache state gives the same answers."""
    key = (size, rank_key, flush, samples)
    found = _DIST.get(key)
    if found is not None:
        return found
    counts = _rank_counts(rank_key)
    cards: list[Card] = []
    for rank in range(13):
        for k in range(counts[rank]):
            suit = 3 if flush else (len(cards) + k) % 4
            while DECK[rank * 4 + suit] in cards:
                suit = (suit + 1) % 4
            cards.append(DECK[rank * 4 + suit])
    rest = [c for c in DECK if c not in cards]
    rng = random.Random(f"row/{size}/{rank_key}/{int(flush)}/0")
    base = sum(cards)
    free = size - len(cards)
    out = tuple(sorted(
        int(_VALUES[(base + sum(rng.sample(rest, free))) & MASK]) for _ in range(samples)
    ))
    _DIST[key] = out
    return out


# the rules themselves live in engine.board; the AI calls them on raw row values
_fl_cards = fantasyland_cards_for_top
_fouls = values_foul


_MEMO_CAP = 400_000
"""Entries per cache before it is emptied (a long-running bot must not grow without bound)."""


class _Row:
    __slots__ = ("id", "dist", "mean", "lb", "size", "free", "feats")

    def __init__(
        self, ident: int, dist: tuple[int, ...], mean: float, lb: int, size: int, free: int,
        feats: tuple[float, ...],
    ) -> None:
        self.id = ident
        self.dist = dist
        self.mean = mean
        self.lb = lb
        self.size = size
        self.free = free
        self.feats = feats


def _straight_draw(counts: Sequence[int]) -> int:
    """Cards of an unfinished five-card row that can still end in a straight (all of them
    distinct and inside one five-rank window, the wheel included), else 0."""
    n = sum(counts)
    if n == 0 or max(counts) > 1:
        return 0
    present = [k for k in range(13) if counts[k]]
    low = [k for k in present if k != 12] + ([-1] if counts[12] else [])
    spans = [present[-1] - present[0]]
    if counts[12]:  # the ace also plays low (A-2-3-4-5)
        spans.append(max(low) - min(low))
    return n if min(spans) <= 4 else 0


def _row_features(r: int, counts: Sequence[int], flush: bool, lb: int) -> tuple[float, ...]:
    """What the learned value knows of one row beyond its random-fill worth (the order is
    ``ROW_FEATURES[0]`` for the top, ``ROW_FEATURES[1]`` for the middle and bottom)."""
    n = sum(counts)
    free = _FULL[r] - n
    category = lb >> CATEGORY_SHIFT
    high = max((k for k in range(13) if counts[k]), default=-1)
    if r == 0:
        single = max((k for k in range(13) if counts[k] == 1), default=-1)
        pair = max((k for k in range(13) if counts[k] >= 2), default=-1)
        trips = max(counts) >= 3
        open_ = free > 0 and pair < 0
        made = tuple(float(pair == k and not trips) for k in range(4, 13))  # 66 .. AA
        return (
            float(open_ and single == 10), float(open_ and single == 11),
            float(open_ and single == 12), float(free), float(category >= PAIR), *made,
            float(trips), (high + 1) / 13.0, float(free * free),
        )
    return (
        float(free), float(n) if flush and free > 0 else 0.0, float(category == PAIR),
        float(category == TWO_PAIR), float(category >= TRIPS), float(free == 0),
        float(_straight_draw(counts)) if free > 0 else 0.0, float(max(counts)),
        float(free * free), (high + 1) / 13.0,
    )


ROW_FEATURES = (
    ("top: a lone Q, free slots", "top: a lone K", "top: a lone A", "top: free slots",
     "top: a pair made", "top: 66", "top: 77", "top: 88", "top: 99", "top: TT", "top: JJ",
     "top: QQ", "top: KK", "top: AA", "top: trips", "top: highest rank (0-1)",
     "top: free slots squared"),
    ("free slots", "flush draw: its cards", "pair made", "two pair made", "trips or better made",
     "complete", "straight draw: its cards", "most cards of one rank", "free slots squared",
     "highest rank (0-1)"),
)
"""Names of ``_row_features`` (top; middle and bottom)."""

BOARD_FEATURES = (
    "constant", "static value Q", "(1-p) top worth", "(1-p) middle worth", "(1-p) bottom worth",
    "p (foul chance)", "p squared", "p top over middle", "p middle over bottom",
    "top worth", "middle worth", "bottom worth",
)
"""The board-level features of the learned value, before the three rows' ``_row_features``."""

_ROW_AT = (
    len(BOARD_FEATURES),
    len(BOARD_FEATURES) + len(ROW_FEATURES[0]),
    len(BOARD_FEATURES) + len(ROW_FEATURES[0]) + len(ROW_FEATURES[1]),
)
BASE_COUNT = _ROW_AT[2] + len(ROW_FEATURES[1])
"""How many base features the learned value has (``BOARD_FEATURES`` and the rows')."""

_P, _P1, _P2 = 5, 7, 8
"""Indexes of the foul chances in the base features: p, top over middle, middle over bottom."""


def _row_terms(r: int) -> tuple[int, ...]:
    """The base features of row ``r``'s extended vector: its worth, then its row features."""
    return (9 + r, *range(_ROW_AT[r], _ROW_AT[r] + len(ROW_FEATURES[min(r, 1)])))


def _quadratic_terms() -> tuple[tuple[int, int], ...]:
    terms: list[tuple[int, int]] = []
    for r in range(3):
        e = _row_terms(r)
        terms += [(e[i], e[j]) for i in range(len(e)) for j in range(i, len(e))]
        for atom in (_P, _P1, _P2):
            terms += [(atom, k) for k in e]
    return (*terms, (9, 10), (9, 11), (10, 11), (_P1, _P2), (_P1, _P1), (_P2, _P2))


QUADRATIC_TERMS = _quadratic_terms()
"""The learned value's products of two base features (index pairs), after the base features:
within a row (its worth and features), a foul chance times a row's, two rows' worths, and the
foul chances'.  What depends on one row is evaluated once per row state (memoised), the rest
per board.  (Products of two rows' features measured no better than of their worths.)"""

FEATURE_COUNT = BASE_COUNT + len(QUADRATIC_TERMS)
"""How many features (and weights per stage) the learned value has."""


def quadratic_features(base: Sequence[float]) -> list[float]:
    """The full feature vector of the learned value from the base features."""
    return [*base, *(base[i] * base[j] for i, j in QUADRATIC_TERMS)]


class _Stage:
    """The learned value's weights for one stage, arranged for evaluation: what depends on one
    row is memoised per row state; ``_Model.qi`` adds the board's terms."""

    def __init__(self, w: Sequence[float], loss: float) -> None:
        if len(w) != FEATURE_COUNT:
            raise ValueError(f"learned value: {len(w)} weights, {FEATURE_COUNT} expected")
        self.w0 = w[0]
        self.pc = w[_P] - w[1] * loss  # p, with Q's foul term
        self.pp, self.p1c, self.p2c = w[6], w[_P1], w[_P2]
        local = [{k: n for n, k in enumerate(_row_terms(r))} for r in range(3)]
        size = [len(x) for x in local]
        self.lin = [[w[k] for k in _row_terms(r)] for r in range(3)]
        self.mean = [w[1] + w[2 + r] for r in range(3)]  # the (1-p) * worth terms, Q's share
        self.square: list[list[tuple[int, int, float]]] = [[], [], []]
        self.atom = [[[0.0] * size[r] for r in range(3)] for _ in range(3)]
        atoms = {_P: 0, _P1: 1, _P2: 2}
        for (i, j), v in zip(QUADRATIC_TERMS, w[BASE_COUNT:], strict=True):
            ri = [r for r in range(3) if i in local[r]]
            rj = [r for r in range(3) if j in local[r]]
            if ri and rj and ri[0] == rj[0]:
                self.square[ri[0]].append((local[ri[0]][i], local[ri[0]][j], v))
            elif rj and i in atoms:
                self.atom[atoms[i]][rj[0]][local[rj[0]][j]] = v
        # worth_top worth_middle, worth_top worth_bottom, worth_middle worth_bottom,
        # p1 p2, p1^2, p2^2
        self.board = tuple(w[-6:])
        self.parts: dict[int, tuple[float, float, float, float, float]] = {}

    def part(self, r: int, row: _Row) -> tuple[float, float, float, float, float]:
        """Row ``r``'s share: (its own terms, its (1-p) * worth terms, and its factors of p, p1
        and p2)."""
        e = (row.mean, *row.feats)
        # plain left-to-right sums (the compiled core adds in the same order)
        own = 0.0
        for x, y in zip(self.lin[r], e, strict=True):
            own += x * y
        squares = 0.0
        for i, j, v in self.square[r]:
            squares += v * e[i] * e[j]
        own += squares
        atoms = [0.0, 0.0, 0.0]
        for k in range(3):
            for x, y in zip(self.atom[k][r], e, strict=True):
                atoms[k] += x * y
        out = (own, self.mean[r] * row.mean, atoms[0], atoms[1], atoms[2])
        if len(self.parts) >= _MEMO_CAP:
            self.parts.clear()
        self.parts[row.id] = out
        return out


class _Model:
    """Static board values for one rule set (caches shared by every decision)."""

    def __init__(self, rules: Rules, config: AIConfig) -> None:
        self.rules = rules
        self.config = config
        self.strict = rules.strict_top
        self.loss = float(rules.foul_loss)
        self.royal = rules.has_royalties
        self.tables = ROW_QUANTILES.get(rules.variant, ROW_QUANTILES["pineapple"])
        self.rows: tuple[dict[int, _Row], dict[int, _Row], dict[int, _Row]] = ({}, {}, {})
        self._abstract: dict[tuple[int, int, int, bool], _Row] = {}
        self.ptm: dict[int, float] = {}
        self.pmb: dict[int, float] = {}
        self._worth: tuple[dict[int, float], dict[int, float], dict[int, float]] = ({}, {}, {})
        self._roy = (top_royalty, middle_royalty, bottom_royalty)
        self._roy_memo: tuple[dict[int, int], dict[int, int], dict[int, int]] = ({}, {}, {})
        self._lock = threading.Lock()
        self.learned = _learned_weights(rules, config)
        self._stages = {k: _Stage(w, self.loss) for k, w in (self.learned or {}).items()}
        self._core: Any = None

    # -- the compiled twin ----------------------------------------------------------------------
    def core(self) -> Any:
        """The compiled rollouts' tables for this model (``engine._fastai.Core``)."""
        if self._core is None:
            spec = [(k, st.w0, st.pc, st.pp, st.p1c, st.p2c, st.board, tuple(st.mean),
                     st.lin, st.square, st.atom) for k, st in sorted(self._stages.items())]
            self._core = _fastai.Core(
                row_id=self._row_id, row_info=self._row_info, strict=self.strict,
                loss=self.loss, stages=spec, tables=self.tables,
            )
        return self._core

    def _row_id(self, r: int, s: int) -> int:
        return self.row(r, s).id

    def _row_info(self, r: int, s: int) -> tuple[int, float, tuple[int, ...], tuple[float, ...]]:
        """What the compiled core keeps of a row state: free slots, mean worth, the values it
        reaches and its features (the core computes the learned value's parts from them)."""
        row = self.row(r, s)
        return row.free, row.mean, row.dist, row.feats

    # -- per value -----------------------------------------------------------------------------
    def royalty(self, row: int, v: int) -> int:
        memo = self._roy_memo[row]
        found = memo.get(v)
        if found is None:
            found = memo[v] = self._roy[row](HandValue(v)) if self.royal else 0
        return found

    def worth(self, row: int, v: int) -> float:
        """Royalty + expected row points vs a typical row (+ fantasyland for the top)."""
        memo = self._worth[row]
        w = memo.get(v)
        if w is None:
            table = self.tables[row]
            n = len(table)
            eq = (bisect_left(table, v) - (n - bisect_right(table, v))) / n
            w = self.royalty(row, v) + self.config.equity_weight * eq
            if row == 0:
                w += self.config.fantasyland_value(_fl_cards(v, self.rules))
            memo[v] = w
        return w

    # -- per row state ----------------------------------------------------------------------------
    def row(self, r: int, s: int) -> _Row:
        memo = self.rows[r]
        info = memo.get(s)
        if info is not None:
            return info
        with self._lock:
            return self._row_miss(r, s, memo)

    def _row_miss(self, r: int, s: int, memo: dict[int, _Row]) -> _Row:
        size = _FULL[r]
        rank_key = s >> RANK_SHIFT
        counts = _rank_counts(rank_key)
        n = sum(counts)
        v = 0
        if n == size:
            v = int(_VALUES[s & MASK])
            key: tuple[int, int, int, bool] = (r, 1, v, False)
        else:
            sp = s & _SUIT_PART
            flush = size == 5 and any(sp == (13 * n) << (7 * k) for k in range(4))
            key = (r, 0, rank_key, flush)
        info = self._abstract.get(key)
        if info is None:
            if n == size:
                dist: tuple[int, ...] = (v,)
                lb = v
            else:
                dist = _distribution(size, rank_key, key[3], self.config.row_samples)
                lb = _made_value(counts)
            mean = sum(self.worth(r, x) for x in dist) / len(dist)
            info = _Row(len(self._abstract) + 1, dist, mean, lb, size, size - n,
                        _row_features(r, counts, key[3], lb))
            self._abstract[key] = info
        if len(memo) >= _MEMO_CAP:
            memo.clear()
        memo[s] = info
        return info

    def p_top_over_middle(self, t: _Row, m: _Row) -> float:
        key = t.id << 24 | m.id
        p = self.ptm.get(key)
        if p is None:
            if self.strict:  # fouled when the middle is not above on the top's own ranks
                by_mask: dict[int, list[int]] = {}
                bad = 0
                for x in t.dist:
                    keep = top_compare_mask(x)
                    truncated = by_mask.get(keep)
                    if truncated is None:
                        truncated = by_mask[keep] = sorted(y & keep for y in m.dist)
                    bad += bisect_right(truncated, x)
            else:
                bad = sum(bisect_left(m.dist, x) for x in t.dist)
            p = bad / (len(t.dist) * len(m.dist))
            if len(self.ptm) >= _MEMO_CAP:
                self.ptm.clear()
            self.ptm[key] = p
        return p

    def p_middle_over_bottom(self, m: _Row, b: _Row) -> float:
        key = m.id << 24 | b.id
        p = self.pmb.get(key)
        if p is None:
            bots = b.dist
            bad = sum(bisect_left(bots, x) for x in m.dist)
            p = bad / (len(m.dist) * len(bots))
            if len(self.pmb) >= _MEMO_CAP:
                self.pmb.clear()
            self.pmb[key] = p
        return p

    def q(self, s0: int, s1: int, s2: int) -> float:
        """The static value of a (partial) board given by its three row sums."""
        rows = self.rows
        return self.qi(
            rows[0].get(s0) or self.row(0, s0),
            rows[1].get(s1) or self.row(1, s1),
            rows[2].get(s2) or self.row(2, s2),
        )

    def qi(self, a: _Row, b: _Row, c: _Row) -> float:
        """The rollout policy's value of a board from its three rows' states: the learned
        value where there is one for this stage, else the static value ``Q``."""
        p1 = self.ptm.get(a.id << 24 | b.id)
        if p1 is None:
            p1 = self.p_top_over_middle(a, b)
        p2 = self.pmb.get(b.id << 24 | c.id)
        if p2 is None:
            p2 = self.p_middle_over_bottom(b, c)
        p = p1 + p2
        if p > 1.0:
            p = 1.0
        if self._stages:
            st = self._stages.get(a.free + b.free + c.free)
            if st is not None:
                parts = st.parts
                ga = parts.get(a.id) or st.part(0, a)
                gb = parts.get(b.id) or st.part(1, b)
                gc = parts.get(c.id) or st.part(2, c)
                ab, ac, bc, q1, q2, q3 = st.board
                ma, mb, mc = a.mean, b.mean, c.mean
                return (st.w0 + ga[0] + gb[0] + gc[0] + (1.0 - p) * (ga[1] + gb[1] + gc[1])
                        + p * (st.pc + st.pp * p + ga[2] + gb[2] + gc[2])
                        + p1 * (st.p1c + q1 * p2 + q2 * p1 + ga[3] + gb[3] + gc[3])
                        + p2 * (st.p2c + q3 * p2 + ga[4] + gb[4] + gc[4])
                        + ma * (ab * mb + ac * mc) + bc * mb * mc)
        return (1.0 - p) * (a.mean + b.mean + c.mean) - p * self.loss

    def features(self, s0: int, s1: int, s2: int) -> tuple[int, list[float]]:
        """(stage, base features) of a partial board for fitting the learned value: the stage
        is its free slots; the base features are ``BOARD_FEATURES`` and each row's
        ``_row_features`` (the learned value is the dot product of ``quadratic_features`` of
        them with the stage's weights)."""
        a, b, c = self.row(0, s0), self.row(1, s1), self.row(2, s2)
        p1 = self.p_top_over_middle(a, b)
        p2 = self.p_middle_over_bottom(b, c)
        p = min(1.0, p1 + p2)
        q = (1.0 - p) * (a.mean + b.mean + c.mean) - p * self.loss
        x = [1.0, q, (1.0 - p) * a.mean, (1.0 - p) * b.mean, (1.0 - p) * c.mean, p, p * p, p1,
             p2, a.mean, b.mean, c.mean, *a.feats, *b.feats, *c.feats]
        return a.free + b.free + c.free, x

    def p_foul(self, s0: int, s1: int, s2: int) -> float:
        a, b, c = self.row(0, s0), self.row(1, s1), self.row(2, s2)
        return min(1.0, self.p_top_over_middle(a, b) + self.p_middle_over_bottom(b, c))


def _learned_weights(rules: Rules, config: AIConfig) -> dict[int, tuple[float, ...]] | None:
    """The learned value's weights per stage for these rules, or None (use ``Q``)."""
    if not config.learned:
        return None
    if config.value_weights is not None:
        return dict(config.value_weights)
    if _ai_rules(rules) != Rules(variant=rules.variant) or rules.variant not in VALUE_WEIGHTS:
        return None
    return VALUE_WEIGHTS[rules.variant]


_MODELS: dict[tuple[Rules, AIConfig], _Model] = {}


def _ai_rules(rules: Rules) -> Rules:
    """``rules`` without what the street AI does not read (the clocks, where the button goes,
    the solver's stay value), so tables that differ only there share one model and its
    caches (and the warm-up's)."""
    fitted = Rules(variant=rules.variant)
    return replace(rules, timer=fitted.timer, set_timer=fitted.set_timer,
                   away_timer=fitted.away_timer,
                   button_stays_for_fantasyland=fitted.button_stays_for_fantasyland,
                   stay_value=None)


def _model(rules: Rules, config: AIConfig) -> _Model:
    rules = _ai_rules(rules)
    key = (rules, config)
    m = _MODELS.get(key)
    if m is None:
        if len(_MODELS) > 16:
            _MODELS.clear()
        m = _MODELS[key] = _Model(rules, config)
    return m


def static_value(board: Board, rules: Rules | None = None, config: AIConfig = DEFAULT_CONFIG) -> float:
    """The rollout policy's value of a (partial) board: a quick estimate in points."""
    m = _model(rules or Rules(), config)
    return m.q(sum(board.top), sum(board.middle), sum(board.bottom))


# -- what the seat knows about each opponent --------------------------------------------------------


class _Opponent:
    """What is visible of one opponent: finished rows exactly, partial rows as a lower bound."""

    def __init__(
        self, q: float, exact: Sequence[int | None], lower: Sequence[int],
        tables: Sequence[Sequence[int]],
    ) -> None:
        self.q = q
        self.tables = tables
        self.exact = tuple(exact)
        self.lower = tuple(lower)
        self._memo: tuple[dict[int, tuple[float, float]], ...] = ({}, {}, {})

    def win_lose(self, row: int, v: int) -> tuple[float, float]:
        memo = self._memo[row]
        found = memo.get(v)
        if found is not None:
            return found
        e = self.exact[row]
        if e is not None:
            out = (1.0, 0.0) if v > e else (0.0, 1.0) if v < e else (0.0, 0.0)
        else:
            lb = self.lower[row]
            table = self.tables[row]
            n = len(table)
            lo = bisect_left(table, lb)
            total = n - lo
            if v < lb:
                out = (0.0, 1.0)
            elif total == 0:
                out = (0.5, 0.5)
            else:
                win = (bisect_left(table, v) - lo) / total
                lose = (n - max(bisect_right(table, v), lo)) / total
                out = (win, lose)
        memo[v] = out
        return out


class _Context:
    """One decision: the model, the opponents, and exact scores of finished boards."""

    def __init__(self, model: _Model, opponents: list[_Opponent]) -> None:
        self.model = model
        self.opponents = opponents
        self.rules = model.rules
        self._memo: dict[int, tuple[float, int, int, int]] = {}
        loss = model.loss
        config = model.config
        extra = config.ofc_foul_extra if self.rules.variant == "ofc" else config.foul_extra
        self.foul_value = (
            -sum((loss + extra) * (1.0 - o.q) for o in opponents) if opponents else -loss - extra
        )
        self.scoop = float(self.rules.scoop_bonus)
        self.overall = float(self.rules.overall_bonus)
        self._fast: Any = None

    def fast(self, unseen: Sequence[Card] | None = None, seed: int = 0) -> Any:
        """This decision in the compiled core (``engine._fastai.Ctx``): the same ``final`` and
        rollouts, and the sampling loop of the search.  With ``unseen`` (the cards the seat has
        not seen) its rows are live: their random fills are drawn from those cards (dead cards
        count), seeded by ``seed``."""
        if self._fast is None:
            model, rules = self.model, self.rules
            self._fast = _fastai.Ctx(
                core=model.core(),
                opponents=[(o.q, tuple(-1 if e is None else e for e in o.exact), o.lower)
                           for o in self.opponents],
                royal=model.royal, has_fl=rules.has_fantasyland, ofc=rules.variant == "ofc",
                progressive=rules.progressive,
                fl_values=[model.config.fantasyland_value(k) for k in range(32)],
                moon=rules.shoot_the_moon, moon_points=float(rules.shoot_the_moon_points),
                scoop=self.scoop, overall=self.overall, foul_value=self.foul_value,
                loss=model.loss, strict=model.strict,
                live_unseen=None if unseen is None else list(unseen),
                samples=model.config.row_samples, live_seed=seed,
                equity_weight=model.config.equity_weight,
            )
        return self._fast

    def final(self, vt: int, vm: int, vb: int) -> tuple[float, int, int, int]:
        """(value, fouled 0/1, royalties, fantasyland cards) of a finished board."""
        key = vt << 48 | vm << 24 | vb
        found = self._memo.get(key)
        if found is not None:
            return found
        model = self.model
        if _fouls(vt, vm, vb, model.strict):
            out = (self.foul_value, 1, 0, 0)
        else:
            roy = model.royalty(0, vt) + model.royalty(1, vm) + model.royalty(2, vb)
            flc = _fl_cards(vt, self.rules)
            bonus = roy + model.config.fantasyland_value(flc)
            if self.rules.shoot_the_moon and vb >> CATEGORY_SHIFT == HIGH_CARD and (
                (vb >> 16) & 15
            ) <= 11:
                bonus += self.rules.shoot_the_moon_points
            total = 0.0
            loss = model.loss
            for o in self.opponents or [_Opponent(0.2, (None, None, None), (0, 0, 0),
                                                   model.tables)]:
                total += bonus + o.q * loss
                if o.q < 1.0:
                    total += (1.0 - o.q) * self._rows(o, vt, vm, vb)
            out = (total, 0, roy, flc)
        self._memo[key] = out
        return out

    def _rows(self, o: _Opponent, vt: int, vm: int, vb: int) -> float:
        w0, l0 = o.win_lose(0, vt)
        w1, l1 = o.win_lose(1, vm)
        w2, l2 = o.win_lose(2, vb)
        ev = w0 - l0 + w1 - l1 + w2 - l2
        if self.scoop:
            ev += self.scoop * (w0 * w1 * w2 - l0 * l1 * l2)
        if self.overall:
            probs = ((w0, l0), (w1, l1), (w2, l2))
            more = less = 0.0
            for a in range(3):
                for b in range(3):
                    for c in range(3):
                        p = 1.0
                        net = 0
                        for outcome, (w, lo) in zip((a, b, c), probs, strict=True):
                            if outcome == 0:
                                p *= w
                                net += 1
                            elif outcome == 1:
                                p *= lo
                                net -= 1
                            else:
                                p *= max(0.0, 1.0 - w - lo)
                        if net > 0:
                            more += p
                        elif net < 0:
                            less += p
            ev += self.overall * (more - less)
        return ev

    # -- rollouts ------------------------------------------------------------------------------------
    def rollout_single(
        self, s0: int, s1: int, s2: int, f0: int, f1: int, f2: int, future: Sequence[Card]
    ) -> tuple[float, int, int, int]:
        """ofc: one card a street."""
        model = self.model
        qi = model.qi
        row = model.row
        m0, m1, m2 = model.rows
        a = m0.get(s0) or row(0, s0)
        b = m1.get(s1) or row(1, s1)
        c = m2.get(s2) or row(2, s2)
        k = 0
        left = f0 + f1 + f2
        while left > 1:
            card = future[k]
            k += 1
            best = -1e18
            choice = -1
            if f0:
                t = s0 + card
                na = m0.get(t) or row(0, t)
                best = qi(na, b, c)
                choice = 0
            if f1:
                t = s1 + card
                nb = m1.get(t) or row(1, t)
                v = qi(a, nb, c)
                if v > best or choice < 0:
                    best, choice = v, 1
            if f2:
                t = s2 + card
                nc = m2.get(t) or row(2, t)
                v = qi(a, b, nc)
                if v > best or choice < 0:
                    choice = 2
            if choice == 0:
                s0 += card
                f0 -= 1
                a = na
            elif choice == 1:
                s1 += card
                f1 -= 1
                b = nb
            else:
                s2 += card
                f2 -= 1
                c = nc
            left -= 1
        if left == 1:
            card = future[k]
            if f0:
                s0 += card
            elif f1:
                s1 += card
            else:
                s2 += card
        return self.final(_VALUES[s0 & MASK], _VALUES[s1 & MASK], _VALUES[s2 & MASK])

    def rollout_pineapple(
        self, s0: int, s1: int, s2: int, f0: int, f1: int, f2: int, future: Sequence[Card]
    ) -> tuple[float, int, int, int]:
        """pineapple: three cards a street, two kept."""
        model = self.model
        qi = model.qi
        row = model.row
        memo = model.rows
        k = 0
        while f0 + f1 + f2 > 2:
            x, y, z = future[k], future[k + 1], future[k + 2]
            k += 3
            s = (s0, s1, s2)
            f = (f0, f1, f2)
            base = [memo[r].get(s[r]) or row(r, s[r]) for r in range(3)]
            free1 = [r for r in range(3) if f[r]]
            free2 = [r for r in range(3) if f[r] >= 2]
            one = {}
            for card in (x, y, z):
                for r in free1:
                    t = s[r] + card
                    one[card, r] = memo[r].get(t) or row(r, t)
            best = -1e18
            move: tuple[Card, int, Card, int] = (x, free1[0], y, free1[-1])
            for p, q_ in ((x, y), (x, z), (y, z)):
                for r in free2:
                    t = s[r] + p + q_
                    info = memo[r].get(t) or row(r, t)
                    rows3 = list(base)
                    rows3[r] = info
                    v = qi(rows3[0], rows3[1], rows3[2])
                    if v > best:
                        best, move = v, (p, r, q_, r)
                for i in free1:
                    for j in free1:
                        if i == j:
                            continue
                        rows3 = list(base)
                        rows3[i] = one[p, i]
                        rows3[j] = one[q_, j]
                        v = qi(rows3[0], rows3[1], rows3[2])
                        if v > best:
                            best, move = v, (p, i, q_, j)
            p, i, q_, j = move
            if i == 0:
                s0 += p
                f0 -= 1
            elif i == 1:
                s1 += p
                f1 -= 1
            else:
                s2 += p
                f2 -= 1
            if j == 0:
                s0 += q_
                f0 -= 1
            elif j == 1:
                s1 += q_
                f1 -= 1
            else:
                s2 += q_
                f2 -= 1
        # the last street: two of three cards fill the board; choose exactly
        x, y, z = future[k], future[k + 1], future[k + 2]
        rows = [0] * f0 + [1] * f1 + [2] * f2
        best_out: tuple[float, int, int, int] | None = None
        for a, b in ((x, y), (x, z), (y, z)):
            for c, d in ((a, b), (b, a)) if rows[0] != rows[1] else ((a, b),):
                t3 = [s0, s1, s2]
                t3[rows[0]] += c
                t3[rows[1]] += d
                out = self.final(
                    _VALUES[t3[0] & MASK], _VALUES[t3[1] & MASK], _VALUES[t3[2] & MASK]
                )
                if best_out is None or out[0] > best_out[0]:
                    best_out = out
        assert best_out is not None
        return best_out


def _board_sums(board: Board) -> tuple[int, int, int]:
    return (sum(board.top), sum(board.middle), sum(board.bottom))


def _opponents(hand: Hand, seat: int, model: _Model) -> list[_Opponent]:
    out = []
    for other in range(hand.n):
        if other == seat:
            continue
        if hand.surrendered[other]:
            out.append(_Opponent(1.0, (None, None, None), (0, 0, 0), model.tables))
            continue
        if hand.hidden(other):  # a fantasyland set face down: nothing visible
            out.append(_Opponent(0.03, (None, None, None), (0, 0, 0), model.tables))
            continue
        board = hand.boards[other]
        exact: list[int | None] = []
        lower: list[int] = []
        for r, row in enumerate(board.rows):
            if len(row) == _FULL[r]:
                v = _VALUES[sum(row) & MASK]
                exact.append(v)
                lower.append(v)
            else:
                exact.append(None)
                lower.append(_made_value(_rank_counts(sum(row) >> RANK_SHIFT)))
        e0, e1, e2 = exact
        if e0 is not None and e1 is not None and e2 is not None:
            q = 1.0 if _fouls(e0, e1, e2, model.strict) else 0.0
        elif (e0 is not None and e1 is not None and _fouls(e0, e1, 1 << 30, model.strict)) or (
            e1 is not None and e2 is not None and e1 > e2
        ):
            q = 1.0  # a foul already locked in
        else:
            s = _board_sums(board)
            q = model.p_foul(*s) ** model.config.opponent_foul_power
            q = min(0.97, max(0.03, q))
        out.append(_Opponent(q, exact, lower, model.tables))
    return out


# -- the search ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A move and what the simulation found for it (values in points, summed over opponents)."""

    move: Move
    value: float
    static: float
    simulations: int
    foul_rate: float
    royalties: float
    fantasyland_rate: float
    exact: bool = False


def _after(board: Board, move: Move) -> tuple[int, int, int, int, int, int]:
    s: list[int] = [sum(board.top), sum(board.middle), sum(board.bottom)]
    f = list(board.free_slots)
    for card, r in move[0]:
        s[r] += card
        f[r] -= 1
    return (s[0], s[1], s[2], f[0], f[1], f[2])


def analyse(
    hand: Hand,
    seat: int,
    level: str = "normal",
    rng: random.Random | None = None,
    budget: float | None = None,
    simulations: int | None = None,
    config: AIConfig = DEFAULT_CONFIG,
    candidates: int | None = None,
    include: Sequence[Move] = (),
    points: bool = False,
) -> list[Candidate]:
    """Every examined street move for ``seat``, best first (not for whole sets); the moves
    in ``include`` are examined too, whatever their rank by the value.  ``points``: the
    moves are valued in points, a finish that fouls at what it loses (the rollouts still
    play as the AI's; see ``compare_moves``), not with the AI's risk aversion."""
    start = time.perf_counter()
    req = hand.requirement(seat)
    if req is None:
        raise ValueError(f"Seat {seat} has nothing to decide now")
    if req.is_set:
        raise ValueError("analyse is for street decisions; use set_move for whole sets")
    if level not in LEVELS:
        raise ValueError(f"Unknown level '{level}': choose {', '.join(LEVELS)}")
    model = _model(hand.rules, config)
    ctx = _Context(model, _opponents(hand, seat, model))
    board = hand.boards[seat]
    moves = street_moves(req)
    afters = [_after(board, m) for m in moves]
    unfair = _risk_aversion(ctx, hand.rules) if points else 0.0
    if sum(afters[0][3:]) == 0:  # the move finishes the board: exact
        out = _finished(ctx, moves, afters, unfair)
        # a clean board first, then the value; the static value breaks ties
        out.sort(key=lambda c: (-c.foul_rate, c.value, c.static), reverse=True)
        return out
    if rng is None:
        rng = random.Random(f"ai/{hand.seed}/{len(hand.log)}/{seat}")
    seen = hand.cards_seen_by(seat)
    unseen = [c for c in DECK if c not in seen]
    if COMPILED and config.live_rows:
        fast = ctx.fast(unseen, rng.getrandbits(64))
        statics = [fast.q(a[0], a[1], a[2]) for a in afters]
    else:
        statics = [model.q(a[0], a[1], a[2]) for a in afters]
    offsets = _street_bias(model, config, afters)
    if offsets is not None:
        statics = [x + o for x, o in zip(statics, offsets, strict=True)]
    order = sorted(range(len(moves)), key=lambda i: -statics[i])
    cap = candidates if candidates is not None else _CANDIDATES[level]
    order = order[: max(1, cap)]
    if include:
        order += [i for i, m in enumerate(moves)
                  if i not in order and any(same_move(m, x) for x in include)]
    if budget is None and simulations is None:
        budget = LEVELS[level]
    free = sum(afters[0][3:])
    spec = hand.spec
    pineapple = spec.street_deal != spec.street_keep
    need = free // spec.street_keep * spec.street_deal if pineapple else free
    need = min(need, len(unseen))
    batch = (_compiled_batch(ctx, unseen, need, rng, pineapple) if COMPILED
             else _python_batch(ctx, unseen, need, rng, pineapple))
    if points:
        batch = _in_points(batch, ctx.foul_value, unfair)
    if offsets is not None:
        batch = _shifted(batch, {afters[i]: offsets[i] for i in order})
    return _simulate(
        [moves[i] for i in order], [afters[i] for i in order], [statics[i] for i in order],
        batch, None if budget is None else start + _SAFETY * budget, simulations,
        config.first_halving or _FIRST_HALVING,
    )


def same_move(a: Move, b: Move) -> bool:
    """The same cards on the same rows and the same discards (in any order)."""
    return frozenset(a[0]) == frozenset(b[0]) and frozenset(a[1]) == frozenset(b[1])


def compare_moves(
    hand: Hand,
    seat: int,
    moves: Sequence[Move],
    simulations: int,
    rng: random.Random,
    config: AIConfig = DEFAULT_CONFIG,
) -> tuple[list[Candidate], list[float]]:
    """``moves`` (street moves of ``seat``, at least one) played out on the same
    ``simulations`` sampled futures, none dropped: their candidates in the order given, and the
    standard error of each one's difference with the first (0 for the first, and for every
    move of a street that finishes the board, which is scored exactly).  What
    ``engine.review`` measures a player's move against the AI's with.

    The values are points: the rollouts play as the AI's (whose risk aversion counts a foul
    ``foul_extra`` points more than it loses), but a finish that fouls is scored at what it
    loses (every row and the scoop against each opponent who may not foul: ``_in_points``)."""
    req = hand.requirement(seat)
    if req is None or req.is_set:
        raise ValueError("compare_moves is for street decisions")
    if not moves:
        raise ValueError("Nothing to compare")
    model = _model(hand.rules, config)
    ctx = _Context(model, _opponents(hand, seat, model))
    board = hand.boards[seat]
    afters = [_after(board, m) for m in moves]
    free = sum(afters[0][3:])
    unfair = _risk_aversion(ctx, hand.rules)
    if free == 0:
        out = _finished(ctx, moves, afters, unfair)
        return out, [0.0] * len(out)
    statics = [model.q(a[0], a[1], a[2]) for a in afters]
    seen = hand.cards_seen_by(seat)
    unseen = [c for c in DECK if c not in seen]
    spec = hand.spec
    pineapple = spec.street_deal != spec.street_keep
    need = min(free // spec.street_keep * spec.street_deal if pineapple else free, len(unseen))
    batch = _in_points(_compiled_batch(ctx, unseen, need, rng, pineapple) if COMPILED
                       else _python_batch(ctx, unseen, need, rng, pineapple),
                       ctx.foul_value, unfair)
    done, values, fouls, roys, fls = batch(afters, max(2, simulations), None, 0)
    out = [Candidate(move, sum(vals) / done, st, done, fouls[k] / done, roys[k] / done,
                     fls[k] / done)
           for k, (move, st, vals) in enumerate(zip(moves, statics, values, strict=True))]
    errors = []
    for vals in values:
        d = [x - y for x, y in zip(values[0], vals, strict=True)]
        mean = sum(d) / done
        errors.append(math.sqrt(sum((x - mean) ** 2 for x in d) / (done - 1) / done))
    return out, errors


_After = tuple[int, int, int, int, int, int]
_Batch = Any
"""``batch(afters, rounds, budget, min_rounds) -> (rounds done, values per candidate, fouls,
royalties, fantasylands)``: every candidate played on the same sampled futures, round after
round; with a ``budget`` (seconds) it stops before a round would pass it (once ``min_rounds``
are done)."""


def _finished(ctx: _Context, moves: Sequence[Move], afters: Sequence[_After],
              unfair: float) -> list[Candidate]:
    """The candidates of moves that finish the board, each scored exactly (a foul with
    ``unfair`` added back: see ``_in_points``), in the order given."""
    model = ctx.model
    out = []
    for move, a in zip(moves, afters, strict=True):
        v, foul, roy, flc = ctx.final(_VALUES[a[0] & MASK], _VALUES[a[1] & MASK],
                                      _VALUES[a[2] & MASK])
        out.append(Candidate(move, v + unfair * foul, model.q(a[0], a[1], a[2]), 0,
                             float(foul), float(roy), float(flc > 0), True))
    return out


def _risk_aversion(ctx: _Context, rules: Rules) -> float:
    """What the AI's risk aversion adds to a foul's loss in its values (``foul_extra`` times
    the opponents who may not foul)."""
    config = ctx.model.config
    extra = config.ofc_foul_extra if rules.variant == "ofc" else config.foul_extra
    return extra * (sum(1.0 - o.q for o in ctx.opponents) if ctx.opponents else 1.0)


def _in_points(batch: _Batch, foul_value: float, unfair: float) -> _Batch:
    """``batch`` whose values count a finish that fouls at what it loses, without the AI's
    risk aversion (``unfair``).  A fouled finish is recognised by its value, the context's
    ``foul_value``: no clean finish scores exactly that (it would take rows worth the
    foul's loss and extra to the last bit; the counts of fouls agree, tests/engine)."""

    def points(
        afters: list[_After], rounds: int, budget: float | None, min_rounds: int
    ) -> tuple[int, list[list[float]], list[int], list[int], list[int]]:
        done, values, fouls, roys, fls = batch(afters, rounds, budget, min_rounds)
        values = [[v + unfair if v == foul_value else v for v in vals] for vals in values]
        return done, values, fouls, roys, fls

    return points


def _street_bias(model: _Model, config: AIConfig, afters: list[_After]) -> list[float] | None:
    """``AIConfig.street_bias`` of every candidate board (None: nothing applies)."""
    free = sum(afters[0][3:])
    terms = [(k, w) for f, k, w in config.street_bias if f == free]
    if not terms:
        return None
    out = []
    for a in afters:
        x = model.features(a[0], a[1], a[2])[1]
        out.append(sum(w * x[k] for k, w in terms))
    return out


def _shifted(batch: _Batch, shift: dict[_After, float]) -> _Batch:
    """``batch`` with every candidate's values moved by its ``shift``."""

    def shifted(
        afters: list[_After], rounds: int, budget: float | None, min_rounds: int
    ) -> tuple[int, list[list[float]], list[int], list[int], list[int]]:
        done, vals, fo, ro, fl = batch(afters, rounds, budget, min_rounds)
        moved = [[v + shift[a] for v in vs] for a, vs in zip(afters, vals, strict=True)]
        return done, moved, fo, ro, fl

    return shifted


def _python_batch(
    ctx: _Context, unseen: list[Card], need: int, rng: random.Random, pineapple: bool
) -> _Batch:
    roll = ctx.rollout_pineapple if pineapple else ctx.rollout_single

    def batch(
        afters: list[_After], rounds: int, budget: float | None, min_rounds: int
    ) -> tuple[int, list[list[float]], list[int], list[int], list[int]]:
        values: list[list[float]] = [[] for _ in afters]
        fouls = [0] * len(afters)
        roys = [0] * len(afters)
        fls = [0] * len(afters)
        start = last = time.perf_counter()
        done = 0
        for r in range(rounds):
            if budget is not None and r >= min_rounds and r > 0:
                now = time.perf_counter()
                # stop before a round (as long as the last one) would pass the budget
                if (now - start) + (now - last) >= budget:
                    break
                last = now
            future = rng.sample(unseen, need)
            for k, a in enumerate(afters):
                v, foul, roy, flc = roll(a[0], a[1], a[2], a[3], a[4], a[5], future)
                values[k].append(v)
                fouls[k] += foul
                roys[k] += roy
                if flc:
                    fls[k] += 1
            done += 1
        return done, values, fouls, roys, fls

    return batch


def _compiled_batch(
    ctx: _Context, unseen: list[Card], need: int, rng: random.Random, pineapple: bool
) -> _Batch:
    fast = ctx.fast()
    config = ctx.model.config
    draws = config.lookahead_draws if pineapple else config.ofc_lookahead_draws
    if draws:
        fast.set_lookahead(draws, config.lookahead_moves, config.lookahead_free)

    def batch(
        afters: list[_After], rounds: int, budget: float | None, min_rounds: int
    ) -> tuple[int, list[list[float]], list[int], list[int], list[int]]:
        out: tuple[int, list[list[float]], list[int], list[int], list[int]] = fast.simulate(
            afters, unseen, need, rounds, rng.getrandbits(64), pineapple,
            0.0 if budget is None else max(budget, 1e-9), min_rounds,
        )
        return out

    return batch


def _simulate(
    moves: list[Move],
    afters: list[_After],
    statics: list[float],
    batch: _Batch,
    deadline: float | None,
    simulations: int | None,
    first_halving: int,
) -> list[Candidate]:
    n = len(moves)
    values: list[list[float]] = [[] for _ in range(n)]
    fouls = [0] * n
    roys = [0] * n
    fls = [0] * n
    alive = list(range(n))
    limit = simulations if simulations is not None else _MAX_ROUNDS
    rounds = 0
    checkpoint = max(1, first_halving)
    while rounds < limit and len(alive) > 1:
        want = min(limit, checkpoint) - rounds
        budget = None
        if deadline is not None:
            budget = deadline - time.perf_counter()
            if rounds >= 4 and budget <= 0:
                break
        done, vals, fo, ro, fl = batch([afters[i] for i in alive], want, budget,
                                       max(0, 4 - rounds))
        for k, i in enumerate(alive):
            values[i] += vals[k]
            fouls[i] += fo[k]
            roys[i] += ro[k]
            fls[i] += fl[k]
        rounds += done
        if rounds == checkpoint:
            checkpoint *= 2
            alive = _prune(alive, values, rounds)
        elif done < want:  # the budget ran out
            break
    out = []
    for i in range(n):
        k = len(values[i])
        if k == 0:
            continue
        out.append(Candidate(
            moves[i], sum(values[i]) / k, statics[i], k, fouls[i] / k, roys[i] / k, fls[i] / k,
        ))
    # the survivors (most simulations) first, then by value, then by the static value
    out.sort(key=lambda c: (c.simulations, c.value, c.static), reverse=True)
    return out


def _prune(alive: list[int], values: list[list[float]], rounds: int) -> list[int]:
    """Drop the moves that are clearly no better than the leader (paired differences: not
    better by more than ``_MATERIAL`` points at three standard errors), then halve big fields."""
    means = {i: sum(values[i]) / rounds for i in alive}
    ranked = sorted(alive, key=lambda i: -means[i])
    lead = values[ranked[0]]
    keep = [ranked[0]]
    for i in ranked[1:]:
        d = [x - y for x, y in zip(lead, values[i], strict=True)]
        mean = sum(d) / rounds
        var = sum((x - mean) ** 2 for x in d) / max(1, rounds - 1)
        se = math.sqrt(var / rounds)
        if rounds >= 16 and mean - 3.0 * se > -_MATERIAL:
            continue
        keep.append(i)
    target = max(3, (len(alive) + 1) // 2)
    return keep[:target] if len(keep) > target else keep


_MATERIAL = 0.03
_FIRST_HALVING = 32
"""Simulations every candidate gets before the field is first halved (then at twice as many,
and so on).  Halving after 8 judged on too few futures and dropped good moves: paired
on the same deals (pineapple vs random, sessions of 8, strong, 80 deals, seeds 1000+), 32
instead of 8 measured +0.58 +- 0.22 points/hand at 200 simulations and +0.30 +- 0.31 (40 deals)
at the 1 s budget; 64 measured the same as 32 (+0.02 +- 0.11).  Halving after 32 still dropped
the best move too often at the strong level: against a reference search of the same positions
(48 candidates, 4,096 futures each, no halving; two such references differ by 0.03-0.05 points)
the strong level's first-street move was 0.23 +- 0.06 points worse than the reference's best
(40 positions; 24 candidates without halving: 0.03; without the time limit but halving after
32: 0.22, so the halving, not the time, lost it); halving first after 64, 128, 256 or 512:
0.15, 0.09, 0.14, 0.22; on the second street 0.07 -> 0.03 with 128.  Yet played (README,
"AI"; ``AIConfig.first_halving``), 128 at strong measured +0.25 +- 0.24 points/hand on deals
0-59 and -0.58 +- 0.32 on deals 1000-1039, with more fouls on both (9.1% and 10.8% against 7.9%
and 8.1%): the moves the rollouts value most are not better in play, so 32 stays."""
_MAX_ROUNDS = 8192
"""Futures a time-limited search plays at most: by then the survivors are within a few
hundredths of a point of each other, and more rounds would only cost time."""
_SAFETY = 0.96
"""The search stops by this share of the budget (what is left covers choosing and placing)."""


# -- public API -----------------------------------------------------------------------------------------


def set_move(cards: Sequence[Card], rules: Rules) -> tuple[Move, float, str]:
    """A whole 13-card set (fantasyland: plus discards): the solver, else the greedy set.
    Returns the move, its value (fantasyland: royalties plus the stay bonus; chinese: the
    expected points against a typical opponent) and a note."""
    board: Board | None = None
    discards: tuple[Card, ...] = ()
    score = 0.0
    note = ""
    try:
        from . import solver

        if rules.variant == "chinese":
            board = solver.best_chinese_setting(list(cards), rules)
            score = solver.chinese_setting_value(board, rules)
            note = "best setting"
        else:
            sol = solver.solve_fantasyland(list(cards), rules)
            board, discards, score = sol.board, tuple(sol.discards), float(sol.score)
            note = ("stays in fantasyland" if sol.stays else
                    f"shoots the moon (+{rules.shoot_the_moon_points} from each opponent)"
                    if sol.moon else "")
    except Exception:  # the solver is optional: a timeout must never fail
        board = None
    if board is None or len(board) != 13 or board.is_foul(rules):
        greedy, greedy_discards = greedy_set(cards)
        if board is None or len(board) != 13 or not greedy.is_foul(rules):
            board, discards, score = greedy, greedy_discards, 0.0
            note = "greedy setting"
    if rules.has_royalties and not score:
        score = float(board.royalties(rules))
    placed = tuple((c, r) for r, row in enumerate(board.rows) for c in row)
    return (placed, discards), score, note


def choose_natural(hand: Hand, seat: int) -> str | None:
    """Chinese poker: the natural worth declaring with these 13 cards (None: set the hand)."""
    req = hand.requirement(seat)
    if req is None or hand.rules.variant != "chinese" or len(req.cards) != 13:
        return None
    from .naturals import best_natural

    held = best_natural(req.cards, hand.rules)
    if held is None:
        return None
    try:
        from . import solver

        worth = solver.natural_worth_declaring(list(req.cards), hand.rules)
    except Exception:
        return held[0]
    if isinstance(worth, str):
        return worth or None
    return held[0] if worth else None


_WARMED: set[Variant] = set()
_WARM_LOCK = threading.Lock()


def warm_up(variants: Sequence[Variant] = ("pineapple", "ofc"), hands: int = 2) -> float:
    """Fill the caches the AI builds as it meets rows (the random fills of each abstract row,
    the rows' worths) for the default rules of ``variants``, by playing ``hands`` seeded hands
    against itself at a fixed, small number of futures.  A new process's first decisions
    otherwise spend most of their budget filling them (the easy level's first pineapple
    decision took about twice its 0.05 s).  A variant already warmed in this process is
    skipped.  Returns the seconds it took; the bot runs it in a thread at start."""
    from .hand import Hand  # engine.hand imports this module

    start = time.perf_counter()
    for variant in variants:
        with _WARM_LOCK:
            if variant in _WARMED:
                continue
            _WARMED.add(variant)
        rules = Rules(variant=variant)
        for k in range(hands):
            hand = Hand(rules, ["warm-up 1", "warm-up 2"], button=1, seed=f"warm-up/{k}")
            while not hand.is_over:
                seat = hand.to_act()[0]
                req = hand.requirement(seat)
                if req is None or req.is_set:
                    hand.autoplay(seat)
                    continue
                placed, dropped = choose_move(hand, seat, "easy", random.Random(k), simulations=64)
                hand.place(seat, placed, dropped)
    return time.perf_counter() - start


def choose_move(
    hand: Hand,
    seat: int,
    level: str = "normal",
    rng: random.Random | None = None,
    budget: float | None = None,
    simulations: int | None = None,
    config: AIConfig = DEFAULT_CONFIG,
) -> Move:
    """The AI's (placements, discards) for ``seat`` now.  ``budget`` (seconds) defaults to the
    level's; ``simulations`` fixes the number of sampled futures instead (reproducible with a
    seeded ``rng``)."""
    req = hand.requirement(seat)
    if req is None:
        raise ValueError(f"Seat {seat} has nothing to decide now")
    if req.is_set:
        return set_move(req.cards, hand.rules)[0]
    moves = street_moves(req)
    if len(moves) == 1:
        return moves[0]
    return analyse(hand, seat, level, rng, budget, simulations, config)[0].move


@dataclass(frozen=True)
class Suggestion:
    placements: tuple[tuple[Card, int], ...]
    discards: tuple[Card, ...]
    value: float
    """Expected points of the move (over every opponent; royalties and fantasyland included)."""
    explanation: str


def describe_move(move: Move) -> str:
    """``Ah Kd top, 7c bottom, 2s discard`` (the ``/ofc place`` syntax: ``parse_move`` reads
    it back)."""
    from .notation import format_move

    return format_move(move[0], move[1])


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def suggest(
    hand: Hand,
    seat: int,
    level: str = "normal",
    rng: random.Random | None = None,
    budget: float | None = None,
    simulations: int | None = None,
) -> Suggestion:
    """The AI's move for ``seat`` with its expected value and a short explanation."""
    req = hand.requirement(seat)
    if req is None:
        raise ValueError("You have nothing to place now")
    if req.is_set:
        return _suggest_set(hand, seat, req)
    moves = street_moves(req)
    if len(moves) == 1:
        return Suggestion(moves[0][0], moves[0][1], 0.0,
                          f"{describe_move(moves[0])}: the only legal move.")
    found = analyse(hand, seat, level, rng, budget, simulations)
    best = found[0]
    after = hand.boards[seat].place(best.move[0])
    text = describe_move(best.move)
    if best.exact:
        if best.foul_rate:
            why = "every way to finish fouls; this one costs least"
        else:
            rows = "; ".join(
                f"{name} {describe_value(v)}" for name, v in zip(ROWS, after.values(), strict=True)
            )
            why = f"finishes clean ({rows})"
            if best.royalties:
                why += f", royalties {best.royalties:.0f}"
            if best.fantasyland_rate:
                why += ", into fantasyland"
        explanation = f"{text}: {why}; worth {signed_points(best.value)} points"
        cards = after.fantasyland_cards(hand.rules) if not best.foul_rate else 0
        if cards:
            model = _model(hand.rules, DEFAULT_CONFIG)
            fl = model.config.fantasyland_value(cards) * max(1, len(_opponents(hand, seat, model)))
            explanation += (f", of which {fl:.1f} is what the fantasyland of {cards} cards is "
                            "expected to bring")
        explanation += "."
    else:
        explanation = (
            f"{text}: {signed_points(best.value)} points expected over {best.simulations} simulated "
            f"finishes (foul {_pct(best.foul_rate)}, royalties {best.royalties:.1f}"
            + (f", fantasyland {_pct(best.fantasyland_rate)}" if hand.rules.has_fantasyland else "")
            + (", a fantasyland counted at what it is expected to bring"
               if hand.rules.has_fantasyland and best.fantasyland_rate else "")
            + ")."
        )
    if len(found) > 1:
        second = found[1]
        explanation += f" Next best: {describe_move(second.move)} ({signed_points(second.value)})."
    return Suggestion(best.move[0], best.move[1], best.value, explanation)


def _suggest_set(hand: Hand, seat: int, req: Requirement) -> Suggestion:
    natural = choose_natural(hand, seat)
    move, score, note = set_move(req.cards, hand.rules)
    board = Board().place(move[0])
    text = describe_move(move)  # what /ofc place (and the terminal) read back
    if natural:
        value = float(hand.rules.natural_values.get(natural, 0))
        return Suggestion(move[0], move[1], value,
                          f"Declare {natural} (worth {value:.0f} from each opponent). Otherwise: "
                          f"{text}.")
    extra = []
    if hand.rules.has_royalties:
        extra.append(f"royalties {board.royalties(hand.rules)}")
    if note:
        extra.append(note)
    if hand.rules.variant == "chinese" and note == "best setting":
        extra.append(f"about {signed_points(score)} points against a typical opponent")
    return Suggestion(move[0], move[1], score,
                      text + (f" ({', '.join(extra)})" if extra else "") + ".")
