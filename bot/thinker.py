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

A watchdog: a call still running in a worker after ``HANG_LIMIT`` seconds (a decision takes at
most its level's budget, 1 s, a fantasyland solve milliseconds) is a hang: the worker writes
where it was stuck to the log (``faulthandler``) and exits, so that the calls queued behind it
(every table's bots and timeouts share the workers) go on in a new worker.  The hung call is not
tried again (it would hang again): its ``fallback`` runs in a thread instead (a timeout's plain
move), or ``Hung`` is raised.  (The parent knows when a call was sent, not when it began to
run: a call that had already waited the whole limit in the queue when the worker was stopped
is taken for the hung one and gets its fallback too.)  A worker whose watchdog cannot act (the
process stopped or frozen; no stderr) is killed by the bot ``HANG_MARGIN`` seconds later, with
the same outcome.  Threads (``processes=0``) have no watchdog: a thread cannot be stopped.
"""

from __future__ import annotations

import asyncio
import faulthandler
import functools
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

log = logging.getLogger("ofc.thinker")

T = TypeVar("T")

HANG_LIMIT = 30.0
"""Seconds a call may run in a worker before it counts as a hang (see the module's doc)."""
HANG_MARGIN = 5.0
"""Seconds past ``HANG_LIMIT`` after which the bot stops waiting for a worker whose own watchdog
did not act (a frozen process: stopped, or its cgroup frozen; a worker without stderr has no
watchdog): the worker is killed and the call goes the way of a hang."""


class Hung(Exception):
    """The AI did not answer within ``HANG_LIMIT`` and the call had no fallback."""


def _limited(limit: float, call: Callable[[], T]) -> T:
    """In a worker: ``call()``, the process ending (its stacks written to stderr) if it has not
    returned after ``limit`` seconds."""
    try:
        faulthandler.dump_traceback_later(limit, exit=True)
    except (AttributeError, OSError, RuntimeError, ValueError):  # no stderr to write to
        log.warning("no watchdog for this AI call: the worker has no stderr")
        return call()
    try:
        return call()
    finally:
        faulthandler.cancel_dump_traceback_later()


def _consume(future: asyncio.Future[Any]) -> None:
    """An abandoned call's outcome, read so that it is not reported as never retrieved."""
    if not future.cancelled():
        future.exception()


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
    def __init__(self, processes: int = 0, hang_limit: float = HANG_LIMIT) -> None:
        if processes < 0:
            raise ValueError("processes must be 0 or more")
        self.processes = processes
        self.hang_limit = hang_limit
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

    async def run(
        self, fn: Callable[..., T], *args: Any, fallback: Callable[[], T] | None = None,
        what: str = "",
    ) -> T:
        """``fn(*args)`` off the event loop (``fn`` and its arguments are sent to a worker: a
        module-level function or a bound method of a picklable object such as ``Hand``).  What
        ``fn`` raises is raised here.  A call that hangs in a worker (``HANG_LIMIT``) returns
        ``fallback()`` (thought in a thread) or raises ``Hung``; ``what``: the decision, named
        in the log of a call that hangs."""
        call = functools.partial(fn, *args)
        for attempt in (1, 2):
            if not self.processes or self._closed:
                break
            try:
                pool = self._executor()
                start = time.monotonic()
                future = asyncio.get_running_loop().run_in_executor(
                    pool, _limited, self.hang_limit, call)
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
                return await asyncio.wait_for(asyncio.shield(future),
                                              self.hang_limit + HANG_MARGIN)
            except TimeoutError:  # its own watchdog did not stop it: the bot does
                future.add_done_callback(_consume)
                log.error("the AI worker process did not answer nor stop within %.0f s; "
                          "killing it", self.hang_limit + HANG_MARGIN)
                self._drop(pool, kill=True)
            except BrokenProcessPool:
                self._drop(pool)
                if time.monotonic() - start < self.hang_limit:
                    log.error("the AI worker process died (attempt %d); starting a new one",
                              attempt)
                    continue
            # (it ran that long: the watchdog stopped it, or it died while a hung call held
            # the worker) not tried again
            log.error("the AI did not answer %s%s within %.1f s: its worker was stopped "
                      "(where it was stuck is above); %s", getattr(fn, "__name__", fn),
                      f" ({what})" if what else "", self.hang_limit,
                      "a plain move instead" if fallback else "given up")
            if fallback is None:
                raise Hung(f"the AI did not answer within {self.hang_limit:.0f} s")
            return await asyncio.to_thread(fallback)
        return await asyncio.to_thread(call)

    def _drop(self, pool: ProcessPoolExecutor | None, kill: bool = False) -> None:
        """Stop ``pool`` and forget it if it is still the current one (a late report about
        an old pool must not stop its replacement).  ``kill``: SIGKILL its processes (a
        stopped process never handles SIGTERM)."""
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
                    if kill:
                        process.kill()
                    else:
                        process.terminate()
        except Exception:  # never in the way of the retry
            log.exception("stopping an AI worker process failed")

    def close(self) -> None:
        """Stop the workers (a decision under way is abandoned)."""
        self._closed = True
        self._drop(self._pool)
