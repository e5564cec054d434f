"""Where the AI thinks: bot moves, timeouts' moves, naturals and suggestions.

The AI's search runs mostly in C without releasing the GIL, so in a thread of the bot's process
it makes everything else wait at each hand-over: an image rendered while a strong bot thought
took about 10x its time (about 5x with a 1 ms switch interval).  With ``processes`` > 0 it
thinks in that many worker processes instead (``OFC_AI_PROCESSES``, default 1): the event loop
and the image threads keep their own core.  The trade-off: one worker thinks for one table at a
time (a decision takes at most its level's budget, 1 s at strong), where threads shared the
GIL; tables with bots on a machine with cores to spare can have more workers.

The first workers fill the AI's caches when they start (``engine.ai.warm_up``).  A worker that
dies is replaced (without the warm-up: it is ready in about a second) and the call that found
it dead is tried once more there, then in a thread of the bot's process, so a timeout always
gets its move; any other failure to reach a worker is thought in a thread too.  The workers
ignore Ctrl-C (the bot stops them) and exit when the bot's process is gone.  ``processes=0``
thinks in threads of the bot's process (the tests' default).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

log = logging.getLogger("ofc.thinker")

T = TypeVar("T")


def _follow_parent() -> None:
    """In a worker: Ctrl-C is the bot's to handle, and the worker ends with the bot's process
    (killed, it cannot stop its workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is None:  # pragma: no cover - always a child here
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _start_worker() -> None:
    _follow_parent()
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

    def _executor(self, warm: bool = False) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.processes, mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker if warm else _follow_parent,
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
        pool = self._executor(warm=True)
        await asyncio.gather(*(loop.run_in_executor(pool, _ready)
                               for _ in range(self.processes)))

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` off the event loop (``fn`` and its arguments are sent to a worker: a
        module-level function or a bound method of a picklable object such as ``Hand``).  What
        ``fn`` raises is raised here."""
        call = functools.partial(fn, *args)
        for attempt in (1, 2):
            if not self.processes or self._closed:
                break
            try:
                pool = self._executor()
                future = asyncio.get_running_loop().run_in_executor(pool, call)
            except BrokenProcessPool:  # its worker died between two calls: a new one
                log.error("the AI worker process had died (attempt %d); starting a new one",
                          attempt)
                self._drop(self._pool)
                continue
            except Exception:  # no worker to be had (e.g. no process can be started now)
                log.exception("could not reach an AI worker process; thinking in a thread")
                self._drop(self._pool)
                break
            try:
                return await future
            except BrokenProcessPool:
                log.error("the AI worker process died (attempt %d); starting a new one", attempt)
                self._drop(pool)
        return await asyncio.to_thread(call)

    def _drop(self, pool: ProcessPoolExecutor | None) -> None:
        """Stop ``pool`` and forget it if it is still the current one (a late report about
        an old pool must not stop its replacement)."""
        if pool is None:
            return
        if self._pool is pool:
            self._pool = None
        try:
            # to stop them for good (a pool already shut down, by the first of several calls
            # that found it broken, has None here)
            processes = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                if process.is_alive():
                    process.terminate()
        except Exception:  # never in the way of the retry
            log.exception("stopping an AI worker process failed")

    def close(self) -> None:
        """Stop the workers (a decision under way is abandoned)."""
        self._closed = True
        self._drop(self._pool)
