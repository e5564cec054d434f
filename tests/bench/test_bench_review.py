"""Smoke test for ``python -m bench.review``: one hand of each game, its line printed."""

import re

import pytest

from bench import review


def test_one_hand_each(capsys: pytest.CaptureFixture[str]) -> None:
    assert review.main(["--hands", "1"]) == 0
    out = capsys.readouterr().out
    for variant, decisions in (("ofc", 9), ("pineapple", 5)):
        m = re.search(rf"^{variant} +(\d+\.\d) +(\d+\.\d\d) +(\d+\.\d\d) +(\d+\.\d\d)x",
                      out, re.M)
        assert m and float(m[1]) == decisions, out
        assert float(m[2]) > 0 and float(m[3]) > 0
