"""Make the small colour emoji font the images draw emoji with (``renderer/data``).

Noto Color Emoji (SIL Open Font License 1.1, ``renderer/data/OFL.txt``) keeps every emoji as a
PNG bitmap of 136 x 128 pixels for 109 pixels an em: 11 MB.  Names are drawn at 15-24 pixels,
so this keeps the font whole (its character map and the ligatures that join ZWJ sequences,
flags, keycaps and skin tones, which FreeType and Raqm read as from the original) but scales
every bitmap to ``PPEM`` pixels an em in ``COLOURS`` colours: 3.5 MB, drawn as well at those
sizes (each emoji is scaled down from 32 pixels, never up).

Run once, from Debian's ``fonts-noto-color-emoji`` 2.042 (``apt-get download
fonts-noto-color-emoji``, then ``dpkg-deb -x`` it)::

    python -m renderer.emoji_build /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf

The result is deterministic (the same file from the same source).
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from fontTools.ttLib import TTFont  # type: ignore[import-untyped]
from PIL import Image

PPEM = 32
"""Pixels an em of the kept bitmaps (the original: 109)."""
COLOURS = 64
"""Colours a bitmap keeps (a palette of 64 with transparency)."""
OUT = Path(__file__).parent / "data" / "NotoColorEmoji-32.ttf"

_LINE_METRICS = ("ascender", "descender", "widthMax", "caretOffset", "minOriginSB",
                 "minAdvanceSB", "maxBeforeBL", "minAfterBL")


def shrink(source: Path, out: Path, ppem: int = PPEM, colours: int = COLOURS) -> int:
    """Write ``source`` with its bitmaps scaled to ``ppem``; returns how many were scaled."""
    font = TTFont(str(source), recalcTimestamp=False)
    strike = font["CBLC"].strikes[0]
    sizes = strike.bitmapSizeTable
    ratio = ppem / sizes.ppemX
    glyphs = font["CBDT"].strikeData[0]
    for glyph in glyphs.values():
        glyph.decompile()
        metrics = glyph.metrics
        image = Image.open(io.BytesIO(glyph.imageData)).convert("RGBA")
        width = max(1, round(image.width * ratio))
        height = max(1, round(image.height * ratio))
        image = image.resize((width, height), Image.Resampling.LANCZOS)
        image = image.quantize(colours, method=Image.Quantize.FASTOCTREE)
        buffer = io.BytesIO()
        image.save(buffer, "PNG", optimize=True)
        glyph.imageData = buffer.getvalue()
        metrics.width, metrics.height = width, height
        metrics.BearingX = round(metrics.BearingX * ratio)
        metrics.BearingY = round(metrics.BearingY * ratio)
        metrics.Advance = round(metrics.Advance * ratio)
    sizes.ppemX = sizes.ppemY = ppem
    for line in (sizes.hori, sizes.vert):
        for name in _LINE_METRICS:
            setattr(line, name, round(getattr(line, name) * ratio))
    out.parent.mkdir(parents=True, exist_ok=True)
    font.save(str(out))
    return len(glyphs)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__)
        return 2
    count = shrink(Path(args[0]), OUT)
    print(f"{count} bitmaps scaled to {PPEM} pixels an em: {OUT} "
          f"({OUT.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
