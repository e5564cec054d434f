"""The hooks of ``tests/conftest.py``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_failing_test_that_leaves_its_store_open_still_ends_the_run(tmp_path: Path) -> None:
    """Found while reviewing: a failed assertion before ``store.close()`` left aiosqlite's
    thread (not a daemon) running, and the finished run never exited (CI would have waited
    for its time limit, not reported the failure)."""
    test = tmp_path / "test_left_open.py"
    test.write_text(
        "from bot.store import Store\n\n"
        "async def test_left_open() -> None:\n"
        "    store = await Store.open(':memory:')\n"
        "    assert store is None\n")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest",
         "--rootdir", str(tmp_path), "-c", str(ROOT / "pyproject.toml"), str(test)],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 failed" in run.stdout
