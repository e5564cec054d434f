"""bench.ai's bookkeeping: the per-hand breakdown adds up to the points it reports."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pytest

from bench.ai import Deal, main, paired_difference, play_deal, points_per_hand, rate, summarise
from engine.ai import DEFAULT_CONFIG
from engine.ai_values import VALUE_WEIGHTS


def test_breakdown_adds_up_and_rates_have_errors() -> None:
    # two seeded sessions of 4 hands, each played in both seat orders
    deals = [play_deal(("pineapple", "ai", "random", "easy", 20, seed, 4, DEFAULT_CONFIG))
             for seed in range(2)]
    for d in deals:
        assert len(d.regular_points) + len(d.fantasyland_points) == d.hands == sum(d.played)
        assert len(d.fantasyland_points) == d.fl_hands
        assert sum(d.totals) == sum(d.regular_points) + sum(d.fantasyland_points)
        for total, played, points in zip(d.totals, d.played, d.points, strict=True):
            assert played >= 4 and math.isclose(points, total / played)
    s = summarise(deals)
    hands = sum(d.hands for d in deals)
    assert s["regular_hands"] + s["fantasyland_hands"] == hands
    assert s["boards"] == hands - s["fantasyland_hands"]
    assert math.isclose(s["points"], sum(sum(d.totals) for d in deals) / hands)
    assert rate(0.25, 0.043) == "25.0±4.3%"
    assert s["foul_se"] >= 0 and s["fl_se"] >= 0


def test_an_entry_on_the_last_hand_of_a_session_is_played() -> None:
    # seed 0: the AI's regular board of the second (last) hand earns a fantasyland in the first
    # seat order; the session goes on for that fantasyland hand and then stops
    d = play_deal(("pineapple", "ai", "random", "easy", 20, 0, 2, DEFAULT_CONFIG))
    assert d.played[0] == 3 and d.played[1] == 2
    assert d.fantasylands[1] == 1 and d.fl_hands == 1
    assert d.fantasyland_points and d.hands == 5
    # a session of one hand stays one hand (no fantasyland is ever played)
    single = play_deal(("pineapple", "ai", "random", "easy", 20, 0, 1, DEFAULT_CONFIG))
    assert single.played == [1, 1] and single.fl_hands == 0


def test_points_per_hand_weighs_hands_and_has_the_ratio_error() -> None:
    a = Deal(totals=[30, 10], played=[3, 2])   # 40 points in 5 hands
    b = Deal(totals=[8, 12], played=[2, 2])    # 20 points in 4 hands
    c = Deal(totals=[18, 0], played=[2, 2])    # 18 points in 4 hands
    mean, se = points_per_hand([a, b, c])
    assert math.isclose(mean, 78 / 13)
    residuals = [40 - mean * 5, 20 - mean * 4, 18 - mean * 4]
    spread = math.sqrt(sum(r * r for r in residuals) / 2)
    assert math.isclose(se, spread / (13 / 3) / math.sqrt(3))
    assert math.isnan(points_per_hand([a])[1])


def test_paired_difference_is_the_difference_of_the_ratios_with_a_paired_error() -> None:
    a = [[40, 5], [20, 4], [18, 4]]
    b = [[30, 5], [22, 4], [10, 4]]
    diff, se = paired_difference(a, b)
    ma, mb = 78 / 13, 62 / 13
    assert math.isclose(diff, ma - mb)
    per_deal = [(pa - ma * ha) / (13 / 3) - (pb - mb * hb) / (13 / 3)
                for (pa, ha), (pb, hb) in zip(a, b, strict=True)]
    assert math.isclose(se, statistics.stdev(per_deal) / math.sqrt(3))
    assert paired_difference(a, a) == (0.0, 0.0)
    assert math.isnan(paired_difference(a[:1], b[:1])[1])


def test_dump_weights_and_paired_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--dump`` writes per-deal results; the built-in weights given by ``--weights`` play
    exactly as the built-in value (a paired difference of zero); other weights play other
    moves."""
    dump, weights = tmp_path / "a.json", tmp_path / "w.json"
    weights.write_text(json.dumps(
        {v: {str(k): list(w) for k, w in t.items()} for v, t in VALUE_WEIGHTS.items()}))
    common = ["--level", "easy", "--variant", "pineapple", "--match", "random", "--hands", "2",
              "--sims", "10", "--workers", "1"]
    assert main([*common, "--dump", str(dump)]) == 0
    runs = json.loads(dump.read_text())
    assert list(runs) == ["easy/pineapple/random/0/1"]
    assert [hands for _, hands in runs["easy/pineapple/random/0/1"]] == [2, 2]
    capsys.readouterr()
    assert main([*common, "--weights", str(weights), "--paired", str(dump)]) == 0
    assert f"paired with {dump}: +0.00 ± 0.00 points/hand" in capsys.readouterr().out
    flat = {v: {str(k): [0.0] * len(w) for k, w in t.items()} for v, t in VALUE_WEIGHTS.items()}
    weights.write_text(json.dumps(flat))  # a value that ranks nothing: other moves
    assert main([*common, "--weights", str(weights), "--dump", str(tmp_path / "b.json")]) == 0
    assert json.loads((tmp_path / "b.json").read_text()) != runs
