"""Memory of the table service over many tables: ``python -m bench.memory``.

A bot runs for months and sees thousands of tables open and close: what it keeps of each must
go when the table goes.  This opens a table (two players, pineapple, no stakes), plays one hand
(every decision by ``Hand.autoplay``, as a timeout would), closes it, and again, on a database
file; Python's traced memory (``tracemalloc``, after a garbage collection) is read every
``--step`` tables.  The peer is the same service after its first ``--step`` tables (its caches
warm): the figure is what each later table left behind, in bytes per table.

Options: ``--tables N`` (default 500), ``--step S`` (default 100), ``--json``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from bot.service import TableService, TableState
from bot.store import Store

GUILD, HOST, GUEST = 1, 7, 8


class _Quiet:
    """A notifier that keeps nothing (a channel nobody reads)."""

    async def table_changed(self, t: TableState) -> None:
        pass

    async def turn_started(self, t: TableState, seats: list[int], requirement: Any) -> None:
        pass

    async def fantasyland_dealt(self, t: TableState, seat_no: int) -> None:
        pass

    async def showdown(self, t: TableState, result: Any) -> None:
        pass

    async def notice(self, t: TableState, text: str, *, ping: bool = True) -> None:
        pass


async def _one_table(svc: TableService, channel: int) -> None:
    await svc.new_table(GUILD, channel, HOST, "host", variant="pineapple", stake=0, buyin=0)
    await svc.join(GUILD, channel, GUEST, "guest", buyin=0)
    await svc.start(channel, HOST)
    t = svc.table_in_channel(channel)
    while t.hand is not None and not t.hand.is_over:
        async with t.lock:
            t.hand.autoplay(t.hand.to_act()[0])
            await svc._after_action(t)
    await svc.close(channel, HOST, True)
    for _ in range(100):  # the showdown's task and the close
        if channel not in svc._by_channel:
            break
        await asyncio.sleep(0.01)


async def _run(tables: int, step: int, db: Path) -> dict[str, Any]:
    store = await Store.open(db)
    svc = TableService(store, _Quiet(), next_hand_delay=0.01, seed_factory=lambda: "memory")
    readings: list[dict[str, float]] = []
    tracemalloc.start(1)
    started = time.perf_counter()
    try:
        for k in range(tables):
            await _one_table(svc, 10_000 + k)
            if (k + 1) % step == 0:
                gc.collect()
                readings.append({"tables": k + 1,
                                 "traced_bytes": tracemalloc.get_traced_memory()[0],
                                 "open_tables": len(svc.tables),
                                 "seconds": time.perf_counter() - started})
    finally:
        tracemalloc.stop()
        await svc.shutdown()
        await store.close()
    first, last = readings[0], readings[-1]
    later = last["tables"] - first["tables"]
    per_table = (last["traced_bytes"] - first["traced_bytes"]) / later if later else 0.0
    return {"tables": tables, "step": step, "readings": readings,
            "bytes_per_table_after_warmup": per_table,
            "growth_ratio": last["traced_bytes"] / first["traced_bytes"]}


def run(tables: int = 500, step: int = 100) -> dict[str, Any]:
    if tables < step or step < 1:
        raise ValueError("--tables must be at least --step, which is at least 1")
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(_run(tables, step, Path(tmp) / "memory.sqlite3"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.memory", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--step", type=int, default=100)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        result = run(args.tables, args.step)
    except ValueError as e:
        parser.error(str(e))
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for r in result["readings"]:
        print(f"{r['tables']:>6} tables: {r['traced_bytes'] / 1e6:7.2f} MB traced, "
              f"{r['open_tables']} open, {r['seconds']:.0f} s")
    print(f"after the first {args.step} tables: {result['bytes_per_table_after_warmup']:+.0f} "
          f"bytes per table (traced memory ×{result['growth_ratio']:.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
