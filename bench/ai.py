"""Benchmark of the AI player (``make bench-ai`` runs ``python -m bench.ai``).

Duplicate style: every deal (a fixed seed) is played twice with the seats swapped, so both
players get the same cards; a player's result for a deal is the mean of its two results, and the
standard error is taken over deals.  Matches: the AI vs a random legal player, the AI vs a simple
greedy player (the best move by the AI's static board value ``Q``, no simulation), and AI self-play
(foul and fantasyland rates).  By default every hand is a fresh hand; ``--session K`` plays K
hands per deal with fantasyland carried over (button per ``engine.hand.next_button``).

What pts/hand measures: the mean settlement per hand played.  With ``--session 1`` no fantasyland
hand is ever played, so a fantasyland entry is worth nothing there (it shows only in the FL
column); with ``--session K`` (K > 1) the fantasyland hands the entries earn are played (by the
solver) and counted, so pts/hand includes what fantasyland is worth.  A session plays K hands
and then goes on while someone is in fantasyland, so it is made of whole runs "a regular hand
and the fantasyland hands it earned" (an entry on the K-th hand is played, not lost), and
pts/hand is the sum of the points over the sum of the hands (a ratio estimator, its standard
error by the delta method over deals): the long-run points per hand of a table that goes on
playing, whatever K (until 2026-11-23 a session stopped after K hands, which dropped the last
entries and measured 0.18 +- 0.05 points/hand less: strong pineapple against random, K = 8, deals 0-99).

The levels think for a time budget, so a run is only comparable with one made on an equally
busy machine (``--paired``: both runs at once, ``--workers 1`` each, on an otherwise idle
2-core machine), or with ``--sims``.  A run beside a 2-process ``bench.fit_value`` thought
0.48 s per decision (max 1.11) instead of 0.36 (max 0.97) and measured -0.99 +- 0.37 paired for
a change (the average of three fits' weights) whose own effect it cannot tell from the load's.

    python -m bench.ai                      # the default run: normal (60 deals), strong (48)
    python -m bench.ai --quick              # a short smoke run
    python -m bench.ai --level strong --hands 60 --variant pineapple --match random
    python -m bench.ai --session 4          # sessions of 4 hands, fantasyland carried over
    python -m bench.ai --sims 200           # fixed simulations per decision instead of time
    python -m bench.ai --fl-values 13:8,14:10,15:13,16:16,17:19 --config foul_extra=2
                                            # other AI settings (AIConfig fields)
    python -m bench.ai ... --dump a.json    # per-deal results, then a change on the same deals:
    python -m bench.ai ... --weights w.json --paired a.json
                                            # other value weights (bench.fit_value --json),
                                            # the paired difference with a.json's run
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from multiprocessing import Pool
from pathlib import Path

from engine import Hand, Rules, next_button
from engine.ai import DEFAULT_CONFIG, LEVELS, AIConfig, choose_move, choose_natural, static_value
from engine.autoplay import street_moves

STRONG_DEALS = 48
"""Deals per strong match by default (96 hands): the standard error of pts/hand stays below
±1 point (strong pineapple vs greedy, the noisiest match, measured ±1.03 over 40 deals)."""

Player = Callable[[Hand, int], float]
"""Acts for a seat; returns the seconds it thought."""


def random_player(hand: Hand, seat: int) -> float:
    rng = random.Random(f"random/{hand.seed}/{len(hand.log)}/{seat}")
    req = hand.requirement(seat)
    assert req is not None
    if req.is_set:
        cards = list(req.cards)
        rng.shuffle(cards)
        rows = [0] * 3 + [1] * 5 + [2] * 5
        hand.place(seat, list(zip(cards[:13], rows, strict=True)), cards[13:])
        return 0.0
    placed, dropped = rng.choice(street_moves(req))
    hand.place(seat, placed, dropped)
    return 0.0


_PLAIN = replace(DEFAULT_CONFIG, learned=False)


def greedy_player(hand: Hand, seat: int) -> float:
    """The best move by the static board value ``Q`` (random fills; not the learned value, no
    look-ahead beyond it)."""
    req = hand.requirement(seat)
    assert req is not None
    if req.is_set:
        hand.autoplay(seat)
        return 0.0
    board = hand.boards[seat]
    best = max(street_moves(req),
               key=lambda m: static_value(board.place(m[0]), hand.rules, _PLAIN))
    hand.place(seat, *best)
    return 0.0


def parse_config(text: str, base: AIConfig = DEFAULT_CONFIG) -> AIConfig:
    """``base`` with the ``AIConfig`` fields that ``text`` sets (``foul_extra=10,learned=0``;
    a tuple's items separated by ``/``, their parts by ``:``, ``street_bias=8:14:4.5/8:13:2.0``)."""
    config = base
    for item in filter(None, text.split(",")):
        key, _, value = (x.strip() for x in item.partition("="))
        old = getattr(DEFAULT_CONFIG, key)
        new: object
        if isinstance(old, bool):
            new = value.lower() in ("1", "true", "yes")
        elif isinstance(old, tuple):  # street_bias=8:14:4.5/8:13:2
            new = tuple(tuple(float(x) if "." in x else int(x) for x in entry.split(":"))
                        for entry in filter(None, value.split("/")))
        else:
            new = type(old)(value)
        config = replace(config, **{key: new})
    return config


def ai_player(level: str, sims: int | None, config: AIConfig = DEFAULT_CONFIG) -> Player:
    def play(hand: Hand, seat: int) -> float:
        t = time.perf_counter()
        req = hand.requirement(seat)
        assert req is not None
        if req.is_set and hand.rules.variant == "chinese":
            natural = choose_natural(hand, seat)
            if natural:
                hand.declare(seat, natural)
                return time.perf_counter() - t
        rng = random.Random(f"ai/{hand.seed}/{len(hand.log)}/{seat}")
        placed, dropped = choose_move(hand, seat, level, rng=rng, simulations=sims,
                                      config=config)
        hand.place(seat, placed, dropped)
        return time.perf_counter() - t

    return play


def make_player(name: str, level: str, sims: int | None) -> Player:
    if name == "random":
        return random_player
    if name == "greedy":
        return greedy_player
    return ai_player(level, sims)


@dataclass
class Deal:
    """One deal (a session of hands) played in both seat orders."""

    points: list[float] = field(default_factory=list)
    """Player A's points per hand in each orientation."""
    totals: list[int] = field(default_factory=list)
    """Player A's points in each orientation ..."""
    played: list[int] = field(default_factory=list)
    """... and the hands it took (``session``, more when fantasyland was still owed)."""
    fouls: list[int] = field(default_factory=list)
    """Per regular (not fantasyland) board of player A (and of B in self-play)."""
    fantasylands: list[int] = field(default_factory=list)
    """Per regular board: 1 when it earned a fantasyland."""
    royalties: list[int] = field(default_factory=list)
    fl_hands: int = 0
    """Fantasyland hands player A played."""
    regular_points: list[int] = field(default_factory=list)
    """Player A's result in each of its regular hands ..."""
    fantasyland_points: list[int] = field(default_factory=list)
    """... and in each of its fantasyland hands (what a fantasyland is worth)."""
    hands: int = 0
    times: list[float] = field(default_factory=list)


def play_deal(args: tuple[str, str, str, str, int | None, int, int, AIConfig]) -> Deal:
    """``session`` hands with fantasyland carried over (button per ``next_button``), then more
    while a fantasyland is owed (``session`` > 1; see the module's docstring), played twice:
    seats as given, then swapped (the same seeds: a duplicate match).  In self-play the second
    run is a different deal instead (swapping identical players would repeat it)."""
    variant, a_name, b_name, level, sims, seed, session, config = args
    rules = Rules(variant=variant)
    a = ai_player(level, sims, config) if a_name == "ai" else make_player(a_name, level, sims)
    b = ai_player(level, sims, config) if b_name == "ai" else make_player(b_name, level, sims)
    deal = Deal()
    selfplay = a_name == b_name
    for swap in (False, True):
        players = [b, a] if swap else [a, b]
        seat_a = 1 if swap else 0
        fl: tuple[int, ...] = (0, 0)
        button = 1
        total = k = 0
        while k < session or (session > 1 and any(fl)):
            name = f"{seed}/{k}" if not (selfplay and swap) else f"{seed}/{k}/second"
            hand = Hand(rules, ["P0", "P1"], button=button, fantasyland=fl,
                        seed=f"bench/{variant}/{name}")
            while not hand.is_over:
                seat = hand.to_act()[0]
                spent = players[seat](hand, seat)
                if (seat == seat_a or selfplay) and spent:
                    deal.times.append(spent)
            s = hand.settlement
            assert s is not None
            total += s.totals[seat_a]
            deal.hands += 1
            deal.fl_hands += int(hand.fantasyland[seat_a] > 0)
            (deal.fantasyland_points if hand.fantasyland[seat_a] else deal.regular_points).append(
                s.totals[seat_a])
            for seat in (0, 1) if selfplay else (seat_a,):
                if hand.fantasyland[seat]:
                    continue
                deal.fouls.append(int(s.fouled[seat]))
                deal.royalties.append(s.royalties[seat])
                deal.fantasylands.append(int(hand.fantasyland_next[seat] > 0))
            fl = hand.fantasyland_next
            button = next_button(button, 2, fl, rules)
            k += 1
        deal.points.append(total / k)
        deal.totals.append(total)
        deal.played.append(k)
    return deal


def run_match(
    variant: str, a: str, b: str, level: str, sims: int | None, deals: int, workers: int,
    first_seed: int = 0, session: int = 1, config: AIConfig = DEFAULT_CONFIG,
) -> list[Deal]:
    jobs = [(variant, a, b, level, sims, first_seed + i, session, config) for i in range(deals)]
    if workers > 1:
        with Pool(workers) as pool:
            return pool.map(play_deal, jobs, chunksize=1)
    return [play_deal(j) for j in jobs]


def summarise(deals: Sequence[Deal]) -> dict[str, float]:
    mean, se = points_per_hand(deals)
    n = len(deals)
    fouls = [x for d in deals for x in d.fouls]
    fls = [x for d in deals for x in d.fantasylands]
    roys = [x for d in deals for x in d.royalties]
    times = [x for d in deals for x in d.times]
    return {
        "deals": n,
        "points": mean,
        "se": se,
        "foul": statistics.fmean(fouls),
        "fl": statistics.fmean(fls),
        "royalties": statistics.fmean(roys),
        "time_mean": statistics.fmean(times) if times else 0.0,
        "time_max": max(times) if times else 0.0,
        "decisions": len(times),
        "boards": len(fouls),
        "foul_se": se_over_deals(deals, lambda d: d.fouls),
        "fl_se": se_over_deals(deals, lambda d: d.fantasylands),
        "regular": mean_of([x for d in deals for x in getattr(d, "regular_points", [])]),
        "regular_hands": sum(len(getattr(d, "regular_points", [])) for d in deals),
        "fantasyland": mean_of([x for d in deals for x in getattr(d, "fantasyland_points", [])]),
        "fantasyland_hands": sum(len(getattr(d, "fantasyland_points", [])) for d in deals),
    }


def points_per_hand(deals: Sequence[Deal]) -> tuple[float, float]:
    """Player A's points per hand, the sum of its points over the sum of the hands (each
    orientation of a deal weighs its hands), and the standard error of that ratio over deals
    (delta method: the spread of ``points - mean * hands`` per deal)."""
    points = [sum(d.totals) for d in deals]
    hands = [sum(d.played) for d in deals]
    n = len(deals)
    mean = sum(points) / sum(hands)
    if n < 2:
        return mean, float("nan")
    residuals = [p - mean * h for p, h in zip(points, hands, strict=True)]
    se = statistics.stdev(residuals) / statistics.fmean(hands) / math.sqrt(n)
    return mean, se


def mean_of(xs: Sequence[float]) -> float:
    return statistics.fmean(xs) if xs else float("nan")


def rate(p: float, se: float) -> str:
    """A share in percent with its standard error: ``7.8±0.7%``."""
    return f"{100 * p:.1f}±{100 * se:.1f}%"


def se_over_deals(deals: Sequence[Deal], per_deal: Callable[[Deal], list[int]]) -> float:
    """The standard error of a per-board share, taken over deals (a deal's boards share their
    cards, so they are not independent)."""
    shares = [statistics.fmean(xs) for d in deals if (xs := per_deal(d))]
    return statistics.stdev(shares) / math.sqrt(len(shares)) if len(shares) > 1 else float("nan")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.ai", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--level", choices=sorted(LEVELS), action="append",
                   help="AI level (repeatable; default: normal, then strong)")
    p.add_argument("--hands", type=int, default=None,
                   help="deals per match, each played in both seat orders (default 60 at easy "
                        f"and normal, {STRONG_DEALS} at strong)")
    p.add_argument("--variant", choices=("pineapple", "ofc"), action="append",
                   help="default: both")
    p.add_argument("--match", choices=("random", "greedy", "self"), action="append",
                   help="opponents (default: all three)")
    p.add_argument("--session", type=int, default=1,
                   help="hands per deal with fantasyland carried over, then more while a "
                        "fantasyland is owed (default 1: every hand fresh, none played)")
    p.add_argument("--sims", type=int, default=None,
                   help="fixed simulations per decision instead of the level's time budget")
    p.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    p.add_argument("--seed", type=int, default=0, help="first deal seed")
    p.add_argument("--quick", action="store_true", help="easy level, 6 deals: a smoke run")
    p.add_argument("--fl-values", default=None,
                   help="fantasyland values by hand size, e.g. 13:10,14:14.3 (default: the AI's)")
    p.add_argument("--config", default="",
                   help="other AIConfig fields, e.g. foul_extra=2,opponent_foul_power=1")
    p.add_argument("--weights", default=None,
                   help="learned-value weights from this JSON file (``python -m "
                        "bench.fit_value --json``) instead of the built-in ones")
    p.add_argument("--dump", default=None,
                   help="write every match's per-deal results to this JSON file")
    p.add_argument("--paired", default=None,
                   help="a --dump file of another run on the same deals: print the paired "
                        "difference of pts/hand (this run less that one) per match")
    args = p.parse_args(argv)
    fl_values = DEFAULT_CONFIG.fantasyland_values
    if args.fl_values:
        fl_values = tuple(
            (int(k), float(v)) for k, v in (x.split(":") for x in args.fl_values.split(","))
        )
    config = parse_config(args.config, replace(DEFAULT_CONFIG, fantasyland_values=fl_values))
    weights = json.loads(Path(args.weights).read_text()) if args.weights else {}
    earlier = json.loads(Path(args.paired).read_text()) if args.paired else {}
    dumped: dict[str, list[list[int]]] = {}
    levels = args.level or (["easy"] if args.quick else ["normal", "strong"])
    variants = args.variant or ["pineapple", "ofc"]
    matches = args.match or ["random", "greedy", "self"]
    cmd = "python -m bench.ai " + " ".join(sys.argv[1:] if argv is None else argv)
    print(f"$ {cmd.strip()}")
    print(f"levels {levels} ({', '.join(f'{k} {v} s' for k, v in LEVELS.items())} per "
          f"decision), variants {variants}, matches {matches}, session {args.session} "
          f"hand(s){' and the fantasylands owed' if args.session > 1 else ''}, "
          f"workers {args.workers}, "
          f"{f'{args.sims} simulations per decision' if args.sims else 'time budget'}, "
          f"deal seeds from {args.seed}, fantasyland values "
          f"{dict(config.fantasyland_values)}, config {args.config or 'default'}")
    print("Each deal is played twice with the seats swapped (duplicate; self-play: two deals); "
          "pts/hand is the AI's\nmean per hand, se its standard error over deals; foul, FL "
          "(fantasyland entries) and roy (royalties)\nare per regular board of the AI (both "
          "seats in self-play), foul and FL with their standard error over\ndeals; s/dec is the "
          "AI's thinking time per decision.")
    print(f"{'level':7} {'variant':9} {'vs':7} {'deals':>5} {'hands':>5} {'pts/hand':>8} "
          f"{'se':>5} {'foul ± se':>11} {'FL ± se':>11} {'roy':>5} {'s/dec':>6} {'max':>5}  "
          "time")
    sys.stdout.flush()
    for level in levels:
        deals = args.hands or (6 if args.quick else STRONG_DEALS if level == "strong" else 60)
        for variant in variants:
            for match in matches:
                b = "ai" if match == "self" else match
                t = time.perf_counter()
                mine = config
                if variant in weights:
                    mine = replace(config, learned=True, value_weights=tuple(sorted(
                        (int(k), tuple(w)) for k, w in weights[variant].items())))
                played = run_match(variant, "ai", b, level, args.sims, deals, args.workers,
                                   args.seed, args.session, mine)
                key = f"{level}/{variant}/{match}/{args.seed}/{args.session}"
                dumped[key] = [[sum(d.totals), sum(d.played)] for d in played]
                s = summarise(played)
                hands = sum(d.hands for d in played)
                pts = "    —   " if match == "self" else f"{s['points']:+8.2f}"
                se = "  — " if match == "self" else f"{s['se']:5.2f}"
                print(f"{level:7} {variant:9} {match:7} {s['deals']:5.0f} {hands:5d} {pts} "
                      f"{se:>5} {rate(s['foul'], s['foul_se']):>11} "
                      f"{rate(s['fl'], s['fl_se']):>11} "
                      f"{s['royalties']:5.2f} {s['time_mean']:6.3f} {s['time_max']:5.2f}  "
                      f"{time.perf_counter() - t:4.0f} s")
                if s["fantasyland_hands"] and match != "self":
                    print(f"{'':31}regular hands {s['regular']:+.2f} ({s['regular_hands']}), "
                          f"fantasyland hands {s['fantasyland']:+.2f} "
                          f"({s['fantasyland_hands']})")
                if match != "self" and key in earlier:
                    diff, diff_se = paired_difference(dumped[key], earlier[key])
                    print(f"{'':31}paired with {args.paired}: {diff:+.2f} ± {diff_se:.2f} "
                          "points/hand")
                sys.stdout.flush()
    if args.dump:
        Path(args.dump).write_text(json.dumps(dumped))
    return 0


def paired_difference(
    a: Sequence[Sequence[int]], b: Sequence[Sequence[int]]
) -> tuple[float, float]:
    """The difference of two runs' pts/hand on the same deals (per deal: [points, hands]) and
    its standard error over deals (delta method on each ratio, paired by deal)."""
    n = min(len(a), len(b))
    a, b = a[:n], b[:n]
    ma = sum(p for p, _ in a) / sum(h for _, h in a)
    mb = sum(p for p, _ in b) / sum(h for _, h in b)
    ha = statistics.fmean(h for _, h in a)
    hb = statistics.fmean(h for _, h in b)
    d = [(pa - ma * na) / ha - (pb - mb * nb) / hb
         for (pa, na), (pb, nb) in zip(a, b, strict=True)]
    return ma - mb, statistics.stdev(d) / math.sqrt(n) if n > 1 else float("nan")


if __name__ == "__main__":
    raise SystemExit(main())
