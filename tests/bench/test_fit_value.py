"""The learned-value fitting script: samples are well formed and the fit recovers a known value."""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path
from typing import Any

import pytest

from bench import fit_value
from bench.ai import parse_config
from bench.fit_value import _fit, _play_and_sample
from engine.ai import BASE_COUNT, DEFAULT_CONFIG, FEATURE_COUNT, AIConfig, quadratic_features

N = FEATURE_COUNT


def value(weights: list[float], base: list[float]) -> float:
    return sum(w * v for w, v in zip(weights, quadratic_features(base), strict=True))


def test_samples_of_one_hand_are_the_candidates_of_each_decision() -> None:
    groups = _play_and_sample(("ofc", 1, 4, DEFAULT_CONFIG, "mixed", 60))  # odd: self-play
    # per seat: the first five cards and 7 single cards before the last one (exact, not sampled)
    assert len(groups) == 2 * 8  # both seats
    assert len(_play_and_sample(("ofc", 2, 4, DEFAULT_CONFIG, "mixed", 60))) == 8  # even: random
    # --against: one kind of opponent in every hand
    assert len(_play_and_sample(("ofc", 1, 4, DEFAULT_CONFIG, "random", 60))) == 8
    assert len(_play_and_sample(("ofc", 2, 4, DEFAULT_CONFIG, "self", 60))) == 2 * 8
    # --sims: the games' AI thinks less; every decision is still sampled
    assert len(_play_and_sample(("ofc", 1, 4, DEFAULT_CONFIG, "mixed", 5))) == 2 * 8
    for g in groups:
        stages = {stage for stage, _, _ in g}
        assert len(stages) == 1 and 1 <= stages.pop() <= 8  # one decision, one stage
        assert all(len(x) == BASE_COUNT for _, x, _ in g)
        assert len(g) <= 40


def test_fit_recovers_a_known_value_and_reports_against_the_played_one() -> None:
    pytest.importorskip("numpy")
    rng = random.Random(3)
    truth = [rng.uniform(-1, 1) for _ in range(N)]
    groups = []
    for _ in range(150):  # enough positions for every weight
        g = []
        for _ in range(10):
            x = [1.0] + [rng.uniform(-3, 3) for _ in range(BASE_COUNT - 1)]
            g.append((4, x, value(truth, x)))
        groups.append(g)
    weights, report = _fit(groups, 1e-9, {})
    assert list(weights) == [4]
    assert weights[4] == pytest.approx(truth, abs=1e-4)
    assert "regret fitted 0.000" in report  # exact: always picks the best candidate


def test_a_tiny_fit_reports_what_it_cannot_measure() -> None:
    """One decision at a stage leaves none to hold out, and held-out candidates that are all
    worth the same leave nothing to explain: the fit still gives weights, and the report says
    so instead of failing or dividing by zero."""
    pytest.importorskip("numpy")
    rng = random.Random(5)

    def decision(stage: int) -> list[tuple[int, list[float], float]]:
        return [(stage, [1.0] + [rng.uniform(-3, 3) for _ in range(BASE_COUNT - 1)], 2.5)
                for _ in range(3)]

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        weights, report = _fit([decision(4), decision(6), decision(6)], 1.0, {}, centered=True)
    assert "stage  4:      3 positions of 1 decision(s): too few to hold any out" in report
    assert "stage  6:      3 positions, held-out R^2 within decisions n/a" in report
    assert "nan" not in report and len(weights[4]) == len(weights[6]) == N


def test_centered_fit_learns_only_the_differences_within_a_decision() -> None:
    """A per-decision offset (what separates one position from another) is noise to the rollout
    policy: the centered fit ignores it and still ranks every decision's candidates exactly."""
    pytest.importorskip("numpy")
    rng = random.Random(4)
    truth = [rng.uniform(-1, 1) for _ in range(N)]
    groups = []
    for _ in range(200):
        offset = rng.uniform(-50, 50)
        shared = [rng.uniform(-3, 3) for _ in range(BASE_COUNT - 1)]
        g = []
        for _ in range(12):
            x = [1.0] + [v + rng.uniform(-1, 1) for v in shared]
            g.append((6, x, offset + value(truth, x)))
        groups.append(g)
    centered, report = _fit(groups, 1e-9, {}, centered=True)
    assert centered[6][1:] == pytest.approx(truth[1:], abs=1e-4)
    assert "regret fitted 0.000" in report
    assert "R^2 within decisions 1.000" in report
    plain, _ = _fit(groups, 1e-9, {})
    assert plain[6][1:] != pytest.approx(truth[1:], abs=1e-2)  # the offsets pull it off


def _record_jobs(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Pool's stand-in in ``fit_value``: the jobs are recorded (returned), then played here."""
    jobs: list[Any] = []

    class InProcess:
        def __init__(self, workers: int) -> None:
            pass

        def __enter__(self) -> InProcess:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

        def map(self, fn: Any, items: list[Any], chunksize: int = 1) -> list[Any]:
            jobs.extend(items)
            return [fn(x) for x in items]

    monkeypatch.setattr(fit_value, "Pool", InProcess)
    return jobs


def test_config_sets_the_ai_of_the_fitting_games_in_every_round(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    """``--config foul_extra=10`` fits on games and rollouts with that setting (the built-in
    pineapple value was fitted with 10, before the search's foul weight became 20)."""
    pytest.importorskip("numpy")
    jobs = _record_jobs(monkeypatch)
    out = tmp_path / "w.json"
    assert fit_value.main(["--variant", "ofc", "--hands", "2", "--rounds", "2", "--futures", "2",
                           "--config", "foul_extra=10,ofc_foul_extra=7", "--json",
                           str(out)]) == 0
    assert len(jobs) == 4 and all(j[3].foul_extra == 10 and j[3].ofc_foul_extra == 7
                                  for j in jobs)
    assert not jobs[0][3].learned and jobs[2][3].learned  # round 2 plays round 1's value
    assert json.loads(out.read_text())["ofc"]


def test_parse_config_reads_each_field_by_its_type() -> None:
    c = parse_config("foul_extra=10, learned=0,row_samples=80")
    assert (c.foul_extra, c.learned, c.row_samples) == (10.0, False, 80)
    assert parse_config("") == DEFAULT_CONFIG
    assert parse_config("street_bias=8:14:4.5/6:3:-1.0").street_bias == ((8, 14, 4.5), (6, 3, -1.0))
    with pytest.raises(AttributeError):
        parse_config("no_such_field=1")


def test_config_also_sets_the_mc_methods_games_and_rollouts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    """``--method mc --live --config ...``: the games and the Monte Carlo targets are played
    with that setting, on top of the live rows."""
    pytest.importorskip("numpy")
    jobs = _record_jobs(monkeypatch)
    out = tmp_path / "w.json"
    assert fit_value.main(["--variant", "pineapple", "--method", "mc", "--live", "--hands", "2",
                           "--rounds", "1", "--futures", "2", "--workers", "1", "--config",
                           "foul_extra=10,lookahead_draws=0", "--json", str(out)]) == 0
    games = [j[2] for j in jobs if isinstance(j[1], int)]  # (variant, k, config, sims)
    targets = [j[1] for j in jobs if isinstance(j[1], AIConfig)]  # (variant, config, ...)
    assert len(games) == 2 and len(targets) == 1
    assert all(c.foul_extra == 10 and c.lookahead_draws == 0 and c.live_rows
               for c in games + targets)
    assert json.loads(out.read_text())["pineapple"]


def test_config_with_a_method_that_does_not_read_it_is_an_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        fit_value.main(["--method", "backup", "--config", "foul_extra=10"])
    assert exit_.value.code == 2
    assert "--method backup does not read it" in capsys.readouterr().err
