"""Smoke test for ``python -m bench.boards``: it runs on a small server, times every query and
checks its kept boards against the boards added up (no threshold on time: that is the
benchmark's to report)."""

import json

import pytest

from bench import boards


def test_quick_run_times_every_query(capsys: pytest.CaptureFixture[str]) -> None:
    assert boards.main(["--hands", "30", "--repeat", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hands"] == 30 and len(data["ms"]) == 8
    assert all(ms > 0 for ms in data["ms"].values())
    assert set(data["kept_vs_added_up"]) == {"every game", "one game"}


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(SystemExit):
        boards.main(["--hands", "2"])
