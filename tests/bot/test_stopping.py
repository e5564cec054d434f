"""``bot.stopping.stop_tasks``: shutdown cancels until the tasks stop, and gives up in time."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from bot.stopping import stop_tasks

from ..stubborn import ignores_cancellation, loses_one_cancellation, release_and_stop

log = logging.getLogger("ofc.test")


async def test_a_task_that_lost_a_cancellation_is_cancelled_again() -> None:
    lost: list[str] = []
    polite = asyncio.ensure_future(asyncio.sleep(3600))
    stubborn = asyncio.ensure_future(loses_one_cancellation(lost))
    await asyncio.sleep(0)
    start = time.monotonic()
    left = await stop_tasks(lambda: [polite, stubborn], 5.0, "tasks", log)
    assert left == [] and polite.cancelled() and stubborn.cancelled() and lost == ["first"]
    assert time.monotonic() - start < 1.5  # the second cancellation, half a second later


async def test_a_task_that_never_stops_is_named_and_left_after_the_wait(
    caplog: pytest.LogCaptureFixture,
) -> None:
    release = asyncio.Event()
    stuck = asyncio.ensure_future(ignores_cancellation(release))
    done = asyncio.ensure_future(asyncio.sleep(0))
    await asyncio.sleep(0.01)
    start = time.monotonic()
    with caplog.at_level("ERROR", logger="ofc.test"):
        left = await stop_tasks(lambda: [stuck, done], 1.2, "widget task(s)", log)
    assert 1.2 <= time.monotonic() - start < 1.5  # the last wait ends at the deadline
    assert left == [stuck] and not stuck.done()
    assert "1 widget task(s) did not stop within 1 s" in caplog.text
    await release_and_stop(release, stuck)


async def test_nothing_running_returns_at_once() -> None:
    finished = asyncio.ensure_future(asyncio.sleep(0))
    await finished
    assert await stop_tasks(lambda: [finished], 5.0, "tasks", log) == []
    assert await stop_tasks(list, 5.0, "tasks", log) == []
