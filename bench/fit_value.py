"""Fit the AI's learned board value (writes ``engine/ai_values.py`` with ``--write``).

The rollout policy of ``engine.ai`` picks, at every street of a simulated future, the move with
the best board value.  The static value ``Q`` assumes a row's free slots are filled at random,
which misjudges what a player who routes cards can make (fouls, fantasyland draws, the bottom
row).  This script fits a better value, by rounds of policy evaluation and improvement:

1. Play hands (the AI at ``--sims`` simulations per decision, 60 by default, half of them
   against a random player, half in self-play; ``--against random`` or ``self`` for one kind
   only).  At every street decision that does not finish the board, take the candidate moves
   (the best 20 by the current value and 20 more at random) and estimate each resulting
   position's value by ``--futures`` rollouts of the *current* rollout policy on the same
   sampled futures (what the Monte Carlo search itself would measure).
2. For each stage (free slots left), fit the value as a linear function of the base features of
   ``_Model.features`` (``engine.ai.BOARD_FEATURES`` and each row's ``ROW_FEATURES``) and their
   products ``engine.ai.QUADRATIC_TERMS`` by ridge least squares on those targets.  Every
   candidate's own value is a target, not only the move that was played, so the fit does not
   learn which positions the player chose to reach.  With ``--centered`` only the differences
   between the candidates of one decision are fitted (all the rollout policy ever compares).
3. The greedy policy on the fitted value is the next round's rollout policy.

It prints, per stage, the held-out R^2 (within decisions) and the "regret" of choosing by the
value among a decision's candidates (the target of the best candidate minus the target of the
chosen one, in points; lower is better), for the fitted value and for the value that played the
rollouts.
The built-in weights were fitted with (about 35 and 12 minutes on 2 cores):

    python -m bench.fit_value --variant pineapple --hands 1000 --rounds 2 --centered --ridge 10 --write
    python -m bench.fit_value --variant ofc --hands 800 --rounds 2 --centered --ridge 10 --write

``--config`` sets the AI of the fitting games and rollouts (``AIConfig`` fields, as in
``bench.ai``): the built-in pineapple value was fitted when ``foul_extra`` was 10 (now 20)
and before the compiled core existed, so its games were played with the greedy rollout policy
(no lookahead): ``--config foul_extra=10,lookahead_draws=0`` fits the way it was.  The ``mc``
method reads ``--config`` too (on top of ``--live``); ``backup`` does not.

Needs numpy (installed with matplotlib); the engine itself only reads the weights.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from engine import Hand, Rules
from engine.ai import (
    DEFAULT_CONFIG,
    FEATURE_COUNT,
    QUADRATIC_TERMS,
    AIConfig,
    _after,
    _Context,
    _Model,
    _model,
    _Opponent,
    _opponents,
    choose_move,
)
from engine.autoplay import street_moves
from engine.cards import DECK

from .ai import parse_config

Sample = tuple[int, list[float], float]
"""(stage, base features, target) of one candidate position (``_Model.features``)."""

_TOP_CANDIDATES = 20
_RANDOM_CANDIDATES = 20


def _against_random(against: str, k: int) -> bool:
    """Whether hand ``k`` is played against a random player (``--against``: ``mixed`` every
    other hand, ``random`` all, ``self`` none)."""
    return against == "random" or (against == "mixed" and k % 2 == 0)


def _play_and_sample(job: tuple[str, int, int, AIConfig, str, int]) -> list[list[Sample]]:
    """One hand: the AI (seat 0, ``sims`` simulations per decision) against random or itself
    (``_against_random``); the samples of every street decision of the AI's seats."""
    variant, k, futures, config, against, sims = job
    rules = Rules(variant=variant)
    rng = random.Random(f"fit/{variant}/{k}")
    against_random = _against_random(against, k)
    hand = Hand(rules, ["A", "B"], button=k % 2, seed=f"fit/{variant}/{k}")
    model = _model(rules, config)
    out: list[list[Sample]] = []
    while not hand.is_over:
        seat = hand.to_act()[0]
        req = hand.requirement(seat)
        assert req is not None
        if seat == 1 and against_random and not req.is_set:
            placed, dropped = rng.choice(street_moves(req))
            hand.place(seat, placed, dropped)
            continue
        if req.is_set:
            hand.autoplay(seat)
            continue
        board = hand.boards[seat]
        moves = street_moves(req)
        afters = [_after(board, m) for m in moves]
        if sum(afters[0][3:]) > 0:
            out.append(_sample_decision(hand, seat, afters, futures, model, rng))
        placed, dropped = choose_move(hand, seat, "normal", simulations=sims, config=config,
                                      rng=random.Random(f"fit/{k}/{len(hand.log)}"))
        hand.place(seat, placed, dropped)
    return out


def _sample_decision(
    hand: Hand, seat: int, afters: list[tuple[int, int, int, int, int, int]], futures: int,
    model: Any, rng: random.Random,
) -> list[Sample]:
    ctx = _Context(model, _opponents(hand, seat, model))
    index = sorted(range(len(afters)), key=lambda i: -model.q(*afters[i][:3]))
    if len(index) > _TOP_CANDIDATES + _RANDOM_CANDIDATES:
        index = index[:_TOP_CANDIDATES] + rng.sample(index[_TOP_CANDIDATES:], _RANDOM_CANDIDATES)
    seen = hand.cards_seen_by(seat)
    unseen = [c for c in DECK if c not in seen]
    free = sum(afters[0][3:])
    spec = hand.spec
    if spec.street_deal == spec.street_keep:
        need, roll = free, ctx.rollout_single
    else:
        need, roll = free // spec.street_keep * spec.street_deal, ctx.rollout_pineapple
    need = min(need, len(unseen))
    sampled = [rng.sample(unseen, need) for _ in range(futures)]
    samples = []
    for i in index:
        a = afters[i]
        target = sum(roll(*a, f)[0] for f in sampled) / futures
        stage, x = model.features(a[0], a[1], a[2])
        samples.append((stage, x, target))
    return samples


Decision = tuple[int, list[tuple[float, tuple[int | None, ...], tuple[int, ...]]], list[int],
                 bool, list[tuple[int, int, int, int, int, int]]]
"""(stage, opponents (q, exact rows, lower bounds), unseen cards, pineapple, candidate afters)
of one street decision, for the backup targets."""


def _collect(job: tuple[str, int, AIConfig, int]) -> list[Decision]:
    """One hand: the AI (seat 0) against random (even jobs) or itself; what every street
    decision of the AI's seats needs for a backup target (``--method backup``)."""
    variant, k, config, sims = job
    rules = Rules(variant=variant)
    rng = random.Random(f"backup/{variant}/{k}")
    against_random = k % 2 == 0
    hand = Hand(rules, ["A", "B"], button=k % 2, seed=f"backup/{variant}/{k}")
    model = _model(rules, config)
    out: list[Decision] = []
    while not hand.is_over:
        seat = hand.to_act()[0]
        req = hand.requirement(seat)
        assert req is not None
        if seat == 1 and against_random and not req.is_set:
            hand.place(seat, *rng.choice(street_moves(req)))
            continue
        if req.is_set:
            hand.autoplay(seat)
            continue
        board = hand.boards[seat]
        afters = [_after(board, m) for m in street_moves(req)]
        if sum(afters[0][3:]) > 0:
            index = sorted(range(len(afters)), key=lambda i: -model.q(*afters[i][:3]))
            if len(index) > _TOP_CANDIDATES + _RANDOM_CANDIDATES:
                index = (index[:_TOP_CANDIDATES]
                         + rng.sample(index[_TOP_CANDIDATES:], _RANDOM_CANDIDATES))
            seen = hand.cards_seen_by(seat)
            opponents = [(o.q, o.exact, o.lower) for o in _opponents(hand, seat, model)]
            out.append((sum(afters[0][3:]), opponents, [c for c in DECK if c not in seen],
                        hand.spec.street_deal != hand.spec.street_keep,
                        [afters[i] for i in index]))
        placed, dropped = choose_move(hand, seat, "normal", simulations=sims, config=config,
                                      rng=random.Random(f"backup/{k}/{len(hand.log)}"))
        hand.place(seat, placed, dropped)
    return out


def _contexts(
    variant: str, config: AIConfig, decisions: list[Decision]
) -> Iterator[tuple[int, _Model, _Context, list[int], bool,
                   list[tuple[int, int, int, int, int, int]]]]:
    """(index, model, the decision's context, unseen cards, pineapple, candidates' afters) of
    every decision."""
    model = _model(Rules(variant=variant), config)
    for k, (_, opponents, unseen, pineapple, afters) in enumerate(decisions):
        ctx = _Context(model, [_Opponent(q, exact, lower, model.tables)
                               for q, exact, lower in opponents])
        yield k, model, ctx, unseen, pineapple, afters


def _backup_targets(job: tuple[str, AIConfig, list[Decision], int, int]) -> list[list[Sample]]:
    """Samples of decisions of one stage: each candidate's target is what the policy (greedy on
    ``config``'s value, exact when a move finishes the board) makes of one more street,
    averaged over ``draws`` sampled streets (every possible street when ``draws`` <= 0)."""
    variant, config, decisions, draws, seed = job
    out = []
    for k, model, ctx, unseen, pineapple, afters in _contexts(variant, config, decisions):
        targets = ctx.fast().lookahead(afters, unseen, draws, seed * 1_000_003 + k, pineapple)
        group = []
        for a, target in zip(afters, targets, strict=True):
            stage, x = model.features(a[0], a[1], a[2])
            group.append((stage, x, target))
        out.append(group)
    return out


def _mc_targets(job: tuple[str, AIConfig, list[Decision], int, int]) -> list[list[Sample]]:
    """Samples of decisions: each candidate's target is the Monte Carlo value of the compiled
    search's rollout policy (``config``: its value, lookahead and rows) over ``futures``
    sampled futures (the same for every candidate of a decision); features of the same rows."""
    variant, config, decisions, futures, seed = job
    out = []
    for k, _, ctx, unseen, pineapple, afters in _contexts(variant, config, decisions):
        fast = ctx.fast(unseen if config.live_rows else None, seed * 7_919 + k)
        draws = config.lookahead_draws if pineapple else config.ofc_lookahead_draws
        if draws:
            fast.set_lookahead(draws, config.lookahead_moves, config.lookahead_free)
        free = sum(afters[0][3:])
        need = min(free // 2 * 3 if pineapple else free, len(unseen))
        _, values, _, _, _ = fast.simulate(afters, unseen, need, futures, seed * 1_000_003 + k,
                                           pineapple)
        group = []
        for a, vals in zip(afters, values, strict=True):
            stage, x = fast.features(a[0], a[1], a[2])
            group.append((stage, x, sum(vals) / len(vals)))
        out.append(group)
    return out


def _mc(
    variant: str, hands: int, sims: int, futures: int, rounds: int, ridge: float, workers: int,
    start: dict[int, tuple[float, ...]], seed: int, base: AIConfig,
) -> tuple[dict[int, tuple[float, ...]], str]:
    """Rounds of policy iteration with the compiled search: positions from the AI's hands, Monte
    Carlo targets of the current policy for every candidate, a centered ridge fit per stage."""
    weights = dict(start)
    log = []
    for round_no in range(rounds):
        config = replace(base, value_weights=tuple(sorted(weights.items())) or None,
                         learned=bool(weights))
        t = time.perf_counter()
        with Pool(workers) as pool:
            played = pool.map(_collect, [(variant, seed + round_no * 100_000 + k, config, sims)
                                         for k in range(hands)], chunksize=2)
        decisions = [d for h in played for d in h]
        chunks = [decisions[i::workers] for i in range(workers)]
        with Pool(workers) as pool:
            parts = pool.map(_mc_targets, [(variant, config, c, futures, seed + round_no * 10 + i)
                                           for i, c in enumerate(chunks)])
        groups = [g for part in parts for g in part]
        fitted, report = _fit(groups, ridge, weights, centered=True)
        weights.update(fitted)
        log.append(f"{variant} mc round {round_no + 1}: {hands} hands, {len(groups)} decisions, "
                   f"{sum(len(g) for g in groups)} positions, {futures} futures each "
                   f"({time.perf_counter() - t:.0f} s)\n{report}")
        print(log[-1])
        sys.stdout.flush()
    return weights, "\n".join(log)


def _backup(
    variant: str, hands: int, sims: int, draws: int, ridge: float, workers: int,
    start: dict[int, tuple[float, ...]], seed: int,
) -> tuple[dict[int, tuple[float, ...]], str]:
    """Fitted value iteration: positions from the current AI's hands; the stages are fitted
    from the last street back, each on one-street lookahead targets of the value fitted for
    the stage after it."""
    config = replace(DEFAULT_CONFIG, value_weights=tuple(sorted(start.items())) or None,
                     learned=bool(start))
    t = time.perf_counter()
    with Pool(workers) as pool:
        played = pool.map(_collect, [(variant, seed + k, config, sims) for k in range(hands)],
                          chunksize=2)
    decisions = [d for h in played for d in h]
    log = [f"{variant} backup: {hands} hands, {len(decisions)} decisions, "
           f"{sum(len(d[4]) for d in decisions)} positions ({time.perf_counter() - t:.0f} s)"]
    print(log[-1])
    weights = dict(start)
    for stage in sorted({d[0] for d in decisions}):
        t = time.perf_counter()
        mine = [d for d in decisions if d[0] == stage]
        # the last street is exact; earlier ones sample `draws` streets
        n = 0 if (stage <= 2 and mine[0][3]) or not mine[0][3] else draws
        config = replace(DEFAULT_CONFIG, value_weights=tuple(sorted(weights.items())) or None,
                         learned=bool(weights))
        chunks = [mine[i::workers] for i in range(workers)]
        with Pool(workers) as pool:
            parts = pool.map(_backup_targets,
                             [(variant, config, c, n, seed + i) for i, c in enumerate(chunks)])
        groups = [g for part in parts for g in part]
        fitted, report = _fit(groups, ridge, start, centered=True)
        weights[stage] = fitted[stage]
        log.append(f"{report} (targets: {'every street' if n <= 0 else f'{n} streets'}, "
                   f"{time.perf_counter() - t:.0f} s)")
        print(log[-1])
        sys.stdout.flush()
    return weights, "\n".join(log)


def _regret(y: Any, gid: Any, score: Any) -> float:
    """Mean over decisions of (best candidate's target - target of the one ``score`` picks)."""
    import numpy as np

    return float(np.mean([y[gid == k].max() - y[gid == k][np.argmax(score[gid == k])]
                          for k in np.unique(gid)]))


def _fit(
    groups: list[list[Sample]], ridge: float, played: dict[int, tuple[float, ...]],
    centered: bool = False,
) -> tuple[dict[int, tuple[float, ...]], str]:
    """Ridge weights per stage, and a report comparing them on held-out decisions with
    ``played``, the weights of the value that played the rollouts (absent stage: ``Q``).

    With ``centered`` the fit sees only the differences between the candidates of one decision
    (features and targets less their decision's mean): the rollout policy only ever compares
    the moves of one position, so what separates one position from another is noise to it.
    The constant then makes the mean prediction the mean target (it ranks nothing)."""
    import numpy as np

    random.Random(1).shuffle(groups)
    by_stage: dict[int, list[list[Sample]]] = {}
    for g in groups:
        by_stage.setdefault(g[0][0], []).append(g)
    n = FEATURE_COUNT
    plain_q = tuple(1.0 if i == 1 else 0.0 for i in range(n))  # Q itself: feature 1
    weights: dict[int, tuple[float, ...]] = {}
    report = []

    def within(v: Any, gid: Any) -> Any:
        """``v`` less the mean of its decision (rows grouped by ``gid``)."""
        sums = np.zeros((int(gid.max()) + 1, *v.shape[1:]))
        np.add.at(sums, gid, v)
        counts = np.maximum(np.bincount(gid), 1).reshape(-1, *([1] * (v.ndim - 1)))
        return v - (sums / counts)[gid]

    def solve(x: Any, y: Any, gid: Any) -> Any:
        if not centered:
            a = x.T @ x + ridge * np.eye(x.shape[1])
            a[0, 0] -= ridge  # no penalty on the constant
            return np.linalg.solve(a, x.T @ y)
        xc = within(x, gid)
        w = np.linalg.solve(xc.T @ xc + ridge * np.eye(x.shape[1]), xc.T @ within(y, gid))
        w[0] += float(np.mean(y - x @ w))
        return w

    left = np.array([i for i, _ in QUADRATIC_TERMS])
    right = np.array([j for _, j in QUADRATIC_TERMS])
    for stage, gs in sorted(by_stage.items()):
        base = np.array([s[1] for g in gs for s in g])
        x = np.hstack([base, base[:, left] * base[:, right]])  # quadratic_features, vectorised
        y = np.array([s[2] for g in gs for s in g])
        gid = np.array([k for k, g in enumerate(gs) for _ in g])
        weights[stage] = tuple(round(float(v), 6) for v in solve(x, y, gid))
        train, test = gid < int(len(gs) * 0.8), gid >= int(len(gs) * 0.8)
        if not train.any():  # one decision at this stage (a tiny run): nothing to hold out
            report.append(f"stage {stage:2d}: {len(y):6d} positions of {len(gs)} decision(s): "
                          "too few to hold any out")
            continue
        pred = x[test] @ solve(x[train], y[train], gid[train])
        before = x[test] @ np.array(played.get(stage, plain_q))
        yt, gt = within(y[test], gid[test]), gid[test]
        # held-out candidates all worth the same leave nothing to explain: no R^2
        var = float(yt.var())
        r2 = (f"{1.0 - float(((within(pred, gt) - yt) ** 2).mean()) / var:.3f}" if var > 0
              else "n/a")
        report.append(f"stage {stage:2d}: {int(train.sum()):6d} positions, held-out R^2 within "
                      f"decisions {r2}, "
                      f"regret fitted {_regret(y[test], gid[test], pred):.3f} vs rollout value "
                      f"{_regret(y[test], gid[test], before):.3f}")
    return weights, "\n".join(report)


def _write(path: Path, fitted: dict[str, dict[int, tuple[float, ...]]],
           notes: dict[str, str]) -> None:
    lines = [
        '"""Weights of the AI\'s learned board value (generated by ``python -m bench.fit_value``;',
        "do not edit by hand).",
        "",
        "Per variant and stage (free slots left on the board): the weights of",
        "``engine.ai.quadratic_features``: ``engine.ai.BOARD_FEATURES``, the top's, middle's",
        "and bottom's ``ROW_FEATURES``, then the products ``QUADRATIC_TERMS``.",
        "``FIT_NOTES`` says how each variant was fitted.",
        '"""',
        "",
        "FIT_NOTES: dict[str, str] = {",
    ]
    for variant, note in sorted(notes.items()):
        lines.append(f"    {variant!r}: (")
        lines.extend(f"        {line + chr(10)!r}" for line in note.splitlines())
        lines.append("    ),")
    lines += ["}", "", "VALUE_WEIGHTS: dict[str, dict[int, tuple[float, ...]]] = {"]
    for variant, table in sorted(fitted.items()):
        lines.append(f"    {variant!r}: {{")
        for stage, w in sorted(table.items()):
            lines.append(f"        {stage}: (")
            for i in range(0, len(w), 6):
                lines.append("            " + " ".join(f"{v!r}," for v in w[i:i + 6]))
            lines.append("        ),")
        lines.append("    },")
    lines.append("}")
    path.write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.fit_value", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", choices=("pineapple", "ofc"), action="append")
    p.add_argument("--hands", type=int, default=1000, help="hands per round")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--futures", type=int, default=48, help="rollouts per candidate position")
    p.add_argument("--ridge", type=float, default=1.0)
    p.add_argument("--centered", action="store_true",
                   help="fit the differences between the candidates of a decision only")
    p.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    p.add_argument("--live", action="store_true",
                   help="mc: live rows (fills from the cards the seat has not seen)")
    p.add_argument("--method", choices=("rollouts", "backup", "mc"), default="rollouts",
                   help="targets: the rollout policy's Monte Carlo values (rounds of policy "
                        "improvement), or fitted value iteration (one-street lookahead of the "
                        "next stage's fitted value, from the last street back)")
    p.add_argument("--draws", type=int, default=400,
                   help="backup: sampled streets per target (the last street: every street)")
    p.add_argument("--sims", type=int, default=60,
                   help="simulations per decision of the AI that plays the hands (the positions "
                        "whose candidates are fitted)")
    p.add_argument("--start", choices=("builtin", "static"), default="builtin",
                   help="backup: the value that plays the hands (built-in weights or Q)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--against", choices=("mixed", "random", "self"), default="mixed",
                   help="rollouts method: the AI's opponent in the hands played (mixed: "
                        "random in every other hand, self-play in the rest)")
    p.add_argument("--config", default="",
                   help="AI settings of the fitting games and rollouts (AIConfig fields, as "
                        "bench.ai's --config), e.g. foul_extra=10 (the rollouts and mc methods)")
    p.add_argument("--write", action="store_true", help="write engine/ai_values.py")
    p.add_argument("--json", default=None,
                   help="also write the fitted weights to this JSON file (for experiments)")
    args = p.parse_args(argv)
    if args.config and args.method == "backup":
        p.error("--config sets the AI of the rollouts and mc methods; --method backup does not "
                "read it")
    from engine.ai_values import FIT_NOTES, VALUE_WEIGHTS

    fitted = {k: dict(v) for k, v in VALUE_WEIGHTS.items()}
    notes = dict(FIT_NOTES)
    cmd = "python -m bench.fit_value " + " ".join(sys.argv[1:] if argv is None else argv)
    for variant in args.variant or ["pineapple", "ofc"]:
        if args.method == "mc":
            start = dict(VALUE_WEIGHTS.get(variant, {})) if args.start == "builtin" else {}
            base = parse_config(args.config, replace(DEFAULT_CONFIG, live_rows=args.live))
            weights, text = _mc(variant, args.hands, args.sims, args.futures, args.rounds,
                                args.ridge, args.workers, start, args.seed, base)
            fitted[variant] = weights
            notes[variant] = f"``{cmd.strip()}``\n{text}"
            continue
        if args.method == "backup":
            start = dict(VALUE_WEIGHTS.get(variant, {})) if args.start == "builtin" else {}
            weights, text = _backup(variant, args.hands, args.sims, args.draws, args.ridge,
                                    args.workers, start, args.seed)
            fitted[variant] = weights
            notes[variant] = f"``{cmd.strip()}``\n{text}"
            continue
        base = parse_config(args.config)
        config: AIConfig = replace(base, learned=False)
        weights: dict[int, tuple[float, ...]] = {}
        log = [f"``{cmd.strip()}``"]
        for round_no in range(args.rounds):
            t = time.perf_counter()
            jobs = [(variant, round_no * 100_000 + k, args.futures, config, args.against,
                     args.sims) for k in range(args.hands)]
            with Pool(args.workers) as pool:
                hands = pool.map(_play_and_sample, jobs, chunksize=2)
            groups = [g for h in hands for g in h]
            weights, report = _fit(groups, args.ridge, weights, args.centered)
            head = (f"{variant} round {round_no + 1}: {args.hands} hands, {len(groups)} "
                    f"decisions, {sum(len(g) for g in groups)} positions, {args.futures} "
                    f"rollouts each ({time.perf_counter() - t:.0f} s)")
            print(head)
            print(report)
            sys.stdout.flush()
            log.append(head + "\n" + report)
            config = replace(base, learned=True, value_weights=tuple(sorted(weights.items())))
        fitted[variant] = weights
        notes[variant] = "\n".join(log)
    if args.json:
        import json

        Path(args.json).write_text(json.dumps(
            {v: {str(k): list(w) for k, w in t.items()} for v, t in fitted.items()}))
    if args.write:
        _write(Path(__file__).resolve().parent.parent / "engine" / "ai_values.py", fitted, notes)
        print("wrote engine/ai_values.py")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
