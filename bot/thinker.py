"""Where the AI thinks: bot moves, timeouts' moves, naturals and suggestions.

The AI's search runs mostly in C without releasing the GIL, so in a thread of the bot's process
it makes everything else wait at each hand-over: an image rendered while a strong bot thought
took 10x its time (5x with a 1 ms switch interval).  With ``processes`` > 0 it thinks in that
many worker processes instead (``OFC_AI_PROCESSES``, default 1): the event loop and the image
threads keep their own core.  The workers fill the AI's caches when they start
(``engine.ai.warm_up``).  A worker that dies is replaced; the call that found it dead is
thought again in a thread, so a timeout always gets its move.  ``processes=0`` thinks in
threads of the bot's process (the tests' default).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

log = logging.getLogger("ofc.thinker")

T = TypeVar("T")


def _start_worker() -> None:
    from engine.ai import warm_up

    warm_up()


def _ready() -> bool:
    return True


class Thinker:
    def __init__(self, processes: int = 0) -> None:
        if processes < 0:
            raise ValueError("processes must be 0 or more")
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None
        self._closed = False

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.processes, mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
            )
        return self._pool

    async def start(self) -> None:
        """Start the workers and wait until their caches are warm (threads: warm this
        process's caches instead)."""
        if self.processes == 0:
            from engine.ai import warm_up

            await asyncio.to_thread(warm_up)
            return
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(self._executor(), _ready)
                               for _ in range(self.processes)))

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` off the event loop (``fn`` and its arguments are sent to a worker: a
        module-level function or a bound method of a picklable object such as ``Hand``)."""
        if self.processes and not self._closed:
            loop = asyncio.get_running_loop()
            try:
                return await loop.run_in_executor(self._executor(), functools.partial(fn, *args))
            except BrokenProcessPool:
                log.error("the AI worker process died; starting a new one (this move is "
                          "thought in a thread)")
                self._drop()
        return await asyncio.to_thread(fn, *args)

    def _drop(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the workers (a decision under way is abandoned)."""
        self._closed = True
        self._drop()
