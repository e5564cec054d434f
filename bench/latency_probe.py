"""The bot's real entry point (``bot.__main__.main``) with an event-loop watchdog, for
``python -m bench.latency --probe``.

Nothing of the bot is changed: before ``main()`` runs, an event loop policy arms a heartbeat
on the loop that ``bot.run`` creates (a callback every ``BEAT`` seconds that notes how late it
ran), and a thread samples the main thread's stack every ``SAMPLE`` seconds while the heartbeat
is more than ``STALL`` seconds overdue, i.e. while the event loop is not getting round to its
callbacks.  At exit it writes a JSON summary to ``$OFC_BENCH_PROBE``: every heartbeat later than
5 ms (wall time, lateness), and the sampled stack sites of the stalls.  A sample is the stack of
the main thread at that moment (the code that keeps the loop from running, or the place where
it waits for the GIL that another thread holds) and the innermost frames of the other busy
threads.  Besides, every ``PROFILE`` seconds it notes what every thread is doing (a sampling
profile: the main thread's site, None while its loop waits in ``select``, and the sites of the
other threads that are not waiting), to tell where the bot's time goes.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import linecache
import os
import re
import sys
import threading
import time
from typing import Any

BEAT = 0.010
STALL = 0.050
SAMPLE = 0.005
PROFILE = 0.010
KEEP_LATE = 0.005
PROJECT = ("/bot/", "/cogs/", "/renderer/", "/engine/")
LIBRARIES = ("/discord/", "/aiohttp/", "/aiosqlite/", "/PIL/", "/asyncio/", "/concurrent/",
             "/multiprocessing/", "/json/", "/sqlite3/", "/zlib")
IDLE_FUNCS = {"wait", "_wait_for_tstate_lock", "select", "poll", "_worker", "get", "_recv",
              "recv_bytes", "_recv_bytes", "_poll", "wait_result_broken_or_wakeup", "sleep",
              "run_forever", "_run_once", "accept", "readinto", "_read_bytes", "read"}


BLOCKING = re.compile(r"\.(get|wait|acquire|join|recv|select|poll)\(")


def _idle(frame: Any) -> bool:
    """A thread waiting for work (a queue, a lock, a socket), not running or wanting the GIL:
    its innermost Python frame is one of ``IDLE_FUNCS``, or is on a blocking call such as
    aiosqlite's ``tx.get()`` (a C queue, so no Python frame of its own)."""
    code = frame.f_code
    if code.co_name in IDLE_FUNCS:
        return True
    return bool(BLOCKING.search(linecache.getline(code.co_filename, frame.f_lineno)))


def _site(frame: Any) -> str:
    code = frame.f_code
    return f"{_short(code.co_filename)}:{frame.f_lineno} {code.co_qualname}"


def _short(path: str) -> str:
    for marker in PROJECT + LIBRARIES:
        i = path.rfind(marker)
        if i >= 0:
            return path[i + 1:]
    return os.path.basename(path)


def _stack(frame: Any, depth: int = 12) -> list[str]:
    out = []
    while frame is not None and len(out) < depth:
        out.append(_site(frame))
        frame = frame.f_back
    return out


def _key(stack: list[str]) -> str:
    """The innermost frame, plus the innermost project frame when that is not it (what called
    into the library)."""
    if not stack:
        return "?"
    inner = stack[0]
    own = next((s for s in stack if s.startswith(tuple(p.lstrip("/") for p in PROJECT))), None)
    return inner if own is None or own == inner else f"{inner}  <- {own}"


class Probe:
    def __init__(self, path: str) -> None:
        self.path = path
        self.main_id = threading.get_ident()
        self.beat = time.perf_counter()
        self.expected = self.beat
        self.beats = 0
        self.late: list[tuple[float, float]] = []  # (wall time, seconds late)
        self.samples: list[tuple[float, str, list[str]]] = []
        self.profile: list[tuple[float, str | None, list[str]]] = []
        """(wall time, the main thread's site, the busy other threads' sites) per sample."""
        self.stalls: list[tuple[float, float]] = []  # (wall time it began, seconds)
        self._stall_start: float | None = None
        self._stall_wall = 0.0
        self._stop = threading.Event()

    def arm(self, loop: asyncio.AbstractEventLoop) -> None:
        def beat() -> None:
            now = time.perf_counter()
            late = now - self.expected
            if late > KEEP_LATE:
                self.late.append((time.time(), late))
            self.beats += 1
            self.beat = now
            self.expected = now + BEAT
            loop.call_later(BEAT, beat)

        self.beat = self.expected = time.perf_counter()
        loop.call_soon(beat)

    def _others(self, frames: dict[int, Any]) -> list[str]:
        return [
            _key(_stack(frame)) for ident, frame in frames.items()
            if ident not in (self.main_id, threading.get_ident()) and not _idle(frame)
        ]

    def watch(self) -> None:
        tick = 0
        every = max(1, round(PROFILE / SAMPLE))
        while not self._stop.wait(SAMPLE):
            tick += 1
            if tick % every == 0:
                frames = sys._current_frames()
                main = frames.get(self.main_id)
                site = None if main is None or main.f_code.co_name in IDLE_FUNCS else (
                    _key(_stack(main)))
                self.profile.append((time.time(), site, self._others(frames)))
            now = time.perf_counter()
            overdue = now - self.expected
            if overdue > STALL:
                if self._stall_start is None:
                    self._stall_start = self.expected
                    self._stall_wall = time.time() - overdue
                frames = sys._current_frames()
                main = frames.get(self.main_id)
                self.samples.append((time.time(), _key(_stack(main)) if main is not None else "?",
                                     self._others(frames)))
            elif self._stall_start is not None:
                self.stalls.append((self._stall_wall, self.beat - self._stall_start))
                self._stall_start = None

    def dump(self) -> None:
        self._stop.set()
        data = {
            "beat": BEAT, "stall": STALL, "sample": SAMPLE, "beats": self.beats,
            "late": self.late, "stalls": self.stalls, "samples": self.samples,
            "profile": self.profile, "every": PROFILE,
        }
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, self.path)


def install(path: str) -> Probe:
    probe = Probe(path)

    class Policy(asyncio.DefaultEventLoopPolicy):
        def new_event_loop(self) -> asyncio.AbstractEventLoop:
            loop = super().new_event_loop()
            probe.arm(loop)
            return loop

    asyncio.set_event_loop_policy(Policy())
    threading.Thread(target=probe.watch, name="latency-probe", daemon=True).start()
    atexit.register(probe.dump)
    return probe


if __name__ == "__main__":
    install(os.environ["OFC_BENCH_PROBE"])
    from bot.__main__ import main

    raise SystemExit(main())
