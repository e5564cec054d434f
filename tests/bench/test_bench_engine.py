"""Smoke test for ``python -m bench.engine``: the quick mode runs and its numbers make sense."""

import json
from typing import Any

import pytest

from bench import engine as bench_engine


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    return bench_engine.run(quick=True)


def test_quick_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_engine.main(["--quick", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["quick"] is True
    assert {"evaluate", "hands", "seconds"} <= data.keys()


def test_evaluate_section(results: dict[str, Any]) -> None:
    ev = results["evaluate"]
    assert ev["rates"]["ours"]["best"] > 0
    assert ev["rates"]["ours_3card"]["best"] > 0
    # our hand order agrees with every reference library that is installed
    assert all(v == 0 for v in ev["order_mismatches"].values())
    for lib, q in ev["ratios"].items():
        assert lib in ("treys", "eval7")
        assert q["ratio"] > 0 and isinstance(q["pass"], bool)


def test_hands_section(results: dict[str, Any]) -> None:
    scenarios = results["hands"]["scenarios"]
    assert set(scenarios) == {s.key for s in bench_engine.SCENARIOS}
    for sc in scenarios.values():
        assert sc["hands_per_s"]["best"] > 0
        assert sc["persistence"]["round_trip_mismatches"] == 0
        assert sc["decisions_per_hand"] >= 1


def test_random_player_settles_every_variant() -> None:
    for scenario in bench_engine.SCENARIOS:
        hand = bench_engine.play_random(scenario, 7)
        assert hand.is_over and hand.settlement is not None


def test_text_output_mentions_goals(results: dict[str, Any]) -> None:
    out = bench_engine.render(results)
    assert "ours / treys" in out and "ours / eval7" in out and "goal" in out
