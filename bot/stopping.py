"""Stopping background tasks at shutdown, even one whose cancellation gets lost."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from typing import Any

RECANCEL_EVERY = 0.5
"""Seconds between two cancellations of a task that is still running."""


async def stop_tasks(running: Callable[[], Iterable[asyncio.Future[Any]]], wait: float,
                     what: str, log: logging.Logger) -> list[asyncio.Future[Any]]:
    """Cancel the tasks that ``running()`` names until none is left, again every
    ``RECANCEL_EVERY`` seconds: a cancellation can be lost (in Python 3.11,
    ``asyncio.wait_for`` swallows it when what it waits for finishes at the same moment, and a
    library may catch it), and a task that lost one would hold up the bot's exit for good.
    After ``wait`` seconds the ones still running are logged (as ``what``) and left; they are
    returned."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    while tasks := [x for x in running() if not x.done()]:
        if loop.time() >= deadline:
            log.error("%d %s did not stop within %.0f s: %s", len(tasks), what, wait, tasks)
            return tasks
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks, timeout=min(RECANCEL_EVERY, max(0.0, deadline - loop.time())))
    return []
