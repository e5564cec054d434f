"""bench.policy: the rollout policy alone, paired on the same hands."""

from __future__ import annotations

import argparse

import pytest

from bench import policy

pytest.importorskip("engine._fastai")


def test_play_is_seeded_and_each_result_is_a_whole_hand() -> None:
    a = policy.play(30, 4, 0.5, (0, 0, 0))
    assert a == policy.play(30, 4, 0.5, (0, 0, 0))
    assert len(a) == 30 and all(len(r[4]) == 17 for r in a)
    # the opponent's foul chance changes the scores, not the deals
    b = policy.play(30, 4, 0.9, (0, 0, 0))
    assert [r[4] for r in a] == [r[4] for r in b] and [r[0] for r in a] != [r[0] for r in b]


def test_summary_pairs_with_the_first_policy() -> None:
    cards = tuple(range(17))
    base = [(1.0, 0, 2, 0, cards), (3.0, 1, 0, 14, cards)]
    other = [(2.0, 0, 4, 14, cards), (5.0, 0, 2, 14, cards)]
    assert policy.summary(base) == "  2.000   50.0%   50.0%   1.00"
    # differences 1 and 2: mean 1.5, se 0.5
    assert policy.summary(other, base).endswith("  +1.500 ± 0.500")


def test_lookahead_arguments_are_checked() -> None:
    assert policy.parse_lookahead("32,8,6") == (32, 8, 6)
    for bad in ("32,8", "a,b,c", "65,8,6", "8,0,4", "8,8,14"):
        with pytest.raises(argparse.ArgumentTypeError):
            policy.parse_lookahead(bad)


def test_main_prints_every_policy(capsys: pytest.CaptureFixture[str]) -> None:
    assert policy.main(["--hands", "50", "--lookahead", "4,4,4"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "50 pineapple hands" in lines[0]
    rows = [line.split()[0] for line in lines[2:]]
    assert rows == ["greedy", "8,8,4", "4,4,4"]
    assert "±" in lines[3] and "±" in lines[4] and "±" not in lines[2]
    with pytest.raises(SystemExit):
        policy.main(["--hands", "1"])
