"""Renderer speed and size: ``python -m bench.render`` (part of ``make bench``).

Prints the median wall time and PNG size of each image the bot posts on a hot path, next to a
plain Pillow baseline measured in the same run (13 rounded rectangles with text, encoded as PNG),
so that the figures can be compared across machines.  Budgets from issue 3: table (4 players)
<= 40 ms, private hand <= 15 ms, showdown <= 50 ms, every PNG <= 300 KB.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from collections.abc import Callable

from PIL import Image, ImageDraw

from renderer import (
    LeaderboardView,
    LeaderRow,
    render_hand,
    render_leaderboard,
    render_showdown,
    render_stats,
    render_table,
    table_scene,
)
from renderer import gallery as g
from renderer.fonts import font
from renderer.scene import encode, encode_pillow

MAX_KB = 300


def baseline() -> bytes:
    """Plain Pillow: 13 rounded rectangles with a rank in each, on a 480x330 canvas, as PNG."""
    im = Image.new("RGB", (480, 330), (0x1B, 0x5E, 0x40))
    d = ImageDraw.Draw(im)
    f = font("bold", 34)
    ranks = "AKQJT98765432"
    for k in range(13):
        row, col = (0, k) if k < 3 else divmod(k - 3, 5)
        if k >= 3:
            row += 1
        x = 20 + col * 68 + (68 if k < 3 else 0)
        y = 16 + row * 100
        d.rounded_rectangle((x, y, x + 62, y + 86), 6, fill=(253, 253, 251),
                            outline=(184, 188, 196))
        d.text((x + 6, y + 4), ranks[k], font=f, fill=(27, 27, 31))
    buf = io.BytesIO()
    im.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def measure(fn: Callable[[], bytes], runs: int) -> tuple[float, float, float, int]:
    """(cold ms, median wall ms, median CPU ms, PNG bytes): cold is the first call (sprites not
    cached yet); CPU time tells how much of the wall time other processes took."""
    t = time.perf_counter()
    png = fn()
    cold = (time.perf_counter() - t) * 1000
    wall, cpu = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return cold, statistics.median(wall), statistics.median(cpu), len(png)


_NEW = {
    "latin": ("Alexander", "Bob the Builder", "Carolina", "Dmitri Ivanov", "Eleanor"),
    "world": ("\U0001f525 Sam", "\u0e2a\u0e21\u0e0a\u0e32\u0e22 \u0e43\u0e08\u0e14\u0e35",
              "\u0930\u093e\u0939\u0941\u0932 \U0001f1ee\U0001f1f3", "\u738b\u4f1f \U0001f3b2",
              "\u0639\u0628\u062f\u0627\u0644\u0631\u062d\u0645\u0646 \U0001f44d\U0001f3fd"),
}
_made = [0]


def new_names(kind: str) -> LeaderboardView:
    """A leaderboard of 20 names never drawn before (their text is measured, cut and drawn
    anew: the caches do not help), Latin or from around the world (emoji, Thai, Devanagari,
    Chinese, Arabic with emoji): what the fonts cost for the names of a new server."""
    _made[0] += 1
    names = [f"{_NEW[kind][k % 5]} {_made[0]}-{k}" for k in range(20)]
    return LeaderboardView("Club", "units", "all time", tuple(
        LeaderRow(k + 1, n, 500 - 10 * k, 250 - 5 * k, 100 + k, k % 4)
        for k, n in enumerate(names)))


CASES: list[tuple[str, Callable[[], bytes], float | None]] = [
    ("table, 4 players (ofc)", lambda: render_table(g.table_ofc_4()), 40.0),
    ("table, 3 players (pineapple)", lambda: render_table(g.table_pineapple_3()), 40.0),
    ("private hand, 3 cards (pineapple)", lambda: render_hand(g.hand_pineapple()), 15.0),
    ("private hand, 17 cards (fantasyland)", lambda: render_hand(g.hand_fantasyland_17()), 15.0),
    ("showdown, 3 players (pineapple)", lambda: render_showdown(g.showdown_pineapple_3()), 50.0),
    ("showdown, 4 players (ofc)", lambda: render_showdown(g.showdown_ofc_4()), 50.0),
    ("leaderboard, 8 rows", lambda: render_leaderboard(g.leaderboard()), None),
    ("leaderboard, 20 new names (Latin)", lambda: render_leaderboard(new_names("latin")), None),
    ("leaderboard, 20 new names (world)", lambda: render_leaderboard(new_names("world")), None),
    ("stats with balance chart (matplotlib)", lambda: render_stats(g.stats()), None),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40, help="timed runs per image")
    args = parser.parse_args(argv)
    runs = max(3, args.runs)

    _, base_ms, base_cpu, base_bytes = measure(baseline, runs)
    print(f"Renderer benchmark: median of {runs} runs (wall time), after one cold call")
    print(f"baseline: plain Pillow, 13 rounded rectangles with text + PNG: {base_ms:.2f} ms "
          f"(CPU {base_cpu:.2f} ms), {base_bytes / 1024:.0f} KB")
    print()
    head = (f"{'image':38} {'cold ms':>8} {'median ms':>10} {'CPU ms':>7} {'x base':>7} "
            f"{'PNG KB':>7}  budget")
    print(head)
    print("-" * len(head))
    failed = False
    for name, fn, budget in CASES:
        cold, med, cpu, size = measure(fn, runs)
        kb = size / 1024
        verdict = ""
        if budget is not None:
            ok = med <= budget and kb <= MAX_KB
            failed |= not ok
            verdict = f"<= {budget:.0f} ms, <= {MAX_KB} KB  {'ok' if ok else 'OVER'}"
        elif kb > MAX_KB:
            failed = True
            verdict = f"<= {MAX_KB} KB  OVER"
        print(f"{name:38} {cold:8.1f} {med:10.2f} {cpu:7.2f} {med / base_ms:7.1f} {kb:7.0f}  "
              f"{verdict}")

    # the PNG writer: ours (filter 0, zlib 3) against Pillow's (adaptive filters) on one image
    im = table_scene(g.table_ofc_4()).paint()
    print()
    print("PNG encoding of the 4-player table "
          f"({im.width}x{im.height}), median ms and KB:")
    for label, enc in (("renderer.scene.encode (filter none, zlib 3)", lambda: encode(im)),
                       ("Pillow Image.save (adaptive filters, level 3)",
                        lambda: encode_pillow(im, 3)),
                       ("Pillow Image.save (adaptive filters, level 1)",
                        lambda: encode_pillow(im, 1))):
        _, med, _, size = measure(enc, runs)
        print(f"  {label:46} {med:7.2f} ms {size / 1024:6.0f} KB")
    t = time.perf_counter()
    q = im.quantize(256, method=Image.Quantize.FASTOCTREE)
    qbytes = encode_pillow(q, 3)
    qms = (time.perf_counter() - t) * 1000
    print(f"  {'palette (quantize 256, then Pillow level 3)':46} {qms:7.2f} ms "
          f"{len(qbytes) / 1024:6.0f} KB  (one run)")
    if failed:
        print("\nSome images are over budget.", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
