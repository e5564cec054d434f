"""Smoke test for ``python -m bench.memory``: it runs, every table is closed again, and the
readings are what it says (no threshold on bytes: that is the benchmark's to report)."""

import json

import pytest

from bench import memory


def test_quick_run_reads_every_step(capsys: pytest.CaptureFixture[str]) -> None:
    assert memory.main(["--tables", "6", "--step", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["tables"] for r in data["readings"]] == [3, 6]
    assert all(r["open_tables"] == 0 and r["traced_bytes"] > 0 for r in data["readings"])
    first, last = data["readings"]
    assert data["bytes_per_table_after_warmup"] == (
        (last["traced_bytes"] - first["traced_bytes"]) / 3)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(SystemExit):
        memory.main(["--tables", "2", "--step", "5"])
