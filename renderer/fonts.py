"""Fonts: DejaVu Sans from matplotlib's data (it has ♠♥♦♣; Pillow's own default font has not),
and Noto Sans CJK (from the ``mplfonts`` package) for the characters DejaVu lacks: Chinese,
Japanese and Korean names are drawn as typed.

The DejaVu files are read once at import; the CJK font's character map (16 MB file) the first
time a text needs it, and its glyphs from the file (never a copy per font object).
``FreeTypeFont`` objects are kept per thread (``threading.local``), so renders running in several
worker threads never share a FreeType face.  A text mixing both fonts is drawn run by run on one
baseline, placed by the DejaVu face's metrics, so it lines up with the names around it.
"""

from __future__ import annotations

import importlib.util
import io
import threading
import unicodedata
from functools import lru_cache
from pathlib import Path

import matplotlib
from matplotlib.ft2font import FT2Font
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
FACES: dict[str, str] = {
    "regular": "DejaVuSans.ttf",
    "bold": "DejaVuSans-Bold.ttf",
    "mono": "DejaVuSansMono-Bold.ttf",
}
CJK = "cjk"
"""The face key of the fallback font (one weight: it serves every face)."""
CJK_FILE = "NotoSansCJKsc-Regular.otf"
_DATA: dict[str, bytes] = {key: (FONT_DIR / name).read_bytes() for key, name in FACES.items()}
_LOCAL = threading.local()
_COVERED: dict[str, frozenset[int]] = {
    key: frozenset(FT2Font(str(FONT_DIR / name)).get_charmap()) for key, name in FACES.items()
}


@lru_cache(maxsize=1)
def cjk_path() -> Path | None:
    """Where the fallback font is (``mplfonts``, a dependency), or None when it is missing:
    the images then leave out what DejaVu cannot draw."""
    spec = importlib.util.find_spec("mplfonts")  # finds the package without importing it
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "fonts" / CJK_FILE
    return path if path.is_file() else None


@lru_cache(maxsize=1)
def _cjk_covered() -> frozenset[int]:
    """The fallback font's characters (read on first use)."""
    path = cjk_path()
    return frozenset(FT2Font(str(path)).get_charmap()) if path is not None else frozenset()


def font(face: str, size: int) -> ImageFont.FreeTypeFont:
    """The font ``face`` (``regular``, ``bold``, ``mono``, ``cjk``) at ``size`` pixels, cached
    per thread."""
    cache: dict[tuple[str, int], ImageFont.FreeTypeFont] | None = getattr(_LOCAL, "fonts", None)
    if cache is None:
        cache = {}
        _LOCAL.fonts = cache
    key = (face, size)
    f = cache.get(key)
    if f is None:
        if face == CJK:  # opened by path: FreeType reads the 16 MB file as it needs it
            f = ImageFont.truetype(str(cjk_path()), size)
        else:
            f = ImageFont.truetype(io.BytesIO(_DATA[face]), size)
        cache[key] = f
    return f


@lru_cache(maxsize=4096)
def drawable(text: str, face: str = "regular") -> str:
    """``text`` without the characters no font has a glyph for (emoji…), which would otherwise
    be drawn as empty boxes; the text equivalents keep the full text."""
    covered = _COVERED[face]
    if all(ord(ch) in covered for ch in text):
        return text
    extra = _cjk_covered()
    kept = "".join(ch for ch in text if ord(ch) in covered or ord(ch) in extra)
    kept = " ".join(kept.split())
    # joiners, variation selectors and lone marks left from an emoji draw nothing
    visible = any(unicodedata.category(ch)[0] in "LNPS" for ch in kept)
    return kept if visible else "?"


@lru_cache(maxsize=4096)
def runs(text: str, face: str) -> tuple[tuple[str, str], ...]:
    """``text`` as drawn (see ``drawable``), cut into runs of one font each: ``(run, face)``."""
    text = drawable(text, face)
    covered = _COVERED[face]
    out: list[tuple[str, str]] = []
    for ch in text:
        key = face if ord(ch) in covered else CJK
        if ch == " " and out:  # a space stays in the run it follows
            key = out[-1][1]
        if out and out[-1][1] == key:
            out[-1] = (out[-1][0] + ch, key)
        else:
            out.append((ch, key))
    return tuple(out)


def shown_name(name: str, number: int) -> str:
    """``name`` as an image shows it: ``Player <number>`` when the fonts can draw none of it
    (a name all in emoji), so that two such players are still told apart."""
    return name if drawable(name, "bold") != "?" else f"Player {number}"


@lru_cache(maxsize=8192)
def text_width(text: str, face: str, size: int) -> int:
    """The advance width of ``text`` in pixels (as drawn: see ``drawable``)."""
    return round(sum(font(key, size).getlength(run) for run, key in runs(text, face)))


@lru_cache(maxsize=4096)
def text_mask(text: str, face: str, size: int, anchor: str) -> tuple[Image.Image, int, int]:
    """``text`` rendered once as an anti-aliased mask, and where its top left goes relative to the
    anchor point.  Labels, names and numbers recur from one image to the next, so drawing text
    is mostly a paste; masks are never modified, so threads may share them."""
    parts = runs(text, face)
    if len(parts) <= 1 and (not parts or parts[0][1] == face):
        f = font(face, size)
        text = drawable(text, face)
        left, top, right, bottom = (int(v) for v in f.getbbox(text, anchor=anchor))
        mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
        ImageDraw.Draw(mask).text((-left, -top), text, font=f, fill=255, anchor=anchor)
        return mask, left, top
    # runs of two fonts on one baseline; the anchor from the face's metrics and the whole advance
    ascent, descent = font(face, size).getmetrics()
    advances = [font(key, size).getlength(run) for run, key in parts]
    width = sum(advances)
    pad = size
    canvas = Image.new("L", (int(width) + 2 * pad, 3 * size + 2 * pad), 0)
    draw = ImageDraw.Draw(canvas)
    baseline = pad + 2 * size
    x = float(pad)
    # the CJK font has one weight: a thin stroke stands in for bold next to bold text
    stroke = size // 30 if face != "regular" else 0
    for (run, key), advance in zip(parts, advances, strict=True):
        draw.text((x, baseline), run, font=font(key, size), fill=255, anchor="ls",
                  stroke_width=stroke if key == CJK else 0, stroke_fill=255)
        x += advance
    ink = canvas.getbbox() or (pad, baseline - 1, pad + 1, baseline)
    # from the pen's start to its end (as Pillow's own boxes), taller where the ink is
    box = (min(ink[0], pad), ink[1], max(ink[2], pad + round(width)), ink[3])
    horizontal = {"l": 0.0, "m": width / 2, "r": width}[anchor[0]]
    vertical = {"a": -ascent, "t": -ascent, "m": (descent - ascent) / 2, "s": 0,
                "b": descent, "d": descent}[anchor[1]]
    ax, ay = pad + horizontal, baseline + vertical
    return canvas.crop(box), round(box[0] - ax), round(box[1] - ay)


def fit_text(text: str, face: str, size: int, width: int) -> str:
    """``text`` cut with an ellipsis so that it fits ``width`` pixels."""
    if text_width(text, face, size) <= width:
        return text
    cut = text
    while cut and text_width(cut + "…", face, size) > width:
        cut = cut[:-1]
    return cut.rstrip() + "…" if cut else "…"
