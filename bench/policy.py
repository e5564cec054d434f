"""The AI's rollout policy on its own: what it makes of whole pineapple hands.

``python -m bench.policy`` deals the same seeded hands to each policy and lets it play them
alone from an empty board in the compiled core (``engine._fastai.Ctx.selfplay``): the first
street the best placement of its five cards by the learned value, then the rollout policy
(greedy on the value, or with the lookahead), the last street exactly.  Every finished board is
scored by the search's own measure (``_Context.final``: royalties, the fantasyland value, the
foul weight) against one unseen opponent who fouls with chance ``--q``.  It measures the policy
the search relies on, in thousands of hands a second; a search plays far better than its
rollout policy, so a better policy here is not a better AI (``bench.ai`` measures that).

    python -m bench.policy                       # greedy and the default lookahead, 20,000 hands
    python -m bench.policy --lookahead 32,8,6    # and the lookahead with 32 draws of the best
                                                 # 8 moves at streets with <= 6 free slots

Each policy after the first is paired with the first on the same hands (the difference of
their means with its standard error).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Sequence

from engine import DECK, Rules
from engine.ai import COMPILED, DEFAULT_CONFIG, _Context, _model, _Opponent

Result = tuple[float, int, int, int, tuple[int, ...]]

DEFAULT_POLICIES = ((0, 0, 0), (DEFAULT_CONFIG.lookahead_draws, DEFAULT_CONFIG.lookahead_moves,
                                DEFAULT_CONFIG.lookahead_free))


def play(hands: int, seed: int, q: float, lookahead: tuple[int, int, int]) -> list[Result]:
    """``hands`` seeded pineapple hands played by the rollout policy with this lookahead
    (draws, moves, free slots; 0 draws: greedy on the value)."""
    model = _model(Rules(variant="pineapple"), DEFAULT_CONFIG)
    fast = _Context(model, [_Opponent(q, (None, None, None), (0, 0, 0), model.tables)]).fast()
    draws, moves, free = lookahead
    if draws:
        fast.set_lookahead(draws, moves, free, seed)
    results: list[Result] = fast.selfplay(list(DECK), hands, seed)
    return results


def summary(results: Sequence[Result], base: Sequence[Result] | None = None) -> str:
    """Mean value, foul and fantasyland rates, royalties (and the paired difference)."""
    n = len(results)
    mean = sum(r[0] for r in results) / n
    fouls = sum(r[1] for r in results) / n
    fl = sum(1 for r in results if r[3]) / n
    roy = sum(r[2] for r in results) / n
    text = f"{mean:7.3f}  {fouls:6.1%}  {fl:6.1%}  {roy:5.2f}"
    if base is not None:
        d = [a[0] - b[0] for a, b in zip(results, base, strict=True)]
        se = statistics.stdev(d) / math.sqrt(n) if n > 1 else float("nan")
        text += f"  {statistics.fmean(d):+7.3f} ± {se:.3f}"
    return text


def parse_lookahead(text: str) -> tuple[int, int, int]:
    try:
        draws, moves, free = (int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected draws,moves,free_slots, e.g. 32,8,6") from None
    if not (0 <= draws <= 64 and moves >= 1 and 0 <= free <= 13):
        raise argparse.ArgumentTypeError(
            f"{text!r}: draws 0-64, moves at least 1, free slots 0-13")
    return draws, moves, free


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.policy", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hands", type=int, default=20_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--q", type=float, default=0.5,
                   help="the unseen opponent's chance of fouling (default 0.5)")
    p.add_argument("--lookahead", type=parse_lookahead, action="append", default=[],
                   help="draws,moves,free_slots of another policy (repeatable)")
    args = p.parse_args(argv)
    if not COMPILED:
        print("engine._fastai is not built (pip install -e . builds it): nothing to measure")
        return 1
    if args.hands < 2 or not 0.0 <= args.q <= 1.0:
        p.error("--hands at least 2, --q from 0 to 1")
    print(f"the rollout policy alone: {args.hands} pineapple hands (seed {args.seed}), "
          f"one unseen opponent fouling with chance {args.q}")
    print(f"{'lookahead':>10}  {'value':>7}  {'foul':>6}  {'FL':>6}  {'roy':>5}  "
          f"{'vs first':>15}  hands/s")
    base: list[Result] | None = None
    for policy in (*DEFAULT_POLICIES, *args.lookahead):
        t = time.perf_counter()
        results = play(args.hands, args.seed, args.q, policy)
        rate = len(results) / (time.perf_counter() - t)
        label = "greedy" if policy[0] == 0 else ",".join(map(str, policy))
        line = summary(results, base)
        if base is None:
            line += " " * 17
        print(f"{label:>10}  {line}  {rate:7,.0f}")
        sys.stdout.flush()
        base = base or results
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
