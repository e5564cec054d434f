"""Tasks that do not stop when cancelled, for the shutdown tests (``bot.stopping``)."""

from __future__ import annotations

import asyncio


async def loses_one_cancellation(lost: list[str]) -> None:
    """Swallows its first cancellation (as ``asyncio.wait_for`` may) and goes on waiting."""
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        lost.append("first")
    await asyncio.sleep(3600)


async def ignores_cancellation(release: asyncio.Event, lost: list[str] | None = None) -> None:
    """Swallows every cancellation until ``release`` is set (then the next one stops it)."""
    while not release.is_set():
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            if lost is not None:
                lost.append("again")


async def release_and_stop(release: asyncio.Event, task: asyncio.Future[None]) -> None:
    """A test's clean-up of an ``ignores_cancellation`` task."""
    release.set()
    task.cancel()
    await asyncio.wait({task}, timeout=1)
    assert task.done()
