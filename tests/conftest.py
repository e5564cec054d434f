"""Hooks for every test."""

from __future__ import annotations

import gc
import warnings
from typing import Any


def pytest_unconfigure(config: Any) -> None:
    """Stop the thread of every SQLite connection a test left open.  aiosqlite runs each
    connection in a thread of its own that is not a daemon: a test that fails before it closes
    its store (the failure's traceback keeps the store alive) would keep the finished test run
    from exiting, so a failing run hung until its time limit instead of failing."""
    import aiosqlite

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for obj in gc.get_objects():
            if isinstance(obj, aiosqlite.Connection) and obj._thread.is_alive():
                obj.stop()
