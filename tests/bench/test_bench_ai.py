"""bench.ai's bookkeeping: the per-hand breakdown adds up to the points it reports."""

from __future__ import annotations

import math

from bench.ai import play_deal, rate, summarise
from engine.ai import DEFAULT_CONFIG


def test_breakdown_adds_up_and_rates_have_errors() -> None:
    # two seeded sessions of 4 hands, each played in both seat orders
    deals = [play_deal(("pineapple", "ai", "random", "easy", 20, seed, 4, DEFAULT_CONFIG))
             for seed in range(2)]
    for d in deals:
        assert len(d.regular_points) + len(d.fantasyland_points) == d.hands == 8
        assert len(d.fantasyland_points) == d.fl_hands
        per_orientation = sum(d.points) * 4  # the mean per hand of each of the two runs
        assert math.isclose(per_orientation, sum(d.regular_points) + sum(d.fantasyland_points))
    s = summarise(deals)
    assert s["regular_hands"] + s["fantasyland_hands"] == 16
    assert s["boards"] == 16 - s["fantasyland_hands"]
    assert rate(0.25, 0.043) == "25.0±4.3%"
    assert s["foul_se"] >= 0 and s["fl_se"] >= 0
