"""Speed of the AI's rollouts: compiled (``engine._fastai``) against the Python rollouts.

``python -m bench.rollouts`` (part of ``make bench``) plays the same sampled futures from the same
positions (every street decision of a few seeded hands, ofc and pineapple, 2 players) with both
implementations, checks that they return the same results, and prints rollouts per second of
each and their ratio.  Caches are warmed first (one pass), so the figures are what a running
bot sees; the best of ``--repeat`` passes is kept (the machine is shared).
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from engine import DECK, Hand, Rules
from engine.ai import COMPILED, DEFAULT_CONFIG, _after, _Context, _model, _opponents
from engine.autoplay import street_moves

Job = tuple[_Context, tuple[int, int, int, int, int, int], list[list[int]], bool]


def jobs(variant: str, hands: int, futures: int) -> list[Job]:
    """(decision, candidate after-state, sampled futures, pineapple) for every street decision
    of ``hands`` seeded hands (a random candidate move per decision)."""
    rules = Rules(variant=variant)
    out: list[Job] = []
    for k in range(hands):
        rng = random.Random(f"bench-rollouts/{variant}/{k}")
        hand = Hand(rules, ["A", "B"], seed=f"bench-rollouts/{variant}/{k}")
        while not hand.is_over:
            seat = hand.to_act()[0]
            req = hand.requirement(seat)
            assert req is not None
            move = rng.choice(street_moves(req))
            after = _after(hand.boards[seat], move)
            free = sum(after[3:])
            if free:
                model = _model(rules, DEFAULT_CONFIG)
                ctx = _Context(model, _opponents(hand, seat, model))
                seen = hand.cards_seen_by(seat)
                unseen = [c for c in DECK if c not in seen]
                pineapple = hand.spec.street_deal != hand.spec.street_keep
                need = free // 2 * 3 if pineapple else free
                out.append((ctx, after, [rng.sample(unseen, need) for _ in range(futures)],
                            pineapple))
            hand.place(seat, *move)
    return out


def run_python(work: list[Job]) -> tuple[float, list[tuple[float, int, int, int]]]:
    results = []
    t = time.perf_counter()
    for ctx, a, futures, pineapple in work:
        roll = ctx.rollout_pineapple if pineapple else ctx.rollout_single
        results += [roll(*a, f) for f in futures]
    return time.perf_counter() - t, results


def run_compiled(work: list[Job]) -> tuple[float, list[tuple[float, int, int, int]]]:
    results = []
    t = time.perf_counter()
    for ctx, a, futures, pineapple in work:
        fast = ctx.fast()
        results += [fast.rollout(a, f, pineapple) for f in futures]
    return time.perf_counter() - t, results


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.rollouts", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hands", type=int, default=6)
    p.add_argument("--futures", type=int, default=60, help="sampled futures per position")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    if not COMPILED:
        print("engine._fastai is not built (pip install -e . builds it): nothing to compare")
        return 1
    print("AI rollouts, the same positions and futures (2 players, default rules, learned "
          "value); best of", args.repeat)
    print(f"{'variant':9} {'rollouts':>8}  {'python /s':>10}  {'compiled /s':>11}  ratio")
    for variant in ("ofc", "pineapple"):
        work = jobs(variant, args.hands, args.futures)
        n = sum(len(j[2]) for j in work)
        _, expected = run_python(work)  # warm both caches; the results must agree
        _, got = run_compiled(work)
        if got != expected:
            print(f"{variant}: the compiled rollouts differ from the Python ones")
            return 1
        py = min(run_python(work)[0] for _ in range(args.repeat))
        c = min(run_compiled(work)[0] for _ in range(args.repeat))
        print(f"{variant:9} {n:8d}  {n / py:10,.0f}  {n / c:11,.0f}  {py / c:5.1f}x")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
