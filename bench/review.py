"""Speed of a hand's review (``engine.review``, ``/ofc review``) against its peer, the strong
bot deciding the same positions.

``python -m bench.review`` (part of ``make bench``) plays ``--hands`` seeded hands of ofc and of
pineapple (2 players: seat 0 at random, so that its decisions differ from the AI's; seat 1 the
easy AI), then for each hand times the review of seat 0's decisions and, on the same positions
(what seat 0 could see before each decision), the strong level choosing a move (its budget is
1 s a decision; it stops sooner when one move is left).  Both run in this process, caches
warmed first.  It prints the median seconds of each per hand, their ratio, and the median
standard error of the differences the review gives.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from engine import Hand, Rules
from engine.ai import choose_move, warm_up
from engine.autoplay import street_moves
from engine.review import decisions, judge


def played(variant: str, k: int) -> Hand:
    rng = random.Random(f"bench-review/{variant}/{k}")
    hand = Hand(Rules(variant=variant), ["A", "B"], button=1, seed=f"bench-review/{variant}/{k}")
    while not hand.is_over:
        seat = hand.to_act()[0]
        req = hand.requirement(seat)
        assert req is not None
        if seat == 0:
            hand.place(0, *rng.choice(street_moves(req)))
        else:
            hand.place(seat, *choose_move(hand.redacted_for(seat), seat, "easy",
                                          random.Random(k), simulations=64))
    return hand


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.review", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hands", type=int, default=5)
    args = p.parse_args(argv)
    warm_up()
    print(f"Review of a hand against the strong bot deciding the same positions "
          f"({args.hands} hands each, 2 players; medians per hand)")
    print(f"{'variant':9} {'decisions':>9}  {'review s':>8}  {'strong s':>8}  ratio  "
          f"{'std err':>7}")
    for variant in ("ofc", "pineapple"):
        reviews, strongs, errors, count = [], [], [], 0
        for k in range(args.hands):
            data = played(variant, k).to_json()
            found = decisions(data, 0)
            count += len(found)
            t = time.perf_counter()
            verdicts = [judge(d) for d in found]
            reviews.append(time.perf_counter() - t)
            errors += [v.error for v in verdicts if v.error]
            t = time.perf_counter()
            for d in found:
                if len(street_moves(d.before.requirement(0))) > 1:  # type: ignore[arg-type]
                    choose_move(d.before, 0, "strong", random.Random(k))
            strongs.append(time.perf_counter() - t)
        review, strong = statistics.median(reviews), statistics.median(strongs)
        print(f"{variant:9} {count / args.hands:9.1f}  {review:8.2f}  {strong:8.2f}  "
              f"{review / strong:4.2f}x  {statistics.median(errors or [0.0]):7.2f}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
