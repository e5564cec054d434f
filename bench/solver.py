"""Fantasyland solver benchmark and the stay-value simulation: ``python -m bench.solver``.

* Timing: median time of ``solve_fantasyland`` for 13-17 cards on fixed seeds (pineapple rules,
  default stay values), measured ``--repeat`` times (the machine is shared: the best median is
  the fair one), printed next to the published anchor (148 solves/s at 14 cards, 1.5/s at 17).
* Stay value (``DEFAULT_STAY_VALUE`` in ``engine/solver.py``): the value of a fantasyland hand
  dealt ``n`` cards, V(n) = mean royalties of the solved hand + sum over k of P(stay with k cards)
  * V(k), i.e. the geometric chain of stays, solved as a fixed point (the solver's choices depend
  on V) over fixed random deals.  Standard errors by bootstrap over the deals.
* ``--chinese-table``: regenerates ``engine.solver._CHINESE_QUANTILES`` (see there).

Options: ``--quick`` (fewer deals), ``--no-stay``, ``--no-timing``, ``--deals N``, ``--repeat R``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Mapping, Sequence

from engine.cards import DECK, Card
from engine.rules import Rules
from engine.solver import (
    DEFAULT_STAY_VALUE,
    _chinese_best,
    _ChineseModel,
    _greedy_board,
    solve_fantasyland,
)

ANCHOR_PER_SECOND = {14: 148.0, 17: 1.5}
"""Published anchor speeds (solves per second)."""
TIMING_DEALS = {13: 200, 14: 200, 15: 100, 16: 50, 17: 20}
SEED = 20240501


def deals(n: int, count: int, seed: int) -> list[list[Card]]:
    rng = random.Random(seed * 100 + n)
    return [rng.sample(DECK, n) for _ in range(count)]


def time_solves(n: int, count: int, rules: Rules) -> list[float]:
    out = []
    for cards in deals(n, count, SEED):
        t0 = time.perf_counter()
        solve_fantasyland(cards, rules)
        out.append(time.perf_counter() - t0)
    return out


def run_timing(repeat: int, scale: float) -> None:
    rules = Rules(variant="pineapple")
    print("solve_fantasyland timing (pineapple rules, default stay values)")
    print(f"{'cards':>5} {'deals':>5}  {'median ms (each run)':<28} {'best':>8}  "
          f"{'solves/s':>9}  anchor")
    for n, count in TIMING_DEALS.items():
        count = max(5, int(count * scale))
        medians = [statistics.median(time_solves(n, count, rules)) for _ in range(repeat)]
        best = min(medians)
        runs = " ".join(f"{m * 1000:.2f}" for m in medians)
        line = f"{n:>5} {count:>5}  {runs:<28} {best * 1000:>8.2f}  {1 / best:>9.1f}"
        anchor = ANCHOR_PER_SECOND.get(n)
        if anchor is not None:
            line += f"  {anchor:g}/s ({1000 / anchor:.1f} ms): {1 / best / anchor:.1f}x the anchor"
        print(line, flush=True)


# -- stay value -------------------------------------------------------------------------------


def _solve_linear(r: Mapping[int, float], p: Mapping[int, Mapping[int, float]]) -> dict[int, float]:
    """V = r + P V for the counts in r (Gauss-Jordan; the system is 1x1 or 2x2)."""
    keys = sorted(r)
    size = len(keys)
    a = [[(1.0 if i == j else 0.0) - p[keys[i]].get(keys[j], 0.0) for j in range(size)]
         + [r[keys[i]]] for i in range(size)]
    for col in range(size):
        piv = max(range(col, size), key=lambda row: abs(a[row][col]))
        a[col], a[piv] = a[piv], a[col]
        for row in range(size):
            if row != col:
                f = a[row][col] / a[col][col]
                a[row] = [x - f * y for x, y in zip(a[row], a[col], strict=True)]
    return {k: a[i][size] / a[i][i] for i, k in enumerate(keys)}


def _chain(outcomes: Mapping[int, Sequence[tuple[int, int]]]) -> dict[int, float]:
    r = {n: statistics.fmean(roy for roy, _ in outs) for n, outs in outcomes.items()}
    p: dict[int, dict[int, float]] = {}
    for n, outs in outcomes.items():
        p[n] = {}
        for _, stay in outs:
            if stay:
                p[n][stay] = p[n].get(stay, 0.0) + 1 / len(outs)
    return _solve_linear(r, p)


def stay_chain(
    label: str, rules: Rules, counts: Mapping[int, int], start: Mapping[int, float],
    max_rounds: int = 8,
) -> dict[int, tuple[float, float]]:
    """Fixed point of V(n) = E[royalties] + sum_k P(stay with k) V(k) for the hand sizes in
    ``counts`` (hand size -> number of deals).  Returns n -> (V, standard error)."""
    hands = {n: deals(n, c, SEED + 7) for n, c in counts.items()}
    values = {n: float(start.get(n, 0.0)) for n in counts}
    outcomes: dict[int, list[tuple[int, int]]] = {}
    t0 = time.perf_counter()
    for rnd in range(1, max_rounds + 1):
        table = dict(values)
        outcomes = {}
        for n, hs in hands.items():
            outs = []
            for cards in hs:
                sol = solve_fantasyland(cards, rules, stay_value=table)
                outs.append((sol.royalties, sol.stay_cards))
            outcomes[n] = outs
        new = _chain(outcomes)
        delta = max(abs(new[n] - values[n]) for n in counts)
        values = new
        shown = ", ".join(f"V({n})={v:.3f}" for n, v in sorted(values.items()))
        print(f"  {label} round {rnd}: {shown}  (change {delta:.3f})", flush=True)
        if delta < 1e-9:
            break
    # bootstrap over deals, the solver's choices held fixed
    rng = random.Random(SEED)
    boots: dict[int, list[float]] = {n: [] for n in counts}
    for _ in range(300):
        sample = {n: [outs[rng.randrange(len(outs))] for _ in outs] for n, outs in outcomes.items()}
        for n, v in _chain(sample).items():
            boots[n].append(v)
    result = {}
    for n in sorted(counts):
        outs = outcomes[n]
        mean_roy = statistics.fmean(r for r, _ in outs)
        sd_roy = statistics.stdev(r for r, _ in outs)
        stay = sum(1 for _, s in outs if s) / len(outs)
        se = statistics.stdev(boots[n])
        result[n] = (values[n], se)
        print(
            f"  {label} {n} cards, {len(outs)} deals: royalties {mean_roy:.3f} "
            f"(sd {sd_roy:.2f}, se {sd_roy / len(outs) ** 0.5:.3f}), stays {stay:.2%}, "
            f"V = {values[n]:.2f} +- {se:.2f}  ({time.perf_counter() - t0:.0f} s)",
            flush=True,
        )
    return result


def run_stay(deal_count: int) -> None:
    print(f"\nstay-value simulation (fixed point, {deal_count} deals per hand size)")
    ofc = stay_chain("ofc", Rules(variant="ofc"), {13: deal_count}, DEFAULT_STAY_VALUE)
    pine = stay_chain("pineapple", Rules(variant="pineapple"), {14: deal_count},
                      DEFAULT_STAY_VALUE)
    prog = stay_chain(
        "progressive stay", Rules(variant="pineapple", progressive_stay=True),
        {14: deal_count // 2, 15: deal_count // 2}, DEFAULT_STAY_VALUE,
    )
    print("\nmeasured (DEFAULT_STAY_VALUE in engine/solver.py):")
    print(f"  13: {ofc[13][0]:.2f} +- {ofc[13][1]:.2f}   (ofc chain)")
    print(f"  14: {pine[14][0]:.2f} +- {pine[14][1]:.2f}   (pineapple chain)")
    print(f"  15: {prog[15][0]:.2f} +- {prog[15][1]:.2f}   (pineapple progressive-stay chain; "
          f"its 14 = {prog[14][0]:.2f} +- {prog[14][1]:.2f})")
    print(f"  in the module now: {dict(DEFAULT_STAY_VALUE)}")


CHINESE_TABLE_DEALS = 4000
CHINESE_TABLE_ROUNDS = 8
QUANTILES = 100


def _quantiles(values: list[int], k: int = QUANTILES) -> tuple[int, ...]:
    values = sorted(values)
    n = len(values)
    return tuple(values[min(n - 1, int((i + 0.5) * n / k))] for i in range(k))


def chinese_table(
    deal_count: int = CHINESE_TABLE_DEALS, rounds: int = CHINESE_TABLE_ROUNDS, verbose: bool = True
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Quantiles of an opponent's top, middle and bottom values in classic Chinese poker
    (default rules), by fictitious play over fixed random deals: round 0 sets them greedily (best
    five on the bottom, best five of the rest in the middle); round k sets them with
    ``best_chinese_setting`` against the table of every setting made in rounds 1..k-1 (pooled;
    the plain best response to the last round oscillates, about 20% of the row categories
    flipping every round, the pooled one settles)."""
    rules = Rules(variant="chinese")
    hands = deals(13, deal_count, SEED + 13)
    boards = [_greedy_board(sorted(h)) for h in hands]
    table = tuple(_quantiles([int(b.values()[r]) for b in boards]) for r in range(3))
    pool: list[list[int]] = [[], [], []]
    for rnd in range(1, rounds + 1):
        t0 = time.perf_counter()
        model = _ChineseModel(table, rules)
        new_boards = [_chinese_best(h, rules, model)[0] for h in hands]
        changed = sum(
            tuple(v.category for v in a.values()) != tuple(v.category for v in b.values())
            for a, b in zip(boards, new_boards, strict=True)
        )
        boards = new_boards
        for r in range(3):
            pool[r].extend(int(b.values()[r]) for b in boards)
        table = tuple(_quantiles(pool[r]) for r in range(3))
        if verbose:
            print(f"  round {rnd}: row categories changed in {changed / len(hands):.1%} of the "
                  f"settings ({time.perf_counter() - t0:.0f} s)", flush=True)
    return (table[0], table[1], table[2])


def run_chinese_table() -> int:
    print(f"chinese percentile table: {CHINESE_TABLE_DEALS} deals, {CHINESE_TABLE_ROUNDS} rounds")
    table = chinese_table()
    print("_CHINESE_QUANTILES = (")
    for row in table:
        print("    (")
        items = [f"0x{v:x}," for v in row]
        line = "       "
        for item in items:
            if len(line) + 1 + len(item) > 99:
                print(line)
                line = "       "
            line += " " + item
        print(line)
        print("    ),")
    print(")")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.solver", description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer deals")
    ap.add_argument("--no-stay", action="store_true", help="skip the stay-value simulation")
    ap.add_argument("--no-timing", action="store_true", help="skip the timing")
    ap.add_argument("--deals", type=int, default=4000, help="deals per hand size (stay sim)")
    ap.add_argument("--repeat", type=int, default=3, help="timing runs per hand size")
    ap.add_argument("--chinese-table", action="store_true",
                    help="regenerate the chinese percentile table and print it")
    args = ap.parse_args(argv)
    if args.chinese_table:
        return run_chinese_table()
    if not args.no_timing:
        run_timing(1 if args.quick else args.repeat, 0.25 if args.quick else 1.0)
    if not args.no_stay:
        run_stay(400 if args.quick else args.deals)
    return 0


if __name__ == "__main__":
    sys.exit(main())
